r"""The Hilbert-Schmidt independence criterion (HSIC) and the kernel independence test.

:math:`\mathrm{HSIC} = \|C_{XY}\|_{HS}^2`, the squared Hilbert-Schmidt norm of the
cross-covariance operator; with characteristic kernels it is 0 exactly under independence.
From n pairs with Gram matrices K, L and :math:`H = I - 11^\top/n`: the biased V-statistic
:math:`\mathrm{tr}(KHLH)/n^2` (Gretton et al., 2008, NeurIPS; Gretton et al., 2005, divide
by :math:`(n-1)^2`) and the unbiased estimator of Song et al. (2012, JMLR, eq. 5).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._blocks import block_rows, gen_blocks
from .._estimator_inputs import gram
from .._linalg import one_blas_thread
from .._typing import KernelFunc, Seed
from .._validation import as_generator, finite_result, validate_args
from .._validation.params import POSITIVE_INT
from ._common import center_gram, p_value, samples
from .mmd import TestResult

__all__ = ["hsic", "independence_test"]

def _grams(X: ArrayLike, Y: ArrayLike, kernel_x: KernelFunc, kernel_y: KernelFunc,
           min_rows: int, why: str) -> tuple[np.ndarray, np.ndarray]:
    """Check the paired samples; return ``K = kernel_x(X)`` and ``L = kernel_y(Y)``."""
    X, Y = samples(X, Y, min_rows, why, same_d=False, same_n=True)
    return gram(kernel_x, X, what="kernel_x(X)"), gram(kernel_y, Y, what="kernel_y(Y)")


@finite_result
@validate_args({"kernel_x": ["callable kernel"], "kernel_y": ["callable kernel"]})
def hsic(X: ArrayLike, Y: ArrayLike, *, kernel_x: KernelFunc, kernel_y: KernelFunc,
         unbiased: bool = False) -> float:
    r"""HSIC of the paired samples ``X`` and ``Y`` (rows ``X[i]``, ``Y[i]`` are one draw).

    Biased: :math:`\mathrm{tr}(KHLH)/n^2 \ge 0`.  Unbiased (Song et al., 2012, eq. 5; it
    can be negative), with :math:`\tilde K, \tilde L` the Gram matrices with zeroed diagonals:
    :math:`\frac{1}{n(n-3)}\big[\mathrm{tr}(\tilde K\tilde L) + \frac{1^\top\tilde K 1\,
    1^\top\tilde L 1}{(n-1)(n-2)} - \frac{2}{n-2}\,1^\top\tilde K\tilde L 1\big]`.

    Parameters
    ----------
    X, Y : array-like of shape (n, d_x) and (n, d_y); 1-D means points in one dimension
    kernel_x, kernel_y : callable
        Kernels ``k(A, B)`` on the x's and on the y's, e.g. ``kmlib.kernels.gaussian(1.0)``.
    unbiased : bool, default False
        The unbiased estimator (n >= 4) instead of the biased one (n >= 2).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If X or Y is not finite, their numbers of rows differ or are too small, or a kernel
        is not callable or gives a bad Gram matrix.

    Examples
    --------
    >>> from kmlib import kernels
    >>> x, k = [0.0, 1.0, 2.0, 3.0], kernels.linear()
    >>> hsic(x, x, kernel_x=k, kernel_y=k)   # (variance of x)^2 = 1.25^2
    1.5625
    """
    K, L = _grams(X, Y, kernel_x, kernel_y, 4 if unbiased else 2,
                  "the unbiased HSIC divides by n (n - 3)" if unbiased else "a pair")
    n = K.shape[0]
    if not unbiased:
        return float(np.vdot(center_gram(K)[0], L)) / n**2
    dk, dl = np.diagonal(K), np.diagonal(L)
    rk, rl = K.sum(axis=1) - dk, L.sum(axis=1) - dl        # row sums of K~ and L~
    trace = np.vdot(K, L) - dk @ dl                        # tr(K~ L~)
    return float((trace + rk.sum() * rl.sum() / ((n - 1) * (n - 2)) - 2.0 / (n - 2) * (rk @ rl))
                 / (n * (n - 3)))


@finite_result
@validate_args({"kernel_x": ["callable kernel"], "kernel_y": ["callable kernel"],
                "n_permutations": [POSITIVE_INT], "random_state": ["random_state"]})
def independence_test(X: ArrayLike, Y: ArrayLike, *, kernel_x: KernelFunc,
                      kernel_y: KernelFunc, n_permutations: int = 1000,
                      random_state: Seed = None) -> TestResult:
    r"""Permutation test of the independence of X and Y with the biased :func:`hsic`.

    The b-th permutation is the b-th call ``perm = rng.permutation(n)``,
    ``rng = np.random.default_rng(random_state)`` (or the Generator given), and
    ``null_distribution[b] = hsic(X, Y[perm])``.  K is centred once and each permutation
    costs one pass :math:`\sum_{ij} (HKH)_{ij} L_{\pi_i\pi_j}` (time O(n^2 B), memory
    O(n^2)).  p-value :math:`(1 + \#\{b : \text{null}_b \ge \text{observed} - \tau\}) / (1 + B)`
    with :math:`\tau = 10^{-9} \max|\tilde K| \max|L|`: statistics equal in exact
    arithmetic count as ties, whatever the rounding of their sums.

    Parameters
    ----------
    X, Y : array-like of shape (n, d_x) and (n, d_y); 1-D means points in one dimension
    kernel_x, kernel_y : callable
        Kernels ``k(A, B)`` on the x's and on the y's, e.g. ``kmlib.kernels.gaussian(1.0)``.
    n_permutations : int, default 1000
        The number B >= 1 of permutations.
    random_state : None, int, numpy.random.Generator or RandomState, optional

    Returns
    -------
    TestResult
        ``statistic`` is ``hsic(X, Y, ...)`` up to rounding.

    Raises
    ------
    ValueError
        If X or Y is not finite, their numbers of rows differ or are below 2,
        ``n_permutations`` is not an int >= 1, ``random_state`` is invalid, or a kernel is
        not callable or gives a bad Gram matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib import kernels
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=100)
    >>> y = x**2 + 0.1 * rng.normal(size=100)   # uncorrelated with x, yet dependent
    >>> k = kernels.gaussian(1.0)
    >>> independence_test(x, y, kernel_x=k, kernel_y=k, n_permutations=99,
    ...                   random_state=0).p_value
    0.01
    """
    K, L = _grams(X, Y, kernel_x, kernel_y, 2, "a pair")
    B = n_permutations
    rng = as_generator(random_state)
    n = K.shape[0]
    Kc, L = center_gram(K)[0], np.ascontiguousarray(L)
    # Blocks of rows of Kc, L[perm] and L[perm][:, perm] stay in cache (about 40 % faster
    # than whole matrices at n = 1000).
    b = block_rows(3 * 8 * n, cache=True)
    rows, both = np.empty((b, n)), np.empty((b, n))

    def stat(perm: np.ndarray) -> float:  # sum_ij Kc_ij L[perm_i, perm_j], by blocks of rows
        total = 0.0
        for blk in gen_blocks(n, b):
            p = perm[blk]
            r = len(p)
            np.take(L, p, axis=0, out=rows[:r], mode="clip")
            np.take(rows[:r], perm, axis=1, out=both[:r], mode="clip")
            total += np.vdot(Kc[blk], both[:r])
        return float(total) / n**2

    with one_blas_thread():  # threaded dots, one per block, only spin on a busy machine
        observed = stat(np.arange(n))  # computed exactly as the null values
        null = np.array([stat(rng.permutation(n)) for _ in range(B)])
    scale = float(np.max(np.abs(Kc))) * float(np.max(np.abs(L))) if n else 0.0
    return TestResult(observed, p_value(observed, null, scale), null)

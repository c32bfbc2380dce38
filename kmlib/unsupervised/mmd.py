r"""Maximum mean discrepancy and the kernel two-sample test (Gretton et al., 2012, JMLR).

:math:`\mathrm{MMD}^2(P, Q) = \|\mu_P - \mu_Q\|_{\mathcal H}^2 = \mathbb E\,k(x, x')
+ \mathbb E\,k(y, y') - 2\,\mathbb E\,k(x, y)`, with :math:`x, x' \sim P`, :math:`y, y' \sim Q`
independent.  Estimators: :func:`mmd2` (V- or U-statistic, quadratic time) and
:func:`mmd2_linear` (linear time, O(n) memory); :func:`two_sample_test` tests P = Q with either.
"""
from __future__ import annotations

import math
from typing import Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy.spatial.distance import pdist

from .. import _dask
from .._blocks import DIAG_BLOCK, block_rows, gen_blocks, row_blocks
from .._estimator_inputs import gram
from .._linalg import dot
from .._typing import KernelFunc, Seed
from .._validation import as_generator, check_matrix, finite_result, validate_args
from .._validation.params import POSITIVE_INT, Integral, Interval, Options
from ..kernels import Kernel
from ._common import p_value, samples

__all__ = ["TestResult", "mmd2", "mmd2_linear", "median_heuristic", "two_sample_test"]



class TestResult(NamedTuple):
    """Outcome of a permutation test: ``(statistic, p_value, null_distribution)``.

    ``statistic`` is the observed value, ``null_distribution[b]`` its value on the b-th
    permuted sample, and ``p_value = (1 + #{null_distribution >= statistic - tol}) / (1 + B)``
    (``tol`` a tiny multiple of the scale of the kernel values: ties survive rounding).
    """

    statistic: float
    p_value: float
    null_distribution: np.ndarray


TestResult.__test__ = False  # type: ignore[attr-defined]  # not a pytest test class


@finite_result
@validate_args({"kernel": ["callable kernel"], "unbiased": ["boolean"]})
def mmd2(X: ArrayLike, Y: ArrayLike, *, kernel: KernelFunc, unbiased: bool = False) -> float:
    r"""Squared maximum mean discrepancy between the samples ``X`` and ``Y``.

    Biased V-statistic :math:`\frac{1}{m^2}\sum_{i,j} k(x_i, x_j) + \frac{1}{n^2}\sum_{i,j}
    k(y_i, y_j) - \frac{2}{mn}\sum_{i,j} k(x_i, y_j) \ge 0`; the unbiased U-statistic drops
    the terms :math:`i = j` of the first two sums and divides them by :math:`m(m-1)` and
    :math:`n(n-1)` (it can be negative).

    Parameters
    ----------
    X, Y : array-like of shape (m, d) and (n, d); 1-D means points in one dimension
    kernel : callable
        ``kernel(A, B)`` returning the Gram matrix, e.g. ``kmlib.kernels.gaussian(1.0)``.
    unbiased : bool, default False

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If X or Y is not finite, is empty (has fewer than 2 rows when ``unbiased``), their
        numbers of columns differ, or the kernel is not callable or gives a bad Gram matrix.

    Examples
    --------
    >>> from kmlib import kernels
    >>> mmd2([0.0, 2.0], [1.0, 3.0], kernel=kernels.linear())   # (difference of means)^2
    1.0
    """
    X, Y = samples(X, Y, 2 if unbiased else 1, "the unbiased MMD averages over pairs i != j")
    m, n = len(X), len(Y)
    Kxx, Kyy = gram(kernel, X, what="kernel(X)"), gram(kernel, Y, what="kernel(Y)")
    cross = 2.0 * gram(kernel, X, Y).sum() / (m * n)
    if not unbiased:
        return float(Kxx.sum() / m**2 + Kyy.sum() / n**2 - cross)
    return float((Kxx.sum() - np.trace(Kxx)) / (m * (m - 1))
                 + (Kyy.sum() - np.trace(Kyy)) / (n * (n - 1)) - cross)


def _linear_h(kernel: KernelFunc, X: np.ndarray, Y: np.ndarray, ix: np.ndarray,
              iy: np.ndarray, top: list[float] | None = None) -> np.ndarray:
    """The terms ``h(z_{2i-1}, z_{2i})`` of the rows ``X[ix]`` and ``Y[iy]``.

    A kernel with a paired evaluation (``kernel._paired``) is evaluated on the paired rows
    only (4 values per term); any other callable on blocks of b <= DIAG_BLOCK pairs, one
    (2b, 2b) Gram matrix each whose quarters' diagonals are used (see :func:`mmd2_linear`).
    ``top``, if given, receives the largest absolute kernel value used (the scale of ties).
    """
    m2 = min(len(ix), len(iy)) // 2
    paired = getattr(kernel, "_paired", None) if isinstance(kernel, Kernel) else None
    h, big = np.empty(m2), 0.0
    # blocks of pairs that stay in cache (the paired rows are copies: O(block) memory)
    for blk in gen_blocks(m2, block_rows(8 * X.shape[1] * X.itemsize, cache=True,
                                         min_rows=DIAG_BLOCK)):
        s, e = 2 * blk.start, 2 * blk.stop
        xo, xe, yo, ye = X[ix[s:e:2]], X[ix[s + 1:e:2]], Y[iy[s:e:2]], Y[iy[s + 1:e:2]]
        parts = None if paired is None else [paired(a, b) for a, b in
                                             ((xo, xe), (yo, ye), (xo, ye), (xe, yo))]
        if parts is None or any(p is None for p in parts):
            parts = [np.empty(len(xo)) for _ in range(4)]
            for sub in gen_blocks(len(xo), DIAG_BLOCK):  # (2b, 2b) Gram matrices, 4 diagonals
                a, b, c, d = xo[sub], xe[sub], yo[sub], ye[sub]
                r = len(a)
                i = np.arange(r)   # rows x_odd, y_odd; columns x_even, y_even
                G = gram(kernel, np.concatenate([a, c]), np.concatenate([b, d]))
                for part, value in zip(parts, (G[i, i], G[i + r, i + r], G[i, i + r],
                                               G[i + r, i]), strict=True):
                    part[sub] = value
        h[blk] = parts[0] + parts[1] - parts[2] - parts[3]
        if top is not None:
            big = max(big, max(float(np.max(np.abs(p))) for p in parts))
    if top is not None and m2:
        top.append(big)
    return h


@finite_result
@validate_args({"kernel": ["callable kernel"]})
def mmd2_linear(X: ArrayLike, Y: ArrayLike, *, kernel: KernelFunc) -> float:
    r"""The linear-time MMD² statistic of Gretton et al. (2012, JMLR, Lemma 14).

    With :math:`m` = min(len(X), len(Y)) rounded down to even and :math:`z_i = (x_i, y_i)`,
    the mean over :math:`i \le m/2` of :math:`h(z_{2i-1}, z_{2i})`, where
    :math:`h((x, y), (x', y')) = k(x, x') + k(y, y') - k(x, y') - k(x', y)`: an unbiased
    estimate of MMD² from independent terms.  Time and memory O(m), no Gram matrix of the
    samples.

    Every kernel of :mod:`kmlib.kernels`, and the sums, products,
    non-negative multiples, powers and normalisations of such kernels, are evaluated on the
    paired rows only: 4 kernel values per term.  Any other callable (a function,
    a ``Kernel`` subclass of one's own, or a combination with one of
    them) is called once per block of b <= 64 consecutive pairs, as ``kernel(A, B)`` with A
    the b rows :math:`x_{2i-1}` then the b rows :math:`y_{2i-1}`, and B the b rows
    :math:`x_{2i}` then :math:`y_{2i}`; of its :math:`(2b)^2` values, the 4b on the
    diagonals of its four (b, b) quarters are used, so it computes b (at most 64) times the
    values used.

    Parameters
    ----------
    X, Y : array-like of shape (m, d) and (n, d); 1-D means points in one dimension
        Dask arrays (chunked along rows) too: one sum of terms per chunk of pairs, as tasks.
    kernel : callable
        ``kernel(A, B)`` returning the Gram matrix, e.g. ``kmlib.kernels.gaussian(1.0)``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If X or Y is not finite or has fewer than 2 rows, their numbers of columns differ,
        or the kernel is not callable or gives a bad Gram matrix.

    Examples
    --------
    >>> from kmlib import kernels
    >>> mmd2_linear([0.0, 1.0], [1.0, 2.0], kernel=kernels.linear())   # (mean shift)^2
    1.0
    """
    if _dask.is_dask(X, Y):   # Dask arrays: one sum per chunk of pairs
        return _dask.mmd2_linear(X, Y, kernel, mmd2_linear)
    X, Y = samples(X, Y, 2, "one pair of rows")
    return float(np.mean(_linear_h(kernel, X, Y, np.arange(len(X)), np.arange(len(Y)))))


@validate_args({"max_samples": [Interval(Integral, 2, None, closed="left")],
                "random_state": ["random_state"]})
def median_heuristic(X: ArrayLike, Y: ArrayLike | None = None, *, max_samples: int = 2000,
                     random_state: Seed = 0) -> float:
    """Median Euclidean distance between distinct points (pairs i < j) of X, or X and Y pooled.

    The usual width ``sigma`` of ``kmlib.kernels.gaussian(sigma)`` in kernel tests.  Above
    ``max_samples`` pooled points it uses the subsample
    ``S[np.sort(rng.choice(len(Z), max_samples, replace=False))]`` of the rows ``S`` of ``Z``
    in lexicographic order, with ``rng = np.random.default_rng(random_state)`` (fixed by
    default: same data, same width).  Sorting first makes the width a function of the set
    of points: it does not change when the points are reordered or relabelled between X and
    Y, which keeps a permutation test that uses it exact.

    Parameters
    ----------
    X, Y : array-like of shape (m, d) and (n, d), Y optional; 1-D means points on a line
    max_samples : int, default 2000
        At most this many points (>= 2) enter the O(N^2) distance computation.
    random_state : None, int, numpy.random.Generator or RandomState, default 0

    Returns
    -------
    float
        The median distance, > 0.

    Raises
    ------
    ValueError
        If an input is not finite, X and Y have different numbers of columns, fewer than 2
        points are pooled, or the median is 0 (more than half of the pairs coincide).

    Examples
    --------
    >>> median_heuristic([0.0, 1.0, 3.0])   # distances 1, 2 and 3
    2.0
    """
    # two points at least: X alone, or X and Y of one point or more each
    Z = (check_matrix(X, "X", min_rows=2, why="a distance needs a pair of points") if Y is None
         else np.concatenate(samples(X, Y, 1, "")))
    cap = max_samples
    rng = as_generator(random_state)
    if len(Z) > cap:
        Z = Z[np.lexsort(Z.T[::-1])]       # an order that does not depend on the labels
        Z = Z[np.sort(rng.choice(len(Z), size=cap, replace=False))]
    # the distances of Z c, c = 2^(400 - e) for max |z| in [2^(e-1), 2^e), divided by c: a
    # power of two changes no bit, and no square of a distance overflows (|z| c < 2^400) or
    # underflows (unless the distance is below 2^-900 max |z|), whatever the scale of Z
    top = float(np.max(np.abs(Z)))
    c = math.ldexp(1.0, min(1023, 400 - math.frexp(top)[1]))
    med = float(np.median(pdist(Z * c))) / c
    if not med > 0:
        raise ValueError("the median pairwise distance is 0: more than half of the pairs of "
                         "points coincide; choose the kernel width another way")
    return med


def _quadratic_null(K: np.ndarray, m: int, perms: np.ndarray, unbiased: bool) -> np.ndarray:
    """MMD² of the split X = ``perm[:m]``, Y = ``perm[m:]`` of the pooled points, per row.

    With the labels a (1 on X), ``q = a^T K a`` is the only quadratic term; the sums over
    Y x Y and X x Y follow from the row sums s of K, its total and its diagonal, e.g.
    ``sum_{X x Y} K = s^T a - q``.
    """
    N, n = K.shape[0], K.shape[0] - m
    s, dg = K.sum(axis=0), np.diagonal(K)
    total, trace = float(s.sum()), float(dg.sum())
    A = np.zeros((len(perms), N))
    np.put_along_axis(A, perms[:, :m], 1.0, axis=1)
    q = np.einsum("ij,ij->i", dot(A, K), A)
    sa, da = A @ s, A @ dg
    cross = 2 * (sa - q) / (m * n)
    if unbiased:
        return (q - da) / (m * (m - 1)) + (total - 2 * sa + q - trace + da) / (n * (n - 1)) - cross
    return q / m**2 + (total - 2 * sa + q) / n**2 - cross


@finite_result
@validate_args({"kernel": ["callable kernel"], "n_permutations": [POSITIVE_INT],
                "statistic": [Options("unbiased", "biased", "linear")],
                "random_state": ["random_state"]})
def two_sample_test(X: ArrayLike, Y: ArrayLike, *, kernel: KernelFunc,
                    n_permutations: int = 1000,
                    statistic: Literal["unbiased", "biased", "linear"] = "unbiased",
                    random_state: Seed = None) -> TestResult:
    r"""Permutation test of :math:`P = Q` from samples ``X`` ~ P and ``Y`` ~ Q.

    Pool ``Z = np.concatenate([X, Y])`` (N = m + n rows).  The b-th permutation is the b-th
    call ``perm = rng.permutation(N)``, ``rng = np.random.default_rng(random_state)`` (or
    the Generator given), and ``null_distribution[b]`` is the statistic of
    ``Z[perm[:m]]`` against ``Z[perm[m:]]``.  p-value:
    :math:`(1 + \#\{b : \text{null}_b \ge \text{observed} - \tau\}) / (1 + B)`, exact at any
    B; :math:`\tau = 10^{-9} \max |k|` (the largest kernel value used) counts statistics
    equal in exact arithmetic as ties, whatever the rounding of their sums.
    ``"unbiased"`` and ``"biased"`` (:func:`mmd2`) use one Gram matrix of Z and blocks of
    matrix products (time O(N^2 B), memory O(N^2)); ``"linear"`` (:func:`mmd2_linear`)
    recomputes the linear statistic (time O(N B), memory O(N)).

    Parameters
    ----------
    X, Y : array-like of shape (m, d) and (n, d); 1-D means points in one dimension
    kernel : callable
        ``kernel(A, B)`` returning the Gram matrix, e.g. ``kmlib.kernels.gaussian(1.0)``.
    n_permutations : int, default 1000
        The number B >= 1 of permutations.
    statistic : {"unbiased", "biased", "linear"}, default "unbiased"
    random_state : None, int, numpy.random.Generator or RandomState, optional

    Returns
    -------
    TestResult
        ``statistic`` is ``mmd2(X, Y, ...)`` (or ``mmd2_linear``) up to rounding.

    Raises
    ------
    ValueError
        If X or Y is not finite or has fewer than 2 rows, their numbers of columns differ,
        ``statistic`` is unknown, ``n_permutations`` is not an int >= 1, ``random_state`` is
        invalid, or the kernel is not callable or gives a bad Gram matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib import kernels
    >>> rng = np.random.default_rng(0)
    >>> X, Y = rng.normal(size=(50, 2)), rng.normal(1.0, size=(50, 2))
    >>> two_sample_test(X, Y, kernel=kernels.gaussian(1.0), n_permutations=99,
    ...                 random_state=0).p_value   # no permutation reaches the statistic
    0.01
    """
    X, Y = samples(X, Y, 2, "the unbiased and the linear statistic need pairs")
    B = n_permutations
    rng = as_generator(random_state)
    m, N = len(X), len(X) + len(Y)
    Z = np.concatenate([X, Y])
    if statistic == "linear":
        top: list[float] = [0.0]
        observed = float(np.mean(_linear_h(kernel, X, Y, np.arange(m), np.arange(N - m), top)))
        null = np.empty(B)
        for b in range(B):
            perm = rng.permutation(N)
            null[b] = np.mean(_linear_h(kernel, Z, Z, perm[:m], perm[m:], top))
        scale = max(top)
    else:
        K = gram(kernel, Z, what="kernel(Z) of the pooled sample Z")
        unbiased = statistic == "unbiased"
        observed = float(_quadratic_null(K, m, np.arange(N)[None], unbiased)[0])
        null = np.concatenate([  # permutations in blocks: (b, N) labels, products, indices
            _quadratic_null(K, m, np.array([rng.permutation(N) for _ in range(b.stop - b.start)]),
                            unbiased)
            for b in row_blocks(B, 3 * 8 * N)])
        scale = float(np.max(np.abs(K))) if K.size else 0.0
    return TestResult(observed, p_value(observed, null, scale), null)

"""Catalogue kernels that :mod:`kmlib.kernels` lacks, and second routes to two of its kernels.

Chapter 4 ("Kernels: positive definiteness, closure rules, a catalogue, and what is
not a kernel"), section "A catalogue of kernels": the constant kernel, the Cauchy
kernel, the Laplacian kernel with the l1 norm, the textbook Bessel formula of the
Matern family (a second route to :func:`kmlib.kernels.matern`), and min-hashing,
whose collision frequency is the Jaccard index (the proof that
:func:`kmlib.kernels.jaccard` is positive definite).
"""
from __future__ import annotations

from itertools import permutations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special
from scipy.spatial.distance import cdist

from kmlib._validation import as_float_array, check_matrix, check_nonnegative, check_positive
from kmlib.kernels import Kernel

__all__ = ["constant", "cauchy", "laplacian_l1", "matern_bessel", "minhash_first"]

class _Constant(Kernel):
    def __init__(self, c: float):
        self.c = c

    def _gram(self, X: np.ndarray, Y: np.ndarray) -> NDArray[np.float64]:
        return np.full((len(X), len(Y)), self.c)

    def _diag(self, X: np.ndarray) -> NDArray[np.float64]:
        return np.full(len(X), self.c)

    def __repr__(self) -> str:
        return f"constant({self.c!r})"


def constant(c: float = 1.0) -> Kernel:
    """Constant kernel ``k(x, x') = c`` with ``c >= 0``.

    Positive definite because ``sum_ij a_i a_j c = c (sum_i a_i)^2 >= 0``; its
    feature map is the single number ``sqrt(c)``.

    Parameters
    ----------
    c : float, default 1.0
        The constant, ``c >= 0`` (a negative constant is not a kernel).

    Returns
    -------
    Kernel
    """
    return _Constant(check_nonnegative(c, "c"))


class _Cauchy(Kernel):
    def __init__(self, scale: float):
        self.scale = scale

    def _gram(self, X: np.ndarray, Y: np.ndarray) -> NDArray[np.float64]:
        G = np.ones((len(X), len(Y)))
        for j in range(X.shape[1]):  # one pass per input dimension (d is small)
            D = (X[:, j][:, None] - Y[:, j][None, :]) / self.scale
            G /= 1.0 + D * D
        return G

    def _diag(self, X: np.ndarray) -> NDArray[np.float64]:
        return np.ones(len(X))

    def __repr__(self) -> str:
        return f"cauchy(scale={self.scale!r})"


def cauchy(scale: float = 1.0) -> Kernel:
    """Cauchy kernel ``k(x, x') = prod_i 1 / (1 + ((x_i - x'_i) / s)^2)``.

    Positive definite as a product of one-dimensional kernels, each of which is
    the Fourier transform of the Laplace density ``(s/2) exp(-s |w|)``
    (Bochner's theorem).

    Parameters
    ----------
    scale : float, default 1.0
        Length scale ``s > 0``.

    Returns
    -------
    Kernel
    """
    return _Cauchy(check_positive(scale, "scale"))


class _LaplacianL1(Kernel):
    def __init__(self, gamma: float):
        self.gamma = gamma

    def _gram(self, X: np.ndarray, Y: np.ndarray) -> NDArray[np.float64]:
        return np.exp(-self.gamma * cdist(X, Y, metric="cityblock"))

    def _diag(self, X: np.ndarray) -> NDArray[np.float64]:
        return np.ones(len(X))

    def __repr__(self) -> str:
        return f"laplacian_l1(gamma={self.gamma!r})"


def laplacian_l1(gamma: float = 1.0) -> Kernel:
    """Laplacian kernel with the l1 norm, ``k(x, x') = exp(-gamma ||x - x'||_1)``.

    It is the product over coordinates of one-dimensional Laplacian kernels,
    hence positive definite.  In dimension ``d > 1`` it differs from
    :func:`kmlib.kernels.laplacian`, which uses the Euclidean norm.

    Parameters
    ----------
    gamma : float, default 1.0
        Rate ``gamma > 0``.

    Returns
    -------
    Kernel
    """
    return _LaplacianL1(check_positive(gamma, "gamma"))


def matern_bessel(r: ArrayLike, nu: float, length_scale: float) -> NDArray[np.float64]:
    """Matern profile by the textbook formula with ``scipy.special.kv`` and ``gamma``.

    ``k(r) = 2^{1-nu} / Gamma(nu) * t^nu K_nu(t)`` with ``t = sqrt(2 nu) r / l``,
    and ``k(0) = 1``.  This direct formula is a second route to
    :func:`kmlib.kernels.matern` (which uses closed forms and a log-domain
    evaluation); it overflows for large ``nu`` (about ``nu > 150`` near
    ``r = 0``), and wherever ``t^nu`` or ``K_nu(t)`` leaves the range of
    floating point (``t`` below about 1e-300 or above about 1e300).  Such
    entries come back as ``+inf``, the mark of the formula's failure (the
    kernel value itself lies in ``[0, 1]``).

    Parameters
    ----------
    r : array-like
        Distances ``r >= 0``.
    nu, length_scale : float
        Smoothness ``nu > 0`` and length scale ``l > 0``.

    Returns
    -------
    ndarray
        Same shape as ``r``; ``+inf`` where the direct formula overflows.
    """
    nu = check_positive(nu, "nu")
    ell = check_positive(length_scale, "length_scale")
    r = as_float_array(r, "r")
    if np.any(~np.isfinite(r)) or np.any(r < 0):
        raise ValueError("r must hold finite distances r >= 0")
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        t = np.sqrt(2.0 * nu) * r / ell
        out = np.ones_like(t)
        pos = t > 0
        val = 2.0 ** (1.0 - nu) / special.gamma(nu) * t[pos] ** nu * special.kv(nu, t[pos])
    out[pos] = np.where(np.isfinite(val), val, np.inf)   # NaN (0 * inf) is an overflow too
    return out


def minhash_first(S: ArrayLike) -> NDArray[np.intp]:
    """First element of each set under every ordering of the ground set (min-hashing).

    For each of the ``p!`` orderings ``pi`` of ``{0, ..., p-1}`` and each set
    ``A`` (a row of the indicator matrix ``S``), return the element of ``A``
    that comes first in ``pi``, or ``-1`` for the empty set.  The fraction of
    orderings in which two sets share their first element is their Jaccard
    index, which proves that the Jaccard kernel is positive definite.

    Parameters
    ----------
    S : array-like of shape (n, p)
        0/1 or boolean indicators of ``n`` subsets of a ground set of size
        ``p <= 9`` (``9! = 362880`` orderings).

    Returns
    -------
    ndarray of int, shape (p!, n)
    """
    A = check_matrix(S, "S", allow_1d=False)
    if not np.all((A == 0) | (A == 1)):
        raise ValueError("S must hold 0/1 (or boolean) set indicators")
    p = A.shape[1]
    if p > 9:
        raise ValueError(f"S must have at most 9 columns (p! orderings are enumerated); got {p}")
    ranks = np.argsort(np.array(list(permutations(range(p)))), axis=1)  # rank of each element
    masked = np.where(A[None, :, :] > 0, ranks[:, None, :], p)          # non-members rank last
    first = masked.argmin(axis=2)
    first[:, A.sum(axis=1) == 0] = -1
    return first

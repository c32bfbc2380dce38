"""Positive-definite kernels, their closure rules and spectral checks.

This module serves chapter 4 (positive-definite kernels, closure rules,
normalisation, the empirical kernel map), chapter 5 (the Sobolev kernels whose
RKHS norms the chapter computes) and chapter 10 (negative-definite kernels and
the passage from an NDS kernel to a PDS one).

A kernel is a callable :class:`Kernel` object.  ``k(X, Y)`` returns the Gram
matrix ``[k(x_i, y_j)]`` of shape ``(len(X), len(Y))``; ``k(X)`` means
``k(X, X)`` and is exactly symmetric (bitwise).  Inputs are 2-D arrays of shape
``(n_samples, n_features)``; a 1-D array of length n is read as n points in one
dimension (shape ``(n, 1)``), the convention of
:func:`kmlib._validation.check_matrix`.  Kernels combine with ``+``, ``*``
(pointwise product, or scaling by a number ``c >= 0``), ``**`` (integer power)
and :meth:`Kernel.normalized`.

Examples
--------
>>> import numpy as np
>>> from kmlib import kernels
>>> k = kernels.linear() + 2.0 * kernels.gaussian(sigma=1.0)
>>> k
(linear() + 2.0 * gaussian(sigma=1.0))
>>> K = k(np.linspace(0.0, 1.0, 5))
>>> K.shape, bool(np.all(K == K.T)), kernels.is_psd(K)
((5, 5), True, True)
"""
from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from typing import Any

import numpy as np
from scipy import linalg, special
from scipy.linalg import blas

from ._validation import (
    check_int,
    check_matrix,
    check_nonnegative,
    check_positive,
    check_real,
    check_square,
    finite_result,
)

__all__ = [
    "Kernel",
    "linear",
    "polynomial",
    "gaussian",
    "laplacian",
    "matern",
    "exponential",
    "sobolev1",
    "sobolev2",
    "jaccard",
    "intersection_power",
    "sigmoid",
    "squared_distance",
    "is_psd",
    "is_nds",
    "pds_from_nds",
    "empirical_feature_map",
]

_EPS = np.finfo(float).eps


# ---------------------------------------------------------------------------
# small private helpers
# ---------------------------------------------------------------------------
def _inner(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Matrix of inner products ``X @ Y.T`` through scipy's BLAS (``dgemm``).

    Kernel ridge regression, the SVM and the paths factorise Gram matrices with
    scipy's LAPACK; forming the Gram matrix on the same OpenBLAS keeps one thread
    pool busy instead of two competing on few cores.  The result is writeable and
    owned by the caller.
    """
    return blas.dgemm(1.0, X, Y, trans_b=True)


def _sq_dists(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances ``||x_i - y_j||^2`` through one matrix product.

    Both inputs are shifted by the mean of ``X`` first (distances do not change,
    the cancellation in ``|x|^2 + |y|^2 - 2 x.y`` shrinks for off-centre data).
    The result is clamped at 0, and when ``Y is X`` its diagonal is exactly 0.
    """
    shift = X.mean(axis=0)
    Xc = X - shift
    Yc = Xc if Y is X else Y - shift
    xx = np.einsum("ij,ij->i", Xc, Xc)
    yy = xx if Y is X else np.einsum("ij,ij->i", Yc, Yc)
    D = _inner(Xc, Yc)
    D *= -2.0
    D += xx[:, None]
    D += yy[None, :]
    np.maximum(D, 0.0, out=D)
    if Y is X:
        np.fill_diagonal(D, 0.0)
    return D


#: Side of the square tiles in which large Gram matrices are computed.  A tile of
#: 256 x 256 doubles (512 KiB) stays in cache while the kernel's element-wise passes
#: run over it, and the symmetric case only computes tiles on or above the diagonal.
_TILE = 256


def _tiled_gram(gram, X: np.ndarray, Y: np.ndarray, symmetric: bool) -> np.ndarray:
    """Evaluate ``gram(X_block, Y_block)`` tile by tile into one matrix.

    In the symmetric case only the tiles on and above the diagonal are computed:
    each off-diagonal tile is mirrored into its transposed position and each
    diagonal tile is replaced by the average with its transpose, so the result is
    bitwise symmetric whatever rounding the kernel's formula has.
    """
    n, m = len(X), len(Y)
    b = _TILE
    if symmetric and n <= b:
        G = np.asarray(gram(X, X), dtype=float)
        return 0.5 * G + 0.5 * G.T
    if n * m <= b * b:
        return np.asarray(gram(X, Y), dtype=float)
    G = np.empty((n, m))
    for i in range(0, n, b):
        ii = slice(i, min(i + b, n))
        Xi = X[ii]
        if symmetric:
            T = gram(Xi, Xi)
            G[ii, ii] = 0.5 * T + 0.5 * T.T
            for j in range(i + b, n, b):
                jj = slice(j, min(j + b, n))
                T = gram(Xi, X[jj])
                G[ii, jj] = T
                G[jj, ii] = T.T
        else:
            for j in range(0, m, b):
                jj = slice(j, min(j + b, m))
                G[ii, jj] = gram(Xi, Y[jj])
    return G


def _atom(k: "Kernel") -> str:
    """``repr(k)`` with parentheses when it would otherwise bind loosely."""
    text = repr(k)
    return f"({text})" if isinstance(k, (_Scaled, _Power)) else text


# ---------------------------------------------------------------------------
# the base class
# ---------------------------------------------------------------------------
class Kernel(ABC):
    """Base class of every kernel: a callable returning Gram matrices.

    Subclasses implement ``_gram(X, Y)`` (the Gram matrix of two validated
    float arrays, where ``Y is X`` signals the symmetric case), ``_diag(X)``
    (the vector ``k(x_i, x_i)`` without forming a Gram matrix) and ``__repr__``;
    kernels with a restricted domain also override ``_check``.

    Notes
    -----
    The combination operators build new kernels and never check positive
    definiteness: ``k1 + k2``, ``k1 * k2``, ``c * k`` (``c >= 0``), ``k ** m``
    and ``k.normalized()`` are positive definite whenever ``k``, ``k1`` and
    ``k2`` are (chapter 4, closure rules).
    """

    __array_ufunc__ = None  # let ``np.float64(2.0) * k`` reach Kernel.__rmul__

    # -- hooks ------------------------------------------------------------
    @abstractmethod
    def _gram(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """Gram matrix of validated inputs (a new array the caller may modify)."""

    @abstractmethod
    def _diag(self, X: np.ndarray) -> np.ndarray:
        """Vector ``k(x_i, x_i)`` of validated inputs."""

    def _check(self, X: Any, name: str) -> np.ndarray:
        """Validate one input array; overridden by kernels with a restricted domain."""
        return check_matrix(X, name)

    # -- public interface --------------------------------------------------
    def __call__(self, X: Any, Y: Any = None) -> np.ndarray:
        """Return the Gram matrix ``[k(x_i, y_j)]`` of shape ``(len(X), len(Y))``.

        Parameters
        ----------
        X : array-like of shape (n, d), or (n,) for n points in one dimension
        Y : array-like of shape (m, d) or (m,), optional
            Defaults to ``X``; then the result is exactly symmetric.

        Returns
        -------
        ndarray of shape (n, m)

        Raises
        ------
        ValueError
            If an input is empty, not 1-D/2-D, contains NaN or inf, lies outside
            the kernel's domain, if X and Y have different numbers of columns, or
            if the kernel values overflow.
        """
        Xa = self._check(X, "X")
        symmetric = Y is None or Y is X
        if symmetric:
            Ya = Xa
        else:
            Ya = self._check(Y, "Y")
            if Ya.shape[1] != Xa.shape[1]:
                raise ValueError(
                    "X and Y must have the same number of features (columns); "
                    f"got {Xa.shape[1]} and {Ya.shape[1]}"
                )
        with np.errstate(over="ignore", invalid="ignore"):
            G = _tiled_gram(self._gram, Xa, Ya, symmetric)  # a fresh array
        # one summation pass; the entry-wise test runs only when the sum is not finite
        if not np.isfinite(G.sum()) and not np.all(np.isfinite(G)):
            raise ValueError(
                f"the Gram matrix of {self!r} has non-finite entries (overflow); "
                "rescale the inputs or choose a larger bandwidth"
            )
        return G

    def diag(self, X: Any) -> np.ndarray:
        """Return the vector ``(k(x_1, x_1), ..., k(x_n, x_n))``.

        Computed in O(n d) without forming the Gram matrix; equal (up to
        round-off) to ``np.diag(k(X))``.

        Parameters
        ----------
        X : array-like of shape (n, d), or (n,) for n points in one dimension

        Returns
        -------
        ndarray of shape (n,)
        """
        Xa = self._check(X, "X")
        with np.errstate(over="ignore", invalid="ignore"):
            d = np.array(self._diag(Xa), dtype=float)
        if not np.all(np.isfinite(d)):
            raise ValueError(
                f"the diagonal of {self!r} has non-finite entries (overflow); "
                "rescale the inputs or choose a larger bandwidth"
            )
        return d

    def normalized(self) -> "Kernel":
        """Return the normalised kernel ``k(x,x') / sqrt(k(x,x) k(x',x'))``.

        The value is 0 when either diagonal entry is 0 (a point mapped to the
        origin of the feature space).  Non-positive diagonal entries, which a
        positive-definite kernel can only produce through round-off, are treated
        as 0.  On ``k(X)`` the diagonal is exactly 1 wherever ``k(x,x) > 0``.
        """
        return _Normalized(self)

    # -- algebra -----------------------------------------------------------
    def __add__(self, other: Any) -> "Kernel":
        if not isinstance(other, Kernel):
            return NotImplemented
        return _Sum(self, other)

    def __mul__(self, other: Any) -> "Kernel":
        if isinstance(other, Kernel):
            return _Product(self, other)
        if isinstance(other, numbers.Real) and not isinstance(other, bool):
            return _Scaled(other, self)
        return NotImplemented

    def __rmul__(self, other: Any) -> "Kernel":
        if isinstance(other, numbers.Real) and not isinstance(other, bool):
            return _Scaled(other, self)
        return NotImplemented

    def __pow__(self, m: Any) -> "Kernel":
        return _Power(self, m)


# ---------------------------------------------------------------------------
# combinations (chapter 4, closure rules)
# ---------------------------------------------------------------------------
class _Sum(Kernel):
    def __init__(self, k1: Kernel, k2: Kernel):
        self.k1, self.k2 = k1, k2

    def _check(self, X, name):
        return self.k2._check(self.k1._check(X, name), name)

    def _gram(self, X, Y):
        return self.k1._gram(X, Y) + self.k2._gram(X, Y)

    def _diag(self, X):
        return self.k1._diag(X) + self.k2._diag(X)

    def __repr__(self):
        return f"({self.k1!r} + {self.k2!r})"


class _Product(Kernel):
    def __init__(self, k1: Kernel, k2: Kernel):
        self.k1, self.k2 = k1, k2

    def _check(self, X, name):
        return self.k2._check(self.k1._check(X, name), name)

    def _gram(self, X, Y):
        return self.k1._gram(X, Y) * self.k2._gram(X, Y)

    def _diag(self, X):
        return self.k1._diag(X) * self.k2._diag(X)

    def __repr__(self):
        return f"({_atom(self.k1)} * {_atom(self.k2)})"


class _Scaled(Kernel):
    def __init__(self, c: Any, kernel: Kernel):
        self.c = check_nonnegative(c, "scalar multiplier c")
        self.kernel = kernel

    def _check(self, X, name):
        return self.kernel._check(X, name)

    def _gram(self, X, Y):
        return self.c * self.kernel._gram(X, Y)

    def _diag(self, X):
        return self.c * self.kernel._diag(X)

    def __repr__(self):
        return f"{self.c!r} * {_atom(self.kernel)}"


class _Power(Kernel):
    def __init__(self, kernel: Kernel, m: Any):
        self.m = check_int(m, "exponent m", minimum=1)
        self.kernel = kernel

    def _check(self, X, name):
        return self.kernel._check(X, name)

    def _gram(self, X, Y):
        return self.kernel._gram(X, Y) ** self.m

    def _diag(self, X):
        return self.kernel._diag(X) ** self.m

    def __repr__(self):
        return f"{_atom(self.kernel)} ** {self.m}"


class _Normalized(Kernel):
    def __init__(self, kernel: Kernel):
        self.kernel = kernel

    def _check(self, X, name):
        return self.kernel._check(X, name)

    def _inv_sqrt_diag(self, X):
        d = self.kernel._diag(X)
        s = np.zeros_like(d)
        pos = d > 0
        s[pos] = 1.0 / np.sqrt(d[pos])
        return s

    def _gram(self, X, Y):
        sx = self._inv_sqrt_diag(X)
        sy = sx if Y is X else self._inv_sqrt_diag(Y)
        G = self.kernel._gram(X, Y)
        G *= sx[:, None]
        G *= sy[None, :]
        if Y is X:
            G[np.diag_indices_from(G)] = (sx > 0).astype(float)
        return G

    def _diag(self, X):
        return (self.kernel._diag(X) > 0).astype(float)

    def __repr__(self):
        return f"{_atom(self.kernel)}.normalized()"


# ---------------------------------------------------------------------------
# kernels on vectors
# ---------------------------------------------------------------------------
class _Linear(Kernel):
    def _gram(self, X, Y):
        return _inner(X, Y)

    def _diag(self, X):
        return np.einsum("ij,ij->i", X, X)

    def __repr__(self):
        return "linear()"


class _Polynomial(Kernel):
    def __init__(self, degree: int, c: float):
        self.degree, self.c = degree, c

    def _gram(self, X, Y):
        return (_inner(X, Y) + self.c) ** self.degree

    def _diag(self, X):
        return (np.einsum("ij,ij->i", X, X) + self.c) ** self.degree

    def __repr__(self):
        return f"polynomial(degree={self.degree}, c={self.c!r})"


class _Gaussian(Kernel):
    def __init__(self, sigma: float):
        self.sigma = sigma

    def _gram(self, X, Y):
        D = _sq_dists(X, Y)
        scale = 0.5 / self.sigma / self.sigma  # sigma**2 could overflow or underflow
        if np.isinf(scale):  # sigma below ~1e-154: the kernel is 1 at distance 0, else 0
            return (D == 0.0).astype(float)
        D *= -scale
        return np.exp(D, out=D)

    def _diag(self, X):
        return np.ones(len(X))

    def __repr__(self):
        return f"gaussian(sigma={self.sigma!r})"


class _Laplacian(Kernel):
    def __init__(self, gamma: float):
        self.gamma = gamma

    def _gram(self, X, Y):
        R = np.sqrt(_sq_dists(X, Y))
        R *= -self.gamma
        return np.exp(R, out=R)

    def _diag(self, X):
        return np.ones(len(X))

    def __repr__(self):
        return f"laplacian(gamma={self.gamma!r})"


def _log_kv(nu: float, z: np.ndarray) -> np.ndarray:
    """``log K_nu(z)`` for ``nu > 0`` and ``z > 0``, finite for any large ``nu``.

    Write ``nu = mu + m`` with ``m = floor(nu)`` and ``0 <= mu < 1``.  The
    scaled Bessel functions ``kve`` of the orders ``mu`` and ``1 - mu`` (both in
    [0, 1], where nothing overflows) start the upward recurrence
    ``K_{v+1}(z) = K_{v-1}(z) + (2 v / z) K_v(z)``, run on the ratios
    ``rho_v = K_{v+1}(z) / K_v(z) = 2 v / z + 1 / rho_{v-1}`` whose logarithms
    are summed.  All terms are positive, so the recurrence is stable, and the
    cost is ``m`` vectorised steps.  (``scipy.special.kve`` alone overflows for
    large orders: ``kve(400, 28)`` is already ``inf``.)
    """
    m = int(np.floor(nu))
    mu = nu - m
    if m == 0:
        return np.log(special.kve(nu, z)) - z
    # Below 1e-300 the ratios 2 v / z could overflow; there the Matern value
    # is 1 to full precision for nu >= 1, so clamping changes nothing visible.
    z = np.maximum(z, 1e-300)
    k_mu = special.kve(mu, z)
    log_k = np.log(k_mu) - z
    # rho_mu = K_{mu+1} / K_mu = 2 mu / z + K_{mu-1} / K_mu, with K_{mu-1} = K_{1-mu}
    rho = 2.0 * mu / z + special.kve(1.0 - mu, z) / k_mu
    log_k += np.log(rho)
    for j in range(1, m):
        rho = 2.0 * (mu + j) / z + 1.0 / rho
        log_k += np.log(rho)
    return log_k


#: From this smoothness on, the Matern kernel is evaluated by the uniform
#: (Debye) asymptotic expansion of K_nu instead of the recurrence, whose cost
#: grows like nu.  With four correction terms its relative error is below
#: u_5(t) / nu^5 < 1e-15 there.
_MATERN_ASYMPTOTIC_NU = 1000.0


def _log_matern_asymptotic(w: np.ndarray, nu: float) -> np.ndarray:
    """``log k_nu`` of the Matern kernel for large ``nu``, from ``w = 2 r^2 / l^2``.

    With ``x = sqrt(2 nu) r / l = nu z``, Debye's expansion
    ``K_nu(nu z) = sqrt(pi / (2 nu)) exp(-nu eta) (1 + z^2)^(-1/4) S(t, nu)``,
    ``t = 1 / sqrt(1 + z^2)``, ``S = sum_k (-1)^k u_k(t) / nu^k``, together with
    Stirling's series for ``log Gamma(nu)``, makes every term that grows with
    ``nu`` cancel in closed form:

    ``log k = nu (log((1 + s) / 2) + 1 - s) - log(1 + z^2) / 4 + log S - c(nu)``

    with ``s = sqrt(1 + z^2)`` and ``c(nu) = 1/(12 nu) - 1/(360 nu^3) + 1/(1260 nu^5)``.
    The first term is written as ``w / (1 + s) * (g(e) - 1)`` with ``e = s - 1``
    and ``g(e) = log(1 + e/2) / e``, which stays accurate when ``z^2 = w / nu``
    underflows; as ``nu -> infinity`` it tends to ``-w / 4 = -r^2 / (2 l^2)``,
    the Gaussian kernel.  The cost is a few passes, whatever ``nu``.
    """
    z2 = w / nu
    s = np.sqrt(1.0 + z2)
    e = z2 / (1.0 + s)
    small = e < 1e-6
    g = np.where(small, 0.5 - e / 8.0 + e * e / 24.0,
                 np.log1p(0.5 * e) / np.where(small, 1.0, e))
    t = 1.0 / s
    t2 = t * t
    u1 = t * (3.0 - 5.0 * t2) / 24.0
    u2 = t2 * (81.0 - 462.0 * t2 + 385.0 * t2 * t2) / 1152.0
    u3 = t * t2 * (30375.0 - 369603.0 * t2 + 765765.0 * t2**2 - 425425.0 * t2**3) / 414720.0
    u4 = t2 * t2 * (4465125.0 - 94121676.0 * t2 + 349922430.0 * t2**2
                    - 446185740.0 * t2**3 + 185910725.0 * t2**4) / 39813120.0
    inv = 1.0 / nu
    series = 1.0 - inv * (u1 - inv * (u2 - inv * (u3 - inv * u4)))
    stirling = inv / 12.0 - inv**3 / 360.0 + inv**5 / 1260.0
    return (w / (1.0 + s) * (g - 1.0) - 0.25 * np.log1p(z2)
            + np.log(series) - stirling)


def _matern_profile(r: np.ndarray, nu: float, length_scale: float) -> np.ndarray:
    """Matern correlation as a function of the distance ``r >= 0``."""
    if nu == 0.5:
        return np.exp(-r / length_scale)
    if nu == 1.5:
        t = np.sqrt(3.0) * r / length_scale
        return (1.0 + t) * np.exp(-t)
    if nu == 2.5:
        t = np.sqrt(5.0) * r / length_scale
        return (1.0 + t + t * t / 3.0) * np.exp(-t)
    if nu >= _MATERN_ASYMPTOTIC_NU:
        with np.errstate(over="ignore"):
            w = 2.0 * (r / length_scale) ** 2
        out = np.exp(np.minimum(_log_matern_asymptotic(w, nu), 0.0))
        out[r == 0] = 1.0
        return out
    z = np.sqrt(2.0 * nu) * r / length_scale
    out = np.ones_like(z)
    pos = z > 0
    zp = z[pos]
    log_k = ((1.0 - nu) * np.log(2.0) - special.gammaln(nu)
             + nu * np.log(zp) + _log_kv(nu, zp))
    out[pos] = np.exp(np.minimum(log_k, 0.0))  # k <= 1; trims round-off above 1
    return out


class _Matern(Kernel):
    def __init__(self, nu: float, length_scale: float):
        self.nu, self.length_scale = nu, length_scale

    def _gram(self, X, Y):
        R = np.sqrt(_sq_dists(X, Y))
        return _matern_profile(R, self.nu, self.length_scale)

    def _diag(self, X):
        return np.ones(len(X))

    def __repr__(self):
        return f"matern(nu={self.nu!r}, length_scale={self.length_scale!r})"


class _Exponential(Kernel):
    def __init__(self, sigma: float):
        self.sigma = sigma

    def _gram(self, X, Y):
        return np.exp(_inner(X, Y) / self.sigma / self.sigma)

    def _diag(self, X):
        return np.exp(np.einsum("ij,ij->i", X, X) / self.sigma / self.sigma)

    def __repr__(self):
        return f"exponential(sigma={self.sigma!r})"


class _Sigmoid(Kernel):
    def __init__(self, a: float, b: float):
        self.a, self.b = a, b

    def _gram(self, X, Y):
        return np.tanh(self.a * _inner(X, Y) + self.b)

    def _diag(self, X):
        return np.tanh(self.a * np.einsum("ij,ij->i", X, X) + self.b)

    def __repr__(self):
        return f"sigmoid(a={self.a!r}, b={self.b!r})"


class _SquaredDistance(Kernel):
    def _gram(self, X, Y):
        return _sq_dists(X, Y)

    def _diag(self, X):
        return np.zeros(len(X))

    def __repr__(self):
        return "squared_distance()"


# ---------------------------------------------------------------------------
# kernels on [0, 1] (chapter 5, Sobolev spaces)
# ---------------------------------------------------------------------------
class _UnitInterval(Kernel):
    """Kernels on [0, 1]: one-column inputs with values in [0, 1]."""

    def _check(self, X, name):
        A = check_matrix(X, name)
        if A.shape[1] != 1:
            raise ValueError(
                f"{name} must hold points of [0, 1], i.e. have one column "
                f"(or be 1-D) for {self!r}; got {A.shape[1]} columns"
            )
        if np.any(A < 0.0) or np.any(A > 1.0):
            raise ValueError(
                f"{name} must lie in [0, 1] for {self!r}; got values in "
                f"[{A.min()!r}, {A.max()!r}]"
            )
        return A


class _Sobolev1(_UnitInterval):
    def _gram(self, X, Y):
        return np.minimum(X, Y.T)

    def _diag(self, X):
        return X[:, 0].copy()

    def __repr__(self):
        return "sobolev1()"


class _Sobolev2(_UnitInterval):
    def _gram(self, X, Y):
        a = np.minimum(X, Y.T)
        b = np.maximum(X, Y.T)
        # a^2 b / 2 - a^3 / 6 written as a^2 (3 b - a) / 6, a sum of two >= 0 terms
        return a * a * (3.0 * b - a) / 6.0

    def _diag(self, X):
        return X[:, 0] ** 3 / 3.0

    def __repr__(self):
        return "sobolev2()"


# ---------------------------------------------------------------------------
# kernels on finite sets given as 0/1 indicator rows (chapter 4)
# ---------------------------------------------------------------------------
class _SetKernel(Kernel):
    """Kernels on subsets of {1, ..., p}: row i is the indicator vector of set i."""

    def _check(self, X, name):
        A = check_matrix(X, name, allow_1d=False)
        bad = (A != 0.0) & (A != 1.0)
        if np.any(bad):
            found = np.unique(A[bad])[:5]
            raise ValueError(
                f"{name} must be a 0/1 (or boolean) indicator matrix with one row per "
                f"set for {self!r}; found the values {found.tolist()}"
            )
        return A


class _Jaccard(_SetKernel):
    def _gram(self, X, Y):
        inter = _inner(X, Y)
        sx = X.sum(axis=1)
        sy = sx if Y is X else Y.sum(axis=1)
        union = sx[:, None] + sy[None, :] - inter
        out = np.ones_like(inter)
        np.divide(inter, union, out=out, where=union > 0)  # 0/0 := 1
        return out

    def _diag(self, X):
        return np.ones(len(X))

    def __repr__(self):
        return "jaccard()"


class _IntersectionPower(_SetKernel):
    def __init__(self, base: float):
        self.base = base

    def _gram(self, X, Y):
        return self.base ** _inner(X, Y)

    def _diag(self, X):
        return self.base ** X.sum(axis=1)

    def __repr__(self):
        return f"intersection_power(base={self.base!r})"


# ---------------------------------------------------------------------------
# constructors
# ---------------------------------------------------------------------------
def linear() -> Kernel:
    """Linear kernel ``k(x, x') = x^T x'``.

    Returns
    -------
    Kernel
    """
    return _Linear()


def polynomial(degree: int, c: float = 1.0) -> Kernel:
    """Polynomial kernel ``k(x, x') = (x^T x' + c)^degree``.

    Parameters
    ----------
    degree : int
        A positive integer (a non-integer power is not defined when
        ``x^T x' + c < 0``).
    c : float, default 1.0
        Offset ``c >= 0``; ``c = 0`` gives the homogeneous kernel.

    Returns
    -------
    Kernel
    """
    return _Polynomial(check_int(degree, "degree", minimum=1), check_nonnegative(c, "c"))


def gaussian(sigma: float) -> Kernel:
    """Gaussian (RBF) kernel ``k(x, x') = exp(-||x - x'||^2 / (2 sigma^2))``.

    Parameters
    ----------
    sigma : float
        Bandwidth ``sigma > 0``.  scikit-learn's ``rbf_kernel`` with
        ``gamma = 1 / (2 sigma^2)`` is the same kernel.

    Returns
    -------
    Kernel
    """
    return _Gaussian(check_positive(sigma, "sigma"))


def laplacian(gamma: float) -> Kernel:
    """Laplacian kernel ``k(x, x') = exp(-gamma ||x - x'||_2)`` (Euclidean norm).

    Parameters
    ----------
    gamma : float
        Inverse length scale ``gamma > 0``.

    Returns
    -------
    Kernel

    Notes
    -----
    scikit-learn's ``laplacian_kernel`` (and part of the literature) uses the
    l1 norm, ``exp(-gamma ||x - x'||_1)``.  Both are positive definite, but they
    are different kernels when d > 1; they agree in one dimension, where this
    kernel is also the Matern kernel with ``nu = 1/2`` and length scale
    ``1 / gamma``.
    """
    return _Laplacian(check_positive(gamma, "gamma"))


def matern(nu: float, length_scale: float) -> Kernel:
    """Matern kernel of smoothness ``nu`` and length scale ``l``.

    ``k(x, x') = 2^{1-nu} / Gamma(nu) * (sqrt(2 nu) r / l)^nu * K_nu(sqrt(2 nu) r / l)``
    with ``r = ||x - x'||_2`` and ``K_nu`` the modified Bessel function of the
    second kind; ``k = 1`` at ``r = 0``.

    Parameters
    ----------
    nu : float
        Smoothness ``nu > 0``.  ``nu = 1/2, 3/2, 5/2`` use the closed forms
        ``exp(-r/l)``, ``(1 + t) exp(-t)`` with ``t = sqrt(3) r / l`` and
        ``(1 + t + t^2/3) exp(-t)`` with ``t = sqrt(5) r / l``.
    length_scale : float
        Length scale ``l > 0``.

    Returns
    -------
    Kernel

    Notes
    -----
    Any other ``nu`` is evaluated in the log domain: ``gammaln`` for the
    Gamma function, and ``log K_nu`` from scaled Bessel functions of order below
    one followed by the (stable) upward recurrence in the order, which costs
    ``floor(nu)`` vectorised steps.  The values stay finite and accurate for
    large ``nu`` (e.g. ``nu = 400``, where ``scipy.special.kv`` and even ``kve``
    overflow).  From ``nu = 1000`` on, Debye's uniform asymptotic expansion of
    ``K_nu`` replaces the recurrence, so the cost no longer grows with ``nu``; it
    tends to the Gaussian kernel ``exp(-r^2 / (2 l^2))`` as ``nu -> infinity``.
    """
    return _Matern(check_positive(nu, "nu"), check_positive(length_scale, "length_scale"))


def exponential(sigma: float) -> Kernel:
    """Exponential dot-product kernel ``k(x, x') = exp(x^T x' / sigma^2)``.

    Positive definite as a power series with non-negative coefficients in the
    linear kernel.  Its normalisation ``k.normalized()`` is exactly
    ``gaussian(sigma)``.  Not to be confused with the "exponential" kernel
    ``exp(-|x - x'| / l)`` of the Matern family (see :func:`laplacian`).

    Parameters
    ----------
    sigma : float
        Scale ``sigma > 0``.  Values overflow (ValueError) once
        ``x^T x' / sigma^2`` exceeds about 709.

    Returns
    -------
    Kernel
    """
    return _Exponential(check_positive(sigma, "sigma"))


def sobolev1() -> Kernel:
    """First-order Sobolev (Brownian-motion) kernel ``k(x, x') = min(x, x')`` on [0, 1].

    Its RKHS is ``{f : f(0) = 0, int_0^1 f'^2 < inf}`` with inner product
    ``int_0^1 f' g'``.  Inputs must be one-dimensional with values in [0, 1]
    (ValueError otherwise).

    Returns
    -------
    Kernel
    """
    return _Sobolev1()


def sobolev2() -> Kernel:
    """Second-order Sobolev kernel ``k(x, x') = int_0^{min(x,x')} (x - u)(x' - u) du``.

    In closed form ``x^2 x' / 2 - x^3 / 6`` for ``x <= x'``.  Its RKHS is
    ``{f : f(0) = f'(0) = 0, int_0^1 f''^2 < inf}`` with inner product
    ``int_0^1 f'' g''``.  Inputs must be one-dimensional with values in [0, 1].

    Returns
    -------
    Kernel
    """
    return _Sobolev2()


def jaccard() -> Kernel:
    """Jaccard kernel ``k(A, B) = |A ∩ B| / |A ∪ B|`` on subsets, with ``0/0 := 1``.

    Sets are given as rows of a 0/1 (or boolean) indicator matrix of shape
    ``(n_sets, p)``; any other value raises ValueError.

    Returns
    -------
    Kernel
    """
    return _Jaccard()


def intersection_power(base: float = 2.0) -> Kernel:
    """Set kernel ``k(A, B) = base^{|A ∩ B|}`` on subsets, ``base >= 1``.

    Positive definite as the product over the ground set of the kernels
    ``1 + (base - 1) 1[w in A] 1[w in B]``.  Sets are given as rows of a 0/1
    (or boolean) indicator matrix.

    Parameters
    ----------
    base : float, default 2.0
        ``base >= 1``.

    Returns
    -------
    Kernel
    """
    b = check_positive(base, "base")
    if b < 1.0:
        raise ValueError(f"base must be >= 1; got {base!r}")
    return _IntersectionPower(b)


def sigmoid(a: float = 1.0, b: float = 0.0) -> Kernel:
    """Sigmoid (tanh) kernel ``k(x, x') = tanh(a x^T x' + b)``.

    Warning: this kernel is NOT positive definite in general, whatever the
    signs of ``a`` and ``b``: for ``tanh(x x')`` the 2x2 Gram matrix of the
    points 1 and 2 has a negative determinant.  It is included to show what
    goes wrong; :func:`is_psd` and :func:`empirical_feature_map` detect it.

    Parameters
    ----------
    a : float, default 1.0
        Slope (any finite real).
    b : float, default 0.0
        Offset (any finite real).

    Returns
    -------
    Kernel
    """
    return _Sigmoid(check_real(a, "a"), check_real(b, "b"))


def squared_distance() -> Kernel:
    """Squared Euclidean distance ``k(x, x') = ||x - x'||^2``.

    Not positive definite: it is conditionally negative definite (NDS,
    chapter 10), so ``exp(-t k)`` is positive definite for every ``t > 0``
    and :func:`pds_from_nds` turns it into a positive-definite kernel.

    Returns
    -------
    Kernel
    """
    return _SquaredDistance()


# ---------------------------------------------------------------------------
# NDS -> PDS (chapter 10)
# ---------------------------------------------------------------------------
class _PDSFromNDS(Kernel):
    def __init__(self, kernel: Kernel, x0: np.ndarray):
        self.kernel, self.x0 = kernel, x0

    def _check(self, X, name):
        A = self.kernel._check(X, name)
        if A.shape[1] != self.x0.shape[1]:
            raise ValueError(
                f"{name} must have as many features as x0; got {A.shape[1]} "
                f"and {self.x0.shape[1]}"
            )
        return A

    def _anchor(self, X):
        return self.kernel._gram(X, self.x0)[:, 0]

    def _k00(self):
        return self.kernel._gram(self.x0, self.x0)[0, 0]

    def _gram(self, X, Y):
        kx = self._anchor(X)
        ky = kx if Y is X else self._anchor(Y)
        G = -self.kernel._gram(X, Y)
        G += kx[:, None]
        G += ky[None, :]
        G -= self._k00()
        return G

    def _diag(self, X):
        return 2.0 * self._anchor(X) - self.kernel._diag(X) - self._k00()

    def __repr__(self):
        return f"pds_from_nds({self.kernel!r}, x0={self.x0[0].tolist()})"


def pds_from_nds(k: Kernel, x0: Any) -> Kernel:
    """Kernel ``k'(x, x') = k(x, x0) + k(x', x0) - k(x, x') - k(x0, x0)``.

    A symmetric ``k`` is conditionally negative definite (NDS) if and only if
    ``k'`` is positive definite (chapter 10).  For ``squared_distance()``,
    ``k'(x, x') = 2 (x - x0)^T (x' - x0)``.

    Parameters
    ----------
    k : Kernel
        The (typically NDS) kernel.
    x0 : float or array-like of shape (d,) or (1, d)
        A single anchor point; unlike data arrays, a 1-D ``x0`` is one point
        of R^d.

    Returns
    -------
    Kernel

    Notes
    -----
    The last term is ``k(x0, x0)``, a constant: writing ``k(x, x0)`` there instead
    would cancel the first term (a slip worth checking for when copying the formula).
    """
    if not isinstance(k, Kernel):
        raise ValueError(
            "k must be a kmlib.kernels.Kernel (e.g. kmlib.kernels.squared_distance()); "
            f"got {type(k).__name__}"
        )
    try:
        a = np.asarray(x0, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"x0 must be a numeric point; got {type(x0).__name__}") from exc
    if a.ndim == 0:
        a = a.reshape(1, 1)
    elif a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2 or a.shape[0] != 1:
        raise ValueError(
            "x0 must be a single point: a number, a 1-D array of length d or an "
            f"array of shape (1, d); got shape {np.shape(x0)}"
        )
    a = k._check(a, "x0")
    return _PDSFromNDS(k, a)


# ---------------------------------------------------------------------------
# spectral checks
# ---------------------------------------------------------------------------
def _default_tol(n: int, norm2: float) -> float:
    """``10 * n * eps * max(1, ||K||_2)``, the default eigenvalue tolerance."""
    return 10.0 * n * _EPS * max(1.0, norm2)


def _symmetric_part(K: Any, tol: Any, vectors: bool = False
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, float]:
    """Validate ``K``; return ``(S, eigenvalues, eigenvectors or None, tol)``.

    ``S = (K + K^T) / 2``; eigenvalues are in increasing order.
    """
    A = check_square(K, "K")
    tol_user = None if tol is None else check_nonnegative(tol, "tol")
    S = 0.5 * (A + A.T)
    if vectors:
        evals, U = linalg.eigh(S)
    else:
        evals, U = linalg.eigvalsh(S), None
    default = _default_tol(len(A), float(np.max(np.abs(evals))))
    tol_v = default if tol_user is None else tol_user
    asym = float(np.max(np.abs(A - A.T)))
    if asym > max(tol_v, default):
        raise ValueError(
            f"K must be symmetric; got max |K - K^T| = {asym:.3g}, above the tolerance "
            f"{max(tol_v, default):.3g}. Pass a Gram matrix k(X), or symmetrise it "
            "with (K + K.T) / 2 if the asymmetry is round-off"
        )
    return S, evals, U, tol_v


@finite_result
def is_psd(K: Any, tol: float | None = None) -> bool:
    """Return True when the symmetric matrix ``K`` is positive semidefinite.

    Parameters
    ----------
    K : array-like of shape (n, n)
        A symmetric matrix, e.g. a Gram matrix ``k(X)``.
    tol : float, optional
        Accept eigenvalues ``>= -tol``.  Default
        ``tol = 10 * n * eps * max(1, ||S||_2)`` with ``eps`` the float64
        machine epsilon and ``S = (K + K^T) / 2``.

    Returns
    -------
    bool
        ``lambda_min(S) >= -tol``.

    Raises
    ------
    ValueError
        If ``K`` is not a finite square matrix, or if ``max |K - K^T|``
        exceeds ``max(tol, default tol)``.
    """
    _, evals, _, tol_v = _symmetric_part(K, tol)
    return bool(evals[0] >= -tol_v)


@finite_result
def is_nds(K: Any, tol: float | None = None) -> bool:
    """Return True when ``K`` is conditionally negative semidefinite.

    That is, ``c^T K c <= tol ||c||^2`` for every ``c`` with ``sum(c) = 0``.
    ``K`` is projected onto the sum-zero subspace with the orthonormal basis
    given by a Householder reflection that maps ``1/sqrt(n)`` to ``-e_1``, and
    the largest eigenvalue of the projected matrix is compared with ``tol``.

    Parameters
    ----------
    K : array-like of shape (n, n)
        A symmetric matrix, e.g. ``squared_distance()(X)``.
    tol : float, optional
        Default ``10 * n * eps * max(1, ||S||_2)`` with ``S = (K + K^T) / 2``.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        If ``K`` is not a finite square matrix, or not symmetric within
        ``max(tol, default tol)``.
    """
    S, _, _, tol_v = _symmetric_part(K, tol)
    n = len(S)
    if n == 1:
        return True  # the only sum-zero vector is 0
    w = np.full(n, 1.0 / np.sqrt(n))
    w[0] += 1.0
    beta = 2.0 / (w @ w)
    HS = S - beta * np.outer(w, w @ S)  # H S with H = I - beta w w^T
    HSH = HS - beta * np.outer(HS @ w, w)
    B = HSH[1:, 1:]  # columns 2..n of H span {c : sum(c) = 0}
    evals = linalg.eigvalsh(0.5 * (B + B.T))
    return bool(evals[-1] <= tol_v)


@finite_result
def empirical_feature_map(K: Any, tol: float | None = None) -> np.ndarray:
    """Return ``Phi`` of shape (n, r) with ``Phi @ Phi.T = K`` for a PSD ``K``.

    From ``K = U diag(lam) U^T`` (``eigh``), ``Phi = U_r diag(sqrt(lam_r))``
    keeps the ``r`` eigenvalues above ``tol`` in decreasing order, so a
    rank-deficient ``K`` (e.g. a duplicated point) gives ``r < n``.  Row i is
    a feature vector of the i-th sample; it equals, up to a rotation of
    R^r, the whitened empirical kernel map ``(K^+)^{1/2} K e_i`` of chapter 4.

    Parameters
    ----------
    K : array-like of shape (n, n)
        A symmetric positive semidefinite matrix, e.g. ``k(X)``.
    tol : float, optional
        Eigenvalues in ``[-tol, tol]`` are treated as 0.  Default
        ``10 * n * eps * max(1, ||K||_2)``, as in :func:`is_psd`.

    Returns
    -------
    ndarray of shape (n, r)

    Raises
    ------
    ValueError
        If ``K`` is not a finite symmetric square matrix, or has an eigenvalue
        below ``-tol`` (not positive semidefinite).
    """
    _, lam, U, tol_v = _symmetric_part(K, tol, vectors=True)
    if lam[0] < -tol_v:
        raise ValueError(
            f"K must be positive semidefinite; its smallest eigenvalue is {lam[0]:.3g} "
            f"< -tol = {-tol_v:.3g}. Use a positive-definite kernel (the sigmoid kernel, "
            "for instance, is not one); if the negative part is round-off, pass a larger "
            "tol or add a small multiple of the identity to K"
        )
    keep = lam > tol_v
    lam, U = lam[keep][::-1], U[:, keep][:, ::-1]
    return U * np.sqrt(lam)

"""Kernels on R^d: linear, polynomial, Gaussian, Laplacian, Matern, exponential, ...

Also the sigmoid and the squared distance (chapter "Kernels: positive definiteness,
closure rules and a catalogue").

The Matern kernel is evaluated in the log domain (Bessel recurrence for moderate
smoothness, Debye's uniform asymptotic expansion for large smoothness), so it stays
finite and fast for any ``nu``.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse
from scipy import special

from .._validation import NONNEGATIVE, POSITIVE, POSITIVE_INT, Interval, Real, validate_args
from .base import Kernel, _inner, _rowdot, _sq_dists

__all__ = [
    "linear",
    "polynomial",
    "gaussian",
    "laplacian",
    "matern",
    "exponential",
    "sigmoid",
    "squared_distance",
]


#: Length scales within [2^-100, 2^100] are used as given; beyond, the inputs and the length
#: are first multiplied by a power of two (see :class:`_OfLength`).
_PLAIN_EXPONENT = 100
#: Largest magnitude of a rescaled input: squares and their sums stay finite.
_TOP_EXPONENT = 400


def _exponent(v: float) -> int:
    """``e`` with ``2^(e-1) <= v < 2^e`` for ``v > 0`` (``math.frexp``'s exponent)."""
    return math.frexp(v)[1]


def _amax(A: Any) -> float:
    """``max |a_ij|`` of a dense or sparse array."""
    if scipy.sparse.issparse(A):
        return float(abs(A).max()) if A.nnz else 0.0
    return float(max(A.max(), -A.min()))


class _OfLength(Kernel):
    """A kernel that may have a length scale ``l``: a function of ``x / l`` and ``y / l``.

    Such a kernel is the same for the inputs multiplied by ``c`` and the length ``l c``.
    When ``l`` lies outside ``[2^-100, 2^100]`` it is evaluated so, with ``c = 2^-e`` the
    power of two that brings ``l c`` into ``[1/2, 1)``: a multiplication by a power of two
    is exact, so every input, inner product and squared distance in the normal
    floating-point range keeps its bits, and those that would underflow (``|x - y| ~ l ~
    1e-160``: ``|x - y|^2 ~ 1e-320``) or overflow (``l ~ 1e200``) are of order 1 instead.
    ``c`` is capped where ``|x| c`` would reach ``2^400`` (inputs far larger than the length
    scale: their squares still fit).  Other lengths, and kernels without one, cost one test.
    """

    def _length_exponent(self) -> int | None:
        """The exponent ``e`` of the length scale (``2^(e-1) <= l < 2^e``), None without one."""
        return None

    def _rescaled(self, c: float) -> "_OfLength":
        """The same kernel for the inputs multiplied by the power of two ``c``."""
        return self

    def _unit(self, *arrays: Any) -> float | None:
        """The power of two ``c`` by which ``arrays`` and the length are multiplied, or None."""
        e = self._length_exponent()
        if e is None or abs(e) <= _PLAIN_EXPONENT:
            return None
        e = -e
        if e > 0:   # a small length: scaled up, no further than the inputs allow
            top = max(_amax(A) for A in arrays)
            if top > 0:
                e = max(0, min(e, _TOP_EXPONENT - _exponent(top)))
            e = min(e, 1023)
        return math.ldexp(1.0, e)

    def _at_unit(self, X: Any, Y: Any) -> tuple["_OfLength", Any, Any]:
        """``(kernel, X c, Y c)`` rescaled (``Y is X`` kept), or ``(self, X, Y)``."""
        c = self._unit(X) if Y is X else self._unit(X, Y)
        if c is None:
            return self, X, Y
        Xc = X * c
        return self._rescaled(c), Xc, (Xc if Y is X else Y * c)


class _OfInner(_OfLength):
    """A kernel ``f(<x, y>)``: ``_profile`` maps an array of inner products to values."""

    def _profile(self, G):
        return G

    def _gram(self, X, Y):
        k, X, Y = self._at_unit(X, Y)
        return k._profile(_inner(X, Y))

    def _diag(self, X):
        k, X, _ = self._at_unit(X, X)
        return k._profile(_rowdot(X, X))

    def _paired(self, X, Y):
        k, X, Y = self._at_unit(X, Y)
        return k._profile(_rowdot(X, Y))


class _OfDistance(_OfLength):
    """A kernel ``f(|x - y|^2)``: ``_profile`` maps an array of squared distances to values."""

    def _gram(self, X, Y):
        k, X, Y = self._at_unit(X, Y)
        return k._profile(_sq_dists(X, Y))

    def _diag(self, X):
        return self._profile(np.zeros(X.shape[0]))

    def _paired(self, X, Y):
        k, D, _ = self._at_unit(D := X - Y, D)
        return k._profile(_rowdot(D, D))

    def _rows_of(self, X):
        """``rows(idx)``, the rows ``k(X[idx], X)`` of the Gram matrix of a dense, checked ``X``.

        For SMO's kernel cache, which asks for a few rows at a time: the centred points
        and their squared norms are prepared once (the products of :func:`_sq_dists`
        with the mean of all of ``X`` as the shift), so a call is one small matrix product
        and the profile.  A row's own entry is exact.  Every distance is at most
        ``4 max |x - mean|^2``; when that is not finite (or ``X`` is sparse) the result
        is ``None``, and the caller evaluates the kernel itself (which reports overflow).
        An extreme length scale is rescaled as in ``_gram``.
        """
        if scipy.sparse.issparse(X):
            return None
        kernel, X, _ = self._at_unit(X, X)
        with np.errstate(over="ignore", invalid="ignore"):
            Xc = X - X.mean(axis=0)
            xx = np.einsum("ij,ij->i", Xc, Xc)
            if not np.isfinite(4.0 * np.max(xx)):
                return None
        A = np.column_stack([-2.0 * Xc, xx, np.ones_like(xx)])  # rows [-2 x, |x|^2, 1]
        Bt = np.ascontiguousarray(np.vstack([Xc.T, np.ones_like(xx), xx]))  # [x, 1, |x|^2]

        def rows(idx):
            D = A[idx] @ Bt
            np.abs(D, out=D)
            D[np.arange(len(idx)), idx] = 0.0
            with np.errstate(over="ignore", invalid="ignore"):   # as in Kernel.__call__
                return kernel._profile(D)   # (finite distances give finite values)

        return rows


class _Linear(_OfInner):
    _sparse_ok = True

    def __repr__(self):
        return "linear()"


class _Polynomial(_OfInner):
    _sparse_ok = True

    def __init__(self, degree: int, c: float):
        self.degree, self.c = degree, c

    def _profile(self, G):
        return (G + self.c) ** self.degree

    def __repr__(self):
        return f"polynomial(degree={self.degree}, c={self.c!r})"


class _Gaussian(_OfDistance):
    _sparse_ok = True

    def __init__(self, sigma: float):
        self.sigma = sigma

    def _length_exponent(self):
        return _exponent(self.sigma)

    def _rescaled(self, c):
        return _Gaussian(self.sigma * c)

    def _profile(self, D):
        scale = 0.5 / self.sigma / self.sigma  # sigma**2 could overflow or underflow
        if np.isinf(scale):  # sigma < ~1e-154 (by _diag, or inputs too large to rescale):
            # the kernel is 1 at distance 0, else 0
            return (D == 0.0).astype(float)
        D *= -scale
        return np.exp(D, out=D)

    def __repr__(self):
        return f"gaussian(sigma={self.sigma!r})"


class _Laplacian(_OfDistance):
    def __init__(self, gamma: float):
        self.gamma = gamma

    def _length_exponent(self):
        return 1 - _exponent(self.gamma)   # of 1 / gamma, to within one

    def _rescaled(self, c):
        return _Laplacian(self.gamma / c)

    def _profile(self, D):
        R = np.sqrt(D)
        R *= -self.gamma
        return np.exp(R, out=R)

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
        with np.errstate(over="ignore"):   # (beyond 1e300, k = 0 in floating point)
            w = np.minimum(2.0 * (r / length_scale) ** 2, 1e300)
        out = np.exp(np.minimum(_log_matern_asymptotic(w, nu), 0.0))
        out[r == 0] = 1.0
        return out
    # scipy's kve is NaN beyond z ~ 2e9; from z = 1e8 on, log k < -1e8 + nu log(1e8) and
    # k = 0 in floating point for every nu < 1000, so capping z changes no value
    z = np.minimum(np.sqrt(2.0 * nu) * r / length_scale, 1e8)
    out = np.ones_like(z)
    pos = z > 0
    zp = z[pos]
    log_k = ((1.0 - nu) * np.log(2.0) - special.gammaln(nu)
             + nu * np.log(zp) + _log_kv(nu, zp))
    out[pos] = np.exp(np.minimum(log_k, 0.0))  # k <= 1; trims round-off above 1
    return out


class _Matern(_OfDistance):
    def __init__(self, nu: float, length_scale: float):
        self.nu, self.length_scale = nu, length_scale

    def _length_exponent(self):
        return _exponent(self.length_scale)

    def _rescaled(self, c):
        return _Matern(self.nu, self.length_scale * c)

    def _profile(self, D):
        return _matern_profile(np.sqrt(D), self.nu, self.length_scale)

    def _diag(self, X):
        return np.ones(len(X))

    def __repr__(self):
        return f"matern(nu={self.nu!r}, length_scale={self.length_scale!r})"


class _Exponential(_OfInner):
    def __init__(self, sigma: float):
        self.sigma = sigma

    def _length_exponent(self):
        return _exponent(self.sigma)

    def _rescaled(self, c):
        return _Exponential(self.sigma * c)

    def _profile(self, G):
        return np.exp(G / self.sigma / self.sigma)

    def __repr__(self):
        return f"exponential(sigma={self.sigma!r})"


class _Sigmoid(_OfInner):
    def __init__(self, a: float, b: float):
        self.a, self.b = a, b

    def _profile(self, G):
        return np.tanh(self.a * G + self.b)

    def __repr__(self):
        return f"sigmoid(a={self.a!r}, b={self.b!r})"


class _SquaredDistance(_OfDistance):
    def _profile(self, D):
        return D

    def __repr__(self):
        return "squared_distance()"


def linear() -> Kernel:
    """Linear kernel ``k(x, x') = x^T x'``.

    Returns
    -------
    Kernel
    """
    return _Linear()


@validate_args({"degree": [POSITIVE_INT], "c": [NONNEGATIVE]})
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
    return _Polynomial(int(degree), float(c))


@validate_args({"sigma": [POSITIVE]})
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
    return _Gaussian(float(sigma))


@validate_args({"gamma": [POSITIVE]})
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
    return _Laplacian(float(gamma))


@validate_args({"nu": [POSITIVE], "length_scale": [POSITIVE]})
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
    return _Matern(float(nu), float(length_scale))


@validate_args({"sigma": [POSITIVE]})
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
    return _Exponential(float(sigma))


@validate_args({"a": [Interval(Real, None, None)], "b": [Interval(Real, None, None)]})
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
    return _Sigmoid(float(a), float(b))


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


def spectral_family(k: Kernel) -> tuple[str, float, float | None] | None:
    """``(family, width, nu)`` of a Gaussian, Laplacian or Matern kernel object, else None.

    The width is ``sigma``, ``1 / gamma`` and ``length_scale`` respectively: what random
    Fourier features need to sample the kernel's spectral density.
    """
    if isinstance(k, _Gaussian):
        return "gaussian", k.sigma, None
    if isinstance(k, _Laplacian):
        return "laplacian", 1.0 / k.gamma, None
    if isinstance(k, _Matern):
        return "matern", k.length_scale, k.nu
    return None

"""Kernel algebra: the closure rules as kernels, catalogue additions, and the empirical kernel map.

This module serves the chapter "Kernels: positive definiteness, closure rules, a
catalogue, and what is not a kernel".  :mod:`kmlib.kernels` already provides the
common kernels and the operators ``+``, ``*``, ``**`` and ``normalized``; here are
the remaining closure rules as kernel objects (tensor products, composition with a
map, ``g(x) k(x, x') g(x')``, power series with non-negative coefficients such as
``exp(k)``), the kernels of the catalogue that :mod:`kmlib.kernels` lacks (constant,
Cauchy, the l1 Laplacian), the textbook Bessel formula of the Matern family, an
explicit feature map of the one-dimensional Gaussian kernel, the empirical kernel
map and its whitened version, the Monte-Carlo argument behind the Schur product
rule, Gaussian-process sample paths, and the Nadaraya-Watson smoother (whose
"kernel" is a different object).

Examples
--------
>>> import numpy as np
>>> from kmlib import kernels, kernel_algebra as ka
>>> k = ka.exp_of(kernels.linear())          # exp(x^T x'), a power series of the linear kernel
>>> X = np.array([[0.0], [1.0]])
>>> bool(np.allclose(k(X), np.exp(X @ X.T)))
True
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
from scipy import linalg, special
from scipy.spatial.distance import cdist

from ._validation import (
    check_int,
    check_matrix,
    check_nonnegative,
    check_positive,
    check_rng,
    check_square,
    check_vector,
)
from .kernels import Kernel

__all__ = [
    "constant",
    "cauchy",
    "laplacian_l1",
    "tensor_product",
    "composed",
    "rescaled",
    "power_series",
    "exp_of",
    "matern_bessel",
    "gaussian_features_1d",
    "empirical_kernel_map",
    "whitened_kernel_map",
    "hadamard_monte_carlo",
    "sample_paths",
    "nadaraya_watson",
    "min_eigenvalue",
    "minhash_first",
]


def _check_kernel_object(k: Any, name: str) -> Kernel:
    if not isinstance(k, Kernel):
        raise ValueError(
            f"{name} must be a kmlib.kernels.Kernel (e.g. kmlib.kernels.gaussian(1.0)); "
            f"got {type(k).__name__}"
        )
    return k


# ---------------------------------------------------------------------------
# catalogue additions
# ---------------------------------------------------------------------------
class _Constant(Kernel):
    def __init__(self, c: float):
        self.c = c

    def _gram(self, X, Y):
        return np.full((len(X), len(Y)), self.c)

    def _diag(self, X):
        return np.full(len(X), self.c)

    def __repr__(self):
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

    def _gram(self, X, Y):
        G = np.ones((len(X), len(Y)))
        for j in range(X.shape[1]):  # one pass per input dimension (d is small)
            D = (X[:, j][:, None] - Y[:, j][None, :]) / self.scale
            G /= 1.0 + D * D
        return G

    def _diag(self, X):
        return np.ones(len(X))

    def __repr__(self):
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

    def _gram(self, X, Y):
        return np.exp(-self.gamma * cdist(X, Y, metric="cityblock"))

    def _diag(self, X):
        return np.ones(len(X))

    def __repr__(self):
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


# ---------------------------------------------------------------------------
# closure rules as kernels
# ---------------------------------------------------------------------------
class _Tensor(Kernel):
    def __init__(self, k1: Kernel, k2: Kernel, d1: int):
        self.k1, self.k2, self.d1 = k1, k2, d1

    def _check(self, X, name):
        A = check_matrix(X, name)
        if A.shape[1] <= self.d1:
            raise ValueError(
                f"{name} must have more than d1={self.d1} columns (the first d1 belong to "
                f"the first factor, the rest to the second); got {A.shape[1]}"
            )
        self.k1._check(A[:, : self.d1], name)
        self.k2._check(A[:, self.d1:], name)
        return A

    def _gram(self, X, Y):
        d = self.d1
        return self.k1._gram(X[:, :d], Y[:, :d]) * self.k2._gram(X[:, d:], Y[:, d:])

    def _diag(self, X):
        d = self.d1
        return self.k1._diag(X[:, :d]) * self.k2._diag(X[:, d:])

    def __repr__(self):
        return f"tensor_product({self.k1!r}, {self.k2!r}, d1={self.d1})"


def tensor_product(k1: Kernel, k2: Kernel, d1: int) -> Kernel:
    """Tensor product ``(k1 ⊗ k2)((x, y), (x', y')) = k1(x, x') k2(y, y')``.

    Inputs are rows ``(x, y)`` whose first ``d1`` columns are ``x`` (the input
    of ``k1``) and whose remaining columns are ``y`` (the input of ``k2``).

    Parameters
    ----------
    k1, k2 : Kernel
        Kernels on the two factors.
    d1 : int
        Number of columns that belong to the first factor, ``d1 >= 1``.

    Returns
    -------
    Kernel
    """
    return _Tensor(_check_kernel_object(k1, "k1"), _check_kernel_object(k2, "k2"),
                   check_int(d1, "d1", minimum=1))


def _apply_map(phi: Callable[[np.ndarray], Any], Z: np.ndarray, who: str) -> np.ndarray:
    A = np.asarray(phi(Z), dtype=float)
    if A.ndim == 1:
        A = A[:, None]
    if A.ndim != 2 or A.shape[0] != len(Z):
        raise ValueError(
            f"{who}: the map must return one row per input row, an array of shape "
            f"({len(Z)}, d) or ({len(Z)},); got shape {A.shape}"
        )
    return A


class _Composed(Kernel):
    def __init__(self, kernel: Kernel, phi: Callable):
        self.kernel, self.phi = kernel, phi

    def _gram(self, X, Y):
        A = self.kernel._check(_apply_map(self.phi, X, "composed"), "phi(X)")
        B = A if Y is X else self.kernel._check(_apply_map(self.phi, Y, "composed"), "phi(Y)")
        return self.kernel._gram(A, B)

    def _diag(self, X):
        A = self.kernel._check(_apply_map(self.phi, X, "composed"), "phi(X)")
        return self.kernel._diag(A)

    def __repr__(self):
        return f"composed({self.kernel!r}, {getattr(self.phi, '__name__', 'phi')})"


def composed(k: Kernel, phi: Callable[[np.ndarray], Any]) -> Kernel:
    """Kernel ``k(phi(z), phi(z'))`` on a new input space, for a map ``phi``.

    Parameters
    ----------
    k : Kernel
        A kernel on the range of ``phi``.
    phi : callable
        Maps an array of inputs of shape ``(n, d_z)`` to an array of shape
        ``(n, d_x)`` (or ``(n,)``), row by row.

    Returns
    -------
    Kernel
    """
    if not callable(phi):
        raise ValueError(f"phi must be a callable map; got {type(phi).__name__}")
    return _Composed(_check_kernel_object(k, "k"), phi)


class _Rescaled(Kernel):
    def __init__(self, kernel: Kernel, g: Callable):
        self.kernel, self.g = kernel, g

    def _check(self, X, name):
        return self.kernel._check(X, name)

    def _weights(self, X):
        w = np.asarray(self.g(X), dtype=float).reshape(-1)
        if w.shape != (len(X),) or not np.all(np.isfinite(w)):
            raise ValueError(
                f"rescaled: g must return one finite real number per input row, shape "
                f"({len(X)},); got shape {np.shape(w)}"
            )
        return w

    def _gram(self, X, Y):
        gx = self._weights(X)
        gy = gx if Y is X else self._weights(Y)
        G = self.kernel._gram(X, Y)
        G *= gx[:, None]
        G *= gy[None, :]
        return G

    def _diag(self, X):
        return self._weights(X) ** 2 * self.kernel._diag(X)

    def __repr__(self):
        return f"rescaled({self.kernel!r}, {getattr(self.g, '__name__', 'g')})"


def rescaled(k: Kernel, g: Callable[[np.ndarray], Any]) -> Kernel:
    """Kernel ``g(x) k(x, x') g(x')`` for a real function ``g``.

    Its Gram matrix is ``diag(g) K diag(g)``, positive semidefinite whenever
    ``K`` is.  The normalised kernel is the case ``g(x) = k(x, x)^{-1/2}``.

    Parameters
    ----------
    k : Kernel
    g : callable
        Maps an input array of shape ``(n, d)`` to ``n`` real numbers.

    Returns
    -------
    Kernel
    """
    if not callable(g):
        raise ValueError(f"g must be a callable; got {type(g).__name__}")
    return _Rescaled(_check_kernel_object(k, "k"), g)


class _PowerSeries(Kernel):
    def __init__(self, kernel: Kernel, coef: np.ndarray | None):
        self.kernel, self.coef = kernel, coef

    def _check(self, X, name):
        return self.kernel._check(X, name)

    def _series(self, G):
        if self.coef is None:
            return np.exp(G)
        out = np.full_like(G, self.coef[-1])
        for a in self.coef[-2::-1]:  # Horner's scheme
            out *= G
            out += a
        return out

    def _gram(self, X, Y):
        return self._series(self.kernel._gram(X, Y))

    def _diag(self, X):
        return self._series(self.kernel._diag(X))

    def __repr__(self):
        if self.coef is None:
            return f"exp_of({self.kernel!r})"
        return f"power_series({self.kernel!r}, coef={self.coef.tolist()})"


def power_series(k: Kernel, coef: Any) -> Kernel:
    """Kernel ``sum_i a_i k(x, x')^i`` with non-negative coefficients ``a_0, a_1, ...``.

    Parameters
    ----------
    k : Kernel
    coef : array-like of shape (m,)
        Coefficients ``a_0, ..., a_{m-1}``, all ``>= 0`` (a negative coefficient
        can break positive definiteness).

    Returns
    -------
    Kernel
    """
    a = check_vector(coef, "coef")
    if np.any(a < 0):
        raise ValueError(
            f"coef must be non-negative (the closure rule needs a_i >= 0); got a "
            f"negative entry at index {int(np.argmax(a < 0))}"
        )
    return _PowerSeries(_check_kernel_object(k, "k"), a)


def exp_of(k: Kernel) -> Kernel:
    """Kernel ``exp(k(x, x'))``, the power series ``sum_i k^i / i!``.

    Parameters
    ----------
    k : Kernel

    Returns
    -------
    Kernel
    """
    return _PowerSeries(_check_kernel_object(k, "k"), None)


# ---------------------------------------------------------------------------
# Matern by its Bessel formula; Gaussian features
# ---------------------------------------------------------------------------
def matern_bessel(r: Any, nu: float, length_scale: float) -> np.ndarray:
    """Matern profile by the textbook formula with ``scipy.special.kv`` and ``gamma``.

    ``k(r) = 2^{1-nu} / Gamma(nu) * t^nu K_nu(t)`` with ``t = sqrt(2 nu) r / l``,
    and ``k(0) = 1``.  This direct formula is a second route to
    :func:`kmlib.kernels.matern` (which uses closed forms and a log-domain
    evaluation); it overflows for large ``nu`` (about ``nu > 150`` near
    ``r = 0``), where entries come back as NaN or inf.

    Parameters
    ----------
    r : array-like
        Distances ``r >= 0``.
    nu, length_scale : float
        Smoothness ``nu > 0`` and length scale ``l > 0``.

    Returns
    -------
    ndarray
        Same shape as ``r``.
    """
    nu = check_positive(nu, "nu")
    ell = check_positive(length_scale, "length_scale")
    r = np.asarray(r, dtype=float)
    if np.any(~np.isfinite(r)) or np.any(r < 0):
        raise ValueError("r must hold finite distances r >= 0")
    t = np.sqrt(2.0 * nu) * r / ell
    out = np.ones_like(t)
    pos = t > 0
    with np.errstate(over="ignore", invalid="ignore"):
        out[pos] = 2.0 ** (1.0 - nu) / special.gamma(nu) * t[pos] ** nu * special.kv(nu, t[pos])
    return out


def gaussian_features_1d(x: Any, sigma: float, n_features: int) -> np.ndarray:
    """Truncated explicit feature map of the one-dimensional Gaussian kernel.

    ``phi_m(x) = exp(-x^2 / (2 sigma^2)) (x / sigma)^m / sqrt(m!)`` for
    ``m = 0, ..., n_features - 1``, so that ``sum_m phi_m(x) phi_m(x')`` tends to
    ``exp(-(x - x')^2 / (2 sigma^2))`` as ``n_features`` grows.

    Parameters
    ----------
    x : array-like of shape (n,)
    sigma : float
        Bandwidth ``sigma > 0``.
    n_features : int
        Number of terms kept, ``>= 1``.

    Returns
    -------
    ndarray of shape (n, n_features)
    """
    x = check_vector(x, "x")
    sigma = check_positive(sigma, "sigma")
    M = check_int(n_features, "n_features", minimum=1)
    u = x / sigma
    P = np.empty((len(x), M))
    P[:, 0] = 1.0
    for j in range(1, M):  # u^m / sqrt(m!) by a stable recurrence
        P[:, j] = P[:, j - 1] * u / math.sqrt(j)
    return np.exp(-0.5 * u * u)[:, None] * P


# ---------------------------------------------------------------------------
# empirical kernel map
# ---------------------------------------------------------------------------
def empirical_kernel_map(k: Kernel, sample: Any, X: Any) -> np.ndarray:
    """Empirical kernel map ``Phi'(x) = (k(x, x_1), ..., k(x, x_m))``, one row per ``x``.

    On the sample itself the rows are ``K e_i`` and their inner products form
    ``K^2``, not ``K``.

    Parameters
    ----------
    k : Kernel
    sample : array-like of shape (m, d)
        The points ``x_1, ..., x_m``.
    X : array-like of shape (n, d)
        Where to evaluate the map.

    Returns
    -------
    ndarray of shape (n, m)
    """
    return _check_kernel_object(k, "k")(X, sample)


def whitened_kernel_map(k: Kernel, sample: Any, X: Any, tol: float | None = None) -> np.ndarray:
    """Whitened empirical kernel map ``Phi''(x) = (K^+)^{1/2} Phi'(x)``.

    ``K = U diag(s) U^T`` is factored once (``eigh``); eigenvalues at most
    ``tol`` count as zero, so a singular ``K`` (e.g. a duplicated point) is
    handled by the pseudo-inverse.  On the sample, ``Phi'' Phi''^T = K K^+ K = K``.

    Parameters
    ----------
    k : Kernel
    sample : array-like of shape (m, d)
    X : array-like of shape (n, d)
    tol : float, optional
        Default ``10 m eps max(1, ||K||_2)``.

    Returns
    -------
    ndarray of shape (n, m)

    Raises
    ------
    ValueError
        If the sample's Gram matrix has an eigenvalue below ``-tol``.
    """
    k = _check_kernel_object(k, "k")
    K = k(sample)
    s, U = linalg.eigh(K)
    t = 10.0 * len(K) * np.finfo(float).eps * max(1.0, float(np.abs(s).max()))
    if tol is not None:
        t = check_nonnegative(tol, "tol")
    if s[0] < -t:
        raise ValueError(
            f"the Gram matrix of the sample must be positive semidefinite; its smallest "
            f"eigenvalue is {s[0]:.3g} < -tol = {-t:.3g}"
        )
    inv_sqrt = np.zeros_like(s)
    keep = s > t
    inv_sqrt[keep] = 1.0 / np.sqrt(s[keep])
    root = (U * inv_sqrt) @ U.T          # (K^+)^{1/2}, symmetric
    return k(X, sample) @ root


# ---------------------------------------------------------------------------
# Schur product rule by simulation
# ---------------------------------------------------------------------------
def _psd_root(K: np.ndarray, name: str) -> np.ndarray:
    s, U = linalg.eigh(K)
    tol = 10.0 * len(K) * np.finfo(float).eps * max(1.0, float(np.abs(s).max()))
    if s[0] < -tol:
        raise ValueError(f"{name} must be positive semidefinite; smallest eigenvalue {s[0]:.3g}")
    return U * np.sqrt(np.clip(s, 0.0, None))


def hadamard_monte_carlo(K1: Any, K2: Any, n_draws: int,
                         seed: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Monte-Carlo estimate of ``Var(X ⊙ Y)`` for independent ``X ~ N(0, K1)``, ``Y ~ N(0, K2)``.

    Because ``X`` and ``Y`` are independent with mean zero,
    ``E[(X_i Y_i)(X_j Y_j)] = (K1)_ij (K2)_ij``, so the estimate approaches the
    Schur product ``K1 ⊙ K2``, which is therefore a covariance matrix.

    Parameters
    ----------
    K1, K2 : array-like of shape (n, n)
        Positive semidefinite matrices.
    n_draws : int
        Number of independent pairs ``(X, Y)``.
    seed : None, int or numpy Generator

    Returns
    -------
    estimate : ndarray of shape (n, n)
        ``(1/N) sum_r Z_r Z_r^T`` with ``Z_r = X_r ⊙ Y_r`` (the mean is known to be 0).
    std_error : ndarray of shape (n, n)
        Standard error of each entry of ``estimate``.
    """
    A = check_square(K1, "K1")
    B = check_square(K2, "K2")
    if A.shape != B.shape:
        raise ValueError(f"K1 and K2 must have the same shape; got {A.shape} and {B.shape}")
    N = check_int(n_draws, "n_draws", minimum=2)
    rng = check_rng(seed)
    n = len(A)
    X = rng.standard_normal((N, n)) @ _psd_root(A, "K1").T
    Y = rng.standard_normal((N, n)) @ _psd_root(B, "K2").T
    Z = X * Y
    est = Z.T @ Z / N
    Z2 = Z * Z
    second = Z2.T @ Z2 / N
    se = np.sqrt(np.clip(second - est**2, 0.0, None) / N)
    return est, se


def sample_paths(k: Kernel, x: Any, n_paths: int, seed: Any = None) -> np.ndarray:
    """Draw sample paths of the centred Gaussian process with covariance ``k`` at ``x``.

    The Gram matrix is factored once with ``eigh``; tiny negative eigenvalues
    (round-off of a positive semidefinite matrix) are set to zero.

    Parameters
    ----------
    k : Kernel
    x : array-like of shape (n, d) or (n,)
    n_paths : int
    seed : None, int or numpy Generator

    Returns
    -------
    ndarray of shape (n_paths, n)
    """
    k = _check_kernel_object(k, "k")
    m = check_int(n_paths, "n_paths", minimum=1)
    rng = check_rng(seed)
    K = k(x)
    root = _psd_root(K, "the Gram matrix k(x)")
    return rng.standard_normal((m, len(K))) @ root.T


# ---------------------------------------------------------------------------
# smoothing "kernels" and a spectral helper
# ---------------------------------------------------------------------------
def nadaraya_watson(x_train: Any, y_train: Any, x_eval: Any, h: float) -> np.ndarray:
    """Nadaraya-Watson smoother with Gaussian weights ``exp(-(x - x_i)^2 / (2 h^2))``.

    ``f(x) = sum_i w_i(x) y_i / sum_j w_j(x)``: a locally weighted average,
    whose weight function need not be a positive-definite kernel.

    Parameters
    ----------
    x_train : array-like of shape (n,)
    y_train : array-like of shape (n,)
    x_eval : array-like of shape (m,)
    h : float
        Bandwidth ``h > 0``.

    Returns
    -------
    ndarray of shape (m,)
    """
    xt = check_vector(x_train, "x_train")
    yt = check_vector(y_train, "y_train")
    if len(xt) != len(yt):
        raise ValueError(
            f"x_train and y_train must have the same length; got {len(xt)} and {len(yt)}"
        )
    xe = check_vector(x_eval, "x_eval")
    h = check_positive(h, "h")
    L = -0.5 * ((xe[:, None] - xt[None, :]) / h) ** 2
    L -= L.max(axis=1, keepdims=True)    # stable weights far from the data
    W = np.exp(L)
    return (W @ yt) / W.sum(axis=1)


def minhash_first(S: Any) -> np.ndarray:
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
    from itertools import permutations

    ranks = np.argsort(np.array(list(permutations(range(p)))), axis=1)  # rank of each element
    masked = np.where(A[None, :, :] > 0, ranks[:, None, :], p)          # non-members rank last
    first = masked.argmin(axis=2)
    first[:, A.sum(axis=1) == 0] = -1
    return first


def min_eigenvalue(K: Any) -> float:
    """Smallest eigenvalue of the symmetric part of a square matrix (``eigvalsh``)."""
    A = check_square(K, "K")
    return float(linalg.eigvalsh(0.5 * (A + A.T), subset_by_index=[0, 0])[0])

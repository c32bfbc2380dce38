"""Primal and dual ridge, explicit feature maps and spectral filters.

This module serves the chapter "The kernel trick: primal and dual, costs,
feature maps, pseudoinverse, spectral filters".  It holds what that chapter
computes with but a reader should not have to read in a cell:

* :func:`primal_ridge` and :func:`dual_ridge` -- the two routes to the ridge
  coefficients with a feature matrix ``Phi`` (a ``D x D`` and an ``n x n``
  linear system), and :func:`time_primal_dual`, which times both;
* :func:`n_monomials`, :func:`monomial_exponents` and
  :func:`polynomial_features` -- the explicit feature map of the polynomial
  kernel ``(x^T x' + c)^p``; :func:`quadratic_features` -- the two
  quadratic-effects maps; :func:`gaussian_features_1d` -- the truncated
  ``l^2`` feature map of the one-dimensional Gaussian kernel and
  :func:`gaussian_tail_bound`, a bound on its truncation error;
* :func:`pinv_svd`, :func:`penrose_residuals`, :func:`filter_factors`,
  :func:`spectral_fit` and :func:`spectral_path_errors` -- the pseudoinverse and
  the spectral view of regularisation (least squares, spectral cut-off, ridge).

Scaling: ridge minimises ``||y - Phi w||^2 + lam ||w||^2`` (no ``1/n``), so
``w = (Phi^T Phi + lam I)^{-1} Phi^T y``, as everywhere in the book.
"""
from __future__ import annotations

import math
import time
from itertools import combinations_with_replacement
from typing import Any

import numpy as np
from scipy import special
from threadpoolctl import threadpool_limits

from . import krr, ridge
from ._validation import (
    check_int,
    check_lam,
    check_matrix,
    check_nonnegative,
    check_positive,
    check_rng,
    check_same_length,
    check_vector,
)

__all__ = [
    "primal_ridge",
    "dual_ridge",
    "time_primal_dual",
    "n_monomials",
    "monomial_exponents",
    "polynomial_features",
    "quadratic_features",
    "gaussian_features_1d",
    "gaussian_tail_bound",
    "pinv_svd",
    "penrose_residuals",
    "FILTERS",
    "filter_factors",
    "spectral_fit",
    "spectral_path_errors",
]

#: The spectral filters of the chapter: least squares, spectral cut-off, ridge.
FILTERS = ("pinv", "cutoff", "ridge")


def _check_Phi_y(Phi: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    P = check_matrix(Phi, "Phi", allow_1d=False)
    v = check_vector(y, "y")
    check_same_length(P, v, "Phi", "y")
    return P, v


def _positive_lam(lam: Any) -> float:
    lam = check_lam(lam)
    if lam <= 0:
        raise ValueError(
            f"lam must be > 0 for the primal and dual ridge systems; got {lam!r} "
            "(use spectral_fit(Phi, y, 0, 'pinv') for the minimum-norm least-squares fit)"
        )
    return lam


# ---------------------------------------------------------------------------
# primal and dual ridge
# ---------------------------------------------------------------------------
def primal_ridge(Phi: Any, y: Any, lam: float) -> np.ndarray:
    """Ridge coefficients through the ``D x D`` (primal) system.

    Parameters
    ----------
    Phi : array of shape (n, D)
        Feature matrix, ``Phi[i, j] = phi_j(x_i)``.
    y : array of shape (n,)
        Responses.
    lam : float
        Penalty ``lam > 0``.

    Returns
    -------
    ndarray of shape (D,)
        ``w = (Phi^T Phi + lam I_D)^{-1} Phi^T y``, by a Cholesky factorisation.
        Cost ``O(n D^2 + D^3)`` time and ``O(D^2 + n D)`` memory.
    """
    P, v = _check_Phi_y(Phi, y)
    lam = _positive_lam(lam)
    return ridge.ridge(P, v, lam, method="primal")


def dual_ridge(Phi: Any, y: Any, lam: float, *, return_alpha: bool = False) -> Any:
    """Ridge coefficients through the ``n x n`` (dual) system.

    Parameters
    ----------
    Phi : array of shape (n, D)
        Feature matrix.
    y : array of shape (n,)
        Responses.
    lam : float
        Penalty ``lam > 0``.
    return_alpha : bool, default False
        Also return the dual coefficients ``alpha = (Phi Phi^T + lam I_n)^{-1} y``.

    Returns
    -------
    w : ndarray of shape (D,)
        ``w = Phi^T alpha``.  Cost ``O(n^2 D + n^3)`` time, ``O(n^2 + n D)`` memory.
    alpha : ndarray of shape (n,)
        Only when ``return_alpha`` is True.
    """
    P, v = _check_Phi_y(Phi, y)
    lam = _positive_lam(lam)
    alpha = krr.krr_fit(P @ P.T, v, lam)
    w = P.T @ alpha
    return (w, alpha) if return_alpha else w


def time_primal_dual(n: int, Ds: Any, lam: float = 1.0, *, repeats: int = 3,
                     seed: Any = 0) -> dict[str, np.ndarray]:
    """CPU time of the primal and the dual ridge solve on Gaussian features.

    For each ``D`` in ``Ds`` a standard normal ``Phi`` of shape ``(n, D)`` and a
    response are drawn, and each route is timed ``repeats`` times; the minimum
    is kept (the least disturbed run).  The timings use one BLAS thread and
    the process's CPU time (:func:`time.process_time`), so that they measure
    the operation count rather than the load of a shared machine.

    Parameters
    ----------
    n : int
        Number of samples.
    Ds : sequence of int
        Feature dimensions.
    lam : float, default 1.0
        Penalty ``lam > 0``.
    repeats : int, default 3
        Timings per route and dimension.
    seed : None, int or Generator
        Seed of the random features.

    Returns
    -------
    dict
        ``"D"`` (int array), ``"primal"`` and ``"dual"`` (CPU seconds), and
        ``"rel_diff"``, the relative difference ``||w_P - w_D|| / ||w_P||`` of the
        two answers at each ``D``.
    """
    n = check_int(n, "n", minimum=1)
    Ds = np.asarray(Ds)
    if Ds.ndim != 1 or Ds.size == 0 or not np.issubdtype(Ds.dtype, np.integer) or np.any(Ds < 1):
        raise ValueError(f"Ds must be a non-empty 1-D sequence of positive integers; got {Ds!r}")
    lam = _positive_lam(lam)
    repeats = check_int(repeats, "repeats", minimum=1)
    rng = check_rng(seed)
    out = {k: np.empty(Ds.size) for k in ("primal", "dual", "rel_diff")}
    with threadpool_limits(limits=1, user_api="blas"):
        _time_routes(n, Ds, lam, repeats, rng, out)
    out["D"] = Ds.astype(int)
    return out


def _time_routes(n: int, Ds: np.ndarray, lam: float, repeats: int,
                 rng: np.random.Generator, out: dict[str, np.ndarray]) -> None:
    for i, D in enumerate(Ds):
        Phi = rng.standard_normal((n, int(D)))
        y = rng.standard_normal(n)
        best = {}
        for name, solver in (("primal", primal_ridge), ("dual", dual_ridge)):
            times = []
            for _ in range(repeats):
                t0 = time.process_time()
                w = solver(Phi, y, lam)
                times.append(time.process_time() - t0)
            best[name] = w
            out[name][i] = min(times)
        out["rel_diff"][i] = (np.linalg.norm(best["primal"] - best["dual"])
                              / np.linalg.norm(best["primal"]))


# ---------------------------------------------------------------------------
# polynomial and quadratic feature maps
# ---------------------------------------------------------------------------
def n_monomials(d: int, p: int) -> int:
    """Number of monomials of total degree at most ``p`` in ``d`` variables, ``C(d+p, p)``."""
    d = check_int(d, "d", minimum=1)
    p = check_int(p, "p", minimum=0)
    return math.comb(d + p, p)


def monomial_exponents(d: int, p: int) -> np.ndarray:
    """All exponent vectors ``j`` in ``N^d`` with ``j_1 + ... + j_d <= p``.

    Returns
    -------
    ndarray of shape (C(d+p, p), d), dtype int
        One row per monomial ``x^j``, ordered by total degree.
    """
    d = check_int(d, "d", minimum=1)
    p = check_int(p, "p", minimum=0)
    # a multiset of size p from {0 (the constant slot), 1, ..., d} is a monomial of degree <= p
    rows = []
    for combo in combinations_with_replacement(range(d + 1), p):
        counts = np.bincount(np.asarray(combo, dtype=int), minlength=d + 1)
        rows.append(counts[1:])
    J = np.array(rows, dtype=int).reshape(-1, d)
    return J[np.lexsort(np.vstack([J.T[::-1], J.sum(axis=1)]))]


def polynomial_features(X: Any, degree: int, c: float = 1.0) -> np.ndarray:
    """Explicit feature map of the polynomial kernel ``(x^T x' + c)^degree``.

    Feature ``j`` (an exponent vector with ``|j| <= degree``, see
    :func:`monomial_exponents`) is
    ``sqrt(degree! / (j_0! j_1! ... j_d!) * c^{j_0}) * x^j`` with
    ``j_0 = degree - |j|``, so that ``Phi @ Phi.T`` is the kernel's Gram matrix.

    Parameters
    ----------
    X : array of shape (n, d)
        Inputs (a 1-D array is read as n points in one dimension).
    degree : int
        Degree ``p >= 1``.
    c : float, default 1.0
        Offset ``c >= 0``.  With ``c = 0`` only the ``C(d+p-1, p)`` features of
        degree exactly ``p`` are non-zero; they are all returned anyway.

    Returns
    -------
    ndarray of shape (n, C(d+p, p))
    """
    X = check_matrix(X, "X")
    p = check_int(degree, "degree", minimum=1)
    c = check_nonnegative(c, "c")
    J = monomial_exponents(X.shape[1], p)
    j0 = p - J.sum(axis=1)
    log_coef = (special.gammaln(p + 1) - special.gammaln(j0 + 1)
                - special.gammaln(J + 1).sum(axis=1))
    coef = np.exp(0.5 * log_coef) * np.sqrt(c) ** j0
    mono = np.prod(X[:, None, :] ** J[None, :, :], axis=2)
    return mono * coef


def quadratic_features(X: Any, linear_weight: float = 1.0) -> np.ndarray:
    """Linear terms and all ordered pairwise products: ``(a x_k)_k, (x_k x_l)_{k,l}``.

    Parameters
    ----------
    X : array of shape (n, p)
        Inputs.
    linear_weight : float, default 1.0
        The factor ``a`` on the linear terms.  ``a = 1`` has Gram matrix
        ``x^T x' + (x^T x')^2 = (1/2 + x^T x')^2 - 1/4``; ``a = sqrt(2)`` has
        ``2 x^T x' + (x^T x')^2 = (1 + x^T x')^2 - 1``.

    Returns
    -------
    ndarray of shape (n, p + p^2)
    """
    X = check_matrix(X, "X")
    a = check_nonnegative(linear_weight, "linear_weight")
    n, p = X.shape
    prods = (X[:, :, None] * X[:, None, :]).reshape(n, p * p)
    return np.hstack([a * X, prods])


def gaussian_features_1d(x: Any, sigma: float, n_terms: int) -> np.ndarray:
    """The first ``n_terms`` coordinates of the l^2 feature map of the 1-D Gaussian kernel.

    ``phi_m(x) = exp(-x^2 / (2 sigma^2)) (x / sigma)^m / sqrt(m!)``, ``m = 0, 1, ...``,
    so that ``sum_m phi_m(x) phi_m(x') = exp(-(x - x')^2 / (2 sigma^2))``.

    Parameters
    ----------
    x : array of shape (n,)
        Points on the real line.
    sigma : float
        Bandwidth ``sigma > 0``.
    n_terms : int
        Number ``M >= 1`` of coordinates kept (``m = 0, ..., M-1``).

    Returns
    -------
    ndarray of shape (n, n_terms)
    """
    x = check_vector(x, "x")
    sigma = check_positive(sigma, "sigma")
    M = check_int(n_terms, "n_terms", minimum=1)
    m = np.arange(M)
    t = x[:, None] / sigma
    # power and factorial in log space avoid overflow for large m; t^0 = 1 also at t = 0
    with np.errstate(divide="ignore", invalid="ignore"):
        log_abs = np.where(m == 0, 0.0, m * np.log(np.abs(t))) - 0.5 * special.gammaln(m + 1)
    sign = np.where((t < 0) & (m % 2 == 1), -1.0, 1.0)
    return np.exp(-0.5 * t**2) * sign * np.exp(log_abs)


def gaussian_tail_bound(r: float, sigma: float, n_terms: Any) -> Any:
    """Bound on the truncation error of :func:`gaussian_features_1d` for ``|x|, |x'| <= r``.

    With ``t = x x' / sigma^2`` the error is
    ``exp(-(x^2 + x'^2) / (2 sigma^2)) |sum_{m >= M} t^m / m!|``; Taylor's remainder
    gives ``|sum_{m >= M} t^m/m!| <= |t|^M e^{|t|} / M!`` and
    ``e^{|t|} exp(-(x^2+x'^2)/(2 sigma^2)) <= 1`` since ``2|x x'| <= x^2 + x'^2``.
    So the error is at most ``(r^2/sigma^2)^M / M!``.

    Parameters
    ----------
    r : float
        Radius ``r > 0`` of the interval ``[-r, r]``.
    sigma : float
        Bandwidth ``sigma > 0``.
    n_terms : int or array of int
        Number(s) of kept coordinates ``M``.

    Returns
    -------
    float or ndarray
        The bound ``(r/sigma)^{2M} / M!``.
    """
    r = check_positive(r, "r")
    sigma = check_positive(sigma, "sigma")
    M = np.asarray(n_terms)
    if not np.issubdtype(M.dtype, np.integer) or np.any(M < 1):
        raise ValueError(f"n_terms must be a positive integer or an array of them; got {n_terms!r}")
    out = np.exp(2 * M * np.log(r / sigma) - special.gammaln(M + 1))
    return float(out) if out.ndim == 0 else out


# ---------------------------------------------------------------------------
# pseudoinverse and spectral filters
# ---------------------------------------------------------------------------
def _svd_rank_tol(s: np.ndarray, shape: tuple[int, int]) -> float:
    return max(shape) * np.finfo(float).eps * (s[0] if s.size else 0.0)


def pinv_svd(A: Any, rtol: float | None = None) -> np.ndarray:
    """Moore-Penrose pseudoinverse ``V diag(1/s_j for s_j > tol) U^T`` from one thin SVD.

    Parameters
    ----------
    A : array of shape (n, D)
    rtol : float, optional
        Singular values ``<= rtol * s_1`` count as zero.  The default is
        ``max(n, D) * eps``, the tolerance of :func:`numpy.linalg.matrix_rank`.

    Returns
    -------
    ndarray of shape (D, n)
    """
    A = check_matrix(A, "A", allow_1d=False)
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    tol = _svd_rank_tol(s, A.shape) if rtol is None else check_nonnegative(rtol, "rtol") * s[0]
    inv = np.zeros_like(s)
    keep = s > tol
    inv[keep] = 1.0 / s[keep]
    return (Vt.T * inv) @ U.T


def penrose_residuals(A: Any, B: Any) -> np.ndarray:
    """Relative residuals of the four Penrose conditions for a candidate ``B = A^+``.

    Returns
    -------
    ndarray of shape (4,)
        ``||ABA - A||``, ``||BAB - B||``, ``||(AB)^T - AB||``, ``||(BA)^T - BA||``
        (Frobenius norms), each divided by the norm of the matrix it compares
        (``A``, ``B``, ``AB``, ``BA``).  All four are zero exactly when ``B`` is the
        pseudoinverse of ``A``.
    """
    A = check_matrix(A, "A", allow_1d=False)
    B = check_matrix(B, "B", allow_1d=False)
    if B.shape != A.shape[::-1]:
        raise ValueError(f"B must have shape {A.shape[::-1]} (the transpose of A's); got {B.shape}")
    AB, BA = A @ B, B @ A

    def rel(E: np.ndarray, M: np.ndarray) -> float:
        return float(np.linalg.norm(E) / max(np.linalg.norm(M), np.finfo(float).tiny))

    return np.array([rel(AB @ A - A, A), rel(BA @ B - B, B), rel(AB.T - AB, AB),
                     rel(BA.T - BA, BA)])


def filter_factors(s: Any, lam: float, kind: str) -> np.ndarray:
    """Spectral filter factors ``g(s)`` that replace ``1/s`` in ``w = V g(S) U^T y``.

    Parameters
    ----------
    s : array
        Singular values ``s >= 0``.
    lam : float
        Regularisation ``lam >= 0`` (ignored by ``"pinv"``).
    kind : {"pinv", "cutoff", "ridge"}
        ``"pinv"``: ``1/s`` for ``s > 0`` and 0 otherwise (least squares);
        ``"cutoff"``: ``1/s`` for ``s > lam`` and 0 otherwise (truncated SVD);
        ``"ridge"``: ``s / (s^2 + lam)``.

    Returns
    -------
    ndarray of the shape of ``s``
    """
    s = np.asarray(s, dtype=float)
    if not np.all(np.isfinite(s)) or np.any(s < 0):
        raise ValueError("s must contain finite singular values >= 0; "
                         "got a negative or non-finite value")
    lam = check_lam(lam)
    if kind not in FILTERS:
        raise ValueError(f"kind must be one of {FILTERS}; got {kind!r}")
    if kind == "ridge":
        if lam == 0:
            kind = "pinv"
        else:
            return s / (s**2 + lam)
    thr = 0.0 if kind == "pinv" else lam
    out = np.zeros_like(s)
    keep = s > thr
    out[keep] = 1.0 / s[keep]
    return out


def spectral_fit(Phi: Any, y: Any, lam: float, kind: str) -> np.ndarray:
    """Coefficients ``w = V g(S) U^T y`` of a spectral filter (see :func:`filter_factors`).

    ``kind="pinv"`` is the minimum-norm least-squares solution ``Phi^+ y``
    (singular values below ``max(n, D) eps s_1`` count as zero); ``"cutoff"`` keeps
    only singular values above ``lam``; ``"ridge"`` is ridge regression.

    Returns
    -------
    ndarray of shape (D,)
    """
    P, v = _check_Phi_y(Phi, y)
    U, s, Vt = np.linalg.svd(P, full_matrices=False)
    s_eff = np.where(s > _svd_rank_tol(s, P.shape), s, 0.0)
    return Vt.T @ (filter_factors(s_eff, lam, kind) * (U.T @ v))


def spectral_path_errors(Phi: Any, y: Any, Phi_test: Any, y_test: Any, lams: Any,
                         kind: str = "ridge") -> tuple[np.ndarray, np.ndarray]:
    """Training and test mean squared errors of a spectral filter along a grid of ``lam``.

    One thin SVD of ``Phi`` serves the whole grid.

    Parameters
    ----------
    Phi, y : training features (n, D) and responses (n,)
    Phi_test, y_test : test features (m, D) and responses (m,)
    lams : 1-D array of penalties (>= 0)
    kind : {"ridge", "cutoff", "pinv"}

    Returns
    -------
    train_mse, test_mse : ndarrays of shape (len(lams),)
    """
    P, v = _check_Phi_y(Phi, y)
    Pt, vt = _check_Phi_y(Phi_test, y_test)
    if Pt.shape[1] != P.shape[1]:
        raise ValueError(f"Phi_test must have {P.shape[1]} columns like Phi; got {Pt.shape[1]}")
    lams = check_lam(lams, "lams", allow_array=True)
    lams = np.atleast_1d(lams)
    U, s, Vt = np.linalg.svd(P, full_matrices=False)
    s_eff = np.where(s > _svd_rank_tol(s, P.shape), s, 0.0)
    Uy = U.T @ v
    G = np.array([filter_factors(s_eff, lam, kind) for lam in lams])   # (L, r)
    W = (G * Uy) @ Vt                                                   # (L, D)
    train = np.mean((v[None, :] - W @ P.T) ** 2, axis=1)
    test = np.mean((vt[None, :] - W @ Pt.T) ** 2, axis=1)
    return train, test

"""Ordinary least squares and ridge regression (book chapter 1, "Ridge regression").

The chapter works with the linear model ``Y = X beta0 + eps`` (fixed design,
``E eps = 0``, ``Var eps = sigma2 I``) and the ridge estimator

    beta_lam = (X^T X + lam I)^{-1} X^T Y,

the minimiser of ``||Y - X beta||^2 + lam ||beta||^2`` (no ``1/n`` in front of
the loss).  This module gives

* solvers: :func:`ols`, :func:`ridge` (primal, dual and SVD routes, which agree),
  :func:`ridge_path` / :func:`fitted_values_path` (a whole lambda-grid from one
  thin SVD), :func:`ridge_augmented` (the intercept problem solved as one
  stacked least-squares problem, an independent second algorithm);
* the estimator :class:`RidgeRegression` (unpenalised intercept, standardised
  columns, coefficients reported on the original scale);
* the SVD view: :func:`shrinkage_factors`, :func:`effective_df`,
  :func:`principal_components`, and the preprocessing :func:`standardize`;
* exact second moments: :func:`ridge_mse_matrix`, :func:`ols_covariance`,
  :func:`mse_difference`, :func:`mse_difference_closed_form`,
  :func:`ridge_beats_ols_threshold`, :func:`ridge_mse_trace`,
  :func:`ridge_prediction_risk`;
* simulation and likelihood helpers for the Gaussian model:
  :func:`simulate_responses`, :func:`simulate_estimates`,
  :func:`empirical_mse_matrix`, :func:`gaussian_score`,
  :func:`gaussian_fisher_information`.

No explicit inverse is ever formed: every ``(X^T X + lam I)^{-1}`` is applied
through a Cholesky factorisation or the SVD.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from scipy import linalg as sla
from sklearn.base import BaseEstimator, RegressorMixin

from ._validation import (
    check_finite_result,
    check_fitted,
    check_int,
    check_lam,
    check_matrix,
    check_n_features,
    check_nonnegative,
    check_rng,
    check_same_length,
    check_vector,
    finite_result,
)

__all__ = [
    "ols",
    "ridge",
    "ridge_path",
    "fitted_values_path",
    "ridge_augmented",
    "shrinkage_factors",
    "effective_df",
    "principal_components",
    "standardize",
    "RidgeRegression",
    "ridge_mse_matrix",
    "ols_covariance",
    "mse_difference",
    "mse_difference_closed_form",
    "ridge_beats_ols_threshold",
    "ridge_mse_trace",
    "ridge_prediction_risk",
    "simulate_responses",
    "simulate_estimates",
    "empirical_mse_matrix",
    "gaussian_score",
    "gaussian_fisher_information",
]

_METHODS = ("primal", "dual", "svd")


# --------------------------------------------------------------------------- #
# private helpers
# --------------------------------------------------------------------------- #
def _check_Xy(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    X = check_matrix(X, "X")
    y = check_vector(y, "y")
    check_same_length(X, y, "X", "y")
    return X, y


def _check_beta(beta: Any, p: int, name: str = "beta0") -> np.ndarray:
    b = check_vector(beta, name)
    if b.shape[0] != p:
        raise ValueError(
            f"{name} must have one entry per column of X (length {p}); got length {b.shape[0]}"
        )
    return b


def _rank_tol(d: np.ndarray, shape: tuple[int, int]) -> float:
    """Singular values at or below this are treated as zero (LAPACK's default rule)."""
    if d.size == 0:
        return 0.0
    return float(max(shape) * np.finfo(float).eps * d[0])


def _rank_deficiency_error(X: np.ndarray, what: str) -> ValueError:
    n, p = X.shape
    why = f"p = {p} > n = {n}" if p > n else "its columns are linearly dependent"
    return ValueError(
        f"X must have full column rank for {what}; got a {n} x {p} design whose rank is "
        f"below {p} ({why}). Use ridge(X, y, lam) with lam > 0 instead"
    )


def _full_column_rank(X: np.ndarray) -> bool:
    n, p = X.shape
    if p > n:
        return False
    # pivoted QR is rank revealing: |R_jj| is non-increasing
    R = sla.qr(X, mode="r", pivoting=True, check_finite=False)[0]
    r = np.abs(np.diag(R))
    return bool(r[-1] > max(n, p) * np.finfo(float).eps * r[0]) if r[0] > 0 else False


def _gram_cholesky(X: np.ndarray, lam: float, what: str):
    """Cholesky factor of ``X^T X + lam I`` (raises when it is singular)."""
    p = X.shape[1]
    if lam == 0 and not _full_column_rank(X):
        raise _rank_deficiency_error(X, what)
    G = X.T @ X
    G[np.diag_indices(p)] += lam
    try:
        return sla.cho_factor(G, lower=False, overwrite_a=True, check_finite=False)
    except np.linalg.LinAlgError as exc:  # pragma: no cover - guarded by the rank test
        raise _rank_deficiency_error(X, what) from exc


def _solve_many(X: np.ndarray, Y: np.ndarray, lam: float, method: str) -> np.ndarray:
    """Ridge coefficients for each column of ``Y`` (shape (n, k)) -> (p, k)."""
    n, p = X.shape
    if method == "primal":
        c = _gram_cholesky(X, lam, "ridge with lam = 0 (method='primal')")
        return sla.cho_solve(c, X.T @ Y, check_finite=False)
    if method == "dual":
        if lam == 0:
            raise ValueError(
                "lam must be > 0 for method='dual' (X X^T is singular whenever n > p); "
                "got lam = 0. Use method='svd' for the minimum-norm least-squares solution"
            )
        K = X @ X.T
        K[np.diag_indices(n)] += lam
        c = sla.cho_factor(K, lower=False, overwrite_a=True, check_finite=False)
        return X.T @ sla.cho_solve(c, Y, check_finite=False)
    # method == "svd"
    U, d, Vt = np.linalg.svd(X, full_matrices=False)
    return Vt.T @ (_filter(d, lam, X.shape)[:, None] * (U.T @ Y))


def _filter(d: np.ndarray, lam: float, shape: tuple[int, int]) -> np.ndarray:
    """The spectral filter d / (d^2 + lam), with 1/d -> 0 on the null space when lam = 0."""
    if lam > 0:
        return d / (d**2 + lam)
    out = np.zeros_like(d)
    keep = d > _rank_tol(d, shape)
    out[keep] = 1.0 / d[keep]
    return out


def _check_method(method: Any) -> str:
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}")
    return method


# --------------------------------------------------------------------------- #
# solvers
# --------------------------------------------------------------------------- #
@finite_result
def ols(X: Any, y: Any) -> np.ndarray:
    """Ordinary least squares ``argmin ||y - X beta||^2``.

    Solved through a column-pivoted QR factorisation of ``X`` (never through
    ``(X^T X)^{-1}``).

    Parameters
    ----------
    X : array of shape (n, p)
        Design matrix of full column rank (so ``p <= n``).
    y : array of shape (n,)
        Responses.

    Returns
    -------
    beta : ndarray of shape (p,)
        The unique least-squares coefficients ``(X^T X)^{-1} X^T y``.

    Raises
    ------
    ValueError
        If ``X`` lacks full column rank (including ``p > n``); use :func:`ridge`.
    """
    X, y = _check_Xy(X, y)
    n, p = X.shape
    if p > n:
        raise _rank_deficiency_error(X, "ordinary least squares")
    Q, R, perm = sla.qr(X, mode="economic", pivoting=True, check_finite=False)
    r = np.abs(np.diag(R))
    if r[0] == 0 or r[-1] <= max(n, p) * np.finfo(float).eps * r[0]:
        raise _rank_deficiency_error(X, "ordinary least squares")
    beta = np.empty(p)
    beta[perm] = sla.solve_triangular(R, Q.T @ y, lower=False, check_finite=False)
    return beta


@finite_result
def ridge(X: Any, y: Any, lam: float, method: str = "svd") -> np.ndarray:
    """Ridge coefficients ``(X^T X + lam I)^{-1} X^T y`` (no intercept, no scaling).

    Minimises ``||y - X beta||^2 + lam ||beta||^2``.  The three methods give the
    same answer (for ``p > n`` too, when ``lam > 0``).

    Parameters
    ----------
    X : array of shape (n, p)
        Design matrix.
    y : array of shape (n,)
        Responses.
    lam : float
        Regularisation parameter, ``>= 0``.  ``lam = 0`` is allowed with
        ``method="svd"`` (giving the minimum-norm least-squares solution) and
        with ``method="primal"`` when ``X`` has full column rank.
    method : {"svd", "primal", "dual"}
        ``"primal"``: Cholesky of the p x p matrix ``X^T X + lam I``
        (cost ``O(np^2 + p^3)``); ``"dual"``: ``X^T (X X^T + lam I)^{-1} y`` with
        a Cholesky of the n x n matrix (cost ``O(n^2 p + n^3)``, the cheap route
        when ``p >> n``); ``"svd"``: ``V diag(d/(d^2+lam)) U^T y`` from the thin
        SVD ``X = U diag(d) V^T``.

    Returns
    -------
    beta : ndarray of shape (p,)

    Raises
    ------
    ValueError
        On invalid input, an unknown ``method``, or ``lam = 0`` with a method
        that cannot handle it.
    """
    X, y = _check_Xy(X, y)
    lam = check_lam(lam, "lam")
    method = _check_method(method)
    return _solve_many(X, y[:, None], lam, method)[:, 0]


@finite_result
def ridge_path(X: Any, y: Any, lams: Any) -> np.ndarray:
    """Ridge coefficients for a whole grid of ``lam`` values from one thin SVD.

    After the SVD (cost ``O(np min(n, p))``) each value of ``lam`` costs
    ``O(p min(n, p))``, i.e. at most ``O(np)``.

    Parameters
    ----------
    X : array of shape (n, p)
    y : array of shape (n,)
    lams : array of shape (L,)
        Non-negative regularisation parameters (``0`` gives the minimum-norm
        least-squares solution).

    Returns
    -------
    betas : ndarray of shape (L, p)
        Row ``l`` is ``ridge(X, y, lams[l])``.
    """
    X, y = _check_Xy(X, y)
    lams = np.atleast_1d(check_lam(lams, "lams", allow_array=True))
    U, d, Vt = np.linalg.svd(X, full_matrices=False)
    Uty = U.T @ y
    F = np.stack([_filter(d, float(lam), X.shape) for lam in lams])  # (L, m)
    return (F * Uty) @ Vt


@finite_result
def fitted_values_path(X: Any, y: Any, lams: Any) -> np.ndarray:
    """Ridge fitted values ``sum_j d_j^2/(d_j^2+lam) U_j U_j^T y`` for a grid of ``lam``.

    Parameters
    ----------
    X : array of shape (n, p)
    y : array of shape (n,)
    lams : array of shape (L,)
        Non-negative regularisation parameters.

    Returns
    -------
    fitted : ndarray of shape (L, n)
        Row ``l`` is ``X @ ridge(X, y, lams[l])``.
    """
    X, y = _check_Xy(X, y)
    lams = np.atleast_1d(check_lam(lams, "lams", allow_array=True))
    U, d, _ = np.linalg.svd(X, full_matrices=False)
    S = _shrink(d, lams, X.shape)  # (L, m)
    return (S * (U.T @ y)) @ U.T


@finite_result
def ridge_augmented(X: Any, y: Any, lam: float, *, fit_intercept: bool = True
                    ) -> tuple[float, np.ndarray]:
    """Solve the ridge problem with an unpenalised intercept as one least-squares problem.

    Minimises ``||y - mu 1 - X beta||^2 + lam ||beta||^2`` jointly over
    ``(mu, beta)`` by stacking: the rows ``[1, X]`` with targets ``y`` and the
    rows ``[0, sqrt(lam) I]`` with targets ``0``.  It uses neither centring nor
    the closed form, so it serves as an independent check of both.

    Parameters
    ----------
    X : array of shape (n, p)
    y : array of shape (n,)
    lam : float
        Regularisation parameter, ``>= 0``.
    fit_intercept : bool
        When False, ``mu`` is fixed at 0.

    Returns
    -------
    mu : float
        The fitted intercept.
    beta : ndarray of shape (p,)
        The fitted coefficients.
    """
    X, y = _check_Xy(X, y)
    lam = check_lam(lam, "lam")
    n, p = X.shape
    ones = np.ones((n, 1)) if fit_intercept else np.zeros((n, 0))
    top = np.hstack([ones, X])
    bottom = np.hstack([np.zeros((p, ones.shape[1])), np.sqrt(lam) * np.eye(p)])
    A = np.vstack([top, bottom])
    b = np.concatenate([y, np.zeros(p)])
    sol = sla.lstsq(A, b, check_finite=False)[0]
    if fit_intercept:
        return float(sol[0]), sol[1:]
    return 0.0, sol


# --------------------------------------------------------------------------- #
# the SVD view
# --------------------------------------------------------------------------- #
def _shrink(d: np.ndarray, lams: np.ndarray, shape: tuple[int, int] | None = None) -> np.ndarray:
    d2 = d**2
    out = np.empty((lams.size, d.size))
    for i, lam in enumerate(lams):
        if lam > 0:
            out[i] = d2 / (d2 + lam)
        else:
            tol = _rank_tol(np.sort(d)[::-1], shape) if shape is not None else 0.0
            out[i] = (d > tol).astype(float)
    return out


@finite_result
def shrinkage_factors(d: Any, lam: Any) -> np.ndarray:
    """Ridge shrinkage factors ``d_j^2 / (d_j^2 + lam)``.

    Ridge multiplies the coordinate ``U_j^T y`` of the response along the j-th
    left singular vector by this factor; OLS multiplies it by 1.

    Parameters
    ----------
    d : array of shape (m,)
        Singular values of the design (``>= 0``).
    lam : float or array of shape (L,)
        Regularisation parameter(s), ``>= 0``.  At ``lam = 0`` the factor is 1
        for ``d_j > 0`` and 0 for ``d_j = 0`` (the projection onto the column space).

    Returns
    -------
    ndarray of shape (m,) or (L, m)
        One row per value of ``lam`` when ``lam`` is an array.
    """
    d = check_vector(d, "d")
    if np.any(d < 0):
        raise ValueError(f"d must contain singular values >= 0; got minimum {d.min()!r}")
    scalar = np.ndim(lam) == 0
    lams = np.atleast_1d(check_lam(lam, "lam", allow_array=not scalar))
    out = _shrink(d, lams)
    return out[0] if scalar else out


@finite_result
def effective_df(X: Any, lam: Any) -> Any:
    """Effective degrees of freedom ``sum_j d_j^2/(d_j^2 + lam) = tr(H_lam)``.

    ``H_lam = X (X^T X + lam I)^{-1} X^T`` is the ridge hat matrix.  The value
    decreases from ``rank(X)`` at ``lam = 0`` to 0 as ``lam -> infinity``.

    Parameters
    ----------
    X : array of shape (n, p)
    lam : float or array of shape (L,)
        Regularisation parameter(s), ``>= 0``.

    Returns
    -------
    float or ndarray of shape (L,)
    """
    X = check_matrix(X, "X")
    scalar = np.ndim(lam) == 0
    lams = np.atleast_1d(check_lam(lam, "lam", allow_array=not scalar))
    d = np.linalg.svd(X, compute_uv=False)
    df = _shrink(d, lams, X.shape).sum(axis=1)
    return float(df[0]) if scalar else df


@finite_result
def principal_components(X: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Principal components of the column-centred design via its thin SVD.

    With ``Xc = X - mean = U D V^T``, the j-th principal component is
    ``Xc V_j = D_jj U_j`` and its sample variance (``1/n`` convention) is
    ``D_jj^2 / n``.

    Parameters
    ----------
    X : array of shape (n, p)

    Returns
    -------
    scores : ndarray of shape (n, m)
        Column j is the j-th principal component ``D_jj U_j`` (``m = min(n, p)``).
    V : ndarray of shape (p, m)
        Column j is the j-th principal direction ``V_j`` (unit length).
    variances : ndarray of shape (m,)
        ``D_jj^2 / n``, non-increasing.
    """
    X = check_matrix(X, "X")
    Xc = X - X.mean(axis=0)
    U, d, Vt = np.linalg.svd(Xc, full_matrices=False)
    return U * d, Vt.T, d**2 / X.shape[0]


@finite_result
def standardize(X: Any, *, center: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centre each column and scale it to Euclidean norm ``sqrt(n)``.

    After this the columns have mean 0 and variance 1 with the ``1/n``
    convention (the preprocessing of the chapter "Ridge regression").

    Parameters
    ----------
    X : array of shape (n, p)
    center : bool, default True
        When False the columns are only scaled (``mean`` is returned as zeros
        and the scale is the root mean square of the raw column).

    Returns
    -------
    Z : ndarray of shape (n, p)
        ``(X - mean) / scale``.
    mean : ndarray of shape (p,)
    scale : ndarray of shape (p,)

    Raises
    ------
    ValueError
        If a column has zero spread (it is constant), so it cannot be scaled.
    """
    X = check_matrix(X, "X")
    mean = X.mean(axis=0) if center else np.zeros(X.shape[1])
    with np.errstate(over="ignore", invalid="ignore"):
        Z = X - mean
    check_finite_result(Z, "X - mean(X)", "rescale X")
    # root mean square, with the largest entry factored out so that Z**2 cannot overflow
    top = np.max(np.abs(Z), axis=0)
    unit = np.where(top > 0, top, 1.0)
    scale = unit * np.sqrt(np.mean((Z / unit) ** 2, axis=0))
    tiny = 100 * np.finfo(float).eps * np.max(np.abs(X), axis=0)
    bad = np.flatnonzero(scale <= tiny)
    if X.shape[0] == 1:
        raise ValueError(
            "X has 1 sample (n_samples=1): every column is constant and cannot be "
            "standardised; pass at least 2 samples (or use standardize=False)"
        )
    if bad.size:
        raise ValueError(
            f"X has constant column(s) {bad.tolist()}, which cannot be standardised "
            "(zero spread); drop them (RidgeRegression also accepts standardize=False)"
        )
    return Z / scale, mean, scale


# --------------------------------------------------------------------------- #
# the estimator
# --------------------------------------------------------------------------- #
class RidgeRegression(RegressorMixin, BaseEstimator):
    """Ridge regression with an unpenalised intercept and standardised columns.

    Fits ``argmin_{mu, beta} ||y - mu 1 - Z beta||^2 + lam ||beta||^2`` where
    ``Z`` is ``X`` with each column centred (when ``fit_intercept``) and, when
    ``standardize``, scaled to Euclidean norm ``sqrt(n)`` (unit variance with
    the ``1/n`` convention).  Because the columns of ``Z`` are centred, the
    fitted intercept on the ``Z`` scale is ``mu = mean(y)`` and ``beta`` is the
    plain ridge solution for the centred response.  The coefficients are then
    mapped back, so that ``coef_`` and ``intercept_`` act on the ORIGINAL
    columns: ``predict(X) = X @ coef_ + intercept_``.

    Parameters
    ----------
    lam : float, default 1.0
        Regularisation parameter, ``>= 0``.
    fit_intercept : bool, default True
        Fit an unpenalised intercept (centre ``X`` and ``y``).  When False the
        model has no intercept and nothing is centred.
    standardize : bool, default True
        Scale each (centred) column to norm ``sqrt(n)`` before fitting.  A
        constant column cannot be scaled and raises ``ValueError``.

    Attributes
    ----------
    coef_ : ndarray of shape (p,)
        Coefficients on the original scale of ``X``.
    intercept_ : float
        Intercept on the original scale (0 when ``fit_intercept=False``).
    x_mean_ : ndarray of shape (p,)
        Column means used for centring (zeros when ``fit_intercept=False``).
    x_scale_ : ndarray of shape (p,)
        Column scales used (ones when ``standardize=False``).
    n_features_in_ : int
        Number of columns seen in ``fit``.
    """

    def __init__(self, lam: float = 1.0, fit_intercept: bool = True,
                 standardize: bool = True) -> None:
        self.lam = lam
        self.fit_intercept = fit_intercept
        self.standardize = standardize

    def fit(self, X: Any, y: Any) -> "RidgeRegression":
        """Fit the model.

        Parameters
        ----------
        X : array of shape (n, p)
        y : array of shape (n,)

        Returns
        -------
        self : RidgeRegression
        """
        lam = check_lam(self.lam, "lam")
        X, y = _check_Xy(X, y)
        n, p = X.shape
        if self.standardize:
            Z, x_mean, scale = standardize(X, center=bool(self.fit_intercept))
        else:
            x_mean = X.mean(axis=0) if self.fit_intercept else np.zeros(p)
            Z, scale = X - x_mean, np.ones(p)
        y_mean = float(y.mean()) if self.fit_intercept else 0.0
        beta_z = _solve_many(Z, (y - y_mean)[:, None], lam, "svd")[:, 0]
        self.coef_ = check_finite_result(beta_z / scale, "RidgeRegression.fit: coef_")
        self.intercept_ = check_finite_result(y_mean - float(x_mean @ self.coef_),
                                              "RidgeRegression.fit: intercept_")
        self.x_mean_ = x_mean
        self.x_scale_ = scale
        self.n_features_in_ = p
        return self

    @finite_result
    def predict(self, X: Any) -> np.ndarray:
        """Predict ``X @ coef_ + intercept_``.

        Parameters
        ----------
        X : array of shape (m, p)

        Returns
        -------
        ndarray of shape (m,)
        """
        check_fitted(self, "coef_")
        X = check_matrix(X, "X")
        check_n_features(self, X)
        return check_finite_result(X @ self.coef_ + self.intercept_, "RidgeRegression.predict")


# --------------------------------------------------------------------------- #
# exact second moments under the linear model
# --------------------------------------------------------------------------- #
def _check_moments(X: Any, beta0: Any, sigma2: Any) -> tuple[np.ndarray, np.ndarray, float]:
    X = check_matrix(X, "X")
    beta0 = _check_beta(beta0, X.shape[1])
    sigma2 = check_nonnegative(sigma2, "sigma2")
    return X, beta0, sigma2


def _sym(M: np.ndarray) -> np.ndarray:
    return 0.5 * (M + M.T)


@finite_result
def ridge_mse_matrix(X: Any, beta0: Any, sigma2: float, lam: float
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact bias, variance and MSE matrix of ridge under ``Y = X beta0 + eps``.

    With ``A = (X^T X + lam I)^{-1}`` (applied through a Cholesky factor):
    ``bias = -lam A beta0``, ``Var = sigma2 A X^T X A`` and
    ``MSE = E (beta_hat - beta0)(beta_hat - beta0)^T = Var + bias bias^T``.
    At ``lam = 0`` this is OLS (bias 0, variance ``sigma2 (X^T X)^{-1}``).

    Parameters
    ----------
    X : array of shape (n, p)
        Fixed design.
    beta0 : array of shape (p,)
        True coefficients.
    sigma2 : float
        Noise variance, ``>= 0``.
    lam : float
        Regularisation parameter, ``>= 0`` (``0`` needs full column rank).

    Returns
    -------
    bias : ndarray of shape (p,)
    variance : ndarray of shape (p, p)
    mse : ndarray of shape (p, p)
    """
    X, beta0, sigma2 = _check_moments(X, beta0, sigma2)
    lam = check_lam(lam, "lam")
    c = _gram_cholesky(X, lam, "the OLS (lam = 0) MSE matrix")
    bias = -lam * sla.cho_solve(c, beta0, check_finite=False)
    M = sla.cho_solve(c, X.T @ X, check_finite=False)        # A X^T X
    variance = _sym(sigma2 * sla.cho_solve(c, M.T, check_finite=False).T)  # A X^T X A
    return bias, variance, variance + np.outer(bias, bias)


@finite_result
def ols_covariance(X: Any, sigma2: float) -> np.ndarray:
    """Covariance ``sigma2 (X^T X)^{-1}`` of the OLS estimator (via Cholesky solves).

    Parameters
    ----------
    X : array of shape (n, p)
        Design of full column rank.
    sigma2 : float
        Noise variance, ``>= 0``.

    Returns
    -------
    ndarray of shape (p, p)
    """
    X = check_matrix(X, "X")
    sigma2 = check_nonnegative(sigma2, "sigma2")
    c = _gram_cholesky(X, 0.0, "the OLS covariance")
    return _sym(sigma2 * sla.cho_solve(c, np.eye(X.shape[1]), check_finite=False))


@finite_result
def mse_difference(X: Any, beta0: Any, sigma2: float, lam: float) -> np.ndarray:
    """``MSE(OLS) - MSE(ridge_lam)``, computed directly from the two MSE matrices.

    Parameters
    ----------
    X : array of shape (n, p)
        Design of full column rank.
    beta0 : array of shape (p,)
    sigma2 : float
    lam : float

    Returns
    -------
    ndarray of shape (p, p)
        Positive definite exactly when ridge beats OLS in the matrix order.
    """
    X, beta0, sigma2 = _check_moments(X, beta0, sigma2)
    lam = check_lam(lam, "lam")
    return _sym(ols_covariance(X, sigma2) - ridge_mse_matrix(X, beta0, sigma2, lam)[2])


@finite_result
def mse_difference_closed_form(X: Any, beta0: Any, sigma2: float, lam: float) -> np.ndarray:
    """The factorised form ``lam A [sigma2 (2I + lam (X^T X)^{-1}) - lam beta0 beta0^T] A``.

    This is the expression in the proof of the "ridge beats OLS" theorem, with
    ``A = (X^T X + lam I)^{-1}``; it equals :func:`mse_difference`.

    Parameters
    ----------
    X : array of shape (n, p)
        Design of full column rank.
    beta0 : array of shape (p,)
    sigma2 : float
    lam : float

    Returns
    -------
    ndarray of shape (p, p)
    """
    X, beta0, sigma2 = _check_moments(X, beta0, sigma2)
    lam = check_lam(lam, "lam")
    p = X.shape[1]
    c0 = _gram_cholesky(X, 0.0, "the ridge-vs-OLS MSE difference")
    middle = sigma2 * (2 * np.eye(p) + lam * sla.cho_solve(c0, np.eye(p), check_finite=False))
    middle -= lam * np.outer(beta0, beta0)
    c = _gram_cholesky(X, lam, "the ridge-vs-OLS MSE difference")
    AM = sla.cho_solve(c, middle, check_finite=False)
    return _sym(lam * sla.cho_solve(c, AM.T, check_finite=False).T)


@finite_result(allow_inf=True)  # beta0 = 0: ridge always wins, threshold inf
def ridge_beats_ols_threshold(beta0: Any, sigma2: float) -> float:
    """The sufficient threshold ``2 sigma2 / ||beta0||^2`` of the "ridge beats OLS" theorem.

    For every ``0 < lam`` below it, ``MSE(OLS) - MSE(ridge_lam)`` is positive
    definite.  The condition is sufficient, not necessary.

    Parameters
    ----------
    beta0 : array of shape (p,)
        True coefficients (not all zero; for ``beta0 = 0`` every ``lam > 0`` wins).
    sigma2 : float
        Noise variance, ``> 0``.

    Returns
    -------
    float
    """
    beta0 = check_vector(beta0, "beta0")
    sigma2 = check_nonnegative(sigma2, "sigma2")
    nb2 = float(beta0 @ beta0)
    if nb2 == 0:
        return float(np.inf)
    return 2 * sigma2 / nb2


@finite_result
def ridge_mse_trace(X: Any, beta0: Any, sigma2: float, lams: Any
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Squared bias, total variance and total MSE ``E||beta_hat - beta0||^2`` on a ``lam`` grid.

    Computed from one SVD: with ``c = V^T beta0``,
    ``||bias||^2 = sum_j (lam/(d_j^2+lam))^2 c_j^2 + ||beta0 - V V^T beta0||^2`` and
    ``tr Var = sigma2 sum_j d_j^2/(d_j^2+lam)^2``.

    Parameters
    ----------
    X : array of shape (n, p)
    beta0 : array of shape (p,)
    sigma2 : float
    lams : array of shape (L,)
        Regularisation parameters, ``> 0`` (``0`` allowed for full column rank).

    Returns
    -------
    bias2, variance, mse : ndarrays of shape (L,)
        ``mse = bias2 + variance`` is the trace of :func:`ridge_mse_matrix`.
    """
    X, beta0, sigma2 = _check_moments(X, beta0, sigma2)
    lams = np.atleast_1d(check_lam(lams, "lams", allow_array=True))
    if np.any(lams == 0) and not _full_column_rank(X):
        raise _rank_deficiency_error(X, "the OLS (lam = 0) risk")
    _, d, Vt = np.linalg.svd(X, full_matrices=False)
    keep = d > _rank_tol(d, X.shape)
    d, Vt = d[keep], Vt[keep]
    cvec = Vt @ beta0
    outside = float(beta0 @ beta0 - cvec @ cvec)
    d2 = d**2
    L = lams[:, None]
    bias2 = ((L / (d2 + L)) ** 2 * cvec**2).sum(axis=1) + max(outside, 0.0)
    variance = sigma2 * (d2 / (d2 + L) ** 2).sum(axis=1)
    return bias2, variance, bias2 + variance


@finite_result
def ridge_prediction_risk(X: Any, beta0: Any, sigma2: float, lams: Any) -> np.ndarray:
    """Exact in-sample prediction risk ``E ||X (beta_hat - beta0)||^2 / n`` over a grid of ``lam``.

    In SVD coordinates, with ``c = V^T beta0``,
    ``n * risk = sum_j d_j^2 [ (lam/(d_j^2+lam))^2 c_j^2 + sigma2 d_j^2/(d_j^2+lam)^2 ]``;
    at ``lam = 0`` it is ``sigma2 * rank(X) / n`` (OLS).

    Parameters
    ----------
    X : array of shape (n, p)
    beta0 : array of shape (p,)
    sigma2 : float
    lams : array of shape (L,)
        Regularisation parameters, ``>= 0``.

    Returns
    -------
    ndarray of shape (L,)
        Equal to ``trace(X mse X^T) / n`` with ``mse`` from :func:`ridge_mse_matrix`.
    """
    X, beta0, sigma2 = _check_moments(X, beta0, sigma2)
    lams = np.atleast_1d(check_lam(lams, "lams", allow_array=True))
    _, d, Vt = np.linalg.svd(X, full_matrices=False)
    keep = d > _rank_tol(d, X.shape)
    d, Vt = d[keep], Vt[keep]
    c2 = (Vt @ beta0) ** 2
    d2 = d**2
    L = lams[:, None]
    total = (d2 * ((L / (d2 + L)) ** 2 * c2 + sigma2 * d2 / (d2 + L) ** 2)).sum(axis=1)
    return total / X.shape[0]


# --------------------------------------------------------------------------- #
# simulation and the Gaussian likelihood
# --------------------------------------------------------------------------- #
@finite_result
def simulate_responses(X: Any, beta0: Any, sigma2: float, n_reps: int, *,
                       seed: Any = None) -> np.ndarray:
    """Draw ``n_reps`` response vectors ``Y = X beta0 + eps``, ``eps ~ N(0, sigma2 I)``.

    Parameters
    ----------
    X : array of shape (n, p)
        Fixed design.
    beta0 : array of shape (p,)
    sigma2 : float
        Noise variance.
    n_reps : int
        Number of independent replicates.
    seed : int, Generator or None

    Returns
    -------
    Y : ndarray of shape (n_reps, n)
        One replicate per row.
    """
    X, beta0, sigma2 = _check_moments(X, beta0, sigma2)
    n_reps = check_int(n_reps, "n_reps")
    rng = check_rng(seed)
    return X @ beta0 + np.sqrt(sigma2) * rng.standard_normal((n_reps, X.shape[0]))


@finite_result
def simulate_estimates(X: Any, beta0: Any, sigma2: float, lam: float, n_reps: int, *,
                       seed: Any = None) -> np.ndarray:
    """Ridge (``lam > 0``) or OLS (``lam = 0``) estimates over many noise draws at once.

    All ``n_reps`` response vectors are solved with ONE factorisation of
    ``X^T X + lam I`` and one matrix product, so thousands of replications
    take milliseconds.

    Parameters
    ----------
    X : array of shape (n, p)
        Fixed design (full column rank when ``lam = 0``).
    beta0 : array of shape (p,)
    sigma2 : float
    lam : float
    n_reps : int
    seed : int, Generator or None

    Returns
    -------
    estimates : ndarray of shape (n_reps, p)
        One estimate per row; the responses are those of
        :func:`simulate_responses` with the same ``seed``.
    """
    lam = check_lam(lam, "lam")
    Y = simulate_responses(X, beta0, sigma2, n_reps, seed=seed)
    X = np.asarray(X, dtype=float)
    X = X[:, None] if X.ndim == 1 else X
    c = _gram_cholesky(X, lam, "OLS estimates (lam = 0)")
    return sla.cho_solve(c, X.T @ Y.T, check_finite=False).T


@finite_result
def empirical_mse_matrix(estimates: Any, beta0: Any) -> np.ndarray:
    """Monte-Carlo MSE matrix ``mean_r (b_r - beta0)(b_r - beta0)^T``.

    Parameters
    ----------
    estimates : array of shape (R, p)
        One estimate per row.
    beta0 : array of shape (p,)

    Returns
    -------
    ndarray of shape (p, p)
    """
    B = check_matrix(estimates, "estimates", allow_1d=False)
    beta0 = _check_beta(beta0, B.shape[1])
    E = B - beta0
    return E.T @ E / B.shape[0]


@finite_result
def gaussian_score(X: Any, Y: Any, beta: Any, sigma2: float) -> np.ndarray:
    """Score (gradient of the log-likelihood) of the Gaussian linear model in ``(beta, sigma2)``.

    With ``l(beta, sigma2) = -n/2 log sigma2 - ||Y - X beta||^2/(2 sigma2)`` (up to a
    constant), the score is ``(X^T r / sigma2, -n/(2 sigma2) + ||r||^2/(2 sigma2^2))``
    with residual ``r = Y - X beta``.

    Parameters
    ----------
    X : array of shape (n, p)
    Y : array of shape (n,) or (R, n)
        One response vector, or ``R`` of them (one per row).
    beta : array of shape (p,)
    sigma2 : float
        ``> 0``.

    Returns
    -------
    ndarray of shape (p + 1,) or (R, p + 1)
    """
    X = check_matrix(X, "X")
    beta = _check_beta(beta, X.shape[1], "beta")
    sigma2 = check_nonnegative(sigma2, "sigma2")
    if sigma2 == 0:
        raise ValueError("sigma2 must be > 0 for the Gaussian score; got 0")
    Ya = np.asarray(Y, dtype=float)
    single = Ya.ndim == 1
    Ya = check_matrix(Ya[None, :] if single else Ya, "Y", allow_1d=False)
    if Ya.shape[1] != X.shape[0]:
        raise ValueError(
            f"Y must have n = {X.shape[0]} entries per replicate (as X has rows); "
            f"got {Ya.shape[1]}"
        )
    R = Ya - X @ beta
    n = X.shape[0]
    sigma2 = np.float64(sigma2)  # numpy arithmetic: overflow gives inf, caught below
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        s_beta = R @ X / sigma2
        s_sig = -n / (2 * sigma2) + np.sum(R**2, axis=1) / (2 * sigma2) / sigma2
    S = np.column_stack([s_beta, s_sig])
    check_finite_result(S, "gaussian_score", "sigma2 or the residuals are too small or too large "
                        "for float64")
    return S[0] if single else S


@finite_result
def gaussian_fisher_information(X: Any, sigma2: float) -> np.ndarray:
    """Fisher information ``blockdiag(X^T X / sigma2, n / (2 sigma2^2))`` of ``(beta, sigma2)``.

    Parameters
    ----------
    X : array of shape (n, p)
    sigma2 : float
        ``> 0``.

    Returns
    -------
    ndarray of shape (p + 1, p + 1)
    """
    X = check_matrix(X, "X")
    sigma2 = check_nonnegative(sigma2, "sigma2")
    if sigma2 == 0:
        raise ValueError("sigma2 must be > 0 for the Fisher information; got 0")
    n, p = X.shape
    info = np.zeros((p + 1, p + 1))
    sigma2 = np.float64(sigma2)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        info[:p, :p] = X.T @ X / sigma2
        info[p, p] = n / (2 * sigma2) / sigma2
    return check_finite_result(info, "gaussian_fisher_information",
                               "sigma2 is too small or too large for float64")

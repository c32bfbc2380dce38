"""Ridge and least-squares estimates: solvers, paths and the estimator.

Chapter "Ridge regression": ``ols``, ``ridge`` (three solvers), whole penalty paths,
the augmented-data form and :class:`RidgeRegression`.
"""
from __future__ import annotations

from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy import linalg as sla
from sklearn.base import BaseEstimator, RegressorMixin

from .._estimator_inputs import validate_regression_fit
from .._linalg import rank_deficiency_error
from .._ridge import pow2_scale, ridge_svd_path, shrinkage, standardize_columns
from .._validation import (
    FiniteResults,
    check_finite_result,
    check_pair,
    check_path,
    check_predict_input,
    finite_result,
    rank_tol,
)
from .._validation.params import NONNEGATIVE, Options, validate_args
from ._core import _METHODS, _cholesky_solve, _solve_many
from .spectral import (
    standardize,
)

__all__ = [
    "ols",
    "ridge",
    "ridge_path",
    "fitted_values_path",
    "ridge_augmented",
    "RidgeRegression",
]


@finite_result
def ols(X: ArrayLike, y: ArrayLike) -> np.ndarray:
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
    X, y = check_pair(X, y)
    n, p = X.shape
    Q, R, perm = sla.qr(X, mode="economic", pivoting=True, check_finite=False)
    r = np.abs(np.diag(R))   # |R_jj| non-increasing; only min(n, p) of them
    if p > n or r[0] == 0 or r[-1] <= rank_tol(r, max(n, p)):
        raise rank_deficiency_error(X, "ordinary least squares")
    beta = np.empty(p)
    beta[perm] = sla.solve_triangular(R, Q.T @ y, lower=False, check_finite=False)
    return beta


@finite_result
@validate_args({"lam": [NONNEGATIVE], "method": [Options(*_METHODS)]})
def ridge(X: ArrayLike, y: ArrayLike, lam: float,
          method: Literal["svd", "primal", "dual"] = "svd") -> np.ndarray:
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
    X, y = check_pair(X, y)
    return _solve_many(X, y[:, None], lam, method)[:, 0]


@finite_result
def ridge_path(X: ArrayLike, y: ArrayLike, lams: ArrayLike) -> np.ndarray:
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
    betas : ndarray of shape (p, L)
        Column ``l`` is ``ridge(X, y, lams[l])`` (the penalty is the last axis of every
        path in kmlib, as in :func:`kmlib.model_selection.ridge_fit_path`).
    """
    X, y, lams = check_path(X, y, lams)
    return ridge_svd_path(X[None], y[None], lams, fit_intercept=False, standardize=False)[1][0]


@finite_result
def fitted_values_path(X: ArrayLike, y: ArrayLike, lams: ArrayLike) -> np.ndarray:
    """Ridge fitted values ``sum_j d_j^2/(d_j^2+lam) U_j U_j^T y`` for a grid of ``lam``.

    Parameters
    ----------
    X : array of shape (n, p)
    y : array of shape (n,)
    lams : array of shape (L,)
        Non-negative regularisation parameters.

    Returns
    -------
    fitted : ndarray of shape (n, L)
        Column ``l`` is ``X @ ridge(X, y, lams[l])``.
    """
    X, y, lams = check_path(X, y, lams)
    s = pow2_scale(X)                   # 1, or a power of two that keeps d**2 finite
    U, d, _ = np.linalg.svd(X / s if s != 1.0 else X, full_matrices=False)
    return U @ (shrinkage(d, lams / s / s, max(X.shape)) * (U.T @ y)[:, None])


@finite_result
@validate_args({"lam": [NONNEGATIVE], "fit_intercept": ["boolean"]})
def ridge_augmented(X: ArrayLike, y: ArrayLike, lam: float, *, fit_intercept: bool = True
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
    X, y = check_pair(X, y)
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


class RidgeRegression(FiniteResults, RegressorMixin, BaseEstimator):
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
    coef_ : ndarray of shape (p,), or (k, p) for k outputs
        Coefficients on the original scale of ``X``.
    intercept_ : float, or ndarray of shape (k,) for k outputs
        Intercept on the original scale (0 when ``fit_intercept=False``).
    x_mean_ : ndarray of shape (p,)
        Column means used for centring (zeros when ``fit_intercept=False``).
    x_scale_ : ndarray of shape (p,)
        Column scales used (ones when ``standardize=False``).
    n_features_in_ : int
        Number of columns seen in ``fit``.
    """

    _parameter_constraints = {"lam": [NONNEGATIVE], "fit_intercept": ["boolean"],
                              "standardize": ["boolean"]}

    def __init__(self, *, lam: float = 1.0, fit_intercept: bool = True,
                 standardize: bool = True) -> None:
        self.lam = lam
        self.fit_intercept = fit_intercept
        self.standardize = standardize

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
            ) -> "RidgeRegression":
        """Fit the model.

        Parameters
        ----------
        X : array of shape (n, p)
        y : array of shape (n,), or (n, k) for k outputs (then ``coef_`` has shape (k, p)
            and ``intercept_`` shape (k,), as in scikit-learn's ``Ridge``)
        sample_weight : array of shape (n,) or float, optional
            Weights :math:`w_i \\ge 0`: the fit minimises
            ``sum_i w_i (y_i - mu - z_i^T beta)^2 + lam ||beta||^2`` (scikit-learn's
            ``Ridge`` objective), with the means and the scales of the columns weighted
            too, so that an integer weight acts as that many copies of the row.

        Returns
        -------
        self : RidgeRegression
        """
        X, y, w = validate_regression_fit(self, X, y, sample_weight, warn_column=False)
        lam, multi = float(self.lam), y.ndim == 2
        (n, p), Y = X.shape, y.reshape(len(y), -1)
        with np.errstate(over="ignore"):
            total = 1.0 if w is None else float(np.sum(w))
        if not 0 < total < np.inf:
            raise ValueError(f"sample_weight must have a positive, finite sum; got {total!r}")
        u = np.full(n, 1.0 / n) if w is None else w / total
        if self.standardize and w is None:
            Z, x_mean, scale = standardize(X, center=bool(self.fit_intercept))
        else:  # weighted means and root mean squares
            Z, x_mean, scale = standardize_columns(
                X, u, center=bool(self.fit_intercept), scale=bool(self.standardize),
                where=" on the rows of positive weight")
        y_mean = u @ Y if self.fit_intercept else np.zeros(Y.shape[1])
        sw = None if w is None else np.sqrt(w)[:, None]
        Zw, Yw = (Z, Y - y_mean) if sw is None else (Z * sw, sw * (Y - y_mean))
        B = _cholesky_solve(Zw, Yw, lam)  # one factorisation for every output, if safe
        B = _solve_many(Zw, Yw, lam, "svd") if B is None else B
        coef = check_finite_result((B / scale[:, None]).T, "RidgeRegression.fit: coef_")
        intercept = check_finite_result(y_mean - coef @ x_mean, "RidgeRegression.fit: intercept_")
        self.coef_ = coef if multi else coef[0]
        self.intercept_: float | np.ndarray = intercept if multi else float(intercept[0])
        self.x_mean_ = x_mean
        self.x_scale_ = scale
        self.n_features_in_ = p
        return self

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Predict ``X @ coef_ + intercept_``.

        Parameters
        ----------
        X : array of shape (m, p)

        Returns
        -------
        ndarray of shape (m,), or (m, k) for k outputs
        """
        X = check_predict_input(self, X, "coef_")
        return X @ self.coef_.T + self.intercept_

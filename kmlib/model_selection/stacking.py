"""Stacking ridge fits along a penalty grid by non-negative least squares.

Chapter "Choosing λ: hold-out and v-fold cross-validation" (Breiman's stacked
regressions).
"""
from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.optimize
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, RegressorMixin

from .._estimator_inputs import validate_regression_fit
from .._folds import Folds
from .._validation import (
    FiniteResults,
    check_finite_result,
    check_pair,
    check_predict_input,
    finite_result,
)
from .._validation.params import Integral, Interval
from .cv import (
    oof_predictions,
    ridge_fit_path,
)

__all__ = [
    "stack",
    "StackedRidge",
]


@finite_result
def stack(P: ArrayLike, y: ArrayLike) -> np.ndarray:
    """Stacking weights: non-negative least squares of ``y`` on the columns of ``P``.

    Solves ``min_{w >= 0} ||y - P w||^2`` with :func:`scipy.optimize.nnls`
    (Lawson--Hanson active set), where ``P`` holds out-of-fold predictions,
    e.g. from :func:`oof_predictions`.

    Parameters
    ----------
    P : array of shape (n, L)
    y : array of shape (n,)

    Returns
    -------
    w : ndarray of shape (L,), entries >= 0
    """
    P, y = check_pair(P, y, ("P", "y"), matrix="2d")
    w, _ = scipy.optimize.nnls(P, y, maxiter=50 * P.shape[1])
    return w


class StackedRidge(FiniteResults, RegressorMixin, BaseEstimator):
    """Stacked ridge regression: an NNLS combination of ridge fits along a λ-grid.

    ``fit`` computes the out-of-fold predictions of every penalty, the NNLS
    weights ``weights_`` of :func:`stack`, and then combines the refits on
    all the data with those weights (Breiman, 1996).  The combination is
    itself a linear predictor, stored as ``coef_`` and ``intercept_``.

    Parameters
    ----------
    lams : array of shape (L,)
        Penalty grid (>= 0).
    folds : int or iterable of (train_idx, test_idx), default 5
        Folds for the out-of-fold predictions.
    fit_intercept, standardize : bool, default True
        As in :class:`kmlib.ridge.RidgeRegression`.

    Attributes
    ----------
    weights_ : ndarray of shape (L,)
    oof_ : ndarray of shape (n, L)
        Out-of-fold predictions (the stacking design).
    cv_ : ndarray of shape (L,)
        The CV curve computed from ``oof_``.
    coefs_ : ndarray of shape (p, L), intercepts_ : ndarray of shape (L,)
        Refits on all the data.
    coef_ : ndarray of shape (p,), intercept_ : float
        The stacked predictor.
    """

    _parameter_constraints = {
        "lams": ["array-like"], "folds": [Interval(Integral, 2, None, closed="left"), "array-like"],
        "fit_intercept": ["boolean"], "standardize": ["boolean"]}

    def __init__(self, *, lams: ArrayLike, folds: Folds = 5, fit_intercept: bool = True,
                 standardize: bool = True) -> None:
        self.lams = lams
        self.folds = folds
        self.fit_intercept = fit_intercept
        self.standardize = standardize

    def fit(self, X: ArrayLike, y: ArrayLike) -> "StackedRidge":
        """Fit the stacked predictor; returns ``self``."""
        X, y, _ = validate_regression_fit(self, X, y, multi_output=False)
        opts = dict(fit_intercept=self.fit_intercept, standardize=self.standardize)
        self.oof_ = oof_predictions(X, y, self.lams, self.folds, **opts)
        self.cv_ = np.mean((y[:, None] - self.oof_) ** 2, axis=0)
        self.weights_ = stack(self.oof_, y)
        self.intercepts_, self.coefs_ = ridge_fit_path(X, y, self.lams, **opts)
        self.coef_ = check_finite_result(self.coefs_ @ self.weights_, "StackedRidge.fit: coef_")
        self.intercept_ = check_finite_result(float(self.intercepts_ @ self.weights_),
                                              "StackedRidge.fit: intercept_")
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Stacked predictions at the rows of ``X``."""
        X = check_predict_input(self, X, "coef_")
        return self.intercept_ + X @ self.coef_

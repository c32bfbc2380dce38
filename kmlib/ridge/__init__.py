"""Ordinary least squares and ridge regression (book chapter 1, "Ridge regression").

Chapter 1 works with the linear model ``Y = X beta0 + eps`` (fixed design,
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

No explicit inverse is ever formed: every ``(X^T X + lam I)^{-1}`` is applied
through a Cholesky factorisation or the SVD.
"""
from __future__ import annotations

from .estimation import (
    RidgeRegression,
    fitted_values_path,
    ols,
    ridge,
    ridge_augmented,
    ridge_path,
)
from .spectral import (
    PrincipalComponents,
    Standardized,
    effective_df,
    principal_components,
    shrinkage_factors,
    standardize,
)

__all__ = [
    "ols", "ridge", "ridge_path", "fitted_values_path", "ridge_augmented", "shrinkage_factors",
    "effective_df", "principal_components", "standardize", "RidgeRegression",
    "PrincipalComponents", "Standardized",
]

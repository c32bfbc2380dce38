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

The three groups live in the submodules ``primal_dual``, ``feature_maps`` and
``spectral_filters``; every name is importable from ``kmlib.book.kernel_trick``.
"""
from __future__ import annotations

from . import spectral_filters as _spectral_filters
from .feature_maps import (
    gaussian_features_1d,
    gaussian_tail_bound,
    monomial_exponents,
    n_monomials,
    polynomial_features,
    quadratic_features,
)
from .primal_dual import dual_ridge, primal_ridge, time_primal_dual
from .spectral_filters import (
    filter_factors,
    penrose_residuals,
    pinv_svd,
    spectral_fit,
    spectral_path_errors,
)

# Bound here by assignment so that its ``#:`` comment, which the API reference shows,
# sits in this module's source; it is the object of ``spectral_filters``.
#: The spectral filters of the chapter: least squares, spectral cut-off, ridge.
FILTERS = _spectral_filters.FILTERS

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

"""Explicit feature maps of the polynomial and the Gaussian kernel.

This module serves the chapter "The kernel trick: primal and dual, feature maps,
spectral filters".  The chapter writes its linear algebra (primal and dual solves,
their timing, the pseudoinverse, the spectral filters) in its cells; what stays
here are the two feature maps it compares with their kernels, which chapters 4
to 6 reuse:

* :func:`monomial_exponents` and :func:`polynomial_features` -- the explicit
  feature map of the polynomial kernel ``(x^T x' + c)^m``;
* :func:`gaussian_features_1d` -- the truncated ``l^2`` feature map of the
  one-dimensional Gaussian kernel.
"""
from __future__ import annotations

from .feature_maps import gaussian_features_1d, monomial_exponents, polynomial_features

__all__ = [
    "monomial_exponents",
    "polynomial_features",
    "gaussian_features_1d",
]

"""Reproducing kernel Hilbert spaces: norms, projections, Mercer and Sobolev computations.

This module serves the chapter "Reproducing kernel Hilbert spaces". It computes
with the objects of that chapter without ever leaving finite dimensions:

* finite input sets, where a kernel is a PSD matrix ``K`` and the RKHS norm of
  a vector ``f`` in the column space of ``K`` is ``f^T K^+ f``
  (:func:`finite_rkhs_inner`, :func:`finite_rkhs_norm2`);
* finite kernel expansions ``f = sum_i alpha_i k(., x_i)``: their values,
  inner products ``alpha^T k(X, Z) beta`` and orthogonal projections onto the
  span of other kernel functions (:func:`expansion_values`,
  :func:`expansion_inner`, :func:`project`);
* Mercer's expansion of the first-order Sobolev kernel ``min(x, x')`` on
  ``[0, 1]`` with the uniform law: eigenfunctions, truncation errors and the
  spectrum of the scaled Gram matrix on a grid
  (:func:`min_kernel_eigenfunctions`, :func:`mercer_features`,
  :func:`mercer_sup_error`, :func:`grid_eigenvalues`);
* the Sobolev norms ``int f'^2`` and ``int f''^2`` of kernel expansions,
  computed by integrating piecewise polynomials exactly
  (:func:`piecewise_integral`, :func:`sobolev1_derivative`,
  :func:`sobolev2_second_derivative`);
* the RKHS norm of a polynomial for the one-dimensional polynomial kernel
  ``(c + x x')^p`` (:func:`polynomial_coefficients`,
  :func:`polynomial_rkhs_norm2`).

Linear algebra factors once (``eigh`` or Cholesky) and never forms an inverse.

The submodules, one concept each: ``finite`` (finite input sets), ``expansions``
(finite kernel expansions), ``mercer`` (Mercer's expansion of ``min(x, x')`` and the
Taylor feature map of the Gaussian kernel, :func:`gaussian_taylor_features`),
``sobolev`` (Sobolev norms) and ``polynomial`` (the polynomial kernel).
"""
from __future__ import annotations

from .expansions import expansion_distance, expansion_inner, expansion_values, project
from .finite import finite_rkhs_inner, finite_rkhs_norm2
from .mercer import (
    gaussian_taylor_features,
    grid_eigenvalues,
    mercer_features,
    mercer_sup_error,
    min_kernel_eigenfunctions,
)
from .polynomial import polynomial_coefficients, polynomial_rkhs_norm2
from .sobolev import piecewise_integral, sobolev1_derivative, sobolev2_second_derivative

__all__ = [
    "finite_rkhs_inner",
    "finite_rkhs_norm2",
    "expansion_values",
    "expansion_inner",
    "expansion_distance",
    "project",
    "gaussian_taylor_features",
    "min_kernel_eigenfunctions",
    "mercer_features",
    "mercer_sup_error",
    "grid_eigenvalues",
    "piecewise_integral",
    "sobolev1_derivative",
    "sobolev2_second_derivative",
    "polynomial_coefficients",
    "polynomial_rkhs_norm2",
]

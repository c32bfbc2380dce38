"""Rates of convergence for kernel ridge regression.

This module serves the chapter "How fast does kernel ridge regression learn?" (the
risk bound, Mercer spectra and the rate (sigma^2/n)^{2/3}).  It holds the computations
of that chapter that are too long for a notebook cell; the chapter computes the exact risk and
the two bounds of the MSPE theorem in its own cells.

Convention (the book's): KRR minimises ``sum_i (Y_i - f(x_i))**2 + lam * ||f||_H**2``,
so the fitted values at the design are ``K (K + lam I)^{-1} Y``; the rescaled penalty
is ``gamma = lam / n`` and ``mu_hat_i = d_i / n`` are the eigenvalues of ``K / n``.

* :func:`brownian_precision` -- the tridiagonal inverse of the ``min(x, x')`` Gram matrix.
* :func:`sobolev_mspe` -- the exact MSPE for ``min(x, x')`` in O(n) per penalty,
  through the tridiagonal inverse of the Brownian-motion Gram matrix.
* :func:`power_min_sum` -- ``sum_j min(c (j - s)^{-p}, gamma)`` exactly (Hurwitz zeta).
* :func:`grid_min_eigenvalues` -- closed-form eigenvalues of ``K/n`` for ``min`` on a grid.
* :func:`cv_table` -- batched v-fold CV over length scales and penalties.
* :func:`smoothness_experiment`, :func:`smoothness_repeat` -- the smoothness-matching
  experiment (two targets, three kernels, length scale and penalty by 5-fold CV), repeated
  over targets, kernels and seeds after the chapter has shown one cell of it.

The submodules, one concept each: ``brownian`` (the exact MSPE for ``min(x, x')``),
``spectra`` (sums of ``min(mu_j, gamma)``) and ``smoothness`` (the smoothness-matching experiment).
"""
from __future__ import annotations

from . import smoothness as _smoothness
from .brownian import brownian_precision, sobolev_mspe
from .smoothness import cv_table, smoothness_experiment, smoothness_repeat
from .spectra import grid_min_eigenvalues, power_min_sum

# The two tables are bound here by assignment so that their ``#:`` comments, which the API
# reference shows, sit in this module's source; they are the objects of ``smoothness``.
#: The three kernels of the experiment, rough to smooth: name -> factory of the length scale.
SMOOTHNESS_KERNELS = _smoothness.SMOOTHNESS_KERNELS

#: The two targets, smooth then rough.
TARGETS = _smoothness.TARGETS

__all__ = [
    "SMOOTHNESS_KERNELS",
    "TARGETS",
    "brownian_precision",
    "cv_table",
    "grid_min_eigenvalues",
    "power_min_sum",
    "smoothness_experiment",
    "smoothness_repeat",
    "sobolev_mspe",
]

"""The computations behind the chapter "The representer theorem".

* :func:`polynomial_features` -- an explicit feature map of the polynomial kernel,
  so that feature-space and kernel-space computations can be compared (coordinates
  in which expansions on centres are vectors come from
  :func:`kmlib.kernels.empirical_feature_map`);
* :func:`smoothed_abs_loss` and :func:`fit_expansion` -- penalised regression with
  a non-quadratic loss over expansions on any set of centres, with the RKHS norm
  of the part orthogonal to the span of the training representers;
* :func:`interpolation_gaps` -- how far kernel ridge regression is from the
  minimum-norm interpolant, for a grid of penalties, from one eigendecomposition;
* :class:`SplineKernelRidge` and :func:`linear_smoothing_spline` -- smoothing
  splines as kernel ridge regression with an unpenalised polynomial part, and an
  independent banded solver for the first-order (piecewise-linear) case;
* :func:`gaussian_linear_posterior` and :func:`gp_posterior` -- the Bayesian view:
  posterior means, covariances and samples.

The book's scaling is used throughout: the loss is a *sum* over the sample and the
penalty is :math:`\\lambda\\|f\\|_{\\mathcal H}^2` (no :math:`1/n`, no :math:`1/2`).

The groups live in the submodules ``expansions``, ``splines`` and ``posteriors``;
``polynomial_features`` is chapter 3's map (``kmlib.book.kernel_trick``), re-exported.
"""
from __future__ import annotations

from ..kernel_trick import polynomial_features  # chapter 3's feature map, re-exported
from .expansions import ExpansionFit, fit_expansion, interpolation_gaps, smoothed_abs_loss
from .posteriors import gaussian_linear_posterior, gp_posterior
from .splines import SplineKernelRidge, linear_smoothing_spline

__all__ = [
    "polynomial_features",
    "smoothed_abs_loss",
    "ExpansionFit",
    "fit_expansion",
    "interpolation_gaps",
    "SplineKernelRidge",
    "linear_smoothing_spline",
    "gaussian_linear_posterior",
    "gp_posterior",
]

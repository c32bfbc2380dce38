"""Helpers for the chapter "The representer theorem".

The chapter writes its computations out (the robust fit in whitened coordinates,
the gap to the minimum-norm interpolant, the bordered spline system, the Gaussian
and Gaussian-process posteriors). What remains here is what it reuses:

* :func:`polynomial_features` -- an explicit feature map of the polynomial kernel,
  so that feature-space and kernel-space computations can be compared; this is
  chapter 3's map (``kmlib.book.kernel_trick``), re-exported for the chapter and
  its exercise sheet;
* :func:`linear_smoothing_spline` -- an independent banded solver for the
  piecewise-linear smoothing spline, the second route of a pin and of a checker.

The book's scaling is used throughout: the loss is a *sum* over the sample and the
penalty is :math:`\\lambda\\|f\\|_{\\mathcal H}^2` (no :math:`1/n`, no :math:`1/2`).
"""
from __future__ import annotations

from ..kernel_trick import polynomial_features  # chapter 3's feature map, re-exported
from .splines import linear_smoothing_spline

__all__ = ["polynomial_features", "linear_smoothing_spline"]

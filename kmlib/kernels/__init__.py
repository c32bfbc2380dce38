"""Positive-definite kernels, their closure rules and spectral checks.

This module serves chapter 4 (positive-definite kernels, closure rules,
normalisation, the empirical kernel map), chapter 5 (the Sobolev kernels whose
RKHS norms the chapter computes) and chapter 10 (negative-definite kernels and
the passage from an NDS kernel to a PDS one).

A kernel is a callable :class:`Kernel` object.  ``k(X, Y)`` returns the Gram
matrix ``[k(x_i, y_j)]`` of shape ``(len(X), len(Y))``; ``k(X)`` means
``k(X, X)`` and is exactly symmetric (bitwise).  Inputs are 2-D arrays of shape
``(n_samples, n_features)``; a 1-D array of length n is read as n points in one
dimension (shape ``(n, 1)``), the convention of
:func:`kmlib._validation.check_matrix`.  Kernels combine with ``+``, ``*``
(pointwise product, or scaling by a number ``c >= 0``), ``**`` (integer power)
and :meth:`Kernel.normalized`.

Examples
--------
>>> import numpy as np
>>> from kmlib import kernels
>>> k = kernels.linear() + 2.0 * kernels.gaussian(sigma=1.0)
>>> k
(linear() + 2.0 * gaussian(sigma=1.0))
>>> K = k(np.linspace(0.0, 1.0, 5))
>>> K.shape, bool(np.all(K == K.T)), kernels.is_psd(K)
((5, 5), True, True)
"""
from .base import Kernel
from .domains import intersection_power, jaccard, sobolev1, sobolev2
from .spectral import empirical_feature_map, is_nds, is_psd, pds_from_nds
from .vector import (
    exponential,
    gaussian,
    laplacian,
    linear,
    matern,
    polynomial,
    sigmoid,
    squared_distance,
)

__all__ = [
    "Kernel", "linear", "polynomial", "gaussian", "laplacian", "matern", "exponential",
    "sobolev1", "sobolev2", "jaccard", "intersection_power", "sigmoid", "squared_distance",
    "is_psd", "is_nds", "pds_from_nds", "empirical_feature_map",
]

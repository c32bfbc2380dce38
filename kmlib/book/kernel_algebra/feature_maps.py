"""Explicit feature maps: the one-dimensional Gaussian kernel and the empirical kernel map.

Chapter 4 ("Kernels: positive definiteness, closure rules, a catalogue, and what is
not a kernel"), sections "Feature maps give kernels" and "The empirical kernel map":
a truncated explicit feature map of the one-dimensional Gaussian kernel (the map
of chapter 3, :func:`kmlib.book.kernel_trick.gaussian_features_1d`, re-exported), the
empirical kernel map ``x -> (k(x, x_1), ..., k(x, x_m))`` (whose inner products on
the sample give ``K^2``) and its whitened version (which gives ``K``).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from kmlib._validation import psd_eigh
from kmlib.kernels import Kernel

from ..kernel_trick import gaussian_features_1d
from ._common import _check_kernel_object

__all__ = ["gaussian_features_1d", "empirical_kernel_map", "whitened_kernel_map"]


def empirical_kernel_map(k: Kernel, sample: ArrayLike, X: ArrayLike) -> NDArray[np.float64]:
    """Empirical kernel map ``Phi'(x) = (k(x, x_1), ..., k(x, x_m))``, one row per ``x``.

    On the sample itself the rows are ``K e_i`` and their inner products form
    ``K^2``, not ``K``.

    Parameters
    ----------
    k : Kernel
    sample : array-like of shape (m, d)
        The points ``x_1, ..., x_m``.
    X : array-like of shape (n, d)
        Where to evaluate the map.

    Returns
    -------
    ndarray of shape (n, m)
    """
    return _check_kernel_object(k, "k")(X, sample)


def whitened_kernel_map(k: Kernel, sample: ArrayLike, X: ArrayLike,
                        tol: float | None = None) -> NDArray[np.float64]:
    """Whitened empirical kernel map ``Phi''(x) = (K^+)^{1/2} Phi'(x)``.

    ``K = U diag(s) U^T`` is factored once (``eigh``); eigenvalues at most
    ``tol`` count as zero, so a singular ``K`` (e.g. a duplicated point) is
    handled by the pseudo-inverse.  On the sample, ``Phi'' Phi''^T = K K^+ K = K``.

    Parameters
    ----------
    k : Kernel
    sample : array-like of shape (m, d)
    X : array-like of shape (n, d)
    tol : float, optional
        Default ``10 m eps max(1, ||K||_2)``.

    Returns
    -------
    ndarray of shape (n, m)

    Raises
    ------
    ValueError
        If the sample's Gram matrix has an eigenvalue below ``-tol``.
    """
    k = _check_kernel_object(k, "k")
    K = k(sample)
    s, U, t = psd_eigh(K, "the Gram matrix of the sample", tol=tol)
    inv_sqrt = np.zeros_like(s)
    keep = s > t
    inv_sqrt[keep] = 1.0 / np.sqrt(s[keep])
    root = (U * inv_sqrt) @ U.T          # (K^+)^{1/2}, symmetric
    return k(X, sample) @ root

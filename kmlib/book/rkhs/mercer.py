"""Feature maps in ell^2: Mercer's expansion of ``min(x, x')`` and the Gaussian's Taylor map.

Chapter "Reproducing kernel Hilbert spaces": the Mercer eigenfunctions of the
first-order Sobolev kernel ``min(x, x')`` on ``[0, 1]`` with the uniform law, the
truncated feature map and its sup-norm error, and the spectrum of the scaled Gram
matrix on a grid (:func:`min_kernel_eigenfunctions`, :func:`mercer_features`,
:func:`mercer_sup_error`, :func:`grid_eigenvalues`); and the ell^2 feature map of
the one-dimensional Gaussian kernel from its Taylor series
(:func:`gaussian_taylor_features`, the map of chapter 3,
:func:`kmlib.book.kernel_trick.gaussian_features_1d`, under the name chapter 5 uses).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import linalg

from kmlib._validation import check_int

from ..kernel_trick import gaussian_features_1d as gaussian_taylor_features
from ..theory import sobolev_eigenvalues
from ._common import _unit_points

__all__ = [
    "gaussian_taylor_features",
    "min_kernel_eigenfunctions",
    "mercer_features",
    "mercer_sup_error",
    "grid_eigenvalues",
]


def min_kernel_eigenfunctions(x: ArrayLike, J: int) -> NDArray[np.float64]:
    r"""The first ``J`` Mercer eigenfunctions of min(x, x').

    They are :math:`e_j(x)=\sqrt2\sin((j-\frac12)\pi x)`, orthonormal in
    :math:`L^2[0,1]`; the eigenvalues are :func:`kmlib.book.theory.sobolev_eigenvalues`.

    Parameters
    ----------
    x : array-like of shape (m,)
        Points of [0, 1].
    J : int
        Number of eigenfunctions (>= 1).

    Returns
    -------
    ndarray of shape (m, J)
    """
    v = _unit_points(x, "x")
    J = check_int(J, "J")
    return np.sqrt(2.0) * np.sin(np.outer(v, np.arange(1, J + 1) - 0.5) * np.pi)


def mercer_features(x: ArrayLike, J: int) -> NDArray[np.float64]:
    r"""Truncated Mercer feature map :math:`(\sqrt{\mu_j}e_j(x))_{j\le J}` of min(x, x').

    Returns
    -------
    ndarray of shape (m, J)
        Row ``i`` is the feature vector of ``x_i``; ``Phi @ Phi.T`` tends to
        ``min(x_i, x_k)`` as ``J`` grows.
    """
    E = min_kernel_eigenfunctions(x, J)
    return E * np.sqrt(sobolev_eigenvalues(np.arange(1, E.shape[1] + 1)))


def mercer_sup_error(Js: ArrayLike, grid: ArrayLike) -> NDArray[np.float64]:
    r"""Sup over ``grid x grid`` of the Mercer truncation error, for each ``J``.

    The error is :math:`|\min(x,y)-\sum_{j\le J}\mu_je_j(x)e_j(y)|`.

    Parameters
    ----------
    Js : array-like of int
        Truncation levels (each >= 1).
    grid : array-like of shape (m,)
        Points of [0, 1].

    Returns
    -------
    ndarray of shape (len(Js),)
    """
    Js = np.atleast_1d(np.asarray(Js))
    if Js.ndim != 1 or Js.size == 0 or not np.issubdtype(Js.dtype, np.integer) or np.any(Js < 1):
        raise ValueError(f"Js must be a non-empty 1-D array of integers >= 1; got {Js!r}")
    g = _unit_points(grid, "grid")
    target = np.minimum.outer(g, g)
    out = np.empty(Js.size)
    for i, J in enumerate(Js):
        Phi = mercer_features(g, int(J))
        out[i] = np.abs(target - Phi @ Phi.T).max()
    return out


def grid_eigenvalues(n: int, J: int) -> NDArray[np.float64]:
    r"""The ``J`` largest eigenvalues of :math:`K/n` for the min kernel on a midpoint grid.

    Here :math:`K_{ik}=\min(x_i,x_k)` and :math:`x_i=(i-\frac12)/n`.

    They approximate the Mercer eigenvalues :math:`\mu_1\ge\mu_2\ge\dots` of
    min(x, x') under the uniform law (the midpoint rule applied to the
    integral operator).

    Returns
    -------
    ndarray of shape (J,), in decreasing order
    """
    n = check_int(n, "n")
    J = check_int(J, "J", maximum=n)
    x = (np.arange(1, n + 1) - 0.5) / n
    ev = linalg.eigh(np.minimum.outer(x, x) / n, eigvals_only=True, subset_by_index=[n - J, n - 1])
    return ev[::-1]

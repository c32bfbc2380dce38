"""The SVD view of ridge regression: shrinkage factors, degrees of freedom, PCA.

Chapter "Ridge regression"; also the standardisation used by every ridge estimator.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .._ridge import shrinkage, standardize_columns
from .._validation import (
    check_lam_grid,
    check_matrix,
    check_vector,
    finite_result,
)

__all__ = [
    "shrinkage_factors",
    "effective_df",
    "principal_components",
    "standardize",
]


@finite_result
def shrinkage_factors(d: ArrayLike, lam: float | ArrayLike) -> np.ndarray:
    """Ridge shrinkage factors ``d_j^2 / (d_j^2 + lam)``.

    Ridge multiplies the coordinate ``U_j^T y`` of the response along the j-th
    left singular vector by this factor; OLS multiplies it by 1.

    Parameters
    ----------
    d : array of shape (m,)
        Singular values of the design (``>= 0``).
    lam : float or array of shape (L,)
        Regularisation parameter(s), ``>= 0``.  At ``lam = 0`` the factor is 1
        for ``d_j > 0`` and 0 for ``d_j = 0`` (the projection onto the column space).

    Returns
    -------
    ndarray of shape (m,) or (m, L)
        One column per value of ``lam`` when ``lam`` is an array (the penalty is the
        last axis of every path in kmlib).
    """
    d = check_vector(d, "d")
    if np.any(d < 0):
        raise ValueError(f"d must contain singular values >= 0; got minimum {d.min()!r}")
    scalar = np.ndim(lam) == 0
    lams = check_lam_grid(lam, "lam")
    out = shrinkage(d, lams, 0)
    return out[:, 0] if scalar else out


@finite_result
def effective_df(X: ArrayLike, lam: float | ArrayLike) -> Any:
    """Effective degrees of freedom ``sum_j d_j^2/(d_j^2 + lam) = tr(H_lam)``.

    ``H_lam = X (X^T X + lam I)^{-1} X^T`` is the ridge hat matrix.  The value
    decreases from ``rank(X)`` at ``lam = 0`` to 0 as ``lam -> infinity``.

    Parameters
    ----------
    X : array of shape (n, p)
    lam : float or array of shape (L,)
        Regularisation parameter(s), ``>= 0``.

    Returns
    -------
    float or ndarray of shape (L,)
    """
    X = check_matrix(X, "X")
    scalar = np.ndim(lam) == 0
    lams = check_lam_grid(lam, "lam")
    d = np.linalg.svd(X, compute_uv=False)
    df = shrinkage(d, lams, max(X.shape)).sum(axis=0)
    return float(df[0]) if scalar else df


class PrincipalComponents(NamedTuple):
    """What :func:`principal_components` returns (unpacks like a tuple)."""

    scores: np.ndarray
    V: np.ndarray
    variances: np.ndarray


class Standardized(NamedTuple):
    """What :func:`standardize` returns (unpacks like a tuple)."""

    Z: np.ndarray
    mean: np.ndarray
    scale: np.ndarray


@finite_result
def principal_components(X: ArrayLike) -> PrincipalComponents:
    """Principal components of the column-centred design via its thin SVD.

    With ``Xc = X - mean = U D V^T``, the j-th principal component is
    ``Xc V_j = D_jj U_j`` and its sample variance (``1/n`` convention) is
    ``D_jj^2 / n``.

    Parameters
    ----------
    X : array of shape (n, p)

    Returns
    -------
    scores : ndarray of shape (n, m)
        Column j is the j-th principal component ``D_jj U_j`` (``m = min(n, p)``).
    V : ndarray of shape (p, m)
        Column j is the j-th principal direction ``V_j`` (unit length).
    variances : ndarray of shape (m,)
        ``D_jj^2 / n``, non-increasing.
    """
    X = check_matrix(X, "X")
    Xc = X - X.mean(axis=0)
    U, d, Vt = np.linalg.svd(Xc, full_matrices=False)
    return PrincipalComponents(U * d, Vt.T, d**2 / X.shape[0])


@finite_result
def standardize(X: ArrayLike, *, center: bool = True) -> Standardized:
    """Centre each column and scale it to Euclidean norm ``sqrt(n)``.

    After this the columns have mean 0 and variance 1 with the ``1/n``
    convention (the preprocessing of the chapter "Ridge regression").

    Parameters
    ----------
    X : array of shape (n, p)
    center : bool, default True
        When False the columns are only scaled (``mean`` is returned as zeros
        and the scale is the root mean square of the raw column).

    Returns
    -------
    Z : ndarray of shape (n, p)
        ``(X - mean) / scale``.
    mean : ndarray of shape (p,)
    scale : ndarray of shape (p,)

    Raises
    ------
    ValueError
        If a column has zero spread (it is constant), so it cannot be scaled.
    """
    X = check_matrix(X, "X", min_rows=2, why="every column of one sample is constant and "
                     "cannot be standardised; or use standardize=False")
    return Standardized(*standardize_columns(X, center=center))

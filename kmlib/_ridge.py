r"""The ridge engine shared by :mod:`kmlib.ridge` and :mod:`kmlib.model_selection`.

One standardisation, one spectral filter and one path solver; every ridge path in kmlib
comes from here, with one shape convention: **the penalty grid is the last axis**
(coefficients (p, L), fitted values and predictions (n, L), a stack of R datasets in
front: (R, p, L)), as in scikit-learn's ``lasso_path`` and ``enet_path``.

* :func:`standardize_columns`: centre the columns (optionally with weights) and scale
  them to root mean square 1, the largest entry factored out so that squares cannot
  overflow; a column of zero spread raises ``ValueError``.
* :func:`ridge_filter` and :func:`shrinkage`: with the thin SVD :math:`Z = UDV^\top`, the
  filter :math:`d_k/(d_k^2+\lambda)` and the shrinkage factors :math:`d_k^2/(d_k^2+\lambda)`,
  zero for singular values at or below ``max(n, p) * eps * d_1`` (the rank tolerance of
  :func:`numpy.linalg.matrix_rank`), so ``lam = 0`` gives the minimum-norm least squares.
* :func:`ridge_svd_path`: intercepts and coefficients of ridge with an unpenalised
  intercept for a whole grid of penalties and a stack of datasets, one batched SVD.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ._validation import EPS, rank_tol

__all__ = ["standardize_columns", "rank_mask", "ridge_filter", "shrinkage", "ridge_svd_path",
           "pow2_scale", "gram_unscaled"]

#: Designs whose largest entry exceeds this are scaled before their squares are formed.
_HUGE = 2.0**200


def pow2_scale(X: np.ndarray) -> float:
    """A power of two ``s`` with ``max |X / s| <= 1`` when ``X`` is huge, else 1.

    Beyond about 1.3e154 the products ``X^T X``, ``X X^T`` and the squared singular values
    overflow, and the ridge filter ``d / (d^2 + lam)`` silently returns 0.  The ridge
    solution of ``X`` with penalty ``lam`` is ``1/s`` times the one of ``X / s`` with
    penalty ``lam / s^2``; scaling by a power of two is exact.
    """
    top = max(float(X.max()), -float(X.min())) if X.size else 0.0   # (no |X| temporary)
    return float(2.0 ** np.frexp(top)[1]) if top > _HUGE else 1.0


def gram_unscaled(G: np.ndarray) -> bool:
    """Whether :func:`pow2_scale` is 1 for the ``X`` of ``G = X^T X`` (or ``X X^T``), read off G.

    ``X_ij^2 <= G_jj``, so a diagonal at most ``2^399`` bounds every |entry| below
    ``2^199.5 (1 + eps) < _HUGE``; the pass over ``X`` of :func:`pow2_scale` is then not
    needed.  False (also for a diagonal that overflowed) leaves the decision to it.
    """
    return bool(np.max(np.diagonal(G)) <= 2.0**399) if G.size else True


def standardize_columns(X: np.ndarray, u: np.ndarray | None = None, *, center: bool = True,
                        scale: bool = True, where: str = ""
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centre and scale the columns of ``X`` (shape (..., n, p)): ``(Z, mean, scale)``.

    ``mean`` is the column mean (weighted by ``u``, shape (..., n), summing to 1, if
    given; zeros without ``center``); ``scale`` the root mean square of the centred
    column under the same weights (ones without ``scale``), so that ``Z`` has columns of
    mean 0 and variance 1 with the ``1/n`` convention.  A column whose scale is at most
    ``100 eps`` times its largest |entry| is constant (up to rounding) and raises
    ``ValueError`` naming it (``where`` says on which rows, e.g. " on a training set").
    """
    p = X.shape[-1]
    if not center:
        mean = np.zeros(X.shape[:-2] + (p,))
    elif u is None:
        mean = X.mean(axis=-2)
    else:
        mean = np.einsum("...n,...np->...p", u, X)
    with np.errstate(over="ignore", invalid="ignore"):
        Z = X - mean[..., None, :]
    if not scale:
        return Z, mean, np.ones_like(mean)
    top = np.max(np.abs(Z), axis=-2)
    unit = np.where(top > 0, top, 1.0)
    W = (Z / unit[..., None, :]) ** 2
    ms = W.mean(axis=-2) if u is None else np.einsum("...n,...np->...p", u, W)
    s = unit * np.sqrt(ms)
    bad = s <= 100 * EPS * np.max(np.abs(X), axis=-2)
    if np.any(bad):
        cols = np.unique(np.nonzero(bad)[-1]).tolist()
        raise ValueError(f"X has constant column(s) {cols}{where}, which cannot be "
                         "standardised (zero spread); drop them or pass standardize=False")
    return Z / s[..., None, :], mean, s


def rank_mask(d: np.ndarray, n_max: int) -> np.ndarray:
    """Singular values (last axis) above the rank tolerance ``n_max * eps * max d``."""
    if d.shape[-1] == 0:
        return np.zeros(d.shape, dtype=bool)
    return d > rank_tol(d, n_max, axis=-1)[..., None]


def ridge_filter(d: np.ndarray, lams: np.ndarray, n_max: int) -> NDArray[np.float64]:
    """``F[..., k, l] = d_k / (d_k^2 + lams[l])`` for the kept ``d_k``, else 0.

    ``d`` (..., k) are singular values of a matrix whose larger side is ``n_max``
    (``n_max = 0`` keeps every positive one).  With ``r = sqrt(lams[l])``, evaluated as
    ``(1 / d_k) / (1 + (r / d_k)^2)`` where ``d_k >= r`` and ``(d_k / lams[l]) / (1 +
    (d_k / r)^2)`` where ``d_k < r``: the ratio squared is at most 1, so no square over- or
    underflows and singular values beyond 1e154 (or below 1e-154) keep their value.
    """
    dd = d[..., :, None]
    r = np.sqrt(lams)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        big = dd >= r
        t = np.where(big, r / dd, dd / r)                        # <= 1
        F = np.where(big, 1.0 / dd, dd / lams) / (1.0 + t * t)
    return np.where(rank_mask(d, n_max)[..., :, None], F, 0.0)


def shrinkage(d: np.ndarray, lams: np.ndarray, n_max: int) -> NDArray[np.float64]:
    """Shrinkage factors ``d_k^2 / (d_k^2 + lams[l])`` for the kept ``d_k``, else 0: (..., k, L).

    Evaluated as ``1 / (1 + t^2)`` with ``t = sqrt(lams[l]) / d_k``, so that no ``d_k^2``
    over- or underflows: singular values beyond 1e154 give factors near 1, not 0.
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = np.sqrt(lams) / d[..., :, None]
        return np.where(rank_mask(d, n_max)[..., :, None], 1.0 / (1.0 + t * t), 0.0)


def ridge_svd_path(X: np.ndarray, y: np.ndarray, lams: np.ndarray, *, fit_intercept: bool,
                   standardize: bool, where: str = " on a training set"
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Intercepts (R, L) and coefficients (R, p, L), on the original scale, of ridge.

    For a stack ``X`` (R, n, p), ``y`` (R, n) and penalties ``lams`` (L,): minimises
    ``||y - mu 1 - X beta||^2 + lam ||beta||^2`` with the columns centred (an unpenalised
    intercept ``mu``, if ``fit_intercept``) and scaled (if ``standardize``) as by
    :func:`standardize_columns`, from one batched thin SVD.
    """
    n, p = X.shape[-2], X.shape[-1]
    Z, mu, s = standardize_columns(X, center=fit_intercept, scale=standardize, where=where)
    ybar = y.mean(axis=-1) if fit_intercept else np.zeros(y.shape[:-1])
    c = 1.0 if standardize else pow2_scale(Z)       # huge X: the SVD of Z / c, lams / c^2
    U, d, Vt = np.linalg.svd(Z / c if c != 1.0 else Z, full_matrices=False)
    b = np.einsum("rnk,rn->rk", U, y - ybar[:, None])             # U^T y_c
    F = ridge_filter(d, lams / c / c, max(n, p))                   # (R, k, L)
    coefs = np.einsum("rkp,rkl->rpl", Vt, F * b[:, :, None]) / (c * s[:, :, None])
    intercepts = ybar[:, None] - np.einsum("rp,rpl->rl", mu, coefs)
    return intercepts, coefs

"""v-fold cross-validation of kernel ridge regression along a penalty grid (chapters 2 and 3).

:func:`krr_cv_path` scores a whole grid of penalties with one factorisation
per training block.  Instead of the eigendecomposition of
``kmlib.model_selection.krr_spectral`` it uses a cheaper relative of the same
spectral idea: the Householder tridiagonalisation
:math:`K_{tr,tr} = Q\\,T\\,Q^\\top` (the first, and dominant, stage of an
eigendecomposition, about half its cost), after which
:math:`(K_{tr,tr} + \\lambda I)^{-1} y_{tr} = Q\\,(T + \\lambda I)^{-1} Q^\\top y_{tr}`
needs only an :math:`O(m)` tridiagonal solve per :math:`\\lambda`.  Penalties the
tridiagonal route cannot handle (``lam = 0``, or ``K_{tr,tr} + lam I`` not
numerically positive definite) fall back to the eigendecomposition and the
pseudo-inverse, as in :class:`kmlib.krr.KernelRidge`.

Cross-validation error, as everywhere in kmlib (chapter 2): the mean over all
n points of the squared out-of-fold error,
:math:`\\mathrm{CV}(\\lambda) = \\frac1n\\sum_i (y_i - \\hat f^{(-\\kappa(i))}_\\lambda(x_i))^2`.
"""
from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import lapack

from .._folds import Folds
from .._linalg import dot
from .._validation import finite_result
from ._core import check_cv_path
from .krr_spectral import _dual_path

__all__ = ["krr_cv_path"]


#: Number of Householder reflectors per compact-WY block in :func:`_wy_blocks`.
_NB = 32


def _wy_blocks(c: np.ndarray, tau: np.ndarray) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """Compact-WY form of the orthogonal factor returned by ``dsytrd`` (lower).

    ``dsytrd`` writes :math:`A = Q T Q^\\top` with :math:`Q = H_0 H_1 \\cdots H_{m-2}`,
    :math:`H_i = I - \\tau_i v_i v_i^\\top`, where :math:`v_i` is zero above
    row i+1, one at row i+1 and stored in ``c[i+2:, i]`` below.  Each run of
    ``_NB`` consecutive reflectors is returned as ``(r0, V, T)`` with
    :math:`H_{i_0} \\cdots H_{i_1-1} = I - V T V^\\top` acting on rows ``r0:``
    (LAPACK's ``dlarft``, forward and columnwise), so that applying :math:`Q`
    is a few matrix products instead of a loop over m reflectors.
    """
    m = c.shape[0]
    blocks = []
    for i0 in range(0, m - 1, _NB):
        i1 = min(i0 + _NB, m - 1)
        nb = i1 - i0
        V = np.tril(c[i0 + 1:, i0:i1], -1)
        V[np.arange(nb), np.arange(nb)] = 1.0
        G = dot(V.T, V)
        t = tau[i0:i1]
        T = np.zeros((nb, nb))
        for k in range(nb):
            T[k, k] = t[k]
            if k:
                T[:k, k] = -t[k] * (T[:k, :k] @ G[:k, k])
        blocks.append((i0 + 1, V, T))
    return blocks


def _tridiagonal_path(A: np.ndarray, y: np.ndarray,
                      lams: np.ndarray) -> tuple[NDArray[np.float64], list[int]]:
    """Dual coefficients ``(A + lam I)^{-1} y`` for every lam > 0 from one tridiagonalisation.

    ``A = Q T Q^T`` (Householder, LAPACK ``dsytrd``; about half the work of a
    full eigendecomposition, which would also need the eigenvectors).  Then
    ``(A + lam I)^{-1} y = Q (T + lam I)^{-1} Q^T y``: one O(m) tridiagonal
    Cholesky solve (``dptsv``) per lam and one application of Q to all the
    solutions at once, O(m^2 L).  ``A`` (owned, C-ordered) is destroyed.

    Returns the (m, L) coefficients and the indices of the penalties that
    were not handled (``lam == 0``, or ``T + lam I`` not numerically positive
    definite); their columns are left for the caller to fill.
    """
    m = A.shape[0]
    lwork = int(lapack.dsytrd_lwork(m, lower=1)[0])
    c, dd, e, tau, _ = lapack.dsytrd(A.T, lower=1, lwork=lwork, overwrite_a=1)
    blocks = _wy_blocks(c, tau)
    b = np.array(y, dtype=float)
    for r0, V, T in blocks:  # b <- Q^T y
        b[r0:] -= dot(V, T.T @ dot(V.T, b[r0:]))
    W = np.zeros((m, lams.shape[0]))
    todo = []
    for j, lam in enumerate(lams):
        if lam > 0:
            _, _, x, info = lapack.dptsv(dd + lam, e, b)
            if info == 0:
                W[:, j] = x
                continue
        todo.append(j)
    for r0, V, T in reversed(blocks):  # W <- Q W
        W[r0:] -= dot(V, T @ dot(V.T, W[r0:]))
    return W, todo


def _cv_errors(K: np.ndarray, y: np.ndarray, lams: np.ndarray,
               pairs: list[tuple[np.ndarray, np.ndarray]], who: str) -> NDArray[np.float64]:
    """CV error for every lam from one factorisation per fold (validated input).

    Per fold: the tridiagonal route of :func:`_tridiagonal_path`; penalties it
    does not handle (``lam == 0``, or a training block with ``K + lam I`` not
    numerically positive definite) go through one eigendecomposition of the
    block and the pseudo-inverse, as in :class:`kmlib.krr.KernelRidge`.
    """
    sse = np.zeros(lams.shape[0])
    fallback: set[float] = set()
    todo: list[int]
    for tr, te in pairs:
        if tr.shape[0] < 2:  # nothing to tridiagonalise
            C, todo = _dual_path(K[np.ix_(tr, tr)], y[tr], lams), []
        else:
            C, todo = _tridiagonal_path(K[np.ix_(tr, tr)], y[tr], lams)
        if todo:
            C[:, todo] = _dual_path(K[np.ix_(tr, tr)], y[tr], lams[todo])
            fallback.update(float(lams[j]) for j in todo if lams[j] > 0)
        resid = y[te][:, None] - dot(K[np.ix_(te, tr)], C)
        with np.errstate(over="ignore", invalid="ignore"):
            sse += np.einsum("ij,ij->j", resid, resid)
    if fallback:
        warnings.warn(
            f"{who}: K_train + lam*I was not numerically positive definite on some fold for "
            f"lam in {sorted(fallback)}; those fits used an eigendecomposition and the "
            "minimum-norm solution pinv(K_train + lam*I) @ y_train (as KernelRidge does). "
            "Use larger penalties, or check that the kernel is positive definite.",
            RuntimeWarning,
            stacklevel=3,
        )
    return sse / y.shape[0]   # finite or not: the public callers check


@finite_result
def krr_cv_path(K: ArrayLike, y: ArrayLike, lams: ArrayLike,
                folds: Folds = 5) -> NDArray[np.float64]:
    """v-fold cross-validation error of kernel ridge regression for a grid of penalties.

    Per fold, one tridiagonalisation of the training block
    :math:`K_{tr,tr} = Q\\,T\\,Q^\\top` (LAPACK ``dsytrd``, :math:`O(m^3)`);
    every penalty then costs :math:`O(m)` for the tridiagonal Cholesky solve
    of :math:`(T + \\lambda I) w = Q^\\top y_{tr}`, and the out-of-fold
    predictions :math:`K_{te,tr}\\,Q\\,w` for all penalties together cost
    :math:`O(m^2 L)`.  (This is the eigendecomposition route
    :math:`K_{te,tr}\\,U\\,\\mathrm{diag}(1/(d+\\lambda))\\,U^\\top y_{tr}` stopped
    before its second half: the eigenvectors are never needed.)  ``lam = 0``
    uses one eigendecomposition of the block and the pseudo-inverse.
    The result equals refitting on every fold for every penalty.

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric Gram matrix of all n points; not modified.
    y : array of shape (n,)
        Responses.
    lams : float or array of shape (L,)
        Penalties :math:`\\lambda \\ge 0` (``0``: minimum-norm interpolant).
    folds : int or iterable of (train_idx, test_idx), default 5
        An int v means ``KFold(v, shuffle=True, random_state=0)`` from
        :mod:`kmlib._folds`; otherwise explicit index pairs whose test sets
        partition ``range(n)``.

    Returns
    -------
    cv : ndarray of shape (L,)
        :math:`\\mathrm{CV}(\\lambda_j)`, the mean over all n points of the
        squared out-of-fold error.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.linspace(0, 1, 30)
    >>> K = np.exp(-(x[:, None] - x[None, :]) ** 2 / 0.02)
    >>> cv = krr_cv_path(K, np.sin(6 * x), [1e-3, 1e-1, 10.0], folds=5)
    >>> int(np.argmin(cv)) < 2
    True
    """
    K, y, lams, pairs = check_cv_path(K, y, lams, folds, ("K", "y"), matrix="gram")
    return _cv_errors(K, y, lams, pairs, "krr_cv_path")

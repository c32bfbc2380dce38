"""Fast model selection for kernel ridge regression (chapters 2, 3 and 7).

Also importable from :mod:`kmlib.model_selection` (``model_selection.krr_path``, ...).

All four rest on one observation from chapter 3: with the eigendecomposition
:math:`K = U\\,\\mathrm{diag}(d)\\,U^\\top`, the dual coefficients of kernel
ridge regression are

.. math::

    \\alpha_\\lambda = (K + \\lambda I)^{-1} y
                     = U\\,\\mathrm{diag}\\big(1/(d + \\lambda)\\big)\\,U^\\top y ,

so after one :math:`O(n^3)` factorisation every further value of
:math:`\\lambda` costs only :math:`O(n^2)` (a "spectral filter").  The
penalty convention is the book's: :math:`\\lambda` multiplies
:math:`\\|f\\|_{\\mathcal H}^2` against the *sum* of squared errors.

:func:`krr_cv_path` (and so :func:`tune_krr`) uses a cheaper relative of the
same idea on each training block: the Householder tridiagonalisation
:math:`K_{tr,tr} = Q\\,T\\,Q^\\top` (the first, and dominant, stage of an
eigendecomposition, about half its cost), after which
:math:`(K_{tr,tr} + \\lambda I)^{-1} y_{tr} = Q\\,(T + \\lambda I)^{-1} Q^\\top y_{tr}`
needs only an :math:`O(m)` tridiagonal solve per :math:`\\lambda`.

A value ``lam = 0`` is allowed in :func:`krr_path`, :func:`krr_cv_path` and
:func:`tune_krr` and means the minimum-norm interpolant (pseudo-inverse with
the rank tolerance documented in :mod:`kmlib.krr`), matching
``KernelRidge(kernel, lam=0)``; it is computed through the eigendecomposition
and, being requested explicitly, raises no warning when eigenvalues are
dropped.  A penalty ``lam > 0`` for which a training block ``K + lam I`` is
numerically not positive definite (an indefinite kernel) is handled the same
way, with one :class:`RuntimeWarning`, as in :class:`kmlib.krr.KernelRidge`.

Cross-validation error, as everywhere in kmlib (chapter 2): the mean over all
n points of the squared out-of-fold error,
:math:`\\mathrm{CV}(\\lambda) = \\frac1n\\sum_i (y_i - \\hat f^{(-\\kappa(i))}_\\lambda(x_i))^2`.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import lapack

from .._folds import resolve_folds
from .._validation import (
    check_eigenvalues_psd,
    check_finite_result,
    check_kernel,
    check_lam,
    check_matrix,
    check_same_length,
    check_symmetric,
    check_vector,
    finite_result,
    rank_tol,
)
from ..krr import (
    KernelRidge,
    _check_gram,
    _dot,
    _eigh_owned,
    _gram,
    _pinv_mask,
)

__all__ = ["krr_path", "krr_cv_path", "krr_loo", "tune_krr", "KRRTuningTable"]


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def _check_lams(lams: ArrayLike, name: str = "lams") -> np.ndarray:
    """Return a non-empty 1-D float grid of penalties, each finite and >= 0."""
    if np.ndim(lams) == 0:
        return np.array([check_lam(lams, name)])
    return check_lam(lams, name, allow_array=True)


def _prepare(K: ArrayLike, y: ArrayLike, lams: ArrayLike) -> tuple[np.ndarray, np.ndarray,
             np.ndarray]:
    K = _check_gram(K, "K")
    y = check_vector(y, "y")
    check_same_length(K, y, "K", "y")
    return K, y, _check_lams(lams)


def _inverse_filter(d: np.ndarray, lams: np.ndarray) -> np.ndarray:
    """Matrix ``W[k, j] = 1 / (d_k + lams_j)``, zero where the pseudo-inverse drops it."""
    S = d[:, None] + lams[None, :]
    keep = _pinv_mask(S, d.shape[0])
    W = np.zeros_like(S)
    np.divide(1.0, S, out=W, where=keep)
    return W


def _warn_dropped(d: np.ndarray, lams: np.ndarray, who: str) -> None:
    """The policy of :class:`kmlib.krr.KernelRidge`, shared by every path function.

    A penalty ``lam > 0`` for which ``K + lam I`` is numerically singular is solved
    by the pseudo-inverse, with one :class:`RuntimeWarning` naming the penalties.
    """
    S = d[:, None] + lams[None, :]
    dropped = ~np.all(_pinv_mask(S, d.shape[0]), axis=0) & (lams > 0)
    if np.any(dropped):
        warnings.warn(
            f"{who}: K + lam*I is numerically singular for lam in "
            f"{sorted(float(v) for v in lams[dropped])}; those fits use the minimum-norm "
            "solution pinv(K + lam*I) @ y (as KernelRidge does). Use larger penalties.",
            RuntimeWarning,
            stacklevel=3,
        )


def _dual_path(A: np.ndarray, y: np.ndarray, lams: np.ndarray) -> np.ndarray:
    """Dual coefficients for every penalty from one eigendecomposition.

    ``A`` is the owned (C-ordered, validated) Gram matrix and is destroyed;
    column ``j`` of the result is ``pinv(A + lams[j] I) @ y``.
    """
    d, U = _eigh_owned(A)
    z = _dot(U.T, y)
    return _dot(U, z[:, None] * _inverse_filter(d, lams))


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
        G = _dot(V.T, V)
        t = tau[i0:i1]
        T = np.zeros((nb, nb))
        for k in range(nb):
            T[k, k] = t[k]
            if k:
                T[:k, k] = -t[k] * (T[:k, :k] @ G[:k, k])
        blocks.append((i0 + 1, V, T))
    return blocks


def _tridiagonal_path(A: np.ndarray, y: np.ndarray,
                      lams: np.ndarray) -> tuple[np.ndarray, list[int]]:
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
        b[r0:] -= _dot(V, T.T @ _dot(V.T, b[r0:]))
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
        W[r0:] -= _dot(V, T @ _dot(V.T, W[r0:]))
    return W, todo


def _cv_errors(K: np.ndarray, y: np.ndarray, lams: np.ndarray,
               pairs: list[tuple[np.ndarray, np.ndarray]], who: str) -> np.ndarray:
    """CV error for every lam from one factorisation per fold (validated input).

    Per fold: the tridiagonal route of :func:`_tridiagonal_path`; penalties it
    does not handle (``lam == 0``, or a training block with ``K + lam I`` not
    numerically positive definite) go through one eigendecomposition of the
    block and the pseudo-inverse, as in :class:`kmlib.krr.KernelRidge`.
    """
    sse = np.zeros(lams.shape[0])
    fallback = set()
    for tr, te in pairs:
        if tr.shape[0] < 2:  # nothing to tridiagonalise
            C, todo = _dual_path(K[np.ix_(tr, tr)], y[tr], lams), []
        else:
            C, todo = _tridiagonal_path(K[np.ix_(tr, tr)], y[tr], lams)
        if todo:
            C[:, todo] = _dual_path(K[np.ix_(tr, tr)], y[tr], lams[todo])
            fallback.update(float(lams[j]) for j in todo if lams[j] > 0)
        resid = y[te][:, None] - _dot(K[np.ix_(te, tr)], C)
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
    return check_finite_result(sse / y.shape[0], f"{who}: the cross-validation error")


# ---------------------------------------------------------------------------
# public functions
# ---------------------------------------------------------------------------
@finite_result
def krr_path(K: ArrayLike, y: ArrayLike, lams: ArrayLike) -> np.ndarray:
    """Fitted values of kernel ridge regression for a whole grid of penalties.

    Uses one eigendecomposition :math:`K = U\\,\\mathrm{diag}(d)\\,U^\\top`:
    :math:`K\\alpha_\\lambda = U\\,\\mathrm{diag}(d/(d+\\lambda))\\,U^\\top y`
    (the shrinkage factors of chapter 3).  Total cost :math:`O(n^3 + n^2 L)`
    for ``L`` penalties.

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric Gram matrix of the training inputs; not modified.
    y : array of shape (n,)
        Responses.
    lams : float or array of shape (L,)
        Penalties :math:`\\lambda \\ge 0`; ``0`` gives the projection of ``y``
        onto the numerical range of ``K`` (the minimum-norm interpolant's fit).

    Returns
    -------
    fitted : ndarray of shape (L, n)
        ``fitted[j]`` equals ``K @ krr_fit(K, y, lams[j])``.

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> F = krr_path(K, [1.0, 0.0], [1.0, 10.0])
    >>> np.allclose(F[0], K @ np.linalg.solve(K + np.eye(2), [1.0, 0.0]))
    True
    """
    K, y, lams = _prepare(K, y, lams)
    d, U = _eigh_owned(np.array(K, order="C", copy=True))
    check_eigenvalues_psd(d, "K", who="krr_path")
    _warn_dropped(d, lams, "krr_path")
    G = d[:, None] * _inverse_filter(d, lams)  # d / (d + lam), pseudo-inverse convention
    fitted = _dot(U, _dot(U.T, y)[:, None] * G)  # (n, L), Fortran order
    return check_finite_result(np.ascontiguousarray(fitted.T), "krr_path: the fitted values")


@finite_result
def krr_cv_path(K: ArrayLike, y: ArrayLike, lams: ArrayLike, folds: Any = 5) -> np.ndarray:
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
        An int v means ``KFold(v, shuffle=True, seed=0)`` from
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
    K, y, lams = _prepare(K, y, lams)
    pairs = resolve_folds(folds, y.shape[0])
    return _cv_errors(K, y, lams, pairs, "krr_cv_path")


@finite_result
def krr_loo(K: ArrayLike, y: ArrayLike, lams: ArrayLike) -> np.ndarray:
    """Exact leave-one-out error of kernel ridge regression for a grid of penalties.

    With :math:`\\alpha = (K+\\lambda I)^{-1}y` the leave-one-out residual has
    the closed form

    .. math::

        e_i = \\frac{y_i - \\hat y_i}{1 - H_{ii}}
            = \\frac{\\alpha_i}{[(K + \\lambda I)^{-1}]_{ii}},
        \\qquad H = K (K + \\lambda I)^{-1} = U\\,\\mathrm{diag}(d/(d+\\lambda))\\,U^\\top,

    because :math:`I - H = \\lambda (K+\\lambda I)^{-1}`.  The right-hand form
    is used: the diagonal :math:`[(K+\\lambda I)^{-1}]_{ii} = (U\\circ U)\\,(1/(d+\\lambda))`
    is computed without forming any n-by-n inverse, and it avoids the
    cancellation in :math:`1 - H_{ii}` when :math:`\\lambda` is small.  One
    eigendecomposition serves every penalty: cost :math:`O(n^3 + n^2 L)`.

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric Gram matrix; not modified.
    y : array of shape (n,)
        Responses.
    lams : float or array of shape (L,)
        Penalties; every value must be > 0 (at ``lam = 0`` the fit
        interpolates, :math:`H_{ii} = 1`, and the formula is undefined).

    Returns
    -------
    loo : ndarray of shape (L,)
        :math:`\\frac1n\\sum_i e_i^2` for every penalty.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.linspace(0, 1, 20)
    >>> K = np.exp(-(x[:, None] - x[None, :]) ** 2 / 0.02)
    >>> loo = krr_loo(K, np.sin(6 * x), [1e-2, 1.0])
    >>> loo.shape
    (2,)
    """
    K, y, lams = _prepare(K, y, lams)
    if np.any(lams <= 0):
        raise ValueError(
            f"lams must be > 0 for leave-one-out (at lam = 0 the fit interpolates and "
            f"1 - H_ii = 0); got minimum {float(lams.min())!r}"
        )
    n = K.shape[0]
    if n < 2:
        raise ValueError(f"K must have at least 2 rows for leave-one-out; got {n}")
    d, U = _eigh_owned(np.array(K, order="C", copy=True))
    check_eigenvalues_psd(d, "K", who="krr_loo")
    S = d[:, None] + lams[None, :]
    if not np.all(_pinv_mask(S, n)):
        j = int(np.argmin(np.min(np.abs(S), axis=0)))
        raise ValueError(
            f"krr_loo: K + lam*I is numerically singular for lam={float(lams[j]):g}: K's "
            f"smallest eigenvalue {float(d[0]):.3g} plus lam is within rounding "
            f"({float(rank_tol(S[:, j], n)):.3g}) of zero, so the leave-one-out formula "
            "divides by zero there. Use a larger lam"
        )
    W = 1.0 / S
    alpha = _dot(U, _dot(U.T, y)[:, None] * W)  # (n, L)
    diag_inv = _dot(U * U, W)  # [(K + lam I)^{-1}]_ii, (n, L)
    e = alpha / diag_inv
    with np.errstate(over="ignore"):
        loo = np.einsum("ij,ij->j", e, e) / n
    return check_finite_result(loo, "krr_loo: the leave-one-out error")


@dataclass(frozen=True)
class KRRTuningTable:
    """Cross-validation table returned by :func:`tune_krr`.

    Attributes
    ----------
    params : list
        The kernel hyper-parameters tried, in the order given.
    lams : ndarray of shape (L,)
        The penalties tried.
    cv : ndarray of shape (len(params), L)
        ``cv[i, j]`` is the CV error of ``kernel_factory(params[i])`` with
        penalty ``lams[j]``.
    best_param : object
        The minimising kernel hyper-parameter.
    best_lam : float
        The minimising penalty.
    best_cv : float
        The minimal CV error, ``cv[best_index]``.
    best_index : tuple of int
        Position ``(i, j)`` of the minimum in ``cv``.
    """

    params: list
    lams: np.ndarray
    cv: np.ndarray
    best_param: Any
    best_lam: float
    best_cv: float
    best_index: tuple[int, int]


@finite_result
def tune_krr(X: ArrayLike, y: ArrayLike, kernel_factory: Callable[[Any], Callable[..., Any]],
             params: Iterable[Any], lams: ArrayLike,
             folds: Any = 5) -> tuple[KernelRidge, KRRTuningTable]:
    """Choose a kernel hyper-parameter and the penalty by v-fold cross-validation.

    For each ``p`` in ``params`` the Gram matrix of ``kernel_factory(p)`` is
    computed once and :func:`krr_cv_path` scores every penalty in ``lams`` on
    the *same* folds.  The pair with the smallest CV error wins (ties go to
    the earlier ``p``, then the earlier ``lam``), and a :class:`KernelRidge`
    is refitted on all the data with it.

    Parameters
    ----------
    X : array of shape (n, p), or (n,) for one-dimensional inputs
    y : array of shape (n,)
    kernel_factory : callable
        ``kernel_factory(p)`` returns a kernel callable ``k(X, Y=None)``, e.g.
        ``lambda ell: kmlib.kernels.gaussian(ell)``.
    params : iterable
        Kernel hyper-parameters to try (at least one).
    lams : float or array of shape (L,)
        Penalties :math:`\\lambda \\ge 0` to try.
    folds : int or iterable of (train_idx, test_idx), default 5
        Folds as in :func:`krr_cv_path`; the same folds serve every ``p``.

    Returns
    -------
    model : KernelRidge
        Fitted on all of ``(X, y)`` at ``(best_param, best_lam)``.
    table : KRRTuningTable
        The full CV table and the minimiser.

    Examples
    --------
    >>> import numpy as np
    >>> def gauss(ell):
    ...     def k(A, B=None):
    ...         B = A if B is None else B
    ...         return np.exp(-(A[:, :1] - B[:, 0]) ** 2 / (2 * ell ** 2))
    ...     return k
    >>> x = np.linspace(0, 1, 40)
    >>> model, table = tune_krr(x, np.sin(4 * np.pi * x), gauss, [0.05, 0.1, 0.3],
    ...                         np.logspace(-6, 0, 7))
    >>> table.cv.shape
    (3, 7)
    """
    X = check_matrix(X, "X")
    y = check_vector(y, "y")
    check_same_length(X, y, "X", "y")
    if not callable(kernel_factory):
        raise ValueError(
            "kernel_factory must be a callable p -> kernel, e.g. "
            f"lambda s: kmlib.kernels.gaussian(s); got {type(kernel_factory).__name__}"
        )
    try:
        if isinstance(params, (str, bytes)):
            raise TypeError
        params = list(params)
    except TypeError:
        raise ValueError(
            f"params must be a non-empty sequence of kernel parameters; got {params!r}"
        ) from None
    if not params:
        raise ValueError(
            "params must be a non-empty sequence of kernel parameters; got an empty one"
        )
    lams = _check_lams(lams)
    n = y.shape[0]
    pairs = resolve_folds(folds, n)

    cv = np.empty((len(params), lams.shape[0]))
    for i, p in enumerate(params):
        kernel = check_kernel(kernel_factory(p), f"kernel_factory({p!r})")
        what = f"kernel_factory({p!r})(X)"
        K = _gram(kernel, X, None, (n, n), what)
        check_symmetric(K, what)
        cv[i] = _cv_errors(K, y, lams, pairs, "tune_krr")

    if not np.any(np.isfinite(cv)):
        raise ValueError("every cross-validation error is NaN or infinite; check the kernel")
    i, j = np.unravel_index(np.argmin(np.where(np.isfinite(cv), cv, np.inf)), cv.shape)
    i, j = int(i), int(j)
    model = KernelRidge(kernel_factory(params[i]), float(lams[j])).fit(X, y)
    table = KRRTuningTable(params=params, lams=lams, cv=cv, best_param=params[i],
                           best_lam=float(lams[j]), best_cv=float(cv[i, j]),
                           best_index=(i, j))
    return model, table

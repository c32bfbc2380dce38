"""Fast model selection for kernel ridge regression (chapters 2, 3 and 7).

Public home: :mod:`kmlib.model_selection` re-exports :func:`krr_path`,
:func:`krr_cv_path`, :func:`krr_loo` and :func:`tune_krr`.

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

A value ``lam = 0`` is allowed in :func:`krr_path`, :func:`krr_cv_path` and
:func:`tune_krr` and means the minimum-norm interpolant (pseudo-inverse with
the rank tolerance documented in :mod:`kmlib.krr`), matching
``KernelRidge(kernel, lam=0)``.  The eigendecomposition is the primary route
here, so no warning is issued when eigenvalues are dropped.

Cross-validation error, as everywhere in kmlib (chapter 2): the mean over all
n points of the squared out-of-fold error,
:math:`\\mathrm{CV}(\\lambda) = \\frac1n\\sum_i (y_i - \\hat f^{(-\\kappa(i))}_\\lambda(x_i))^2`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

import numpy as np

from ._folds import resolve_folds
from ._validation import check_kernel, check_lam, check_matrix, check_same_length, check_vector
from .krr import (
    KernelRidge,
    _check_gram,
    _check_symmetric,
    _dot,
    _eigh_owned,
    _gram,
    _pinv_mask,
)

__all__ = ["krr_path", "krr_cv_path", "krr_loo", "tune_krr", "KRRTuningTable"]


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def _check_lams(lams: Any, name: str = "lams") -> np.ndarray:
    """Return a non-empty 1-D float grid of penalties, each finite and >= 0."""
    if np.ndim(lams) == 0:
        return np.array([check_lam(lams, name)])
    return check_lam(lams, name, allow_array=True)


def _prepare(K: Any, y: Any, lams: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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


def _dual_path(A: np.ndarray, y: np.ndarray, lams: np.ndarray) -> np.ndarray:
    """Dual coefficients for every penalty from one eigendecomposition.

    ``A`` is the owned (C-ordered, validated) Gram matrix and is destroyed;
    column ``j`` of the result is ``pinv(A + lams[j] I) @ y``.
    """
    d, U = _eigh_owned(A)
    z = _dot(U.T, y)
    return _dot(U, z[:, None] * _inverse_filter(d, lams))


def _cv_errors(K: np.ndarray, y: np.ndarray, lams: np.ndarray,
               pairs: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """CV error for every lam from one eigendecomposition per fold (validated input)."""
    sse = np.zeros(lams.shape[0])
    for tr, te in pairs:
        A = K[np.ix_(tr, tr)]  # a fresh C-ordered copy that we own
        C = _dual_path(A, y[tr], lams)  # (m, L): alpha for every lam
        resid = y[te][:, None] - _dot(K[np.ix_(te, tr)], C)
        sse += np.einsum("ij,ij->j", resid, resid)
    return sse / y.shape[0]


# ---------------------------------------------------------------------------
# public functions
# ---------------------------------------------------------------------------
def krr_path(K: Any, y: Any, lams: Any) -> np.ndarray:
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
    G = d[:, None] * _inverse_filter(d, lams)  # d / (d + lam), pseudo-inverse convention
    fitted = _dot(U, _dot(U.T, y)[:, None] * G)  # (n, L), Fortran order
    return np.ascontiguousarray(fitted.T)


def krr_cv_path(K: Any, y: Any, lams: Any, folds: Any = 5) -> np.ndarray:
    """v-fold cross-validation error of kernel ridge regression for a grid of penalties.

    Per fold, one eigendecomposition of the training block
    :math:`K_{tr,tr} = U\\,\\mathrm{diag}(d)\\,U^\\top`; every penalty then costs
    :math:`O(m^2)`: the out-of-fold predictions are
    :math:`K_{te,tr}\\,U\\,\\mathrm{diag}(1/(d+\\lambda))\\,U^\\top y_{tr}`.
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
    return _cv_errors(K, y, lams, pairs)


def krr_loo(K: Any, y: Any, lams: Any) -> np.ndarray:
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
    S = d[:, None] + lams[None, :]
    if not np.all(_pinv_mask(S, n)):
        bad = float(lams[np.argmin(np.min(np.abs(S), axis=0))])
        raise ValueError(
            f"K + lam*I is numerically singular for lam={bad:g} (K is not positive "
            "semi-definite); leave-one-out is undefined there"
        )
    W = 1.0 / S
    alpha = _dot(U, _dot(U.T, y)[:, None] * W)  # (n, L)
    diag_inv = _dot(U * U, W)  # [(K + lam I)^{-1}]_ii, (n, L)
    e = alpha / diag_inv
    return np.einsum("ij,ij->j", e, e) / n


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


def tune_krr(X: Any, y: Any, kernel_factory: Callable[[Any], Callable[..., Any]],
             params: Iterable[Any], lams: Any,
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
        _check_symmetric(K, what)
        cv[i] = _cv_errors(K, y, lams, pairs)

    if not np.any(np.isfinite(cv)):
        raise ValueError("every cross-validation error is NaN or infinite; check the kernel")
    i, j = np.unravel_index(np.argmin(np.where(np.isfinite(cv), cv, np.inf)), cv.shape)
    i, j = int(i), int(j)
    model = KernelRidge(kernel_factory(params[i]), float(lams[j])).fit(X, y)
    table = KRRTuningTable(params=params, lams=lams, cv=cv, best_param=params[i],
                           best_lam=float(lams[j]), best_cv=float(cv[i, j]),
                           best_index=(i, j))
    return model, table

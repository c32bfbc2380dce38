"""Choosing a kernel hyper-parameter and the ridge penalty together by cross-validation (chapter 7).

:func:`tune_krr` computes, for each kernel hyper-parameter, the Gram matrix
once and scores every penalty on the same folds with the cross-validation
engine of ``kmlib.model_selection.krr_cv``; it refits a
:class:`kmlib.krr.KernelRidge` at the minimiser and returns the whole table as
a :class:`KRRTuningTable`.  Chapter 7's rate experiments (and its exercise
sheet) choose the length scale and :math:`\\lambda` this way.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Collection

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._estimator_inputs import gram
from .._folds import Folds
from .._validation import (
    check_constraints,
    check_symmetric,
    validate_args,
)
from ..krr import KernelRidge
from ._core import check_cv_path
from .krr_cv import _cv_errors

__all__ = ["tune_krr", "KRRTuningTable"]


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

    params: list[Any]
    lams: NDArray[np.float64]
    cv: NDArray[np.float64]
    best_param: Any
    best_lam: float
    best_cv: float
    best_index: tuple[int, int]


@validate_args({"kernel_factory": ["kernel factory"], "params": ["non-empty collection"]})
def tune_krr(X: ArrayLike, y: ArrayLike, kernel_factory: Callable[[Any], Callable[..., Any]],
             params: Collection[Any], lams: ArrayLike,
             folds: Folds = 5) -> tuple[KernelRidge, KRRTuningTable]:
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
    params : list, tuple or array
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
    X, y, lams, pairs = check_cv_path(X, y, lams, folds)
    params = list(params)

    cv = np.empty((len(params), lams.shape[0]))
    for i, p in enumerate(params):
        kernel = kernel_factory(p)
        check_constraints(f"kernel_factory({p!r})", kernel, ["callable kernel"])
        what = f"kernel_factory({p!r})(X)"
        K = gram(kernel, X, what=what, finite=False)   # check_symmetric checks finiteness
        check_symmetric(K, what)
        cv[i] = _cv_errors(K, y, lams, pairs, "tune_krr")

    if not np.any(np.isfinite(cv)):
        raise ValueError("every cross-validation error is NaN or infinite; check the kernel")
    best = np.unravel_index(np.argmin(np.where(np.isfinite(cv), cv, np.inf)), cv.shape)
    i, j = int(best[0]), int(best[1])
    model = KernelRidge(kernel=kernel_factory(params[i]), lam=float(lams[j])).fit(X, y)
    table = KRRTuningTable(params=params, lams=lams, cv=cv, best_param=params[i],
                           best_lam=float(lams[j]), best_cv=float(cv[i, j]),
                           best_index=(i, j))
    return model, table

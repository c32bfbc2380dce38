"""Kernel ridge regression (chapters 3, 6 and 7 of the book).

The estimator minimises

.. math::

    \\sum_{i=1}^n (y_i - f(x_i))^2 + \\lambda \\|f\\|_{\\mathcal H}^2

over the RKHS of a kernel :math:`k`.  By the representer theorem (chapter 6)
the minimiser is :math:`\\hat f(x) = \\sum_i \\alpha_i k(x, x_i)` with dual
coefficients :math:`\\alpha = (K + \\lambda I)^{-1} y`, the dual form of ridge
regression met in chapter 3.  Note the scaling: :math:`\\lambda` multiplies
the norm against the *sum* (not the mean) of squared errors, exactly like
``alpha`` in :class:`sklearn.kernel_ridge.KernelRidge`.

How the linear system is solved
-------------------------------
* :math:`\\lambda > 0`: a Cholesky factorisation of a private copy of
  :math:`K + \\lambda I` (LAPACK ``dpotrf``/``dpotrs``), never an explicit
  inverse.
* If that copy is numerically not positive definite (``lam`` below rounding
  level, duplicated points, a kernel that is not positive definite), the
  solver falls back to an eigendecomposition :math:`K = U\\,\\mathrm{diag}(d)\\,U^\\top`
  and returns the minimum-norm solution :math:`(K + \\lambda I)^{+} y`, with
  one :class:`RuntimeWarning` saying so.
* :math:`\\lambda = 0` requests the minimum-norm interpolant
  :math:`\\alpha = K^{+} y` (chapter 6, minimum-norm interpolation), computed
  through the eigendecomposition.

Rank tolerance (used by every pseudo-inverse in :mod:`kmlib.krr` and the fast
model-selection paths): an eigenvalue :math:`s_j` of :math:`K + \\lambda I`
is treated as zero when :math:`|s_j| \\le n\\,\\varepsilon\\,\\max_k |s_k|`,
with :math:`\\varepsilon` the float64 machine epsilon.  This is the default
tolerance of :func:`numpy.linalg.matrix_rank`.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable, Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import lapack
from sklearn.base import BaseEstimator, RegressorMixin

from ._estimator_inputs import (
    PairwiseTags,
    fit_gram,
    is_precomputed,
    prediction_gram,
    validate_regression_fit,
)
from ._linalg import dot, eigh_copy, pinv_mask
from ._validation import (
    FiniteResults,
    check_finite_result,
    check_pair,
    finite_result,
    rank_tol,
)
from ._validation.params import NONNEGATIVE, validate_args
from .kernels import Kernel

__all__ = ["KernelRidge", "krr_fit"]


def _solve_shifted(K: np.ndarray, y: np.ndarray, lam: float, who: str,
                   regram: Callable[[], np.ndarray] | None = None,
                   sw: np.ndarray | None = None) -> tuple[np.ndarray, str]:
    """Return ``((K + lam I)^+ y, solver)`` for validated ``K`` (n, n) and ``y`` (n,) or (n, t).

    ``solver`` is ``"cholesky"`` or ``"eigh"``.  ``K`` is not modified, unless the
    caller owns it and passes ``regram``, a function that recomputes it: then the
    Cholesky factorisation runs in place (no n-by-n copy) and, in the rare case
    that it fails, ``regram()`` supplies ``K`` again for the eigendecomposition.
    With ``sw`` (n,), ``K`` stands for ``diag(sw) K diag(sw)`` throughout.
    """
    n = K.shape[0]
    reason = ""
    if lam > 0:
        owned = regram is not None and K.flags.c_contiguous and K.flags.writeable
        A = K if owned else np.array(K, dtype=float, order="C", copy=True)
        if sw is not None:
            A *= sw[:, None]
            A *= sw
        A.flat[:: n + 1] += lam
        # A is symmetric and C-ordered, so A.T is the same matrix in Fortran
        # order and dpotrf factorises it in place.
        c, info = lapack.dpotrf(A.T, lower=1, overwrite_a=1, clean=0)
        if info == 0:
            alpha, info = lapack.dpotrs(c, y, lower=1)
            if info == 0:
                return alpha, "cholesky"
        reason = (f"K + lam*I (lam={lam:g}) is not numerically positive definite "
                  f"(Cholesky failed at leading minor {info} of {n}); ")
        del A, c
        if owned and regram is not None:
            K = regram()
    d, U = eigh_copy(K if sw is None else K * sw[:, None] * sw)
    s = d + lam
    keep = pinv_mask(s, n)
    coef = np.zeros(y.shape)
    z = dot(U.T, y)
    coef[keep] = z[keep] / (s[keep] if y.ndim == 1 else s[keep, None])
    alpha = dot(U, coef)
    n_drop = int(n - np.count_nonzero(keep))
    if lam > 0 or n_drop:
        tol = float(rank_tol(s, n))
        dropped = (f"treating {n_drop} eigenvalue(s) of K + lam*I with |value| <= {tol:.3g} "
                   "as zero")
        if lam > 0:
            msg = (f"{reason}solved by an eigendecomposition instead, {dropped}, i.e. "
                   "returned the minimum-norm solution alpha = pinv(K + lam*I) @ y. Use a "
                   "larger lam, or check that the kernel is positive definite.")
        else:
            msg = (f"lam=0 and K is numerically singular (rank {n - n_drop} of {n}); returned "
                   f"the minimum-norm solution alpha = pinv(K) @ y from an eigendecomposition, "
                   f"{dropped}. The fitted values K @ alpha are the projection of y onto the "
                   "range of K, so they interpolate y only if y lies in that range.")
        warnings.warn(f"{who}: {msg}", RuntimeWarning, stacklevel=3)
    return alpha, "eigh"


# ---------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------
@finite_result
@validate_args({"lam": [NONNEGATIVE]})
def krr_fit(K: ArrayLike, y: ArrayLike, lam: float) -> np.ndarray:
    """Dual coefficients of kernel ridge regression from a precomputed Gram matrix.

    Solves :math:`(K + \\lambda I)\\alpha = y` with the solver of :class:`KernelRidge`
    (described in the module docstring).

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric Gram matrix :math:`K_{ij} = k(x_i, x_j)`; not modified.
    y : array of shape (n,)
        Responses.
    lam : float
        Penalty :math:`\\lambda \\ge 0`, as in :class:`KernelRidge`.

    Returns
    -------
    alpha : ndarray of shape (n,)
        Dual coefficients; the fitted values are ``K @ alpha``.

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> alpha = krr_fit(K, [1.0, 0.0], lam=1.0)
    >>> np.allclose((K + np.eye(2)) @ alpha, [1.0, 0.0])
    True
    """
    K, y = check_pair(K, y, ("K", "y"), matrix="gram")
    alpha, _ = _solve_shifted(K, y, float(lam), "krr_fit")
    return alpha


class KernelRidge(FiniteResults, PairwiseTags, RegressorMixin, BaseEstimator):
    """Kernel ridge regression, :math:`\\alpha = (K + \\lambda I)^{-1} y`.

    Minimises :math:`\\sum_i w_i (y_i - f(x_i))^2 + \\lambda\\|f\\|_{\\mathcal H}^2`
    (weights :math:`w_i` = ``sample_weight``, default 1) and predicts with
    :math:`\\hat f(x) = \\sum_i \\alpha_i k(x, x_i)`, where
    :math:`\\alpha = W^{1/2}(W^{1/2} K W^{1/2} + \\lambda I)^{-1} W^{1/2} y`,
    :math:`W = \\mathrm{diag}(w)`, as in scikit-learn.  With ``lam=0`` it returns
    the minimum-norm interpolant :math:`\\alpha = K^+ y`.  See the module docstring
    for the solver and its rank tolerance.

    Parameters
    ----------
    kernel : callable or "precomputed"
        ``kernel(X, Y=None)`` returning the Gram matrix between the rows of
        ``X`` and ``Y`` (of ``X`` with itself when ``Y`` is None), e.g.
        ``kmlib.kernels.gaussian(sigma)``.  With ``"precomputed"``, :meth:`fit` takes
        the Gram matrix (n, n) and :meth:`predict` the cross Gram matrix (m, n).
    lam : float, default 1.0
        Penalty :math:`\\lambda \\ge 0` (same scaling as scikit-learn's
        ``alpha``: it multiplies the norm against the *sum* of squared errors).

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n,), or (n, t) for t outputs
        The dual coefficients :math:`\\alpha`.
    X_fit_ : ndarray of shape (n, p) or None
        The training inputs (a copy), needed to evaluate :math:`\\hat f` (None if precomputed).
    solver_ : str
        ``"cholesky"`` or ``"eigh"`` (the pseudo-inverse route).
    n_features_in_ : int
        Number of columns of the training inputs.
    feature_names_in_ : ndarray of str
        Column names of a training DataFrame (only then), checked in :meth:`predict`.

    Notes
    -----
    A scikit-learn estimator: ``clone``, ``GridSearchCV`` (e.g. over
    ``{"lam": [...]}`` or ``{"kernel": [...]}``), ``Pipeline`` and
    ``cross_val_score`` work with it.  Unlike scikit-learn, a 1-D ``X`` is read as
    n points on the line (the book's convention for functions on an interval).

    Examples
    --------
    >>> import numpy as np
    >>> linear = lambda X, Y=None: X @ (X if Y is None else Y).T
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> model = KernelRidge(kernel=linear, lam=1e-9).fit(X, 2 * X[:, 0])
    >>> np.round(model.predict([[3.0]]), 6)
    array([6.])
    """

    _parameter_constraints = {"kernel": ["kernel"], "lam": [NONNEGATIVE]}

    def __init__(self, *, kernel: Callable[..., Any] | Literal["precomputed"],
                 lam: float = 1.0) -> None:
        self.kernel = kernel
        self.lam = lam

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
            ) -> "KernelRidge":
        """Fit the dual coefficients on training data.

        Parameters
        ----------
        X : array of shape (n, p), (n,) for one-dimensional inputs, or (n, n) if precomputed
        y : array of shape (n,), or (n, t) for t outputs (one factorisation for all,
            as scikit-learn's ``KernelRidge``)
        sample_weight : array of shape (n,) or float, optional
            Weights :math:`w_i \\ge 0` of the squared errors; None means all ones.

        Returns
        -------
        self : KernelRidge
        """
        X, y, w = validate_regression_fit(self, X, y, sample_weight, accept_sparse=True)
        kernel, lam, pre = self.kernel, float(self.lam), is_precomputed(self.kernel)
        multi = y.ndim == 2
        sw = None if w is None else np.sqrt(w)

        def gram_matrix() -> np.ndarray:
            return fit_gram(kernel, X, "KernelRidge.fit")

        owned = isinstance(kernel, Kernel)  # fresh K; a user's kernel may return a cached array
        swy = None if sw is None else (sw[:, None] if multi else sw)
        alpha, self.solver_ = _solve_shifted(gram_matrix(), y if sw is None else swy * y, lam,
                                             "KernelRidge.fit", gram_matrix if owned else None, sw)
        alpha = alpha if sw is None else swy * alpha
        self.dual_coef_ = check_finite_result(alpha, "KernelRidge.fit: the dual coefficients")
        self.X_fit_ = None if pre else X.copy()
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Evaluate :math:`\\hat f(x) = \\sum_i \\alpha_i k(x, x_i)` at the rows of ``X``.

        Parameters
        ----------
        X : array of shape (m, p), (m,) for one-dimensional inputs, or (m, n) if precomputed

        Returns
        -------
        y_pred : ndarray of shape (m,), or (m, t) for t outputs
        """
        Kx = prediction_gram(self, X, "dual_coef_")
        return dot(Kx, self.dual_coef_)

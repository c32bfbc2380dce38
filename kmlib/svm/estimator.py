r"""The kernel SVM estimator and the book's box constant :math:`C = 1/(2\lambda)` (chapter 8).

The problem and the solver are described in :mod:`kmlib.svm`.
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Callable, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.exceptions import ConvergenceWarning

from .._estimator_inputs import (
    BinaryKernelClassifier,
    fit_inputs,
)
from .._validation import (
    check_gram_psd,
    finite_result,
)
from .._validation.params import POSITIVE, POSITIVE_INT, Interval, Real, validate_args
from .smo import _Rows, _smo


@finite_result
@validate_args({"lam": [POSITIVE]})
def C_from_lam(lam: float) -> float:
    r"""Box constant C of the dual SVM that matches the penalty ``lam`` of the book.

    Dividing the book's objective :math:`\sum_i \xi_i + \lambda\|f\|^2` by
    :math:`2\lambda` gives :math:`\tfrac12\|f\|^2 + \tfrac{1}{2\lambda}\sum_i \xi_i`,
    the standard C-SVM primal, hence :math:`C = 1/(2\lambda)`.

    Parameters
    ----------
    lam : float
        Penalty :math:`\lambda > 0` on :math:`\|f\|_{\mathcal H}^2`.

    Returns
    -------
    float
        :math:`C = 1/(2\lambda)`.
    """
    return 1.0 / (2.0 * lam)


class KernelSVM(BinaryKernelClassifier):
    r"""C-support vector classifier with an intercept, fitted by SMO.

    Solves :math:`\max_a \sum_i a_i - \tfrac12\sum_{ij} a_i a_j y_i y_j K_{ij}`
    subject to :math:`0 \le a_i \le C` and :math:`\sum_i a_i y_i = 0`, and predicts
    with :math:`f(x) = \sum_i a_i y_i k(x, x_i) + b`.  The book's penalised form
    :math:`\sum_i (1 - y_i f(x_i))_+ + \lambda\|f\|^2_{\mathcal H}` is the same problem
    with :math:`C = 1/(2\lambda)` (:func:`C_from_lam` derives it).

    Parameters
    ----------
    kernel : callable or "precomputed"
        A kernel ``k(X, Y=None)`` returning the Gram matrix, e.g.
        ``kmlib.kernels.gaussian(1.0)``.  With ``"precomputed"``, :meth:`fit`
        takes the training Gram matrix K (n, n) and :meth:`decision_function`
        takes the cross Gram matrix (m, n_train) between test and training points.
    C : float
        Box constant, > 0; ``np.inf`` is the hard margin (for separable data: otherwise SMO
        stops at ``max_iter``).  Every other kmlib estimator takes the book's penalty
        :math:`\lambda`; SMO works on the dual, where :math:`C` (the bound on each
        :math:`a_i`) is the natural parameter, as in LIBSVM and scikit-learn's ``SVC``.
        Pass ``C=KernelSVM.C_from_lam(lam)`` for the book's :math:`\lambda`.
    tol : float
        Stopping tolerance on the maximal KKT violation :math:`m(a) - M(a)`.
    max_iter : int
        Maximal number of SMO iterations; reaching it raises a
        :class:`sklearn.exceptions.ConvergenceWarning` and keeps the current iterate.

    Attributes
    ----------
    support_ : ndarray of int
        Indices of the training points with :math:`a_i > 0`.
    dual_coef_ : ndarray
        :math:`a_i y_i` for the support vectors.
    intercept_ : float
        The intercept b.
    n_iter_ : int
        Number of SMO iterations.
    objective_ : float
        The dual objective :math:`\sum a_i - \tfrac12 \sum a_i a_j y_i y_j K_{ij}`
        at the solution.
    support_vectors_ : ndarray or None
        Training points with :math:`a_i > 0` (None with a precomputed kernel).
    X_fit_ : ndarray or None
        Training inputs (None with a precomputed kernel).
    classes_ : ndarray of shape (2,)
        The two labels; the book's :math:`y_i = \pm 1` is -1 for ``classes_[0]``
        and +1 for ``classes_[1]``.
    n_features_in_ : int
        Number of columns of the training ``X`` (n_train when precomputed).

    Notes
    -----
    With a callable kernel the Gram matrix is never formed: SMO asks for the
    rows of the points it selects, which are computed by ``kernel(X[rows], X)``
    (for kmlib's Gaussian, Laplacian, Matern and squared-distance kernels, from the
    centred points and their squared norms prepared once), a few at a time (a missing
    row with that of the worst KKT violator), and cached (as LIBSVM's kernel cache
    does), plus the diagonal.  At n = 5000 this
    is several times faster than evaluating all n^2 entries.  With
    ``kernel="precomputed"`` the rows are views of the given matrix.  The
    solver itself is :func:`smo_solve`; multiclass problems go through
    scikit-learn's ``OneVsRestClassifier`` or ``OneVsOneClassifier``.
    """

    _parameter_constraints = {"kernel": ["kernel"], "tol": [POSITIVE], "max_iter": [POSITIVE_INT],
                              "C": [Interval(Real, 0, math.inf, closed="right")]}

    def __init__(self, *, kernel: Callable[..., Any] | Literal["precomputed"], C: float = 1.0,
                 tol: float = 1e-3, max_iter: int = 100_000) -> None:
        self.kernel = kernel
        self.C = C
        self.tol = tol
        self.max_iter = max_iter

    @classmethod
    def C_from_lam(cls, lam: float) -> float:
        r"""Return :math:`C = 1/(2\lambda)` for the book's penalty ``lam``.

        See :func:`C_from_lam` for the derivation.
        """
        return C_from_lam(lam)

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
            ) -> "KernelSVM":
        """Fit the SVM by SMO.

        Parameters
        ----------
        X : array of shape (n, d), or (n, n) Gram matrix if ``kernel="precomputed"``
            Training inputs.  With a callable kernel the Gram matrix is never
            formed: only the rows SMO selects are evaluated (see Notes).
        y : array of shape (n,)
            Two distinct class labels (e.g. -1 and 1, 0 and 1, or two strings),
            coded -1 for ``classes_[0]`` and +1 for ``classes_[1]``; both must be present.
        sample_weight : array of shape (n,) or float, optional
            Weights :math:`w_i \\ge 0`: point i gets the box constant :math:`C w_i`, as in
            scikit-learn's ``SVC`` (its slack costs :math:`C w_i`).

        Returns
        -------
        self : KernelSVM
        """
        K, X_fit, y, classes, w = fit_inputs(self, X, y, sample_weight, need_gram=False)
        C, tol, max_iter = float(self.C), float(self.tol), int(self.max_iter)
        if X_fit is None:
            K = np.ascontiguousarray(K)
            rows = _Rows.of_matrix(K)
        else:
            rows = _Rows.of_kernel(self.kernel, X_fit)  # type: ignore[arg-type]  # not precomputed
            check_gram_psd(rows.diag, "kernel(X)", who="KernelSVM.fit")  # O(n), never n x n
        if w is not None:  # C * w, with inf * 0 = 0 (a point of weight 0 plays no part)
            C = np.where(w > 0, C, 0.0) * w
        a, b, objective, n_iter, converged = _smo(rows, y, C, tol, max_iter)
        if not converged:
            warnings.warn(
                f"KernelSVM: SMO stopped after max_iter={max_iter} iterations before the "
                f"KKT violation fell below tol={tol:g}; the returned solution is approximate. "
                "Increase max_iter or tol.",
                ConvergenceWarning,
                stacklevel=2,
            )
        sv = np.flatnonzero(a > 0.0)
        self.support_ = sv
        self.dual_coef_ = a[sv] * y[sv]
        self.intercept_ = float(b)
        self.n_iter_ = int(n_iter)
        self.objective_ = objective
        self._store_training(K, X_fit, y, classes)
        self.support_vectors_ = None if X_fit is None else X_fit[sv]
        return self

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        r"""Evaluate :math:`f(x) = \sum_{i \in SV} a_i y_i k(x, x_i) + b`.

        Parameters
        ----------
        X : array of shape (m, d), or (m, n_train) if ``kernel="precomputed"``
            Test inputs, or the Gram matrix between test and all training
            points (only the support vectors' columns are read).

        Returns
        -------
        ndarray of shape (m,)
        """
        return self._decision(X, keep="support_")

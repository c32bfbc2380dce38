r"""The kernel support vector machine, solved in the dual by SMO (chapter 8).

Chapter 8 of the book writes the kernel SVM in its penalised form

.. math::

    \min_{\mu, f}\; \sum_i \bigl(1 - y_i(\mu + f(x_i))\bigr)_+ + \lambda \|f\|_{\mathcal H}^2 ,

and solves it through the dual with box constant :math:`C = 1/(2\lambda)`:

.. math::

    \max_a\; \sum_i a_i - \tfrac12 \sum_{i,j} a_i a_j y_i y_j K_{ij}
    \quad\text{subject to}\quad 0 \le a_i \le C,\; \sum_i a_i y_i = 0 .

The solver is sequential minimal optimisation (SMO) with the second-order
working-set selection of Fan, Chen & Lin (JMLR 6, 2005), the rule used by
LIBSVM.  Its Python loop runs over *iterations*; all work inside one iteration
is a handful of vectorised numpy passes over length-n arrays.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin

from ._estimator_inputs import (
    check_both_labels,
    check_solver_params,
    check_symmetric,
    fit_inputs,
    gram,
    is_precomputed,
    prediction_gram,
)
from ._validation import (
    check_fitted,
    check_gram_psd,
    check_int,
    check_labels,
    check_positive,
    check_same_length,
    check_square,
    finite_result,
)

__all__ = ["KernelSVM", "C_from_lam", "smo_solve"]

#: Curvature floor of Fan, Chen & Lin (their tau): keeps the two-variable
#: sub-problem strictly convex when the kernel matrix is not positive definite.
_TAU = 1e-12


@finite_result
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
    lam = check_positive(lam, "lam")
    return 1.0 / (2.0 * lam)


@finite_result
def smo_solve(K: np.ndarray, y: np.ndarray, C: float, tol: float = 1e-3,
              max_iter: int = 100_000) -> tuple[np.ndarray, float, float, int, bool]:
    r"""Solve the C-SVM dual on a kernel matrix by SMO with second-order working-set selection.

    Minimises :math:`\tfrac12 a^\top Q a - \mathbf 1^\top a` with
    :math:`Q_{ij} = y_i y_j K_{ij}` over :math:`0 \le a \le C`, :math:`y^\top a = 0`
    (the negative of the dual objective).  :class:`KernelSVM` is the estimator
    built on it; this function is the bare solver for a given Gram matrix.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric kernel matrix; it is read, never written.
    y : ndarray of shape (n,)
        Labels in {-1, 1}, both present.
    C : float
        Box constant, > 0.
    tol : float
        Stop when the maximal KKT violation :math:`m(a) - M(a)` is below ``tol``.
    max_iter : int
        Maximal number of SMO iterations.

    Returns
    -------
    a : ndarray of shape (n,)
        The dual variables.
    b : float
        The intercept.
    objective : float
        The dual objective :math:`\sum_i a_i - \tfrac12 a^\top Q a` at ``a``.
    n_iter : int
        Number of two-variable updates performed.
    converged : bool
        Whether the stopping rule was met within ``max_iter`` iterations.
    """
    K = check_square(K, "K")
    y = check_labels(y)
    check_same_length(K, y, "K", "y")
    check_symmetric(K, "K")
    check_gram_psd(K, "K", who="smo_solve")
    check_both_labels(y)
    C = check_positive(C, "C")
    tol = check_positive(tol, "tol")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    K = np.ascontiguousarray(K)
    return _smo(K.__getitem__, np.diagonal(K).copy(), y, C, tol, max_iter)


def _smo(row: Callable[[int], np.ndarray], diag: np.ndarray, y: np.ndarray, C: float,
         tol: float, max_iter: int) -> tuple[np.ndarray, float, float, int, bool]:
    r"""SMO on a kernel matrix given by its rows ``row(i)`` and its diagonal.

    Notes
    -----
    Write :math:`G = Qa - \mathbf 1` for the gradient and keep instead
    :math:`g = -y \odot G`, so that :math:`g_t = y_t - (K(a\odot y))_t`, i.e.
    :math:`g_t = y_t - (f(x_t) - b)`.  With
    :math:`I_{up} = \{t: a_t < C, y_t = 1\} \cup \{t: a_t > 0, y_t = -1\}` and
    :math:`I_{low} = \{t: a_t < C, y_t = -1\} \cup \{t: a_t > 0, y_t = 1\}`, the
    KKT conditions read :math:`m(a) = \max_{I_{up}} g \le M(a) = \min_{I_{low}} g`.

    One iteration picks :math:`i = \arg\max_{I_{up}} g` and, among
    :math:`t \in I_{low}` with :math:`g_t < g_i`, the :math:`j` maximising the
    second-order gain :math:`b_{it}^2 / a_{it}` with :math:`b_{it} = g_i - g_t` and
    :math:`a_{it} = \max(K_{ii} + K_{tt} - 2K_{it}, \tau)`.  Moving along the
    feasible direction :math:`a_i \mathrel{+}= y_i s`, :math:`a_j \mathrel{-}= y_j s`
    (which keeps :math:`y^\top a` fixed) changes the objective by
    :math:`-b_{ij}s + \tfrac12 a_{ij}s^2`, so the best step is
    :math:`s = b_{ij}/a_{ij}`, clipped to the box.  The gradient update is then
    :math:`g \mathrel{-}= s\,(K_{i\cdot} - K_{j\cdot})`: two kernel rows (rows equal
    columns since K is symmetric, and rows are contiguous in memory).
    """
    n = y.shape[0]
    a = np.zeros(n)
    g = y.astype(float).copy()              # a = 0  =>  G = -1  =>  g = y
    pos = y > 0
    # Membership of I_up / I_low as additive masks (0 inside, -inf outside), so
    # that "argmax over the set" is one in-place add followed by np.argmax.
    up_pen = np.where(pos, 0.0, -np.inf)
    low_pen = np.where(pos, -np.inf, 0.0)
    buf = np.empty(n)
    bvec = np.empty(n)
    curv = np.empty(n)
    ylist = y.tolist()
    neg_inf = -np.inf
    converged = False
    n_iter = 0

    for n_iter in range(max_iter + 1):
        np.add(g, up_pen, out=buf)
        i = int(np.argmax(buf))
        m = buf[i]
        np.subtract(m, g, out=bvec)
        bvec += low_pen                     # b_t = m - g_t on I_low, -inf elsewhere
        if m == neg_inf or bvec.max() < tol:  # max(b) = m(a) - M(a)
            converged = True
            break
        if n_iter == max_iter:
            break
        Ki = row(i)
        np.multiply(Ki, -2.0, out=curv)
        curv += diag
        curv += diag[i]
        np.maximum(curv, _TAU, out=curv)    # a_it with Fan-Chen-Lin's tau safeguard
        np.maximum(bvec, 0.0, out=bvec)     # only t with g_t < m are candidates
        np.multiply(bvec, bvec, out=buf)
        buf /= curv
        j = int(np.argmax(buf))

        # Analytic two-variable update along a_i += y_i s, a_j -= y_j s.
        yi, yj = ylist[i], ylist[j]
        ai, aj = a[i], a[j]
        s_i = C - ai if yi > 0 else ai      # room for a_i to move
        s_j = C - aj if yj < 0 else aj      # room for a_j to move
        s = (m - g[j]) / curv[j]
        if s >= s_i and s_i <= s_j:         # a_i hits its bound first
            s = s_i
            ai_new = C if yi > 0 else 0.0
            aj_new = aj - yj * s
            if s == s_j:
                aj_new = C if yj < 0 else 0.0
        elif s >= s_j:                      # a_j hits its bound first
            s = s_j
            ai_new = ai + yi * s
            aj_new = C if yj < 0 else 0.0
        else:
            ai_new = ai + yi * s
            aj_new = aj - yj * s
        a[i] = ai_new
        a[j] = aj_new
        for t, at, yt in ((i, ai_new, yi), (j, aj_new, yj)):
            in_up = (at < C) if yt > 0 else (at > 0.0)
            in_low = (at > 0.0) if yt > 0 else (at < C)
            up_pen[t] = 0.0 if in_up else neg_inf
            low_pen[t] = 0.0 if in_low else neg_inf
        np.subtract(Ki, row(j), out=buf)
        buf *= s
        g -= buf

    # Dual objective from the maintained gradient: with c = a*y, Kc = y - g, so
    # sum(a) - c'Kc/2 = sum(a) - sum(a * (1 - y*g))/2.  (The incremental updates
    # drift by about n_iter * 1e-16, far below any useful tol.)
    objective = float(np.sum(a) - 0.5 * np.dot(a, 1.0 - y * g))
    free = (a > 0.0) & (a < C)
    if np.any(free):
        b = float(np.mean(g[free]))         # y_t f(x_t) = 1 on free vectors => b = g_t
    else:
        # No free support vector: KKT only place b between m(a) and M(a);
        # take the midpoint, as LIBSVM does.
        up = np.isfinite(up_pen)
        low = np.isfinite(low_pen)
        m_up = float(np.max(g[up])) if np.any(up) else float(np.min(g[low]))
        M_low = float(np.min(g[low])) if np.any(low) else m_up
        b = 0.5 * (m_up + M_low)
    return a, b, objective, n_iter, converged


class _LazyRows:
    """Rows of the Gram matrix of ``X`` computed on demand and cached.

    SMO touches only the rows of the points it selects (a few hundred to a few
    thousand of them), so evaluating rows lazily avoids the O(n^2) cost of the
    full Gram matrix, as LIBSVM's kernel cache does.  The cache holds at most
    ``max_bytes`` of rows and forgets the oldest row first.
    """

    def __init__(self, kernel: Any, X: np.ndarray, max_bytes: float = 5e8) -> None:
        self.kernel = kernel
        self.X = X
        self.n = X.shape[0]
        self.cache: dict[int, np.ndarray] = {}
        self.max_rows = max(2, int(max_bytes // (8 * self.n)))

    def __call__(self, i: int) -> np.ndarray:
        r = self.cache.get(i)
        if r is None:
            r = gram(self.kernel, self.X[i:i + 1], self.X)[0]
            if len(self.cache) >= self.max_rows:
                del self.cache[next(iter(self.cache))]
            self.cache[i] = r
        return r

    def diagonal(self, block: int = 256) -> np.ndarray:
        """k(x_t, x_t) for every t, from blocks of the Gram matrix (O(n * block) work)."""
        d = np.empty(self.n)
        for s in range(0, self.n, block):
            Xb = self.X[s:s + block]
            d[s:s + len(Xb)] = np.diagonal(gram(self.kernel, Xb, Xb))
        return d


class KernelSVM(ClassifierMixin, BaseEstimator):
    r"""C-support vector classifier with an intercept, fitted by SMO.

    Solves :math:`\max_a \sum_i a_i - \tfrac12\sum_{ij} a_i a_j y_i y_j K_{ij}`
    subject to :math:`0 \le a_i \le C` and :math:`\sum_i a_i y_i = 0`, and predicts
    with :math:`f(x) = \sum_i a_i y_i k(x, x_i) + b`.

    The book's penalised form :math:`\sum_i (1 - y_i f(x_i))_+ + \lambda\|f\|^2_{\mathcal H}`
    is the same problem with :math:`C = 1/(2\lambda)`: dividing it by
    :math:`2\lambda` gives :math:`\tfrac12\|f\|^2 + \tfrac{1}{2\lambda}\sum_i\xi_i`,
    the primal whose dual is above.  Use :meth:`C_from_lam` or :func:`C_from_lam`.

    Parameters
    ----------
    kernel : callable or "precomputed"
        A kernel ``k(X, Y=None)`` returning the Gram matrix, e.g.
        ``kmlib.kernels.gaussian(1.0)``.  With ``"precomputed"``, :meth:`fit`
        takes the training Gram matrix K (n, n) and :meth:`decision_function`
        takes the cross Gram matrix (m, n_train) between test and training points.
    C : float
        Box constant, > 0.  Why ``C`` here and ``lam`` in
        :class:`~kmlib.logistic.KernelLogisticRegression` and
        :class:`~kmlib.krr.KernelRidge`: every kmlib estimator takes the book's
        penalty :math:`\lambda` except this one, whose algorithm (SMO) works on the
        dual, where :math:`C` is the natural parameter (the bound on each
        :math:`a_i`), as in LIBSVM and scikit-learn's ``SVC``.  Use
        ``C=KernelSVM.C_from_lam(lam)`` to pass the book's :math:`\lambda`.
    tol : float
        Stopping tolerance on the maximal KKT violation :math:`m(a) - M(a)`.
    max_iter : int
        Maximal number of SMO iterations; reaching it raises a
        :class:`RuntimeWarning` and keeps the current iterate.

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
    rows of the points it selects, which are computed by ``kernel(x_i, X)`` and
    cached (as LIBSVM's kernel cache does), plus the diagonal.  At n = 5000 this
    is several times faster than evaluating all n^2 entries.  With
    ``kernel="precomputed"`` the rows are views of the given matrix.  The
    solver itself is :func:`smo_solve`.
    """

    def __init__(self, kernel: Any, C: float = 1.0, tol: float = 1e-3,
                 max_iter: int = 100_000) -> None:
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

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # two classes (see classes_)
        tags.input_tags.pairwise = is_precomputed(self.kernel)
        return tags

    def _check_params(self) -> tuple[float, float, int]:
        tol, max_iter = check_solver_params(self.kernel, self.tol, self.max_iter)
        return check_positive(self.C, "C"), tol, max_iter

    def fit(self, X: ArrayLike, y: ArrayLike) -> "KernelSVM":
        """Fit the SVM by SMO.

        Parameters
        ----------
        X : array of shape (n, d), or (n, n) Gram matrix if ``kernel="precomputed"``
            Training inputs.  With a callable kernel the Gram matrix is never
            formed: only the rows SMO selects are evaluated (see Notes).
        y : array of shape (n,)
            Two distinct class labels (e.g. -1 and 1, 0 and 1, or two strings),
            coded -1 for ``classes_[0]`` and +1 for ``classes_[1]``; both must be present.

        Returns
        -------
        self : KernelSVM
        """
        C, tol, max_iter = self._check_params()
        K, X_fit, y, classes = fit_inputs(self.kernel, X, y, need_gram=False)
        if X_fit is None:
            K = np.ascontiguousarray(K)
            check_gram_psd(K, "X", who="KernelSVM.fit")
            row, diag = K.__getitem__, np.diagonal(K).copy()
        else:
            rows = _LazyRows(self.kernel, X_fit)
            row, diag = rows, rows.diagonal()
            check_gram_psd(np.diag(diag), "kernel(X)", who="KernelSVM.fit")
        a, b, objective, n_iter, converged = _smo(row, diag, y, C, tol, max_iter)
        if not converged:
            warnings.warn(
                f"KernelSVM: SMO stopped after max_iter={max_iter} iterations before the "
                f"KKT violation fell below tol={tol:g}; the returned solution is approximate. "
                "Increase max_iter or tol.",
                RuntimeWarning,
                stacklevel=2,
            )
        sv = np.flatnonzero(a > 0.0)
        self.support_ = sv
        self.dual_coef_ = a[sv] * y[sv]
        self.intercept_ = float(b)
        self.n_iter_ = int(n_iter)
        self.objective_ = objective
        self.X_fit_ = X_fit
        self.support_vectors_ = None if X_fit is None else X_fit[sv]
        self.n_train_ = int(len(y))
        self.classes_ = classes
        self.n_features_in_ = int(K.shape[1] if X_fit is None else X_fit.shape[1])
        return self

    @finite_result
    def decision_function(self, X: ArrayLike) -> np.ndarray:
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
        check_fitted(self, "dual_coef_")
        Kt = prediction_gram(self.kernel, X, self.X_fit_, self.n_train_, keep=self.support_,
                             who=type(self).__name__)
        return Kt @ self.dual_coef_ + self.intercept_

    @finite_result
    def predict(self, X: ArrayLike) -> np.ndarray:
        r"""Predicted labels: ``classes_[1]`` where :math:`f(x) \ge 0`, else ``classes_[0]``.

        With labels -1 and 1 this is :math:`\operatorname{sign} f(x)` (ties go to +1).

        Parameters
        ----------
        X : array of shape (m, d), or (m, n_train) if ``kernel="precomputed"``

        Returns
        -------
        ndarray of shape (m,)
        """
        positive = self.decision_function(X) >= 0.0
        return self.classes_[positive.astype(int)]

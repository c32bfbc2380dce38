r"""Kernel logistic regression fitted by a damped Newton method (chapter 8).

Chapter 8 of the book fits

.. math::

    \min_{\mu, f}\; \sum_{i=1}^n \log\bigl(1 + e^{-y_i(\mu + f(x_i))}\bigr)
    + \lambda \|f\|_{\mathcal H}^2 ,

with an unpenalised intercept :math:`\mu`.  By the representer theorem
:math:`f = \sum_j \alpha_j k(\cdot, x_j)`, so the problem is smooth and convex in
:math:`(\alpha, \mu)`:

.. math::

    J(\alpha, \mu) = \sum_i \log\bigl(1 + e^{-y_i(\mu + (K\alpha)_i)}\bigr)
    + \lambda\, \alpha^\top K \alpha .

With the linear kernel this is ridge-penalised logistic regression, i.e.
scikit-learn's ``LogisticRegression(C=1/(2*lam))`` with ``w = X^T alpha``.
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from scipy.linalg import blas, lapack, lu_factor, lu_solve
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin

from ._estimator_inputs import check_solver_params, fit_inputs, is_precomputed, prediction_gram
from ._validation import (
    check_fitted,
    check_gram_psd,
    check_labels,
    check_lam,
    check_same_length,
    check_square,
    finite_result,
)

__all__ = ["KernelLogisticRegression", "logistic_objective"]

_ARMIJO = 1e-4          # sufficient-decrease constant of the line search
_MIN_STEP = 2.0 ** -40  # give up backtracking below this step length
_F32_COND = 1e4         # factor B in float32 when its condition number is below this
_LOWRANK_REL = 1e-6     # accuracy of B from a low-rank factor of K (relative, in norm)
_LOWRANK_MIN_N = 200    # below this n the dense factorisation is cheap anyway
_STALL_ITERS = 10       # give up after this many iterations without halving the gradient


@finite_result
def logistic_objective(K: Any, y: Any, alpha: Any, mu: float, lam: float) -> float:
    r"""Penalised logistic objective :math:`J(\alpha, \mu)` on a Gram matrix.

    .. math::

        J(\alpha, \mu) = \sum_i \log\bigl(1 + e^{-y_i(\mu + (K\alpha)_i)}\bigr)
        + \lambda \alpha^\top K \alpha ,

    evaluated stably as ``logaddexp(0, -margin)``.

    Parameters
    ----------
    K : array of shape (n, n)
        Gram matrix of the training points.
    y : array of shape (n,)
        Labels in {-1, 1}.
    alpha : array of shape (n,)
        Representer coefficients.
    mu : float
        Intercept.
    lam : float
        Penalty :math:`\lambda \ge 0`.

    Returns
    -------
    float
    """
    K = check_square(K, "K")
    y = check_labels(y)
    alpha = _check_len(alpha, "alpha", K.shape[0])
    check_same_length(K, y, "K", "y")
    lam = check_lam(lam)
    Ka = K @ alpha
    return _objective(Ka, alpha, float(mu), y, lam)


def _check_len(v: Any, name: str, n: int) -> np.ndarray:
    """Return ``v`` as a finite float vector of length ``n``."""
    v = np.asarray(v, dtype=float).reshape(-1)
    if v.shape[0] != n:
        raise ValueError(f"{name} must have length {n}; got {v.shape[0]}")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return v


def _objective(Ka: np.ndarray, alpha: np.ndarray, mu: float, y: np.ndarray,
               lam: float) -> float:
    """J from the precomputed product K alpha."""
    return float(np.sum(np.logaddexp(0.0, -y * (Ka + mu))) + lam * np.dot(alpha, Ka))


class KernelLogisticRegression(ClassifierMixin, BaseEstimator):
    r"""Kernel logistic regression with an unpenalised intercept, fitted by Newton's method.

    Minimises :math:`J(\alpha, \mu) = \sum_i \log(1 + e^{-y_i(\mu + (K\alpha)_i)})
    + \lambda \alpha^\top K\alpha` and predicts
    :math:`P(Y = 1 \mid x) = \sigma(\mu + \sum_j \alpha_j k(x, x_j))` with the
    logistic function :math:`\sigma`.

    Parameters
    ----------
    kernel : callable or "precomputed"
        A kernel ``k(X, Y=None)`` returning the Gram matrix, e.g.
        ``kmlib.kernels.gaussian(1.0)``.  With ``"precomputed"``, :meth:`fit`
        takes the training Gram matrix K (n, n) and the prediction methods take
        the cross Gram matrix (m, n_train) between test and training points.
    lam : float
        Penalty :math:`\lambda > 0` on :math:`\|f\|^2_{\mathcal H}`.
    tol : float
        Stop when the Euclidean norm of the gradient of J with respect to
        :math:`(\alpha, \mu)`, i.e. :math:`\|(K(r + 2\lambda\alpha),\, \mathbf 1^\top r)\|_2`
        with :math:`r_i = -y_i\sigma(-y_i\eta_i)`, falls below ``tol``.
    max_iter : int
        Maximal number of Newton iterations; reaching it raises a
        :class:`RuntimeWarning` and keeps the current iterate.  So does a
        gradient stuck at its rounding level (not halved in 10 iterations), which
        happens when huge coefficients (tiny ``lam`` with large kernel values)
        make ``tol`` unattainable in floating point.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n,)
        The representer coefficients :math:`\alpha`.
    intercept_ : float
        The intercept :math:`\mu`.
    n_iter_ : int
        Number of Newton iterations.
    objective_ : float
        :math:`J(\alpha, \mu)` at the solution.
    grad_norm_ : float
        The gradient norm used by the stopping rule, at the solution.
    solver_ : str
        How the last Newton system was factored: ``"low rank"`` (pivoted
        Cholesky of K, for smooth kernels), ``"float32"`` or ``"float64"``
        (dense Cholesky), ``"lu"`` (K not PSD), or ``""`` if no step was needed.
    X_fit_ : ndarray or None
        Training inputs (None with a precomputed kernel).
    classes_ : ndarray of shape (2,)
        The two labels; the book's :math:`y_i = \pm 1` is -1 for ``classes_[0]``
        and +1 for ``classes_[1]``.
    n_features_in_ : int
        Number of columns of the training ``X`` (n_train when precomputed).

    Notes
    -----
    Write :math:`\eta = K\alpha + \mu\mathbf 1`, :math:`r_i = -y_i\sigma(-y_i\eta_i)`
    (the derivative of the loss in :math:`\eta_i`) and
    :math:`W = \operatorname{diag}(\sigma(\eta_i)\sigma(-\eta_i))`.  The gradient
    is :math:`(K(r + 2\lambda\alpha),\, \mathbf 1^\top r)` and the Newton equations are

    .. math::

        \begin{bmatrix} K W K + 2\lambda K & K W \mathbf 1 \\
        \mathbf 1^\top W K & \mathbf 1^\top W \mathbf 1 \end{bmatrix}
        \begin{bmatrix} \Delta\alpha \\ \Delta\mu \end{bmatrix}
        = -\begin{bmatrix} K(r + 2\lambda\alpha) \\ \mathbf 1^\top r \end{bmatrix}.

    Every term of the first block row starts with K, whose condition number is
    huge for smooth kernels.  We drop that common factor (multiply the row by
    :math:`K^{-1}` implicitly; when K is singular, a solution of the reduced
    system still solves the full one) and solve the bordered system

    .. math::

        (W K + 2\lambda I)\Delta\alpha + W\mathbf 1\,\Delta\mu = -(r + 2\lambda\alpha),\qquad
        \mathbf 1^\top W K \Delta\alpha + \mathbf 1^\top W\mathbf 1\,\Delta\mu = -\mathbf 1^\top r .

    The matrix :math:`WK + 2\lambda I` is not symmetric, but with
    :math:`D = (2\lambda)^{-1/2} W^{1/2}` it is carried by the symmetric positive
    definite :math:`B = I + DKD` (eigenvalues in
    :math:`[1, 1 + \|K\|/(8\lambda)]`, the matrix used for Gaussian-process
    classification): :math:`(WK + 2\lambda I)^{-1} = c\,(I - D B^{-1} D K)`
    with :math:`c = 1/(2\lambda)`.  One Cholesky factor of B and two solves with
    it give both unknowns (:math:`\Delta\mu` through the positive Schur
    complement :math:`d^\top B^{-1} d / c`, :math:`d = D\mathbf 1`).  Zero weights
    (:math:`W_{ii}` underflowing for very confident points) are harmless: B stays
    :math:`\succeq I`.

    Factoring B costs :math:`O(n^3)`.  For smooth kernels (Gaussian with a
    moderate bandwidth) K is numerically of low rank r, so a pivoted Cholesky
    factor :math:`K \approx FF^\top` is computed once (to a tolerance that moves B
    by at most 1e-6 relative) and B is inverted by the Woodbury identity at
    :math:`O(nr^2)` per step.  Otherwise B is factored densely (in float32 when
    it is well conditioned); near the solution W hardly changes, so a dense
    factor is reused for the next step as long as it keeps shrinking the
    gradient ("simplified Newton"), a descent direction because the stale
    system is the Hessian of J with a different positive W.  Every direction
    only needs to be accurate, not exact: the gradient, the objective and the
    stopping rule always use K in float64.  Each step is damped by Armijo
    backtracking on J, computed with ``logaddexp``.
    """

    def __init__(self, kernel: Any, lam: float = 1.0, tol: float = 1e-8,
                 max_iter: int = 100) -> None:
        self.kernel = kernel
        self.lam = lam
        self.tol = tol
        self.max_iter = max_iter

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # two classes (see classes_)
        tags.input_tags.pairwise = is_precomputed(self.kernel)
        return tags

    def _check_params(self) -> tuple[float, float, int]:
        tol, max_iter = check_solver_params(self.kernel, self.tol, self.max_iter)
        lam = check_lam(self.lam)
        if lam == 0.0:
            raise ValueError(
                "lam must be > 0 (without a penalty the minimiser need not exist, e.g. "
                f"for separable data); got {self.lam!r}"
            )
        return lam, tol, max_iter

    def fit(self, X: Any, y: Any) -> "KernelLogisticRegression":
        """Fit the model by damped Newton iterations.

        Parameters
        ----------
        X : array of shape (n, d), or (n, n) Gram matrix if ``kernel="precomputed"``
            Training inputs.  With a callable kernel the n x n Gram matrix is
            evaluated once and kept for the Newton iterations.
        y : array of shape (n,)
            Two distinct class labels (e.g. -1 and 1, 0 and 1, or two strings),
            coded -1 for ``classes_[0]`` and +1 for ``classes_[1]``; both must be present (with a
            single class the intercept would diverge).

        Returns
        -------
        self : KernelLogisticRegression
        """
        lam, tol, max_iter = self._check_params()
        K, X_fit, y, classes = fit_inputs(self.kernel, X, y, need_gram=True,
                                 one_class_why="the intercept would diverge")
        K = np.ascontiguousarray(K)
        check_gram_psd(K, "X" if X_fit is None else "kernel(X)", who="KernelLogisticRegression.fit")

        alpha, mu, n_iter, gnorm, obj, status, solver = _newton(K, y, lam, tol, max_iter)
        if status != "converged":
            if status == "max_iter":
                why = f"reached max_iter={max_iter}"
                advice = "Increase max_iter or tol."
            else:
                why = "stopped making progress (the gradient is at its rounding level)"
                advice = ("Increase tol; huge coefficients (tiny lam, large kernel values) "
                          "limit the attainable accuracy.")
            warnings.warn(
                f"KernelLogisticRegression: Newton's method {why} after {n_iter} iterations "
                f"with gradient norm {gnorm:.3g} > tol={tol:g}; the returned solution is "
                f"approximate. {advice}",
                RuntimeWarning,
                stacklevel=2,
            )
        self.dual_coef_ = alpha
        self.intercept_ = float(mu)
        self.n_iter_ = int(n_iter)
        self.objective_ = float(obj)
        self.grad_norm_ = float(gnorm)
        self.solver_ = solver
        self.X_fit_ = X_fit
        self.n_train_ = int(len(y))
        self.classes_ = classes
        self.n_features_in_ = int(K.shape[1] if X_fit is None else X_fit.shape[1])
        return self

    @finite_result
    def decision_function(self, X: Any) -> np.ndarray:
        r"""Log-odds :math:`\mu + \sum_j \alpha_j k(x, x_j)` of the class +1.

        Parameters
        ----------
        X : array of shape (m, d), or (m, n_train) if ``kernel="precomputed"``
            Test inputs, or the Gram matrix between test and training points.

        Returns
        -------
        ndarray of shape (m,)
        """
        check_fitted(self, "dual_coef_")
        Kt = prediction_gram(self.kernel, X, self.X_fit_, self.n_train_, who=type(self).__name__)
        return Kt @ self.dual_coef_ + self.intercept_

    @finite_result
    def predict_proba(self, X: Any) -> np.ndarray:
        r"""Class probabilities, columns ordered as ``classes_`` (e.g. -1 then 1).

        Computed as :math:`(\sigma(-\eta), \sigma(\eta))` with
        :func:`scipy.special.expit`, which neither overflows nor loses the small
        probability to cancellation.

        Parameters
        ----------
        X : array of shape (m, d), or (m, n_train) if ``kernel="precomputed"``

        Returns
        -------
        ndarray of shape (m, 2)
        """
        eta = self.decision_function(X)
        return np.column_stack([expit(-eta), expit(eta)])

    @finite_result
    def predict(self, X: Any) -> np.ndarray:
        """Predicted labels: ``classes_[1]`` where the log-odds are >= 0, else ``classes_[0]``.

        With labels -1 and 1 this is the sign of the log-odds (ties go to +1).

        Parameters
        ----------
        X : array of shape (m, d), or (m, n_train) if ``kernel="precomputed"``

        Returns
        -------
        ndarray of shape (m,)
        """
        positive = self.decision_function(X) >= 0.0
        return self.classes_[positive.astype(int)]


class _Workspace:
    """The Gram matrix and what the Newton systems reuse across iterations.

    Holds K, its diagonal, an optional low-rank factor ``F`` (K ~ F F^T), a
    float32 copy of K and one n x n buffer per precision, each made on first use.
    """

    def __init__(self, K: np.ndarray, lam: float) -> None:
        self.K = K
        self.n = K.shape[0]
        self.diag = np.diagonal(K).copy()
        self.warned = False
        self._k32: np.ndarray | None = None
        self._buf: dict[type, np.ndarray] = {}
        self.F = self._low_rank_factor(lam)

    def K32(self) -> np.ndarray:
        if self._k32 is None:
            self._k32 = self.K.astype(np.float32)
        return self._k32

    def buffer(self, dtype: type) -> np.ndarray:
        if dtype not in self._buf:
            self._buf[dtype] = np.empty((self.n, self.n), dtype=dtype)
        return self._buf[dtype]

    def _low_rank_factor(self, lam: float) -> np.ndarray | None:
        """Pivoted Cholesky K = F F^T + E with ||E||_2 <= 8 lam _LOWRANK_REL, or None.

        LAPACK's ``dpstrf`` stops once every remaining pivot is below ``tol``;
        the remainder E is then PSD with trace below n * tol, which bounds its
        norm.  Returns None (use the dense factorisation) when the rank needed
        exceeds n / 3, or when the factor does not reproduce diag(K) (K not PSD).
        """
        n = self.n
        if n < _LOWRANK_MIN_N:
            return None
        tol = 8.0 * lam * _LOWRANK_REL / n
        A = self.buffer(np.float64)
        np.copyto(A, self.K)
        fac, piv, rank, info = lapack.dpstrf(A.T, tol=tol, lower=1, overwrite_a=1)
        if info < 0 or rank == 0 or rank > n // 3:
            return None
        F = np.empty((n, rank))
        F[piv - 1] = np.tril(fac[:, :rank])
        resid = self.diag - np.einsum("ij,ij->i", F, F)
        if np.any(np.abs(resid) > 2.0 * tol + 1e-12 * np.abs(self.diag)):
            return None
        return F


class _NewtonSystem:
    """A factor of :math:`B = I + DKD` for one weight vector W (see the class notes).

    The factor only has to give a good *direction*: the gradient, the objective
    and the stopping rule are always evaluated exactly, with K in float64.  Three
    ways to factor B, cheapest first:

    * low rank: with a pivoted Cholesky K ~ F F^T (computed once per fit, for
      smooth kernels whose Gram matrix has fast-decaying eigenvalues), B ~
      I + U U^T with U = D F, inverted by the Woodbury identity through an r x r
      Cholesky factor.  The neglected part changes B by at most
      ``_LOWRANK_REL`` (||D E D|| <= ||E|| / (8 lam)), so the step is a Newton
      step to about that relative accuracy.  O(n r^2) per iteration.
    * float32: when B is well conditioned (the trace bound
      ``1 + sum_i d_i^2 K_ii`` on its largest eigenvalue, its smallest being
      >= 1, is at most ``_F32_COND``), B is formed and factored in single
      precision, at half the O(n^3) cost, with relative error about 1e-4.
    * float64 Cholesky, and LU (with a warning) if K is not PSD.
    """

    def __init__(self, ws: _Workspace, W: np.ndarray, lam: float, low_rank: bool) -> None:
        n = ws.n
        self.c = 1.0 / (2.0 * lam)
        self.d = np.sqrt(self.c * W)
        self.kind = ""
        if low_rank and ws.F is not None:
            U = ws.F * self.d[:, None]         # n x r, C order, so U.T is Fortran order
            S = blas.dsyrk(1.0, U.T)           # U^T U (upper triangle)
            S.flat[:: S.shape[0] + 1] += 1.0
            fac, info = lapack.dpotrf(S, lower=0, clean=0, overwrite_a=1)
            if info == 0:
                self.U, self.fac, self.kind = U, fac, "low rank"
        if not self.kind and 1.0 + float(np.dot(self.d * self.d, ws.diag)) <= _F32_COND:
            d32 = self.d.astype(np.float32)
            B = ws.buffer(np.float32)
            np.multiply(ws.K32(), d32[:, None], out=B)
            B *= d32[None, :]
            B.flat[:: n + 1] += 1.0           # B = I + D K D
            # B is symmetric, so B.T is the same matrix in Fortran order and
            # LAPACK factors it in place, without a copy.
            fac, info = lapack.spotrf(B.T, lower=0, clean=0, overwrite_a=1)
            if info == 0:
                self.fac, self.kind = fac, "float32"
        if not self.kind:
            B = ws.buffer(np.float64)
            np.multiply(ws.K, self.d[:, None], out=B)
            B *= self.d[None, :]
            B.flat[:: n + 1] += 1.0
            fac, info = lapack.dpotrf(B.T, lower=0, clean=0, overwrite_a=1)
            if info == 0:
                self.fac, self.kind = fac, "float64"
            else:
                # B >= I in exact arithmetic; it can only fail to be positive
                # definite if K is not positive semi-definite (or by rounding
                # when lam is tiny).  Fall back to LU.
                if not ws.warned:
                    warnings.warn(
                        "KernelLogisticRegression: I + D K D is not numerically positive "
                        "definite (is the kernel positive semi-definite?); solving the "
                        "Newton system by LU instead of Cholesky.",
                        RuntimeWarning,
                        stacklevel=5,
                    )
                    ws.warned = True
                np.multiply(ws.K, self.d[:, None], out=B)
                B *= self.d[None, :]
                B.flat[:: n + 1] += 1.0
                self.lu = lu_factor(B, overwrite_a=True, check_finite=False)
                self.kind = "lu"
        self.Binv_d = self._solve(self.d)
        self.schur = float(np.dot(self.d, self.Binv_d))  # d' B^{-1} d  (> 0 unless W = 0)

    def _solve(self, r: np.ndarray) -> np.ndarray:
        """B^{-1} r for one right-hand side, returned in float64."""
        if self.kind == "low rank":            # (I + U U^T)^{-1} r = r - U S^{-1} U^T r
            t = blas.dgemv(1.0, self.U.T, r)
            t, _ = lapack.dpotrs(self.fac, t, lower=0)
            return r - blas.dgemv(1.0, self.U.T, t, trans=1)
        if self.kind == "lu":
            return lu_solve(self.lu, r, check_finite=False)
        if self.kind == "float32":
            x, _ = lapack.spotrs(self.fac, r.astype(np.float32)[:, None], lower=0)
            return x[:, 0].astype(np.float64)
        x, _ = lapack.dpotrs(self.fac, r[:, None], lower=0)
        return x[:, 0]

    def step(self, F1: np.ndarray, F2: float, KF1: np.ndarray) -> tuple[np.ndarray, float]:
        """Solve the reduced Newton system for the right-hand side -(F1, F2)."""
        c, d = self.c, self.d
        # u1 = -F1, u2 = -F2, K u1 = -KF1.
        z1 = self._solve(d * -KF1)
        if self.schur > 1e-300:
            dmu = c * (-F2 - np.dot(d, z1)) / self.schur
        else:                                  # W == 0: mu does not enter the quadratic model
            dmu = 0.0
        dalpha = -c * F1 - c * d * z1 - d * self.Binv_d * dmu
        return dalpha, dmu


def _newton(K: np.ndarray, y: np.ndarray, lam: float, tol: float,
            max_iter: int) -> tuple[np.ndarray, float, int, float, float, str, str]:
    """Damped Newton iterations on J(alpha, mu); see the class notes.

    Returns alpha, mu, the number of iterations, the final gradient norm, the
    objective, a status ("converged", "max_iter" or "stalled") and the kind of
    the last factor of B ("low rank", "float32", "float64", "lu"; "" if none).
    """
    n = K.shape[0]
    KT = K.T                                   # Fortran-ordered view of the C-ordered K

    def Kmul(v: np.ndarray) -> np.ndarray:
        # K @ v through scipy's BLAS, the library that also factors B: numpy and
        # scipy each bundle an OpenBLAS, and alternating between their thread
        # pools lets the idle pool's spinning threads slow the busy one down.
        return blas.dgemv(1.0, KT, v, trans=1)

    alpha = np.zeros(n)
    Ka = np.zeros(n)
    n_pos = int(np.sum(y > 0))
    mu = float(np.log(n_pos / (n - n_pos)))   # the minimiser over mu alone at alpha = 0
    obj = _objective(Ka, alpha, mu, y, lam)
    ws = _Workspace(K, lam)
    low_rank = ws.F is not None
    system: _NewtonSystem | None = None
    prev_gnorm = np.inf
    status = "max_iter"
    exact_Ka = True
    n_iter = 0
    gnorm = np.inf
    best_gnorm, best_iter = np.inf, 0
    while True:
        m = y * (Ka + mu)                      # margins y_i eta_i
        p_wrong = expit(-m)                    # sigma(-y_i eta_i)
        r = -y * p_wrong
        F1 = r + 2.0 * lam * alpha
        F2 = float(np.sum(r))
        KF1 = Kmul(F1)
        gnorm = float(np.sqrt(np.dot(KF1, KF1) + F2 * F2))
        if gnorm < tol:
            if exact_Ka:
                status = "converged"
                break
            # Ka was updated incrementally (Ka + t K dalpha); confirm the stopping
            # rule with a freshly computed K alpha before declaring convergence.
            Ka = Kmul(alpha)
            exact_Ka = True
            obj = _objective(Ka, alpha, mu, y, lam)
            continue
        if n_iter >= max_iter:
            break
        if gnorm < 0.5 * best_gnorm:
            best_gnorm, best_iter = gnorm, n_iter
        elif n_iter - best_iter >= _STALL_ITERS:
            status = "stalled"                 # gradient stuck at its rounding level
            break
        n_iter += 1
        # A low-rank factor is cheap: refresh it every iteration.  A dense one
        # costs O(n^3): reuse it while it keeps cutting the gradient by 4x.
        fresh = low_rank or system is None or not gnorm < 0.25 * prev_gnorm
        W = p_wrong * expit(m)                 # sigma(eta)(1 - sigma(eta)), no cancellation
        if fresh:
            system = _NewtonSystem(ws, W, lam, low_rank)
        prev_gnorm = gnorm
        dalpha, dmu = system.step(F1, F2, KF1)
        slope = float(np.dot(KF1, dalpha) + F2 * dmu)
        if not slope < 0.0:
            # Not a descent direction: a stale dense factor, or the low-rank
            # approximation at rounding level.  Use an exact dense factor.
            low_rank = False
            fresh = True
            system = _NewtonSystem(ws, W, lam, low_rank)
            dalpha, dmu = system.step(F1, F2, KF1)
            slope = float(np.dot(KF1, dalpha) + F2 * dmu)
        Kd = Kmul(dalpha)
        t = 1.0
        # Rounding in J is about eps * (|loss| + |penalty|); allow it so that the
        # last, tiny Newton steps are not rejected for noise.
        slack = 1e-14 * (abs(obj) + 1.0)
        while True:
            a_new = alpha + t * dalpha
            Ka_new = Ka + t * Kd
            mu_new = mu + t * dmu
            obj_new = _objective(Ka_new, a_new, mu_new, y, lam)
            if obj_new <= obj + _ARMIJO * t * slope + slack:
                break
            t *= 0.5
            if t < _MIN_STEP:
                break
        if t < _MIN_STEP:
            if not fresh or low_rank:          # retry with an exact, fresh factor first
                low_rank = False
                system = None
                continue
            # No decrease along an exact Newton direction: J is flat to rounding
            # here, so the iterate cannot be improved further.
            status = "stalled"
            break
        alpha, Ka, mu, obj = a_new, Ka_new, mu_new, obj_new
        exact_Ka = False
    return alpha, mu, n_iter, gnorm, obj, status, (system.kind if system is not None else "")

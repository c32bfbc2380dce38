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
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning

from ._estimator_inputs import (
    BinaryKernelClassifier,
    fit_inputs,
)
from ._logistic_newton import _newton, _objective
from ._typing import KernelFunc
from ._validation import (
    check_pair,
    check_vector,
    finite_result,
)
from ._validation.params import NONNEGATIVE, POSITIVE, POSITIVE_INT, validate_args

__all__ = ["KernelLogisticRegression", "logistic_objective"]


@finite_result
@validate_args({"lam": [NONNEGATIVE]})
def logistic_objective(K: ArrayLike, y: ArrayLike, alpha: ArrayLike, mu: float,
                       lam: float) -> float:
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
    K, y = check_pair(K, y, ("K", "y"), matrix="square", labels=True)
    alpha = check_vector(alpha, "alpha", length=K.shape[0])
    Ka = K @ alpha
    return _objective(Ka, alpha, float(mu), y, lam)



class KernelLogisticRegression(BinaryKernelClassifier):
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
        Penalty :math:`\lambda > 0` on :math:`\|f\|^2_{\mathcal H}` (the book's
        parameter, as in :class:`~kmlib.krr.KernelRidge`; scikit-learn's
        ``LogisticRegression`` uses :math:`C = 1/(2\lambda)`; see
        :class:`~kmlib.svm.KernelSVM` for why the SVM alone takes ``C``).
    tol : float
        Stop when the Euclidean norm of the gradient of J with respect to
        :math:`(\alpha, \mu)`, i.e. :math:`\|(K(r + 2\lambda\alpha),\, \mathbf 1^\top r)\|_2`
        with :math:`r_i = -y_i\sigma(-y_i\eta_i)`, falls below ``tol``.
    max_iter : int
        Maximal number of Newton iterations; reaching it raises a
        :class:`sklearn.exceptions.ConvergenceWarning` and keeps the current iterate.  So does a
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

    A tiny :math:`\lambda` makes B singular to rounding (its largest eigenvalue is
    up to :math:`1 + \sum_i W_{ii}K_{ii}/(2\lambda)`, e.g. :math:`10^{20}` at
    :math:`\lambda = 10^{-20}`): its Cholesky factorisation fails and an exact Newton
    step does not exist in floating point.  From the first such breakdown on, the
    Newton matrix uses the penalty
    :math:`\lambda' = \max(\lambda, \sum_i W_{ii}K_{ii} / (2\cdot 10^{8}))`, which
    keeps that bound below :math:`1 + 10^{8}` (Levenberg-Marquardt damping: the Hessian
    term :math:`2\lambda K` becomes :math:`2\lambda' K`, so the step is still a
    descent direction of J, and the gradient and objective keep the true
    :math:`\lambda`).  On separable data W shrinks as the margins grow, so
    :math:`\lambda'` falls, and once it reaches :math:`\lambda` the steps are Newton's
    again; the fit separates the data, as
    scikit-learn's ``LogisticRegression(C=1/(2*lam))`` does.  (On separable test
    problems at :math:`\lambda` from :math:`10^{-20}` to :math:`10^{-300}`, a weaker
    damping, a bound of :math:`10^{13}`, took as many steps, but the coefficients
    grew along directions that K nearly annihilates and :math:`K\alpha` lost up to
    five digits to cancellation; with :math:`10^{8}` it kept about nine.)
    """

    _parameter_constraints = {"kernel": ["kernel"], "lam": [POSITIVE], "tol": [POSITIVE],
                              "max_iter": [POSITIVE_INT]}
    _parameter_hints = {"lam": "without a penalty the minimiser need not exist, e.g. for "
                               "separable data"}

    def __init__(self, *, kernel: KernelFunc | Literal["precomputed"], lam: float = 1.0,
                 tol: float = 1e-8, max_iter: int = 100) -> None:
        self.kernel = kernel
        self.lam = lam
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
            ) -> "KernelLogisticRegression":
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
        sample_weight : array of shape (n,) or float, optional
            Weights :math:`w_i \\ge 0` of the losses: J becomes
            :math:`\\sum_i w_i \\log(1 + e^{-y_i\\eta_i}) + \\lambda\\alpha^\\top K\\alpha`.

        Returns
        -------
        self : KernelLogisticRegression
        """
        K, X_fit, y, classes, w = fit_inputs(self, X, y, sample_weight, need_gram=True,
                                             one_class_why="the intercept would diverge")
        lam, tol, max_iter = float(self.lam), float(self.tol), int(self.max_iter)
        K = np.ascontiguousarray(K)
        alpha, mu, n_iter, gnorm, obj, status, solver = _newton(K, y, lam, tol, max_iter, w)
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
                ConvergenceWarning,
                stacklevel=2,
            )
        self.dual_coef_ = alpha
        self.intercept_ = float(mu)
        self.n_iter_ = int(n_iter)
        self.objective_ = float(obj)
        self.grad_norm_ = float(gnorm)
        self.solver_ = solver
        self._store_training(K, X_fit, y, classes)
        return self

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        r"""Log-odds :math:`\mu + \sum_j \alpha_j k(x, x_j)` of the class +1.

        Parameters
        ----------
        X : array of shape (m, d), or (m, n_train) if ``kernel="precomputed"``
            Test inputs, or the Gram matrix between test and training points.

        Returns
        -------
        ndarray of shape (m,)
        """
        return self._decision(X)

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
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

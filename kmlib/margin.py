r"""Margins, losses and bounds for "Support vector machines and kernel logistic regression".

This module serves the chapter *Support vector machines and kernel logistic
regression*.  The estimators themselves live in :mod:`kmlib.svm` (SMO) and
:mod:`kmlib.logistic` (Newton's method); here are the pieces the chapter uses
to look at them from a second side:

* the two margin losses, :func:`hinge_loss` and :func:`logistic_loss`, and the
  point :func:`loss_crossing` below which the logistic loss is the smaller one;
* the maximum-margin hyperplane through the origin and its soft-margin
  relative, solved as generic quadratic programmes (:func:`hard_margin`,
  :func:`soft_margin`), and the SVM dual solved by a general-purpose QP solver
  (:func:`svm_dual_qp`) to cross-check SMO;
* the intercept from the dual (:func:`svm_intercept`), the dual objective, and
  the Karush--Kuhn--Tucker conditions checked point by point
  (:func:`kkt_residuals`);
* penalised logistic regression on explicit features (:func:`poly2_features`,
  :func:`penalized_logistic`), to cross-check kernel logistic regression;
* the Rademacher complexity of a kernel ball by Monte Carlo
  (:func:`rademacher_ball`) and the margin bounds of Mohri, Rostamizadeh &
  Talwalkar (2018), :func:`margin_bounds`;
* the running time of SMO against the sample size (:func:`smo_cost`).

Conventions: the SVM penalty is :math:`\lambda` on :math:`\|f\|^2_{\mathcal H}`
in :math:`\sum_i(1-y_if(x_i))_+ + \lambda\|f\|^2_{\mathcal H}`; the dual box is
:math:`C = 1/(2\lambda)`.
"""
from __future__ import annotations

import time
from typing import Any, NamedTuple

import numpy as np
from scipy import optimize

from ._validation import (
    check_int,
    check_labels,
    check_matrix,
    check_nonnegative,
    check_positive,
    check_rng,
    check_same_length,
    check_square,
    check_symmetric,
    check_vector,
)

__all__ = [
    "hinge_loss",
    "logistic_loss",
    "loss_crossing",
    "hard_margin",
    "soft_margin",
    "geometric_margin",
    "svm_dual_qp",
    "dual_objective",
    "svm_intercept",
    "kkt_residuals",
    "poly2_features",
    "penalized_logistic",
    "rademacher_ball",
    "ramp_margin_loss",
    "MarginBounds",
    "margin_bounds",
    "smo_cost",
    "BoundExperiment",
    "margin_bound_experiment",
    "decision_grid",
]


# --------------------------------------------------------------------------- #
# losses
# --------------------------------------------------------------------------- #
def hinge_loss(z: Any) -> np.ndarray:
    r"""Hinge loss :math:`(1 - z)_+` of the margin :math:`z = y f(x)`.

    Parameters
    ----------
    z : array_like
        Margins.

    Returns
    -------
    ndarray
        :math:`\max(0, 1 - z)`, elementwise.
    """
    z = np.asarray(z, dtype=float)
    return np.maximum(0.0, 1.0 - z)


def logistic_loss(z: Any) -> np.ndarray:
    r"""Logistic loss :math:`\log(1 + e^{-z})` of the margin :math:`z = y f(x)`.

    Computed as ``logaddexp(0, -z)``, which neither overflows for very negative
    ``z`` nor loses the small value for large ``z``.

    Parameters
    ----------
    z : array_like
        Margins.

    Returns
    -------
    ndarray
    """
    z = np.asarray(z, dtype=float)
    return np.logaddexp(0.0, -z)


def loss_crossing() -> float:
    r"""The margin :math:`z^*` where hinge and logistic losses are equal.

    Found by Brent's method on :math:`(1-z) - \log(1+e^{-z})` over
    :math:`[0, 1]`; the chapter shows that :math:`z^* = \log(e - 1)`.

    Returns
    -------
    float
    """
    return float(optimize.brentq(lambda z: (1.0 - z) - np.logaddexp(0.0, -z), 0.0, 1.0,
                                 xtol=1e-15, rtol=4 * np.finfo(float).eps))


# --------------------------------------------------------------------------- #
# maximum margin through the origin, as generic quadratic programmes
# --------------------------------------------------------------------------- #
def _xy(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    X = check_matrix(X, "X", allow_1d=False)
    y = check_labels(y)
    check_same_length(X, y, "X", "y")
    return X, y


def hard_margin(X: Any, y: Any, *, tol: float = 1e-12) -> np.ndarray:
    r"""Hard-margin hyperplane through the origin.

    The problem :math:`\min\|\beta\|^2` s.t. :math:`y_ix_i^\top\beta\ge1` is solved by
    sequential least-squares programming (SLSQP), a general-purpose solver unrelated to SMO.
    The maximal margin is :math:`1/\|\hat\beta\|`.

    Parameters
    ----------
    X : array of shape (n, p)
        Inputs.
    y : array of shape (n,)
        Labels in {-1, 1}; the data must be separable by a hyperplane through
        the origin.
    tol : float
        Tolerance passed to SLSQP.

    Returns
    -------
    ndarray of shape (p,)
        :math:`\hat\beta`.

    Raises
    ------
    ValueError
        If SLSQP finds no feasible point (the data are not separable through
        the origin).
    """
    X, y = _xy(X, y)
    tol = check_positive(tol, "tol")
    A = y[:, None] * X
    start = A.mean(axis=0)
    scale = np.min(A @ start)
    start = start / scale if scale > 0 else start
    res = optimize.minimize(
        lambda b: b @ b, start, jac=lambda b: 2 * b, method="SLSQP",
        constraints=[{"type": "ineq", "fun": lambda b: A @ b - 1.0, "jac": lambda b: A}],
        options={"ftol": tol, "maxiter": 1000},
    )
    beta = res.x
    if np.min(A @ beta) < 1.0 - 1e-6:
        raise ValueError(
            "X, y: the data must be separable by a hyperplane through the origin; "
            f"the best point found has min y_i x_i'beta = {np.min(A @ beta):.3g} < 1"
        )
    return beta


def soft_margin(X: Any, y: Any, lam: float, *, tol: float = 1e-12) -> np.ndarray:
    r"""Soft-margin hyperplane through the origin in penalised form.

    Minimises :math:`\sum_i(1 - y_ix_i^\top\beta)_+ + \lambda\|\beta\|^2` written
    as the quadratic programme :math:`\min_{\beta,\xi}\sum_i\xi_i + \lambda\|\beta\|^2`
    subject to :math:`\xi_i\ge 1 - y_ix_i^\top\beta` and :math:`\xi_i \ge 0`
    (slack variables), solved by SLSQP.

    Parameters
    ----------
    X : array of shape (n, p)
    y : array of shape (n,)
        Labels in {-1, 1}.
    lam : float
        Penalty :math:`\lambda > 0`.
    tol : float
        Tolerance passed to SLSQP.

    Returns
    -------
    ndarray of shape (p,)
    """
    X, y = _xy(X, y)
    lam = check_positive(lam, "lam")
    tol = check_positive(tol, "tol")
    n, p = X.shape
    A = y[:, None] * X
    G = np.hstack([A, np.eye(n)])             # A beta + xi - 1 >= 0

    def obj(v: np.ndarray) -> float:
        return float(v[p:].sum() + lam * v[:p] @ v[:p])

    def jac(v: np.ndarray) -> np.ndarray:
        return np.concatenate([2 * lam * v[:p], np.ones(n)])

    v0 = np.concatenate([np.zeros(p), np.ones(n)])
    res = optimize.minimize(
        obj, v0, jac=jac, method="SLSQP",
        bounds=[(None, None)] * p + [(0.0, None)] * n,
        constraints=[{"type": "ineq", "fun": lambda v: G @ v - 1.0, "jac": lambda v: G}],
        options={"ftol": tol, "maxiter": 2000},
    )
    return res.x[:p]


def geometric_margin(X: Any, y: Any, beta: Any) -> float:
    r"""Smallest signed distance :math:`\min_i y_ix_i^\top\beta/\|\beta\|` to the hyperplane.

    Parameters
    ----------
    X : array of shape (n, p)
    y : array of shape (n,)
    beta : array of shape (p,)
        Normal vector, not zero.

    Returns
    -------
    float
    """
    X, y = _xy(X, y)
    beta = check_vector(beta, "beta")
    if beta.shape[0] != X.shape[1]:
        raise ValueError(f"beta must have length {X.shape[1]} (columns of X); got {beta.shape[0]}")
    nb = float(np.linalg.norm(beta))
    if nb == 0.0:
        raise ValueError("beta must not be the zero vector")
    return float(np.min(y * (X @ beta)) / nb)


# --------------------------------------------------------------------------- #
# the dual SVM by a general QP solver, its objective, intercept and KKT
# --------------------------------------------------------------------------- #
def _Ky(K: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    K = check_square(K, "K")
    y = check_labels(y)
    check_same_length(K, y, "K", "y")
    check_symmetric(K, "K")
    return K, y


def _dual_a(a: Any, n: int) -> np.ndarray:
    a = check_vector(a, "a")
    if a.shape[0] != n:
        raise ValueError(f"a must have length {n} (the number of points); got {a.shape[0]}")
    return a


def dual_objective(K: Any, y: Any, a: Any) -> float:
    r"""Dual objective :math:`\sum_i a_i - \tfrac12\sum_{ij}a_ia_jy_iy_jK_{ij}`.

    Parameters
    ----------
    K : array of shape (n, n)
    y : array of shape (n,)
    a : array of shape (n,)

    Returns
    -------
    float
    """
    K, y = _Ky(K, y)
    a = _dual_a(a, len(y))
    c = a * y
    return float(a.sum() - 0.5 * c @ K @ c)


def svm_dual_qp(K: Any, y: Any, C: float, *, tol: float = 1e-14,
                max_iter: int = 2000) -> np.ndarray:
    r"""Solve the SVM dual with SLSQP, a general-purpose QP solver (not SMO).

    Maximises :math:`\sum_ia_i - \tfrac12 a^\top Qa`, :math:`Q_{ij} = y_iy_jK_{ij}`,
    over :math:`0\le a_i\le C` and :math:`\sum_ia_iy_i = 0`.  All coordinates
    move at once, with the equality constraint handled by the solver.  Meant
    for the small problems on which the chapter cross-checks SMO.

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric kernel matrix.
    y : array of shape (n,)
        Labels in {-1, 1}.
    C : float
        Box constant, > 0.
    tol : float
        ``ftol`` of SLSQP.
    max_iter : int
        Maximal SLSQP iterations.

    Returns
    -------
    ndarray of shape (n,)
        Dual variables :math:`a`.
    """
    K, y = _Ky(K, y)
    C = check_positive(C, "C")
    tol = check_positive(tol, "tol")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    Q = (y[:, None] * y[None, :]) * K
    n = len(y)
    res = optimize.minimize(
        lambda a: 0.5 * a @ Q @ a - a.sum(), np.full(n, 0.0),
        jac=lambda a: Q @ a - 1.0, method="SLSQP", bounds=[(0.0, C)] * n,
        constraints=[{"type": "eq", "fun": lambda a: y @ a, "jac": lambda a: y}],
        options={"ftol": tol, "maxiter": max_iter},
    )
    return np.clip(res.x, 0.0, C)


def svm_intercept(K: Any, y: Any, a: Any, C: float, *, rel_tol: float = 1e-6) -> float:
    r"""Intercept :math:`b = y_{i_0} - \sum_i a_iy_iK_{i i_0}`, averaged over free vectors.

    A free support vector :math:`i_0` has :math:`0 < a_{i_0} < C`; there
    complementary slackness forces :math:`y_{i_0}f(x_{i_0}) = 1`.  Averaging over
    all of them reduces rounding error.

    Parameters
    ----------
    K : array of shape (n, n)
    y : array of shape (n,)
    a : array of shape (n,)
        Dual variables.
    C : float
        Box constant.
    rel_tol : float
        :math:`a_i` counts as free when :math:`\text{rel\_tol}\,C < a_i < (1-\text{rel\_tol})C`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If no dual variable is strictly inside the box.
    """
    K, y = _Ky(K, y)
    a = _dual_a(a, len(y))
    C = check_positive(C, "C")
    free = (a > rel_tol * C) & (a < (1 - rel_tol) * C)
    if not np.any(free):
        raise ValueError("a: no dual variable lies strictly between 0 and C, so the "
                         "intercept is not pinned down by an equation; expected at least one")
    f0 = K[free] @ (a * y)
    return float(np.mean(y[free] - f0))


def kkt_residuals(yf: Any, a: Any, C: float, *, rel_tol: float = 1e-6) -> np.ndarray:
    r"""Violation of the SVM's KKT conditions at each point.

    With margins :math:`z_i = y_if(x_i)`:

    * :math:`a_i = 0` requires :math:`z_i \ge 1` (residual :math:`(1 - z_i)_+`);
    * :math:`0 < a_i < C` requires :math:`z_i = 1` (residual :math:`|1 - z_i|`);
    * :math:`a_i = C` requires :math:`z_i \le 1` (residual :math:`(z_i - 1)_+`).

    Parameters
    ----------
    yf : array of shape (n,)
        Margins :math:`y_if(x_i)`.
    a : array of shape (n,)
        Dual variables.
    C : float
        Box constant.
    rel_tol : float
        :math:`a_i \le \text{rel\_tol}\,C` counts as 0, :math:`a_i\ge(1-\text{rel\_tol})C` as C.

    Returns
    -------
    ndarray of shape (n,)
        Non-negative residuals; all zero at an exact solution.
    """
    z = check_vector(yf, "yf")
    a = _dual_a(a, len(z))
    C = check_positive(C, "C")
    at_zero = a <= rel_tol * C
    at_C = a >= (1 - rel_tol) * C
    free = ~at_zero & ~at_C
    r = np.zeros_like(z)
    r[at_zero] = np.maximum(0.0, 1.0 - z[at_zero])
    r[free] = np.abs(1.0 - z[free])
    r[at_C] = np.maximum(0.0, z[at_C] - 1.0)
    return r


# --------------------------------------------------------------------------- #
# logistic regression on explicit features
# --------------------------------------------------------------------------- #
def poly2_features(X: Any, c: float = 1.0) -> np.ndarray:
    r"""Explicit features of the kernel :math:`(c + x^\top x')^2`.

    The map is :math:`\phi(x) = (c,\ \sqrt{2c}\,x_j,\ x_j^2,\ \sqrt2\,x_jx_l\ (j<l))`,
    of dimension :math:`1 + 2d + d(d-1)/2`, and
    :math:`\phi(x)^\top\phi(x') = (c + x^\top x')^2`.

    Parameters
    ----------
    X : array of shape (n, d)
    c : float
        Offset :math:`c \ge 0`.

    Returns
    -------
    ndarray of shape (n, 1 + 2d + d(d-1)/2)
    """
    X = check_matrix(X, "X", allow_1d=False)
    c = check_nonnegative(c, "c")
    n, d = X.shape
    j, ell = np.triu_indices(d, k=1)
    return np.hstack([np.full((n, 1), c), np.sqrt(2 * c) * X, X**2,
                      np.sqrt(2.0) * X[:, j] * X[:, ell]])


def penalized_logistic(Phi: Any, y: Any, lam: float, *, tol: float = 1e-12,
                       max_iter: int = 10_000) -> tuple[np.ndarray, float]:
    r"""Ridge-penalised logistic regression with an unpenalised intercept, by L-BFGS.

    Minimises :math:`\sum_i\log(1 + e^{-y_i(\mu + \phi_i^\top w)}) + \lambda\|w\|^2`
    over :math:`(w, \mu)` with a quasi-Newton method (not Newton's method).

    Parameters
    ----------
    Phi : array of shape (n, D)
        Features.
    y : array of shape (n,)
        Labels in {-1, 1}.
    lam : float
        Penalty :math:`\lambda > 0`.
    tol : float
        Gradient tolerance of L-BFGS.
    max_iter : int
        Maximal iterations.

    Returns
    -------
    w : ndarray of shape (D,)
    mu : float
    """
    Phi, y = _xy(Phi, y)
    lam = check_positive(lam, "lam")
    tol = check_positive(tol, "tol")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    D = Phi.shape[1]

    def fun(v: np.ndarray) -> tuple[float, np.ndarray]:
        w, mu = v[:D], v[D]
        z = y * (Phi @ w + mu)
        s = -y * np.exp(-np.logaddexp(0.0, z))        # d loss / d eta = -y sigmoid(-z)
        val = float(np.logaddexp(0.0, -z).sum() + lam * w @ w)
        return val, np.concatenate([Phi.T @ s + 2 * lam * w, [s.sum()]])

    res = optimize.minimize(fun, np.zeros(D + 1), jac=True, method="L-BFGS-B",
                            options={"gtol": tol, "ftol": 1e-15, "maxiter": max_iter,
                                     "maxcor": 30})
    return res.x[:D], float(res.x[D])


# --------------------------------------------------------------------------- #
# Rademacher complexity and margin bounds
# --------------------------------------------------------------------------- #
def rademacher_ball(K: Any, Lambda: float, n_draws: int = 20_000,
                    seed: Any = None) -> tuple[float, float]:
    r"""Monte-Carlo estimate of the empirical Rademacher complexity of a kernel ball.

    For :math:`H = \{f\in\mathcal H: \|f\|_{\mathcal H}\le\Lambda\}` the supremum
    is explicit (Cauchy--Schwarz):
    :math:`\sup_{f\in H}\frac1m\sum_i\sigma_if(x_i) = \frac\Lambda m\sqrt{\sigma^\top K\sigma}`,
    so :math:`\hat{\mathfrak R}_S(H) = \frac\Lambda m\mathbb E_\sigma\sqrt{\sigma^\top K\sigma}`
    is averaged over ``n_draws`` independent sign vectors.

    Parameters
    ----------
    K : array of shape (m, m)
        Kernel matrix of the sample.
    Lambda : float
        Radius of the ball, > 0.
    n_draws : int
        Number of sign vectors.
    seed : int or Generator, optional

    Returns
    -------
    estimate : float
    std_error : float
        Standard error of the Monte-Carlo average.
    """
    K = check_square(K, "K")
    check_symmetric(K, "K")
    Lambda = check_positive(Lambda, "Lambda")
    n_draws = check_int(n_draws, "n_draws", minimum=2)
    rng = check_rng(seed)
    m = K.shape[0]
    vals = np.empty(n_draws)
    for s in range(0, n_draws, 4096):
        S = rng.choice([-1.0, 1.0], size=(min(4096, n_draws - s), m))
        q = np.einsum("ij,ij->i", S @ K, S)
        vals[s:s + len(S)] = np.sqrt(np.maximum(q, 0.0))
    vals *= Lambda / m
    return float(vals.mean()), float(vals.std(ddof=1) / np.sqrt(n_draws))


def ramp_margin_loss(yf: Any, rho: float) -> float:
    r"""Empirical :math:`\rho`-margin loss :math:`\frac1m\sum_i\Phi_\rho(y_if(x_i))`.

    :math:`\Phi_\rho(z) = \min(1, \max(0, 1 - z/\rho))`: 1 for :math:`z\le0`,
    0 for :math:`z\ge\rho`, linear in between (Mohri et al., 2018, Def. 5.5).

    Parameters
    ----------
    yf : array of shape (m,)
        Margins :math:`y_if(x_i)`.
    rho : float
        :math:`\rho > 0`.

    Returns
    -------
    float
    """
    z = check_vector(yf, "yf")
    rho = check_positive(rho, "rho")
    return float(np.mean(np.clip(1.0 - z / rho, 0.0, 1.0)))


class MarginBounds(NamedTuple):
    """The three margin bounds on the misclassification risk (see :func:`margin_bounds`)."""

    fixed_rho: float
    trace: float
    uniform_rho: float


def margin_bounds(margin_loss: float, m: int, Lambda: float, r2: float, rho: float,
                  delta: float, trace_K: float | None = None) -> MarginBounds:
    r"""Margin bounds for a kernel ball.

    After Mohri, Rostamizadeh & Talwalkar (2018), Thms 5.8-5.9 and Cor 6.13.
    For :math:`H=\{f:\|f\|_{\mathcal H}\le\Lambda\}`, :math:`k(x,x)\le r^2`, with
    probability at least :math:`1-\delta` every :math:`f\in H` has

    * ``fixed_rho``: :math:`R \le \hat R_{S,\rho}(f) + \frac2\rho\sqrt{r^2\Lambda^2/m}
      + \sqrt{\log(1/\delta)/(2m)}`;
    * ``trace``: :math:`R \le \hat R_{S,\rho}(f)
      + \frac{2\Lambda\sqrt{\operatorname{Tr}K}}{\rho m} + 3\sqrt{\log(2/\delta)/(2m)}`;
    * ``uniform_rho`` (simultaneously for all :math:`\rho\in(0,r]`):
      :math:`R \le \hat R_{S,\rho}(f) + \frac4\rho\sqrt{r^2\Lambda^2/m}
      + \sqrt{\log\log_2(2r/\rho)/m} + \sqrt{\log(2/\delta)/(2m)}`.

    Parameters
    ----------
    margin_loss : float
        :math:`\hat R_{S,\rho}(f)` in [0, 1] (see :func:`ramp_margin_loss`).
    m : int
        Sample size.
    Lambda : float
        Radius of the ball.
    r2 : float
        :math:`r^2 \ge \sup_x k(x, x)`.
    rho : float
        Margin, in :math:`(0, r]`.
    delta : float
        Confidence parameter in (0, 1).
    trace_K : float, optional
        :math:`\operatorname{Tr}K`; defaults to its upper bound :math:`mr^2`.

    Returns
    -------
    MarginBounds
    """
    margin_loss = check_nonnegative(margin_loss, "margin_loss")
    if margin_loss > 1.0:
        raise ValueError(f"margin_loss must lie in [0, 1]; got {margin_loss!r}")
    m = check_int(m, "m", minimum=1)
    Lambda = check_positive(Lambda, "Lambda")
    r2 = check_positive(r2, "r2")
    rho = check_positive(rho, "rho")
    r = np.sqrt(r2)
    if rho > r:
        raise ValueError(f"rho must lie in (0, r] with r = sqrt(r2) = {r:.6g}; got {rho!r}")
    delta = check_positive(delta, "delta")
    if delta >= 1.0:
        raise ValueError(f"delta must lie in (0, 1); got {delta!r}")
    tr = m * r2 if trace_K is None else check_nonnegative(trace_K, "trace_K")
    cplx = np.sqrt(r2 * Lambda**2 / m)
    fixed = margin_loss + 2 / rho * cplx + np.sqrt(np.log(1 / delta) / (2 * m))
    trace = (margin_loss + 2 * Lambda * np.sqrt(tr) / (rho * m)
             + 3 * np.sqrt(np.log(2 / delta) / (2 * m)))
    loglog = np.log(max(np.log2(2 * r / rho), 1.0))      # log2(2r/rho) >= 1 on (0, r]
    unif = (margin_loss + 4 / rho * cplx + np.sqrt(loglog / m)
            + np.sqrt(np.log(2 / delta) / (2 * m)))
    return MarginBounds(float(fixed), float(trace), float(unif))


# --------------------------------------------------------------------------- #
# cost of SMO
# --------------------------------------------------------------------------- #
def smo_cost(ns: Any, sigma: float, C: float, *, noise: float = 0.2, tol: float = 1e-3,
             repeats: int = 3, seed: Any = 0) -> tuple[np.ndarray, np.ndarray]:
    r"""Wall-clock time and iteration count of kmlib's SMO on two moons of growing size.

    For each ``n`` the Gram matrix is formed first (not timed); the time is the
    best of ``repeats`` runs of :func:`kmlib.svm.smo_solve`.

    Parameters
    ----------
    ns : sequence of int
        Sample sizes.
    sigma : float
        Gaussian kernel width.
    C : float
        Box constant.
    noise : float
        Noise of the moons.
    tol : float
        SMO stopping tolerance.
    repeats : int
        Timed runs per size.
    seed : int
        Seed of the data.

    Returns
    -------
    times : ndarray of shape (len(ns),)
        Seconds.
    iterations : ndarray of shape (len(ns),)
        SMO iterations (two-variable updates).
    """
    from . import datasets, kernels, svm

    ns = [check_int(n, "ns", minimum=4) for n in np.atleast_1d(ns)]
    sigma = check_positive(sigma, "sigma")
    C = check_positive(C, "C")
    repeats = check_int(repeats, "repeats", minimum=1)
    k = kernels.gaussian(sigma)
    times, iters = [], []
    for i, n in enumerate(ns):
        X, y = datasets.two_moons(n, noise=noise, seed=int(seed) + i)
        K = k(X)
        best = np.inf
        for _ in range(repeats):
            t0 = time.perf_counter()
            out = svm.smo_solve(K, y, C, tol=tol)
            best = min(best, time.perf_counter() - t0)
        times.append(best)
        iters.append(out[3])
    return np.array(times), np.array(iters, dtype=float)


class BoundExperiment(NamedTuple):
    """Result of :func:`margin_bound_experiment`, one entry per sample size."""

    m: np.ndarray
    test_error: np.ndarray
    margin_loss: np.ndarray
    norm: np.ndarray
    complexity: np.ndarray
    bounds: list


def margin_bound_experiment(ms: Any, sigma: float, gamma: float, Lambda: float, *,
                            rho: float = 1.0, delta: float = 0.05, noise: float = 0.2,
                            n_test: int = 5000, seed: int = 0) -> BoundExperiment:
    r"""Fit the kernel SVM on two moons of sizes ``ms`` and evaluate the margin bounds.

    For each :math:`m` the SVM is fitted with :math:`C = 1/(2\gamma m)` (so the
    penalty on :math:`\frac1m\sum_i(1-y_if(x_i))_+` is :math:`\gamma`).  Its
    decision function :math:`f = g + b` with :math:`g = \sum_i a_iy_ik(\cdot,x_i)`
    lies in the RKHS of :math:`k + 1` (the constant absorbs the intercept), with
    :math:`\|f\|\le\sqrt{\|g\|^2_{\mathcal H}+b^2}`, and :math:`r^2 = 2` for the
    Gaussian kernel.  If that norm exceeds ``Lambda`` the function is scaled
    into the ball, which changes no predicted label.  The bounds are
    :func:`margin_bounds` with the empirical ramp loss of the (scaled) function.

    Parameters
    ----------
    ms : sequence of int
        Training-set sizes.
    sigma : float
        Gaussian kernel width.
    gamma : float
        Penalty per point, > 0.
    Lambda : float
        Radius of the ball, fixed in advance.
    rho, delta : float
        Margin and confidence of the bounds.
    noise : float
        Noise of the moons.
    n_test : int
        Size of the held-out set.
    seed : int
        Seed of the data (the test set uses ``seed + 1000``).

    Returns
    -------
    BoundExperiment
    """
    from . import datasets, kernels, svm

    ms_ = np.array([check_int(m, "ms", minimum=4) for m in np.atleast_1d(ms)])
    sigma = check_positive(sigma, "sigma")
    gamma = check_positive(gamma, "gamma")
    Lambda = check_positive(Lambda, "Lambda")
    n_test = check_int(n_test, "n_test", minimum=1)
    k = kernels.gaussian(sigma)
    Xt, yt = datasets.two_moons(n_test, noise=noise, seed=int(seed) + 1000)
    errs, losses, norms, cplx, bounds = [], [], [], [], []
    for i, m in enumerate(ms_):
        X, y = datasets.two_moons(int(m), noise=noise, seed=int(seed) + i)
        model = svm.KernelSVM(k, C=1.0 / (2.0 * gamma * m)).fit(X, y)
        c = model.dual_coef_
        norm = float(np.sqrt(c @ k(model.support_vectors_) @ c + model.intercept_**2))
        scale = min(1.0, Lambda / norm)
        loss = ramp_margin_loss(scale * y * model.decision_function(X), rho)
        errs.append(float(np.mean(model.predict(Xt) != yt)))
        losses.append(loss)
        norms.append(norm)
        cplx.append(2.0 / rho * np.sqrt(2.0 * Lambda**2 / m))
        bounds.append(margin_bounds(loss, int(m), Lambda, 2.0, rho, delta))
    return BoundExperiment(ms_, np.array(errs), np.array(losses), np.array(norms),
                           np.array(cplx), bounds)


def decision_grid(model: Any, X: Any, n_grid: int = 120,
                  pad: float = 0.4) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Evaluate ``model.decision_function`` on a square grid covering ``X``.

    Parameters
    ----------
    model : fitted estimator with ``decision_function``
    X : array of shape (n, 2)
        Points whose bounding box (plus ``pad``) the grid covers.
    n_grid : int
        Grid points per axis.
    pad : float
        Margin added around the bounding box.

    Returns
    -------
    xx, yy, F : ndarray of shape (n_grid, n_grid)
    """
    X = check_matrix(X, "X", allow_1d=False)
    if X.shape[1] != 2:
        raise ValueError(f"X must have 2 columns to draw a grid; got {X.shape[1]}")
    n_grid = check_int(n_grid, "n_grid", minimum=2)
    lo, hi = X.min(axis=0) - pad, X.max(axis=0) + pad
    xx, yy = np.meshgrid(np.linspace(lo[0], hi[0], n_grid), np.linspace(lo[1], hi[1], n_grid))
    F = model.decision_function(np.column_stack([xx.ravel(), yy.ravel()])).reshape(xx.shape)
    return xx, yy, F

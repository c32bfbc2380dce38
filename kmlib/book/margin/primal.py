r"""Primal problems on explicit features, solved by general-purpose optimisers.

Chapter *Support vector machines and kernel logistic regression* cross-checks
its two estimators from the primal side, with solvers unrelated to SMO and to
Newton's method:

* the maximum-margin hyperplane through the origin and its soft-margin relative,
  solved as generic quadratic programmes by SLSQP (:func:`hard_margin`,
  :func:`soft_margin`), and the margin of a hyperplane (:func:`geometric_margin`);
* penalised logistic regression on the explicit features of the polynomial
  kernel :math:`(c + x^\top x')^2` (:func:`poly2_features`,
  :func:`penalized_logistic`, by L-BFGS), to cross-check kernel logistic
  regression.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize

from kmlib._validation import (
    check_int,
    check_labels,
    check_matrix,
    check_nonnegative,
    check_positive,
    check_same_length,
    check_vector,
)

__all__ = [
    "hard_margin",
    "soft_margin",
    "geometric_margin",
    "poly2_features",
    "penalized_logistic",
]


def _xy(X: ArrayLike, y: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    X = check_matrix(X, "X", allow_1d=False)
    y = check_labels(y)
    check_same_length(X, y, "X", "y")
    return X, y


def hard_margin(X: ArrayLike, y: ArrayLike, *, tol: float = 1e-12) -> NDArray[np.float64]:
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


def soft_margin(X: ArrayLike, y: ArrayLike, lam: float, *,
                tol: float = 1e-12) -> NDArray[np.float64]:
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

    def jac(v: np.ndarray) -> NDArray[np.float64]:
        return np.concatenate([2 * lam * v[:p], np.ones(n)])

    v0 = np.concatenate([np.zeros(p), np.ones(n)])
    res = optimize.minimize(
        obj, v0, jac=jac, method="SLSQP",
        bounds=[(None, None)] * p + [(0.0, None)] * n,
        constraints=[{"type": "ineq", "fun": lambda v: G @ v - 1.0, "jac": lambda v: G}],
        options={"ftol": tol, "maxiter": 2000},
    )
    return res.x[:p]


def geometric_margin(X: ArrayLike, y: ArrayLike, beta: ArrayLike) -> float:
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


def poly2_features(X: ArrayLike, c: float = 1.0) -> NDArray[np.float64]:
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


def penalized_logistic(Phi: ArrayLike, y: ArrayLike, lam: float, *, tol: float = 1e-12,
                       max_iter: int = 10_000) -> tuple[NDArray[np.float64], float]:
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

r"""Experiments and plotting helpers: SMO's running time, the margin bounds against the sample size.

Chapter *Support vector machines and kernel logistic regression* times kmlib's
SMO on two moons of growing size (:func:`smo_cost`), fits the kernel SVM for
several sample sizes and evaluates the margin bounds of
``kmlib.book.margin.bounds`` on it (:func:`margin_bound_experiment`), and draws
decision functions on a grid (:func:`decision_grid`).
"""
from __future__ import annotations

import time
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from kmlib._validation import check_int, check_matrix, check_positive, check_real

from .bounds import MarginBounds, margin_bounds
from .losses import ramp_margin_loss

__all__ = [
    "smo_cost",
    "BoundExperiment",
    "margin_bound_experiment",
    "decision_grid",
]


#: Timed runs per size that :func:`smo_cost` accepts (a guard against runs that never end).
_MAX_REPEATS = 1000


def smo_cost(ns: ArrayLike, sigma: float, C: float, *, noise: float = 0.2, tol: float = 1e-3,
             repeats: int = 3, seed: int = 0) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
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
        Timed runs per size, at most 1000.
    seed : int
        Seed of the data, >= 0 (size ``ns[i]`` uses ``seed + i``).

    Returns
    -------
    times : ndarray of shape (len(ns),)
        Seconds.
    iterations : ndarray of shape (len(ns),)
        SMO iterations (two-variable updates).
    """
    from kmlib import datasets, kernels, svm

    ns = [check_int(n, "ns", minimum=4) for n in np.atleast_1d(ns)]
    sigma = check_positive(sigma, "sigma")
    C = check_positive(C, "C")
    repeats = check_int(repeats, "repeats", minimum=1, maximum=_MAX_REPEATS)
    seed = check_int(seed, "seed", minimum=0)
    k = kernels.gaussian(sigma)
    times, iters = [], []
    for i, n in enumerate(ns):
        X, y = datasets.two_moons(n, noise=noise, random_state=seed + i)
        K = k(X)
        best = np.inf
        for _ in range(repeats):
            t0 = time.perf_counter()
            out = svm.smo_solve(K, y, C, tol=tol)
            best = min(best, time.perf_counter() - t0)
        times.append(best)
        iters.append(out.n_iter)
    return np.array(times), np.array(iters, dtype=float)


class BoundExperiment(NamedTuple):
    """Result of :func:`margin_bound_experiment`, one entry per sample size."""

    m: np.ndarray
    test_error: np.ndarray
    margin_loss: np.ndarray
    norm: np.ndarray
    complexity: np.ndarray
    bounds: list[MarginBounds]


def margin_bound_experiment(ms: ArrayLike, sigma: float, gamma: float, Lambda: float, *,
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
        Seed of the data, >= 0 (the test set uses ``seed + 1000``).

    Returns
    -------
    BoundExperiment
    """
    from kmlib import datasets, kernels, svm

    ms_ = np.array([check_int(m, "ms", minimum=4) for m in np.atleast_1d(ms)])
    sigma = check_positive(sigma, "sigma")
    gamma = check_positive(gamma, "gamma")
    Lambda = check_positive(Lambda, "Lambda")
    n_test = check_int(n_test, "n_test", minimum=1)
    seed = check_int(seed, "seed", minimum=0)
    k = kernels.gaussian(sigma)
    Xt, yt = datasets.two_moons(n_test, noise=noise, random_state=seed + 1000)
    errs, losses, norms, cplx, bounds = [], [], [], [], []
    for i, m in enumerate(ms_):
        X, y = datasets.two_moons(int(m), noise=noise, random_state=seed + i)
        model = svm.KernelSVM(kernel=k, C=1.0 / (2.0 * gamma * m)).fit(X, y)
        c = model.dual_coef_
        norm = float(np.sqrt(c @ k(model.support_vectors_) @ c + model.intercept_**2))
        scale = min(1.0, Lambda / norm) if norm > 0 else 1.0   # f = 0 lies in every ball
        loss = ramp_margin_loss(scale * y * model.decision_function(X), rho)
        errs.append(float(np.mean(model.predict(Xt) != yt)))
        losses.append(loss)
        norms.append(norm)
        cplx.append(2.0 / rho * np.sqrt(2.0 * Lambda**2 / m))
        bounds.append(margin_bounds(loss, int(m), Lambda, 2.0, rho, delta))
    return BoundExperiment(ms_, np.array(errs), np.array(losses), np.array(norms),
                           np.array(cplx), bounds)


def decision_grid(model: Any, X: ArrayLike, n_grid: int = 120,
                  pad: float = 0.4) -> tuple[NDArray[np.float64], NDArray[np.float64],
                                           NDArray[np.float64]]:
    """Evaluate ``model.decision_function`` on a square grid covering ``X``.

    Parameters
    ----------
    model : fitted estimator with ``decision_function``
    X : array of shape (n, 2)
        Points whose bounding box (plus ``pad``) the grid covers.
    n_grid : int
        Grid points per axis, at most 10,000.
    pad : float
        Margin added around the bounding box.

    Returns
    -------
    xx, yy, F : ndarray of shape (n_grid, n_grid)
    """
    if not callable(getattr(model, "decision_function", None)):
        raise TypeError(
            "model must be a fitted estimator with a decision_function method, e.g. a "
            f"kmlib.svm.KernelSVM; got {type(model).__name__}"
        )
    X = check_matrix(X, "X", allow_1d=False)
    if X.shape[1] != 2:
        raise ValueError(f"X must have 2 columns to draw a grid; got {X.shape[1]}")
    n_grid = check_int(n_grid, "n_grid", minimum=2, maximum=10_000)
    pad = check_real(pad, "pad")
    lo, hi = X.min(axis=0) - pad, X.max(axis=0) + pad
    xx, yy = np.meshgrid(np.linspace(lo[0], hi[0], n_grid), np.linspace(lo[1], hi[1], n_grid))
    F = model.decision_function(np.column_stack([xx.ravel(), yy.ravel()])).reshape(xx.shape)
    return xx, yy, F

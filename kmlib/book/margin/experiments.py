r"""Experiments and plotting helpers: SMO's running time, the margin bounds against the sample size.

Chapter *Support vector machines and kernel logistic regression* times kmlib's
SMO on two moons of growing size (:func:`smo_cost`, the repetition of a fit the
chapter shows once) and draws decision functions on a grid (:func:`decision_grid`).
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from kmlib._validation import check_int, check_matrix, check_positive, check_real

__all__ = ["smo_cost", "decision_grid"]


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

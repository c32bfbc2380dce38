"""Ridge regression with a feature matrix by the primal and the dual route, and their cost.

Chapter 3 ("The kernel trick: primal and dual, costs, ...") compares the two
routes to the ridge coefficients with a feature matrix ``Phi`` of shape
``(n, D)``:

* :func:`primal_ridge` -- the ``D x D`` system ``(Phi^T Phi + lam I_D) w = Phi^T y``;
* :func:`dual_ridge` -- the ``n x n`` system ``(Phi Phi^T + lam I_n) alpha = y``,
  then ``w = Phi^T alpha``;
* :func:`time_primal_dual` -- the CPU time of both, which shows the crossover
  between ``O(n D^2 + D^3)`` and ``O(n^2 D + n^3)``.

Scaling: ridge minimises ``||y - Phi w||^2 + lam ||w||^2`` (no ``1/n``).
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from kmlib import krr, ridge
from kmlib._linalg import one_blas_thread
from kmlib._validation import check_int, check_lam, check_rng

from ._common import _check_Phi_y


def _positive_lam(lam: float) -> float:
    lam = check_lam(lam)
    if lam <= 0:
        raise ValueError(
            f"lam must be > 0 for the primal and dual ridge systems; got {lam!r} "
            "(use spectral_fit(Phi, y, 0, 'pinv') for the minimum-norm least-squares fit)"
        )
    return lam


# ---------------------------------------------------------------------------
# primal and dual ridge
# ---------------------------------------------------------------------------
def primal_ridge(Phi: ArrayLike, y: ArrayLike, lam: float) -> NDArray[np.float64]:
    """Ridge coefficients through the ``D x D`` (primal) system.

    Parameters
    ----------
    Phi : array of shape (n, D)
        Feature matrix, ``Phi[i, j] = phi_j(x_i)``.
    y : array of shape (n,)
        Responses.
    lam : float
        Penalty ``lam > 0``.

    Returns
    -------
    ndarray of shape (D,)
        ``w = (Phi^T Phi + lam I_D)^{-1} Phi^T y``, by a Cholesky factorisation.
        Cost ``O(n D^2 + D^3)`` time and ``O(D^2 + n D)`` memory.
    """
    P, v = _check_Phi_y(Phi, y)
    lam = _positive_lam(lam)
    return ridge.ridge(P, v, lam, method="primal")


def dual_ridge(Phi: ArrayLike, y: ArrayLike, lam: float, *, return_alpha: bool = False
               ) -> NDArray[np.float64] | tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Ridge coefficients through the ``n x n`` (dual) system.

    Parameters
    ----------
    Phi : array of shape (n, D)
        Feature matrix.
    y : array of shape (n,)
        Responses.
    lam : float
        Penalty ``lam > 0``.
    return_alpha : bool, default False
        Also return the dual coefficients ``alpha = (Phi Phi^T + lam I_n)^{-1} y``.

    Returns
    -------
    w : ndarray of shape (D,)
        ``w = Phi^T alpha``.  Cost ``O(n^2 D + n^3)`` time, ``O(n^2 + n D)`` memory.
    alpha : ndarray of shape (n,)
        Only when ``return_alpha`` is True.
    """
    P, v = _check_Phi_y(Phi, y)
    lam = _positive_lam(lam)
    alpha = krr.krr_fit(P @ P.T, v, lam)
    w = P.T @ alpha
    return (w, alpha) if return_alpha else w


#: Timings per route and dimension that :func:`time_primal_dual` accepts.
_MAX_REPEATS = 1000


def time_primal_dual(n: int, Ds: ArrayLike, lam: float = 1.0, *, repeats: int = 3,
                     seed: int | np.random.Generator | None = 0) -> dict[str, NDArray[Any]]:
    """CPU time of the primal and the dual ridge solve on Gaussian features.

    For each ``D`` in ``Ds`` a standard normal ``Phi`` of shape ``(n, D)`` and a
    response are drawn, and each route is timed ``repeats`` times; the minimum
    is kept (the least disturbed run).  The timings use one BLAS thread and
    the process's CPU time (:func:`time.process_time`), so that they measure
    the operation count rather than the load of a shared machine.

    Parameters
    ----------
    n : int
        Number of samples.
    Ds : sequence of int
        Feature dimensions.
    lam : float, default 1.0
        Penalty ``lam > 0``.
    repeats : int, default 3
        Timings per route and dimension, at most 1000.
    seed : None, int or Generator
        Seed of the random features.

    Returns
    -------
    dict
        ``"D"`` (int array), ``"primal"`` and ``"dual"`` (CPU seconds), and
        ``"rel_diff"``, the relative difference ``||w_P - w_D|| / ||w_P||`` of the
        two answers at each ``D``.
    """
    n = check_int(n, "n", minimum=1)
    Ds = np.asarray(Ds)
    if Ds.ndim != 1 or Ds.size == 0 or not np.issubdtype(Ds.dtype, np.integer) or np.any(Ds < 1):
        raise ValueError(f"Ds must be a non-empty 1-D sequence of positive integers; got {Ds!r}")
    lam = _positive_lam(lam)
    repeats = check_int(repeats, "repeats", minimum=1, maximum=_MAX_REPEATS)
    rng = check_rng(seed)
    out = {k: np.empty(Ds.size) for k in ("primal", "dual", "rel_diff")}
    with one_blas_thread():
        _time_routes(n, Ds, lam, repeats, rng, out)
    out["D"] = Ds.astype(int)
    return out


def _time_routes(n: int, Ds: NDArray[np.integer], lam: float, repeats: int,
                 rng: np.random.Generator, out: dict[str, NDArray[Any]]) -> None:
    for i, D in enumerate(Ds):
        Phi = rng.standard_normal((n, int(D)))
        y = rng.standard_normal(n)
        best = {}
        for name, solver in (("primal", primal_ridge), ("dual", dual_ridge)):
            times = []
            for _ in range(repeats):
                t0 = time.process_time()
                w = solver(Phi, y, lam)
                times.append(time.process_time() - t0)
            best[name] = w
            out[name][i] = min(times)
        out["rel_diff"][i] = _rel_diff(best["primal"], best["dual"])


def _rel_diff(w_p: NDArray[np.float64], w_d: NDArray[np.float64]) -> float:
    """``||w_P - w_D|| / ||w_P||``, also when the norms under- or overflow (a huge ``lam``)."""
    diff = w_p - w_d
    num, den = np.linalg.norm(diff), np.linalg.norm(w_p)
    if 0.0 < den < np.inf and num < np.inf:
        return float(num / den)
    scale = float(np.max(np.abs(w_p)))
    if scale == 0.0:
        return 0.0 if not np.any(diff) else float("inf")
    return float(np.linalg.norm(diff / scale) / np.linalg.norm(w_p / scale))


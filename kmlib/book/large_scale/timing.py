"""Measuring: wall time, peak memory, and the cost of exact kernel ridge regression.

Chapter "Large-scale kernel machines: random features and Nystrom": :func:`timed`
and :func:`measure` time any computation (the chapter's streaming run uses
:func:`measure`), and :func:`exact_krr_cost` gives the time and peak memory of exact
Gaussian kernel ridge regression against the sample size ``n``, the cost that
motivates the approximations of the chapter.
"""
from __future__ import annotations

import math
import time
import tracemalloc
from typing import Any, Callable, Iterable

import numpy as np
from scipy import linalg

from kmlib import kernels
from kmlib._linalg import one_blas_thread
from kmlib._typing import Seed
from kmlib._validation import check_int, check_positive, check_rng

__all__ = ["timed", "measure", "exact_krr_cost"]

#: Largest number of timed runs: the fastest of a thousand runs is as good an estimate
#: as timing gets, and a larger count is a mistake that would run for hours.
_MAX_REPEATS = 1000


def timed(fn: Callable[[], Any], repeats: int = 1) -> tuple[Any, float]:
    """Run ``fn()`` ``repeats`` times; return the last result and the fastest wall time.

    ``repeats`` lies between 1 and 1000.
    """
    if not callable(fn):
        raise ValueError(f"fn must be callable; got {type(fn).__name__}")
    repeats = check_int(repeats, "repeats", minimum=1, maximum=_MAX_REPEATS)
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return out, best


def measure(fn: Callable[[], Any]) -> tuple[Any, float, int]:
    """Run ``fn()`` once and return ``(result, seconds, peak_bytes)``.

    ``peak_bytes`` is the peak of memory allocated through Python and numpy
    during the call (:mod:`tracemalloc`), above what was allocated before it.
    """
    if not callable(fn):
        raise ValueError(f"fn must be callable; got {type(fn).__name__}")
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    t0 = time.perf_counter()
    try:
        out = fn()
        seconds = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        if not was_tracing:
            tracemalloc.stop()
    return out, seconds, int(peak)


def _exact_krr(X: np.ndarray, y: np.ndarray, sigma: float, lam: float) -> np.ndarray:
    """Exact KRR dual coefficients: Gram matrix, one Cholesky in place, two solves."""
    K = kernels.gaussian(sigma)(X)
    K.flat[:: K.shape[0] + 1] += lam
    c = linalg.cho_factor(K, lower=True, overwrite_a=True, check_finite=False)
    return linalg.cho_solve(c, y, check_finite=False)


def exact_krr_cost(ns: Iterable[int], *, d: int = 5, sigma: float = 1.0, lam: float = 1e-2,
                   repeats: int = 2, seed: Seed = 0) -> dict[str, np.ndarray]:
    """Wall time and peak memory of exact Gaussian kernel ridge regression against ``n``.

    For every ``n`` the inputs are ``N(0, I_d)``, the responses ``sin`` of the
    first coordinate plus noise; the timed work is the Gram matrix, one Cholesky
    factorisation of ``K + lam I`` (in place) and the solve.

    Parameters
    ----------
    ns : iterable of int
        Sample sizes (each >= 2).
    d : int, default=5
        Input dimension.
    sigma, lam : float
        Gaussian bandwidth and ridge penalty (objective: sum of squared errors
        plus ``lam ||f||^2``).
    repeats : int, default=2
        Timed runs per size, at most 1000 (the fastest is kept); memory is traced
        in one further run, since tracing slows the code down.
    seed : None, int or Generator

    Returns
    -------
    dict
        ``n`` (int array), ``seconds`` and ``peak_bytes`` (arrays of the same length).
    """
    ns = np.array([check_int(n, "ns[i]", minimum=2) for n in ns], dtype=int)
    if ns.size == 0:
        raise ValueError("ns must hold at least one sample size; got an empty sequence")
    d = check_int(d, "d", minimum=1)
    sigma = check_positive(sigma, "sigma")
    lam = check_positive(lam, "lam")
    repeats = check_int(repeats, "repeats", minimum=1, maximum=_MAX_REPEATS)
    rng = check_rng(seed)
    secs, peaks = [], []
    with one_blas_thread():
        for n in ns:
            X = rng.standard_normal((n, d))
            y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(n)
            _, s = timed(lambda X=X, y=y: _exact_krr(X, y, sigma, lam), repeats)
            _, _, p = measure(lambda X=X, y=y: _exact_krr(X, y, sigma, lam))
            secs.append(s)
            peaks.append(p)
    return {"n": ns, "seconds": np.array(secs), "peak_bytes": np.array(peaks, dtype=float)}

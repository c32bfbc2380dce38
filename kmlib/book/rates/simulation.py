"""The MSPE of kernel ridge regression by simulation, and the rate study.

Chapter "How fast does kernel ridge regression learn?": the MSPE at the design by
Monte Carlo over the noise (:func:`mspe_monte_carlo`), the penalty of the rate
theorem ``lam = n (sigma^2/n)^{2/3}`` (:func:`rate_lambda`), the exact MSPE
against n averaged over random uniform designs (:func:`rate_study`, through
:func:`kmlib.book.rates.sobolev_mspe`) and the log-log slope of such a curve with its
standard error (:func:`loglog_slope_se`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import linalg

from kmlib._linalg import one_blas_thread
from kmlib._typing import Seed
from kmlib._validation import (
    as_float_array,
    check_gram_psd,
    check_int,
    check_nonnegative,
    check_positive,
    check_rng,
    check_square,
    check_symmetric,
    check_vector,
)

from ._common import _lam_grid
from .brownian import sobolev_mspe

__all__ = ["mspe_monte_carlo", "rate_lambda", "rate_study", "loglog_slope_se"]


@one_blas_thread()
def mspe_monte_carlo(K: ArrayLike, f0: ArrayLike, sigma: float, lams: ArrayLike, n_reps: int,
                     seed: Seed = None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Monte-Carlo estimate of the MSPE of KRR at the design, with its standard error.

    Draws ``n_reps`` noise vectors :math:`\varepsilon \sim N(0, \sigma^2 I)`, fits
    :math:`\hat f = K(K + \lambda I)^{-1}(f^0 + \varepsilon)` for every penalty and
    averages :math:`\frac1n\|\hat f - f^0\|^2`.  One eigendecomposition of ``K``
    serves all penalties and replications; the errors are evaluated in the
    eigenbasis, where the orthogonal rotation leaves the norm unchanged.

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric positive semi-definite Gram matrix.
    f0 : array of shape (n,)
        True function at the design.
    sigma : float
        Noise standard deviation (>= 0).
    lams : float or 1-D array
        Penalties (> 0).
    n_reps : int
        Number of noise draws (>= 2).
    seed : int, Generator or None
        Source of randomness.

    Returns
    -------
    mean, se : ndarray of shape (L,)
        Monte-Carlo mean of the MSPE and its standard error.
    """
    K = check_square(K, "K")
    check_symmetric(K, "K")
    f0 = check_vector(f0, "f0")
    if f0.shape[0] != K.shape[0]:
        raise ValueError(f"f0 must have length {K.shape[0]} (rows of K); got {f0.shape[0]}")
    sigma = check_nonnegative(sigma, "sigma")
    lams, _ = _lam_grid(lams, "lams")
    n_reps = check_int(n_reps, "n_reps", minimum=2)
    rng = check_rng(seed)
    n = K.shape[0]
    d, U = linalg.eigh(0.5 * (K + K.T))
    check_gram_psd(K, "K", evals=d, who="mspe_monte_carlo")
    d = np.clip(d, 0.0, None)
    theta = U.T @ f0
    Z = theta[:, None] + U.T @ (sigma * rng.standard_normal((n, n_reps)))   # U^T Y, (n, R)
    err = np.empty((lams.shape[0], n_reps))
    for j, lam in enumerate(lams):
        s = d / (d + lam)
        err[j] = np.sum((s[:, None] * Z - theta[:, None]) ** 2, axis=0) / n
    return err.mean(axis=1), err.std(axis=1, ddof=1) / np.sqrt(n_reps)


def rate_lambda(n: ArrayLike, sigma2: float) -> float | NDArray[np.float64]:
    r"""The penalty :math:`\lambda = n(\sigma^2/n)^{2/3}`.

    That is, :math:`\gamma_n = (\sigma^2/n)^{2/3}`.
    """
    sigma2 = check_positive(sigma2, "sigma2")
    n_arr = as_float_array(n, "n")
    if not np.all(np.isfinite(n_arr)):
        raise ValueError(f"n must be finite sample sizes (>= 1); got {n!r}")
    if np.any(n_arr < 1):
        raise ValueError(f"n must be >= 1; got {n!r}")
    return n_arr * (sigma2 / n_arr) ** (2.0 / 3.0)


@one_blas_thread()
def rate_study(f0s: Sequence[Callable[[np.ndarray], np.ndarray]], ns: ArrayLike, sigma: float,
               n_reps: int, seed: Seed = None) -> NDArray[np.float64]:
    r"""Exact MSPE of KRR with ``min(x, x')`` at :math:`\lambda = n(\sigma^2/n)^{2/3}`.

    For every sample size ``n`` in ``ns`` and every replication, draws a design
    :math:`x_i \sim U(0, 1]` and evaluates the exact MSPE (expectation over the
    noise) of each target in ``f0s`` with :func:`sobolev_mspe`; the same designs
    serve all targets.  Averaging over the replications estimates the MSPE of a
    random design.

    Parameters
    ----------
    f0s : sequence of callables
        Targets ``f(x)`` on [0, 1] with ``f(0) = 0`` (members of the RKHS).
    ns : 1-D array of int
        Sample sizes (>= 2).
    sigma : float
        Noise standard deviation (> 0).
    n_reps : int
        Designs per sample size (>= 2).
    seed : int, Generator or None
        Source of randomness.

    Returns
    -------
    ndarray of shape (len(f0s), len(ns), n_reps)
        The exact MSPE for each target, sample size and design.
    """
    ns_arr = as_float_array(ns, "ns")
    if ns_arr.ndim != 1 or ns_arr.size == 0:
        raise ValueError(f"ns must be a non-empty 1-D array of sample sizes; got {ns!r}")
    if not np.all(np.isfinite(ns_arr)) or np.any(ns_arr != np.round(ns_arr)):
        raise ValueError(f"ns must contain only finite integer sample sizes (>= 2); got {ns!r}")
    ns_list = [check_int(int(v), "ns[i]", minimum=2) for v in ns_arr.tolist()]
    sigma = check_positive(sigma, "sigma")
    if not np.isfinite(sigma * sigma):
        raise ValueError(f"sigma must be small enough that sigma**2 is finite; got {sigma!r}")
    n_reps = check_int(n_reps, "n_reps", minimum=2)
    if len(f0s) == 0 or not all(callable(f) for f in f0s):
        raise ValueError("f0s must be a non-empty sequence of callables f(x)")
    rng = check_rng(seed)
    out = np.empty((len(f0s), len(ns_list), n_reps))
    for a, n in enumerate(ns_list):
        lam = float(rate_lambda(n, sigma**2))
        for r in range(n_reps):
            x = 1.0 - rng.uniform(0.0, 1.0, size=n)        # in (0, 1]
            F = np.column_stack([f(x) for f in f0s])
            out[:, a, r] = sobolev_mspe(x, F, sigma**2, lam)
    return out


def loglog_slope_se(ns: ArrayLike, values: ArrayLike) -> tuple[float, float]:
    r"""Log-log slope of the mean of ``values`` against ``ns``, with its standard error.

    The slope is the least-squares slope of :math:`\log\bar m_a` on :math:`\log n_a`,
    where :math:`\bar m_a` is the mean of row ``a`` of ``values`` (independent
    replications at sample size :math:`n_a`).  It is a linear combination
    :math:`\sum_a w_a\log\bar m_a`; with the delta method
    :math:`\operatorname{Var}\log\bar m_a \approx (s_a/\bar m_a)^2`, where :math:`s_a` is the
    standard error of :math:`\bar m_a`, and independence across sample sizes, its
    standard error is :math:`(\sum_a w_a^2 s_a^2/\bar m_a^2)^{1/2}`.

    Parameters
    ----------
    ns : 1-D array of shape (A,)
        Sample sizes (> 0).
    values : array of shape (A, R)
        Positive replications (R >= 2) at each sample size.

    Returns
    -------
    slope, se : float
    """
    ns_v = check_vector(ns, "ns")
    if np.any(ns_v <= 0):
        raise ValueError(f"ns must be > 0 for a log-log slope; got minimum {ns_v.min()!r}")
    if np.ptp(ns_v) == 0:
        raise ValueError("ns must contain at least two distinct sample sizes for a slope")
    lx = np.log(ns_v)
    V = as_float_array(values, "values")
    if V.ndim != 2 or V.shape[0] != lx.shape[0] or V.shape[1] < 2:
        raise ValueError(
            f"values must have shape ({lx.shape[0]}, R) with R >= 2; got shape {V.shape}"
        )
    if not np.all(np.isfinite(V)) or np.any(V <= 0):
        raise ValueError("values must be positive and finite for a log-log slope")
    m = V.mean(axis=1)
    se = V.std(axis=1, ddof=1) / np.sqrt(V.shape[1])
    c = lx - lx.mean()
    w = c / np.sum(c * c)
    return float(w @ np.log(m)), float(np.sqrt(np.sum(w**2 * (se / m) ** 2)))

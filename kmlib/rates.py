"""Rates of convergence for kernel ridge regression.

This module serves the chapter "How fast does kernel ridge regression learn?" (the
risk bound, Mercer spectra and the rate (sigma^2/n)^{2/3}).  It holds the computations
of that chapter that are too long for a notebook cell; the exact risk and the two
bounds of the MSPE theorem live in :mod:`kmlib.theory`.

Convention (the book's): KRR minimises ``sum_i (Y_i - f(x_i))**2 + lam * ||f||_H**2``,
so the fitted values at the design are ``K (K + lam I)^{-1} Y``; the rescaled penalty
is ``gamma = lam / n`` and ``mu_hat_i = d_i / n`` are the eigenvalues of ``K / n``.

* :func:`brownian_precision` -- the tridiagonal inverse of the ``min(x, x')`` Gram matrix.
* :func:`mspe_monte_carlo` -- the MSPE at the design by simulating the noise.
* :func:`sobolev_mspe` -- the exact MSPE for ``min(x, x')`` in O(n) per penalty,
  through the tridiagonal inverse of the Brownian-motion Gram matrix.
* :func:`rate_study` -- the MSPE against n at ``lam = n (sigma^2/n)^{2/3}``,
  averaged over uniform random designs.
* :func:`power_min_sum` -- ``sum_j min(c (j - s)^{-p}, gamma)`` exactly (Hurwitz zeta).
* :func:`sobolev_sum_bound` -- the bound ``sqrt(gamma)/pi + gamma/2``.
* :func:`design_min_sums` -- ``(1/n) sum_i min(mu_hat_i/4, gamma)`` over random designs.
* :func:`grid_min_eigenvalues` -- closed-form eigenvalues of ``K/n`` for ``min`` on a grid.
* :func:`cv_table` -- batched v-fold CV over length scales and penalties.
* :func:`smoothness_experiment`, :func:`smoothness_repeat` -- the smoothness-matching
  experiment (two targets, three kernels, length scale and penalty by 5-fold CV).
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy import linalg, special

from . import datasets, kernels
from ._validation import (
    check_int,
    check_lam,
    check_nonnegative,
    check_positive,
    check_rng,
    check_square,
    check_vector,
)

__all__ = [
    "SMOOTHNESS_KERNELS",
    "TARGETS",
    "brownian_precision",
    "cv_table",
    "design_min_sums",
    "grid_min_eigenvalues",
    "loglog_slope_se",
    "mspe_monte_carlo",
    "power_min_sum",
    "rate_lambda",
    "rate_study",
    "smoothness_experiment",
    "smoothness_repeat",
    "sobolev_mspe",
    "sobolev_sum_bound",
]


try:  # shipped with scikit-learn; without it BLAS keeps its threads
    from threadpoolctl import threadpool_limits as _threadpool_limits
except ImportError:  # pragma: no cover
    _threadpool_limits = None


_LIMITED = False     # True while an outer call already holds the one-thread limit


def _one_blas_thread(func: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``func`` with one BLAS thread.

    Its many small factorisations gain nothing from threading and lose a factor of ten or
    more to thread spinning on a busy machine. Nested calls reuse the outer limit (setting
    one costs milliseconds).
    """
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        global _LIMITED
        if _LIMITED or _threadpool_limits is None:
            return func(*args, **kwargs)
        with _threadpool_limits(limits=1, user_api="blas"):
            _LIMITED = True
            try:
                return func(*args, **kwargs)
            finally:
                _LIMITED = False
    return wrapper


def _lam_grid(lam: Any, name: str = "lam") -> tuple[np.ndarray, bool]:
    scalar = np.ndim(lam) == 0
    arr = np.atleast_1d(check_lam(lam, name, allow_array=True))
    if np.any(arr <= 0):
        raise ValueError(f"{name} must be > 0; got minimum {arr.min()!r}")
    return arr, scalar


# --------------------------------------------------------------------------- #
# the MSPE at the design: Monte Carlo and the fast exact route for min(x, x')
# --------------------------------------------------------------------------- #
@_one_blas_thread
def mspe_monte_carlo(K: Any, f0: Any, sigma: float, lams: Any, n_reps: int,
                     seed: Any = None) -> tuple[np.ndarray, np.ndarray]:
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
    f0 = check_vector(f0, "f0")
    if f0.shape[0] != K.shape[0]:
        raise ValueError(f"f0 must have length {K.shape[0]} (rows of K); got {f0.shape[0]}")
    sigma = check_nonnegative(sigma, "sigma")
    lams, _ = _lam_grid(lams, "lams")
    n_reps = check_int(n_reps, "n_reps", minimum=2)
    rng = check_rng(seed)
    n = K.shape[0]
    d, U = linalg.eigh(0.5 * (K + K.T))
    d = np.clip(d, 0.0, None)
    theta = U.T @ f0
    Z = theta[:, None] + U.T @ (sigma * rng.standard_normal((n, n_reps)))   # U^T Y, (n, R)
    err = np.empty((lams.shape[0], n_reps))
    for j, lam in enumerate(lams):
        s = d / (d + lam)
        err[j] = np.sum((s[:, None] * Z - theta[:, None]) ** 2, axis=0) / n
    return err.mean(axis=1), err.std(axis=1, ddof=1) / np.sqrt(n_reps)


def brownian_precision(x: Any) -> tuple[np.ndarray, np.ndarray]:
    r"""The tridiagonal inverse of the Gram matrix of ``min(x, x')`` at sorted points.

    For :math:`0 < x_1 < \dots < x_n`, with :math:`h_i = x_i - x_{i-1}` and :math:`x_0 = 0`,
    :math:`K^{-1}` has diagonal :math:`1/h_i + 1/h_{i+1}` (:math:`1/h_n` in the last
    row) and off-diagonal :math:`-1/h_{i+1}`: the precision matrix of Brownian motion.

    Parameters
    ----------
    x : array of shape (n,)
        Strictly increasing points in (0, inf).

    Returns
    -------
    diag : ndarray of shape (n,)
    off : ndarray of shape (n - 1,)
    """
    x = check_vector(x, "x")
    if x[0] <= 0.0 or np.any(np.diff(x) <= 0.0):
        raise ValueError("x must be strictly increasing and positive; sort it and drop repeats")
    h = np.diff(np.concatenate([[0.0], x]))            # h_i = x_i - x_{i-1}, x_0 = 0
    inv_h = 1.0 / h
    diag = inv_h.copy()
    diag[:-1] += inv_h[1:]
    return diag, -inv_h[1:]


def sobolev_mspe(x: Any, f0: Any, sigma2: float, lam: Any) -> Any:
    r"""Exact MSPE of KRR with the kernel :math:`\min(x, x')` at the design ``x``.

    For sorted distinct points :math:`0 < x_1 < \dots < x_n` the Gram matrix
    :math:`K = (\min(x_i, x_j))` has a tridiagonal inverse :math:`Q` (the
    precision matrix of Brownian motion): with :math:`h_i = x_i - x_{i-1}`,
    :math:`x_0 = 0`, :math:`Q_{ii} = 1/h_i + 1/h_{i+1}` (:math:`1/h_n` for
    :math:`i = n`) and :math:`Q_{i,i+1} = -1/h_{i+1}`.  Then
    :math:`S = K(K + \lambda I)^{-1} = (I + \lambda Q)^{-1}`, so the squared bias
    :math:`\|(S - I)f^0\|^2 = \|\lambda Q b\|^2` with :math:`(I + \lambda Q)b = f^0`
    costs one banded solve, and the variance :math:`\sigma^2\operatorname{tr}S^2
    = \sigma^2\sum_i (1 + \lambda t_i)^{-2}` needs only the eigenvalues :math:`t_i`
    of the tridiagonal :math:`Q` (no eigenvectors).  This is the fast path of the
    rate experiment.

    Parameters
    ----------
    x : array of shape (n,)
        Distinct design points in (0, 1] (any order).
    f0 : array of shape (n,) or (n, m)
        True function(s) at ``x`` (same order as ``x``); columns are separate targets.
    sigma2 : float
        Noise variance (>= 0).
    lam : float or 1-D array
        Penalties (> 0).

    Returns
    -------
    float or ndarray
        :math:`(\|(S - I)f^0\|^2 + \sigma^2\operatorname{tr}S^2)/n`; shape ``(L,)``
        (or a float for scalar ``lam``) for one target, ``(L, m)`` (or ``(m,)``) for
        ``m`` targets.
    """
    x = check_vector(x, "x")
    F = np.asarray(f0, dtype=float)
    if F.ndim not in (1, 2) or F.shape[0] != x.shape[0] or not np.all(np.isfinite(F)):
        raise ValueError(
            f"f0 must be a finite array of shape ({x.shape[0]},) or ({x.shape[0]}, m); "
            f"got shape {F.shape}"
        )
    one = F.ndim == 1
    F = F.reshape(x.shape[0], -1)
    if x.min() <= 0.0 or x.max() > 1.0:
        raise ValueError(f"x must lie in (0, 1]; got values in [{x.min()!r}, {x.max()!r}]")
    order = np.argsort(x, kind="stable")
    xs, fs = x[order], F[order]
    if np.any(np.diff(xs) <= 0.0):
        raise ValueError("x must contain distinct points; got a repeated value")
    sigma2 = check_nonnegative(sigma2, "sigma2")
    lams, scalar = _lam_grid(lam)
    n = xs.shape[0]
    q_diag, q_off = brownian_precision(xs)
    t = linalg.eigvalsh_tridiagonal(q_diag, q_off)
    out = np.empty((lams.shape[0], F.shape[1]))
    for j, lv in enumerate(lams):
        ab = np.zeros((2, n))                         # lower banded form of I + lam Q
        ab[0] = 1.0 + lv * q_diag
        ab[1, :-1] = lv * q_off
        b = linalg.solveh_banded(ab, fs, lower=True)
        qb = q_diag[:, None] * b
        qb[:-1] += q_off[:, None] * b[1:]
        qb[1:] += q_off[:, None] * b[:-1]
        bias2 = lv**2 * np.sum(qb * qb, axis=0)
        var = sigma2 * np.sum(1.0 / (1.0 + lv * t) ** 2)
        out[j] = (bias2 + var) / n
    if one:
        out = out[:, 0]
    return out[0] if scalar and not one else (float(out[0]) if scalar else out)


def rate_lambda(n: Any, sigma2: float) -> Any:
    r"""The penalty :math:`\lambda = n(\sigma^2/n)^{2/3}`.

    That is, :math:`\gamma_n = (\sigma^2/n)^{2/3}`.
    """
    sigma2 = check_positive(sigma2, "sigma2")
    n_arr = np.asarray(n, dtype=float)
    if np.any(n_arr < 1):
        raise ValueError(f"n must be >= 1; got {n!r}")
    return n_arr * (sigma2 / n_arr) ** (2.0 / 3.0)


@_one_blas_thread
def rate_study(f0s: Sequence[Callable[[np.ndarray], np.ndarray]], ns: Any, sigma: float,
               n_reps: int, seed: Any = None) -> np.ndarray:
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
    ns_arr = np.asarray(ns)
    if ns_arr.ndim != 1 or ns_arr.size == 0:
        raise ValueError(f"ns must be a non-empty 1-D array of sample sizes; got {ns!r}")
    ns_list = [check_int(int(v) if float(v) == int(v) else v, "ns[i]", minimum=2)
               for v in ns_arr.tolist()]
    sigma = check_positive(sigma, "sigma")
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


def loglog_slope_se(ns: Any, values: Any) -> tuple[float, float]:
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
    lx = np.log(check_vector(ns, "ns"))
    V = np.asarray(values, dtype=float)
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


# --------------------------------------------------------------------------- #
# Mercer spectra: sums of min(mu_j, gamma)
# --------------------------------------------------------------------------- #
def power_min_sum(gamma: Any, c: float, p: float, shift: float = 0.0) -> Any:
    r"""Exact :math:`\sum_{j\ge1}\min(c\,(j - s)^{-p}, \gamma)` for a power-law spectrum.

    The terms exceed :math:`\gamma` exactly for the first
    :math:`J = \max(0, \lceil s + (c/\gamma)^{1/p}\rceil - 1)` indices, and the
    tail is a Hurwitz zeta value, :math:`\sum_{j > J} c(j - s)^{-p} = c\,\zeta(p, J + 1 - s)`.

    Examples: the Sobolev spectrum :math:`\mu_j = 4/(\pi^2(2j - 1)^2)` is
    ``c = 1/pi**2, p = 2, shift = 0.5`` (and :math:`\mu_j/4` is ``c = 1/(4 pi**2)``);
    the slow spectrum :math:`\mu_j = j^{-1.1}` is ``c = 1, p = 1.1``.

    Parameters
    ----------
    gamma : float or 1-D array
        Thresholds (> 0).
    c : float
        Scale (> 0).
    p : float
        Exponent (> 1, so that the series converges).
    shift : float, default 0
        Shift :math:`s \in [0, 1)`.

    Returns
    -------
    float or ndarray
        The sum, with the shape of ``gamma``.
    """
    g, scalar = _lam_grid(gamma, "gamma")
    c = check_positive(c, "c")
    p = check_positive(p, "p")
    if p <= 1.0:
        raise ValueError(f"p must be > 1 for a summable spectrum; got {p!r}")
    shift = check_nonnegative(shift, "shift")
    if shift >= 1.0:
        raise ValueError(f"shift must lie in [0, 1); got {shift!r}")
    J = np.maximum(0.0, np.ceil(shift + (c / g) ** (1.0 / p)) - 1.0)
    # guard the boundary case c (J - s)^{-p} == gamma exactly (rounding of the root)
    base = np.where(J >= 1, J - shift, 1.0)
    J = np.where((J >= 1) & (c * base ** (-p) < g), J - 1, J)
    out = J * g + c * special.zeta(p, J + 1.0 - shift)
    return float(out[0]) if scalar else out


def sobolev_sum_bound(gamma: Any) -> Any:
    r"""The bound :math:`\sqrt\gamma/\pi + \gamma/2` on the Sobolev effective dimension.

    The bound is on :math:`\sum_j\min(\mu_j/4, \gamma)` for the Sobolev spectrum
    :math:`\mu_j = 4/(\pi^2(2j - 1)^2)`.
    """
    g, scalar = _lam_grid(gamma, "gamma")
    out = np.sqrt(g) / np.pi + g / 2.0
    return float(out[0]) if scalar else out


@_one_blas_thread
def design_min_sums(n: int, gammas: Any, n_designs: int, seed: Any = None,
                    kernel: Callable[..., Any] | None = None) -> np.ndarray:
    r"""Values of :math:`\frac1n\sum_i\min(\hat\mu_i/4, \gamma)` over random uniform designs.

    Each design draws :math:`x_1, \dots, x_n \sim U[0, 1]`; :math:`\hat\mu_i` are
    the eigenvalues of :math:`K/n`.  The mean over designs estimates the left side
    of the lemma comparing design and Mercer eigenvalues.

    Parameters
    ----------
    n : int
        Design size (>= 1).
    gammas : float or 1-D array
        Thresholds (> 0).
    n_designs : int
        Number of random designs (>= 2).
    seed : int, Generator or None
        Source of randomness.
    kernel : callable, optional
        Kernel ``k(X, Y=None)`` on [0, 1]; default :func:`kmlib.kernels.sobolev1`.

    Returns
    -------
    ndarray of shape (n_designs, len(gammas))
    """
    n = check_int(n, "n", minimum=1)
    g, _ = _lam_grid(gammas, "gammas")
    n_designs = check_int(n_designs, "n_designs", minimum=2)
    rng = check_rng(seed)
    k = kernels.sobolev1() if kernel is None else kernel
    out = np.empty((n_designs, g.shape[0]))
    for r in range(n_designs):
        x = rng.uniform(0.0, 1.0, size=(n, 1))
        mu_hat = np.clip(linalg.eigvalsh(k(x)) / n, 0.0, None)
        out[r] = np.minimum(mu_hat[None, :] / 4.0, g[:, None]).sum(axis=1) / n
    return out


def grid_min_eigenvalues(n: int) -> np.ndarray:
    r"""Closed-form eigenvalues of :math:`K/n` for :math:`\min(x, x')` at :math:`x_i = i/n`.

    The matrix :math:`(\min(i, j))_{i,j\le n}` has eigenvalues
    :math:`1/(4\sin^2(\frac{(2j - 1)\pi}{2(2n + 1)}))`, so :math:`K/n = n^{-2}\min(i, j)`
    has :math:`\hat\mu_j = 1/(4n^2\sin^2(\frac{(2j - 1)\pi}{4n + 2}))`, which tends to
    the Mercer eigenvalue :math:`4/(\pi^2(2j - 1)^2)` as :math:`n \to \infty`.

    Parameters
    ----------
    n : int
        Grid size (>= 1).

    Returns
    -------
    ndarray of shape (n,)
        :math:`\hat\mu_1 \ge \dots \ge \hat\mu_n`.
    """
    n = check_int(n, "n", minimum=1)
    j = np.arange(1, n + 1, dtype=float)
    return 1.0 / (4.0 * n**2 * np.sin((2.0 * j - 1.0) * np.pi / (4.0 * n + 2.0)) ** 2)


# --------------------------------------------------------------------------- #
# the smoothness-matching experiment
# --------------------------------------------------------------------------- #
#: The three kernels of the experiment, rough to smooth: name -> factory of the length scale.
SMOOTHNESS_KERNELS: dict[str, Callable[[float], Any]] = {
    "exponential": lambda ell: kernels.matern(0.5, ell),
    "matern52": lambda ell: kernels.matern(2.5, ell),
    "gaussian": lambda ell: kernels.gaussian(ell),
}

#: The two targets, smooth then rough.
TARGETS: dict[str, Callable[[Any], Any]] = {
    "sine": datasets.sine_target,
    "square": datasets.square_wave_target,
}


@_one_blas_thread
def cv_table(X: Any, y: Any, kernel_factory: Callable[[float], Any], ells: Any,
             lams: Any, folds: Any = 5) -> np.ndarray:
    r"""v-fold CV errors of KRR for every (length scale, penalty) pair, batched.

    The Gram matrices of all length scales are stacked, and on each fold one
    batched symmetric eigendecomposition of the training blocks serves every
    penalty: :math:`\alpha_\lambda = U\,\mathrm{diag}(1/(d + \lambda))\,U^\top y_{tr}`.
    The result equals :func:`kmlib.model_selection.tune_krr`'s table (same folds,
    same error: the mean over all n points of the squared out-of-fold error);
    eigenvalues below zero (round-off of a positive definite kernel) are clipped.

    Parameters
    ----------
    X : array of shape (n,) or (n, 1)
    y : array of shape (n,)
    kernel_factory : callable
        ``kernel_factory(ell)`` returns a kernel ``k(A, B=None)``.
    ells : 1-D array
        Length scales (> 0).
    lams : 1-D array
        Penalties (> 0) on the sum of squared errors.
    folds : int or iterable of (train_idx, test_idx), default 5
        As in :func:`kmlib.model_selection.krr_cv_path` (an int v means
        ``KFold(v, shuffle=True, seed=0)``).

    Returns
    -------
    ndarray of shape (len(ells), len(lams))
    """
    from ._folds import resolve_folds

    X = np.asarray(X, dtype=float)
    X = X[:, None] if X.ndim == 1 else X
    y = check_vector(y, "y")
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must have one row per entry of y ({y.shape[0]}); got shape {X.shape}")
    ells = check_vector(ells, "ells")
    if np.any(ells <= 0):
        raise ValueError(f"ells must be > 0; got minimum {ells.min()!r}")
    lams, _ = _lam_grid(lams, "lams")
    n = y.shape[0]
    Ks = np.stack([kernel_factory(float(e))(X) for e in ells])          # (E, n, n)
    sse = np.zeros((ells.shape[0], lams.shape[0]))
    for tr, te in resolve_folds(folds, n):
        d, U = np.linalg.eigh(Ks[:, tr][:, :, tr])                          # batched, (E, m)
        d = np.clip(d, 0.0, None)
        coef = np.einsum("eij,i->ej", U, y[tr])                             # U^T y, (E, m)
        W = coef[:, :, None] / (d[:, :, None] + lams[None, None, :])       # (E, m, L)
        alpha = np.einsum("eij,ejl->eil", U, W)                             # (E, m, L)
        pred = np.einsum("eti,eil->etl", Ks[:, te][:, :, tr], alpha)        # (E, t, L)
        sse += np.sum((y[te][None, :, None] - pred) ** 2, axis=1)
    return sse / n


@_one_blas_thread
def smoothness_experiment(seed: Any, *, n: int = 40, noise: float = 0.1,
                          ells: Any = None, lams: Any = None, folds: int = 5,
                          n_test: int = 1000,
                          kernel_factories: dict[str, Callable[[float], Any]] | None = None,
                          ) -> dict[str, Any]:
    r"""One run of the smoothness-matching experiment.

    For each target (``sin(4 pi x)``, then the square wave) a fresh training set
    of ``n`` uniform points with Gaussian noise of standard deviation ``noise`` is
    drawn; for each kernel of :data:`SMOOTHNESS_KERNELS` the length scale and the
    penalty are chosen together by ``folds``-fold cross-validation
    (:func:`cv_table`: per fold, one batched factorisation serves every length
    scale and penalty), the model is refitted on all ``n`` points with one
    Cholesky factorisation, and it is scored by its mean squared error against
    the noiseless target on ``n_test`` equally spaced points of [0, 1].

    Parameters
    ----------
    seed : int or Generator
        Seed of the two training sets (the fold split is ``KFold(folds, seed=0)``).
    n : int, default 40
    noise : float, default 0.1
    ells : 1-D array, default ``logspace(-2, 0, 15)``
    lams : 1-D array, default ``logspace(-8, 0, 17)``
        Penalties on the sum of squared errors (the book's scaling).
    folds : int, default 5
    n_test : int, default 1000
    kernel_factories : dict, optional
        Kernels to compare, name -> factory of the length scale; default
        :data:`SMOOTHNESS_KERNELS` (exponential, Matern-5/2, Gaussian).

    Returns
    -------
    dict with keys
        ``"mse"`` (2, k) test MSEs (rows: targets, columns: the k kernels);
        ``"ell"``, ``"lam"`` (2, k) chosen hyper-parameters; ``"cv"`` (2, k, E, L) CV tables;
        ``"x_test"`` (n_test,), ``"fits"`` (2, k, n_test) fitted curves;
        ``"X"``, ``"y"`` lists of the two training sets; ``"targets"``, ``"kernels"`` names.
    """
    n = check_int(n, "n", minimum=max(2, folds if isinstance(folds, int) else 2))
    noise = check_nonnegative(noise, "noise")
    n_test = check_int(n_test, "n_test", minimum=2)
    ells = np.logspace(-2, 0, 15) if ells is None else check_vector(ells, "ells")
    lams = np.logspace(-8, 0, 17) if lams is None else check_vector(lams, "lams")
    factories = SMOOTHNESS_KERNELS if kernel_factories is None else dict(kernel_factories)
    if not factories or not all(callable(f) for f in factories.values()):
        raise ValueError("kernel_factories must be a non-empty dict of name -> callable(ell)")
    rng = check_rng(seed)
    x_test = np.linspace(0.0, 1.0, n_test)
    shape = (len(TARGETS), len(factories))
    mse, ell_hat, lam_hat = np.empty(shape), np.empty(shape), np.empty(shape)
    fits = np.empty(shape + (n_test,))
    cvs = np.empty(shape + (ells.shape[0], lams.shape[0]))
    Xs, ys = [], []
    for a, (tname, target) in enumerate(TARGETS.items()):
        X, y_sine, y_square = datasets.sine_and_square(n, noise, seed=rng)  # fresh draw
        y = y_sine if tname == "sine" else y_square
        Xs.append(X)
        ys.append(y)
        truth = target(x_test)
        for b, factory in enumerate(factories.values()):
            cv = cv_table(X, y, factory, ells, lams, folds)
            i, j = np.unravel_index(np.argmin(cv), cv.shape)
            k = factory(float(ells[i]))
            c, low = linalg.cho_factor(k(X) + lams[j] * np.eye(n))
            fits[a, b] = k(x_test[:, None], X) @ linalg.cho_solve((c, low), y)
            mse[a, b] = np.mean((fits[a, b] - truth) ** 2)
            ell_hat[a, b], lam_hat[a, b], cvs[a, b] = ells[i], lams[j], cv
    return {"mse": mse, "ell": ell_hat, "lam": lam_hat, "cv": cvs, "x_test": x_test,
            "fits": fits, "X": Xs, "y": ys, "targets": list(TARGETS),
            "kernels": list(factories)}


@_one_blas_thread
def smoothness_repeat(seeds: Sequence[int], **kwargs: Any) -> np.ndarray:
    """Test MSEs of :func:`smoothness_experiment` for each seed: shape (len(seeds), 2, 3)."""
    seeds = list(seeds)
    if not seeds:
        raise ValueError("seeds must be a non-empty sequence of ints; got an empty one")
    return np.array([smoothness_experiment(s, **kwargs)["mse"] for s in seeds])

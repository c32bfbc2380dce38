"""Experiments and estimators for the chapter on large-scale kernel machines.

The chapter is "Large-scale kernel machines: random features and Nystrom". The feature
maps themselves live in :mod:`kmlib.features`; this module holds what the chapter
measures with them:

* :func:`exact_krr_cost` -- time and peak memory of exact kernel ridge regression;
* :func:`spectral_sample`, :func:`shift_invariant_profile`, :func:`bochner_mc` -- the
  spectral pairs of Bochner's theorem in one dimension, checked by Monte Carlo;
* :func:`rff_pair_estimates`, :func:`rff_variance` -- many independent random-feature
  estimates of one Gaussian kernel value, and their closed-form variance;
* :func:`softmax_prf_estimates`, :func:`softmax_prf_variance` -- the same for the
  positive random features of the softmax kernel ``exp(x^T x')``;
* :func:`uniform_max_errors` -- the largest error over all pairs of points, per draw;
* :func:`nystroem_gram`, :func:`relative_errors` -- the Nystrom approximation of a
  Gram matrix (pseudo-inverse or jitter) and its spectral / Frobenius errors;
* :func:`rff_vs_nystroem` -- both approximations on the same data, error and time;
* :func:`two_moons_study` -- exact KRR against RFF ridge classifiers on two moons;
* :class:`StreamingRFFRidge` and :func:`regression_blocks` -- ridge regression on random
  Fourier features with ``Phi^T Phi`` accumulated block by block, so that memory does
  not grow with the number of samples.

All randomness goes through an explicit ``seed``.  The experiments made of many small
matrix operations (the two-moons study, the uniform-bound repetitions, the cost
curve of exact KRR) run with a single BLAS thread when ``threadpoolctl`` is
installed: on a shared machine, synchronising BLAS threads for small matrices costs
more than it saves, and one thread makes the measured times reflect the operation
counts.
"""
from __future__ import annotations

import contextlib
import math
import time
import tracemalloc
from typing import Any, Callable, Iterable, Iterator

import numpy as np
from scipy import linalg
from scipy.linalg import blas

from . import kernels
from ._validation import (
    check_fitted,
    check_int,
    check_matrix,
    check_nonnegative,
    check_positive,
    check_rng,
    check_same_length,
    check_square,
    check_vector,
)
from .datasets import two_moons
from .features import Nystroem, RandomFourierFeatures
from .krr import KernelRidge
from .ridge import ridge

try:  # optional: limit BLAS threads for loops of small matrix operations
    from threadpoolctl import threadpool_limits as _threadpool_limits
except ImportError:  # pragma: no cover - threadpoolctl ships with scikit-learn
    _threadpool_limits = None


#: Below this many multiply-adds per block (columns^2 x rows), StreamingRFFRidge runs
#: with one BLAS thread: for small blocks, thread synchronisation costs more than it saves.
_SMALL_BLOCK_FLOPS = 2e9


def _one_blas_thread() -> contextlib.AbstractContextManager:
    """Context with one BLAS thread (a no-op without ``threadpoolctl``)."""
    if _threadpool_limits is None:  # pragma: no cover
        return contextlib.nullcontext()
    return _threadpool_limits(limits=1, user_api="blas")


__all__ = [
    "timed",
    "measure",
    "exact_krr_cost",
    "SPECTRAL_KERNELS",
    "spectral_sample",
    "shift_invariant_profile",
    "bochner_mc",
    "rff_pair_estimates",
    "rff_variance",
    "softmax_prf_estimates",
    "softmax_prf_variance",
    "uniform_max_errors",
    "nystroem_gram",
    "spectrum",
    "relative_errors",
    "rff_vs_nystroem",
    "median_heuristic",
    "two_moons_study",
    "regression_blocks",
    "StreamingRFFRidge",
]

#: One-dimensional kernels whose spectral law :func:`spectral_sample` draws from.
SPECTRAL_KERNELS = ("gaussian", "laplacian", "cauchy", "matern")
_VARIANTS = ("cos_sin", "cos_phase")


def _check_variant(variant: Any) -> str:
    if variant not in _VARIANTS:
        raise ValueError(f"variant must be one of {_VARIANTS}; got {variant!r}")
    return variant


def _check_point(x: Any, name: str) -> np.ndarray:
    v = check_vector(x, name)
    return v


# --------------------------------------------------------------------------- #
# measuring
# --------------------------------------------------------------------------- #
def timed(fn: Callable[[], Any], repeats: int = 1) -> tuple[Any, float]:
    """Run ``fn()`` ``repeats`` times; return the last result and the fastest wall time."""
    if not callable(fn):
        raise ValueError(f"fn must be callable; got {type(fn).__name__}")
    repeats = check_int(repeats, "repeats", minimum=1)
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
                   repeats: int = 2, seed: Any = 0) -> dict[str, np.ndarray]:
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
        Timed runs per size (the fastest is kept); memory is traced in one
        further run, since tracing slows the code down.
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
    repeats = check_int(repeats, "repeats", minimum=1)
    rng = check_rng(seed)
    secs, peaks = [], []
    with _one_blas_thread():
        for n in ns:
            X = rng.standard_normal((n, d))
            y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(n)
            _, s = timed(lambda X=X, y=y: _exact_krr(X, y, sigma, lam), repeats)
            _, _, p = measure(lambda X=X, y=y: _exact_krr(X, y, sigma, lam))
            secs.append(s)
            peaks.append(p)
    return {"n": ns, "seconds": np.array(secs), "peak_bytes": np.array(peaks, dtype=float)}


# --------------------------------------------------------------------------- #
# Bochner's theorem in one dimension
# --------------------------------------------------------------------------- #
def _check_spectral(kernel: Any, nu: Any) -> float | None:
    if kernel not in SPECTRAL_KERNELS:
        raise ValueError(f"kernel must be one of {SPECTRAL_KERNELS}; got {kernel!r}")
    if kernel == "matern":
        if nu is None:
            raise ValueError("nu must be a number > 0 when kernel='matern'; got None")
        return check_positive(nu, "nu")
    if nu is not None:
        raise ValueError(f"nu is only used with kernel='matern'; got nu={nu!r} for {kernel!r}")
    return None


def spectral_sample(kernel: str, size: int, *, length_scale: float = 1.0,
                    nu: float | None = None, seed: Any = None) -> np.ndarray:
    r"""Draw frequencies from the spectral law of a one-dimensional shift-invariant kernel.

    With :math:`\ell` the length scale and :math:`\Delta = x - x'`:

    * ``"gaussian"`` :math:`e^{-\Delta^2/(2\ell^2)}` -- :math:`w \sim N(0, \ell^{-2})`;
    * ``"laplacian"`` :math:`e^{-|\Delta|/\ell}` -- :math:`w = C/\ell`, :math:`C` standard Cauchy;
    * ``"cauchy"`` :math:`1/(1 + \Delta^2/\ell^2)` -- :math:`w = L/\ell`, :math:`L` with
      density :math:`\tfrac12 e^{-|t|}` (standard Laplace);
    * ``"matern"`` (smoothness :math:`\nu`) -- :math:`w = T/\ell`, :math:`T` Student-t with
      :math:`2\nu` degrees of freedom.

    Parameters
    ----------
    kernel : {"gaussian", "laplacian", "cauchy", "matern"}
    size : int
        Number of draws.
    length_scale : float, default=1.0
    nu : float, optional
        Matern smoothness; required for ``"matern"`` only.
    seed : None, int or Generator

    Returns
    -------
    ndarray of shape (size,)
    """
    nu = _check_spectral(kernel, nu)
    size = check_int(size, "size", minimum=1)
    ell = check_positive(length_scale, "length_scale")
    rng = check_rng(seed)
    if kernel == "gaussian":
        t = rng.standard_normal(size)
    elif kernel == "laplacian":
        t = rng.standard_cauchy(size)
    elif kernel == "cauchy":
        t = rng.laplace(0.0, 1.0, size)
    else:
        t = rng.standard_t(2.0 * nu, size)
    return t / ell


def shift_invariant_profile(kernel: str, delta: Any, *, length_scale: float = 1.0,
                            nu: float | None = None) -> np.ndarray:
    """The kernel value ``k(x, x + delta)`` in one dimension (closed forms).

    The Gaussian, Laplacian and Matern profiles are evaluated by
    :mod:`kmlib.kernels`; the Cauchy kernel is ``1 / (1 + delta^2 / l^2)``.
    """
    nu = _check_spectral(kernel, nu)
    ell = check_positive(length_scale, "length_scale")
    dl = np.atleast_1d(np.asarray(delta, dtype=float))
    if dl.ndim != 1 or not np.all(np.isfinite(dl)):
        raise ValueError(f"delta must be a finite 1-D array of offsets; got shape {dl.shape}")
    if kernel == "cauchy":
        return 1.0 / (1.0 + (dl / ell) ** 2)
    k = {"gaussian": lambda: kernels.gaussian(ell),
         "laplacian": lambda: kernels.laplacian(1.0 / ell),
         "matern": lambda: kernels.matern(nu, ell)}[kernel]()
    return k(dl[:, None], np.zeros((1, 1)))[:, 0]


def bochner_mc(kernel: str, delta: Any, n_draws: int, *, length_scale: float = 1.0,
               nu: float | None = None, seed: Any = None,
               chunk: int = 100_000) -> tuple[np.ndarray, np.ndarray]:
    r"""Monte Carlo estimate of :math:`\mathbb E\cos(w\Delta)` with :math:`w` from the spectral law.

    Returns the sample means over ``n_draws`` frequencies and their standard errors,
    one per offset in ``delta``.  By Bochner's theorem the mean converges to the
    kernel profile :func:`shift_invariant_profile`.
    """
    _check_spectral(kernel, nu)
    dl = np.atleast_1d(np.asarray(delta, dtype=float))
    if dl.ndim != 1 or not np.all(np.isfinite(dl)):
        raise ValueError(f"delta must be a finite 1-D array of offsets; got shape {dl.shape}")
    n_draws = check_int(n_draws, "n_draws", minimum=2)
    chunk = check_int(chunk, "chunk", minimum=1)
    rng = check_rng(seed)
    s1 = np.zeros(dl.size)
    s2 = np.zeros(dl.size)
    done = 0
    while done < n_draws:
        m = min(chunk, n_draws - done)
        w = spectral_sample(kernel, m, length_scale=length_scale, nu=nu, seed=rng)
        c = np.cos(np.outer(w, dl))
        s1 += c.sum(axis=0)
        s2 += np.einsum("ij,ij->j", c, c)
        done += m
    mean = s1 / n_draws
    var = np.maximum(s2 / n_draws - mean**2, 0.0) * n_draws / (n_draws - 1)
    return mean, np.sqrt(var / n_draws)


# --------------------------------------------------------------------------- #
# random Fourier features for one pair of points
# --------------------------------------------------------------------------- #
def rff_pair_estimates(x: Any, xp: Any, sigma: float, n_features: int, n_reps: int, *,
                       variant: str = "cos_sin", seed: Any = None) -> np.ndarray:
    r"""Independent random-feature estimates of one Gaussian kernel value :math:`k(x, x')`.

    Each repetition draws ``n_features`` frequencies :math:`w_l \sim N(0, \sigma^{-2} I)`
    (and, for ``"cos_phase"``, phases :math:`u_l \sim U[-\pi, \pi]`) and returns

    * ``"cos_sin"``: :math:`\frac1D\sum_l \cos(w_l^\top(x - x'))` (the inner product of
      the :math:`2D` cosine--sine features);
    * ``"cos_phase"``: :math:`\frac1D\sum_l 2\cos(w_l^\top x + u_l)\cos(w_l^\top x' + u_l)`.

    Returns
    -------
    ndarray of shape (n_reps,)
    """
    x = _check_point(x, "x")
    xp = _check_point(xp, "xp")
    if x.shape != xp.shape:
        raise ValueError(f"x and xp must have the same length; got {x.size} and {xp.size}")
    sigma = check_positive(sigma, "sigma")
    D = check_int(n_features, "n_features", minimum=1)
    R = check_int(n_reps, "n_reps", minimum=1)
    _check_variant(variant)
    rng = check_rng(seed)
    W = rng.standard_normal((R, D, x.size)) / sigma
    if variant == "cos_sin":
        return np.cos(W @ (x - xp)).mean(axis=1)
    u = rng.uniform(-np.pi, np.pi, size=(R, D))
    return (2.0 * np.cos(W @ x + u) * np.cos(W @ xp + u)).mean(axis=1)


def rff_variance(k: Any, n_features: Any, variant: str = "cos_sin") -> Any:
    r"""Variance of the random-feature estimate of a Gaussian kernel value ``k``.

    ``"cos_sin"``: :math:`(1 - k^2)^2/(2D)`; ``"cos_phase"``: :math:`(1 + k^4/2 - k^2)/D`,
    with :math:`D` the number of frequencies (both use :math:`k(2\Delta) = k(\Delta)^4`,
    true for the Gaussian kernel).  ``k`` and ``n_features`` broadcast.
    """
    k = np.asarray(k, dtype=float)
    if not np.all(np.isfinite(k)) or np.any(k < 0) or np.any(k > 1):
        raise ValueError(f"k must hold Gaussian kernel values in [0, 1]; got {k!r}")
    D = np.asarray(n_features)
    if not np.issubdtype(D.dtype, np.integer) or np.any(D < 1):
        raise ValueError(f"n_features must hold integers >= 1; got {n_features!r}")
    _check_variant(variant)
    if variant == "cos_sin":
        out = (1.0 - k**2) ** 2 / (2.0 * D)
    else:
        out = (1.0 + k**4 / 2.0 - k**2) / D
    return float(out) if np.ndim(out) == 0 else out


# --------------------------------------------------------------------------- #
# positive random features for the softmax kernel
# --------------------------------------------------------------------------- #
def softmax_prf_estimates(x: Any, xp: Any, n_features: int, n_reps: int, *,
                          seed: Any = None) -> tuple[np.ndarray, float]:
    r"""Positive-random-feature estimates of the softmax kernel :math:`e^{x^\top x'}`.

    Each repetition draws :math:`w_1, \dots, w_D \sim N(0, I)` and returns
    :math:`\frac1D\sum_l \varphi_{w_l}(x)\varphi_{w_l}(x')` with
    :math:`\varphi_w(z) = \exp(-\|z\|^2/2 + w^\top z)`.

    Returns
    -------
    estimates : ndarray of shape (n_reps,)
    smallest_feature : float
        The smallest feature value drawn (positive by construction).
    """
    x = _check_point(x, "x")
    xp = _check_point(xp, "xp")
    if x.shape != xp.shape:
        raise ValueError(f"x and xp must have the same length; got {x.size} and {xp.size}")
    D = check_int(n_features, "n_features", minimum=1)
    R = check_int(n_reps, "n_reps", minimum=1)
    rng = check_rng(seed)
    W = rng.standard_normal((R, D, x.size))
    fx = np.exp(W @ x - 0.5 * (x @ x))
    fxp = np.exp(W @ xp - 0.5 * (xp @ xp))
    return (fx * fxp).mean(axis=1), float(min(fx.min(), fxp.min()))


def softmax_prf_variance(x: Any, xp: Any, n_features: int) -> float:
    r"""Closed-form variance :math:`\frac1D e^{2x^\top x'}(e^{\|x + x'\|^2} - 1)`."""
    x = _check_point(x, "x")
    xp = _check_point(xp, "xp")
    D = check_int(n_features, "n_features", minimum=1)
    s = x + xp
    return float(math.exp(2.0 * (x @ xp)) * math.expm1(s @ s) / D)


# --------------------------------------------------------------------------- #
# the uniform bound
# --------------------------------------------------------------------------- #
def uniform_max_errors(X: Any, sigma: float, n_features: int, n_reps: int, *,
                       seed: Any = None) -> np.ndarray:
    r"""Largest error :math:`\max_{i,j}|z(x_i)^\top z(x_j) - k(x_i, x_j)|`, one per draw.

    ``z`` is the cosine--sine map with ``n_features`` Gaussian frequencies
    (:math:`2D` columns) for the Gaussian kernel of bandwidth ``sigma``.

    Returns
    -------
    ndarray of shape (n_reps,)
    """
    X = check_matrix(X, "X")
    sigma = check_positive(sigma, "sigma")
    D = check_int(n_features, "n_features", minimum=1)
    R = check_int(n_reps, "n_reps", minimum=1)
    rng = check_rng(seed)
    K = kernels.gaussian(sigma)(X)
    out = np.empty(R)
    with _one_blas_thread():
        for r in range(R):                  # a loop over repetitions, not samples
            Z = RandomFourierFeatures(sigma, D, seed=rng).fit_transform(X)
            out[r] = np.abs(Z @ Z.T - K).max()
    return out


# --------------------------------------------------------------------------- #
# Nystrom on a Gram matrix
# --------------------------------------------------------------------------- #
def nystroem_gram(K: Any, anchors: Any, *, jitter: float = 0.0,
                  rtol: float | None = None) -> np.ndarray:
    r"""Nystrom approximation :math:`K_{N,D} K_{D,D}^{+} K_{N,D}^\top` of a Gram matrix.

    Parameters
    ----------
    K : array of shape (N, N)
        Symmetric positive semi-definite Gram matrix.
    anchors : array of int, shape (D,)
        Row indices of the anchor points (repeats allowed: they make
        :math:`K_{D,D}` singular, which the pseudo-inverse handles).
    jitter : float, default=0.0
        If positive, use :math:`(K_{D,D} + \text{jitter}\, I)^{-1}` through a Cholesky
        factorisation instead of the pseudo-inverse.
    rtol : float, optional
        Pseudo-inverse cut-off relative to the largest eigenvalue of :math:`K_{D,D}`
        (default ``D * eps``).

    Returns
    -------
    ndarray of shape (N, N)
    """
    K = check_square(K, "K")
    idx = np.asarray(anchors)
    if idx.ndim != 1 or idx.size == 0 or not np.issubdtype(idx.dtype, np.integer):
        raise ValueError(f"anchors must be a non-empty 1-D array of row indices; got {anchors!r}")
    if idx.min() < 0 or idx.max() >= K.shape[0]:
        raise ValueError(f"anchors must lie in [0, {K.shape[0] - 1}]; got range "
                         f"[{idx.min()}, {idx.max()}]")
    jitter = check_nonnegative(jitter, "jitter")
    C = K[:, idx]
    W = 0.5 * (C[idx] + C[idx].T)
    if jitter > 0:
        W.flat[:: W.shape[0] + 1] += jitter
        c = linalg.cho_factor(W, lower=True, check_finite=False)
        return C @ linalg.cho_solve(c, C.T, check_finite=False)
    ev, U = linalg.eigh(W, check_finite=False)
    cut = (idx.size * np.finfo(float).eps if rtol is None else check_positive(rtol, "rtol"))
    keep = ev > cut * max(ev[-1], 0.0)
    B = C @ (U[:, keep] / np.sqrt(ev[keep]))
    return B @ B.T


def _spectral_norm(A: np.ndarray, seed: int = 0) -> float:
    """Largest |eigenvalue| of a symmetric matrix by Lanczos (ARPACK), dense for small ``A``."""
    if A.shape[0] <= 64:
        return float(np.abs(linalg.eigvalsh(A, check_finite=False)).max())
    from scipy.sparse.linalg import eigsh
    v0 = np.random.default_rng(seed).standard_normal(A.shape[0])
    return float(np.abs(eigsh(A, k=1, which="LM", v0=v0, tol=1e-10,
                              return_eigenvectors=False)).max())


def spectrum(A: Any) -> np.ndarray:
    """Eigenvalues of a symmetric matrix in decreasing order (``eigvalsh``, one BLAS thread).

    One thread, because on a shared machine the threaded tridiagonalisation of a
    matrix of a few hundred rows is slower than the sequential one.
    """
    A = check_square(A, "A")
    with _one_blas_thread():
        return linalg.eigvalsh(0.5 * (A + A.T), check_finite=False)[::-1]


def relative_errors(K: Any, K_approx: Any) -> tuple[float, float]:
    """Relative spectral and Frobenius errors ``||K - K_approx|| / ||K||`` (symmetric input).

    The spectral norms are computed by Lanczos iteration (``scipy.sparse.linalg.eigsh``),
    which needs only matrix-vector products.
    """
    K = check_square(K, "K")
    A = check_square(K_approx, "K_approx")
    check_same_length(K, A, "K", "K_approx")
    E = K - A
    E = 0.5 * (E + E.T)
    return (_spectral_norm(E) / _spectral_norm(K),
            float(np.linalg.norm(E) / np.linalg.norm(K)))


def rff_vs_nystroem(X: Any, sigma: float, sizes: Iterable[int], *,
                    seed: Any = 0) -> dict[str, np.ndarray]:
    """Gaussian-kernel approximation by RFF and by Nystrom with the same number of columns.

    For each ``m`` in ``sizes``: RFF with ``m // 2`` cosine--sine frequencies
    (``m`` columns) and Nystrom with ``m`` anchors.  Returns the relative
    Frobenius errors of ``Phi Phi^T`` against the exact Gram matrix and the
    wall time of building the features (fit + transform, the faster of two runs
    with the same seed, one BLAS thread).

    Returns
    -------
    dict with ``m``, ``err_rff``, ``err_nys``, ``time_rff``, ``time_nys``.
    """
    X = check_matrix(X, "X")
    sigma = check_positive(sigma, "sigma")
    ms = np.array([check_int(m, "sizes[i]", minimum=2) for m in sizes], dtype=int)
    rng = check_rng(seed)
    kern = kernels.gaussian(sigma)
    K = kern(X)
    nK = np.linalg.norm(K)
    out = {k: np.empty(ms.size) for k in ("err_rff", "err_nys", "time_rff", "time_nys")}
    with _one_blas_thread():
        for i, m in enumerate(ms):
            rff = RandomFourierFeatures(sigma, m // 2, seed=int(rng.integers(2**31)))
            Z, out["time_rff"][i] = timed(lambda rff=rff: rff.fit_transform(X), repeats=2)
            nys = Nystroem(kern, m, seed=int(rng.integers(2**31)))
            P, out["time_nys"][i] = timed(lambda nys=nys: nys.fit_transform(X), repeats=2)
            out["err_rff"][i] = np.linalg.norm(K - Z @ Z.T) / nK
            out["err_nys"][i] = np.linalg.norm(K - P @ P.T) / nK
    out["m"] = ms
    return out


# --------------------------------------------------------------------------- #
# two moons
# --------------------------------------------------------------------------- #
def median_heuristic(X: Any) -> float:
    """Median of the pairwise Euclidean distances between distinct rows of ``X``."""
    X = check_matrix(X, "X")
    if X.shape[0] < 2:
        raise ValueError(f"X must have at least 2 rows; got {X.shape[0]}")
    G = X @ X.T
    sq = np.diag(G)[:, None] + np.diag(G)[None, :] - 2 * G
    iu = np.triu_indices(X.shape[0], 1)
    return float(np.sqrt(np.median(np.maximum(sq[iu], 0.0))))


def _accuracy(y: np.ndarray, score: np.ndarray) -> float:
    return float(np.mean(np.where(score >= 0, 1.0, -1.0) == y))


def two_moons_study(D_grid: Iterable[int], *, n: int = 500, noise: float = 0.2,
                    test_frac: float = 0.3, lam: float = 1e-3, n_seeds: int = 10,
                    seed: int = 0) -> dict[str, np.ndarray]:
    """Exact KRR classifier against RFF ridge classifiers on two moons.

    For each of ``n_seeds`` repetitions: draw ``n`` points, split off a test
    fraction, choose the Gaussian bandwidth by the median heuristic on the
    training inputs, fit exact KRR on labels +-1 (classify by the sign), and
    ridge regression on cosine--sine random features with ``D`` frequencies
    (``2D`` columns) for each ``D`` in ``D_grid``, with the same ``lam``
    (objective: sum of squared errors plus ``lam`` times the squared norm).
    Ridge is solved in the primal (a ``2D x 2D`` Cholesky) while ``2D`` does not
    exceed the number of training points, and in the dual (``n x n``) beyond.

    Returns
    -------
    dict
        ``D`` (grid), ``acc_exact`` (n_seeds,), ``acc_rff`` (n_seeds, len(D)),
        ``time_exact`` (n_seeds,), ``time_rff`` (n_seeds, len(D)) in seconds of
        fitting, and ``sigma`` (n_seeds,).
    """
    Ds = np.array([check_int(D, "D_grid[i]", minimum=1) for D in D_grid], dtype=int)
    n = check_int(n, "n", minimum=10)
    S = check_int(n_seeds, "n_seeds", minimum=1)
    lam = check_positive(lam, "lam")
    if not 0 < test_frac < 1:
        raise ValueError(f"test_frac must lie in (0, 1); got {test_frac!r}")
    seed = check_int(seed, "seed", minimum=0)
    res = {"D": Ds, "acc_exact": np.empty(S), "time_exact": np.empty(S), "sigma": np.empty(S),
           "acc_rff": np.empty((S, Ds.size)), "time_rff": np.empty((S, Ds.size))}
    with _one_blas_thread():
        for s in range(S):
            _moons_repetition(res, s, seed, Ds, n, noise, test_frac, lam)
    return res


def _moons_repetition(res: dict, s: int, seed: int, Ds: np.ndarray, n: int, noise: float,
                      test_frac: float, lam: float) -> None:
    """One seed of :func:`two_moons_study`, written into ``res`` in place."""
    rng = np.random.default_rng([seed, s])
    X, y = two_moons(n, noise, seed=rng)
    n_te = int(round(test_frac * n))
    Xtr, ytr, Xte, yte = X[n_te:], y[n_te:], X[:n_te], y[:n_te]
    sigma = median_heuristic(Xtr)
    model, t = timed(lambda: KernelRidge(kernels.gaussian(sigma), lam).fit(Xtr, ytr))
    res["sigma"][s], res["time_exact"][s] = sigma, t
    res["acc_exact"][s] = _accuracy(yte, model.predict(Xte))
    for j, D in enumerate(Ds):
        rff = RandomFourierFeatures(sigma, int(D), seed=rng)

        def fit(rff: RandomFourierFeatures = rff) -> np.ndarray:
            Z = rff.fit_transform(Xtr)
            method = "primal" if Z.shape[1] <= Z.shape[0] else "dual"
            return ridge(Z, ytr, lam, method=method)

        beta, res["time_rff"][s, j] = timed(fit)
        res["acc_rff"][s, j] = _accuracy(yte, rff.transform(Xte) @ beta)


# --------------------------------------------------------------------------- #
# streaming RFF ridge
# --------------------------------------------------------------------------- #
def regression_blocks(n: int, d: int, *, block_size: int = 10_000, noise: float = 0.1,
                      seed: int = 0) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Yield a synthetic regression sample of size ``n`` in blocks, never all at once.

    Inputs ``x ~ N(0, I_d)``; responses ``f(x) + noise * eps`` with
    ``f(x) = sin(x_1) + cos(x_2) / 2`` (only ``x_1`` when ``d == 1``).  Block
    ``b`` is drawn from ``numpy.random.default_rng([seed, b])``, so the sample is
    the same whatever consumes it.
    """
    n = check_int(n, "n", minimum=1)
    d = check_int(d, "d", minimum=1)
    block_size = check_int(block_size, "block_size", minimum=1)
    noise = check_nonnegative(noise, "noise")
    seed = check_int(seed, "seed", minimum=0)
    for b, start in enumerate(range(0, n, block_size)):
        m = min(block_size, n - start)
        rng = np.random.default_rng([seed, b])
        X = rng.standard_normal((m, d))
        y = regression_target(X) + noise * rng.standard_normal(m)
        yield X, y


def regression_target(X: Any) -> np.ndarray:
    """The noiseless target ``sin(x_1) + cos(x_2) / 2`` of :func:`regression_blocks`."""
    X = check_matrix(X, "X")
    f = np.sin(X[:, 0])
    if X.shape[1] > 1:
        f = f + 0.5 * np.cos(X[:, 1])
    return f


class StreamingRFFRidge:
    r"""Ridge regression on random Fourier features, fitted from a stream of blocks.

    Minimises :math:`\|y - Z\beta\|^2 + \lambda\|\beta\|^2` with :math:`Z` the
    cosine--sine features of the Gaussian kernel.  The normal equations need only
    :math:`Z^\top Z` (``2D x 2D``) and :math:`Z^\top y`, which are sums over the
    samples: they are accumulated block by block (``dsyrk`` for the Gram part), so
    memory is :math:`O(D^2 + b D)` for blocks of ``b`` rows whatever the number
    of samples, and time is :math:`O(n D^2 + D^3)`.  When one block costs fewer
    than ``2e9`` multiply-adds, the fit runs with one BLAS thread (if
    ``threadpoolctl`` is installed).

    Parameters
    ----------
    sigma : float, default=1.0
        Gaussian bandwidth.
    n_features : int, default=100
        Number :math:`D` of frequencies (``2D`` columns).
    lam : float, default=1.0
        Ridge penalty :math:`\lambda > 0`.
    seed : None, int or Generator

    Attributes
    ----------
    rff_ : RandomFourierFeatures
    coef_ : ndarray of shape (2 * n_features,)
    n_samples_seen_ : int
    """

    def __init__(self, sigma: float = 1.0, n_features: int = 100, lam: float = 1.0,
                 seed: Any = None) -> None:
        self.sigma = sigma
        self.n_features = n_features
        self.lam = lam
        self.seed = seed

    def fit_blocks(self, blocks: Iterable[tuple[Any, Any]]) -> "StreamingRFFRidge":
        """Fit from an iterable of ``(X_block, y_block)`` pairs; returns ``self``."""
        lam = check_positive(self.lam, "lam")
        with contextlib.ExitStack() as stack:
            return self._fit_blocks(iter(blocks), lam, stack)

    def _fit_blocks(self, blocks: Iterator[tuple[Any, Any]], lam: float,
                    stack: contextlib.ExitStack) -> "StreamingRFFRidge":
        G = b = rff = None
        n_seen = 0
        for X, y in blocks:
            X = check_matrix(X, "X_block")
            y = check_vector(y, "y_block")
            check_same_length(X, y, "X_block", "y_block")
            if rff is None:
                rff = RandomFourierFeatures(self.sigma, self.n_features, seed=self.seed).fit(X)
                p = rff.n_output_features_
                G, b = np.zeros((p, p), order="F"), np.zeros(p)
                if p * p * X.shape[0] < _SMALL_BLOCK_FLOPS:   # small blocks: one BLAS thread
                    stack.enter_context(_one_blas_thread())
            Z = rff.transform(X)
            G = blas.dsyrk(1.0, Z, beta=1.0, c=G, trans=1, lower=1, overwrite_c=1)
            b += Z.T @ y
            n_seen += X.shape[0]
        if rff is None:
            raise ValueError("blocks is empty; expected at least one (X_block, y_block) pair")
        G.flat[:: G.shape[0] + 1] += lam
        c = linalg.cho_factor(G, lower=True, overwrite_a=True, check_finite=False)
        self.coef_ = linalg.cho_solve(c, b, check_finite=False)
        self.rff_ = rff
        self.n_samples_seen_ = n_seen
        return self

    def fit(self, X: Any, y: Any, block_size: int = 10_000) -> "StreamingRFFRidge":
        """Fit from arrays in memory, still processed in blocks of ``block_size`` rows."""
        X = check_matrix(X, "X")
        y = check_vector(y, "y")
        check_same_length(X, y)
        bs = check_int(block_size, "block_size", minimum=1)
        return self.fit_blocks((X[i:i + bs], y[i:i + bs]) for i in range(0, X.shape[0], bs))

    def predict(self, X: Any) -> np.ndarray:
        """Predictions ``z(X) @ coef_``."""
        check_fitted(self, "coef_")
        return self.rff_.transform(X) @ self.coef_

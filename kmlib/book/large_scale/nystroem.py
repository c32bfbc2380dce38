"""Nystrom approximation of a Gram matrix and its quality, against random features.

Chapter "Large-scale kernel machines: random features and Nystrom":
:func:`nystroem_gram` (pseudo-inverse or jitter), the spectrum of a symmetric
matrix, the relative spectral and Frobenius errors of an approximation, and
:func:`rff_vs_nystroem` -- both approximations on the same data, error and time.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import linalg

from kmlib import kernels
from kmlib._linalg import one_blas_thread
from kmlib._typing import Seed
from kmlib._validation import (
    EPS,
    check_int,
    check_matrix,
    check_nonnegative,
    check_positive,
    check_rng,
    check_same_length,
    check_square,
)
from kmlib.features import Nystroem, RandomFourierFeatures

from .timing import timed

__all__ = ["nystroem_gram", "spectrum", "relative_errors", "rff_vs_nystroem"]


def nystroem_gram(K: ArrayLike, anchors: ArrayLike, *, jitter: float = 0.0,
                  rtol: float | None = None) -> NDArray[np.float64]:
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
    # relative cut-off D * eps times the largest eigenvalue clipped at 0 (not max|ev| as in
    # rank_tol: a negative rounding eigenvalue must not raise the cut)
    cut = (idx.size * EPS if rtol is None else check_positive(rtol, "rtol"))
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


def spectrum(A: ArrayLike) -> NDArray[np.float64]:
    """Eigenvalues of a symmetric matrix in decreasing order (``eigvalsh``, one BLAS thread).

    One thread, because on a shared machine the threaded tridiagonalisation of a
    matrix of a few hundred rows is slower than the sequential one.
    """
    A = check_square(A, "A")
    with one_blas_thread():
        # 0.5 * A + 0.5 * A.T: the same numbers as 0.5 * (A + A.T), without overflow
        return linalg.eigvalsh(0.5 * A + 0.5 * A.T, check_finite=False)[::-1]


def relative_errors(K: ArrayLike, K_approx: ArrayLike) -> tuple[float, float]:
    """Relative spectral and Frobenius errors ``||K - K_approx|| / ||K||`` (symmetric input).

    The spectral norms are computed by Lanczos iteration (``scipy.sparse.linalg.eigsh``),
    which needs only matrix-vector products.  Raises ``ValueError`` when ``K`` is zero or
    when a norm over- or underflows (entries beyond about 1e150 or below 1e-150).
    """
    K = check_square(K, "K")
    A = check_square(K_approx, "K_approx")
    check_same_length(K, A, "K", "K_approx")
    if not np.any(K):
        raise ValueError("K is the zero matrix; a relative error needs a nonzero K")
    E = K - A
    E = 0.5 * (E + E.T)
    return (_spectral_norm(E) / _spectral_norm(K),
            float(np.linalg.norm(E) / np.linalg.norm(K)))


def rff_vs_nystroem(X: ArrayLike, sigma: float, sizes: Iterable[int], *,
                    seed: Seed = 0) -> dict[str, np.ndarray]:
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
    with one_blas_thread():
        for i, m in enumerate(ms):
            rff = RandomFourierFeatures(sigma=sigma, n_features=m // 2,
                                        random_state=int(rng.integers(2**31)))
            Z, out["time_rff"][i] = timed(lambda rff=rff: rff.fit_transform(X), repeats=2)
            nys = Nystroem(kernel=kern, n_components=m, random_state=int(rng.integers(2**31)))
            P, out["time_nys"][i] = timed(lambda nys=nys: nys.fit_transform(X), repeats=2)
            out["err_rff"][i] = np.linalg.norm(K - Z @ Z.T) / nK
            out["err_nys"][i] = np.linalg.norm(K - P @ P.T) / nK
    out["m"] = ms
    return out

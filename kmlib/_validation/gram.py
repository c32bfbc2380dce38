"""Gram matrices: the one symmetry rule and the one positive semi-definiteness rule.

(Which eigenvalues a pseudo-inverse or feature map keeps: ``kmlib._linalg.psd_eigenpairs``.)
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._blocks import tile_side
from .tolerances import PSD_RTOL, SYMMETRY_RTOL


def check_symmetric(K: np.ndarray, name: str = "K") -> None:
    """Raise unless the square matrix ``K`` is finite and symmetric up to rounding.

    The comparison runs tile by tile (each tile against its mirror image), so
    it stays cache-friendly and never allocates a second n-by-n array (Gram
    matrices in the book reach n = 5000).  A NaN or infinite entry makes its
    tile difference non-finite, so the same pass also rejects those.
    """
    n = K.shape[0]
    b = tile_side(n_arrays=3)  # a tile, its mirror and the difference stay in cache
    buf = np.empty((b, b))
    worst = 0.0
    scale = 0.0
    for i in range(0, n, b):
        for j in range(i, n, b):
            upper = K[i:i + b, j:j + b]
            mirror = K[j:j + b, i:i + b].T
            out = buf[: upper.shape[0], : upper.shape[1]]
            with np.errstate(over="ignore", invalid="ignore"):
                np.subtract(upper, mirror, out=out)
            diff = float(np.max(np.abs(out, out=out)))
            if not np.isfinite(diff):
                if not (np.all(np.isfinite(upper)) and np.all(np.isfinite(mirror))):
                    raise ValueError(
                        f"{name} contains NaN or infinite values; a Gram matrix must be "
                        "finite (check the kernel and its inputs)"
                    )
                diff = np.inf  # finite entries whose difference overflows
            worst = max(worst, diff)
            scale = max(scale, float(np.max(upper)), -float(np.min(upper)))
    scale = max(scale, np.finfo(float).tiny)
    if worst > SYMMETRY_RTOL * scale:
        raise ValueError(
            f"{name} must be a symmetric Gram matrix; got max |{name} - {name}.T| = "
            f"{worst:.3g} (relative {worst / scale:.3g}, allowed {SYMMETRY_RTOL:g})"
        )


def check_gram_psd(K: np.ndarray, name: str = "K", *, who: str = "") -> None:
    """The one rule by which kmlib rejects a Gram matrix that no kernel could produce.

    A positive semi-definite kernel has ``k(x, x) = ||phi(x)||^2 >= 0``, so

    1. a negative diagonal entry of ``K`` raises (an O(n) test, run everywhere a
       Gram matrix enters, e.g. ``-K``);
    2. where the eigenvalues of ``K`` are computed anyway, an eigenvalue below
       ``-PSD_RTOL * max|eigenvalue|`` raises too (indefinite beyond rounding):
       :func:`check_eigenvalues_psd`, run by ``kmlib._linalg.psd_eigenpairs``.

    Symmetric matrices with a non-negative diagonal whose indefiniteness is not
    seen by these tests are handled by the algorithms themselves (a pseudo-inverse
    with a :class:`RuntimeWarning`, or SMO's curvature floor).
    """
    prefix = f"{who}: " if who else ""
    diag = K if K.ndim == 1 else np.diagonal(K)  # a 1-D K is the diagonal alone
    if diag.size and float(np.min(diag)) < 0.0:
        i = int(np.argmin(diag))
        raise ValueError(
            f"{prefix}{name} is not a positive semi-definite Gram matrix: its diagonal "
            f"entry {name}[{i}, {i}] = {diag[i]:.3g} is negative, and k(x, x) >= 0 for every "
            "kernel. Check the sign and the kernel"
        )


def check_eigenvalues_psd(evals: ArrayLike, name: str = "K", *, who: str = "",
                          atol: float | None = None) -> None:
    """Rule 2 of :func:`check_gram_psd`, for eigenvalues already computed.

    With ``atol`` (a tolerance the caller chose), the bound is ``-atol`` instead.
    """
    ev = np.asarray(evals, dtype=float)
    if ev.size == 0:
        return
    prefix = f"{who}: " if who else ""
    top = float(np.max(np.abs(ev)))
    low = float(np.min(ev))
    limit, below = (-atol, f"-tol = {-atol:.3g}") if atol is not None else (
        -PSD_RTOL * top, f"-{PSD_RTOL:.2g} * max|eigenvalue| = {-PSD_RTOL * top:.3g} (more "
        "than rounding)")
    if low < limit:
        raise ValueError(
            f"{prefix}{name} is not positive semi-definite: its smallest eigenvalue is "
            f"{low:.3g}, below {below}. Use a positive-definite kernel"
        )


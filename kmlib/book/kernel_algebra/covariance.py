"""Positive semidefinite matrices as covariance matrices.

Chapter 4 ("Kernels: positive definiteness, closure rules, a catalogue, and what is
not a kernel"): the smallest eigenvalue of a (Gram) matrix, the test the chapter
applies to every candidate kernel; the Monte-Carlo argument behind the Schur
product rule (the entrywise product of two covariance matrices is the covariance
of the entrywise product of independent Gaussian vectors); and sample paths of the
centred Gaussian process whose covariance is a kernel.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import linalg

from kmlib._validation import check_int, check_rng, check_square, psd_eigh
from kmlib.kernels import Kernel

from ._common import _check_kernel_object

__all__ = ["hadamard_monte_carlo", "sample_paths", "min_eigenvalue"]


def _psd_root(K: np.ndarray, name: str) -> NDArray[np.float64]:
    s, U, _ = psd_eigh(K, name)
    return U * np.sqrt(np.clip(s, 0.0, None))


def hadamard_monte_carlo(
    K1: ArrayLike, K2: ArrayLike, n_draws: int,
    seed: int | np.random.Generator | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Monte-Carlo estimate of ``Var(X ⊙ Y)`` for independent ``X ~ N(0, K1)``, ``Y ~ N(0, K2)``.

    Because ``X`` and ``Y`` are independent with mean zero,
    ``E[(X_i Y_i)(X_j Y_j)] = (K1)_ij (K2)_ij``, so the estimate approaches the
    Schur product ``K1 ⊙ K2``, which is therefore a covariance matrix.

    Parameters
    ----------
    K1, K2 : array-like of shape (n, n)
        Positive semidefinite matrices.
    n_draws : int
        Number of independent pairs ``(X, Y)``.
    seed : None, int or numpy Generator

    Returns
    -------
    estimate : ndarray of shape (n, n)
        ``(1/N) sum_r Z_r Z_r^T`` with ``Z_r = X_r ⊙ Y_r`` (the mean is known to be 0).
    std_error : ndarray of shape (n, n)
        Standard error of each entry of ``estimate``.
    """
    A = check_square(K1, "K1")
    B = check_square(K2, "K2")
    if A.shape != B.shape:
        raise ValueError(f"K1 and K2 must have the same shape; got {A.shape} and {B.shape}")
    N = check_int(n_draws, "n_draws", minimum=2)
    rng = check_rng(seed)
    n = len(A)
    X = rng.standard_normal((N, n)) @ _psd_root(A, "K1").T
    Y = rng.standard_normal((N, n)) @ _psd_root(B, "K2").T
    Z = X * Y
    est = Z.T @ Z / N
    Z2 = Z * Z
    second = Z2.T @ Z2 / N
    se = np.sqrt(np.clip(second - est**2, 0.0, None) / N)
    return est, se


def sample_paths(k: Kernel, x: ArrayLike, n_paths: int,
                 seed: int | np.random.Generator | None = None) -> NDArray[np.float64]:
    """Draw sample paths of the centred Gaussian process with covariance ``k`` at ``x``.

    The Gram matrix is factored once with ``eigh``; tiny negative eigenvalues
    (round-off of a positive semidefinite matrix) are set to zero.

    Parameters
    ----------
    k : Kernel
    x : array-like of shape (n, d) or (n,)
    n_paths : int
    seed : None, int or numpy Generator

    Returns
    -------
    ndarray of shape (n_paths, n)
    """
    k = _check_kernel_object(k, "k")
    m = check_int(n_paths, "n_paths", minimum=1)
    rng = check_rng(seed)
    K = k(x)
    root = _psd_root(K, "the Gram matrix k(x)")
    return rng.standard_normal((m, len(K))) @ root.T


def min_eigenvalue(K: ArrayLike) -> float:
    """Smallest eigenvalue of the symmetric part of a square matrix (``eigvalsh``)."""
    A = check_square(K, "K")
    # 0.5 * A + 0.5 * A.T: the same numbers as 0.5 * (A + A.T), without overflow
    return float(linalg.eigvalsh(0.5 * A + 0.5 * A.T, subset_by_index=[0, 0])[0])

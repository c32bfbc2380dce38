"""Random-feature estimates of one kernel value, their variance, and the uniform error.

Chapter "Large-scale kernel machines: random features and Nystrom":

* :func:`rff_pair_estimates`, :func:`rff_variance` -- many independent random Fourier
  feature estimates of one Gaussian kernel value (cosine--sine or cosine-with-phase
  features), and their closed-form variance;
* :func:`softmax_prf_estimates`, :func:`softmax_prf_variance` -- the same for the
  positive random features of the softmax kernel ``exp(x^T x')``;
* :func:`uniform_max_errors` -- the largest error over all pairs of points, per draw.

The feature maps themselves live in :mod:`kmlib.features`.
"""
from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from kmlib import kernels
from kmlib._linalg import one_blas_thread
from kmlib._typing import Seed
from kmlib._validation import (
    as_float_array,
    check_int,
    check_matrix,
    check_positive,
    check_rng,
    check_vector,
)
from kmlib.features import PositiveRandomFeatures, RandomFourierFeatures

__all__ = [
    "rff_pair_estimates",
    "rff_variance",
    "softmax_prf_estimates",
    "softmax_prf_variance",
    "uniform_max_errors",
]

Variant = Literal["cos_sin", "cos_phase"]
_VARIANTS = ("cos_sin", "cos_phase")


def _check_variant(variant: Any) -> str:
    if variant not in _VARIANTS:
        raise ValueError(f"variant must be one of {_VARIANTS}; got {variant!r}")
    return variant


def _check_point(x: ArrayLike, name: str) -> np.ndarray:
    v = check_vector(x, name)
    return v


# --------------------------------------------------------------------------- #
# random Fourier features for one pair of points
# --------------------------------------------------------------------------- #
def rff_pair_estimates(x: ArrayLike, xp: ArrayLike, sigma: float, n_features: int,
                       n_reps: int, *, variant: Variant = "cos_sin",
                       seed: Seed = None) -> NDArray[np.float64]:
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


def rff_variance(k: ArrayLike, n_features: ArrayLike,
                 variant: Variant = "cos_sin") -> float | NDArray[np.float64]:
    r"""Variance of the random-feature estimate of a Gaussian kernel value ``k``.

    ``"cos_sin"``: :math:`(1 - k^2)^2/(2D)`; ``"cos_phase"``: :math:`(1 + k^4/2 - k^2)/D`,
    with :math:`D` the number of frequencies (both use :math:`k(2\Delta) = k(\Delta)^4`,
    true for the Gaussian kernel).  ``k`` and ``n_features`` broadcast.
    """
    k = as_float_array(k, "k")
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
def softmax_prf_estimates(x: ArrayLike, xp: ArrayLike, n_features: int, n_reps: int, *,
                          seed: Seed = None) -> tuple[NDArray[np.float64], float]:
    r"""Positive-random-feature estimates of the softmax kernel :math:`e^{x^\top x'}`.

    Each repetition draws :math:`w_1, \dots, w_D \sim N(0, I)` (the library's
    :class:`~kmlib.features.PositiveRandomFeatures`) and returns
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
    # one map with R * D features = R independent maps with D features each
    prf = PositiveRandomFeatures(n_features=R * D, random_state=seed)
    F = prf.fit_transform(np.vstack([x, xp])) * math.sqrt(R * D)     # unscaled phi_w
    return (F[0] * F[1]).reshape(R, D).mean(axis=1), float(F.min())


def softmax_prf_variance(x: ArrayLike, xp: ArrayLike, n_features: int) -> float:
    r"""Closed-form variance :math:`\frac1D e^{2x^\top x'}(e^{\|x + x'\|^2} - 1)`."""
    x = _check_point(x, "x")
    xp = _check_point(xp, "xp")
    D = check_int(n_features, "n_features", minimum=1)
    s = x + xp
    return float(math.exp(2.0 * (x @ xp)) * math.expm1(s @ s) / D)


# --------------------------------------------------------------------------- #
# the uniform bound
# --------------------------------------------------------------------------- #
def uniform_max_errors(X: ArrayLike, sigma: float, n_features: int, n_reps: int, *,
                       seed: Seed = None) -> NDArray[np.float64]:
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
    with one_blas_thread():
        for r in range(R):                  # a loop over repetitions, not samples
            Z = RandomFourierFeatures(sigma=sigma, n_features=D, random_state=rng).fit_transform(X)
            out[r] = np.abs(Z @ Z.T - K).max()
    return out

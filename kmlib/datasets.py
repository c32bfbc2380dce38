"""Data for the book: simulations generated on the fly and data bundled with scikit-learn.

Nothing here downloads anything.  Every generator takes an explicit ``seed``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ._validation import check_int, check_nonnegative, check_rng, check_vector

__all__ = ["linear_model", "diabetes"]


def linear_model(n: int, p: int, *, beta: Any = None, sigma: float = 1.0,
                 seed: Any = None, rho: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draw a design and responses from the linear model ``Y = X beta + eps``.

    Parameters
    ----------
    n, p : int
        Sample size and number of predictors.
    beta : array of shape (p,), optional
        True coefficients beta^0; standard normal draws when omitted.
    sigma : float
        Noise standard deviation (Var eps = sigma^2 I).
    seed : int, Generator or None
        Source of randomness.
    rho : float in [0, 1)
        Equicorrelation between the Gaussian columns of ``X``.

    Returns
    -------
    X : ndarray of shape (n, p)
    y : ndarray of shape (n,)
    beta : ndarray of shape (p,)
    """
    n = check_int(n, "n")
    p = check_int(p, "p")
    sigma = check_nonnegative(sigma, "sigma")
    rho = check_nonnegative(rho, "rho")
    if rho >= 1:
        raise ValueError(f"rho must lie in [0, 1); got {rho}")
    rng = check_rng(seed)
    Z = rng.standard_normal((n, p))
    X = np.sqrt(1 - rho) * Z + np.sqrt(rho) * rng.standard_normal((n, 1))
    if beta is None:
        beta = rng.standard_normal(p)
    beta = check_vector(beta, "beta")
    if beta.shape[0] != p:
        raise ValueError(f"beta must have length p={p}; got {beta.shape[0]}")
    y = X @ beta + sigma * rng.standard_normal(n)
    return X, y, beta


def diabetes() -> tuple[np.ndarray, np.ndarray, list[str]]:
    """scikit-learn's bundled diabetes data (442 patients, 10 baseline variables).

    Returns the raw (unscaled) predictors, the disease-progression response and
    the feature names.  The data ship inside scikit-learn: no download.
    """
    from sklearn.datasets import load_diabetes

    data = load_diabetes(scaled=False)
    return np.asarray(data.data, dtype=float), np.asarray(data.target, dtype=float), list(data.feature_names)

"""Data for the book: simulations generated on the fly and data bundled with scikit-learn.

Nothing here downloads anything.  Every generator takes an explicit ``random_state``.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._typing import Seed
from ._validation import (
    as_float_array,
    as_generator,
    check_unit_interval,
    check_vector,
    finite_result,
    validate_args,
)
from ._validation.params import NONNEGATIVE, POSITIVE_INT, Integral, Interval, Real


class LinearModelData(NamedTuple):
    """What :func:`linear_model` returns (unpacks like a tuple)."""

    X: np.ndarray
    y: np.ndarray
    beta: np.ndarray


class DiabetesData(NamedTuple):
    """What :func:`diabetes` returns (unpacks like a tuple)."""

    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]


class SineSquareData(NamedTuple):
    """What :func:`sine_and_square` returns (unpacks like a tuple)."""

    X: np.ndarray
    y_sine: np.ndarray
    y_square: np.ndarray


__all__ = ["linear_model", "diabetes", "two_moons", "sine_target", "square_wave_target",
           "sine_and_square", "LinearModelData", "DiabetesData", "SineSquareData"]


@finite_result
@validate_args({"n": [POSITIVE_INT], "p": [POSITIVE_INT], "noise": [NONNEGATIVE],
                "rho": [Interval(Real, 0, 1, closed="left")], "random_state": ["random_state"]})
def linear_model(n: int, p: int, *, beta: ArrayLike | None = None, noise: float = 1.0,
                 random_state: Seed = None, rho: float = 0.0) -> LinearModelData:
    """Draw a design and responses from the linear model ``Y = X beta + eps``.

    Parameters
    ----------
    n, p : int
        Sample size and number of predictors.
    beta : array of shape (p,), optional
        True coefficients beta^0; standard normal draws when omitted.
    noise : float
        Noise standard deviation (Var eps = noise^2 I), as in :func:`two_moons`.
    random_state : int, Generator or None
        Source of randomness.
    rho : float in [0, 1)
        Equicorrelation between the Gaussian columns of ``X``.

    Returns
    -------
    X : ndarray of shape (n, p)
    y : ndarray of shape (n,)
    beta : ndarray of shape (p,)
    """
    rng = as_generator(random_state)
    Z = rng.standard_normal((n, p))
    X = np.sqrt(1 - rho) * Z + np.sqrt(rho) * rng.standard_normal((n, 1))
    if beta is None:
        beta = rng.standard_normal(p)
    beta = check_vector(beta, "beta", length=p)
    y = X @ beta + noise * rng.standard_normal(n)
    return LinearModelData(X, y, beta)


def diabetes() -> DiabetesData:
    """scikit-learn's bundled diabetes data (442 patients, 10 baseline variables).

    Returns the raw (unscaled) predictors, the disease-progression response and
    the feature names.  The data ship inside scikit-learn: no download.
    """
    from sklearn.datasets import load_diabetes

    data = load_diabetes(scaled=False)
    X = np.asarray(data.data, dtype=float)
    return DiabetesData(X, np.asarray(data.target, dtype=float), list(data.feature_names))


# ---------------------------------------------------------------------------
# Chapter 9: two moons
# ---------------------------------------------------------------------------

@finite_result
@validate_args({"n": [Interval(Integral, 2, None, closed="left")], "noise": [NONNEGATIVE],
                "random_state": ["random_state"]})
def two_moons(n: int, noise: float = 0.1, random_state: Seed = None) -> tuple[np.ndarray,
                                                                              np.ndarray]:
    """Two interleaving half-circles in the plane, a classic non-linear problem.

    The upper moon is the unit half-circle ``(cos t, sin t)``, and the lower moon
    the same arc turned upside down and shifted, ``(1 - cos t, 1/2 - sin t)``,
    with angles ``t ~ Uniform[0, pi]`` drawn independently for each point.
    Independent Gaussian noise of standard deviation ``noise`` is added to both
    coordinates, and the rows are returned in random order.

    Parameters
    ----------
    n : int
        Number of points (at least 2).  The upper moon gets ``n - n // 2``
        points and the lower moon ``n // 2``.
    noise : float, default=0.1
        Standard deviation of the Gaussian noise (>= 0).
    random_state : int, Generator or None
        Source of randomness.

    Returns
    -------
    X : ndarray of shape (n, 2)
    y : ndarray of shape (n,)
        Labels, ``+1`` for the upper moon and ``-1`` for the lower moon (float).
    """
    rng = as_generator(random_state)
    n_low = n // 2
    n_up = n - n_low
    t = rng.uniform(0.0, np.pi, size=n)
    c, s = np.cos(t), np.sin(t)
    X = np.empty((n, 2))
    X[:n_up, 0] = c[:n_up]
    X[:n_up, 1] = s[:n_up]
    X[n_up:, 0] = 1.0 - c[n_up:]
    X[n_up:, 1] = 0.5 - s[n_up:]
    y = np.concatenate([np.ones(n_up), -np.ones(n_low)])
    X += noise * rng.standard_normal((n, 2))
    perm = rng.permutation(n)
    return X[perm], y[perm]


# ---------------------------------------------------------------------------
# Chapter 7: smooth and rough targets on [0, 1]
# ---------------------------------------------------------------------------

def _unit_interval_points(x: ArrayLike, name: str = "x") -> tuple[np.ndarray, tuple[int, ...]]:
    """Flatten ``x`` (scalar, 1-D or an (n, 1) column) to 1-D, checked to lie in [0, 1]."""
    a = as_float_array(x, name)
    A = check_unit_interval(a.reshape(-1) if a.ndim < 2 else a, name, min_rows=0)
    return A[:, 0], a.shape[:1]


def sine_target(x: ArrayLike) -> Any:
    """The smooth target ``sin(4 pi x)`` of the smoothness-matching experiment (x in [0, 1]).

    Accepts a scalar, a 1-D array or an (n, 1) column; returns a float or a 1-D array.
    """
    flat, shape = _unit_interval_points(x)
    out = np.sin(4.0 * np.pi * flat)
    return float(out[0]) if shape == () else out.reshape(shape)


def square_wave_target(x: ArrayLike) -> Any:
    """The rough target: ``1`` on ``[0, 0.25) U [0.5, 0.75)`` and ``-1`` elsewhere in [0, 1].

    Accepts a scalar, a 1-D array or an (n, 1) column; returns a float or a 1-D array.
    """
    flat, shape = _unit_interval_points(x)
    up = (flat < 0.25) | ((flat >= 0.5) & (flat < 0.75))
    out = np.where(up, 1.0, -1.0)
    return float(out[0]) if shape == () else out.reshape(shape)


@finite_result
@validate_args({"n": [POSITIVE_INT], "noise": [NONNEGATIVE], "random_state": ["random_state"]})
def sine_and_square(n: int, noise: float = 0.1,
                    random_state: Seed = None) -> SineSquareData:
    """Training data for the smoothness-matching KRR experiment (Chapter 7).

    Inputs ``x_i ~ Uniform[0, 1]`` (i.i.d.), and two responses at the same inputs,

    * ``y_sine = sin(4 pi x) + eps``  (smooth target, :func:`sine_target`),
    * ``y_square = s(x) + eps'``  (square wave, :func:`square_wave_target`),

    with independent noise vectors ``eps, eps' ~ N(0, noise**2 I)``.  The
    book's experiment (chapter "How fast does kernel ridge regression learn?")
    uses ``n = 40``, ``noise = 0.1`` and a fresh
    training set per target: call this function twice with different seeds
    and use one response from each call.

    Parameters
    ----------
    n : int
        Number of training points (at least 1).
    noise : float, default=0.1
        Noise standard deviation (>= 0).
    random_state : int, Generator or None
        Source of randomness.

    Returns
    -------
    X : ndarray of shape (n, 1)
    y_sine : ndarray of shape (n,)
    y_square : ndarray of shape (n,)
    """
    rng = as_generator(random_state)
    x = rng.uniform(0.0, 1.0, size=n)
    y_sine = sine_target(x) + noise * rng.standard_normal(n)
    y_square = square_wave_target(x) + noise * rng.standard_normal(n)
    return SineSquareData(x[:, None], y_sine, y_square)

"""Positive random features for the softmax kernel exp(x^T x').

Chapter "Large-scale kernel machines: random features and Nyström".
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin

from .._estimator_inputs import validate_fit_matrix
from .._typing import Seed
from .._validation import (
    FiniteResults,
    as_generator,
    check_predict_input,
    preserve_float32,
)
from .._validation.params import POSITIVE_INT

__all__ = [
    "PositiveRandomFeatures",
]


class PositiveRandomFeatures(FiniteResults, ClassNamePrefixFeaturesOutMixin, TransformerMixin,
                             BaseEstimator):
    r"""Positive random features for the softmax kernel :math:`\exp(x^\top x')`.

    Each feature is :math:`\varphi_w(x) = D^{-1/2}\exp(-\|x\|^2/2 + w^\top x)`
    with :math:`w \sim N(0, I_d)` (Performer-style features).  Since
    :math:`\mathbb E\exp(w^\top(x + x')) = \exp(\|x + x'\|^2/2)`, the inner
    product :math:`\varphi(x)^\top\varphi(x')` is unbiased for
    :math:`\exp(x^\top x')`, with variance
    :math:`\frac1D e^{2x^\top x'}(e^{\|x + x'\|^2} - 1)`.  Unlike trigonometric
    features, every feature is strictly positive.

    Parameters
    ----------
    n_features : int, default=100
        Number :math:`D` of random features (the output dimension).
    random_state : None, int, numpy.random.Generator or RandomState, optional

    Attributes
    ----------
    W_ : ndarray of shape (n_dims, n_features)
        The random vectors :math:`w_j`, one per column.
    """

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    _parameter_constraints = {"n_features": [POSITIVE_INT], "random_state": ["random_state"]}

    def __init__(self, *, n_features: int = 100, random_state: Seed = None) -> None:
        self.n_features = n_features
        self.random_state = random_state

    def fit(self, X: ArrayLike, y: ArrayLike | None = None) -> "PositiveRandomFeatures":
        """Draw the random vectors for inputs of X's dimension; returns ``self``."""
        X = validate_fit_matrix(self, X)
        D = int(self.n_features)
        rng = as_generator(self.random_state)   # declared: checked by validate_params
        self.W_ = rng.standard_normal((D, X.shape[1])).T   # draws in feature order
        self.n_features_in_, self._n_features_out = X.shape[1], D
        return self

    @preserve_float32
    def transform(self, X: ArrayLike) -> np.ndarray:
        """Map ``X`` (shape (n_samples, n_dims)) to features of shape (n_samples, n_features)."""
        A: np.ndarray = check_predict_input(self, X, "W_")
        P = A @ self.W_
        P -= 0.5 * np.einsum("ij,ij->i", A, A)[:, None]
        np.exp(P, out=P)
        P *= 1.0 / math.sqrt(self.W_.shape[1])
        return P

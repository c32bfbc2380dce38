"""The Nyström feature map from random landmarks.

Chapter "Large-scale kernel machines: random features and Nyström".
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin

from .. import _dask
from .._blocks import row_blocks
from .._estimator_inputs import (
    PairwiseTags,
    gram,
    is_precomputed,
    validate_fit_matrix,
)
from .._linalg import eigh_owned, psd_eigenpairs
from .._typing import KernelFunc, Seed
from .._validation import (
    as_generator,
    check_finite_result,
    check_gram_psd,
    check_predict_input,
    preserve_float32,
)
from .._validation.params import POSITIVE, POSITIVE_INT

__all__ = [
    "Nystroem",
]


class Nystroem(PairwiseTags, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    r"""Nystroem low-rank feature map from randomly chosen landmark points.

    With :math:`m` landmarks :math:`x_{i_1}, \dots, x_{i_m}` drawn uniformly
    without replacement from the training inputs, the feature map is
    :math:`\Phi = K_{nm} (K_{mm}^{+})^{1/2}`, so that
    :math:`\Phi\Phi^\top = K_{nm} K_{mm}^{+} K_{mn}`, the Nystroem approximation
    of the Gram matrix.  It works for any positive-definite kernel; with
    :math:`m = n` it reproduces :math:`K` exactly.

    Parameters
    ----------
    kernel : callable or "precomputed"
        A kernel object ``k(X, Y)`` returning the Gram matrix of shape
        ``(len(X), len(Y))``, e.g. ``kmlib.kernels.gaussian(1.0)``.  With
        ``"precomputed"``, :meth:`fit` takes the Gram matrix (n, n) and :meth:`transform`
        the cross Gram matrix (m, n) against the training points (only the landmarks'
        columns are read); ``components_`` then holds the landmarks' rows of the Gram matrix.
    n_components : int, default=100
        Number :math:`m` of landmarks; also the output dimension.
    random_state : None, int, numpy.random.Generator or RandomState, optional
        Source of randomness for choosing the landmarks.
    rtol : float, optional
        Eigenvalues of :math:`K_{mm}` (often numerically singular) at or below
        ``rtol * max_eigenvalue`` are dropped, not inverted: :math:`K_{mm}^{-1}` is read as
        the pseudo-inverse.  ``None`` means ``m * eps``, the rank decision of
        ``numpy.linalg.matrix_rank``.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_dims)
        The landmark points.
    component_indices_ : ndarray of shape (n_components,)
        Their row indices in the training ``X``.
    normalization_ : ndarray of shape (n_components, n_components)
        The symmetric pseudo-inverse square root :math:`(K_{mm}^{+})^{1/2}
        = U_r \Lambda_r^{-1/2} U_r^\top` (eigenvalues kept: those above the
        cut-off).
    rank_ : int
        Number of eigenvalues of :math:`K_{mm}` kept.
    """

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    _parameter_constraints = {"kernel": ["kernel"], "n_components": [POSITIVE_INT],
                              "random_state": ["random_state"], "rtol": [POSITIVE, None]}

    def __init__(self, *, kernel: KernelFunc, n_components: int = 100, random_state: Seed = None,
                 rtol: float | None = None) -> None:
        self.kernel = kernel
        self.n_components = n_components
        self.random_state = random_state
        self.rtol = rtol

    def _gram(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        if is_precomputed(self.kernel):  # A: rows of the cross Gram matrix
            return A[:, self.component_indices_]
        return gram(self.kernel, A, B)

    def fit(self, X: ArrayLike, y: ArrayLike | None = None) -> "Nystroem":
        """Choose the landmarks and factor their Gram matrix.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_dims)
        y : ignored

        Returns
        -------
        self
        """
        X = validate_fit_matrix(self, X, accept_sparse=True)
        pre, n = is_precomputed(self.kernel), X.shape[0]
        m = int(self.n_components)
        if m > n:
            warnings.warn(f"n_components={m} > n_samples={n}: n_components was set to "
                          "n_samples (the exact kernel), as scikit-learn does", stacklevel=2)
            m = n
        rtol = None if self.rtol is None else float(self.rtol)
        rng = as_generator(self.random_state)   # declared: checked by validate_params
        idx = np.sort(rng.choice(n, size=m, replace=False))
        L = X[idx]
        Kmm = L[:, idx] if pre else self._gram(L, L)
        Kmm = 0.5 * (Kmm + Kmm.T)
        check_gram_psd(Kmm, "kernel(landmarks)", who="Nystroem.fit")
        evals, U = psd_eigenpairs(*eigh_owned(Kmm), rtol=rtol, name="kernel(landmarks)",
                                  who="Nystroem.fit")
        self.normalization_ = (U / np.sqrt(evals)) @ U.T
        self.components_ = L
        self.component_indices_ = idx
        self.rank_ = len(evals)
        self.n_features_in_, self._n_features_out = X.shape[1], m
        return self

    @preserve_float32
    def transform(self, X: ArrayLike) -> np.ndarray:
        """Nystroem features ``Phi = k(X, components_) @ normalization_``.

        Parameters
        ----------
        X : array-like or dask.array.Array of shape (n_samples, n_dims)
            A Dask array (chunked along rows) gives a lazy Dask array, chunk by chunk.

        Returns
        -------
        Phi : ndarray of shape (n_samples, n_components)
        """
        if _dask.is_dask(X):   # a lazy Dask array, chunk by chunk
            return _dask.transform(self, X, "normalization_", lambda e: e.normalization_.shape[1])
        A = check_predict_input(self, X, "normalization_", accept_sparse=True)
        L, T = self.components_, self.normalization_
        n = A.shape[0]
        out = np.empty((n, T.shape[1]))
        with np.errstate(over="ignore", invalid="ignore"):   # (an overflow: checked below)
            for blk in row_blocks(n, 8 * T.shape[0]):  # k(X_b, L): working_memory MiB
                np.matmul(self._gram(A[blk], L), T, out=out[blk])
            total = float(out.sum())
        return check_finite_result(out, "Nystroem.transform: the result", total=total)

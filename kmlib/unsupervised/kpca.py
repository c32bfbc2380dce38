r"""Kernel principal component analysis.

PCA of the feature vectors :math:`\phi(x_i)` through the Gram matrix centred in feature
space, :math:`K_c = HKH = \sum_j \lambda_j v_j v_j^\top` (:math:`H = I - 11^\top/n`).  The
j-th component of x is :math:`\langle \phi(x) - \bar\phi, u_j\rangle`, with the unit direction
:math:`u_j = \sum_i v_{ij} (\phi(x_i) - \bar\phi) / \sqrt{\lambda_j}`: it is
:math:`\sqrt{\lambda_j}\, v_{ij}` at :math:`x_i`, and the variance along :math:`u_j` is
:math:`\lambda_j / n`.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin

from .._estimator_inputs import (
    PairwiseTags,
    check_fit_matrix,
    fit_gram,
    gram,
    is_precomputed,
    prediction_gram,
)
from .._linalg import dot, psd_eigenpairs, psd_rtol
from .._typing import KernelFunc
from .._validation import (
    FiniteResults,
    NotFittedError,
    check_fitted,
    check_matrix,
    check_n_features,
    preserve_float32,
    validate_params,
)
from .._validation.params import POSITIVE, POSITIVE_INT
from ..kernels import Kernel
from ._common import center_gram

__all__ = ["KernelPCA"]


class KernelPCA(FiniteResults, PairwiseTags, ClassNamePrefixFeaturesOutMixin, TransformerMixin,
                BaseEstimator):
    r"""Kernel PCA, a scikit-learn transformer (``Pipeline``, ``clone``, ``set_output``).

    It agrees with :class:`sklearn.decomposition.KernelPCA` (``eigen_solver="dense"``) given
    the same kernel, e.g. ``kernel="rbf"``, ``gamma = 1 / (2 sigma^2)`` for
    ``kernels.gaussian(sigma)``; with ``kernels.linear()`` the components are the PCA scores.

    Parameters
    ----------
    n_components : int or None, default None
        Number of leading components, at most n.  None: every component whose eigenvalue is
        not zero.  An eigenvalue at or below :math:`\max(10^{-12}, n\varepsilon)\,\lambda_1`
        counts as zero (scikit-learn's rule).
    kernel : callable or "precomputed"
        ``kernel(X, Y=None)`` returning the Gram matrix, e.g. ``kmlib.kernels.gaussian(1.0)``.
        With ``"precomputed"``, :meth:`fit` takes the Gram matrix (n, n) and
        :meth:`transform` the cross Gram matrix (m, n) against the training points.
    fit_inverse_transform : bool, default False
        Learn the pre-image map of :meth:`inverse_transform` (not with ``"precomputed"``).
    alpha : float, default 1.0
        Its ridge penalty, > 0 (scikit-learn's ``alpha``).
    remove_zero_eig : bool, default False
        Drop the components of zero eigenvalue, so that there may be fewer than
        ``n_components``.  Without it (and with ``n_components`` given) there are exactly
        ``n_components`` columns, those of zero eigenvalue zero in every output, as in
        scikit-learn.  With ``n_components=None`` they are always dropped.

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (r,), r = ``n_components_``
        Eigenvalues of the centred Gram matrix (not divided by n), decreasing, >= 0 (> 0
        with ``remove_zero_eig=True`` or ``n_components=None``).
    eigenvectors_ : ndarray of shape (n_samples, r)
        Unit eigenvectors, each with its largest entry in absolute value positive
        (scikit-learn's sign convention).
    n_components_ : int
        Number of components kept.
    X_fit_ : ndarray of shape (n_samples, n_features) or None (if precomputed)
    dual_coef_ : ndarray of shape (n_samples, n_features) or None
        Kernel ridge coefficients of the pre-image map (None without it).
    X_transformed_fit_ : ndarray of shape (n_samples, r) or None
        The training projections, inputs of that map.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names of a training DataFrame (only then).

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib import kernels
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    >>> kpca = KernelPCA(kernel=kernels.linear()).fit(X)
    >>> np.round(kpca.eigenvalues_, 10)   # the centred points span a line: one component
    array([4.])
    >>> np.round(np.abs(kpca.transform([[3.0, 3.0]])), 10)   # |PCA score| = 2 sqrt(2)
    array([[2.82842712]])
    """

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = tags.input_tags.sparse and not self.fit_inverse_transform
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    _parameter_constraints = {"n_components": [POSITIVE_INT, None], "kernel": ["kernel"],
                              "fit_inverse_transform": ["boolean"], "alpha": [POSITIVE],
                              "remove_zero_eig": ["boolean"]}

    def __init__(self, n_components: int | None = None, *, kernel: KernelFunc,
                 fit_inverse_transform: bool = False, alpha: float = 1.0,
                 remove_zero_eig: bool = False) -> None:
        self.n_components = n_components
        self.kernel = kernel
        self.fit_inverse_transform = fit_inverse_transform
        self.alpha = alpha
        self.remove_zero_eig = remove_zero_eig

    def fit(self, X: ArrayLike, y: Any = None) -> "KernelPCA":
        """Centre the Gram matrix of ``X`` (n >= 2 rows) and keep its leading eigenpairs.

        Parameters
        ----------
        X : array-like of shape (n, d), (n,) for points on a line, or (n, n) if precomputed
        y : ignored

        Returns
        -------
        self : KernelPCA

        Raises
        ------
        ValueError
            If ``X`` or a hyper-parameter is invalid, the Gram matrix is not symmetric
            positive semi-definite, or its centred version is zero (no component).
        """
        validate_params(self, X)
        pre, r = is_precomputed(self.kernel), self.n_components
        if self.fit_inverse_transform and pre:
            raise ValueError("fit_inverse_transform=True needs the input points; it cannot be "
                             "used with kernel='precomputed'")
        alpha = float(self.alpha)
        # the checked X: a square symmetric array if precomputed, else a matrix (maybe sparse)
        A = check_fit_matrix(self.kernel, X, accept_sparse=True, min_rows=2,
                             why="KernelPCA centres the data")
        if self.fit_inverse_transform and scipy.sparse.issparse(A):
            raise TypeError("KernelPCA(fit_inverse_transform=True) cannot use a sparse X (it "
                            "learns a map back to dense points); pass X.toarray()")
        K = fit_gram(self.kernel, A, "KernelPCA.fit")
        what = "X" if pre else "kernel(X)"
        owned = not pre and isinstance(self.kernel, Kernel)  # a fresh K, not the user's array
        Kc, self._col_means, self._grand_mean = center_gram(K, overwrite=owned)
        n = len(Kc)
        r = n if r is None else min(r, n)
        # Kc.T: the same symmetric matrix in Fortran order, which LAPACK overwrites in place
        evals, evecs = sla.eigh(Kc.T, subset_by_index=(n - r, n - 1), overwrite_a=True,
                                check_finite=False)  # the r largest, ascending
        # scikit-learn's KernelPCA treats eigenvalues below 1e-12 * max as zero
        evals, evecs = evals[::-1], evecs[:, ::-1]
        nonzero = psd_eigenpairs(evals, evecs, rtol=max(1e-12, psd_rtol(n)),
                                 name=f"the centred {what}", who="KernelPCA.fit")
        if self.remove_zero_eig or self.n_components is None:
            evals, evecs = nonzero
            if not evals.size:
                raise ValueError(f"the centred {what} is zero: all points are the same in "
                                 "feature space, there is no principal component")
        else:  # the kept eigenvalues are the leading ones; the others are zero
            evals = np.r_[nonzero[0], np.zeros(len(evals) - len(nonzero[0]))]
        top = np.argmax(np.abs(evecs), axis=0)
        self.eigenvectors_ = evecs * np.sign(evecs[top, np.arange(evecs.shape[1])])
        self.eigenvalues_ = evals
        self.X_fit_ = None if pre else A.copy()
        self.n_features_in_ = A.shape[1]
        self.n_components_ = self._n_features_out = len(self.eigenvalues_)
        self.dual_coef_ = self.X_transformed_fit_ = None
        if self.fit_inverse_transform:
            Z = self.eigenvectors_ * np.sqrt(self.eigenvalues_)
            assert alpha is not None  # checked above with fit_inverse_transform
            G = gram(self.kernel, Z, what="kernel(X_transformed)") + alpha * np.eye(n)
            try:
                self.dual_coef_ = sla.cho_solve(sla.cho_factor(G, overwrite_a=True), A)
            except np.linalg.LinAlgError as exc:
                raise ValueError("fit_inverse_transform: kernel(X_transformed) + alpha I is "
                                 "not positive definite; use a larger alpha or a "
                                 "positive-definite kernel") from exc
            self.X_transformed_fit_ = Z
        return self

    @preserve_float32
    def fit_transform(self, X: ArrayLike, y: Any = None) -> np.ndarray:
        """Fit and return the training projections ``eigenvectors_ * sqrt(eigenvalues_)``.

        Parameters
        ----------
        X : array-like of shape (n, d), (n,) for points on a line, or (n, n) if precomputed
        y : ignored

        Returns
        -------
        ndarray of shape (n, r)
        """
        self.fit(X)
        return self.eigenvectors_ * np.sqrt(self.eigenvalues_)

    @preserve_float32
    def transform(self, X: ArrayLike) -> np.ndarray:
        """Components of new points: ``Kc @ eigenvectors_ / sqrt(eigenvalues_)``.

        ``Kc`` is the cross Gram matrix :math:`k(x, x_i)` centred as in training: minus its
        row means and the training Gram matrix's column means, plus their grand mean.

        Parameters
        ----------
        X : array-like of shape (m, d), (m,), or (m, n_train) if precomputed

        Returns
        -------
        ndarray of shape (m, r)
        """
        Kx = prediction_gram(self, X, "eigenvectors_")
        Kx = Kx - Kx.mean(axis=1, keepdims=True) - self._col_means + self._grand_mean
        lam = self.eigenvalues_
        scaled = np.zeros_like(self.eigenvectors_)           # zero eigenvalue: zero column
        np.divide(self.eigenvectors_, np.sqrt(lam), out=scaled, where=lam > 0)
        return dot(Kx, scaled)

    @preserve_float32
    def inverse_transform(self, X: ArrayLike) -> np.ndarray:
        """Approximate pre-images: kernel ridge regression from the projections back to X.

        Learned in :meth:`fit` (``fit_inverse_transform=True``) on the training pairs
        (projection, point) with the same kernel and penalty ``alpha``, as scikit-learn does.

        Parameters
        ----------
        X : array-like of shape (m, r)
            Projections, e.g. the output of :meth:`transform`.

        Returns
        -------
        ndarray of shape (m, n_features)

        Raises
        ------
        ValueError
            scikit-learn's ``NotFittedError`` if fitted without ``fit_inverse_transform=True``;
            a ValueError if ``X`` does not have ``n_components_`` columns.
        """
        check_fitted(self, "eigenvectors_")
        if self.dual_coef_ is None:
            raise NotFittedError("inverse_transform needs KernelPCA(fit_inverse_transform=True)"
                                 " fitted again; this one was fitted without it")
        Z = check_matrix(X, "X")
        check_n_features(self, Z, self.n_components_, "the n_components_ projections of a "
                         "point per row")
        return dot(gram(self.kernel, Z, self.X_transformed_fit_), self.dual_coef_)

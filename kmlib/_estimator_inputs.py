r"""Input handling shared by the kernel estimators (KernelRidge, KernelSVM, Nystroem, ...).

They take their kernel in the same two forms: a callable ``k(X, Y=None)`` returning a
Gram matrix, or the string ``"precomputed"``, in which case :meth:`fit` receives the
symmetric training Gram matrix (n, n) and the prediction methods the cross Gram matrix
(m, n_train) between test and training points.  The classifiers accept any two labels,
coded -1 for ``classes_[0]`` and +1 for ``classes_[1]``, as scikit-learn does.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin

from ._validation import (
    as_float_array,
    check_binary_labels,
    check_fitted,
    check_matrix,
    check_pair,
    check_predict_input,
    check_same_length,
    check_symmetric,
)
from .kernels.base import Kernel

__all__ = ["PairwiseTags", "is_precomputed", "check_symmetric", "gram",
           "fit_inputs", "prediction_gram"]


def is_precomputed(kernel: Any) -> bool:
    """Whether the ``kernel`` hyper-parameter is the string ``"precomputed"``."""
    return isinstance(kernel, str) and kernel == "precomputed"


class PairwiseTags:
    """Mixin of the kernel estimators: the ``pairwise`` and ``sparse`` input tags.

    With ``kernel="precomputed"`` X is a Gram matrix, which scikit-learn's cross-validation
    slices by rows and columns.  Otherwise a ``scipy.sparse`` X is handed to the kernel:
    kmlib's linear, polynomial and Gaussian kernels (and their sums, products, ...)
    evaluate it, the others refuse it with a TypeError; a user's callable gets it as it is.
    """

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()  # type: ignore[misc]
        pre = is_precomputed(self.kernel)  # type: ignore[attr-defined]
        tags.input_tags.pairwise = pre
        tags.input_tags.sparse = not pre and getattr(self.kernel,  # type: ignore[attr-defined]
                                                     "_sparse_ok", True)
        return tags


def gram(kernel: Any, X: np.ndarray, Y: np.ndarray | None = None, *, what: str | None = None,
         finite: bool = True) -> np.ndarray:
    """The float Gram matrix ``kernel(X)`` (``Y`` None) or ``kernel(X, Y)``, checked.

    The one place where kmlib's estimators evaluate a user's kernel.  A ValueError
    (naming the call as ``what``; a TypeError for a non-numeric result, as
    :func:`kmlib._validation.as_float_array` raises) if the result is not real, has the wrong shape,
    or, when ``finite``, holds NaN or inf (callers that run ``check_symmetric`` on the
    square ``kernel(X)`` pass ``finite=False``: that check rejects them in the same pass).
    The result may be the very array the kernel returned: callers must not modify it.
    """
    if what is None:
        what = "kernel(X)" if Y is None else "kernel(X, Y)"
    G = kernel(X) if Y is None else kernel(X, Y)
    if scipy.sparse.issparse(G):   # e.g. X @ Y.T of sparse inputs
        G = G.toarray()
    G = as_float_array(G, what)   # numeric and real (a complex result is not truncated)
    shape = (X.shape[0], X.shape[0] if Y is None else Y.shape[0])
    if G.shape != shape:
        raise ValueError(
            f"{what} must return a Gram matrix of shape {shape}; got shape {G.shape}"
        )
    if finite and not isinstance(kernel, Kernel) and not np.all(np.isfinite(G)):
        raise ValueError(f"{what} returned NaN or infinite values; check the kernel's parameters")
    return G


def fit_inputs(kernel: Any, X: ArrayLike, y: ArrayLike, *, need_gram: bool, one_class_why: str = ""
               ) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray, np.ndarray]:
    """Check a kernel classifier's training data; return ``(K, X_fit, y, classes)``.

    ``K`` is the given (n, n) matrix if ``kernel="precomputed"``, ``kernel(X)`` if
    ``need_gram``, else None; ``X_fit`` the checked inputs (None if precomputed); ``y``
    the labels coded -1.0 (``classes[0]``) and +1.0 (``classes[1]``), ``classes`` the
    two sorted labels.  ``one_class_why`` says why one class is not enough.
    """
    classes, y = check_binary_labels(y, one_class_why=one_class_why)   # a column y warns
    if is_precomputed(kernel):
        K, _ = check_pair(X, y, matrix="square")   # (y: the coded labels, checked above)
        check_symmetric(K, "X")
        return K, None, y, classes
    X_fit = check_matrix(X, "X", accept_sparse=True)
    check_same_length(X_fit, y, "X", "y")
    return (gram(kernel, X_fit) if need_gram else None), X_fit, y, classes


def prediction_gram(estimator: Any, X: ArrayLike, fitted: str,
                    keep: str | None = None) -> np.ndarray:
    """Check test inputs ``X``; return their (m, n_train) cross Gram matrix with ``X_fit_``.

    First the ``estimator`` must be fitted (have the attribute ``fitted``) and the column
    names of a DataFrame ``X`` must match those seen in ``fit``.  With
    ``kernel="precomputed"`` ``X`` is that matrix already.  Only the columns of the training
    points indexed by the attribute ``keep`` (e.g. support vectors; None: all) are returned,
    and the kernel is not called when none is kept.  A ValueError (naming the ``estimator``)
    when ``X`` has the wrong number of columns or the kernel returns a bad matrix.
    """
    check_fitted(estimator, fitted)
    kernel, X_fit, pre = estimator.kernel, estimator.X_fit_, is_precomputed(estimator.kernel)
    if pre and np.asarray(X).ndim == 1:
        raise ValueError(
            "X must be the (m, n_train) Gram matrix against the training points; got a "
            "1-D array. Reshape your data, e.g. X.reshape(1, -1) for one test point"
        )
    # n_features_in_ is n_train with a precomputed kernel (the training Gram matrix's width)
    Xt = check_predict_input(estimator, X, accept_sparse=not pre, what=(
        "the (m, n_train) Gram matrix against the training points" if pre else ""))
    keep_idx = None if keep is None else getattr(estimator, keep)
    if pre:
        return Xt if keep_idx is None else Xt[:, keep_idx]
    assert X_fit is not None  # not precomputed: the training inputs were kept
    ref = X_fit if keep_idx is None else X_fit[keep_idx]
    if ref.shape[0] == 0:
        return np.zeros((Xt.shape[0], 0))
    return gram(kernel, Xt, ref)


class BinaryKernelClassifier(PairwiseTags, ClassifierMixin, BaseEstimator):
    """Base of the two-class kernel classifiers: ``f(x) = sum_j c_j k(x, x_j) + b``.

    Subclasses fit ``dual_coef_`` and ``intercept_`` and call :meth:`_store_training`;
    this class holds what they share: the two-class tag, the training attributes
    (``X_fit_``, ``n_train_``, ``classes_``, ``n_features_in_``), the decision function
    and the labels.
    """

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # two classes (see classes_)
        return tags

    def _store_training(self, K: np.ndarray | None, X_fit: np.ndarray | None, y: np.ndarray,
                        classes: np.ndarray) -> None:
        self.X_fit_ = X_fit
        self.n_train_ = int(len(y))
        self.classes_ = classes
        self.n_features_in_ = int(X_fit.shape[1] if X_fit is not None
                                  else K.shape[1] if K is not None else 0)

    def _decision(self, X: ArrayLike, keep: str | None = None) -> np.ndarray:
        """Return ``k(X, X_fit_[keep]) @ dual_coef_ + intercept_``.

        ``keep`` names the fitted attribute that indexes the training points used (None: all).
        """
        Kt = prediction_gram(self, X, "dual_coef_", keep=keep)
        return Kt @ self.dual_coef_ + self.intercept_

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Predicted labels: ``classes_[1]`` where the decision function is >= 0.

        With labels -1 and 1 this is the sign of the decision function (ties go to +1).

        Parameters
        ----------
        X : array of shape (m, d), or (m, n_train) if ``kernel="precomputed"``

        Returns
        -------
        ndarray of shape (m,)
        """
        positive = self.decision_function(X) >= 0.0
        return self.classes_[positive.astype(int)]

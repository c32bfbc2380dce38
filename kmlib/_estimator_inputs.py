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
    FiniteResults,
    as_float_array,
    check_binary_labels,
    check_fitted,
    check_gram_psd,
    check_matrix,
    check_predict_input,
    check_same_length,
    check_sample_weight,
    check_square,
    check_symmetric,
    check_targets,
    validate_params,
    warn_column_y,
)
from .kernels.base import Kernel

__all__ = ["PairwiseTags", "is_precomputed", "check_symmetric", "gram", "check_fit_matrix",
           "validate_fit_matrix", "validate_regression_fit", "fit_gram", "fit_inputs",
           "prediction_gram"]


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


def check_fit_matrix(kernel: Any, X: Any, *, accept_sparse: bool = False, min_rows: int = 1,
                     why: str = "") -> np.ndarray | Any:
    """The training ``X`` of a ``fit``: a matrix of points, or a precomputed Gram matrix.

    With ``kernel="precomputed"``, ``X`` must be a finite, square and symmetric matrix
    (its positive semi-definiteness: :func:`fit_gram`); otherwise a finite matrix (n, d)
    (a 1-D array is n points on a line), sparse too with ``accept_sparse``.  ``min_rows``
    and ``why`` as in :func:`kmlib._validation.check_matrix`.
    """
    if is_precomputed(kernel):
        K = check_square(X, "X", min_rows=min_rows, why=why)
        check_symmetric(K, "X")
        return K
    return check_matrix(X, "X", accept_sparse=accept_sparse, min_rows=min_rows, why=why)


def validate_fit_matrix(estimator: Any, X: Any, **options: Any) -> np.ndarray | Any:
    """The first step of ``fit``: the hyper-parameters, then ``X`` (scikit-learn's order).

    :func:`kmlib._validation.validate_params` (which records a DataFrame's column names),
    then :func:`check_fit_matrix` with the estimator's ``kernel`` (if it has one) and
    ``options``.
    """
    validate_params(estimator, X)
    return check_fit_matrix(getattr(estimator, "kernel", None), X, **options)


def validate_regression_fit(estimator: Any, X: Any, y: Any, sample_weight: Any = None, *,
                            multi_output: bool = True, warn_column: bool = True,
                            accept_sparse: bool = False
                            ) -> tuple[np.ndarray | Any, np.ndarray, np.ndarray | None]:
    """The training data of a regressor's ``fit``, checked: ``(X, y, sample_weight)``.

    In this order: the hyper-parameters and ``X`` by :func:`validate_fit_matrix`; with
    ``warn_column``, scikit-learn's warning for a column ``y`` (n, 1); ``y`` of shape (n,)
    or, with ``multi_output``, (n, t); one response per row of ``X``; the weights (None,
    or one finite weight >= 0 per row).
    """
    X = validate_fit_matrix(estimator, X, accept_sparse=accept_sparse)
    if warn_column:
        warn_column_y(y)
    y = check_targets(y, multi_output=multi_output)
    check_same_length(X, y, "X", "y")
    return X, y, check_sample_weight(sample_weight, X)


def fit_gram(kernel: Any, X: Any, who: str, *, finite: bool = False) -> np.ndarray:
    """The training Gram matrix of ``X`` checked by :func:`check_fit_matrix`.

    ``X`` itself if precomputed, else ``kernel(X)`` (by :func:`gram`, with ``finite``),
    symmetric (a kmlib kernel's matrix is exactly so; a user's kernel's is checked, in a
    pass that also refuses NaN and inf) and with no negative diagonal entry
    (:func:`kmlib._validation.check_gram_psd`, whose message names ``who``).
    """
    pre = is_precomputed(kernel)
    K = X if pre else gram(kernel, X, finite=finite)
    what = "X" if pre else "kernel(X)"
    if not (pre or isinstance(kernel, Kernel)):   # a precomputed X: by check_fit_matrix
        check_symmetric(K, what)
    check_gram_psd(K, what, who=who)
    return K


def fit_inputs(estimator: Any, X: ArrayLike, y: ArrayLike, sample_weight: Any = None, *,
               need_gram: bool, one_class_why: str = ""
               ) -> tuple[np.ndarray | None, Any, np.ndarray, np.ndarray, np.ndarray | None]:
    """Check a kernel classifier's ``fit``; return ``(K, X_fit, y, classes, sample_weight)``.

    In this order: the hyper-parameters of ``estimator``, the labels, ``X`` (as by
    :func:`check_fit_matrix`, sparse accepted), one label per row, the Gram matrix, the
    weights.  ``K`` is the given (n, n) matrix if ``kernel="precomputed"``, ``kernel(X)``
    if ``need_gram``, else None (both checked by :func:`fit_gram`); ``X_fit`` the checked
    inputs (None if precomputed); ``y`` the labels coded -1.0 (``classes[0]``) and +1.0
    (``classes[1]``), ``classes`` the two sorted labels.  ``one_class_why`` says why one
    class is not enough.  The weights must give each class a point of positive weight.
    """
    validate_params(estimator, X)
    classes, y = check_binary_labels(y, one_class_why=one_class_why)   # a column y warns
    kernel, pre = estimator.kernel, is_precomputed(estimator.kernel)
    X = check_fit_matrix(kernel, X, accept_sparse=True)
    check_same_length(X, y, "X", "y")
    who = f"{type(estimator).__name__}.fit"
    K = fit_gram(kernel, X, who, finite=True) if pre or need_gram else None
    w = check_sample_weight(sample_weight, y, labels=y)   # each class weighted
    return K, None if pre else X, y, classes, w


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


class BinaryKernelClassifier(FiniteResults, PairwiseTags, ClassifierMixin, BaseEstimator):
    """Base of the two-class kernel classifiers: ``f(x) = sum_j c_j k(x, x_j) + b``.

    Subclasses fit ``dual_coef_`` and ``intercept_`` and call :meth:`_store_training`;
    this class holds what they share: the two-class tag, the training attributes
    (``X_fit_``, ``n_train_``, ``classes_``, ``n_features_in_``), the decision function
    (a subclass's ``decision_function`` never returns inf or NaN silently) and the labels.
    """

    _finite_methods = ("decision_function",)

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

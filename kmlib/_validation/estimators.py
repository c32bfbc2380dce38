"""Arguments of estimators: labels, kernels, fitted state and the number of features."""
from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.exceptions import DataConversionWarning, NotFittedError
from sklearn.utils import check_array, column_or_1d
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_non_negative, validate_data

from .arrays import check_given, check_matrix, check_same_length, check_vector
from .gram import check_gram_psd, check_symmetric


def check_labels(y: ArrayLike, name: str = "y", *, both: bool = False) -> np.ndarray:
    """Return labels as a float array, raising unless every entry is -1 or 1.

    With ``both``, both labels must occur.
    """
    v = check_vector(y, name)
    if both and np.all(v == v[0]):
        raise ValueError(f"{name} must contain both labels -1 and 1; got only {v[0]:g}")
    bad = ~np.isin(v, (-1.0, 1.0))
    if np.any(bad):
        found = np.unique(v[bad])[:5]
        raise ValueError(
            f"{name} must contain only the labels -1 and 1; found {found.tolist()}. "
            "Recode the classes, e.g. y = np.where(y == positive_class, 1, -1)"
        )
    return v


def check_pair(M: Any, v: Any, names: tuple[str, str] = ("X", "y"), *, matrix: str = "points",
               labels: bool | str = False, who: str = "", min_rows: int = 1,
               why: str = "") -> tuple[np.ndarray, np.ndarray]:
    """A matrix and a vector with one entry per row: the two data arguments of a fit.

    ``matrix`` says what the matrix is: ``"points"`` (shape (n, d); a 1-D array is n
    points of one feature), ``"2d"`` (shape (n, d), 1-D refused), ``"square"``, or
    ``"gram"`` (square, symmetric and positive semi-definite by :func:`check_gram_psd`,
    whose message names ``who``).  With ``labels`` the vector holds the labels -1 and 1
    (``labels="both"``: both of them).
    ``names`` are the two arguments' names in the messages; ``min_rows`` and ``why`` as
    in :func:`check_matrix`.
    """
    m_name, v_name = names
    M = check_matrix(M, m_name, allow_1d=matrix == "points", square=matrix in ("square", "gram"),
                     min_rows=min_rows, why=why)
    v = check_labels(v, v_name, both=labels == "both") if labels else check_vector(v, v_name)
    check_same_length(M, v, m_name, v_name)
    if matrix == "gram":
        check_symmetric(M, m_name)
        check_gram_psd(M, m_name, who=who)
    return M, v


def warn_column_y(y: Any) -> None:
    """scikit-learn's DataConversionWarning when ``fit`` gets ``y`` as a column (n, 1)."""
    if np.asarray(y).shape[1:] == (1,):
        warnings.warn("A column-vector y was passed when a 1d array was expected. Please change "
                      "the shape of y to (n_samples,), for example using ravel().",
                      DataConversionWarning, stacklevel=3)


def check_fitted(estimator: Any, attribute: str) -> None:
    """Raise scikit-learn's :class:`NotFittedError` unless ``estimator`` has ``attribute``.

    scikit-learn's rule (an estimator is fitted once ``fit`` has set the attribute) and
    message; its ``check_is_fitted`` itself needs a scikit-learn estimator (tags), this
    works on any object (e.g. the book's streaming ridge).
    """
    if not hasattr(estimator, attribute):
        raise NotFittedError(f"This {type(estimator).__name__} instance is not fitted yet. "
                             "Call 'fit' with appropriate arguments before using this estimator.")


def check_n_features(estimator: Any, X: np.ndarray, expected: int | None = None,
                     what: str = "") -> None:
    """Raise unless ``X`` has ``expected`` columns (default: those ``estimator`` was fitted on).

    The message has scikit-learn's shape ("X has 3 features, but KernelRidge is
    expecting 2 features as input"), so tools built on scikit-learn recognise it;
    ``what`` says what the columns must be (default: those of the training data).
    """
    expected = estimator.n_features_in_ if expected is None else expected
    if X.shape[1] != expected:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(estimator).__name__} is expecting "
            f"{expected} features as input: {what or 'the features of the training data'}. "
            f"Reshape your data to (n_samples, {expected}) if it holds one sample or one feature"
        )


def check_predict_input(estimator: Any, X: Any, fitted: str | None = None, *,
                        accept_sparse: bool = False, what: str = "") -> Any:
    """``X`` for a fitted estimator's ``predict`` or ``transform``, as a float matrix.

    In scikit-learn's order: the estimator is fitted (has the attribute ``fitted``,
    unless None), the column names of a DataFrame match those seen in ``fit``, ``X``
    is a finite 2-D array (sparse with ``accept_sparse``) with the training number of
    features ``n_features_in_`` (``what``: what they are, for the message).
    """
    if fitted is not None:
        check_fitted(estimator, fitted)
    check_feature_names(estimator, X, reset=False)
    A = check_matrix(X, "X", accept_sparse=accept_sparse)
    check_n_features(estimator, A, what=what)
    return A


def check_binary_labels(y: ArrayLike, name: str = "y", one_class_why: str = ""
                        ) -> tuple[np.ndarray, NDArray[np.float64]]:
    """Check two-class labels and code them as -1/+1.

    Any two distinct labels are accepted (numbers, strings, booleans).  As in
    scikit-learn, ``classes_ = np.unique(y)`` and the second class is coded +1.
    ``one_class_why`` says, in the message for a single class, why one is not enough.

    Returns
    -------
    classes : ndarray of shape (2,)
        The two labels in sorted order.
    y_pm : ndarray of shape (n,)
        ``+1.0`` where ``y == classes[1]``, ``-1.0`` elsewhere.
    """
    check_given(y, name)
    # scikit-learn's public checks: dense, 1-D (a column warns), finite, not empty, discrete
    arr = column_or_1d(check_array(y, ensure_2d=False, dtype=None, input_name=name), warn=True)
    check_classification_targets(arr)
    classes = np.unique(arr)
    if classes.shape[0] > 2:
        raise ValueError(
            f"Only binary classification is supported. {name} has {classes.shape[0]} classes "
            f"{classes[:5].tolist()}; wrap the classifier in "
            "sklearn.multiclass.OneVsRestClassifier for more than two"
        )
    if classes.shape[0] < 2:
        why = f" ({one_class_why})" if one_class_why else ""
        raise ValueError(
            f"{name} must contain two classes; got only one class, the label "
            f"{classes[0].tolist()!r}{why}"
        )
    return classes, np.where(arr == classes[1], 1.0, -1.0)


def check_sample_weight(sample_weight: Any, X: np.ndarray,
                        labels: np.ndarray | None = None) -> np.ndarray | None:
    """None, or ``sample_weight`` as finite weights >= 0 of shape (n,).

    scikit-learn's rules and messages, through its public helpers: a number is that
    weight for every row; an array must be finite, 1-D, one weight per row, and >= 0.
    With the two-class ``labels`` (-1/+1) of a classifier, each class needs a point of
    positive weight.
    """
    if sample_weight is None:
        return None
    n = X.shape[0]
    if isinstance(sample_weight, numbers.Number):
        w = np.full(n, sample_weight, dtype=np.float64)
    else:
        w = check_array(sample_weight, accept_sparse=False, ensure_2d=False, dtype=np.float64,
                        order="C", input_name="sample_weight")
        if w.ndim != 1:
            raise ValueError("Sample weights must be 1D array or scalar")
        if w.shape != (n,):
            raise ValueError(f"sample_weight.shape == {w.shape}, expected {(n,)}!")
    check_non_negative(w, "`sample_weight`")
    if labels is not None and not (np.any(w[labels > 0] > 0) and np.any(w[labels < 0] > 0)):
        who = "one of the two classes" if np.any(w > 0) else "any point"
        raise ValueError(f"sample_weight gives no positive weight to {who}; each class needs a "
                         "point of positive weight")
    return w


def check_feature_names(estimator: Any, X: Any, *, reset: bool) -> None:
    """Record (``reset=True``) or check the column names of ``X`` (a DataFrame's).

    scikit-learn's public ``validate_data`` with the array checks left to kmlib:
    ``feature_names_in_`` is set in ``fit`` and a mismatch in ``predict`` is reported.
    """
    validate_data(estimator, X, reset=reset, skip_check_array=True, ensure_2d=False)

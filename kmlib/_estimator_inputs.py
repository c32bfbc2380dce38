r"""Input handling shared by the kernel classifiers of chapter 8.

:class:`kmlib.svm.KernelSVM` and :class:`kmlib.logistic.KernelLogisticRegression`
take their kernel in the same two forms: a callable ``k(X, Y=None)`` returning
a Gram matrix, or the string ``"precomputed"``, in which case :meth:`fit`
receives the symmetric training Gram matrix (n, n) and the prediction methods
receive the cross Gram matrix (m, n_train) between test and training points.
Both accept any two class labels (numbers or strings), coded internally as
-1 for ``classes_[0]`` and +1 for ``classes_[1]``, as scikit-learn does.  This private
module holds those checks and the (checked) kernel evaluations, so that each
estimator keeps only its own algorithm.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    check_binary_labels,
    check_int,
    check_kernel,
    check_matrix,
    check_positive,
    check_same_length,
    check_square,
    check_symmetric,
)

__all__ = [
    "is_precomputed",
    "check_kernel_param",
    "check_solver_params",
    "check_both_labels",
    "check_symmetric",
    "gram",
    "fit_inputs",
    "prediction_gram",
]


def is_precomputed(kernel: Any) -> bool:
    """Whether the ``kernel`` hyper-parameter is the string ``"precomputed"``."""
    return isinstance(kernel, str) and kernel == "precomputed"


def check_kernel_param(kernel: Any) -> None:
    """Raise unless ``kernel`` is a callable ``k(X, Y)`` or the string ``"precomputed"``.

    Parameters
    ----------
    kernel : object
        The estimator's ``kernel`` hyper-parameter.

    Raises
    ------
    ValueError
        If ``kernel`` is another string or not callable.
    """
    if is_precomputed(kernel):
        return
    if isinstance(kernel, str):
        raise ValueError(
            f"kernel must be a callable k(X, Y) or the string 'precomputed'; got {kernel!r}"
        )
    check_kernel(kernel)


def check_solver_params(kernel: Any, tol: Any, max_iter: Any) -> tuple[float, int]:
    """Check the hyper-parameters every kernel classifier has: kernel, tol, max_iter.

    Parameters
    ----------
    kernel : object
        Must be a callable ``k(X, Y)`` or the string ``"precomputed"``
        (see :func:`check_kernel_param`).
    tol : object
        Stopping tolerance, must be > 0.
    max_iter : object
        Maximal number of iterations, an int >= 1.

    Returns
    -------
    tol : float
    max_iter : int
    """
    check_kernel_param(kernel)
    return check_positive(tol, "tol"), check_int(max_iter, "max_iter", minimum=1)


def check_both_labels(y: np.ndarray, why: str = "") -> None:
    """Raise unless the labels ``y`` (already checked to be -1/1) contain both classes.

    Parameters
    ----------
    y : ndarray of shape (n,)
        Labels in {-1, 1}, n >= 1.
    why : str
        Optional explanation appended to the message in parentheses, e.g. what
        would go wrong with a single class.

    Raises
    ------
    ValueError
        If every entry of ``y`` is the same label.
    """
    if np.all(y == y[0]):
        extra = f" ({why})" if why else ""
        raise ValueError(f"y must contain both labels -1 and 1; got only {y[0]:g}{extra}")


def gram(kernel: Any, X: np.ndarray, Y: np.ndarray | None = None, *, what: str | None = None,
         finite: bool = True) -> np.ndarray:
    """Evaluate ``kernel(X)`` (or ``kernel(X, Y)``) and check the result.

    The one place where kmlib's estimators evaluate a user's kernel.

    Parameters
    ----------
    kernel : callable
        A kernel ``k(X, Y=None)``.
    X : ndarray of shape (m, d)
        Row points.
    Y : ndarray of shape (n, d) or None
        Column points; None means ``Y = X`` and calls ``kernel(X)``.
    what : str, optional
        The call as error messages name it; default ``"kernel(X)"`` or ``"kernel(X, Y)"``.
    finite : bool, default True
        Check that every entry is finite.  A caller that runs
        :func:`kmlib._validation.check_symmetric` on the square ``kernel(X)`` may pass
        False: that check rejects NaN and inf in the same pass.

    Returns
    -------
    ndarray of shape (m, n)
        The Gram matrix as a float array.

    Raises
    ------
    ValueError
        If the kernel returns something that is not a numeric array, a matrix of the
        wrong shape, or NaN or infinite values.
    """
    if what is None:
        what = "kernel(X)" if Y is None else "kernel(X, Y)"
    G = kernel(X) if Y is None else kernel(X, Y)
    try:
        G = np.asarray(G, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} must return a numeric array; got {type(G).__name__}") from exc
    shape = (X.shape[0], X.shape[0] if Y is None else Y.shape[0])
    if G.shape != shape:
        raise ValueError(
            f"{what} must return a Gram matrix of shape {shape}; got shape {G.shape}"
        )
    if finite and not np.all(np.isfinite(G)):
        raise ValueError(f"{what} returned NaN or infinite values; check the kernel's parameters")
    return G


def fit_inputs(kernel: Any, X: ArrayLike, y: ArrayLike, *, need_gram: bool, one_class_why: str = ""
               ) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray, np.ndarray]:
    """Check the training data of a kernel classifier and, if asked, form its Gram matrix.

    Parameters
    ----------
    kernel : callable or "precomputed"
        The estimator's kernel, already checked by :func:`check_kernel_param`.
    X : array of shape (n, d), or (n, n) symmetric Gram matrix if ``kernel="precomputed"``
        Training inputs.
    y : array of shape (n,)
        Labels: exactly two distinct values (numbers or strings).
    need_gram : bool
        With a callable kernel, whether to evaluate the Gram matrix ``kernel(X)``
        (otherwise the returned ``K`` is None and the caller evaluates what it needs).
    one_class_why : str
        Why one class is not enough, added to the error message.

    Returns
    -------
    K : ndarray of shape (n, n) or None
        The training Gram matrix: the given one if precomputed, ``kernel(X)`` if
        ``need_gram``, None otherwise.
    X_fit : ndarray of shape (n, d) or None
        The checked training inputs (None with a precomputed kernel).
    y : ndarray of shape (n,)
        The labels coded as -1.0 (``classes[0]``) and +1.0 (``classes[1]``).
    classes : ndarray of shape (2,)
        The two labels in sorted order (the estimator's ``classes_``).
    """
    try:
        classes, y = check_binary_labels(y)
    except ValueError as exc:
        if one_class_why and "two classes; got only" in str(exc):
            raise ValueError(f"{exc} ({one_class_why})") from None
        raise
    if is_precomputed(kernel):
        K = check_square(X, "X")
        check_same_length(K, y, "X", "y")
        check_symmetric(K, "X")
        X_fit = None
    else:
        X_fit = check_matrix(X, "X")
        check_same_length(X_fit, y, "X", "y")
        K = None
    if K is None and need_gram:
        K = gram(kernel, X_fit)
    return K, X_fit, y, classes


def prediction_gram(kernel: Any, X: ArrayLike, X_fit: np.ndarray | None, n_train: int,
                    keep: np.ndarray | None = None, who: str = "the estimator") -> np.ndarray:
    """Check test inputs and return their cross Gram matrix with the training points.

    Parameters
    ----------
    kernel : callable or "precomputed"
        The fitted estimator's kernel.
    X : array of shape (m, d), or (m, n_train) if ``kernel="precomputed"``
        Test inputs, or the Gram matrix between test and training points.
    X_fit : ndarray of shape (n_train, d) or None
        The training inputs (None with a precomputed kernel).
    n_train : int
        Number of training points.
    keep : ndarray of int or None
        Indices of the training points the prediction needs (e.g. the support
        vectors); None keeps them all.
    who : str
        The estimator's name, for error messages.

    Returns
    -------
    ndarray of shape (m, len(keep)) or (m, n_train)
        :math:`k(x_i, x_j)` for the test points i and the kept training points j.
        The kernel is not called when no training point is kept.

    Raises
    ------
    ValueError
        If ``X`` has the wrong number of columns (features, or training points
        when precomputed), or the kernel returns a bad matrix.
    """
    if is_precomputed(kernel):
        if np.asarray(X).ndim == 1:
            raise ValueError(
                "X must be the (m, n_train) Gram matrix against the training points; got a "
                "1-D array. Reshape your data, e.g. X.reshape(1, -1) for one test point"
            )
        Kt = check_matrix(X, "X", allow_1d=False)
        if Kt.shape[1] != n_train:
            raise ValueError(
                f"X has {Kt.shape[1]} features, but {who} is expecting {n_train} features as "
                f"input: X must be the (m, n_train) Gram matrix against the {n_train} "
                f"training points; got shape {Kt.shape}"
            )
        return Kt if keep is None else Kt[:, keep]
    Xt = check_matrix(X, "X")
    if Xt.shape[1] != X_fit.shape[1]:
        raise ValueError(
            f"X has {Xt.shape[1]} features, but {who} is expecting "
            f"{X_fit.shape[1]} features as input (those of the training data). Reshape "
            f"your data to (n_samples, {X_fit.shape[1]}) if it holds one sample or one feature"
        )
    ref = X_fit if keep is None else X_fit[keep]
    if ref.shape[0] == 0:
        return np.zeros((Xt.shape[0], 0))
    return gram(kernel, Xt, ref)

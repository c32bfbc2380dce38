"""Kernels, data and the shared input contract for the tests of the chapter-8 classifiers.

Used by tests/test_svm.py and tests/test_logistic.py.  The kernels are
computed by scikit-learn, so the tests do not trust ``kmlib.kernels``.
"""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics.pairwise import linear_kernel, rbf_kernel


def rbf(gamma: float):
    """Gaussian kernel exp(-gamma |x - x'|^2), computed by scikit-learn."""
    def k(X, Y=None):
        return rbf_kernel(X, Y, gamma=gamma)
    return k


def linear(X, Y=None):
    """Linear kernel x^T x', computed by scikit-learn."""
    return linear_kernel(X, Y)


def random_two_class(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """n standard normal points in R^2 with random -1/+1 labels; the first two are -1, +1,
    so that both classes are present."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 2))
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[:2] = [-1.0, 1.0]
    return X, y


def fit_callable_and_precomputed(Estimator, kernel, X: np.ndarray, y: np.ndarray, **params):
    """Fit one problem twice: with the callable ``kernel`` on X, and precomputed on kernel(X).

    Returns the two fitted models; only the callable one keeps the training inputs.
    """
    a = Estimator(kernel=kernel, **params).fit(X, y)
    b = Estimator(kernel="precomputed", **params).fit(kernel(X), y)
    assert b.X_fit_ is None
    np.testing.assert_array_equal(a.X_fit_, X)
    return a, b


def _nan_kernel(A, B=None):
    """A 'kernel' returning a matrix of the right shape full of NaN."""
    return np.full((len(A), len(A if B is None else B)), np.nan)


def assert_rejects_bad_inputs(Estimator, X: np.ndarray, y: np.ndarray, kernel) -> None:
    """The input contract shared by KernelSVM and KernelLogisticRegression.

    Both take ``Estimator(kernel=kernel, tol=..., max_iter=...)`` with a callable or
    ``"precomputed"`` kernel, exactly two class labels, and give a
    ValueError naming the argument for every bad input below.  ``X`` (n, d) and
    ``y`` must be valid training data for ``kernel``.
    """
    n, d = X.shape
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        Estimator(kernel=kernel).fit(X, np.arange(n) % 3)
    with pytest.raises(ValueError, match="Unknown label type"):
        Estimator(kernel=kernel).fit(X, y + 0.5 * np.arange(n))
    for label in (1.0, -1.0):
        one_class = f"y must contain two classes; got only one class, the label {label!r}"
        with pytest.raises(ValueError, match=one_class):
            Estimator(kernel=kernel).fit(X, np.full(n, label))
    for tol in (0.0, -1.0):
        with pytest.raises(ValueError, match="tol must be > 0"):
            Estimator(kernel=kernel, tol=tol).fit(X, y)
    for max_iter in (0, 1.5):
        with pytest.raises(ValueError, match="max_iter must be"):
            Estimator(kernel=kernel, max_iter=max_iter).fit(X, y)
    Xnan = X.copy()
    Xnan[3, 1] = np.nan
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        Estimator(kernel=kernel).fit(Xnan, y)
    for m in (1, 2):
        with pytest.raises(ValueError, match="X and y must have the same number of samples"):
            Estimator(kernel=kernel).fit(X, y[:-m])
    for bad in (3.0, None, "rbf", "gaussian"):
        with pytest.raises(ValueError, match="kernel must be a callable"):
            Estimator(kernel=bad).fit(X, y)
    with pytest.raises(ValueError, match=r"kernel\(X(, Y)?\) must return a Gram matrix of shape"):
        Estimator(kernel=lambda A, B=None: np.ones((2, 2))).fit(X, y)
    with pytest.raises(ValueError, match=r"kernel\(X(, Y)?\) returned NaN or infinite values"):
        Estimator(kernel=_nan_kernel).fit(X, y)

    # precomputed: square, same length as y, symmetric; predict takes (m, n_train)
    K = kernel(X)
    for shape in ((n, n - 1), (n, 3)):
        with pytest.raises(ValueError, match="X must be a square matrix"):
            Estimator(kernel="precomputed").fit(np.ones(shape), y)
    Kasym = K.copy()
    Kasym[0, 5] += 0.5
    with pytest.raises(ValueError, match="X must be a symmetric Gram matrix"):
        Estimator(kernel="precomputed").fit(Kasym, y)
    model = Estimator(kernel="precomputed").fit(K, y)
    with pytest.raises(ValueError, match=r"\(m, n_train\) Gram matrix"):
        model.decision_function(np.ones((4, n - 1)))

    # callable: the test points need the training data's number of features
    model = Estimator(kernel=kernel).fit(X, y)
    with pytest.raises(ValueError, match=f"X has {d + 1} features, but {Estimator.__name__}"):
        model.predict(np.ones((4, d + 1)))
    model.kernel = _nan_kernel
    with pytest.raises(ValueError, match=r"kernel\(X(, Y)?\) returned NaN or infinite values"):
        model.decision_function(X[:4])

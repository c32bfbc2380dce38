"""float32 in, float32 out where scikit-learn does so: Gram matrices and transformers' outputs.

References: the dtype scikit-learn's own function or transformer returns for the same
float32 input, and the float64 computation (kmlib computes in float64 and rounds once, so
the float32 result is the float64 one within float32's rounding, 6e-8 relative).
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.decomposition import KernelPCA as SkKernelPCA
from sklearn.kernel_approximation import Nystroem as SkNystroem
from sklearn.kernel_approximation import RBFSampler
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

from kmlib import kernels as km
from kmlib.features import Nystroem, PositiveRandomFeatures, RandomFourierFeatures
from kmlib.krr import KernelRidge
from kmlib.unsupervised import KernelPCA

X64 = np.random.default_rng(0).normal(size=(60, 5))
X32 = X64.astype(np.float32)
ROUND = 2.0**-23   # float32's relative rounding unit (twice the unit roundoff)


@pytest.mark.parametrize("ours, theirs", [
    (km.linear(), linear_kernel),
    (km.polynomial(2, 1.0), lambda X, Y=None: polynomial_kernel(X, Y, degree=2, gamma=1, coef0=1)),
    (km.gaussian(1.0), lambda X, Y=None: rbf_kernel(X, Y, gamma=0.5)),
])
def test_gram_matrices_keep_float32_as_scikit_learn(ours, theirs):
    for args in [(X32,), (X32, X32[:7]), (sp.csr_matrix(X32),)]:
        G = ours(*args)
        assert G.dtype == theirs(*args).dtype == np.float32
        G64 = ours(*[a.astype(np.float64) for a in args])
        np.testing.assert_allclose(G, G64, rtol=ROUND, atol=ROUND * np.abs(G64).max())
    # one float64 argument: float64, as scikit-learn's check_pairwise_arrays does
    assert ours(X32, X64[:7]).dtype == theirs(X32, X64[:7]).dtype == np.float64
    assert km.laplacian(1.0)(X32).dtype == np.float32
    assert ours.diag(X32).dtype == np.float32


@pytest.mark.parametrize("ours, theirs", [
    (Nystroem(kernel=km.gaussian(1.0), n_components=20, random_state=0),
     SkNystroem(kernel="rbf", gamma=0.5, n_components=20, random_state=0)),
    (RandomFourierFeatures(sigma=1.0, n_features=50, random_state=0),
     RBFSampler(gamma=0.5, n_components=100, random_state=0)),
    (KernelPCA(3, kernel=km.gaussian(1.0)), SkKernelPCA(3, kernel="rbf", gamma=0.5)),
])
def test_transformers_keep_float32_as_scikit_learn(ours, theirs):
    for X in (X32, X64):
        assert ours.fit_transform(X).dtype == theirs.fit_transform(X).dtype == X.dtype
        assert ours.fit(X).transform(X[:9]).dtype == theirs.fit(X).transform(X[:9]).dtype
    Z32 = ours.fit(X32).transform(X32)
    Z64 = ours.fit(X64).transform(X64)   # the same random draws: random_state=0
    np.testing.assert_allclose(Z32, Z64, rtol=0, atol=1e-5 * np.abs(Z64).max())


def test_kernel_pca_inverse_transform_keeps_float32_as_scikit_learn():
    ours = KernelPCA(3, kernel=km.gaussian(1.0), fit_inverse_transform=True)
    theirs = SkKernelPCA(3, kernel="rbf", gamma=0.5, fit_inverse_transform=True)
    for X in (X32, X64):
        Z, Zs = ours.fit(X).transform(X), theirs.fit(X).transform(X)
        assert ours.inverse_transform(Z).dtype == theirs.inverse_transform(Zs).dtype == X.dtype
    back32 = ours.fit(X32).inverse_transform(ours.transform(X32))
    back64 = ours.fit(X64).inverse_transform(ours.transform(X64))
    np.testing.assert_allclose(back32, back64, rtol=0, atol=1e-4 * np.abs(back64).max())


def test_positive_random_features_keep_float32():
    f = PositiveRandomFeatures(n_features=10, random_state=0)
    assert f.fit_transform(X32).dtype == np.float32 and f.fit_transform(X64).dtype == np.float64


def test_a_float32_result_beyond_float32s_range_is_an_error_not_inf():
    with pytest.raises(ValueError, match="range of float32"):
        km.linear()(np.full((2, 2), 1e30, dtype=np.float32))


def test_predictions_stay_float64():
    """A difference kept on purpose (README): scikit-learn's KernelRidge solves in float32
    for float32 input; kmlib's estimators solve and predict in float64."""
    y = X64[:, 0]
    pred = KernelRidge(kernel=km.gaussian(1.0)).fit(X32, y.astype(np.float32)).predict(X32)
    assert pred.dtype == np.float64

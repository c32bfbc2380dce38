"""Sparse X (scipy.sparse CSR/CSC): the same answers as dense X, and as scikit-learn on it.

References: the dense computation (the sparse route shares no product or norm with it),
and scikit-learn's ``linear_kernel``, ``polynomial_kernel``, ``rbf_kernel``,
``KernelRidge``, ``SVC``, ``Nystroem``, ``RBFSampler`` and ``KernelPCA`` given the same
sparse matrix.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.decomposition import KernelPCA as SkKernelPCA
from sklearn.kernel_approximation import Nystroem as SkNystroem
from sklearn.kernel_approximation import RBFSampler
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel
from sklearn.svm import SVC

from kmlib import kernels as km
from kmlib.features import Nystroem, PositiveRandomFeatures, RandomFourierFeatures
from kmlib.krr import KernelRidge
from kmlib.logistic import KernelLogisticRegression
from kmlib.svm import KernelSVM
from kmlib.unsupervised import KernelPCA

FORMATS = [sp.csr_matrix, sp.csc_matrix, sp.csr_array]
SIGMA = 2.0
GAMMA = 1.0 / (2.0 * SIGMA**2)   # scikit-learn's rbf_kernel(gamma) is gaussian(sigma)


def _data(n: int = 120, d: int = 40, density: float = 0.15, seed: int = 0):
    """Sparse text-like data: most entries zero, a few rows entirely zero."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, d)) * (rng.random((n, d)) < density)
    A[:3] = 0.0
    y = A @ rng.normal(size=d) + 0.1 * rng.normal(size=n)
    return A, y


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kernel, reference", [
    (km.linear(), lambda X, Y: linear_kernel(X, Y)),
    (km.polynomial(3, 1.0), lambda X, Y: polynomial_kernel(X, Y, degree=3, gamma=1.0, coef0=1.0)),
    (km.gaussian(SIGMA), lambda X, Y: rbf_kernel(X, Y, gamma=GAMMA)),
])
def test_kernels_on_sparse_input_match_dense_and_scikit_learn(fmt, kernel, reference):
    A, _ = _data()
    B = A[:50] + np.eye(50, A.shape[1])   # a different second argument
    X, Y = fmt(A), fmt(B)
    G = kernel(X, Y)
    assert isinstance(G, np.ndarray) and G.shape == (120, 50)
    scale = np.abs(kernel(A, B)).max()
    np.testing.assert_allclose(G, kernel(A, B), rtol=0, atol=1e-13 * scale)
    np.testing.assert_allclose(G, reference(X, Y), rtol=0, atol=1e-13 * scale)
    K = kernel(X)
    assert np.array_equal(K, K.T)
    np.testing.assert_allclose(K, kernel(A), rtol=0, atol=1e-13 * np.abs(K).max())
    np.testing.assert_allclose(kernel.diag(X), np.diag(kernel(A)), rtol=1e-13, atol=1e-13)


def test_sums_products_and_normalised_kernels_take_sparse_input():
    A, _ = _data()
    k = (2.0 * km.gaussian(1.0) + km.linear() * km.polynomial(2)).normalized()
    np.testing.assert_allclose(k(sp.csr_matrix(A)), k(A), rtol=0, atol=1e-13)


@pytest.mark.parametrize("kernel", [km.laplacian(1.0), km.matern(1.5, 1.0),
                                    km.gaussian(1.0) + km.laplacian(1.0)])
def test_a_kernel_that_cannot_use_sparse_input_says_so(kernel):
    A, _ = _data()
    with pytest.raises(TypeError, match=r"cannot evaluate a sparse X.*X\.toarray\(\)"):
        kernel(sp.csr_matrix(A))
    with pytest.raises(TypeError, match=r"X\.toarray\(\)"):
        KernelRidge(kernel=kernel).fit(sp.csr_matrix(A), np.ones(len(A)))


@pytest.mark.parametrize("fmt", FORMATS)
def test_kernel_ridge_on_sparse_input(fmt):
    A, y = _data()
    X = fmt(A)
    ours = KernelRidge(kernel=km.gaussian(SIGMA), lam=0.3).fit(X, y)
    dense = KernelRidge(kernel=km.gaussian(SIGMA), lam=0.3).fit(A, y)
    theirs = SkKernelRidge(kernel="rbf", gamma=GAMMA, alpha=0.3).fit(X, y)
    Xt = fmt(A[::3] + 0.5)
    np.testing.assert_allclose(ours.predict(Xt), dense.predict(A[::3] + 0.5), atol=1e-10)
    np.testing.assert_allclose(ours.predict(Xt), theirs.predict(Xt), atol=1e-10)
    # a user's callable gets the sparse matrix as it is (here a product that stays sparse)
    lin = KernelRidge(kernel=lambda P, Q=None: P @ (P if Q is None else Q).T, lam=0.3).fit(X, y)
    ref = SkKernelRidge(kernel="linear", alpha=0.3).fit(X, y)
    np.testing.assert_allclose(lin.predict(Xt), ref.predict(Xt), atol=1e-9)


def _two_classes(A):
    rng = np.random.default_rng(1)
    return np.where(A @ rng.normal(size=A.shape[1]) + 0.2 * rng.normal(size=len(A)) > 0, 1, -1)


@pytest.mark.parametrize("fmt", [sp.csr_matrix, sp.csc_matrix])
def test_kernel_svm_on_sparse_input(fmt):
    A, _ = _data()
    y = _two_classes(A)
    X = fmt(A)
    ours = KernelSVM(kernel=km.gaussian(SIGMA), C=2.0, tol=1e-6).fit(X, y)
    dense = KernelSVM(kernel=km.gaussian(SIGMA), C=2.0, tol=1e-6).fit(A, y)
    theirs = SVC(kernel="rbf", gamma=GAMMA, C=2.0, tol=1e-6).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), dense.decision_function(A), atol=1e-6)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X), atol=1e-4)
    assert np.array_equal(ours.predict(X), theirs.predict(X))


def test_kernel_logistic_regression_on_sparse_input():
    A, _ = _data()
    y = _two_classes(A)
    ours = KernelLogisticRegression(kernel=km.gaussian(SIGMA), lam=0.1).fit(sp.csr_matrix(A), y)
    dense = KernelLogisticRegression(kernel=km.gaussian(SIGMA), lam=0.1).fit(A, y)
    np.testing.assert_allclose(ours.predict_proba(sp.csr_matrix(A)), dense.predict_proba(A),
                               atol=1e-9)


@pytest.mark.parametrize("fmt", FORMATS)
def test_nystroem_on_sparse_input(fmt):
    A, _ = _data()
    X = fmt(A)
    ours = Nystroem(kernel=km.gaussian(SIGMA), n_components=40, random_state=0).fit(X)
    dense = Nystroem(kernel=km.gaussian(SIGMA), n_components=40, random_state=0).fit(A)
    assert sp.issparse(ours.components_)
    np.testing.assert_allclose(ours.transform(X), dense.transform(A), atol=1e-10)
    # all points as landmarks: Phi Phi^T is the Gram matrix, for both libraries
    n = X.shape[0]
    full = Nystroem(kernel=km.gaussian(SIGMA), n_components=n, random_state=0).fit(X)
    sk = SkNystroem(kernel="rbf", gamma=GAMMA, n_components=n, random_state=0).fit(X)
    K = rbf_kernel(X, gamma=GAMMA)
    for Phi in (full.transform(X), sk.transform(X)):
        np.testing.assert_allclose(Phi @ Phi.T, K, atol=1e-6)


@pytest.mark.parametrize("variant", ["cos_sin", "cos_phase"])
def test_random_fourier_features_on_sparse_input(variant):
    A, _ = _data(n=60)
    X = sp.csr_matrix(A)
    ours = RandomFourierFeatures(sigma=SIGMA, n_features=20_000, variant=variant,
                                 random_state=0).fit(X)
    dense = RandomFourierFeatures(sigma=SIGMA, n_features=20_000, variant=variant,
                                  random_state=0).fit(A)
    Z = ours.transform(X)
    np.testing.assert_allclose(Z, dense.transform(A), atol=1e-12)
    # both libraries' features on the same sparse X estimate the same Gram matrix; the
    # error of one entry is about 1/sqrt(D) (0.007 here for cos_sin, 0.01 for cos_phase)
    K = rbf_kernel(X, gamma=GAMMA)
    sk = RBFSampler(gamma=GAMMA, n_components=20_000, random_state=0).fit(X).transform(X)
    assert np.abs(Z @ Z.T - K).max() < 0.06
    assert np.abs(sk @ sk.T - K).max() < 0.06


def test_positive_random_features_refuse_sparse_input_clearly():
    A, _ = _data()
    f = PositiveRandomFeatures(n_features=10, random_state=0).fit(A)
    with pytest.raises(TypeError, match=r"X\.toarray\(\)"):
        f.transform(sp.csr_matrix(A))


@pytest.mark.parametrize("fmt", [sp.csr_matrix, sp.csc_matrix])
def test_kernel_pca_on_sparse_input(fmt):
    A, _ = _data()
    X = fmt(A)
    ours = KernelPCA(5, kernel=km.gaussian(SIGMA)).fit(X)
    dense = KernelPCA(5, kernel=km.gaussian(SIGMA)).fit(A)
    theirs = SkKernelPCA(5, kernel="rbf", gamma=GAMMA).fit(X)
    Xt = fmt(A[:20] + 0.3)
    np.testing.assert_allclose(ours.eigenvalues_, dense.eigenvalues_, rtol=1e-10)
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-8)
    np.testing.assert_allclose(ours.transform(Xt), dense.transform(A[:20] + 0.3), atol=1e-9)
    np.testing.assert_allclose(np.abs(ours.transform(Xt)), np.abs(theirs.transform(Xt)),
                               atol=1e-8)
    with pytest.raises(TypeError, match=r"X\.toarray\(\)"):
        KernelPCA(2, kernel=km.gaussian(SIGMA), fit_inverse_transform=True).fit(X)

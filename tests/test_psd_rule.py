"""One rule for the pseudo-inverse and the feature maps of a PSD Gram matrix.

References: numpy's ``pinv`` and ``matrix_rank`` with the stated relative tolerance,
scikit-learn's ``KernelPCA``, hand-made spectra, and the rank of a Gram matrix with
duplicated points (the number of distinct points, for a strictly positive-definite kernel).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.decomposition import KernelPCA as SkKernelPCA

from kmlib import kernels
from kmlib._linalg import psd_eigenpairs, psd_rtol
from kmlib._validation import EPS
from kmlib.falkon import NystroemKernelRidge
from kmlib.features import Nystroem
from kmlib.krr import KernelRidge
from kmlib.unsupervised import KernelPCA


def test_the_rule_on_hand_made_spectra():
    U = np.eye(4)
    lam = np.array([4.0, 1e-20, -1e-15, 1.0])
    kept, V = psd_eigenpairs(lam, U)                      # default rtol = n eps = 4 eps
    assert kept.tolist() == [4.0, 1.0] and np.array_equal(V, U[:, [0, 3]])
    for c in (1e-30, 1.0, 1e30):                           # relative: scale does not matter
        assert psd_eigenpairs(c * lam, U)[0].tolist() == (c * np.array([4.0, 1.0])).tolist()
    edge = np.array([1.0, 4 * EPS, 4.01 * EPS, 0.0])        # "at or below rtol * max" is dropped
    assert psd_eigenpairs(edge, U)[0].tolist() == [1.0, 4.01 * EPS]
    assert psd_eigenpairs(edge, U, rtol=1e-3)[0].tolist() == [1.0]
    assert psd_eigenpairs(np.zeros(4), U)[0].size == 0     # no positive eigenvalue: none kept
    assert psd_rtol(7) == 7 * EPS
    with pytest.raises(ValueError, match="not positive semi-definite"):
        psd_eigenpairs(np.array([1.0, -1e-6, 0.5, 0.2]), U)   # -1e-6 < -sqrt(eps)
    psd_eigenpairs(np.array([1.0, -1e-9, 0.5, 0.2]), U)       # rounding: dropped, no error


def _well_conditioned(n=30, d=3, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, d))
    return X, kernels.gaussian(1.0)(X) + kernels.linear()(X)


def _pinv(K, rtol):
    return np.linalg.pinv(K, rtol=rtol, hermitian=True)


def test_nystroem_is_the_pinv_route_with_m_eps():
    X, _ = _well_conditioned(200)
    k = kernels.gaussian(1.0)
    ny = Nystroem(kernel=k, n_components=40, random_state=0).fit(X)
    L = X[ny.component_indices_]
    Knm = k(X, L)
    Phi = ny.transform(X)
    ref = Knm @ _pinv(k(L), 40 * EPS) @ Knm.T
    np.testing.assert_allclose(Phi @ Phi.T, ref, atol=1e-9)
    assert ny.rank_ == np.linalg.matrix_rank(k(L), rtol=40 * EPS, hermitian=True)


def test_empirical_feature_map_is_the_pinv_route_with_n_eps():
    _, K = _well_conditioned()
    Phi = kernels.empirical_feature_map(K)
    assert Phi.shape == (30, 30)
    np.testing.assert_allclose(Phi @ Phi.T, K, atol=1e-12 * np.abs(K).max())
    # a smooth Gaussian Gram matrix: numerically rank-deficient
    x = np.linspace(0, 1, 60)
    K = kernels.gaussian(0.3)(x)
    Phi = kernels.empirical_feature_map(K)
    assert Phi.shape[1] == np.linalg.matrix_rank(K, rtol=60 * EPS, hermitian=True) < 60
    np.testing.assert_allclose(Phi @ Phi.T, K, atol=1e-12)
    # the rule is relative: a scaled matrix keeps the same coordinates
    assert kernels.empirical_feature_map(1e-6 * K).shape == Phi.shape


def test_kernel_pca_agrees_with_scikit_learn():
    X, _ = _well_conditioned(40)
    ours = KernelPCA(kernel=kernels.gaussian(1.0)).fit(X)
    sk = SkKernelPCA(kernel="rbf", gamma=0.5, eigen_solver="dense").fit(X)
    assert ours.n_components_ == sk.eigenvalues_.size
    np.testing.assert_allclose(ours.eigenvalues_, sk.eigenvalues_, rtol=1e-9)
    np.testing.assert_allclose(np.abs(ours.transform(X)), np.abs(sk.transform(X)), atol=1e-8)


def test_krr_at_lam_zero_is_the_pinv_route_with_n_eps():
    """Eight distinct points, three copies each: the kept eigenvalues are far from the cut."""
    x = np.repeat(np.linspace(0, 1, 8), 3)
    y = np.sin(6 * x) + np.tile([0.0, 0.1, -0.1], 8)
    K = kernels.gaussian(0.3)(x)
    with pytest.warns(RuntimeWarning, match="minimum-norm"):
        krr = KernelRidge(kernel="precomputed", lam=0.0).fit(K, y)
    np.testing.assert_allclose(krr.dual_coef_, _pinv(K, 24 * EPS) @ y, atol=1e-8)
    fitted = K @ krr.dual_coef_                      # the projection of y: the mean of copies
    np.testing.assert_allclose(fitted, np.repeat(y.reshape(8, 3).mean(axis=1), 3), atol=1e-8)


def test_falkon_jitter_is_eps_times_the_trace():
    X, _ = _well_conditioned(300)
    k = kernels.gaussian(1.0)
    m = NystroemKernelRidge(kernel=k, n_components=50, solver="direct",
                            random_state=0).fit(X, X[:, 0])
    assert m.jitter_ == pytest.approx(EPS * np.trace(k(m.landmarks_)), rel=1e-14)


def test_a_rank_deficient_gram_matrix_is_handled_alike_by_all():
    """Ten distinct points, each twice: a Gaussian Gram matrix of rank exactly 10."""
    x = np.repeat(np.linspace(-1, 1, 10), 2)
    k = kernels.gaussian(1.0)
    K = k(x)
    assert np.linalg.matrix_rank(K) == 10
    assert kernels.empirical_feature_map(K).shape == (20, 10)
    assert Nystroem(kernel=k, n_components=20, random_state=0).fit(x).rank_ == 10
    kp = KernelPCA(kernel=k).fit(x)                       # centring removes one more
    sk = SkKernelPCA(kernel="rbf", gamma=0.5, eigen_solver="dense").fit(x[:, None])
    assert kp.n_components_ == sk.eigenvalues_.size == 9
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        alpha = KernelRidge(kernel="precomputed", lam=0.0).fit(K, np.sin(3 * x)).dual_coef_
    assert any("rank 10 of 20" in str(w.message) for w in rec)
    np.testing.assert_allclose(alpha, _pinv(K, 20 * EPS) @ np.sin(3 * x), atol=1e-8)


def test_empirical_feature_map_with_a_tolerance_refuses_an_eigenvalue_below_minus_tol():
    # K = diag(1, -0.1) has the eigenvalue -0.1: below -0.01, within -0.5
    K = np.diag([1.0, -0.1])
    with pytest.raises(ValueError, match=r"smallest eigenvalue is -0\.1, below -tol = -0\.01"):
        kernels.empirical_feature_map(K, tol=0.01)
    assert kernels.empirical_feature_map(K, tol=0.5).shape == (2, 1)

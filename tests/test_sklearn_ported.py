"""scikit-learn's own tests for KernelRidge, Nystroem, RBFSampler and Ridge, ported to kmlib.

Where they come from.  Read from scikit-learn's repository (``scikit-learn/scikit-learn``)
through the project's code index, each file at the commit the index names as its newest
stored version:

* ``sklearn/tests/test_kernel_ridge.py`` at ``7a752ecd976f215f883132f311a23fad8424fb8a``
  (the dense tests are unchanged in the later revision that parametrises the sparse ones
  over ``CSR_CONTAINERS``);
* ``sklearn/tests/test_kernel_approximation.py`` at
  ``1f1b0a034944bf5eb3c868716bf0035d40fb7a98``.  That revision predates four tests which a
  later revision of the same file in the index holds (``CSR_CONTAINERS``, a
  ``TODO(1.5)`` note: scikit-learn 1.4; the index gives no commit for it):
  ``test_rbf_sampler_fitted_attributes_dtype``, ``test_rbf_sampler_dtype_equivalence``,
  ``test_nystroem_component_indices`` and ``test_get_feature_names_out`` are ported from it;
* ``sklearn/linear_model/tests/test_ridge.py`` at
  ``8a1fe4cb72797b6cdf5e6f0a60a7bf4f0c01db0b`` (scikit-learn 1.5/1.6: array API tests,
  ``store_cv_results``).

The SVC tests of ``sklearn/svm/tests/test_svm.py`` are in ``test_sklearn_ported_svm.py``.
Each ported test keeps its original name, data, calls, assertions and tolerances, except
for the numbered adaptations below; the reference is the original's (scikit-learn's
``Ridge``/``LinearRegression``, ``pairwise_kernels``, the exact kernel, or an identity).

Ported.
``test_kernel_ridge.py``: ``test_kernel_ridge``, ``test_kernel_ridge_sparse`` (from the
installed scikit-learn 1.7.2 wheel's ``sklearn/tests/test_kernel_ridge.py``),
``test_kernel_ridge_singular_kernel``,
``test_kernel_ridge_precomputed``, ``test_kernel_ridge_precomputed_kernel_unchanged``,
``test_kernel_ridge_sample_weights``, ``test_kernel_ridge_multi_output``.
``test_kernel_approximation.py``: ``test_rbf_sampler``,
``test_rbf_sampler_fitted_attributes_dtype`` (float32: xfail, D3),
``test_rbf_sampler_dtype_equivalence``, ``test_input_validation`` (with its sparse half,
from the 1.7.2 wheel),
``test_nystroem_approximation``, ``test_nystroem_default_parameters``,
``test_nystroem_singular_kernel``, ``test_nystroem_poly_kernel_params``,
``test_nystroem_callable``, ``test_nystroem_precomputed_kernel``,
``test_nystroem_component_indices``, ``test_get_feature_names_out``.
``test_ridge.py``: ``test_ridge_regression``, ``test_ridge_regression_hstacked_X``,
``test_ridge_regression_vstacked_X``, ``test_ridge_regression_unpenalized`` and its
``_hstacked_X``/``_vstacked_X`` variants, ``test_ridge_regression_sample_weights``,
``test_primal_dual_relationship``, ``test_ridge_shapes_type``, ``test_ridge_intercept``,
``test_ridge_vs_lstsq``, ``test_dense_sparse`` (dense half of ``_test_multi_ridge_diabetes``),
``test_raises_value_error_if_sample_weights_greater_than_1d``,
``test_ridge_regression_check_arguments_validity``, ``test_ridge_sample_weight_consistency``.

Not ported, and why.  Sparse inputs to ``Ridge`` (``RidgeRegression`` is dense, README: the
sparse halves of ``test_dense_sparse``, ``test_sparse_design_with_sample_weights``,
``test_ridge_fit_intercept_sparse*``, ``test_X_CenterStackOp``, ``test_compute_gram``,
``test_compute_covariance``); float32 (``test_dtype_match*``,
``test_ridge_regression_dtype_stability``, ``test_skewed_chi2_sampler_*dtype*``); samplers
with no kmlib analogue (``PolynomialCountSketch``, ``AdditiveChi2Sampler``,
``SkewedChi2Sampler``: ``test_polynomial_count_sketch*``, ``test_additive_chi2_sampler*``,
``test_skewed_chi2_sampler``, ``test_additivechi2sampler_get_feature_names_out``);
parameters kmlib does not have (``gamma="scale"``: ``test_rbf_sampler_gamma_scale``; a
penalty per target: ``test_ridge_individual_penalties``; ``positive``:
``test_ridge_positive_*``, ``test_ridge_ground_truth_positive_test``,
``test_positive_ridge_loss``; Nystroem's ``gamma``/``coef0``/``degree``: the second halves
of ``test_nystroem_callable`` and ``test_nystroem_precomputed_kernel``); solver-specific
tests (``test_solver_consistency``, ``test_ridge_regression_convergence_fail``,
``test_sparse_cg_max_iter``, ``test_n_iter``, ``test_ridge_sag_with_X_fortran``,
``test_lbfgs_*``, ``test_array_api_*``, ``test_ridge_array_api_compliance``); estimators
kmlib does not have (``RidgeCV``, ``RidgeClassifier``, ``RidgeClassifierCV``: every
``*ridgecv*``, ``*gcv*``, ``*loo*``, ``*classifier*`` and ``test_class_weight*`` test,
``test_check_gcv_mode_choice``, ``test_ridge_best_score``,
``test_ridge_cv_individual_penalties``, ``test_ridge_regression_custom_scoring``, the
deprecation and metadata-routing tests).

Adaptations, applied throughout:

1. ``KernelRidge(kernel="linear", alpha=a)`` becomes ``KernelRidge(kernel=k, lam=a)`` with
   ``k`` a callable that evaluates scikit-learn's ``pairwise_kernels`` for that metric (and
   its default parameters, e.g. ``gamma = 1/n_features``), so that both sides use the
   same kernel; ``lam`` has the scaling of ``alpha``.
2. ``Ridge(alpha=a, fit_intercept=f)`` becomes ``RidgeRegression(lam=a, fit_intercept=f,
   standardize=False)`` (kmlib standardises by default, scikit-learn does not);
   ``solver``, ``tol``, ``max_iter`` and ``random_state`` are dropped, and so are the
   parametrisations over solvers and sparse containers (kmlib has one solver and dense
   inputs).  ``ridge_regression(X, y, alpha, sample_weight=w, return_intercept=r)``
   becomes ``RidgeRegression(lam=alpha, fit_intercept=r, standardize=False).fit(X, y, w)``
   (kmlib's ``ridge`` function takes no weights and fits no intercept).
3. ``Nystroem(kernel="rbf", gamma=g)`` becomes ``Nystroem(kernel=kernels.gaussian(sigma))``
   with ``g = 1/(2 sigma^2)`` (``gamma=None`` is ``1/n_features``); other kernel names
   as in 1.  ``RBFSampler(gamma=g, n_components=D)`` is
   ``RandomFourierFeatures(sigma=sigma, n_features=D, variant="cos_phase")``, the same map
   ``sqrt(2/D) cos(W^T x + u)``; its ``random_weights_``/``random_offset_`` are ``W_``/``u_``.
   ``random_state`` is passed unchanged, but kmlib draws from numpy's ``Generator``, so
   the random numbers differ (a ``RandomState`` instance becomes the int 0).
4. ``test_kernel_ridge_singular_kernel`` fits ``alpha=0``: scikit-learn falls back to
   least squares with a warning, kmlib to the minimum-norm solution with a
   RuntimeWarning; both are ignored, as the original does with ``ignore_warnings``.
5. The underscored scikit-learn solvers (``_solve_cholesky``, ``_solve_cholesky_kernel``)
   of ``test_primal_dual_relationship`` become kmlib's ``ridge(method="primal")`` and
   ``krr_fit``, the same two solvers; they take ``y`` of shape (n,) and a scalar penalty,
   so ``y.reshape(-1, 1)`` and ``alpha=[1e-2]`` become ``y`` and ``1e-2``.
6. ``test_rbf_sampler``: its bounds hold for scikit-learn's random stream at
   ``random_state=42`` but are a Monte Carlo statement, not a guarantee: over the seeds
   0..49 scikit-learn's own ``RBFSampler`` meets all three for 18 seeds, kmlib's
   ``cos_phase`` map (adaptation 3) for 21, and at 42 it draws other frequencies and gets
   a mean error of 0.036 > 0.01.  The port uses the lower-variance ``cos_sin`` map with
   the same 1000 output columns (``n_features=500``), which meets them for all 50 seeds,
   and keeps the three bounds for three seeds.
7. The fixture ``global_random_seed`` is 42, its value in scikit-learn unless the
   environment says otherwise; ``global_dtype`` runs float64 and float32 (scikit-learn
   adds float32 only when ``SKLEARN_RUN_FLOAT32_TESTS`` is set).
8. ``test_nystroem_callable``: ``kernel_params={"log": kernel_log}`` for a per-pair
   callable becomes ``sk_kernel(logging_histogram_kernel, log=kernel_log)``:
   ``pairwise_kernels`` evaluates it on the upper triangle and the diagonal of the
   landmarks' Gram matrix, as scikit-learn's ``Nystroem`` does, so the count of calls is
   the original's.
9. A test whose assertions run over several cases in one body is split by
   ``pytest.mark.parametrize`` over those cases when only some of them differ by design
   (``test_nystroem_approximation`` over the kernels of its last loop,
   ``test_ridge_shapes_type`` over its three ``y`` shapes), so that each xfail marks only
   what differs (in ``test_nystroem_approximation`` the basic part runs in every case).
   Assertions on scikit-learn attributes kmlib does not have are dropped
   (``model.solver_``).  One assertion is added, and marked so:
   ``test_nystroem_singular_kernel`` checks that the features are finite, since the
   original's last line checks the module's ``Y`` instead (kept as it is).
10. The module-level data are the original's, renamed where two files' names clash
    (``X``/``Y`` of ``test_kernel_approximation.py`` are ``XA``/``YA``; ``X``/``y`` of
    ``test_kernel_ridge.py`` stay ``X``/``y``); a test's local ``X`` shadows them as in
    the original.

The wide cases with an intercept of ``test_ridge_regression_unpenalized`` and its two
variants xfail through the original's own ``pytest.xfail`` call: like scikit-learn's
``Ridge``, kmlib's ``RidgeRegression`` does not return the minimum-norm solution of
``(intercept, coef)`` there (the original's preceding assertion checks exactly that).

Documented differences (``xfail(strict=True)``, all listed in the README's "Deliberate
differences from scikit-learn"):

D1. (none since multi-output ``KernelRidge``: ``test_kernel_ridge_multi_output`` passes.)
D2. ``test_nystroem_approximation[additive_chi2]``: the ``additive_chi2`` Gram matrices
    are negative semi-definite (zero diagonal, negative off it); kmlib refuses the
    landmark matrix with a ValueError where scikit-learn clips the eigenvalues.
D3. ``test_rbf_sampler_fitted_attributes_dtype[float32]``: kmlib computes in float64 and
    rounds only the output to float32, so ``W_`` and ``u_`` are float64 for float32 input.
D4. ``test_ridge_shapes_type[1d]``: ``intercept_`` is a Python ``float`` for one output,
    which has no ``.shape`` (scikit-learn's is a numpy float64, ``shape == ()``);
    ``test_ridge_shapes_type[column]``: ``y`` of shape (n, 1) is one output, so ``coef_``
    has shape (p,) and ``intercept_`` is a float, not (1, p) and (1,).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import (
    assert_allclose,
    assert_almost_equal,
    assert_array_almost_equal,
    assert_array_equal,
)
from scipy import linalg
from sklearn import datasets
from sklearn.datasets import make_classification, make_low_rank_matrix, make_regression
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.metrics.pairwise import (
    chi2_kernel,
    kernel_metrics,
    pairwise_kernels,
    polynomial_kernel,
    rbf_kernel,
)
from sklearn.utils import check_random_state
from sklearn.utils.fixes import CSC_CONTAINERS, CSR_CONTAINERS

from kmlib import kernels
from kmlib.features import Nystroem, RandomFourierFeatures
from kmlib.krr import KernelRidge, krr_fit
from kmlib.ridge import RidgeRegression, ridge

GLOBAL_RANDOM_SEED = 42  # adaptation 7


def sk_kernel(metric, **params):
    """Adaptation 1: scikit-learn's kernel ``metric`` as a kmlib kernel callable."""
    def k(A, B=None):
        return pairwise_kernels(A, A if B is None else B, metric=metric, **params)
    return k


def gaussian_for_gamma(gamma):
    """Adaptation 3: scikit-learn's ``exp(-gamma |x - y|^2)`` is kmlib's gaussian(sigma)."""
    return kernels.gaussian(1.0 / np.sqrt(2.0 * gamma))


# ---------------------------------------------------------------------------
# sklearn/tests/test_kernel_ridge.py
# ---------------------------------------------------------------------------
X, y = make_regression(n_features=10, random_state=0)
Y = np.array([y, y]).T


def test_kernel_ridge():
    pred = Ridge(alpha=1, fit_intercept=False).fit(X, y).predict(X)
    pred2 = KernelRidge(kernel=sk_kernel("linear"), lam=1).fit(X, y).predict(X)
    assert_array_almost_equal(pred, pred2)


@pytest.mark.parametrize("sparse_container", [*CSR_CONTAINERS, *CSC_CONTAINERS])
def test_kernel_ridge_sparse(sparse_container):
    X_sparse = sparse_container(X)
    pred = (
        Ridge(alpha=1, fit_intercept=False, solver="cholesky")
        .fit(X_sparse, y)
        .predict(X_sparse)
    )
    pred2 = KernelRidge(kernel=sk_kernel("linear"), lam=1).fit(X_sparse, y).predict(X_sparse)
    assert_array_almost_equal(pred, pred2)


def test_kernel_ridge_singular_kernel():
    # alpha=0 causes a LinAlgError in computing the dual coefficients,
    # which causes a fallback to a lstsq solver. This is tested here.
    # (adaptation 4: kmlib's fallback is the minimum-norm solution, with a RuntimeWarning)
    pred = Ridge(alpha=0, fit_intercept=False).fit(X, y).predict(X)
    kr = KernelRidge(kernel=sk_kernel("linear"), lam=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kr.fit(X, y)
    pred2 = kr.predict(X)
    assert_array_almost_equal(pred, pred2)


def test_kernel_ridge_precomputed():
    for kernel in ["linear", "rbf", "poly", "cosine"]:
        K = pairwise_kernels(X, X, metric=kernel)
        pred = KernelRidge(kernel=sk_kernel(kernel)).fit(X, y).predict(X)
        pred2 = KernelRidge(kernel="precomputed").fit(K, y).predict(K)
        assert_array_almost_equal(pred, pred2)


def test_kernel_ridge_precomputed_kernel_unchanged():
    K = np.dot(X, X.T)
    K2 = K.copy()
    KernelRidge(kernel="precomputed").fit(K, y)
    assert_array_almost_equal(K, K2)


def test_kernel_ridge_sample_weights():
    K = np.dot(X, X.T)  # precomputed kernel
    sw = np.random.RandomState(0).rand(X.shape[0])

    pred = Ridge(alpha=1, fit_intercept=False).fit(X, y, sample_weight=sw).predict(X)
    pred2 = KernelRidge(kernel=sk_kernel("linear"), lam=1).fit(X, y, sample_weight=sw).predict(X)
    pred3 = KernelRidge(kernel="precomputed", lam=1).fit(K, y, sample_weight=sw).predict(K)
    assert_array_almost_equal(pred, pred2)
    assert_array_almost_equal(pred, pred3)


def test_kernel_ridge_multi_output():
    pred = Ridge(alpha=1, fit_intercept=False).fit(X, Y).predict(X)
    pred2 = KernelRidge(kernel=sk_kernel("linear"), lam=1).fit(X, Y).predict(X)
    assert_array_almost_equal(pred, pred2)

    pred3 = KernelRidge(kernel=sk_kernel("linear"), lam=1).fit(X, y).predict(X)
    pred3 = np.array([pred3, pred3]).T
    assert_array_almost_equal(pred2, pred3)


# ---------------------------------------------------------------------------
# sklearn/tests/test_kernel_approximation.py
# ---------------------------------------------------------------------------
# generate data (adaptation 10: X, Y of the original)
rng = np.random.RandomState(0)
XA = rng.random_sample(size=(300, 50))
YA = rng.random_sample(size=(300, 50))
XA /= XA.sum(axis=1)[:, np.newaxis]
YA /= YA.sum(axis=1)[:, np.newaxis]


def _linear_kernel(X, Y):
    return np.dot(X, Y.T)


@pytest.mark.parametrize("random_state", [42, 0, 7])
def test_rbf_sampler(random_state):
    # test that RBFSampler approximates kernel on random data
    # compute exact kernel
    gamma = 10.0
    kernel = rbf_kernel(XA, YA, gamma=gamma)

    # approximate kernel mapping (adaptation 6: cos_sin, 1000 columns, three seeds)
    rbf_transform = RandomFourierFeatures(sigma=1.0 / np.sqrt(2.0 * gamma), n_features=500,
                                          variant="cos_sin", random_state=random_state)
    X_trans = rbf_transform.fit_transform(XA)
    Y_trans = rbf_transform.transform(YA)
    kernel_approx = np.dot(X_trans, Y_trans.T)

    error = kernel - kernel_approx
    assert np.abs(np.mean(error)) <= 0.01  # close to unbiased
    np.abs(error, out=error)
    assert np.max(error) <= 0.1  # nothing too far off
    assert np.mean(error) <= 0.05  # mean is fairly close


@pytest.mark.parametrize("global_dtype", [
    np.float64,
    pytest.param(np.float32, marks=pytest.mark.xfail(
        strict=True, reason="documented difference D3: kmlib's fitted attributes are float64")),
])
def test_rbf_sampler_fitted_attributes_dtype(global_dtype):
    """Check that the fitted attributes are stored accordingly to the
    data type of X."""
    rbf = RandomFourierFeatures(variant="cos_phase")  # adaptation 3: RBFSampler()

    X = np.array([[1, 2], [3, 4], [5, 6]], dtype=global_dtype)

    rbf.fit(X)

    assert rbf.u_.dtype == global_dtype
    assert rbf.W_.dtype == global_dtype


def test_rbf_sampler_dtype_equivalence():
    """Check the equivalence of the results with 32 and 64 bits input."""
    rbf32 = RandomFourierFeatures(variant="cos_phase", random_state=42)
    X32 = np.array([[1, 2], [3, 4], [5, 6]], dtype=np.float32)
    rbf32.fit(X32)

    rbf64 = RandomFourierFeatures(variant="cos_phase", random_state=42)
    X64 = np.array([[1, 2], [3, 4], [5, 6]], dtype=np.float64)
    rbf64.fit(X64)

    assert_allclose(rbf32.u_, rbf64.u_)
    assert_allclose(rbf32.W_, rbf64.W_)


@pytest.mark.parametrize("csr_container", CSR_CONTAINERS)
def test_input_validation(csr_container):
    # Regression test: kernel approx. transformers should work on lists
    # No assertions; the old versions would simply crash
    # (AdditiveChi2Sampler and SkewedChi2Sampler are not ported)
    X = [[1, 2], [3, 4], [5, 6]]
    RandomFourierFeatures(variant="cos_phase").fit(X).transform(X)

    X = csr_container(X)
    RandomFourierFeatures(variant="cos_phase").fit(X).transform(X)


@pytest.mark.parametrize("kern", [
    pytest.param(k, marks=pytest.mark.xfail(
        strict=True, raises=ValueError,
        reason="documented difference D2: an indefinite landmark matrix is refused"))
    if k == "additive_chi2" else k
    for k in sorted(kernel_metrics())
])
def test_nystroem_approximation(kern):
    # some basic tests
    rnd = np.random.RandomState(0)
    X = rnd.uniform(size=(10, 4))

    # With n_components = n_samples this is exact
    default_rbf = gaussian_for_gamma(1.0 / X.shape[1])  # adaptation 3: kernel="rbf"
    X_transformed = Nystroem(kernel=default_rbf, n_components=X.shape[0]).fit_transform(X)
    K = rbf_kernel(X)
    assert_array_almost_equal(np.dot(X_transformed, X_transformed.T), K)

    trans = Nystroem(kernel=default_rbf, n_components=2, random_state=0)
    X_transformed = trans.fit(X).transform(X)
    assert X_transformed.shape == (X.shape[0], 2)

    # test callable kernel
    trans = Nystroem(n_components=2, kernel=_linear_kernel, random_state=0)
    X_transformed = trans.fit(X).transform(X)
    assert X_transformed.shape == (X.shape[0], 2)

    # test that available kernels fit and transform (adaptation 9: one kernel per case)
    trans = Nystroem(n_components=2, kernel=sk_kernel(kern), random_state=0)
    X_transformed = trans.fit(X).transform(X)
    assert X_transformed.shape == (X.shape[0], 2)


def test_nystroem_default_parameters():
    rnd = np.random.RandomState(42)
    X = rnd.uniform(size=(10, 4))

    # rbf kernel should behave as gamma=None by default
    # aka gamma = 1 / n_features
    nystroem = Nystroem(kernel=gaussian_for_gamma(1.0 / X.shape[1]), n_components=10)
    X_transformed = nystroem.fit_transform(X)
    K = rbf_kernel(X, gamma=None)
    K2 = np.dot(X_transformed, X_transformed.T)
    assert_array_almost_equal(K, K2)

    # chi2 kernel should behave as gamma=1 by default
    nystroem = Nystroem(kernel=sk_kernel("chi2"), n_components=10)
    X_transformed = nystroem.fit_transform(X)
    K = chi2_kernel(X, gamma=1)
    K2 = np.dot(X_transformed, X_transformed.T)
    assert_array_almost_equal(K, K2)


def test_nystroem_singular_kernel():
    # test that nystroem works with singular kernel matrix
    rng = np.random.RandomState(0)
    X = rng.rand(10, 20)
    X = np.vstack([X] * 2)  # duplicate samples

    gamma = 100
    N = Nystroem(kernel=gaussian_for_gamma(gamma), n_components=X.shape[0]).fit(X)
    X_transformed = N.transform(X)

    K = rbf_kernel(X, gamma=gamma)

    assert_array_almost_equal(K, np.dot(X_transformed, X_transformed.T))
    assert np.all(np.isfinite(YA))  # as in the original, which checks the module's Y
    assert np.all(np.isfinite(X_transformed))  # added: what that line means to check


def test_nystroem_poly_kernel_params():
    # Non-regression: Nystroem should pass other parameters beside gamma.
    rnd = np.random.RandomState(37)
    X = rnd.uniform(size=(10, 4))

    K = polynomial_kernel(X, degree=3.1, coef0=0.1)
    nystroem = Nystroem(kernel=sk_kernel("polynomial", degree=3.1, coef0=0.1),
                        n_components=X.shape[0])
    X_transformed = nystroem.fit_transform(X)
    assert_array_almost_equal(np.dot(X_transformed, X_transformed.T), K)


def test_nystroem_callable():
    # Test Nystroem on a callable.
    rnd = np.random.RandomState(42)
    n_samples = 10
    X = rnd.uniform(size=(n_samples, 4))

    def logging_histogram_kernel(x, y, log):
        """Histogram kernel that writes to a log."""
        log.append(1)
        return np.minimum(x, y).sum()

    kernel_log = []
    X = list(X)  # test input validation
    Nystroem(
        kernel=sk_kernel(logging_histogram_kernel, log=kernel_log),  # adaptation 8
        n_components=(n_samples - 1),
    ).fit(X)
    assert len(kernel_log) == n_samples * (n_samples - 1) / 2


def test_nystroem_precomputed_kernel():
    # Non-regression: test Nystroem on precomputed kernel.
    # PR - 14706
    rnd = np.random.RandomState(12)
    X = rnd.uniform(size=(10, 4))

    K = polynomial_kernel(X, degree=2, coef0=0.1)
    nystroem = Nystroem(kernel="precomputed", n_components=X.shape[0])
    X_transformed = nystroem.fit_transform(K)
    assert_array_almost_equal(np.dot(X_transformed, X_transformed.T), K)


def test_nystroem_component_indices():
    """Check that `component_indices_` corresponds to the subset of
    training points used to construct the feature map.
    Non-regression test for:
    https://github.com/scikit-learn/scikit-learn/issues/20474
    """
    X, _ = make_classification(n_samples=100, n_features=20)
    feature_map_nystroem = Nystroem(
        kernel=gaussian_for_gamma(1.0 / X.shape[1]),  # adaptation 3: kernel="rbf"
        n_components=10,
        random_state=0,
    )
    feature_map_nystroem.fit(X)
    assert feature_map_nystroem.component_indices_.shape == (10,)


@pytest.mark.parametrize("Estimator", [RandomFourierFeatures, Nystroem])
def test_get_feature_names_out(Estimator):
    """Check get_feature_names_out"""
    # adaptation 3: RBFSampler -> RandomFourierFeatures; Nystroem's default kernel="rbf"
    params = ({"kernel": gaussian_for_gamma(1.0 / XA.shape[1])} if Estimator is Nystroem
              else {"variant": "cos_phase"})
    est = Estimator(**params).fit(XA)
    X_trans = est.transform(XA)

    names_out = est.get_feature_names_out()
    class_name = Estimator.__name__.lower()
    expected_names = [f"{class_name}{i}" for i in range(X_trans.shape[1])]
    assert_array_equal(names_out, expected_names)


# ---------------------------------------------------------------------------
# sklearn/linear_model/tests/test_ridge.py
# ---------------------------------------------------------------------------
diabetes = datasets.load_diabetes()
X_diabetes, y_diabetes = diabetes.data, diabetes.target
ind = np.arange(X_diabetes.shape[0])
rng = np.random.RandomState(0)
rng.shuffle(ind)
ind = ind[:200]
X_diabetes, y_diabetes = X_diabetes[ind], y_diabetes[ind]


def _ridge(alpha=1.0, fit_intercept=True):
    """Adaptation 2: scikit-learn's ``Ridge(alpha, fit_intercept)``."""
    return RidgeRegression(lam=alpha, fit_intercept=fit_intercept, standardize=False)


@pytest.fixture(params=["long", "wide"])
def ols_ridge_dataset(request):
    """Dataset with OLS and Ridge solutions, well conditioned X.

    The construction is based on the SVD decomposition of X = U S V'.

    Parameters
    ----------
    type : {"long", "wide"}
        If "long", then n_samples > n_features.
        If "wide", then n_features > n_samples.

    For "wide", we return the minimum norm solution w = X' (XX')^-1 y:

        min ||w||_2 subject to X w = y

    Returns
    -------
    X : ndarray
        Last column of 1, i.e. intercept.
    y : ndarray
    coef_ols : ndarray of shape
        Minimum norm OLS solutions, i.e. min ||X w - y||_2_2 (with minimum ||w||_2 in
        case of ambiguity)
        Last coefficient is intercept.
    coef_ridge : ndarray of shape (5,)
        Ridge solution with alpha=1, i.e. min ||X w - y||_2_2 + ||w||_2^2.
        Last coefficient is intercept.
    """
    # Make larger dim more than double as big as the smaller one.
    # This helps when constructing singular matrices like (X, X).
    if request.param == "long":
        n_samples, n_features = 12, 4
    else:
        n_samples, n_features = 4, 12
    k = min(n_samples, n_features)
    rng = np.random.RandomState(GLOBAL_RANDOM_SEED)
    X = make_low_rank_matrix(
        n_samples=n_samples, n_features=n_features, effective_rank=k, random_state=rng
    )
    X[:, -1] = 1  # last columns acts as intercept
    U, s, Vt = linalg.svd(X)
    assert np.all(s > 1e-3)  # to be sure
    U1, U2 = U[:, :k], U[:, k:]
    Vt1, _ = Vt[:k, :], Vt[k:, :]

    if request.param == "long":
        # Add a term that vanishes in the product X'y
        coef_ols = rng.uniform(low=-10, high=10, size=n_features)
        y = X @ coef_ols
        y += U2 @ rng.normal(size=n_samples - n_features) ** 2
    else:
        y = rng.uniform(low=-10, high=10, size=n_samples)
        # w = X'(XX')^-1 y = V s^-1 U' y
        coef_ols = Vt1.T @ np.diag(1 / s) @ U1.T @ y

    # Add penalty alpha * ||coef||_2^2 for alpha=1 and solve via normal equations.
    # Note that the problem is well conditioned such that we get accurate results.
    alpha = 1
    d = alpha * np.identity(n_features)
    d[-1, -1] = 0  # intercept gets no penalty
    coef_ridge = linalg.solve(X.T @ X + d, X.T @ y)

    # To be sure
    R_OLS = y - X @ coef_ols
    R_Ridge = y - X @ coef_ridge
    assert np.linalg.norm(R_OLS) < np.linalg.norm(R_Ridge)

    return X, y, coef_ols, coef_ridge


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_ridge_regression(fit_intercept, ols_ridge_dataset):
    """Test that Ridge converges for all solvers to correct solution.

    We work with a simple constructed data set with known solution.
    """
    X, y, _, coef = ols_ridge_dataset
    alpha = 1.0  # because ols_ridge_dataset uses this.
    params = dict(
        alpha=alpha,
        fit_intercept=True,
    )

    # Calculate residuals and R2.
    res_null = y - np.mean(y)
    res_Ridge = y - X @ coef
    R2_Ridge = 1 - np.sum(res_Ridge**2) / np.sum(res_null**2)

    model = _ridge(**params)
    X = X[:, :-1]  # remove intercept
    if fit_intercept:
        intercept = coef[-1]
    else:
        X = X - X.mean(axis=0)
        y = y - y.mean()
        intercept = 0
    model.fit(X, y)
    coef = coef[:-1]

    assert model.intercept_ == pytest.approx(intercept)
    assert_allclose(model.coef_, coef)
    assert model.score(X, y) == pytest.approx(R2_Ridge)

    # Same with sample_weight.
    model = _ridge(**params).fit(X, y, sample_weight=np.ones(X.shape[0]))
    assert model.intercept_ == pytest.approx(intercept)
    assert_allclose(model.coef_, coef)
    assert model.score(X, y) == pytest.approx(R2_Ridge)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_ridge_regression_hstacked_X(fit_intercept, ols_ridge_dataset):
    """Test that Ridge converges for all solvers to correct solution on hstacked data.

    We work with a simple constructed data set with known solution.
    Fit on [X] with alpha is the same as fit on [X, X]/2 with alpha/2.
    For long X, [X, X] is a singular matrix.
    """
    X, y, _, coef = ols_ridge_dataset
    n_samples, n_features = X.shape
    alpha = 1.0  # because ols_ridge_dataset uses this.

    model = _ridge(alpha=alpha / 2, fit_intercept=fit_intercept)
    X = X[:, :-1]  # remove intercept
    X = 0.5 * np.concatenate((X, X), axis=1)
    assert np.linalg.matrix_rank(X) <= min(n_samples, n_features - 1)
    if fit_intercept:
        intercept = coef[-1]
    else:
        X = X - X.mean(axis=0)
        y = y - y.mean()
        intercept = 0
    model.fit(X, y)
    coef = coef[:-1]

    assert model.intercept_ == pytest.approx(intercept)
    # coefficients are not all on the same magnitude, adding a small atol to
    # make this test less brittle
    assert_allclose(model.coef_, np.r_[coef, coef], atol=1e-8)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_ridge_regression_vstacked_X(fit_intercept, ols_ridge_dataset):
    """Test that Ridge converges for all solvers to correct solution on vstacked data.

    We work with a simple constructed data set with known solution.
    Fit on [X] with alpha is the same as fit on [X], [y]
                                                [X], [y] with 2 * alpha.
    For wide X, [X', X'] is a singular matrix.
    """
    X, y, _, coef = ols_ridge_dataset
    n_samples, n_features = X.shape
    alpha = 1.0  # because ols_ridge_dataset uses this.

    model = _ridge(alpha=2 * alpha, fit_intercept=fit_intercept)
    X = X[:, :-1]  # remove intercept
    X = np.concatenate((X, X), axis=0)
    assert np.linalg.matrix_rank(X) <= min(n_samples, n_features)
    y = np.r_[y, y]
    if fit_intercept:
        intercept = coef[-1]
    else:
        X = X - X.mean(axis=0)
        y = y - y.mean()
        intercept = 0
    model.fit(X, y)
    coef = coef[:-1]

    assert model.intercept_ == pytest.approx(intercept)
    # coefficients are not all on the same magnitude, adding a small atol to
    # make this test less brittle
    assert_allclose(model.coef_, coef, atol=1e-8)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_ridge_regression_unpenalized(fit_intercept, ols_ridge_dataset):
    """Test that unpenalized Ridge = OLS converges for all solvers to correct solution.

    We work with a simple constructed data set with known solution.
    Note: This checks the minimum norm solution for wide X, i.e.
    n_samples < n_features:
        min ||w||_2 subject to X w = y
    """
    X, y, coef, _ = ols_ridge_dataset
    n_samples, n_features = X.shape
    alpha = 0  # OLS
    params = dict(
        alpha=alpha,
        fit_intercept=fit_intercept,
    )

    model = _ridge(**params)
    # Note that cholesky might give a warning: "Singular matrix in solving dual
    # problem. Using least-squares solution instead."
    if fit_intercept:
        X = X[:, :-1]  # remove intercept
        intercept = coef[-1]
        coef = coef[:-1]
    else:
        intercept = 0
    model.fit(X, y)

    # FIXME: `assert_allclose(model.coef_, coef)` should work for all cases but fails
    # for the wide/fat case with n_features > n_samples. The current Ridge solvers do
    # NOT return the minimum norm solution with fit_intercept=True.
    if n_samples > n_features or not fit_intercept:
        assert model.intercept_ == pytest.approx(intercept)
        assert_allclose(model.coef_, coef)
    else:
        # As it is an underdetermined problem, residuals = 0. This shows that we get
        # a solution to X w = y ....
        assert_allclose(model.predict(X), y)
        assert_allclose(X @ coef + intercept, y)
        # But it is not the minimum norm solution. (This should be equal.)
        assert np.linalg.norm(np.r_[model.intercept_, model.coef_]) > np.linalg.norm(
            np.r_[intercept, coef]
        )

        pytest.xfail(reason="Ridge does not provide the minimum norm solution.")
        assert model.intercept_ == pytest.approx(intercept)
        assert_allclose(model.coef_, coef)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_ridge_regression_unpenalized_hstacked_X(fit_intercept, ols_ridge_dataset):
    """Test that unpenalized Ridge = OLS converges for all solvers to correct solution.

    We work with a simple constructed data set with known solution.
    OLS fit on [X] is the same as fit on [X, X]/2.
    For long X, [X, X] is a singular matrix and we check against the minimum norm
    solution:
        min ||w||_2 subject to min ||X w - y||_2
    """
    X, y, coef, _ = ols_ridge_dataset
    n_samples, n_features = X.shape
    alpha = 0  # OLS

    model = _ridge(alpha=alpha, fit_intercept=fit_intercept)
    if fit_intercept:
        X = X[:, :-1]  # remove intercept
        intercept = coef[-1]
        coef = coef[:-1]
    else:
        intercept = 0
    X = 0.5 * np.concatenate((X, X), axis=1)
    assert np.linalg.matrix_rank(X) <= min(n_samples, n_features)
    model.fit(X, y)

    if n_samples > n_features or not fit_intercept:
        assert model.intercept_ == pytest.approx(intercept)
        assert_allclose(model.coef_, np.r_[coef, coef])
    else:
        # FIXME: Same as in test_ridge_regression_unpenalized.
        # As it is an underdetermined problem, residuals = 0. This shows that we get
        # a solution to X w = y ....
        assert_allclose(model.predict(X), y)
        # But it is not the minimum norm solution. (This should be equal.)
        assert np.linalg.norm(np.r_[model.intercept_, model.coef_]) > np.linalg.norm(
            np.r_[intercept, coef, coef]
        )

        pytest.xfail(reason="Ridge does not provide the minimum norm solution.")
        assert model.intercept_ == pytest.approx(intercept)
        assert_allclose(model.coef_, np.r_[coef, coef])


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_ridge_regression_unpenalized_vstacked_X(fit_intercept, ols_ridge_dataset):
    """Test that unpenalized Ridge = OLS converges for all solvers to correct solution.

    We work with a simple constructed data set with known solution.
    OLS fit on [X] is the same as fit on [X], [y]
                                         [X], [y].
    For wide X, [X', X'] is a singular matrix and we check against the minimum norm
    solution:
        min ||w||_2 subject to X w = y
    """
    X, y, coef, _ = ols_ridge_dataset
    n_samples, n_features = X.shape
    alpha = 0  # OLS

    model = _ridge(alpha=alpha, fit_intercept=fit_intercept)

    if fit_intercept:
        X = X[:, :-1]  # remove intercept
        intercept = coef[-1]
        coef = coef[:-1]
    else:
        intercept = 0
    X = np.concatenate((X, X), axis=0)
    assert np.linalg.matrix_rank(X) <= min(n_samples, n_features)
    y = np.r_[y, y]
    model.fit(X, y)

    if n_samples > n_features or not fit_intercept:
        assert model.intercept_ == pytest.approx(intercept)
        assert_allclose(model.coef_, coef)
    else:
        # FIXME: Same as in test_ridge_regression_unpenalized.
        # As it is an underdetermined problem, residuals = 0. This shows that we get
        # a solution to X w = y ....
        assert_allclose(model.predict(X), y)
        # But it is not the minimum norm solution. (This should be equal.)
        assert np.linalg.norm(np.r_[model.intercept_, model.coef_]) > np.linalg.norm(
            np.r_[intercept, coef]
        )

        pytest.xfail(reason="Ridge does not provide the minimum norm solution.")
        assert model.intercept_ == pytest.approx(intercept)
        assert_allclose(model.coef_, coef)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("alpha", [1.0, 1e-2])
def test_ridge_regression_sample_weights(fit_intercept, alpha, ols_ridge_dataset):
    """Test that Ridge with sample weights gives correct results.

    We use the following trick:
        ||y - Xw||_2 = (z - Aw)' W (z - Aw)
    for z=[y, y], A' = [X', X'] (vstacked), and W[:n/2] + W[n/2:] = 1, W=diag(W)
    """
    X, y, _, coef = ols_ridge_dataset
    n_samples, n_features = X.shape
    sw = rng.uniform(low=0, high=1, size=n_samples)  # the module's rng, as in the original

    model = _ridge(alpha=alpha, fit_intercept=fit_intercept)
    X = X[:, :-1]  # remove intercept
    X = np.concatenate((X, X), axis=0)
    y = np.r_[y, y]
    sw = np.r_[sw, 1 - sw] * alpha
    if fit_intercept:
        intercept = coef[-1]
    else:
        X = X - X.mean(axis=0)
        y = y - y.mean()
        intercept = 0
    model.fit(X, y, sample_weight=sw)
    coef = coef[:-1]

    assert model.intercept_ == pytest.approx(intercept)
    assert_allclose(model.coef_, coef)


def test_primal_dual_relationship():
    # adaptation 5: kmlib's primal Cholesky solver and its kernel (dual) solver
    y = y_diabetes
    coef = ridge(X_diabetes, y, 1e-2, method="primal")
    K = np.dot(X_diabetes, X_diabetes.T)
    dual_coef = krr_fit(K, y, 1e-2)
    coef2 = np.dot(X_diabetes.T, dual_coef).T
    assert_array_almost_equal(coef, coef2)


@pytest.mark.parametrize("y_shape", [
    pytest.param("1d", marks=pytest.mark.xfail(
        strict=True, raises=AttributeError,
        reason="documented difference D4: intercept_ is a Python float (no .shape)")),
    pytest.param("column", marks=pytest.mark.xfail(
        strict=True, raises=AssertionError,
        reason="documented difference D4: y of shape (n, 1) is one output")),
    "2d",
])
def test_ridge_shapes_type(y_shape):
    # Test shape of coef_ and intercept_ (adaptation 9: one y shape per case)
    rng = np.random.RandomState(0)
    n_samples, n_features = 5, 10
    X = rng.randn(n_samples, n_features)
    y = rng.randn(n_samples)
    Y1 = y[:, np.newaxis]
    Y = np.c_[y, 1 + y]

    ridge = _ridge()

    if y_shape == "1d":
        ridge.fit(X, y)
        assert ridge.coef_.shape == (n_features,)
        assert ridge.intercept_.shape == ()
        assert isinstance(ridge.coef_, np.ndarray)
        assert isinstance(ridge.intercept_, float)

    if y_shape == "column":
        ridge.fit(X, Y1)
        assert ridge.coef_.shape == (1, n_features)
        assert ridge.intercept_.shape == (1,)
        assert isinstance(ridge.coef_, np.ndarray)
        assert isinstance(ridge.intercept_, np.ndarray)

    if y_shape == "2d":
        ridge.fit(X, Y)
        assert ridge.coef_.shape == (2, n_features)
        assert ridge.intercept_.shape == (2,)
        assert isinstance(ridge.coef_, np.ndarray)
        assert isinstance(ridge.intercept_, np.ndarray)


def test_ridge_intercept():
    # Test intercept with multiple targets GH issue #708
    rng = np.random.RandomState(0)
    n_samples, n_features = 5, 10
    X = rng.randn(n_samples, n_features)
    y = rng.randn(n_samples)
    Y = np.c_[y, 1.0 + y]

    ridge = _ridge()

    ridge.fit(X, y)
    intercept = ridge.intercept_

    ridge.fit(X, Y)
    assert_almost_equal(ridge.intercept_[0], intercept)
    assert_almost_equal(ridge.intercept_[1], intercept + 1.0)


def test_ridge_vs_lstsq():
    # On alpha=0., Ridge and OLS yield the same solution.

    rng = np.random.RandomState(0)
    # we need more samples than features
    n_samples, n_features = 5, 4
    y = rng.randn(n_samples)
    X = rng.randn(n_samples, n_features)

    ridge = _ridge(alpha=0.0, fit_intercept=False)
    ols = LinearRegression(fit_intercept=False)

    ridge.fit(X, y)
    ols.fit(X, y)
    assert_almost_equal(ridge.coef_, ols.coef_)

    ridge.fit(X, y)
    ols.fit(X, y)
    assert_almost_equal(ridge.coef_, ols.coef_)


def _test_multi_ridge_diabetes(sparse_container):
    # simulate several responses
    X = X_diabetes  # (dense only)
    Y = np.vstack((y_diabetes, y_diabetes)).T
    n_features = X_diabetes.shape[1]

    ridge = _ridge(fit_intercept=False)
    ridge.fit(X, Y)
    assert ridge.coef_.shape == (2, n_features)
    Y_pred = ridge.predict(X)
    ridge.fit(X, y_diabetes)
    y_pred = ridge.predict(X)
    assert_array_almost_equal(np.vstack((y_pred, y_pred)).T, Y_pred, decimal=3)


@pytest.mark.parametrize("test_func", (_test_multi_ridge_diabetes,))
def test_dense_sparse(test_func):
    # test dense matrix (the sparse half and the other helpers, which need RidgeCV,
    # RidgeClassifier or a solver's tol, are not ported)
    test_func(None)


def test_raises_value_error_if_sample_weights_greater_than_1d():
    # Sample weights must be either scalar or 1D

    n_sampless = [2, 3]
    n_featuress = [3, 2]

    rng = np.random.RandomState(42)

    for n_samples, n_features in zip(n_sampless, n_featuress, strict=True):
        X = rng.randn(n_samples, n_features)
        y = rng.randn(n_samples)
        sample_weights_OK = rng.randn(n_samples) ** 2 + 1
        sample_weights_OK_1 = 1.0
        sample_weights_OK_2 = 2.0
        sample_weights_not_OK = sample_weights_OK[:, np.newaxis]
        sample_weights_not_OK_2 = sample_weights_OK[np.newaxis, :]

        ridge = _ridge(alpha=1)

        # make sure the "OK" sample weights actually work
        ridge.fit(X, y, sample_weights_OK)
        ridge.fit(X, y, sample_weights_OK_1)
        ridge.fit(X, y, sample_weights_OK_2)

        def fit_ridge_not_ok():
            ridge.fit(X, y, sample_weights_not_OK)  # noqa: B023 (as in the original)

        def fit_ridge_not_ok_2():
            ridge.fit(X, y, sample_weights_not_OK_2)  # noqa: B023 (as in the original)

        err_msg = "Sample weights must be 1D array or scalar"
        with pytest.raises(ValueError, match=err_msg):
            fit_ridge_not_ok()

        err_msg = "Sample weights must be 1D array or scalar"
        with pytest.raises(ValueError, match=err_msg):
            fit_ridge_not_ok_2()


@pytest.mark.parametrize("return_intercept", [False, True])
@pytest.mark.parametrize("sample_weight", [None, np.ones(1000)])
def test_ridge_regression_check_arguments_validity(return_intercept, sample_weight):
    """check if all combinations of arguments give valid estimations"""

    # adaptation 2: ridge_regression(...) is RidgeRegression; no solver, no sparse
    # container, so the original's "only 'sag' solver can fit an intercept" branch is moot
    rng = check_random_state(42)
    X = rng.rand(1000, 3)
    true_coefs = [1, 2, 0.1]
    y = np.dot(X, true_coefs)
    true_intercept = 0.0
    if return_intercept:
        true_intercept = 10000.0
    y += true_intercept
    X_testing = np.array(X)

    alpha = 1e-3
    atol = 1e-4  # the original's, outside 32-bit platforms

    model = _ridge(alpha=alpha, fit_intercept=return_intercept)
    model.fit(X_testing, y, sample_weight=sample_weight)
    out = (model.coef_, model.intercept_) if return_intercept else model.coef_

    if return_intercept:
        coef, intercept = out
        assert_allclose(coef, true_coefs, rtol=0, atol=atol)
        assert_allclose(intercept, true_intercept, rtol=0, atol=atol)
    else:
        assert_allclose(out, true_coefs, rtol=0, atol=atol)


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("data", ["tall", "wide"])
def test_ridge_sample_weight_consistency(fit_intercept, data):
    """Test that the impact of sample_weight is consistent.

    Note that this test is stricter than the common test
    check_sample_weights_invariance alone.
    """
    # XXX: this test is quite sensitive to the seed used to generate the data:
    # ideally we would like the test to pass for any global_random_seed but this is not
    # the case at the moment.
    rng = np.random.RandomState(42)
    n_samples = 12
    if data == "tall":
        n_features = n_samples // 2
    else:
        n_features = n_samples * 2

    X = rng.rand(n_samples, n_features)
    y = rng.rand(n_samples)
    params = dict(
        fit_intercept=fit_intercept,
        alpha=1.0,
    )

    # 1) sample_weight=np.ones(..) should be equivalent to sample_weight=None
    # same check as check_sample_weights_invariance(name, reg, kind="ones"), but we also
    # test with sparse input.
    reg = _ridge(**params).fit(X, y, sample_weight=None)
    coef = reg.coef_.copy()
    if fit_intercept:
        intercept = reg.intercept_
    sample_weight = np.ones_like(y)
    reg.fit(X, y, sample_weight=sample_weight)
    assert_allclose(reg.coef_, coef, rtol=1e-6)
    if fit_intercept:
        assert_allclose(reg.intercept_, intercept)

    # 2) setting elements of sample_weight to 0 is equivalent to removing these samples
    # same check as check_sample_weights_invariance(name, reg, kind="zeros"), but we
    # also test with sparse input
    sample_weight = rng.uniform(low=0.01, high=2, size=X.shape[0])
    sample_weight[-5:] = 0
    y[-5:] *= 1000  # to make excluding those samples important
    reg.fit(X, y, sample_weight=sample_weight)
    coef = reg.coef_.copy()
    if fit_intercept:
        intercept = reg.intercept_
    reg.fit(X[:-5, :], y[:-5], sample_weight=sample_weight[:-5])
    assert_allclose(reg.coef_, coef, rtol=1e-6)
    if fit_intercept:
        assert_allclose(reg.intercept_, intercept)

    # 3) scaling of sample_weight should have no effect
    # Note: For models with penalty, scaling the penalty term might work.
    reg2 = _ridge(**params).set_params(lam=np.pi * params["alpha"])
    reg2.fit(X, y, sample_weight=np.pi * sample_weight)
    assert_allclose(reg2.coef_, coef, rtol=1e-6)
    if fit_intercept:
        assert_allclose(reg2.intercept_, intercept)

    # 4) check that multiplying sample_weight by 2 is equivalent
    # to repeating corresponding samples twice
    X2 = np.concatenate([X, X[: n_samples // 2]], axis=0)
    y2 = np.concatenate([y, y[: n_samples // 2]])
    sample_weight_1 = sample_weight.copy()
    sample_weight_1[: n_samples // 2] *= 2
    sample_weight_2 = np.concatenate(
        [sample_weight, sample_weight[: n_samples // 2]], axis=0
    )
    reg1 = _ridge(**params).fit(X, y, sample_weight=sample_weight_1)
    reg2 = _ridge(**params).fit(X2, y2, sample_weight=sample_weight_2)
    assert_allclose(reg1.coef_, reg2.coef_)
    if fit_intercept:
        assert_allclose(reg1.intercept_, reg2.intercept_)

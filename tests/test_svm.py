"""Tests of kmlib.svm: the kernel SVM solved by SMO (chapter 8).

References trusted, named in each test: scikit-learn's SVC (LIBSVM) on the same
precomputed kernel matrix, the KKT conditions of the dual, weak and strong
duality (primal >= dual, equal at the optimum), an independent SLSQP solution of
the hard-margin primal, and the algebra C = 1/(2 lam).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from _estimator_fixtures import (
    assert_rejects_bad_inputs,
    fit_callable_and_precomputed,
    linear,
    random_two_class,
    rbf,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from kmlib import kernels
from kmlib._validation import NotFittedError
from kmlib.svm import C_from_lam, KernelSVM, smo_solve
from kmlib.svm.smo import _Rows, _smo


# ---------------------------------------------------------------------------
# small local data (kernels from _estimator_fixtures, independent of kmlib.kernels)
# ---------------------------------------------------------------------------
def blobs(n=120, sep=1.5, seed=0):
    """Two overlapping Gaussian blobs in R^2 with labels -1/+1."""
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    X = rng.standard_normal((n, 2)) + sep * y[:, None] * np.array([1.0, 0.5])
    return X, y


def xor(n=160, seed=1):
    """XOR-like labels: the sign of x1 * x2, with a little label noise."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n, 2))
    y = np.sign(X[:, 0] * X[:, 1])
    y[y == 0] = 1.0
    flip = rng.random(n) < 0.05
    y[flip] *= -1
    return X, y


CASES = {
    "blobs-rbf": (blobs, rbf(0.5), 1.0),
    "xor-rbf": (xor, rbf(1.0), 10.0),
    "blobs-linear": (blobs, linear, 0.3),
}


def full_alpha(model, n):
    """The dual vector a (length n) rebuilt from support_ and dual_coef_ = a_i y_i."""
    a = np.zeros(n)
    a[model.support_] = np.abs(model.dual_coef_)
    return a


def dual_objective(K, y, a):
    """sum(a) - 1/2 sum_ij a_i a_j y_i y_j K_ij, straight from the definition."""
    c = a * y
    return a.sum() - 0.5 * c @ K @ c


# ---------------------------------------------------------------------------
# agreement with scikit-learn (LIBSVM)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_sklearn_svc_precomputed(case):
    """Reference: sklearn SVC(kernel='precomputed', tol=1e-6) on the same K and C.

    Dual objectives (sklearn's recomputed from its dual_coef_ and the same K)
    agree to 1e-4 relative, >= 99% of test labels agree, intercepts are close.
    """
    make, k, C = CASES[case]
    X, y = make()
    Xt, _ = make(n=400, seed=7)
    K = k(X)
    sk = SVC(kernel="precomputed", C=C, tol=1e-6).fit(K, y)
    a_sk = np.zeros(len(y))
    a_sk[sk.support_] = np.abs(sk.dual_coef_[0])
    obj_sk = dual_objective(K, y, a_sk)

    ours = KernelSVM(kernel=k, C=C, tol=1e-5).fit(X, y)
    obj_ours = dual_objective(K, y, full_alpha(ours, len(y)))
    assert abs(obj_ours - obj_sk) <= 1e-4 * abs(obj_sk)
    assert abs(ours.objective_ - obj_ours) <= 1e-8 * abs(obj_ours)
    agree = np.mean(ours.predict(Xt) == sk.predict(k(Xt, X)))
    assert agree >= 0.99
    assert abs(ours.intercept_ - sk.intercept_[0]) <= 1e-3 * max(1.0, abs(sk.intercept_[0]))


def test_precomputed_matches_callable():
    """Reference: the same problem as a callable and as a Gram matrix (lazy rows vs full K)."""
    X, y = xor()
    Xt, _ = xor(n=50, seed=3)
    k = rbf(1.0)
    a, b = fit_callable_and_precomputed(KernelSVM, k, X, y, C=2.0)
    assert np.array_equal(a.support_, b.support_)
    np.testing.assert_allclose(a.dual_coef_, b.dual_coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.decision_function(Xt), b.decision_function(k(Xt, X)),
                               rtol=1e-9, atol=1e-12)
    assert b.support_vectors_ is None
    np.testing.assert_array_equal(a.support_vectors_, X[a.support_])


def test_smo_solve_function_matches_estimator():
    """Reference: the estimator; smo_solve on the same K returns the same a, b and objective."""
    X, y = blobs()
    K = rbf(0.5)(X)
    a, b, obj, n_iter, conv = smo_solve(K, y, 1.0, 1e-4)
    m = KernelSVM(kernel="precomputed", C=1.0, tol=1e-4).fit(K, y)
    assert conv and n_iter == m.n_iter_
    np.testing.assert_allclose(a[m.support_] * y[m.support_], m.dual_coef_)
    assert b == m.intercept_ and obj == m.objective_


# ---------------------------------------------------------------------------
# optimality conditions (KKT) and feasibility
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("tol", [1e-3, 1e-6])
def test_kkt_conditions_hold(case, tol):
    """Reference: the KKT conditions of the dual, to within the stopping tolerance.

    a_i = 0 => y_i f(x_i) >= 1 - tol; 0 < a_i < C => y_i f(x_i) = 1 +- tol;
    a_i = C => y_i f(x_i) <= 1 + tol; and 0 <= a <= C, sum_i a_i y_i = 0.
    """
    make, k, C = CASES[case]
    X, y = make()
    m = KernelSVM(kernel=k, C=C, tol=tol).fit(X, y)
    a = full_alpha(m, len(y))
    yf = y * m.decision_function(X)
    slack = tol + 1e-9
    assert np.all(a >= 0) and np.all(a <= C)
    assert abs(np.sum(a * y)) <= 1e-10 * C * len(y)
    assert np.all(yf[a == 0] >= 1 - slack)
    free = (a > 0) & (a < C)
    assert np.all(np.abs(yf[free] - 1) <= slack)
    assert np.all(yf[a == C] <= 1 + slack)
    np.testing.assert_array_equal(m.support_, np.flatnonzero(a > 0))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(6, 40),
       logC=st.floats(-2.0, 2.0), gamma=st.floats(0.1, 3.0))
def test_duality_gap_closes(seed, n, logC, gamma):
    """Reference: weak duality P >= D, and strong duality P = D at the optimum.

    P(f, b) = 1/2 ||f||^2 + C sum_i (1 - y_i f(x_i))_+ with f from the returned a
    and b; D is the dual objective.  P - D = sum_i [C (1 - y_i f_i)_+ - a_i (1 - y_i f_i)],
    and at a KKT point within tol each term is at most 2 C tol.
    """
    X, y = random_two_class(n, seed)
    C = 10.0 ** logC
    k = rbf(gamma)
    K = k(X)
    tol = 1e-6
    m = KernelSVM(kernel="precomputed", C=C, tol=tol).fit(K, y)
    a = full_alpha(m, n)
    c = a * y
    f = K @ c + m.intercept_
    primal = 0.5 * c @ K @ c + C * np.sum(np.maximum(0.0, 1.0 - y * f))
    dual = dual_objective(K, y, a)
    assert primal >= dual - 1e-9 * max(1.0, abs(dual))
    assert primal - dual <= 2 * n * C * tol + 1e-9 * max(1.0, abs(dual))
    assert abs(m.objective_ - dual) <= 1e-9 * max(1.0, abs(dual))


def test_hard_margin_on_separable_data():
    """Reference: an independent SLSQP solve of min 1/2|w|^2 s.t. y_i (w.x_i + b) >= 1.

    With a linear kernel and a huge C the SVM must separate the data with the
    same maximum-margin hyperplane.
    """
    X, y = blobs(n=40, sep=3.0, seed=4)
    m = KernelSVM(kernel=linear, C=1e6, tol=1e-8).fit(X, y)
    assert np.all(m.predict(X) == y)
    w = m.dual_coef_ @ m.support_vectors_
    b = m.intercept_
    assert np.min(y * (X @ w + b)) >= 1 - 1e-6

    cons = {"type": "ineq", "fun": lambda v: y * (X @ v[:2] + v[2]) - 1.0,
            "jac": lambda v: y[:, None] * np.column_stack([X, np.ones(len(y))])}
    res = minimize(lambda v: 0.5 * v[:2] @ v[:2], np.array([1.0, 1.0, 0.0]),
                   jac=lambda v: np.r_[v[:2], 0.0], constraints=[cons], method="SLSQP",
                   options={"ftol": 1e-14, "maxiter": 500})
    assert res.success
    np.testing.assert_allclose(w, res.x[:2], rtol=1e-4, atol=1e-6)
    assert abs(b - res.x[2]) <= 1e-4 * max(1.0, abs(res.x[2]))
    # the margin is 1/|w|, attained by at least two points (one per class)
    margins = y * (X @ w + b) / np.linalg.norm(w)
    assert np.isclose(margins.min(), 1 / np.linalg.norm(w), rtol=1e-6)


def test_book_penalised_form_via_C_from_lam():
    """Reference: C = 1/(2 lam) algebra plus strong duality.

    The book's objective sum_i hinge + lam ||f||^2 at the fitted (f, b) equals
    the dual optimum divided by C (it is the C-SVM primal divided by C).
    """
    lam = 0.05
    C = C_from_lam(lam)
    assert C == 1 / (2 * lam) == KernelSVM.C_from_lam(lam)
    X, y = xor()
    K = rbf(1.0)(X)
    m = KernelSVM(kernel="precomputed", C=C, tol=1e-7).fit(K, y)
    a = full_alpha(m, len(y))
    f = K @ (a * y) + m.intercept_
    book = np.sum(np.maximum(0, 1 - y * f)) + lam * (a * y) @ K @ (a * y)
    assert book == pytest.approx(m.objective_ / C, rel=1e-5)


def test_indefinite_kernel_terminates_feasibly():
    """Reference: the KKT conditions; the tau safeguard keeps SMO well defined when K is not PSD.

    The sigmoid kernel tanh(x.x' + 0.5) is not positive semi-definite (its diagonal is
    positive, so check_gram_psd's O(n) test lets it through to SMO).
    """
    X, y = blobs(n=60, seed=2)
    K = np.tanh(X @ X.T + 0.5)
    assert np.linalg.eigvalsh(K).min() < -1e-3
    tol = 1e-4
    m = KernelSVM(kernel="precomputed", C=1.0, tol=tol).fit(K, y)
    a = full_alpha(m, len(y))
    assert np.all((a >= 0) & (a <= 1.0)) and abs(a @ y) <= 1e-10
    # first-order optimality of the (non-convex) dual: m(a) - M(a) < tol
    g = y - K @ (a * y)
    up = ((a < 1.0) & (y > 0)) | ((a > 0) & (y < 0))
    low = ((a < 1.0) & (y < 0)) | ((a > 0) & (y > 0))
    assert g[up].max() - g[low].min() < tol + 1e-9


def test_large_tol_gives_empty_support_and_the_midpoint_intercept():
    """Reference: the KKT conditions at a = 0: the violation m(a) - M(a) = 1 - (-1) = 2 is
    below tol = 3, so a = 0 is accepted, b is the midpoint (1 + (-1))/2 = 0 and f = b."""
    X, y = blobs(n=30)
    calls = []

    def k(A, B=None):
        calls.append(len(A))
        return rbf(0.5)(A, B)

    m = KernelSVM(kernel=k, C=1.0, tol=3.0).fit(X, y)
    assert m.support_.size == 0 and m.n_iter_ == 0 and m.intercept_ == 0.0
    calls.clear()
    np.testing.assert_array_equal(m.decision_function(X[:4]), np.zeros(4))
    assert calls == []                          # no kernel call against an empty support set
    mp = KernelSVM(kernel="precomputed", C=1.0, tol=3.0).fit(rbf(0.5)(X), y)
    np.testing.assert_array_equal(mp.decision_function(rbf(0.5)(X[:4], X)), np.zeros(4))


def test_max_iter_warns_once():
    """Reference: the documented contract: one ConvergenceWarning (scikit-learn's) when
    max_iter is reached."""
    X, y = xor()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        m = KernelSVM(kernel=rbf(1.0), C=10.0, max_iter=3).fit(X, y)
    runtime = [w for w in rec if issubclass(w.category, ConvergenceWarning)]
    assert len(runtime) == 1 and "max_iter" in str(runtime[0].message)
    assert m.n_iter_ == 3


def test_no_warning_in_normal_use_and_ties_to_plus_one():
    """Reference: the documented contract (no warnings; sign with ties to +1)."""
    X, y = blobs()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = KernelSVM(kernel="precomputed", C=1.0).fit(rbf(0.5)(X), y)
    m.intercept_ = 0.0
    np.testing.assert_array_equal(m.predict(np.zeros((3, len(y)))), [1.0, 1.0, 1.0])
    assert set(np.unique(m.predict(rbf(0.5)(X)))) <= {-1.0, 1.0}


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------
def test_bad_input_raises():
    """Reference: the validation contract (ValueError naming the argument).

    The contract shared with KernelLogisticRegression is checked by
    _estimator_fixtures.assert_rejects_bad_inputs; C is specific to the SVM.
    """
    X, y = blobs(n=20)
    k = rbf(0.5)
    assert_rejects_bad_inputs(KernelSVM, X, y, k)
    for C in (0.0, -1.0, np.nan, "a"):
        with pytest.raises(ValueError, match="C must"):
            KernelSVM(kernel=k, C=C).fit(X, y)
    with pytest.raises(ValueError, match="lam must be > 0"):
        C_from_lam(0.0)


def test_smo_solve_bad_input_raises():
    """Reference: the validation contract of the bare solver."""
    X, y = blobs(n=20)
    K = rbf(0.5)(X)
    with pytest.raises(ValueError, match="K must be a square matrix"):
        smo_solve(K[:, :5], y, 1.0)
    with pytest.raises(ValueError, match="K and y must have the same number"):
        smo_solve(K, y[:5], 1.0)
    with pytest.raises(ValueError, match="y must contain only the labels"):
        smo_solve(K, 2 * y, 1.0)
    with pytest.raises(ValueError, match="C must be > 0"):
        smo_solve(K, y, -1.0)
    with pytest.raises(ValueError, match="tol must be > 0"):
        smo_solve(K, y, 1.0, tol=0.0)
    with pytest.raises(ValueError, match="max_iter must be"):
        smo_solve(K, y, 1.0, max_iter=1.5)
    Kasym = K.copy()
    Kasym[2, 0] = 3.0
    with pytest.raises(ValueError, match="K must be a symmetric Gram matrix"):
        smo_solve(Kasym, y, 1.0)


def test_predict_before_fit_raises():
    """Reference: the validation contract (NotFittedError, a ValueError)."""
    m = KernelSVM(kernel=rbf(1.0))
    for method in (m.predict, m.decision_function):
        with pytest.raises(NotFittedError, match="not fitted"):
            method(np.zeros((2, 2)))
    assert issubclass(NotFittedError, ValueError)


# ---------------------------------------------------------------------------
# issue 23: with a kernel function the n x n Gram matrix is never formed
# ---------------------------------------------------------------------------
def test_fit_with_a_kernel_function_uses_memory_linear_in_n():
    # reference: the size of the dense Gram matrix, n^2 * 8 bytes = 3.2 GB at n = 20,000;
    # a few SMO iterations need O(n * rows touched), measured by tracemalloc
    import tracemalloc

    n = 20_000
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    model = KernelSVM(kernel=rbf(0.5), C=1.0, max_iter=10)
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # max_iter reached, on purpose
            model.fit(X, y)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert model.n_iter_ == 10
    assert peak < 64 * n * 8 + 16 * 2**20, f"peak {peak / 2**20:.1f} MiB"  # << 3.2 GB


def test_hard_margin_c_inf_matches_libsvm_with_a_huge_c():
    # reference: scikit-learn's SVC (LIBSVM) with C = 1e10 on the same separable data
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 2))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)
    X[:, 0] += 0.3 * y  # a clear margin
    K = rbf(0.5)(X)
    ours = KernelSVM(kernel="precomputed", C=np.inf, tol=1e-8).fit(K, y)
    ref = SVC(kernel="precomputed", C=1e10, tol=1e-8).fit(K, y)
    np.testing.assert_array_equal(np.sort(ours.support_), np.sort(ref.support_))
    np.testing.assert_allclose(ours.decision_function(K), ref.decision_function(K), atol=1e-5)
    assert np.all(y * ours.decision_function(K) >= 1 - 1e-6)  # no slack: a hard margin
    for bad in (-np.inf, np.nan, 0.0):
        with pytest.raises(ValueError, match="C must be"):
            KernelSVM(kernel="precomputed", C=bad).fit(K, y)


@pytest.mark.parametrize("C", [0.5, 5.0])
def test_sample_weight_matches_libsvm(C):
    # reference: scikit-learn's SVC(kernel="rbf") with the same sample_weight (zero weights
    # included: LIBSVM drops those points), and SVC on the points of positive weight alone
    # with a precomputed kernel (scikit-learn's precomputed SVC mishandles zero weights: it
    # drops their rows but not their columns of K, so it is not used with zeros)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=120) > 0, 1, -1)
    w = rng.uniform(0.0, 3.0, size=120)
    w[:10] = 0.0
    keep = w > 0
    K = rbf(0.5)(X)
    ref = SVC(kernel="rbf", gamma=0.5, C=C, tol=1e-8).fit(X, y, sample_weight=w)
    ref_sub = SVC(kernel="precomputed", C=C, tol=1e-8).fit(K[np.ix_(keep, keep)], y[keep],
                                                             sample_weight=w[keep])
    for ours, Kt in ((KernelSVM(kernel="precomputed", C=C, tol=1e-8).fit(K, y, sample_weight=w), K),
                     (KernelSVM(kernel=rbf(0.5), C=C, tol=1e-8).fit(X, y, sample_weight=w), X)):
        # scikit-learn's support_ indexes the points of positive weight (it drops the others)
        np.testing.assert_array_equal(np.sort(ours.support_),
                                      np.sort(np.flatnonzero(keep)[ref.support_]))
        np.testing.assert_allclose(ours.decision_function(Kt), ref.decision_function(X),
                                   atol=1e-5)
        np.testing.assert_allclose(ours.decision_function(Kt),
                                   ref_sub.decision_function(K[:, keep]), atol=1e-5)
    unit = KernelSVM(kernel="precomputed", C=1.0).fit(K, y, sample_weight=np.ones(120))
    plain = KernelSVM(kernel="precomputed", C=1.0).fit(K, y)
    np.testing.assert_array_equal(unit.dual_coef_, plain.dual_coef_)


def test_sample_weight_leaving_one_class():
    # reference: scikit-learn's contract (check_classifiers_one_label_sample_weights): with
    # every point of one class at weight 0, fit either works or raises a ValueError whose
    # message names the class; SVC raises, and so does KernelSVM (a one-class SVM fit has
    # no margin to find)
    rng = np.random.RandomState(0)
    X = rng.uniform(size=(10, 10))
    y = np.arange(10) % 2
    for model, A in ((KernelSVM(kernel=rbf(1.0)), X), (KernelSVM(kernel="precomputed"), X @ X.T)):
        with pytest.raises(ValueError, match="one of the two classes"):
            model.fit(A, y, sample_weight=y.copy())
        with pytest.raises(ValueError, match="no positive weight to any point"):
            model.fit(A, y, sample_weight=np.zeros(10))


def test_rows_computed_in_blocks_and_forgotten_give_the_gram_matrix_solution():
    # reference: smo_solve on the full Gram matrix of kmlib's Gaussian kernel; from the
    # kernel, SMO gets its rows in blocks (with the rows of the worst KKT violators) and,
    # with a cache of two blocks, forgets and recomputes them: the same support set and
    # dual objective; the kernel values differ by rounding, so the SMO paths part and the
    # coefficients agree to the stopping tolerance's effect, not to rounding (5e-6 here)
    X, y = xor(n=300)
    k = kernels.gaussian(0.7)
    ref = smo_solve(k(X), y, 2.0, 1e-6)
    for small in (False, True):
        rows = _Rows.of_kernel(k, X)
        if small:
            rows.max_rows = 2 * rows.block
        a, b, obj, _, conv = _smo(rows, y, 2.0, 1e-6, 100_000)
        assert conv and rows.block > 1 and len(rows.cache) <= rows.max_rows
        np.testing.assert_array_equal(np.flatnonzero(a), np.flatnonzero(ref.a))
        np.testing.assert_allclose(a, ref.a, atol=1e-4)
        assert abs(obj - ref.objective) <= 1e-9 * ref.objective
        assert abs(b - ref.b) <= 1e-6


@pytest.mark.parametrize("k", [kernels.gaussian(0.7), kernels.laplacian(1.3),
                               kernels.matern(1.5, 0.8), kernels.matern(2.2, 0.8),
                               kernels.squared_distance()])
def test_kernel_rows_prepared_once_are_the_gram_rows(k):
    # reference: the rows of the kernel's own Gram matrix k(X) (and, for the Gaussian
    # kernel, scikit-learn's rbf_kernel), on points far from the origin, where
    # |x|^2 + |y|^2 - 2 x.y cancels unless the points are centred first
    from sklearn.metrics.pairwise import rbf_kernel

    rng = np.random.default_rng(3)
    X = 1e3 + rng.normal(size=(60, 3))
    idx = np.array([0, 7, 59])
    R = k._rows_of(X)(idx)
    G = k(X)
    np.testing.assert_allclose(R, G[idx], rtol=1e-10, atol=1e-12 * np.max(np.abs(G)))
    np.testing.assert_array_equal(R[np.arange(3), idx], k.diag(X)[idx])  # own entry exact
    if repr(k).startswith("gaussian"):
        Z = X - 1e3   # (scikit-learn does not centre: its distances of X lose 1e-10)
        np.testing.assert_allclose(R, rbf_kernel(Z[idx], Z, gamma=1 / (2 * 0.7**2)),
                                   rtol=1e-10, atol=1e-15)


def test_kernel_rows_of_sparse_or_overflowing_inputs():
    # a sparse X, or one whose squared distances may overflow, takes the kernel's own
    # calls (rows from k(X[rows], X)); a squared distance beyond float64's range is then
    # a ValueError, as from k(X) itself
    import scipy.sparse

    X = np.random.default_rng(4).normal(size=(40, 3))
    k = kernels.gaussian(1.0)
    assert k._rows_of(scipy.sparse.csr_matrix(X)) is None
    assert k._rows_of(1e160 * X) is None and k._rows_of(1e150 * X) is not None
    rows = _Rows.of_kernel(k, scipy.sparse.csr_matrix(X))
    np.testing.assert_allclose(rows(5), k(X)[5], rtol=1e-12)
    with pytest.raises(ValueError, match="Gram matrix of .* is not finite.*overflow"):
        kernels.squared_distance()(1e160 * X)
    with pytest.raises(ValueError, match="not finite.*overflow"):
        _Rows.of_kernel(kernels.squared_distance(), 1e160 * X)(5)

"""Kernels, the median heuristic and the linear-time MMD at the extremes of the float range.

References trusted here: scikit-learn's ``rbf_kernel`` and ``Matern`` on data of order one;
the exactness of a multiplication by a power of two (the kernel of a length scale ``l``
depends on ``|x - y| / l`` only, so ``k_l(X, Y)`` and ``k_{l c}(X c, Y c)`` are the same
bits when ``c`` is a power of two and nothing leaves the normal range); Python's
``math.dist`` (which scales before it squares) with ``statistics.median``; the diagonal of
a Gram matrix; and a count of the kernel values computed.
"""
from __future__ import annotations

import itertools
import math
import statistics

import numpy as np
import pytest
import scipy.sparse
from sklearn.gaussian_process.kernels import Matern
from sklearn.metrics.pairwise import rbf_kernel

from kmlib import kernels as km
from kmlib import unsupervised as uns
from kmlib.krr import KernelRidge
from kmlib.svm import KernelSVM

RNG = np.random.default_rng(0)
X = RNG.standard_normal((40, 2))
Y = RNG.standard_normal((30, 2))


def _length_kernels(c=1.0):
    """Kernels of a length scale, for the inputs multiplied by the power of two ``c``."""
    return [km.gaussian(0.7 * c), km.laplacian(1.3 / c), km.matern(0.5, 0.9 * c),
            km.matern(1.5, 0.9 * c), km.matern(2.5, 0.9 * c), km.matern(3.3, 0.9 * c),
            km.matern(1500.0, 0.9 * c), 2.0 * km.gaussian(0.4 * c) + km.laplacian(2.0 / c),
            km.exponential(1.5 * c), km.exponential(1.5 * c).normalized()]


# --------------------------------------------------------------------------- #
# kernels of a length scale: tiny and huge lengths
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("e", [-1000, -530, -340, -101, 101, 340, 530, 1000])
def test_power_of_two_scaling_of_inputs_and_length_changes_no_bit(e):
    """2^-530 ~ 3e-160: the squared distances ~ 1e-320 underflowed before the division by
    the squared length (gaussian(1e-155)(X * 1e-155) was a matrix of 0 and 1)."""
    c = math.ldexp(1.0, e)
    Xc, Yc = X * c, Y * c
    for k, kc in zip(_length_kernels(), _length_kernels(c), strict=True):
        np.testing.assert_array_equal(kc(Xc), k(X), err_msg=repr(kc))
        np.testing.assert_array_equal(kc(Xc, Yc), k(X, Y), err_msg=repr(kc))
        np.testing.assert_array_equal(kc._paired(Xc[:30], Yc), k._paired(X[:30], Y))
        np.testing.assert_array_equal(kc.diag(Xc), k.diag(X))


@pytest.mark.parametrize("s", [1e-155, 1e-200, 1e-300, 1e154, 1e200, 1e300])
def test_gaussian_at_extreme_scales_matches_sklearn_at_scale_one(s):
    """Reference: scikit-learn's rbf_kernel on X and Y (gamma = 1 / (2 sigma^2)); the data
    scaled by s (not a power of two) and sigma = 0.7 s.  Dense and sparse X."""
    ref = rbf_kernel(X, Y, gamma=1.0 / (2 * 0.7**2))
    k = km.gaussian(0.7 * s)
    np.testing.assert_allclose(k(X * s, Y * s), ref, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(k(scipy.sparse.csr_matrix(X * s), Y * s), ref,
                               rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(k(X * s), rbf_kernel(X, gamma=1.0 / (2 * 0.7**2)),
                               rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("s", [1e-160, 1e-300, 1e200, 1e300])
def test_exponential_kernel_at_extreme_scales_matches_its_formula(s):
    """Reference: exp(x.y / sigma^2) by numpy on the unscaled data (x.y ~ 1e-320 underflowed
    before; 1e200 overflowed)."""
    ref = np.exp(X @ Y.T / 1.5**2)
    k = km.exponential(1.5 * s)
    np.testing.assert_allclose(k(X * s, Y * s), ref, rtol=1e-14)
    np.testing.assert_allclose(k.diag(X * s), np.exp(np.sum(X * X, axis=1) / 1.5**2), rtol=1e-14)


@pytest.mark.parametrize("nu", [0.5, 1.5, 2.5, 3.3])
@pytest.mark.parametrize("s", [1e-160, 1e-300, 1e200])
def test_matern_and_laplacian_at_extreme_scales_match_sklearn(nu, s):
    """Reference: scikit-learn's Matern on the unscaled data (the Laplacian kernel is the
    Matern kernel with nu = 1/2 and length 1 / gamma)."""
    ref = Matern(length_scale=0.9, nu=nu)(X, Y)
    np.testing.assert_allclose(km.matern(nu, 0.9 * s)(X * s, Y * s), ref, rtol=1e-12,
                               atol=1e-14)
    if nu == 0.5:
        np.testing.assert_allclose(km.laplacian(1.0 / (0.9 * s))(X * s, Y * s), ref,
                                   rtol=1e-12, atol=1e-14)


def test_extreme_lengths_on_data_of_order_one_stay_correct():
    """Closed form: exp(-|x - y|^2 / (2 sigma^2)) is 0 in floating point for distinct points
    when sigma = 1e-300 (exponent ~ -1e600), and 1 when sigma = 1e300; likewise the
    Laplacian and Matern kernels."""
    eye, ones = np.eye(len(X)), np.ones((len(X), len(X)))
    for k in (km.gaussian(1e-300), km.gaussian(5e-324), km.laplacian(1e300),
              km.matern(1.5, 1e-200), km.matern(2.2, 1e-200)):
        np.testing.assert_array_equal(k(X), eye, err_msg=repr(k))
    for k in (km.gaussian(1e300), km.gaussian(1.7e308), km.laplacian(1e-300),
              km.matern(1.5, 1e300), km.matern(2.2, 1e200)):
        np.testing.assert_array_equal(k(X), ones, err_msg=repr(k))


@pytest.mark.parametrize("nu", [0.7, 2.2, 3.3, 999.5, 1500.0])
def test_matern_far_beyond_its_length_scale_is_zero_not_an_error(nu):
    """Reference: k(r) <= C r^nu exp(-r) (a Bessel function's decay), 0 in floating point for
    r = 1e9 ... 1e150 and a length of 1; scikit-learn's Matern gives 0 at r = 1e9 for
    nu = 2.2.  (scipy's kve returns NaN beyond ~2e9, which was refused as an overflow.)"""
    for r in (1e9, 1e20, 1e150):
        assert km.matern(nu, 1.0)(np.array([[0.0], [r]]))[0, 1] == 0.0
    assert Matern(length_scale=1.0, nu=2.2)(np.array([[0.0], [1e9]]))[0, 1] == 0.0


def test_data_far_larger_than_the_length_is_refused_not_wrong():
    """Distances beyond 1e154 times the length overflow when squared: a ValueError, not a
    silent result."""
    with pytest.raises(ValueError, match="not finite"):
        km.gaussian(1.0)(X * 1e200)


def test_estimators_at_a_power_of_two_scale_give_the_same_bits():
    """Reference: exact scaling; SMO's kernel-row cache and KRR's Gram matrix both go
    through the rescaled evaluation (2^-600 ~ 2.4e-181)."""
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    c = math.ldexp(1.0, -600)
    a = KernelSVM(kernel=km.gaussian(0.8 * c), C=1.0).fit(X * c, y).decision_function(X * c)
    b = KernelSVM(kernel=km.gaussian(0.8), C=1.0).fit(X, y).decision_function(X)
    np.testing.assert_array_equal(a, b)
    a = KernelRidge(kernel=km.laplacian(1.25 / c), lam=0.1).fit(X * c, y).predict(X * c)
    b = KernelRidge(kernel=km.laplacian(1.25), lam=0.1).fit(X, y).predict(X)
    np.testing.assert_array_equal(a, b)


# --------------------------------------------------------------------------- #
# median heuristic
# --------------------------------------------------------------------------- #
def _median_distance(Z):
    """The median over pairs i < j of math.dist, which does not overflow or underflow."""
    return statistics.median(math.dist(a, b) for a, b in itertools.combinations(Z.tolist(), 2))


@pytest.mark.parametrize("s", [1e-300, 1e-170, 1e154, 1e200, 1e300])
def test_median_heuristic_is_right_at_any_scale(s):
    """|X| ~ 1e154: the squared distances overflowed and the width was inf."""
    got = uns.median_heuristic(X * s)
    assert got == pytest.approx(_median_distance(X * s), rel=1e-14)
    assert uns.median_heuristic(X * s, Y * s) == pytest.approx(
        _median_distance(np.vstack([X, Y]) * s), rel=1e-14)


def test_median_heuristic_commutes_with_powers_of_two():
    ref = uns.median_heuristic(X, Y)
    for e in (-1000, -520, 0, 520, 1000):
        c = math.ldexp(1.0, e)
        assert uns.median_heuristic(X * c, Y * c) == ref * c


# --------------------------------------------------------------------------- #
# mmd2_linear: the kernel values it computes
# --------------------------------------------------------------------------- #
def _inputs(kind, n, seed):
    rng = np.random.default_rng(seed)
    if kind == "unit":
        return rng.uniform(size=(n, 1)), rng.uniform(0.2, 1.0, size=(n, 1))
    if kind == "set":
        return (rng.integers(0, 2, size=(n, 5)).astype(float),
                rng.integers(0, 2, size=(n, 5)).astype(float))
    return rng.normal(size=(n, 2)), rng.normal(0.3, size=(n, 2))


PAIRED = [(km.sobolev1(), "unit"), (km.sobolev2(), "unit"), (km.sobolev2().normalized(), "unit"),
          (km.jaccard(), "set"), (km.intersection_power(1.5), "set"),
          (km.jaccard() * km.intersection_power(), "set"), (km.gaussian(1.0).normalized(), "vec"),
          (km.matern(3.3, 1.0).normalized() + km.linear(), "vec")]


def _kernel_classes(k):
    """The classes of ``k`` and of the kernels it is made of."""
    parts = [v for v in vars(k).values() if isinstance(v, km.Kernel)]
    return {type(k)}.union(*(_kernel_classes(p) for p in parts))


@pytest.mark.parametrize("k,kind", PAIRED, ids=lambda v: v if isinstance(v, str) else repr(v))
def test_mmd2_linear_computes_four_kernel_values_per_term(k, kind, monkeypatch):
    """Reference: a loop over the 500 terms with the kernel on single pairs of points, and a
    count of the Gram-matrix entries computed (0: the paired rows only; before, about 63
    times the 2,000 values used for these kernels)."""
    X1, Y1 = _inputs(kind, 1000, 1)
    counted = []
    for cls in _kernel_classes(k):
        def counting(self, A, B, gram=cls._gram):
            counted.append(A.shape[0] * B.shape[0])
            return gram(self, A, B)
        monkeypatch.setattr(cls, "_gram", counting)
    got = uns.mmd2_linear(X1, Y1, kernel=k)
    assert sum(counted) == 0
    monkeypatch.undo()

    def kv(a, b):
        return k(a[None], b[None])[0, 0]
    ref = np.mean([kv(X1[2 * i], X1[2 * i + 1]) + kv(Y1[2 * i], Y1[2 * i + 1])
                   - kv(X1[2 * i], Y1[2 * i + 1]) - kv(X1[2 * i + 1], Y1[2 * i])
                   for i in range(500)])
    assert got == pytest.approx(ref, rel=1e-12, abs=1e-14)


def test_mmd2_linear_at_a_tiny_scale_is_the_statistic_at_scale_one():
    """Reference: exact scaling by 2^-540 ~ 2.8e-163 (inputs and sigma)."""
    c = math.ldexp(1.0, -540)
    X1, Y1 = _inputs("vec", 1000, 3)
    assert (uns.mmd2_linear(X1 * c, Y1 * c, kernel=km.gaussian(0.7 * c))
            == uns.mmd2_linear(X1, Y1, kernel=km.gaussian(0.7)))


def test_mmd2_linear_calls_another_callable_as_its_docstring_says():
    """The documented blocks: kernel(A, B) per block of b <= 64 pairs, A and B of 2b rows,
    (2b)^2 values of which 4b are used; the statistic equals the loop over the pairs."""
    X1, Y1 = _inputs("vec", 1001, 2)
    calls = []

    def kernel(A, B):
        calls.append((len(A), len(B)))
        return rbf_kernel(A, B, gamma=0.5)

    got = uns.mmd2_linear(X1, Y1, kernel=kernel)
    assert all(a == b and a % 2 == 0 and a <= 128 for a, b in calls)
    assert sum(a // 2 for a, _ in calls) == 500          # every pair, in one block only
    values = sum(a * b for a, b in calls)
    assert 2000 < values <= 64 * 2000                    # b <= 64 times the 2000 used
    first = []                                           # the rows of the first block
    uns.mmd2_linear(X1, Y1, kernel=lambda A, B: first.append((A, B)) or rbf_kernel(A, B))
    (A, B), b = first[0], len(first[0][0]) // 2
    np.testing.assert_array_equal(A, np.vstack([X1[0:2 * b:2], Y1[0:2 * b:2]]))
    np.testing.assert_array_equal(B, np.vstack([X1[1:2 * b:2], Y1[1:2 * b:2]]))

    def kv(a, b):
        return math.exp(-0.5 * math.dist(a, b) ** 2)
    ref = np.mean([kv(X1[2 * i], X1[2 * i + 1]) + kv(Y1[2 * i], Y1[2 * i + 1])
                   - kv(X1[2 * i], Y1[2 * i + 1]) - kv(X1[2 * i + 1], Y1[2 * i])
                   for i in range(500)])
    assert got == pytest.approx(ref, rel=1e-12, abs=1e-14)


# --------------------------------------------------------------------------- #
# float32: the message names what the user called
# --------------------------------------------------------------------------- #
def test_float32_overflow_message_names_the_kernel_or_the_estimator():
    X32 = np.full((2, 2), 1e20, dtype=np.float32)
    with pytest.raises(ValueError, match=r"^linear\(\): the result exceeds the range of float32"):
        km.linear()(X32)
    with pytest.raises(ValueError, match=r"^\(2\.0 \* linear\(\)\)\.diag: the result exceeds"):
        (2.0 * km.linear()).diag(X32)
    Z = (np.random.default_rng(0).standard_normal((20, 3)) * 1e15).astype(np.float32)
    with pytest.raises(ValueError, match=r"^KernelPCA\.transform: the result exceeds"):
        uns.KernelPCA(2, kernel=km.polynomial(3, 0.0)).fit(Z).transform(Z)

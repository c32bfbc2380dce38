"""Declarative parameter constraints: one check at the start of ``fit``, clear messages.

References: the constraints each estimator documents (its docstring's Parameters), and
the values scikit-learn's own constraints accept for the same parameters
(``KernelRidge.alpha >= 0``, ``SVC.C > 0``, ``Nystroem.n_components >= 1``, ...).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.base import clone

from kmlib import kernels
from kmlib._validation.params import (
    Integral,
    Interval,
    Options,
    Real,
    check_constraints,
    validate_args,
)
from kmlib.features import Nystroem, RandomFourierFeatures
from kmlib.krr import KernelRidge
from kmlib.logistic import KernelLogisticRegression
from kmlib.model_selection import holdout_split
from kmlib.ridge import RidgeRegression
from kmlib.svm import KernelSVM
from kmlib.unsupervised import KernelPCA

K = kernels.gaussian(1.0)
X = np.random.default_rng(0).normal(size=(20, 3))
y = np.where(X[:, 0] > 0, 1, -1)

#: estimator, a bad value of one parameter, the words the message must contain
BAD = [
    (KernelRidge(kernel=K), "lam", -1.0, "KernelRidge: lam must be >= 0; got -1.0"),
    (KernelRidge(kernel=K), "kernel", "rbf", "kernel must be a callable k(X, Y)"),
    (KernelSVM(kernel=K), "C", 0.0, "KernelSVM: C must be > 0 (or inf); got 0.0"),
    (KernelSVM(kernel=K), "max_iter", 2.5, "max_iter must be an integer; got 2.5"),
    (KernelLogisticRegression(kernel=K), "lam", 0.0,
     "lam must be > 0; got 0.0 (without a penalty the minimiser need not exist"),
    (KernelLogisticRegression(kernel=K), "tol", math.nan, "tol must be finite; got nan"),
    (Nystroem(kernel=K), "n_components", 0, "n_components must be >= 1; got 0"),
    (Nystroem(kernel=K), "random_state", "seed",
     "random_state must be None, an int, a numpy Generator or a RandomState"),
    (RandomFourierFeatures(), "variant", "cos", "variant must be one of 'cos_sin', "
     "'cos_phase'; got 'cos'"),
    (RandomFourierFeatures(), "sigma", -2.0, "sigma must be > 0 or None; got -2.0"),
    (KernelPCA(kernel=K), "fit_inverse_transform", 1, "must be True or False"),
    (RidgeRegression(), "lam", math.inf, "lam must be finite; got inf"),
]


@pytest.mark.parametrize("est, name, value, words", BAD,
                         ids=[f"{type(b[0]).__name__}-{b[1]}" for b in BAD])
def test_a_bad_hyper_parameter_is_reported_by_fit_with_what_to_pass(est, name, value, words):
    est = clone(est).set_params(**{name: value})   # accepted by the constructor, as sklearn
    with pytest.raises(ValueError) as err:
        est.fit(X, y)
    assert words in str(err.value)


def test_every_estimator_declares_every_parameter_and_its_defaults_pass():
    """The constraints cover the constructor's parameters exactly (scikit-learn's rule in
    ``check_param_validation``), and the defaults satisfy them."""
    from test_check_estimator import ESTIMATORS, REQUIRED
    for name, cls in ESTIMATORS.items():
        est = cls(**REQUIRED.get(name, {}))
        params = est.get_params(deep=False)
        assert set(cls._parameter_constraints) == set(params), name
        for p, allowed in cls._parameter_constraints.items():
            check_constraints(p, params[p], allowed)


@pytest.mark.parametrize("constraint, good, bad", [
    (Interval(Real, 0, 1, closed="neither"), [0.5, np.float32(0.1)], [0, 1, -1, "a", None]),
    (Interval(Real, 0, math.inf, closed="right"), [1.0, math.inf], [0.0, -math.inf, math.nan]),
    (Interval(Integral, 2, None, closed="left"), [2, np.int64(9)], [1, 2.0, True]),
    (Options("a", "b"), ["a", "b"], ["c", 1, None]),
])
def test_intervals_and_options_accept_exactly_their_values(constraint, good, bad):
    for v in good:
        check_constraints("x", v, [constraint])
    for v in bad:
        with pytest.raises(ValueError, match="x must "):
            check_constraints("x", v, [constraint])


def test_an_int_beyond_float64_is_refused_with_a_value_error():
    """A Python int too large for a float (10**400) is not finite as a real parameter and
    is refused by the rule, not by an OverflowError from float conversion; as an integer
    parameter it is an integer like any other."""
    for make in (lambda v: kernels.gaussian(v),
                 lambda v: KernelRidge(kernel=K, lam=v).fit(X, y)):
        for v in (10**400, -10**400):
            with pytest.raises(ValueError, match="must be finite; got -?1000"):
                make(v)
    assert Interval(Integral, 2, None)(10**400)
    assert not Interval(Integral, None, 0)(10**400)


def test_validate_args_checks_named_arguments_before_the_call():
    calls = []

    @validate_args({"n": [Interval(Integral, 1, None, closed="left")]})
    def f(a, n=1):
        calls.append(n)
        return a

    assert f(0, n=3) == 0 and f(0, 2) == 0
    with pytest.raises(ValueError, match="n must be >= 1; got 0"):
        f(0, 0)
    assert calls == [3, 2]


def test_a_failed_allocation_stays_a_memory_error():
    """Python's convention; holdout_split used to turn it into a ValueError."""
    with pytest.raises(MemoryError):
        holdout_split(10**12, 0.3, random_state=0)

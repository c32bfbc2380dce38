"""Bad input on the companion modules of the ridge, CV and rates chapters.

The same contract as ``test_fuzz.py`` (harness ``tests/_fuzz.py``): an entry point called
with valid arguments except one, replaced by a malformed value, must within a time limit
raise ``ValueError`` or ``TypeError`` (kmlib's clear errors) or return a result whose every
number is finite; a complex array must always be refused.

Covered: every public function of :mod:`kmlib.rates` and :mod:`kmlib.ridge_extras`, and the
public functions and classes of :mod:`kmlib.datasets` and :mod:`kmlib.theory` that
``test_fuzz.py`` does not already cover (plus the arguments ``beta`` and ``rho`` of
``datasets.linear_model``, which its template leaves at their defaults).

Left out, with the reason:

* ``datasets.diabetes`` -- takes no argument, so there is nothing to malform.
* ``theory.MSPEBound`` -- a named tuple (the result type of ``krr_mspe_bound``), not a
  computation.
* ``rates.SMOOTHNESS_KERNELS``, ``rates.TARGETS`` -- dicts of constants, not functions (their
  entries are exercised through ``smoothness_experiment`` and ``datasets.sine_target`` /
  ``datasets.square_wave_target``).
"""
from __future__ import annotations

import _fuzz
import numpy as np
import pytest

from kmlib import datasets, kernels, rates, ridge_extras, theory

RNG = np.random.default_rng(0)
X = RNG.standard_normal((10, 2))
Y = X[:, 0] - 0.5 * X[:, 1] + 0.1 * RNG.standard_normal(10)
LAMS = np.array([0.1, 1.0])
BETA = np.array([1.0, -0.5])
S = ridge_extras.ridge_smoothers(X, LAMS)                        # (2, 10, 10)
XS = np.linspace(0.1, 1.0, 10)                                   # sorted design in (0, 1]
F0 = np.sin(3 * XS)
KMIN = np.minimum.outer(XS, XS)                                  # Gram matrix of min(x, x')
VALUES = np.array([[0.30, 0.32, 0.28], [0.20, 0.21, 0.19], [0.12, 0.13, 0.11]])
MU_HAT = np.linalg.eigvalsh(KMIN)[::-1] / 10
X1 = np.linspace(0.0, 1.0, 10)                                   # 1-D inputs in [0, 1]


def _identity(x):
    return x


def _series(coef, x):
    f = datasets.SobolevSeries(coef)
    return f(x), f.derivative(x), f.rkhs_norm


def _ball(n_terms, radius, seed, decay, x):
    f = datasets.sobolev_ball_function(n_terms, radius, seed, decay=decay)
    return f(x), f.rkhs_norm


# name -> (function, valid keyword arguments); each call is fn(**kwargs)
ENTRY_POINTS = {
    # kmlib.rates
    "rates.brownian_precision": (rates.brownian_precision, dict(x=XS)),
    "rates.sobolev_mspe": (rates.sobolev_mspe, dict(x=XS, f0=F0, sigma2=1.0, lam=LAMS)),
    "rates.mspe_monte_carlo": (rates.mspe_monte_carlo,
                               dict(K=KMIN, f0=F0, sigma=1.0, lams=LAMS, n_reps=3, seed=0)),
    "rates.rate_lambda": (rates.rate_lambda, dict(n=np.array([10.0, 20.0]), sigma2=1.0)),
    "rates.rate_study": (rates.rate_study, dict(f0s=[_identity], ns=np.array([4, 6]), sigma=1.0,
                                                n_reps=2, seed=0)),
    "rates.loglog_slope_se": (rates.loglog_slope_se,
                              dict(ns=np.array([10.0, 20.0, 40.0]), values=VALUES)),
    "rates.power_min_sum": (rates.power_min_sum,
                            dict(gamma=np.array([0.01, 0.1]), c=1.0, p=2.0, shift=0.5)),
    "rates.sobolev_sum_bound": (rates.sobolev_sum_bound, dict(gamma=np.array([0.01, 0.1]))),
    "rates.design_min_sums": (rates.design_min_sums,
                              dict(n=5, gammas=np.array([0.01, 0.1]), n_designs=2, seed=0,
                                   kernel=kernels.sobolev1())),
    "rates.grid_min_eigenvalues": (rates.grid_min_eigenvalues, dict(n=5)),
    "rates.cv_table": (rates.cv_table, dict(X=X1, y=np.sin(4 * X1), kernel_factory=kernels.gaussian,
                                            ells=np.array([0.3]), lams=LAMS, folds=2)),
    "rates.smoothness_experiment": (rates.smoothness_experiment,
                                    dict(seed=0, n=6, noise=0.1, ells=np.array([0.3]),
                                         lams=np.array([0.1]), folds=2, n_test=5,
                                         kernel_factories={"gaussian": kernels.gaussian})),
    "rates.smoothness_repeat": (
        lambda seeds, n, folds: rates.smoothness_repeat(
            seeds, n=n, noise=0.1, ells=np.array([0.3]), lams=np.array([0.1]), folds=folds,
            n_test=5, kernel_factories={"gaussian": kernels.gaussian}),
        dict(seeds=np.array([0]), n=6, folds=2)),
    # kmlib.ridge_extras
    "ridge_extras.mse_order_crossing": (ridge_extras.mse_order_crossing,
                                        dict(X=X, beta0=BETA, sigma2=1.0, xtol=1e-6,
                                             max_factor=1e6)),
    "ridge_extras.polynomial_design": (ridge_extras.polynomial_design, dict(x=X1, degree=3)),
    "ridge_extras.ridge_smoothers": (ridge_extras.ridge_smoothers,
                                     dict(X=X, lams=LAMS, X_new=X[:3])),
    "ridge_extras.bias_variance": (ridge_extras.bias_variance,
                                   dict(S=S, f_train=Y, f_new=Y, sigma2=1.0)),
    "ridge_extras.simulate_bias_variance": (ridge_extras.simulate_bias_variance,
                                            dict(S=S, f_train=Y, f_new=Y, sigma2=1.0,
                                                 n_train_sets=3, seed=0)),
    "ridge_extras.screened_ridge_cv": (ridge_extras.screened_ridge_cv,
                                       dict(X=X, y=Y, n_keep=1, lam=1.0, folds=2,
                                            screen_inside=True, seed=0)),
    "ridge_extras.nested_cv": (ridge_extras.nested_cv,
                               dict(X=X, y=Y, lams=LAMS, outer=2, inner=2, seed=0)),
    # kmlib.datasets (the rest is in test_fuzz.py)
    "datasets.linear_model beta rho": (
        lambda beta, rho: datasets.linear_model(5, 2, beta=beta, rho=rho, seed=0),
        dict(beta=BETA, rho=0.5)),
    "datasets.sine_target": (datasets.sine_target, dict(x=X1)),
    "datasets.square_wave_target": (datasets.square_wave_target, dict(x=X1)),
    "datasets.SobolevSeries": (_series, dict(coef=np.array([1.0, -0.5, 0.25]), x=X1)),
    "datasets.sobolev_ball_function": (_ball, dict(n_terms=3, radius=1.0, seed=0, decay=1.0,
                                                   x=X1)),
    # kmlib.theory (the rest is in test_fuzz.py)
    "theory.delta_n": (theory.delta_n, dict(mu_hat=MU_HAT, sigma2=1.0,
                                            gamma=np.array([0.01, 0.1]), f_norm2=1.0, n=10)),
}


# No entry point here documents +inf as an answer.
DOCUMENTED_INF: set[str] = set()


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_valid_call_runs(name):
    """The templates are valid: every entry point returns finite values on them."""
    fn, kwargs = ENTRY_POINTS[name]
    assert _fuzz.check_contract(name, fn, kwargs, allow_inf=name in DOCUMENTED_INF) == "ok"


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_every_bad_value_of_every_argument(name):
    """Every bad value of every argument, one at a time."""
    fn, valid = ENTRY_POINTS[name]
    failures = _fuzz.sweep(name, fn, valid, allow_inf=name in DOCUMENTED_INF)
    assert not failures, "\n".join(failures)

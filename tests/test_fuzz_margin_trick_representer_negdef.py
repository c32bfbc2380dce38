"""Bad input on the companion modules of chapters 3, 6, 8 and 10: a clear error or a finite result.

Every public function and estimator of :mod:`kmlib.margin`, :mod:`kmlib.kernel_trick`,
:mod:`kmlib.representer` and :mod:`kmlib.negdef` is called with valid arguments except
one, replaced in turn by every malformed value of its kind (``_fuzz.bad_values``).  The
call must, within a time limit, raise ``ValueError`` or ``TypeError``, or return a
result whose every number is finite; a complex array must always be refused.

Left out (nothing to call with bad input):

* ``margin.MarginBounds``, ``margin.BoundExperiment`` and ``representer.ExpansionFit`` --
  result containers (named tuples), built only by the functions covered here;
* ``kernel_trick.FILTERS`` -- a constant, the tuple of filter names.
"""
from __future__ import annotations

import _fuzz
import numpy as np
import pytest

from kmlib import kernel_trick as kt
from kmlib import kernels, margin, negdef, svm
from kmlib import representer as rep

RNG = np.random.default_rng(0)
X = RNG.standard_normal((10, 2))
Y = X[:, 0] - 0.5 * X[:, 1] + 0.1 * RNG.standard_normal(10)
LABELS = np.where(X[:, 0] > 0, 1.0, -1.0)          # separable through the origin
K = kernels.gaussian(1.0)(X)
A_DUAL = margin.svm_dual_qp(K, LABELS, 1.0)        # has free dual variables
F_DUAL = K @ (A_DUAL * LABELS) + margin.svm_intercept(K, LABELS, A_DUAL, 1.0)
YF = LABELS * F_DUAL
X_TEST = RNG.standard_normal((4, 2))
Y_TEST = X_TEST[:, 0] - 0.5 * X_TEST[:, 1]
PHI = RNG.standard_normal((10, 3))
PHI_TEST = RNG.standard_normal((4, 3))
LAMS = np.array([0.1, 1.0])
X01 = np.linspace(0.05, 0.95, 10)                   # inputs in [0, 1] for the splines
Y01 = np.sin(2 * np.pi * X01) + 0.1 * RNG.standard_normal(10)
T01 = np.array([0.1, 0.5, 0.9])
SVM_MODEL = svm.KernelSVM(kernels.gaussian(1.0), C=1.0).fit(X, LABELS)
R_LINE = negdef.power_distance_gram(X01, a=1.0)     # |x_i - x_j|, NDS with zero diagonal


def _fit_predict(est, Xfit, yfit, Xnew=None):
    est.fit(Xfit, yfit)
    return est.predict(Xfit if Xnew is None else Xnew)


# name -> (function, valid keyword arguments); each call is fn(**kwargs)
ENTRY_POINTS = {
    # --- kmlib.margin (chapter 8) ---
    "margin.hinge_loss": (margin.hinge_loss, dict(z=YF)),
    "margin.logistic_loss": (margin.logistic_loss, dict(z=YF)),
    "margin.loss_crossing": (margin.loss_crossing, dict()),
    "margin.ramp_margin_loss": (margin.ramp_margin_loss, dict(yf=YF, rho=1.0)),
    "margin.hard_margin": (margin.hard_margin, dict(X=X, y=LABELS, tol=1e-12)),
    "margin.soft_margin": (margin.soft_margin, dict(X=X, y=LABELS, lam=1.0, tol=1e-12)),
    "margin.geometric_margin": (margin.geometric_margin,
                                dict(X=X, y=LABELS, beta=np.array([1.0, 0.0]))),
    "margin.poly2_features": (margin.poly2_features, dict(X=X, c=1.0)),
    "margin.penalized_logistic": (margin.penalized_logistic,
                                  dict(Phi=X, y=LABELS, lam=1.0, tol=1e-8, max_iter=100)),
    "margin.svm_dual_qp": (margin.svm_dual_qp, dict(K=K, y=LABELS, C=1.0, tol=1e-10,
                                                    max_iter=200)),
    "margin.dual_objective": (margin.dual_objective, dict(K=K, y=LABELS, a=A_DUAL)),
    "margin.svm_intercept": (margin.svm_intercept, dict(K=K, y=LABELS, a=A_DUAL, C=1.0,
                                                        rel_tol=1e-6)),
    "margin.kkt_residuals": (margin.kkt_residuals, dict(yf=YF, a=A_DUAL, C=1.0, rel_tol=1e-6)),
    "margin.rademacher_ball": (margin.rademacher_ball, dict(K=K, Lambda=1.0, n_draws=50,
                                                            seed=0)),
    "margin.margin_bounds": (margin.margin_bounds, dict(margin_loss=0.1, m=100, Lambda=2.0,
                                                        r2=2.0, rho=1.0, delta=0.05,
                                                        trace_K=150.0)),
    "margin.smo_cost": (margin.smo_cost, dict(ns=np.array([10]), sigma=1.0, C=1.0, noise=0.2,
                                              tol=1e-3, repeats=1, seed=0)),
    "margin.margin_bound_experiment": (margin.margin_bound_experiment,
                                       dict(ms=np.array([10]), sigma=1.0, gamma=0.1,
                                            Lambda=5.0, rho=1.0, delta=0.05, noise=0.2,
                                            n_test=20, seed=0)),
    "margin.decision_grid": (margin.decision_grid, dict(model=SVM_MODEL, X=X, n_grid=4,
                                                        pad=0.4)),
    # --- kmlib.kernel_trick (chapter 3) ---
    "kernel_trick.primal_ridge": (kt.primal_ridge, dict(Phi=PHI, y=Y, lam=1.0)),
    "kernel_trick.dual_ridge": (kt.dual_ridge, dict(Phi=PHI, y=Y, lam=1.0, return_alpha=True)),
    "kernel_trick.time_primal_dual": (kt.time_primal_dual, dict(n=10, Ds=np.array([2, 3]),
                                                                lam=1.0, repeats=1, seed=0)),
    "kernel_trick.n_monomials": (kt.n_monomials, dict(d=3, p=2)),
    "kernel_trick.monomial_exponents": (kt.monomial_exponents, dict(d=3, p=2)),
    "kernel_trick.polynomial_features": (kt.polynomial_features, dict(X=X, degree=2, c=1.0)),
    "kernel_trick.quadratic_features": (kt.quadratic_features, dict(X=X, linear_weight=1.0)),
    "kernel_trick.gaussian_features_1d": (kt.gaussian_features_1d,
                                          dict(x=X01, sigma=1.0, n_terms=5)),
    "kernel_trick.gaussian_tail_bound": (kt.gaussian_tail_bound,
                                         dict(r=2.0, sigma=1.0, n_terms=np.array([1, 5, 10]))),
    "kernel_trick.pinv_svd": (kt.pinv_svd, dict(A=PHI, rtol=1e-10)),
    "kernel_trick.penrose_residuals": (kt.penrose_residuals,
                                       dict(A=PHI, B=np.linalg.pinv(PHI))),
    "kernel_trick.filter_factors": (kt.filter_factors, dict(s=np.array([3.0, 1.0, 0.1]),
                                                            lam=0.5, kind="ridge")),
    "kernel_trick.spectral_fit": (kt.spectral_fit, dict(Phi=PHI, y=Y, lam=0.5, kind="cutoff")),
    "kernel_trick.spectral_path_errors": (kt.spectral_path_errors,
                                          dict(Phi=PHI, y=Y, Phi_test=PHI_TEST,
                                               y_test=Y_TEST[:4], lams=LAMS, kind="ridge")),
    # --- kmlib.representer (chapter 6) ---
    "representer.polynomial_features": (rep.polynomial_features, dict(X=X, degree=2, c=1.0)),
    "representer.whitened_features": (rep.whitened_features, dict(G=K, rtol=1e-10)),
    "representer.smoothed_abs_loss": (rep.smoothed_abs_loss, dict(r=Y, eps=0.1)),
    "representer.fit_expansion": (lambda **kw: tuple(rep.fit_expansion(**kw)),
                                  dict(kernel=kernels.gaussian(1.0), X=X, y=Y, lam=1.0,
                                       extra_centres=X_TEST, eps=0.1, seed=0, tol=1e-8,
                                       max_iter=50)),
    "representer.interpolation_gaps": (rep.interpolation_gaps,
                                       dict(K=K, K_test=kernels.gaussian(1.0)(X_TEST, X), y=Y,
                                            lams=LAMS)),
    "representer.SplineKernelRidge": (lambda order, lam, X, y, X_new: _fit_predict(
        rep.SplineKernelRidge(order=order, lam=lam), X, y, X_new),
        dict(order=2, lam=1e-3, X=X01, y=Y01, X_new=T01)),
    "representer.linear_smoothing_spline": (rep.linear_smoothing_spline,
                                            dict(x=X01, y=Y01, lam=1e-3)),
    "representer.gaussian_linear_posterior": (rep.gaussian_linear_posterior,
                                              dict(Phi=PHI, y=Y, noise_var=0.25, prior_var=2.0)),
    "representer.gp_posterior": (rep.gp_posterior,
                                 dict(kernel=kernels.gaussian(0.3), X=X01, y=Y01, X_test=T01,
                                      noise_var=0.01, n_samples=3, seed=0)),
    # --- kmlib.negdef (chapter 10) ---
    "negdef.power_distance_gram": (negdef.power_distance_gram, dict(X=X, Y=X_TEST, a=1.0)),
    "negdef.anchored_gram": (negdef.anchored_gram, dict(K=R_LINE, anchor=0, drop_anchor=True)),
    "negdef.sum_zero_basis": (negdef.sum_zero_basis, dict(n=5)),
    "negdef.sum_zero_top_eigenvalue": (negdef.sum_zero_top_eigenvalue, dict(K=R_LINE)),
    "negdef.exp_min_eigenvalues": (negdef.exp_min_eigenvalues,
                                   dict(K=R_LINE, ts=np.array([0.1, 1.0]))),
    "negdef.anchored_min_eigenvalues": (negdef.anchored_min_eigenvalues,
                                        dict(X=X01, exponents=np.array([1.0, 2.5]), anchor=0)),
    "negdef.metric_embedding": (negdef.metric_embedding, dict(K=R_LINE, anchor=0, tol=1e-10)),
    "negdef.power_integral": (negdef.power_integral, dict(r=2.0, a=1.0)),
    "negdef.kms_min_eigenvalue": (negdef.kms_min_eigenvalue, dict(n=5, rho=0.5)),
}


# Public names left out (see the module docstring): result containers and a constant.
LEFT_OUT = {"margin.MarginBounds", "margin.BoundExperiment", "representer.ExpansionFit",
            "kernel_trick.FILTERS"}
MODULES = {"margin": margin, "kernel_trick": kt, "representer": rep, "negdef": negdef}


def check_contract(name, kwargs, complex_arg=None):
    return _fuzz.check_contract(name, ENTRY_POINTS[name][0], kwargs, complex_arg=complex_arg)


def test_every_public_name_is_covered():
    """Each name of the four modules' ``__all__`` is swept or left out with a reason."""
    public = {f"{prefix}.{n}" for prefix, mod in MODULES.items() for n in mod.__all__}
    assert public == set(ENTRY_POINTS) | LEFT_OUT


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_valid_call_runs(name):
    """The templates are valid: every entry point returns finite values on them."""
    fn, kwargs = ENTRY_POINTS[name]
    assert check_contract(name, kwargs) == "ok"


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_every_bad_value_of_every_argument(name):
    """Every bad value of every argument: ValueError/TypeError or a finite result, in time."""
    fn, valid = ENTRY_POINTS[name]
    failures = _fuzz.sweep(name, fn, valid)
    assert not failures, "\n".join(failures)

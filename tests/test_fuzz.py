"""Bad input on every public entry point: a clear error, never garbage, never a hang.

An entry point of the library (kmlib outside ``kmlib.book``) is called with valid
arguments except one, replaced by a value from each of the classes of malformed input
below.  The
call must, within a time limit, either raise ``ValueError`` or ``TypeError`` (the clear
errors of :mod:`kmlib._validation`), or return a result whose every number is finite.
The reference is the contract itself: no other exception, no inf or NaN returned
silently, no call that runs for ever.

Classes of bad input: values of size 1e200-1e300 and 1e-300, complex values, strings,
NaN and inf, empty or mis-shaped arrays, negated (indefinite) Gram matrices, None, and
extreme hyper-parameters.
"""
from __future__ import annotations

import _fuzz
import numpy as np
import pytest

from kmlib import datasets, features, kernels, krr, logistic, ridge, svm
from kmlib import model_selection as ms

RNG = np.random.default_rng(0)
X = RNG.standard_normal((10, 2))
Y = X[:, 0] - 0.5 * X[:, 1] + 0.1 * RNG.standard_normal(10)
LABELS = np.where(X[:, 0] + 0.3 * RNG.standard_normal(10) > 0, 1.0, -1.0)
LABELS[:2] = [-1.0, 1.0]
K = kernels.gaussian(1.0)(X)
LAMS = np.array([0.1, 1.0])
BETA = np.array([1.0, -0.5])
XB = RNG.standard_normal((3, 10, 2))
YB = XB[..., 0] + 0.1 * RNG.standard_normal((3, 10))


def _fit_predict(est, Xfit, yfit, Xnew=None):
    est.fit(Xfit, yfit)
    return est.predict(Xfit if Xnew is None else Xnew)


def _fit_transform(est, Xfit, Xnew=None):
    est.fit(Xfit)
    return est.transform(Xfit if Xnew is None else Xnew)


def _kernel_gram(factory, param, Xin):
    return factory(param)(Xin)


# name -> (function, valid keyword arguments); each call is fn(**kwargs)
ENTRY_POINTS = {
    "ridge.ols": (ridge.ols, dict(X=X, y=Y)),
    "ridge.ridge": (ridge.ridge, dict(X=X, y=Y, lam=1.0)),
    "ridge.ridge_path": (ridge.ridge_path, dict(X=X, y=Y, lams=LAMS)),
    "ridge.fitted_values_path": (ridge.fitted_values_path, dict(X=X, y=Y, lams=LAMS)),
    "ridge.ridge_augmented": (ridge.ridge_augmented, dict(X=X, y=Y, lam=1.0)),
    "ridge.shrinkage_factors": (ridge.shrinkage_factors, dict(d=np.array([3.0, 1.0]), lam=1.0)),
    "ridge.effective_df": (ridge.effective_df, dict(X=X, lam=1.0)),
    "ridge.principal_components": (ridge.principal_components, dict(X=X)),
    "ridge.standardize": (ridge.standardize, dict(X=X)),
    "RidgeRegression": (lambda lam, X, y: _fit_predict(ridge.RidgeRegression(lam=lam), X, y),
                        dict(lam=1.0, X=X, y=Y)),
    "ms.cross_val_curve": (ms.cross_val_curve, dict(X=X, y=Y, lams=LAMS, folds=3)),
    "ms.fold_errors": (ms.fold_errors, dict(X=X, y=Y, lams=LAMS, folds=3)),
    "ms.oof_predictions": (ms.oof_predictions, dict(X=X, y=Y, lams=LAMS, folds=3)),
    "ms.loo_ridge": (ms.loo_ridge, dict(X=X, y=Y, lams=LAMS)),
    "ms.gcv_ridge": (ms.gcv_ridge, dict(X=X, y=Y, lams=LAMS)),
    "ms.ridge_fit_path": (ms.ridge_fit_path, dict(X=X, y=Y, lams=LAMS)),
    "ms.stack": (ms.stack, dict(P=np.column_stack([Y, 0.5 * Y]), y=Y)),
    "ms.ridge_path_batch": (ms.ridge_path_batch, dict(X=XB, y=YB, lams=LAMS)),
    "ms.krr_path": (ms.krr_path, dict(K=K, y=Y, lams=LAMS)),
    "ms.krr_cv_path": (ms.krr_cv_path, dict(K=K, y=Y, lams=LAMS, folds=3)),
    "ms.krr_loo": (ms.krr_loo, dict(K=K, y=Y, lams=LAMS)),
    "ms.tune_krr": (lambda X, y, param, lams: ms.tune_krr(X, y, kernels.gaussian, [param], lams,
                                                          folds=3)[1].cv,
                    dict(X=X, y=Y, param=1.0, lams=LAMS)),
    "krr.krr_fit": (krr.krr_fit, dict(K=K, y=Y, lam=1.0)),
    "KernelRidge": (lambda lam, sigma, X, y: _fit_predict(
        krr.KernelRidge(kernel=kernels.gaussian(sigma), lam=lam), X, y),
        dict(lam=1.0, sigma=1.0, X=X, y=Y)),
    "svm.smo_solve": (svm.smo_solve, dict(K=K, y=LABELS, C=1.0)),
    "svm.C_from_lam": (svm.C_from_lam, dict(lam=1.0)),
    "KernelSVM": (lambda C, X, y: _fit_predict(svm.KernelSVM(kernel=kernels.gaussian(1.0), C=C),
                                               X, y),
                  dict(C=1.0, X=X, y=LABELS)),
    "KernelSVM precomputed": (lambda K, y: _fit_predict(svm.KernelSVM(kernel="precomputed"), K, y),
                              dict(K=K, y=LABELS)),
    "logistic.logistic_objective": (logistic.logistic_objective,
                                    dict(K=K, y=LABELS, alpha=np.zeros(10), mu=0.0, lam=1.0)),
    "KernelLogisticRegression": (lambda lam, X, y: _fit_predict(
        logistic.KernelLogisticRegression(kernel=kernels.gaussian(1.0), lam=lam), X, y),
        dict(lam=1.0, X=X, y=LABELS)),
    "KLR precomputed": (lambda K, y: _fit_predict(
        logistic.KernelLogisticRegression(kernel="precomputed"), K, y), dict(K=K, y=LABELS)),
    # sample weights of the estimators that take them (issue 23)
    "RidgeRegression sample_weight": (lambda w: ridge.RidgeRegression().fit(
        X, Y, sample_weight=w).predict(X), dict(w=np.linspace(0.5, 2.0, 10))),
    "KernelRidge sample_weight": (lambda w: krr.KernelRidge(kernel=kernels.gaussian(1.0)).fit(
        X, Y, sample_weight=w).predict(X), dict(w=np.linspace(0.5, 2.0, 10))),
    "KernelSVM sample_weight": (lambda w: svm.KernelSVM(kernel=kernels.gaussian(1.0)).fit(
        X, LABELS, sample_weight=w).decision_function(X), dict(w=np.linspace(0.5, 2.0, 10))),
    "KLR sample_weight": (lambda w: logistic.KernelLogisticRegression(
        kernel=kernels.gaussian(1.0)).fit(X, LABELS, sample_weight=w).decision_function(X),
        dict(w=np.linspace(0.5, 2.0, 10))),
    "RandomFourierFeatures": (lambda sigma, X: _fit_transform(
        features.RandomFourierFeatures(sigma=sigma, n_features=5, random_state=0), X),
        dict(sigma=1.0, X=X)),
    "Nystroem": (lambda sigma, X: _fit_transform(
        features.Nystroem(kernel=kernels.gaussian(sigma), n_components=4, random_state=0), X),
        dict(sigma=1.0, X=X)),
    "Nystroem precomputed-like": (lambda K: _fit_transform(
        features.Nystroem(kernel=lambda A, B=None:
                          np.atleast_2d(K)[:len(A), :len(A if B is None else B)],
                          n_components=4, random_state=0), K), dict(K=K)),
    "PositiveRandomFeatures": (lambda X: _fit_transform(
        features.PositiveRandomFeatures(n_features=5, random_state=0), X), dict(X=X)),
    "features.rff_uniform_bound": (features.rff_uniform_bound, dict(N=10, eps=0.1, delta=0.1)),
    "kernels.gaussian": (lambda p, X: _kernel_gram(kernels.gaussian, p, X), dict(p=1.0, X=X)),
    "kernels.laplacian": (lambda p, X: _kernel_gram(kernels.laplacian, p, X), dict(p=1.0, X=X)),
    "kernels.exponential": (lambda p, X: _kernel_gram(kernels.exponential, p, X),
                            dict(p=1.0, X=X)),
    "kernels.matern": (lambda nu, X: kernels.matern(nu, 1.0)(X), dict(nu=2.0, X=X)),
    "kernels.matern length": (lambda ell, X: kernels.matern(3.3, ell)(X), dict(ell=1.0, X=X)),
    "kernels.polynomial": (lambda c, X: kernels.polynomial(2, c)(X), dict(c=1.0, X=X)),
    "kernels.sigmoid": (lambda a, X: kernels.sigmoid(a, 0.0)(X), dict(a=1.0, X=X)),
    "kernels.is_psd": (kernels.is_psd, dict(K=K)),
    "kernels.is_nds": (kernels.is_nds, dict(K=-K)),
    "kernels.empirical_feature_map": (kernels.empirical_feature_map, dict(K=K)),
    "datasets.linear_model": (datasets.linear_model, dict(n=5, p=2, noise=1.0, random_state=0)),
    "datasets.two_moons": (datasets.two_moons, dict(n=6, noise=0.1, random_state=0)),
    "datasets.sine_and_square": (datasets.sine_and_square, dict(n=6, noise=0.1, random_state=0)),
    "datasets.sine_target": (datasets.sine_target, dict(x=np.linspace(0.0, 1.0, 5))),
    "datasets.square_wave_target": (datasets.square_wave_target, dict(x=np.linspace(0.0, 1.0, 5))),
    "ms.holdout_split": (ms.holdout_split, dict(n=10, test_fraction=0.3, random_state=0)),
    "ms.holdout_curve": (ms.holdout_curve, dict(X=X, y=Y, lams=LAMS, train_idx=np.arange(7),
                                                test_idx=np.arange(7, 10))),
    "kernels.linear": (lambda X, Z: kernels.linear()(X, Z), dict(X=X, Z=X[:3])),
    "kernels.sobolev1": (lambda x: kernels.sobolev1()(x), dict(x=np.linspace(0.1, 0.9, 5))),
    "kernels.sobolev2": (lambda x: kernels.sobolev2()(x), dict(x=np.linspace(0.1, 0.9, 5))),
    "kernels.squared_distance": (lambda X: kernels.squared_distance()(X), dict(X=X)),
    "kernels.pds_from_nds": (lambda X, x0: kernels.pds_from_nds(kernels.squared_distance(), x0)(X),
                             dict(X=X, x0=X[0])),
    "ms.oof_predictions_batch": (ms.oof_predictions_batch, dict(X=XB, y=YB, lams=LAMS, folds=2)),
    "ms.cv_curves_batch": (ms.cv_curves_batch, dict(X=XB, y=YB, lams=LAMS, folds=2)),
}


# Entry points whose documented answer may be +inf (NaN is still refused):
# loo_ridge and gcv_ridge at lam = 0 when the fit interpolates (1 - H_ii = 0, with a warning),
DOCUMENTED_INF = {"ms.loo_ridge", "ms.gcv_ridge"}


def check_contract(name, kwargs, complex_arg=None):
    return _fuzz.check_contract(name, ENTRY_POINTS[name][0], kwargs,
                                allow_inf=name in DOCUMENTED_INF, complex_arg=complex_arg)


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_valid_call_runs(name):
    """The templates are valid: every entry point returns finite values on them."""
    fn, kwargs = ENTRY_POINTS[name]
    assert check_contract(name, kwargs) == "ok"


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_every_bad_value_of_every_argument(name):
    """Exhaustive sweep of the same classes (small: a few hundred calls in all)."""
    fn, valid = ENTRY_POINTS[name]
    failures = _fuzz.sweep(name, fn, valid, allow_inf=name in DOCUMENTED_INF)
    assert not failures, "\n".join(failures)


# Public names of the library that are not callables with array or number arguments.
NOT_ENTRY_POINTS = {
    "kernels.Kernel", "ms.KFold", "ms.Splitter", "ms.resolve_folds", "ms.KRRTuningTable",
    "ms.StackedRidge", "datasets.diabetes",
    # named tuples of results
    "datasets.LinearModelData", "datasets.DiabetesData", "datasets.SineSquareData",
    "ridge.PrincipalComponents", "ridge.Standardized",
    # set kernels: their inputs are finite sets (Python sets), not numeric arrays
    "kernels.jaccard", "kernels.intersection_power", "svm.SMOResult", "kernels.SPECTRAL_KERNELS",
}


def test_every_public_library_name_is_covered():
    """The ratchet: a new public function of the library gets a fuzz entry (or a reason not to)."""
    import kmlib.kernels as kmod
    modules = {"ridge": ridge, "ms": ms, "krr": krr, "svm": svm, "logistic": logistic,
               "features": features, "kernels": kmod, "datasets": datasets}
    covered = set(ENTRY_POINTS) | NOT_ENTRY_POINTS
    missing = []
    for prefix, mod in modules.items():
        for name in mod.__all__:
            obj = getattr(mod, name)
            if not callable(obj):
                continue
            short = name if name[0].isupper() and name in ENTRY_POINTS else f"{prefix}.{name}"
            if short not in covered and name not in covered:
                missing.append(short)
    assert not missing, f"public library names without a bad-input entry: {missing}"

"""One ridge engine and one path convention (the penalty grid is the last axis).

References: one dense solve per penalty (``np.linalg.solve`` on the normal equations of
the centred, scaled design), scikit-learn's ``Ridge`` and ``StandardScaler``, and the
least-squares solution of the unscaled design for huge inputs.
"""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.preprocessing import StandardScaler

from kmlib import model_selection as ms
from kmlib import ridge as R

LAMS = np.array([0.0, 0.1, 1.0, 10.0])


def _data(n=40, p=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * rng.uniform(0.5, 5, size=p) + rng.normal(size=p)
    return X, X @ rng.normal(size=p) + 3.0 + rng.normal(size=n)


def _reference(X, y, lam, fit_intercept=True, standardize=True):
    """Intercept and original-scale coefficients from the normal equations."""
    mu = X.mean(0) if fit_intercept else np.zeros(X.shape[1])
    Z = X - mu
    s = np.sqrt(np.mean(Z**2, axis=0)) if standardize else np.ones(X.shape[1])
    Z = Z / s
    yc = y - (y.mean() if fit_intercept else 0.0)
    b = np.linalg.solve(Z.T @ Z + lam * np.eye(X.shape[1]), Z.T @ yc) / s
    return (y.mean() if fit_intercept else 0.0) - mu @ b, b


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("standardize", [True, False])
def test_every_path_has_the_penalty_last_and_the_same_values(fit_intercept, standardize):
    X, y = _data()
    a, B = ms.ridge_fit_path(X, y, LAMS, fit_intercept=fit_intercept, standardize=standardize)
    aR, BR = ms.ridge_path_batch(np.stack([X, X]), np.stack([y, y]), LAMS,
                                 fit_intercept=fit_intercept, standardize=standardize)
    assert a.shape == (4,) and B.shape == (5, 4) and aR.shape == (2, 4) and BR.shape == (2, 5, 4)
    np.testing.assert_allclose(BR[1], B, rtol=1e-12)
    for j, lam in enumerate(LAMS):
        a_ref, b_ref = _reference(X, y, lam, fit_intercept, standardize)
        np.testing.assert_allclose(B[:, j], b_ref, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(a[j], a_ref, rtol=1e-8, atol=1e-10)
        est = R.RidgeRegression(lam=lam, fit_intercept=fit_intercept,
                                standardize=standardize).fit(X, y)
        np.testing.assert_allclose(est.coef_, B[:, j], rtol=1e-8, atol=1e-10)
    if not (fit_intercept or standardize):
        np.testing.assert_allclose(R.ridge_path(X, y, LAMS), B, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(R.fitted_values_path(X, y, LAMS), X @ B, rtol=1e-9)
    P = ms.oof_predictions(X, y, LAMS, 5, fit_intercept=fit_intercept, standardize=standardize)
    assert P.shape == (40, 4)


def test_standardisation_is_scikit_learns_and_the_same_everywhere():
    X, y = _data()
    Z, mean, scale = R.standardize(X)
    sc = StandardScaler().fit(X)
    np.testing.assert_allclose(Z, sc.transform(X), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(scale, sc.scale_, rtol=1e-13)
    est = R.RidgeRegression(lam=2.0).fit(X, y)
    np.testing.assert_allclose(est.x_scale_, sc.scale_, rtol=1e-13)
    sk = Ridge(alpha=2.0).fit(sc.transform(X), y)           # scikit-learn on the scaled design
    np.testing.assert_allclose(est.coef_ * est.x_scale_, sk.coef_, rtol=1e-10)
    # weights: integer weights act as copies of the rows, with weighted means and scales
    w = np.arange(1, 41) % 3
    est_w = R.RidgeRegression(lam=2.0).fit(X, y, sample_weight=w)
    rep = np.repeat(np.arange(40), w)
    est_rep = R.RidgeRegression(lam=2.0).fit(X[rep], y[rep])
    np.testing.assert_allclose(est_w.coef_, est_rep.coef_, rtol=1e-10)
    np.testing.assert_allclose(est_w.x_scale_, est_rep.x_scale_, rtol=1e-12)


def test_a_constant_column_gives_one_message_everywhere():
    X, y = _data()
    X[:, 2] = 7.0
    calls = [lambda: R.standardize(X), lambda: R.RidgeRegression().fit(X, y),
             lambda: R.RidgeRegression().fit(X, y, sample_weight=np.ones(40)),
             lambda: ms.ridge_fit_path(X, y, LAMS), lambda: ms.cross_val_curve(X, y, LAMS),
             lambda: ms.ridge_path_batch(X[None], y[None], LAMS)]
    for call in calls:
        with pytest.raises(ValueError, match=r"constant column\(s\) \[2\].*standardize=False"):
            call()


@pytest.mark.parametrize("standardize", [True, False])
def test_huge_designs_give_the_least_squares_path_not_zeros(standardize):
    """X = 1e160 X0: unscaled, lam = 1 is below rounding next to X^T X (the path is OLS)."""
    rng = np.random.default_rng(0)
    X0 = rng.normal(size=(30, 4))
    y = X0 @ [1.0, -2.0, 3.0, 0.5] + 0.1 * rng.normal(size=30)
    # standardised, X and X0 have the same scaled design; else lam is negligible (OLS)
    ref = (_reference(X0, y, 1.0)[1] if standardize else
           np.linalg.lstsq(np.column_stack([np.ones(30), X0]), y, rcond=None)[0][1:])
    B = ms.ridge_fit_path(1e160 * X0, y, [1.0], standardize=standardize)[1]
    np.testing.assert_allclose(B[:, 0] * 1e160, ref, rtol=1e-8)
    ols0 = np.linalg.lstsq(X0, y, rcond=None)[0]
    np.testing.assert_allclose(R.ridge_path(1e160 * X0, y, [1.0])[:, 0] * 1e160, ols0, rtol=1e-8)
    np.testing.assert_allclose(R.fitted_values_path(1e160 * X0, y, [1.0])[:, 0], X0 @ ols0,
                               rtol=1e-8)


def test_principal_components_returns_its_named_tuple_and_refuses_an_overflow():
    from kmlib.ridge import PrincipalComponents, principal_components

    X = np.random.default_rng(0).normal(size=(6, 2))
    assert isinstance(principal_components(X), PrincipalComponents)   # a class, not a wrapper
    with pytest.raises(ValueError, match="principal_components: the result is not finite"):
        principal_components(1e200 * X)   # the variances d**2 / n overflow


def test_shrinkage_factors_and_effective_df_of_huge_singular_values():
    # reference: d**2 / (d**2 + lam) -> 1 when d**2 >> lam (and = 0.5 at d**2 = lam); the
    # degrees of freedom at a negligible penalty are the rank of X (3); d**2 used to
    # overflow to inf and give 0 silently
    np.testing.assert_array_equal(R.shrinkage_factors([1e200, 1.0], 1.0), [1.0, 0.5])
    X = np.random.default_rng(0).normal(size=(10, 3))
    assert R.effective_df(2.0**600 * X, 1.0) == pytest.approx(3.0, rel=1e-12)
    assert R.effective_df(2.0**600 * X, [0.0, 1e300])[0] == pytest.approx(3.0, rel=1e-12)
    # scale invariance (d, lam) -> (c d, c**2 lam), with c a power of two: exact
    np.testing.assert_allclose(R.effective_df(2.0**500 * X, 2.0**1000 * np.array([1, 10.0])),
                               R.effective_df(X, [1, 10.0]), rtol=1e-13)


def test_ridge_filter_of_huge_and_tiny_singular_values():
    # reference: d / (d**2 + lam) = 1 / (d + lam / d), so 1/d when d**2 >> lam (1e-200 at
    # d = 1e200, where d**2 used to overflow and give 0), 1/2 at d = lam = 1, and
    # d / lam when d**2 << lam; a dropped (zero) singular value gives 0
    from kmlib._ridge import ridge_filter

    # d / lam when d**2 << lam (1e-200 at d = 1e-200, lam = 1, where (sqrt(lam)/d)**2
    # overflows); d**2 = 1e-300 next to lam = 1e-300 gives 1 / (2 d)
    F = ridge_filter(np.array([1e200, 1.0, 1e-3, 1e-200, 1e-150, 0.0]),
                     np.array([1.0, 0.0, 1e-300]), 0)
    np.testing.assert_allclose(F[:, 0], [1e-200, 0.5, 1e-3 / (1e-6 + 1.0), 1e-200, 1e-150, 0.0],
                               rtol=1e-15)
    np.testing.assert_allclose(F[:5, 1], [1e-200, 1.0, 1e3, 1e200, 1e150], rtol=1e-15)
    np.testing.assert_allclose(F[:5, 2], [1e-200, 1.0, 1e3, 1e100, 0.5e150], rtol=1e-15)
    assert F[5, 1] == 0.0


@pytest.mark.parametrize("scale", [1e-155, 1e-200, 1e155])
def test_ridge_paths_at_extreme_scales_of_x(scale):
    # reference: b = X^T (X X^T + lam I)^{-1} y.  For tiny X, X X^T is below rounding next to
    # lam = 1 (entries ~1e-308 and below), so b = X^T y / lam to rounding; for huge X, lam is
    # below rounding next to X^T X, so b is least squares: lstsq(X0, y) / scale
    X0 = np.random.default_rng(0).standard_normal((40, 3))
    y = X0 @ [1.0, -2.0, 3.0] + 5.0
    X = X0 * scale
    ref = X.T @ y if scale < 1 else np.linalg.lstsq(X0, y, rcond=None)[0] / scale
    np.testing.assert_allclose(R.ridge(X, y, 1.0), ref, rtol=1e-10)
    np.testing.assert_allclose(R.ridge_path(X, y, [1.0])[:, 0], ref, rtol=1e-10)
    B = ms.ridge_fit_path(X, y, [1.0], fit_intercept=False, standardize=False)[1]
    np.testing.assert_allclose(B[:, 0], ref, rtol=1e-10)

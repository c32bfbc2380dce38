"""Monte-Carlo studies of model selection: batched paths, expected risk, summaries.

Chapter "Choosing λ: hold-out and v-fold cross-validation": many datasets at once,
the exact Gaussian risk of a fitted linear predictor, the stacking and choice-of-v
studies, and standard errors of Monte-Carlo means.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.optimize
from numpy.typing import ArrayLike

from kmlib import model_selection as ms
from kmlib._folds import Folds
from kmlib._linalg import one_blas_thread
from kmlib._typing import Seed
from kmlib._validation import (
    as_float_array,
    check_batch,
    check_finite_result,
    check_int,
    check_lam_grid,
    check_matrix,
    check_nonnegative,
    check_rng,
    check_vector,
)

__all__ = [
    "gaussian_datasets",
    "gaussian_risk",
    "expected_risk",
    "stacking_study",
    "choose_v_study",
    "mc_summary",
]


def gaussian_datasets(n_datasets: int, n: int, beta0: ArrayLike, sigma: float = 1.0, *,
                      Sigma: ArrayLike = None, seed: Seed = None) -> tuple[np.ndarray, np.ndarray]:
    """Draw R independent datasets from the Gaussian random-design linear model.

    Rows ``x_i ~ N(0, Sigma)`` i.i.d. and ``y_i = x_i^T beta0 + sigma eps_i``
    with standard normal noise.

    Parameters
    ----------
    n_datasets : int
        Number R of datasets.
    n : int
        Sample size of each dataset.
    beta0 : array of shape (p,)
        True coefficients.
    sigma : float
        Noise standard deviation.
    Sigma : array of shape (p, p), optional
        Covariance of the rows (positive definite); identity when omitted.
    seed : int, Generator or None

    Returns
    -------
    X : ndarray of shape (R, n, p)
    y : ndarray of shape (R, n)
    """
    R = check_int(n_datasets, "n_datasets")
    n = check_int(n, "n")
    beta0 = check_vector(beta0, "beta0")
    sigma = check_nonnegative(sigma, "sigma")
    S = _check_sigma_matrix(Sigma, beta0.size)
    rng = check_rng(seed)
    X = rng.standard_normal((R, n, beta0.size))
    if S is not None:
        try:
            C = scipy.linalg.cholesky(S, lower=False)
        except np.linalg.LinAlgError as exc:
            raise ValueError("Sigma must be positive definite") from exc
        X = X @ C
    y = X @ beta0 + sigma * rng.standard_normal((R, n))
    return X, y


def gaussian_risk(intercepts: ArrayLike, coefs: ArrayLike, beta0: ArrayLike, sigma2: float, *,
                  Sigma: ArrayLike = None) -> np.ndarray:
    """Exact prediction risk of linear predictors under the Gaussian design model.

    For a new pair with ``x* ~ N(0, Sigma)`` and ``Y* = x*^T beta0 + eps``,
    ``Var eps = sigma2``, the predictor ``a + x^T b`` has risk
    ``E (Y* - a - x*^T b)^2 = sigma2 + a^2 + (b - beta0)^T Sigma (b - beta0)``.

    Parameters
    ----------
    intercepts : array of shape (..., L)
    coefs : array of shape (..., p, L)
    beta0 : array of shape (p,)
    sigma2 : float
        Noise variance.
    Sigma : array of shape (p, p), optional
        Covariance of x*; identity when omitted.

    Returns
    -------
    risk : ndarray of shape (..., L)
    """
    a = as_float_array(intercepts, "intercepts")
    B = as_float_array(coefs, "coefs")
    beta0 = check_vector(beta0, "beta0")
    sigma2 = check_nonnegative(sigma2, "sigma2")
    if B.ndim < 2 or B.shape[-2] != beta0.size or a.shape != B.shape[:-2] + B.shape[-1:]:
        raise ValueError(
            f"coefs must have shape (..., p, L) with p = len(beta0) = {beta0.size}, and "
            f"intercepts shape (..., L); got {B.shape} and {a.shape}")
    D = B - beta0[:, None]
    S = _check_sigma_matrix(Sigma, beta0.size)
    quad = np.sum(D * D, axis=-2) if S is None else np.sum(D * np.einsum("pq,...ql->...pl", S, D),
                                                           axis=-2)
    return sigma2 + a ** 2 + quad


def expected_risk(m: int, beta0: ArrayLike, sigma: float, lams: ArrayLike,
                  n_train_sets: int = 2000, *,
                  Sigma: ArrayLike = None, seed: Seed = None, fit_intercept: bool = True,
                  standardize: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Expected test error of ridge trained on m Gaussian points, for every λ.

    Monte Carlo over ``n_train_sets`` training sets of size m, with the exact
    conditional risk of each fit (:func:`gaussian_risk`), so the only error is
    the variation over training sets.

    Returns
    -------
    mean, se : ndarrays of shape (L,)
        The Monte-Carlo mean and its standard error.
    """
    R = check_int(n_train_sets, "n_train_sets", minimum=2)
    X, y = gaussian_datasets(R, m, beta0, sigma, Sigma=Sigma, seed=seed)
    a, B = ms.ridge_path_batch(X, y, lams, fit_intercept=fit_intercept, standardize=standardize)
    with np.errstate(over="ignore", invalid="ignore"):
        r = gaussian_risk(a, B, beta0, np.float64(sigma) ** 2, Sigma=Sigma)
        out = r.mean(axis=0), r.std(axis=0, ddof=1) / np.sqrt(R)
    return check_finite_result(out, "expected_risk", "sigma or beta0 is too large for float64")


@one_blas_thread()
def stacking_study(X: ArrayLike, y: ArrayLike, lams: ArrayLike, beta0: ArrayLike, sigma2: float,
                   folds: Folds = 5, *,
                   Sigma: ArrayLike = None, fit_intercept: bool = True,
                   standardize: bool = True) -> dict[str, np.ndarray]:
    """Stacking against the CV-chosen λ on R Gaussian datasets, with exact risks.

    For each dataset: out-of-fold predictions on the grid, NNLS weights
    (:func:`stack`), refits on all the data; the CV-chosen predictor is the
    refit at ``argmin CV``, the stacked one the weighted combination.  Both
    are scored by their exact risk (:func:`gaussian_risk`).

    Parameters
    ----------
    X : array of shape (R, n, p), y : array of shape (R, n)
        The datasets (e.g. from :func:`gaussian_datasets`).
    lams : array of shape (L,)
    beta0, sigma2, Sigma
        The model the datasets were drawn from (for the exact risk).
    folds, fit_intercept, standardize
        As in :func:`oof_predictions`.

    Returns
    -------
    dict with keys ``risk_cv``, ``risk_stack`` (shape (R,)), ``weights``
    (shape (R, L)), ``lam_index`` (shape (R,), the CV-chosen grid index).
    """
    X, y = check_batch(X, y)
    lams = check_lam_grid(lams)
    opts = dict(fit_intercept=fit_intercept, standardize=standardize)
    P = ms.oof_predictions_batch(X, y, lams, folds, **opts)
    cv = np.mean((y[:, :, None] - P) ** 2, axis=1)
    W = np.stack([ms.stack(P[r], y[r]) for r in range(X.shape[0])])
    a, B = ms.ridge_path_batch(X, y, lams, **opts)
    risk = gaussian_risk(a, B, beta0, sigma2, Sigma=Sigma)
    idx = np.argmin(cv, axis=1)
    a_st = np.sum(a * W, axis=1)[:, None]
    B_st = np.einsum("rpl,rl->rp", B, W)[:, :, None]
    risk_st = gaussian_risk(a_st, B_st, beta0, sigma2, Sigma=Sigma)[:, 0]
    return {"risk_cv": risk[np.arange(X.shape[0]), idx], "risk_stack": risk_st,
            "weights": W, "lam_index": idx}


@one_blas_thread()
def choose_v_study(X: ArrayLike, y: ArrayLike, lams: ArrayLike, vs: ArrayLike, beta0: ArrayLike,
                   sigma2: float, *,
                   Sigma: ArrayLike = None, fit_intercept: bool = True,
                   standardize: bool = True) -> dict[str, np.ndarray]:
    """How the number of folds v changes the CV-chosen fit, on R Gaussian datasets.

    For each dataset and each v: the CV curve (folds ``KFold(v, random_state=0)``;
    ``v = n`` is leave-one-out), its minimiser on the grid, the minimum value
    ``CV(lam_hat_v)`` and the exact risk (:func:`gaussian_risk`) of ridge
    refitted on all the data at ``lam_hat_v``.

    Parameters
    ----------
    X : array of shape (R, n, p), y : array of shape (R, n)
    lams : array of shape (L,)
    vs : sequence of int
        Numbers of folds, each in ``2..n``.
    beta0, sigma2, Sigma
        The model the datasets were drawn from (for the exact risk).
    fit_intercept, standardize : bool

    Returns
    -------
    dict with keys ``cv_min``, ``risk_min`` and ``lam_index`` (each of shape
    (R, len(vs))) and ``risk`` (shape (R, L), the exact risk of the full-data
    fit at every grid point).
    """
    X, y = check_batch(X, y)
    lams = check_lam_grid(lams)
    vs = [int(check_int(v, "vs", minimum=2, maximum=X.shape[1])) for v in np.atleast_1d(vs)]
    opts = dict(fit_intercept=fit_intercept, standardize=standardize)
    a, B = ms.ridge_path_batch(X, y, lams, **opts)
    risk = gaussian_risk(a, B, beta0, sigma2, Sigma=Sigma)
    R = X.shape[0]
    idx = np.empty((R, len(vs)), dtype=int)
    cv_min = np.empty((R, len(vs)))
    for k, v in enumerate(vs):
        cv = ms.cv_curves_batch(X, y, lams, v, **opts)
        idx[:, k] = np.argmin(cv, axis=1)
        cv_min[:, k] = cv[np.arange(R), idx[:, k]]
    return {"cv_min": cv_min, "risk_min": np.take_along_axis(risk, idx, axis=1),
            "lam_index": idx, "risk": risk}


def mc_summary(values: ArrayLike, axis: int = 0) -> dict[str, np.ndarray]:
    """Monte-Carlo mean and standard deviation with their standard errors.

    ``se_mean = sd / sqrt(R)``; ``se_sd`` is the delta-method standard error
    ``sqrt((m4 - sd^4) / R) / (2 sd)`` (``m4`` the fourth central moment),
    which reduces to ``sd / sqrt(2R)`` for Gaussian values.

    Parameters
    ----------
    values : array
        Replications along ``axis`` (at least 2).
    axis : int

    Returns
    -------
    dict with keys ``mean``, ``se_mean``, ``sd``, ``se_sd`` and ``se_se``
    (``se_sd / sqrt(R)``, the standard error of ``se_mean``).
    """
    v = as_float_array(values, "values")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not (
            -v.ndim <= axis < v.ndim):
        raise ValueError(f"axis must be an integer in [{-v.ndim}, {v.ndim - 1}] for values of "
                         f"shape {v.shape}; got {axis!r}")
    if v.ndim == 0 or v.shape[axis] < 2:
        raise ValueError(f"values must hold at least 2 replications along axis {axis}; "
                         f"got shape {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ValueError("values contains NaN or infinite entries")
    R = v.shape[axis]
    mean = v.mean(axis=axis)
    c = v - np.expand_dims(mean, axis)
    sd = np.sqrt(np.sum(c ** 2, axis=axis) / (R - 1))
    m2 = np.mean(c ** 2, axis=axis)
    m4 = np.mean(c ** 4, axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        se_sd = np.where(sd > 0, np.sqrt(np.maximum(m4 - m2 ** 2, 0.0) / R) / (2 * sd), 0.0)
    return {"mean": mean, "se_mean": sd / np.sqrt(R), "sd": sd, "se_sd": se_sd,
            "se_se": se_sd / np.sqrt(R)}


def _check_sigma_matrix(Sigma: ArrayLike, p: int) -> np.ndarray | None:
    if Sigma is None:
        return None
    S = check_matrix(Sigma, "Sigma", allow_1d=False)
    if S.shape != (p, p):
        raise ValueError(f"Sigma must have shape ({p}, {p}) to match beta0; got {S.shape}")
    if not np.allclose(S, S.T, rtol=1e-10, atol=1e-12):
        raise ValueError("Sigma must be symmetric")
    return S

"""Self-checks for the exercises of chapter 2, "Choosing λ" (``exercises/02_cross_validation.md``).

A self-check tests properties that a right answer must have, without computing the answer:
a fold assignment against its definition, a minimiser against the curve it minimises,
stacking weights against the KKT conditions of non-negative least squares, a CV curve
against its definition evaluated on the student's own folds (the folds are the student's
random choice, so there is no fixed answer to give away), GCV by its invariance under
rotations of the data, and for numbers of the sheet's own data a slow salted hash of the value
rounded to six significant digits (for a curve or a vector, of two numbers that summarise
it; :func:`~kmlib.book.exercises._answers.matches_digest`). It raises ``AssertionError``
with a hint when a property fails and prints one line starting with ``Self-check passed:``
otherwise. The full check, which compares every answer with an independent computation,
runs when the lecturer grades the sheet.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from kmlib import datasets

from ._answers import answer_array, answer_scalar, matches_digest

__all__ = [
    "check_kappa",
    "check_cv_curve",
    "check_lam_hat",
    "check_stack_weights",
    "check_stacked_prediction",
    "check_loo_gcv",
    "check_screened_cv",
    "check_rotation",
]

GRADED = "the full check runs when the sheet is graded"
# digest(value, key) of the sheet's answers, rounded to six significant digits; for an
# array, of its two summaries (see _summary)
DIGESTS = {
    "pred_test:sum": "e035a40f451cea66bc1d185c2c9efbb04931b68e02777d3a3b30fd85171f95ae",
    "pred_test:squares": "5ad972b5251b7fb0b656215f8f9b1e2c456d77aa42b503ddc754249098a00c1a",
    "loo:sum": "84ac290257de0ea7283de954e4181729ee10949d7da1e93453928ea764ac73de",
    "loo:squares": "ab98efbc5c66e9eea497fe53ca50b37a296f230b06c00a0f3bf071922f0e38e8",
    "gcv:sum": "500d48162bba1aeb245be2aba3ae8917793cb354f6524ffd67575c2a923f6c41",
    "gcv:squares": "c5ee6a7e37ef9e6b4744ae9151c958c664739be3192cb78d425f10b4424918c4",
    "cv_wrong": "f9ec47cdc2044ab8aa7d37a340430d2b4980b92d3dbc5737a2cdd68f9b61952c",
    "cv_right": "79974b4339264d4b38630ef03a08e97e79590839ce6c374ab8ae3d373e77e64c",
}


def _data(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 2 or y.ndim != 1 or len(X) != len(y):
        raise ValueError("X must be 2-D and y 1-D with one entry per row of X")
    return X, y


def _same(a: Any, b: np.ndarray) -> bool:
    a = np.asarray(a, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-12, atol=1e-12))


def _summary(a: np.ndarray) -> dict[str, float]:
    """Two numbers that pin an array down: a weighted sum and the sum of squares.

    The weights are cos(1), cos(2), ...; :func:`matches_digest` compares each number.
    """
    a = a.ravel()
    return {"sum": float(np.cos(np.arange(1, a.size + 1)) @ a), "squares": float(a @ a)}


def _recognised(a: np.ndarray, name: str) -> bool:
    return all(matches_digest(value, DIGESTS[f"{name}:{key}"], f"{name}:{key}")
               for key, value in _summary(a).items())


def _folds(kappa: Any, n: int, v: int, name: str = "kappa") -> np.ndarray:
    """``kappa`` as integer labels after the checks of its definition."""
    if kappa is None:
        raise AssertionError(f"`{name}` is None: assign your fold assignment to `{name}` first")
    k = answer_array(kappa, name, (n,))
    if not np.all(k == np.round(k)):
        raise AssertionError(f"`{name}` must contain integer fold labels")
    k = k.astype(int)
    if k.min() < 0 or k.max() > v - 1:
        raise AssertionError(
            f"fold labels must lie in 0..{v - 1}; got labels from {k.min()} to {k.max()} "
            "(hint: np.arange(n) % v labels the points cyclically, then shuffle)"
        )
    sizes = np.bincount(k, minlength=v)
    if sizes.min() == 0:
        raise AssertionError(f"some of the {v} folds are empty: sizes {sizes.tolist()}")
    if sizes.max() - sizes.min() > 1:
        raise AssertionError(f"fold sizes should differ by at most one; got sizes "
                             f"{sizes.tolist()}")
    return k


# --------------------------------------------------------------------------- #
# kappa and a v-fold CV curve
# --------------------------------------------------------------------------- #
def check_kappa(kappa: Any, n: int, v: int) -> None:
    """Self-check of a fold assignment: labels 0..v-1, every fold used, sizes within one."""
    sizes = np.bincount(_folds(kappa, n, v), minlength=v)
    print(f"Self-check passed: {v} folds of sizes {sorted(set(sizes.tolist()))}, every point in "
          f"exactly one ({GRADED}).")


def _oof_ridge(X: np.ndarray, y: np.ndarray, lams: np.ndarray, k: np.ndarray, v: int,
               standardize_inside: bool = True) -> np.ndarray:
    """Out-of-fold predictions of ridge with an intercept on the folds ``k``, all ``lams``.

    One thin SVD per training block (columns standardised with that block's own means and
    scales, norm ``sqrt(n_train)``); the definition of the CV curve evaluated on the
    student's own folds, so the curve it gives is the student's, not a reference answer.
    """
    P = np.empty((len(y), lams.size))
    for fold in range(v):
        tr, te = k != fold, k == fold
        if standardize_inside:
            mu, sd = X[tr].mean(axis=0), X[tr].std(axis=0)
        else:
            mu, sd = X.mean(axis=0), X.std(axis=0)
        Z = (X - mu) / sd
        centre = Z[tr].mean(axis=0)                 # zero when standardised inside the fold
        U, d, Vt = np.linalg.svd(Z[tr] - centre, full_matrices=False)
        ym = y[tr].mean()
        coef = Vt.T @ (d[:, None] / (d[:, None] ** 2 + lams) * (U.T @ (y[tr] - ym))[:, None])
        P[te] = ym + (Z[te] - centre) @ coef
    return P


def check_cv_curve(cv_curve: Any, kappa: Any, X: Any, y: Any, lams: Any, v: int) -> None:
    """Self-check of a v-fold CV curve of ridge on the folds of ``kappa``.

    Property: the definition (eq-cv) on the student's own folds. Each value must be the mean
    squared out-of-fold residual at its penalty, to a relative 1e-6, which
    :func:`_oof_ridge` evaluates by one SVD per fold. The folds are the student's random
    choice, so there is no fixed answer to give away; the message names the kind of
    mistake and how many penalties are off, never a value. A constant curve, the training
    error, a reversed curve and a curve standardised with all the data fail.
    """
    X, y = _data(X, y)
    lams = np.asarray(lams, dtype=float)
    c = answer_array(cv_curve, "cv_curve", lams.shape)
    if kappa is None:
        raise AssertionError("`kappa` is None: the CV curve needs your fold assignment")
    try:
        k = _folds(kappa, len(y), v)
    except AssertionError:
        raise AssertionError("`kappa` is not a valid fold assignment; run check_kappa "
                             "first") from None
    if np.any(c <= 0):
        raise AssertionError("a CV error is a mean of squared errors: every value is positive")
    own = np.mean((y[:, None] - _oof_ridge(X, y, lams, k, v)) ** 2, axis=0)
    off = np.abs(c - own) > 1e-6 * own
    if not off.any():
        print(f"Self-check passed: cv_curve is the mean squared out-of-fold error of ridge on "
              f"your {v} folds at all {c.size} penalties ({GRADED}).")
        return
    if np.allclose(c, own * len(y), rtol=1e-6):
        raise AssertionError("cv_curve looks n times too large: CV is the MEAN squared error")
    if np.allclose(c, own[::-1], rtol=1e-6):
        raise AssertionError("cv_curve is in the reverse order: one value per entry of lams, "
                             "in the order of lams")
    leak = np.mean((y[:, None] - _oof_ridge(X, y, lams, k, v, False)) ** 2, axis=0)
    if np.allclose(c, leak, rtol=1e-6):
        raise AssertionError("it looks as if X was standardised with ALL the data before the "
                             "split; compute the means and scales from the training rows of "
                             "each fold only")
    if np.all(np.diff(c) >= 0) and c[0] < own[0] * (1 - 1e-6):
        raise AssertionError("cv_curve rises from below the out-of-fold error at the smallest "
                             "penalty: is it the training error? Predict each fold with a model "
                             "fitted WITHOUT it")
    raise AssertionError(
        f"cv_curve differs from the mean squared out-of-fold error on your folds (relative "
        f"tolerance 1e-6) at {int(off.sum())} of {c.size} penalties; fit "
        "RidgeRegression(lam=lam) on the other folds (intercept, columns standardised with the "
        "training rows) and average the squared errors over all n points"
    )


def check_lam_hat(lam_hat: Any, curve: Any, lams: Any, name: str = "lam_hat") -> None:
    """Self-check that ``lam_hat`` is a grid value at which the curve is smallest."""
    lams = np.asarray(lams, dtype=float)
    c = answer_array(curve, "the error curve", lams.shape)
    v = answer_scalar(lam_hat, name)
    on_grid = np.flatnonzero(np.abs(lams - v) <= 1e-12 * np.abs(lams))
    if on_grid.size == 0:
        raise AssertionError(f"{name} = {v:.6g} is not a value of the grid")
    if c[on_grid[0]] > c.min():
        hint = " (that is the maximiser)" if c[on_grid[0]] >= c.max() else ""
        raise AssertionError(f"{name} = {v:.6g}, but the curve is smaller elsewhere on the "
                             f"grid{hint}")
    print(f"Self-check passed: {name} = {v:.4g} minimises the curve ({GRADED}).")


# --------------------------------------------------------------------------- #
# stacking
# --------------------------------------------------------------------------- #
def check_stack_weights(w: Any, P: Any, y: Any) -> None:
    """Self-check of NNLS weights through the KKT conditions of ``min_{w >= 0} ||y - P w||^2``.

    A vector is optimal exactly when ``w >= 0``, the gradient ``g = P^T (P w - y)`` is
    ``>= 0``, and ``g_l = 0`` wherever ``w_l > 0``.
    """
    P = np.asarray(P, dtype=float)
    y = np.asarray(y, dtype=float)
    w = answer_array(w, "w", (P.shape[1],))
    tol = 1e-6 * float(np.abs(P.T @ y).max())
    if np.any(w < -1e-12):
        raise AssertionError(
            f"stacking weights must be non-negative; w has {int(np.sum(w < 0))} negative "
            "entries (plain least squares? use scipy.optimize.nnls)"
        )
    g = P.T @ (P @ w - y)
    active = w > 1e-10 * max(1.0, float(np.abs(w).max()))
    if np.any(np.abs(g[active]) > tol):
        hint = ""
        if abs(w.sum() - 1) < 1e-9:
            hint = " (the weights sum to 1: stacking by NNLS does not impose that)"
        raise AssertionError("w is not optimal: the gradient is non-zero on the positive "
                             f"weights{hint}")
    if np.any(g[~active] < -tol):
        raise AssertionError("w is not optimal: increasing a zero weight would lower the error")
    print(f"Self-check passed: {int(active.sum())} positive weights satisfy the KKT conditions "
          f"of NNLS ({GRADED}).")


def _sheet_stacking(X: np.ndarray, y: np.ndarray, X_test: np.ndarray,
                    lams: np.ndarray) -> bool:
    """Whether the data are those of the sheet's stacking exercise."""
    X0, y0, _ = datasets.linear_model(120, 40, random_state=11)
    return (_same(X, X0) and _same(y, y0) and _same(lams, np.logspace(-1, 4, 12))
            and _same(X_test, np.random.default_rng(12).standard_normal((200, 40))))


def check_stacked_prediction(pred_test: Any, w: Any, X: Any, y: Any, X_test: Any,
                             lams: Any) -> None:
    """Self-check of the stacked prediction ``sum_l w_l f_{lam_l}(X_test)``.

    Properties: one finite value per test point and non-negative weights; for the sheet's
    data, the hash of two summaries of ``pred_test`` (which assumes the sheet's NNLS
    weights: check ``w`` first).
    """
    X, y = _data(X, y)
    X_test = np.asarray(X_test, dtype=float)
    lams = np.asarray(lams, dtype=float)
    pr = answer_array(pred_test, "pred_test", (len(X_test),))
    wv = answer_array(w, "w", lams.shape)
    if np.any(wv < -1e-12):
        raise AssertionError("w has negative entries; run check_stack_weights first")
    if _sheet_stacking(X, y, X_test, lams) and not _recognised(pr, "pred_test"):
        raise AssertionError(
            "pred_test differs from sum_l w_l * (ridge with lams[l] refitted on ALL the "
            "training data) evaluated at X_test; the fold fits are only used to choose w "
            "(and w must pass check_stack_weights)"
        )
    print(f"Self-check passed: stacked predictions at {pr.size} test points ({GRADED}).")


# --------------------------------------------------------------------------- #
# GCV versus LOO
# --------------------------------------------------------------------------- #
def check_loo_gcv(loo: Any, gcv: Any, Z: Any, y: Any, lams: Any) -> None:
    """Self-check of the LOO and GCV curves of ridge with an intercept on a design ``Z``.

    Properties: one positive value per penalty for each; for the sheet's data (the
    standardised diabetes predictors), the hash of two summaries of each curve.
    """
    Z, y = _data(Z, y)
    lams = np.asarray(lams, dtype=float)
    lo = answer_array(loo, "loo", lams.shape)
    gc = answer_array(gcv, "gcv", lams.shape)
    if np.any(lo <= 0) or np.any(gc <= 0):
        raise AssertionError("LOO and GCV are means of squares: every value is positive")
    X0, y0, _ = datasets.diabetes()
    sheet = (_same(Z, (X0 - X0.mean(axis=0)) / X0.std(axis=0)) and _same(y, y0)
             and _same(lams, np.logspace(-2, 4, 31)))
    if sheet and not _recognised(lo, "loo"):
        raise AssertionError("loo differs from mean_i ((y_i - yhat_i) / (1 - H_ii))^2 with the "
                             "leverages H_ii = 1/n + sum_j U_ij^2 d_j^2/(d_j^2 + lam)")
    if sheet and not _recognised(gc, "gcv"):
        raise AssertionError(
            "gcv differs from (1/n)||y - yhat||^2 / (1 - tr(H)/n)^2; note the square and "
            "that tr(H) = 1 + sum_j d_j^2/(d_j^2 + lam) includes the intercept"
        )
    print(f"Self-check passed: LOO and GCV curves of {lams.size} values ({GRADED}).")


# --------------------------------------------------------------------------- #
# leakage through feature screening
# --------------------------------------------------------------------------- #
def check_screened_cv(cv_wrong: Any, cv_right: Any, X: Any, y: Any, n_keep: int, lam: float,
                      v: int = 5) -> None:
    """Self-check of the CV errors of "screen ``n_keep`` columns, then ridge".

    Properties: two positive numbers; for the sheet's data, the hash of each (and of each
    in the other's place, to tell a swap).
    """
    X, y = _data(X, y)
    a = answer_scalar(cv_wrong, "cv_wrong")
    b = answer_scalar(cv_right, "cv_right")
    if a <= 0 or b <= 0:
        raise AssertionError("CV errors are means of squares: both are positive")
    rng = np.random.default_rng(50)
    sheet = (_same(X, rng.standard_normal((40, 400))) and _same(y, rng.standard_normal(40))
             and (n_keep, float(lam), v) == (10, 1.0, 5))
    if sheet:
        wrong_ok = matches_digest(a, DIGESTS["cv_wrong"], "cv_wrong")
        right_ok = matches_digest(b, DIGESTS["cv_right"], "cv_right")
        if (not wrong_ok and not right_ok and matches_digest(b, DIGESTS["cv_wrong"], "cv_wrong")
                and matches_digest(a, DIGESTS["cv_right"], "cv_right")):
            raise AssertionError("the two values are swapped: cv_wrong screens once on all the "
                                 "data, cv_right screens again on the training part of every "
                                 "fold")
        if not wrong_ok:
            raise AssertionError("cv_wrong is off: screen the columns once with all n points, "
                                 "keep them fixed, then cross-validate ridge (intercept, "
                                 "standardised columns) with KFold(v, random_state=0)")
        if not right_ok:
            raise AssertionError("cv_right is off: inside each fold, choose the columns with "
                                 "the training rows only, then fit and predict as before")
    print(f"Self-check passed: two CV errors of the screened ridge ({GRADED}).")


# --------------------------------------------------------------------------- #
# GCV and LOO under a rotation of the data
# --------------------------------------------------------------------------- #
def _loo_gcv_no_intercept(A: np.ndarray, b: np.ndarray, lams: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray]:
    """LOO (leverage shortcut) and GCV of ridge without intercept.

    Computed from the eigendecomposition of ``A^T A``, a route other than an SVD of ``A``.
    """
    g, V = np.linalg.eigh(A.T @ A)
    out_loo, out_gcv = [], []
    for lam in lams:
        W = A @ V / (g + lam)                      # A (A^T A + lam I)^{-1} in the eigenbasis
        fit = W @ (V.T @ (A.T @ b))
        lev = np.sum(W * (A @ V), axis=1)
        out_loo.append(np.mean(((b - fit) / (1 - lev)) ** 2))
        out_gcv.append(np.mean((b - fit) ** 2) / (1 - lev.sum() / len(b)) ** 2)
    return np.array(out_loo), np.array(out_gcv)


def check_rotation(loo_Q: Any, gcv_Q: Any, X: Any, y: Any, Q: Any, lams: Any) -> None:
    """Self-check of the LOO and GCV curves of the rotated data ``(Q X, Q y)``.

    Properties: GCV is invariant under the rotation, so ``gcv_Q`` must equal GCV of the
    unrotated data; ``loo_Q`` must satisfy the leverage identity of the leave-one-out
    shortcut on the rotated data (relative 1e-8). Messages name the mistake, never a value.
    """
    X, y = _data(X, y)
    Q = np.asarray(Q, dtype=float)
    lams = np.asarray(lams, dtype=float)
    lo = answer_array(loo_Q, "loo_Q", lams.shape)
    gc = answer_array(gcv_Q, "gcv_Q", lams.shape)
    loo_0, gcv_0 = _loo_gcv_no_intercept(X, y, lams)
    loo_r, _ = _loo_gcv_no_intercept(Q @ X, Q @ y, lams)
    if not np.allclose(gc, gcv_0, rtol=1e-8):
        raise AssertionError("gcv_Q is not the GCV curve of ridge without intercept (relative "
                             "tolerance 1e-8); by part 1 it is the same for the rotated and the "
                             "original data: (1/n)||y - yhat||^2 / (1 - tr(H)/n)^2")
    if np.allclose(lo, loo_0, rtol=1e-8) and not np.allclose(loo_0, loo_r, rtol=1e-8):
        raise AssertionError("loo_Q is the LOO curve of the ORIGINAL data; rotate both X and y "
                             "by Q first")
    if not np.allclose(lo, loo_r, rtol=1e-8):
        raise AssertionError("loo_Q is not mean_i ((y_i - yhat_i) / (1 - H_ii))^2 for the "
                             "rotated data (relative tolerance 1e-8); the leverages are the "
                             "diagonal of the rotated hat matrix")
    print(f"Self-check passed: gcv_Q is invariant and loo_Q satisfies the leave-one-out "
          f"identity ({GRADED}).")

"""The lecturer's full checks of chapter 2, "Choosing λ" (``exercises/02_cross_validation.md``).

Never shipped (see the package's docstring). Every check recomputes the answer by its own
route. A fold assignment is checked against its definition (counted with ``np.unique``). A
CV curve is checked with :func:`kmlib.model_selection.cross_val_curve`, run on the
student's own folds. Stacking weights are compared with the minimum that
``scipy.optimize.nnls`` reaches, and diagnosed through the KKT conditions of non-negative
least squares. Leave-one-out and GCV are checked against dense hat matrices, the screened
CV errors against scikit-learn's ridge. Each check raises ``AssertionError`` with a hint when
the answer is missing or wrong, and prints one line starting with ``Correct:`` when it is
right.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from scipy import optimize

from kmlib import model_selection as ms
from kmlib.book.exercises._answers import answer_array, answer_scalar

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


def _data(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 2 or y.ndim != 1 or len(X) != len(y):
        raise ValueError("X must be 2-D and y 1-D with one entry per row of X")
    return X, y


def _pairs_from_kappa(kappa: np.ndarray, v: int) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(np.flatnonzero(kappa != k), np.flatnonzero(kappa == k)) for k in range(v)]


def _hat_matrix(X: np.ndarray, lam: float) -> np.ndarray:
    """Hat matrix of ridge with an unpenalised intercept, from the (p+1) x (p+1) system."""
    n, p = X.shape
    A = np.hstack([np.ones((n, 1)), X])
    pen = lam * np.eye(p + 1)
    pen[0, 0] = 0.0
    return A @ np.linalg.solve(A.T @ A + pen, A.T)


# --------------------------------------------------------------------------- #
# kappa and a v-fold CV curve
# --------------------------------------------------------------------------- #
def check_kappa(kappa: Any, n: int, v: int) -> None:
    """Check a fold assignment: integers 0..v-1, every fold used, sizes differing by <= 1."""
    if kappa is None:
        raise AssertionError("`kappa` is None: assign your fold assignment to `kappa` first")
    labels = answer_array(kappa, "kappa", (n,))
    if np.any(labels % 1 != 0):
        raise AssertionError("`kappa` must contain integer fold labels")
    used, counts = np.unique(labels.astype(int), return_counts=True)
    if used[0] < 0 or used[-1] >= v:
        raise AssertionError(
            f"fold labels must lie in 0..{v - 1}; got labels from {used[0]} to {used[-1]} "
            "(hint: np.arange(n) % v labels the points cyclically, then shuffle)"
        )
    if len(used) < v:
        sizes = [int(counts[used == k].sum()) for k in range(v)]
        raise AssertionError(f"some of the {v} folds are empty: sizes {sizes}")
    if counts.max() > counts.min() + 1:
        raise AssertionError(f"fold sizes should differ by at most one; got sizes "
                             f"{counts.tolist()}")
    print(f"Correct: {v} folds of sizes {sorted(set(counts.tolist()))}, every point in exactly "
          "one.")


def check_cv_curve(cv_curve: Any, kappa: Any, X: Any, y: Any, lams: Any, v: int) -> None:
    """Check a v-fold CV curve of ridge (intercept, columns standardised inside each fold).

    The reference is :func:`kmlib.model_selection.cross_val_curve` run on the
    folds that ``kappa`` defines.
    """
    X, y = _data(X, y)
    lams = np.asarray(lams, dtype=float)
    c = answer_array(cv_curve, "cv_curve", lams.shape)
    if kappa is None:
        raise AssertionError("`kappa` is None: the CV curve needs your fold assignment")
    k = np.asarray(kappa)
    if (k.shape != y.shape or not np.issubdtype(k.dtype, np.number)
            or not np.all(np.isin(k, np.arange(v)))
            or np.bincount(k.astype(int), minlength=v).min() == 0):
        raise AssertionError("`kappa` is not a valid fold assignment; run check_kappa first")
    pairs = _pairs_from_kappa(k.astype(int), v)
    ref = ms.cross_val_curve(X, y, lams, pairs)
    if np.allclose(c, ref, rtol=1e-8):
        j = int(np.argmin(ref))
        print(f"Correct: CV is smallest at lam = {lams[j]:.4g} (CV = {ref[j]:.4f}).")
        return
    n = len(y)
    if np.allclose(c, ref * n, rtol=1e-8):
        raise AssertionError("cv_curve is n times too large: CV is the MEAN squared error")
    leak = ms.cross_val_curve((X - X.mean(0)) / X.std(0), y, lams, pairs, standardize=False)
    if np.allclose(c, leak, rtol=1e-8):
        raise AssertionError(
            "it looks as if X was standardised with ALL the data before the split; compute "
            "the means and scales from the training rows of each fold only"
        )
    a, B = ms.ridge_fit_path(X, y, lams)
    fitted = np.mean((y[:, None] - a - X @ B) ** 2, axis=0)
    if np.allclose(c, fitted, rtol=1e-6):
        raise AssertionError("that is the training error of fits on all the data; predict each "
                             "fold with a model fitted WITHOUT it")
    if np.allclose(c, ref[::-1], rtol=1e-8):
        raise AssertionError("cv_curve is in the reverse order: one value per entry of lams, "
                             "in the order of lams")
    j = int(np.argmax(np.abs(c - ref) / ref))
    raise AssertionError(
        f"cv_curve[{j}] = {c[j]:.6g} is not the CV error at lam = {lams[j]:.4g} for your "
        "folds (relative tolerance 1e-8); fit RidgeRegression(lam=lam) on the other folds "
        "and average the squared errors over all n points"
    )


def check_lam_hat(lam_hat: Any, curve: Any, lams: Any, name: str = "lam_hat") -> None:
    """Check that ``lam_hat`` is the grid value minimising a (checked) error curve."""
    lams = np.asarray(lams, dtype=float)
    c = answer_array(curve, "the error curve", lams.shape)
    v = answer_scalar(lam_hat, name)
    best = float(lams[int(np.argmin(c))])
    if abs(v - best) > 1e-12 * best:
        worst = float(lams[int(np.argmax(c))])
        hint = " (that is the maximiser)" if abs(v - worst) < 1e-12 * v else ""
        raise AssertionError(f"{name} = {v:.6g} but the curve is smallest at {best:.6g}{hint}")
    print(f"Correct: {name} = {best:.4g}.")


# --------------------------------------------------------------------------- #
# stacking
# --------------------------------------------------------------------------- #
def check_stack_weights(w: Any, P: Any, y: Any) -> None:
    """Check NNLS weights: ``w >= 0`` reaching the minimum of ``||y - P w||`` over ``w >= 0``.

    The minimum comes from ``scipy.optimize.nnls`` (Lawson-Hanson); a miss is diagnosed
    through the KKT conditions (gradient ``P^T (P w - y)`` zero on the positive weights,
    non-negative on the others).
    """
    P = np.asarray(P, dtype=float)
    y = np.asarray(y, dtype=float)
    w = answer_array(w, "w", (P.shape[1],))
    if (w < -1e-12).any():
        raise AssertionError(
            f"stacking weights must be non-negative; w has {int((w < 0).sum())} negative "
            "entries (plain least squares? use scipy.optimize.nnls)"
        )
    best = optimize.nnls(P, y)[1]
    got = float(np.linalg.norm(y - P @ w))
    if got > best + 1e-7 * max(best, float(np.linalg.norm(y))):
        slope = P.T @ (P @ w - y)
        positive = w > 1e-10 * max(1.0, float(w.max()))
        if np.abs(slope[positive]).max(initial=0.0) > 1e-6 * float(np.abs(P.T @ y).max()):
            hint = ""
            if abs(w.sum() - 1) < 1e-9:
                hint = " (the weights sum to 1: stacking by NNLS does not impose that)"
            raise AssertionError("w is not optimal: the gradient is non-zero on the positive "
                                 f"weights{hint}")
        raise AssertionError("w is not optimal: increasing a zero weight would lower the error")
    print(f"Correct: {int((w > 1e-10).sum())} positive weights reach the NNLS minimum "
          f"{best:.4f}.")


def check_stacked_prediction(pred_test: Any, w: Any, X: Any, y: Any, X_test: Any,
                             lams: Any) -> None:
    """Check the stacked prediction ``sum_l w_l f_{lam_l}(X_test)`` with refits on ALL the data.

    The reference refits every penalty on all of ``(X, y)`` with
    :func:`kmlib.model_selection.ridge_fit_path` (intercept, standardised columns).
    """
    X, y = _data(X, y)
    X_test = np.asarray(X_test, dtype=float)
    lams = np.asarray(lams, dtype=float)
    pr = answer_array(pred_test, "pred_test", (len(X_test),))
    wv = answer_array(w, "w", lams.shape)
    a, B = ms.ridge_fit_path(X, y, lams)
    ref = (a + X_test @ B) @ wv
    if not np.allclose(pr, ref, rtol=1e-7, atol=1e-9 * (1 + np.abs(ref).max())):
        raise AssertionError(
            "pred_test differs from sum_l w_l * (ridge with lams[l] refitted on ALL the "
            "training data) evaluated at X_test; the fold fits are only used to choose w"
        )
    print(f"Correct: stacked predictions at {len(ref)} test points.")


# --------------------------------------------------------------------------- #
# GCV versus LOO
# --------------------------------------------------------------------------- #
def check_loo_gcv(loo: Any, gcv: Any, Z: Any, y: Any, lams: Any) -> None:
    """Check LOO and GCV curves of ridge with an intercept on a fixed design ``Z``.

    The reference builds the dense n x n hat matrix of penalised least squares
    with design ``[1, Z]`` and penalty ``diag(0, lam I)`` for every ``lam``.
    """
    Z, y = _data(Z, y)
    lams = np.asarray(lams, dtype=float)
    lo = answer_array(loo, "loo", lams.shape)
    gc = answer_array(gcv, "gcv", lams.shape)
    n = len(y)
    ref_loo, ref_gcv, no_icpt = np.empty(lams.size), np.empty(lams.size), np.empty(lams.size)
    for j, lam in enumerate(lams):
        H = _hat_matrix(Z, float(lam))
        r = y - H @ y
        h = np.diag(H)
        ref_loo[j] = np.mean((r / (1 - h)) ** 2)
        ref_gcv[j] = np.mean(r ** 2) / (1 - np.trace(H) / n) ** 2
        no_icpt[j] = np.mean((r / (1 - (h - 1 / n))) ** 2)
    if not np.allclose(lo, ref_loo, rtol=1e-8):
        if np.allclose(lo, no_icpt, rtol=1e-8):
            raise AssertionError("the leverages miss the intercept's 1/n: H_ii = 1/n + ...")
        raise AssertionError("loo differs from mean_i ((y_i - yhat_i) / (1 - H_ii))^2")
    if not np.allclose(gc, ref_gcv, rtol=1e-8):
        raise AssertionError(
            "gcv differs from (1/n)||y - yhat||^2 / (1 - tr(H)/n)^2; note the square and "
            "that tr(H) = 1 + sum_j d_j^2/(d_j^2 + lam) includes the intercept"
        )
    j_l, j_g = int(np.argmin(ref_loo)), int(np.argmin(ref_gcv))
    print(f"Correct: LOO is smallest at lam = {lams[j_l]:.4g}, GCV at lam = {lams[j_g]:.4g}.")


# --------------------------------------------------------------------------- #
# leakage through feature screening
# --------------------------------------------------------------------------- #
def _screened_cv_reference(X: np.ndarray, y: np.ndarray, n_keep: int, lam: float,
                           v: int, inside: bool) -> float:
    """CV error of screening by |Pearson correlation| (np.corrcoef), then ridge.

    The ridge is scikit-learn's Ridge on columns scaled to unit variance with an intercept:
    the same estimator as RidgeRegression, fitted by another library.
    """
    from sklearn.linear_model import Ridge

    def keep(rows: np.ndarray) -> np.ndarray:
        c = np.abs(np.corrcoef(X[rows].T, y[rows])[-1, :-1])
        return np.argsort(c)[::-1][:n_keep]

    cols_all = keep(np.arange(len(y)))
    sq = np.empty(len(y))
    for train, test in ms.KFold(v, random_state=0).split(len(y)):
        cols = keep(train) if inside else cols_all
        A = X[np.ix_(train, cols)]
        mean, sd = A.mean(axis=0), A.std(axis=0)
        fit = Ridge(alpha=lam).fit((A - mean) / sd, y[train])
        sq[test] = (y[test] - fit.predict((X[np.ix_(test, cols)] - mean) / sd)) ** 2
    return float(sq.mean())


def check_screened_cv(cv_wrong: Any, cv_right: Any, X: Any, y: Any, n_keep: int, lam: float,
                      v: int = 5) -> None:
    """Check the CV errors of "screen ``n_keep`` columns, then ridge".

    The columns are screened once on all the data (``cv_wrong``) and inside every fold
    (``cv_right``), with ``KFold(v, random_state=0)`` folds.
    """
    X, y = _data(X, y)
    a = answer_scalar(cv_wrong, "cv_wrong")
    b = answer_scalar(cv_right, "cv_right")
    ref_w = _screened_cv_reference(X, y, n_keep, lam, v, inside=False)
    ref_r = _screened_cv_reference(X, y, n_keep, lam, v, inside=True)

    def close(u: float, r: float) -> bool:
        return abs(u - r) <= 1e-6 * abs(r)

    if close(a, ref_r) and close(b, ref_w):
        raise AssertionError("the two values are swapped: cv_wrong screens once on all the data, "
                             "cv_right screens again on the training part of every fold")
    if not close(a, ref_w):
        raise AssertionError("cv_wrong is off: screen the columns once with all n points, "
                             "keep them fixed, then cross-validate ridge (intercept, "
                             "standardised columns) with KFold(v, random_state=0)")
    if not close(b, ref_r):
        raise AssertionError("cv_right is off: inside each fold, choose the columns with the "
                             "training rows only, then fit and predict as before")
    print("Correct: screening outside the folds reports a much smaller error than "
          "screening inside.")


def check_rotation(loo_Q: Any, gcv_Q: Any, X: Any, y: Any, Q: Any, lams: Any) -> None:
    """Check the LOO and GCV curves of ``(Q X, Q y)`` by brute force.

    LOO: one refit without each point, per penalty. GCV: the dense hat matrix of the rotated
    data (no intercept).
    """
    X, y = _data(X, y)
    Q = np.asarray(Q, dtype=float)
    lams = np.asarray(lams, dtype=float)
    lo = answer_array(loo_Q, "loo_Q", lams.shape)
    gc = answer_array(gcv_Q, "gcv_Q", lams.shape)
    XQ, yQ = Q @ X, Q @ y
    n, p = XQ.shape
    loo_ref, gcv_ref = [], []
    for lam in lams:
        errs = []
        for i in range(n):
            A, b = np.delete(XQ, i, 0), np.delete(yQ, i)
            errs.append(yQ[i] - XQ[i] @ np.linalg.solve(A.T @ A + lam * np.eye(p), A.T @ b))
        loo_ref.append(np.mean(np.square(errs)))
        H = XQ @ np.linalg.solve(XQ.T @ XQ + lam * np.eye(p), XQ.T)
        gcv_ref.append(np.mean((yQ - H @ yQ) ** 2) / (1 - np.trace(H) / n) ** 2)
    loo_ref, gcv_ref = np.array(loo_ref), np.array(gcv_ref)
    if not np.allclose(gc, gcv_ref, rtol=1e-8):
        raise AssertionError("gcv_Q is not the GCV curve of the rotated data (relative "
                             "tolerance 1e-8)")
    if not np.allclose(lo, loo_ref, rtol=1e-8):
        raise AssertionError("loo_Q is not the leave-one-out curve of the rotated data "
                             "(relative tolerance 1e-8)")
    print(f"Correct: GCV is unchanged by the rotation; LOO moves by up to "
          f"{np.max(np.abs(loo_ref / gcv_ref - 1)):.1%} of GCV.")

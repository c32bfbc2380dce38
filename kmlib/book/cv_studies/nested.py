"""Chapter 2 helpers: cross-validation done wrong and right, and nested cross-validation.

:func:`screened_ridge_cv` screens columns by correlation before or inside the folds
(leakage); :func:`nested_cv` wraps the choice of the penalty by inner CV in outer folds.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from kmlib import model_selection as ms
from kmlib._folds import Folds
from kmlib._validation import check_int, check_lam, check_matrix, check_same_length, check_vector
from kmlib.ridge import RidgeRegression

__all__ = ["screened_ridge_cv", "nested_cv"]


def screened_ridge_cv(X: ArrayLike, y: ArrayLike, n_keep: int, lam: float, folds: Folds = 5, *,
                      screen_inside: bool = True) -> float:
    """CV error of "keep the ``n_keep`` columns most correlated with y, then fit ridge".

    With ``screen_inside=True`` the screening is part of the procedure and is redone on the
    training part of every fold (the right way). With ``screen_inside=False`` the columns are
    screened once on all the data before the folds are formed (the wrong way: the held-out
    responses have already influenced which columns are kept).

    Parameters
    ----------
    X : array of shape (n, p)
    y : array of shape (n,)
    n_keep : int
        Number of columns kept, between 1 and p.
    lam : float
        Ridge penalty (intercept unpenalised, columns standardised inside each fit).
    folds : int or iterable of (train_idx, test_idx), default 5
        As everywhere in kmlib: an int v means ``KFold(v, shuffle=True, random_state=0)``.
    screen_inside : bool, default True
        Redo the screening inside every fold.

    Returns
    -------
    float
        Mean squared out-of-fold error.
    """
    X, y = check_matrix(X, "X", allow_1d=False), check_vector(y, "y")
    check_same_length(X, y)
    n, p = X.shape
    n_keep = check_int(n_keep, "n_keep", minimum=1)
    if n_keep > p:
        raise ValueError(f"n_keep: got {n_keep}; expected at most p = {p}")

    def top(rows: np.ndarray) -> np.ndarray:
        Xc = X[rows] - X[rows].mean(axis=0)
        norm = np.linalg.norm(Xc, axis=0)
        # a column constant on these rows has no correlation with y (score 0, not NaN)
        score = np.abs(Xc.T @ (y[rows] - y[rows].mean())) / np.where(norm > 0, norm, 1.0)
        return np.argsort(score)[::-1][:n_keep]

    keep_all = top(np.arange(n))
    sq = np.empty(n)
    for train, test in ms.resolve_folds(folds, n):
        cols = top(train) if screen_inside else keep_all
        fit = RidgeRegression(lam=lam).fit(X[np.ix_(train, cols)], y[train])
        sq[test] = (y[test] - fit.predict(X[np.ix_(test, cols)])) ** 2
    return float(sq.mean())


def nested_cv(X: ArrayLike, y: ArrayLike, lams: ArrayLike, outer: Folds = 5, inner: Folds = 5
              ) -> tuple[float, np.ndarray]:
    """Nested cross-validation of "choose lam by inner v-fold CV, then refit ridge".

    For every outer fold, the inner CV curve (:func:`kmlib.model_selection.cross_val_curve`) is
    computed on the outer training part only, its minimiser is refitted on that part, and the
    refit predicts the outer test part. The mean squared error over all points estimates the
    error of the whole selection procedure trained on ``n - n/outer`` points.

    Parameters
    ----------
    X : array of shape (n, p)
    y : array of shape (n,)
    lams : array of shape (L,)
        Grid of penalties.
    outer, inner : int or iterable of (train_idx, test_idx), default 5
        Outer folds and inner folds (passed to ``cross_val_curve`` for each outer
        training part); an int v means ``KFold(v, shuffle=True, random_state=0)``.

    Returns
    -------
    error : float
        Nested CV estimate.
    chosen : ndarray of shape (n_outer,)
        The penalty chosen in each outer fold.
    """
    X, y = check_matrix(X, "X"), check_vector(y, "y")
    check_same_length(X, y)
    lams = np.atleast_1d(check_lam(lams, "lams", allow_array=True))
    sq, chosen = np.empty(len(y)), []
    for train, test in ms.resolve_folds(outer, len(y)):
        lam = lams[np.argmin(ms.cross_val_curve(X[train], y[train], lams, folds=inner))]
        fit = RidgeRegression(lam=lam).fit(X[train], y[train])
        sq[test] = (y[test] - fit.predict(X[test])) ** 2
        chosen.append(lam)
    return float(sq.mean()), np.array(chosen)

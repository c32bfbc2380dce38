"""kmlib's KFold as scikit-learn's ``cv=`` (cross_val_score, GridSearchCV, cross_validate).

References trusted, named in each test: scikit-learn's own ``KFold`` (whose folds equal
kmlib's without shuffling), scikit-learn run on an explicit list of the same index pairs
(its iterable ``cv`` path, which calls no method of the splitter), and brute-force refits
of scikit-learn's ``Ridge`` fold by fold.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, cross_val_score, cross_validate
from sklearn.model_selection import KFold as SkKFold

from kmlib.kernels import gaussian
from kmlib.krr import KernelRidge
from kmlib.model_selection import KFold


def _data(n=23, p=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    return X, X @ [1.0, -2.0, 0.5] + 0.3 * rng.standard_normal(n)


def test_split_and_get_n_splits_take_scikit_learns_arguments():
    """split(X, y, groups) and get_n_splits(X, y, groups), y and groups ignored, as in
    scikit-learn's KFold; X as an array, a list, a sparse matrix, a data frame or a count."""
    X, y = _data()
    groups = np.arange(23) % 4
    cv = KFold(4, random_state=0)
    ref = [te.tolist() for _, te in cv.split(23)]
    for data in (X, X.tolist(), sp.csr_matrix(X), pd.DataFrame(X)):
        for args in ((), (y,), (y, groups), (None, None)):
            assert [te.tolist() for _, te in cv.split(data, *args)] == ref
        assert [te.tolist() for _, te in cv.split(data, y=y, groups=groups)] == ref
        assert cv.get_n_splits(data, y, groups) == cv.get_n_splits(X=data, groups=groups) == 4
    assert cv.get_n_splits() == SkKFold(4).get_n_splits() == 4


def test_cross_val_score_with_kmlib_kfold_equals_scikit_learns_kfold():
    """Without shuffling the folds are scikit-learn's: the same scores to the last bit."""
    X, y = _data()
    est = KernelRidge(kernel=gaussian(1.0), lam=0.1)
    ours = cross_val_score(est, X, y, cv=KFold(4, shuffle=False))
    theirs = cross_val_score(est, X, y, cv=SkKFold(4))
    np.testing.assert_array_equal(ours, theirs)
    sk = SkKernelRidge(alpha=0.1, kernel="rbf", gamma=0.5)   # gaussian(1.0): exp(-|x-x'|^2/2)
    np.testing.assert_allclose(cross_val_score(sk, X, y, cv=KFold(4, shuffle=False)), theirs,
                               rtol=1e-10)


def test_cross_val_score_with_shuffled_kfold_equals_brute_force_refits():
    """Shuffled (the default): scikit-learn on the explicit index pairs, and a refit of
    scikit-learn's Ridge on each fold by hand, give the same scores; groups are ignored."""
    X, y = _data()
    cv = KFold(5, random_state=3)
    pairs = list(cv.split(X))
    scores = cross_val_score(Ridge(alpha=1.0), X, y, cv=cv, groups=np.arange(23) % 2)
    np.testing.assert_array_equal(scores, cross_val_score(Ridge(alpha=1.0), X, y, cv=pairs))
    brute = [Ridge(alpha=1.0).fit(X[tr], y[tr]).score(X[te], y[te]) for tr, te in pairs]
    np.testing.assert_allclose(scores, brute, rtol=1e-12)
    res = cross_validate(Ridge(alpha=1.0), X, y, cv=cv, return_indices=True)
    assert [te.tolist() for te in res["indices"]["test"]] == [te.tolist() for _, te in pairs]


@pytest.mark.parametrize("shuffle", [False, True])
def test_grid_search_with_kmlib_kfold(shuffle):
    """GridSearchCV(cv=KFold(...)): the same table as scikit-learn's KFold (no shuffle) or
    as the explicit index pairs (shuffled), and a mean test score equal to brute-force
    refits of Ridge, fold by fold, for every alpha."""
    X, y = _data(n=30)
    grid = {"alpha": [0.01, 1.0, 100.0]}
    cv = KFold(3, shuffle=shuffle, random_state=0)
    ours = GridSearchCV(Ridge(), grid, cv=cv).fit(X, y)
    ref_cv = SkKFold(3) if not shuffle else list(cv.split(X))
    theirs = GridSearchCV(Ridge(), grid, cv=ref_cv).fit(X, y)
    np.testing.assert_array_equal(ours.cv_results_["mean_test_score"],
                                  theirs.cv_results_["mean_test_score"])
    assert ours.best_params_ == theirs.best_params_ and ours.n_splits_ == 3
    brute = [np.mean([Ridge(alpha=a).fit(X[tr], y[tr]).score(X[te], y[te])
                      for tr, te in cv.split(X)]) for a in grid["alpha"]]
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"], brute, rtol=1e-12)


def test_default_is_still_shuffled():
    """kmlib's default differs from scikit-learn's (shuffle=False): the book's folds are the
    seeded permutation, KFold(v, shuffle=True, random_state=0)."""
    assert KFold().shuffle is True and SkKFold().shuffle is False
    a = [te.tolist() for _, te in KFold(3, random_state=0).split(9)]
    assert a != [te.tolist() for _, te in SkKFold(3).split(np.zeros((9, 1)))]
    perm = np.random.default_rng(0).permutation(9)   # the documented rule, by hand
    assert a == [sorted(perm[3 * j:3 * j + 3].tolist()) for j in range(3)]


def test_bad_x_is_a_clear_type_error():
    with pytest.raises(TypeError, match="sample count or data with a length"):
        list(KFold(2).split(object()))

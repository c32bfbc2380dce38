"""Blocks of rows: one iterator and one memory setting (scikit-learn's ``working_memory``).

References: the block arithmetic by hand; every blocked computation is compared with the
same computation under a budget large enough for one block (or with a closed form), and
the number of kernel calls is counted to show that the blocks follow the budget.
"""
from __future__ import annotations

import numpy as np
import pytest
import sklearn

from kmlib import kernels
from kmlib._blocks import CACHE_MIB, block_rows, gen_blocks, row_blocks, tile_side, working_memory
from kmlib._validation import check_symmetric
from kmlib.falkon import NystroemKernelRidge
from kmlib.features import Nystroem
from kmlib.model_selection import oof_predictions_batch, ridge_path_batch
from kmlib.svm import KernelSVM
from kmlib.unsupervised import independence_test, two_sample_test

TINY, LARGE = 0.01, 4096  # MiB


def test_the_setting_is_scikit_learns_working_memory():
    assert working_memory() == sklearn.get_config()["working_memory"]
    with sklearn.config_context(working_memory=3):
        assert working_memory() == 3
        assert block_rows(2**20) == 3
        assert block_rows(1000, max_rows=7) == 7
        assert block_rows(2**30) == 1                       # at least one row
        assert block_rows(2**30, min_rows=16) == 16
        assert block_rows(1000, cache=True) == int(CACHE_MIB * 2**20 // 1000)
    with sklearn.config_context(working_memory=0.5):        # the cache budget never exceeds it
        assert block_rows(1000, cache=True) == int(0.5 * 2**20 // 1000)
        assert tile_side() == int(np.sqrt(0.5 * 2**20 / 8))
    assert tile_side(n_arrays=4) == int(np.sqrt(CACHE_MIB * 2**20 / 32))


@pytest.mark.parametrize("n, rows", [(0, 3), (1, 3), (9, 3), (10, 3), (10, 100)])
def test_gen_blocks_cover_the_rows_once_in_order(n, rows):
    blocks = list(gen_blocks(n, rows))
    assert np.array_equal(np.concatenate([np.arange(n)[b] for b in blocks] or [[]]),
                          np.arange(n))
    assert len(blocks) == -(-n // rows)
    assert all(b.stop - b.start == rows for b in blocks[:-1])
    with sklearn.config_context(working_memory=1):
        assert len(list(row_blocks(n, 2**20 / rows))) == -(-n // rows)


class CountingKernel:
    """A Gaussian kernel (a plain callable) that counts its calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self, A, B):
        self.calls += 1
        d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
        return np.exp(-d2 / 2)


def test_nystroem_transform_blocks_follow_the_budget():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    k = CountingKernel()
    ny = Nystroem(kernel=k, n_components=50, random_state=0).fit(X)
    out = {}
    for wm in (TINY, LARGE):
        k.calls = 0
        with sklearn.config_context(working_memory=wm):
            out[wm] = ny.transform(X)
        rows = block_rows(8 * 50) if wm == LARGE else int(TINY * 2**20 // 400)
        assert k.calls == -(-300 // rows)
    assert k.calls == 1 and -(-300 // int(TINY * 2**20 // 400)) == 12
    np.testing.assert_allclose(out[TINY], out[LARGE], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("symmetric", [True, False])
def test_gram_tiles_agree_with_the_closed_form_for_any_budget(symmetric):
    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(400, 4)), rng.normal(size=(700, 4))
    Y = X if symmetric else Y
    d2 = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    ref = np.exp(-d2 / (2 * 1.5**2))
    for wm in (TINY, LARGE):
        with sklearn.config_context(working_memory=wm):
            G = kernels.gaussian(1.5)(X, None if symmetric else Y)
        np.testing.assert_allclose(G, ref, rtol=1e-12, atol=1e-15)
        if symmetric:
            assert np.array_equal(G, G.T)
            with sklearn.config_context(working_memory=wm):
                check_symmetric(G)
                A = G.copy()
                A[399, 0] += 1e-3
                with pytest.raises(ValueError, match="symmetric"):
                    check_symmetric(A)


def test_permutation_tests_do_not_depend_on_the_budget():
    rng = np.random.default_rng(2)
    X, Y = rng.normal(size=(60, 2)), rng.normal(0.3, size=(50, 2))
    k = kernels.gaussian(1.0)
    res = {}
    for wm in (TINY / 10, LARGE):
        with sklearn.config_context(working_memory=wm):
            res[wm] = (two_sample_test(X, Y, kernel=k, n_permutations=300, random_state=0),
                       independence_test(X[:50], Y, kernel_x=k, kernel_y=k,
                                         n_permutations=300, random_state=0))
    (a, b), (c, d) = res.values()
    for r, s in ((a, c), (b, d)):
        assert r.p_value == s.p_value
        np.testing.assert_allclose(r.null_distribution, s.null_distribution, rtol=1e-10)
    with sklearn.config_context(working_memory=TINY / 10):   # several permutation blocks
        assert len(list(row_blocks(300, 3 * 8 * 110))) > 1


def test_batched_ridge_does_not_depend_on_the_budget():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 30, 4))
    y = X @ np.array([1.0, -1.0, 0.5, 0.0]) + rng.normal(size=(40, 30))
    lams = np.logspace(-2, 2, 5)
    out = {}
    for wm in (TINY / 10, LARGE):
        with sklearn.config_context(working_memory=wm):
            out[wm] = (*ridge_path_batch(X, y, lams), oof_predictions_batch(X, y, lams, 5))
    for u, v in zip(*out.values(), strict=True):
        np.testing.assert_allclose(u, v, rtol=1e-10, atol=1e-12)
    # one dataset: 8 (3 * 30 * 4 + 34 * 5) = 4240 bytes; 1 KiB holds none, so one per block
    with sklearn.config_context(working_memory=TINY / 10):
        assert block_rows(4240) == 1


def test_falkon_and_smo_do_not_depend_on_the_budget():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(500, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=500)
    lab = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    out = {}
    for wm in (TINY, LARGE):
        with sklearn.config_context(working_memory=wm):
            pred = [NystroemKernelRidge(kernel=kernels.gaussian(1.0), lam=1e-3, n_components=40,
                                        solver=s, random_state=0).fit(X, y).predict(X)
                    for s in ("direct", "pcg")]
            svm = KernelSVM(kernel=CountingKernel(), C=1.0).fit(X, lab)
            out[wm] = (*pred, svm.decision_function(X))
    for u, v in zip(*out.values(), strict=True):
        np.testing.assert_allclose(u, v, rtol=1e-6, atol=1e-8)

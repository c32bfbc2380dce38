"""Tests for kmlib.book.large_scale (chapter "Large-scale kernel machines").

The package keeps only the synthetic stream and the streaming estimator that the
benchmark runs; every test names its independent reference: ridge by SVD on the
materialised features, the size of a feature block, brute force, or a closed form.
"""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from kmlib import ridge
from kmlib.book import large_scale as ls


# --------------------------------------------------------------------------- #
# streaming ridge
# --------------------------------------------------------------------------- #
def test_streaming_ridge_equals_ridge_on_the_materialised_features():
    """Second algorithm: ridge by SVD on the full feature matrix."""
    blocks = list(ls.regression_blocks(3000, 4, block_size=700, seed=2))
    X = np.vstack([b[0] for b in blocks])
    y = np.concatenate([b[1] for b in blocks])
    model = ls.StreamingRFFRidge(2.0, 40, 0.5, seed=1).fit_blocks(iter(blocks))
    ref = ridge.ridge(model.rff_.transform(X), y, 0.5, method="svd")
    assert np.allclose(model.coef_, ref, rtol=1e-7, atol=1e-9)
    assert model.n_samples_seen_ == 3000
    again = ls.StreamingRFFRidge(2.0, 40, 0.5, seed=1).fit(X, y, block_size=1000)
    assert np.allclose(again.predict(X[:5]), model.predict(X[:5]), rtol=1e-8, atol=1e-10)


def test_streaming_memory_does_not_grow_with_n():
    """Closed form: peak memory is about two feature blocks, the same for n and 4n."""
    def peak(n):
        tracemalloc.start()
        ls.StreamingRFFRidge(2.0, 50, 1.0, seed=0).fit_blocks(
            ls.regression_blocks(n, 5, block_size=2000, seed=0))
        out = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return out
    p1, p4 = peak(4000), peak(16000)
    assert p4 == pytest.approx(p1, rel=0.1)
    assert p4 == pytest.approx(2 * 2000 * 100 * 8, rel=0.25)


def test_regression_blocks_are_reproducible_and_sized():
    """Brute force: block sizes add up to n; the same seed gives the same data."""
    a = list(ls.regression_blocks(2500, 3, block_size=1000, seed=4))
    b = list(ls.regression_blocks(2500, 3, block_size=1000, seed=4))
    assert [len(blk[1]) for blk in a] == [1000, 1000, 500]
    assert all(np.array_equal(p[0], q[0]) for p, q in zip(a, b, strict=True))
    with pytest.raises(ValueError, match="d must be >= 1"):   # checked at the call, not lazily
        ls.regression_blocks(10, 0)


def test_streaming_validation():
    with pytest.raises(ValueError, match="blocks is empty"):
        ls.StreamingRFFRidge().fit_blocks([])
    with pytest.raises(ValueError, match="lam must be > 0"):
        ls.StreamingRFFRidge(lam=0.0).fit(np.ones((3, 2)), np.ones(3))
    with pytest.raises(ValueError, match="not fitted|fit"):
        ls.StreamingRFFRidge().predict(np.ones((3, 2)))


def test_regression_target_is_the_noiseless_mean():
    """Closed form: sin(x_1) + cos(x_2) / 2; the blocks scatter around it with the noise."""
    X, y = next(ls.regression_blocks(20_000, 3, block_size=20_000, noise=0.1, seed=5))
    f = ls.regression_target(X)
    assert np.allclose(f, np.sin(X[:, 0]) + 0.5 * np.cos(X[:, 1]))
    assert np.std(y - f) == pytest.approx(0.1, rel=0.03)

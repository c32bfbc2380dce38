"""Tests for the Chapter 7 and 9 generators in kmlib.datasets.

References trusted here: geometry of the two half-circles, the square wave's
definition at hand-picked points, sample statistics of the noise, and for the
Sobolev-ball functions the first-order Sobolev norm int_0^1 f'(x)^2 dx computed
by numerical quadrature of finite differences of f itself, plus the reproducing
property <f, min(., x)>_H = int_0^x f' = f(x) by scipy quadrature.
"""
from __future__ import annotations

import numpy as np
import pytest

from kmlib.datasets import (
    sine_and_square,
    sine_target,
    square_wave_target,
    two_moons,
)

# ---------------------------------------------------------------------------
# two_moons
# ---------------------------------------------------------------------------


def test_two_moons_shapes_labels_balance():
    """Shapes (n, 2) and (n,), labels exactly {-1, +1}, classes n - n//2 and n//2."""
    for n in (2, 7, 500):
        X, y = two_moons(n, random_state=0)
        assert X.shape == (n, 2) and y.shape == (n,)
        assert X.dtype == np.float64
        assert set(np.unique(y)) == {-1.0, 1.0}
        assert np.sum(y == 1) == n - n // 2 and np.sum(y == -1) == n // 2


def test_two_moons_noiseless_geometry():
    """Closed form: with noise=0 the +1 points lie on the upper unit half-circle and the -1
    points on the lower half-circle of radius 1 centred at (1, 1/2)."""
    X, y = two_moons(400, noise=0.0, random_state=1)
    up, low = X[y == 1], X[y == -1]
    np.testing.assert_allclose(np.linalg.norm(up, axis=1), 1.0, atol=1e-12)
    assert np.all(up[:, 1] >= -1e-12)
    np.testing.assert_allclose(np.linalg.norm(low - [1.0, 0.5], axis=1), 1.0, atol=1e-12)
    assert np.all(low[:, 1] <= 0.5 + 1e-12)
    # angles spread over the whole arc and rows shuffled (not sorted by label)
    assert up[:, 0].min() < -0.9 and up[:, 0].max() > 0.9
    assert not (np.all(y[:200] == 1) or np.all(y[:200] == -1))


def test_two_moons_noise_level():
    """Sample statistics: noise = 0.2 gives residual sd 0.2 (within 5%) off the arcs,
    measured along the radius where the arc is locally flat."""
    X0, y0 = two_moons(20_000, noise=0.0, random_state=2)
    X, y = two_moons(20_000, noise=0.2, random_state=2)
    np.testing.assert_array_equal(y, y0)   # same seed: same labels and angles
    resid = X - X0
    np.testing.assert_allclose(resid.std(axis=0), 0.2, rtol=0.05)
    np.testing.assert_allclose(resid.mean(axis=0), 0.0, atol=0.01)


def test_two_moons_deterministic():
    a = two_moons(50, 0.1, random_state=3)
    b = two_moons(50, 0.1, random_state=3)
    c = two_moons(50, 0.1, random_state=4)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.allclose(a[0], c[0])


@pytest.mark.parametrize("args,match", [
    ((1,), "n"), ((0,), "n"), ((10.5,), "n"),
    ((10, -0.1), "noise"), ((10, float("nan")), "noise"),
    ((10, 0.1, "x"), "random_state"),
])
def test_two_moons_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        two_moons(*args)


# ---------------------------------------------------------------------------
# sine_and_square
# ---------------------------------------------------------------------------

def test_targets_at_hand_picked_points():
    """The book's targets: sin(4 pi x); square wave 1 on [0, .25) U [.5, .75), -1 elsewhere."""
    x = np.array([0.0, 0.1, 0.25, 0.3, 0.5, 0.6, 0.75, 0.9, 1.0])
    np.testing.assert_array_equal(square_wave_target(x), [1, 1, -1, -1, 1, 1, -1, -1, -1])
    np.testing.assert_allclose(sine_target([0.125, 0.375, 0.5]), [1.0, -1.0, 0.0], atol=1e-12)
    assert sine_target(0.0625) == pytest.approx(np.sqrt(0.5))
    assert isinstance(square_wave_target(0.2), float)
    assert square_wave_target(x[:, None]).shape == (9,)


def test_sine_and_square_data():
    """Shapes, inputs in [0, 1], noise-free responses equal the targets, and the noise has
    sd `noise` (sample sd within 5%) and is independent between the two responses."""
    X, ys, yq = sine_and_square(40, random_state=0)
    assert X.shape == (40, 1) and ys.shape == (40,) and yq.shape == (40,)
    X0, ys0, yq0 = sine_and_square(30, noise=0.0, random_state=1)
    assert np.all((X0 >= 0) & (X0 <= 1))
    np.testing.assert_allclose(ys0, np.sin(4 * np.pi * X0[:, 0]), atol=1e-12)
    np.testing.assert_array_equal(yq0, square_wave_target(X0))
    Xb, ysb, yqb = sine_and_square(20_000, noise=0.3, random_state=2)
    e1 = ysb - np.sin(4 * np.pi * Xb[:, 0])
    e2 = yqb - square_wave_target(Xb)
    np.testing.assert_allclose([e1.std(), e2.std()], 0.3, rtol=0.05)
    assert abs(np.corrcoef(e1, e2)[0, 1]) < 0.03
    assert abs(Xb.mean() - 0.5) < 0.01


def test_sine_and_square_deterministic():
    a = sine_and_square(25, 0.1, random_state=5)
    b = sine_and_square(25, 0.1, random_state=5)
    for u, v in zip(a, b, strict=False):
        np.testing.assert_array_equal(u, v)
    assert not np.allclose(a[0], sine_and_square(25, 0.1, random_state=6)[0])


def test_sine_and_square_bad_input():
    with pytest.raises(ValueError, match="n"):
        sine_and_square(0)
    with pytest.raises(ValueError, match="noise"):
        sine_and_square(10, noise=-1.0)
    with pytest.raises(ValueError, match="x must lie in"):
        sine_target([0.5, 1.5])
    with pytest.raises(ValueError, match="x must lie in"):
        square_wave_target(-0.1)
    with pytest.raises(ValueError, match="x contains"):
        sine_target([np.nan])
    with pytest.raises(ValueError, match="x must hold points of \\[0, 1\\], i.e. have one column"):
        sine_target(np.zeros((3, 2)))

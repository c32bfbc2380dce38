"""Tests of the shared test helpers (tests/_estimator_fixtures.py, tests/_exercise_cells.py).

References: the kernel formulas evaluated entry by entry (brute force), and
hand-listed names for a small source snippet.
"""
from __future__ import annotations

import numpy as np
import pytest
from _estimator_fixtures import linear, random_two_class, rbf
from _exercise_cells import assert_checks_fail_with_none_stubs, assigned_names, check_sources


def test_kernels_match_their_formulas_entrywise():
    """Reference: exp(-gamma |x - x'|^2) and x.x' computed by a double loop."""
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((4, 3)), rng.standard_normal((5, 3))
    brute_rbf = np.array([[np.exp(-0.7 * np.sum((x - z) ** 2)) for z in Y] for x in X])
    brute_lin = np.array([[float(x @ z) for z in Y] for x in X])
    np.testing.assert_allclose(rbf(0.7)(X, Y), brute_rbf, rtol=1e-12)
    np.testing.assert_allclose(linear(X, Y), brute_lin, rtol=1e-12)
    np.testing.assert_allclose(rbf(0.7)(X), rbf(0.7)(X, X), rtol=1e-12)


@pytest.mark.parametrize("n", [2, 3, 17])
def test_random_two_class_has_both_labels(n):
    """Reference: the documented contract (shape, labels in {-1, 1}, both present, seeded)."""
    X, y = random_two_class(n, seed=5)
    assert X.shape == (n, 2) and y.shape == (n,)
    assert set(y.tolist()) == {-1.0, 1.0}
    X2, y2 = random_two_class(n, seed=5)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)


def test_assigned_names_lists_top_level_bindings():
    """Reference: the names bound by this snippet, listed by hand."""
    src = (
        "a = 1\n"
        "b, (c, d) = 2, (3, 4)\n"
        "e += 1\n"
        "f: int = 0\n"
        "def g():\n    inner = 1\n"
        "class H:\n    pass\n"
        "print(a)\n"
    )
    assert assigned_names(src) == ["a", "b", "c", "d", "e", "f", "g", "H"]


def test_none_stubs_make_checks_fail_and_a_lax_check_is_caught():
    """Reference: the contract: with the solution's name bound to None the check cell
    must raise AssertionError; a check cell that accepts None makes the helper fail."""
    setup = ([], "def check(v):\n    assert v is not None, 'v is None'")
    cells = [setup, (["solution"], "v = 2.0"), (["check"], "check(v)")]
    assert check_sources(cells) == ["check(v)"]
    assert_checks_fail_with_none_stubs(cells)
    lax = [setup, (["solution"], "v = 2.0"), (["check"], "pass")]
    with pytest.raises(pytest.fail.Exception):
        assert_checks_fail_with_none_stubs(lax)

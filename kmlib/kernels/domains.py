"""Kernels on other domains: Sobolev kernels on [0, 1] and kernels on finite sets.

The Sobolev kernels serve the chapter "Reproducing kernel Hilbert spaces"; the set
kernels the chapter "Kernels: positive definiteness, closure rules and a catalogue".
"""
from __future__ import annotations

import numpy as np

from .._validation import (
    check_matrix,
    check_unit_interval,
)
from .._validation.params import Interval, Real, validate_args
from .base import Kernel, _inner, _rowdot

__all__ = ["sobolev1", "sobolev2", "jaccard", "intersection_power"]


class _UnitInterval(Kernel):
    """Kernels on [0, 1]: one-column inputs with values in [0, 1]."""

    def _check(self, X, name):
        return check_unit_interval(X, name, repr(self))


class _Sobolev1(_UnitInterval):
    def _gram(self, X, Y):
        return np.minimum(X, Y.T)

    def _paired(self, X, Y):
        return np.minimum(X[:, 0], Y[:, 0])

    def _diag(self, X):
        return X[:, 0].copy()

    def __repr__(self):
        return "sobolev1()"


class _Sobolev2(_UnitInterval):
    @staticmethod
    def _of(a, b):
        """The kernel of ``a = min(x, x')`` and ``b = max(x, x')``, entry by entry."""
        # a^2 b / 2 - a^3 / 6 written as a^2 (3 b - a) / 6, a sum of two >= 0 terms
        return a * a * (3.0 * b - a) / 6.0

    def _gram(self, X, Y):
        return self._of(np.minimum(X, Y.T), np.maximum(X, Y.T))

    def _paired(self, X, Y):
        x, y = X[:, 0], Y[:, 0]
        return self._of(np.minimum(x, y), np.maximum(x, y))

    def _diag(self, X):
        return X[:, 0] ** 3 / 3.0

    def __repr__(self):
        return "sobolev2()"


class _SetKernel(Kernel):
    """Kernels on subsets of {1, ..., p}: row i is the indicator vector of set i."""

    def _check(self, X, name):
        A = check_matrix(X, name, allow_1d=False)
        bad = (A != 0.0) & (A != 1.0)
        if np.any(bad):
            found = np.unique(A[bad])[:5]
            raise ValueError(
                f"{name} must be a 0/1 (or boolean) indicator matrix with one row per "
                f"set for {self!r}; found the values {found.tolist()}"
            )
        return A


class _Jaccard(_SetKernel):
    @staticmethod
    def _of(inter, union):
        """``|A ∩ B| / |A ∪ B|`` entry by entry, with ``0/0 := 1``."""
        out = np.ones_like(inter)
        np.divide(inter, union, out=out, where=union > 0)
        return out

    def _gram(self, X, Y):
        inter = _inner(X, Y)
        sx = X.sum(axis=1)
        sy = sx if Y is X else Y.sum(axis=1)
        return self._of(inter, sx[:, None] + sy[None, :] - inter)

    def _paired(self, X, Y):
        inter = _rowdot(X, Y)
        return self._of(inter, X.sum(axis=1) + Y.sum(axis=1) - inter)

    def _diag(self, X):
        return np.ones(len(X))

    def __repr__(self):
        return "jaccard()"


class _IntersectionPower(_SetKernel):
    def __init__(self, base: float):
        self.base = base

    def _gram(self, X, Y):
        return self.base ** _inner(X, Y)

    def _paired(self, X, Y):
        return self.base ** _rowdot(X, Y)

    def _diag(self, X):
        return self.base ** X.sum(axis=1)

    def __repr__(self):
        return f"intersection_power(base={self.base!r})"


def sobolev1() -> Kernel:
    """First-order Sobolev (Brownian-motion) kernel ``k(x, x') = min(x, x')`` on [0, 1].

    Its RKHS is ``{f : f(0) = 0, int_0^1 f'^2 < inf}`` with inner product
    ``int_0^1 f' g'``.  Inputs must be one-dimensional with values in [0, 1]
    (ValueError otherwise).

    Returns
    -------
    Kernel
    """
    return _Sobolev1()


def sobolev2() -> Kernel:
    """Second-order Sobolev kernel ``k(x, x') = int_0^{min(x,x')} (x - u)(x' - u) du``.

    In closed form ``x^2 x' / 2 - x^3 / 6`` for ``x <= x'``.  Its RKHS is
    ``{f : f(0) = f'(0) = 0, int_0^1 f''^2 < inf}`` with inner product
    ``int_0^1 f'' g''``.  Inputs must be one-dimensional with values in [0, 1].

    Returns
    -------
    Kernel
    """
    return _Sobolev2()


def jaccard() -> Kernel:
    """Jaccard kernel ``k(A, B) = |A ∩ B| / |A ∪ B|`` on subsets, with ``0/0 := 1``.

    Sets are given as rows of a 0/1 (or boolean) indicator matrix of shape
    ``(n_sets, p)``; any other value raises ValueError.

    Returns
    -------
    Kernel
    """
    return _Jaccard()


@validate_args({"base": [Interval(Real, 1, None, closed="left")]})
def intersection_power(base: float = 2.0) -> Kernel:
    """Set kernel ``k(A, B) = base^{|A ∩ B|}`` on subsets, ``base >= 1``.

    Positive definite as the product over the ground set of the kernels
    ``1 + (base - 1) 1[w in A] 1[w in B]``.  Sets are given as rows of a 0/1
    (or boolean) indicator matrix.

    Parameters
    ----------
    base : float, default 2.0
        ``base >= 1``.

    Returns
    -------
    Kernel
    """
    return _IntersectionPower(float(base))

"""Fold construction shared by every cross-validation routine in kmlib.

Convention (used by every CV function): ``folds`` is an int v, meaning
``KFold(v, shuffle=True, random_state=0)``; a splitter, any object with a
``split(X)`` method yielding ``(train_idx, test_idx)`` (kmlib's :class:`KFold`,
scikit-learn's ``KFold``); or an iterable of ``(train_idx, test_idx)`` pairs.
The CV error is the mean over all n points of the squared out-of-fold error, so
every point must be in exactly one test fold.
"""
from __future__ import annotations

import numbers
from collections.abc import Iterable, Iterator, Sized
from typing import Protocol, Union, cast, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike

from ._typing import Seed
from ._validation import Integral, Interval, as_generator, validate_args

__all__ = ["KFold", "Splitter", "Folds", "resolve_folds"]


@runtime_checkable
class Splitter(Protocol):
    """Anything with ``split(X)`` yielding ``(train_idx, test_idx)`` pairs."""

    def split(self, X: ArrayLike) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield the index pairs of each fold."""


#: Cross-validation folds: an int v (``KFold(v, shuffle=True, random_state=0)``), a
#: :class:`Splitter`, or an iterable of ``(train_idx, test_idx)`` pairs.
Folds = Union[int, Splitter, Iterable[tuple[ArrayLike, ArrayLike]]]


class KFold:
    """Split ``n`` points into ``n_splits`` folds of nearly equal size.

    The first ``n % n_splits`` folds have one point more than the others, as in
    scikit-learn.  With ``shuffle=True`` the points are permuted first by a
    :class:`numpy.random.Generator` seeded with ``random_state``.

    The parameters are checked when the splitter is made, as in scikit-learn.
    ``split(X, y, groups)`` and ``get_n_splits(X, y, groups)`` take scikit-learn's
    arguments, so a ``KFold`` is a valid ``cv=`` of ``cross_val_score`` or
    ``GridSearchCV``; ``y`` and ``groups`` are ignored, as by scikit-learn's ``KFold``.
    Unlike scikit-learn's, the default is ``shuffle=True``: with
    ``random_state=None`` every call of ``split`` draws new folds (give an int for
    the same folds on every call).

    Parameters
    ----------
    n_splits : int
        Number of folds v (at least 2).
    shuffle : bool, default True
        Permute the points before cutting them into folds.
    random_state : int, Generator or None
        Seed of the permutation; ``None`` draws fresh entropy.

    Examples
    --------
    >>> folds = list(KFold(3, shuffle=False).split(6))
    >>> [test.tolist() for _, test in folds]
    [[0, 1], [2, 3], [4, 5]]
    """

    @validate_args({"n_splits": [Interval(Integral, 2, None)], "random_state": ["random_state"]})
    def __init__(self, n_splits: int = 5, *, shuffle: bool = True,
                 random_state: Seed = None) -> None:
        self.n_splits = n_splits
        self.shuffle = shuffle
        self.random_state = random_state

    def get_n_splits(self, X: object = None, y: object = None, groups: object = None) -> int:
        """Number of folds; the arguments are ignored (scikit-learn's signature)."""
        return self.n_splits

    def fold_of(self, X: ArrayLike) -> np.ndarray:
        """Return kappa: ``kappa[i]`` is the fold (0, ..., v-1) that holds point i.

        ``X`` is a sample count or data with the samples along its first axis (an array,
        a sparse matrix, a data frame, a list).
        """
        n = X if isinstance(X, numbers.Integral) else _n_samples(X)
        k = int(self.n_splits)   # its rule, like random_state's, checked by __init__
        if k > n:   # n is an int (a count or a length); k >= 2 > n also rejects n < 1
            raise ValueError(
                f"n_splits must be <= the number of samples; got n_splits={k} for {n} samples"
            )
        order = np.arange(n)
        if self.shuffle:
            order = as_generator(self.random_state).permutation(n)
        sizes = np.full(k, n // k)
        sizes[: n % k] += 1
        kappa = np.empty(n, dtype=int)
        kappa[order] = np.repeat(np.arange(k), sizes)
        return kappa

    def split(self, X: ArrayLike, y: object = None,
              groups: object = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(train_idx, test_idx)`` for each fold; ``X`` is data or a sample count.

        ``y`` and ``groups`` are ignored (scikit-learn's signature).
        """
        kappa = self.fold_of(X)
        for j in range(self.n_splits):
            test = np.flatnonzero(kappa == j)
            if self.shuffle:
                test = np.sort(test)
            yield np.flatnonzero(kappa != j), test

    def __repr__(self) -> str:
        return (f"KFold(n_splits={self.n_splits}, shuffle={self.shuffle}, "
                f"random_state={self.random_state!r})")


def _n_samples(X: object) -> int:
    """Number of samples of data ``X``: the length of its first axis."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) > 0:
        return int(shape[0])
    try:
        return len(cast(Sized, X))
    except TypeError as exc:
        raise TypeError(f"KFold.split: X must be a sample count or data with a length; "
                        f"got {type(X).__name__}") from exc


def resolve_folds(folds: Folds, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Turn the ``folds`` argument into a validated list of index pairs.

    An int v means ``KFold(v, shuffle=True, random_state=0)``; a splitter is asked for
    ``split(X)`` with an (n, 0) placeholder for X.  Raises ``ValueError`` naming ``folds``
    unless the test folds partition ``range(n)`` and each train fold is disjoint from its
    test fold and non-empty.
    """
    try:
        if isinstance(folds, numbers.Integral):   # (a bool too: n_splits' rule refuses it)
            return list(KFold(cast(int, folds), shuffle=True, random_state=0).split(n))
        if isinstance(folds, KFold):
            return list(folds.split(n))
        if isinstance(folds, Splitter) and not isinstance(folds, (str, bytes)):
            folds = list(folds.split(np.empty((n, 0))))
        try:
            pairs = [(np.asarray(tr).ravel(), np.asarray(te).ravel())  # dtypes: check_split
                     for tr, te in cast(Iterable, folds)]
        except (TypeError, ValueError) as exc:
            raise ValueError(
                "folds must be an int v or an iterable of (train_idx, test_idx) pairs"
            ) from exc
        if len(pairs) < 2:
            raise ValueError(f"folds must contain at least 2 folds; got {len(pairs)}")
        seen = np.zeros(n, dtype=int)
        for k, (tr, te) in enumerate(pairs):
            pairs[k] = tr, te = check_split(tr, te, n, "folds: ")   # index arrays (masks read)
            seen[te] += 1
        if not np.all(seen == 1):
            raise ValueError(
                "folds: the test sets must partition the samples (each point in exactly one "
                f"test fold); {int(np.sum(seen != 1))} point(s) are not"
            )
        return pairs
    except ValueError as exc:
        msg = str(exc)
        if not msg.startswith("folds"):
            msg = f"folds={folds!r} is invalid for n={n} samples: {msg}"
        raise ValueError(msg) from exc


def check_split(train: ArrayLike, test: ArrayLike, n: int,
                where: str = "") -> tuple[np.ndarray, np.ndarray]:
    """One split of ``n`` samples: non-empty arrays of integer indices in 0..n-1, disjoint.

    A boolean mask of length n stands for the indices where it is True, as in scikit-learn.
    Returns the two index arrays, flattened.  ``where`` starts the messages
    (``"folds: "`` for one fold of a ``folds`` argument).
    """
    pair = []
    for idx, name in ((train, "train_idx"), (test, "test_idx")):
        v = np.asarray(idx).ravel()
        v = np.flatnonzero(v) if v.dtype == bool and v.size == n else v
        if v.size == 0 or not np.issubdtype(v.dtype, np.integer):
            raise ValueError(f"{where}{name} must be a non-empty array of integer indices; "
                             f"got {v!r}")
        if v.min() < 0 or v.max() >= n:
            raise ValueError(f"{where}{name} has indices outside 0..{n - 1}")
        pair.append(v)
    if np.intersect1d(pair[0], pair[1]).size:
        raise ValueError(f"{where}train_idx and test_idx must be disjoint (a train set "
                         "overlaps its own test set)")
    return pair[0], pair[1]

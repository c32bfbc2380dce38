"""Blocks of rows: one iterator and one memory setting for every loop over blocks.

kmlib never holds more than a bounded amount of temporary memory for a large input: it
walks the rows in blocks.  The size of a block follows from one user-visible setting,
scikit-learn's ``working_memory`` (MiB, default 1024), read through its public
:func:`sklearn.get_config` and changed with :func:`sklearn.set_config` or, for a block
of code, :func:`sklearn.config_context`::

    with sklearn.config_context(working_memory=64):
        Phi = Nystroem(kernel, n_components=500).fit(X).transform(X)

Two kinds of blocks:

* blocks that bound memory (:func:`block_rows`): ``working_memory`` MiB of temporaries;
* blocks meant to stay in a core's cache while several passes run over them
  (``cache=True``, and the square tiles of :func:`tile_side`): at most
  :data:`CACHE_MIB` MiB, and never more than ``working_memory``.

The block size changes memory and speed, never which rows are computed; results agree
to rounding whatever the setting.  (The reflectors per compact-WY block of
:mod:`kmlib.model_selection.krr_cv` are a parameter of the algorithm, not a memory bound.)
"""
from __future__ import annotations

import math
from collections.abc import Iterator

import sklearn

__all__ = ["CACHE_MIB", "DIAG_BLOCK", "working_memory", "block_rows", "gen_blocks", "row_blocks",
           "tile_side"]

#: Budget of a block meant to stay in cache: within a core's L2 cache (typically 1-2 MiB).
CACHE_MIB = 1.0

#: Rows per kernel call when only the diagonal of a Gram matrix is needed and the kernel
#: is a plain callable: a (b, b) block per call, b - 1 of every b values unused.
DIAG_BLOCK = 64


def working_memory() -> float:
    """The memory budget of a block in MiB: scikit-learn's ``working_memory`` setting."""
    return float(sklearn.get_config()["working_memory"])


def _budget_bytes(cache: bool) -> float:
    mib = working_memory()
    return min(mib, CACHE_MIB) * 2**20 if cache else mib * 2**20


def block_rows(row_bytes: float, *, cache: bool = False, min_rows: int = 1,
               max_rows: int | None = None) -> int:
    """Rows per block: as many rows of ``row_bytes`` bytes as the budget holds.

    The budget is ``working_memory`` MiB, or ``min(working_memory, CACHE_MIB)`` MiB with
    ``cache=True``; the result lies in ``[min_rows, max_rows]`` (a block has at least
    ``min_rows`` rows even when one row exceeds the budget, as scikit-learn's chunked
    pairwise distances do).
    """
    rows = int(_budget_bytes(cache) // max(float(row_bytes), 1.0))
    if max_rows is not None:
        rows = min(rows, max_rows)
    return max(rows, min_rows, 1)


def gen_blocks(n: int, rows: int) -> Iterator[slice]:
    """Slices ``[0, rows), [rows, 2 rows), ...`` covering ``range(n)`` (the last may be short)."""
    for start in range(0, n, rows):
        yield slice(start, min(start + rows, n))


def row_blocks(n: int, row_bytes: float, *, cache: bool = False,
               min_rows: int = 1) -> Iterator[slice]:
    """Blocks of ``n`` rows of ``row_bytes`` bytes: :func:`gen_blocks` of :func:`block_rows`."""
    return gen_blocks(n, block_rows(row_bytes, cache=cache, min_rows=min_rows))


def tile_side(n_arrays: int = 1, itemsize: int = 8) -> int:
    """Side of the square tiles of a matrix, ``n_arrays`` of which fit in the cache budget."""
    return max(1, math.isqrt(int(_budget_bytes(True) // (n_arrays * itemsize))))

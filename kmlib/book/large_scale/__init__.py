"""A synthetic data stream and a streaming estimator for the chapter on large-scale kernel machines.

The chapter is "Large-scale kernel machines: random features and Nystrom". It builds its random
feature matrices, Nystrom approximations, classifiers and its streaming loop in its own cells, with
the library's :mod:`kmlib.features`; this package holds what is repeated elsewhere:

* :func:`regression_blocks` and :func:`regression_target` -- a synthetic regression sample
  yielded in blocks, never all at once (the chapter, the exercise sheet and the benchmark);
* :class:`StreamingRFFRidge` -- the chapter's accumulate-then-Cholesky loop as a small
  estimator, which ``benchmarks/bench_large_scale.py`` runs on a million points.

All randomness goes through an explicit ``seed``.
"""
from __future__ import annotations

from .streaming import StreamingRFFRidge, regression_blocks, regression_target

__all__ = [
    "regression_blocks",
    "regression_target",
    "StreamingRFFRidge",
]

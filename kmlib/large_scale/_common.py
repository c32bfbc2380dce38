"""BLAS thread control shared by the experiments of the chapter on large-scale kernel machines.

Chapter "Large-scale kernel machines: random features and Nystrom".  The
experiments made of many small matrix operations (the two-moons study, the
uniform-bound repetitions, the cost curve of exact KRR, the spectra, streaming
ridge with small blocks) run with a single BLAS thread when ``threadpoolctl`` is
installed: on a shared machine, synchronising BLAS threads for small matrices
costs more than it saves, and one thread makes the measured times reflect the
operation counts.
"""
from __future__ import annotations

import contextlib

try:  # optional: limit BLAS threads for loops of small matrix operations
    from threadpoolctl import threadpool_limits as _threadpool_limits
except ImportError:  # pragma: no cover - threadpoolctl ships with scikit-learn
    _threadpool_limits = None


def _one_blas_thread() -> contextlib.AbstractContextManager:
    """Context with one BLAS thread (a no-op without ``threadpoolctl``)."""
    if _threadpool_limits is None:  # pragma: no cover
        return contextlib.nullcontext()
    return _threadpool_limits(limits=1, user_api="blas")

"""Type aliases shared by kmlib's signatures.

They name what an argument may be, so that a signature says more than ``Any``.
With ``from __future__ import annotations`` (used by every kmlib module) they cost
nothing at run time.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Union

import numpy as np

__all__ = ["Seed", "KernelFunc"]

#: Source of randomness: None (fresh entropy), an int (the same draws on every call)
#: or a :class:`numpy.random.Generator` (shared state).
Seed = Union[int, np.random.Generator, np.random.RandomState, None]

#: A kernel: ``k(X, Y=None)`` returning the Gram matrix ``[k(x_i, y_j)]``
#: (kmlib's :class:`~kmlib.kernels.Kernel` objects, or any such callable).
KernelFunc = Callable[..., Any]

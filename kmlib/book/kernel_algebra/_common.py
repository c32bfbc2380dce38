"""Argument check shared by the kernel constructions of :mod:`kmlib.book.kernel_algebra`.

Every function of the chapter "Kernels: positive definiteness, closure rules, a
catalogue, and what is not a kernel" that takes a kernel object checks it here,
so the error message is the same everywhere.
"""
from __future__ import annotations

from typing import Any

from kmlib.kernels import Kernel


def _check_kernel_object(k: Any, name: str) -> Kernel:
    if not isinstance(k, Kernel):
        raise ValueError(
            f"{name} must be a kmlib.kernels.Kernel (e.g. kmlib.kernels.gaussian(1.0)); "
            f"got {type(k).__name__}"
        )
    return k

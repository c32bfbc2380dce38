"""Shared constants of the feature maps."""
from __future__ import annotations

_VARIANTS = ("cos_sin", "cos_phase")


_KERNELS = ("gaussian", "laplacian", "matern")

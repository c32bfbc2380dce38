"""Explicit (approximate) feature maps for large-scale kernel machines.

This module serves Chapter 9 of the book ("Large-scale kernel machines").  It
turns a kernel method into a linear one by building an explicit feature matrix
``Phi`` whose inner products approximate the kernel, ``Phi @ Phi.T ~ K``, so that
any linear model (ridge, a linear SVM, ...) trained on ``Phi`` costs time linear
in the number of samples.

* :class:`RandomFourierFeatures` -- Bochner's theorem turned into a Monte Carlo
  estimate: random frequencies drawn from the kernel's spectral density (Gaussian,
  Euclidean Laplacian and Matern kernels).
* :class:`Nystroem` -- a low-rank approximation of the Gram matrix from randomly
  chosen landmark points; works for any kernel.
* :class:`PositiveRandomFeatures` -- strictly positive features for the softmax
  (exponential dot-product) kernel ``exp(x^T x')``.
* :func:`rff_uniform_bound` -- how many random features guarantee a uniform
  error ``eps`` over all pairs of ``N`` points.

All randomness goes through an explicit ``random_state`` (``None``, an ``int`` or a
:class:`numpy.random.Generator`).  With an ``int`` ``random_state``, refitting draws the same
features again.  All three are scikit-learn transformers (``fit``/``transform``,
``Pipeline``, ``clone``).

Names.  ``Nystroem(n_components=m)`` names the output dimension, as scikit-learn's
``Nystroem`` does: m landmarks give m columns.  ``RandomFourierFeatures(n_features=D)``
and ``PositiveRandomFeatures(n_features=D)`` name the number D of random
frequencies, the D of the variance and uniform bounds of the chapter; the output
has ``2 D`` columns for the ``"cos_sin"`` map (stored in ``n_output_features_``).
The two names stay different because they count different things.
"""
from __future__ import annotations

from .fourier import (
    RandomFourierFeatures,
    rff_uniform_bound,
)
from .nystroem import (
    Nystroem,
)
from .positive import (
    PositiveRandomFeatures,
)

__all__ = [
    "RandomFourierFeatures", "Nystroem", "PositiveRandomFeatures", "rff_uniform_bound",
]

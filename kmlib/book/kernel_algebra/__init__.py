"""Kernel algebra: the closure rules as kernel objects, and catalogue additions.

This module serves the chapter "Kernels: positive definiteness, closure rules and a
catalogue".  :mod:`kmlib.kernels` already provides the common kernels and the
operators ``+``, ``*``, ``**`` and ``normalized``; here are the remaining closure
rules as kernel objects (tensor products, composition with a map,
``g(x) k(x, x') g(x')``, ``exp(k)``) and the kernels of the catalogue that
:mod:`kmlib.kernels` lacks (constant, Cauchy, the l1 Laplacian).  The chapter's
computations (smallest eigenvalues, the Schur-product simulation, min-hashing,
Gaussian-process sample paths, the empirical kernel maps, Nadaraya-Watson) are
written out in its cells.

The package is split by concept: ``catalogue`` (constant, Cauchy, l1 Laplacian)
and ``closure`` (tensor product, composition, rescaling, exponential).  Import
from :mod:`kmlib.book.kernel_algebra` itself.

Examples
--------
>>> import numpy as np
>>> from kmlib import kernels
>>> from kmlib.book import kernel_algebra as ka
>>> k = ka.exp_of(kernels.linear())          # exp(x^T x'), a power series of the linear kernel
>>> X = np.array([[0.0], [1.0]])
>>> bool(np.allclose(k(X), np.exp(X @ X.T)))
True
"""
from __future__ import annotations

from .catalogue import cauchy, constant, laplacian_l1
from .closure import composed, exp_of, rescaled, tensor_product

__all__ = [
    "constant",
    "cauchy",
    "laplacian_l1",
    "tensor_product",
    "composed",
    "rescaled",
    "exp_of",
]

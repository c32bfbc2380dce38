"""Kernel algebra: the closure rules as kernels, catalogue additions, and the empirical kernel map.

This module serves the chapter "Kernels: positive definiteness, closure rules, a
catalogue, and what is not a kernel".  :mod:`kmlib.kernels` already provides the
common kernels and the operators ``+``, ``*``, ``**`` and ``normalized``; here are
the remaining closure rules as kernel objects (tensor products, composition with a
map, ``g(x) k(x, x') g(x')``, power series with non-negative coefficients such as
``exp(k)``), the kernels of the catalogue that :mod:`kmlib.kernels` lacks (constant,
Cauchy, the l1 Laplacian), the textbook Bessel formula of the Matern family, an
explicit feature map of the one-dimensional Gaussian kernel, the empirical kernel
map and its whitened version, the Monte-Carlo argument behind the Schur product
rule, Gaussian-process sample paths, and the Nadaraya-Watson smoother (whose
"kernel" is a different object).

The package is split by concept: ``catalogue`` (constant, Cauchy, l1
Laplacian, the Matern Bessel formula, min-hashing for the Jaccard kernel),
``closure`` (tensor product, composition, rescaling, power series),
``feature_maps`` (Gaussian features, empirical and whitened kernel maps),
``covariance`` (smallest eigenvalue, Schur product by simulation, Gaussian-process
sample paths) and ``smoothing`` (Nadaraya-Watson).  Import from
:mod:`kmlib.book.kernel_algebra` itself.

Examples
--------
>>> import numpy as np
>>> from kmlib import kernels, kernel_algebra as ka
>>> k = ka.exp_of(kernels.linear())          # exp(x^T x'), a power series of the linear kernel
>>> X = np.array([[0.0], [1.0]])
>>> bool(np.allclose(k(X), np.exp(X @ X.T)))
True
"""
from __future__ import annotations

from .catalogue import cauchy, constant, laplacian_l1, matern_bessel, minhash_first
from .closure import composed, exp_of, power_series, rescaled, tensor_product
from .covariance import hadamard_monte_carlo, min_eigenvalue, sample_paths
from .feature_maps import empirical_kernel_map, gaussian_features_1d, whitened_kernel_map
from .smoothing import nadaraya_watson

__all__ = [
    "constant",
    "cauchy",
    "laplacian_l1",
    "tensor_product",
    "composed",
    "rescaled",
    "power_series",
    "exp_of",
    "matern_bessel",
    "gaussian_features_1d",
    "empirical_kernel_map",
    "whitened_kernel_map",
    "hadamard_monte_carlo",
    "sample_paths",
    "nadaraya_watson",
    "min_eigenvalue",
    "minhash_first",
]

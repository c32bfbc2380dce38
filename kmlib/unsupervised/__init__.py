"""Unsupervised kernel methods: kernel PCA, and kernel two-sample and independence tests.

This package serves chapter 11 of the book.  Each method sees the data only through a kernel:

* :class:`KernelPCA` -- principal components in feature space (a scikit-learn transformer).
* :func:`mmd2`, :func:`mmd2_linear` -- the squared maximum mean discrepancy between two
  samples; :func:`median_heuristic` -- the usual width of a Gaussian kernel for them.
* :func:`hsic` -- the Hilbert-Schmidt independence criterion of paired samples.
* :func:`two_sample_test`, :func:`independence_test` -- permutation tests built on them,
  returning a :class:`TestResult` ``(statistic, p_value, null_distribution)``.

A 1-D array of length n is n points in one dimension; a kernel is a kmlib kernel object or
any callable ``k(A, B)`` returning a Gram matrix; randomness comes from ``random_state``
(None, an int or a :class:`numpy.random.Generator`): the same int, the same permutations.
"""
from __future__ import annotations

from .hsic import hsic, independence_test
from .kpca import KernelPCA
from .mmd import TestResult, median_heuristic, mmd2, mmd2_linear, two_sample_test

__all__ = ["KernelPCA", "mmd2", "mmd2_linear", "median_heuristic", "hsic", "two_sample_test",
           "independence_test", "TestResult"]

"""Experiments and estimators for the chapter on large-scale kernel machines.

The chapter is "Large-scale kernel machines: random features and Nystrom". The feature
maps themselves live in :mod:`kmlib.features`; this module holds what the chapter
measures with them:

* :func:`exact_krr_cost` -- time and peak memory of exact kernel ridge regression;
* :func:`spectral_sample`, :func:`shift_invariant_profile`, :func:`bochner_mc` -- the
  spectral pairs of Bochner's theorem in one dimension, checked by Monte Carlo;
* :func:`rff_pair_estimates`, :func:`rff_variance` -- many independent random-feature
  estimates of one Gaussian kernel value, and their closed-form variance;
* :func:`softmax_prf_estimates`, :func:`softmax_prf_variance` -- the same for the
  positive random features of the softmax kernel ``exp(x^T x')``;
* :func:`uniform_max_errors` -- the largest error over all pairs of points, per draw;
* :func:`nystroem_gram`, :func:`relative_errors` -- the Nystrom approximation of a
  Gram matrix (pseudo-inverse or jitter) and its spectral / Frobenius errors;
* :func:`rff_vs_nystroem` -- both approximations on the same data, error and time;
* :func:`two_moons_study` -- exact KRR against RFF ridge classifiers on two moons;
* :class:`StreamingRFFRidge` and :func:`regression_blocks` -- ridge regression on random
  Fourier features with ``Phi^T Phi`` accumulated block by block, so that memory does
  not grow with the number of samples.

All randomness goes through an explicit ``seed``.  The experiments made of many small
matrix operations (the two-moons study, the uniform-bound repetitions, the cost
curve of exact KRR) run with a single BLAS thread when ``threadpoolctl`` is
installed: on a shared machine, synchronising BLAS threads for small matrices costs
more than it saves, and one thread makes the measured times reflect the operation
counts.

The code is split by concept into submodules: ``timing`` (measuring, exact KRR
cost), ``bochner`` (spectral laws), ``random_features`` (estimates of one kernel
value, uniform error), ``nystroem`` (Nystrom approximation quality, RFF against
Nystrom), ``moons`` (the two-moons study) and ``streaming`` (streaming RFF ridge).
Every public name is importable from :mod:`kmlib.book.large_scale` itself.
"""
from __future__ import annotations

from . import bochner as _bochner
from .bochner import bochner_mc, shift_invariant_profile, spectral_sample
from .moons import median_heuristic, two_moons_study
from .nystroem import nystroem_gram, relative_errors, rff_vs_nystroem, spectrum
from .random_features import (
    rff_pair_estimates,
    rff_variance,
    softmax_prf_estimates,
    softmax_prf_variance,
    uniform_max_errors,
)
from .streaming import StreamingRFFRidge, regression_blocks
from .streaming import regression_target as regression_target
from .timing import exact_krr_cost, measure, timed

# regression_target is public (the exercise sheet and the chapter use it) but was never in
# __all__; it stays importable as kmlib.book.large_scale.regression_target.

# Bound here by assignment so that its ``#:`` comment, which the API reference shows,
# sits in this module's source; it is the object of ``bochner``.
#: One-dimensional kernels whose spectral law :func:`spectral_sample` draws from.
SPECTRAL_KERNELS = _bochner.SPECTRAL_KERNELS

__all__ = [
    "timed",
    "measure",
    "exact_krr_cost",
    "SPECTRAL_KERNELS",
    "spectral_sample",
    "shift_invariant_profile",
    "bochner_mc",
    "rff_pair_estimates",
    "rff_variance",
    "softmax_prf_estimates",
    "softmax_prf_variance",
    "uniform_max_errors",
    "nystroem_gram",
    "spectrum",
    "relative_errors",
    "rff_vs_nystroem",
    "median_heuristic",
    "two_moons_study",
    "regression_blocks",
    "StreamingRFFRidge",
]

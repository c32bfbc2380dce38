"""Streaming ridge regression on random Fourier features, and a synthetic stream.

Chapter "Large-scale kernel machines: random features and Nystrom":
:class:`StreamingRFFRidge` accumulates ``Phi^T Phi`` block by block, so that memory
does not grow with the number of samples; :func:`regression_blocks` yields a
synthetic regression sample in blocks, never all at once (the benchmark
``benchmarks/bench_large_scale.py`` fits a million points this way).
"""
from __future__ import annotations

import contextlib
from typing import Iterable, Iterator

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import linalg
from scipy.linalg import blas

from kmlib._linalg import one_blas_thread
from kmlib._typing import Seed
from kmlib._validation import (
    check_finite_result,
    check_fitted,
    check_int,
    check_matrix,
    check_nonnegative,
    check_positive,
    check_same_length,
    check_vector,
)
from kmlib.features import RandomFourierFeatures

__all__ = ["regression_blocks", "regression_target", "StreamingRFFRidge"]

#: Below this many multiply-adds per block (columns^2 x rows), StreamingRFFRidge runs
#: with one BLAS thread: for small blocks, thread synchronisation costs more than it saves.
_SMALL_BLOCK_FLOPS = 2e9


def regression_blocks(n: int, d: int, *, block_size: int = 10_000, noise: float = 0.1,
                      seed: int = 0) -> Iterator[tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """Yield a synthetic regression sample of size ``n`` in blocks, never all at once.

    Inputs ``x ~ N(0, I_d)``; responses ``f(x) + noise * eps`` with
    ``f(x) = sin(x_1) + cos(x_2) / 2`` (only ``x_1`` when ``d == 1``).  Block
    ``b`` is drawn from ``numpy.random.default_rng([seed, b])``, so the sample is
    the same whatever consumes it.  The arguments are checked when the function is
    called, before the first block is drawn.
    """
    n = check_int(n, "n", minimum=1)
    d = check_int(d, "d", minimum=1)
    block_size = check_int(block_size, "block_size", minimum=1)
    noise = check_nonnegative(noise, "noise")
    seed = check_int(seed, "seed", minimum=0)
    return _blocks(n, d, block_size, noise, seed)


def _blocks(n: int, d: int, block_size: int, noise: float,
            seed: int) -> Iterator[tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """The generator behind :func:`regression_blocks` (arguments already checked)."""
    for b, start in enumerate(range(0, n, block_size)):
        m = min(block_size, n - start)
        rng = np.random.default_rng([seed, b])
        try:
            X = rng.standard_normal((m, d))
        except MemoryError:
            raise ValueError(
                f"a block of {m} x {d} inputs needs more memory than is available; "
                "lower block_size or d"
            ) from None
        with np.errstate(over="ignore", invalid="ignore"):
            y = regression_target(X) + noise * rng.standard_normal(m)
        yield X, check_finite_result(y, "the responses of regression_blocks",
                                     "noise is too large for float64")


def regression_target(X: ArrayLike) -> NDArray[np.float64]:
    """The noiseless target ``sin(x_1) + cos(x_2) / 2`` of :func:`regression_blocks`."""
    X = check_matrix(X, "X")
    f = np.sin(X[:, 0])
    if X.shape[1] > 1:
        f = f + 0.5 * np.cos(X[:, 1])
    return f


class StreamingRFFRidge:
    r"""Ridge regression on random Fourier features, fitted from a stream of blocks.

    Minimises :math:`\|y - Z\beta\|^2 + \lambda\|\beta\|^2` with :math:`Z` the
    cosine--sine features of the Gaussian kernel.  The normal equations need only
    :math:`Z^\top Z` (``2D x 2D``) and :math:`Z^\top y`, which are sums over the
    samples: they are accumulated block by block (``dsyrk`` for the Gram part), so
    memory is :math:`O(D^2 + b D)` for blocks of ``b`` rows whatever the number
    of samples, and time is :math:`O(n D^2 + D^3)`.  When one block costs fewer
    than ``2e9`` multiply-adds, the fit runs with one BLAS thread (if
    ``threadpoolctl`` is installed).

    Parameters
    ----------
    sigma : float, default=1.0
        Gaussian bandwidth.
    n_features : int, default=100
        Number :math:`D` of frequencies (``2D`` columns).
    lam : float, default=1.0
        Ridge penalty :math:`\lambda > 0`.
    seed : None, int or Generator

    Attributes
    ----------
    rff_ : RandomFourierFeatures
    coef_ : ndarray of shape (2 * n_features,)
    n_samples_seen_ : int
    """

    def __init__(self, sigma: float = 1.0, n_features: int = 100, lam: float = 1.0,
                 seed: Seed = None) -> None:
        self.sigma = sigma
        self.n_features = n_features
        self.lam = lam
        self.seed = seed

    def fit_blocks(self, blocks: Iterable[tuple[ArrayLike, ArrayLike]]) -> "StreamingRFFRidge":
        """Fit from an iterable of ``(X_block, y_block)`` pairs; returns ``self``.

        Raises ``ValueError`` when the coefficients are not finite (responses of size
        about 1e300, whose sums overflow).
        """
        lam = check_positive(self.lam, "lam")
        with contextlib.ExitStack() as stack:
            return self._fit_blocks(iter(blocks), lam, stack)

    def _fit_blocks(self, blocks: Iterator[tuple[ArrayLike, ArrayLike]], lam: float,
                    stack: contextlib.ExitStack) -> "StreamingRFFRidge":
        G = b = rff = None
        n_seen = 0
        for X, y in blocks:
            X = check_matrix(X, "X_block")
            y = check_vector(y, "y_block")
            check_same_length(X, y, "X_block", "y_block")
            if rff is None:
                rff = RandomFourierFeatures(sigma=self.sigma, n_features=self.n_features,
                                            random_state=self.seed).fit(X)
                p = rff.n_output_features_
                G, b = np.zeros((p, p), order="F"), np.zeros(p)
                if p * p * X.shape[0] < _SMALL_BLOCK_FLOPS:   # small blocks: one BLAS thread
                    stack.enter_context(one_blas_thread())
            Z = rff.transform(X)
            G = blas.dsyrk(1.0, Z, beta=1.0, c=G, trans=1, lower=1, overwrite_c=1)
            b += Z.T @ y
            n_seen += X.shape[0]
        if rff is None:
            raise ValueError("blocks is empty; expected at least one (X_block, y_block) pair")
        G.flat[:: G.shape[0] + 1] += lam
        check_finite_result(b, "Z^T y accumulated over the blocks",
                            "rescale the responses (e.g. standardise y) and try again")
        c = linalg.cho_factor(G, lower=True, overwrite_a=True, check_finite=False)
        self.coef_ = check_finite_result(linalg.cho_solve(c, b, check_finite=False),
                                         "the ridge coefficients coef_")
        self.rff_ = rff
        self.n_samples_seen_ = n_seen
        return self

    def fit(self, X: ArrayLike, y: ArrayLike, block_size: int = 10_000) -> "StreamingRFFRidge":
        """Fit from arrays in memory, still processed in blocks of ``block_size`` rows."""
        X = check_matrix(X, "X")
        y = check_vector(y, "y")
        check_same_length(X, y)
        bs = check_int(block_size, "block_size", minimum=1)
        return self.fit_blocks((X[i:i + bs], y[i:i + bs]) for i in range(0, X.shape[0], bs))

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        """Predictions ``z(X) @ coef_``."""
        check_fitted(self, "coef_")
        return self.rff_.transform(X) @ self.coef_

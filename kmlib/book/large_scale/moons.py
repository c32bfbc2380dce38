"""Exact kernel ridge against random-feature ridge classifiers on two moons.

Chapter "Large-scale kernel machines: random features and Nystrom": how many random
Fourier features a ridge classifier needs to match exact KRR in accuracy, and at
what fitting time (:func:`two_moons_study`), with the Gaussian bandwidth chosen by
:func:`median_heuristic`.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np
from numpy.typing import ArrayLike

from kmlib import kernels
from kmlib._linalg import one_blas_thread
from kmlib._validation import check_int, check_matrix, check_positive
from kmlib.datasets import two_moons
from kmlib.features import RandomFourierFeatures
from kmlib.krr import KernelRidge
from kmlib.ridge import ridge

from .timing import timed

__all__ = ["median_heuristic", "two_moons_study"]


def median_heuristic(X: ArrayLike) -> float:
    """Median of the pairwise Euclidean distances between distinct rows of ``X``."""
    X = check_matrix(X, "X")
    if X.shape[0] < 2:
        raise ValueError(f"X must have at least 2 rows; got {X.shape[0]}")
    G = X @ X.T
    sq = np.diag(G)[:, None] + np.diag(G)[None, :] - 2 * G
    iu = np.triu_indices(X.shape[0], 1)
    return float(np.sqrt(np.median(np.maximum(sq[iu], 0.0))))


def _accuracy(y: np.ndarray, score: np.ndarray) -> float:
    return float(np.mean(np.where(score >= 0, 1.0, -1.0) == y))


def two_moons_study(D_grid: Iterable[int], *, n: int = 500, noise: float = 0.2,
                    test_frac: float = 0.3, lam: float = 1e-3, n_seeds: int = 10,
                    seed: int = 0) -> dict[str, np.ndarray]:
    """Exact KRR classifier against RFF ridge classifiers on two moons.

    For each of ``n_seeds`` repetitions: draw ``n`` points, split off a test
    fraction, choose the Gaussian bandwidth by the median heuristic on the
    training inputs, fit exact KRR on labels +-1 (classify by the sign), and
    ridge regression on cosine--sine random features with ``D`` frequencies
    (``2D`` columns) for each ``D`` in ``D_grid``, with the same ``lam``
    (objective: sum of squared errors plus ``lam`` times the squared norm).
    Ridge is solved in the primal (a ``2D x 2D`` Cholesky) while ``2D`` does not
    exceed the number of training points, and in the dual (``n x n``) beyond.

    Returns
    -------
    dict
        ``D`` (grid), ``acc_exact`` (n_seeds,), ``acc_rff`` (n_seeds, len(D)),
        ``time_exact`` (n_seeds,), ``time_rff`` (n_seeds, len(D)) in seconds of
        fitting, and ``sigma`` (n_seeds,).
    """
    Ds = np.array([check_int(D, "D_grid[i]", minimum=1) for D in D_grid], dtype=int)
    n = check_int(n, "n", minimum=10)
    S = check_int(n_seeds, "n_seeds", minimum=1)
    lam = check_positive(lam, "lam")
    if not 0 < test_frac < 1:
        raise ValueError(f"test_frac must lie in (0, 1); got {test_frac!r}")
    seed = check_int(seed, "seed", minimum=0)
    res = {"D": Ds, "acc_exact": np.empty(S), "time_exact": np.empty(S), "sigma": np.empty(S),
           "acc_rff": np.empty((S, Ds.size)), "time_rff": np.empty((S, Ds.size))}
    with one_blas_thread():
        for s in range(S):
            _moons_repetition(res, s, seed, Ds, n, noise, test_frac, lam)
    return res


def _moons_repetition(res: dict, s: int, seed: int, Ds: np.ndarray, n: int, noise: float,
                      test_frac: float, lam: float) -> None:
    """One seed of :func:`two_moons_study`, written into ``res`` in place."""
    rng = np.random.default_rng([seed, s])
    X, y = two_moons(n, noise, random_state=rng)
    n_te = int(round(test_frac * n))
    Xtr, ytr, Xte, yte = X[n_te:], y[n_te:], X[:n_te], y[:n_te]
    sigma = median_heuristic(Xtr)
    model, t = timed(lambda: KernelRidge(kernel=kernels.gaussian(sigma), lam=lam).fit(Xtr, ytr))
    res["sigma"][s], res["time_exact"][s] = sigma, t
    res["acc_exact"][s] = _accuracy(yte, model.predict(Xte))
    for j, D in enumerate(Ds):
        rff = RandomFourierFeatures(sigma=sigma, n_features=int(D), random_state=rng)

        def fit(rff: RandomFourierFeatures = rff) -> np.ndarray:
            Z = rff.fit_transform(Xtr)
            method = "primal" if Z.shape[1] <= Z.shape[0] else "dual"
            return ridge(Z, ytr, lam, method=method)

        beta, res["time_rff"][s, j] = timed(fit)
        res["acc_rff"][s, j] = _accuracy(yte, rff.transform(Xte) @ beta)

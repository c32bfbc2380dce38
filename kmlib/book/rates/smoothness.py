"""The smoothness-matching experiment: kernels of three smoothnesses on two targets.

Chapter "How fast does kernel ridge regression learn?": a smooth target
(``sin(4 pi x)``) and a rough one (a square wave), fitted by KRR with the
exponential, Matern-5/2 and Gaussian kernels, length scale and penalty chosen
together by batched v-fold cross-validation (:func:`cv_table`,
:func:`smoothness_experiment`, :func:`smoothness_repeat`).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import linalg

from kmlib import datasets, kernels
from kmlib._folds import Folds
from kmlib._linalg import one_blas_thread
from kmlib._typing import Seed
from kmlib._validation import (
    check_int,
    check_matrix,
    check_nonnegative,
    check_rng,
    check_vector,
)

from ._common import _lam_grid

__all__ = ["SMOOTHNESS_KERNELS", "TARGETS", "cv_table", "smoothness_experiment",
           "smoothness_repeat"]


#: The three kernels of the experiment, rough to smooth: name -> factory of the length scale.
SMOOTHNESS_KERNELS: dict[str, Callable[[float], Any]] = {
    "exponential": lambda ell: kernels.matern(0.5, ell),
    "matern52": lambda ell: kernels.matern(2.5, ell),
    "gaussian": lambda ell: kernels.gaussian(ell),
}


def _check_factory(factory: Any, name: str) -> Callable[[float], Any]:
    """Raise unless ``factory`` is callable as ``factory(ell)`` (returning a kernel)."""
    if not callable(factory):
        raise ValueError(
            f"{name} must be a callable ell -> kernel, e.g. kmlib.kernels.gaussian; "
            f"got {type(factory).__name__}"
        )
    return factory

#: The two targets, smooth then rough.
TARGETS: dict[str, Callable[[ArrayLike], Any]] = {
    "sine": datasets.sine_target,
    "square": datasets.square_wave_target,
}


@one_blas_thread()
def cv_table(X: ArrayLike, y: ArrayLike, kernel_factory: Callable[[float], Any],
             ells: ArrayLike, lams: ArrayLike, folds: Folds = 5) -> NDArray[np.float64]:
    r"""v-fold CV errors of KRR for every (length scale, penalty) pair, batched.

    The Gram matrices of all length scales are stacked, and on each fold one
    batched symmetric eigendecomposition of the training blocks serves every
    penalty: :math:`\alpha_\lambda = U\,\mathrm{diag}(1/(d + \lambda))\,U^\top y_{tr}`.
    The result equals :func:`kmlib.model_selection.tune_krr`'s table (same folds,
    same error: the mean over all n points of the squared out-of-fold error);
    eigenvalues below zero (round-off of a positive definite kernel) are clipped.

    Parameters
    ----------
    X : array of shape (n,) or (n, 1)
    y : array of shape (n,)
    kernel_factory : callable
        ``kernel_factory(ell)`` returns a kernel ``k(A, B=None)``.
    ells : 1-D array
        Length scales (> 0).
    lams : 1-D array
        Penalties (> 0) on the sum of squared errors.
    folds : int or iterable of (train_idx, test_idx), default 5
        As in :func:`kmlib.model_selection.krr_cv_path` (an int v means
        ``KFold(v, shuffle=True, random_state=0)``).

    Returns
    -------
    ndarray of shape (len(ells), len(lams))
    """
    from kmlib._folds import resolve_folds

    X = check_matrix(X, "X")
    y = check_vector(y, "y")
    kernel_factory = _check_factory(kernel_factory, "kernel_factory")
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X must have one row per entry of y ({y.shape[0]}); got shape {X.shape}")
    ells = check_vector(ells, "ells")
    if np.any(ells <= 0):
        raise ValueError(f"ells must be > 0; got minimum {ells.min()!r}")
    lams, _ = _lam_grid(lams, "lams")
    n = y.shape[0]
    Ks = np.stack([kernel_factory(float(e))(X) for e in ells])          # (E, n, n)
    sse = np.zeros((ells.shape[0], lams.shape[0]))
    for tr, te in resolve_folds(folds, n):
        d, U = np.linalg.eigh(Ks[:, tr][:, :, tr])                          # batched, (E, m)
        d = np.clip(d, 0.0, None)
        coef = np.einsum("eij,i->ej", U, y[tr])                             # U^T y, (E, m)
        W = coef[:, :, None] / (d[:, :, None] + lams[None, None, :])       # (E, m, L)
        alpha = np.einsum("eij,ejl->eil", U, W)                             # (E, m, L)
        pred = np.einsum("eti,eil->etl", Ks[:, te][:, :, tr], alpha)        # (E, t, L)
        sse += np.sum((y[te][None, :, None] - pred) ** 2, axis=1)
    return sse / n


@one_blas_thread()
def smoothness_experiment(seed: Seed, *, n: int = 40, noise: float = 0.1,
                          ells: ArrayLike | None = None, lams: ArrayLike | None = None,
                          folds: Folds = 5,
                          n_test: int = 1000,
                          kernel_factories: dict[str, Callable[[float], Any]] | None = None,
                          ) -> dict[str, Any]:
    r"""One run of the smoothness-matching experiment.

    For each target (``sin(4 pi x)``, then the square wave) a fresh training set
    of ``n`` uniform points with Gaussian noise of standard deviation ``noise`` is
    drawn; for each kernel of :data:`SMOOTHNESS_KERNELS` the length scale and the
    penalty are chosen together by ``folds``-fold cross-validation
    (:func:`cv_table`: per fold, one batched factorisation serves every length
    scale and penalty), the model is refitted on all ``n`` points with one
    Cholesky factorisation, and it is scored by its mean squared error against
    the noiseless target on ``n_test`` equally spaced points of [0, 1].

    Parameters
    ----------
    seed : int or Generator
        Seed of the two training sets.
    n : int, default 40
    noise : float, default 0.1
    ells : 1-D array, default ``logspace(-2, 0, 15)``
    lams : 1-D array, default ``logspace(-8, 0, 17)``
        Penalties on the sum of squared errors (the book's scaling).
    folds : int, splitter or list of (train_idx, test_idx), default 5
        The fold split (an int v means ``KFold(v, shuffle=True, random_state=0)``);
        a splitter is applied to each training set.
    n_test : int, default 1000
    kernel_factories : dict, optional
        Kernels to compare, name -> factory of the length scale; default
        :data:`SMOOTHNESS_KERNELS` (exponential, Matern-5/2, Gaussian).

    Returns
    -------
    dict with keys
        ``"mse"`` (2, k) test MSEs (rows: targets, columns: the k kernels);
        ``"ell"``, ``"lam"`` (2, k) chosen hyper-parameters; ``"cv"`` (2, k, E, L) CV tables;
        ``"x_test"`` (n_test,), ``"fits"`` (2, k, n_test) fitted curves;
        ``"X"``, ``"y"`` lists of the two training sets; ``"targets"``, ``"kernels"`` names.
    """
    n = check_int(n, "n", minimum=max(2, folds if isinstance(folds, int) else 2))
    noise = check_nonnegative(noise, "noise")
    n_test = check_int(n_test, "n_test", minimum=2)
    ells = np.logspace(-2, 0, 15) if ells is None else check_vector(ells, "ells")
    lams = np.logspace(-8, 0, 17) if lams is None else check_vector(lams, "lams")
    if kernel_factories is not None and not isinstance(kernel_factories, Mapping):
        raise ValueError("kernel_factories must be a non-empty dict of name -> callable(ell); "
                         f"got {type(kernel_factories).__name__}")
    factories = SMOOTHNESS_KERNELS if kernel_factories is None else dict(kernel_factories)
    if not factories or not all(callable(f) for f in factories.values()):
        raise ValueError("kernel_factories must be a non-empty dict of name -> callable(ell)")
    rng = check_rng(seed)
    x_test = np.linspace(0.0, 1.0, n_test)
    shape = (len(TARGETS), len(factories))
    mse, ell_hat, lam_hat = np.empty(shape), np.empty(shape), np.empty(shape)
    fits = np.empty(shape + (n_test,))
    cvs = np.empty(shape + (ells.shape[0], lams.shape[0]))
    Xs, ys = [], []
    for a, (tname, target) in enumerate(TARGETS.items()):
        X, y_sine, y_square = datasets.sine_and_square(n, noise, random_state=rng)  # fresh draw
        y = y_sine if tname == "sine" else y_square
        Xs.append(X)
        ys.append(y)
        truth = target(x_test)
        split = list(folds.split(X)) if hasattr(folds, "split") else folds
        for b, factory in enumerate(factories.values()):
            cv = cv_table(X, y, factory, ells, lams, split)
            i, j = np.unravel_index(np.argmin(cv), cv.shape)
            k = factory(float(ells[i]))
            c, low = linalg.cho_factor(k(X) + lams[j] * np.eye(n))
            fits[a, b] = k(x_test[:, None], X) @ linalg.cho_solve((c, low), y)
            mse[a, b] = np.mean((fits[a, b] - truth) ** 2)
            ell_hat[a, b], lam_hat[a, b], cvs[a, b] = ells[i], lams[j], cv
    return {"mse": mse, "ell": ell_hat, "lam": lam_hat, "cv": cvs, "x_test": x_test,
            "fits": fits, "X": Xs, "y": ys, "targets": list(TARGETS),
            "kernels": list(factories)}


@one_blas_thread()
def smoothness_repeat(seeds: Sequence[int], **kwargs: Any) -> NDArray[np.float64]:
    """Test MSEs of :func:`smoothness_experiment` for each seed: shape (len(seeds), 2, 3)."""
    seeds = list(seeds)
    if not seeds:
        raise ValueError("seeds must be a non-empty sequence of ints; got an empty one")
    return np.array([smoothness_experiment(s, **kwargs)["mse"] for s in seeds])

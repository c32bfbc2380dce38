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

All randomness goes through an explicit ``seed`` (``None``, an ``int`` or a
:class:`numpy.random.Generator`).  With an ``int`` seed, refitting draws the same
features again.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import linalg
from sklearn.base import BaseEstimator, TransformerMixin

from ._validation import (
    EPS,
    check_eigenvalues_psd,
    check_fitted,
    check_gram_psd,
    check_int,
    check_kernel,
    check_matrix,
    check_n_features,
    check_positive,
    check_rng,
    finite_result,
)

__all__ = [
    "RandomFourierFeatures",
    "Nystroem",
    "PositiveRandomFeatures",
    "rff_uniform_bound",
]

_VARIANTS = ("cos_sin", "cos_phase")
_KERNELS = ("gaussian", "laplacian", "matern")

#: Rows per kernel evaluation in ``Nystroem.transform``: bounds the temporary
#: memory of k(X, landmarks); it is a loop over blocks, not over samples.
_BLOCK_ROWS = 4096


def _check_transform_input(X: Any, estimator: Any) -> np.ndarray:
    """Validate ``X`` for ``transform`` against the dimension seen in ``fit``."""
    X = check_matrix(X, "X")
    check_n_features(estimator, X)
    return X


class RandomFourierFeatures(TransformerMixin, BaseEstimator):
    r"""Random Fourier features for shift-invariant kernels (Rahimi & Recht).

    By Bochner's theorem a continuous shift-invariant kernel with
    :math:`k(x, x) = 1` can be written :math:`k(x, x') = \mathbb E\cos(w^\top(x - x'))`
    with :math:`w` drawn from the kernel's spectral density.  Drawing
    :math:`D` frequencies :math:`w_1, \dots, w_D` (the columns of ``W_``) and
    averaging gives an unbiased estimate of the kernel with variance of order
    :math:`1/D`.

    Parameters
    ----------
    sigma : float, default=1.0
        Length scale :math:`\sigma > 0` of the kernel (the same role for every
        kernel below).
    n_features : int, default=100
        Number :math:`D` of random frequencies.  The output dimension is
        ``2 * n_features`` for ``variant="cos_sin"`` and ``n_features`` for
        ``variant="cos_phase"``: to get 500 output columns use
        ``n_features=250`` with ``"cos_sin"`` or ``n_features=500`` with
        ``"cos_phase"``.  After ``fit`` the output dimension is stored in
        ``n_output_features_``.
    variant : {"cos_sin", "cos_phase"}, default="cos_sin"
        * ``"cos_sin"``: :math:`z(x) = D^{-1/2}[\cos(W^\top x), \sin(W^\top x)]
          \in \mathbb R^{2D}` (the first ``D`` columns are the cosines, the
          last ``D`` the sines).  Each frequency contributes
          :math:`\cos(w^\top(x - x'))` to :math:`z(x)^\top z(x')`.
        * ``"cos_phase"``: :math:`z(x) = \sqrt{2/D}\cos(W^\top x + u)
          \in \mathbb R^{D}` with phases :math:`u_j \sim U[-\pi, \pi]`.
        Both are unbiased; for the same ``D`` the pair features have the
        smaller variance (for the Gaussian kernel :math:`(1 - k^2)^2/(2D)`
        against :math:`(1 - k^2 + k^4/2)/D`).
    kernel : {"gaussian", "laplacian", "matern"}, default="gaussian"
        The kernel being approximated, with :math:`r = \|x - x'\|_2` and
        frequency law (spectral density) for :math:`w \in \mathbb R^d`:

        * ``"gaussian"``: :math:`k = \exp(-r^2 / (2\sigma^2))`;
          :math:`w \sim N(0, \sigma^{-2} I_d)`.
        * ``"laplacian"``: :math:`k = \exp(-r/\sigma)`, i.e. the Euclidean
          Laplacian :math:`\exp(-\gamma r)` with :math:`\gamma = 1/\sigma`
          (pass ``sigma=1/gamma`` to match ``kernels.laplacian(gamma)``).
          Its spectral density is the multivariate Cauchy density
          :math:`\propto (\gamma^2 + \|w\|^2)^{-(d+1)/2}`, sampled as
          :math:`w = \gamma z / |g|` with :math:`z \sim N(0, I_d)` and
          :math:`g \sim N(0, 1)` independent.  (The product of one-dimensional
          Cauchy densities belongs to the different, :math:`\ell_1` kernel
          :math:`\exp(-\gamma\|x - x'\|_1)`, also common in the literature; the
          two agree only in one dimension.)
        * ``"matern"``: the Matern kernel of smoothness ``nu`` and length scale
          :math:`\ell = \sigma`,
          :math:`k = \frac{2^{1-\nu}}{\Gamma(\nu)} (\sqrt{2\nu}\, r/\ell)^\nu
          K_\nu(\sqrt{2\nu}\, r/\ell)` (scikit-learn's ``Matern`` convention).
          Its spectral density :math:`\propto (2\nu/\ell^2 + \|w\|^2)^{-(\nu + d/2)}`
          is a multivariate Student-t with :math:`2\nu` degrees of freedom
          and scale :math:`1/\ell`, sampled as
          :math:`w = \frac{z}{\ell}\sqrt{2\nu / g}` with :math:`z \sim N(0, I_d)`
          and :math:`g \sim \chi^2_{2\nu}` independent.  ``nu=0.5`` is the
          Laplacian, and ``nu=np.inf`` the Gaussian kernel.

        All three are Gaussian scale mixtures: :math:`w = z / (\sigma s)` with
        :math:`s = 1` (Gaussian) or :math:`s^2 \sim \chi^2_{2\nu}/(2\nu)`.
    nu : float, optional
        Matern smoothness :math:`\nu > 0` (``np.inf`` allowed).  Required when
        ``kernel="matern"``, and must be left ``None`` otherwise.
    seed : None, int or numpy.random.Generator, optional
        Source of randomness for the frequencies and phases.

    Attributes
    ----------
    W_ : ndarray of shape (n_dims, n_features)
        The random frequencies, one per column.
    u_ : ndarray of shape (n_features,) or None
        The random phases (``variant="cos_phase"``); ``None`` for ``"cos_sin"``.
    n_output_features_ : int
        Number of columns produced by :meth:`transform`.

    Notes
    -----
    :meth:`transform` costs one matrix product ``X @ W_`` and one in-place
    cosine over the output (for ``"cos_sin"`` the sines are computed as
    :math:`\sin t = \cos(t - \pi/2)`); everything is float64.
    """

    def __init__(self, sigma: float = 1.0, n_features: int = 100,
                 variant: str = "cos_sin", kernel: str = "gaussian",
                 nu: float | None = None, seed: Any = None) -> None:
        self.sigma = sigma
        self.n_features = n_features
        self.variant = variant
        self.kernel = kernel
        self.nu = nu
        self.seed = seed

    def _check_params(self) -> tuple[float, int, float | None]:
        sigma = check_positive(self.sigma, "sigma")
        D = check_int(self.n_features, "n_features", minimum=1)
        if self.variant not in _VARIANTS:
            raise ValueError(
                f"variant must be one of {_VARIANTS}; got {self.variant!r}"
            )
        if self.kernel not in _KERNELS:
            raise ValueError(f"kernel must be one of {_KERNELS}; got {self.kernel!r}")
        nu = self.nu
        if self.kernel == "matern":
            if nu is None or isinstance(nu, bool) or not isinstance(nu, (int, float, np.number)):
                raise ValueError(
                    f"nu must be a number > 0 (or np.inf) when kernel='matern'; got {nu!r}"
                )
            nu = float(nu)
            if not nu > 0:  # also rejects NaN
                raise ValueError(f"nu must be > 0 (or np.inf); got {self.nu!r}")
        elif nu is not None:
            raise ValueError(
                f"nu is only used with kernel='matern'; got nu={nu!r} with "
                f"kernel={self.kernel!r} (leave nu=None)"
            )
        return sigma, D, nu

    def fit(self, X: Any, y: Any = None) -> "RandomFourierFeatures":
        """Draw the random frequencies (and phases) for inputs of X's dimension.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_dims)
            Only its number of columns is used.
        y : ignored

        Returns
        -------
        self
        """
        sigma, D, nu = self._check_params()
        X = check_matrix(X, "X")
        rng = check_rng(self.seed)
        d = X.shape[1]
        W = rng.standard_normal((d, D))
        if self.kernel == "gaussian" or (self.kernel == "matern" and math.isinf(nu)):
            W /= sigma
        else:
            nu_eff = 0.5 if self.kernel == "laplacian" else nu
            # s^2 = chi2_{2 nu} / (2 nu); chi2_k is Gamma(shape k/2, scale 2).
            s = np.sqrt(rng.gamma(nu_eff, 2.0, size=D) / (2.0 * nu_eff))
            W /= sigma * s
        self.W_ = W
        if self.variant == "cos_phase":
            self.u_ = rng.uniform(-np.pi, np.pi, size=D)
            self.n_output_features_ = D
        else:
            self.u_ = None
            self.n_output_features_ = 2 * D
        self.n_features_in_ = d
        return self

    @finite_result
    def transform(self, X: Any) -> np.ndarray:
        """Map ``X`` to the random features.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_dims)

        Returns
        -------
        Z : ndarray of shape (n_samples, n_output_features_)
        """
        check_fitted(self, "W_")
        W = self.W_
        X = _check_transform_input(X, self)
        n, D = X.shape[0], W.shape[1]
        if self.variant == "cos_sin":
            # one matrix product, then sin(t) = cos(t - pi/2) so that a single
            # in-place cosine runs over the contiguous (n, 2D) output
            out = np.empty((n, 2 * D))
            np.matmul(X, W, out=out[:, :D])
            np.subtract(out[:, :D], 0.5 * np.pi, out=out[:, D:])
            scale = 1.0 / math.sqrt(D)
        else:
            out = X @ W
            out += self.u_
            scale = math.sqrt(2.0 / D)
        np.cos(out, out=out)
        out *= scale
        return out


class Nystroem(TransformerMixin, BaseEstimator):
    r"""Nystroem low-rank feature map from randomly chosen landmark points.

    With :math:`m` landmarks :math:`x_{i_1}, \dots, x_{i_m}` drawn uniformly
    without replacement from the training inputs, the feature map is
    :math:`\Phi = K_{nm} (K_{mm}^{+})^{1/2}`, so that
    :math:`\Phi\Phi^\top = K_{nm} K_{mm}^{+} K_{mn}`, the Nystroem approximation
    of the Gram matrix.  It works for any positive-definite kernel; with
    :math:`m = n` it reproduces :math:`K` exactly.

    Parameters
    ----------
    kernel : callable
        A kernel object ``k(X, Y)`` returning the Gram matrix of shape
        ``(len(X), len(Y))``, e.g. ``kmlib.kernels.gaussian(1.0)``.
    n_components : int, default=100
        Number :math:`m` of landmarks; also the output dimension.
    seed : None, int or numpy.random.Generator, optional
        Source of randomness for choosing the landmarks.
    rtol : float, optional
        Relative eigenvalue cut-off of the pseudo-inverse square root:
        eigenvalues of :math:`K_{mm}` at or below ``rtol * max_eigenvalue`` are
        treated as zero (their directions are dropped rather than inverted,
        because :math:`K_{mm}` is often numerically singular: the
        :math:`K_{mm}^{-1}` of the Nystroem formula is read as the pseudo-inverse).
        The default
        ``None`` means ``m * eps`` with ``eps`` the float64 machine epsilon,
        the rank decision of ``numpy.linalg.matrix_rank``.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_dims)
        The landmark points.
    component_indices_ : ndarray of shape (n_components,)
        Their row indices in the training ``X``.
    normalization_ : ndarray of shape (n_components, n_components)
        The symmetric pseudo-inverse square root :math:`(K_{mm}^{+})^{1/2}
        = U_r \Lambda_r^{-1/2} U_r^\top` (eigenvalues kept: those above the
        cut-off).
    rank_ : int
        Number of eigenvalues of :math:`K_{mm}` kept.
    """

    def __init__(self, kernel: Any, n_components: int = 100, seed: Any = None,
                 rtol: float | None = None) -> None:
        self.kernel = kernel
        self.n_components = n_components
        self.seed = seed
        self.rtol = rtol

    def _gram(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        G = np.asarray(self.kernel(A, B), dtype=float)
        if G.shape != (A.shape[0], B.shape[0]):
            raise ValueError(
                f"kernel must return a Gram matrix of shape {(A.shape[0], B.shape[0])} "
                f"for inputs with {A.shape[0]} and {B.shape[0]} rows; got shape {G.shape}"
            )
        if not np.all(np.isfinite(G)):
            raise ValueError("kernel returned NaN or infinite values; check its parameters")
        return G

    def fit(self, X: Any, y: Any = None) -> "Nystroem":
        """Choose the landmarks and factor their Gram matrix.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_dims)
        y : ignored

        Returns
        -------
        self
        """
        check_kernel(self.kernel)
        X = check_matrix(X, "X")
        n = X.shape[0]
        m = check_int(self.n_components, "n_components", minimum=1)
        if m > n:
            raise ValueError(
                f"n_components must be <= n_samples; got n_components={m} for "
                f"X with {n} sample(s)"
            )
        rtol = m * EPS if self.rtol is None else check_positive(self.rtol, "rtol")
        rng = check_rng(self.seed)
        idx = np.sort(rng.choice(n, size=m, replace=False))
        L = X[idx]
        Kmm = self._gram(L, L)
        Kmm = 0.5 * (Kmm + Kmm.T)
        check_gram_psd(Kmm, "kernel(landmarks)", who="Nystroem.fit")
        evals, evecs = linalg.eigh(Kmm, overwrite_a=True, check_finite=False)
        check_eigenvalues_psd(evals, "kernel(landmarks)", who="Nystroem.fit")
        top = evals[-1]
        keep = evals > rtol * top if top > 0 else np.zeros_like(evals, dtype=bool)
        U = evecs[:, keep]
        Ushr = U / np.sqrt(evals[keep])
        self.normalization_ = Ushr @ U.T
        self.components_ = L
        self.component_indices_ = idx
        self.rank_ = int(np.count_nonzero(keep))
        self.n_features_in_ = X.shape[1]
        return self

    @finite_result
    def transform(self, X: Any) -> np.ndarray:
        """Nystroem features ``Phi = k(X, components_) @ normalization_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_dims)

        Returns
        -------
        Phi : ndarray of shape (n_samples, n_components)
        """
        check_fitted(self, "normalization_")
        X = _check_transform_input(X, self)
        L, T = self.components_, self.normalization_
        n = X.shape[0]
        out = np.empty((n, T.shape[1]))
        for start in range(0, n, _BLOCK_ROWS):
            blk = slice(start, min(start + _BLOCK_ROWS, n))
            np.matmul(self._gram(X[blk], L), T, out=out[blk])
        return out


class PositiveRandomFeatures(TransformerMixin, BaseEstimator):
    r"""Positive random features for the softmax kernel :math:`\exp(x^\top x')`.

    Each feature is :math:`\varphi_w(x) = D^{-1/2}\exp(-\|x\|^2/2 + w^\top x)`
    with :math:`w \sim N(0, I_d)` (Performer-style features).  Since
    :math:`\mathbb E\exp(w^\top(x + x')) = \exp(\|x + x'\|^2/2)`, the inner
    product :math:`\varphi(x)^\top\varphi(x')` is unbiased for
    :math:`\exp(x^\top x')`, with variance
    :math:`\frac1D e^{2x^\top x'}(e^{\|x + x'\|^2} - 1)`.  Unlike trigonometric
    features, every feature is strictly positive.

    Parameters
    ----------
    n_features : int, default=100
        Number :math:`D` of random features (the output dimension).
    seed : None, int or numpy.random.Generator, optional

    Attributes
    ----------
    W_ : ndarray of shape (n_dims, n_features)
        The random vectors :math:`w_j`, one per column.
    """

    def __init__(self, n_features: int = 100, seed: Any = None) -> None:
        self.n_features = n_features
        self.seed = seed

    def fit(self, X: Any, y: Any = None) -> "PositiveRandomFeatures":
        """Draw the random vectors for inputs of X's dimension; returns ``self``."""
        D = check_int(self.n_features, "n_features", minimum=1)
        X = check_matrix(X, "X")
        rng = check_rng(self.seed)
        self.W_ = rng.standard_normal((X.shape[1], D))
        self.n_features_in_ = X.shape[1]
        return self

    @finite_result
    def transform(self, X: Any) -> np.ndarray:
        """Map ``X`` (shape (n_samples, n_dims)) to features of shape (n_samples, n_features)."""
        check_fitted(self, "W_")
        X = _check_transform_input(X, self)
        P = X @ self.W_
        P -= 0.5 * np.einsum("ij,ij->i", X, X)[:, None]
        np.exp(P, out=P)
        P *= 1.0 / math.sqrt(self.W_.shape[1])
        return P


@finite_result
def rff_uniform_bound(N: int, eps: float, delta: float, *,
                      variant: str = "cos_sin") -> int:
    r"""Number of random frequencies that makes RFF uniformly ``eps``-accurate.

    The uniform approximation theorem of the chapter "Large-scale kernel
    machines: random features and Nystroem" (often stated for the Gaussian kernel
    but valid for any shift-invariant kernel with :math:`k(x, x) = 1`): for any
    :math:`N` points
    :math:`x_1, \dots, x_N` and :math:`\varepsilon, \delta \in (0, 1)`, the
    ``"cos_sin"`` map :math:`z(x) \in \mathbb R^{2D}` built from

    .. math:: D \ge \frac{2}{\varepsilon^2}\log\frac{2N^2}{\delta}

    frequencies satisfies, with probability at least :math:`1 - \delta`,
    :math:`\max_{i, j \le N}|z(x_i)^\top z(x_j) - k(x_i, x_j)| \le \varepsilon`.
    Proof idea: each pair's estimate is an average of :math:`D` independent
    terms :math:`\cos(w^\top(x_i - x_j)) \in [-1, 1]`; Hoeffding's inequality
    bounds one pair's failure probability by :math:`2e^{-D\varepsilon^2/2}` and
    a union bound over the :math:`N^2` pairs finishes.

    For ``variant="cos_phase"`` the terms :math:`2\cos(a + u)\cos(b + u)` lie in
    :math:`[-2, 2]`, and the same argument gives
    :math:`D \ge \frac{8}{\varepsilon^2}\log\frac{2N^2}{\delta}`.

    Parameters
    ----------
    N : int
        Number of points (at least 1).
    eps : float in (0, 1)
        Uniform error tolerance.
    delta : float in (0, 1)
        Allowed failure probability.
    variant : {"cos_sin", "cos_phase"}, default="cos_sin"
        The RFF variant, as in :class:`RandomFourierFeatures`.

    Returns
    -------
    int
        The smallest integer ``D`` satisfying the bound (``n_features`` of
        :class:`RandomFourierFeatures`).
    """
    N = check_int(N, "N", minimum=1)
    eps = check_positive(eps, "eps")
    delta = check_positive(delta, "delta")
    if eps >= 1:
        raise ValueError(f"eps must lie in (0, 1); got {eps!r}")
    if delta >= 1:
        raise ValueError(f"delta must lie in (0, 1); got {delta!r}")
    if variant not in _VARIANTS:
        raise ValueError(f"variant must be one of {_VARIANTS}; got {variant!r}")
    const = 2.0 if variant == "cos_sin" else 8.0
    D = const / eps / eps * math.log(2.0 * N**2 / delta)
    if not D < 2.0**62:  # also catches inf
        raise ValueError(
            f"eps={eps!r} is too small: the bound asks for {D:.3g} features, more than an "
            "int64 can count"
        )
    return int(math.ceil(D))

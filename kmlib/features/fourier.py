"""Random Fourier features (Bochner's theorem) and the uniform bound on their error.

Chapter "Large-scale kernel machines: random features and Nyström".
"""
from __future__ import annotations

import math
from typing import Any, Literal, cast

import numpy as np
import scipy.sparse
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin

from .. import _dask
from .._blocks import row_blocks
from .._linalg import blas_threads, map_in_threads
from .._typing import Seed
from .._validation import (
    as_generator,
    check_finite_result,
    check_matrix,
    check_predict_input,
    preserve_float32,
    validate_args,
    validate_params,
)
from .._validation.params import POSITIVE, POSITIVE_INT, Interval, Options, Real
from ..kernels import Kernel
from ..kernels.vector import spectral_family
from ._common import (
    _KERNELS,
    _VARIANTS,
)

_UNIT = Interval(Real, 0, 1, closed="neither")

#: Fewest entries of a transform's output computed by several threads (below, starting
#: them costs more than they save).
_THREADED_ENTRIES = 2**20


class _SpectralKernel:
    """A constraint of the declarations: a kmlib kernel whose spectral density is known."""

    def __call__(self, v: Any) -> bool:
        return isinstance(v, Kernel) and spectral_family(v) is not None

    def describe(self) -> str:
        return ("kmlib.kernels.gaussian, laplacian or matern (random Fourier features need "
                "the spectral density of a shift-invariant kernel)")

__all__ = [
    "RandomFourierFeatures",
    "rff_uniform_bound",
]


class RandomFourierFeatures(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    r"""Random Fourier features for shift-invariant kernels (Rahimi & Recht).

    By Bochner's theorem a continuous shift-invariant kernel with
    :math:`k(x, x) = 1` can be written :math:`k(x, x') = \mathbb E\cos(w^\top(x - x'))`
    with :math:`w` drawn from the kernel's spectral density.  Drawing
    :math:`D` frequencies :math:`w_1, \dots, w_D` (the columns of ``W_``) and
    averaging gives an unbiased estimate of the kernel with variance of order
    :math:`1/D`.

    Parameters
    ----------
    sigma : float or None, default=None
        Length scale :math:`\sigma > 0` of the kernel (the same role for every
        kernel below); None means 1.0 with a family name, and must stay None with a
        ``Kernel`` object (whose own parameters are used).
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
    kernel : {"gaussian", "laplacian", "matern"} or Kernel, default="gaussian"
        The kernel being approximated: a family name, with ``sigma`` (and ``nu``)
        below, or one of kmlib's own kernel objects ``kernels.gaussian(sigma)``,
        ``kernels.laplacian(gamma)`` or ``kernels.matern(nu, length_scale)``, whose
        parameters are then used (leave ``sigma`` and ``nu`` at None), so
        that RFF takes a ``Kernel`` like every other kmlib estimator.  With
        :math:`r = \|x - x'\|_2` the frequency law (spectral density) for
        :math:`w \in \mathbb R^d` is:

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
    random_state : None, int, numpy.random.Generator or RandomState, optional
        Source of randomness for the frequencies and phases.

    Attributes
    ----------
    W_ : ndarray of shape (n_dims, n_features)
        The random frequencies, one per column.
    u_ : ndarray of shape (n_features,) or None
        The random phases (``variant="cos_phase"``); ``None`` for ``"cos_sin"``.
    n_output_features_ : int
        Number of columns produced by :meth:`transform` (one matrix product ``X @ W_`` and
        one in-place cosine; see its comments).
    """

    def __init__(self, *, sigma: float | None = None, n_features: int = 100,
                 variant: Literal["cos_sin", "cos_phase"] = "cos_sin",
                 kernel: Literal["gaussian", "laplacian", "matern"] | Kernel = "gaussian",
                 nu: float | None = None, random_state: Seed = None) -> None:
        self.sigma = sigma
        self.n_features = n_features
        self.variant = variant
        self.kernel = kernel
        self.nu = nu
        self.random_state = random_state

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True   # X @ W of a sparse X is dense
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    _parameter_constraints = {
        "sigma": [POSITIVE, None], "n_features": [POSITIVE_INT],
        "variant": [Options(*_VARIANTS)], "kernel": [Options(*_KERNELS), _SpectralKernel()],
        "nu": [Interval(Real, 0, math.inf, closed="right"), None], "random_state": ["random_state"]}

    def _resolve_params(self, X: Any) -> tuple[str, float, float | None]:
        """(family, sigma, nu) after the rules that tie the parameters together.

        First the declared constraints, and the column names of the training data ``X``.
        """
        validate_params(self, X)
        sigma, nu = self.sigma, self.nu
        k: str | None = None if isinstance(self.kernel, Kernel) else self.kernel
        if isinstance(self.kernel, Kernel):
            if sigma is not None or nu is not None:
                raise ValueError(
                    "with a Kernel object as kernel, its own parameters are used: leave "
                    f"sigma=None and nu=None; got sigma={sigma!r}, nu={nu!r}"
                )
            # a Gaussian, Laplacian or Matern kernel: declared in _parameter_constraints
            k, sigma, nu = cast(tuple[str, float, "float | None"], spectral_family(self.kernel))
        if (k == "matern") != (nu is not None):
            raise ValueError(f"nu (a number > 0, or np.inf) is needed with kernel='matern' and "
                             f"only then; got nu={nu!r} with kernel={self.kernel!r}")
        return str(k), 1.0 if sigma is None else float(sigma), nu

    def fit(self, X: ArrayLike, y: ArrayLike | None = None) -> "RandomFourierFeatures":
        """Draw the random frequencies (and phases) for inputs of X's dimension.

        Parameters
        ----------
        X : array-like, sparse matrix or dask.array.Array of shape (n_samples, n_dims)
            Only its number of columns is used (a Dask array is not computed).
        y : ignored

        Returns
        -------
        self
        """
        family, sigma, nu = self._resolve_params(X)
        D = int(self.n_features)
        # only the width of X is used: a Dask array's is read from its shape, not computed
        d = (_dask.n_columns(X) if _dask.is_dask(X)
             else check_matrix(X, "X", accept_sparse=True).shape[1])
        rng = as_generator(self.random_state)   # declared: checked by validate_params
        W = rng.standard_normal((d, D))
        if family == "gaussian" or (nu is not None and math.isinf(nu)):
            W /= sigma
        else:
            nu_eff = 0.5 if family == "laplacian" or nu is None else nu
            # s^2 = chi2_{2 nu} / (2 nu); chi2_k is Gamma(shape k/2, scale 2).
            s = np.sqrt(rng.gamma(nu_eff, 2.0, size=D) / (2.0 * nu_eff))
            W /= sigma * s
        self.W_ = W
        if self.variant == "cos_phase":
            self.u_: np.ndarray | None = rng.uniform(-np.pi, np.pi, size=D)
            self.n_output_features_ = D
        else:
            self.u_ = None
            self.n_output_features_ = 2 * D
        self.n_features_in_, self._n_features_out = d, self.n_output_features_
        return self

    @preserve_float32
    def transform(self, X: ArrayLike) -> np.ndarray:
        """Map ``X`` to the random features.

        Parameters
        ----------
        X : array-like or dask.array.Array of shape (n_samples, n_dims)
            A Dask array (chunked along rows) gives a lazy Dask array, chunk by chunk.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_output_features_)
        """
        if _dask.is_dask(X):   # a lazy Dask array, chunk by chunk
            return _dask.transform(self, X, "W_", lambda e: e.n_output_features_)
        A = check_predict_input(self, X, "W_", accept_sparse=True)
        W = self.W_
        n, D = A.shape[0], W.shape[1]
        pair = self.variant == "cos_sin"
        scale = 1.0 / math.sqrt(D) if pair else math.sqrt(2.0 / D)
        out = np.empty((n, 2 * D if pair else D))
        u = self.u_
        with np.errstate(over="ignore", invalid="ignore"):   # (an overflow: checked below)
            if scipy.sparse.issparse(A):
                out[:, :D] = A @ W
            else:
                np.matmul(A, W, out=out[:, :D])     # one product: BLAS's own blocking

        def finish(blk: slice) -> float:
            # a block's passes (the shift, the cosine, the scaling, the sum that shows an
            # overflow of X @ W), each reading what the previous one just wrote in cache
            o = out[blk]
            with np.errstate(over="ignore", invalid="ignore"):   # numpy's state is per thread
                if pair:   # sin(t) = cos(t - pi/2): one cosine over the contiguous block
                    np.subtract(o[:, :D], 0.5 * np.pi, out=o[:, D:])
                else:
                    assert u is not None  # fitted with variant="cos_phase"
                    o += u
                np.cos(o, out=o)
                o *= scale
                return float(o.sum())

        # blocks of rows that stay in cache, on the cores BLAS may use when there are many
        # (the cosines take ~14 ns each, single-threaded in numpy)
        blocks = list(row_blocks(n, out.itemsize * out.shape[1], cache=True))
        threads = min(blas_threads(), len(blocks)) if out.size >= _THREADED_ENTRIES else 1
        total = sum(map_in_threads(finish, blocks, threads))
        return check_finite_result(out, "RandomFourierFeatures.transform: the result",
                                   total=total)


@validate_args({"N": [POSITIVE_INT], "eps": [_UNIT], "delta": [_UNIT],
                "variant": [Options(*_VARIANTS)]})
def rff_uniform_bound(N: int, eps: float, delta: float, *,
                      variant: Literal["cos_sin", "cos_phase"] = "cos_sin") -> int:
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
    const = 2.0 if variant == "cos_sin" else 8.0
    D = const / eps / eps * (math.log(2.0) + 2.0 * math.log(N) - math.log(delta))
    if not D < 2.0**62:  # also catches inf
        raise ValueError(
            f"eps={eps!r} is too small: the bound asks for {D:.3g} features, more than an "
            "int64 can count"
        )
    return int(math.ceil(D))

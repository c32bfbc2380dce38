"""Bochner's theorem in one dimension: spectral laws of shift-invariant kernels.

Chapter "Large-scale kernel machines: random features and Nystrom": the spectral
pairs behind random Fourier features -- :func:`spectral_sample` draws frequencies
from the spectral law of the Gaussian, Laplacian, Cauchy or Matern kernel,
:func:`shift_invariant_profile` gives the kernel's closed form, and
:func:`bochner_mc` checks by Monte Carlo that the mean of ``cos(w delta)`` is the
kernel value.
"""
from __future__ import annotations

from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from kmlib import kernels
from kmlib._typing import Seed
from kmlib._validation import as_float_array, check_int, check_positive, check_rng

__all__ = ["SPECTRAL_KERNELS", "spectral_sample", "shift_invariant_profile", "bochner_mc"]

SpectralKernel = Literal["gaussian", "laplacian", "cauchy", "matern"]

#: One-dimensional kernels whose spectral law :func:`spectral_sample` draws from.
SPECTRAL_KERNELS = ("gaussian", "laplacian", "cauchy", "matern")

#: Largest number of Monte Carlo draws of :func:`bochner_mc` (standard error ~ 3e-5
#: already; a larger count is a mistake that would run for hours).
_MAX_DRAWS = 10**9


def _check_spectral(kernel: Any, nu: Any) -> float | None:
    if kernel not in SPECTRAL_KERNELS:
        raise ValueError(f"kernel must be one of {SPECTRAL_KERNELS}; got {kernel!r}")
    if kernel == "matern":
        if nu is None:
            raise ValueError("nu must be a number > 0 when kernel='matern'; got None")
        return check_positive(nu, "nu")
    if nu is not None:
        raise ValueError(f"nu is only used with kernel='matern'; got nu={nu!r} for {kernel!r}")
    return None


def spectral_sample(kernel: SpectralKernel, size: int, *, length_scale: float = 1.0,
                    nu: float | None = None, seed: Seed = None) -> NDArray[np.float64]:
    r"""Draw frequencies from the spectral law of a one-dimensional shift-invariant kernel.

    With :math:`\ell` the length scale and :math:`\Delta = x - x'`:

    * ``"gaussian"`` :math:`e^{-\Delta^2/(2\ell^2)}` -- :math:`w \sim N(0, \ell^{-2})`;
    * ``"laplacian"`` :math:`e^{-|\Delta|/\ell}` -- :math:`w = C/\ell`, :math:`C` standard Cauchy;
    * ``"cauchy"`` :math:`1/(1 + \Delta^2/\ell^2)` -- :math:`w = L/\ell`, :math:`L` with
      density :math:`\tfrac12 e^{-|t|}` (standard Laplace);
    * ``"matern"`` (smoothness :math:`\nu`) -- :math:`w = T/\ell`, :math:`T` Student-t with
      :math:`2\nu` degrees of freedom.

    Parameters
    ----------
    kernel : {"gaussian", "laplacian", "cauchy", "matern"}
    size : int
        Number of draws.
    length_scale : float, default=1.0
    nu : float, optional
        Matern smoothness; required for ``"matern"`` only.
    seed : None, int or Generator

    Returns
    -------
    ndarray of shape (size,)

    Raises
    ------
    ValueError
        If a draw is not finite (a length scale or ``nu`` so small that the frequencies
        overflow), or ``size`` is too large for memory.
    """
    nu = _check_spectral(kernel, nu)
    size = check_int(size, "size", minimum=1)
    ell = check_positive(length_scale, "length_scale")
    rng = check_rng(seed)
    if kernel == "gaussian":
        t = rng.standard_normal(size)
    elif kernel == "laplacian":
        t = rng.standard_cauchy(size)
    elif kernel == "cauchy":
        t = rng.laplace(0.0, 1.0, size)
    else:
        t = rng.standard_t(2.0 * nu, size)
    return t / ell


def shift_invariant_profile(kernel: SpectralKernel, delta: ArrayLike, *,
                            length_scale: float = 1.0,
                            nu: float | None = None) -> NDArray[np.float64]:
    """The kernel value ``k(x, x + delta)`` in one dimension (closed forms).

    The Gaussian, Laplacian and Matern profiles are evaluated by
    :mod:`kmlib.kernels`; the Cauchy kernel is ``1 / (1 + delta^2 / l^2)``.
    """
    nu = _check_spectral(kernel, nu)
    ell = check_positive(length_scale, "length_scale")
    dl = np.atleast_1d(as_float_array(delta, "delta"))
    if dl.ndim != 1 or not np.all(np.isfinite(dl)):
        raise ValueError(f"delta must be a finite 1-D array of offsets; got shape {dl.shape}")
    if kernel == "cauchy":
        return 1.0 / (1.0 + (dl / ell) ** 2)
    k = {"gaussian": lambda: kernels.gaussian(ell),
         "laplacian": lambda: kernels.laplacian(1.0 / ell),
         "matern": lambda: kernels.matern(nu, ell)}[kernel]()
    return k(dl[:, None], np.zeros((1, 1)))[:, 0]


def bochner_mc(kernel: SpectralKernel, delta: ArrayLike, n_draws: int, *,
               length_scale: float = 1.0, nu: float | None = None, seed: Seed = None,
               chunk: int = 100_000) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Monte Carlo estimate of :math:`\mathbb E\cos(w\Delta)` with :math:`w` from the spectral law.

    Returns the sample means over ``n_draws`` frequencies and their standard errors,
    one per offset in ``delta``.  By Bochner's theorem the mean converges to the
    kernel profile :func:`shift_invariant_profile`.  ``n_draws`` lies between 2 and ``10**9``.
    """
    _check_spectral(kernel, nu)
    dl = np.atleast_1d(as_float_array(delta, "delta"))
    if dl.ndim != 1 or not np.all(np.isfinite(dl)):
        raise ValueError(f"delta must be a finite 1-D array of offsets; got shape {dl.shape}")
    n_draws = check_int(n_draws, "n_draws", minimum=2, maximum=_MAX_DRAWS)
    chunk = check_int(chunk, "chunk", minimum=1)
    rng = check_rng(seed)
    s1 = np.zeros(dl.size)
    s2 = np.zeros(dl.size)
    done = 0
    while done < n_draws:
        m = min(chunk, n_draws - done)
        w = spectral_sample(kernel, m, length_scale=length_scale, nu=nu, seed=rng)
        c = np.cos(np.outer(w, dl))
        s1 += c.sum(axis=0)
        s2 += np.einsum("ij,ij->j", c, c)
        done += m
    mean = s1 / n_draws
    var = np.maximum(s2 / n_draws - mean**2, 0.0) * n_draws / (n_draws - 1)
    return mean, np.sqrt(var / n_draws)

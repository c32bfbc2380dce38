"""Exact risks and theoretical bounds for kernel ridge regression.

This module serves Chapter 7 of the book ("Kernel ridge regression rates").
Convention throughout: the KRR estimate minimises
``sum_i (Y_i - f(x_i))**2 + lam * ||f||_H**2``, so its fitted values at the design
are ``K (K + lam I)^{-1} Y``, with data ``Y = f0 + eps``, ``E eps = 0`` and
``Var eps = sigma2 * I``.  The eigenvalues of the Gram matrix ``K`` are
``d_1 >= ... >= d_n >= 0``; the rescaled quantities are ``mu_hat_i = d_i / n``
(eigenvalues of ``K / n``) and ``gamma = lam / n``.

* :func:`krr_mspe` -- the exact mean squared prediction error at the design.
* :func:`krr_mspe_bound` -- the two upper bounds of the MSPE theorem.
* :func:`delta_n` -- the same bound in the rescaled form ``delta_n(gamma)``.
* :func:`sobolev_eigenvalues` -- Mercer eigenvalues of ``min(x, x')`` on [0, 1].
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import linalg

from kmlib._validation import (
    as_float_array,
    check_gram_psd,
    check_int,
    check_lam,
    check_nonnegative,
    check_square,
    check_symmetric,
    check_vector,
    rank_tol,
)

__all__ = [
    "MSPEBound",
    "sobolev_eigenvalues",
    "krr_mspe",
    "krr_mspe_bound",
    "delta_n",
]


class MSPEBound(NamedTuple):
    """The two upper bounds of the MSPE theorem (see :func:`krr_mspe_bound`).

    Attributes
    ----------
    bound1 : float or ndarray
        The sharper bound, ``sigma2/n * sum d_i^2/(d_i+lam)^2 + lam*f_norm2/(4n)``.
    bound2 : float or ndarray
        The cruder bound, ``sigma2/(n*lam) * sum min(d_i/4, lam) + lam*f_norm2/(4n)``;
        always ``bound2 >= bound1``.
    """

    bound1: Any
    bound2: Any


def _check_positive_grid(value: Any, name: str) -> tuple[np.ndarray, bool]:
    """Return a 1-D float array of strictly positive values and whether the input was scalar."""
    scalar = np.ndim(value) == 0
    arr = np.atleast_1d(check_lam(value, name, allow_array=True))
    if np.any(arr <= 0):
        raise ValueError(f"{name} must be > 0; got minimum {arr.min()!r}")
    return arr, scalar


def _check_eigenvalues(values: ArrayLike, name: str) -> np.ndarray:
    """Eigenvalues of a PSD matrix: round-off negatives are clipped, real negatives raise."""
    v = check_vector(values, name)
    top = max(float(np.max(np.abs(v))), np.finfo(float).tiny)
    if np.any(v < -1e-8 * top):
        raise ValueError(
            f"{name} must be the eigenvalues of a positive semi-definite matrix (>= 0); "
            f"got minimum {v.min()!r}"
        )
    return np.clip(v, 0.0, None)


def _out(values: np.ndarray, scalar: bool) -> Any:
    return float(values[0]) if scalar else values


def sobolev_eigenvalues(j: ArrayLike) -> Any:
    r"""Mercer eigenvalues :math:`\mu_j = 4 / (\pi^2 (2j - 1)^2)` of :math:`\min(x, x')`.

    They are the eigenvalues of the integral operator
    :math:`e \mapsto \int_0^1 \min(\cdot, y) e(y)\,dy` (the first-order Sobolev
    kernel with the uniform law on [0, 1]); the eigenfunctions are
    :math:`e_j(x) = \sqrt2\sin((j - \tfrac12)\pi x)`.  Their sum is
    :math:`\int_0^1 k(x, x)\,dx = 1/2`.

    Parameters
    ----------
    j : int or array-like of int
        Indices :math:`j \ge 1`.

    Returns
    -------
    float or ndarray
        :math:`\mu_j`, with the shape of ``j``.
    """
    if isinstance(j, bool):
        raise ValueError(f"j must contain only integers >= 1; got {j!r}")
    try:
        arr = as_float_array(j, "j")
    except (TypeError, ValueError) as exc:
        raise ValueError(f"j must be integers >= 1; got {type(j).__name__}") from exc
    if (arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr))
            or np.any(arr < 1)):
        raise ValueError(f"j must contain only integers >= 1; got {j!r}")
    mu = 4.0 / (np.pi**2 * (2.0 * arr - 1.0) ** 2)
    return float(mu) if mu.ndim == 0 else mu


def krr_mspe(K: ArrayLike, f0: ArrayLike, sigma2: float, lam: float | ArrayLike) -> Any:
    r"""Exact mean squared prediction error of KRR at the design points.

    .. math::
        \mathrm{MSPE}(\lambda)
        = \frac1n\mathbb E\|K(K + \lambda I)^{-1}(f^0 + \varepsilon) - f^0\|^2
        = \frac1n\Big[\sum_i \frac{\lambda^2\theta_i^2}{(d_i + \lambda)^2}
          + \sigma^2\sum_i \frac{d_i^2}{(d_i + \lambda)^2}\Big],

    with :math:`K = U\,\mathrm{diag}(d)\,U^\top` and :math:`\theta = U^\top f^0`
    (squared bias plus variance).  One symmetric eigendecomposition serves every
    value of ``lam``.  ``lam = 0`` is read as the limit :math:`\lambda \downarrow 0`
    (projection onto the range of ``K``); eigenvalues below ``n * eps * d_max``
    count as zero when deciding that range.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric positive semi-definite Gram matrix of the design.
    f0 : array-like of shape (n,)
        True regression function at the design, :math:`(f^0(x_i))_i`.
    sigma2 : float
        Noise variance :math:`\sigma^2 \ge 0`.
    lam : float or 1-D array of floats
        Penalty(ies) :math:`\lambda \ge 0`.

    Returns
    -------
    float or ndarray
        The MSPE, with the shape of ``lam``.
    """
    K = check_square(K, "K")
    n = K.shape[0]
    f0 = check_vector(f0, "f0")
    if f0.shape[0] != K.shape[0]:
        raise ValueError(
            f"f0 must have one value per row of K; got len(f0)={f0.shape[0]} "
            f"for K of shape {K.shape}"
        )
    sigma2 = check_nonnegative(sigma2, "sigma2")
    scalar = np.ndim(lam) == 0
    lams = np.atleast_1d(check_lam(lam, "lam", allow_array=True))
    check_symmetric(K, "K")
    d, U = linalg.eigh(0.5 * (K + K.T), check_finite=False)
    check_gram_psd(K, "K", evals=d)
    # numerical rank: eigenvalues at round-off level are exact zeros (matters at lam = 0)
    d[d <= rank_tol(d, n)] = 0.0
    theta2 = (U.T @ f0) ** 2
    den = d[None, :] + lams[:, None]                       # (n_lam, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        shrink = np.where(den > 0, d[None, :] / den, 0.0)  # d / (d + lam)
    bias2 = ((1.0 - shrink) ** 2) @ theta2
    var = sigma2 * np.sum(shrink**2, axis=1)
    return _out((bias2 + var) / n, scalar)


def krr_mspe_bound(eigvals: ArrayLike, sigma2: float, lam: float | ArrayLike,
                   f_norm2: float) -> MSPEBound:
    r"""Both upper bounds of the MSPE theorem for kernel ridge regression.

    Theorem (chapter "How fast does kernel ridge regression learn?", with
    :math:`\|f^0\|_{\mathcal H}^2` kept explicit rather than normalised to 1):
    if :math:`f^0 \in \mathcal H`, then

    .. math::
        \mathrm{MSPE}(\lambda)
        \le \underbrace{\frac{\sigma^2}{n}\sum_i\frac{d_i^2}{(d_i + \lambda)^2}
             + \frac{\lambda\|f^0\|_{\mathcal H}^2}{4n}}_{\texttt{bound1}}
        \le \underbrace{\frac{\sigma^2}{n\lambda}\sum_i\min(d_i/4, \lambda)
             + \frac{\lambda\|f^0\|_{\mathcal H}^2}{4n}}_{\texttt{bound2}}.

    ``bound1`` keeps the exact variance and bounds the squared bias by
    :math:`\lambda\|f^0\|^2/4`; ``bound2`` also bounds each variance term with
    :math:`d^2/(d + \lambda)^2 \le \min(1, d/(4\lambda))`.

    Parameters
    ----------
    eigvals : array-like of shape (n,)
        Eigenvalues :math:`d_i \ge 0` of the Gram matrix ``K`` (not of ``K/n``).
    sigma2 : float
        Noise variance :math:`\sigma^2 \ge 0`.
    lam : float or 1-D array of floats
        Penalty(ies) :math:`\lambda > 0`.
    f_norm2 : float
        :math:`\|f^0\|_{\mathcal H}^2` (or any upper bound on it), :math:`\ge 0`.

    Returns
    -------
    MSPEBound
        Named tuple ``(bound1, bound2)``; each a float, or an array with the
        shape of ``lam``.
    """
    d = _check_eigenvalues(eigvals, "eigvals")
    sigma2 = check_nonnegative(sigma2, "sigma2")
    f_norm2 = check_nonnegative(f_norm2, "f_norm2")
    lams, scalar = _check_positive_grid(lam, "lam")
    n = d.shape[0]
    L = lams[:, None]
    bias = lams * f_norm2 / (4.0 * n)
    b1 = sigma2 / n * np.sum((d / (d + L)) ** 2, axis=1) + bias
    b2 = sigma2 / (n * lams) * np.sum(np.minimum(d / 4.0, L), axis=1) + bias
    return MSPEBound(_out(b1, scalar), _out(b2, scalar))


def delta_n(mu_hat: ArrayLike, sigma2: float, gamma: ArrayLike, f_norm2: float, *,
            n: int | None = None) -> Any:
    r"""The rescaled MSPE bound :math:`\delta_n(\gamma)` of the rates theorem.

    .. math::
        \delta_n(\gamma) = \frac{\sigma^2}{\gamma}\,\frac1n\sum_{i=1}^n
            \min(\hat\mu_i/4, \gamma) + \frac{\|f^0\|_{\mathcal H}^2\,\gamma}{4}

    (chapter "How fast does kernel ridge regression learn?").  With
    :math:`\hat\mu_i = d_i/n` and :math:`\gamma = \lambda/n` it equals
    ``krr_mspe_bound(d, sigma2, lam, f_norm2).bound2``, so it bounds the MSPE
    of the KRR estimate with penalty :math:`\lambda = n\gamma` -- the estimator
    written :math:`\hat f_{n\gamma_n}` (penalty :math:`n\gamma_n`, not
    :math:`\gamma_n`).  Note the :math:`\mu/4` inside the minimum; the simpler
    :math:`\phi(\gamma) = \sum_j\min(\mu_j, \gamma)` drops the 4, which only makes
    it larger.

    Population version (Lemma 8): pass the Mercer eigenvalues
    :math:`\mu_j` (e.g. :func:`sobolev_eigenvalues`, truncated) as ``mu_hat``
    together with the sample size ``n``.  Then the sum runs over the given
    :math:`\mu_j` and is still divided by ``n``, which gives an upper bound on
    :math:`\mathbb E\,\delta_n(\gamma)` for an i.i.d. design (a truncated
    sequence gives a slight under-estimate of that bound; the tail
    :math:`\sum_{j > J}\mu_j/4` is the most it can miss).

    Parameters
    ----------
    mu_hat : array-like
        Eigenvalues :math:`\hat\mu_i \ge 0` of ``K / n`` (or Mercer eigenvalues
        :math:`\mu_j` when ``n`` is given).
    sigma2 : float
        Noise variance :math:`\sigma^2 \ge 0`.
    gamma : float or 1-D array of floats
        Rescaled penalty(ies) :math:`\gamma = \lambda/n > 0`.
    f_norm2 : float
        :math:`\|f^0\|_{\mathcal H}^2 \ge 0`.
    n : int, optional
        Sample size; defaults to ``len(mu_hat)``.

    Returns
    -------
    float or ndarray
        :math:`\delta_n(\gamma)`, with the shape of ``gamma``.
    """
    mu = _check_eigenvalues(mu_hat, "mu_hat")
    sigma2 = check_nonnegative(sigma2, "sigma2")
    f_norm2 = check_nonnegative(f_norm2, "f_norm2")
    gammas, scalar = _check_positive_grid(gamma, "gamma")
    n_eff = mu.shape[0] if n is None else check_int(n, "n", minimum=1)
    G = gammas[:, None]
    s = np.sum(np.minimum(mu / 4.0, G), axis=1) / n_eff
    return _out(sigma2 / gammas * s + f_norm2 * gammas / 4.0, scalar)

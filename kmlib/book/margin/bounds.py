r"""Rademacher complexity of a kernel ball and the margin bounds on the misclassification risk.

Chapter *Support vector machines and kernel logistic regression* bounds the
risk of a function in the ball :math:`\{f: \|f\|_{\mathcal H}\le\Lambda\}`
by its empirical :math:`\rho`-margin loss
(:func:`~kmlib.book.margin.losses.ramp_margin_loss`) plus a complexity term: the
empirical Rademacher complexity of the ball, estimated by Monte Carlo
(:func:`rademacher_ball`), and the margin bounds of Mohri, Rostamizadeh &
Talwalkar (2018), :func:`margin_bounds`.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from kmlib._typing import Seed
from kmlib._validation import (
    check_int,
    check_nonnegative,
    check_positive,
    check_rng,
    check_square,
    check_symmetric,
)

__all__ = [
    "rademacher_ball",
    "MarginBounds",
    "margin_bounds",
]


def rademacher_ball(K: ArrayLike, Lambda: float, n_draws: int = 20_000,
                    seed: Seed = None) -> tuple[float, float]:
    r"""Monte-Carlo estimate of the empirical Rademacher complexity of a kernel ball.

    For :math:`H = \{f\in\mathcal H: \|f\|_{\mathcal H}\le\Lambda\}` the supremum
    is explicit (Cauchy--Schwarz):
    :math:`\sup_{f\in H}\frac1m\sum_i\sigma_if(x_i) = \frac\Lambda m\sqrt{\sigma^\top K\sigma}`,
    so :math:`\hat{\mathfrak R}_S(H) = \frac\Lambda m\mathbb E_\sigma\sqrt{\sigma^\top K\sigma}`
    is averaged over ``n_draws`` independent sign vectors.

    Parameters
    ----------
    K : array of shape (m, m)
        Kernel matrix of the sample.
    Lambda : float
        Radius of the ball, > 0.
    n_draws : int
        Number of sign vectors.
    seed : int or Generator, optional

    Returns
    -------
    estimate : float
    std_error : float
        Standard error of the Monte-Carlo average.
    """
    K = check_square(K, "K")
    check_symmetric(K, "K")
    Lambda = check_positive(Lambda, "Lambda")
    n_draws = check_int(n_draws, "n_draws", minimum=2)
    rng = check_rng(seed)
    m = K.shape[0]
    vals = np.empty(n_draws)
    for s in range(0, n_draws, 4096):
        S = rng.choice([-1.0, 1.0], size=(min(4096, n_draws - s), m))
        q = np.einsum("ij,ij->i", S @ K, S)
        vals[s:s + len(S)] = np.sqrt(np.maximum(q, 0.0))
    vals *= Lambda / m
    return float(vals.mean()), float(vals.std(ddof=1) / np.sqrt(n_draws))


class MarginBounds(NamedTuple):
    """The three margin bounds on the misclassification risk (see :func:`margin_bounds`)."""

    fixed_rho: float
    trace: float
    uniform_rho: float


def margin_bounds(margin_loss: float, m: int, Lambda: float, r2: float, rho: float,
                  delta: float, trace_K: float | None = None) -> MarginBounds:
    r"""Margin bounds for a kernel ball.

    After Mohri, Rostamizadeh & Talwalkar (2018), Thms 5.8-5.9 and Cor 6.13.
    For :math:`H=\{f:\|f\|_{\mathcal H}\le\Lambda\}`, :math:`k(x,x)\le r^2`, with
    probability at least :math:`1-\delta` every :math:`f\in H` has

    * ``fixed_rho``: :math:`R \le \hat R_{S,\rho}(f) + \frac2\rho\sqrt{r^2\Lambda^2/m}
      + \sqrt{\log(1/\delta)/(2m)}`;
    * ``trace``: :math:`R \le \hat R_{S,\rho}(f)
      + \frac{2\Lambda\sqrt{\operatorname{Tr}K}}{\rho m} + 3\sqrt{\log(2/\delta)/(2m)}`;
    * ``uniform_rho`` (simultaneously for all :math:`\rho\in(0,r]`):
      :math:`R \le \hat R_{S,\rho}(f) + \frac4\rho\sqrt{r^2\Lambda^2/m}
      + \sqrt{\log\log_2(2r/\rho)/m} + \sqrt{\log(2/\delta)/(2m)}`.

    Parameters
    ----------
    margin_loss : float
        :math:`\hat R_{S,\rho}(f)` in [0, 1] (see :func:`ramp_margin_loss`).
    m : int
        Sample size.
    Lambda : float
        Radius of the ball.
    r2 : float
        :math:`r^2 \ge \sup_x k(x, x)`.
    rho : float
        Margin, in :math:`(0, r]`.
    delta : float
        Confidence parameter in (0, 1).
    trace_K : float, optional
        :math:`\operatorname{Tr}K`; defaults to its upper bound :math:`mr^2`.

    Returns
    -------
    MarginBounds
    """
    margin_loss = check_nonnegative(margin_loss, "margin_loss")
    if margin_loss > 1.0:
        raise ValueError(f"margin_loss must lie in [0, 1]; got {margin_loss!r}")
    m = check_int(m, "m", minimum=1)
    Lambda = check_positive(Lambda, "Lambda")
    r2 = check_positive(r2, "r2")
    rho = check_positive(rho, "rho")
    r = np.sqrt(r2)
    if rho > r:
        raise ValueError(f"rho must lie in (0, r] with r = sqrt(r2) = {r:.6g}; got {rho!r}")
    delta = check_positive(delta, "delta")
    if delta >= 1.0:
        raise ValueError(f"delta must lie in (0, 1); got {delta!r}")
    tr = m * r2 if trace_K is None else check_nonnegative(trace_K, "trace_K")
    cplx = np.sqrt(r2 * Lambda**2 / m)
    fixed = margin_loss + 2 / rho * cplx + np.sqrt(np.log(1 / delta) / (2 * m))
    trace = (margin_loss + 2 * Lambda * np.sqrt(tr) / (rho * m)
             + 3 * np.sqrt(np.log(2 / delta) / (2 * m)))
    loglog = np.log(max(np.log2(2 * r / rho), 1.0))      # log2(2r/rho) >= 1 on (0, r]
    unif = (margin_loss + 4 / rho * cplx + np.sqrt(loglog / m)
            + np.sqrt(np.log(2 / delta) / (2 * m)))
    return MarginBounds(float(fixed), float(trace), float(unif))

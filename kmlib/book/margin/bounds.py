r"""Rademacher complexity of a kernel ball and the margin bounds on the misclassification risk.

Chapter *Support vector machines and kernel logistic regression* bounds the
risk of a function in the ball :math:`\{f: \|f\|_{\mathcal H}\le\Lambda\}`
by its empirical :math:`\rho`-margin loss plus a complexity term (the margin
bounds of Mohri, Rostamizadeh & Talwalkar (2018), :func:`margin_bounds`). The chapter
types the three formulas in its cells; this function is the second route its
hidden checks compare them with.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kmlib._validation import (
    check_int,
    check_nonnegative,
    check_positive,
)

__all__ = ["MarginBounds", "margin_bounds"]


class MarginBounds(NamedTuple):
    """The three margin bounds on the misclassification risk (see :func:`margin_bounds`)."""

    fixed_rho: float
    trace: float
    uniform_rho: float


def margin_bounds(margin_loss: float, n: int, Lambda: float, r2: float, rho: float,
                  delta: float, trace_K: float | None = None) -> MarginBounds:
    r"""Margin bounds for a kernel ball.

    After Mohri, Rostamizadeh & Talwalkar (2018), Thms 5.8-5.9 and Cor 6.13.
    For :math:`H=\{f:\|f\|_{\mathcal H}\le\Lambda\}`, :math:`k(x,x)\le r^2`, with
    probability at least :math:`1-\delta` every :math:`f\in H` has

    * ``fixed_rho``: :math:`R \le \hat R_{S,\rho}(f) + \frac2\rho\sqrt{r^2\Lambda^2/n}
      + \sqrt{\log(1/\delta)/(2n)}`;
    * ``trace``: :math:`R \le \hat R_{S,\rho}(f)
      + \frac{2\Lambda\sqrt{\operatorname{Tr}K}}{\rho n} + 3\sqrt{\log(2/\delta)/(2n)}`;
    * ``uniform_rho`` (simultaneously for all :math:`\rho\in(0,r]`):
      :math:`R \le \hat R_{S,\rho}(f) + \frac4\rho\sqrt{r^2\Lambda^2/n}
      + \sqrt{\log\log_2(2r/\rho)/n} + \sqrt{\log(2/\delta)/(2n)}`.

    Parameters
    ----------
    margin_loss : float
        :math:`\hat R_{S,\rho}(f)` in [0, 1] .
    n : int
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
    n = check_int(n, "n", minimum=1)
    Lambda = check_positive(Lambda, "Lambda")
    r2 = check_positive(r2, "r2")
    rho = check_positive(rho, "rho")
    r = np.sqrt(r2)
    if rho > r:
        raise ValueError(f"rho must lie in (0, r] with r = sqrt(r2) = {r:.6g}; got {rho!r}")
    delta = check_positive(delta, "delta")
    if delta >= 1.0:
        raise ValueError(f"delta must lie in (0, 1); got {delta!r}")
    tr = n * r2 if trace_K is None else check_nonnegative(trace_K, "trace_K")
    cplx = np.sqrt(r2 * Lambda**2 / n)
    fixed = margin_loss + 2 / rho * cplx + np.sqrt(np.log(1 / delta) / (2 * n))
    trace = (margin_loss + 2 * Lambda * np.sqrt(tr) / (rho * n)
             + 3 * np.sqrt(np.log(2 / delta) / (2 * n)))
    loglog = np.log(max(np.log2(2 * r / rho), 1.0))      # log2(2r/rho) >= 1 on (0, r]
    unif = (margin_loss + 4 / rho * cplx + np.sqrt(loglog / n)
            + np.sqrt(np.log(2 / delta) / (2 * n)))
    return MarginBounds(float(fixed), float(trace), float(unif))

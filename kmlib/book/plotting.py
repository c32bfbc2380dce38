"""One figure style for the whole book.

Chapters call :func:`use_style` once (it is also applied by :func:`figure`), build
figures with :func:`figure`, and put rates on log-log axes with
:func:`loglog_slope` in the legend.  The palette is the Okabe--Ito
colour-blind-safe palette.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from kmlib._validation import as_float_array

__all__ = ["PALETTE", "use_style", "figure", "loglog_slope", "add_slope_line"]

#: Okabe--Ito palette (colour-blind safe), in the order the book uses it.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
           "#56B4E9", "#F0E442", "#000000")

_RC = {
    "figure.figsize": (6.0, 3.8),
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 11,
    "axes.labelsize": 11,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "lines.linewidth": 1.8,
    "font.size": 10,
}


def use_style() -> None:
    """Apply the book's matplotlib style (idempotent)."""
    import matplotlib as mpl
    from cycler import cycler

    mpl.rcParams.update(_RC)
    mpl.rcParams["axes.prop_cycle"] = cycler(color=list(PALETTE))


def figure(nrows: int = 1, ncols: int = 1, *, width: float | None = None,
           height: float | None = None, **kwargs: Any):
    """Return ``(fig, axes)`` in the book's style.

    Parameters
    ----------
    nrows, ncols : int
        Grid of axes, in the order of :func:`matplotlib.pyplot.subplots`
        (rows first), so ``figure(1, 2)`` puts two panels side by side.
    width, height : float, optional
        Size in inches; defaults scale with the grid.
    """
    import matplotlib.pyplot as plt

    use_style()
    w = width if width is not None else 6.0 if ncols == 1 else 3.6 * ncols
    h = height if height is not None else 3.8 * nrows if nrows > 1 else 3.8
    kwargs.setdefault("constrained_layout", True)
    return plt.subplots(nrows, ncols, figsize=(w, h), **kwargs)


def loglog_slope(x: ArrayLike, y: ArrayLike) -> float:
    """Least-squares slope of ``log y`` against ``log x`` (the empirical rate)."""
    x = as_float_array(x, "x")
    y = as_float_array(y, "y")
    if x.shape != y.shape or x.ndim != 1 or x.size < 2:
        raise ValueError("x and y must be 1-D arrays of the same length >= 2")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y)) and np.all(x > 0) and np.all(y > 0)):
        raise ValueError("x and y must be positive and finite for a log-log slope")
    lx, ly = np.log(x), np.log(y)
    return float(np.polyfit(lx, ly, 1)[0])


def add_slope_line(ax, x: ArrayLike, y: ArrayLike, *, label: str = "fit", **kwargs: Any) -> float:
    """Draw the fitted log-log line on ``ax`` with its slope in the label; return the slope."""
    x = as_float_array(x, "x")
    y = as_float_array(y, "y")
    slope = loglog_slope(x, y)
    intercept = np.mean(np.log(y)) - slope * np.mean(np.log(x))
    kwargs.setdefault("linestyle", "--")
    kwargs.setdefault("color", "0.3")
    ax.plot(x, np.exp(intercept) * x ** slope, label=f"{label}: slope {slope:.2f}", **kwargs)
    return slope

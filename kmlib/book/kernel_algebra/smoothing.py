"""The Nadaraya-Watson smoother, whose "kernel" is not a positive-definite kernel.

Chapter 4 ("Kernels: positive definiteness, closure rules, a catalogue, and what is
not a kernel"), section '"Kernels" in smoothing are a different object': a locally
weighted average whose weight function need not be positive definite.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from kmlib._validation import check_finite_result, check_positive, check_vector

__all__ = ["nadaraya_watson"]

def nadaraya_watson(x_train: ArrayLike, y_train: ArrayLike, x_eval: ArrayLike,
                    h: float) -> NDArray[np.float64]:
    """Nadaraya-Watson smoother with Gaussian weights ``exp(-(x - x_i)^2 / (2 h^2))``.

    ``f(x) = sum_i w_i(x) y_i / sum_j w_j(x)``: a locally weighted average,
    whose weight function need not be a positive-definite kernel.

    Parameters
    ----------
    x_train : array-like of shape (n,)
    y_train : array-like of shape (n,)
    x_eval : array-like of shape (m,)
    h : float
        Bandwidth ``h > 0``.

    Returns
    -------
    ndarray of shape (m,)

    Raises
    ------
    ValueError
        If every weight of an evaluation point underflows (``h`` too small for the
        distance to the nearest training point, beyond about 1e150 bandwidths), or
        if the weighted average overflows (responses of size about 1e308).
    """
    xt = check_vector(x_train, "x_train")
    yt = check_vector(y_train, "y_train")
    if len(xt) != len(yt):
        raise ValueError(
            f"x_train and y_train must have the same length; got {len(xt)} and {len(yt)}"
        )
    xe = check_vector(x_eval, "x_eval")
    h = check_positive(h, "h")
    with np.errstate(over="ignore", invalid="ignore"):
        L = -0.5 * ((xe[:, None] - xt[None, :]) / h) ** 2
        top = L.max(axis=1, keepdims=True)
        if not np.all(np.isfinite(top)):
            i = int(np.argmin(np.isfinite(top[:, 0])))
            raise ValueError(
                f"nadaraya_watson: every weight of x_eval[{i}] = {xe[i]!r} underflows: its "
                f"nearest training point is too many bandwidths h = {h!r} away for float64; "
                "choose a larger h or rescale x"
            )
        L -= top                         # stable weights far from the data
        W = np.exp(L)
        f = (W @ yt) / W.sum(axis=1)
    return check_finite_result(f, "nadaraya_watson: the weighted average",
                               "rescale y_train and try again")

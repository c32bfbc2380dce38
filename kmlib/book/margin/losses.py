r"""Losses of the margin :math:`z = y f(x)`: hinge, logistic and the ramp (rho-margin) loss.

Chapter *Support vector machines and kernel logistic regression* compares the
SVM's hinge loss :math:`(1-z)_+` with the logistic loss :math:`\log(1+e^{-z})`,
finds the point :func:`loss_crossing` below which the logistic loss is the
smaller one, and uses the empirical :math:`\rho`-margin (ramp) loss of Mohri,
Rostamizadeh & Talwalkar (2018) in the margin bounds (``kmlib.book.margin.bounds``).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize

from kmlib._validation import EPS, as_float_array, check_positive, check_vector

__all__ = [
    "hinge_loss",
    "logistic_loss",
    "loss_crossing",
    "ramp_margin_loss",
]


def _margins(z: ArrayLike) -> NDArray[np.float64]:
    """``z`` as a float array of any shape, refusing NaN and infinite margins."""
    A = as_float_array(z, "z")
    check_vector(A.ravel(), "z", min_len=0)       # finiteness, with check_vector's message
    return A


def hinge_loss(z: ArrayLike) -> NDArray[np.float64]:
    r"""Hinge loss :math:`(1 - z)_+` of the margin :math:`z = y f(x)`.

    Parameters
    ----------
    z : array_like
        Margins, finite.

    Returns
    -------
    ndarray
        :math:`\max(0, 1 - z)`, elementwise.
    """
    z = _margins(z)
    return np.maximum(0.0, 1.0 - z)


def logistic_loss(z: ArrayLike) -> NDArray[np.float64]:
    r"""Logistic loss :math:`\log(1 + e^{-z})` of the margin :math:`z = y f(x)`.

    Computed as ``logaddexp(0, -z)``, which neither overflows for very negative
    ``z`` nor loses the small value for large ``z``.

    Parameters
    ----------
    z : array_like
        Margins, finite.

    Returns
    -------
    ndarray
    """
    z = _margins(z)
    return np.logaddexp(0.0, -z)


def loss_crossing() -> float:
    r"""The margin :math:`z^*` where hinge and logistic losses are equal.

    Found by Brent's method on :math:`(1-z) - \log(1+e^{-z})` over
    :math:`[0, 1]`; the chapter shows that :math:`z^* = \log(e - 1)`.

    Returns
    -------
    float
    """
    # 4 * EPS is the smallest rtol brentq accepts
    return float(optimize.brentq(lambda z: (1.0 - z) - np.logaddexp(0.0, -z), 0.0, 1.0,
                                 xtol=1e-15, rtol=4 * EPS))


def ramp_margin_loss(yf: ArrayLike, rho: float) -> float:
    r"""Empirical :math:`\rho`-margin loss :math:`\frac1m\sum_i\Phi_\rho(y_if(x_i))`.

    :math:`\Phi_\rho(z) = \min(1, \max(0, 1 - z/\rho))`: 1 for :math:`z\le0`,
    0 for :math:`z\ge\rho`, linear in between (Mohri et al., 2018, Def. 5.5).

    Parameters
    ----------
    yf : array of shape (m,)
        Margins :math:`y_if(x_i)`.
    rho : float
        :math:`\rho > 0`.

    Returns
    -------
    float
    """
    z = check_vector(yf, "yf")
    rho = check_positive(rho, "rho")
    return float(np.mean(np.clip(1.0 - z / rho, 0.0, 1.0)))

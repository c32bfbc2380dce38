r"""Losses of the margin :math:`z = y f(x)`: hinge and logistic.

The exercises of chapter *Support vector machines and kernel logistic regression*
compare the SVM's hinge loss :math:`(1-z)_+` with the logistic loss
:math:`\log(1+e^{-z})` (the chapter itself types both formulas in its cells).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from kmlib._validation import as_float_array, check_vector

__all__ = ["hinge_loss", "logistic_loss"]


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

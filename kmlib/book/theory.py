"""Mercer eigenvalues of the first-order Sobolev kernel ``min(x, x')`` on [0, 1].

This module serves the chapters "Reproducing kernel Hilbert spaces" (chapter 5) and
"How fast does kernel ridge regression learn?" (chapter 7), which derive the
eigenvalues from an ODE and check them numerically.

* :func:`sobolev_eigenvalues` -- Mercer eigenvalues of ``min(x, x')`` with the uniform law.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from kmlib._validation import as_float_array

__all__ = ["sobolev_eigenvalues"]


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

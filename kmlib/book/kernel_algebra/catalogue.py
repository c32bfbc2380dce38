"""Catalogue kernels that :mod:`kmlib.kernels` lacks.

Chapter 4 ("Kernels: positive definiteness, closure rules and a catalogue"), section
"A catalogue of kernels": the constant kernel, the Cauchy kernel and the Laplacian
kernel with the l1 norm, as kernel objects that the chapter's figures and closure
rules combine with the library's kernels.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.spatial.distance import cdist

from kmlib._validation import check_nonnegative, check_positive
from kmlib.kernels import Kernel

__all__ = ["constant", "cauchy", "laplacian_l1"]

class _Constant(Kernel):
    def __init__(self, c: float):
        self.c = c

    def _gram(self, X: np.ndarray, Y: np.ndarray) -> NDArray[np.float64]:
        return np.full((len(X), len(Y)), self.c)

    def _diag(self, X: np.ndarray) -> NDArray[np.float64]:
        return np.full(len(X), self.c)

    def __repr__(self) -> str:
        return f"constant({self.c!r})"


def constant(c: float = 1.0) -> Kernel:
    """Constant kernel ``k(x, x') = c`` with ``c >= 0``.

    Positive definite because ``sum_ij a_i a_j c = c (sum_i a_i)^2 >= 0``; its
    feature map is the single number ``sqrt(c)``.

    Parameters
    ----------
    c : float, default 1.0
        The constant, ``c >= 0`` (a negative constant is not a kernel).

    Returns
    -------
    Kernel
    """
    return _Constant(check_nonnegative(c, "c"))


class _Cauchy(Kernel):
    def __init__(self, scale: float):
        self.scale = scale

    def _gram(self, X: np.ndarray, Y: np.ndarray) -> NDArray[np.float64]:
        G = np.ones((len(X), len(Y)))
        for j in range(X.shape[1]):  # one pass per input dimension (d is small)
            D = (X[:, j][:, None] - Y[:, j][None, :]) / self.scale
            G /= 1.0 + D * D
        return G

    def _diag(self, X: np.ndarray) -> NDArray[np.float64]:
        return np.ones(len(X))

    def __repr__(self) -> str:
        return f"cauchy(scale={self.scale!r})"


def cauchy(scale: float = 1.0) -> Kernel:
    """Cauchy kernel ``k(x, x') = prod_i 1 / (1 + ((x_i - x'_i) / s)^2)``.

    Positive definite as a product of one-dimensional kernels, each of which is
    the Fourier transform of the Laplace density ``(s/2) exp(-s |w|)``
    (Bochner's theorem).

    Parameters
    ----------
    scale : float, default 1.0
        Length scale ``s > 0``.

    Returns
    -------
    Kernel
    """
    return _Cauchy(check_positive(scale, "scale"))


class _LaplacianL1(Kernel):
    def __init__(self, gamma: float):
        self.gamma = gamma

    def _gram(self, X: np.ndarray, Y: np.ndarray) -> NDArray[np.float64]:
        return np.exp(-self.gamma * cdist(X, Y, metric="cityblock"))

    def _diag(self, X: np.ndarray) -> NDArray[np.float64]:
        return np.ones(len(X))

    def __repr__(self) -> str:
        return f"laplacian_l1(gamma={self.gamma!r})"


def laplacian_l1(gamma: float = 1.0) -> Kernel:
    """Laplacian kernel with the l1 norm, ``k(x, x') = exp(-gamma ||x - x'||_1)``.

    It is the product over coordinates of one-dimensional Laplacian kernels,
    hence positive definite.  In dimension ``d > 1`` it differs from
    :func:`kmlib.kernels.laplacian`, which uses the Euclidean norm.

    Parameters
    ----------
    gamma : float, default 1.0
        Rate ``gamma > 0``.

    Returns
    -------
    Kernel
    """
    return _LaplacianL1(check_positive(gamma, "gamma"))

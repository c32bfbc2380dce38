"""The closure rules of positive-definite kernels, as kernel objects.

Chapter 4 ("Kernels: positive definiteness, closure rules, a catalogue, and what is
not a kernel"), section "Closure rules".  :mod:`kmlib.kernels` provides ``+``,
``*``, ``**`` and ``normalized``; here are the remaining rules: the tensor product
of kernels on two factors, composition ``k(phi(z), phi(z'))`` with a map, the
rescaling ``g(x) k(x, x') g(x')``, and ``exp(k)``, the power series of rule 5 that
the chapter uses (its partial sums are written out in a cell).
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from kmlib._validation import as_float_array, check_int, check_matrix
from kmlib.kernels import Kernel

from ._common import _check_kernel_object

__all__ = ["tensor_product", "composed", "rescaled", "exp_of"]

class _Tensor(Kernel):
    def __init__(self, k1: Kernel, k2: Kernel, d1: int):
        self.k1, self.k2, self.d1 = k1, k2, d1

    def _check(self, X: ArrayLike, name: str) -> NDArray[np.float64]:
        A = check_matrix(X, name)
        if A.shape[1] <= self.d1:
            raise ValueError(
                f"{name} must have more than d1={self.d1} columns (the first d1 belong to "
                f"the first factor, the rest to the second); got {A.shape[1]}"
            )
        self.k1._check(A[:, : self.d1], name)
        self.k2._check(A[:, self.d1:], name)
        return A

    def _gram(self, X: np.ndarray, Y: np.ndarray) -> NDArray[np.float64]:
        d = self.d1
        return self.k1._gram(X[:, :d], Y[:, :d]) * self.k2._gram(X[:, d:], Y[:, d:])

    def _diag(self, X: np.ndarray) -> NDArray[np.float64]:
        d = self.d1
        return self.k1._diag(X[:, :d]) * self.k2._diag(X[:, d:])

    def __repr__(self) -> str:
        return f"tensor_product({self.k1!r}, {self.k2!r}, d1={self.d1})"


def tensor_product(k1: Kernel, k2: Kernel, d1: int) -> Kernel:
    """Tensor product ``(k1 ⊗ k2)((x, y), (x', y')) = k1(x, x') k2(y, y')``.

    Inputs are rows ``(x, y)`` whose first ``d1`` columns are ``x`` (the input
    of ``k1``) and whose remaining columns are ``y`` (the input of ``k2``).

    Parameters
    ----------
    k1, k2 : Kernel
        Kernels on the two factors.
    d1 : int
        Number of columns that belong to the first factor, ``d1 >= 1``.

    Returns
    -------
    Kernel
    """
    return _Tensor(_check_kernel_object(k1, "k1"), _check_kernel_object(k2, "k2"),
                   check_int(d1, "d1", minimum=1))


def _apply_map(phi: Callable[[np.ndarray], ArrayLike], Z: np.ndarray,
               who: str) -> NDArray[np.float64]:
    A = as_float_array(phi(Z), f"{who}: phi(X)")
    if A.ndim == 1:
        A = A[:, None]
    if A.ndim != 2 or A.shape[0] != len(Z):
        raise ValueError(
            f"{who}: the map must return one row per input row, an array of shape "
            f"({len(Z)}, d) or ({len(Z)},); got shape {A.shape}"
        )
    return A


class _Composed(Kernel):
    def __init__(self, kernel: Kernel, phi: Callable[[np.ndarray], ArrayLike]):
        self.kernel, self.phi = kernel, phi

    def _gram(self, X: np.ndarray, Y: np.ndarray) -> NDArray[np.float64]:
        A = self.kernel._check(_apply_map(self.phi, X, "composed"), "phi(X)")
        B = A if Y is X else self.kernel._check(_apply_map(self.phi, Y, "composed"), "phi(Y)")
        return self.kernel._gram(A, B)

    def _diag(self, X: np.ndarray) -> NDArray[np.float64]:
        A = self.kernel._check(_apply_map(self.phi, X, "composed"), "phi(X)")
        return self.kernel._diag(A)

    def __repr__(self) -> str:
        return f"composed({self.kernel!r}, {getattr(self.phi, '__name__', 'phi')})"


def composed(k: Kernel, phi: Callable[[np.ndarray], ArrayLike]) -> Kernel:
    """Kernel ``k(phi(z), phi(z'))`` on a new input space, for a map ``phi``.

    Parameters
    ----------
    k : Kernel
        A kernel on the range of ``phi``.
    phi : callable
        Maps an array of inputs of shape ``(n, d_z)`` to an array of shape
        ``(n, d_x)`` (or ``(n,)``), row by row.

    Returns
    -------
    Kernel
    """
    if not callable(phi):
        raise ValueError(f"phi must be a callable map; got {type(phi).__name__}")
    return _Composed(_check_kernel_object(k, "k"), phi)


class _Rescaled(Kernel):
    def __init__(self, kernel: Kernel, g: Callable[[np.ndarray], ArrayLike]):
        self.kernel, self.g = kernel, g

    def _check(self, X: ArrayLike, name: str) -> NDArray[np.float64]:
        return self.kernel._check(X, name)

    def _weights(self, X: np.ndarray) -> NDArray[np.float64]:
        w = as_float_array(self.g(X), "rescaled: g(X)").reshape(-1)
        if w.shape != (len(X),) or not np.all(np.isfinite(w)):
            raise ValueError(
                f"rescaled: g must return one finite real number per input row, shape "
                f"({len(X)},); got shape {np.shape(w)}"
            )
        return w

    def _gram(self, X: np.ndarray, Y: np.ndarray) -> NDArray[np.float64]:
        gx = self._weights(X)
        gy = gx if Y is X else self._weights(Y)
        G = self.kernel._gram(X, Y)
        G *= gx[:, None]
        G *= gy[None, :]
        return G

    def _diag(self, X: np.ndarray) -> NDArray[np.float64]:
        return self._weights(X) ** 2 * self.kernel._diag(X)

    def __repr__(self) -> str:
        return f"rescaled({self.kernel!r}, {getattr(self.g, '__name__', 'g')})"


def rescaled(k: Kernel, g: Callable[[np.ndarray], ArrayLike]) -> Kernel:
    """Kernel ``g(x) k(x, x') g(x')`` for a real function ``g``.

    Its Gram matrix is ``diag(g) K diag(g)``, positive semidefinite whenever
    ``K`` is.  The normalised kernel is the case ``g(x) = k(x, x)^{-1/2}``.

    Parameters
    ----------
    k : Kernel
    g : callable
        Maps an input array of shape ``(n, d)`` to ``n`` real numbers.

    Returns
    -------
    Kernel
    """
    if not callable(g):
        raise ValueError(f"g must be a callable; got {type(g).__name__}")
    return _Rescaled(_check_kernel_object(k, "k"), g)


class _Exp(Kernel):
    def __init__(self, kernel: Kernel):
        self.kernel = kernel

    def _check(self, X: ArrayLike, name: str) -> NDArray[np.float64]:
        return self.kernel._check(X, name)

    def _gram(self, X: np.ndarray, Y: np.ndarray) -> NDArray[np.float64]:
        return np.exp(self.kernel._gram(X, Y))

    def _diag(self, X: np.ndarray) -> NDArray[np.float64]:
        return np.exp(self.kernel._diag(X))

    def __repr__(self) -> str:
        return f"exp_of({self.kernel!r})"


def exp_of(k: Kernel) -> Kernel:
    """Kernel ``exp(k(x, x'))``, the power series ``sum_i k^i / i!`` (closure rule 5).

    Parameters
    ----------
    k : Kernel

    Returns
    -------
    Kernel
    """
    return _Exp(_check_kernel_object(k, "k"))

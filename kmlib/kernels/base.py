"""The :class:`Kernel` base class and the closure rules.

Chapter "Kernels: positive definiteness, closure rules and a catalogue".

A kernel is a callable object: ``k(X, Y)`` returns the Gram matrix, ``k(X)`` the
exactly symmetric one.  Sums, products, non-negative multiples, integer powers and
normalisation of kernels are kernels again; this module builds them, together with the
shared numerical helpers (squared distances through one matrix product, tiled
evaluation of large Gram matrices).
"""
from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from typing import Any

import numpy as np
import scipy.sparse
from numpy.typing import ArrayLike

from .._blocks import gen_blocks, tile_side
from .._linalg import blas_threads, map_in_threads
from .._validation import (
    check_finite_result,
    check_int,
    check_matrix,
    check_nonnegative,
    check_same_length,
    preserve_float32,
)

__all__ = ["Kernel"]


def _inner(X: Any, Y: Any) -> np.ndarray:
    """Matrix of inner products ``X @ Y.T``, C-ordered, owned by the caller (dense).

    numpy's product releases the GIL: the tiles of a large Gram matrix run in parallel.
    For ``scipy.sparse`` inputs the sparse product is made dense.
    """
    G = X @ Y.T
    return G.toarray() if scipy.sparse.issparse(G) else np.asarray(G)


def _rowdot(X: Any, Y: Any) -> np.ndarray:
    """The inner products ``<x_i, y_i>`` of paired rows, dense or sparse."""
    if scipy.sparse.issparse(X) or scipy.sparse.issparse(Y):
        P = X.multiply(Y) if scipy.sparse.issparse(X) else Y.multiply(X)
        return np.asarray(P.sum(axis=1), dtype=float).ravel()
    return np.einsum("ij,ij->i", X, Y)


def _sq_dists(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances ``||x_i - y_j||^2`` through one matrix product.

    Both inputs are shifted by the mean of ``X`` first (distances do not change,
    the cancellation in ``|x|^2 + |y|^2 - 2 x.y`` shrinks for off-centre data), and the
    product of the rows ``[-2 x, |x|^2, 1]`` and ``[y, 1, |y|^2]`` is the whole sum.
    Negative round-off is flipped to positive; when ``Y is X`` the diagonal is exactly 0.
    Sparse inputs are not shifted (that would make them dense): ``|x|^2 + |y|^2 - 2 x.y``
    from their row norms, negative round-off set to 0, as scikit-learn's
    ``euclidean_distances`` does.
    """
    if scipy.sparse.issparse(X) or scipy.sparse.issparse(Y):
        xx = _rowdot(X, X)
        yy = xx if Y is X else _rowdot(Y, Y)
        D = _inner(X, Y)
        D *= -2.0
        D += xx[:, None]
        D += yy
        np.maximum(D, 0.0, out=D)
        if Y is X:
            np.fill_diagonal(D, 0.0)
        return D
    shift = X.mean(axis=0)
    Xc = X - shift
    Yc = Xc if Y is X else Y - shift
    xx = np.einsum("ij,ij->i", Xc, Xc)
    yy = xx if Y is X else np.einsum("ij,ij->i", Yc, Yc)
    D = _inner(np.column_stack([-2.0 * Xc, xx, np.ones_like(xx)]),
               np.column_stack([Yc, np.ones_like(yy), yy]))
    np.abs(D, out=D)
    if Y is X:
        np.fill_diagonal(D, 0.0)
    return D


#: Fewest tiles of a Gram matrix computed by a pool of threads (see ``_tiled_gram``).
_THREADED_TILES = 32


def _symmetrize(T: np.ndarray, b: int = 64) -> np.ndarray:
    """Replace the square ``T`` by ``(T + T^T) / 2`` in place, entry by entry ``0.5 a + 0.5 b``.

    Block by block (``b`` x ``b``, a block and its mirror image in cache together): the
    whole-matrix ``0.5 * T + 0.5 * T.T`` reads the transpose with a stride of a row and
    allocates two temporaries, which took twice the time of the Gaussian Gram tile itself.
    The bits are those of the whole-matrix formula, and exactly symmetric.
    """
    n = T.shape[0]
    for i in range(0, n, b):
        for j in range(i, n, b):
            S = T[i:i + b, j:j + b] * 0.5
            S += 0.5 * T[j:j + b, i:i + b].T
            T[i:i + b, j:j + b] = S
            T[j:j + b, i:i + b] = S.T
    return T


def _tiled_gram(gram, X: np.ndarray, Y: np.ndarray, symmetric: bool
                ) -> tuple[np.ndarray, float]:
    """Evaluate ``gram(X_block, Y_block)`` tile by tile into one matrix; return it and its sum.

    In the symmetric case only the tiles on and above the diagonal are computed:
    each off-diagonal tile is mirrored into its transposed position and each
    diagonal tile is replaced by the average with its transpose, so the result is
    bitwise symmetric whatever rounding the kernel's formula has.  Tiles are square, of
    :func:`kmlib._blocks.tile_side` (they stay in cache during the kernel's element-wise
    passes), or as wide as the matrix when it has fewer columns.  Tiles are summed while
    in cache (for :func:`check_finite_result`: the entries are tested one by one only if
    the total is not finite) and computed with one BLAS thread each, panels of rows in
    parallel on as many threads as BLAS may use: all cores help, and the result does not
    depend on their number.
    """
    sums = []

    def tile(A: np.ndarray, B: np.ndarray) -> np.ndarray:
        sums.append((T := np.asarray(gram(A, B), dtype=float)).sum())
        return T

    def panel(ii: slice) -> None:
        Xi = X[ii]
        with np.errstate(over="ignore", invalid="ignore"):  # numpy's state is per thread
            if symmetric:
                T = tile(Xi, Xi)
                G[ii, ii] = _symmetrize(T)
                for jj in gen_blocks(n, b):
                    if jj.start > ii.start:
                        T = tile(Xi, X[jj])
                        G[ii, jj] = T
                        G[jj, ii] = T.T
            else:
                for jj in gen_blocks(m, w):
                    G[ii, jj] = tile(Xi, Y[jj])

    n, m = X.shape[0], Y.shape[0]
    side = tile_side()
    if n * m <= side * side:
        G = tile(X, Y)
        G = _symmetrize(G) if symmetric else G
    else:
        G = np.empty((n, m))
        w = min(m, side)
        b = w if symmetric else side * side // w
        # threads for a matrix of many tiles only: starting and joining them costs about a
        # millisecond, more than they save below ~32 tiles (n = m = 2000 on this design)
        many = n * m >= _THREADED_TILES * side * side
        t = min(blas_threads(), -(-n // b)) if many else 1   # 1: this thread, no pool
        map_in_threads(panel, gen_blocks(n, b), t)
    return G, float(sum(sums))


def _atom(k: "Kernel") -> str:
    """``repr(k)`` with parentheses when it would otherwise bind loosely."""
    text = repr(k)
    return f"({text})" if isinstance(k, (_Scaled, _Power)) else text


class Kernel(ABC):
    """Base class of every kernel: a callable returning Gram matrices.

    Subclasses implement ``_gram(X, Y)`` (the Gram matrix of two validated
    float arrays, where ``Y is X`` signals the symmetric case), ``_diag(X)``
    (the vector ``k(x_i, x_i)`` without forming a Gram matrix) and ``__repr__``;
    kernels with a restricted domain also override ``_check``.

    Notes
    -----
    The combination operators build new kernels and never check positive
    definiteness: ``k1 + k2``, ``k1 * k2``, ``c * k`` (``c >= 0``), ``k ** m``
    and ``k.normalized()`` are positive definite whenever ``k``, ``k1`` and
    ``k2`` are (chapter 4, closure rules).
    """

    __array_ufunc__ = None  # let ``np.float64(2.0) * k`` reach Kernel.__rmul__
    _constraint_name = "kmlib.kernels.Kernel"   # how a constraint's message names the class

    # -- hooks ------------------------------------------------------------
    @abstractmethod
    def _gram(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """Gram matrix of validated inputs (a new array the caller may modify)."""

    @abstractmethod
    def _diag(self, X: np.ndarray) -> np.ndarray:
        """Vector ``k(x_i, x_i)`` of validated inputs."""

    def _paired(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray | None:
        """Vector ``k(x_i, y_i)`` of validated rows of equal number, or None if not available.

        Only the values on paired rows are computed (no Gram matrix); kernels without this
        hook return None and callers take the diagonal of Gram matrices instead.
        """
        return None

    #: Whether the kernel evaluates ``scipy.sparse`` inputs (the linear, polynomial and
    #: Gaussian kernels, and sums, products, powers, multiples and normalisations of them).
    _sparse_ok = False

    def _check(self, X: ArrayLike, name: str) -> Any:
        """Validate one input array; overridden by kernels with a restricted domain."""
        if scipy.sparse.issparse(X) and not self._sparse_ok:
            raise TypeError(f"{self!r} cannot evaluate a sparse {name}; pass a dense array, e.g. "
                            f"{name}.toarray() (the linear, polynomial and Gaussian kernels, and "
                            "sums, products and powers of them, accept scipy.sparse input)")
        return check_matrix(X, name, accept_sparse=True)

    # -- public interface --------------------------------------------------
    @preserve_float32(pair=True)
    def __call__(self, X: ArrayLike, Y: ArrayLike | None = None) -> np.ndarray:
        """Return the Gram matrix ``[k(x_i, y_j)]`` of shape ``(len(X), len(Y))``.

        Parameters
        ----------
        X : array-like of shape (n, d), or (n,) for n points in one dimension
        Y : array-like of shape (m, d) or (m,), optional
            Defaults to ``X``; then the result is exactly symmetric.

        Returns
        -------
        ndarray of shape (n, m)

        Raises
        ------
        ValueError
            If an input is empty, not 1-D/2-D, contains NaN or inf, lies outside
            the kernel's domain, if X and Y have different numbers of columns, or
            if the kernel values overflow.
        """
        Xa = self._check(X, "X")
        symmetric = Y is None or Y is X
        if symmetric or Y is None:
            Ya = Xa
        else:
            Ya = self._check(Y, "Y")
            check_same_length(Xa, Ya, "X", "Y", axis=1)
        with np.errstate(over="ignore", invalid="ignore"):
            G, total = _tiled_gram(self._gram, Xa, Ya, symmetric)  # a fresh array
        return check_finite_result(G, f"the Gram matrix of {self!r}",
                                   "rescale the inputs or choose a larger bandwidth", total=total)

    @preserve_float32
    def diag(self, X: ArrayLike) -> np.ndarray:
        """Return the vector ``(k(x_1, x_1), ..., k(x_n, x_n))``.

        Computed in O(n d) without forming the Gram matrix; equal (up to
        round-off) to ``np.diag(k(X))``.

        Parameters
        ----------
        X : array-like of shape (n, d), or (n,) for n points in one dimension

        Returns
        -------
        ndarray of shape (n,)
        """
        Xa = self._check(X, "X")
        with np.errstate(over="ignore", invalid="ignore"):
            d = np.array(self._diag(Xa), dtype=float)
        return check_finite_result(d, f"the diagonal of {self!r}",
                                   "rescale the inputs or choose a larger bandwidth")

    def normalized(self) -> "Kernel":
        """Return the normalised kernel ``k(x,x') / sqrt(k(x,x) k(x',x'))``.

        The value is 0 when either diagonal entry is 0 (a point mapped to the
        origin of the feature space).  Non-positive diagonal entries, which a
        positive-definite kernel can only produce through round-off, are treated
        as 0.  On ``k(X)`` the diagonal is exactly 1 wherever ``k(x,x) > 0``.
        """
        return _Normalized(self)

    # -- algebra -----------------------------------------------------------
    def __add__(self, other: Any) -> "Kernel":
        if not isinstance(other, Kernel):
            return NotImplemented
        return _Sum(self, other)

    def __mul__(self, other: Any) -> "Kernel":
        if isinstance(other, Kernel):
            return _Product(self, other)
        if isinstance(other, numbers.Real) and not isinstance(other, bool):
            return _Scaled(other, self)
        return NotImplemented

    def __rmul__(self, other: Any) -> "Kernel":
        if isinstance(other, numbers.Real) and not isinstance(other, bool):
            return _Scaled(other, self)
        return NotImplemented

    def __pow__(self, m: Any) -> "Kernel":
        return _Power(self, m)


class _Combination(Kernel):
    """A kernel made of other kernels (its attributes that are kernels, in their order).

    Its inputs are those that every part accepts: each part checks them in turn (its
    domain, e.g. [0, 1] for a Sobolev kernel, and whether it evaluates sparse input).
    """

    def _check(self, X, name):
        for part in (v for v in vars(self).values() if isinstance(v, Kernel)):
            X = part._check(X, name)
        return X


class _Sum(_Combination):
    def __init__(self, k1: Kernel, k2: Kernel):
        self.k1, self.k2 = k1, k2

    def _gram(self, X, Y):
        return self.k1._gram(X, Y) + self.k2._gram(X, Y)

    def _paired(self, X, Y):
        a, b = self.k1._paired(X, Y), self.k2._paired(X, Y)
        return None if a is None or b is None else a + b

    def _diag(self, X):
        return self.k1._diag(X) + self.k2._diag(X)

    def __repr__(self):
        return f"({self.k1!r} + {self.k2!r})"


class _Product(_Combination):
    def __init__(self, k1: Kernel, k2: Kernel):
        self.k1, self.k2 = k1, k2

    def _gram(self, X, Y):
        return self.k1._gram(X, Y) * self.k2._gram(X, Y)

    def _paired(self, X, Y):
        a, b = self.k1._paired(X, Y), self.k2._paired(X, Y)
        return None if a is None or b is None else a * b

    def _diag(self, X):
        return self.k1._diag(X) * self.k2._diag(X)

    def __repr__(self):
        return f"({_atom(self.k1)} * {_atom(self.k2)})"


class _Scaled(_Combination):
    def __init__(self, c: Any, kernel: Kernel):
        self.c = check_nonnegative(c, "scalar multiplier c")
        self.kernel = kernel

    def _gram(self, X, Y):
        return self.c * self.kernel._gram(X, Y)

    def _paired(self, X, Y):
        a = self.kernel._paired(X, Y)
        return None if a is None else self.c * a

    def _diag(self, X):
        return self.c * self.kernel._diag(X)

    def __repr__(self):
        return f"{self.c!r} * {_atom(self.kernel)}"


class _Power(_Combination):
    def __init__(self, kernel: Kernel, m: Any):
        self.m = check_int(m, "exponent m", minimum=1)
        self.kernel = kernel

    def _gram(self, X, Y):
        return self.kernel._gram(X, Y) ** self.m

    def _paired(self, X, Y):
        a = self.kernel._paired(X, Y)
        return None if a is None else a**self.m

    def _diag(self, X):
        return self.kernel._diag(X) ** self.m

    def __repr__(self):
        return f"{_atom(self.kernel)} ** {self.m}"


class _Normalized(_Combination):
    def __init__(self, kernel: Kernel):
        self.kernel = kernel

    def _inv_sqrt_diag(self, X):
        d = self.kernel._diag(X)
        s = np.zeros_like(d)
        pos = d > 0
        s[pos] = 1.0 / np.sqrt(d[pos])
        return s

    def _gram(self, X, Y):
        sx = self._inv_sqrt_diag(X)
        sy = sx if Y is X else self._inv_sqrt_diag(Y)
        G = self.kernel._gram(X, Y)
        G *= sx[:, None]
        G *= sy[None, :]
        if Y is X:
            G[np.diag_indices_from(G)] = (sx > 0).astype(float)
        return G

    def _paired(self, X, Y):
        p = self.kernel._paired(X, Y)   # scaled as _gram scales the Gram matrix
        return None if p is None else p * self._inv_sqrt_diag(X) * self._inv_sqrt_diag(Y)

    def _diag(self, X):
        return (self.kernel._diag(X) > 0).astype(float)

    def __repr__(self):
        return f"{_atom(self.kernel)}.normalized()"

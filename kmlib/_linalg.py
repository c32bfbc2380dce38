"""Private linear algebra shared by kmlib's modules (and the book's helpers).

One place for the factorisations and products that several packages need: the
checked Gram matrix, an in-place symmetric eigendecomposition, scipy-BLAS products,
the pseudo-inverse rank mask, the Cholesky factor of ``X^T X + lam I`` with its
rank test, and the one-BLAS-thread context for loops of small factorisations.
Names here carry no underscore because other packages import them; the module
itself is private.
"""
from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np
import scipy.linalg as sla
from scipy.linalg import blas
from threadpoolctl import ThreadpoolController

from ._validation import (
    EPS,
    check_eigenvalues_psd,
    rank_tol,
)

__all__ = ["eigh_owned", "eigh_copy", "dot", "psd_rtol", "pinv_mask",
           "psd_eigenpairs", "full_column_rank",
           "rank_deficiency_error", "gram_cholesky", "one_blas_thread", "blas_threads",
           "map_in_threads"]


def eigh_owned(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigendecomposition of a symmetric matrix that the caller owns (``A`` is overwritten).

    ``A`` is C-contiguous and symmetric, so ``A.T`` is a Fortran-ordered view of the same
    matrix and LAPACK works in place without a copy.  Eigenvalues come in ascending order.
    """
    driver = "evd" if A.shape[0] > 1 else None      # scipy 1.10's evd fails on 1 x 1
    return sla.eigh(A.T, lower=True, overwrite_a=True, check_finite=False, driver=driver)


def eigh_copy(K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigendecomposition of a private copy of the symmetric matrix ``K``."""
    return eigh_owned(np.array(K, dtype=float, order="C", copy=True))


def dot(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``A @ B`` through scipy's BLAS (``dgemm``); ``B`` may be 1-D.

    The fast paths alternate LAPACK factorisations (scipy) with products; keeping both on
    scipy's OpenBLAS avoids two thread pools competing for few cores.  Contiguous inputs
    pass without a copy (a C-ordered matrix goes as its transpose with the ``trans``
    flag).  The result is Fortran-ordered.
    """
    vec = B.ndim == 1
    if vec:
        B = B[:, None]

    def operand(M: np.ndarray) -> tuple[np.ndarray, int]:
        if M.flags.f_contiguous:
            return M, 0
        if M.flags.c_contiguous:
            return M.T, 1
        return np.asfortranarray(M), 0

    a, ta = operand(A)
    b, tb = operand(B)
    out = blas.dgemm(1.0, a, b, trans_a=ta, trans_b=tb)
    return out[:, 0] if vec else out


def psd_rtol(n: int) -> float:
    """The default relative rank tolerance of an n-by-n symmetric matrix: ``n * eps``.

    The default of :func:`numpy.linalg.matrix_rank`; LAPACK's symmetric eigensolvers
    have a backward error of about ``n * eps * ||K||_2``, so a smaller eigenvalue cannot
    be told from zero.
    """
    return n * EPS


def pinv_mask(s: np.ndarray, n: int) -> np.ndarray:
    """Mask of the eigenvalues ``s`` (along axis 0) of an n-by-n matrix kept by its pseudo-inverse.

    The rule of :func:`psd_eigenpairs` for a symmetric matrix that need not be
    semi-definite (``K + lam I`` of an indefinite ``K``): ``|s_j| > psd_rtol(n) * max|s|``.
    """
    a = np.abs(s)
    return a > rank_tol(a, n, axis=0)


def psd_eigenpairs(evals: np.ndarray, evecs: np.ndarray, *, rtol: float | None = None,
                   atol: float | None = None, name: str = "K", who: str = ""
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The eigenpairs of a PSD matrix that its pseudo-inverse and its feature maps keep.

    The one rule behind every feature map from a Gram matrix ``K = U diag(lam) U^T``
    (:func:`kmlib.kernels.empirical_feature_map`, ``Nystroem``, ``KernelPCA``), its
    pseudo-inverse (``KernelRidge`` at ``lam = 0``, through :func:`pinv_mask`) and its
    regularised Cholesky factor (``NystroemKernelRidge``):

    1. *significantly negative*: an eigenvalue below ``-PSD_RTOL * max|lam|``
       (``PSD_RTOL = sqrt(eps)``, about 1.5e-8) raises ``ValueError``: no kernel gives it,
       rounding does not explain it;
    2. *zero*: an eigenvalue at or below ``rtol * max(lam)`` is dropped, as are the
       slightly negative ones (rounding of zero); ``rtol`` is relative to the largest
       eigenvalue, so the rule does not depend on the scale of ``K``; default
       :func:`psd_rtol` (``n * eps``).  A matrix without a positive eigenvalue keeps none.

    With ``atol`` (a tolerance the caller chose) both rules use it instead: an eigenvalue
    below ``-atol`` raises, one at or below ``atol`` is dropped.

    Parameters
    ----------
    evals, evecs : ndarray of shape (r,) and (n, r)
        Eigenvalues (any order; all of them, or the largest r) and their eigenvectors.
    rtol : float, optional
        Relative tolerance of rule 2.
    atol : float, optional
        Absolute tolerance of rules 1 and 2 (``rtol`` is then not used).
    name, who : str
        How error messages name the matrix and the caller.

    Returns
    -------
    evals, evecs : the kept pairs, in the given order.
    """
    check_eigenvalues_psd(evals, name, who=who, atol=atol)
    top = float(np.max(evals)) if evals.size else 0.0
    if atol is None:
        atol = (psd_rtol(evecs.shape[0]) if rtol is None else rtol) * top
    keep = evals > atol if top > 0 else np.zeros(evals.shape, dtype=bool)
    return evals[keep], evecs[:, keep]


def falkon_cg(matvec: Any, T: np.ndarray, A: np.ndarray, b_s: np.ndarray, lam: float,
              max_iter: int, tol: float, stacklevel: int) -> tuple[np.ndarray, int]:
    """FALKON's conjugate gradients on ``A^-T (Phi^T Phi + lam I) A^-1 z = A^-T Phi^T y``.

    ``matvec(w, first)`` is one pass over the rows, however the caller makes it (NumPy
    blocks or Dask tasks): an ``(m, 2)`` array whose column 0 sums ``E_b^T E_b w`` over the
    row blocks (``E_b`` a block's rows of the feature matrix) and whose column 1 sums
    ``E_b^T y_b`` when ``first`` is true (it may be anything otherwise).  Starts from the solution
    of the preconditioner's system, ``z = A^-T b_s``; returns ``alpha = T^-1 A^-1 z`` and the
    number of iterations, with a ``ConvergenceWarning`` when ``max_iter`` stops it.
    """
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    def tri(R: np.ndarray, v: np.ndarray, trans: str = "N") -> np.ndarray:
        return sla.solve_triangular(R, v, trans=trans, check_finite=False)

    def op(u: np.ndarray, first: bool = False) -> tuple[np.ndarray, np.ndarray]:
        acc = matvec(tri(T, u), first)
        return tri(A, tri(T, acc[:, 0], "T") + lam * u, "T"), acc[:, 1]

    z = tri(A, b_s, "T")
    Mz, Kty = op(tri(A, z), first=True)
    b = tri(A, tri(T, Kty, "T"), "T")
    r = b - Mz
    p, rr, bb, it = r.copy(), r @ r, b @ b, 0
    while rr > tol * tol * bb and it < max_iter:
        Mp = op(tri(A, p))[0]
        a = rr / (p @ Mp)
        z += a * p
        r -= a * Mp
        rr, rr_old = r @ r, rr
        p = r + (rr / rr_old) * p
        it += 1
    if rr > tol * tol * bb:
        warnings.warn(f"NystroemKernelRidge: conjugate gradients stopped at max_iter="
                      f"{max_iter} with relative residual {np.sqrt(rr / bb):.2g} > "
                      f"tol={tol:g}; raise max_iter or tol", ConvergenceWarning,
                      stacklevel=stacklevel + 1)
    return tri(T, tri(A, z)), it


def rank_deficiency_error(X: np.ndarray, what: str) -> ValueError:
    """The error for a design without full column rank where ``what`` needs one."""
    n, p = X.shape
    why = f"p = {p} > n = {n}" if p > n else "its columns are linearly dependent"
    return ValueError(
        f"X must have full column rank for {what}; got a {n} x {p} design whose rank is "
        f"below {p} ({why}). Use ridge(X, y, lam) with lam > 0 instead"
    )


def full_column_rank(X: np.ndarray) -> bool:
    """Whether ``X`` has full column rank (pivoted QR, the rank tolerance of ``rank_tol``)."""
    n, p = X.shape
    if p > n:
        return False
    R = sla.qr(X, mode="r", pivoting=True, check_finite=False)[0]  # |R_jj| non-increasing
    r = np.abs(np.diag(R))
    return bool(r[-1] > rank_tol(r, max(n, p))) if r[0] > 0 else False


def gram_cholesky(X: np.ndarray, lam: float, what: str, G: np.ndarray | None = None) -> Any:
    """Cholesky factor of ``X^T X + lam I`` (``ValueError`` when it is singular).

    ``G``: ``X^T X`` when the caller has formed it (it is overwritten).
    """
    p = X.shape[1]
    if lam == 0 and not full_column_rank(X):
        raise rank_deficiency_error(X, what)
    if G is None:
        G = X.T @ X
    G[np.diag_indices(p)] += lam
    try:
        return sla.cho_factor(G, lower=False, overwrite_a=True, check_finite=False)
    except np.linalg.LinAlgError as exc:  # pragma: no cover - guarded by the rank test
        raise rank_deficiency_error(X, what) from exc


#: One process-wide count of the blocks running under ``one_blas_thread`` (BLAS limits are
#: process-wide, so the count is too); the lock makes entering and leaving atomic.
_lock = threading.Lock()
_depth = 0
_limiter: Any = None


_found: tuple[int, ThreadpoolController] | None = None


def _controller() -> ThreadpoolController:
    """The loaded BLAS pools (their current limits are read at each use).

    Finding the pools reads the process's memory map (about 0.5 ms), so they are looked
    up again only when a module has been imported since the last look (a library that an
    import loads is seen); two threads racing here build the same controller twice.
    """
    global _found
    if _found is None or _found[0] != len(sys.modules):
        _found = (len(sys.modules), ThreadpoolController())
    return _found[1]


def blas_threads() -> int:
    """The number of threads BLAS may use now (under any ``threadpool_limits``)."""
    return max((p["num_threads"] for p in _controller().select(user_api="blas").info()), default=1)


class one_blas_thread(contextlib.ContextDecorator):  # noqa: N801 - used like a function
    """One BLAS thread for a block (``with one_blas_thread():``) or a function (as decorator).

    Loops of small factorisations gain nothing from BLAS threads and lose a factor of ten
    or more to thread start-up and spinning on a busy machine.  BLAS limits belong to the
    whole process, so this context is process-wide too: the first block to enter (on any
    thread) records the caller's limits and sets one thread, the last one to leave
    restores the recorded limits, also when a block raises.  While any block runs, every
    thread of the process sees one BLAS thread.  ``when=False`` makes it a no-op.
    """

    def __init__(self, when: bool = True) -> None:
        self.when = bool(when)

    def __enter__(self) -> one_blas_thread:
        global _depth, _limiter
        if self.when:
            with _lock:
                if _depth == 0:
                    _limiter = _controller().limit(limits=1, user_api="blas")
                _depth += 1
        return self

    def __exit__(self, *exc: object) -> None:
        global _depth, _limiter
        if self.when:
            with _lock:
                _depth -= 1
                if _depth == 0:
                    _limiter.restore_original_limits()
                    _limiter = None


T = TypeVar("T")


def map_in_threads(func: Callable[[Any], T], items: Iterable[Any], threads: int) -> list[T]:
    """``[func(item) for item in items]``, in order, on ``threads`` threads (BLAS on one each).

    For work cut into independent pieces (tiles of a Gram matrix, blocks of rows): numpy
    releases the GIL in its loops, so the pieces run on all the cores.  Each piece is
    computed alone, so the results do not depend on the number of threads.  With
    ``threads <= 1`` the calling thread does everything: starting a pool costs about a
    millisecond, so callers ask for threads only for large work.
    """
    with one_blas_thread(), (ThreadPoolExecutor(threads) if threads > 1
                             else contextlib.nullcontext()) as pool:
        return list((pool.map if pool else map)(func, items))

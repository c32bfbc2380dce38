r"""Dask arrays as inputs: the large-scale estimators as blockwise tasks on a Dask scheduler.

The estimators of kmlib that only ever need sums over rows or row-wise maps accept a
``dask.array.Array`` chunked along its rows (all columns in one chunk):

* :class:`kmlib.falkon.NystroemKernelRidge`: the normal equations are sums over row blocks,
  :math:`\Phi^\top\Phi = \sum_b \Phi_b^\top\Phi_b` and :math:`\Phi^\top y = \sum_b
  \Phi_b^\top y_b`, and an iteration of ``"pcg"`` is one pass :math:`\sum_b K_b^\top (K_b
  w)`.  Each chunk's term is a task (the estimator's own NumPy code on that chunk), the terms
  are added in a tree of tasks, and only the :math:`m \times (m + 1)` sums or the
  :math:`m`-vectors of a pass reach the client, together with the :math:`m` landmark rows.
  The landmarks are the rows the NumPy fit draws with the same ``random_state``, so both
  fits agree to rounding.  ``predict`` returns a lazy Dask array.
* :meth:`kmlib.features.Nystroem.transform` and
  :meth:`kmlib.features.RandomFourierFeatures.transform`: lazy Dask arrays, chunk by chunk.
* :func:`kmlib.unsupervised.mmd2_linear`: a sum of independent terms over pairs of rows.

The tasks run on the active scheduler: a ``dask.distributed.Client`` if one was created,
otherwise Dask's local threads.  Every pass of ``"pcg"`` reads ``X`` again: if ``X`` fits
in the workers' memory, ``X = X.persist()`` before ``fit`` computes its chunks once.
On Linux, the worker processes that ``dask.distributed`` starts get the environment variable
``MALLOC_TRIM_THRESHOLD_=65536`` (Dask's ``distributed.nanny.pre-spawn-environ``), which
makes every temporary block of :math:`K_{nm}` fresh memory from the system: the passes then
take about twice the CPU time.  ``dask.config.set({"distributed.nanny.pre-spawn-environ.
MALLOC_TRIM_THRESHOLD_": None})`` before starting the workers leaves glibc's default.

Dask is optional (``pip install kmlib[dask]``): :func:`is_dask` reads the type's module
name, and dask is imported only once a Dask array has been passed in.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
from scipy import linalg

from ._estimator_inputs import gram
from ._linalg import falkon_cg, one_blas_thread, psd_rtol
from ._validation import (
    EPS,
    as_generator,
    check_finite_result,
    check_fitted,
    check_matrix,
    check_predict_input,
    check_same_length,
    check_vector,
    warn_column_y,
)

#: Terms added by one task of the tree that sums the chunks' contributions.
_FAN_IN = 8


def is_dask(*arrays: Any) -> bool:
    """Whether any argument is a Dask collection (read from its type; dask is not imported)."""
    return any(type(a).__module__.partition(".")[0] == "dask" for a in arrays)


# ---------------------------------------------------------------------------- input checks
def _check_known_rows(A: Any, name: str) -> None:
    """Raise if the Dask array's number of rows is unknown (chunk sizes nan)."""
    if A.ndim and math.isnan(A.shape[0]):
        raise ValueError(f"{name} has unknown chunk sizes (nan), as after boolean indexing or "
                         "a dask.dataframe's to_dask_array(); compute them first: "
                         f"{name} = {name}.compute_chunk_sizes() (or to_dask_array(lengths=True))")


def _rows(X: Any, name: str, chunks: Any = None, min_rows: int = 1, why: str = "") -> Any:
    """``X`` as a 2-D Dask array chunked along rows only (1-D: one column).

    A NumPy input becomes a Dask array with the row chunks ``chunks`` (of the other input);
    ``min_rows`` and ``why`` as in :func:`kmlib._validation.check_matrix`.
    """
    import dask.array as da

    if not isinstance(X, da.Array):
        if is_dask(X):
            raise ValueError(f"{name} is a Dask {type(X).__name__}; pass a Dask array, e.g. "
                             f"{name}.to_dask_array(lengths=True)")
        X = np.asarray(X)
        X = da.from_array(X, chunks=(chunks,) + X.shape[1:] if chunks else -1)
    _check_known_rows(X, name)
    if X.ndim == 1:
        X = X[:, None]
    # the NumPy rules of shape (2-D, not empty), applied to the shape alone (no data read)
    check_matrix(np.broadcast_to(0.0, X.shape), name, finite=False, min_rows=min_rows, why=why)
    if len(X.chunks[1]) > 1:
        raise ValueError(f"{name} is split into {len(X.chunks[1])} chunks along its columns; "
                         "each row must lie in one chunk: "
                         f"{name} = {name}.rechunk({{1: -1}})")
    return X


def n_columns(X: Any) -> int:
    """The number of columns of the Dask array ``X``, read from its shape (nothing computed).

    ``X`` is checked as :func:`transform` checks it (rows known, chunked along rows only).
    """
    return _rows(X, "X").shape[1]


def _response(y: Any, X: Any) -> Any:
    """``y`` as a 1-D Dask array with the row chunks of the Dask array ``X`` (rechunked)."""
    import dask.array as da

    if not isinstance(y, da.Array):   # the NumPy fit's checks, then X's row chunks
        warn_column_y(y)
        v = check_vector(y, "y")
        check_same_length(X, v)
        return da.from_array(v, chunks=(X.chunks[0],))
    _check_known_rows(y, "y")
    # the NumPy rules (a column warns, 1-D, one entry per row) on the shape alone
    warn_column_y(np.broadcast_to(0.0, y.shape))
    check_same_length(X, check_vector(np.broadcast_to(0.0, y.shape), "y", finite=False))
    y = y[:, 0] if y.ndim == 2 else y
    # a chunk of X must meet the same rows of y: y follows X's row chunks, as dask's own
    # element-wise operations align the chunks of their operands (a no-op when they agree)
    return y.rechunk({0: X.chunks[0]})


# ------------------------------------------------------------------------- task helpers
def _add(parts: list[Any]) -> Any:
    out = parts[0]
    for p in parts[1:]:
        out = out + p
    return out


def _tree_sum(parts: list[Any]) -> Any:
    """The sum of delayed terms, added ``_FAN_IN`` at a time in a tree of tasks."""
    from dask import delayed

    while len(parts) > 1:
        parts = [delayed(_add, pure=True)(parts[i:i + _FAN_IN])
                 for i in range(0, len(parts), _FAN_IN)]
    return parts[0]


def _blockwise_sum(func: Callable[..., Any], arrays: list[Any], *args: Any) -> Any:
    """Computed ``sum_b func(chunk_b of each array, *args)``: one task per non-empty row chunk."""
    import dask
    from dask import delayed

    chunks = [a.to_delayed().ravel() for a in arrays]
    shared = [delayed(a, pure=True) if isinstance(a, np.ndarray) or hasattr(a, "fit") else a
              for a in args]                              # sent once, not once per task
    terms = [delayed(func, pure=True)(*blocks, *shared)
             for rows, *blocks in zip(arrays[0].chunks[0], *chunks, strict=True) if rows]
    return dask.compute(_tree_sum(terms))[0]


# ------------------------------------------------------------------ NystroemKernelRidge
def _phi_gram_chunk(Xb: np.ndarray, yb: np.ndarray, est: Any, T: np.ndarray) -> np.ndarray:
    """``[Phi_b^T Phi_b | Phi_b^T y_b]`` of one chunk (the NumPy fit's code on it)."""
    return est._phi_gram(est._inputs(Xb), check_vector(yb, "y"), T)


def _pass_chunk(Xb: np.ndarray, yb: np.ndarray, est: Any, w: np.ndarray,
                first: bool) -> np.ndarray:
    """``[K_b^T (K_b w) | K_b^T y_b]`` of one chunk, in blocks of the NumPy passes' size."""
    Xb = est._inputs(Xb)
    yb = check_vector(yb, "y") if first else yb
    acc = np.zeros((len(w), 2))
    with one_blas_thread():
        for blk in est._blocks(len(Xb), cache=True):
            E = est._block(Xb[blk])
            acc[:, 0] += (E @ w) @ E
            if first:
                acc[:, 1] += yb[blk] @ E
    return acc


def _predict_chunk(Xb: np.ndarray, est: Any) -> np.ndarray:
    return est.predict(Xb) if len(Xb) else np.empty(0)


def nystroem_krr_fit(est: Any, X: Any, y: Any,
                     cholesky: Callable[[np.ndarray, float, str], tuple[np.ndarray, float]]
                     ) -> Any:
    """:meth:`NystroemKernelRidge.fit` on Dask arrays (see the module).

    ``cholesky(M, jitter, what)`` is the NumPy fit's factorisation with a rising jitter.
    """
    # the hyper-parameters and column names were validated by the caller (validate_params)
    lam, max_iter, tol = float(est.lam), int(est.max_iter), float(est.tol)
    rng = as_generator(est.random_state)   # declared: checked by validate_params
    X = _rows(X, "X", chunks=getattr(y, "chunks", (None,))[0])
    y = _response(y, X)
    n = X.shape[0]
    m, s, solver = est._sizes(n, stacklevel=4)
    # the NumPy fit's draws, in its order: landmarks, then the preconditioner's rows
    idx = np.sort(rng.choice(n, size=m, replace=False))
    rows = None if solver == "direct" else np.sort(rng.choice(n, s - m, replace=False))
    L, y_L = X[idx].compute(), y[idx].compute()
    est.landmark_indices_, est.landmarks_ = idx, est._inputs(L)
    est.n_features_in_ = X.shape[1]
    with one_blas_thread():
        Kmm = np.array(gram(est.kernel, est.landmarks_, what="kernel(landmarks)"))
        # the NumPy fit's jitter: psd_eigenpairs' rank tolerance times tr(K_mm) / m
        T, est.jitter_ = cholesky(Kmm, psd_rtol(m) * max(np.trace(Kmm), EPS) / m,
                                          "kernel(landmarks)")
        del Kmm
    if solver == "direct":
        acc = _blockwise_sum(_phi_gram_chunk, [X, y], est, T)
    elif s > m:
        acc = _blockwise_sum(_phi_gram_chunk, [X[rows], y[rows]], est, T)
    else:   # s = m: the preconditioner of the landmarks alone, no further rows to sum
        acc = np.zeros((m, m + 1))
    with one_blas_thread():
        G = acc[:, :m]
        if solver == "direct":
            G.flat[:: m + 1] += lam
            beta = linalg.cho_solve(linalg.cho_factor(G, overwrite_a=True, check_finite=False),
                                    acc[:, m], check_finite=False)
            alpha, est.n_iter_ = linalg.solve_triangular(T, beta, check_finite=False), 1
        else:
            G += T @ T.T
            G *= n / s
            A = cholesky(G, lam, "the FALKON preconditioner")[0]
            b_s = (n / s) * (acc[:, m] + T @ y_L)   # ~ Phi^T y (y is checked by the 1st pass)
            del G, acc
            alpha, est.n_iter_ = _pcg(est, X, y, T, A, b_s, lam, max_iter, tol)
    est.dual_coef_ = check_finite_result(alpha, "NystroemKernelRidge.fit: dual_coef_",
                                         "rescale the inputs or the responses")
    est.solver_ = solver
    return est


def _pcg(est: Any, X: Any, y: Any, T: np.ndarray, A: np.ndarray, b_s: np.ndarray, lam: float,
         max_iter: int, tol: float) -> tuple[np.ndarray, int]:
    """The conjugate gradients of ``NystroemKernelRidge._pcg``, each pass a Dask computation."""
    def matvec(w: np.ndarray, first: bool) -> np.ndarray:
        return _blockwise_sum(_pass_chunk, [X, y], est, w, first)

    return falkon_cg(matvec, T, A, b_s, lam, max_iter, tol, stacklevel=4)


def nystroem_krr_predict(est: Any, X: Any) -> Any:
    """:meth:`NystroemKernelRidge.predict` on a Dask array: a lazy Dask array."""
    return _map_chunks(est, X, "dual_coef_", None)


# ----------------------------------------------------------------------- feature maps
def _transform_chunk(Xb: np.ndarray, est: Any, n_out: int) -> np.ndarray:
    return est.transform(Xb) if len(Xb) else np.empty((0, n_out))


def transform(est: Any, X: Any, fitted: str, n_out: Callable[[Any], int]) -> Any:
    """``est.transform`` on a Dask array, chunk by chunk: a lazy Dask array."""
    return _map_chunks(est, X, fitted, n_out)


def _map_chunks(est: Any, X: Any, fitted: str, n_out: Callable[[Any], int] | None) -> Any:
    """``est.predict`` (``n_out`` None) or ``est.transform`` on X's chunks: a lazy Dask array.

    ``n_out(est)`` is the number of columns of a transform.  First the NumPy methods'
    checks, on the Dask array's shape: fitted, then :func:`check_predict_input` (column
    names and number) on one row of zeros of ``X``'s width (a Dask array has no column
    names, like that row); each chunk's values are checked when the NumPy method runs on it.
    """
    check_fitted(est, fitted)
    X = _rows(X, "X")
    check_predict_input(est, np.zeros((1, X.shape[1])))
    if n_out is None:
        return X.map_blocks(_predict_chunk, est, drop_axis=1, dtype=np.float64,
                            meta=np.empty((0,)))
    cols = n_out(est)
    return X.map_blocks(_transform_chunk, est, cols, chunks=(X.chunks[0], (cols,)),
                        dtype=np.float64, meta=np.empty((0, 0)))


# ---------------------------------------------------------------------- linear-time MMD
def _mmd_chunk(Xb: np.ndarray, Yb: np.ndarray, kernel: Any,
               statistic: Callable[..., float]) -> np.ndarray:
    """``[sum of h, number of terms]`` over the pairs of rows of one chunk (an even number)."""
    pairs = len(Xb) // 2
    return np.array([statistic(Xb, Yb, kernel=kernel) * pairs, pairs])


def mmd2_linear(X: Any, Y: Any, kernel: Any, statistic: Callable[..., float]) -> float:
    """:func:`kmlib.unsupervised.mmd2_linear` on Dask arrays (chunks rechunked to pairs).

    ``statistic`` is the NumPy function, applied to each chunk's pairs; its own checks
    (the kernel, the same number of columns, finite values) run on every chunk, and the
    kernel was checked by its declaration before the call came here.
    """
    X = _rows(X, "X", min_rows=2, why="one pair of rows")
    Y = _rows(Y, "Y", min_rows=2, why="one pair of rows")
    n2 = min(X.shape[0], Y.shape[0]) // 2 * 2
    # the chunk boundaries of X (or of Y if only Y came chunked) below n2, moved down to
    # even rows: every pair of rows in one chunk
    rows = X.chunks[0] if len(X.chunks[0]) > 1 or len(Y.chunks[0]) == 1 else Y.chunks[0]
    ends = sorted(({min(int(e), n2) // 2 * 2 for e in np.cumsum(rows)} | {n2}) - {0})
    chunks = tuple(np.diff([0, *ends]).tolist())
    X, Y = X[:n2].rechunk({0: chunks}), Y[:n2].rechunk({0: chunks})
    total, count = _blockwise_sum(_mmd_chunk, [X, Y], kernel, statistic)
    return float(total / count)

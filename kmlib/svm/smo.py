r"""The SMO solver of the kernel SVM's dual (chapter 8; the problem is stated in :mod:`kmlib.svm`).

SMO reads the kernel matrix only through its rows and its diagonal: :func:`smo_solve`
takes them from a given Gram matrix, :class:`_Rows` also computes them on demand from a
kernel and the training inputs (the kernel cache behind :class:`~kmlib.svm.KernelSVM`).
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._blocks import DIAG_BLOCK, block_rows, gen_blocks
from .._estimator_inputs import gram
from .._validation import (
    check_pair,
    finite_result,
)
from .._validation.params import POSITIVE, POSITIVE_INT, validate_args
from ..kernels.base import Kernel

#: Curvature floor of Fan, Chen & Lin (their tau): keeps the two-variable
#: sub-problem strictly convex when the kernel matrix is not positive definite.
_TAU = 1e-12


class SMOResult(NamedTuple):
    """What :func:`smo_solve` returns (unpacks like a tuple, in this order)."""

    a: np.ndarray        #: the dual variables, shape (n,)
    b: float             #: the intercept
    objective: float     #: the dual objective at ``a``
    n_iter: int          #: number of two-variable updates performed
    converged: bool      #: whether the stopping rule was met within ``max_iter``


@finite_result
@validate_args({"C": [POSITIVE], "tol": [POSITIVE], "max_iter": [POSITIVE_INT]})
def smo_solve(K: ArrayLike, y: ArrayLike, C: float, tol: float = 1e-3,
              max_iter: int = 100_000) -> SMOResult:
    r"""Solve the C-SVM dual on a kernel matrix by SMO with second-order working-set selection.

    Minimises :math:`\tfrac12 a^\top Q a - \mathbf 1^\top a` with
    :math:`Q_{ij} = y_i y_j K_{ij}` over :math:`0 \le a \le C`, :math:`y^\top a = 0`
    (the negative of the dual objective).  :class:`KernelSVM` is the estimator
    built on it; this function is the bare solver for a given Gram matrix.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric kernel matrix; it is read, never written.
    y : ndarray of shape (n,)
        Labels in {-1, 1}, both present.
    C : float
        Box constant, > 0.
    tol : float
        Stop when the maximal KKT violation :math:`m(a) - M(a)` is below ``tol``.
    max_iter : int
        Maximal number of SMO iterations.

    Returns
    -------
    SMOResult
        ``(a, b, objective, n_iter, converged)``: the dual variables, the intercept, the
        dual objective :math:`\sum_i a_i - \tfrac12 a^\top Q a` at ``a``, the number of
        two-variable updates and whether the stopping rule was met within ``max_iter``.
    """
    K, y = check_pair(K, y, ("K", "y"), matrix="gram", labels="both", who="smo_solve")
    return _smo(_Rows.of_matrix(np.ascontiguousarray(K)), y, float(C), float(tol), int(max_iter))


def _smo(rows: _Rows, y: np.ndarray, C: float | np.ndarray, tol: float,
         max_iter: int) -> SMOResult:
    r"""SMO on a kernel matrix given by its cached rows and curvatures (:class:`_Rows`).

    ``C`` is one box constant or one per point (``C * sample_weight``, as in LIBSVM).

    Notes
    -----
    Write :math:`G = Qa - \mathbf 1` for the gradient and keep instead
    :math:`g = -y \odot G`, so that :math:`g_t = y_t - (K(a\odot y))_t`, i.e.
    :math:`g_t = y_t - (f(x_t) - b)`.  With
    :math:`I_{up} = \{t: a_t < C, y_t = 1\} \cup \{t: a_t > 0, y_t = -1\}` and
    :math:`I_{low} = \{t: a_t < C, y_t = -1\} \cup \{t: a_t > 0, y_t = 1\}`, the
    KKT conditions read :math:`m(a) = \max_{I_{up}} g \le M(a) = \min_{I_{low}} g`.

    One iteration picks :math:`i = \arg\max_{I_{up}} g` and, among
    :math:`t \in I_{low}` with :math:`g_t < g_i`, the :math:`j` maximising the
    second-order gain :math:`b_{it}^2 / a_{it}` with :math:`b_{it} = g_i - g_t` and
    :math:`a_{it} = \max(K_{ii} + K_{tt} - 2K_{it}, \tau)`.  Moving along the
    feasible direction :math:`a_i \mathrel{+}= y_i s`, :math:`a_j \mathrel{-}= y_j s`
    (which keeps :math:`y^\top a` fixed) changes the objective by
    :math:`-b_{ij}s + \tfrac12 a_{ij}s^2`, so the best step is
    :math:`s = b_{ij}/a_{ij}`, clipped to the box.  The gradient update is then
    :math:`g \mathrel{-}= s\,(K_{i\cdot} - K_{j\cdot})`: two kernel rows (rows equal
    columns since K is symmetric, and rows are contiguous in memory).  As the gain is
    positive only where :math:`b_{it} > 0`, :math:`j` also maximises
    :math:`b_{it} / \sqrt{a_{it}}`; with :math:`a_{i\cdot}^{-1/2}` cached with the row
    :math:`K_{i\cdot}`, one iteration is four element-wise passes and three argmax.
    """
    n = y.shape[0]
    Cv = np.broadcast_to(np.asarray(C, dtype=float), (n,))
    Cl, ylist = Cv.tolist(), y.tolist()
    a = [0.0] * n                           # (Python floats: cheaper one at a time)
    # g on I_up and on I_low, +-inf elsewhere (a = 0 => G = -1 => g = y): "argmax over
    # I_up" is an argmax of gu, and b_t = m - g_t on I_low (-inf elsewhere) is m - gl.
    pos = (y > 0) & (Cv > 0)
    gg = np.array([np.where(pos, 1.0, -np.inf), np.where(~pos & (Cv > 0), -1.0, np.inf)])
    gu, gl = gg                             # (views: one update of gg moves both)
    buf, bvec = np.empty(n), np.empty(n)
    neg_inf, inf, diag = -np.inf, np.inf, rows.diag.tolist()
    converged = False
    n_iter = m = bmax = 0

    def violation() -> NDArray[np.float64]:
        """How far each point breaks its KKT condition (> 0: it could join a violating pair).

        g_t - M(a) on I_up, m(a) - g_t = b_t on I_low (the larger one on both).
        """
        return np.maximum(gu - (m - bmax), bvec)

    rows.violation = violation              # ranks the rows fetched along with a missing one
    for n_iter in range(max_iter + 1):
        i = int(gu.argmax())                # (the method: np.argmax's wrapper costs a microsecond)
        m = gu[i]
        np.subtract(m, gl, out=bvec)        # b_t = m - g_t on I_low, -inf elsewhere
        bmax = bvec[bvec.argmax()]          # m(a) - M(a)
        if m == neg_inf or bmax < tol:
            converged = True
            break
        if n_iter == max_iter:
            break
        Ki, w = rows.pivot(i)               # K_i. and a_i.^(-1/2)
        np.multiply(bvec, w, out=buf)       # b_t / sqrt(a_it): its square is the gain when > 0
        j = int(buf.argmax())               # max(b) >= tol > 0, so j has b_j > 0

        # Analytic two-variable update along a_i += y_i s, a_j -= y_j s.
        yi, yj = ylist[i], ylist[j]
        ai, aj = a[i], a[j]
        s_i = Cl[i] - ai if yi > 0 else ai  # room for a_i to move
        s_j = Cl[j] - aj if yj < 0 else aj  # room for a_j to move
        s = float(bvec[j] / max(-2.0 * Ki[j] + diag[j] + diag[i], _TAU))  # b_ij / a_ij
        if s >= s_i and s_i <= s_j:         # a_i hits its bound first
            s = s_i
            ai_new = Cl[i] if yi > 0 else 0.0
            aj_new = aj - yj * s
            if s == s_j:
                aj_new = Cl[j] if yj < 0 else 0.0
        elif s >= s_j:                      # a_j hits its bound first
            s = s_j
            ai_new = ai + yi * s
            aj_new = Cl[j] if yj < 0 else 0.0
        else:
            ai_new = ai + yi * s
            aj_new = aj - yj * s
        a[i] = ai_new
        a[j] = aj_new
        for t, old, at, yt in ((i, ai, ai_new, yi), (j, aj, aj_new, yj)):
            if 0.0 < old < Cl[t] and 0.0 < at < Cl[t]:
                continue                    # free before and after: same sets
            gt = gu[t] if gu[t] != neg_inf else gl[t]
            in_up = (at < Cl[t]) if yt > 0 else (at > 0.0)
            in_low = (at > 0.0) if yt > 0 else (at < Cl[t])
            gu[t] = gt if in_up else neg_inf
            gl[t] = gt if in_low else inf
        np.subtract(Ki, rows(j), out=buf)
        buf *= s
        gg -= buf                           # g -= s (K_i. - K_j.)

    av = np.array(a)
    g = np.where(gu != neg_inf, gu, gl)     # (+inf where C_t = 0: such a_t stay 0)
    # Dual objective from the maintained gradient: with c = a*y, Kc = y - g, so
    # sum(a) - c'Kc/2 = sum(a) - sum(a * (1 - y*g))/2.  (The incremental updates
    # drift by about n_iter * 1e-16, far below any useful tol.)
    sv = av > 0.0
    objective = float(np.sum(av) - 0.5 * np.dot(av[sv], 1.0 - y[sv] * g[sv]))
    free = sv & (av < Cv)
    if np.any(free):
        b = float(np.mean(g[free]))         # y_t f(x_t) = 1 on free vectors => b = g_t
    else:
        # No free support vector: KKT only place b between m(a) and M(a);
        # take the midpoint, as LIBSVM does.
        up, low = gu != neg_inf, gl != inf
        m_up = float(np.max(g[up])) if np.any(up) else float(np.min(g[low]))
        M_low = float(np.min(g[low])) if np.any(low) else m_up
        b = 0.5 * (m_up + M_low)
    return SMOResult(av, b, objective, n_iter, converged)


class _Rows:
    r"""Rows of a Gram matrix computed on demand and cached, with curvatures for the pivots.

    SMO reads the rows :math:`K_{i\cdot}` and :math:`K_{j\cdot}` of its working pair, and
    for i also the curvatures :math:`\max(K_{ii} + K_{tt} - 2K_{it}, \tau)^{-1/2}` for all t
    (:meth:`pivot`); both are kept, at most ``working_memory`` MiB of them (the memory
    setting of :mod:`kmlib._blocks`), the oldest forgotten
    first.  From a kernel (:meth:`of_kernel`) SMO touches only the rows of the points it
    selects (a few hundred to a few thousand), which avoids the O(n^2) cost of the full
    Gram matrix, as LIBSVM's kernel cache does.  A kernel call costs a few passes over X
    besides its arithmetic, so a missing row is computed in one call together with up to
    ``block - 1`` others: those of the points that break their KKT condition the most
    (``violation``, set by SMO), the likeliest to be selected next.
    """

    def __init__(self, fetch: Callable[[np.ndarray], NDArray[np.float64]],
                 diag: NDArray[np.float64], block: int = 1) -> None:
        self.fetch, self.diag, self.block = fetch, diag, block   # fetch(rs) = K[rs]
        self.n = len(diag)
        same = self.n > 0 and bool(np.all(diag == diag[0]))   # e.g. k(x, x) = 1
        self.diag_value: float | None = float(diag[0]) if same else None
        self.cache: dict[int, NDArray[np.float64]] = {}
        self.curvs: dict[int, NDArray[np.float64]] = {}
        self.cached = np.zeros(self.n, dtype=bool)
        self.max_rows = block_rows(16 * self.n, min_rows=2 * block)
        self.violation: Callable[[], NDArray[np.float64]] | None = None

    @classmethod
    def of_matrix(cls, K: np.ndarray) -> _Rows:
        """Rows of a given Gram matrix (views, one at a time)."""
        return cls(lambda rs: K[rs[0]:rs[0] + 1], np.diagonal(K).copy())

    @classmethod
    def of_kernel(cls, kernel: Callable[..., Any], X: np.ndarray) -> _Rows:
        """Rows of the Gram matrix of ``X``, never formed: computed in blocks."""
        n, d = X.shape
        if isinstance(kernel, Kernel):
            diag = kernel.diag(X)            # O(n d)
        else:                                # diagonal blocks of the Gram matrix
            diag = np.concatenate([np.diagonal(gram(kernel, X[b], X[b]))
                                   for b in gen_blocks(n, DIAG_BLOCK)])
        fast = getattr(kernel, "_rows_of", None)   # kmlib's kernels of a distance
        rows = fast(X) if fast is not None else None
        if rows is not None:                        # X prepared once: a call costs little
            return cls(rows, diag, block=2)
        # A call's fixed cost, a few passes over X, is that of about d/2 more rows of n
        # kernel values; blocks stay below 2^16 values (no tiling inside the kernel).
        # (kmlib's kernels check their values are finite themselves.)
        finite = not isinstance(kernel, Kernel)
        return cls(lambda rs: gram(kernel, X[rs], X, finite=finite), diag,
                   block=max(1, min(n, 2**16 // n, 16, max(2, d // 2))))

    def __call__(self, t: int) -> NDArray[np.float64]:
        """Row t."""
        hit = self.cache.get(t)
        if hit is not None:
            return hit
        idx = [t]
        if self.block > 1 and self.violation is not None:
            v = self.violation()
            v[self.cached] = -np.inf
            v[t] = -np.inf
            if self.block == 2:
                u = int(v.argmax())
                idx += [u] if v[u] > 0 else []
            else:
                top = np.argpartition(v, 1 - self.block)[1 - self.block:]
                idx += top[v[top] > 0].tolist()
        for u, r in zip(idx, self.fetch(np.array(idx)), strict=True):
            if len(self.cache) >= self.max_rows:  # rows of one block leave together (FIFO)
                old = next(iter(self.cache))
                del self.cache[old]
                self.curvs.pop(old, None)
                self.cached[old] = False
            self.cache[u] = r
            self.cached[u] = True
        return self.cache[t]

    def pivot(self, i: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Row i and the curvatures K_ii + K_tt - 2 K_it (at least tau) to the power -1/2."""
        r, c = self(i), self.curvs.get(i)
        if c is None:
            c = r * -2.0
            if self.diag_value is None:
                c += self.diag
                c += self.diag[i]
            else:                            # a constant diagonal: one pass fewer
                c += self.diag_value + self.diag[i]
            np.maximum(c, _TAU, out=c)
            self.curvs[i] = c = np.reciprocal(np.sqrt(c, out=c), out=c)
        return r, c

r"""The SMO solver of the kernel SVM's dual (chapter 8; the problem is stated in :mod:`kmlib.svm`).

SMO reads the kernel matrix only through its rows and its diagonal: :func:`smo_solve`
takes them from a given Gram matrix, :class:`_LazyRows` computes them on demand from a
kernel and the training inputs (the kernel cache behind :class:`~kmlib.svm.KernelSVM`).
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._estimator_inputs import check_both_labels, check_symmetric, gram
from .._validation import (
    check_gram_psd,
    check_int,
    check_labels,
    check_positive,
    check_same_length,
    check_square,
    finite_result,
)

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
    K = check_square(K, "K")
    y = check_labels(y)
    check_same_length(K, y, "K", "y")
    check_symmetric(K, "K")
    check_gram_psd(K, "K", who="smo_solve")
    check_both_labels(y)
    C = check_positive(C, "C")
    tol = check_positive(tol, "tol")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    K = np.ascontiguousarray(K)
    return _smo(K.__getitem__, np.diagonal(K).copy(), y, C, tol, max_iter)


def _smo(row: Callable[[int], NDArray[np.float64]], diag: NDArray[np.float64], y: np.ndarray,
         C: float | np.ndarray, tol: float,
         max_iter: int) -> tuple[NDArray[np.float64], float, float, int, bool]:
    r"""SMO on a kernel matrix given by its rows ``row(i)`` and its diagonal.

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
    columns since K is symmetric, and rows are contiguous in memory).
    """
    n = y.shape[0]
    Cv = np.broadcast_to(np.asarray(C, dtype=float), (n,))
    Cl = Cv.tolist()
    a = np.zeros(n)
    g = y.astype(float).copy()              # a = 0  =>  G = -1  =>  g = y
    pos = y > 0
    # Membership of I_up / I_low as additive masks (0 inside, -inf outside), so
    # that "argmax over the set" is one in-place add followed by np.argmax.
    up_pen = np.where(pos & (Cv > 0), 0.0, -np.inf)
    low_pen = np.where(~pos & (Cv > 0), 0.0, -np.inf)
    buf = np.empty(n)
    bvec = np.empty(n)
    curv = np.empty(n)
    ylist = y.tolist()
    neg_inf = -np.inf
    converged = False
    n_iter = 0

    for n_iter in range(max_iter + 1):
        np.add(g, up_pen, out=buf)
        i = int(np.argmax(buf))
        m = buf[i]
        np.subtract(m, g, out=bvec)
        bvec += low_pen                     # b_t = m - g_t on I_low, -inf elsewhere
        if m == neg_inf or bvec.max() < tol:  # max(b) = m(a) - M(a)
            converged = True
            break
        if n_iter == max_iter:
            break
        Ki = row(i)
        np.multiply(Ki, -2.0, out=curv)
        curv += diag
        curv += diag[i]
        np.maximum(curv, _TAU, out=curv)    # a_it with Fan-Chen-Lin's tau safeguard
        np.maximum(bvec, 0.0, out=bvec)     # only t with g_t < m are candidates
        np.multiply(bvec, bvec, out=buf)
        buf /= curv
        j = int(np.argmax(buf))

        # Analytic two-variable update along a_i += y_i s, a_j -= y_j s.
        yi, yj = ylist[i], ylist[j]
        ai, aj = a[i], a[j]
        s_i = Cl[i] - ai if yi > 0 else ai  # room for a_i to move
        s_j = Cl[j] - aj if yj < 0 else aj  # room for a_j to move
        s = (m - g[j]) / curv[j]
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
        for t, at, yt in ((i, ai_new, yi), (j, aj_new, yj)):
            in_up = (at < Cl[t]) if yt > 0 else (at > 0.0)
            in_low = (at > 0.0) if yt > 0 else (at < Cl[t])
            up_pen[t] = 0.0 if in_up else neg_inf
            low_pen[t] = 0.0 if in_low else neg_inf
        np.subtract(Ki, row(j), out=buf)
        buf *= s
        g -= buf

    # Dual objective from the maintained gradient: with c = a*y, Kc = y - g, so
    # sum(a) - c'Kc/2 = sum(a) - sum(a * (1 - y*g))/2.  (The incremental updates
    # drift by about n_iter * 1e-16, far below any useful tol.)
    objective = float(np.sum(a) - 0.5 * np.dot(a, 1.0 - y * g))
    free = (a > 0.0) & (a < Cv)
    if np.any(free):
        b = float(np.mean(g[free]))         # y_t f(x_t) = 1 on free vectors => b = g_t
    else:
        # No free support vector: KKT only place b between m(a) and M(a);
        # take the midpoint, as LIBSVM does.
        up = np.isfinite(up_pen)
        low = np.isfinite(low_pen)
        m_up = float(np.max(g[up])) if np.any(up) else float(np.min(g[low]))
        M_low = float(np.min(g[low])) if np.any(low) else m_up
        b = 0.5 * (m_up + M_low)
    return SMOResult(a, b, objective, n_iter, converged)


class _LazyRows:
    """Rows of the Gram matrix of ``X`` computed on demand and cached.

    SMO touches only the rows of the points it selects (a few hundred to a few
    thousand of them), so evaluating rows lazily avoids the O(n^2) cost of the
    full Gram matrix, as LIBSVM's kernel cache does.  The cache holds at most
    ``max_bytes`` of rows and forgets the oldest row first.
    """

    def __init__(self, kernel: Callable[..., Any], X: np.ndarray,
                 max_bytes: float = 5e8) -> None:
        self.kernel = kernel
        self.X = X
        self.n = X.shape[0]
        self.cache: dict[int, NDArray[np.float64]] = {}
        self.max_rows = max(2, int(max_bytes // (8 * self.n)))

    def __call__(self, i: int) -> NDArray[np.float64]:
        r = self.cache.get(i)
        if r is None:
            r = gram(self.kernel, self.X[i:i + 1], self.X)[0]
            if len(self.cache) >= self.max_rows:
                del self.cache[next(iter(self.cache))]
            self.cache[i] = r
        return r

    def diagonal(self, block: int = 256) -> NDArray[np.float64]:
        """k(x_t, x_t) for every t, from blocks of the Gram matrix (O(n * block) work)."""
        d = np.empty(self.n)
        for s in range(0, self.n, block):
            Xb = self.X[s:s + block]
            d[s:s + len(Xb)] = np.diagonal(gram(self.kernel, Xb, Xb))
        return d

"""Newton's method for kernel logistic regression: the numerical engine of the estimator.

:class:`kmlib.logistic.KernelLogisticRegression` documents the method (bordered
Newton system, the symmetric matrix B = I + DKD, low-rank and float32 factorisations,
Armijo backtracking); this private module holds its implementation.
"""
from __future__ import annotations

import warnings

import numpy as np
from scipy.linalg import blas, lapack, lu_factor, lu_solve
from scipy.special import expit

_ARMIJO = 1e-4          # sufficient-decrease constant of the line search
_MIN_STEP = 2.0 ** -40  # give up backtracking below this step length
_F32_COND = 1e4         # factor B in float32 when its condition number is below this
_LOWRANK_REL = 1e-6     # accuracy of B from a low-rank factor of K (relative, in norm)
_LOWRANK_MIN_N = 200    # below this n the dense factorisation is cheap anyway
_STALL_ITERS = 10       # give up after this many iterations without halving the gradient
_MAX_COND = 1e8        # damped systems: bound 1 + c sum_i W_i K_ii on B's condition number
_HOPELESS = 1e32        # c sum_i W_i K_ii above this (or not finite): damp from the start
_MIN_LAM = 1e-300       # a damped system's penalty is at least this (c = 1/(2 lam) finite)


def _objective(Ka: np.ndarray, alpha: np.ndarray, mu: float, y: np.ndarray,
               lam: float, w: np.ndarray | None = None) -> float:
    """J from the precomputed product K alpha (losses weighted by ``w`` if given)."""
    loss = np.logaddexp(0.0, -y * (Ka + mu))
    return float(np.sum(loss if w is None else w * loss) + lam * np.dot(alpha, Ka))


class _Workspace:
    """The Gram matrix and what the Newton systems reuse across iterations.

    Holds K, its diagonal, an optional low-rank factor ``F`` (K ~ F F^T), a
    float32 copy of K and one n x n buffer per precision, each made on first use.
    """

    def __init__(self, K: np.ndarray, lam: float) -> None:
        self.K = K
        self.n = K.shape[0]
        self.diag = np.diagonal(K).copy()
        self.warned = False
        self.damped = False   # set once an undamped Newton system has broken down
        self._k32: np.ndarray | None = None
        self._buf: dict[type, np.ndarray] = {}
        self.F = self._low_rank_factor(lam)

    def K32(self) -> np.ndarray:
        if self._k32 is None:
            self._k32 = self.K.astype(np.float32)
        return self._k32

    def buffer(self, dtype: type) -> np.ndarray:
        if dtype not in self._buf:
            self._buf[dtype] = np.empty((self.n, self.n), dtype=dtype)
        return self._buf[dtype]

    def _low_rank_factor(self, lam: float) -> np.ndarray | None:
        """Pivoted Cholesky K = F F^T + E with ||E||_2 <= 8 lam _LOWRANK_REL, or None.

        LAPACK's ``dpstrf`` stops once every remaining pivot is below ``tol``;
        the remainder E is then PSD with trace below n * tol, which bounds its
        norm.  Returns None (use the dense factorisation) when the rank needed
        exceeds n / 3, or when the factor does not reproduce diag(K) (K not PSD).
        """
        n = self.n
        if n < _LOWRANK_MIN_N:
            return None
        tol = 8.0 * lam * _LOWRANK_REL / n
        A = self.buffer(np.float64)
        np.copyto(A, self.K)
        fac, piv, rank, info = lapack.dpstrf(A.T, tol=tol, lower=1, overwrite_a=1)
        if info < 0 or rank == 0 or rank > n // 3:
            return None
        F = np.empty((n, rank))
        F[piv - 1] = np.tril(fac[:, :rank])
        resid = self.diag - np.einsum("ij,ij->i", F, F)
        if np.any(np.abs(resid) > 2.0 * tol + 1e-12 * np.abs(self.diag)):
            return None
        return F


class _NewtonSystem:
    """A factor of :math:`B = I + DKD` for one weight vector W (see the class notes).

    The factor only has to give a good *direction*: the gradient, the objective
    and the stopping rule are always evaluated exactly, with K in float64.  Three
    ways to factor B, cheapest first:

    * low rank: with a pivoted Cholesky K ~ F F^T (computed once per fit, for
      smooth kernels whose Gram matrix has fast-decaying eigenvalues), B ~
      I + U U^T with U = D F, inverted by the Woodbury identity through an r x r
      Cholesky factor.  The neglected part changes B by at most
      ``_LOWRANK_REL`` (||D E D|| <= ||E|| / (8 lam)), so the step is a Newton
      step to about that relative accuracy.  O(n r^2) per iteration.
    * float32: when B is well conditioned (the trace bound
      ``1 + sum_i d_i^2 K_ii`` on its largest eigenvalue, its smallest being
      >= 1, is at most ``_F32_COND``), B is formed and factored in single
      precision, at half the O(n^3) cost, with relative error about 1e-4.
    * float64 Cholesky, and LU (with a warning) if K is not PSD.
    """

    def __init__(self, ws: _Workspace, W: np.ndarray, lam: float, low_rank: bool) -> None:
        if not ws.damped and not float(np.dot(W, ws.diag)) / (2.0 * lam) <= _HOPELESS:
            ws.damped = True
        while not self._factor(ws, W, _damped_lam(ws, W, lam), low_rank):
            ws.damped = True                   # B singular to rounding: damp, once
        self.Binv_d = self._solve(self.d)
        self.schur = float(np.dot(self.d, self.Binv_d))  # d' B^{-1} d  (> 0 unless W = 0)

    def _factor(self, ws: _Workspace, W: np.ndarray, lam: float, low_rank: bool) -> bool:
        """Factor B for the penalty ``lam``; False if a damped system should be tried."""
        n = ws.n
        self.c = 1.0 / (2.0 * lam)
        self.d = np.sqrt(self.c * W)
        self.kind = ""
        if low_rank and ws.F is not None:
            U = ws.F * self.d[:, None]         # n x r, C order, so U.T is Fortran order
            S = blas.dsyrk(1.0, U.T)           # U^T U (upper triangle)
            S.flat[:: S.shape[0] + 1] += 1.0
            fac, info = lapack.dpotrf(S, lower=0, clean=0, overwrite_a=1)
            if info == 0:
                self.U, self.fac, self.kind = U, fac, "low rank"
        if not self.kind and 1.0 + float(np.dot(self.d * self.d, ws.diag)) <= _F32_COND:
            d32 = self.d.astype(np.float32)
            B = ws.buffer(np.float32)
            np.multiply(ws.K32(), d32[:, None], out=B)
            B *= d32[None, :]
            B.flat[:: n + 1] += 1.0           # B = I + D K D
            # B is symmetric, so B.T is the same matrix in Fortran order and
            # LAPACK factors it in place, without a copy.
            fac, info = lapack.spotrf(B.T, lower=0, clean=0, overwrite_a=1)
            if info == 0:
                self.fac, self.kind = fac, "float32"
        if not self.kind:
            B = ws.buffer(np.float64)
            np.multiply(ws.K, self.d[:, None], out=B)
            B *= self.d[None, :]
            B.flat[:: n + 1] += 1.0
            fac, info = lapack.dpotrf(B.T, lower=0, clean=0, overwrite_a=1)
            if info == 0:
                self.fac, self.kind = fac, "float64"
            elif not ws.damped and _damped_lam(ws, W, lam, force=True) > lam:
                return False                   # singular to rounding, not indefinite
            else:
                # B >= I in exact arithmetic; it can only fail to be positive
                # definite if K is not positive semi-definite (or by rounding
                # when lam is tiny).  Fall back to LU.
                if not ws.warned:
                    warnings.warn(
                        "KernelLogisticRegression: I + D K D is not numerically positive "
                        "definite (is the kernel positive semi-definite?); solving the "
                        "Newton system by LU instead of Cholesky.",
                        RuntimeWarning,
                        stacklevel=5,
                    )
                    ws.warned = True
                np.multiply(ws.K, self.d[:, None], out=B)
                B *= self.d[None, :]
                B.flat[:: n + 1] += 1.0
                self.lu = lu_factor(B, overwrite_a=True, check_finite=False)
                self.kind = "lu"
        return True

    def _solve(self, r: np.ndarray) -> np.ndarray:
        """B^{-1} r for one right-hand side, returned in float64."""
        if self.kind == "low rank":            # (I + U U^T)^{-1} r = r - U S^{-1} U^T r
            t = blas.dgemv(1.0, self.U.T, r)
            t, _ = lapack.dpotrs(self.fac, t, lower=0)
            return r - blas.dgemv(1.0, self.U.T, t, trans=1)
        if self.kind == "lu":
            return lu_solve(self.lu, r, check_finite=False)
        if self.kind == "float32":
            x, _ = lapack.spotrs(self.fac, r.astype(np.float32)[:, None], lower=0)
            return x[:, 0].astype(np.float64)
        x, _ = lapack.dpotrs(self.fac, r[:, None], lower=0)
        return x[:, 0]

    def step(self, F1: np.ndarray, F2: float, KF1: np.ndarray) -> tuple[np.ndarray, float]:
        """Solve the reduced Newton system for the right-hand side -(F1, F2)."""
        c, d = self.c, self.d
        # u1 = -F1, u2 = -F2, K u1 = -KF1.
        z1 = self._solve(d * -KF1)
        if self.schur > 1e-300:
            dmu = c * (-F2 - np.dot(d, z1)) / self.schur
        else:                                  # W == 0: mu does not enter the quadratic model
            dmu = 0.0
        dalpha = -c * F1 - c * d * z1 - d * self.Binv_d * dmu
        return dalpha, dmu


def _damped_lam(ws: _Workspace, W: np.ndarray, lam: float, force: bool = False) -> float:
    """The penalty of the Newton system: ``lam``, or more once the undamped system broke down.

    B's largest eigenvalue is at most ``1 + c sum_i W_i K_ii`` with ``c = 1/(2 lam)``.
    At a tiny lam (1e-20 with K_ii ~ 1) B is singular to rounding: its Cholesky
    factorisation fails, LU returns NaN, and Newton's method makes no progress.  A damped
    system raises its penalty to ``lam' = max(lam, sum_i W_i K_ii / (2 _MAX_COND))``, so
    that bound is at most 1 + _MAX_COND: the step solves the Newton equations with the
    penalty's Hessian ``2 lam K`` replaced by ``2 lam' K`` (Levenberg-Marquardt damping),
    still a descent direction of J, computed from a well-conditioned B.  On separable
    data W shrinks as the margins grow, so lam' falls, and once it reaches lam the steps
    are Newton's again.  ``force`` gives the damped penalty before any breakdown.
    """
    if not (ws.damped or force):
        return lam
    return max(lam, float(np.dot(W, ws.diag)) / (2.0 * _MAX_COND), _MIN_LAM)


def _newton(K: np.ndarray, y: np.ndarray, lam: float, tol: float, max_iter: int,
            w: np.ndarray | None = None) -> tuple[np.ndarray, float, int, float, float, str, str]:
    """Damped Newton iterations on J(alpha, mu); see the class notes.

    With sample weights ``w`` the losses, hence r and W, are multiplied by them.

    Returns alpha, mu, the number of iterations, the final gradient norm, the
    objective, a status ("converged", "max_iter" or "stalled") and the kind of
    the last factor of B ("low rank", "float32", "float64", "lu"; "" if none).
    """
    n = K.shape[0]
    KT = K.T                                   # Fortran-ordered view of the C-ordered K

    def Kmul(v: np.ndarray) -> np.ndarray:
        # K @ v through scipy's BLAS, the library that also factors B: numpy and
        # scipy each bundle an OpenBLAS, and alternating between their thread
        # pools lets the idle pool's spinning threads slow the busy one down.
        return blas.dgemv(1.0, KT, v, trans=1)

    alpha = np.zeros(n)
    Ka = np.zeros(n)
    wt = np.ones(n) if w is None else w
    mu = float(np.log(wt[y > 0].sum() / wt[y < 0].sum()))  # the minimiser over mu at alpha = 0
    obj = _objective(Ka, alpha, mu, y, lam, w)
    ws = _Workspace(K, lam / max(1.0, float(wt.max())))  # W <= max(w) / 4 in the bound of B
    low_rank = ws.F is not None
    system: _NewtonSystem | None = None
    prev_gnorm = np.inf
    status = "max_iter"
    exact_Ka = True
    n_iter = 0
    gnorm = np.inf
    best_gnorm, best_iter = np.inf, 0
    while True:
        m = y * (Ka + mu)                      # margins y_i eta_i
        p_wrong = expit(-m)                    # sigma(-y_i eta_i)
        r = -y * p_wrong if w is None else -y * w * p_wrong
        F1 = r + 2.0 * lam * alpha
        F2 = float(np.sum(r))
        KF1 = Kmul(F1)
        gnorm = float(np.sqrt(np.dot(KF1, KF1) + F2 * F2))
        if gnorm < tol:
            if exact_Ka:
                status = "converged"
                break
            # Ka was updated incrementally (Ka + t K dalpha); confirm the stopping
            # rule with a freshly computed K alpha before declaring convergence.
            Ka = Kmul(alpha)
            exact_Ka = True
            obj = _objective(Ka, alpha, mu, y, lam, w)
            continue
        if n_iter >= max_iter:
            break
        if gnorm < 0.5 * best_gnorm:
            best_gnorm, best_iter = gnorm, n_iter
        elif n_iter - best_iter >= _STALL_ITERS:
            status = "stalled"                 # gradient stuck at its rounding level
            break
        n_iter += 1
        # A low-rank factor is cheap: refresh it every iteration.  A dense one
        # costs O(n^3): reuse it while it keeps cutting the gradient by 4x.
        fresh = low_rank or system is None or not gnorm < 0.25 * prev_gnorm
        W = p_wrong * expit(m)                 # sigma(eta)(1 - sigma(eta)), no cancellation
        W = W if w is None else w * W
        if fresh:
            system = _NewtonSystem(ws, W, lam, low_rank)
        prev_gnorm = gnorm
        assert system is not None
        dalpha, dmu = system.step(F1, F2, KF1)
        slope = float(np.dot(KF1, dalpha) + F2 * dmu)
        if not slope < 0.0:
            # Not a descent direction: a stale dense factor, or the low-rank
            # approximation at rounding level.  Use an exact dense factor.
            low_rank = False
            fresh = True
            system = _NewtonSystem(ws, W, lam, low_rank)
            dalpha, dmu = system.step(F1, F2, KF1)
            slope = float(np.dot(KF1, dalpha) + F2 * dmu)
        if not np.isfinite(slope) and not ws.damped:
            ws.damped = True                   # B singular to rounding: damp (see _damped_lam)
            system = _NewtonSystem(ws, W, lam, low_rank)
            dalpha, dmu = system.step(F1, F2, KF1)
            slope = float(np.dot(KF1, dalpha) + F2 * dmu)
        if not np.isfinite(slope):
            status = "stalled"                 # no finite direction: never a NaN iterate
            break
        Kd = Kmul(dalpha)
        t = 1.0
        # Rounding in J is about eps * (|loss| + |penalty|); allow it so that the
        # last, tiny Newton steps are not rejected for noise.
        slack = 1e-14 * (abs(obj) + 1.0)
        while True:
            a_new = alpha + t * dalpha
            Ka_new = Ka + t * Kd
            mu_new = mu + t * dmu
            obj_new = _objective(Ka_new, a_new, mu_new, y, lam, w)
            if obj_new <= obj + _ARMIJO * t * slope + slack:
                break
            t *= 0.5
            if t < _MIN_STEP:
                break
        if t < _MIN_STEP:
            if not fresh or low_rank:          # retry with an exact, fresh factor first
                low_rank = False
                system = None
                continue
            if not ws.damped and _damped_lam(ws, W, lam, force=True) > lam:
                ws.damped = True               # B too ill-conditioned for a useful step
                system = None
                continue
            # No decrease along an exact Newton direction: J is flat to rounding
            # here, so the iterate cannot be improved further.
            status = "stalled"
            break
        alpha, Ka, mu, obj = a_new, Ka_new, mu_new, obj_new
        exact_Ka = False
    return alpha, mu, n_iter, gnorm, obj, status, (system.kind if system is not None else "")

r"""Nystroem kernel ridge regression past the memory wall: streamed blocks and FALKON.

Chapter "Large-scale kernel machines: random features and Nystroem".  For :math:`m`
uniformly drawn landmarks :math:`\tilde x_j`, :class:`NystroemKernelRidge` solves
:math:`(K_{nm}^\top K_{nm} + \lambda K_{mm})\alpha = K_{nm}^\top y` with :math:`K_{nm}`
evaluated in blocks of :math:`b` rows, each used and discarded: memory :math:`O(m^2 + bm)`.

Both solvers use the Cholesky factor :math:`K_{mm} + \delta I = T^\top T` (a jitter
:math:`\delta \approx \varepsilon \operatorname{tr} K_{mm}`, raised until the factorisation
succeeds; it adds :math:`\lambda\delta\|\alpha\|^2` to the objective).  In
:math:`\beta = T\alpha` the system is ridge regression on the Nystroem features
:math:`\Phi = K_{nm} T^{-1}`: :math:`(\Phi^\top\Phi + \lambda I)\beta = \Phi^\top y`, of
condition number at most :math:`1 + n \max_x k(x, x) / \lambda`.  (The normal equations in
:math:`\alpha` square the condition number of :math:`K_{mm}`; whitening an accumulated
:math:`K_{nm}^\top K_{nm}` loses everything to rounding when :math:`K_{mm}` is nearly
singular, as for smooth kernels in low dimension.)

* ``"direct"`` sums :math:`\Phi_b^\top\Phi_b` and :math:`\Phi_b^\top y_b` over the blocks
  (:math:`2 n m^2` flops on BLAS threads) and solves by Cholesky.
* ``"pcg"`` is FALKON (Rudi, Carratino and Rosasco, 2017): conjugate gradients on
  :math:`A^{-\top}(\Phi^\top\Phi + \lambda I)A^{-1}`, where :math:`A^\top A =
  \frac{n}{s}\Phi_s^\top\Phi_s + \lambda I` estimates the same matrix from :math:`s` rows:
  the landmarks (whose :math:`\Phi_m^\top\Phi_m` is :math:`T T^\top`) and :math:`s - m`
  random rows.  :math:`s = m` is the paper's preconditioner :math:`\frac{n}{m} K_{mm}^2 +
  \lambda K_{mm} = T^\top A^\top A\,T`; a larger :math:`s` costs :math:`2(s - m) m^2` flops
  once and saves iterations; CG starts from the solution on these rows.  An iteration is
  one pass computing :math:`K_{nm}^\top (K_{nm} v)` in :math:`O(nm)` flops, dominated by the
  kernel evaluations, on as many threads as BLAS may use, each with one BLAS thread.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
from numpy.typing import ArrayLike
from scipy import linalg
from scipy.linalg import blas
from sklearn.base import BaseEstimator, RegressorMixin

from . import _dask
from ._blocks import block_rows, gen_blocks
from ._estimator_inputs import gram, validate_regression_fit
from ._linalg import blas_threads, falkon_cg, map_in_threads, one_blas_thread, psd_rtol
from ._typing import KernelFunc, Seed
from ._validation import (
    EPS,
    FiniteResults,
    as_generator,
    check_finite_result,
    check_int,
    check_matrix,
    check_predict_input,
    validate_params,
)
from ._validation.params import POSITIVE, POSITIVE_INT, Options
from .kernels import Kernel

__all__ = ["NystroemKernelRidge"]

def _cholesky(M: np.ndarray, jitter: float, what: str) -> tuple[np.ndarray, float]:
    """Upper Cholesky factor of ``M + jitter I`` and the jitter, raised until it succeeds.

    Reads the upper triangle of ``M`` and overwrites its diagonal.
    """
    diag = M.diagonal().copy()
    for _ in range(6):
        M.flat[:: len(M) + 1] = diag + jitter
        try:
            return linalg.cholesky(M, check_finite=False), jitter
        except linalg.LinAlgError:
            jitter *= 100.0
    raise ValueError(f"{what} is not positive semi-definite (Cholesky failed with jitter "
                     f"{jitter / 100:.3g}); use a positive-definite kernel")


class NystroemKernelRidge(FiniteResults, RegressorMixin, BaseEstimator):
    r"""Kernel ridge regression on :math:`m` random landmarks, for millions of samples.

    Minimises :math:`\sum_i (y_i - f(x_i))^2 + \lambda\|f\|_{\mathcal H}^2` over
    :math:`f = \sum_{j=1}^m \alpha_j k(\cdot, \tilde x_j)`, i.e. solves
    :math:`(K_{nm}^\top K_{nm} + \lambda K_{mm})\alpha = K_{nm}^\top y`, in memory
    :math:`O(m^2 + bm)`: the fit of scikit-learn's ``Nystroem`` on the same landmarks
    followed by ``Ridge(alpha=lam, fit_intercept=False)``.  Solvers: see the module.

    Parameters
    ----------
    kernel : callable
        ``k(X, Y)`` returning the Gram matrix, e.g. ``kmlib.kernels.gaussian(1.0)``.
    lam : float, default=1.0
        Penalty :math:`\lambda > 0` against the *sum* of squared errors (scikit-learn's
        ``alpha`` in ``KernelRidge`` and ``Ridge``).
    n_components : int, default=1000
        Number :math:`m` of landmarks (at most the number of samples).
    solver : {"auto", "direct", "pcg"}, default="auto"
        ``"direct"`` (exact, :math:`2nm^2` flops) or ``"pcg"`` (FALKON, :math:`O(nm)` flops
        an iteration); ``"auto"``: ``"direct"`` if ``n_components <= 200`` or the
        preconditioner would use every sample, else ``"pcg"``.
    preconditioner_size : int, optional
        Rows :math:`s \ge m` behind the preconditioner of ``"pcg"``; ``n_components`` gives
        FALKON's.  None: ``min(n_samples, 10 * n_components)``.
    block_size : int, optional
        Rows of :math:`K_{nm}` per block (:math:`8bm` bytes per block and thread).  None:
        from the memory setting (:mod:`kmlib._blocks`): blocks that stay in cache for the
        passes of ``"pcg"`` and ``predict``, ``working_memory`` MiB in the sums of
        :math:`\Phi_b^\top\Phi_b`, whose updates want a large b; at least 16 rows.
        The result depends on it only through rounding.
    max_iter : int, default=100
        Most conjugate-gradient iterations, each one pass over the data.
    tol : float, default=1e-3
        ``"pcg"`` stops when the residual of the preconditioned system is at most ``tol``
        times its right-hand side (about the relative error of :math:`\beta = T\alpha`).
    random_state : None, int, numpy.random.Generator or RandomState, optional
        Source of randomness for the landmarks and the preconditioner's rows.

    Attributes
    ----------
    landmarks_ : ndarray of shape (n_components, n_features)
        The landmarks :math:`\tilde x_j`: the rows ``landmark_indices_`` (sorted) of ``X``.
    landmark_indices_ : ndarray of shape (n_components,)
    dual_coef_ : ndarray of shape (n_components,)
        :math:`\alpha`, so that :math:`\hat f(x) = \sum_j \alpha_j k(x, \tilde x_j)`.
    jitter_ : float
        The :math:`\delta` added to the diagonal of :math:`K_{mm}`.
    solver_ : str
        ``"direct"`` or ``"pcg"``.
    n_iter_ : int
        Conjugate-gradient iterations run (``"pcg"``); 1 for ``"direct"``'s single solve.
    n_features_in_ : int
    """

    _parameter_constraints = {
        "kernel": [callable], "lam": [POSITIVE], "n_components": [POSITIVE_INT],
        "solver": [Options("auto", "direct", "pcg")], "preconditioner_size": [POSITIVE_INT, None],
        "block_size": [POSITIVE_INT, None], "max_iter": [POSITIVE_INT], "tol": [POSITIVE],
        "random_state": ["random_state"]}

    def __init__(self, *, kernel: KernelFunc, lam: float = 1.0, n_components: int = 1000,
                 solver: str = "auto", preconditioner_size: int | None = None,
                 block_size: int | None = None, max_iter: int = 100, tol: float = 1e-3,
                 random_state: Seed = None) -> None:
        self.kernel = kernel
        self.lam = lam
        self.n_components = n_components
        self.solver = solver
        self.preconditioner_size = preconditioner_size
        self.block_size = block_size
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _check_domain(self, X: Any) -> np.ndarray:
        """A checked matrix ``X``, checked to lie in a kmlib kernel's domain too."""
        return self.kernel._check(X, "X") if isinstance(self.kernel, Kernel) else X

    def _inputs(self, X: ArrayLike) -> np.ndarray:
        return self._check_domain(check_matrix(X, "X"))

    def _sizes(self, n: int, stacklevel: int) -> tuple[int, int, str]:
        """(landmarks m, preconditioner rows s, solver) for n points, as both fits use them.

        More landmarks than points are cut to n with a warning, as scikit-learn's Nystroem does.
        """
        m = int(self.n_components)
        if m > n:
            warnings.warn(f"n_components={m} > n_samples={n}: n_components was set to "
                          "n_samples", stacklevel=stacklevel)
            m = n
        s = min(n, 10 * m if self.preconditioner_size is None else
                check_int(self.preconditioner_size, "preconditioner_size", minimum=m))
        solver = self.solver
        if solver == "auto":
            solver = "direct" if m <= 200 or s == n else "pcg"
        return m, s, str(solver)

    def _block(self, Xb: np.ndarray) -> np.ndarray:
        """The rows ``k(Xb, landmarks_)`` of K_nm (kmlib kernels: inputs already checked)."""
        if isinstance(self.kernel, Kernel):
            return self.kernel._gram(Xb, self.landmarks_)
        return gram(self.kernel, Xb, self.landmarks_)

    def _blocks(self, n: int, cache: bool) -> list[slice]:
        b = (block_rows(8 * len(self.landmarks_), cache=cache, min_rows=16)
             if self.block_size is None else int(self.block_size))   # checked by fit
        return list(gen_blocks(n, b))

    def _sweep(self, X: np.ndarray, step: Callable[[slice, np.ndarray], None], shape: Any,
               workers: int) -> np.ndarray:
        """Sum of accumulators (zeros of ``shape``) updated by ``step(block, acc)``.

        The blocks are dealt round-robin to the threads, each with one BLAS thread and its
        own accumulator, so the sum does not depend on timing.
        """
        blocks = self._blocks(len(X), cache=True)
        workers = min(workers, len(blocks))

        def run(j: int) -> np.ndarray:
            acc = np.zeros(shape)
            for blk in blocks[j::workers]:
                step(blk, acc)
            return acc
        return sum(map_in_threads(run, range(workers), workers))  # type: ignore[return-value]

    def _phi_gram(self, X: np.ndarray, y: np.ndarray, T: np.ndarray) -> np.ndarray:
        """``[Phi^T Phi | Phi^T y]`` (upper triangle of Phi^T Phi), ``Phi = k(X, L) T^-1``.

        On one thread, with BLAS threads for large blocks (scipy's BLAS holds the GIL).
        """
        m, blocks = len(T), self._blocks(len(X), cache=False)
        acc = np.zeros((m, m + 1), order="F")
        small = (blocks[0].stop - blocks[0].start) * m * m < 2e9 if blocks else True
        fresh = isinstance(self.kernel, Kernel)   # a user's kernel may return a cached array
        with one_blas_thread(when=small):
            for blk in blocks:
                Pt = linalg.solve_triangular(T, self._block(X[blk]).T, trans="T",
                                             overwrite_b=fresh, check_finite=False)  # Phi_b^T
                blas.dsyrk(1.0, Pt, beta=1.0, c=acc[:, :m], overwrite_c=1)  # in place
                acc[:, m] += Pt @ y[blk]
        return acc

    def fit(self, X: ArrayLike, y: ArrayLike) -> "NystroemKernelRidge":
        """Draw the landmarks and solve for the coefficients, streaming over blocks of ``X``.

        Parameters
        ----------
        X : array-like or dask.array.Array of shape (n_samples, n_features)
            Dask arrays (chunked along rows; y is rechunked to X's rows): the block sums and
            passes run as Dask tasks, with the NumPy fit's landmarks (:mod:`kmlib._dask`).
        y : array-like or dask.array.Array of shape (n_samples,)

        Returns
        -------
        self
        """
        if _dask.is_dask(X, y):   # Dask arrays: blockwise sums as Dask tasks
            validate_params(self, X)
            return _dask.nystroem_krr_fit(self, X, y, _cholesky)
        X, y, _ = validate_regression_fit(self, X, y, multi_output=False)
        X = self._check_domain(X)
        lam, max_iter, tol = float(self.lam), int(self.max_iter), float(self.tol)
        rng = as_generator(self.random_state)   # declared: checked by validate_params
        n = len(X)
        m, s, solver = self._sizes(n, stacklevel=3)
        self.landmark_indices_ = np.sort(rng.choice(n, size=m, replace=False))
        self.landmarks_ = X[self.landmark_indices_]
        workers = blas_threads()   # read before one_blas_thread lowers it
        with one_blas_thread():
            Kmm = np.array(gram(self.kernel, self.landmarks_, what="kernel(landmarks)"))
            # the rank tolerance of psd_eigenpairs times the mean eigenvalue tr(K_mm) / m
            T, self.jitter_ = _cholesky(Kmm, psd_rtol(m) * max(np.trace(Kmm), EPS) / m,
                                        "kernel(landmarks)")
            del Kmm
        rows = slice(None) if solver == "direct" else np.sort(rng.choice(n, s - m, replace=False))
        acc = self._phi_gram(X[rows], y[rows], T)
        with one_blas_thread():
            G = acc[:, :m]
            if solver == "direct":
                G.flat[:: m + 1] += lam
                beta = linalg.cho_solve(linalg.cho_factor(G, overwrite_a=True,
                                                          check_finite=False),
                                        acc[:, m], check_finite=False)
                alpha, self.n_iter_ = linalg.solve_triangular(T, beta, check_finite=False), 1
            else:
                G += T @ T.T
                G *= n / s
                A = _cholesky(G, lam, "the FALKON preconditioner")[0]
                b_s = (n / s) * (acc[:, m] + T @ y[self.landmark_indices_])  # ~ Phi^T y
                del G, acc
                alpha, self.n_iter_ = self._pcg(X, y, T, A, b_s, lam, max_iter, tol, workers)
        self.dual_coef_ = check_finite_result(alpha, "NystroemKernelRidge.fit: dual_coef_",
                                              "rescale the inputs or the responses")
        self.solver_, self.n_features_in_ = solver, X.shape[1]
        return self

    def _pcg(self, X: np.ndarray, y: np.ndarray, T: np.ndarray, A: np.ndarray, b_s: np.ndarray,
             lam: float, max_iter: int, tol: float, workers: int) -> tuple[np.ndarray, int]:
        """Conjugate gradients on ``A^-T (Phi^T Phi + lam I) A^-1 z = A^-T Phi^T y``.

        Starts from the solution of the preconditioner's system, ``z = A^-T b_s`` (``b_s``
        estimates ``Phi^T y`` from the same rows); returns ``alpha = T^-1 A^-1 z`` and the
        number of iterations.
        """
        def matvec(w: np.ndarray, first: bool) -> np.ndarray:
            def step(blk: slice, acc: np.ndarray) -> None:
                E = self._block(X[blk])
                acc[:, 0] += (E @ w) @ E
                if first:
                    acc[:, 1] += y[blk] @ E
            return self._sweep(X, step, (len(T), 2), workers)

        return falkon_cg(matvec, T, A, b_s, lam, max_iter, tol, stacklevel=3)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Evaluate :math:`\\hat f(x) = \\sum_j \\alpha_j k(x, \\tilde x_j)`, block by block.

        Parameters
        ----------
        X : array-like or dask.array.Array of shape (n_samples, n_features)
            A Dask array (chunked along rows) gives a lazy Dask array (:mod:`kmlib._dask`).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        if _dask.is_dask(X):   # a lazy Dask array, chunk by chunk
            return _dask.nystroem_krr_predict(self, X)
        X = check_predict_input(self, X, "dual_coef_")   # fitted; names, finite matrix, width
        X = self._check_domain(X)
        out = np.empty(len(X))

        def step(blk: slice, _acc: np.ndarray) -> None:
            # an overflow is reported by the guard on the result; np.errstate is per thread
            with np.errstate(over="ignore", invalid="ignore"):
                out[blk] = self._block(X[blk]) @ self.dual_coef_
        self._sweep(X, step, 0, blas_threads())
        return out

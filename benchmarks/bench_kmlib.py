"""Benchmark kmlib against scikit-learn on this machine (``make bench``).

Every case runs kmlib and scikit-learn on the same seeded data in one process,
times each side with :func:`time.perf_counter` (one warm-up call, then the
median of ``--repeats`` timed calls; fewer calls for the slowest cases, see
``--budget``), checks that both computed the same thing, and prints a table of
time ratios (kmlib / scikit-learn) with a correctness figure beside each.  The
table, the machine and the thread settings are written to
``benchmarks/results.md``.

Usage::

    .venv/bin/python benchmarks/bench_kmlib.py            # full run, writes results.md
    .venv/bin/python benchmarks/bench_kmlib.py --quick    # smoke run at n/10, prints only
    .venv/bin/python benchmarks/bench_kmlib.py --threads 1
    .venv/bin/python benchmarks/bench_kmlib.py --only svm,klr

Threads: by default nothing is tuned.  numpy and scipy each bundle their own
OpenBLAS; alternating between them leaves one library's idle (spinning) threads
competing with the other's, which can slow either side, so the settings are
recorded with the results.  ``--threads N`` wraps the whole run in
``threadpoolctl.threadpool_limits(N)`` (every BLAS and OpenMP pool).

Conventions: kmlib's Gaussian kernel ``exp(-|x - x'|^2 / (2 sigma^2))`` is
scikit-learn's ``rbf`` with ``gamma = 1 / (2 sigma^2)``; kmlib's ``lam`` and
scikit-learn's ``alpha`` multiply the squared RKHS norm against the *sum* of
squared errors, so the ridge problems are identical.
"""
from __future__ import annotations

import argparse
import contextlib
import datetime
import math
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import scipy
import scipy.linalg
import sklearn
import threadpoolctl
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.kernel_approximation import Nystroem as SkNystroem
from sklearn.kernel_approximation import RBFSampler
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import GridSearchCV
from sklearn.multiclass import OneVsRestClassifier
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing kmlib
    sys.path.insert(0, str(ROOT))

from kmlib import kernels  # noqa: E402
from kmlib._folds import KFold  # noqa: E402
from kmlib.datasets import two_moons  # noqa: E402
from kmlib.features import Nystroem, RandomFourierFeatures  # noqa: E402
from kmlib.krr import KernelRidge  # noqa: E402
from kmlib.logistic import KernelLogisticRegression  # noqa: E402
from kmlib.model_selection import krr_cv_path, krr_loo  # noqa: E402
from kmlib.ridge import RidgeRegression, ridge  # noqa: E402
from kmlib.svm import KernelSVM  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results.md"


# ---------------------------------------------------------------------------
# timing and bookkeeping
# ---------------------------------------------------------------------------
@dataclass
class Config:
    """Run settings shared by all cases."""

    quick: bool
    repeats: int
    min_repeats: int
    budget: float

    def n(self, full: int) -> int:
        """Problem size: ``full``, or a tenth of it with ``--quick``."""
        return full // 10 if self.quick else full


@dataclass
class Timing:
    """Median wall time of ``runs`` timed calls (after one warm-up call).

    ``estimated`` marks a time extrapolated from a timed subset of the work.
    """

    seconds: float
    runs: int
    estimated: bool = False


@dataclass
class Check:
    """A correctness figure (text for the table) and whether it is acceptable."""

    text: str
    ok: bool


CaseResult = tuple[Timing, Timing, Check, str]  # kmlib time, sklearn time, check, note


@dataclass
class Case:
    """One benchmark row: a function returning (kmlib time, sklearn time, check, note).

    ``title`` may contain ``{n}``, replaced by the size actually run (``size``
    in a full run, a tenth of it with ``--quick``).
    """

    title: str
    size: int
    key: str
    target: tuple[str, float]  # ("ratio", max kmlib/sklearn), ("speedup", min), ("seconds", max)
    run: Callable[[Config], CaseResult]

    def name(self, cfg: Config) -> str:
        return self.title.format(n=cfg.n(self.size))


def measure(fn: Callable[[], Any], cfg: Config) -> tuple[Timing, Any]:
    """Time ``fn``: one warm-up call, then the median of up to ``cfg.repeats`` calls.

    The number of timed calls is cut to ``cfg.budget / warm-up time`` (but at
    least ``cfg.min_repeats``) so that slow cases keep the whole run short.
    Returns the timing and the result of the last call.
    """
    t0 = time.perf_counter()
    out = fn()
    warm = time.perf_counter() - t0
    runs = max(cfg.min_repeats, min(cfg.repeats, int(cfg.budget / max(warm, 1e-9))))
    times = []
    for _ in range(runs):
        out = None  # free the previous result before the next call
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return Timing(statistics.median(times), runs), out


def runs_note(tk: Timing, ts: Timing, cfg: Config) -> str:
    """Say so when a side was timed fewer than ``cfg.repeats`` times."""
    parts = [f"{side} median of {t.runs}" for side, t in (("kmlib", tk), ("sklearn", ts))
             if t.runs < cfg.repeats]
    return "; ".join(parts)


def join(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


def rel_diff(a: np.ndarray, b: np.ndarray) -> float:
    """``max|a - b| / max|b|`` (relative to the scale of the reference ``b``)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), np.finfo(float).tiny))


def max_abs_diff(A: np.ndarray, B: np.ndarray, block: int = 1000) -> float:
    """``max|A - B|`` in row blocks (no full-size temporary for large matrices)."""
    return max(float(np.max(np.abs(A[s:s + block] - B[s:s + block])))
               for s in range(0, A.shape[0], block))


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------
def regression_data(n: int, d: int, seed: int, n_test: int = 0):
    """Smooth non-linear regression data: x ~ N(0, I_d), y = f(x) + 0.1 noise.

    ``f(x) = sin(u.x) + 0.5 sin(2 v.x)`` with fixed random unit vectors u, v;
    f is odd, so E y = 0 and no intercept is needed.
    """
    rng = np.random.default_rng(seed)
    u, v = rng.standard_normal((2, d))
    u /= np.linalg.norm(u)
    v /= np.linalg.norm(v)

    def draw(m: int) -> tuple[np.ndarray, np.ndarray]:
        X = rng.standard_normal((m, d))
        f = np.sin(X @ u) + 0.5 * np.sin(2.0 * (X @ v))
        return X, f + 0.1 * rng.standard_normal(m)

    X, y = draw(n)
    if not n_test:
        return X, y
    Xt, yt = draw(n_test)
    return X, y, Xt, yt


D = 10                      # input dimension of the regression cases
SIGMA = math.sqrt(D)        # Gaussian bandwidth of the regression cases
GAMMA = 1.0 / (2.0 * SIGMA**2)
LAMS = np.logspace(-3, 2, 20)


# ---------------------------------------------------------------------------
# the cases
# ---------------------------------------------------------------------------
def case_gram(cfg: Config) -> CaseResult:
    """Gaussian Gram matrix, n = 10000, d = 10, vs sklearn's rbf_kernel."""
    X = regression_data(cfg.n(10_000), D, seed=1)[0]
    k = kernels.gaussian(SIGMA)
    tk, Kk = measure(lambda: k(X), cfg)
    ts, Ks = measure(lambda: rbf_kernel(X, gamma=GAMMA), cfg)
    err = max_abs_diff(Kk, Ks)
    return tk, ts, Check(f"max abs diff {err:.1e}", err <= 1e-12), runs_note(tk, ts, cfg)


def _case_krr(cfg: Config, n_full: int) -> CaseResult:
    n = cfg.n(n_full)
    X, y, Xt, _ = regression_data(n, D, seed=2, n_test=cfg.n(1000))
    lam = 0.1

    def kmlib_run():
        return KernelRidge(kernel=kernels.gaussian(SIGMA), lam=lam).fit(X, y).predict(Xt)

    def sklearn_run():
        return SkKernelRidge(alpha=lam, kernel="rbf", gamma=GAMMA).fit(X, y).predict(Xt)

    tk, pk = measure(kmlib_run, cfg)
    ts, ps = measure(sklearn_run, cfg)
    err = rel_diff(pk, ps)
    note = join(f"lam={lam}, {len(Xt)} test points", runs_note(tk, ts, cfg))
    return tk, ts, Check(f"max rel pred diff {err:.1e}", err <= 1e-8), note


def case_krr_2000(cfg: Config) -> CaseResult:
    """KernelRidge fit + predict, n = 2000."""
    return _case_krr(cfg, 2000)


def case_krr_5000(cfg: Config) -> CaseResult:
    """KernelRidge fit + predict, n = 5000."""
    return _case_krr(cfg, 5000)


def case_cv(cfg: Config) -> CaseResult:
    """5-fold x 20-lambda CV: krr_cv_path (Gram included) vs GridSearchCV."""
    n = cfg.n(2000)
    X, y = regression_data(n, D, seed=3)
    folds = list(KFold(5, shuffle=True, random_state=0).split(n))  # the same splits for both
    sizes = np.array([len(te) for _, te in folds], dtype=float)
    k = kernels.gaussian(SIGMA)

    def kmlib_run():
        return krr_cv_path(k(X), y, LAMS, folds)

    def sklearn_run():
        search = GridSearchCV(SkKernelRidge(kernel="rbf", gamma=GAMMA), {"alpha": list(LAMS)},
                              cv=folds, scoring="neg_mean_squared_error", refit=False)
        search.fit(X, y)
        # mean over all n points = fold MSEs weighted by fold size (kmlib's CV error)
        fold_mse = -np.array([search.cv_results_[f"split{j}_test_score"]
                              for j in range(len(folds))])
        return sizes @ fold_mse / n

    tk, cvk = measure(kmlib_run, cfg)
    ts, cvs = measure(sklearn_run, cfg)
    err = float(np.max(np.abs(cvk - cvs) / np.abs(cvs)))
    note = join("GridSearchCV refit=False, same explicit folds", runs_note(tk, ts, cfg))
    return tk, ts, Check(f"max rel CV diff {err:.1e}", err <= 1e-6), note


def _brute_loo(K: np.ndarray, y: np.ndarray, lam: float, idx: np.ndarray) -> np.ndarray:
    """Leave-one-out residuals at the points ``idx`` by refitting sklearn each time."""
    n = len(y)
    res = np.empty(len(idx))
    for r, i in enumerate(idx):
        tr = np.delete(np.arange(n), i)
        model = SkKernelRidge(alpha=lam, kernel="precomputed").fit(K[np.ix_(tr, tr)], y[tr])
        res[r] = y[i] - model.predict(K[i:i + 1, tr])[0]
    return res


def case_loo(cfg: Config) -> CaseResult:
    """LOO over 20 lambdas, n = 1000: krr_loo vs brute-force refits (extrapolated)."""
    n = cfg.n(1000)
    n_sub = 20 if not cfg.quick else 5
    X, y = regression_data(n, D, seed=4)
    k = kernels.gaussian(SIGMA)
    tk, _ = measure(lambda: krr_loo(k(X), y, LAMS), cfg)

    # brute force: one Gram matrix, then n refits per lambda; only n_sub random
    # left-out points per lambda are timed and the time is scaled by n / n_sub.
    idx = np.random.default_rng(5).choice(n, size=n_sub, replace=False)
    t0 = time.perf_counter()
    K = rbf_kernel(X, gamma=GAMMA)
    t_gram = time.perf_counter() - t0
    t0 = time.perf_counter()
    for lam in LAMS:
        _brute_loo(K, y, lam, idx)
    t_sub = time.perf_counter() - t0
    ts = Timing(t_gram + t_sub * n / n_sub, 1, estimated=True)

    # correctness: the full brute-force LOO curve at a smaller n (every point, every lambda)
    n_chk = 40 if cfg.quick else 150
    Xc, yc = regression_data(n_chk, D, seed=6)
    Kc = rbf_kernel(Xc, gamma=GAMMA)
    brute = np.array([np.mean(_brute_loo(Kc, yc, lam, np.arange(n_chk)) ** 2) for lam in LAMS])
    fast = krr_loo(kernels.gaussian(SIGMA)(Xc), yc, LAMS)
    err = float(np.max(np.abs(fast - brute) / brute))
    note = join(f"sklearn: {n_sub} of {n} refits per lambda timed once, x{n / n_sub:g}; "
                f"check: full brute-force LOO at n={n_chk}",
                runs_note(tk, Timing(0, cfg.repeats), cfg))
    return tk, ts, Check(f"max rel LOO diff {err:.1e} (n={n_chk})", err <= 1e-6), note


def _mse_check(mk: float, ms: float, noise_var: float, what: str = "test MSE") -> Check:
    """Test MSEs of two different random approximations: "close" if they differ by at
    most 10 % of the larger one plus 10 % of the noise variance."""
    close = abs(mk - ms) <= 0.1 * max(mk, ms) + 0.1 * noise_var
    return Check(f"{what} {mk:.4f} vs {ms:.4f}", close)


def case_rff(cfg: Config) -> CaseResult:
    """RFF (500 columns) + ridge, n = 100000, d = 10."""
    return _case_rff(cfg, 100_000)


def case_rff_50k(cfg: Config) -> CaseResult:
    """RFF (500 columns) + ridge, n = 50000, d = 10."""
    return _case_rff(cfg, 50_000)


def _case_rff(cfg: Config, n_full: int) -> CaseResult:
    n = cfg.n(n_full)
    X, y, Xt, yt = regression_data(n, D, seed=7, n_test=cfg.n(10_000))
    lam = 1.0

    def kmlib_run():
        rff = RandomFourierFeatures(sigma=SIGMA, n_features=250, variant="cos_sin",
                                    random_state=0).fit(X)
        beta = ridge(rff.transform(X), y, lam, method="primal")
        return rff.transform(Xt) @ beta

    def sklearn_run():
        rff = RBFSampler(gamma=GAMMA, n_components=500, random_state=0).fit(X)
        model = Ridge(alpha=lam, fit_intercept=False).fit(rff.transform(X), y)
        return model.predict(rff.transform(Xt))

    tk, pk = measure(kmlib_run, cfg)
    ts, ps = measure(sklearn_run, cfg)
    check = _mse_check(np.mean((yt - pk) ** 2), np.mean((yt - ps) ** 2), 0.01)
    note = join("kmlib cos_sin 250 freq. + ridge(method='primal'); sklearn RBFSampler(500) "
                f"+ Ridge(fit_intercept=False); lam={lam}; MSE on {len(Xt)} test points, "
                "noise var 0.01", runs_note(tk, ts, cfg))
    return tk, ts, check, note


def case_nystroem(cfg: Config) -> CaseResult:
    """Nystroem (500 landmarks) + ridge, n = 100000, d = 10."""
    n = cfg.n(100_000)
    m = 500 if not cfg.quick else 100
    X, y, Xt, yt = regression_data(n, D, seed=8, n_test=cfg.n(10_000))
    lam = 1.0

    def kmlib_run():
        nys = Nystroem(kernel=kernels.gaussian(SIGMA), n_components=m, random_state=0).fit(X)
        beta = ridge(nys.transform(X), y, lam, method="primal")
        return nys.transform(Xt) @ beta

    def sklearn_run():
        nys = SkNystroem(kernel="rbf", gamma=GAMMA, n_components=m, random_state=0).fit(X)
        model = Ridge(alpha=lam, fit_intercept=False).fit(nys.transform(X), y)
        return model.predict(nys.transform(Xt))

    tk, pk = measure(kmlib_run, cfg)
    ts, ps = measure(sklearn_run, cfg)
    check = _mse_check(np.mean((yt - pk) ** 2), np.mean((yt - ps) ** 2), 0.01)
    note = join(f"{m} landmarks; Ridge(fit_intercept=False); lam={lam}; MSE on {len(Xt)} "
                "test points", runs_note(tk, ts, cfg))
    return tk, ts, check, note


def case_nystroem_fit_transform(cfg: Config) -> CaseResult:
    """Nystroem(n_components=500): fit(X), transform(X), then a ridge solve; n = 50000, d = 10."""
    n = cfg.n(50_000)
    m = 500 if not cfg.quick else 100
    X, y = regression_data(n, D, seed=9)
    lam = 1.0

    def kmlib_run():
        Phi = Nystroem(kernel=kernels.gaussian(SIGMA), n_components=m,
                       random_state=0).fit(X).transform(X)
        return Phi @ ridge(Phi, y, lam, method="primal")

    def sklearn_run():
        Phi = SkNystroem(kernel="rbf", gamma=GAMMA, n_components=m, random_state=0
                         ).fit(X).transform(X)
        return Ridge(alpha=lam, fit_intercept=False).fit(Phi, y).predict(Phi)

    tk, pk = measure(kmlib_run, cfg)
    ts, ps = measure(sklearn_run, cfg)
    check = _mse_check(np.mean((y - pk) ** 2), np.mean((y - ps) ** 2), 0.01, "training MSE")
    note = join(f"{m} landmarks; Ridge(fit_intercept=False); lam={lam}",
                runs_note(tk, ts, cfg))
    return tk, ts, check, note


def _dual_objective(X: np.ndarray, gamma: float, support: np.ndarray,
                    coef: np.ndarray) -> float:
    """``sum a - 1/2 (a y)^T K (a y)`` from the support set and coefficients ``a_i y_i``."""
    Ksv = rbf_kernel(X[support], gamma=gamma)
    return float(np.sum(np.abs(coef)) - 0.5 * coef @ Ksv @ coef)


def _svm_case(cfg: Config, X: np.ndarray, y: np.ndarray, Xt: np.ndarray, sigma: float,
              C: float, what: str, ovr: bool = False) -> CaseResult:
    """KernelSVM vs SVC(kernel="rbf") fits on the same problem, both one-vs-rest with ``ovr``.

    Correctness: the dual objectives (recomputed, see below; the worst binary problem),
    the support sets (points in one and not the other, summed over the binary problems)
    and the predicted labels at ``Xt``.
    """
    gamma, tol = 1.0 / (2.0 * sigma**2), 1e-3

    def fit(model: Any) -> Any:
        return (OneVsRestClassifier(model) if ovr else model).fit(X, y)

    tk, mk = measure(lambda: fit(KernelSVM(kernel=kernels.gaussian(sigma), C=C, tol=tol)), cfg)
    ts, ms = measure(lambda: fit(SVC(kernel="rbf", gamma=gamma, C=C, tol=tol)), cfg)
    pairs = list(zip(mk.estimators_, ms.estimators_, strict=True)) if ovr else [(mk, ms)]
    err, n_diff, n_sv = 0.0, 0, 0
    for k, s in pairs:
        obj_s = _dual_objective(X, gamma, s.support_, s.dual_coef_[0])
        obj_k = _dual_objective(X, gamma, k.support_, k.dual_coef_)
        err = max(err, abs(obj_k - obj_s) / abs(obj_s))
        n_diff += len(np.setxor1d(k.support_, s.support_))
        n_sv += len(s.support_)
    agree = float(np.mean(mk.predict(Xt) == ms.predict(Xt)))
    text = (f"rel dual-obj diff {err:.1e}, SVs differing {n_diff} of {n_sv}, "
            f"label agreement {agree:.2%}")
    iters = (sum(k.n_iter_ for k, _ in pairs), sum(int(np.sum(s.n_iter_)) for _, s in pairs))
    note = join(f"fit only; {what}; sigma={sigma:.3g} (gamma={gamma:.3g}), C={C:g}, tol={tol:g}; "
                f"SMO iterations {iters[0]} (kmlib) vs {iters[1]} (libsvm); agreement on "
                f"{len(Xt)} points", runs_note(tk, ts, cfg))
    ok = err <= 1e-3 and agree >= 0.99 and n_diff <= 0.01 * n_sv
    return tk, ts, Check(text, ok), note


def case_svm(cfg: Config) -> CaseResult:
    """KernelSVM vs SVC, two moons n = 5000, Gaussian kernel sigma = 0.5, C = 1."""
    X, y = two_moons(cfg.n(5000), noise=0.2, random_state=9)
    Xt, _ = two_moons(2000, noise=0.2, random_state=10)
    return _svm_case(cfg, X, y, Xt, 0.5, 1.0, "noise 0.2, test points")


def case_svm_3000(cfg: Config) -> CaseResult:
    """KernelSVM vs SVC, two moons n = 3000, Gaussian kernel sigma = 0.5, C = 1."""
    X, y = two_moons(cfg.n(3000), noise=0.2, random_state=9)
    Xt, _ = two_moons(2000, noise=0.2, random_state=10)
    return _svm_case(cfg, X, y, Xt, 0.5, 1.0, "noise 0.2, test points")


def _scale_sigma(X: np.ndarray) -> float:
    """The bandwidth of SVC's default ``gamma="scale"`` = 1 / (d Var(X))."""
    return math.sqrt(X.shape[1] * X.var() / 2.0)


def case_svm_cancer(cfg: Config) -> CaseResult:
    """KernelSVM vs SVC on breast cancer (standardised), scikit-learn's defaults C = 1, "scale"."""
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)[: cfg.n(len(X)) if cfg.quick else len(X)]
    y = y[: len(X)]
    return _svm_case(cfg, X, y, X, _scale_sigma(X), 1.0, "30 standardised features, "
                     "gamma='scale', training points")


def case_svm_digits(cfg: Config) -> CaseResult:
    """OneVsRestClassifier(KernelSVM) vs OneVsRestClassifier(SVC) on the digits (10 classes)."""
    X, y = load_digits(return_X_y=True)
    X, y = (X[: cfg.n(len(X))], y[: cfg.n(len(X))]) if cfg.quick else (X, y)
    return _svm_case(cfg, X, y, X, _scale_sigma(X), 1.0, "10 binary problems, 64 raw "
                     "pixels, gamma='scale', training points", ovr=True)


def case_klr(cfg: Config) -> CaseResult:
    """KernelLogisticRegression, n = 2000 two moons (target: absolute time)."""
    n = cfg.n(2000)
    sigma, lam = 0.5, 0.1
    X, y = two_moons(n, noise=0.2, random_state=11)
    k = kernels.gaussian(sigma)
    tk, mk = measure(lambda: KernelLogisticRegression(kernel=k, lam=lam).fit(X, y), cfg)

    # reference: sklearn LogisticRegression on the features K^{1/2} (w = K^{1/2} alpha
    # gives K alpha = K^{1/2} w and alpha^T K alpha = |w|^2), C = 1/(2 lam).
    K = k(X)
    d, U = scipy.linalg.eigh(K)
    F = (U * np.sqrt(np.clip(d, 0.0, None))) @ U.T
    t0 = time.perf_counter()
    ref = LogisticRegression(C=1.0 / (2.0 * lam), tol=1e-10, max_iter=20_000).fit(F, y)
    ts = Timing(time.perf_counter() - t0, 1)
    eta_s = ref.decision_function(F)
    J_s = float(np.sum(np.logaddexp(0.0, -y * eta_s)) + lam * ref.coef_[0] @ ref.coef_[0])
    J_k = mk.objective_
    eta_k = mk.decision_function(X)
    err = rel_diff(eta_k, eta_s)
    text = (f"grad norm {mk.grad_norm_:.1e}; rel decision diff {err:.1e}; "
            f"J {J_k:.6g} vs ref {J_s:.6g}")
    ok = mk.grad_norm_ <= 1e-6 and J_k <= J_s * (1 + 1e-8) and err <= 1e-3
    note = join(f"fit incl. Gram; sigma={sigma}, lam={lam}, {mk.n_iter_} Newton iter.; "
                "sklearn column: LogisticRegression(lbfgs, tol 1e-10) on K^(1/2) features, "
                "timed once (reference only)", runs_note(tk, Timing(0, cfg.repeats), cfg))
    return tk, ts, Check(text, ok), note


def case_ridge_multi(cfg: Config) -> CaseResult:
    """RidgeRegression on the digits with one-hot targets (10 outputs) vs sklearn's Ridge."""
    X, labels = load_digits(return_X_y=True)
    X = X[: cfg.n(len(X))] if cfg.quick else X
    Y = np.eye(10)[labels[: len(X)]]
    lam = 1.0

    def kmlib_run():
        return RidgeRegression(lam=lam, standardize=False).fit(X, Y).coef_

    def sklearn_run():
        return Ridge(alpha=lam).fit(X, Y).coef_

    tk, ck = measure(kmlib_run, cfg)
    ts, cs = measure(sklearn_run, cfg)
    err = rel_diff(ck, cs)
    note = join(f"n={len(X)}, p=64 (raw pixels; standardize=False), lam={lam}; one Cholesky "
                "factorisation for all 10 outputs", runs_note(tk, ts, cfg))
    return tk, ts, Check(f"max rel coef diff {err:.1e}", err <= 1e-8), note


CASES = [
    Case("Gaussian Gram, n={n}, d=10", 10_000, "gram", ("ratio", 1.0), case_gram),
    Case("KernelRidge fit+predict, n={n}", 2000, "krr2000", ("ratio", 0.7), case_krr_2000),
    Case("KernelRidge fit+predict, n={n}", 5000, "krr5000", ("ratio", 0.7), case_krr_5000),
    Case("5-fold x 20-lam CV, n={n}", 2000, "cv", ("speedup", 5), case_cv),
    Case("LOO x 20 lam, n={n}", 1000, "loo", ("speedup", 100), case_loo),
    Case("RFF(500) + ridge, n={n}, d=10", 100_000, "rff", ("ratio", 1.0), case_rff),
    Case("RFF(500) + ridge, n={n}, d=10", 50_000, "rff50k", ("ratio", 0.8), case_rff_50k),
    Case("Nystroem + ridge, n={n}, d=10", 100_000, "nystroem", ("ratio", 1.0), case_nystroem),
    Case("Nystroem(500) fit+transform + ridge, n={n}, d=10", 50_000, "nystroem50k",
         ("ratio", 0.8), case_nystroem_fit_transform),
    Case("KernelSVM, two moons n={n}", 3000, "svm3000", ("ratio", 1.5), case_svm_3000),
    Case("KernelSVM, two moons n={n}", 5000, "svm", ("ratio", 5), case_svm),
    Case("KernelSVM, breast cancer (standardised), n={n}", 569, "svm_cancer", ("ratio", 2),
         case_svm_cancer),
    Case("KernelSVM one-vs-rest, digits (10 classes), n={n}", 1797, "svm_digits",
         ("ratio", 2), case_svm_digits),
    Case("KernelLogisticRegression, n={n}", 2000, "klr", ("seconds", 0.3), case_klr),
    Case("RidgeRegression, digits one-hot (10 outputs), n={n}", 1797, "ridge10",
         ("ratio", 2.0), case_ridge_multi),
]


# ---------------------------------------------------------------------------
# verdicts, table, environment, results.md
# ---------------------------------------------------------------------------
@dataclass
class Row:
    case: Case
    name: str
    tk: Timing
    ts: Timing
    check: Check
    note: str

    @property
    def ratio(self) -> float:
        return self.tk.seconds / self.ts.seconds

    def target_text(self) -> str:
        kind, value = self.case.target
        return {"ratio": f"ratio <= {value:g}", "speedup": f">= {value:g}x faster",
                "seconds": f"kmlib <= {value:g} s"}[kind]

    def time_ok(self) -> bool:
        kind, value = self.case.target
        if kind == "ratio":
            return self.ratio <= value
        if kind == "speedup":
            return self.ratio <= 1.0 / value
        return self.tk.seconds <= value

    def verdict(self) -> str:
        if not self.check.ok:
            return "MISS (correctness)"
        return "PASS" if self.time_ok() else "MISS"


def fmt_time(t: float) -> str:
    return f"{t * 1e3:.1f} ms" if t < 1.0 else f"{t:.2f} s"


HEADER = ("case", "kmlib", "sklearn", "ratio", "target", "result", "correctness")


def table_rows(rows: list[Row]) -> list[tuple[str, ...]]:
    out = []
    for r in rows:
        ratio = f"{r.ratio:.3g}" + (f" ({1 / r.ratio:.0f}x faster)" if r.ratio < 0.2 else "")
        sk_time = ("~" if r.ts.estimated else "") + fmt_time(r.ts.seconds)
        out.append((r.name, fmt_time(r.tk.seconds), sk_time, ratio,
                    r.target_text(), r.verdict(), r.check.text))
    return out


def print_table(rows: list[Row]) -> None:
    body = table_rows(rows)
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(HEADER)]
    line = "  ".join(h.ljust(w) for h, w in zip(HEADER, widths, strict=False))
    print(line)
    print("-" * len(line))
    for b in body:
        print("  ".join(c.ljust(w) for c, w in zip(b, widths, strict=False)))
    print()
    for r in rows:
        if r.note:
            print(f"* {r.name}: {r.note}")


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def environment(threads: int | None) -> list[str]:
    """Lines describing the machine, the versions and the thread settings."""
    lines = [
        f"- date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"- machine: {cpu_model()}, {os.cpu_count()} logical cores "
        f"({len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else '?'} usable), "
        f"{platform.system()} {platform.release()}",
        f"- Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"scikit-learn {sklearn.__version__}, threadpoolctl {threadpoolctl.__version__}",
        f"- environment: OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', '(unset)')}, "
        f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '(unset)')}, "
        f"MKL_NUM_THREADS={os.environ.get('MKL_NUM_THREADS', '(unset)')}",
        "- --threads: " + (f"{threads} (threadpool_limits around the whole run)"
                           if threads else "not set (library defaults)"),
        f"- load average (1 min) at the start: {os.getloadavg()[0]:.2f}",
        "- thread pools (threadpoolctl.threadpool_info() during the run):",
    ]
    for p in threadpoolctl.threadpool_info():
        owner = Path(p["filepath"]).parent.name.replace(".libs", "")
        extra = f", {p['architecture']}" if p.get("architecture") else ""
        lines.append(f"  - {p['user_api']}: {p['prefix']} {p.get('version') or ''} "
                     f"(bundled with {owner}{extra}), {p['num_threads']} threads")
    return lines


def write_results(path: Path, rows: list[Row], env: list[str], cfg: Config,
                  total: float, argv: list[str], threads_md: list[str] = ()) -> None:
    body = table_rows(rows)
    md = [
        "# kmlib vs scikit-learn: benchmark results",
        "",
        f"Written by `benchmarks/bench_kmlib.py` ({' '.join(argv) or 'no options'}); "
        f"whole run {total:.0f} s.",
        "",
        *(["**QUICK smoke run at n/10: the targets are not meaningful.**", ""]
          if cfg.quick else []),
        *env,
        f"- load average (1 min) at the end: {os.getloadavg()[0]:.2f} (other processes "
        "on the machine make timings noisy)",
        "",
        f"Timing: `time.perf_counter`, one warm-up call, then the median of {cfg.repeats} "
        f"calls (fewer, at least {cfg.min_repeats}, when one call takes longer than "
        f"{cfg.budget:g} s / {cfg.repeats}; the correctness column says where).  "
        "Ratio = kmlib time / "
        "scikit-learn time (below 1: kmlib is faster); `~` marks an extrapolated time.  "
        "Both libraries run in one process with the thread settings above.  A row whose "
        "correctness check fails is reported as a MISS whatever its time.",
        "",
        "Threads: numpy and scipy each bundle their own OpenBLAS (listed above).  Code that "
        "alternates between the two (a numpy matrix product, then a scipy factorisation) "
        "leaves one library's idle threads spinning against the other's, and on a busy "
        "machine multi-threaded OpenBLAS slows down badly; both affect kmlib and "
        "scikit-learn alike.  Nothing was tuned for either library; compare with a run "
        "under `--threads 1` when the numbers look erratic.",
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "---|" * len(HEADER),
    ]
    md += ["| " + " | ".join(c.replace("|", "\\|") for c in b) + " |" for b in body]
    md += ["", "Notes:", ""]
    md += [f"- **{r.name}**: {r.note}" for r in rows if r.note]
    md += [
        "",
        "Correctness figures: relative differences are `max|kmlib - sklearn| / max|sklearn|` "
        "(CV and LOO: the maximum over the grid of the pointwise relative difference).  "
        "RFF and Nystroem use different random features in the two libraries, so only "
        "their test errors are compared.  The SVM dual objectives "
        "`sum a - 1/2 (a*y)^T K (a*y)` are both recomputed from `dual_coef_` and the "
        "exact Gram matrix of the support vectors (one-vs-rest: the worst of the binary "
        "problems); \"SVs differing\" counts the points in one support set and not the "
        "other, summed over the binary problems.",
        "",
    ]
    md += threads_md
    path.write_text("\n".join(md), encoding="utf-8")


# ---------------------------------------------------------------------------
# threads: one BLAS thread against all cores, kmlib and scikit-learn in one run
# ---------------------------------------------------------------------------
#: kmlib with all cores may take at most this factor of its own one-thread time: "more
#: threads never make it slower", with 10 % allowed for timing noise.
THREAD_TOLERANCE = 1.1
#: Timed calls per configuration (the minimum is reported); fewer for calls over a second.
THREAD_REPEATS, THREAD_REPEATS_SLOW = 5, 3


def all_cores() -> int:
    """The number of cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@dataclass
class ThreadRow:
    """Min-of-k times of one operation per (library, threads); kmlib-only rows have no
    scikit-learn entry."""

    name: str
    times: dict[tuple[str, int], float]
    cores: int
    runs: int
    note: str

    def ratios(self) -> tuple[float | None, float | None, float]:
        """kmlib / sklearn with one thread and with all cores, kmlib all cores / one thread."""
        t, c = self.times, self.cores
        sk = ("sklearn", 1) in t
        return (t["kmlib", 1] / t["sklearn", 1] if sk else None,
                t["kmlib", c] / t["sklearn", c] if sk else None, t["kmlib", c] / t["kmlib", 1])

    def verdict(self) -> str:
        r1, rc, scale = self.ratios()
        ok = scale <= THREAD_TOLERANCE and all(r is None or r <= 1.0 for r in (r1, rc))
        return "PASS" if ok else "MISS"


def time_threads(fns: dict[str, Callable[[], Any]], cores: int) -> tuple[dict, int]:
    """Min-of-k wall time of each call with one thread and with ``cores`` threads.

    All (library, threads) configurations run in this one process, interleaved: after one
    warm-up call each, every round times each configuration once, in an order rotated from
    round to round, so that none always runs first (e.g. right after another released its
    memory).  ``threadpoolctl.threadpool_limits(t)`` sets every BLAS and OpenMP pool.
    """
    combos = [(lib, t) for lib in fns for t in (1, cores)]
    slowest = 0.0
    for lib, t in combos:
        with threadpoolctl.threadpool_limits(t):
            t0 = time.perf_counter()
            fns[lib]()
            slowest = max(slowest, time.perf_counter() - t0)
    runs = THREAD_REPEATS if slowest < 1.0 else THREAD_REPEATS_SLOW
    times: dict[tuple[str, int], list[float]] = {c: [] for c in combos}
    for r in range(runs):
        for lib, t in combos[r % len(combos):] + combos[:r % len(combos)]:
            with threadpoolctl.threadpool_limits(t):
                t0 = time.perf_counter()
                fns[lib]()
                times[lib, t].append(time.perf_counter() - t0)
    return {c: min(v) for c, v in times.items()}, runs


def thread_cases_vs_sklearn(cfg: Config):
    """Gram matrices, Nystroem and RFF at n = 50,000, d = 10: (title, calls, note)."""
    n, m = cfg.n(50_000), (500 if not cfg.quick else 100)
    X = regression_data(n, D, seed=12)[0]
    L = X[:m].copy()
    X10 = X[:cfg.n(10_000)]
    k = kernels.gaussian(SIGMA)
    yield (f"Gaussian Gram k(X, Y), {n} x {m}, d=10",
           {"kmlib": lambda: k(X, L), "sklearn": lambda: rbf_kernel(X, L, gamma=GAMMA)},
           "the cross Gram matrix of Nystroem's transform")
    yield (f"Gaussian Gram k(X), n={len(X10)}, d=10",
           {"kmlib": lambda: k(X10), "sklearn": lambda: rbf_kernel(X10, gamma=GAMMA)}, "")
    yield (f"Nystroem({m}) fit+transform, n={n}, d=10",
           {"kmlib": lambda: Nystroem(kernel=k, n_components=m, random_state=0).fit(X).transform(X),
            "sklearn": lambda: SkNystroem(kernel="rbf", gamma=GAMMA, n_components=m,
                                          random_state=0).fit(X).transform(X)}, "")
    yield (f"RFF(500) fit+transform, n={n}, d=10",
           {"kmlib": lambda: RandomFourierFeatures(sigma=SIGMA, n_features=250,
                                                   random_state=0).fit(X).transform(X),
            "sklearn": lambda: RBFSampler(gamma=GAMMA, n_components=500,
                                          random_state=0).fit(X).transform(X)},
           "kmlib cos_sin with 250 frequencies (500 columns), sklearn RBFSampler(500)")


def thread_cases_kmlib(cfg: Config):
    """kmlib's other operations of the benchmark, kmlib only: (title, calls, note)."""
    k, ks = kernels.gaussian(SIGMA), kernels.gaussian(0.5)
    X1, y1, Xt1, _ = regression_data(cfg.n(5000), D, seed=2, n_test=cfg.n(1000))
    yield (f"KernelRidge fit+predict, n={len(X1)}",
           {"kmlib": lambda: KernelRidge(kernel=k, lam=0.1).fit(X1, y1).predict(Xt1)}, "")
    X2, y2 = regression_data(cfg.n(2000), D, seed=3)
    folds = list(KFold(5, shuffle=True, random_state=0).split(len(X2)))
    yield (f"krr_cv_path 5-fold x 20 lam, n={len(X2)}",
           {"kmlib": lambda: krr_cv_path(k(X2), y2, LAMS, folds)}, "Gram matrix included")
    X3, y3 = regression_data(cfg.n(1000), D, seed=4)
    yield (f"krr_loo x 20 lam, n={len(X3)}", {"kmlib": lambda: krr_loo(k(X3), y3, LAMS)},
           "Gram matrix included")
    X4, y4 = regression_data(cfg.n(100_000), D, seed=7)
    yield (f"RFF(500) + ridge(method='primal'), n={len(X4)}",
           {"kmlib": lambda: ridge(RandomFourierFeatures(sigma=SIGMA, n_features=250,
                                                         random_state=0).fit_transform(X4),
                                   y4, 1.0, method="primal")}, "")
    X5, y5 = two_moons(cfg.n(5000), noise=0.2, random_state=9)
    yield (f"KernelSVM fit, two moons n={len(X5)}",
           {"kmlib": lambda: KernelSVM(kernel=ks, C=1.0, tol=1e-3).fit(X5, y5)}, "")
    X6, y6 = two_moons(cfg.n(2000), noise=0.2, random_state=11)
    yield (f"KernelLogisticRegression fit, n={len(X6)}",
           {"kmlib": lambda: KernelLogisticRegression(kernel=ks, lam=0.1).fit(X6, y6)}, "")
    X7, labels = load_digits(return_X_y=True)
    Y7 = np.eye(10)[labels]
    yield (f"RidgeRegression fit, digits one-hot, n={len(X7)}",
           {"kmlib": lambda: RidgeRegression(lam=1.0, standardize=False).fit(X7, Y7)}, "")


def run_thread_cases(cfg: Config) -> list[ThreadRow]:
    """Every thread case, printed as it finishes."""
    cores, rows = all_cores(), []
    for cases in (thread_cases_vs_sklearn(cfg), thread_cases_kmlib(cfg)):
        for title, fns, note in cases:
            t0 = time.perf_counter()
            times, runs = time_threads(fns, cores)
            row = ThreadRow(title, times, cores, runs, note)
            rows.append(row)
            print(f"[{time.perf_counter() - t0:6.1f} s] threads: {title}: kmlib "
                  f"{fmt_time(times['kmlib', 1])} (1) / {fmt_time(times['kmlib', cores])} "
                  f"({cores}) -> {row.verdict()}", flush=True)
    return rows


def thread_table(rows: list[ThreadRow]) -> list[str]:
    """The thread comparison as markdown lines (a heading, the table, its notes)."""
    if not rows:
        return []
    c = rows[0].cores

    def ms(row: ThreadRow, lib: str, t: int) -> str:
        return fmt_time(row.times[lib, t]) if (lib, t) in row.times else "-"

    def ratio(r: float | None) -> str:
        return "-" if r is None else f"{r:.2f}"

    md = [
        f"## Threads: one BLAS thread against all {c} cores", "",
        "Each operation runs with `threadpoolctl.threadpool_limits(1)` and with "
        f"`threadpool_limits({c})` (all cores), kmlib and scikit-learn interleaved in this one "
        "process, the order rotated from round to round; each time is the minimum of "
        f"{THREAD_REPEATS} calls ({THREAD_REPEATS_SLOW} for calls over 1 s) after one warm-up "
        "call.  Targets: kmlib <= scikit-learn at each thread count, and kmlib with all cores "
        f"<= {THREAD_TOLERANCE:g} x kmlib with one thread (more threads never slower; the "
        f"{THREAD_TOLERANCE - 1:.0%} allow for timing noise).  Rows without scikit-learn "
        "times check the second target only.", "",
        f"| case | kmlib 1 | kmlib {c} | sklearn 1 | sklearn {c} | kmlib/sklearn 1 | "
        f"kmlib/sklearn {c} | kmlib {c}/1 | result |",
        "|" + "---|" * 9,
    ]
    for r in rows:
        r1, rc, scale = r.ratios()
        md.append(f"| {r.name} | {ms(r, 'kmlib', 1)} | {ms(r, 'kmlib', c)} | "
                  f"{ms(r, 'sklearn', 1)} | {ms(r, 'sklearn', c)} | {ratio(r1)} | {ratio(rc)} | "
                  f"{scale:.2f} | {r.verdict()} |")
    notes = [f"- **{r.name}**: {r.note}" for r in rows if r.note]
    return md + ([""] + notes if notes else []) + [""]


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------
def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true",
                   help="smoke run at n/10; prints only (writes results only with --out)")
    p.add_argument("--threads", type=int, default=None, metavar="N",
                   help="threadpoolctl.threadpool_limits(N) around the whole run")
    p.add_argument("--repeats", type=int, default=5, help="timed calls per side (default 5)")
    p.add_argument("--min-repeats", type=int, default=2,
                   help="fewest timed calls for a slow case (default 2)")
    p.add_argument("--budget", type=float, default=12.0,
                   help="seconds of timed calls per side before the repeats are cut (default 12)")
    p.add_argument("--only", default=None,
                   help="comma-separated case keys: " + ",".join(c.key for c in CASES)
                   + ",threads (the section: one thread against all cores)")
    p.add_argument("--out", type=Path, default=None,
                   help=f"results file (default {RESULTS.relative_to(ROOT)} for a full run)")
    args = p.parse_args(argv)
    if args.threads is not None and args.threads < 1:
        p.error(f"--threads must be >= 1; got {args.threads}")
    if args.repeats < 1 or args.min_repeats < 1:
        p.error("--repeats and --min-repeats must be >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    cfg = Config(args.quick, args.repeats, min(args.min_repeats, args.repeats), args.budget)
    cases = CASES
    if args.only:
        keys = set(args.only.split(","))
        unknown = keys - {c.key for c in CASES} - {"threads"}
        if unknown:
            print(f"unknown case(s) {sorted(unknown)}; choose from {[c.key for c in CASES]}")
            return 2
        cases = [c for c in CASES if c.key in keys]
    out = args.out if args.out is not None else (None if args.quick or args.only else RESULTS)

    limits = (threadpoolctl.threadpool_limits(args.threads) if args.threads
              else contextlib.nullcontext())
    start = time.perf_counter()
    rows: list[Row] = []
    with limits:
        env = environment(args.threads)
        print("\n".join(env))
        if args.quick:
            print("QUICK smoke run: sizes n/10, targets not meaningful")
        print()
        for case in cases:
            t0 = time.perf_counter()
            tk, ts, check, note = case.run(cfg)
            row = Row(case, case.name(cfg), tk, ts, check, note)
            rows.append(row)
            print(f"[{time.perf_counter() - t0:6.1f} s] {row.name}: kmlib {fmt_time(tk.seconds)},"
                  f" sklearn {fmt_time(ts.seconds)} -> {row.verdict()}", flush=True)
        thread_rows = run_thread_cases(cfg) if not args.only or "threads" in keys else []
    total = time.perf_counter() - start
    print()
    if rows:
        print_table(rows)
    print("\n" + "\n".join(thread_table(thread_rows)))
    print(f"\nwhole run: {total:.1f} s")
    if out is not None:
        write_results(out, rows, env, cfg, total, argv, thread_table(thread_rows))
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

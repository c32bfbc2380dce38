"""Benchmark kmlib.unsupervised: kernel PCA, MMD and the permutation tests (``make bench``).

Each case runs kmlib and a reference on the same seeded data in one process, back to back
(one warm-up call, then the median of ``--repeats`` timed calls of each, alternating; one
timed call for the slow cases), checks that both computed the same thing, and writes the
table, the machine and the load to ``benchmarks/results_unsupervised.md``.

* KernelPCA(20) fit + transform, n = 2000, d = 10, vs scikit-learn's KernelPCA (dense solver).
* mmd2(unbiased=True), m = n = 2000, vs the direct formula on scikit-learn's rbf_kernel.
* two_sample_test, 1000 permutations, m = n = 1000 (target <= 10 s), vs recomputing the
  statistic from the pooled Gram matrix for each permutation (timed on 50, extrapolated).
* independence_test, 1000 permutations, n = 1000 (target <= 10 s), vs recomputing
  ``hsic(X, Y[perm])`` for each permutation (timed on 50, extrapolated).
* mmd2_linear, m = n = 10^6, d = 10: peak memory of the call by ``tracemalloc`` (target
  <= 200 MB), and at 10^5 to show that it grows linearly.

Usage::

    .venv/bin/python benchmarks/bench_unsupervised.py           # full run, writes results
    .venv/bin/python benchmarks/bench_unsupervised.py --quick   # sizes / 10, prints only
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import scipy
import sklearn
from sklearn.decomposition import KernelPCA as SkKernelPCA
from sklearn.metrics.pairwise import rbf_kernel

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing kmlib
    sys.path.insert(0, str(ROOT))

from kmlib import kernels  # noqa: E402
from kmlib.unsupervised import (  # noqa: E402
    KernelPCA,
    hsic,
    independence_test,
    mmd2,
    mmd2_linear,
    two_sample_test,
)

RESULTS = Path(__file__).resolve().parent / "results_unsupervised.md"
D, SIGMA = 10, float(np.sqrt(10))
GAMMA = 1.0 / (2.0 * SIGMA**2)  # scikit-learn's rbf with this gamma is gaussian(SIGMA)


@dataclass
class Row:
    case: str
    kmlib: float            # seconds
    reference: float        # seconds (None: no reference timing)
    ref_name: str
    target: str
    ok: bool
    check: str
    note: str = ""


def timed(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """One warm-up call, then the median time of ``repeats`` calls (0: the warm-up alone)."""
    t0 = time.perf_counter()
    out = fn()
    times = [time.perf_counter() - t0]
    if repeats:
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def timed_pair(fa: Callable[[], Any], fb: Callable[[], Any], repeats: int
               ) -> tuple[float, Any, float, Any]:
    """Median times of ``fa`` and ``fb`` called alternately (after one warm-up call each), so
    that both sides see the same load on a shared machine."""
    fa(), fb()
    ta, tb = [], []
    for _ in range(repeats):
        for fn, times in ((fa, ta), (fb, tb)):
            t0 = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - t0)
            if fn is fa:
                out_a = out
    return statistics.median(ta), out_a, statistics.median(tb), out


def gaussians(m: int, n: int, shift: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(m, D)), rng.normal(size=(n, D)) + shift / np.sqrt(D)


def up_to_sign(A: np.ndarray, B: np.ndarray) -> float:
    """``max|A s - B| / max|B|`` with the sign s of each column that best aligns them."""
    s = np.sign(np.sum(A * B, axis=0))
    return float(np.max(np.abs(A * s - B)) / np.max(np.abs(B)))


def case_kpca(n: int, repeats: int) -> Row:
    X, Xt = gaussians(n, 500, 0.0, seed=1)
    ours = KernelPCA(20, kernel=kernels.gaussian(SIGMA))
    ref = SkKernelPCA(20, kernel="rbf", gamma=GAMMA, eigen_solver="dense")
    tk, zk, ts, zs = timed_pair(lambda: ours.fit(X).transform(Xt),
                                lambda: ref.fit(X).transform(Xt), repeats)
    err = up_to_sign(zk, zs)
    return Row(f"KernelPCA(20) fit + transform(500), n={n}", tk, ts, "sklearn KernelPCA",
               "ratio <= 1.2", tk <= 1.2 * ts and err <= 1e-8,
               f"max rel diff {err:.1e} (up to sign)",
               "same LAPACK routine (syevr, 20 largest eigenpairs) on both sides")


def case_mmd2(n: int, repeats: int) -> Row:
    X, Y = gaussians(n, n, 0.5, seed=2)

    def direct() -> float:
        Kxx, Kyy, Kxy = (rbf_kernel(X, gamma=GAMMA), rbf_kernel(Y, gamma=GAMMA),
                         rbf_kernel(X, Y, gamma=GAMMA))
        return ((Kxx.sum() - np.trace(Kxx)) / (n * (n - 1))
                + (Kyy.sum() - np.trace(Kyy)) / (n * (n - 1)) - 2 * Kxy.mean())

    tk, vk, ts, vs = timed_pair(lambda: mmd2(X, Y, kernel=kernels.gaussian(SIGMA),
                                             unbiased=True), direct, repeats)
    err = abs(vk - vs) / abs(vs)
    return Row(f"mmd2 unbiased, m=n={n}", tk, ts, "numpy formula on sklearn rbf_kernel",
               "ratio <= 1.5", bool(tk <= 1.5 * ts and err <= 1e-10), f"rel diff {err:.1e}")


def case_two_sample(n: int, B: int) -> Row:
    X, Y = gaussians(n, n, 0.2, seed=3)
    k = kernels.gaussian(SIGMA)
    tk, res = timed(lambda: two_sample_test(X, Y, kernel=k, n_permutations=B, random_state=0),
                    0)
    Z = np.vstack([X, Y])
    rng, n_ref = np.random.default_rng(0), 50
    t0 = time.perf_counter()
    K = k(Z)
    direct = []
    for _ in range(n_ref):  # the documented permutations, statistic from the pooled Gram
        p = rng.permutation(2 * n)
        a, b = p[:n], p[n:]
        kxx, kyy = K[np.ix_(a, a)], K[np.ix_(b, b)]
        direct.append((kxx.sum() - np.trace(kxx) + kyy.sum() - np.trace(kyy)) / (n * (n - 1))
                      - 2 * K[np.ix_(a, b)].mean())
    ts = (time.perf_counter() - t0) * B / n_ref
    err = float(np.max(np.abs(res.null_distribution[:n_ref] - direct)) / np.max(np.abs(direct)))
    return Row(f"two_sample_test, {B} permutations, m=n={n}", tk, ts,
               f"per-permutation sums (~, {n_ref} timed)", "kmlib <= 10 s",
               tk <= 10 and err <= 1e-10, f"first {n_ref} null values: max rel diff {err:.1e}",
               f"p-value {res.p_value:.3f}")


def case_independence(n: int, B: int) -> Row:
    rng = np.random.default_rng(4)
    X = rng.normal(size=(n, 2))
    Y = np.c_[X[:, 0] ** 2 + rng.normal(size=n)]
    kx, ky = kernels.gaussian(1.0), kernels.gaussian(1.0)
    tk, res = timed(lambda: independence_test(X, Y, kernel_x=kx, kernel_y=ky, n_permutations=B,
                                              random_state=0), 0)
    gen, n_ref = np.random.default_rng(0), 50
    t0 = time.perf_counter()
    direct = [hsic(X, Y[gen.permutation(n)], kernel_x=kx, kernel_y=ky) for _ in range(n_ref)]
    ts = (time.perf_counter() - t0) * B / n_ref
    err = float(np.max(np.abs(res.null_distribution[:n_ref] - direct)) / np.max(direct))
    return Row(f"independence_test, {B} permutations, n={n}", tk, ts,
               f"hsic(X, Y[perm]) per permutation (~, {n_ref} timed)", "kmlib <= 10 s",
               tk <= 10 and err <= 1e-10, f"first {n_ref} null values: max rel diff {err:.1e}",
               f"Y = X_1^2 + noise: p-value {res.p_value:.4f}")


def peak_mb(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """Wall time and peak traced memory (MB) of one call of ``fn``; inputs are not counted."""
    tracemalloc.start()
    t0 = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return seconds, peak, out


def case_linear(n: int) -> Row:
    k = kernels.gaussian(SIGMA)
    Xs, Ys = gaussians(n // 10, n // 10, 0.5, seed=5)
    _, peak_small, _ = peak_mb(lambda: mmd2_linear(Xs, Ys, kernel=k))
    X, Y = gaussians(n, n, 0.5, seed=5)
    tk, peak, stat = peak_mb(lambda: mmd2_linear(X, Y, kernel=k))

    def g(A: np.ndarray, B: np.ndarray) -> np.ndarray:
        return np.exp(-np.sum((A - B) ** 2, axis=1) * GAMMA)

    h = g(X[0::2], X[1::2]) + g(Y[0::2], Y[1::2]) - g(X[0::2], Y[1::2]) - g(X[1::2], Y[0::2])
    err = abs(stat - h.mean()) / abs(h.mean())
    return Row(f"mmd2_linear, m=n={n}, d={D}", tk, None, "", "peak memory <= 200 MB",
               peak <= 200 and err <= 1e-10,
               f"rel diff {err:.1e} vs row-wise numpy formula",
               f"peak traced memory {peak:.1f} MB at n={n}, {peak_small:.1f} MB at n={n // 10} "
               f"(inputs {2 * X.nbytes / 1e6:.0f} MB, not counted)")


def fmt(t: float | None) -> str:
    if t is None:
        return "-"
    return f"{t * 1e3:.1f} ms" if t < 1.0 else f"{t:.2f} s"


def table(rows: list[Row]) -> list[str]:
    out = ["| case | kmlib | reference | ratio | target | result | check |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = "-" if r.reference is None else f"{r.kmlib / r.reference:.3g}"
        ref = "-" if r.reference is None else f"{fmt(r.reference)} ({r.ref_name})"
        out.append(f"| {r.case} | {fmt(r.kmlib)} | {ref} | {ratio} | {r.target} | "
                   f"{'PASS' if r.ok else 'MISS'} | {r.check} |")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes / 10; prints only")
    parser.add_argument("--repeats", type=int, default=5, help="timed calls of the fast cases")
    args = parser.parse_args(argv)
    f = 10 if args.quick else 1
    load = os.getloadavg()[0]
    start = time.perf_counter()
    rows = []
    for run in (lambda: case_kpca(2000 // f, args.repeats),
                lambda: case_mmd2(2000 // f, args.repeats),
                lambda: case_two_sample(1000 // f, 1000),
                lambda: case_independence(1000 // f, 1000),
                lambda: case_linear(1_000_000 // f)):
        rows.append(run())
        print(f"{rows[-1].case}: kmlib {fmt(rows[-1].kmlib)}, reference "
              f"{fmt(rows[-1].reference)} -> {'PASS' if rows[-1].ok else 'MISS'}", flush=True)
    total = time.perf_counter() - start
    lines = table(rows) + ["", "Notes:", ""]
    lines += [f"- **{r.case}**: {r.note}" for r in rows if r.note]
    print("\n" + "\n".join(lines))
    if not args.quick:
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        head = [
            "# kmlib.unsupervised: benchmark results", "",
            f"Written by `benchmarks/bench_unsupervised.py` on {stamp}; whole run {total:.0f} s.",
            "",
            f"- machine: {platform.machine()}, {os.cpu_count()} logical cores, "
            f"{platform.system()} {platform.release()}",
            f"- Python {platform.python_version()}, numpy {np.__version__}, scipy "
            f"{scipy.__version__}, scikit-learn {sklearn.__version__}",
            f"- load average (1 min): {load:.2f} at the start, {os.getloadavg()[0]:.2f} at the "
            "end (other processes on the machine make timings noisy)", "",
            f"Timing: `time.perf_counter`, one warm-up call then the median of {args.repeats} "
            "calls, kmlib and reference alternating, for the first two rows; one call for the "
            "others; `~` marks a reference time "
            "extrapolated from 50 permutations.  Gaussian kernel of width sqrt(10) in d = 10 "
            "(scikit-learn's rbf with gamma = 1/20).", "",
        ]
        RESULTS.write_text("\n".join(head + lines) + "\n", encoding="utf-8")
        print(f"wrote {RESULTS}")
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: kernel regression on a million points, past the memory wall.

Two cases of the chapter "Large-scale kernel machines", on the same synthetic sample
(``kmlib.book.large_scale.regression_blocks``: n = 10^6 points of N(0, I_10), responses
``sin(x_1) + cos(x_2) / 2`` plus noise 0.1):

1. Ridge regression on 1000 random Fourier features (500 cosine--sine frequencies),
   with Z^T Z accumulated over blocks of rows (``StreamingRFFRidge``), timed from the
   stream of blocks.  Targets: 60 s of wall time, 8 GB of peak resident memory.
   Correctness: test MSE below a tenth of Var f, and the streamed coefficients equal an
   SVD ridge fit when the model is refitted on the first 20 000 rows alone.
2. Nystroem kernel ridge regression (``kmlib.falkon.NystroemKernelRidge``, its FALKON
   solver) with m = 2000 landmarks (targets: 60 s, 1 GB) and m = 4000 (stretch target:
   180 s), fitted on the sample in memory, side by side with scikit-learn's
   ``Nystroem(n_components=1000) + Ridge`` on the same data in the same run.  Same
   kernel (Gaussian, sigma = 3) and penalty (lam = alpha = 1); kmlib's test MSE against
   the noiseless target on 10 000 held-out points must not exceed scikit-learn's.  The
   solvers are checked against each other: FALKON with a tight tolerance against the
   direct solver, on the first 20 000 rows with m = 1000.

Each case runs in a child process of its own, so that its peak resident memory (which
includes the interpreter, the libraries and the data: 0.09 GB for X and y at n = 10^6)
is its own; the load average is read at the end of each case.  The script prints one
line per measurement and writes ``benchmarks/results_large_scale.md``.

Usage::

    .venv/bin/python benchmarks/bench_large_scale.py                    # n = 10^6
    .venv/bin/python benchmarks/bench_large_scale.py --sklearn-n 200000 # smaller sklearn run
    .venv/bin/python benchmarks/bench_large_scale.py --quick            # n = 10^5, no file
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing kmlib
    sys.path.insert(0, str(ROOT))

from kmlib import ridge  # noqa: E402
from kmlib.book import large_scale as ls  # noqa: E402
from kmlib.falkon import NystroemKernelRidge  # noqa: E402
from kmlib.kernels import gaussian  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results_large_scale.md"
D_INPUT, N_FREQ, SIGMA, LAM, BLOCK = 10, 500, 3.0, 1.0, 20_000
TARGET_SECONDS, TARGET_GB = 60.0, 8.0
NYSTROEM_TARGETS = {2000: (60.0, 1.0), 4000: (180.0, None)}   # m: (seconds, GB)
SKLEARN_M = 1000


def peak_rss_gb() -> float:
    """Peak resident set size of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9


def sample(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The first n points of the benchmark's stream, in one array (filled block by block)."""
    X, y = np.empty((n, D_INPUT)), np.empty(n)
    start = 0
    for Xb, yb in ls.regression_blocks(n, D_INPUT, block_size=BLOCK, seed=1):
        X[start:start + len(yb)], y[start:start + len(yb)] = Xb, yb
        start += len(yb)
    return X, y


def test_set() -> tuple[np.ndarray, np.ndarray]:
    X_test, _ = next(ls.regression_blocks(10_000, D_INPUT, block_size=10_000, seed=99))
    return X_test, ls.regression_target(X_test)


def timed(fit) -> dict:
    """Run ``fit()``; wall and CPU seconds, peak RSS and the load average afterwards."""
    rss_before = peak_rss_gb()
    t0, c0 = time.perf_counter(), time.process_time()
    model = fit()
    out = {"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0,
           "load": os.getloadavg()[0], "rss": peak_rss_gb(), "rss_before": rss_before}
    X_test, f_test = test_set()
    out["mse"] = float(np.mean((model.predict(X_test) - f_test) ** 2))
    out["var_f"] = float(np.var(f_test))
    return out


def case_rff(n: int) -> dict:
    out = timed(lambda: ls.StreamingRFFRidge(SIGMA, N_FREQ, LAM, seed=0).fit_blocks(
        ls.regression_blocks(n, D_INPUT, block_size=BLOCK, seed=1)))
    small = ls.StreamingRFFRidge(SIGMA, N_FREQ, LAM, seed=0).fit_blocks(
        ls.regression_blocks(BLOCK, D_INPUT, block_size=BLOCK, seed=1))
    Xs, ys = next(ls.regression_blocks(BLOCK, D_INPUT, block_size=BLOCK, seed=1))
    ref = ridge.ridge(small.rff_.transform(Xs), ys, LAM, method="svd")
    out["coef_gap"] = float(np.abs(small.coef_ - ref).max() / (1 + np.abs(ref).max()))
    return out


def case_nystroem(n: int, m: int) -> dict:
    X, y = sample(n)
    model = NystroemKernelRidge(kernel=gaussian(SIGMA), lam=LAM, n_components=m,
                                solver="pcg", random_state=0)
    out = timed(lambda: model.fit(X, y))
    out["n_iter"] = model.n_iter_
    return out


def case_sklearn(n: int) -> dict:
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    X, y = sample(n)
    model = make_pipeline(Nystroem(gamma=0.5 / SIGMA**2, n_components=SKLEARN_M,
                                   random_state=0), Ridge(alpha=LAM))
    return timed(lambda: model.fit(X, y))


def case_agreement(n: int) -> dict:
    X, y = sample(min(n, BLOCK))
    X_test, _ = test_set()
    fits = [NystroemKernelRidge(kernel=gaussian(SIGMA), lam=LAM, n_components=1000,
                                solver=solver, preconditioner_size=1000, tol=1e-10, max_iter=500,
                                random_state=0).fit(X, y)
            for solver in ("direct", "pcg")]
    p_direct, p_pcg = (f.predict(X_test) for f in fits)
    return {"gap": float(np.abs(p_pcg - p_direct).max() / np.abs(p_direct).max()),
            "n_iter": fits[1].n_iter_}


CASES = {"rff": case_rff, "agreement": case_agreement, "sklearn": case_sklearn,
         "nystroem2000": lambda n: case_nystroem(n, 2000),
         "nystroem4000": lambda n: case_nystroem(n, 4000)}


def run_child(case: str, n: int) -> dict:
    """Run one case in a fresh interpreter; its JSON result (the last line it prints)."""
    proc = subprocess.run([sys.executable, __file__, "--case", case, "--n", str(n)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"case {case} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 10^5, no results file")
    parser.add_argument("--sklearn-n", type=int, default=None,
                        help="sample size of the scikit-learn run (default: n)")
    parser.add_argument("--case", choices=sorted(CASES), help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(CASES[args.case](args.n)))
        return 0
    n = 100_000 if args.quick else 1_000_000
    n_sk = args.sklearn_n or n
    load_start = os.getloadavg()[0]
    r = {case: run_child(case, n_sk if case == "sklearn" else n) for case in CASES}

    rff = r["rff"]
    rff_ok = (rff["wall"] <= TARGET_SECONDS and rff["rss"] <= TARGET_GB
              and rff["mse"] <= 0.1 * rff["var_f"] and rff["coef_gap"] < 1e-6)
    lines = [
        "## 1. Streamed random-feature ridge regression", "",
        f"- streamed RFF ridge, n={n}, d={D_INPUT}, {2 * N_FREQ} features, blocks of {BLOCK}",
        f"- wall time: {rff['wall']:.1f} s (target <= {TARGET_SECONDS:g} s); CPU time "
        f"{rff['cpu']:.1f} s; load average {rff['load']:.1f} on {os.cpu_count()} cores",
        f"- peak resident memory: {rff['rss']:.2f} GB (before the fit {rff['rss_before']:.2f} "
        f"GB; target <= {TARGET_GB:g} GB)",
        f"- test MSE vs noiseless target: {rff['mse']:.4f} "
        f"(must be <= 0.1 Var f = {0.1 * rff['var_f']:.4f})",
        f"- streamed vs SVD ridge on {BLOCK} rows: max relative gap {rff['coef_gap']:.1e}",
        f"- verdict: {'PASS' if rff_ok else 'MISS'}", "",
        "## 2. Nystroem kernel ridge regression (FALKON) vs scikit-learn", "",
        f"Gaussian kernel sigma={SIGMA:g} (scikit-learn gamma={0.5 / SIGMA**2:.4g}), "
        f"lam = alpha = {LAM:g}, d={D_INPUT}; fit times on data in memory; test MSE "
        "against the noiseless target on 10000 held-out points.", "",
        "| method | n | m | wall s | CPU s | peak RSS GB | test MSE | CG iterations "
        "| load avg | target | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    sk = r["sklearn"]
    lines.append(f"| scikit-learn Nystroem + Ridge | {n_sk} | {SKLEARN_M} | {sk['wall']:.1f} "
                 f"| {sk['cpu']:.1f} | {sk['rss']:.2f} | {sk['mse']:.3e} | - | "
                 f"{sk['load']:.1f} | reference | - |")
    ok = rff_ok
    for m, (seconds, gb) in NYSTROEM_TARGETS.items():
        c = r[f"nystroem{m}"]
        good = (c["wall"] <= seconds and (gb is None or c["rss"] <= gb)
                and c["mse"] <= sk["mse"])
        ok = ok and good
        target = f"<= {seconds:g} s" + (f", <= {gb:g} GB" if gb else "") + ", MSE <= sklearn"
        lines.append(f"| kmlib NystroemKernelRidge (pcg) | {n} | {m} | {c['wall']:.1f} | "
                     f"{c['cpu']:.1f} | {c['rss']:.2f} | {c['mse']:.3e} | {c['n_iter']} | "
                     f"{c['load']:.1f} | {target} | {'PASS' if good else 'MISS'} |")
    ag = r["agreement"]
    ag_ok = ag["gap"] < 1e-6
    ok = ok and ag_ok
    lines += ["", f"- pcg (tol 1e-10, {ag['n_iter']} iterations) vs direct on the first "
              f"{min(n, BLOCK)} rows, m=1000: max relative gap of the test predictions "
              f"{ag['gap']:.1e} (must be < 1e-6): {'PASS' if ag_ok else 'MISS'}",
              f"- load average at the start {load_start:.1f} on {os.cpu_count()} cores; "
              "each case ran alone in its own process",
              "- the peak RSS of a case includes the interpreter, numpy/scipy/scikit-learn "
              "and the data (X and y: 0.09 GB at n = 10^6); scikit-learn's Nystroem.transform "
              f"holds two n x {SKLEARN_M} float64 arrays at once (the kernel block and its "
              "product with the normalisation)"]
    if n_sk != n:
        lines.append(f"- scikit-learn was run at n={n_sk} (its feature matrix needs "
                     f"{8 * n * SKLEARN_M / 1e9:.0f} GB at n={n}), so its MSE is not "
                     "for the same sample size")
    lines.append(f"- verdict: {'PASS' if ok else 'MISS'}")
    print("\n".join(lines))
    if not args.quick:
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        body = ["# Benchmark: kernel regression on a million points", "",
                f"Run {stamp} on {platform.processor() or platform.machine()}, "
                f"Python {platform.python_version()}, numpy {np.__version__}.", ""]
        RESULTS.write_text("\n".join(body + lines) + "\n", encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

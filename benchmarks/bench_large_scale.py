"""Benchmark: streamed random-feature ridge regression on a million points.

The case of the chapter "Large-scale kernel machines": ridge regression on 1000
random Fourier features (500 cosine--sine frequencies) of n = 10^6 points in
R^10, with Z^T Z accumulated over blocks of rows (``kmlib.book.large_scale.StreamingRFFRidge``),
so that memory does not depend on n.  Targets: at most 60 s of wall time and
8 GB of peak resident memory on the book's 2-core machine.

The script prints one line per measurement and writes
``benchmarks/results_large_scale.md``.  Correctness: the test mean squared error
against the noiseless target must be below a tenth of the target's variance, and
the streamed coefficients must equal an SVD ridge fit on the first 20 000 rows
when the model is refitted on those rows alone.

Usage::

    .venv/bin/python benchmarks/bench_large_scale.py            # n = 10^6
    .venv/bin/python benchmarks/bench_large_scale.py --quick    # n = 10^5
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing kmlib
    sys.path.insert(0, str(ROOT))

from kmlib import ridge  # noqa: E402
from kmlib.book import large_scale as ls  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results_large_scale.md"
D_INPUT, N_FREQ, SIGMA, LAM, BLOCK = 10, 500, 3.0, 1.0, 20_000
TARGET_SECONDS, TARGET_GB = 60.0, 8.0


def peak_rss_gb() -> float:
    """Peak resident set size of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 10^5, no results file")
    args = parser.parse_args()
    n = 100_000 if args.quick else 1_000_000
    rss_before = peak_rss_gb()

    model = ls.StreamingRFFRidge(SIGMA, N_FREQ, LAM, seed=0)
    t0, c0 = time.perf_counter(), time.process_time()
    model.fit_blocks(ls.regression_blocks(n, D_INPUT, block_size=BLOCK, seed=1))
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    load = os.getloadavg()[0]
    rss = peak_rss_gb()

    X_test, _ = next(ls.regression_blocks(10_000, D_INPUT, block_size=10_000, seed=99))
    f_test = ls.regression_target(X_test)
    mse = float(np.mean((model.predict(X_test) - f_test) ** 2))
    mse_ok = mse <= 0.1 * float(np.var(f_test))

    small = ls.StreamingRFFRidge(SIGMA, N_FREQ, LAM, seed=0).fit_blocks(
        ls.regression_blocks(BLOCK, D_INPUT, block_size=BLOCK, seed=1))
    Xs, ys = next(ls.regression_blocks(BLOCK, D_INPUT, block_size=BLOCK, seed=1))
    ref = ridge.ridge(small.rff_.transform(Xs), ys, LAM, method="svd")
    coef_gap = float(np.abs(small.coef_ - ref).max() / (1 + np.abs(ref).max()))

    verdict = ("PASS" if seconds <= TARGET_SECONDS and rss <= TARGET_GB and mse_ok
               and coef_gap < 1e-6 else "MISS")
    lines = [
        f"streamed RFF ridge, n={n}, d={D_INPUT}, {2 * N_FREQ} features, blocks of {BLOCK}",
        f"wall time: {seconds:.1f} s (target <= {TARGET_SECONDS:g} s); CPU time {cpu:.1f} s; "
        f"load average {load:.1f} on {os.cpu_count()} cores",
        f"peak resident memory: {rss:.2f} GB (before the fit {rss_before:.2f} GB; "
        f"target <= {TARGET_GB:g} GB)",
        f"test MSE vs noiseless target: {mse:.4f} "
        f"(must be <= 0.1 Var f = {0.1 * np.var(f_test):.4f})",
        f"streamed vs SVD ridge on {BLOCK} rows: max relative gap {coef_gap:.1e}",
        f"verdict: {verdict}",
    ]
    print("\n".join(lines))
    if not args.quick:
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        body = ["# Benchmark: streamed random-feature ridge regression", "",
                f"Run {stamp} on {platform.processor() or platform.machine()}, "
                f"Python {platform.python_version()}, numpy {np.__version__}.", ""]
        body += [f"- {line}" for line in lines]
        RESULTS.write_text("\n".join(body) + "\n", encoding="utf-8")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())

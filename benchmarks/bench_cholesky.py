"""Benchmark: CPU time of the Cholesky factorisation against its operation count.

The chapter "Large-scale kernel machines" counts the operations of the Cholesky
factorisation of K + lam I exactly, (n^3 - n)/6 multiply-add pairs; how fast a machine
performs them is measured here.  For each n the script forms the Gaussian Gram matrix
of n points of N(0, I_5) plus 1e-2 I, factorises it with LAPACK (``scipy.linalg.cholesky``)
with one BLAS thread, keeps the fastest of ``--repeats`` runs (CPU time of the process),
and prints the time, the rate in Gflop/s ((n^3/3) / time) and the log-log slope of time
against n.  A blocked Cholesky runs faster per operation as n grows, so the slope is
expected a little below 3 at these sizes.  On a shared machine the times are noisy; the
load average is printed with them.

Usage::

    .venv/bin/python benchmarks/bench_cholesky.py                   # n = 500 ... 4000
    .venv/bin/python benchmarks/bench_cholesky.py --ns 500 1000     # other sizes
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from scipy import linalg
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing kmlib
    sys.path.insert(0, str(ROOT))

from kmlib import kernels  # noqa: E402


def time_cholesky(n: int, repeats: int, rng: np.random.Generator) -> float:
    """Fastest CPU time of ``repeats`` Cholesky factorisations of an n x n Gram matrix."""
    K = kernels.gaussian(1.0)(rng.standard_normal((n, 5)))
    K.flat[:: n + 1] += 1e-2
    best = np.inf
    for _ in range(repeats):
        t0 = time.process_time()
        L = linalg.cholesky(K, lower=True, check_finite=False)
        best = min(best, time.process_time() - t0)
        del L
    return best


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ns", type=int, nargs="+", default=[500, 1000, 2000, 3000, 4000])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    ns = np.array(sorted(args.ns))
    rng = np.random.default_rng(0)
    with threadpool_limits(1):
        times = np.array([time_cholesky(int(n), args.repeats, rng) for n in ns])
    for n, t in zip(ns, times, strict=True):
        print(f"n = {n:6d}   CPU time {t:9.4f} s   {n**3 / 3 / t / 1e9:6.2f} Gflop/s")
    if ns.size >= 2:
        slope = np.polyfit(np.log(ns[1:] if ns.size > 2 else ns),
                           np.log(times[1:] if ns.size > 2 else times), 1)[0]
        print(f"log-log slope of time against n (from the second size on): {slope:.2f} "
              f"(operation count: 3)")
    if hasattr(os, "getloadavg"):
        print("load average: " + " ".join(f"{v:.2f}" for v in os.getloadavg()))


if __name__ == "__main__":
    main()

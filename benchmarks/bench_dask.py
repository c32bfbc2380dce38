"""Benchmark: Nystroem kernel ridge regression on a Dask cluster against the in-memory fit.

The sample: n = 4 * 10^6 points of N(0, I_8) (X: 256 MB of float64), responses
``sin(x_1) + cos(x_2) / 2`` plus Gaussian noise of standard deviation 0.3 (variance 0.09),
generated chunk by chunk (250 000 rows a chunk) by ``dask.array.random.default_rng(0)``.
The model: ``NystroemKernelRidge`` (Gaussian kernel, sigma = 3, lam = 1, m = 300
landmarks, FALKON's ``"pcg"`` with its defaults, random_state = 0).  Two cases, each in
a child process of its own:

1. ``dask``: a ``LocalCluster`` of two worker processes with one thread each.  X and y are
   generated chunk by chunk on the workers and kept there (``persist``, timed apart), the
   way data that fit in a cluster's memory are used, so that the passes of FALKON do not
   generate them again; X never exists in one piece anywhere.  The workers start without
   Dask's ``MALLOC_TRIM_THRESHOLD_=65536`` (see ``kmlib._dask``: with it, every block of
   K_nm is fresh memory from the system and the passes take about twice the CPU time).
   The client's resident memory (psutil RSS of its process, which also runs the cluster's
   scheduler) is sampled every 10 ms by a thread; its peak must stay below X's size.
2. ``numpy``: the same arrays computed into memory, then fitted with two BLAS threads
   (the fit's passes use as many threads as BLAS may).

Both fits draw the same landmarks (same random_state), so their predictions must agree to
rounding (relative 1e-8) and their test errors too; the test error is the mean squared
error against the noiseless target on 10 000 fresh points.  Fit times exclude starting
the cluster (reported apart) and generating the in-memory arrays.  The load average of the
machine is read before and after each case: the machine may be shared.

Usage::

    .venv/bin/python benchmarks/bench_dask.py            # n = 4 * 10^6, writes results_dask.md
    .venv/bin/python benchmarks/bench_dask.py --quick    # n = 2 * 10^5, no file
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing kmlib
    sys.path.insert(0, str(ROOT))

RESULTS = Path(__file__).resolve().parent / "results_dask.md"
N, D, CHUNK, M, SIGMA, LAM, NOISE = 4_000_000, 8, 250_000, 300, 3.0, 1.0, 0.3


def data(n: int):
    """The lazy sample (X, y): Dask arrays with row chunks of CHUNK rows."""
    import dask.array as da

    rng, rows = da.random.default_rng(0), min(CHUNK, n // 8)   # --quick: 8 chunks too
    X = rng.standard_normal((n, D), chunks=(rows, D))
    noise = rng.standard_normal(n, chunks=rows)
    return X, da.sin(X[:, 0]) + 0.5 * da.cos(X[:, 1]) + NOISE * noise


def test_set() -> tuple[np.ndarray, np.ndarray]:
    X_test = np.random.default_rng(99).standard_normal((10_000, D))
    return X_test, np.sin(X_test[:, 0]) + 0.5 * np.cos(X_test[:, 1])


def model():
    from kmlib.falkon import NystroemKernelRidge
    from kmlib.kernels import gaussian

    return NystroemKernelRidge(kernel=gaussian(SIGMA), lam=LAM, n_components=M, solver="pcg",
                               random_state=0)


class PeakRSS:
    """The peak resident set size of this process, sampled every 10 ms by a thread."""

    def __init__(self) -> None:
        import psutil

        self._proc, self.peak, self._stop = psutil.Process(), 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def now(self) -> int:
        return self._proc.memory_info().rss

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.now())
            time.sleep(0.01)

    def __enter__(self) -> "PeakRSS":
        self.peak = self.now()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.now())


def case(name: str, n: int, out: Path) -> dict:
    """Fit in this process; write the test predictions to ``out``; return the measurements."""
    import dask
    from threadpoolctl import threadpool_limits

    X_test, f_test = test_set()
    est, result = model(), {"case": name, "n": n, "load_before": os.getloadavg()[0]}
    with PeakRSS() as rss:
        if name == "dask":
            from dask.distributed import Client, LocalCluster, wait

            t0 = time.perf_counter()
            dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None})
            with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                              dashboard_address=":0") as cluster, Client(cluster):
                result["cluster_start_s"] = time.perf_counter() - t0
                t0 = time.perf_counter()
                X, y = dask.persist(*data(n))          # on the workers
                wait([X, y])
                result["persist_s"] = time.perf_counter() - t0
                result["rss_before_fit"] = rss.now()
                t0 = time.perf_counter()
                est.fit(X, y)
                result["fit_s"] = time.perf_counter() - t0
        else:
            with dask.config.set(scheduler="threads", num_workers=2):
                X, y = dask.compute(*data(n))
            result["rss_before_fit"] = rss.now()
            with threadpool_limits(2):
                t0 = time.perf_counter()
                est.fit(X, y)
                result["fit_s"] = time.perf_counter() - t0
            del X, y
    pred = est.predict(X_test)
    np.save(out, pred)
    result.update(peak_rss=rss.peak, n_iter=est.n_iter_,
                  test_mse=float(np.mean((pred - f_test) ** 2)),
                  landmarks_head=est.landmark_indices_[:3].tolist(), load_after=os.getloadavg()[0])
    return result


def run_case(name: str, n: int, out: Path) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--case", name, "--n", str(n),
                           "--out", str(out)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"case {name} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n = 2 * 10^5, no results file")
    ap.add_argument("--case", choices=["dask", "numpy"], help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, default=N, help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        print(json.dumps(case(args.case, args.n, args.out)))
        return
    n = 200_000 if args.quick else N
    x_bytes = n * D * 8
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        res = {c: run_case(c, n, Path(tmp) / f"{c}.npy") for c in ("dask", "numpy")}
        p_dask, p_np = (np.load(Path(tmp) / f"{c}.npy") for c in ("dask", "numpy"))
    rel = float(np.max(np.abs(p_dask - p_np)) / np.max(np.abs(p_np)))
    mb = 1e6
    for c, r in res.items():
        print(f"{c:5s}: fit {r['fit_s']:.1f} s, {r['n_iter']} CG iterations, client peak RSS "
              f"{r['peak_rss'] / mb:.0f} MB (before fit {r['rss_before_fit'] / mb:.0f} MB), "
              f"test MSE {r['test_mse']:.5f}, load {r['load_before']:.1f} -> "
              f"{r['load_after']:.1f}")
    print(f"X: {x_bytes / mb:.0f} MB; cluster start {res['dask']['cluster_start_s']:.1f} s, "
          f"X and y generated on the workers in {res['dask']['persist_s']:.1f} s; "
          f"predictions agree to {rel:.1e} (relative); same landmarks: "
          f"{res['dask']['landmarks_head'] == res['numpy']['landmarks_head']}")
    ok = (res["dask"]["peak_rss"] < x_bytes and rel <= 1e-8
          and res["dask"]["n_iter"] == res["numpy"]["n_iter"])
    print("targets met" if ok else "TARGETS MISSED")
    if args.quick:
        return
    d, p = res["dask"], res["numpy"]
    rows = [f"| Dask, LocalCluster 2 x 1 thread | {d['fit_s']:.1f} | {d['n_iter']} | "
            f"{d['peak_rss'] / mb:.0f} ({d['rss_before_fit'] / mb:.0f} before fit) | "
            f"{d['test_mse']:.5f} | {d['load_before']:.1f} / {d['load_after']:.1f} |",
            f"| NumPy in memory, 2 BLAS threads | {p['fit_s']:.1f} | {p['n_iter']} | "
            f"{p['peak_rss'] / mb:.0f} ({p['rss_before_fit'] / mb:.0f} before fit) | "
            f"{p['test_mse']:.5f} | {p['load_before']:.1f} / {p['load_after']:.1f} |"]
    RESULTS.write_text("\n".join([
        "# Nystroem kernel ridge regression on a Dask cluster",
        "",
        f"Written by `benchmarks/bench_dask.py` on {datetime.date.today()} "
        f"({platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}). "
        f"`uptime` at the start: `{uptime}`.",
        "",
        f"n = {n:,} points in d = {D} dimensions (X: {x_bytes / mb:.0f} MB, generated in "
        f"chunks of {CHUNK:,} rows by Dask), Gaussian kernel sigma = {SIGMA}, lam = {LAM}, "
        f"m = {M} landmarks, FALKON (`solver=\"pcg\"`); test MSE against the noiseless target "
        f"on 10 000 fresh points (noise variance {NOISE ** 2:.2f}).",
        "",
        "| case | fit (s) | CG iterations | client peak RSS (MB) | test MSE "
        "| load avg before / after |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
        *rows,
        "",
        f"Starting the cluster took {d['cluster_start_s']:.1f} s and generating X and y on "
        f"the workers (`persist`) {d['persist_s']:.1f} s, neither in the fit time. "
        f"The two fits drew the same landmarks; their predictions on the test points agree "
        f"to {rel:.1e} relative. The client's peak RSS includes the interpreter, NumPy, SciPy, "
        "scikit-learn, Dask and the cluster's scheduler; X never reaches it. The workers "
        "started without Dask's `MALLOC_TRIM_THRESHOLD_=65536` (see the script's docstring). "
        "The machine is shared: times vary with its load.",
        "",
    ]), encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()

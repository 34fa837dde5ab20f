"""Benchmark: a tournament on a local two-worker Dask cluster beside the local runner, and what Dask adds per match.

* ``local`` / ``dask``: the same round-robin of the five built-in bots (``--seeds`` × 20 matches of ``--hands``
  hands), played by ``execute`` with concurrency 2: by the local runner (its own process pool, started inside
  the timing, as ``mjref tournament`` does; and ``..._pool_started``: on a pool started beforehand), and on
  ``LocalCluster(n_workers=2, threads_per_worker=1)`` (started beforehand; its start-up is reported apart).
  Matches per second, store writes included.
* ``overhead``: one-hand matches played one at a time (nothing overlaps, so the difference is pure overhead) on a
  warm two-process pool and on the warm cluster: the extra seconds per match Dask costs (scheduler round trip,
  pickling, the log shipped back, decompressed, hashed and written by the coordinator); and the same with two at
  a time (``overhead_parallel``: extra wall seconds per match × 2 slots), which includes the coordinator and the
  scheduler competing with the workers for this machine's cores.

Prints one JSON line.  ``python bench/dask.py [--seeds N] [--hands N] [--serial N]``
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing
import os
import platform
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# This file is named dask.py: its own folder must not shadow the real ``dask`` package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

import trio
from distributed import LocalCluster

from bench.machine import machine  # noqa: E402
from tournaments.config import TournamentConfig, parse_config
from tournaments.distributed import dask_executor
from tournaments.runner import execute, plan, run_job

BOTS = [("g", "greedy"), ("r", "random"), ("d", "drawdiscard"), ("gc", "greedy:chowness=0.9"),
        ("gh", "greedy:hiddenness=0.9")]


def config(seeds: int, hands: int) -> TournamentConfig:
    return parse_config({"name": "bench", "seeds": seeds, "hands": hands,
                         "bots": [{"name": n, "builtin": b} for n, b in BOTS]})


def timed_run(cfg: TournamentConfig, folder: Path, executor: Any = None, concurrency: int = 2) -> tuple[int, float]:
    p = plan(cfg, folder, restart=True)
    t0 = time.perf_counter()
    n = trio.run(lambda: execute(p, concurrency=concurrency, executor=executor))
    return n, time.perf_counter() - t0


def serial(cfg: TournamentConfig, folder: Path, executor: Any, count: int) -> float:
    """Seconds per match, one match at a time through ``executor``."""
    jobs = plan(cfg, folder, restart=True).jobs[:count]
    t0 = time.perf_counter()
    for job in jobs:
        executor.submit(run_job, job).result()
    return (time.perf_counter() - t0) / len(jobs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--hands", type=int, default=4)
    ap.add_argument("--serial", type=int, default=20, help="one-hand matches played one at a time")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each measurement, alternated; the best is kept")
    args = ap.parse_args()
    out: dict[str, Any] = {
        "bench": "dask", "python": platform.python_version(), "cpus": os.cpu_count(),
        "machine": machine(),
        "hands_per_match": args.hands, "repeat": args.repeat,
    }
    with tempfile.TemporaryDirectory(prefix="mjref-bench-") as tmp:
        base = Path(tmp)
        cfg = config(args.seeds, args.hands)
        one = config(args.seeds, 1)
        t0 = time.perf_counter()
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                               silence_logs=logging.ERROR)
        executor = dask_executor(cluster.scheduler_address, plan(cfg, base / "dask"))
        start = time.perf_counter() - t0
        pool = ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn"))
        best: dict[str, float] = {}

        def keep(name: str, value: float) -> None:
            best[name] = min(value, best.get(name, value))

        try:
            timed_run(one, base / "warm", executor)  # imports on the workers
            list(pool.map(run_job, plan(one, base / "warm-pool").jobs[:4]))  # start and warm the pool
            for _ in range(args.repeat):
                n, dt = timed_run(cfg, base / "local")  # the local runner exactly as `mjref tournament` runs it
                keep("local", dt)
                n, dt = timed_run(cfg, base / "local-warm", pool)  # the same on an already started pool
                keep("local_warm", dt)
                n, dt = timed_run(cfg, base / "dask", executor, executor.slots)
                keep("dask", dt)
                keep("serial_pool", serial(one, base / "s-local", pool, args.serial))
                keep("serial_dask", serial(one, base / "s-dask", executor, args.serial))
                m, dt = timed_run(one, base / "p-local", pool)
                keep("parallel_pool", dt)
                m, dt = timed_run(one, base / "p-dask", executor)
                keep("parallel_dask", dt)
        finally:
            pool.shutdown()
            executor.shutdown()
            cluster.close()
    out["local"] = {"matches": n, "seconds": round(best["local"], 3),
                    "matches_per_second": round(n / best["local"], 2), "concurrency": 2,
                    "matches_per_second_pool_started": round(n / best["local_warm"], 2)}
    out["dask"] = {"matches": n, "seconds": round(best["dask"], 3), "matches_per_second": round(n / best["dask"], 2),
                   "cluster_start_seconds": round(start, 2), "workers": 2, "threads_per_worker": 1}
    out["dask_vs_local"] = round(best["local"] / best["dask"], 2)
    out["dask_vs_local_pool_started"] = round(best["local_warm"] / best["dask"], 2)
    out["overhead"] = {
        "one_hand_match_seconds_pool": round(best["serial_pool"], 4),
        "one_hand_match_seconds_dask": round(best["serial_dask"], 4),
        "dask_seconds_per_match": round(best["serial_dask"] - best["serial_pool"], 4),
        "dask_seconds_per_match_parallel": round((best["parallel_dask"] - best["parallel_pool"]) * 2 / m, 4),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()

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

``--in-flight N`` measures instead that a long tournament stays bounded on Dask: N one-hand matches of a
``seeds = 1000000`` round-robin (4,000,000 matches scheduled) on the local cluster, with the number of tasks the
scheduler holds sampled every 50 matches (at most ``concurrency`` are ever submitted) and the RSS of this process,
which runs the runner and the local cluster's scheduler, at a tenth of N and at N.

Prints one JSON line.  ``python bench/dask.py [--seeds N] [--hands N] [--serial N] [--in-flight N]``
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


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def in_flight(matches: int) -> dict[str, Any]:
    """Tasks held by the scheduler during ``matches`` matches of a million-seed tournament, and this process's RSS."""
    out: dict[str, Any] = {"bench": "dask --in-flight", "matches": matches, "scheduled_matches": 4_000_000,
                           "python": platform.python_version(), "machine": machine()}
    with tempfile.TemporaryDirectory(prefix="mjref-bench-") as tmp:
        cfg = parse_config({"name": "flight", "seeds": 1_000_000, "hands": 1,
                            "bots": [{"name": n, "builtin": "random"} for n in "abcd"]})
        p = plan(cfg, Path(tmp))
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                               silence_logs=logging.ERROR)
        executor = dask_executor(cluster.scheduler_address, p)
        tasks: list[int] = []
        rss: dict[str, int] = {}
        count = 0
        mark = max(1, matches // 10)

        class Done(Exception):
            pass

        def on_match(_: object) -> None:
            nonlocal count
            count += 1
            if count % 50 == 0:
                tasks.append(int(executor.client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))))
            if count in (mark, matches):
                rss[str(count)] = rss_kib()
            if count >= matches:
                raise Done

        out["concurrency"] = executor.slots
        t0 = time.perf_counter()
        try:
            trio.run(lambda: execute(p, concurrency=out["concurrency"], executor=executor, on_match=on_match))
        except BaseException as exc:  # noqa: BLE001 - Done, possibly inside trio's exception group
            if not (isinstance(exc, Done) or (isinstance(exc, BaseExceptionGroup)
                                              and exc.subgroup(Done) is not None)):
                raise
        finally:
            executor.shutdown()
            cluster.close()
        out["seconds"] = round(time.perf_counter() - t0, 1)
        out["scheduler_tasks_max"] = max(tasks) if tasks else None
        out["scheduler_tasks_samples"] = len(tasks)
        out["rss_kib_after"] = rss
        if len(rss) == 2:
            out["rss_growth"] = round(rss[str(matches)] / rss[str(mark)] - 1, 4)
        out["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--hands", type=int, default=4)
    ap.add_argument("--serial", type=int, default=20, help="one-hand matches played one at a time")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each measurement, alternated; the best is kept")
    ap.add_argument("--in-flight", type=int, metavar="N", help="tasks in flight and RSS over N one-hand matches")
    args = ap.parse_args()
    if args.in_flight:
        print(json.dumps(in_flight(args.in_flight)))
        return
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

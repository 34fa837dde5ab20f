"""Benchmark: the tournament runner.

* matches per second with built-in seats at concurrency 1 and 2 (worker processes; the pool start is excluded by
  timing from the first finished match), and their ratio;
* matches per second with process bots (``python -m bots.drawdiscard``) at concurrency 2;
* resident memory (VmRSS) of the runner process after 100 and after 1,000 matches.

Prints one JSON line.  ``python bench/tournament.py [--matches N] [--hands N] [--memory-matches N]``

``--scale`` measures instead what a very long tournament needs (docs/tournaments.md): the time from ``plan`` of a
``seeds = 1000000`` round-robin of four built-in bots (4 million matches) to its first recorded match, and the
runner's RSS after 1,000, 10,000 and 100,000 one-hand matches (``--scale-marks``; the run stops at the last mark,
and only the marks reached are reported: nothing is extrapolated).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import trio  # noqa: E402

from bench.machine import machine  # noqa: E402
from tournaments.config import parse_config  # noqa: E402
from tournaments.runner import execute, plan  # noqa: E402

BUILTINS = [("greedy", "greedy"), ("chowy", "greedy:chowness=0.9"), ("random", "random"), ("dd", "drawdiscard"),
            ("hidden", "greedy:hiddenness=0.9")]


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def run(bots: list[dict[str, Any]], seeds: int, hands: int, concurrency: int,
        on_count: Any = None) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        cfg = parse_config({"name": "bench", "seeds": seeds, "hands": hands, "bots": bots,
                            "store": "bench.sqlite"})
        p = plan(cfg, Path(tmp))
        stamps: list[float] = []

        def on_match(_: object) -> None:
            stamps.append(time.perf_counter())
            if on_count is not None:
                on_count(len(stamps))

        t0 = time.perf_counter()
        trio.run(lambda: execute(p, concurrency=concurrency, on_match=on_match))
        total = time.perf_counter() - t0
    n = len(stamps)
    # Steady state: from the first finished match to the last (excludes worker start-up).
    steady = (n - 1) / (stamps[-1] - stamps[0]) if n > 1 and stamps[-1] > stamps[0] else float("nan")
    return {"matches": n, "seconds": round(total, 3), "matches_per_second": round(n / total, 3),
            "steady_matches_per_second": round(steady, 3)}


def scale(marks: list[int], concurrency: int) -> dict[str, Any]:
    """Time to the first match of a million-seed tournament, and RSS at each mark of the same run."""
    out: dict[str, Any] = {"bench": "tournament --scale", "bots": "random x4", "hands_per_match": 1,
                           "seeds": 1_000_000, "concurrency": concurrency}
    bots = [{"name": n, "builtin": "random"} for n in ("a", "b", "c", "d")]
    rss: dict[str, int] = {}
    last = max(marks)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        cfg = parse_config({"name": "scale", "seeds": 1_000_000, "hands": 1, "bots": bots, "store": "s.sqlite"})
        p = plan(cfg, Path(tmp))
        out["scheduled_matches"] = p.total
        out["plan_seconds"] = round(time.perf_counter() - t0, 3)
        count = 0

        class Done(Exception):
            pass

        def on_match(_: object) -> None:
            nonlocal count
            count += 1
            if count == 1:
                out["first_match_seconds"] = round(time.perf_counter() - t0, 3)
                out["rss_kib_at_first_match"] = rss_kib()
            if count in marks:
                rss[str(count)] = rss_kib()
                out["rss_kib_after"] = dict(rss)
                out["seconds_to"] = {**out.get("seconds_to", {}), str(count): round(time.perf_counter() - t0, 1)}
            if count >= last:
                raise Done

        try:
            trio.run(lambda: execute(p, concurrency=concurrency, on_match=on_match))
        except BaseException as exc:  # noqa: BLE001 - Done, possibly inside trio's exception group
            if not (isinstance(exc, Done) or (isinstance(exc, BaseExceptionGroup)
                                              and exc.subgroup(Done) is not None)):
                raise
    out["rss_kib_after"] = rss
    if rss:
        first = rss[str(min(int(k) for k in rss))]
        out["rss_growth_over_first_mark"] = {k: round(v / first - 1, 4) for k, v in rss.items()}
    out["marks_reached"] = sorted(int(k) for k in rss)
    out["python"] = platform.python_version()
    out["machine"] = machine()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", action="store_true", help="time to first match of seeds = 1000000, RSS at marks")
    ap.add_argument("--scale-marks", default="1000,10000,100000", help="with --scale: match counts to measure at")
    ap.add_argument("--concurrency", type=int, default=2, help="with --scale: matches at once")
    ap.add_argument("--seeds", type=int, default=4, help="seeds of the built-in round-robin (5 bots: 20 matches each)")
    ap.add_argument("--hands", type=int, default=4)
    ap.add_argument("--memory-matches", type=int, default=1000)
    args = ap.parse_args()
    if args.scale:
        print(json.dumps(scale([int(x) for x in args.scale_marks.split(",")], args.concurrency)))
        return
    bots = [{"name": n, "builtin": b} for n, b in BUILTINS]
    out: dict[str, Any] = {"bench": "tournament", "hands_per_match": args.hands}
    c1 = run(bots, args.seeds, args.hands, 1)
    c2 = run(bots, args.seeds, args.hands, 2)
    out["builtin_concurrency_1"] = c1
    out["builtin_concurrency_2"] = c2
    out["speedup_2_over_1"] = round(c2["steady_matches_per_second"] / c1["steady_matches_per_second"], 2)
    proc_bots = [{"name": f"dd{i}", "cmd": [sys.executable, "-m", "bots.drawdiscard"], "cwd": str(ROOT)}
                 for i in range(4)]
    out["process_concurrency_2"] = run(proc_bots, 2, 2, 2)
    # Memory: a long run of short matches; RSS of this (the runner's) process after 100 and after N matches.
    marks: dict[int, int] = {}

    def on_count(n: int) -> None:
        if n in (100, args.memory_matches):
            marks[n] = rss_kib()

    seeds = -(-args.memory_matches // 20)  # 5 bots → 20 matches per seed
    mem_bots = [{"name": n, "builtin": "random"} for n in ("a", "b", "c", "d", "e")]
    run(mem_bots, seeds, 1, 2, on_count)
    out["rss_kib_after_100"] = marks.get(100)
    out[f"rss_kib_after_{args.memory_matches}"] = marks.get(args.memory_matches)
    if marks.get(100) and marks.get(args.memory_matches):
        out["rss_growth"] = round(marks[args.memory_matches] / marks[100] - 1, 4)
    out["python"] = platform.python_version()
    out["machine"] = machine()
    print(json.dumps(out))


if __name__ == "__main__":
    main()

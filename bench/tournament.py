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

``--standings N`` builds a store of N synthetic one-hand matches (four bots in duplicate groups, a fault now and
then) through the store's own ``record_many``, then times ``mjref standings`` on it (in this process, and as the
command) and ``mjref report`` (its time and the page's size).  ``--store PATH`` keeps the store to reuse.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import trio  # noqa: E402

from bench.machine import machine  # noqa: E402
from referee.results import SeatResult  # noqa: E402
from tournaments.config import parse_config  # noqa: E402
from tournaments.report import make_report  # noqa: E402
from tournaments.runner import execute, plan  # noqa: E402
from tournaments.stats import compute_standings  # noqa: E402
from tournaments.store import MatchRecord, Store, discard  # noqa: E402

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
                print(json.dumps({"mark": count, "rss_kib": rss[str(count)], "seconds": out["seconds_to"][str(count)]}),
                      file=sys.stderr, flush=True)  # a long run shows its marks as it reaches them
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


def synthetic_records(n: int, seed: int = 1) -> Iterator[MatchRecord]:
    """``n`` plausible one-hand matches of four bots in duplicate groups (4 seatings of each seed)."""
    rng = random.Random(seed)
    bots = ("alpha", "beta", "gamma", "delta")
    for idx in range(n):
        group_seed, rotation = divmod(idx, 4)
        seats = tuple(bots[(i + rotation) % 4] for i in range(4))
        winner = rng.randrange(5)  # 4: a drawn hand
        scores = [0, 0, 0, 0]
        wins: list[dict[str, Any]] = []
        thrower = None
        if winner < 4:
            tai = rng.randint(1, 8)
            if rng.random() < 0.3:
                for i in range(4):
                    scores[i] = 3 * (100 + 20 * tai) if i == winner else -(100 + 20 * tai)
                how = "self_draw"
            else:
                thrower = rng.choice([i for i in range(4) if i != winner])
                scores[winner], scores[thrower] = 100 + 20 * tai, -(100 + 20 * tai)
                how = "throw"
            wins.append({"hand": 0, "seat": winner + 1, "how": how, "thrower": None if thrower is None else
                         thrower + 1, "tile": 11, "tai": tai})
        faults = []
        pens = [0, 0, 0, 0]
        if idx % 997 == 0:
            pens[idx % 4] = 100
            faults.append({"hand": 0, "position": idx % 4 + 1, "bot": seats[idx % 4], "kind": "timeout",
                           "detail": "no answer in 1 s", "line": None})
        totals = tuple(scores[i] - pens[i] for i in range(4))
        ranks = [sum(u > t for u in totals) + (sum(u == t for u in totals) + 1) / 2 for t in totals]
        seat_rows = tuple(SeatResult(
            i + 1, seats[i], totals[i], ranks[i], 1, wins=int(i == winner),
            self_draws=int(i == winner and thrower is None), deal_ins=int(i == thrower), faults=pens[i] // 100,
            answers=20, answer_seconds=0.004, max_answer_seconds=0.001) for i in range(4))
        hand_rows = ({"hand": 0, "dealer": 1, "outcome": "win" if wins else "draw",
                      "winner": winner + 1 if wins else None, "how": wins[0]["how"] if wins else None,
                      "thrower": wins[0]["thrower"] if wins else None, "tai": wins[0]["tai"] if wins else 0,
                      **{f"s{i + 1}": scores[i] for i in range(4)}, **{f"p{i + 1}": pens[i] for i in range(4)}},)
        yield MatchRecord(f"g0000-s{group_seed}-r{rotation:02d}", idx, f"g0000-s{group_seed}", group_seed,
                          rotation, seats, 1, totals, None, None, 0.01, seat_rows, hand_rows, tuple(faults),
                          tuple(wins))  # type: ignore[arg-type]


def standings_bench(n: int, store: Path | None, runs: int = 3) -> dict[str, Any]:
    """A store of ``n`` matches (built unless ``store`` already holds them), and how long standings and the report
    take on it."""
    out: dict[str, Any] = {"bench": "tournament --standings", "matches": n}
    with tempfile.TemporaryDirectory() as tmp:
        path = store or Path(tmp) / "standings.sqlite"
        have = 0
        if path.exists():
            with Store(path) as s:
                have = s.count()
        if have != n:
            discard(path)
            t0 = time.perf_counter()
            with Store(path) as s:
                s.initialise("standings bench", {"name": "standings bench"})
                batch: list[MatchRecord] = []
                for rec in synthetic_records(n):
                    batch.append(rec)
                    if len(batch) == 10_000:
                        s.record_many(batch)
                        batch.clear()
                s.record_many(batch)
            out["build_seconds"] = round(time.perf_counter() - t0, 1)
        out["store_bytes"] = path.stat().st_size
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            st = compute_standings(path)
            times.append(round(time.perf_counter() - t0, 3))
        assert st.matches == n
        out["standings_seconds"] = times
        t0 = time.perf_counter()
        cmd = subprocess.run([sys.executable, "-m", "referee.cli", "standings", str(path), "--format", "json"],
                             cwd=ROOT, capture_output=True, text=True, check=True)
        out["mjref_standings_command_seconds"] = round(time.perf_counter() - t0, 3)
        out["standings_json_bytes"] = len(cmd.stdout)
        t0 = time.perf_counter()
        page = make_report(path, Path(tmp) / "report.html").path
        out["report_seconds"] = round(time.perf_counter() - t0, 3)
        out["report_page_bytes"] = page.stat().st_size
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
    ap.add_argument("--standings", type=int, metavar="N", help="time standings and report on a store of N matches")
    ap.add_argument("--store", type=Path, help="with --standings: the store to build (or reuse)")
    args = ap.parse_args()
    if args.standings:
        print(json.dumps(standings_bench(args.standings, args.store)))
        return
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

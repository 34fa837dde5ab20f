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
import ctypes
import gc
import json
import os
import platform
import random
import re
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
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
from tournaments.store import CACHE_KIB, FaultRow, HandRow, MatchRecord, Store, WinRow, discard  # noqa: E402

BUILTINS = [("greedy", "greedy"), ("chowy", "greedy:chowness=0.9"), ("random", "random"), ("dd", "drawdiscard"),
            ("hidden", "greedy:hiddenness=0.9")]


def rss_kib() -> int:
    return proc_status().get("VmRSS", 0)


def proc_status(pid: int | str = "self") -> dict[str, int]:
    """A process's resident memory in KiB: VmRSS, and its parts RssAnon (heap, arenas), RssFile (code, libraries),
    RssShmem (shared memory: SQLite's WAL index)."""
    out = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "RssAnon", "RssFile", "RssShmem"):
                out[key] = int(value.split()[0])
    except OSError:
        pass
    return out


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


def _lib(name: str) -> Any:
    try:
        return ctypes.CDLL(name)
    except OSError:
        return None


def pymalloc_stats() -> dict[str, int]:
    """Python's small-object allocator (``sys._debugmallocstats``, which prints to C's stderr): its arenas (256 KiB
    each) and how much of them is in use; free space in arenas is fragmentation unless reused."""
    libc = _lib(None)  # type: ignore[arg-type]
    r, w = os.pipe()
    saved = os.dup(2)
    os.dup2(w, 2)
    try:
        sys._debugmallocstats()
        if libc is not None:
            libc.fflush(None)
    finally:
        os.dup2(saved, 2)
        os.close(w)
        os.close(saved)
    chunks = []
    while chunk := os.read(r, 1 << 16):
        chunks.append(chunk)
    os.close(r)
    out = {}
    for line in b"".join(chunks).decode(errors="replace").splitlines():
        m = re.match(r"# (arenas allocated current|bytes in allocated blocks|bytes in available blocks)\s+=\s+([\d,]+)",
                     line)
        if m:
            out[m.group(1).replace(" ", "_")] = int(m.group(2).replace(",", ""))
    return out


def worker_rss() -> dict[str, int]:
    """RSS (KiB) of this process's children: the pool's workers (the resource tracker left out)."""
    me, out = str(os.getpid()), {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            if (d / "stat").read_text().rsplit(")", 1)[1].split()[1] != me:
                continue
            if b"resource_tracker" in (d / "cmdline").read_bytes():
                continue
        except (OSError, IndexError):
            continue
        out[d.name] = proc_status(d.name).get("VmRSS", 0)
    return out


def memory_breakdown() -> dict[str, Any]:
    """Where this (the runner's) process's memory is: RSS and its parts; SQLite's own allocations (its page cache,
    capped by ``tournaments.store.CACHE_KIB``); glibc's heap (what is in use and what is free in it: free space
    is held, not leaked); Python's allocator; how many objects the garbage collector tracks; the workers' RSS."""
    out: dict[str, Any] = proc_status()
    sqlite = _lib("libsqlite3.so.0")
    if sqlite is not None:
        sqlite.sqlite3_memory_used.restype = ctypes.c_int64
        out["sqlite_memory_kib"] = sqlite.sqlite3_memory_used() // 1024
    libc = _lib("libc.so.6")
    if libc is not None and hasattr(libc, "mallinfo2"):
        libc.mallinfo2.restype = _Mallinfo2
        mi = libc.mallinfo2()
        out["malloc_kib"] = {"heap": mi.arena // 1024, "in_use": mi.uordblks // 1024, "free": mi.fordblks // 1024,
                             "mmapped": mi.hblkhd // 1024}
    out["pymalloc"] = pymalloc_stats() if not tracemalloc.is_tracing() else "not shown while tracemalloc traces"
    gc.collect()
    out["gc_objects"] = len(gc.get_objects())
    out["workers_rss_kib"] = sorted(worker_rss().values())
    return out


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


def scale(marks: list[int], concurrency: int, diagnose: bool = False, trim: bool = False) -> dict[str, Any]:
    """Time to the first match of a million-seed tournament, and the runner's memory at each mark of the same run
    (with ``diagnose``: what grew between the first mark and each later one, by tracemalloc and by type; with
    ``trim``: the RSS again after glibc's ``malloc_trim(0)`` hands its free heap pages back, which shows how much
    of the RSS is free space malloc keeps, not memory in use; the run then goes on trimmed)."""
    out: dict[str, Any] = {"bench": "tournament --scale", "bots": "random x4", "hands_per_match": 1,
                           "seeds": 1_000_000, "concurrency": concurrency, "sqlite_cache_kib": CACHE_KIB,
                           "measured": "the runner process (this one); its workers' RSS beside"}
    bots = [{"name": n, "builtin": "random"} for n in ("a", "b", "c", "d")]
    rss: dict[str, int] = {}
    memory: dict[str, Any] = {}
    diagnosis: dict[str, Any] = {}
    first_types: Counter[str] = Counter()
    first_snapshot: list[tracemalloc.Snapshot] = []
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

        def diagnose_at(n: int) -> None:
            gc.collect()
            types = Counter(type(o).__qualname__ for o in gc.get_objects())
            snap = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
            if not first_snapshot:
                first_types.update(types)
                first_snapshot.append(snap)
                return
            top = snap.compare_to(first_snapshot[0], "traceback")[:5]
            diagnosis[str(n)] = {
                "traced_kib": tracemalloc.get_traced_memory()[0] // 1024,
                "types_grown": dict((types - first_types).most_common(5)),
                "allocations_grown": [
                    f"{d.size_diff / 1024:+.1f} KiB {d.count_diff:+d} blocks at "
                    + " <- ".join(f"{Path(f.filename).name}:{f.lineno}" for f in list(d.traceback)[::-1][:5])
                    for d in top]}

        def on_match(_: object) -> None:
            nonlocal count
            count += 1
            if count == 1:
                out["first_match_seconds"] = round(time.perf_counter() - t0, 3)
                out["rss_kib_at_first_match"] = rss_kib()
            if count in marks:
                rss[str(count)] = rss_kib()
                memory[str(count)] = memory_breakdown()
                libc = _lib("libc.so.6")
                if trim and libc is not None:
                    libc.malloc_trim(0)
                    memory[str(count)]["rss_kib_after_malloc_trim"] = rss_kib()
                out["seconds_to"] = {**out.get("seconds_to", {}), str(count): round(time.perf_counter() - t0, 1)}
                if diagnose:
                    if not tracemalloc.is_tracing():
                        tracemalloc.start(12)
                    diagnose_at(count)
                print(json.dumps({"mark": count, "rss_kib": rss[str(count)], "seconds": out["seconds_to"][str(count)],
                                  "load": os.getloadavg()[0], "memory": memory[str(count)]}),
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
    out["memory_after"] = memory
    if diagnosis:
        out["diagnosis"] = diagnosis
    reached = sorted(int(k) for k in rss)
    if reached:
        first = rss[str(reached[0])]
        out["rss_growth_over_first_mark"] = {k: round(v / first - 1, 4) for k, v in rss.items()}
        # After warm-up (SQLite's page cache full, see CACHE_KIB): RSS against the 10,000 mark, and its slope.
        warm = [m for m in reached if m >= 10_000]
        if len(warm) > 1:
            base = rss[str(warm[0])]
            out["rss_growth_over_10000"] = {str(m): round(rss[str(m)] / base - 1, 4) for m in warm}
            out["kib_per_10000_matches_after_10000"] = round(
                (rss[str(warm[-1])] - base) / (warm[-1] - warm[0]) * 10_000, 1)
    out["marks_reached"] = reached
    out["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    out["python"] = platform.python_version()
    out["machine"] = machine()
    return out


def synthetic_records(n: int, seed: int = 1) -> Iterator[MatchRecord]:
    """``n`` plausible one-hand matches of four bots in duplicate groups (4 seatings of each seed)."""
    rng = random.Random(seed)
    bots = ("alpha", "beta", "gamma", "delta")
    for idx in range(n):
        group_seed, rotation = divmod(idx, 4)
        seats = (bots[rotation % 4], bots[(1 + rotation) % 4], bots[(2 + rotation) % 4], bots[(3 + rotation) % 4])
        winner = rng.randrange(5)  # 4: a drawn hand
        scores = [0, 0, 0, 0]
        wins: list[WinRow] = []
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
            wins.append(WinRow(0, winner + 1, how, None if thrower is None else thrower + 1, 11, tai))
        faults = []
        pens = [0, 0, 0, 0]
        if idx % 997 == 0:
            pens[idx % 4] = 100
            faults.append(FaultRow(0, idx % 4 + 1, seats[idx % 4], "timeout", "no answer in 1 s"))
        totals = (scores[0] - pens[0], scores[1] - pens[1], scores[2] - pens[2], scores[3] - pens[3])
        ranks = [sum(u > t for u in totals) + (sum(u == t for u in totals) + 1) / 2 for t in totals]
        seat_rows = tuple(SeatResult(
            i + 1, seats[i], totals[i], ranks[i], 1, wins=int(i == winner),
            self_draws=int(i == winner and thrower is None), deal_ins=int(i == thrower), faults=pens[i] // 100,
            answers=20, answer_seconds=0.004, max_answer_seconds=0.001) for i in range(4))
        hand_rows = (HandRow(0, 1, "win" if wins else "draw", winner + 1 if wins else None,
                             wins[0].how if wins else None, wins[0].thrower if wins else None,
                             wins[0].tai if wins else 0, (scores[0], scores[1], scores[2], scores[3]),
                             (pens[0], pens[1], pens[2], pens[3])),)
        yield MatchRecord(f"g0000-s{group_seed}-r{rotation:02d}", idx, f"g0000-s{group_seed}", group_seed,
                          rotation, seats, 1, totals, None, None, 0.01, seat_rows, hand_rows, tuple(faults),
                          tuple(wins))


def build_store(path: Path, n: int, records: Callable[[], Iterable[MatchRecord]], identity: dict[str, Any],
                finish: Callable[[Store], None] | None = None) -> float | None:
    """Fill the store at ``path`` with ``records()`` (``n`` of them) through the store's own ``record_many``, in
    batches of 10,000, then ``finish(store)``; a store that holds ``n`` matches already is kept (None); else the
    seconds the build took."""
    if path.exists():
        with Store(path) as s:
            if s.count() == n:
                return None
    discard(path)
    t0 = time.perf_counter()
    with Store(path) as s:
        s.initialise(str(identity.get("name", "bench")), identity)
        batch: list[MatchRecord] = []
        for rec in records():
            batch.append(rec)
            if len(batch) == 10_000:
                s.record_many(batch)
                batch.clear()
        s.record_many(batch)
        if finish is not None:
            finish(s)
    return round(time.perf_counter() - t0, 1)


def standings_bench(n: int, store: Path | None, runs: int = 3) -> dict[str, Any]:
    """A store of ``n`` matches (built unless ``store`` already holds them), and how long standings and the report
    take on it."""
    out: dict[str, Any] = {"bench": "tournament --standings", "matches": n}
    with tempfile.TemporaryDirectory() as tmp:
        path = store or Path(tmp) / "standings.sqlite"
        built = build_store(path, n, lambda: synthetic_records(n), {"name": "standings bench"})
        if built is not None:
            out["build_seconds"] = built
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
    ap.add_argument("--trim", action="store_true",
                    help="with --scale: RSS again after malloc_trim(0) at each mark (free heap handed back)")
    ap.add_argument("--diagnose", action="store_true",
                    help="with --scale: what grew after the first mark (tracemalloc by traceback, objects by type)")
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
        print(json.dumps(scale([int(x) for x in args.scale_marks.split(",")], args.concurrency, args.diagnose,
                                args.trim)))
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

"""Benchmark: what one question's round trip through a pipe costs, before the referee does anything.

An echo process answers each line at once; this process writes a line and blocks in read() for the answer, as
the floor of ``bench/match.py`` does.  Measured with the echo process on the same CPU as this one, on the other
CPU, and wherever the kernel puts them; also what one short sleep costs.  The CPU time of a blocked-and-woken
process depends on where the process that wakes it runs: the floor of ``bench/match.py`` is mostly this cost.

``referee_wait`` gives, per placement, the same round trip waited for as a process seat waits on its fast path
(``wrappers.process``): a ``poll(0)`` on the bot's stdout and stderr for a line nobody asked for, the write, a
``poll()`` with a timeout, then the read; and its extra CPU over the plain blocking read.  It is what a referee that
keeps a deadline and drains stderr pays above the floor for the wait itself.

Prints one JSON line.  ``python bench/wakeup.py [--trips N] [--repeats R]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import select
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import machine  # noqa: E402

_ECHO = "import os\nwhile True:\n    d = os.read(0, 4096)\n    if not d:\n        break\n    os.write(1, d)\n"


def round_trip(trips: int, repeats: int, mine: set[int] | None, theirs: set[int] | None,
               *, polled: bool = False) -> dict[str, float]:
    """Median CPU and wall microseconds per write-then-blocking-read, over ``repeats`` runs of ``trips``; with
    ``polled``, waited for as a process seat waits (see the top)."""
    before = os.sched_getaffinity(0)
    child = subprocess.Popen([sys.executable, "-c", _ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, bufsize=0)
    assert child.stdin is not None and child.stdout is not None and child.stderr is not None
    try:
        if theirs is not None:
            os.sched_setaffinity(child.pid, theirs)
        if mine is not None:
            os.sched_setaffinity(0, mine)
        w, r = child.stdin.fileno(), child.stdout.fileno()
        poll = select.poll()
        poll.register(r, select.POLLIN)
        poll.register(child.stderr.fileno(), select.POLLIN)
        os.set_blocking(r, not polled)
        line = b"/ask throw\n"

        def trip() -> None:
            if polled:
                poll.poll(0)
                os.write(w, line)
                poll.poll(250.0)
            else:
                os.write(w, line)
            os.read(r, 4096)

        for _ in range(200):  # warm up
            trip()
        cpu, wall = [], []
        for _ in range(repeats):
            c0, w0 = time.process_time(), time.perf_counter()
            for _ in range(trips):
                trip()
            cpu.append((time.process_time() - c0) / trips * 1e6)
            wall.append((time.perf_counter() - w0) / trips * 1e6)
    finally:
        os.sched_setaffinity(0, before)
        child.stdin.close()
        child.wait()
        child.stdout.close()
        child.stderr.close()
    return {"cpu_us": round(statistics.median(cpu), 2), "wall_us": round(statistics.median(wall), 2)}


def sleep_cost(n: int) -> dict[str, float]:
    """CPU and wall microseconds per ``time.sleep(50 µs)``: a block and a wake-up with no other process involved."""
    c0, w0 = time.process_time(), time.perf_counter()
    for _ in range(n):
        time.sleep(50e-6)
    return {"cpu_us": round((time.process_time() - c0) / n * 1e6, 2),
            "wall_us": round((time.perf_counter() - w0) / n * 1e6, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trips", type=int, default=3000, help="round trips per run (default 3000)")
    ap.add_argument("--repeats", type=int, default=5, help="runs per placement; the median is printed (default 5)")
    args = ap.parse_args()
    if args.trips < 1 or args.repeats < 1:
        ap.error("--trips and --repeats must be at least 1")
    cpus = sorted(os.sched_getaffinity(0))
    out: dict[str, object] = {"bench": "wakeup", "trips": args.trips, "repeats": args.repeats}
    placements: dict[str, tuple[set[int] | None, set[int] | None]] = {"same_cpu": ({cpus[0]}, {cpus[0]})}
    placements["other_cpu"] = ({cpus[0]}, {cpus[1]}) if len(cpus) > 1 else (None, None)
    placements["unpinned"] = (None, None)
    waits: dict[str, object] = {}
    for name, (mine, theirs) in placements.items():
        if name == "other_cpu" and len(cpus) < 2:
            out[name] = None
            continue
        plain = out[name] = round_trip(args.trips, args.repeats, mine, theirs)
        polled = round_trip(args.trips, args.repeats, mine, theirs, polled=True)
        waits[name] = {**polled, "extra_cpu_us": round(polled["cpu_us"] - plain["cpu_us"], 2)}
    out["referee_wait"] = waits
    out["sleep_50us"] = sleep_cost(args.trips)
    out["python"] = platform.python_version()
    out["machine"] = machine()
    print(json.dumps(out))


if __name__ == "__main__":
    main()

"""What a bot start costs in its box: the referee's own CPU per start, and the wall time from the keeper's spawn to
the bot's end, in mode ``none`` and in bwrap, beside a bare ``fork``/``exec`` from Python; and what a box costs to
open and close (once per seat and match).  Interleaved run by run so that the machine's load falls on all alike.
Prints JSON.

    python bench/sandbox.py [--runs 200] [--boxes 20] [--cmd /bin/true]

Each hand's bot process is started by its seat's keeper (``wrappers/keeper.py``) in a box opened once per match:
the referee's part of a start is three pipes, one ``sendmsg`` and one reply, the same code in both modes, so the
target (the referee's CPU per start at most 0.1 ms above mode ``none``) is met by construction and this shows it.
The box's own price is paid at ``box_open`` (bwrap's namespaces and mounts, and the keeper's Python start).

``keeper_cpu_per_start_ms``: the CPU of the box's own processes (the keeper, and bwrap's, which idle) per start;
``started_cpu_per_start_ms``: that of the processes the keeper started and reaped (the bot's, and in a forked child
whatever the keeper did in it before the exec).  Both from ``/proc``, so they hold under load better than wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import trio  # noqa: E402

from bench.machine import machine  # noqa: E402
from wrappers import sandbox  # noqa: E402
from wrappers.process import Box  # noqa: E402
from wrappers.spec import BotSpec  # noqa: E402

_TICK = os.sysconf("SC_CLK_TCK")


def _run_ns(pid: int) -> int:
    """The CPU nanoseconds of every thread of ``pid`` so far (``schedstat``: finer than ``stat``'s clock ticks)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/schedstat", "rb") as f:
            total += int(f.read().split()[0])
    return total


def _box_cpu(pid: int) -> tuple[float, float]:
    """CPU seconds of the process ``pid`` and its descendants (the box's launcher, keeper and what runs), their own
    (to the nanosecond) and that of the children they reaped (to the clock tick)."""
    own = reaped = 0.0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/stat", "rb") as f:
                fields = f.read().rpartition(b")")[2].split()
            with open(f"/proc/{p}/task/{p}/children", "rb") as f:
                todo += [int(c) for c in f.read().split()]
        except OSError:
            continue
        own += _run_ns(p) / 1e9
        reaped += (int(fields[13]) + int(fields[14])) / _TICK  # cutime, cstime
    return own, reaped


async def _starts(launch: sandbox.Launch, runs: int) -> tuple[list[float], float, float, tuple[float, float]]:
    """Open one box, start the bot ``runs`` times in it: wall seconds per start, the referee's CPU seconds per
    start, the wall seconds the box took to open and close, and the box's own and its started processes' CPU
    seconds per start."""
    walls: list[float] = []
    async with trio.open_nursery() as nursery:
        opened = time.perf_counter()
        box = await Box.open(launch, nursery)
        open_s = time.perf_counter() - opened
        box0 = _box_cpu(box.launcher_pid)
        cpu0 = time.process_time()
        for _ in range(runs):
            started = time.perf_counter()
            proc = await box.spawn()
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                assert stream is not None
                await stream.aclose()
            await proc.wait()
            walls.append(time.perf_counter() - started)
        cpu = (time.process_time() - cpu0) / runs
        box1 = _box_cpu(box.launcher_pid)
        closed = time.perf_counter()
        await box.aclose()
        open_s += time.perf_counter() - closed
        nursery.cancel_scope.cancel()
    return walls, cpu, open_s, ((box1[0] - box0[0]) / runs, (box1[1] - box0[1]) / runs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200, help="starts per box")
    ap.add_argument("--boxes", type=int, default=10, help="boxes per mode")
    ap.add_argument("--cmd", default="/bin/true", help="the bot command (default /bin/true: the start alone)")
    args = ap.parse_args()
    cmd = args.cmd.split()
    modes = ["none"] + (["bwrap"] if sandbox.bwrap_problem() is None else [])
    wall: dict[str, list[float]] = {m: [] for m in ["bare", *modes]}
    cpu: dict[str, list[float]] = {m: [] for m in modes}
    box: dict[str, list[float]] = {m: [] for m in modes}
    keeper: dict[str, list[float]] = {m: [] for m in modes}
    reaped: dict[str, list[float]] = {m: [] for m in modes}
    for _ in range(args.boxes):
        for _ in range(max(1, args.runs // 10)):
            started = time.perf_counter()
            subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True)
            wall["bare"].append(time.perf_counter() - started)
        for mode in modes:
            scratch = Path(tempfile.mkdtemp(prefix="mjref-seat-"))
            launch = sandbox.plan(BotSpec(name="bench", cmd=tuple(cmd)), scratch, mode=mode)
            walls, per_start_cpu, open_s, (keeper_cpu, started_cpu) = trio.run(_starts, launch, args.runs)
            sandbox.release(launch)
            os.rmdir(scratch)
            wall[mode] += walls
            cpu[mode].append(per_start_cpu)
            box[mode].append(open_s)
            keeper[mode].append(keeper_cpu)
            reaped[mode].append(started_cpu)
    ms = {k: round(statistics.median(v) * 1000, 3) for k, v in wall.items()}
    cpu_ms = {k: round(statistics.median(v) * 1000, 4) for k, v in cpu.items()}
    out: dict[str, object] = {
        "machine": machine(), "cmd": args.cmd, "runs_per_box": args.runs, "boxes": args.boxes,
        "root": os.geteuid() == 0, "bwrap": sandbox.bwrap_problem() or "works", "load_average": os.getloadavg()[0],
        "start_wall_median_ms": ms,
        "referee_cpu_per_start_ms": cpu_ms,
        "keeper_cpu_per_start_ms": {k: round(statistics.mean(v) * 1000, 3) for k, v in keeper.items()},
        "started_cpu_per_start_ms": {k: round(statistics.mean(v) * 1000, 3) for k, v in reaped.items()},
        "box_open_and_close_median_ms": {k: round(statistics.median(v) * 1000, 2) for k, v in box.items()},
    }
    if "bwrap" in cpu_ms:
        out["bwrap_minus_none_referee_cpu_per_start_ms"] = round(cpu_ms["bwrap"] - cpu_ms["none"], 4)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

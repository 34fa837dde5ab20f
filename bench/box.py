"""What the box costs a tournament: a round-robin of four ``python -m bots.greedy`` processes started per hand (the
protocol's default), boxed as mjref boxes them by default, against the same tournament run by mjref at an anchor
revision (default 4cb019a, which had no box) and by ours with ``--sandbox none``; concurrency 1 and 2, interleaved
run by run so that the machine's load falls on all alike.  Prints one JSON object.

    python bench/box.py [--anchor 4cb019a] [--seeds 8] [--hands 16] [--runs 5]

Eight matches a run by default (until session 17: two).  A tournament keeps a seat's boxes from one match to the
next in the same slot (``BoxPool``), so a box opens once per bot and slot (two since session 21: a bot started per
hand starts each hand's process in its other box while the hand before is played); with two matches at
concurrency 2 each slot plays one match and every box opens for it alone (about 35 ms of CPU in bwrap: 16 a run,
4.4 ms a bot start), which no tournament longer than its concurrency pays.  ``--seeds 2`` still measures that worst
case.

``paired_over_anchor``: the same ratio round by round (each round runs the three sides back to back, so the
machine's load of the moment falls on all), with its median and a 90 % bootstrap interval: on a machine whose
speed drifts over minutes this says more than the ratio of medians, whose runs of one side may fall in a slow
minute the other side's did not.

Every side runs the same bot code (this repository's ``bots``, named by the bots' own ``env``), so the figure is the
referee's and the box's, not the bots' (4cb019a's greedy took four times as long to start).  Matches per minute
are the tournament's matches over its wall time, the command's own start included; the ratio is of the medians.

``referee_cpu_per_start_ms``: the referee process's own CPU (``RUSAGE_SELF``, not the bots') per bot process
started, for the boxed run and for ``--sandbox none``, and their difference.  ``total_cpu_per_start_ms``: the CPU
of the whole command per bot process started, the referee's and that of every process it started (its workers,
boxes, keepers and bots), from a CPU accounting cgroup of its own (as root, where cgroup v1's ``cpuacct`` is a
hierarchy of its own; else null).  On a machine whose cores the tournament keeps busy it is what the matches per
minute follow, and it holds under load better than wall time.  As root, mode ``none`` runs bots as
an unprivileged user that must reach the interpreter: this bench then uses the system's ``/usr/bin/python3`` for
every side.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.anchor import commit_of, compiled, exported_tree  # noqa: E402
from bench.machine import machine  # noqa: E402
from wrappers import cgroups  # noqa: E402

_CHILD = """
import resource, runpy, sys, json, atexit, os
group = os.environ.pop("MJREF_BENCH_CGROUP", "")
if group:
    with open(group + "/cgroup.procs", "w") as f:
        f.write(str(os.getpid()))
def report():
    r = resource.getrusage(resource.RUSAGE_SELF)
    sys.stderr.write("\\nMJREF-BENCH-CPU " + json.dumps(r.ru_utime + r.ru_stime) + "\\n")
atexit.register(report)
sys.argv = ["mjref", *sys.argv[1:]]
runpy.run_module("referee.cli", run_name="__main__")
"""


def _cpu_group() -> str | None:
    """A CPU accounting cgroup for one tournament, which counts the CPU of every process it starts, bots in boxes
    included (bubblewrap's init is reaped by nobody who counts it, so ``RUSAGE_CHILDREN`` misses every box); the
    seats' own cgroups are made below it.  Only where cgroup v1's ``cpuacct`` is a hierarchy of its own (as root):
    elsewhere a new cgroup would also change how the CPU is shared, or (v2) where the seats' memory cgroups go."""
    if cgroups.cpu_problem() is not None:
        return None
    own = [line.split(":", 2) for line in Path("/proc/self/cgroup").read_text(encoding="ascii").splitlines()]
    if not any(controllers == "cpuacct" for _, controllers, _ in own):
        return None
    return cgroups.cpu_seat_path(f"mjref-boxbench-{os.getpid()}-{time.monotonic_ns()}")


def child_env(tree: Path, *, cpu: bool = True) -> tuple[dict[str, str], str | None]:
    """The environment of an mjref command run by a bench from ``tree`` (``_CHILD``; the caller's ``MJREF_SANDBOX``
    and ``PYTHONDONTWRITEBYTECODE`` left out, the tree's bytecode written: see ``compiled``), and the CPU accounting
    cgroup it joins at its start (made here unless not ``cpu``; None where ``_cpu_group`` gives none:
    ``_close_group`` reads and removes it)."""
    compiled(tree)
    group = _cpu_group() if cpu else None
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("MJREF_SANDBOX", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if group is not None:
        cgroups.create_cpu(group)
        env["MJREF_BENCH_CGROUP"] = group
    return env, group


def _toml(python: str, seeds: int, hands: int, concurrency: int) -> str:
    bots = "".join(f'[[bots]]\nname = "g{i}"\ncmd = ["{python}", "-m", "bots.greedy"]\n'
                   f'cwd = "{REPO}"\nenv = {{ PYTHONPATH = "{REPO}" }}\n' for i in range(1, 5))
    return (f'name = "box"\nformat = "round-robin"\nduplicate = false\nseeds = {seeds}\nhands = {hands}\n'
            f'concurrency = {concurrency}\nstore = "t.sqlite"\n{bots}')


def _close_group(group: str) -> float | None:
    """The CPU seconds of the tournament's cgroup once the last of its processes is gone (a box's processes end
    just after the command), and the cgroup removed."""
    for _ in range(500):
        if not Path(group, "cgroup.procs").read_text(encoding="ascii").strip():
            break
        time.sleep(0.01)
    total = cgroups.cpu_seconds(group)
    for _ in range(500):
        try:
            os.rmdir(group)
            break
        except OSError:
            time.sleep(0.01)  # a seat's cgroup below it, not yet removed
    return total


def _run(tree: Path, toml: str, extra: list[str]) -> tuple[float, float, float | None]:
    """One tournament: its wall seconds, the referee's own CPU seconds, and the CPU seconds of the whole command
    (None where ``_cpu_group`` gives no cgroup)."""
    with tempfile.TemporaryDirectory(prefix="mjref-boxbench-") as tmp:
        Path(tmp, "t.toml").write_text(toml, encoding="utf-8")
        env, group = child_env(tree)
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", _CHILD, "tournament", "t.toml", *extra], cwd=tmp, env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, check=False)
        wall = time.perf_counter() - started
        total = None if group is None else _close_group(group)
        if done.returncode != 0:
            raise SystemExit(f"bench/box.py: the tournament failed ({tree}): {done.stderr[-2000:]}")
        cpu = float(done.stderr.rsplit("MJREF-BENCH-CPU ", 1)[1].split()[0])
        store = Path(tmp, "t.sqlite")
        faults = subprocess.run([sys.executable, "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
                                 "print(c.execute('select count(*) from faults').fetchone()[0])", str(store)],
                                capture_output=True, text=True, check=False).stdout.strip()
        if faults not in ("", "0"):
            raise SystemExit(f"bench/box.py: {faults} faults in a run of {tree} {extra}: the figure would be wrong")
        return wall, cpu, total


def _paired(side: list[float], anchor: list[float]) -> dict[str, object]:
    """The speed ratio run by run (the anchor's wall over ``side``'s, of the same round: the machine's load of
    the moment falls on both), its median, and a 90 % percentile-bootstrap interval of that median (seeded)."""
    ratios = [a / b for a, b in zip(anchor, side)]
    rng = random.Random(0)
    medians = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(2000))
    return {"median": round(statistics.median(ratios), 3),
            "ci90": [round(medians[100], 3), round(medians[1899], 3)],
            "per_run": [round(r, 3) for r in ratios]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--anchor", default="4cb019a")
    ap.add_argument("--seeds", type=int, default=8, help="matches per tournament (one table of four per seed)")
    ap.add_argument("--hands", type=int, default=16)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    root = os.geteuid() == 0
    python = "/usr/bin/python3" if root and os.access("/usr/bin/python3", os.X_OK) else shutil.which("python3")
    starts = args.seeds * args.hands * 4
    out: dict[str, object] = {"machine": machine(), "anchor": commit_of(args.anchor), "seeds": args.seeds,
                              "hands": args.hands, "runs": args.runs, "root": root, "bot_python": python,
                              "load_before": os.getloadavg()[0]}
    with exported_tree(args.anchor, "bench/box.py") as anchor:
        for concurrency in (1, 2):
            toml = _toml(str(python), args.seeds, args.hands, concurrency)
            walls: dict[str, list[float]] = {"boxed": [], "none": [], "anchor": []}
            cpus: dict[str, list[float]] = {"boxed": [], "none": [], "anchor": []}
            totals: dict[str, list[float | None]] = {"boxed": [], "none": [], "anchor": []}
            for _ in range(args.runs):
                for side, tree, extra in (("boxed", REPO, []), ("none", REPO, ["--sandbox", "none"]),
                                          ("anchor", anchor, [])):
                    wall, cpu, total = _run(tree, toml, extra)
                    walls[side].append(wall)
                    cpus[side].append(cpu)
                    totals[side].append(total)
            per_min = {k: args.seeds * 60 / statistics.median(v) for k, v in walls.items()}
            paired = {side: _paired(walls[side], walls["anchor"]) for side in ("boxed", "none")}
            cpu_start = {k: statistics.median(v) * 1000 / starts for k, v in cpus.items()}
            total_start = {k: statistics.median([x for x in v if x is not None]) * 1000 / starts
                           for k, v in totals.items() if None not in v}
            out[f"concurrency_{concurrency}"] = {
                "matches_per_minute": {k: round(v, 2) for k, v in per_min.items()},
                "boxed_over_anchor": round(per_min["boxed"] / per_min["anchor"], 3),
                "none_over_anchor": round(per_min["none"] / per_min["anchor"], 3),
                "paired_over_anchor": paired,
                "wall_s": {k: [round(x, 2) for x in v] for k, v in walls.items()},
                "referee_cpu_per_start_ms": {k: round(v, 3) for k, v in cpu_start.items()},
                "boxed_minus_none_cpu_per_start_ms": round(cpu_start["boxed"] - cpu_start["none"], 3),
                "total_cpu_per_start_ms": {k: round(v, 3) for k, v in total_start.items()} or None,
                "boxed_minus_anchor_total_cpu_per_start_ms": (round(total_start["boxed"] - total_start["anchor"], 3)
                                                              if total_start else None),
            }
    out["load_after"] = os.getloadavg()[0]
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

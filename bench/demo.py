"""Benchmark: the README demo tournament (``mjref tournament`` with no file: a duplicate round-robin of the five
built-in demo bots, 2 seeds of 8 hands) in CPU time, ours beside the same command run by the code of a git revision
(``--anchor``, default 4cb019a), alternating fresh runs so that the machine's load falls on both alike.  Prints one
JSON line.

    python bench/demo.py [--anchor 4cb019a] [--runs 5] [--count]

Each run is ``python -m referee.cli tournament`` in an empty folder with the tree first on ``PYTHONPATH`` (the
anchor exported by ``git archive``), this interpreter for both; its CPU is the command's and all its processes'
(the pool workers that play the built-in bots are its children, waited for).  ``cpu_ratio`` is ours over the
anchor's by their medians; ``pair_ratios`` each run's over the anchor run beside it.  A run that records fewer
matches than another, or any fault, ends the benchmark: the figure would be wrong.

``--count`` adds one untimed run of each side that counts, over all its processes, the calls of
``analysis._exact_suit_table`` (the exact programme: what a suit with four of a kind or with copies seen costs when
no shipped table holds it), through a ``sitecustomize`` module on the path of that run only.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.anchor import commit_of, exported_tree  # noqa: E402
from bench.machine import machine  # noqa: E402

STORE = "mjref-demo/demo.sqlite"  # where the demo records its matches, relative to the folder it runs in

# Imported by every Python process of a counting run (the command and its pool workers): one byte appended to a
# file per call of the exact programme (a pool worker may be killed at the end, so nothing waits for its exit).
_COUNTER = """
import os
from referee.game import analysis
_fd = os.open(os.environ["MJREF_BENCH_COUNT"], os.O_WRONLY | os.O_APPEND | os.O_CREAT)
_exact = analysis._exact_suit_table
def _counted(*args):
    os.write(_fd, b"x")
    return _exact(*args)
analysis._exact_suit_table = _counted
"""


def _run(tree: Path, counter: Path | None = None) -> tuple[float, int]:
    """One demo tournament run by the code in ``tree``: its CPU seconds (the command's and its children's) and the
    matches it recorded."""
    with tempfile.TemporaryDirectory(prefix="mjref-demobench-") as tmp:
        path = str(tree) if counter is None else f"{counter}{os.pathsep}{tree}"
        env = {**os.environ, "PYTHONPATH": path}
        if counter is not None:
            env["MJREF_BENCH_COUNT"] = str(counter / "calls.txt")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run([sys.executable, "-m", "referee.cli", "tournament"], cwd=tmp, env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise SystemExit(f"bench/demo.py: the demo failed ({tree}): {done.stderr[-2000:]}")
        with sqlite3.connect(Path(tmp, STORE)) as con:
            matches = con.execute("SELECT count(*) FROM matches").fetchone()[0]
            faults = con.execute("SELECT count(*) FROM faults").fetchone()[0]
        if faults or not matches:
            raise SystemExit(f"bench/demo.py: {matches} matches and {faults} faults in a run of {tree}")
        return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, matches


def _count(tree: Path) -> int:
    """The exact programme's calls in one demo run by ``tree``, over all its processes."""
    with tempfile.TemporaryDirectory(prefix="mjref-democount-") as tmp:
        counter = Path(tmp)
        (counter / "sitecustomize.py").write_text(_COUNTER, encoding="utf-8")
        _run(tree, counter)
        calls = counter / "calls.txt"
        return calls.stat().st_size if calls.exists() else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--anchor", default="4cb019a", help="the git revision run beside ours (default 4cb019a)")
    ap.add_argument("--runs", type=int, default=5, help="runs of each side, alternating (default 5)")
    ap.add_argument("--count", action="store_true", help="also count the exact programme's calls on each side")
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    out: dict[str, object] = {"bench": "demo", "machine": machine(), "anchor": commit_of(args.anchor),
                              "runs": args.runs, "load_before": round(os.getloadavg()[0], 2)}
    ours: list[float] = []
    anchor_cpu: list[float] = []
    matches: set[int] = set()
    with exported_tree(args.anchor, "bench/demo.py") as anchor:
        for _ in range(args.runs):
            for side, tree in ((anchor_cpu, anchor), (ours, REPO)):
                cpu, n = _run(tree)
                side.append(cpu)
                matches.add(n)
        if len(matches) != 1:
            raise SystemExit(f"bench/demo.py: the runs recorded different numbers of matches: {sorted(matches)}")
        if args.count:
            out["exact_suit_table_calls"] = {"ours": _count(REPO), "anchor": _count(anchor)}
    out.update({
        "matches": matches.pop(),
        "cpu_s": [round(x, 3) for x in ours],
        "anchor_cpu_s": [round(x, 3) for x in anchor_cpu],
        "cpu_ratio": round(statistics.median(ours) / statistics.median(anchor_cpu), 3),
        "pair_ratios": [round(a / b, 3) for a, b in zip(ours, anchor_cpu)],
        "load_after": round(os.getloadavg()[0], 2),
    })
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

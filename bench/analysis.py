"""Benchmark of the hand analysis in ``referee.game.analysis``: calls per second, printed as ONE JSON line.

Hands come from seeded shuffles of the 136 tiles (a fixed seed, so that runs compare): 17-tile hands for
``is_complete`` and ``shanten``, 16-tile hands for ``waits`` and ``useful_tiles``.  Random hands almost never win
and ``is_complete`` rejects most of them at once, so it is also timed on random complete hands
(``is_complete_winning_per_s``).  The caches start cold, as in a fresh bot process;
random hands give mostly cache misses, so this is a conservative figure for a bot, whose hands change one tile at
a time.  Run from the repository root: ``python bench/analysis.py [--n 20000] [--seed 1]``.

On a shared machine absolute rates say little: ``--anchor REV`` also times ``referee/game/analysis.py`` as it was at
git revision ``REV``, in the same run.  Every measurement then runs in a fresh process (cold caches, as in a new
bot), ours and the anchor's alternating ``--repeats`` times, and the JSON gives each side's rates (min and max) and
the ratio ours/anchor of each pair (min and max): ``python bench/analysis.py --anchor main~5 --repeats 3``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.anchor import anchor_module as load_anchor  # noqa: E402
from bench.machine import machine  # noqa: E402
from referee.game import analysis
from referee.game.tiles import ALL_TIDS, counts34


def hands(n: int, size: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    wall = list(ALL_TIDS)
    out: list[list[int]] = []
    for _ in range(n):
        rng.shuffle(wall)
        out.append(counts34(wall[:size]))
    return out


def winning_hands(n: int, seed: int) -> list[list[int]]:
    """Random complete 17-tile hands (five sets and a pair), so that ``is_complete`` is timed on its slow path."""
    rng = random.Random(seed)
    out: list[list[int]] = []
    while len(out) < n:
        c = [0] * 34
        for _ in range(5):
            j = rng.randrange(34 + 21)
            if j < 34:
                c[j] += 3
            else:
                lo = (j - 34) // 7 * 9 + (j - 34) % 7
                c[lo] += 1
                c[lo + 1] += 1
                c[lo + 2] += 1
        c[rng.randrange(34)] += 2
        if max(c) <= 4:
            out.append(c)
    return out


def rate(fn: Callable[[list[int]], object], items: list[list[int]]) -> float:
    """Calls per second of this process's CPU time: the work is single-threaded and never waits, so CPU time is
    what it costs, and on a shared machine it is far steadier than the wall clock (which also counts the time
    spent waiting for a CPU)."""
    start = time.process_time()
    for c in items:
        fn(c)
    elapsed = time.process_time() - start
    return len(items) / elapsed if elapsed > 0 else float("inf")


def anchor_module(rev: str) -> ModuleType:
    """``referee/game/analysis.py`` as it was at git revision ``rev``, loaded beside ours (same package)."""
    return load_anchor(rev, "referee/game/analysis.py", "bench/analysis.py")


def measure(module: Any, n: int, seed: int) -> dict[str, int]:
    """Calls per second of each function on fresh hands (cold caches, then a warm second pass of two)."""
    h17 = hands(n, 17, seed)
    h16 = hands(n, 16, seed + 1)
    wins = winning_hands(n, seed + 2)
    result = {
        "is_complete_per_s": round(rate(module.is_complete, h17)),
        "is_complete_winning_per_s": round(rate(module.is_complete, wins)),
        "waits_per_s": round(rate(module.waits, h16)),
        "shanten_per_s": round(rate(module.shanten, h17)),
        "shanten16_per_s": round(rate(module.shanten, h16)),
        "useful_tiles_per_s": round(rate(module.useful_tiles, h16)),
    }
    # a second pass over the same hands: the caches are warm, as in a bot's later turns
    result["shanten_warm_per_s"] = round(rate(module.shanten, h17))
    result["is_complete_warm_per_s"] = round(rate(module.is_complete, h17))
    return result


def child(which: str, n: int, seed: int) -> dict[str, int]:
    """One measurement in a fresh process: ``ours`` or ``anchor:REV``."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--n", str(n), "--seed", str(seed), "--child", which]
    out = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=True, env={**os.environ})
    rates: dict[str, int] = json.loads(out.stdout)
    return rates


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20000, help="hands per function (default 20000)")
    parser.add_argument("--seed", type=int, default=1, help="shuffle seed (default 1)")
    parser.add_argument("--anchor", metavar="REV", help="also time analysis.py at git revision REV, alternating")
    parser.add_argument("--repeats", type=int, default=3, help="pairs of fresh processes with --anchor (default 3)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.n < 1 or args.repeats < 1:
        parser.error("--n and --repeats must be at least 1")
    if args.child:
        module = analysis if args.child == "ours" else anchor_module(args.child.split(":", 1)[1])
        print(json.dumps(measure(module, args.n, args.seed)))
        return 0
    result: dict[str, Any] = {"bench": "analysis", "n": args.n, "seed": args.seed}
    if args.anchor is None:
        result.update(measure(analysis, args.n, args.seed))
    else:
        anchor_module(args.anchor)  # fail early on a bad revision
        ours: list[dict[str, int]] = []
        theirs: list[dict[str, int]] = []
        for _ in range(args.repeats):
            ours.append(child("ours", args.n, args.seed))
            theirs.append(child(f"anchor:{args.anchor}", args.n, args.seed))
        keys = list(ours[0])
        result["anchor"] = args.anchor
        result["repeats"] = args.repeats
        result["ours"] = {k: [min(r[k] for r in ours), max(r[k] for r in ours)] for k in keys}
        result["anchor_rates"] = {k: [min(r[k] for r in theirs), max(r[k] for r in theirs)] for k in keys}
        ratios = {k: [o[k] / t[k] for o, t in zip(ours, theirs)] for k in keys}
        result["ratio"] = {k: [round(min(v), 2), round(max(v), 2)] for k, v in ratios.items()}
    result["python"] = platform.python_version()
    result["machine"] = machine()
    result["loadavg"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark of the hand analysis in ``referee.game.analysis``: calls per second, printed as ONE JSON line.

Hands come from seeded shuffles of the 136 tiles (a fixed seed, so that runs compare): 17-tile hands for
``is_complete`` and ``shanten``, 16-tile hands for ``waits`` and ``useful_tiles``.  Random hands almost never win
and ``is_complete`` rejects most of them at once, so it is also timed on random complete hands
(``is_complete_winning_per_s``).  The caches start cold, as in a fresh bot process;
random hands give mostly cache misses, so this is a conservative figure for a bot, whose hands change one tile at
a time.  Run from the repository root: ``python bench/analysis.py [--n 20000] [--seed 1]``.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

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
    start = time.perf_counter()
    for c in items:
        fn(c)
    elapsed = time.perf_counter() - start
    return len(items) / elapsed if elapsed > 0 else float("inf")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20000, help="hands per function (default 20000)")
    parser.add_argument("--seed", type=int, default=1, help="shuffle seed (default 1)")
    args = parser.parse_args(argv)
    h17 = hands(args.n, 17, args.seed)
    h16 = hands(args.n, 16, args.seed + 1)
    wins = winning_hands(args.n, args.seed + 2)
    result = {
        "bench": "analysis",
        "n": args.n,
        "seed": args.seed,
        "is_complete_per_s": round(rate(analysis.is_complete, h17)),
        "is_complete_winning_per_s": round(rate(analysis.is_complete, wins)),
        "waits_per_s": round(rate(analysis.waits, h16)),
        "shanten_per_s": round(rate(analysis.shanten, h17)),
        "shanten16_per_s": round(rate(analysis.shanten, h16)),
        "useful_tiles_per_s": round(rate(analysis.useful_tiles, h16)),
        "python": platform.python_version(),
        "machine": machine(),
    }
    # a second pass over the same hands: the caches are warm, as in a bot's later turns
    result["shanten_warm_per_s"] = round(rate(analysis.shanten, h17))
    result["is_complete_warm_per_s"] = round(rate(analysis.is_complete, h17))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark of the hand engine in ``referee.game.engine``: whole hands per second, printed as ONE JSON line.

Plays ``--hands`` hands in-process, each from the seeded wall ``generate_wall(seed, h)`` with the dealer
rotating, every question answered uniformly at random from its legal answers (``random.Random(seed)``).  The
time covers generating the wall, the deal, every question and answer, and scoring the wins: everything a match
costs except the seats.  Random play rarely wins, so most hands run to the dead wall: the longest hands there
are.
Run from the repository root: ``python bench/engine.py [--hands 2000] [--seed 1] [--flowers] [--profile]``.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import platform
import pstats
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.machine import machine  # noqa: E402
from referee.game.engine import Hand  # noqa: E402
from referee.game.rules import Ruleset  # noqa: E402
from referee.game.wall import generate_wall  # noqa: E402


def play(hands: int, seed: int, rules: Ruleset) -> tuple[Counter[str], int]:
    """Play ``hands`` hands: the outcome counts (``draw`` or the way the hand was won) and the questions."""
    rng = random.Random(seed)
    rand = rng.random
    outcomes: Counter[str] = Counter()
    questions = 0
    for h in range(hands):
        hand = Hand(generate_wall(seed, h, rules), rules, dealer=h % 4 + 1, check=False)
        hand.start()
        apply = hand.apply
        while hand.result is None:
            legal = hand.question.legal  # type: ignore[union-attr]
            apply(legal[int(rand() * len(legal))])
            questions += 1
        result = hand.result
        outcomes[result.wins[0].how if result.wins else "draw"] += 1
        if len(result.wins) > 1:
            outcomes["several_winners"] += 1
    return outcomes, questions


def top_entries(profile: cProfile.Profile, n: int = 10) -> list[dict[str, Any]]:
    stats = pstats.Stats(profile)
    rows = []
    entries = stats.stats.items()  # type: ignore[attr-defined]
    for (filename, line, func), (_cc, _nc, tottime, _cumtime, _callers) in entries:
        where = f"{Path(filename).name}:{line}" if line else filename
        rows.append({"function": f"{where}({func})", "tottime": round(tottime, 4)})
    rows.sort(key=lambda r: -r["tottime"])
    return rows[:n]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000, help="hands to play (default 2000)")
    parser.add_argument("--seed", type=int, default=1, help="wall and choice seed (default 1)")
    parser.add_argument("--flowers", action="store_true", help="play with the eight flowers")
    parser.add_argument("--profile", action="store_true", help="add the top 10 cProfile entries by tottime")
    args = parser.parse_args(argv)
    rules = Ruleset(flowers=args.flowers)
    profile = cProfile.Profile() if args.profile else None
    start = time.perf_counter()
    if profile is not None:
        profile.enable()
    outcomes, questions = play(args.hands, args.seed, rules)
    if profile is not None:
        profile.disable()
    seconds = time.perf_counter() - start
    result: dict[str, Any] = {
        "bench": "engine",
        "hands": args.hands,
        "seed": args.seed,
        "flowers": args.flowers,
        "seconds": round(seconds, 3),
        "hands_per_second": round(args.hands / seconds, 1) if seconds > 0 else None,
        "questions_per_second": round(questions / seconds) if seconds > 0 else None,
        "outcomes": dict(sorted(outcomes.items())),
        "python": platform.python_version(),
        "machine": machine(),
    }
    if profile is not None:
        result["profiled"] = True  # profiling slows the run: compare rates only between unprofiled runs
        result["profile"] = top_entries(profile)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

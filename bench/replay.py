"""Benchmark of ``mjref replay``: hands verified per second, printed as ONE JSON line.

Logs are generated first, in a temporary directory, by matches of built-in bots (``random`` by default, so that
the hands are those of the engine's random-play benchmark; ``--bots greedy`` for hands as the default dummy plays
them); only the verification (``referee.replay.replay_log``: reading, re-driving the engine, checking every
record) is timed, best of ``--repeat`` runs.  For a ratio on the same machine in the same run, the engine's own
random-play rate is measured too (``bench/engine.py``'s ``play``: random legal answers, default rules, seeded
walls, wall generation included): the acceptance bar is that replay runs at least half as fast as random play.

Run from the repository root: ``python bench/replay.py [--matches 8] [--hands 16] [--repeat 3] [--bots random]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.machine import machine  # noqa: E402
from referee.game.engine import Hand
from referee.game.rules import make_ruleset
from referee.game.wall import generate_wall
from referee.match import play_match, resolve_bots
from referee.replay import replay_log


def engine_random_rate(hands: int, seed: int) -> float:
    """Hands per second of the bare engine answering every question with a random legal answer: the ``play``
    of ``bench/engine.py`` when it is there (the engine's own benchmark), else the same loop written here."""
    rules = make_ruleset({})
    engine_bench = Path(__file__).resolve().parent / "engine.py"
    if engine_bench.is_file():
        spec = importlib.util.spec_from_file_location("_mjref_bench_engine", engine_bench)
        if spec is not None and spec.loader is not None:
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            if hasattr(module, "play"):
                started = time.perf_counter()
                module.play(hands, seed, rules)
                return hands / (time.perf_counter() - started)
    rng = random.Random(seed)
    walls = [generate_wall(seed, h, rules) for h in range(hands)]
    started = time.perf_counter()
    for wall in walls:
        hand = Hand(wall, rules, check=False)
        hand.start()
        while not hand.is_over:
            q = hand.question
            assert q is not None
            hand.apply(q.legal[rng.randrange(len(q.legal))])
    return hands / (time.perf_counter() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=8)
    parser.add_argument("--hands", type=int, default=16, help="hands per match")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--bots", default="random", help="built-in bot for all four seats (default random)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mjref-bench-replay-") as tmp:
        logs = []
        for m in range(args.matches):
            rules = make_ruleset({"hands": args.hands, "flowers": m % 4 == 3, "multiple_winners": m % 3 == 2})
            path = Path(tmp) / f"m{m}.jsonl"
            play_match(resolve_bots([args.bots] * 4), seed=args.seed + m, rules=rules, log_path=path)
            logs.append(path)
        best = float("inf")
        hands = records = 0
        for _ in range(args.repeat):
            started = time.perf_counter()
            hands = records = 0
            for path in logs:
                report = replay_log(path)
                if not report.ok:
                    raise SystemExit(f"bench: {path} did not verify: {report.divergence}")
                hands += len(report.hands)
                records += report.records
            best = min(best, time.perf_counter() - started)
        engine = max(engine_random_rate(max(500, args.matches * args.hands), args.seed) for _ in range(args.repeat))
    rate = hands / best
    print(json.dumps({
        "bench": "replay", "bots": args.bots, "matches": args.matches, "hands": hands, "records": records,
        "seconds": round(best, 4), "hands_per_s": round(rate, 1), "records_per_s": round(records / best),
        "engine_random_hands_per_s": round(engine, 1), "ratio_to_engine_random": round(rate / engine, 3),
        "python": platform.python_version(), "machine": machine(),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())

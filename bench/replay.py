"""Benchmark of ``mjref replay``: hands verified per second, printed as ONE JSON line.

Logs are generated first, in a temporary directory, by matches of built-in bots (``random`` by default, so that
the hands are those of the engine's random-play benchmark; ``--bots greedy`` for hands as the default dummy plays
them); only the verification (``referee.replay.replay_log``: reading, re-driving the engine, checking every
record) is timed, best of ``--repeat`` runs.  For a ratio on the same machine in the same run, the engine's own
random-play rate is measured too (``bench/engine.py``'s ``play``: random legal answers, default rules, seeded
walls, wall generation included): the acceptance bar is that replay runs at least half as fast as random play.

Run from the repository root: ``python bench/replay.py [--matches 8] [--hands 16] [--repeat 3] [--bots random]``.

On a shared machine wall time says little: ``--anchor REV`` times ``referee/replay.py`` as it was at git revision
REV beside ours instead, in CPU time, in fresh processes alternating ``--repeats`` times (each replays the same
logs, best of ``--repeat``), and gives each side's rate and the ratio ours/anchor of each pair:
``python bench/replay.py --anchor main~3 --repeats 5``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.anchor import anchor_module as load_anchor  # noqa: E402
from bench.machine import machine  # noqa: E402
from referee import replay
from referee.game.engine import Hand
from referee.game.taiwan16.rules import make_ruleset
from referee.game.wall import generate_wall
from referee.match import play_match, resolve_bots
from referee.replay import replay_log

REPO = Path(__file__).resolve().parent.parent


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


def anchor_module(rev: str) -> ModuleType:
    """``referee/replay.py`` as it was at git revision ``rev``, loaded beside ours."""
    return load_anchor(rev, "referee/replay.py", "bench/replay.py")


def write_logs(folder: Path, args: argparse.Namespace) -> list[Path]:
    logs = []
    for m in range(args.matches):
        rules = make_ruleset({"hands": args.hands, "flowers": m % 4 == 3, "multiple_winners": m % 3 == 2})
        path = folder / f"m{m}.jsonl"
        play_match(resolve_bots([args.bots] * 4), seed=args.seed + m, rules=rules, log_path=path)
        logs.append(path)
    return logs


def cpu_rate(module: Any, logs: list[Path], repeat: int) -> float:
    """Hands verified per CPU second by ``module.replay_log``, best of ``repeat`` passes over ``logs``."""
    best = float("inf")
    hands = 0
    for _ in range(repeat):
        started = time.process_time()
        hands = sum(len(module.replay_log(path).hands) for path in logs)
        best = min(best, time.process_time() - started)
    return hands / best


def child(which: str, args: argparse.Namespace) -> float:
    """One measurement in a fresh process: ``ours`` or ``anchor:REV``."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--matches", str(args.matches), "--hands", str(args.hands),
           "--repeat", str(args.repeat), "--bots", args.bots, "--seed", str(args.seed), "--child", which]
    out = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=True, env={**os.environ})
    return float(json.loads(out.stdout)["hands_per_cpu_s"])


def compare(args: argparse.Namespace) -> int:
    anchor_module(args.anchor)  # fail early on a bad revision
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(args.repeats):
        ours.append(child("ours", args))
        theirs.append(child(f"anchor:{args.anchor}", args))
    ratios = [o / t for o, t in zip(ours, theirs, strict=True)]
    print(json.dumps({
        "bench": "replay", "anchor": args.anchor, "bots": args.bots, "matches": args.matches, "hands": args.hands,
        "repeats": args.repeats, "ours_hands_per_cpu_s": [round(x, 1) for x in ours],
        "anchor_hands_per_cpu_s": [round(x, 1) for x in theirs],
        "ratio": [round(min(ratios), 3), round(sorted(ratios)[len(ratios) // 2], 3), round(max(ratios), 3)],
        "python": platform.python_version(), "machine": machine(), "loadavg": [round(x, 2) for x in os.getloadavg()],
    }))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=8)
    parser.add_argument("--hands", type=int, default=16, help="hands per match")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--bots", default="random", help="built-in bot for all four seats (default random)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--anchor", metavar="REV", help="time replay.py at git revision REV beside ours, in CPU time")
    parser.add_argument("--repeats", type=int, default=3, help="pairs of fresh processes with --anchor (default 3)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.anchor is not None:
        return compare(args)
    with tempfile.TemporaryDirectory(prefix="mjref-bench-replay-") as tmp:
        logs = write_logs(Path(tmp), args)
        if args.child:
            module = replay if args.child == "ours" else anchor_module(args.child.split(":", 1)[1])
            for path in logs:
                module.replay_log(path)  # warm
            print(json.dumps({"hands_per_cpu_s": cpu_rate(module, logs, args.repeat)}))
            return 0
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

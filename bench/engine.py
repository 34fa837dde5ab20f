"""Benchmark of the hand engine in ``referee.game.engine``: whole hands per second, printed as ONE JSON line.

Plays ``--hands`` hands in-process, each from the seeded wall ``generate_wall(seed, h)`` with the dealer
rotating, every question answered uniformly at random from its legal answers (``random.Random(seed)``).  The
time covers generating the wall, the deal, every question and answer, and scoring the wins: everything a match
costs except the seats.  Random play rarely wins, so most hands run to the dead wall: the longest hands there
are.

``--greedy`` adds greedy-vs-greedy play (``--greedy-hands``, default 200): four ``greedy`` policies, each fed only
its own seat's events through a ``SeatView``, as in-process seats are.  Random play wins about 4 hands in 2,000,
so it barely exercises scoring; greedy wins most hands.

``--vs-rlcard`` measures RLCard's Mahjong environment (``rlcard.make("mahjong")``, four ``RandomAgent``s,
``env.run``) in the same run, between two runs of ours, and reports the ratio of the rates, by the wall clock
(``vs_rlcard``) and in CPU time (``vs_rlcard_cpu``, steadier when other work shares the machine).  Both sides
include their random policy: ours picks ``legal[int(random() * len(legal))]``, RLCard's ``RandomAgent`` its own.
RLCard is not a dependency of mjref: the benchmark installs it with pip into a throwaway virtual environment
(deleted afterwards), or uses ``--rlcard-python PATH``, an interpreter that already has it.  If it cannot be
installed (no network, no wheel), the JSON says why under ``rlcard.error`` and the exit status is 1.
``--classical`` also plays the same number of hands under Chinese Classical (``referee.game.classical``, mj-server
1.11's default options: flowers, a 14-tile dead wall, every player scored at a win), alternating with Taiwan
runs (``--repeats`` pairs), and reports ``classical.vs_taiwan_cpu``: classical's hands per CPU second over
Taiwan's (the issue's target: at least 0.8); with ``--greedy`` also greedy-vs-greedy classical hands
(``classical.greedy``), where most hands are won and every player is scored.
``--anchor REV`` also times random play with the engine as it was at git revision ``REV`` (exported with ``git
archive``), in fresh processes alternating with ours ``--repeats`` times, in CPU time (steady on a shared machine),
and gives the ratio ours/anchor of each pair: ``python bench/engine.py --anchor main --repeats 3 --hands 400``.
With ``--classical`` as well, each round also times classical random play, ours and the anchor's
(``anchor.classical``: the ratio ours/anchor, and classical over Taiwan for each side, in fresh processes).
Run from the repository root:
``python bench/engine.py [--hands 2000] [--seed 1] [--flowers] [--profile] [--greedy] [--vs-rlcard] [--anchor REV]``.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import platform
import pstats
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.anchor import exported_tree  # noqa: E402
from bench.machine import machine  # noqa: E402
from referee.game.classical.options import GameOptions  # noqa: E402
from referee.game.engine import Hand  # noqa: E402
from referee.game.family import family_of  # noqa: E402
from referee.game.taiwan16.rules import Ruleset  # noqa: E402
from referee.game.view import new_view  # noqa: E402
from referee.game.wall import generate_wall  # noqa: E402

# Run inside RLCard's interpreter: N hands of four random agents, one JSON line.
RLCARD_SCRIPT = """
import json, sys, time
import rlcard
from rlcard.agents import RandomAgent
hands, seed = int(sys.argv[1]), int(sys.argv[2])
env = rlcard.make("mahjong", config={"seed": seed})
env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
env.run(is_training=False)  # one hand to warm up
start, cpu = time.perf_counter(), time.process_time()
for _ in range(hands):
    env.run(is_training=False)
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({"version": rlcard.__version__, "hands": hands, "seconds": round(seconds, 3),
                  "hands_per_second": round(hands / seconds, 2), "cpu_seconds": round(cpu, 3),
                  "hands_per_cpu_second": round(hands / cpu, 2) if cpu > 0 else None}))
"""


# Run in a fresh process with a tree (ours or an exported revision) first on sys.path: random play as ``play`` does,
# timed in CPU time, one JSON line.  Only the engine's public surface, so that it runs on older revisions too.
CHILD_SCRIPT = """
import json, random, sys, time
sys.path.insert(0, sys.argv[1])
from referee.game.engine import Hand
try:
    from referee.game.taiwan16.rules import Ruleset
except ImportError:  # a revision from before Taiwan's rules moved into their family's folder
    from referee.game.rules import Ruleset
from referee.game.wall import generate_wall
hands, seed, flowers = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
rules = Ruleset(flowers=flowers)
extra = {}
if sys.argv[5:] == ["classical"]:  # mj-server's default options, as --classical plays them
    from referee.game.classical.options import GameOptions
    from referee.game.family import family_of
    rules = GameOptions()
    extra = {"family": family_of(rules)}
rand = random.Random(seed).random
start = time.process_time()
for h in range(hands):
    hand = Hand(generate_wall(seed, h, extra.get("family", rules)), rules, dealer=h % 4 + 1, check=False, **extra)
    hand.start()
    apply = hand.apply
    while hand.result is None:
        legal = hand.question.legal
        apply(legal[int(rand() * len(legal))])
cpu = time.process_time() - start
print(json.dumps({"hands_per_cpu_second": round(hands / cpu, 1)}))
"""


def child_rate(tree: Path, hands: int, seed: int, flowers: bool, classical: bool = False) -> float:
    """Random play's hands per CPU second in a fresh process, the engine of ``tree`` (Taiwan's, or with
    ``classical`` Chinese Classical under mj-server's default options)."""
    cmd = [sys.executable, "-c", CHILD_SCRIPT, str(tree), str(hands), str(seed), "1" if flowers else "0",
           *(["classical"] if classical else [])]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=str(tree))
    rate: float = json.loads(out.stdout)["hands_per_cpu_second"]
    return rate


def compare_anchor(args: argparse.Namespace, result: dict[str, Any]) -> None:
    """Random play of ours and of revision ``args.anchor``, alternating in fresh processes, into ``result``; with
    ``--classical`` Chinese Classical's too, in the same rounds (``result["anchor"]["classical"]``)."""
    repo = Path(__file__).resolve().parent.parent
    families = [False, True] if args.classical else [False]
    ours: dict[bool, list[float]] = {c: [] for c in families}
    theirs: dict[bool, list[float]] = {c: [] for c in families}
    with exported_tree(args.anchor, "bench/engine.py") as tree:
        for _ in range(args.repeats):
            for c in families:
                ours[c].append(child_rate(repo, args.hands, args.seed, args.flowers, c))
                theirs[c].append(child_rate(tree, args.hands, args.seed, args.flowers, c))
    for c in families:
        ratios = [o / t for o, t in zip(ours[c], theirs[c])]
        figures = {
            "ours_hands_per_cpu_second": [min(ours[c]), max(ours[c])],
            "anchor_hands_per_cpu_second": [min(theirs[c]), max(theirs[c])],
            "ratio": [round(min(ratios), 3), round(max(ratios), 3)],
            "ratio_median": round(sorted(ratios)[len(ratios) // 2], 3),
        }
        if not c:
            result["anchor"] = {"rev": args.anchor, "repeats": args.repeats, **figures}
        else:
            # classical over Taiwan in each round, ours and the anchor's (the ratio, in fresh processes)
            vs = [x / t for x, t in zip(ours[True], ours[False])]
            vs_anchor = [x / t for x, t in zip(theirs[True], theirs[False])]
            result["anchor"]["classical"] = {
                **figures,
                "vs_taiwan_cpu_median": round(sorted(vs)[len(vs) // 2], 3),
                "anchor_vs_taiwan_cpu_median": round(sorted(vs_anchor)[len(vs_anchor) // 2], 3),
            }


def play(hands: int, seed: int, rules: Ruleset | GameOptions) -> tuple[Counter[str], int]:
    """Play ``hands`` hands: the outcome counts (``draw`` or the way the hand was won) and the questions."""
    rng = random.Random(seed)
    rand = rng.random
    outcomes: Counter[str] = Counter()
    questions = 0
    family = family_of(rules)
    for h in range(hands):
        hand = Hand(generate_wall(seed, h, family), rules, dealer=h % 4 + 1, check=False, family=family)
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


def play_greedy(hands: int, seed: int, rules: Ruleset | GameOptions) -> tuple[Counter[str], int]:
    """Play ``hands`` hands among four greedy policies, each deciding from its own seat's view."""
    from bots.greedy import Greedy

    outcomes: Counter[str] = Counter()
    questions = 0
    family = family_of(rules)
    for h in range(hands):
        hand = Hand(generate_wall(seed, h, family), rules, dealer=h % 4 + 1, check=False, family=family)
        views = {p: new_view(p, flowers=family.flowers, dead_wall=family.dead_wall_start(),
                             gong_from_previous_player=family.gong_from_previous_player) for p in (1, 2, 3, 4)}
        policies = {p: Greedy() for p in (1, 2, 3, 4)}
        events = hand.start()
        while True:
            for e in events:
                for p in e.audience:
                    views[p].apply(e)
            q = hand.question
            if q is None:
                break
            events = hand.apply(policies[q.seat].decide(views[q.seat], q.ask, q.legal))
            questions += 1
        result = hand.result
        assert result is not None
        outcomes[result.wins[0].how if result.wins else "draw"] += 1
    return outcomes, questions


def rlcard_python(workdir: str) -> str:
    """A throwaway virtual environment in ``workdir`` with RLCard installed from the package index; its python.

    Raises ``RuntimeError`` with the reason (pip's last line) if it cannot be made."""
    venv = os.path.join(workdir, "venv")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True, capture_output=True)
    python = os.path.join(venv, "bin", "python")
    pip = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "rlcard"],
        capture_output=True,
        text=True,
        check=False,
    )
    if pip.returncode != 0:
        lines = [x for x in (pip.stderr + pip.stdout).splitlines() if x.strip() and not x.startswith("WARNING")]
        raise RuntimeError(f"pip install rlcard failed: {lines[-1] if lines else f'exit status {pip.returncode}'}")
    return python


def run_rlcard(python: str, hands: int, seed: int) -> dict[str, Any]:
    proc = subprocess.run(
        [python, "-c", RLCARD_SCRIPT, str(hands), str(seed)], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        raise RuntimeError(f"RLCard's run failed: {lines[-1] if lines else f'exit status {proc.returncode}'}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def rate(hands: int, seconds: float) -> float | None:
    return round(hands / seconds, 1) if seconds > 0 else None


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
    parser.add_argument("--greedy", action="store_true", help="also time greedy-vs-greedy play")
    parser.add_argument("--greedy-hands", type=int, default=200, help="greedy hands (default 200)")
    parser.add_argument("--vs-rlcard", action="store_true", help="also time RLCard's Mahjong environment")
    parser.add_argument("--rlcard-hands", type=int, default=100, help="RLCard hands (default 100)")
    parser.add_argument("--rlcard-python", help="an interpreter that has rlcard (skips the throwaway install)")
    parser.add_argument("--classical", action="store_true", help="also time Chinese Classical random play")
    parser.add_argument("--anchor", metavar="REV", help="also time random play at git revision REV, alternating")
    parser.add_argument("--repeats", type=int, default=3, help="pairs of fresh processes with --anchor (default 3)")
    args = parser.parse_args(argv)
    for name in ("hands", "greedy_hands", "rlcard_hands", "repeats"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.rlcard_python and not os.access(args.rlcard_python, os.X_OK):
        parser.error(f"--rlcard-python {args.rlcard_python}: not an executable file")
    rules = Ruleset(flowers=args.flowers)
    profile = cProfile.Profile() if args.profile else None
    start, cpu = time.perf_counter(), time.process_time()
    if profile is not None:
        profile.enable()
    outcomes, questions = play(args.hands, args.seed, rules)
    if profile is not None:
        profile.disable()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    result: dict[str, Any] = {
        "bench": "engine",
        "hands": args.hands,
        "seed": args.seed,
        "flowers": args.flowers,
        "seconds": round(seconds, 3),
        "hands_per_second": round(args.hands / seconds, 1) if seconds > 0 else None,
        "hands_per_cpu_second": rate(args.hands, cpu),
        "questions_per_second": round(questions / seconds) if seconds > 0 else None,
        "outcomes": dict(sorted(outcomes.items())),
        "python": platform.python_version(),
        "machine": machine(),
    }
    if profile is not None:
        result["profiled"] = True  # profiling slows the run: compare rates only between unprofiled runs
        result["profile"] = top_entries(profile)
    if args.greedy:
        start, cpu = time.perf_counter(), time.process_time()
        g_outcomes, g_questions = play_greedy(args.greedy_hands, args.seed, rules)
        g_seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        result["greedy"] = {
            "hands": args.greedy_hands,
            "seconds": round(g_seconds, 3),
            "hands_per_second": rate(args.greedy_hands, g_seconds),
            "hands_per_cpu_second": rate(args.greedy_hands, cpu),
            "questions_per_second": round(g_questions / g_seconds) if g_seconds > 0 else None,
            "outcomes": dict(sorted(g_outcomes.items())),
        }
    if args.classical:
        compare_classical(args, rules, result)
    if args.anchor:
        compare_anchor(args, result)
    status = 0
    if args.vs_rlcard:
        status = compare_rlcard(args, rules, result)
    result["loadavg"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(result))
    return status


def compare_classical(args: argparse.Namespace, rules: Ruleset, result: dict[str, Any]) -> None:
    """Classical random play and Taiwan's, alternating ``--repeats`` times in this process, into ``result``."""
    classical = GameOptions()
    ours: list[float] = []
    taiwan: list[float] = []
    outcomes: Counter[str] = Counter()
    for _ in range(args.repeats):
        cpu = time.process_time()
        outcomes, _questions = play(args.hands, args.seed, classical)
        ours.append(args.hands / (time.process_time() - cpu))
        cpu = time.process_time()
        play(args.hands, args.seed, rules)
        taiwan.append(args.hands / (time.process_time() - cpu))
    ratios = [c / t for c, t in zip(ours, taiwan)]
    result["classical"] = {
        "hands": args.hands,
        "repeats": args.repeats,
        "hands_per_cpu_second": [round(min(ours), 1), round(max(ours), 1)],
        "taiwan_hands_per_cpu_second": [round(min(taiwan), 1), round(max(taiwan), 1)],
        "vs_taiwan_cpu": [round(min(ratios), 3), round(max(ratios), 3)],
        "vs_taiwan_cpu_median": round(sorted(ratios)[len(ratios) // 2], 3),  # (pairs alternate: load hits both)
        "outcomes": dict(sorted(outcomes.items())),
    }
    if args.greedy:
        cpu = time.process_time()
        g_outcomes, _ = play_greedy(args.greedy_hands, args.seed, classical)
        result["classical"]["greedy"] = {"hands": args.greedy_hands,
                                         "hands_per_cpu_second": rate(args.greedy_hands, time.process_time() - cpu),
                                         "outcomes": dict(sorted(g_outcomes.items()))}


def compare_rlcard(args: argparse.Namespace, rules: Ruleset, result: dict[str, Any]) -> int:
    """RLCard's rate between two runs of ours (the same hands again), into ``result["rlcard"]``; 1 if it failed."""
    with tempfile.TemporaryDirectory(prefix="mjref-rlcard-") as workdir:
        try:
            python = args.rlcard_python or rlcard_python(workdir)
            rl = run_rlcard(python, args.rlcard_hands, args.seed)
        except (RuntimeError, OSError, subprocess.CalledProcessError) as exc:
            result["rlcard"] = {"error": str(exc)}
            print(f"bench/engine.py --vs-rlcard: no RLCard figure: {exc}", file=sys.stderr)
            return 1
    start, cpu = time.perf_counter(), time.process_time()
    play(args.hands, args.seed, rules)
    again = rate(args.hands, time.perf_counter() - start)
    again_cpu = rate(args.hands, time.process_time() - cpu)
    result["hands_per_second_after_rlcard"] = again
    result["hands_per_cpu_second_after_rlcard"] = again_cpu
    result["rlcard"] = rl
    result["vs_rlcard"] = _ratio((result["hands_per_second"], again), rl.get("hands_per_second"))
    # The same in CPU time: on a shared machine the wall clock of either side counts the other sessions' work
    result["vs_rlcard_cpu"] = _ratio((result["hands_per_cpu_second"], again_cpu), rl.get("hands_per_cpu_second"))
    return 0


def _ratio(ours: tuple[float | None, ...], theirs: float | None) -> float | None:
    """The mean of our rates over RLCard's, to one decimal."""
    known = [r for r in ours if r is not None]
    return round(sum(known) / len(known) / theirs, 1) if known and theirs else None


if __name__ == "__main__":
    sys.exit(main())

"""The timing channel, and what ``pace`` costs: how well a bot can tell from its own clock whether the other seats
were asked claim questions between its answer and its next question, and the match's speed, at each pace.

The referee asks a claim question (``/ask pong``, ``eat``, ``gong``, ``hu``) only when the claim is legal, so the
wait between a bot's answer and its next question is longer when another seat was asked one, and says something
about the other hands. Here seat 1 is a spy that notes that wait before each question; seats 2-4 are bots that think
``--think`` seconds per answer (20 ms by default, as the red team's). From the log, each wait is labelled with
whether any other seat answered a claim question inside it; the figure is the AUC of the wait as a test of that
label (0.5: the wait says nothing; 1.0: it says everything), with the seconds per match beside it. Only the waits
after the spy's own throws are scored: the claims on its tile are asked in them. The ruleset's ``pace`` holds each
turn's question until that long after the previous turn's answer, claims in between asked at once: a pace above the
time the claims take makes the wait the pace plus the next player's own thinking. The bots are
``tests/bots/timing.py``. Prints one JSON object.

    python bench/timing.py [--paces 0,0.1,0.2] [--hands 8] [--think 0.02]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.machine import machine  # noqa: E402
from referee.game.taiwan16.rules import make_ruleset  # noqa: E402
from referee.log import open_log  # noqa: E402
from referee.match import play_match  # noqa: E402
from wrappers.spec import BotSpec  # noqa: E402

BOT = REPO / "tests" / "bots" / "timing.py"  # the spy and the thinkers

CLAIMS = ("pong", "eat", "gong", "hu")


def _auc(positive: list[float], negative: list[float]) -> float | None:
    """Mann-Whitney: the chance that a wait with the label exceeds one without (ties count half)."""
    if not positive or not negative:
        return None
    both = sorted([(x, 1) for x in positive] + [(x, 0) for x in negative])
    rank_sum = 0.0
    i = 0
    while i < len(both):
        j = i
        while j < len(both) and both[j][0] == both[i][0]:
            j += 1
        mid = (i + j + 1) / 2  # the average 1-based rank of the tie
        rank_sum += mid * sum(1 for k in range(i, j) if both[k][1] == 1)
        i = j
    n1, n0 = len(positive), len(negative)
    return (rank_sum - n1 * (n1 + 1) / 2) / (n1 * n0)


def _labels(log: Path) -> list[bool]:
    """For each of seat 1's answers after its first in a hand: did another seat answer a claim question since
    seat 1's previous answer?"""
    out: list[bool] = []
    claim = False
    hand = None
    seen = False
    for _, record in open_log(log).records():
        if getattr(record, "type", None) != "answer":
            continue
        if record.hand != hand:
            hand, seen, claim = record.hand, False, False
        if record.seat == 1:
            if seen:
                out.append(claim)
            seen, claim = True, False
        elif record.ask in CLAIMS:
            claim = True
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--paces", default="0,0.1")
    ap.add_argument("--hands", type=int, default=8)
    ap.add_argument("--think", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    out: dict[str, object] = {"machine": machine(), "hands": args.hands, "think_s": args.think, "paces": {}}
    with tempfile.TemporaryDirectory(prefix="mjref-timing-") as tmp:
        bot = BOT
        for pace in (float(p) for p in args.paces.split(",")):
            specs = [BotSpec(name="spy", cmd=(sys.executable, str(bot), "spy", "0"))]
            specs += [BotSpec(name=f"t{i}", cmd=(sys.executable, str(bot), "think", str(args.think)))
                      for i in (2, 3, 4)]
            log = Path(tmp, f"pace-{pace}.jsonl")
            err = Path(tmp, f"err-{pace}")
            started = time.perf_counter()
            result = play_match(specs, seed=args.seed, rules=make_ruleset({"hands": args.hands, "pace": pace}),
                                log_path=log, stderr_dir=err)
            seconds = time.perf_counter() - started
            if result.faults:
                raise SystemExit(f"bench/timing.py: faults at pace {pace}: {result.faults[:3]}")
            text = next(err.glob("seat1-*.stderr")).read_text()
            marks = [line.split() for line in text.splitlines() if line.startswith("GAP ")]
            gaps = [float(m[1]) for m in marks]
            labels = _labels(log)
            if len(gaps) != len(labels):
                raise SystemExit(f"bench/timing.py: {len(gaps)} waits against {len(labels)} answers")
            # After its own throw: the claims on its tile happen in this wait (after a claim question of its own the
            # wait holds the next turn's question, which no pace changes).
            after_throw = [(g, lab) for g, lab, m in zip(gaps, labels, marks) if m[2] == "throw"]
            pos = [g for g, lab in after_throw if lab]
            neg = [g for g, lab in after_throw if not lab]
            auc = _auc(pos, neg)
            out["paces"][str(pace)] = {  # type: ignore[index]
                "auc": None if auc is None else round(auc, 3), "waits": len(gaps), "with_claims": len(pos),
                "seconds_per_match": round(seconds, 2), "seconds_per_hand": round(seconds / args.hands, 3)}
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""A bot that plays like ``greedy`` but breaks one protocol situation, named by its MODE.

Used by ``tests/test_check.py``: ``python tests/bots/checkbots/checkbot.py MODE``.  Each mode misbehaves only in
the situation one ``mjref check`` scenario is about, so that the test can see that scenario (and only the
scenarios that meet the same situation) fail.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from bots.greedy import Greedy
from referee.game.types import Eat, Event, Exit, Gong, Mo, Pong
from referee.game.view import SeatView, new_view
from wrappers.codec import Ask, Start, format_answer, parse_server_line

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"


def out(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def not_held(view: SeatView, n: int) -> list[int]:
    return [t for t in range(110, 480) if t % 10 < 4 and t // 10 % 10 != 0 and t not in view.hand][:n]


def answer(view: SeatView, ask: str, last: Event | None, policy: Greedy) -> str:
    legal = view.legal(ask)
    me = view.position
    good = format_answer(policy.decide(view, ask, legal))
    claims = [a for a in legal if a.kind != "pass"]
    if ask == "throw":
        if MODE == "pass_throw_after_mo" and isinstance(last, Mo):
            return "/pass"
        if MODE == "bad_throw_after_eat" and isinstance(last, Eat) and last.seat == me:
            return f"/throw {not_held(view, 1)[0]}"
        if MODE == "bad_throw_after_pong" and isinstance(last, Pong) and last.seat == me:
            return "/throw"
        return good
    if ask == "eat":
        if MODE == "eat_wrong":
            a, b = not_held(view, 2)
            return f"/eat {a} {b}"
        if MODE == "eat3_crash" and len(claims) == 3:
            sys.exit(1)
    if ask == "pong" and MODE == "pong_as_eat":
        return "/eat " + " ".join(map(str, sorted(view.hand)[:2]))
    if ask == "gong":
        modes = {a.mode for a in claims}
        if MODE == "gong_melded_wrong" and view.claim_tile is not None:
            return "/gong 4 " + " ".join(map(str, claims[0].tiles[:2]))
        if MODE == "gong_concealed_mode1" and view.claim_tile is None and 0 in modes:
            return f"/gong 1 {claims[0].tiles[0]}"
        if MODE == "gong_promoted_mode0" and view.claim_tile is None and 1 in modes:
            return "/gong 0 " + " ".join(map(str, not_held(view, 4)))
    if ask == "hu":
        if MODE == "hu_self_slow" and view.claim_tile is None:
            time.sleep(3)
        if MODE == "hu_throw_args" and view.claim_tile is not None and not isinstance(last, Gong):
            return "/hu 999"
        if MODE == "hu_robbed_throw" and isinstance(last, Gong) and last.mode == 1:
            return f"/throw {min(view.hand)}"
    return good


def main() -> int:
    policy = Greedy()
    view = new_view(1)
    last: Event | None = None
    for raw in sys.stdin:
        msg = parse_server_line(raw.rstrip("\n"), seat=view.position)
        if isinstance(msg, Start):
            view = new_view(msg.position)
            policy.start_hand(0, 0, msg.position)
            if MODE == "chatty_start":
                out("hello from checkbot")
            continue
        if isinstance(msg, Ask):
            out(answer(view, msg.kind, last, policy))
            continue
        view.apply(msg)
        last = msg
        if isinstance(msg, Exit):
            if MODE == "no_exit":  # neither at /exit nor at the end of its input (a match closes it after /exit)
                time.sleep(60)
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())

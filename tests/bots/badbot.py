#!/usr/bin/env python3
"""A bot that plays like ``drawdiscard`` until it misbehaves in the way its MODE names.

Used by the fault tests: ``python tests/bots/badbot.py MODE [MARKER]``.  MARKER is an unused argument that lets a
test find every process of this bot in /proc afterwards.  Every start writes ``badbot MODE: started`` to stderr, so
that a test can count from the seat's stderr file how often the referee started the bot.  The misbehaviour happens
once per process, at the first question of the kind the mode targets (so a per-hand bot misbehaves in every hand,
as a real broken bot would).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from referee.game.types import PASS, Event  # noqa: E402
from referee.game.view import SeatView, new_view  # noqa: E402
from wrappers.codec import Ask, Start, format_answer, parse_server_line  # noqa: E402

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"


def out(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def good_answer(view: SeatView, ask: str) -> str:
    legal = view.legal(ask)
    if ask == "hu":
        return "/hu"
    if ask == "throw":
        if view.last_draw is not None and view.last_draw in view.hand:
            return f"/throw {view.last_draw}"
        return format_answer(legal[-1])
    return format_answer(PASS)


def main() -> int:
    sys.stderr.write(f"badbot {MODE}: started\n")  # a test counts the starts in the seat's stderr file
    sys.stderr.flush()
    if MODE == "crash_start":
        sys.exit(3)
    if MODE == "ignore_sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    view = new_view(1)
    questions = 0
    for raw in sys.stdin:
        msg = parse_server_line(raw.rstrip("\n"), seat=view.position)
        if isinstance(msg, Start):
            view = new_view(msg.position)
            continue
        if isinstance(msg, Event):
            view.apply(msg)
            if MODE == "exit_after_initcard" and msg.kind == "init_card":
                sys.exit(0)
            if msg.kind == "exit":
                return 0
            continue
        assert isinstance(msg, Ask)
        questions += 1
        ask = msg.kind
        if MODE == "crash_mid" and questions >= 3:
            os._exit(1)
        if MODE == "crash_tenth" and questions == 1 and sum(view.hand) % 10 == 0:
            os._exit(1)  # about one hand in ten, decided by the dealt tiles (the same deal, the same crash)
        if MODE in ("hang", "ignore_sigterm") and ask == "throw":
            time.sleep(3600)
        if MODE == "slow_first" and questions == 1:  # one late answer (BADBOT_DELAY s), then at once
            time.sleep(float(os.environ.get("BADBOT_DELAY", "1.5")))
        if MODE == "slow" and ask == "throw":
            time.sleep(float(os.environ.get("BADBOT_DELAY", "1.5")))
        if MODE == "garbage" and ask == "throw":
            out("hello, referee")
            continue
        if MODE == "flood" and ask == "throw":
            chunk = "x" * 65536
            for _ in range(160):  # 10 MB, no newline
                sys.stdout.write(chunk)
            sys.stdout.flush()
            time.sleep(3600)
        if MODE == "stderr_flood":
            sys.stderr.write("e" * (4 << 20))
            sys.stderr.flush()
        if MODE == "bad_throw" and ask == "throw":
            missing = next(t for t in range(110, 480) if t % 10 < 4 and t // 10 % 10 != 0 and t not in view.hand)
            out(f"/throw {missing}")
            continue
        if MODE == "bad_claim" and ask in ("pong", "eat"):
            missing = [t for t in range(110, 480) if t % 10 < 4 and t // 10 % 10 != 0 and t not in view.hand][:2]
            out(f"/{ask} {missing[0]} {missing[1]}")
            continue
        if MODE == "false_hu" and ask == "throw":
            out("/hu")
            continue
        if MODE == "close_stdout" and ask == "throw":
            sys.stdout.flush()
            os.close(1)
            time.sleep(3600)
        if MODE == "fork_child" and ask == "throw":
            if os.fork() == 0:  # the child keeps the pipes open and lives on
                time.sleep(3600)
                os._exit(0)
            os._exit(0)
        if MODE == "untidy":  # legal answers, not in the canonical form: claims tiles descending, odd case, a \r
            claims = [a for a in view.legal(ask) if a.kind in ("eat", "pong")]
            if claims:
                tiles = sorted(claims[0].tiles, reverse=True)
                out(f"/{claims[0].kind} {tiles[0]} {tiles[1]}")
                continue
            if ask == "throw":
                out(good_answer(view, ask).replace("/throw ", "/Throw  ") + "\r")
                continue
        if MODE == "unasked":  # answers, then says one more line nobody asked for
            out(good_answer(view, ask) + "\n/pass")
            continue
        out(good_answer(view, ask))
    return 0


if __name__ == "__main__":
    sys.exit(main())

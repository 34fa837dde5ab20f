#!/usr/bin/env python3
"""``drawdiscard`` that also writes every line it reads (``<  …``) and prints (``>  …``) to the file FILE.

Used by the transcript test: ``python tests/bots/checkbots/recorder.py FILE``; the file is appended to, so a
per-hand process adds one hand after another.  ``-`` writes to stderr (which the referee keeps per seat).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from bots.drawdiscard import DrawDiscard
from referee.game.types import Exit
from referee.game.view import new_view
from wrappers.codec import Ask, Start, format_answer, parse_server_line


def main() -> int:
    record = sys.stderr if sys.argv[1] == "-" else open(sys.argv[1], "a", encoding="ascii")  # noqa: SIM115
    policy = DrawDiscard()
    view = new_view(1)
    for raw in sys.stdin:
        line = raw.rstrip("\n")
        record.write(f"<  {line}\n")
        record.flush()
        msg = parse_server_line(line, seat=view.position)
        if isinstance(msg, Start):
            view = new_view(msg.position)
        elif isinstance(msg, Ask):
            answer = format_answer(policy.decide(view, msg.kind, view.legal(msg.kind)))
            record.write(f">  {answer}\n")
            record.flush()
            sys.stdout.write(answer + "\n")
            sys.stdout.flush()
        else:
            view.apply(msg)
            if isinstance(msg, Exit):
                return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())

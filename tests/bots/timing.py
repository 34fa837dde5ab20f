"""A test bot for the timing channel: ``timing.py spy 0`` plays as drawdiscard and notes on stderr, before each
question after its first in a hand, how long it waited since its previous answer and what that answer was
(``GAP <seconds> <throw|claim>``);
``timing.py think SECONDS`` plays as drawdiscard and thinks that long before each answer.  Used by
``tests/match/test_pace.py`` and ``bench/timing.py``."""

from __future__ import annotations

import sys
import time

from bots import stdio

SPY = sys.argv[1] == "spy"
THINK = float(sys.argv[2])
_last: list[float | None] = [None]
_last_kind = ["throw"]


class Runner(stdio.Runner):
    def _answer(self, kind: str) -> None:
        now = time.monotonic()
        if SPY and _last[0] is not None:
            sys.stderr.write(f"GAP {now - _last[0]:.6f} {_last_kind[0]}\n")
            sys.stderr.flush()
        if not SPY:
            time.sleep(THINK)
        super()._answer(kind)
        _last[0] = time.monotonic()
        _last_kind[0] = "throw" if kind == "throw" else "claim"


if __name__ == "__main__":
    sys.exit(Runner(stdio.make_policy("drawdiscard"), seed=1, keep_alive=False, out=sys.stdout, err=sys.stderr)
             .run(sys.stdin))

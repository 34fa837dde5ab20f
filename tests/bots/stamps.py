"""A test bot that says when it lived: ``START <ns>`` on stderr as it starts (before it reads anything), then plays
as drawdiscard, then takes ``LINGER`` seconds to leave after its input ends and says ``END <ns>`` (both
``CLOCK_MONOTONIC``, one clock for every box); with an argument, it thinks that many seconds before each answer.
Used by ``tests/wrappers/test_prestart.py``: a hand's process starts while the hand before it is played, so it has
started before the last hand's process has gone."""

from __future__ import annotations

import sys
import time

from bots import stdio

LINGER = 0.4  # within the referee's exit grace (``wrappers.process.EXIT_GRACE``)


class _Thinking:
    """Stdout, each answer written after ``seconds``."""

    def __init__(self, out: object, seconds: float) -> None:
        self._out, self._seconds = out, seconds

    def write(self, text: str) -> int:
        time.sleep(self._seconds)
        return self._out.write(text)  # type: ignore[attr-defined,no-any-return]

    def flush(self) -> None:
        self._out.flush()  # type: ignore[attr-defined]


if __name__ == "__main__":
    think = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
    sys.stderr.write(f"START {time.monotonic_ns()}\n")
    sys.stderr.flush()
    code = stdio.Runner(stdio.make_policy("drawdiscard"), seed=1, keep_alive=False,
                        out=_Thinking(sys.stdout, think) if think else sys.stdout,
                        err=sys.stderr).run(sys.stdin)
    time.sleep(LINGER)
    sys.stderr.write(f"END {time.monotonic_ns()}\n")
    sys.stderr.flush()
    sys.exit(code)

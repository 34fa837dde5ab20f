"""``random``: a uniformly random legal answer, the floor every other bot should beat.

Each question is answered by a uniform choice over the legal answers (so a ``/ask hu`` is taken half of the
time, and a claim with several tile combinations is proportionally likely).  The generator is reseeded per
hand from the match seed, the hand and the seat (``bots.base.policy_rng``), so a match replays exactly.

The module is ``bots.random``; it imports the standard library's ``random`` absolutely (through
``bots.base``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from bots.base import BasePolicy
from referee.game.types import Answer
from referee.game.view import SeatView


class RandomPolicy(BasePolicy):
    name = "random"

    def decide(self, view: SeatView, ask: str, legal: Sequence[Answer]) -> Answer:
        return legal[self.rng.randrange(len(legal))]


if __name__ == "__main__":
    from bots import stdio

    sys.exit(stdio.main("random"))

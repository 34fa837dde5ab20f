"""``dead_hand``: the stand-in that plays a seat after its bot faulted, so that a fault never pays.

A dead hand takes no part in the game beyond what the rules force: it draws and throws what it drew, never claims
(``/pass`` to every ``/ask eat``, ``/ask pong``, ``/ask gong``, a concealed or promoted gong included) and never
declares a win (``/pass`` to every ``/ask hu``, also on its own draw).  When there is no drawn tile to throw (the
dealer's first turn), it throws the highest TID of its hand.  It cannot win, so a seat it plays can only lose
points: whatever the faulting bot would have won by crashing on purpose, it does not win.

It is the default of the ruleset option ``default_dummy``.  It is also a bot like the others (``mjref match
dead_hand``, ``python -m bots.dead_hand``), which gives a test or a CI job the exact stand-in to compare with; it
never fills empty seats (``bots.base.seat_filler``): a table of seats that cannot win is no opponent.

Deterministic: it has no randomness at all.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from bots.base import BasePolicy, pick
from bots.drawdiscard import throw_the_draw
from referee.game.types import Answer
from referee.game.view import SeatView


class DeadHand(BasePolicy):
    name = "dead_hand"
    STAND_IN_ONLY = True

    def decide(self, view: SeatView, ask: str, legal: Sequence[Answer]) -> Answer:
        if ask != "throw":
            return pick(legal, None)  # /pass: no claim, no gong, no win
        return throw_the_draw(view, legal)


if __name__ == "__main__":
    from bots import stdio

    sys.exit(stdio.main("dead_hand"))

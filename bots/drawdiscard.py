"""``drawdiscard``: the framework's own dummy, as simple as a legal player can be.

* ``/ask hu``: always ``/hu``.
* ``/ask gong``, ``/ask pong``, ``/ask eat``: always ``/pass``.
* ``/ask throw``: the tile it has just drawn (``view.last_draw``, including a replacement draw after a gong).
  When there is no such tile in hand, that is on the dealer's first turn (17 dealt tiles, no ``/mo``) or after
  an eat or pong, it throws the **last tile of its sorted hand** (the highest TID).

Deterministic: it has no randomness at all.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from bots.base import BasePolicy, pick
from referee.game.options import throw_answer
from referee.game.types import HU, Answer
from referee.game.view import SeatView


def throw_the_draw(view: SeatView, legal: Sequence[Answer]) -> Answer:
    """The tile just drawn; without one in hand, the highest TID (also the stand-in ``dead_hand``'s throw)."""
    t = view.last_draw
    if t is None or t not in view.hand:
        t = max(view.hand) if view.hand else None
    if t is not None:
        a = throw_answer(t)
        if a in legal:
            return a
    return legal[-1]  # throws are listed ascending: the highest TID


class DrawDiscard(BasePolicy):
    name = "drawdiscard"

    def decide(self, view: SeatView, ask: str, legal: Sequence[Answer]) -> Answer:
        if ask == "hu":
            return pick(legal, HU)
        if ask != "throw":
            return pick(legal, None)  # /pass
        return throw_the_draw(view, legal)


if __name__ == "__main__":
    from bots import stdio

    sys.exit(stdio.main("drawdiscard"))

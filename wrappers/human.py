"""``HumanSeat``: a person's seat, played through a page in a browser (``human:NAME``; ``mjref play``).

It is a remote seat (``wrappers.remote``) whose other end is the page (``referee/html/play.js``) instead of a
wrapper: the same login and token, the same deadline at the server, the same faults, stand-in and rejoin at the
next hand.  Two things differ:

* The page is not told protocol lines: the seat folds the events it may see into its own ``SeatView`` (exactly
  what a built-in bot gets) and sends that view as a ``table`` message with every question.  Nothing else of the
  table reaches the page, so it sees only what its seat may see.
* Every question carries its legal answers, derived by the referee; the page offers only those, answers with one
  of them as a protocol line, and the server judges that line like any bot's (anything else is a fault).

A person's deadline is the ruleset's ``human_timeout`` (plus ``network_grace``), not a bot's ``move_timeout``.

Either family is played: the table says how many tiles a seat is dealt (``deal``: 16, or 13 for Chinese Classical,
from the seat's own deal), and a classical hand's result record carries every player's score with its explanation,
which the page shows as the viewer does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.game.types import Event, Hu, Question
from referee.game.view import SeatView, new_view

from . import messages as m
from .remote import RemoteSeat, Slot
from .seat import Fault, HandInfo
from .spec import BotSpec


class HumanSeat(RemoteSeat):
    """One position for one match, played by the person whose page is logged in on ``slot``."""

    kind = "human"

    def __init__(self, spec: BotSpec, position: int, slot: Slot, *, match: str, network_grace: float,
                 names: Sequence[str]) -> None:
        super().__init__(spec, position, slot, match=match, network_grace=network_grace)
        self.names = list(names)
        self.view: SeatView = new_view(position)
        self.totals = [0, 0, 0, 0]
        self._hand = 0
        self._won_on: set[int] = set()  # the tiles won on this hand (``Hu`` events)

    def question_timeout(self, info: HandInfo) -> float:
        return info.human_timeout

    def _gone(self, doing: str) -> Fault:
        """A person whose page is closed: said in a person's words (a wrapper is the machinery of a bot's seat)."""
        link = self._link
        why = f": {link.reason}" if link is not None and link.reason else ""
        return Fault("disconnected", f"{self.name!r} has no page open at this table ({doing}){why}; the stand-in "
                     "plays this seat, and each hand it plays costs the seat the fault penalty until the page is open "
                     "again")

    async def begin_hand(self, info: HandInfo) -> Fault | None:
        self._hand = info.index
        self._won_on = set()
        self.view = info.new_view()
        return await super().begin_hand(info)

    def deliver(self, event: Event) -> None:
        self.view.apply(event)
        if isinstance(event, Hu):
            self._won_on.add(event.tile)

    def _river(self, p: int) -> list[int]:
        """Seat ``p``'s throws not claimed; a throw won on (``/hu`` on it) has left the river for the winner."""
        river = list(self.view.rivers[p])
        if river and self.view.throws and self.view.throws[-1] == (p, river[-1]) and river[-1] in self._won_on:
            river.pop()
        return river

    def table(self, ask: m.PageAsk | None = None) -> m.Table:
        """The table as this seat sees it: its view, and nothing else."""
        v = self.view
        seats = [m.PageSeat(position=p, name=self.names[p - 1] if p <= len(self.names) else f"seat {p}",
                            melds=[m.PageMeld(type=x.type, tiles=list(x.tiles), claimed=x.claimed, source=x.source,
                                              promoted=x.promoted) for x in v.melds[p]],
                            river=self._river(p), flowers=list(v.flowers[p])) for p in (1, 2, 3, 4)]
        return m.Table(hand=self._hand, position=self.position, round_wind=v.round_wind, hand_wind=v.hand_wind,
                       dealer=v.dealer, wall=max(0, v.wall_remaining), live=max(0, v.wall_remaining - v.dead_wall),
                       concealed=sorted(v.hand), drawn=v.last_draw, deal=3 * v.sets_needed + 1, seats=seats,
                       totals=list(self.totals),
                       winners=list(v.winners), ask=ask)

    def _ask_message(self, q: int, question: Question) -> m.Table:
        return self.table(m.PageAsk(q=q, ask=question.ask, tile=question.tile,
                                    legal=[str(a) for a in question.legal], seconds=self._timeout))

    async def end_hand(self) -> None:
        if self._playing and self._link is not None:
            await self._link.send(self.table())  # the hand's last state: the win, the last throw
        self._playing = False

    async def hand_result(self, record: dict[str, Any]) -> None:
        """The result record of the hand: shown to the person even when the stand-in finished the hand."""
        totals = record.get("totals")
        if isinstance(totals, list) and len(totals) == 4:
            self.totals = [int(t) for t in totals]
        link = self.slot.link if self.slot.connected else None
        if link is not None and link is self._link:
            await link.send(m.HandOver(result=record))  # a page that does not read is cut (Link.send)


__all__ = ["HumanSeat"]

"""The hands of one match: the dealer rotation of docs/rules.md ("A match") and the running totals.

Pure bookkeeping, shared by the trio match runner, replay and the benchmarks: which hand comes next (round wind,
hand wind, dealer, ``<continue>``), and what each seat has scored so far.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .engine import HandResult
from .family import family_of
from .records import record
from .taiwan16.rules import Ruleset
from .tiles import WINDS_IN_ORDER


@record(frozen=True, slots=True)
class HandSetup:
    """Everything ``/initGame`` says about one hand, and its 0-based index in the match."""

    index: int
    round_wind: str
    hand_wind: str
    dealer: int
    cont: int = 0
    hands_as_east: int = 0  # hands the dealer has won in a row as dealer (a drawn hand does not end the run)


@dataclass(slots=True)
class Series:
    """Hands of a match in order: rounds EAST, SOUTH, WEST, NORTH; within a round the dealer is seat 1, 2, 3, 4.

    Whether the dealer keeps the deal is the rule family's decision (``Family.keeps_deal``: Taiwan's
    ``dealer_continues``, after winning or a drawn hand; classical East after a washout, or a win that is not its
    ``EastWinsLimit``-th in a row); ``<continue>`` counts the repeats; ``hands`` still counts every hand played.
    """

    rules: Ruleset
    hands: int | None = None
    totals: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    results: list[HandResult] = field(default_factory=list)
    _rot: int = 0
    _cont: int = 0
    _east_wins: int = 0

    @property
    def planned(self) -> int:
        return self.hands if self.hands is not None else self.rules.hands

    @property
    def is_over(self) -> bool:
        return len(self.results) >= self.planned

    def next_setup(self) -> HandSetup | None:
        if self.is_over:
            return None
        rot = self._rot
        return HandSetup(
            index=len(self.results),
            round_wind=WINDS_IN_ORDER[(rot // 4) % 4],
            hand_wind=WINDS_IN_ORDER[rot % 4],
            dealer=rot % 4 + 1,
            cont=self._cont,
            hands_as_east=self._east_wins,
        )

    def record(self, result: HandResult, penalties: tuple[int, int, int, int] = (0, 0, 0, 0)) -> None:
        setup = self.next_setup()
        assert setup is not None, "the match is over"
        self.results.append(result)
        for i in range(4):
            self.totals[i] += result.scores[i] - penalties[i]
        keeps = family_of(self.rules).keeps_deal(result, setup.dealer, setup.hands_as_east)
        if keeps:
            self._cont += 1
            if setup.dealer in result.winners:
                self._east_wins += 1
        else:
            self._rot += 1
            self._cont = 0
            self._east_wins = 0

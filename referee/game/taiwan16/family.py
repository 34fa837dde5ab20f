"""The Taiwan family's decisions for the engine (``referee.game.family``): the wall and flowers, the deal, claims,
scoring with its explanation (``scoring``), settlement and who deals next, under a ruleset (``rules``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from referee.game.family import Family
from referee.game.taiwan16.rules import Ruleset
from referee.game.taiwan16.scoring import WinContext, auto_fault_penalty, score_flower_win, score_win, settle
from referee.game.tiles import ALL_TIDS, ALL_TIDS_WITH_FLOWERS

if TYPE_CHECKING:
    from referee.game.engine import Hand, HandResult, WinHow


class TaiwanFamily(Family):
    name = "taiwan16"
    deal_size = 16
    flower_loose = True

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.flowers = rules.flowers
        self.flower_wins = rules.flowers
        self.gong_from_previous_player = rules.gong_from_previous_player
        self.rob_kong = rules.rob_kong
        self.multiple_winners = rules.multiple_winners
        self.seven_pairs_and_pung = rules.seven_pairs_and_pung
        self._dead = rules.dead_wall

    def wall_tiles(self) -> tuple[int, ...]:
        return ALL_TIDS_WITH_FLOWERS if self.flowers else ALL_TIDS

    # A hand is drawn when a player would draw (live or replacement) and only ``dead_wall`` tiles remain: the
    # live wall ends ``dead_wall`` tiles before the back, wherever the back is.
    def dead_wall_start(self) -> int:
        return self._dead

    def live_end_after_loose(self, front: int, live_end: int, back: int) -> int:
        return back - self._dead

    def can_loose(self, front: int, live_end: int, back: int) -> bool:
        return front < live_end

    def score(self, hand: Hand, wins: Sequence[tuple[int, int | None, WinHow, int | None]]) -> HandResult:
        from referee.game.engine import HandResult, WinRecord, seat_wind

        rules = self.rules
        records = []
        totals = [0, 0, 0, 0]
        for seat, tile, how, thrower in wins:
            if how == "flowers":
                s = hand._seats[seat]
                score = score_flower_win(tuple(s.flowers), seat_wind(seat, hand.dealer), seat == hand.dealer, rules)
            else:
                assert tile is not None
                score = score_win(_context(hand, seat, tile, how, thrower), rules)
            self_drawn = thrower is None
            pay = settle(seat, hand.dealer, score.tai, self_drawn=self_drawn, thrower=thrower, rules=rules)
            records.append(WinRecord(seat, tile, how, thrower, score, pay))
            for i in range(4):
                totals[i] += pay[i]
        return HandResult("win", tuple(records), (totals[0], totals[1], totals[2], totals[3]))

    def auto_fault_penalty(self) -> int:
        return auto_fault_penalty(self.rules)

    def keeps_deal(self, result: HandResult, dealer: int, run: int) -> bool:
        return self.rules.dealer_continues and (result.outcome == "draw" or dealer in result.winners)


def _context(hand: Hand, p: int, tile: int, how: WinHow, thrower: int | None) -> WinContext:
    """The scoring context of ``p``'s win on ``tile``, from the engine's state."""
    from referee.game.engine import seat_wind

    s = hand._seats[p]
    self_drawn = how == "self_draw"
    robbed = how == "robbed_gong"
    concealed = tuple(s.concealed) if self_drawn else (*s.concealed, tile)
    if self_drawn:
        first = not hand._claimed and (s.draws == 0 if p == hand.dealer else s.draws == 1)
    else:
        first = not hand._claimed and hand._throws == 1 and thrower == hand.dealer and not robbed
    return WinContext(
        concealed=concealed,
        melds=tuple(s.melds),
        winning_tile=tile,
        self_drawn=self_drawn,
        seat_wind=seat_wind(p, hand.dealer),
        round_wind=hand.round_wind,
        dealer=p == hand.dealer,
        flowers=tuple(s.flowers),
        last_tile=hand._last_live_drawn and not robbed,
        kong_replacement=self_drawn and hand._after_gong,
        robbing_kong=robbed,
        first_turn=first,
    )


__all__ = ["TaiwanFamily"]

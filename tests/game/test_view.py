"""SeatView folding edge cases that the engine never produces but another server (or a hand-written log) may."""

from __future__ import annotations

from referee.game.analysis import meld_counts
from referee.game.tiles import INDEX
from referee.game.types import Gong, InitCard, InitGame, Mo, Throw
from referee.game.view import SeatView, new_view

HAND = (110, 111, 112, 113, 121, 131, 141, 151, 161, 171, 181, 191, 211, 221, 231, 241)


def _view_after_draw() -> SeatView:
    v = new_view(1)
    v.apply(InitGame("EAST", "EAST", 1, 1))
    v.apply(InitCard(1, HAND))
    v.apply(Mo(1, 251))
    return v


def test_own_concealed_gong_with_its_tiles_is_one_meld() -> None:
    v = _view_after_draw()
    v.apply(Gong(1, 0, (110, 111, 112, 113)))
    assert [m.type for m in v.melds[1]] == ["concealed_gong"]
    assert v.counts[INDEX[11]] == 0 and len(v.hand) == 13
    assert meld_counts(v.melds[1])[INDEX[11]] == 4


def test_own_concealed_gong_without_tiles_is_still_one_meld() -> None:
    """A server that sends the owner ``/gong <pos> 0`` without tiles: the four copies held are the gong."""
    v = _view_after_draw()
    v.apply(Gong(1, 0, ()))
    assert [m.type for m in v.melds[1]] == ["concealed_gong"]
    assert v.melds[1][0].tiles == (110, 111, 112, 113)
    assert v.counts[INDEX[11]] == 0 and len(v.hand) == 13
    assert meld_counts(v.melds[1])[INDEX[11]] == 4
    assert v.legal("throw")  # the view stays usable: the hand no longer holds the gong's tiles


def test_own_concealed_gong_without_tiles_and_two_quads_counts_the_meld() -> None:
    """Which of two quads was declared cannot be known: the meld is still counted (tiles unknown)."""
    v = new_view(1)
    v.apply(InitGame("EAST", "EAST", 1, 1))
    v.apply(InitCard(1, (110, 111, 112, 113, 120, 121, 122, 123, 141, 151, 161, 171, 181, 191, 211, 221)))
    v.apply(Mo(1, 251))
    v.apply(Gong(1, 0, ()))
    assert [(m.type, m.tiles) for m in v.melds[1]] == [("concealed_gong", ())]
    v.apply(Throw(1, 251))
    assert len(v.melds[1]) == 1

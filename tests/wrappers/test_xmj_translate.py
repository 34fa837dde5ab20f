"""How a hand's events become mj-server's messages (``wrappers.xmj.translate.Translator``), where a claim is not
a claim of a discard: Mah-Jong on a kong's tile is the kong robbed (``PlayerRobsKong``), as mj-server's controller
implements it, and a client waits for exactly that before it declares its sets (seed 5033 of
test_xmj_same_game.py: sent ``PlayerMahJongs``, all four mj-players timed out at the declarations)."""

from __future__ import annotations

from referee.game.types import Gong, Hu, Throw
from wrappers.xmj import messages as m
from wrappers.xmj.table import PRIOR_CLAIM, View
from wrappers.xmj.translate import Translator, code_of

FIVE_D = 353  # 5D: tile ids are kind * 10 + copy


def test_mah_jong_on_an_added_kong_is_the_kong_robbed() -> None:
    t = Translator()
    t.new_hand(1)
    t.dealing = False
    added = t.events(Gong(1, 1, (FIVE_D,)))
    assert added == [m.CMsgPlayerAddsToPung(1, code_of(FIVE_D), 1)]
    won = t.events(Hu(2, FIVE_D, (330, 340)))
    assert won == [m.CMsgPlayerClaimsMahJong(2, 1), m.CMsgPlayerRobsKong(2, code_of(FIVE_D))]
    assert t.claimed == FIVE_D  # the robbed tile goes to a set the winner declares, as a discard would


def test_mah_jong_on_a_concealed_kong_is_the_kong_robbed() -> None:
    """A concealed kong robbed for the Thirteen Unique Wonders is told as mj-server tells it: the claim on the
    kong's serial, then ``PlayerRobsKong``."""
    t = Translator()
    t.new_hand(1)
    t.dealing = False
    one_c = (110, 111, 112, 113)
    assert t.events(Gong(1, 0, one_c)) == [m.CMsgPlayerDeclaresClosedKong(1, "1C", 1)]
    won = t.events(Hu(2, 110, (190, 191, 210, 290, 310, 390, 410, 420, 430, 440, 450, 460, 470)))
    assert won == [m.CMsgPlayerClaimsMahJong(2, 1), m.CMsgPlayerRobsKong(2, "1C")]


def test_mah_jong_on_a_discard_after_a_kong_is_a_discard_taken() -> None:
    t = Translator()
    t.new_hand(1)
    t.dealing = False
    t.events(Gong(1, 1, (FIVE_D,)))
    t.events(Throw(1, 110))
    won = t.events(Hu(2, 110, (111, 112)))
    assert won == [m.CMsgPlayerClaimsMahJong(2, 2), m.CMsgPlayerMahJongs(2, "--")]


def test_a_denied_claim_of_a_robbed_kong_is_told_before_the_robbing() -> None:
    view = View(3)
    view.see(m.CMsgPlayerAddsToPung(1, "5D", 7))
    view.see(m.CMsgPlayerClaimsMahJong(3, 7))  # this client claimed too, and lost to player 2
    assert view.see(m.CMsgPlayerRobsKong(2, "5D")) == [m.CMsgClaimDenied(3, PRIOR_CLAIM),
                                                          m.CMsgPlayerRobsKong(2, "5D")]


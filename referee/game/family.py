"""What a rule family decides, behind one interface: the engine (``referee.game.engine``) plays every family with
one loop and asks the family the rest.

A family is a room of ``referee/game/``: ``taiwan16`` (Taiwan 16-tile, the ICGA framework's rules; its rules,
scoring and options still live in ``referee/game/`` itself and ``referee/game/taiwan16/`` holds its family) and
``classical`` (Chinese Classical as mj-server 1.11 plays it, ``referee/game/classical/``).  A third family (Riichi,
MCR) is a new folder with a ``Family`` subclass and a line in :func:`family_of`.

What the loop asks (all pure and synchronous):

* the wall: the tile set (flowers or not) and where the live wall ends (``dead_wall_start``, ``live_end_after_loose``,
  ``can_loose``: a dead wall kept at a size, a fixed one, or none);
* the deal: ``deal_size`` tiles a seat (the dealer one more), flowers replaced from the loose end or the live wall
  (``flower_loose``), and whether eight flowers win (``flower_wins``);
* claims: ``gong_from_previous_player``, ``rob_kong``, ``add_to_claimed_pung``, ``multiple_winners`` (the order
  is the loop's own: Mah-Jong in turn order after the thrower, then the one seat that can pung or kong, then the
  next seat's chow);
* winning shapes: ``special_waits`` (shapes beyond sets and a pair, for a hand without melds) and ``is_complete``;
* the end: ``score`` (every winner's score with its explanation, the settlement) and ``keeps_deal`` (who deals
  next); where players declare their sets (``declarations``: classical, for a client of mj-server's protocol),
  ``declare_options`` says what a seat may declare next, and ``score`` scores what it declared
  (``Hand.declared``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .engine import Hand, HandResult, WinHow


class Family:
    """The decisions of one rule family.  Subclasses set the attributes and implement the methods."""

    name: str = ""
    deal_size: int = 16
    flowers: bool = False
    flower_loose: bool = True  # flowers are replaced from the loose end (else from the live wall)
    flower_wins: bool = False  # eight flowers (or seven robbing the eighth) win the hand
    gong_from_previous_player: bool = False
    rob_kong: bool = True
    add_to_claimed_pung: bool = False  # a pung just claimed, its fourth tile in hand, may be made a kong at once
    # a gong is offered only while its replacement can be drawn (else: at any time, and a gong whose replacement
    # cannot be drawn, unless robbed, ends the hand in a draw)
    gong_needs_loose: bool = True
    multiple_winners: bool = False
    seven_pairs_and_pung: bool = False  # Taiwan's 嚦咕嚦咕 (the engine's own fast path)
    tracks_sets = False  # the engine calls ``set_made`` at every pung, chow and kong
    # When set: only a hand whose honours' group key (``analysis.group_keys(counts)[3]``) is in it can wait on a
    # special shape, and the engine asks ``special_waits`` of no other (it is asked at every change of a hand)
    special_keys: frozenset[int] | None = None
    deal_flowers_by_seat = False  # the deal's flowers: a seat replaces all (and theirs) before the next seat
    concealed_gong_shown = False  # a concealed gong's tiles are shown to every seat (else to its owner only)
    declarations = False  # seats may declare their own sets when the hand is won (``declare_options``)

    def new_state(self) -> Any:
        """What the family keeps during one hand (the engine's ``Hand.extra``)."""
        return None

    def set_made(self, hand: Hand, seat: int, thrower: int | None, tile: int | None) -> None:
        """``seat`` made a set (with ``thrower``'s throw ``tile`` for a pung or chow); only if ``tracks_sets``."""

    def wall_tiles(self) -> tuple[int, ...]:
        raise NotImplementedError

    def dead_wall_start(self) -> int:
        """Tiles at the back of the wall that live draws never reach, at the start of a hand."""
        raise NotImplementedError

    def live_end_after_loose(self, front: int, live_end: int, back: int) -> int:
        """Where the live wall ends after a loose tile was taken (``back`` already moved past it)."""
        raise NotImplementedError

    def can_loose(self, front: int, live_end: int, back: int) -> bool:
        """Whether a loose tile (a kong's replacement) can be drawn now."""
        raise NotImplementedError

    def special_waits(self, counts: Sequence[int], keys: Sequence[int] | None = None) -> tuple[int, ...]:
        """Dense kind indices that complete a hand without melds in a shape other than sets and a pair; ``keys``
        (``analysis.group_keys`` of ``counts``, when the caller keeps them) may serve to answer faster."""
        return ()

    def is_special(self, counts: Sequence[int]) -> bool:
        """Whether a complete hand without melds is of a shape other than sets and a pair."""
        return False

    def robs_concealed_gong(self, counts: Sequence[int], melds: Sequence[Any], index: int) -> bool:
        """Whether a seat with these concealed ``counts`` (3k+1 tiles) and ``melds`` may rob a concealed gong of the
        kind at dense ``index``: go out on one of its tiles.  The engine asks no one while this is the base's."""
        return False

    def declare_options(self, rest: Sequence[int], melds: Sequence[Any], made: Sequence[tuple[tuple[int, ...], bool]],
                        *, winner: bool, claim: int | None) -> tuple[Any, ...]:
        """A declaring seat's legal next declarations (``Answer``s of kind ``declare``, and ``pass`` where it may
        stop), given its undeclared concealed tiles ``rest`` (a winner's with the winning tile), its melds and the
        sets it ``made`` so far; ``claim``: the winning discard, which the winner's first set must take.  Empty when
        the seat has nothing more to declare."""
        raise NotImplementedError

    def winner_score(self, hand: Hand, wins: Sequence[tuple[int, int | None, WinHow, int | None]]) -> Any:
        """Where seats declare: the winner's score alone, before the losers declare (a record with ``seat``,
        ``score`` and ``explanation``, the lines of its explanation)."""
        raise NotImplementedError

    def best_declaration(self, hand: Hand, wins: Sequence[tuple[int, int | None, WinHow, int | None]]
                         ) -> list[tuple[tuple[int, ...], bool]]:
        """Where seats declare: the sets a winner that declares nothing is declared with (``Hand.declared``'s
        form), which score as ``score`` would score it."""
        raise NotImplementedError

    def score(self, hand: Hand, wins: Sequence[tuple[int, int | None, WinHow, int | None]]) -> HandResult:
        """The result of a won hand: ``wins`` are (seat, winning tile, how, thrower)."""
        raise NotImplementedError

    def keeps_deal(self, result: HandResult, dealer: int, run: int) -> bool:
        """Whether the dealer deals the next hand too; ``run`` is the hands it had won in a row as dealer before
        this one (``HandSetup.hands_as_east``)."""
        raise NotImplementedError

    def auto_fault_penalty(self) -> int:
        """What a faulted hand costs with ``fault_penalty = "auto"`` (``referee.game.match_options``)."""
        raise NotImplementedError


def family_of(rules: Any) -> Family:
    """The family of a ruleset object: Taiwan's ``Ruleset`` or a classical ruleset (``GameOptions`` or
    ``ClassicalRuleset``)."""
    for known, fam in _RECENT:  # a match asks with the same rules object at every hand
        if known is rules:
            return fam
    if getattr(rules, "family", "taiwan16") == "classical" or type(rules).__name__ == "GameOptions":
        from referee.game.classical.family import ClassicalFamily

        fam = ClassicalFamily(rules)
    else:
        from referee.game.taiwan16.family import TaiwanFamily

        fam = TaiwanFamily(rules)
    _RECENT.insert(0, (rules, fam))
    del _RECENT[4:]  # a few, by identity: nothing is kept per match (a tournament runner plays thousands)
    return fam


_RECENT: list[tuple[Any, Family]] = []


def rules_from_dump(data: dict[str, Any]) -> Any:
    """A match's ruleset from its ``model_dump`` (a log's header, a tournament's match job): a classical one when
    it names that family, else Taiwan's.  Raises pydantic's ``ValidationError`` for bad options."""
    if data.get("family") == "classical":
        from referee.game.classical.family import ClassicalRuleset

        return ClassicalRuleset.model_validate(data)
    from referee.game.taiwan16.rules import Ruleset

    return Ruleset.model_validate(data)

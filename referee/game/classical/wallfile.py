"""An mj-server hand history's deal as mjref deals it: the same wall, seats, winds, dealer, round and options.

mj-server records the wall of a hand (the history's ``Wall`` line) already in drawing order: the deal and every
live draw take tiles from its front, every loose tile (a kong's or a flower's replacement) from its back, and the
dead wall is the back's 14 tiles kept at 13 or 14 (``DeadWall``: two live tiles join it after every second loose
tile), 16 unreplenished (``DeadWall16``), or none.  That is the order of mjref's ``Wall`` (live from index 0,
loose from the end) and of the classical family's dead wall (``family.ClassicalFamily``), so the wall is taken
as it stands: each tile code becomes a TID, the copies of a face numbered 0-3 in the order they lie in the wall.
Where the break is (``NewHand``'s wall and stack) only says where the front was on mj-server's table; it changes
no draw, and mjref's dice stay at their default.

The seats: mj-server's players sit in table order (``Game`` lists them East first, as they sat at the previous
hand); mjref's positions 1-4 are that order from the game's first East (``Game``'s ``firsteast``), so that a
game's player 1 to 4 are mjref's seats 1 to 4 when mj-server seated them in that order.  The dealer is the hand's
East (``NewHand``), the round is ``Game``'s, and East's run of hands is ``Game``'s ``hands_as_east`` when East
kept the deal.
"""

from __future__ import annotations

from referee.errors import InputError
from referee.game.classical.family import CODE, ClassicalRuleset
from referee.game.classical.history import HandHistory
from referee.game.classical.options import GameOptions
from referee.game.records import record
from referee.game.series import HandSetup
from referee.game.tiles import WINDS_IN_ORDER
from referee.game.wall import Wall, check_wall

KIND_OF_CODE: dict[str, int] = {code: tid // 10 for tid, code in CODE.items()}
"""The TID kind of every mj-server tile code (``1C`` is 1-wan, kind 11; ``1S`` Spring, the flower kind 1)."""
ROUND_WIND = {"EW": "EAST", "SW": "SOUTH", "WW": "WEST", "NW": "NORTH"}


def wall_tids(codes: tuple[str, ...], where: str) -> tuple[int, ...]:
    """The wall's tile codes as TIDs, in the same order: the n-th copy of a face in the wall is its copy n."""
    seen: dict[int, int] = {}
    out: list[int] = []
    for code in codes:
        kind = KIND_OF_CODE[code]
        n = seen.get(kind, 0)
        seen[kind] = n + 1
        if kind < 10:  # a flower or season: one of each
            if n:
                raise InputError(f"{where}: the wall holds {code} twice")
            out.append(kind * 10)
        else:
            if n > 3:
                raise InputError(f"{where}: the wall holds {code} five times")
            out.append(kind * 10 + n)
    return tuple(out)


@record(frozen=True, slots=True)
class HistoryDeal:
    """One history's hand as mjref deals it.  ``positions``: mj-server's player id to mjref's seat (1-4)."""

    history: HandHistory
    wall: Wall
    positions: dict[int, int]
    dealer: int
    round_wind: str
    hands_as_east: int

    @property
    def options(self) -> GameOptions:
        return self.history.options

    @property
    def hand_wind(self) -> str:
        return WINDS_IN_ORDER[self.dealer - 1]

    def setup(self, index: int) -> HandSetup:
        """The hand's setup as the ``index``-th (0-based) hand of a match."""
        return HandSetup(index=index, round_wind=self.round_wind, hand_wind=self.hand_wind, dealer=self.dealer,
                         cont=self.hands_as_east, hands_as_east=self.hands_as_east)

    def code(self, tid: int) -> str:
        return CODE[tid]

    @property
    def winner(self) -> int:
        """The seat that went Mah-Jong (a history is written for a won hand only)."""
        for m in self.history.moves:
            if m.kind in ("PlayerMahJongs", "PlayerRobsKong"):
                return self.positions[m.id]  # type: ignore[attr-defined]
        raise InputError(f"{self.history.name}: nobody goes Mah-Jong in this history")


def history_deal(h: HandHistory) -> HistoryDeal:
    """The deal of ``h``: its wall as TIDs (checked whole), seats, dealer, round and East's run."""
    where = f"{h.name}:{h.wall.line}"
    tids = wall_tids(h.wall.tiles, where)
    check_wall(tids, ClassicalRuleset(options=h.options), where)  # type: ignore[arg-type]  # (reads .flowers)
    seats = list(h.game.seats)
    if h.game.firsteast not in seats:
        raise InputError(f"{h.name}:{h.game.line}: Game: the first East {h.game.firsteast} is not a player")
    first = seats.index(h.game.firsteast)
    positions = {seats[(first + k) % 4]: k + 1 for k in range(4)}
    east = h.east_first[0]
    return HistoryDeal(h, Wall(tids), positions, positions[east], ROUND_WIND[h.game.round], h.hands_as_east)


def history_rules(deals: list[HistoryDeal], base: object | None = None) -> object:
    """The classical ruleset of a match dealt from ``deals``: their options (every file must have the same), with
    the match's own options (hands, timeouts, faults) from ``base`` (a classical ruleset), if given."""
    first = deals[0]
    for d in deals[1:]:
        if d.options != first.options:
            diff = next(k for k in GameOptions.model_fields if getattr(d.options, k) != getattr(first.options, k))
            raise InputError(f"{d.history.name}: its option {diff} is {getattr(d.options, diff)}, but "
                             f"{first.history.name}'s is {getattr(first.options, diff)}: a match has one ruleset")
    match = {} if base is None else base.model_dump(exclude={"family", "options"})  # type: ignore[attr-defined]
    return ClassicalRuleset(options=first.options, **match)




def check_match_order(deals: list[HistoryDeal], rules: object) -> None:
    """``deals`` as the hands of one mjref match: the first must be a game's first (seat 1 East in the East round),
    and each next one the hand mjref's match deals after the one before ends as its history did (the same East,
    round and run).  mjref's match decides each hand's dealer and round itself (``referee.game.series``), so a
    history it would deal otherwise (a later hand of a game, a game's hands out of order) is refused before the
    match, naming the file.  A washout between two files changes nothing here: mj-server writes no history of it,
    and East keeps the deal and its run after one, in mj-server and in mjref alike."""
    from referee.game.engine import HandResult, WinRecord
    from referee.game.series import Series

    series = Series(rules, len(deals))  # type: ignore[arg-type]
    before: HistoryDeal | None = None
    for k, d in enumerate(deals):
        want = series.next_setup()
        assert want is not None
        got = d.setup(k)
        if (got.dealer, got.round_wind, got.hands_as_east) != (want.dealer, want.round_wind, want.hands_as_east):
            which = f"the hand after {before.history.name}" if before is not None else "a match's first hand"
            raise InputError(
                f"{d.history.name}: East is seat {got.dealer} in the {got.round_wind.lower()} round (East's run "
                f"{got.hands_as_east}), but mjref deals {which} with seat {want.dealer} East in the "
                f"{want.round_wind.lower()} round (run {want.hands_as_east}): give a game's hands in order from its "
                f"first")
        winner = d.winner
        series.record(HandResult("win", (WinRecord(winner, None, "throw", None, None, (0, 0, 0, 0)),),  # type: ignore[arg-type]
                                 (0, 0, 0, 0)))
        before = d


__all__ = ["KIND_OF_CODE", "HistoryDeal", "check_match_order", "history_deal", "history_rules", "wall_tids"]

"""A seat's view: everything one seat may know, built only from the events that seat receives.

Built-in bots get exactly this (``BuiltinSeat`` folds the events it is sent into a ``SeatView``), and so does a
protocol executable (``bots/`` parse the server's lines into the same events).  The fast path is therefore not a
cheating path: a built-in policy cannot see what a process bot could not.

``legal(ask)`` derives the legal answers to a question from the view alone, with the same functions the engine
uses; a property test checks that it always equals the engine's list.
"""

from __future__ import annotations

from .analysis import is_complete
from .options import eat_options, meld_gong_option, pong_options, self_gong_options, throw_options, with_pass
from .tiles import INDEX, KIND_AT, WINDS_IN_ORDER
from .types import (
    GONG_CONCEALED,
    GONG_MELDED,
    GONG_PROMOTED,
    HU,
    PASS,
    Answer,
    Eat,
    Event,
    Exit,
    Flower,
    Gong,
    Hu,
    InitCard,
    InitGame,
    Meld,
    Mo,
    Pong,
    Throw,
    next_seat,
)

DEALT = 16 * 4 + 1


class SeatView:
    """What seat ``position`` knows.  ``hand`` is its concealed tiles; ``melds[seat]`` everyone's exposed sets.

    A plain class with ``__slots__`` (not a dataclass): every bot process builds one at its start, and the
    ``dataclasses`` machinery was a large part of that start (see ``referee.game.types``)."""

    __slots__ = (
        "position", "total_tiles", "dead_wall", "gong_from_previous_player", "seven_pairs_and_pung", "round_wind",
        "hand_wind", "dealer", "open", "hand", "counts", "melds", "flowers", "throws", "rivers", "last_draw",
        "claim_tile", "claim_from", "wall_remaining", "scores", "winners", "_pending_draw", "sets_needed", "ponged",
    )

    def __init__(
        self,
        position: int,
        total_tiles: int = 136,
        dead_wall: int = 16,
        gong_from_previous_player: bool = False,
        seven_pairs_and_pung: bool = False,
    ) -> None:
        self.position = position
        self.total_tiles = total_tiles
        self.dead_wall = dead_wall
        self.gong_from_previous_player = gong_from_previous_player
        self.seven_pairs_and_pung = seven_pairs_and_pung
        self.round_wind = "EAST"
        self.hand_wind = "EAST"
        self.dealer = 1
        self.open = 1
        self.hand: list[int] = []
        self.ponged: int | None = None  # the kind of the pung this seat has just claimed, until it throws or gongs
        self.counts: list[int] = [0] * 34
        self.melds: dict[int, list[Meld]] = {1: [], 2: [], 3: [], 4: []}
        self.flowers: dict[int, list[int]] = {1: [], 2: [], 3: [], 4: []}
        self.throws: list[tuple[int, int]] = []  # (seat, tile), every throw in order
        self.rivers: dict[int, list[int]] = {1: [], 2: [], 3: [], 4: []}
        self.last_draw: int | None = None
        self.claim_tile: int | None = None  # the tile a claim question is about: another's throw or promoted gong
        self.claim_from: int | None = None
        self.wall_remaining = 0
        self.scores: tuple[int, int, int, int] | None = None
        self.winners: list[int] = []
        self._pending_draw: int | None = None  # the seat that draws next unless the last throw is claimed
        # Sets and a pair make a hand: five (16 tiles dealt, Taiwan) or four (13, Chinese Classical), known from
        # the seat's own /initCard
        self.sets_needed = 5

    def __repr__(self) -> str:
        return f"SeatView(position={self.position}, hand={self.hand}, melds={self.melds}, rivers={self.rivers})"

    # ---------------------------------------------------------------------------------------------- derived
    @property
    def seat_wind(self) -> str:
        return WINDS_IN_ORDER[(self.position - self.dealer) % 4]

    def visible_count(self, kind: int) -> int:
        """Copies of ``kind`` this seat can see: its hand, every exposed meld, every uncaptured throw."""
        n = self.counts[INDEX[kind]]
        for ms in self.melds.values():
            for m in ms:
                n += sum(1 for t in m.tiles if t // 10 == kind)
        for river in self.rivers.values():
            n += sum(1 for t in river if t // 10 == kind)
        return n

    def unseen(self, kind: int) -> int:
        return max(0, 4 - self.visible_count(kind))

    def legal(self, ask: str) -> tuple[Answer, ...]:
        """The legal answers to ``/ask <ask>`` now, from this view alone."""
        if ask == "throw":
            return throw_options(self.hand)
        if ask == "hu":
            return (HU, PASS)
        t = self.claim_tile
        if ask == "gong":
            if t is None and self.ponged is not None:  # right after its pung (classical): only that pung's kong
                return with_pass([a for a in self_gong_options(self.hand, self.melds[self.position])
                                  if a.mode == GONG_PROMOTED and a.tiles[0] // 10 == self.ponged])
            if t is None:
                return with_pass(self_gong_options(self.hand, self.melds[self.position]))
            option = meld_gong_option(self.hand, t)
            return (option, PASS) if option else (PASS,)
        if t is None:
            return (PASS,)
        if ask == "pong":
            return with_pass(pong_options(self.hand, t))
        if ask == "eat":
            return with_pass(eat_options(self.hand, t))
        return (PASS,)

    def can_win_on(self, tile: int) -> bool:
        i = INDEX[tile // 10]
        self.counts[i] += 1
        try:
            return is_complete(self.counts, seven_pairs_and_pung=self.seven_pairs_and_pung)
        finally:
            self.counts[i] -= 1

    # ---------------------------------------------------------------------------------------------- folding
    def _add(self, t: int) -> None:
        self.hand.append(t)
        self.counts[INDEX[t // 10]] += 1

    def _remove(self, t: int) -> None:
        self.hand.remove(t)
        self.counts[INDEX[t // 10]] -= 1

    def _resolve_pending(self) -> None:
        if self._pending_draw is not None:
            self.wall_remaining -= 1
            self._pending_draw = None

    def _claimed(self, source_tile: int) -> None:
        """The last throw was claimed: it leaves the thrower's river and nobody draws for it."""
        self._pending_draw = None
        if self.throws and self.throws[-1][1] == source_tile:
            seat = self.throws[-1][0]
            if self.rivers[seat] and self.rivers[seat][-1] == source_tile:
                self.rivers[seat].pop()

    def _held_quad(self) -> tuple[int, ...]:
        """The tiles of the one kind held four times, for an own concealed gong announced without its tiles (a
        server other than mjref's may send the owner the others' ``/gong <pos> 0``); ``()`` when none or several
        kinds are, so that the meld is still counted, tiles unknown."""
        quads = [i for i, c in enumerate(self.counts) if c == 4]
        if len(quads) != 1:
            return ()
        kind = KIND_AT[quads[0]]
        return tuple(sorted(t for t in self.hand if t // 10 == kind))

    def apply(self, e: Event) -> None:
        """Fold one event this seat received into the view."""
        me = self.position
        if isinstance(e, InitGame):
            self.round_wind, self.hand_wind, self.open, self.dealer = e.round_wind, e.hand_wind, e.open, e.dealer
            self.wall_remaining = self.total_tiles - DEALT
        elif isinstance(e, InitCard):
            for t in e.tiles:
                self._add(t)
            size = len(e.tiles) - (1 if len(e.tiles) % 3 == 2 else 0)  # the dealer's one more
            self.sets_needed = size // 3
            self.wall_remaining += DEALT - (4 * size + 1)  # (InitGame took Taiwan's deal of 16)
        elif isinstance(e, Mo):
            self._pending_draw = None
            self.wall_remaining -= 1
            self._add(e.tile)
            self.last_draw = e.tile
            self.claim_tile = self.claim_from = None
        elif isinstance(e, Flower):
            self.flowers[e.seat].append(e.tile)
            self.wall_remaining -= 1
        elif isinstance(e, Throw):
            if e.seat != me:
                self._resolve_pending()
            self.throws.append((e.seat, e.tile))
            self.rivers[e.seat].append(e.tile)
            if e.seat == me:
                self._remove(e.tile)
                self.claim_tile = self.claim_from = None
                self.ponged = None
            else:
                self.claim_tile, self.claim_from = e.tile, e.seat
            self.last_draw = None
            self._pending_draw = next_seat(e.seat)
        elif isinstance(e, (Eat, Pong)):
            # The claimed tile is always the last throw (the thrower's own view has no claim_tile for it).
            source, claimed = self.throws[-1] if self.throws else (None, -1)
            if isinstance(e, Eat):
                claimed = e.tiles[1]
            self._claimed(claimed)
            tiles = tuple(sorted(e.tiles))
            if e.seat == me:
                mine = list(tiles)
                mine.remove(claimed)
                for t in mine:
                    self._remove(t)
            self.melds[e.seat].append(Meld("eat" if isinstance(e, Eat) else "pong", tiles, claimed, source))
            self.claim_tile = self.claim_from = None
            if e.seat == me and isinstance(e, Pong):
                self.ponged = claimed // 10
        elif isinstance(e, Gong):
            self._gong(e)
        elif isinstance(e, Hu):
            self.winners.append(e.seat)
        elif isinstance(e, Exit):
            self.scores = e.scores

    def _gong(self, e: Gong) -> None:
        me = self.position
        if e.seat == me:
            self.ponged = None
        if e.mode == GONG_MELDED:
            source, claimed = self.throws[-1] if self.throws else (None, -1)
            self._claimed(claimed)
            if e.seat == me:
                for t in e.tiles:
                    if t != claimed:
                        self._remove(t)
            self.melds[e.seat].append(Meld("gong", tuple(e.tiles), claimed, source))
            self.claim_tile = self.claim_from = None
            if e.seat != me:
                self.wall_remaining -= 1  # the gong's replacement draw, made at once and unseen
        elif e.mode == GONG_CONCEALED:
            if e.seat != me:
                self._resolve_pending()
                self.wall_remaining -= 1  # the gong's replacement draw, made at once and unseen
                self.melds[e.seat].append(Meld("concealed_gong", tuple(e.tiles)))  # shown under classical
            else:
                tiles = tuple(e.tiles) or self._held_quad()
                for t in tiles:
                    self._remove(t)
                self.melds[e.seat].append(Meld("concealed_gong", tiles))
            self.claim_tile = self.claim_from = None
        elif e.mode == GONG_PROMOTED:
            t = e.tiles[0]
            if e.seat != me:
                self._resolve_pending()
            else:
                self._remove(t)
            ms = self.melds[e.seat]
            for i, m in enumerate(ms):
                if m.type == "pong" and m.kind == t // 10:
                    ms[i] = Meld("gong", tuple(sorted((*m.tiles, t))), m.claimed, m.source, promoted=True)
                    break
            if e.seat != me:
                self.claim_tile, self.claim_from = t, e.seat  # a robbing-the-kong /ask hu is about this tile
                # The replacement draw comes only after the robbing-the-kong questions: count it when it is
                # evidently made (the promoter's next throw or gong), like any unseen draw.
                self._pending_draw = e.seat
            else:
                self.claim_tile = self.claim_from = None


def new_view(position: int, *, flowers: bool = False, dead_wall: int = 16, gong_from_previous_player: bool = False,
             seven_pairs_and_pung: bool = False) -> SeatView:
    return SeatView(
        position,
        total_tiles=144 if flowers else 136,
        dead_wall=dead_wall,
        gong_from_previous_player=gong_from_previous_player,
        seven_pairs_and_pung=seven_pairs_and_pung,
    )


__all__ = ["SeatView", "new_view"]

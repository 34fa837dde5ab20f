"""The engine: one hand of Mahjong as a pure, synchronous, deterministic state machine, for every rule family.

The loop (deal, draws, throws, claims, gongs, the end) is written once, here; what a rule family decides (the
wall and its dead end, the deal size, flowers, which claims exist, winning shapes, scoring and settlement) is
asked of its ``referee.game.family.Family``: Taiwan 16-tile (``referee.game.taiwan16``) and Chinese Classical
(``referee.game.classical.family``).

Surface (in the spirit of OpenSpiel's game API)::

    hand = Hand(wall, rules, dealer=1)
    events = hand.start()                  # the deal, up to the first question
    while not hand.is_over:
        q = hand.question                  # Question(seat, ask, legal answers)
        events = hand.apply(answer)        # IllegalAnswer (and no change) unless answer in q.legal
    hand.result                            # HandResult: outcome, wins with tai items, scores

Every ``Event`` carries its audience: the seats that may see it.  The flow follows docs/protocol.md exactly, and
is written once, as a generator that yields questions and receives answers: the order of questions in the code is
the order of questions in the rules.
"""

from __future__ import annotations

from bisect import bisect
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from .analysis import GROUP_OF, KEY_START, KEY_STEP, is_complete, standard_waits_of_keys, waits
from .family import Family, family_of
from .options import (
    eat_broadcast,
    eat_options,
    may_self_gong,
    meld_gong_option,
    pong_options,
    self_gong_options,
    throw_answer,
    with_pass,
)
from .records import record
from .taiwan16.rules import Ruleset
from .taiwan16.scoring import ScoreResult
from .tiles import ALL_TIDS, FLOWER_TIDS, INDEX, WINDS_IN_ORDER
from .types import (
    ALL_SEATS,
    GONG_CONCEALED,
    GONG_MELDED,
    GONG_PROMOTED,
    HU,
    PASS,
    Answer,
    Dealt,
    Declare,
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
    Question,
    Scored,
    Show,
    Throw,
    next_seat,
    seats_after,
)
from .wall import Wall, check_wall, deal_blocks

if TYPE_CHECKING:
    from .kinds import AskKind

HU_OR_PASS = (HU, PASS)
WinHow = Literal["self_draw", "throw", "robbed_gong", "flowers"]
# How the losing declarers are asked at a won hand's end (``Hand._flow_declaring``); a log's hand record names it
Declaring = Literal["together", "in_turn"]
DECLARING: tuple[Declaring, ...] = ("together", "in_turn")


class IllegalAnswer(ValueError):
    """An answer that is not among the question's legal answers; the message says why, for the fault log."""


class EngineError(RuntimeError):
    """The engine was used out of order (apply before start, apply after the end)."""


@record(frozen=True, slots=True)
class WinRecord:
    seat: int
    tile: int | None  # None for a flowers win
    how: WinHow
    thrower: int | None
    score: ScoreResult  # (a classical win: referee.game.classical.family.ClassicalScore, with the same ``tai``)
    payments: tuple[int, int, int, int]


@record(frozen=True, slots=True)
class HandResult:
    outcome: Literal["win", "draw"]
    wins: tuple[WinRecord, ...]
    scores: tuple[int, int, int, int]
    # What a family tells beyond the wins (classical: every player's score with its explanation, the settlement)
    detail: object = None

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(w.seat for w in self.wins)


def seat_wind(seat: int, dealer: int) -> str:
    """The dealer is EAST, then SOUTH, WEST, NORTH in turn order."""
    return WINDS_IN_ORDER[(seat - dealer) % 4]


_OTHERS = {p: frozenset(ALL_SEATS - {p}) for p in ALL_SEATS}
_AFTER = {p: seats_after(p) for p in ALL_SEATS}  # seats_after as a table, for the claim check of every throw
_THROW_AT = {t: throw_answer(t) for t in ALL_TIDS}  # the shared /throw answer objects, by TID
_ONLY = {p: frozenset((p,)) for p in ALL_SEATS}
# Throws and draws are most of a hand's events; being immutable, each possible one is made once and shared.
_THROWN = {p * 1000 + t: Throw(p, t) for p in ALL_SEATS for t in ALL_TIDS}
_DRAWN = {
    (p * 1000 + t) * 2 + r: Mo(p, t, bool(r), audience=_ONLY[p]) for p in ALL_SEATS for t in ALL_TIDS for r in (0, 1)
}
_FLOWERED = {p * 1000 + t: Flower(p, t) for p in ALL_SEATS for t in FLOWER_TIDS}  # (shared as _THROWN is)
# The dense kind index (tiles.INDEX) of every suit and honour TID, by TID: one list look-up where the hot paths
# would otherwise divide and look up a dict.  None for flowers and non-tiles (they never reach a count vector).
_KI: list[int | None] = [INDEX.get(t // 10) if t >= 100 else None for t in range(max(ALL_TIDS) + 1)]
# Per TID: the group (analysis.GROUP_OF) of its kind and what one tile of it adds to that group's key (KEY_STEP).
_KG: list[int] = [GROUP_OF[i] if i is not None else -1 for i in _KI]
_KS: list[int] = [KEY_STEP[i] if i is not None else 0 for i in _KI]
# Per dense index of a suit kind, the pairs of neighbouring indices that make a chow with it (none for honours).
_CHOW_PAIRS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple(
        (i + a, i + b)
        for a, b in ((-2, -1), (-1, 1), (1, 2))
        if i < 27 and 0 <= i % 9 + a and i % 9 + b <= 8
    )
    for i in range(34)
)


@dataclass(slots=True)
class _Seat:
    # ``concealed`` is ascending after the deal, and ``throws`` holds the /throw answer of each tile in the same
    # order: what options.throw_options builds, kept up to date a tile at a time (bisect on the way in), so that
    # the question of every turn copies a list instead of sorting the hand and looking an answer up per tile.
    concealed: list[int] = field(default_factory=list)
    throws: list[Answer] = field(default_factory=list)
    counts: list[int] = field(default_factory=lambda: [0] * 34)
    melds: list[Meld] = field(default_factory=list)
    flowers: list[int] = field(default_factory=list)
    river: list[int] = field(default_factory=list)  # thrown tiles not claimed
    draws: int = 0
    # The dense kind indices that complete the hand (analysis.waits), worked out when first needed and forgotten
    # when a tile comes or goes: a hand is asked about the throws of the three other seats between two changes of
    # its own.  Usually empty; a tuple, as "in" on a few items is faster than building a set.
    wins: tuple[int, ...] | None = None
    # The four group keys of ``counts`` (analysis.group_keys), kept up to date tile by tile: what the waits are
    # looked up by, without building a tuple per group.
    keys: list[int] = field(default_factory=lambda: list(KEY_START))

    def add(self, t: int) -> None:
        k = bisect(self.concealed, t)
        self.concealed.insert(k, t)
        self.throws.insert(k, _THROW_AT[t])
        self.counts[_KI[t]] += 1  # type: ignore[index]
        self.keys[_KG[t]] += _KS[t]
        self.wins = None

    def remove(self, t: int) -> None:
        k = self.concealed.index(t)
        del self.concealed[k]
        del self.throws[k]
        self.counts[_KI[t]] -= 1  # type: ignore[index]
        self.keys[_KG[t]] -= _KS[t]
        self.wins = None


class Hand:
    """One hand (``/initGame`` … ``/exit``)."""

    def __init__(
        self,
        wall: Wall | Sequence[int],
        rules: Ruleset | object,
        *,
        dealer: int = 1,
        round_wind: str = "EAST",
        hand_wind: str | None = None,
        cont: int = 0,
        check: bool = True,
        family: Family | None = None,
        hands_as_east: int = 0,
        declarers: frozenset[int] | set[int] = frozenset(),
        declaring: Declaring = "together",
    ) -> None:
        if not isinstance(wall, Wall):
            wall = Wall(tuple(wall))
        fam = family if family is not None else family_of(rules)
        if check:
            check_wall(wall.tiles, fam)
        if dealer not in ALL_SEATS:
            raise ValueError(f"dealer must be a seat 1..4, not {dealer}")
        self.rules = rules
        self.family = fam
        self.extra = fam.new_state()  # what the family keeps during the hand
        self._tracks = fam.tracks_sets
        self.hands_as_east = hands_as_east  # hands East has won in a row as East before this one (classical)
        self.wall = wall
        self.dealer = dealer
        self.round_wind = round_wind
        self.hand_wind = hand_wind if hand_wind is not None else WINDS_IN_ORDER[dealer - 1]
        self.cont = cont
        self._tiles = list(wall.tiles)
        self._front = 0
        self._back = len(self._tiles)
        # Live draws are made while ``_front < _live_end``; loose tiles (gong and flower replacements) come from
        # ``_back`` down, and the family says where the live wall ends after each (a dead wall of fixed size
        # behind the back, a dead wall kept at a size, or none).
        self._live_end = self._back - fam.dead_wall_start()
        self._seats = {p: _Seat() for p in ALL_SEATS}
        self._out: list[Event] = []
        self.question: Question | None = None
        self.result: HandResult | None = None
        self._flow_gen: Generator[Question, Answer, None] | None = None
        # flags for scoring
        self._claimed = False  # any eat, pong or gong so far (ends first-turn wins)
        self._throws = 0
        self._last_live_drawn = False
        self._after_gong = False
        self._last_drawn: dict[int, int] = {}  # per seat: its last draw (the dealer's 17th tile before any)
        self._draw_wins: bool | None = None  # whether the last draw completed the drawer's hand
        self._seven_pairs = fam.seven_pairs_and_pung  # read at every change of a hand: a plain attribute
        # Other shapes than sets and a pair (classical: seven pairs, Thirteen Unique Wonders); None when none
        self._special = fam.special_waits if type(fam).special_waits is not Family.special_waits else None
        self._special_keys = fam.special_keys
        # Who may rob a concealed gong (classical: for the Thirteen Unique Wonders); None when no one may
        self._robs_concealed = fam.robs_concealed_gong \
            if type(fam).robs_concealed_gong is not Family.robs_concealed_gong else None
        self._gongs_at = -1  # ``_throws`` when the last gong was made (a gong upon a gong: two in one turn)
        self._kong_upon_kong = False
        # Seats that declare their own sets when the hand is won (a client of mj-server's protocol); every other
        # seat's sets are declared for it, as the family scores best.  Only a family with declarations has them.
        if declarers and not fam.declarations:
            raise ValueError(f"{fam.name} has no declarations at the end of a hand")
        self._declarers = frozenset(declarers)
        if declaring not in DECLARING:
            raise ValueError(f"declaring must be one of {', '.join(DECLARING)}, not {declaring!r}")
        self.declaring = declaring  # how the losers are asked (``_flow_declaring``)
        self._won: list[tuple[int, int | None, WinHow, int | None]] | None = None  # the win, while sets are declared
        self.declared: dict[int, list[tuple[tuple[int, ...], bool]]] = {}  # per declarer: (tiles, claimed) in order

    # ------------------------------------------------------------------------------------------------ surface
    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def remaining(self) -> int:
        """Tiles not yet drawn (live and dead)."""
        return self._back - self._front

    def concealed(self, seat: int) -> list[int]:
        return sorted(self._seats[seat].concealed)

    def melds(self, seat: int) -> list[Meld]:
        return list(self._seats[seat].melds)

    def flowers(self, seat: int) -> list[int]:
        return list(self._seats[seat].flowers)

    def river(self, seat: int) -> list[int]:
        return list(self._seats[seat].river)

    def undrawn(self) -> list[int]:
        return self._tiles[self._front : self._back]

    def start(self) -> list[Event]:
        if self._flow_gen is not None:
            raise EngineError("the hand has already started")
        self._flow_gen = self._flow_declaring() if self._declarers else self._flow()
        return self._advance(None)

    def apply(self, answer: Answer) -> list[Event]:
        q = self.question
        if q is None or self._flow_gen is None:
            raise EngineError("no question is pending" if self._flow_gen else "the hand has not started")
        for a in q.legal:  # identity first: built-in seats answer with the very objects listed
            if a is answer:
                break
        else:  # a process bot's parsed answer: its fields compared here, not by a call of Answer.__eq__ per answer
            tiles, kind, mode = answer.tiles, answer.kind, answer.mode
            for a in q.legal:
                if a.tiles == tiles and a.kind == kind and a.mode == mode:
                    break
            else:
                raise IllegalAnswer(self.explain_illegal(q, answer))
        # _advance inlined: this runs once per question
        out: list[Event] = []
        self._out = out
        try:
            self.question = self._flow_gen.send(answer)
        except StopIteration:
            self.question = None
        return out

    def _advance(self, answer: Answer | None) -> list[Event]:
        assert self._flow_gen is not None
        out: list[Event] = []
        self._out = out
        try:
            self.question = self._flow_gen.send(answer)  # type: ignore[arg-type]
        except StopIteration:
            self.question = None
        return out

    # ------------------------------------------------------------------------------------------------ reasons
    def explain_illegal(self, q: Question, a: Answer) -> str:
        """Why ``a`` is not a legal answer to ``q`` (one line, for fault logs)."""
        if a.kind == "pass" and q.ask == "throw":
            return "/pass is not allowed: /ask throw must be answered with /throw"
        if a.kind != q.ask and a.kind != "pass":
            return f"/{a.kind} does not answer /ask {q.ask}"
        hand = self._seats[q.seat].concealed
        missing = [t for t in a.tiles if t not in hand]
        if a.kind == "throw":
            return f"tile {a.tiles[0] if a.tiles else '?'} is not in the hand" if missing else "not a legal throw"
        if a.kind == "gong" and a.mode == GONG_PROMOTED and len(a.tiles) == 1 and not missing:
            return f"no pong of tile {a.tiles[0]} to promote"
        if missing:
            return f"tile{'s' if len(missing) > 1 else ''} {' '.join(map(str, missing))} not in the hand"
        if len(set(a.tiles)) != len(a.tiles):
            return "the same tile named twice"
        if a.kind == "eat":
            return f"{' '.join(map(str, a.tiles))} do not make a chow with {q.tile}"
        if a.kind == "pong":
            return f"{' '.join(map(str, a.tiles))} do not make a pong with {q.tile}"
        if a.kind == "gong":
            allowed = sorted({x.mode for x in q.legal if x.kind == "gong" and x.mode is not None})
            if a.mode not in allowed:
                return f"/gong {a.mode} is not possible here (possible: {', '.join(f'/gong {m}' for m in allowed)})"
            return f"{' '.join(map(str, a.tiles))} do not make the gong claimed"
        return f"{a} is not a legal answer to /ask {q.ask}"

    # ------------------------------------------------------------------------------------------------ helpers
    def _emit(self, event: Event) -> None:
        self._out.append(event)

    def _ask(self, seat: int, ask: AskKind, legal: tuple[Answer, ...], tile: int | None = None) -> Question:
        return Question(seat, ask, legal, tile)

    def _can_replace(self) -> bool:
        """Whether a gong may be offered: while its replacement draw can still be made, or (where the family
        says: classical) at any time, the hand ending in a draw when the replacement cannot be drawn."""
        fam = self.family
        return not fam.gong_needs_loose or fam.can_loose(self._front, self._live_end, self._back)

    def _take_loose(self) -> int:
        """The next loose tile, from the back; the live wall's end moved as the family says."""
        self._back -= 1
        self._live_end = self.family.live_end_after_loose(self._front, self._live_end, self._back)
        return self._tiles[self._back]

    def _can_win_on(self, seat: int, tile: int) -> bool:
        """Whether ``tile`` completes ``seat``'s hand (3k+1 concealed tiles: the seat is not in its own turn)."""
        s = self._seats[seat]
        w = s.wins
        if w is None:
            w = self._wins(s)
        return INDEX[tile // 10] in w

    def _wins(self, s: _Seat) -> tuple[int, ...]:
        """``s.wins``, worked out and kept: sets and a pair, or Taiwan's seven pairs and a pung; for a family with
        other shapes (``Family.special_waits``: classical), a hand without melds may also wait on them.  One method
        for every family, called through the class: a bound method kept on the hand would be a plain attribute to
        the interpreter, and a second frame per call cost classical random play some 2%."""
        if self._special is not None:
            w = standard_waits_of_keys(s.keys)
            if not s.melds and (self._special_keys is None or s.keys[3] in self._special_keys):
                extra = self._special(s.counts, s.keys)
                if extra:
                    w = tuple(sorted(set(w) | set(extra)))
        elif self._seven_pairs:
            w = tuple(INDEX[k] for k in waits(s.counts, seven_pairs_and_pung=True))
        else:
            w = standard_waits_of_keys(s.keys)
        s.wins = w
        return w

    def _end_in_draw(self) -> None:
        self.result = HandResult("draw", (), (0, 0, 0, 0))
        self._emit(Exit((0, 0, 0, 0)))

    # ------------------------------------------------------------------------------------------------ the deal
    def _deal(self) -> None:
        tiles, seats = self._tiles, self._seats
        order = [next_seat(self.dealer, i) for i in range(4)]
        front = self._front
        for size in deal_blocks(self.family.deal_size):
            for p in order:
                seats[p].concealed.extend(tiles[front : front + size])
                front += size
        seats[self.dealer].concealed.append(tiles[front])
        self._last_drawn[self.dealer] = tiles[front]
        self._front = front + 1
        self._emit(
            InitGame(self.round_wind, self.hand_wind, self.wall.open_seat(self.dealer), self.dealer, self.cont)
        )
        # A declaring seat (a client of mj-server's protocol) is told its deal as dealt: in the wall's order, with
        # its flowers' replacements in the order drawn (mj-player's play follows the order its tiles came in).
        dealt = {p: tuple(seats[p].concealed) for p in self._declarers}
        self._loose_drawn: dict[int, list[int]] = {p: [] for p in self._declarers}
        # Flowers are set aside and replaced (from the back, or from the live wall where the family says so),
        # seat by seat from the dealer, until none is left.
        if self.family.flowers:
            loose = self.family.flower_loose
            by_seat = self.family.deal_flowers_by_seat
            changed = True
            while changed:
                changed = False
                for p in order:
                    s = seats[p]
                    if min(s.concealed) >= 100:  # (no flower: one C-level pass, the usual case)
                        continue
                    # each flower held, and (where the family says: classical, as mj-server) the flowers among
                    # their replacements too, before the next seat's
                    while (held := [t for t in s.concealed if t < 100]):
                        self._replace_flowers(p, s, held, loose)
                        changed = True
                        if not by_seat:
                            break
        for p in order:
            s = seats[p]
            s.concealed.sort()
            s.throws = [_THROW_AT[t] for t in s.concealed]
            counts, keys = s.counts, s.keys
            for t in s.concealed:
                counts[_KI[t]] += 1  # type: ignore[index]
                keys[_KG[t]] += _KS[t]
            self._emit(InitCard(p, tuple(s.concealed), audience=_ONLY[p]))
            if p in dealt:
                self._emit(Dealt(p, dealt[p], tuple(self._loose_drawn[p]), audience=_ONLY[p]))

    def _replace_flowers(self, p: int, s: _Seat, held: list[int], loose: bool) -> None:
        """The deal's flowers ``held`` by ``p`` set aside, each replaced from the loose end or the live wall."""
        tiles = self._tiles
        for t in held:
            s.concealed.remove(t)
            s.flowers.append(t)
            self._emit(_FLOWERED[p * 1000 + t])
            if loose:
                r = self._take_loose()
            else:
                r = tiles[self._front]
                self._front += 1
            s.concealed.append(r)
            if p in self._loose_drawn:
                self._loose_drawn[p].append(r)
            if self._last_drawn.get(p) == t:  # the dealer's last dealt tile was a flower
                self._last_drawn[p] = r

    def _draw(self, p: int, *, replacement: bool, after_gong: bool = False) -> bool:
        """Draw for ``p``: live from the front, replacements from the back.  False when the hand ended."""
        s = self._seats[p]
        fam = self.family
        while True:
            if not (fam.can_loose(self._front, self._live_end, self._back) if replacement
                    else self._front < self._live_end):
                self._end_in_draw()
                return False
            if replacement:
                t = self._take_loose()
            else:
                t = self._tiles[self._front]
                self._front += 1
            if t < 100:  # a flower: set aside, then a replacement (from the back, unless the family says not)
                s.flowers.append(t)
                self._emit(_FLOWERED[p * 1000 + t])
                if fam.flower_wins:
                    if len(s.flowers) == 8:
                        self._win_flowers(p)
                        return False
                    for q in seats_after(p):
                        if len(self._seats[q].flowers) == 7:  # 七搶一: seven flowers rob the eighth as it is drawn
                            self._seats[q].flowers.append(s.flowers.pop())
                            self._win_flowers(q)
                            return False
                replacement = fam.flower_loose
                continue
            self._draw_wins = self._can_win_on(p, t)  # usually known already: the seat's hand has not changed
            s.add(t)
            s.draws += 1
            self._last_drawn[p] = t
            self._after_gong = after_gong
            self._last_live_drawn = self._front >= self._live_end
            self._emit(_DRAWN[(p * 1000 + t) * 2 + replacement])
            return True

    # ------------------------------------------------------------------------------------------------ endings
    def _finish(self, wins: list[tuple[int, int | None, WinHow, int | None]]) -> None:
        """The hand is won: the family scores it and settles; ``/exit`` carries the settlement.  With declarers,
        their declarations come first (``_flow_declaring``)."""
        if self._declarers:
            self._won = wins
            return
        self._score(wins)

    def _score(self, wins: list[tuple[int, int | None, WinHow, int | None]]) -> None:
        result = self.family.score(self, wins)
        self.result = result
        self._emit(Exit(result.scores))

    def _win_self(self, p: int, tile: int) -> None:
        rest = list(self._seats[p].concealed)
        rest.remove(tile)
        self._emit(Hu(p, tile, tuple(sorted(rest))))
        self._finish([(p, tile, "self_draw", None)])

    def _win_on_tile(self, winners: list[int], thrower: int, tile: int, *, robbed: bool) -> None:
        for q in winners:
            self._emit(Hu(q, tile, tuple(sorted(self._seats[q].concealed))))
        self._finish([(q, tile, "robbed_gong" if robbed else "throw", thrower) for q in winners])

    def _win_flowers(self, p: int) -> None:
        s = self._seats[p]
        self._emit(Hu(p, s.flowers[-1], tuple(sorted(s.concealed))))
        self._finish([(p, None, "flowers", None)])

    # ------------------------------------------------------------------------------------------------ the flow
    def _flow_declaring(self) -> Generator[Question, Answer, None]:
        """The hand, then, once it is won, the declarations: the winner first, asked ``declare`` set by set
        (``Family.declare_options``) until it has no set left to declare; its score; then the other declarers, each
        until it has no set left or answers ``pass`` (its other tiles are then shown); then the scoring.  The losers
        are asked ``together`` (a set each in turn order, round and round, as mj-server lets them declare side by
        side: each decides its next set while the others' are checked) or, in a log written before there was a
        choice, ``in_turn`` (each loser's sets, then the next loser's)."""
        yield from self._flow()
        wins = self._won
        if wins is None:
            return
        p, tile, how, _thrower = wins[0]
        if p in self._declarers:
            claim = tile if tile is not None and how in ("throw", "robbed_gong") else None
            rest = sorted(self._seats[p].concealed if claim is None else (*self._seats[p].concealed, claim))
            yield from self._declarer(p, rest, claim, winner=True)
        else:  # a winner that declares nothing: the sets that score best, declared for it
            self.declared[p] = self.family.best_declaration(self, wins)
            for tiles, claimed in self.declared[p]:
                self._emit(Declare(p, tiles, claimed))
        self._announce_winner(wins)
        losers = [self._declarer(q, sorted(self._seats[q].concealed), None, winner=False)
                  for q in seats_after(p) if q in self._declarers]
        if self.declaring == "in_turn":
            for one in losers:
                yield from one
        else:
            asking: list[tuple[Generator[Question, Answer, None], Question]] = []
            for one in losers:
                first = next(one, None)
                if first is not None:
                    asking.append((one, first))
            while asking:
                going = []
                for one, q in asking:
                    a = yield q
                    try:
                        going.append((one, one.send(a)))
                    except StopIteration:
                        pass
                asking = going
        self._score(wins)

    def _declarer(self, q: int, rest: list[int], claim: int | None, *, winner: bool
                  ) -> Generator[Question, Answer, None]:
        """Seat ``q``'s declarations, a question a set, from its tiles ``rest`` (the winner's with the discard it
        took, ``claim``, which its first set must take)."""
        s = self._seats[q]
        made = self.declared.setdefault(q, [])
        while True:
            legal = self.family.declare_options(rest, s.melds, made, winner=winner, claim=claim)
            if not legal:
                return
            a = yield Question(q, "declare", legal, claim)
            if a.kind == "pass":
                self._emit(Show(q, tuple(rest)))
                return
            for t in a.tiles:
                rest.remove(t)
            made.append((a.tiles, a.mode == 1))
            self._emit(Declare(q, a.tiles, a.mode == 1))
            claim = None
            if not rest:  # every tile declared: the hand is shown (mj-server asks nothing more)
                return

    def _announce_winner(self, wins: list[tuple[int, int | None, WinHow, int | None]]) -> None:
        """The winner's score, once its sets are known and before the losers declare theirs (mj-server's order)."""
        player = self.family.winner_score(self, wins)
        self._emit(Scored(player.seat, player.score, "\n".join(player.explanation)))

    def _flow(self) -> Generator[Question, Answer, None]:
        self._deal()
        if self.family.flower_wins:
            for p in ALL_SEATS:
                if len(self._seats[p].flowers) == 8:
                    self._win_flowers(p)
                    return
        p = self.dealer
        mode = "turn"  # the dealer's first turn: its dealt tiles and one more, no draw
        seats = self._seats
        tiles = self._tiles
        fam = self.family
        flowers_live = fam.flowers and not fam.flower_loose and not fam.flower_wins
        # The common turn (a live draw that is no flower, no win, no gong, nobody able to claim the throw) runs
        # here, without a nested generator or a call per step; anything else goes through _draw, _own_turn and
        # _claims, which follow docs/protocol.md step by step.
        wins: bool | None = None  # whether the hand in turn is complete; None: not known yet (ask _take_draw_wins)
        while True:
            s = seats[p]
            if mode == "draw":
                front = self._front
                if front < self._live_end and tiles[front] >= 100:
                    # _draw's usual case inlined: a live tile, not a flower
                    t = tiles[front]
                    self._front = front + 1
                    i: int = _KI[t]  # type: ignore[assignment]
                    w = s.wins  # the hand before the draw: usually known already from the others' throws
                    if w is None:
                        w = self._wins(s)
                    wins = i in w
                    k = bisect(s.concealed, t)  # s.add(t) inlined
                    s.concealed.insert(k, t)
                    s.throws.insert(k, _THROW_AT[t])
                    s.counts[i] += 1
                    s.keys[_KG[t]] += _KS[t]
                    s.wins = None
                    s.draws += 1
                    self._last_drawn[p] = t
                    self._after_gong = False
                    self._last_live_drawn = front + 1 == self._live_end
                    self._out.append(_DRAWN[(p * 1000 + t) * 2])
                elif flowers_live and front < self._live_end:
                    # a flower from the live wall, replaced from it (classical, FlowersLoose off): set aside, and
                    # the seat draws again (_draw's work for it, without its calls)
                    t = tiles[front]
                    s.flowers.append(t)
                    self._out.append(_FLOWERED[p * 1000 + t])
                    self._front = front + 1
                    continue
                elif not self._draw(p, replacement=False):
                    return
                mode = "turn"
            if mode == "turn":
                if wins is None:  # after a flower or a gong's replacement, and the dealer's first 17 tiles
                    wins = self._take_draw_wins(p)
                # _may_gong inlined: ``may_self_gong`` needs four of a kind in hand or a meld to promote
                c = s.counts
                if wins or ((4 in c or s.melds) and may_self_gong(c, s.melds) and self._can_replace()):
                    ended = yield from self._own_turn(p, wins)
                    if ended:
                        return
                wins = None
            a = yield Question(p, "throw", tuple(s.throws))  # = throw_options(s.concealed)
            t = a.tiles[0]
            k = s.concealed.index(t)  # s.remove(t) inlined
            del s.concealed[k]
            del s.throws[k]
            s.counts[_KI[t]] -= 1  # type: ignore[index]
            s.keys[_KG[t]] -= _KS[t]
            s.wins = None
            s.river.append(t)
            self._throws += 1
            self._out.append(_THROWN[p * 1000 + t])
            claimants = self._claimants(p, t)
            if claimants is None:
                p, mode = p % 4 + 1, "draw"  # next_seat(p)
                continue
            outcome, q = yield from self._claims(p, t, *claimants)
            if outcome == "over":
                return
            if outcome == "none":
                p, mode = p % 4 + 1, "draw"  # next_seat(p)
            elif outcome == "gong":
                p, mode = q, "turn"
            else:  # eat or pong: straight to the throw
                p, mode = q, "throw"

    def _claimants(self, p: int, t: int) -> tuple[list[int], int | None, bool] | None:
        """Who may be asked about ``p``'s throw ``t`` (docs/protocol.md, flow 4): the seats that can win on it, in turn
        order; the one seat holding two or three of its kind; whether the next seat can make a chow with it.
        None when nobody can claim it (the usual case: the turn passes without a question)."""
        seats = self._seats
        q1, q2, q3 = _AFTER[p]
        s1, s2, s3 = seats[q1], seats[q2], seats[q3]
        i: int = _KI[t]  # type: ignore[assignment]
        # Each seat's waits are kept until its hand changes (_Seat.wins); _can_win_on inlined: three seats per throw
        w1 = s1.wins
        if w1 is None:
            w1 = self._wins(s1)
        w2 = s2.wins
        if w2 is None:
            w2 = self._wins(s2)
        w3 = s3.wins
        if w3 is None:
            w3 = self._wins(s3)
        eat = False
        if t < 400:  # a suit tile: can the next seat make a chow with it?
            c = s1.counts
            for a, b in _CHOW_PAIRS[i]:
                if c[a] and c[b]:
                    eat = True
                    break
        h1, h2, h3 = s1.counts[i] >= 2, s2.counts[i] >= 2, s3.counts[i] >= 2
        if not (eat or h1 or h2 or h3 or i in w1 or i in w2 or i in w3):
            return None  # the usual throw: one look-up per seat, nothing built
        winners = []
        if i in w1:
            winners.append(q1)
        if i in w2:
            winners.append(q2)
        if i in w3:
            winners.append(q3)
        holder = q1 if h1 else q2 if h2 else q3 if h3 else None
        return winners, holder, eat

    def _take_draw_wins(self, p: int) -> bool:
        """Whether ``p``'s hand is complete now: the answer its draw worked out (from the group states it already
        had), or a full check for the dealer's first 17 tiles."""
        wins = self._draw_wins
        self._draw_wins = None
        if wins is None:
            s = self._seats[p]
            if is_complete(s.counts, seven_pairs_and_pung=self._seven_pairs):
                return True
            return self._special is not None and not s.melds and self.family.is_special(s.counts)
        return wins

    def _gong_made(self) -> None:
        """A gong: a second one before any throw is a gong upon a gong (classical's Kong upon Kong)."""
        self._kong_upon_kong = self._gongs_at == self._throws
        self._gongs_at = self._throws

    def _may_gong(self, p: int) -> bool:
        """A cheap test: could ``p`` have a concealed gong or a promotion to declare now?"""
        s = self._seats[p]
        return self._can_replace() and may_self_gong(s.counts, s.melds)

    def _own_turn(self, p: int, wins: bool) -> Generator[Question, Answer, bool]:
        """Self-draw win (``wins``: the hand is complete), then concealed gongs and promotions, each followed by a
        replacement draw."""
        s = self._seats[p]
        while True:
            if wins:
                a = yield self._ask(p, "hu", HU_OR_PASS)
                if a.kind == "hu":
                    self._win_self(p, self._last_drawn[p])
                    return True
            if not self._may_gong(p):
                return False
            opts = self_gong_options(s.concealed, s.melds)
            if not opts:
                return False
            a = yield self._ask(p, "gong", with_pass(opts))
            if a.kind != "gong":
                return False
            self._claimed = True
            self._gong_made()
            if a.mode == GONG_CONCEALED:
                for t in a.tiles:
                    s.remove(t)
                s.melds.append(Meld("concealed_gong", a.tiles))
                if self.family.concealed_gong_shown:  # classical: declared face up, to all (mj-server)
                    self._emit(Gong(p, GONG_CONCEALED, a.tiles))
                else:
                    self._emit(Gong(p, GONG_CONCEALED, a.tiles, audience=_ONLY[p]))
                    self._emit(Gong(p, GONG_CONCEALED, (), audience=_OTHERS[p]))
                if self._tracks:
                    self.family.set_made(self, p, None, None)
                if self._robs_concealed is not None and (yield from self._rob_concealed(p, a.tiles)):
                    return True
            elif (yield from self._promote(p, a.tiles[0])):
                return True
            if not self._draw(p, replacement=True, after_gong=True):
                return True
            wins = self._take_draw_wins(p)

    def _promote(self, p: int, t: int) -> Generator[Question, Answer, bool]:
        """``p`` adds ``t`` to its pong of that kind; the others may rob it (``rob_kong``).  Whether the hand ended
        (robbed); else the promoter draws its replacement next."""
        s = self._seats[p]
        s.remove(t)
        i = next(i for i, m in enumerate(s.melds) if m.type == "pong" and m.kind == t // 10)
        old = s.melds[i]
        s.melds[i] = Meld("gong", tuple(sorted((*old.tiles, t))), old.claimed, old.source, promoted=True)
        self._emit(Gong(p, GONG_PROMOTED, (t,)))
        if self._tracks:
            self.family.set_made(self, p, None, None)
        if self.family.rob_kong:
            winners = yield from self._ask_hu_round([q for q in seats_after(p) if self._can_win_on(q, t)], t)
            if winners:
                s.melds[i] = old  # the robbed tile goes to the winner: the promoter keeps its pong
                self._win_on_tile(winners, p, t, robbed=True)
                return True
        return False

    def _rob_concealed(self, p: int, tiles: tuple[int, ...]) -> Generator[Question, Answer, bool]:
        """``p``'s concealed gong of ``tiles`` just declared: the seats the family lets rob it (``robs_concealed_gong``)
        are asked, in turn; the first yes goes out on ``tiles[0]`` and the gong becomes ``p``'s concealed pung of the
        other three (as mj-server's ``player_kong_is_robbed``).  Whether the hand ended."""
        assert self._robs_concealed is not None
        t, k = tiles[0], INDEX[tiles[0] // 10]
        seats = self._seats
        robbers = [q for q in seats_after(p) if self._robs_concealed(seats[q].counts, seats[q].melds, k)]
        if not robbers:
            return False
        winners = yield from self._ask_hu_round(robbers, t)
        if not winners:
            return False
        melds = seats[p].melds
        melds[-1] = Meld("concealed_pong", tuple(sorted(tiles[1:])))
        self._win_on_tile(winners, p, t, robbed=True)
        return True

    def _ask_hu_round(self, candidates: list[int], tile: int) -> Generator[Question, Answer, list[int]]:
        """``/ask hu`` to each of ``candidates`` (the seats that can win on ``tile``, in turn order), one at a
        time; the first yes wins (every yes, with ``multiple_winners``)."""
        winners: list[int] = []
        for q in candidates:
            a = yield self._ask(q, "hu", HU_OR_PASS, tile)
            if a.kind == "hu":
                winners.append(q)
                if not self.family.multiple_winners:
                    break
        return winners

    def _claims(
        self, p: int, t: int, can_win: list[int], holder: int | None, eat: bool
    ) -> Generator[Question, Answer, tuple[str, int]]:
        """docs/protocol.md, flow 4: hu in turn order, then the one pong/gong seat, then the next seat's eat; who may
        be asked is ``_claimants``' answer."""
        fam = self.family
        if can_win:  # (a guard: most claims are pongs and eats, and a generator is made per round)
            winners = yield from self._ask_hu_round(can_win, t)
            if winners:
                self._seats[p].river.pop()
                self._win_on_tile(winners, p, t, robbed=False)
                return ("over", 0)
        nxt = p % 4 + 1  # next_seat(p)
        if holder is not None:
            q = holder
            s = self._seats[q]
            if s.counts[INDEX[t // 10]] == 3 and (fam.gong_from_previous_player or q != nxt) and self._can_replace():
                option = meld_gong_option(s.concealed, t)
                assert option is not None
                a = yield self._ask(q, "gong", (option, PASS), t)
                if a.kind == "gong":
                    self._claimed = True
                    self._gong_made()
                    self._seats[p].river.pop()
                    for x in a.tiles:
                        s.remove(x)
                    tiles = tuple(sorted((*a.tiles, t)))
                    s.melds.append(Meld("gong", tiles, t, p))
                    self._emit(Gong(q, GONG_MELDED, tiles))
                    if self._tracks:
                        fam.set_made(self, q, None, None)
                    if not self._draw(q, replacement=True, after_gong=True):
                        return ("over", 0)
                    return ("gong", q)
            a = yield self._ask(q, "pong", with_pass(pong_options(s.concealed, t)), t)
            if a.kind == "pong":
                self._claimed = True
                self._seats[p].river.pop()
                for x in a.tiles:
                    s.remove(x)
                tiles3 = tuple(sorted((*a.tiles, t)))
                s.melds.append(Meld("pong", tiles3, t, p))
                self._emit(Pong(q, tiles3))  # type: ignore[arg-type]
                if self._tracks:
                    fam.set_made(self, q, p, t)
                if fam.add_to_claimed_pung and s.counts[INDEX[t // 10]] == 1 and self._can_replace():
                    # the pung's fourth tile in hand (mj-server 1.11): the claim may become a kong at once
                    fourth = next(x for x in s.concealed if x // 10 == t // 10)
                    a = yield self._ask(q, "gong", (Answer("gong", (fourth,), GONG_PROMOTED), PASS))
                    if a.kind == "gong":
                        self._claimed = True
                        self._gong_made()
                        if (yield from self._promote(q, fourth)):
                            return ("over", 0)
                        if not self._draw(q, replacement=True, after_gong=True):
                            return ("over", 0)
                        return ("gong", q)
                return ("pong", q)
        s = self._seats[nxt]
        opts = eat_options(s.concealed, t) if eat else None
        if opts:
            a = yield self._ask(nxt, "eat", with_pass(opts), t)
            if a.kind == "eat":
                self._claimed = True
                self._seats[p].river.pop()
                for x in a.tiles:
                    s.remove(x)
                s.melds.append(Meld("eat", tuple(sorted((*a.tiles, t))), t, p))
                self._emit(Eat(nxt, eat_broadcast(t, (a.tiles[0], a.tiles[1]))))
                if self._tracks:
                    fam.set_made(self, nxt, p, t)
                return ("eat", nxt)
        return ("none", 0)


def all_tiles(rules: Ruleset | object) -> tuple[int, ...]:
    return family_of(rules).wall_tiles()



__all__ = ["DECLARING", "Declaring", "EngineError", "Hand", "HandResult", "IllegalAnswer", "WinRecord", "all_tiles",
           "seat_wind"]

"""Chinese Classical as the engine plays it: the family's decisions (``referee.game.family``) under mj-server's
GameOptions.

* The wall: 144 tiles with the four flowers and four seasons (``Flowers``), else 136.  The dead wall
  (``DeadWall``) is 14 tiles kept at 13 or 14 (two live tiles join it after every second loose tile), or 16 and
  unreplenished (``DeadWall16``); without a dead wall every tile may be drawn and loose tiles come from the end.
  A hand with no live tile left at a draw is a washout.
* The deal: 13 tiles a player (East 14); flowers and seasons are set aside and replaced from the loose tiles
  (``FlowersLoose``) or the live wall.  They never win by themselves.
* Claims: Mah-Jong (any player, the first after the discarder), then pung or kong (from any player, the previous
  one included), then the next player's chow; an added kong may be robbed for Mah-Jong; a kong's replacement is a
  loose tile.
* Winning shapes: four sets and a pair, seven pairs (``SevenPairs``) and the Thirteen Unique Wonders.
* The end: every player is scored with the declaration of its undeclared tiles that scores highest (a bot
  declares nothing: ``arrange.best_arrangement``), with mj-server's explanation; the settlement is mj-server's
  (``scoring.settle``: ``EastDoubles``, ``LosersSettle``, ``DiscDoubles``, letting off a cannon, whose danger
  flags are kept as the play goes, ``danger``).  East keeps the deal when it wins, and after a washout.

Tiles are the engine's TIDs (``referee.game.tiles``); the scoring code speaks mj-server's codes (``tiles``):
``CODE`` maps one to the other.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import chain, product
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from referee.game.analysis import group_keys
from referee.game.classical.arrange import best_arrangement, next_declarations, score_declared
from referee.game.classical.danger import HANDS, mark_discard, parts_danger, set_part
from referee.game.classical.hand import CLOSED, TileSet
from referee.game.classical.hand import Hand as ClassicalHand
from referee.game.classical.options import GameOptions
from referee.game.classical.scoring import Danger, Situation, Whence, settle
from referee.game.classical.tiles import CHOW_REST, PLAYING
from referee.game.family import Family
from referee.game.match_options import MATCH_FIELDS, check_fault_penalty
from referee.game.records import record
from referee.game.tiles import ALL_TIDS, ALL_TIDS_WITH_FLOWERS
from referee.game.types import PASS, Answer, Meld

if TYPE_CHECKING:
    from referee.game.engine import Hand, HandResult, WinHow


def _code(kind: int) -> str:
    """mj-server's code of a TID's kind (wan are characters, tiao bamboo, tong circles; flowers 1-4 are the
    seasons Spring to Winter, 5-8 the flowers Plum, Orchid, Chrysanthemum, Bamboo)."""
    if kind < 10:
        return f"{kind}S" if kind <= 4 else f"{kind - 4}F"
    if kind < 40:
        return f"{kind % 10}{'CBD'[kind // 10 - 1]}"
    return {41: "EW", 42: "WW", 43: "SW", 44: "NW", 45: "RD", 46: "GD", 47: "WD"}[kind]


CODE: dict[int, str] = {t: _code(t // 10) for t in ALL_TIDS_WITH_FLOWERS}
"""mj-server's tile code of every TID."""
WIND_CODE = {"EAST": "EW", "SOUTH": "SW", "WEST": "WW", "NORTH": "NW"}

_MAJOR = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)  # dense indices of the Thirteen Unique Wonders
_MAJOR_SET = frozenset(_MAJOR)


def thirteen_wonders_waits(counts: Sequence[int]) -> tuple[int, ...]:
    """The dense indices that make 13 concealed tiles the Thirteen Unique Wonders."""
    if counts[27:34].count(0) > 1:  # asked at every change of a hand without melds: most fail here
        return ()
    if any(counts[i] for i in range(34) if i not in _MAJOR_SET):
        return ()
    held = [counts[i] for i in _MAJOR]
    if max(held) == 1:
        return _MAJOR
    if max(held) == 2 and held.count(2) == 1 and held.count(0) == 1:
        return (_MAJOR[held.index(0)],)
    return ()


def _wonder_keys() -> frozenset[int]:
    """The honour group keys (``analysis.group_keys``) of 13 tiles that can wait on the Thirteen Unique Wonders: every
    honour held once or twice, with at most one missing and at most one held twice."""
    out = set()
    for counts in product((0, 1, 2), repeat=7):
        if counts.count(0) <= 1 and counts.count(2) <= 1:
            out.add(group_keys([0] * 27 + list(counts))[3])
    return frozenset(out)


WONDER_KEYS = _wonder_keys()


def seven_pairs_waits(counts: Sequence[int]) -> tuple[int, ...]:
    """The dense index that makes 13 concealed tiles seven pairs (four of a kind is two pairs, as mj-server
    counts)."""
    odd = [i for i in range(34) if counts[i] % 2]
    return (odd[0],) if len(odd) == 1 and sum(counts) == 13 else ()


def _wonders_by_keys(counts: Sequence[int], keys: Sequence[int] | None = None) -> tuple[int, ...]:
    """``thirteen_wonders_waits``, with the honours' group key looked at first: the engine's common case, asked at
    every change of a hand without melds, is one set look-up."""
    if keys is not None and keys[3] not in WONDER_KEYS:
        return ()
    return thirteen_wonders_waits(counts)


class ClassicalFamily(Family):
    name = "classical"
    deal_size = 13
    flower_wins = False
    gong_from_previous_player = True
    rob_kong = True
    add_to_claimed_pung = True  # mj-server 1.11 (protocol 1110): a pung claim corrected to a kong
    gong_needs_loose = False  # mj-server allows a kong with no loose tile left: a washout, unless it is robbed
    multiple_winners = False
    tracks_sets = True
    deal_flowers_by_seat = True  # mj-server replaces a seat's flowers, and theirs, before the next seat's
    concealed_gong_shown = True  # mj-server shows a declared concealed kong's tile to every player
    declarations = True

    def __init__(self, rules: GameOptions | _ClassicalBase) -> None:
        self.rules = rules
        o = rules.options if isinstance(rules, _ClassicalBase) else rules
        self.options = o
        self.flowers = o.Flowers
        self.flower_loose = o.FlowersLoose
        self._dead = (16 if o.DeadWall16 else 14) if o.DeadWall else 0
        if not o.SevenPairs:  # the Thirteen Unique Wonders alone: the honours tell at once (WONDER_KEYS)
            self.special_keys = WONDER_KEYS
            self.special_waits = _wonders_by_keys  # type: ignore[method-assign]

    def wall_tiles(self) -> tuple[int, ...]:
        return ALL_TIDS_WITH_FLOWERS if self.flowers else ALL_TIDS

    def dead_wall_start(self) -> int:
        return self._dead

    def live_end_after_loose(self, front: int, live_end: int, back: int) -> int:
        o = self.options
        if not o.DeadWall:
            return back
        if not o.DeadWall16 and back - live_end < 13:
            return live_end - 2  # two tiles of the live wall join the dead wall
        return live_end

    def can_loose(self, front: int, live_end: int, back: int) -> bool:
        return back > live_end if self.options.DeadWall else back > front

    def special_waits(self, counts: Sequence[int], keys: Sequence[int] | None = None) -> tuple[int, ...]:
        w = thirteen_wonders_waits(counts) if keys is None or keys[3] in WONDER_KEYS else ()
        if self.options.SevenPairs:
            w = tuple(sorted(set(w) | set(seven_pairs_waits(counts))))
        return w

    def robs_concealed_gong(self, counts: Sequence[int], melds: Sequence[Any], index: int) -> bool:
        """For the Thirteen Unique Wonders only (mj-server's game.c: "closed kongs can be robbed only for thirteen
        unique wonders"; Kajongg's Thirteen Orphans likewise, ``Omayrobhiddenkong``)."""
        return not melds and index in thirteen_wonders_waits(counts)

    def is_special(self, counts: Sequence[int]) -> bool:
        """14 concealed tiles that are the Thirteen Unique Wonders, or seven pairs (``SevenPairs``; four of a kind
        is two pairs)."""
        if sum(counts) != 14:
            return False
        if (0 not in counts[27:34] and all(counts[i] for i in _MAJOR)  # (every honour first: one C-level look)
                and not any(counts[i] for i in range(34) if i not in _MAJOR_SET)):
            return True
        return self.options.SevenPairs and all(c % 2 == 0 for c in counts)

    # ------------------------------------------------------------------------------------------------ danger
    def new_state(self) -> ClassicalState:
        return ClassicalState.new()

    def set_made(self, hand: Hand, claimer: int, thrower: int | None, tile: int | None) -> None:
        """A set was made by ``claimer`` (with ``thrower``'s discard ``tile``, for a pung or chow): its danger
        flags, and a dangerous discard marked (``danger.mark_discard``)."""
        st: ClassicalState = hand.extra
        c = (claimer - hand.dealer) % 4
        # a discard is dangerous only when it feeds a dangerous hand of the claimer's, or near the wall's end
        if thrower is not None and tile is not None and (
                int(st.flags[c][c]) & HANDS or hand._live_end - hand._front <= 4):
            self._mark(hand, st, c, thrower, tile)
        melds = hand._seats[claimer].melds
        # one set threatens no dangerous hand (they need two dragon sets, three of winds or of one suit)
        if len(melds) > 1:
            st.flags[c][c] = parts_danger([_PART[m.type][m.tiles[0]] for m in melds])
        else:
            st.flags[c][c] = Danger.END

    def _mark(self, hand: Hand, st: ClassicalState, c: int, thrower: int, tile: int, won: bool = False) -> None:
        live_left = hand._live_end - hand._front
        discarded: Counter[str] = Counter()
        if live_left <= 4:  # the tiles discarded so far matter only near the end of the wall
            seats = hand._seats.values()
            code = CODE.__getitem__  # (every copy of a kind has its kind's code; Counter counts a map in C)
            discarded = Counter(map(code, chain.from_iterable(s.river for s in seats)))
            discarded.update(map(code, [m.claimed for s in seats for m in s.melds if m.claimed is not None]))
            if won:
                discarded[CODE[tile]] += 1

        def end_danger(t: str) -> bool:
            return live_left <= 4 and discarded[t] <= 1

        sup = (thrower - hand.dealer) % 4
        # (the supplier's tiles are looked at only when the discard was dangerous)
        mark_discard(st.flags, c, sup, CODE[tile], (CODE[t] for t in hand._seats[thrower].concealed), end_danger)

    # ------------------------------------------------------------------------------------------------ the end
    def score(self, hand: Hand, wins: Sequence[tuple[int, int | None, WinHow, int | None]]) -> HandResult:
        from referee.game.engine import HandResult, WinRecord

        (p, tile, how, thrower), = wins  # mj-server: one winner (multiple_winners is off)
        assert tile is not None
        o = self.options
        st: ClassicalState = hand.extra
        dealer = hand.dealer
        w = _east_index(p, dealer)
        if how in ("throw", "robbed_gong") and thrower is not None:
            # a robbed kong's tile feeds a dangerous hand as a discard would (mj-server marks the supplier when the
            # winner declares the set the tile went to, whether discarded or robbed); it is no discard in the count
            # of discarded tiles the end of the wall looks at
            self._mark(hand, st, w, thrower, tile, won=how == "throw")
        whence, base = self._table(hand, p, tile, how, thrower)
        players: list[PlayerScore] = []
        values = [0, 0, 0, 0]
        winner_danger = Danger(0)
        for q in (1, 2, 3, 4):
            # (the winner's as ``winner_score`` gave it: nothing it reads has changed since)
            player, danger = st.winner if q == p and st.winner is not None else self._player(hand, q, p, tile, how,
                                                                                               base)
            values[player.index] = player.score
            if q == p:
                winner_danger = danger
            players.append(player)
        flags = st.flags[w]
        flags[w] = winner_danger
        cannoner = next((i for i in range(4) if i != w and flags[i] & flags[w]), None)
        supplier = _east_index(thrower, dealer) if thrower is not None else None
        settlement = settle(values, w, o, whence=whence, supplier=supplier, cannoner=cannoner)
        by_seat = tuple(settlement.changes[_east_index(q, dealer)] for q in (1, 2, 3, 4))
        scores = (by_seat[0], by_seat[1], by_seat[2], by_seat[3])
        win = players[p - 1]
        record = WinRecord(p, tile, how, thrower, ClassicalScore(win.score, win.explanation), scores)
        detail = ClassicalDetail(tuple(players), settlement.explanation,
                                 None if cannoner is None else (cannoner + dealer - 1) % 4 + 1)
        return HandResult("win", (record,), scores, detail)

    def winner_score(self, hand: Hand, wins: Sequence[tuple[int, int | None, WinHow, int | None]]) -> Any:
        """The winner's score alone, as ``score`` will give it (``PlayerScore``): what mj-server announces once the
        winner has declared, before the losers declare."""
        (p, tile, how, thrower), = wins
        assert tile is not None
        _whence, base = self._table(hand, p, tile, how, thrower)
        st: ClassicalState = hand.extra
        st.winner = self._player(hand, p, p, tile, how, base)  # kept for ``score``
        return st.winner[0]

    def best_declaration(self, hand: Hand, wins: Sequence[tuple[int, int | None, WinHow, int | None]]
                         ) -> list[tuple[tuple[int, ...], bool]]:
        """A winner that declares nothing, at a table where others declare: its sets of the arrangement that scores
        highest, as it would declare them (the set that took the winning discard first), so that the declaring
        players see the winner's hand declared before they declare theirs (as mj-server shows it)."""
        (p, tile, how, thrower), = wins
        assert tile is not None
        _whence, base = self._table(hand, p, tile, how, thrower)
        s = hand._seats[p]
        claim = tile if how in ("throw", "robbed_gong") else None
        rest = sorted([*s.concealed, tile] if claim is not None else s.concealed)
        mine = ClassicalHand([CODE[t] for t in rest], _sets(s.melds), [CODE[t] for t in s.flowers])
        arranged, _ = best_arrangement(mine, Situation(seat=_east_index(p, hand.dealer), winner=True, **base),
                                       self.options)
        new = sorted(arranged.sets[len(s.melds):], key=lambda ts: ts.type in CLOSED)  # the exposed (claimed) first
        if not new:  # a special hand: all its tiles
            return [(tuple(rest), claim is not None)]
        pool = list(rest)
        out: list[tuple[tuple[int, ...], bool]] = []
        for ts in new:
            claimed = ts.type not in CLOSED
            out.append((_tids_of(ts.tiles(), pool, claim if claimed else None), claimed))
        return out

    def _table(self, hand: Hand, p: int, tile: int, how: WinHow, thrower: int | None) -> tuple[Whence, dict[str, Any]]:
        """How the hand was won, and what every player's scoring reads of the table (``Situation``'s fields)."""
        dealer = hand.dealer
        if how == "self_draw":
            loose = hand._tiles.index(tile) >= hand._back  # drawn from the loose end
            whence: Whence = "loose" if loose else "wall"
        else:
            whence = "discard" if how == "throw" else "robbed"
        exposed: Counter[str] = Counter()
        discarded = [False, False, False, False]
        for q, s in hand._seats.items():
            if s.river:
                discarded[_east_index(q, dealer)] = True
            for t in s.river:
                exposed[CODE[t]] += 1
            for m in s.melds:
                for t in m.tiles:
                    exposed[CODE[t]] += 1
                if m.source is not None:
                    discarded[_east_index(m.source, dealer)] = True
            for t in s.flowers:
                exposed[CODE[t]] += 1
        if how != "self_draw":
            exposed[CODE[tile]] += 1
            if how == "throw" and thrower is not None:
                discarded[_east_index(thrower, dealer)] = True
        no_discard = (not discarded[0], not discarded[1], not discarded[2], not discarded[3])
        return whence, dict(
            round_wind=WIND_CODE[hand.round_wind], whence=whence, tile=CODE[tile], exposed=exposed,
            last_tile=hand._front >= hand._live_end, exactly_last=hand._front == hand._live_end,
            no_discard=no_discard, kong_upon_kong=hand._kong_upon_kong and hand._gongs_at == hand._throws,
            hands_as_east=hand.hands_as_east)

    def _player(self, hand: Hand, q: int, p: int, tile: int, how: WinHow,
                base: dict[str, Any]) -> tuple[PlayerScore, Danger]:
        """Player ``q``'s score (``p`` won): the sets it declared itself, as declared, or for a player that declares
        nothing the arrangement that scores highest; and the dangerous hands its score found."""
        s = hand._seats[q]
        i = _east_index(q, hand.dealer)
        concealed = [CODE[t] for t in s.concealed]
        if q == p and how != "self_draw":
            concealed.append(CODE[tile])
        mine = ClassicalHand(concealed, _sets(s.melds), [CODE[t] for t in s.flowers])
        at = Situation(seat=i, winner=q == p, **base)
        made = hand.declared.get(q)
        if made is None:
            arranged, score = best_arrangement(mine, at, self.options)
        else:  # mj-server scores what a player declared
            sets = [ts for ts in (_declared_set(tiles) for tiles, _ in made) if ts is not None]
            claimed = next((k for k, (tiles, c) in enumerate(made) if c and _declared_set(tiles)), None)
            arranged, score = score_declared(mine, sets, claimed, at, self.options)
        player = PlayerScore(q, i, tuple(ts.text() for ts in arranged.sets), tuple(arranged.concealed),
                             tuple(arranged.specials), score.value, score.explanation)
        return player, score.danger

    def declare_options(self, rest: Sequence[int], melds: Sequence[Meld],
                        made: Sequence[tuple[tuple[int, ...], bool]], *, winner: bool,
                        claim: int | None) -> tuple[Answer, ...]:
        if made and _declared_set(made[-1][0]) is None:
            return ()  # a special hand declared: nothing is left
        if not winner:  # ``pass`` (its other tiles are shown), or any closed set it holds
            return (PASS, *[Answer("declare", tiles) for tiles in _closed_sets(rest)])
        sets = [*_sets(melds), *(ts for ts in (_declared_set(tiles) for tiles, _ in made) if ts is not None)]
        at = Situation(seat=0, round_wind="EW", winner=winner, tile=CODE[claim] if claim is not None else None)
        mine = ClassicalHand([CODE[t] for t in rest], sets, [])
        out: list[Answer] = []
        for ts in next_declarations(mine, at, self.options, claim is not None):
            codes = [CODE[t] for t in rest] if ts is None else ts.tiles()
            out.append(Answer("declare", _tids_of(codes, list(rest), claim), 1 if claim is not None else None))
        return tuple(out)

    def auto_fault_penalty(self) -> int:
        """The limit (``ScoreLimit``, 1000 by default: docs/classical.md)."""
        return int(self.options.ScoreLimit)

    def keeps_deal(self, result: HandResult, dealer: int, run: int) -> bool:
        """East keeps the deal after a washout, and when it wins unless that win is its ``EastWinsLimit``-th in a
        row (the limit hand: then the deal passes, as in mj-server, controller.c ``start_hand``, with 13, and in
        Kajongg's ``EastWonNineTimesInARow`` with 9)."""
        if result.outcome == "draw":
            return True
        limit = self.options.EastWinsLimit
        return dealer in result.winners and not (limit and run + 1 >= limit)


_NO_DANGER = Danger(0)


@record(slots=True)
class ClassicalState:
    """What the classical family keeps during a hand: each player's danger flags about every seat (East first),
    and the winner's score once ``winner_score`` has announced it (its sets are then final)."""

    flags: list[list[Danger]]
    winner: tuple[PlayerScore, Danger] | None = None

    @classmethod
    def new(cls) -> ClassicalState:
        return cls([[_NO_DANGER] * 4, [_NO_DANGER] * 4, [_NO_DANGER] * 4, [_NO_DANGER] * 4])  # (once per hand)


@record(frozen=True, slots=True)
class ClassicalScore:
    """A classical winner's score: ``tai`` is its score in points (the name the logs and reports read), and its
    explanation lines (mj-server's)."""

    tai: int
    explanation: tuple[str, ...]
    unit: ClassVar[str] = "points"  # (Taiwan's score is in tai)

    @property
    def items(self) -> tuple[()]:
        return ()

    def to_json(self) -> dict[str, Any]:
        return {"score": self.tai, "explanation": list(self.explanation)}


@record(frozen=True, slots=True)
class PlayerScore:
    """One player's score at the end of a classical hand: its seat (1-4) and seat index (0 is East), its sets as
    scored (declared in play and declared for it), tiles left out of any set, flowers, score and explanation."""

    seat: int
    index: int
    sets: tuple[str, ...]
    concealed: tuple[str, ...]
    flowers: tuple[str, ...]
    score: int
    explanation: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "sets": list(self.sets), "concealed": list(self.concealed),
                "flowers": list(self.flowers), "score": self.score, "explanation": list(self.explanation)}


@record(frozen=True, slots=True)
class ClassicalDetail:
    """Everything a classical hand's result tells beyond its payments: every player's score (by seat 1-4) and the
    settlement's explanation (mj-server's lines), and the seat that let off a cannon (if one did)."""

    players: tuple[PlayerScore, ...]
    settlement: tuple[str, ...]
    cannon: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"players": [p.to_json() for p in self.players], "settlement": list(self.settlement),
                "cannon": self.cannon}


def _tids_of(codes: Sequence[str], pool: list[int], claim: int | None) -> tuple[int, ...]:
    """The tiles of ``pool`` that make a set of faces ``codes`` (taken out of ``pool``): ``claim`` itself (the
    winning discard) when given, else the lowest copy of each face (copies are alike)."""
    codes = list(codes)
    tiles: list[int] = []
    if claim is not None:
        pool.remove(claim)
        codes.remove(CODE[claim])
        tiles.append(claim)
    for code in codes:
        t = next(x for x in pool if CODE[x] == code)
        pool.remove(t)
        tiles.append(t)
    return tuple(sorted(tiles))


def _closed_sets(rest: Sequence[int]) -> list[tuple[int, ...]]:
    """Every closed set of the tiles ``rest`` (what a loser may declare), as the tiles that make it, the lowest
    copies of each face: face by face in mj-server's order (``PLAYING``), its pung, the chow it starts, its pair."""
    held: dict[str, list[int]] = {}
    for t in sorted(rest):
        held.setdefault(CODE[t], []).append(t)
    out: list[tuple[int, ...]] = []
    for face in PLAYING:
        copies = held.get(face)
        if copies is None:
            continue
        n = len(copies)
        if n >= 3:
            out.append((copies[0], copies[1], copies[2]))
        run = CHOW_REST.get(face)
        if run is not None:
            second, third = held.get(run[0]), held.get(run[1])
            if second is not None and third is not None:
                out.append(tuple(sorted((copies[0], second[0], third[0]))))
        if n >= 2:
            out.append((copies[0], copies[1]))
    return out


def _declared_set(tiles: Sequence[int]) -> TileSet | None:
    """The closed set a declaration's tiles make (a pair, a pung, a chow), or None for a special hand."""
    codes = [CODE[t] for t in tiles]
    if len(codes) == 2:
        return TileSet("ClosedPair", codes[0])
    if len(codes) == 3:
        return TileSet("ClosedPung", codes[0]) if codes[0] == codes[1] else TileSet("ClosedChow", min(codes))
    return None


def _east_index(seat: int, dealer: int) -> int:
    """The seat's index from East (the dealer) 0 to North 3: how the classical scoring numbers players."""
    return (seat - dealer) % 4


_SET_TYPE = {"pong": "Pung", "eat": "Chow", "gong": "Kong", "concealed_gong": "ClosedKong",
             "concealed_pong": "ClosedPung"}  # (a robbed concealed kong: mj-server's ``player_kong_is_robbed``)


# Each meld's part of its player's danger flags (``danger.set_part``), by the meld's type and first tile
_PART = {m: {t: set_part(kind, CODE[t]) for t in ALL_TIDS} for m, kind in _SET_TYPE.items()}


def _sets(melds: Sequence[Meld]) -> list[TileSet]:
    return [TileSet(_SET_TYPE[m.type], CODE[m.tiles[0]],  # type: ignore[arg-type]
                    annexed=m.type == "gong" and m.promoted) for m in melds]


class _ClassicalBase(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)

    family: Literal["classical"] = "classical"
    options: GameOptions = Field(default_factory=GameOptions, description="mj-server's GameOptions "
                                 "(docs/classical.md), and mjref's few more")

    @property
    def flowers(self) -> bool:
        return self.options.Flowers

    @property
    def dead_wall(self) -> int:
        """The dead wall at the start of a hand (14, kept at 13 or 14; 16; or none)."""
        o = self.options
        return (16 if o.DeadWall16 else 14) if o.DeadWall else 0

    # What a seat's view and the match read of a Taiwan ruleset, as the classical family plays
    gong_from_previous_player: ClassVar[bool] = True
    seven_pairs_and_pung: ClassVar[bool] = False
    dealer_continues: ClassVar[bool] = True  # East keeps the deal when it wins (and after a washout)

    def __hash__(self) -> int:
        return hash(self.model_dump_json())

    def value(self, key: str) -> int:  # (a Taiwan ruleset's tai table; a classical ruleset has none)
        raise KeyError(key)


def _match_fields() -> dict[str, Any]:
    """The match's options (``referee.game.match_options``), strict as a Taiwan ruleset's are (``fault_penalty``
    checked by its own validator)."""
    from typing import Annotated

    from pydantic import Strict

    return {name: (ann if name == "fault_penalty" else Annotated[ann, Strict()], info)
            for name, (ann, info) in MATCH_FIELDS.items()}


def _validators() -> dict[str, Any]:
    from pydantic import field_validator

    def penalty(cls: type, value: Any) -> Any:
        return check_fault_penalty(value)

    return {"_check_penalty": field_validator("fault_penalty", mode="before")(classmethod(penalty))}


ClassicalRuleset = create_model(  # type: ignore[call-overload]
    "ClassicalRuleset", __base__=_ClassicalBase, __module__=__name__, __validators__=_validators(), **_match_fields())
ClassicalRuleset.__doc__ = """A classical ruleset as a match plays it: the family, mj-server's GameOptions
(``options``), and the match's own options (``MATCH_FIELDS``: hands, timeouts, faults) with the names, defaults and
meanings they have in a Taiwan ruleset."""


__all__ = ["CODE", "ClassicalDetail", "ClassicalFamily", "ClassicalRuleset", "ClassicalScore", "ClassicalState",
           "PlayerScore"]

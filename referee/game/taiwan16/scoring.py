"""Scoring: the tai of a win, item by item (docs/rules.md), the settlement, and the ``mjref score`` request.

Every result is explainable: a :class:`ScoreResult` lists its items (stable keys, the same in logs, in
``mjref score`` and in explanations) and the arrangement of the hand they were counted on.  Tai values come from
the ruleset's tai table (data, not constants); an item whose table value is 0 is left out of the result.

How a win is scored (:func:`score_win`): every arrangement of the concealed tiles is tried and, where the winning
tile's kind sits in several sets, each choice of the set it completed (it matters on a throw: a pung completed by
a thrown tile is not a concealed pung).  The most valuable reading wins; among readings of equal value the first
in a fixed order is kept: arrangements in the order of :func:`analysis.arrangements` (sorted by their groups'
kinds), then the groups of that arrangement that hold the winning kind, lowest kind first.

The "replaces" rules of the table are applied as written: ``concealed_self_draw`` replaces ``concealed`` and
``self_draw``; ``all_melded`` replaces ``single_wait``; ``all_honours`` replaces ``half_flush`` and ``all_pungs``;
the three-dragon items replace ``dragon_pung``; the four-wind items replace ``seat_wind`` and ``round_wind``;
``heavenly`` and ``earthly`` replace ``concealed_self_draw`` (and so ``self_draw``) and ``single_wait``; ``human``
replaces ``concealed`` and ``single_wait``.  The flower items add up (the table gives no "replaces" for them).

Payments of a request (:func:`score_request` with ``payments=True``, ``mjref score`` with rule options) are given
from the winner's side, by seat wind (the dealer sits EAST, then SOUTH, WEST, NORTH in turn order)::

    "payments": {"scoring": "tai", "winner": "SOUTH", "self_drawn": false, "payers": "thrower",
                 "per_payer": {"EAST": 180, "WEST": 160, "NORTH": 160}, "winner_gets": null}

``per_payer`` is what each other seat pays if it pays: on a self-drawn win all three pay (``"payers": "all"``,
``winner_gets`` their sum); on a throw (or a robbed gong) only the thrower pays its amount (``"payers":
"thrower"``; ``winner_gets`` is then null, as it depends on who threw).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from referee.errors import InputError
from referee.game.records import record
from referee.validation import validation_reason

from .. import analysis
from ..analysis import Group
from ..tiles import (
    DRAGON_KINDS,
    FLOWER_TIDS,
    INDEX,
    WIND_KIND,
    WIND_KINDS,
    WINDS_IN_ORDER,
    counts34,
    is_flower,
    is_honour_kind,
    is_tid,
    name,
    suit_of_kind,
)
from ..types import Meld
from .rules import DEFAULT_TAI, Ruleset

__all__ = [
    "ITEM_TITLES",
    "OWN_FLOWERS",
    "FAULT_PENALTY_TAI",
    "ArrangedSet",
    "Item",
    "MeldRequest",
    "ScoreError",
    "ScoreResult",
    "WinContext",
    "WinRequest",
    "auto_fault_penalty",
    "payments_for",
    "score_flower_win",
    "score_request",
    "score_win",
    "settle",
    "validate_context",
]

Wind = Literal["EAST", "SOUTH", "WEST", "NORTH"]
SetType = Literal["chow", "pung", "kong", "pair"]
SetStatus = Literal["exposed", "concealed", "claimed"]

OWN_FLOWERS: dict[str, tuple[int, int]] = {
    "EAST": (10, 50),
    "SOUTH": (20, 60),
    "WEST": (30, 70),
    "NORTH": (40, 80),
}
SEASONS: tuple[int, ...] = (10, 20, 30, 40)
PLANTS: tuple[int, ...] = (50, 60, 70, 80)

ITEM_TITLES: dict[str, tuple[str, str]] = {
    "dealer": ("Dealer", "莊家"),
    "self_draw": ("Self-drawn", "自摸"),
    "concealed": ("Concealed hand", "門清"),
    "concealed_self_draw": ("Concealed self-draw", "門清自摸"),
    "all_melded": ("All melded", "全求人"),
    "all_chows": ("All chows", "平胡"),
    "all_pungs": ("All pungs", "碰碰胡"),
    "concealed_pungs_3": ("Three concealed pungs", "三暗刻"),
    "concealed_pungs_4": ("Four concealed pungs", "四暗刻"),
    "concealed_pungs_5": ("Five concealed pungs", "五暗刻"),
    "half_flush": ("Half flush", "混一色"),
    "full_flush": ("Full flush", "清一色"),
    "all_honours": ("All honours", "字一色"),
    "dragon_pung": ("Dragon pung", "三元牌"),
    "small_three_dragons": ("Small three dragons", "小三元"),
    "big_three_dragons": ("Big three dragons", "大三元"),
    "seat_wind": ("Seat wind", "門風"),
    "round_wind": ("Round wind", "圈風"),
    "small_four_winds": ("Small four winds", "小四喜"),
    "big_four_winds": ("Big four winds", "大四喜"),
    "single_wait": ("Single wait", "獨聽"),
    "last_tile_draw": ("Last tile drawn", "海底撈月"),
    "last_tile_throw": ("Last tile thrown", "河底撈魚"),
    "kong_replacement": ("Win on a kong replacement", "槓上開花"),
    "robbing_kong": ("Robbing the kong", "搶槓"),
    "heavenly": ("Heavenly hand", "天胡"),
    "earthly": ("Earthly hand", "地胡"),
    "human": ("Human hand", "人胡"),
    "own_flower": ("Own flower", "正花"),
    "flower_set": ("Flower set", "花槓"),
    "eight_flowers": ("Eight flowers", "八仙過海"),
    "seven_pairs_and_pung": ("Seven pairs and a pung", "嚦咕嚦咕"),
}
_ITEM_ORDER: dict[str, int] = {k: i for i, k in enumerate(DEFAULT_TAI)}


class ScoreError(InputError):
    """A win that cannot be scored (bad tiles, wrong counts, not a winning hand); a one-line reason."""


# ------------------------------------------------------------------------------------------------ results


@record(frozen=True, slots=True)
class WinContext:
    """Everything scoring needs to know about one win.  ``concealed`` includes the winning tile."""

    concealed: tuple[int, ...]
    melds: tuple[Meld, ...]
    winning_tile: int
    self_drawn: bool
    seat_wind: str
    round_wind: str
    dealer: bool = False
    flowers: tuple[int, ...] = ()
    last_tile: bool = False
    kong_replacement: bool = False
    robbing_kong: bool = False
    first_turn: bool = False


@record(frozen=True, slots=True)
class Item:
    """One scoring item: ``tai`` is the item's total (table value × ``count``, e.g. two dragon pungs)."""

    key: str
    tai: int
    count: int = 1

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "tai": self.tai}
        if self.count != 1:
            out["count"] = self.count
        return out


@record(frozen=True, slots=True)
class ArrangedSet:
    """One set of the scored arrangement.

    ``status``: ``exposed`` (a meld claimed during play), ``concealed`` (in the hand, or a concealed gong), or
    ``claimed`` (completed by the thrown winning tile: it scores as exposed).  ``winning``: holds the winning tile.
    """

    type: SetType
    tiles: tuple[int, ...]
    status: SetStatus
    winning: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "tiles": list(self.tiles), "status": self.status}
        if self.winning:
            out["winning"] = True
        return out


@record(frozen=True, slots=True)
class ScoreResult:
    tai: int
    items: tuple[Item, ...]
    arrangement: tuple[ArrangedSet, ...]
    unit: ClassVar[str] = "tai"  # what ``tai`` counts (a classical score's is points)

    def to_json(self) -> dict[str, Any]:
        return {
            "tai": self.tai,
            "items": [i.to_json() for i in self.items],
            "arrangement": [s.to_json() for s in self.arrangement],
        }

    def keys(self) -> list[str]:
        return [i.key for i in self.items]


# --------------------------------------------------------------------------------------------- validation


def _tile_name(tid: int) -> str:
    return f"{tid} ({name(tid)})"


def _meld_problem(meld: Meld) -> str | None:
    """Why the meld's tiles do not form its type (None if they do); tiles are known valid suit/honour TIDs."""
    tiles = sorted(meld.tiles)
    kinds = [t // 10 for t in tiles]
    if meld.type == "eat":
        if len(tiles) != 3:
            return f"an eat has 3 tiles, not {len(tiles)}"
        k = kinds[0]
        if is_honour_kind(k) or kinds != [k, k + 1, k + 2] or suit_of_kind(k + 2) != suit_of_kind(k):
            return f"{' '.join(map(str, tiles))} is not an eat (three consecutive tiles of one suit)"
        return None
    size = 3 if meld.type == "pong" else 4
    if len(tiles) != size:
        return f"a {meld.type} has {size} tiles, not {len(tiles)}"
    if len(set(kinds)) != 1:
        return f"{' '.join(map(str, tiles))} is not a {meld.type} ({size} tiles of one kind)"
    return None


def validate_context(ctx: WinContext) -> None:
    """Check that ``ctx`` describes a possible win (tiles, counts, melds and flags), raising :class:`ScoreError`
    with a one-line reason that names the field.  Whether the hand is complete is checked by :func:`score_win`."""
    where: dict[int, str] = {}

    def tile(value: object, field: str) -> int:
        if not is_tid(value):
            raise ScoreError(f"{field}: {value!r} is not a tile ID")
        assert isinstance(value, int)
        if is_flower(value):
            raise ScoreError(f"{field}: {value} is a flower; flowers go in 'flowers'")
        return value

    named: list[tuple[int, str]] = []
    for i, t in enumerate(ctx.concealed):
        named.append((tile(t, f"concealed[{i}]"), f"concealed[{i}]"))
    if not isinstance(ctx.melds, tuple | list):
        raise ScoreError("melds: expected a list of melds")
    if len(ctx.melds) > 5:
        raise ScoreError(f"melds: at most 5 melds, not {len(ctx.melds)}")
    for m, meld in enumerate(ctx.melds):
        if meld.type not in ("eat", "pong", "gong", "concealed_gong"):
            raise ScoreError(f"melds[{m}].type: {meld.type!r} is not one of eat, pong, gong, concealed_gong")
        for i, t in enumerate(meld.tiles):
            named.append((tile(t, f"melds[{m}].tiles[{i}]"), f"melds[{m}].tiles[{i}]"))
        problem = _meld_problem(meld)
        if problem:
            raise ScoreError(f"melds[{m}]: {problem}")
    winning = tile(ctx.winning_tile, "winning_tile")
    for i, f in enumerate(ctx.flowers):
        if not is_tid(f) or not is_flower(f):
            raise ScoreError(f"flowers[{i}]: {f!r} is not a flower (flowers are 10, 20, ..., 80)")
        named.append((f, f"flowers[{i}]"))
    kind_count: dict[int, int] = {}
    for t, _field in named:
        if t >= 100:
            kind_count[t // 10] = kind_count.get(t // 10, 0) + 1
    for k, n in sorted(kind_count.items()):
        if n > 4:
            raise ScoreError(f"more than four of a kind: {n} tiles of {name(k)}")
    for t, field in named:
        if t in where:
            raise ScoreError(f"{field}: tile {_tile_name(t)} is used twice (also {where[t]})")
        where[t] = field
    if winning not in ctx.concealed:
        raise ScoreError(f"winning_tile: {_tile_name(winning)} is not in concealed (concealed includes it)")
    gongs = sum(1 for m in ctx.melds if m.type in ("gong", "concealed_gong"))
    total = len(ctx.concealed) + sum(len(m.tiles) for m in ctx.melds)
    if total != 17 + gongs:
        raise ScoreError(
            f"wrong number of tiles: {total} in concealed and melds; a win has 17 plus one per gong"
            f" ({17 + gongs} with {gongs} gong{'s' if gongs != 1 else ''})"
        )
    for field, wind in (("seat_wind", ctx.seat_wind), ("round_wind", ctx.round_wind)):
        if wind not in WIND_KIND:
            raise ScoreError(f"{field}: {wind!r} is not one of EAST, SOUTH, WEST, NORTH")
    if ctx.dealer != (ctx.seat_wind == "EAST"):
        raise ScoreError(
            f"dealer: the dealer's seat wind is EAST; dealer is {str(ctx.dealer).lower()} and seat_wind {ctx.seat_wind}"
        )
    if ctx.robbing_kong and ctx.self_drawn:
        raise ScoreError("robbing_kong: a robbed gong is a win on a throw, so self_drawn must be false")
    if ctx.kong_replacement and not ctx.self_drawn:
        raise ScoreError("kong_replacement: a win on a kong replacement tile is self-drawn")
    if ctx.first_turn and any(m.type != "concealed_gong" for m in ctx.melds):
        raise ScoreError("first_turn: no claim can have been made, but the hand has exposed melds")


# ------------------------------------------------------------------------------------------------ scoring


@record(frozen=True, slots=True)
class _Set:
    type: SetType
    kind: int
    status: SetStatus
    meld: int | None = None  # index into ctx.melds
    winning: bool = False


@record(frozen=True, slots=True)
class _Facts:
    """What does not depend on the arrangement."""

    exposed: bool  # any exposed meld (a concealed gong is not one)
    on_throw: bool
    single: bool  # the hand before the winning tile waited on exactly one kind
    suits: frozenset[int]
    honours: bool


def _facts(ctx: WinContext, counts: list[int], seven_pairs: bool) -> _Facts:
    before = list(counts)
    before[INDEX[ctx.winning_tile // 10]] -= 1
    kinds: set[int] = {t // 10 for t in ctx.concealed}
    for m in ctx.melds:
        for t in m.tiles:
            kinds.add(t // 10)
    waiting = analysis.waits(
        before, seven_pairs_and_pung=seven_pairs and not ctx.melds, seen=analysis.meld_counts(ctx.melds)
    )
    return _Facts(
        exposed=any(m.type != "concealed_gong" for m in ctx.melds),
        on_throw=not ctx.self_drawn,
        single=len(waiting) == 1,
        suits=frozenset(suit_of_kind(k) for k in kinds if not is_honour_kind(k)),
        honours=any(is_honour_kind(k) for k in kinds),
    )


def _meld_sets(melds: Sequence[Meld]) -> list[_Set]:
    out: list[_Set] = []
    for i, m in enumerate(melds):
        if m.type == "eat":
            out.append(_Set("chow", min(m.tiles) // 10, "exposed", i))
        elif m.type == "pong":
            out.append(_Set("pung", m.tiles[0] // 10, "exposed", i))
        elif m.type == "gong":
            out.append(_Set("kong", m.tiles[0] // 10, "exposed", i))
        else:
            out.append(_Set("kong", m.tiles[0] // 10, "concealed", i))
    return out


def _readings(arrangement: tuple[Group, ...], w: int, on_throw: bool) -> list[list[_Set]]:
    """The concealed groups of ``arrangement``, once per distinct choice of the group the winning kind completed."""
    seen: set[Group] = set()
    out: list[list[_Set]] = []
    for idx, g in enumerate(arrangement):
        holds = g.kind == w if g.type != "chow" else g.kind <= w <= g.kind + 2
        if not holds or g in seen:
            continue
        seen.add(g)
        sets: list[_Set] = []
        for j, h in enumerate(arrangement):
            status: SetStatus = "claimed" if (j == idx and on_throw) else "concealed"
            sets.append(_Set(h.type, h.kind, status, None, j == idx))
        out.append(sets)
    return out


def _count_items(sets: list[_Set], ctx: WinContext, facts: _Facts, seven_pairs_shape: bool) -> dict[str, int]:
    """Item key → count for one reading of the hand (before tai values are looked up)."""
    items: dict[str, int] = {}
    self_drawn = ctx.self_drawn
    heavenly = ctx.first_turn and ctx.dealer and self_drawn
    earthly = ctx.first_turn and not ctx.dealer and self_drawn
    human = ctx.first_turn and not ctx.dealer and not self_drawn
    if ctx.dealer:
        items["dealer"] = 1
    if heavenly:
        items["heavenly"] = 1
    elif earthly:
        items["earthly"] = 1
    elif self_drawn:
        items["concealed_self_draw" if not facts.exposed else "self_draw"] = 1
    elif human:
        items["human"] = 1
    elif not facts.exposed:
        items["concealed"] = 1

    non_pairs = [s for s in sets if s.type != "pair"]
    pairs = [s for s in sets if s.type == "pair"]
    pungs = [s for s in non_pairs if s.type in ("pung", "kong")]
    all_melded = facts.on_throw and len(ctx.melds) == 5 and all(m.type != "concealed_gong" for m in ctx.melds)
    if all_melded:
        items["all_melded"] = 1
    if (
        not seven_pairs_shape
        and len(non_pairs) == 5
        and all(s.type == "chow" for s in non_pairs)
        and all(not is_honour_kind(p.kind) for p in pairs)
        and not ctx.flowers
        and facts.on_throw
        and not facts.single
    ):
        items["all_chows"] = 1
    all_honours = not facts.suits and facts.honours
    if not seven_pairs_shape and len(pungs) == 5 and not all_honours:
        items["all_pungs"] = 1
    concealed_pungs = sum(1 for s in pungs if s.status == "concealed")
    if concealed_pungs >= 3:
        items[f"concealed_pungs_{concealed_pungs}"] = 1
    if all_honours:
        items["all_honours"] = 1
    elif len(facts.suits) == 1:
        items["half_flush" if facts.honours else "full_flush"] = 1

    dragon_pungs = sum(1 for s in pungs if s.kind in DRAGON_KINDS)
    dragon_pair = any(p.kind in DRAGON_KINDS for p in pairs)
    if dragon_pungs == 3:
        items["big_three_dragons"] = 1
    elif dragon_pungs == 2 and dragon_pair and not seven_pairs_shape:
        items["small_three_dragons"] = 1
    elif dragon_pungs:
        items["dragon_pung"] = dragon_pungs

    wind_pungs = [s.kind for s in pungs if s.kind in WIND_KINDS]
    wind_pair = any(p.kind in WIND_KINDS for p in pairs)
    if len(wind_pungs) == 4:
        items["big_four_winds"] = 1
    elif len(wind_pungs) == 3 and wind_pair and not seven_pairs_shape:
        items["small_four_winds"] = 1
    else:
        if WIND_KIND[ctx.seat_wind] in wind_pungs:
            items["seat_wind"] = 1
        if WIND_KIND[ctx.round_wind] in wind_pungs:
            items["round_wind"] = 1

    if facts.single and not (all_melded or heavenly or earthly or human):
        items["single_wait"] = 1
    if ctx.last_tile:
        items["last_tile_draw" if self_drawn else "last_tile_throw"] = 1
    if ctx.kong_replacement:
        items["kong_replacement"] = 1
    if ctx.robbing_kong:
        items["robbing_kong"] = 1
    _flower_items(items, ctx.flowers, ctx.seat_wind)
    if seven_pairs_shape:
        items["seven_pairs_and_pung"] = 1
    return items


def _flower_items(items: dict[str, int], flowers: Sequence[int], seat_wind: str) -> None:
    if not flowers:
        return
    held = set(flowers)
    own = sum(1 for f in OWN_FLOWERS[seat_wind] if f in held)
    if own:
        items["own_flower"] = own
    sets = sum(1 for group in (SEASONS, PLANTS) if held.issuperset(group))
    if sets:
        items["flower_set"] = sets
    if held.issuperset(FLOWER_TIDS):
        items["eight_flowers"] = 1


def _priced(counts: dict[str, int], rules: Ruleset) -> tuple[int, tuple[Item, ...]]:
    table = rules.tai
    items = tuple(
        Item(key, table[key] * n, n)
        for key, n in sorted(counts.items(), key=lambda kv: _ITEM_ORDER[kv[0]])
        if table[key] * n > 0
    )
    return sum(i.tai for i in items), items


def _assign_tiles(ctx: WinContext, concealed_sets: list[_Set]) -> tuple[ArrangedSet, ...]:
    """Give each concealed group its TIDs (lowest copies first; the winning tile to the group that holds it)."""
    pools: dict[int, list[int]] = {}
    for t in sorted(ctx.concealed):
        if t != ctx.winning_tile:
            pools.setdefault(t // 10, []).append(t)
    w = ctx.winning_tile // 10
    out: list[ArrangedSet] = []
    for s in concealed_sets:
        if s.type == "chow":
            kinds = [s.kind, s.kind + 1, s.kind + 2]
        else:
            kinds = [s.kind] * (3 if s.type == "pung" else 2)
        tids: list[int] = []
        if s.winning:
            kinds.remove(w)
            tids.append(ctx.winning_tile)
        for k in kinds:
            tids.append(pools[k].pop(0))
        out.append(ArrangedSet(s.type, tuple(sorted(tids)), s.status, s.winning))
    for m in ctx.melds:
        kind: SetType = "chow" if m.type == "eat" else "pung" if m.type == "pong" else "kong"
        status: SetStatus = "concealed" if m.type == "concealed_gong" else "exposed"
        out.append(ArrangedSet(kind, tuple(sorted(m.tiles)), status))
    return tuple(out)


def score_win(ctx: WinContext, rules: Ruleset) -> ScoreResult:
    """Score a win: the most valuable reading of the hand (see the module docstring for the order of ties).

    Raises :class:`ScoreError` when ``ctx`` is not a possible winning hand.
    """
    validate_context(ctx)
    counts = counts34(ctx.concealed)
    seven_pairs = rules.seven_pairs_and_pung and not ctx.melds
    arrangements = analysis.arrangements(counts, seven_pairs_and_pung=seven_pairs)
    if not arrangements:
        need = 5 - len(ctx.melds)
        shape = f"{need} set{'s' if need != 1 else ''} and a pair"
        if seven_pairs:
            shape += ", nor seven pairs and a pung"
        raise ScoreError(f"not a winning hand: the concealed tiles do not form {shape}")
    facts = _facts(ctx, counts, seven_pairs)
    meld_sets = _meld_sets(ctx.melds)
    w = ctx.winning_tile // 10
    best: tuple[int, tuple[Item, ...], list[_Set]] | None = None
    for arrangement in arrangements:
        seven_pairs_shape = sum(1 for g in arrangement if g.type == "pair") > 1
        for reading in _readings(arrangement, w, facts.on_throw):
            counted = _count_items(reading + meld_sets, ctx, facts, seven_pairs_shape)
            tai, items = _priced(counted, rules)
            if best is None or tai > best[0]:
                best = (tai, items, reading)
    assert best is not None
    return ScoreResult(best[0], best[1], _assign_tiles(ctx, best[2]))


def score_flower_win(flowers: Sequence[int], seat_wind: str, dealer: bool, rules: Ruleset) -> ScoreResult:
    """The eight-flowers win (八仙過海, or 七搶一): a self-drawn win with no hand arrangement, scored by the
    flower items and ``dealer`` only."""
    tids = tuple(flowers)
    for i, f in enumerate(tids):
        if not is_tid(f) or not is_flower(f):
            raise ScoreError(f"flowers[{i}]: {f!r} is not a flower (flowers are 10, 20, ..., 80)")
    if sorted(tids) != list(FLOWER_TIDS):
        raise ScoreError(f"flowers: a flower win needs all eight flowers once each, not {sorted(tids)}")
    if seat_wind not in WIND_KIND:
        raise ScoreError(f"seat_wind: {seat_wind!r} is not one of EAST, SOUTH, WEST, NORTH")
    counts: dict[str, int] = {"dealer": 1} if dealer else {}
    _flower_items(counts, tids, seat_wind)
    tai, items = _priced(counts, rules)
    return ScoreResult(tai, items, ())


# --------------------------------------------------------------------------------------------- settlement


def settle(
    winner: int,
    dealer: int,
    tai: int,
    *,
    self_drawn: bool,
    thrower: int | None,
    rules: Ruleset,
) -> tuple[int, int, int, int]:
    """Payments per seat 1..4 for one win (they sum to zero).

    ``tai`` scheme: each payer pays ``base + per_tai × tai``; a self-drawn win is paid by the three others, a win
    on a throw (or a robbed gong: the promoter is the thrower) by the thrower alone.  When the dealer wins, its
    ``dealer`` item is already in ``tai``; when a non-dealer wins, the dealer, if it pays, pays for ``tai + 1``.
    ``wins`` scheme: self-drawn +3 and -1 from each other seat; on a throw +1 and -1 from the thrower.
    """
    for label, seat in (("winner", winner), ("dealer", dealer)):
        if seat not in (1, 2, 3, 4):
            raise ScoreError(f"settle: {label} must be a seat 1..4, not {seat!r}")
    if self_drawn:
        if thrower is not None:
            raise ScoreError("settle: a self-drawn win has no thrower")
        payers = [q for q in (1, 2, 3, 4) if q != winner]
    else:
        if thrower not in (1, 2, 3, 4) or thrower == winner:
            raise ScoreError(
                f"settle: a win on a throw needs a thrower other than the winner, not {thrower!r}"
            )
        payers = [thrower]
    scores = [0, 0, 0, 0]
    for q in payers:
        if rules.scoring == "wins":
            amount = 1
        else:
            extra = 1 if (q == dealer and winner != dealer) else 0
            amount = rules.base + rules.per_tai * (tai + extra)
        scores[q - 1] -= amount
        scores[winner - 1] += amount
    return (scores[0], scores[1], scores[2], scores[3])


FAULT_PENALTY_TAI = 8  # fault_penalty "auto": the size of win a fault costs (docs/rules.md says why)


def auto_fault_penalty(rules: Ruleset) -> int:
    """``fault_penalty = "auto"`` under Taiwan's rules: what the winner of a self-drawn win of
    ``FAULT_PENALTY_TAI`` tai collects (``settle``: 3 × (base + 8 × per_tai) = 780 by default; 3 with scoring
    ``wins``)."""
    return settle(1, 1, FAULT_PENALTY_TAI, self_drawn=True, thrower=None, rules=rules)[0]


def _seat_of_wind(wind: str) -> int:
    """Seats as the winds sit: the dealer (EAST) is seat 1, then SOUTH, WEST, NORTH in turn order."""
    return WINDS_IN_ORDER.index(wind) + 1


def payments_for(seat_wind: str, tai: int, *, self_drawn: bool, rules: Ruleset) -> dict[str, Any]:
    """The payments of a win from the winner's side, by seat wind (see the module docstring)."""
    winner = _seat_of_wind(seat_wind)
    per_payer: dict[str, int] = {}
    if self_drawn:
        scores = settle(winner, 1, tai, self_drawn=True, thrower=None, rules=rules)
        for q in (1, 2, 3, 4):
            if q != winner:
                per_payer[WINDS_IN_ORDER[q - 1]] = -scores[q - 1]
        winner_gets: int | None = scores[winner - 1]
    else:
        for q in (1, 2, 3, 4):
            if q != winner:
                scores = settle(winner, 1, tai, self_drawn=False, thrower=q, rules=rules)
                per_payer[WINDS_IN_ORDER[q - 1]] = -scores[q - 1]
        winner_gets = None
    return {
        "scoring": rules.scoring,
        "winner": seat_wind,
        "self_drawn": self_drawn,
        "payers": "all" if self_drawn else "thrower",
        "per_payer": per_payer,
        "winner_gets": winner_gets,
    }


# ------------------------------------------------------------------------------------------------ request


class MeldRequest(BaseModel):
    """One meld of a request: ``eat``, ``pong``, ``gong`` (melded or promoted) or ``concealed_gong``."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    type: Literal["eat", "pong", "gong", "concealed_gong"]
    tiles: list[int]


class WinRequest(BaseModel):
    """The request of ``mjref score`` (docs/rules.md).  Omitted booleans are false, omitted lists empty."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    concealed: list[int] = []
    melds: list[MeldRequest] = []
    winning_tile: int
    self_drawn: bool = False
    seat_wind: Wind
    round_wind: Wind
    dealer: bool = False
    flowers: list[int] = []
    last_tile: bool = False
    kong_replacement: bool = False
    robbing_kong: bool = False
    first_turn: bool = False

    def context(self) -> WinContext:
        return WinContext(
            concealed=tuple(self.concealed),
            melds=tuple(Meld(m.type, tuple(sorted(m.tiles))) for m in self.melds),
            winning_tile=self.winning_tile,
            self_drawn=self.self_drawn,
            seat_wind=self.seat_wind,
            round_wind=self.round_wind,
            dealer=self.dealer,
            flowers=tuple(self.flowers),
            last_tile=self.last_tile,
            kong_replacement=self.kong_replacement,
            robbing_kong=self.robbing_kong,
            first_turn=self.first_turn,
        )


def _validation_line(exc: ValidationError) -> str:
    kind, loc, msg = validation_reason(exc)
    loc = loc or "request"
    if kind == "extra_forbidden":
        return f"{loc}: unknown field (known: {', '.join(WinRequest.model_fields)})"
    if kind == "missing":
        return f"{loc}: missing (required)"
    return f"{loc}: {msg[:1].lower() + msg[1:]}"


def parse_request(data: object) -> WinContext:
    """Validate a request strictly and return its :class:`WinContext` (raises :class:`ScoreError`)."""
    if not isinstance(data, Mapping):
        raise ScoreError(f"expected one JSON object (the win), not {type(data).__name__}")
    try:
        request = WinRequest.model_validate(dict(data))
    except ValidationError as exc:
        raise ScoreError(_validation_line(exc)) from None
    return request.context()


def score_request(data: Mapping[str, Any], rules: Ruleset, *, payments: bool = False) -> dict[str, Any]:
    """Score one request (docs/rules.md) and return the result JSON; ``payments`` adds ``"payments"``."""
    ctx = parse_request(data)
    result = score_win(ctx, rules)
    out = result.to_json()
    if payments:
        out["payments"] = payments_for(ctx.seat_wind, result.tai, self_drawn=ctx.self_drawn, rules=rules)
    return out

"""Chinese Classical scoring as mj-server 1.11 scores it: every player's declared sets, its explanation, and the
settlement among the four.

mj-server scores the sets each player *declares* (losers too) and does not search for a better arrangement.  A
score is built from points (sets, pairs, flowers, extras), then doubled once per double, then held to the limit
(unless ``NoLimit``); a limit hand scores the limit.  ``score_hand`` gives the value and the explanation exactly as
mj-server writes it (each item on its own line, in its order and layout), so that a difference names the item.
``settle`` pays the winner from every loser (East's payments doubled under ``EastDoubles``, the discarder's under
``DiscDoubles``), lets the losers settle among themselves (``LosersSettle``), and makes a player who let off a
cannon pay everybody's debt.  The rules are those of the seed's rules file (Millington's, with mj-server's
options); where its text and the program differ, the program is followed and the docs say so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntFlag
from typing import Literal

from referee.game.classical.hand import CLOSED, Hand, TileSet, completions, thirteen_wonders
from referee.game.classical.options import LIMIT, GameOptions
from referee.game.classical.tiles import (
    GREEN,
    PLAYING,
    SPECIALS,
    WINDS,
    is_dragon,
    is_honour,
    is_major,
    is_suited,
    is_terminal,
    is_wind,
    step,
    suit,
    value,
)
from referee.game.records import record

Whence = Literal["wall", "loose", "discard", "robbed"]
SEAT_NAMES = ("East ", "South", "West ", "North")
HARD_LIMIT = 100_000_000  # mj-server's cap on any score, against overflow


class Danger(IntFlag):
    """The dangerous hands a discard can feed (mj-server's danger flags): a cannon is let off by a discard that
    fed the hand the winner made."""

    BAMBOO = 1
    CHARACTER = 2
    CIRCLE = 4
    WIND = 8
    DRAGON = 16
    HONOUR = 32
    GREEN = 64
    TERMINAL = 128
    END = 256  # a discard when the wall is nearly empty


@dataclass(frozen=True, slots=True)
class Situation:
    """What the scoring of one player needs beyond its tiles: its seat (0 is East), the round, and for the winner
    how and with what the hand was completed and the table around it."""

    seat: int
    round_wind: str  # EW, SW, WW or NW
    winner: bool
    whence: Whence = "wall"
    tile: str | None = None  # the tile that completed the hand
    caller: Hand | None = None  # the winner's tiles just before the completing tile
    claimed_set: int | None = None  # the winner's set made with a claimed tile (index in its sets), if any
    exposed: Counter[str] = field(default_factory=Counter)  # copies of each tile face up on the table
    last_tile: bool = False  # the live wall was used up (winning with the last tile)
    exactly_last: bool = False  # the last live tile exactly (Catching the Moon)
    original_call: bool = False
    no_discard: tuple[bool, bool, bool, bool] = (False, False, False, False)  # by seat: has not yet discarded
    kong_upon_kong: bool = False
    hands_as_east: int = 0
    no_special_scores: bool = False


@record(frozen=True, slots=True)
class HandScore:
    value: int
    explanation: tuple[str, ...]
    danger: Danger = Danger(0)  # the winner's dangerous hands, for the settlement


class _Sheet:
    """mj-server's three buffers (points, doubles, limits) and its one way of adding a score to them."""

    def __init__(self, options: GameOptions) -> None:
        self.limit = options.ScoreLimit
        self.nolimit = options.NoLimit
        self.points: list[str] = []
        self.dbls: list[str] = []
        self.limits: list[str] = []
        self.total = 0
        self.doubles = 0
        self.centilims = 0

    def add(self, left: str, score: int, right: str) -> None:
        pts, dbls, clims = score % 10000, (score // 10000) % 100, score // 1000000
        if (not clims or self.nolimit) and pts:
            self.total += pts
            self.points.append(f"{left:<12} {pts:2d} ({right})")
        if (not clims or self.nolimit) and dbls:
            self.doubles += dbls
            self.dbls.append(f"{left:<12}  {dbls:1d} dbl ({right})")
        if clims and not (self.nolimit and (pts or dbls)):
            self.centilims = max(self.centilims, clims)
            if clims == 100:
                self.limits.append(f"{'Limit Hand':<10} {self.limit:4d} ({right})")
            else:
                self.limits.append(f"{clims / 100:4g} Limit {clims * self.limit // 100:4d} ({right})")

    def double(self, n: int, right: str) -> None:
        self.add("", n * 10000, right)

    def limit_hand(self, right: str) -> None:
        self.add("", LIMIT, right)

    def result(self) -> tuple[int, tuple[str, ...]]:
        lines = [*self.points, f"{'total pts':<11} {self.total:3d}", *self.dbls,
                 f"{'total dbls':<12} {self.doubles:2d}"]
        value = self.total
        for _ in range(self.doubles):
            value = min(value * 2, HARD_LIMIT)
        if not self.nolimit and value > self.limit:
            lines.append(f"{'score:':<9} {value:5d} (over limit)")
            value = self.limit
        lines += self.limits
        if self.centilims:
            if self.nolimit:
                value = max(value, self.centilims * self.limit // 100)
            else:
                value = self.centilims * self.limit // 100
                lines = list(self.limits)
        lines.append(f"{'SCORE:':<9} {value:5d}")
        return value, tuple(lines)


def set_points(ts: TileSet, own: str, prevailing: str, options: GameOptions) -> tuple[int, str]:
    """The points of one declared set and mj-server's name for them (0 and "" for a chow or a plain pair)."""
    d = 2 if is_major(ts.tile) else 1
    kind = "majors" if d == 2 else "minors"
    t = ts.type
    if t == "Pung":
        return 2 * d, f"open pung of {kind}"
    if t == "ClosedPung":
        return 4 * d, f"closed pung of {kind}"
    if t == "Kong":
        how = ("annexed" if ts.annexed else "claimed") if options.KongHas3Types else "open"
        return 8 * d, f"{how} kong of {kind}"
    if t == "ClosedKong":
        return 16 * d, f"closed kong of {kind}"
    if t in ("Pair", "ClosedPair"):
        if is_dragon(ts.tile):
            return 2, "pair of dragons"
        if ts.tile == own:
            return (4, "pair of own and prevailing wind") if own == prevailing else (2, "pair of own wind")
        if ts.tile == prevailing:
            return 2, "pair of prevailing wind"
    return 0, ""


_SUIT_BIT = {"B": 1, "C": 2, "D": 4}
_SUITS = 7  # every suit's bit


def _tile_part(t: str, chow: bool) -> tuple[int, int, bool, bool, bool, bool]:
    """What one tile (a concealed tile, a set's tile: a chow's lowest) tells ``score_hand``: the suits it leaves
    possible for one suit only and for one suit with honours (bits, ``_SUIT_BIT``: a suited tile leaves its own, an
    honour none for one suit only and every one with honours), whether it is green (a chow: all three tiles), an
    honour, a terminal, a major."""
    bit = _SUIT_BIT.get(suit(t), 0)
    if bit:
        if chow:
            green = all(x in GREEN for x in (t, f"{int(t[0]) + 1}{t[1]}", f"{int(t[0]) + 2}{t[1]}"))
        else:
            green = t in GREEN
        return bit, bit, green, is_honour(t), is_terminal(t), is_major(t)
    return 0, _SUITS, t in GREEN, is_honour(t), is_terminal(t), is_major(t)


# ``_tile_part`` of every tile and chow, made once: looked up for every set and concealed tile of every arrangement
_PARTS = {(t, chow): _tile_part(t, chow) for t in PLAYING + SPECIALS for chow in (False, True)
          if not chow or (is_suited(t) and step(t, 2) is not None)}


def score_hand(hand: Hand, at: Situation, options: GameOptions) -> HandScore:
    """One player's score and mj-server's explanation of it."""
    sheet = _Sheet(options)
    own = WINDS[at.seat]
    prevailing = at.round_wind
    winner = at.winner
    danger = Danger.END if winner else Danger(0)
    seven = options.SevenPairs

    if winner:
        sheet.add("basic", options.MahJongScore, "going Mah Jong")

    numchows = numkongs = numpairs = numpungs = numclosedpks = 0
    dragonsets = windsets = dragonpairs = windpairs = 0
    allclosed = noscore = allterminals = allhonours = allmajors = allgreen = True
    pure = with_honours = _SUITS  # the suits (bits) one suit only, and one suit with honours, may still be
    claimedpair = False
    eyestile: str | None = None

    parts = []  # each set's and concealed tile's part (``_tile_part``)
    for ts in hand.sets:
        pts, what = set_points(ts, own, prevailing, options)
        if pts:
            noscore = False
            sheet.add(ts.text(), pts, what)
        kind = ts.type
        if kind == "Chow":
            numchows += 1
            allclosed = allterminals = allhonours = allmajors = False
        elif kind == "ClosedChow":
            numchows += 1
            allterminals = allhonours = allmajors = False
        elif kind == "Pung":
            allclosed = False
            numpungs += 1
        elif kind == "ClosedPung":
            numpungs += 1
            numclosedpks += 1
        elif kind == "Kong":
            numkongs += 1
            if options.KongHas3Types and not ts.annexed:
                numclosedpks += 1
            else:
                allclosed = False
        elif kind == "ClosedKong":
            numkongs += 1
            numclosedpks += 1
        elif kind == "Pair":
            numpairs += 1
            allclosed = False
            claimedpair = True
            eyestile = ts.tile
        elif kind == "ClosedPair":
            numpairs += 1
            eyestile = ts.tile
        if ts.size >= 3:
            dragonsets += is_dragon(ts.tile)
            windsets += is_wind(ts.tile)
        else:
            dragonpairs += is_dragon(ts.tile)
            windpairs += is_wind(ts.tile)
        key = (ts.tile, kind in ("Chow", "ClosedChow"))
        parts.append(_PARTS.get(key) or _tile_part(*key))
    for ct in hand.concealed:
        parts.append(_PARTS.get((ct, False)) or _tile_part(ct, False))
    for part in parts:
        pure &= part[0]
        with_honours &= part[1]
        allgreen = allgreen and part[2]
        allhonours = allhonours and part[3]
        allterminals = allterminals and part[4]
        allmajors = allmajors and part[5]

    if numpairs == 7:
        sheet.add("basic points", options.SevenPairsVal, "seven pairs")
        noscore = False
    if hand.specials and not at.no_special_scores:
        n = len(hand.specials)
        sheet.add(f"{n} special{'s' if n > 1 else ''}", 4 * n, "flowers and seasons")
    if winner and (at.whence == "wall" or (at.whence == "loose" and options.LooseTileFromWall)):
        sheet.add("extra", 2, "winning from wall")
    if (winner and eyestile is not None and eyestile == at.tile and numpairs == 1
            and (claimedpair or at.whence in ("wall", "loose"))):
        sheet.add("extra", 4 if is_major(eyestile) else 2, "fishing the eyes")
    if numpairs == 1 and winner and at.caller is not None:
        places = 0
        exposed = at.exposed
        candidates = ([t for t in PLAYING if exposed[t] != 4 or at.tile == t] if options.OnlyPlaceCountsExposed
                      else PLAYING)
        for _ in completions(at.caller, candidates, seven):
            places += 1
            if places > 1:  # (two places: not the only one)
                break
        if places <= 1:
            sheet.add("extra", 2, "filling the only place")

    for ts in hand.sets:
        if ts.size >= 3:
            if is_dragon(ts.tile):
                sheet.add(ts.text(), 10000, "pung/kong of dragons")
            if is_wind(ts.tile) and ts.tile == own:
                sheet.add(ts.text(), 10000, "pung/kong of own wind")
            if is_wind(ts.tile) and ts.tile == prevailing:
                sheet.add(ts.text(), 10000, "pung/kong of prevailing wind")

    if not at.no_special_scores:
        flowers = [t for t in hand.specials if t[1] == "F"]
        seasons = [t for t in hand.specials if t[1] == "S"]
        ownflower = any(value(t) == at.seat + 1 for t in flowers)
        ownseason = any(value(t) == at.seat + 1 for t in seasons)
        if ownflower:
            sheet.add("", options.FlowersOwnEach, "own flower")
        if ownseason:
            sheet.add("", options.FlowersOwnEach, "own season")
        if ownflower and ownseason:
            sheet.add("", options.FlowersOwnBoth, "own flower and season")
        if len(flowers) == 4:
            sheet.add("", options.FlowersBouquet, "all four flowers")
        if len(seasons) == 4:
            sheet.add("", options.FlowersBouquet, "all four seasons")

    if dragonsets == 3:
        sheet.double(2, "Big Three Dragons")
        danger |= Danger.DRAGON if winner else 0
    elif dragonsets == 2 and dragonpairs:
        sheet.double(1, "Little Three Dragons")
        danger |= Danger.DRAGON if winner else 0
    if windsets == 4:
        sheet.double(2, "Big Four Joys")
        danger |= Danger.WIND if winner else 0
    elif windsets == 3 and windpairs:
        sheet.double(1, "Little Four Joys")
        danger |= Danger.WIND if winner else 0
    if numclosedpks >= 3:
        sheet.double(1, "three concealed pungs")
    if winner:
        if numchows == 0 and numpairs == 1:
            sheet.double(1, "no chows")
        if noscore:
            sheet.double(1, "no score hand")
    purity = winner or options.LosersPurity
    if purity:
        if allhonours:
            sheet.double(2, "all honours")
            danger |= Danger.HONOUR
        elif allterminals:
            sheet.double(2, "all terminals")
            danger |= Danger.TERMINAL
        if allmajors:
            sheet.double(1, "all majors")
    if winner:
        if at.whence == "discard":
            allclosed = False
        if allclosed:
            sheet.add("", options.ConcealedFully, "concealed hand")
    if winner and not allclosed:
        semiclosed = at.caller is not None and all(s.type in CLOSED for s in at.caller.sets)
        if semiclosed:
            sheet.add("", options.ConcealedAlmost, "almost concealed hand")
    elif not winner and allclosed and options.LosersPurity:
        sheet.add("", options.ConcealedAlmost, "almost concealed hand")
    onesuit = pure != 0
    if purity:
        if onesuit:
            sheet.double(3, "one suit only")
            for s, flag in (("B", Danger.BAMBOO), ("C", Danger.CHARACTER), ("D", Danger.CIRCLE)):
                if pure & _SUIT_BIT[s]:
                    danger |= flag
        elif not allhonours and with_honours:
            sheet.double(1, "one suit with honours")
    if winner:
        if at.whence == "loose":
            sheet.double(1, "winning with loose tile")
        if at.last_tile and (at.whence != "loose" or options.LastTileOnLoose):
            sheet.double(1, "winning with last tile")
        if at.whence == "robbed":
            sheet.double(1, "robbing a kong")
        if at.original_call:
            sheet.double(1, "completing Original Call")

        east = at.seat == 0
        if east and at.no_discard[0]:
            sheet.limit_hand("Heaven's Blessing")
        if not east and at.no_discard[at.seat] and at.whence == "discard" and all(at.no_discard[1:]):
            sheet.limit_hand("Earth's Blessing")
        if at.whence == "loose" and at.tile == "5D":
            sheet.limit_hand("Gathering Plum Blossom from the Roof")
        if at.tile == "1D" and at.exactly_last and at.whence == "wall":
            sheet.limit_hand("Catching the Moon from the Bottom of the Sea")
        if at.whence == "robbed" and at.tile == "2B":
            sheet.limit_hand("Scratching a Carrying Pole")
        if at.kong_upon_kong and at.whence != "robbed":  # (robbing the kong ends it: mj-server clears the flag)
            sheet.limit_hand("Kong upon Kong")
        if numkongs == 4:
            sheet.limit_hand("Fourfold Plenty")
        if allclosed and numpungs + numkongs == 4:
            sheet.limit_hand("Buried Treasure")
        if thirteen_wonders(Counter(hand.concealed)):
            sheet.limit_hand("Thirteen Unique Wonders")
        if dragonsets == 3 and (numchows == 0 or not options.ScholarsNoChows):
            sheet.limit_hand("Three Great Scholars")
        if windsets == 4:
            sheet.limit_hand("Four Blessing o'er the Door")
        if allhonours:
            sheet.limit_hand("All Honours")
        if allterminals:
            sheet.limit_hand("Heads and Tails")
        if allclosed and onesuit:
            sheet.limit_hand("Concealed Clear Suit")
        if options.EastWinsLimit and at.hands_as_east == options.EastWinsLimit - 1 and east:
            sheet.limit_hand(f"East's {_ordinal(options.EastWinsLimit)} consecutive win")
        if allgreen:
            sheet.limit_hand("Imperial Jade")
            danger |= Danger.GREEN
        if onesuit and _nine_gates(at):
            sheet.limit_hand("Nine Gates")
        if onesuit and _wriggling_snake(hand.sets):
            sheet.limit_hand("Wriggling Snake")
    value_, lines = sheet.result()
    return HandScore(value_, lines, danger)


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _nine_gates(at: Situation) -> bool:
    """The winner was calling on 1112345678999 of the completing tile's suit, all concealed."""
    if at.caller is None or at.tile is None or is_honour(at.tile) or not is_suited(at.tile):
        return False
    conc = at.caller.concealed
    if len(conc) < 13:
        return False
    order = {t: i for i, t in enumerate(PLAYING)}
    ordered = sorted(conc, key=lambda t: order.get(t, len(order)))
    s = at.tile[1]
    want = [f"{v}{s}" for v in (1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9)]
    return ordered[:13] == want


def _wriggling_snake(sets: Sequence[TileSet]) -> bool:
    kinds = {(ts.type, value(ts.tile)) for ts in sets}
    setv = {v for t, v in kinds if t in ("Pung", "ClosedPung", "Kong", "ClosedKong")}
    pairv = {v for t, v in kinds if t in ("Pair", "ClosedPair")}
    chowv = {v for t, v in kinds if t in ("Chow", "ClosedChow")}
    return 1 in setv and 9 in setv and ((2 in pairv and {3, 6} <= chowv) or (5 in pairv and {2, 6} <= chowv)
                                        or (8 in pairv and {2, 5} <= chowv))


@record(frozen=True, slots=True)
class Settlement:
    changes: tuple[int, int, int, int]  # East, South, West, North
    explanation: tuple[str, ...]


def settle(scores: Sequence[int], winner: int, options: GameOptions, *, whence: Whence,
           supplier: int | None, cannoner: int | None) -> Settlement:
    """The payments of a won hand among the four seats (0 is East), with mj-server's explanation."""
    changes = [0, 0, 0, 0]
    buf: list[str] = []
    if cannoner is not None:
        buf.append(f"{SEAT_NAMES[cannoner]} let off a cannon\n\n")
    for i in range(4):
        if i == winner:
            continue
        m = scores[winner]
        if options.EastDoubles and i * winner == 0:
            m *= 2
        if options.DiscDoubles and (whence != "discard" or i == supplier):
            m *= 2
        payer = cannoner if cannoner is not None else i
        changes[winner] += m
        changes[payer] -= m
        buf.append(f"{SEAT_NAMES[payer]} pays {SEAT_NAMES[winner]}")
        if cannoner is not None and cannoner != i:
            buf.append(f" (for {SEAT_NAMES[i]})")
        buf.append(f" {m:5d}\n")
    buf.append(f"{SEAT_NAMES[winner]} GAINS {changes[winner]:5d}\n\n")
    for i in range(4):
        if i == winner:
            continue
        for j in range(i + 1, 4):
            if j == winner or cannoner is not None or not options.LosersSettle:
                continue
            m = scores[i] - scores[j]
            if options.EastDoubles and i * j == 0:
                m *= 2
            changes[i] += m
            changes[j] -= m
            if m > 0:
                buf.append(f"{SEAT_NAMES[j]} pays {SEAT_NAMES[i]} {m:5d}\n")
            elif m < 0:
                buf.append(f"{SEAT_NAMES[i]} pays {SEAT_NAMES[j]} {-m:5d}\n")
            else:
                buf.append(f"{SEAT_NAMES[i]} and {SEAT_NAMES[j]} are even\n")
        buf.append(f"{SEAT_NAMES[i]} {'GAINS' if changes[i] >= 0 else 'LOSES'} {abs(changes[i]):5d}\n\n")
    text = "".join(buf)
    return Settlement((changes[0], changes[1], changes[2], changes[3]), tuple(text.split("\n")))


__all__ = ["Danger", "HandScore", "Settlement", "Situation", "score_hand", "set_points", "settle"]

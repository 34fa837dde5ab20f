"""A player's tiles as mj-server keeps them: declared sets (``TileSet``), concealed tiles and flowers; and whether
a tile would complete the hand (``can_mah_jong``: four sets and a pair, seven pairs where allowed, or the Thirteen
Unique Wonders), by the same exhaustive search mj-server makes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

from referee.game.classical.tiles import CHOW_REST, PLAYING, THIRTEEN_WONDERS, is_suited, step
from referee.game.records import record

SetType = Literal["Chow", "ClosedChow", "Pung", "ClosedPung", "Kong", "ClosedKong", "Pair", "ClosedPair"]
CLOSED = frozenset({"ClosedChow", "ClosedPung", "ClosedKong", "ClosedPair"})
SIZE = {"Chow": 3, "ClosedChow": 3, "Pung": 3, "ClosedPung": 3, "Kong": 4, "ClosedKong": 4, "Pair": 2,
        "ClosedPair": 2}


@record(frozen=True, slots=True)
class TileSet:
    """A declared set: its type, its tile (a chow's lowest) and, for a kong, whether it was added to a pung."""

    type: SetType
    tile: str
    annexed: bool = False

    @property
    def size(self) -> int:
        return SIZE[self.type]

    def tiles(self) -> list[str]:
        if self.type in ("Chow", "ClosedChow"):
            return [self.tile, step(self.tile, 1) or "", step(self.tile, 2) or ""]
        return [self.tile] * self.size

    def text(self) -> str:
        """As mj-server writes a set: ``-`` joins exposed tiles, ``+`` concealed ones (a claimed kong's last)."""
        ts = self.tiles()
        if self.type in ("Chow", "ClosedChow"):
            sep = "+" if self.type == "ClosedChow" else "-"
            return sep.join(ts)
        if self.type in CLOSED:
            return "+".join(ts)
        if self.type == "Kong" and not self.annexed:
            return "-".join(ts[:-1]) + "+" + ts[-1]
        return "-".join(ts)


@dataclass(slots=True)
class Hand:
    """One player's tiles during a hand."""

    concealed: list[str] = field(default_factory=list)
    sets: list[TileSet] = field(default_factory=list)
    specials: list[str] = field(default_factory=list)

    def copy(self) -> Hand:
        return Hand(list(self.concealed), list(self.sets), list(self.specials))

    def take(self, tile: str, n: int = 1) -> bool:
        """Remove ``n`` copies of ``tile`` from the concealed tiles; False (and nothing removed) without them."""
        if self.concealed.count(tile) < n:
            return False
        for _ in range(n):
            self.concealed.remove(tile)
        return True

    def chow_from(self, tile: str, cpos: str) -> str | None:
        """The lowest tile of the chow that a claimed ``tile`` makes in position ``cpos`` (None if impossible)."""
        if not is_suited(tile):
            return None
        low = step(tile, {"Lower": 0, "Middle": -1, "Upper": -2}[cpos])
        return low if low is not None and step(low, 2) is not None else None


def can_mah_jong(hand: Hand, tile: str | None, seven_pairs: bool) -> bool:
    """Whether ``hand`` (with ``tile`` added, if given) is a complete hand: all its concealed tiles in sets making
    five sets one of which is a pair, or seven pairs (when allowed), or the Thirteen Unique Wonders."""
    counts = _counts(hand.concealed)
    if tile is not None:
        counts[tile] = counts.get(tile, 0) + 1
    n = sum(counts.values())
    declared = len(hand.sets)
    pairs = sum(1 for s in hand.sets if s.size == 2)
    if _partition(counts, declared, pairs, seven_pairs):
        return True
    return n == 14 and thirteen_wonders(counts)


def completions(hand: Hand, tiles: Iterable[str], seven_pairs: bool) -> Iterator[str]:
    """The tiles of ``tiles`` that complete ``hand`` (``can_mah_jong`` of each), in their order, the hand's counts
    made once."""
    counts = _counts(hand.concealed)
    n = sum(counts.values()) + 1
    declared = len(hand.sets)
    pairs = sum(1 for s in hand.sets if s.size == 2)
    # Only a face held or next to one held in its suit can join a set (or make the Thirteen Unique Wonders)
    near = set(THIRTEEN_WONDERS) if n == 14 else set()
    for t, k in counts.items():
        if k:
            near.update(_NEAR[t] if t in _NEAR else (t,))
    for t in tiles:
        if t not in near:
            continue
        counts[t] += 1
        ok = _partition(counts, declared, pairs, seven_pairs) or (n == 14 and thirteen_wonders(counts))
        counts[t] -= 1
        if ok:
            yield t


def complete_shape(sets: int, pairs: int, seven_pairs: bool) -> bool:
    """Whether ``sets`` sets, ``pairs`` of them pairs, are a complete hand's: five sets one of which is a pair, or
    seven pairs (when allowed)."""
    return (sets == 5 and pairs == 1) or (seven_pairs and sets == 7 and pairs == 7)


def open_shape(sets: int, pairs: int, seven_pairs: bool) -> bool:
    """Whether more sets added to ``sets`` sets (``pairs`` of them pairs) can still make a complete hand's shape:
    fewer than five sets and at most one pair, or (seven pairs allowed) fewer than seven sets, all pairs."""
    return (sets < 5 and pairs <= 1) or (seven_pairs and sets < 7 and pairs == sets)


def _counts(tiles: Iterable[str]) -> dict[str, int]:
    """How many of each face ``tiles`` hold, every face of PLAYING there (0 if none): the partition's lookups
    then never miss (a ``Counter`` answers a miss through a Python method)."""
    counts = dict.fromkeys(PLAYING, 0)
    for t in tiles:
        counts[t] = counts.get(t, 0) + 1
    return counts


def thirteen_wonders(counts: Mapping[str, int]) -> bool:
    if sum(counts.values()) != 14:
        return False
    return all(counts[t] >= 1 for t in THIRTEEN_WONDERS) and sum(counts[t] for t in THIRTEEN_WONDERS) == 14


_NEAR = {t: tuple(u for k in (-1, 0, 1) if (u := step(t, k) if k else t) is not None) for t in PLAYING}
"""Each face, and the faces next to it in its suit.  A face added to a hand joins a pair, pung or kong of a face
held, or a chow with at least one face held next to it: so only these faces, of the faces held, can complete it."""


def _partition(counts: dict[str, int], sets: int, pairs: int, seven_pairs: bool, start: int = 0) -> bool:
    """Whether the tiles in ``counts`` can all be made into sets so that, with the ``sets`` declared (``pairs`` of
    them pairs), there are five sets with one pair, or seven pairs (when allowed).  The first tile held is looked
    for from index ``start`` of PLAYING on (the ones before it are used up)."""
    c = counts
    i = start
    n = len(PLAYING)
    while i < n and c[PLAYING[i]] <= 0:
        i += 1
    if i == n:
        return complete_shape(sets, pairs, seven_pairs)
    if not open_shape(sets, pairs, seven_pairs):
        return False
    first = PLAYING[i]
    if c[first] >= 3:
        c[first] -= 3
        ok = _partition(c, sets + 1, pairs, seven_pairs, i)
        c[first] += 3
        if ok:
            return True
    run = CHOW_REST.get(first)
    if run is not None and c[run[0]] > 0 and c[run[1]] > 0:
        b, d = run
        c[first] -= 1
        c[b] -= 1
        c[d] -= 1
        ok = _partition(c, sets + 1, pairs, seven_pairs, i)
        c[first] += 1
        c[b] += 1
        c[d] += 1
        if ok:
            return True
    if c[first] >= 2:
        c[first] -= 2
        ok = _partition(c, sets + 1, pairs + 1, seven_pairs, i)
        c[first] += 2
        if ok:
            return True
    return False


__all__ = ["CLOSED", "Hand", "TileSet", "can_mah_jong", "complete_shape", "completions", "open_shape",
           "thirteen_wonders"]

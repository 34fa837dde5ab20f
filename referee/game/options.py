"""The legal answers to each kind of question, from what one seat knows.

The engine and a seat's view (``view.SeatView``) both call these, so the list of legal answers a bot can derive
from what it was told is, by construction, the list the engine accepts.  A property test checks that they agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from .tiles import ALL_TIDS, INDEX, is_suit_kind
from .types import GONG_CONCEALED, GONG_MELDED, GONG_PROMOTED, PASS, Answer, Meld

# Throws are the most frequent answers: one shared object per tile, no allocation per question.
_THROW: dict[int, Answer] = {t: Answer("throw", (t,)) for t in ALL_TIDS}


def throw_answer(tid: int) -> Answer:
    """The shared ``/throw tid`` answer object."""
    a = _THROW.get(tid)
    return a if a is not None else Answer("throw", (tid,))


def throw_options(concealed: Sequence[int]) -> tuple[Answer, ...]:
    """One ``/throw`` per concealed tile, ascending by TID."""
    return tuple(map(_THROW.__getitem__, sorted(concealed)))


def _of_kind(concealed: Sequence[int], k: int) -> list[int]:
    return sorted(t for t in concealed if t // 10 == k)


def may_self_gong(counts: Sequence[int], melds: Sequence[Meld]) -> bool:
    """A cheap test on the count vector: could ``self_gong_options`` return anything?"""
    if 4 in counts:
        return True
    for m in melds:  # a loop, not any() over a generator: asked at every draw, usually with no melds
        if m.type == "pong" and counts[INDEX[m.tiles[0] // 10]]:  # m.kind, without a property call
            return True
    return False


def self_gong_options(concealed: Sequence[int], melds: Sequence[Meld]) -> list[Answer]:
    """Concealed gongs (four of a kind in hand) and promotions (a pong's fourth tile in hand), in one's own turn."""
    by_kind: dict[int, list[int]] = {}
    for t in concealed:
        by_kind.setdefault(t // 10, []).append(t)
    out: list[Answer] = []
    for k in sorted(by_kind):
        group = by_kind[k]
        if len(group) == 4:
            out.append(Answer("gong", tuple(sorted(group)), GONG_CONCEALED))
    for m in melds:
        if m.type == "pong":
            for t in by_kind.get(m.kind, ()):
                out.append(Answer("gong", (t,), GONG_PROMOTED))
    return out


def meld_gong_option(concealed: Sequence[int], tile: int) -> Answer | None:
    """``/gong 4`` with the three tiles of ``tile``'s kind, if the hand holds three."""
    same = _of_kind(concealed, tile // 10)
    if len(same) == 3:
        return Answer("gong", tuple(same), GONG_MELDED)
    return None


def pong_options(concealed: Sequence[int], tile: int) -> list[Answer]:
    """Every pair of held tiles of ``tile``'s kind."""
    same = _of_kind(concealed, tile // 10)
    return [Answer("pong", pair) for pair in combinations(same, 2)]


def chow_shapes(tile: int) -> list[tuple[int, int]]:
    """The pairs of kinds that make a chow with ``tile``: (k-2, k-1), (k-1, k+1), (k+1, k+2) within its suit."""
    k = tile // 10
    if not is_suit_kind(k):
        return []
    r = k % 10
    shapes = []
    if r >= 3:
        shapes.append((k - 2, k - 1))
    if 2 <= r <= 8:
        shapes.append((k - 1, k + 1))
    if r <= 7:
        shapes.append((k + 1, k + 2))
    return shapes


# Per rank 1..9 of a claimed suit tile: the kind offsets of the pairs that make a chow with it, as chow_shapes.
_CHOW_OFFSETS = tuple(tuple((a - 10 - r, b - 10 - r) for a, b in chow_shapes((10 + r) * 10)) for r in range(10))


def eat_options(concealed: Sequence[int], tile: int) -> list[Answer]:
    """Every pair of held TIDs that makes a chow with ``tile`` (each copy combination is its own answer), shape by
    shape in ``chow_shapes`` order, each shape's copies ascending."""
    k = tile // 10
    if not is_suit_kind(k):
        return []
    by_offset: dict[int, list[int]] = {}  # kind offset from the tile's -2..2 -> held TIDs
    for t in concealed:
        d = t // 10 - k
        if -2 <= d <= 2:  # only the kinds a chow with the tile can use
            by_offset.setdefault(d, []).append(t)
    out: list[Answer] = []
    for a, b in _CHOW_OFFSETS[k % 10]:
        xs = by_offset.get(a)
        ys = by_offset.get(b)
        if xs and ys:
            for x in sorted(xs):
                for y in sorted(ys):
                    out.append(Answer("eat", (x, y)))  # a < b: x's kind is below y's, so (x, y) is ascending
    return out


def with_pass(options: Sequence[Answer]) -> tuple[Answer, ...]:
    return (*options, PASS)


def eat_broadcast(claimed: int, mine: tuple[int, int]) -> tuple[int, int, int]:
    """The ``/eat`` broadcast order: the claimed tile in the middle, the eater's two by rank around it."""
    a, b = mine  # by rank is by TID: a TID is its kind times ten plus its copy
    return (a, claimed, b) if a < b else (b, claimed, a)

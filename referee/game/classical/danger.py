"""The danger flags behind letting off a cannon, as mj-server keeps them: which dangerous hands a player's
declared sets threaten (``sets_danger``), which of them a discard feeds (``feeds``), and the marking of a
dangerous discard when it is claimed (``mark_discard``).  Shared by the replay of mj-server's histories
(``table``) and the engine's classical family (``family``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from referee.game.classical.scoring import Danger
from referee.game.classical.tiles import DRAGONS, GREEN, PLAYING, WINDS, is_honour, is_terminal, suit

_PURE = int(Danger.BAMBOO | Danger.CHARACTER | Danger.CIRCLE | Danger.HONOUR | Danger.GREEN | Danger.TERMINAL)


def _one_set(kind: str, tile: str) -> tuple[int, int, int, int]:
    """What one set adds to ``sets_danger``'s tally: whether it counts as a set (a chow, pung or kong declared
    exposed), a dragon set, a wind set (pairs too, as mj-server counts), and the bits of ``_PURE`` it keeps (one
    suit, all honours, all green, all terminals): the hand keeps a bit while every set does."""
    su = suit(tile)
    keep = 0
    if su == "B":
        keep |= int(Danger.BAMBOO)
    elif su == "C":
        keep |= int(Danger.CHARACTER)
    elif su == "D":
        keep |= int(Danger.CIRCLE)
    if kind != "Chow" and is_honour(tile):
        keep |= int(Danger.HONOUR)
    if kind != "Chow" and is_terminal(tile):
        keep |= int(Danger.TERMINAL)
    if su == "B":
        green = tile[0] == "2" if kind == "Chow" else tile in GREEN  # 2-3-4 is the only green chow
    else:
        green = su == "Dr" and tile == "GD"
    if green:
        keep |= int(Danger.GREEN)
    counted = kind in ("Chow", "Pung", "Kong")
    return int(counted), int(tile in DRAGONS), int(tile not in DRAGONS and tile in WINDS), keep


_SET_TYPES = ("Chow", "ClosedChow", "Pung", "ClosedPung", "Kong", "ClosedKong", "Pair", "ClosedPair")
_ONE_SET: dict[tuple[str, str], tuple[int, int, int, int]] = {
    (k, t): _one_set(k, t) for k in _SET_TYPES for t in PLAYING}
_DANGERS: dict[int, Danger] = {}  # an int's Danger, made once (an IntFlag call costs a Python call)


def danger_of(f: int) -> Danger:
    """``Danger(f)``, the same value, from a table."""
    d = _DANGERS.get(f)
    if d is None:
        d = _DANGERS[f] = Danger(f)
    return d


def set_part(kind: str, tile: str) -> tuple[int, int, int, int]:
    """One set's part of ``sets_danger`` (``_one_set``), from a table for sets of playing tiles."""
    one = _ONE_SET.get((kind, tile))
    return one if one is not None else _one_set(kind, tile)


def parts_danger(parts: Iterable[tuple[int, int, int, int]]) -> Danger:
    """``sets_danger`` of the sets whose parts (``set_part``) are ``parts``: the tally in plain integers."""
    n = dragonsets = windsets = 0
    keep = _PURE
    for one in parts:
        n += one[0]
        dragonsets += one[1]
        windsets += one[2]
        keep &= one[3]
    f = int(Danger.END)
    if n >= 3:
        f |= keep
    if windsets >= 3:
        f |= int(Danger.WIND)
    if dragonsets >= 2:
        f |= int(Danger.DRAGON)
    return danger_of(f)


def sets_danger(sets: Iterable[tuple[str, str]]) -> Danger:
    """The dangerous hands that sets threaten (three sets of one suit, of winds, two of dragons, all honours, all
    green, all terminals), with ``END`` (a discard near the end of the wall is always checked).  ``sets`` are each
    set's type and tile (``TileSet.type``, ``TileSet.tile``).  Each set's part is looked up (``set_part``) and the
    parts added up (``parts_danger``): asked at every set made in a classical hand."""
    return parts_danger([set_part(kind, tile) for kind, tile in sets])


_NONE = Danger(0)
HANDS = int(Danger.END) - 1  # every flag but END: the dangerous hands themselves


def feeds(flags: Danger, t: str) -> Danger:
    """The dangerous hands of ``flags`` that tile ``t`` feeds."""
    if not int(flags) & HANDS:  # the usual case: no dangerous hand (asked for every claim)
        return _NONE
    d = Danger(0)
    su = suit(t)
    for flag, ok in ((Danger.BAMBOO, su == "B"), (Danger.CHARACTER, su == "C"), (Danger.CIRCLE, su == "D"),
                     (Danger.WIND, su == "W"), (Danger.DRAGON, su == "Dr"), (Danger.HONOUR, is_honour(t)),
                     (Danger.TERMINAL, is_terminal(t)), (Danger.GREEN, t in GREEN)):
        if flags & flag and ok:
            d |= flag
    return d


def mark_discard(flags: Sequence[list[Danger]], claimer: int, supplier: int, t: str, supplier_concealed: Iterable[str],
                 end_danger: Callable[[str], bool]) -> None:
    """``claimer`` (seat 0-3) claimed ``supplier``'s discard ``t``: if it fed one of the claimer's dangerous hands
    and the supplier had a safe tile to discard instead, the supplier is marked in the claimer's flags (and the
    others cleared).  ``flags[i]`` is player i's flags about every seat (``flags[i][i]`` its own hand's);
    ``end_danger(tile)``: a discard near the end of the wall of a tile discarded at most once before."""
    mine = flags[claimer]
    danger = feeds(mine[claimer], t)
    if end_danger(t):
        danger |= Danger.END
    if not danger:
        return
    for ct in supplier_concealed:
        if not any(feeds(flags[i][i], ct) or end_danger(ct) for i in range(4) if i != supplier):
            break  # a safe tile: the discard was a choice
    else:
        return  # no choice: every tile was dangerous
    mine[supplier] |= danger
    for i in range(4):
        if i not in (claimer, supplier):
            mine[i] = Danger(0)

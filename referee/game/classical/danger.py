"""The danger flags behind letting off a cannon, as mj-server keeps them: which dangerous hands a player's
declared sets threaten (``sets_danger``), which of them a discard feeds (``feeds``), and the marking of a
dangerous discard when it is claimed (``mark_discard``).  Shared by the replay of mj-server's histories
(``table``) and the engine's classical family (``family``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from referee.game.classical.scoring import Danger
from referee.game.classical.tiles import DRAGONS, GREEN, WINDS, is_honour, is_terminal, suit


def sets_danger(sets: Iterable[tuple[str, str]]) -> Danger:
    """The dangerous hands that sets threaten (three sets of one suit, of winds, two of dragons, all honours, all
    green, all terminals), with ``END`` (a discard near the end of the wall is always checked).  ``sets`` are each
    set's type and tile (``TileSet.type``, ``TileSet.tile``).  Worked out in plain integers (an ``IntFlag``
    operation costs a call): asked at every set made in a classical hand."""
    n = dragonsets = windsets = 0
    allh = allt = allg = True
    pure = {"B", "C", "D"}
    for kind, tile in sets:
        if kind == "Chow":
            allt = allh = False
        if kind in ("Chow", "Pung", "Kong"):
            n += 1
        if tile in DRAGONS:
            dragonsets += 1
        elif tile in WINDS:
            windsets += 1
        su = suit(tile)
        pure &= {su}
        if su == "B":
            if kind == "Chow":
                allg = allg and tile[0] == "2"  # 2-3-4 is the only green chow
            elif tile not in GREEN:
                allg = False
        elif su != "Dr" or tile != "GD":
            allg = False
        allh = allh and is_honour(tile)
        allt = allt and is_terminal(tile)
    f = int(Danger.END)
    if n >= 3:
        f |= int(Danger.BAMBOO) if "B" in pure else 0
        f |= int(Danger.CHARACTER) if "C" in pure else 0
        f |= int(Danger.CIRCLE) if "D" in pure else 0
        if allh:
            f |= int(Danger.HONOUR)
        if allg:
            f |= int(Danger.GREEN)
        if allt:
            f |= int(Danger.TERMINAL)
    if windsets >= 3:
        f |= int(Danger.WIND)
    if dragonsets >= 2:
        f |= int(Danger.DRAGON)
    return Danger(f)


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

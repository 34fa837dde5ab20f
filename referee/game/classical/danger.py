"""The danger flags behind letting off a cannon, as mj-server keeps them: which dangerous hands a player's
declared sets threaten (``sets_danger``), which of them a discard feeds (``feeds``), and the marking of a
dangerous discard when it is claimed (``mark_discard``).  Shared by the replay of mj-server's histories
(``table``) and the engine's classical family (``family``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from referee.game.classical.hand import TileSet
from referee.game.classical.scoring import Danger
from referee.game.classical.tiles import GREEN, is_dragon, is_honour, is_terminal, is_wind, step, suit


def sets_danger(sets: Iterable[TileSet]) -> Danger:
    """The dangerous hands ``sets`` threaten (three sets of one suit, of winds, two of dragons, all honours, all
    green, all terminals), with ``END`` (a discard near the end of the wall is always checked)."""
    chows = pungs = kongs = 0
    dragonsets = windsets = 0
    allh = allt = allg = True
    pure = {"B": True, "C": True, "D": True}
    for ts in sets:
        if ts.type == "Chow":
            chows += 1
            allt = allh = False
        if ts.type == "Pung":
            pungs += 1
        if ts.type == "Kong":
            kongs += 1
        dragonsets += is_dragon(ts.tile)
        windsets += is_wind(ts.tile)
        su = suit(ts.tile)
        for k in pure:
            if k != su:
                pure[k] = False
        if su == "B":
            if ts.type == "Chow":
                run = [ts.tile, step(ts.tile, 1), step(ts.tile, 2)]
                allg = allg and all(x in GREEN for x in run)
            elif ts.tile not in GREEN:
                allg = False
        elif su in ("C", "D", "W"):
            allg = False
        elif ts.tile != "GD":
            allg = False
        allh = allh and is_honour(ts.tile)
        allt = allt and is_terminal(ts.tile)
    n = pungs + kongs + chows
    f = Danger(0)
    if n >= 3 and pure["B"]:
        f |= Danger.BAMBOO
    if n >= 3 and pure["C"]:
        f |= Danger.CHARACTER
    if n >= 3 and pure["D"]:
        f |= Danger.CIRCLE
    if windsets >= 3:
        f |= Danger.WIND
    if dragonsets >= 2:
        f |= Danger.DRAGON
    if n >= 3 and allh:
        f |= Danger.HONOUR
    if n >= 3 and allg:
        f |= Danger.GREEN
    if n >= 3 and allt:
        f |= Danger.TERMINAL
    return f | Danger.END


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

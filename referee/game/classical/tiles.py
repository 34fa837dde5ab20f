"""mj-server's tile codes: ``1B``-``9B`` bamboo, ``1C``-``9C`` characters, ``1D``-``9D`` circles, ``EW SW WW NW``
winds, ``RD WD GD`` dragons, ``1F``-``4F`` flowers and ``1S``-``4S`` seasons; ``--`` is a hidden (or no) tile.

Tiles are kept as these two-letter strings throughout the family: they are what the hand histories, the option
files and mj-server's explanations say, so a difference is shown as mj-server would show it.
"""

from __future__ import annotations

SUITS = ("B", "C", "D")
WINDS = ("EW", "SW", "WW", "NW")  # in seat order: East is seat 0's wind, and the prevailing wind of round 0
DRAGONS = ("RD", "WD", "GD")
FLOWERS = ("1F", "2F", "3F", "4F")
SEASONS = ("1S", "2S", "3S", "4S")
HIDDEN = "--"

SUITED = tuple(f"{v}{s}" for s in SUITS for v in range(1, 10))
HONOURS = WINDS + DRAGONS
PLAYING = SUITED + HONOURS  # the 34 kinds that make sets, in mj-server's iteration order
SPECIALS = FLOWERS + SEASONS
ALL = frozenset(PLAYING + SPECIALS)
GREEN = frozenset({"2B", "3B", "4B", "6B", "8B", "GD"})
THIRTEEN_WONDERS = ("1B", "9B", "1C", "9C", "1D", "9D") + HONOURS


def is_suited(t: str) -> bool:
    return t[1] in SUITS and t[0].isdigit()


def is_honour(t: str) -> bool:
    return t in HONOURS


def is_dragon(t: str) -> bool:
    return t in DRAGONS


def is_wind(t: str) -> bool:
    return t in WINDS


def is_terminal(t: str) -> bool:
    return is_suited(t) and t[0] in "19"


def is_major(t: str) -> bool:
    """A terminal or an honour."""
    return is_honour(t) or is_terminal(t)


def is_special(t: str) -> bool:
    return t in SPECIALS


def suit(t: str) -> str:
    """``B``, ``C`` or ``D`` for a suited tile; ``W`` winds; ``Dr`` dragons; ``F`` flowers; ``S`` seasons."""
    if is_suited(t):
        return t[1]
    if t in WINDS:
        return "W"
    if t in DRAGONS:
        return "Dr"
    return t[1]


def value(t: str) -> int:
    """A suited tile's number; a wind's, flower's or season's seat (1-4); a dragon's index (1-3)."""
    if t[0].isdigit():
        return int(t[0])
    return (WINDS.index(t) if t in WINDS else DRAGONS.index(t)) + 1


def step(t: str, n: int) -> str | None:
    """The suited tile ``n`` places above ``t`` in its suit, or None off the end (or for an honour)."""
    if not is_suited(t):
        return None
    v = int(t[0]) + n
    return f"{v}{t[1]}" if 1 <= v <= 9 else None


CHOW_REST = {t: (b, c) for t in PLAYING if (b := step(t, 1)) is not None and (c := step(t, 2)) is not None}
"""Each face that starts a chow (1-7 of a suit), with the chow's two other faces."""

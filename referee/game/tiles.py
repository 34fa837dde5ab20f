"""Tiles and tile IDs (TIDs), exactly as the ICGA protocol page numbers them.

A TID is ``kind * 10 + copy`` (copy 0..3) for suit and honour tiles, and ``kind * 10`` for the eight flowers
(kinds 1..8, one copy each).  Suit kinds are ``suit * 10 + rank``: wan 11..19, tiao 21..29, tong 31..39.
Honour kinds follow the seed's own table: East 41, **West 42, South 43**, North 44, Red 45, Green 46, White 47.

Hand analysis works on a dense index 0..33 of the 34 suit and honour kinds (``INDEX``/``KIND_AT``), so that a
hand is a vector of 34 counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from referee.errors import InputError
from referee.numbers import is_int_text

from .types import TYPE_CHECKING

if TYPE_CHECKING:  # ``typing`` is no part of a bot's start (see ``referee.game.kinds``)
    from typing import Final

WAN: Final = 1
TIAO: Final = 2
TONG: Final = 3
HONOUR: Final = 4

SUIT_NAMES: Final = {WAN: "wan", TIAO: "tiao", TONG: "tong"}
SUIT_LETTERS: Final = {WAN: "m", TIAO: "s", TONG: "p"}  # the usual short forms: 1m = 1-wan, 1s = 1-tiao, 1p = 1-tong

# The one table that maps wind names to kinds (docs/protocol.md: the framework's table lists East, West, South, North).
WIND_KIND: Final[dict[str, int]] = {"EAST": 41, "WEST": 42, "SOUTH": 43, "NORTH": 44}
KIND_WIND: Final[dict[int, str]] = {k: w for w, k in WIND_KIND.items()}
WINDS_IN_ORDER: Final = ("EAST", "SOUTH", "WEST", "NORTH")  # round order and seat-wind order
DRAGON_KINDS: Final = (45, 46, 47)
WIND_KINDS: Final = (41, 42, 43, 44)

SUIT_KINDS: Final[tuple[int, ...]] = tuple(s * 10 + r for s in (WAN, TIAO, TONG) for r in range(1, 10))
HONOUR_KINDS: Final[tuple[int, ...]] = (41, 42, 43, 44, 45, 46, 47)
KINDS: Final[tuple[int, ...]] = SUIT_KINDS + HONOUR_KINDS  # the 34 kinds, in dense-index order
FLOWER_KINDS: Final[tuple[int, ...]] = tuple(range(1, 9))
FLOWER_TIDS: Final[tuple[int, ...]] = tuple(k * 10 for k in FLOWER_KINDS)

KIND_AT: Final = KINDS
INDEX: Final[dict[int, int]] = {k: i for i, k in enumerate(KINDS)}

ALL_TIDS: Final[tuple[int, ...]] = tuple(k * 10 + c for k in KINDS for c in range(4))
ALL_TIDS_WITH_FLOWERS: Final[tuple[int, ...]] = ALL_TIDS + FLOWER_TIDS
_VALID: Final[frozenset[int]] = frozenset(ALL_TIDS_WITH_FLOWERS)

HONOUR_NAMES: Final[dict[int, tuple[str, str]]] = {
    41: ("East", "東"),
    42: ("West", "西"),
    43: ("South", "南"),
    44: ("North", "北"),
    45: ("Red", "中"),
    46: ("Green", "發"),
    47: ("White", "白"),
}
FLOWER_NAMES: Final[dict[int, tuple[str, str]]] = {
    1: ("Spring", "春"),
    2: ("Summer", "夏"),
    3: ("Autumn", "秋"),
    4: ("Winter", "冬"),
    5: ("Plum", "梅"),
    6: ("Orchid", "蘭"),
    7: ("Chrysanthemum", "菊"),
    8: ("Bamboo", "竹"),
}
_SUIT_CHINESE: Final = {WAN: "萬", TIAO: "條", TONG: "筒"}
_CHINESE_NUMERALS: Final = "一二三四五六七八九"

# Unicode Mahjong Tiles block (U+1F000..U+1F02B).
_GLYPH_BASE: Final = {WAN: 0x1F007, TIAO: 0x1F010, TONG: 0x1F019}
_HONOUR_GLYPH: Final = {41: 0x1F000, 43: 0x1F001, 42: 0x1F002, 44: 0x1F003, 45: 0x1F004, 46: 0x1F005, 47: 0x1F006}
_FLOWER_GLYPH: Final = {1: 0x1F026, 2: 0x1F027, 3: 0x1F028, 4: 0x1F029, 5: 0x1F022, 6: 0x1F023, 7: 0x1F025, 8: 0x1F024}


class TileError(InputError):
    """A tile ID or tile name that does not exist; the message says which and why."""


def is_tid(value: object) -> bool:
    """True for every TID of the 144-tile set (suit, honour and flower tiles)."""
    return isinstance(value, int) and not isinstance(value, bool) and value in _VALID


def check_tid(value: object, *, flowers: bool = True) -> int:
    """Return ``value`` as a TID or raise :class:`TileError` saying why it is not one."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TileError(f"{value!r} is not a tile ID (not an integer)")
    if value not in _VALID:
        raise TileError(f"{value} is not a tile ID")
    if not flowers and is_flower(value):
        raise TileError(f"{value} is a flower, and flowers are not in play")
    return value


def kind(tid: int) -> int:
    """The tile's face: 11..47 for suit and honour tiles, 1..8 for flowers."""
    return tid // 10


def copy_of(tid: int) -> int:
    return tid % 10


def is_flower(tid: int) -> bool:
    return tid < 100


def is_honour_kind(k: int) -> bool:
    return k >= 41


def is_suit_kind(k: int) -> bool:
    return 11 <= k <= 39


def suit_of_kind(k: int) -> int:
    """1 wan, 2 tiao, 3 tong, 4 honour (0 for flower kinds)."""
    return k // 10


def rank_of_kind(k: int) -> int:
    return k % 10


def is_terminal_kind(k: int) -> bool:
    return is_suit_kind(k) and rank_of_kind(k) in (1, 9)


def name(tid_or_kind: int, *, chinese: bool = False) -> str:
    """English (``3-Wan``, ``East``, ``Plum``) or Chinese (``三萬``, ``東``, ``梅``) name of a TID or kind."""
    k = tid_or_kind // 10 if tid_or_kind >= 100 or (tid_or_kind in FLOWER_TIDS) else tid_or_kind
    if k in HONOUR_NAMES:
        return HONOUR_NAMES[k][1 if chinese else 0]
    if k in FLOWER_NAMES:
        return FLOWER_NAMES[k][1 if chinese else 0]
    if is_suit_kind(k):
        s, r = suit_of_kind(k), rank_of_kind(k)
        if chinese:
            return _CHINESE_NUMERALS[r - 1] + _SUIT_CHINESE[s]
        return f"{r}-{SUIT_NAMES[s].capitalize()}"
    raise TileError(f"{tid_or_kind} is not a tile ID or kind")


def short(tid_or_kind: int) -> str:
    """Compact ASCII form: ``3m``/``7s``/``9p`` for suits, ``E W S N R G Wh`` for honours, ``f1..f8`` flowers."""
    k = tid_or_kind // 10 if tid_or_kind >= 100 or tid_or_kind in FLOWER_TIDS else tid_or_kind
    if is_suit_kind(k):
        return f"{rank_of_kind(k)}{SUIT_LETTERS[suit_of_kind(k)]}"
    honour = {41: "E", 42: "W", 43: "S", 44: "N", 45: "R", 46: "G", 47: "Wh"}
    if k in honour:
        return honour[k]
    if k in FLOWER_NAMES:
        return f"f{k}"
    raise TileError(f"{tid_or_kind} is not a tile ID or kind")


def glyph(tid_or_kind: int) -> str:
    """The Unicode Mahjong glyph of a TID or kind."""
    k = tid_or_kind // 10 if tid_or_kind >= 100 or tid_or_kind in FLOWER_TIDS else tid_or_kind
    if is_suit_kind(k):
        return chr(_GLYPH_BASE[suit_of_kind(k)] + rank_of_kind(k) - 1)
    if k in _HONOUR_GLYPH:
        return chr(_HONOUR_GLYPH[k])
    if k in _FLOWER_GLYPH:
        return chr(_FLOWER_GLYPH[k])
    raise TileError(f"{tid_or_kind} is not a tile ID or kind")


def parse_tid(token: str, *, flowers: bool = True) -> int:
    """Parse one TID token strictly (decimal digits only), with a reason on failure."""
    if not is_int_text(token):  # ASCII digits: int() would take "２３" (full-width) as 23
        raise TileError(f"{token!r} is not a tile ID (not a number)")
    return check_tid(int(token), flowers=flowers)


def parse_tids(text: str | Iterable[str], *, flowers: bool = True) -> list[int]:
    """Parse blank-separated TIDs; any bad token raises :class:`TileError` naming it."""
    tokens = text.split() if isinstance(text, str) else list(text)
    return [parse_tid(t, flowers=flowers) for t in tokens]


def check_distinct(tids: Sequence[int], what: str = "tiles") -> None:
    """Raise :class:`TileError` if a TID appears twice (each physical tile exists once)."""
    seen: set[int] = set()
    for t in tids:
        if t in seen:
            raise TileError(f"{what}: tile {t} appears twice")
        seen.add(t)


def counts34(tids: Iterable[int]) -> list[int]:
    """The 34-vector of counts by dense kind index (flowers are ignored)."""
    c = [0] * 34
    for t in tids:
        if t >= 100:
            c[INDEX[t // 10]] += 1
    return c


def sort_tids(tids: Iterable[int]) -> list[int]:
    return sorted(tids)


def format_tids(tids: Iterable[int]) -> str:
    return " ".join(str(t) for t in tids)


def glyphs(tids: Iterable[int]) -> str:
    return "".join(glyph(t) for t in tids)

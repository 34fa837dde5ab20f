"""The small typed objects the engine speaks in: melds, questions, answers and events.

Names follow the ICGA protocol (``throw``, ``mo``, ``eat``, ``pong``, ``gong``, ``hu``, ``pass``), so that a reader
of the protocol page finds them here.  Every object is a frozen dataclass: cheap to build in the engine's inner
loop, hashable (legal answers are compared as a set), and easy to turn into JSON for logs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

ALL_SEATS: frozenset[int] = frozenset((1, 2, 3, 4))

AskKind = Literal["throw", "hu", "gong", "pong", "eat"]
AnswerKind = Literal["throw", "hu", "gong", "pong", "eat", "pass"]
MeldType = Literal["eat", "pong", "gong", "concealed_gong"]

# Gong modes, as the protocol numbers them.
GONG_CONCEALED = 0
GONG_PROMOTED = 1
GONG_MELDED = 4


def next_seat(p: int, step: int = 1) -> int:
    """Seat ``step`` places after ``p`` in turn order 1 → 2 → 3 → 4 → 1."""
    return (p - 1 + step) % 4 + 1


_AFTER: dict[int, tuple[int, int, int]] = {p: ((p % 4) + 1, ((p + 1) % 4) + 1, ((p + 2) % 4) + 1) for p in (1, 2, 3, 4)}


def seats_after(p: int) -> tuple[int, int, int]:
    """The three other seats in turn order after ``p``."""
    return _AFTER[p]


@dataclass(frozen=True, slots=True)
class Meld:
    """An exposed set, or a concealed gong.  ``tiles`` ascending; ``claimed`` is the TID taken from ``source``."""

    type: MeldType
    tiles: tuple[int, ...]
    claimed: int | None = None
    source: int | None = None  # the seat the claimed tile came from
    promoted: bool = False  # a gong made by promoting a pong

    @property
    def kind(self) -> int:
        return self.tiles[0] // 10

    @property
    def is_concealed(self) -> bool:
        return self.type == "concealed_gong"

    @property
    def is_gong(self) -> bool:
        return self.type in ("gong", "concealed_gong")


@dataclass(frozen=True, slots=True)
class Answer:
    """A seat's answer.  ``tiles`` are the TIDs the bot names, ascending; ``mode`` is the gong type 0, 1 or 4."""

    kind: AnswerKind
    tiles: tuple[int, ...] = ()
    mode: int | None = None

    @staticmethod
    def throw(tid: int) -> Answer:
        return Answer("throw", (tid,))

    @staticmethod
    def eat(a: int, b: int) -> Answer:
        return Answer("eat", tuple(sorted((a, b))))

    @staticmethod
    def pong(a: int, b: int) -> Answer:
        return Answer("pong", tuple(sorted((a, b))))

    @staticmethod
    def gong(mode: int, tiles: tuple[int, ...] | list[int]) -> Answer:
        return Answer("gong", tuple(sorted(tiles)), mode)

    def __str__(self) -> str:  # the protocol line a bot would send
        parts = ["/" + self.kind]
        if self.mode is not None:
            parts.append(str(self.mode))
        parts.extend(str(t) for t in self.tiles)
        return " ".join(parts)


HU = Answer("hu")
PASS = Answer("pass")


@dataclass(frozen=True, slots=True)
class Question:
    """What the engine needs next: seat ``seat`` is asked ``ask``; ``legal`` lists every acceptable answer."""

    seat: int
    ask: AskKind
    legal: tuple[Answer, ...]
    tile: int | None = None  # the tile the question is about (a throw to claim, a promoted gong to rob)

    def __str__(self) -> str:
        return f"/ask {self.ask}"


# ---------------------------------------------------------------------------------------------------- events
# Each event knows its audience: the seats that see it.  A concealed gong is two events: the owner's, with tiles,
# and the others', without (``Gong(mode=0, tiles=())``).


@dataclass(frozen=True, slots=True)
class Event:
    kind: ClassVar[str] = "event"
    audience: frozenset[int] = field(default=ALL_SEATS, kw_only=True)


@dataclass(frozen=True, slots=True)
class InitGame(Event):
    kind: ClassVar[str] = "init_game"
    round_wind: str
    hand_wind: str
    open: int
    dealer: int
    cont: int = 0


@dataclass(frozen=True, slots=True)
class InitCard(Event):
    kind: ClassVar[str] = "init_card"
    seat: int
    tiles: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Mo(Event):
    """A draw, seen only by the drawer.  ``replacement``: drawn from the back after a gong or flower."""

    kind: ClassVar[str] = "mo"
    seat: int
    tile: int
    replacement: bool = False


@dataclass(frozen=True, slots=True)
class Flower(Event):
    """A flower set aside by ``seat`` (flowers on); sent as ``/flower`` to bots that opted in."""

    kind: ClassVar[str] = "flower"
    seat: int
    tile: int


@dataclass(frozen=True, slots=True)
class Throw(Event):
    kind: ClassVar[str] = "throw"
    seat: int
    tile: int


@dataclass(frozen=True, slots=True)
class Eat(Event):
    """``tiles`` in broadcast order: the claimed tile in the middle, the eater's two around it by rank."""

    kind: ClassVar[str] = "eat"
    seat: int
    tiles: tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Pong(Event):
    kind: ClassVar[str] = "pong"
    seat: int
    tiles: tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Gong(Event):
    """``mode`` 4 melded (4 tiles), 1 promoted (the one tile), 0 concealed (4 tiles to the owner, none to others)."""

    kind: ClassVar[str] = "gong"
    seat: int
    mode: int
    tiles: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Hu(Event):
    """A win: ``tile`` the winning tile, ``concealed`` the winner's other concealed tiles, ascending."""

    kind: ClassVar[str] = "hu"
    seat: int
    tile: int
    concealed: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Exit(Event):
    """The end of a hand with its settlement per seat (sums to zero)."""

    kind: ClassVar[str] = "exit"
    scores: tuple[int, int, int, int]


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls for cls in (InitGame, InitCard, Mo, Flower, Throw, Eat, Pong, Gong, Hu, Exit)
}

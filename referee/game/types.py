"""The small typed objects the engine speaks in: melds, questions, answers and events.

Names follow the ICGA protocol (``throw``, ``mo``, ``eat``, ``pong``, ``gong``, ``hu``, ``pass``), so that a reader
of the protocol page finds them here.  Every object is a frozen record: cheap to build in the engine's inner
loop, hashable (legal answers are compared as a set), and easy to turn into JSON for logs.

The records are plain classes with ``__slots__`` rather than frozen dataclasses, written out once here: every
``python -m bots.NAME`` imports this module at its start (64 starts a match with per-hand processes), and building
fourteen dataclasses (``exec`` of their generated methods, and the ``dataclasses`` module itself) was the largest
cost of that start.  They behave as the dataclasses did: positional and keyword construction, keyword
``audience`` on events, equality and hash by type and every field, ``repr``, ``match`` patterns, pickling, and an
``AttributeError`` on assignment.  ``FIELDS`` names every field in order; ``replace(**changes)`` makes a copy.
"""

from __future__ import annotations

from referee import TYPE_CHECKING

if TYPE_CHECKING:  # ``typing`` is no part of a bot's start (see ``referee.game.kinds``)
    from typing import Any, ClassVar

    from .kinds import AnswerKind, AskKind, MeldType

ALL_SEATS: frozenset[int] = frozenset((1, 2, 3, 4))


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


def _rebuild(cls: type[Record], values: tuple[Any, ...]) -> Record:
    """Unpickle a record: its fields in ``FIELDS`` order, set past the frozen ``__setattr__``."""
    obj = object.__new__(cls)
    for name, value in zip(cls.FIELDS, values):
        object.__setattr__(obj, name, value)
    return obj


class Record:
    """The frozen-record behaviour shared by everything below (see the module docstring), and by the few other
    records on a bot's import path (``wrappers.codec``, ``referee.game.wall``)."""

    __slots__ = ()
    FIELDS: ClassVar[tuple[str, ...]] = ()  # every field in order: what equality, hash, repr and pickling use

    def _values(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in self.FIELDS])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.FIELDS)
        return f"{type(self).__qualname__}({inner})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: {type(self).__name__} is frozen")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: {type(self).__name__} is frozen")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self._values()))

    def replace(self, **changes: Any) -> Any:
        """A copy with some fields changed (what ``dataclasses.replace`` did); ``TypeError`` for an unknown field."""
        unknown = set(changes) - set(self.FIELDS)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        values = tuple(changes.get(name, value) for name, value in zip(self.FIELDS, self._values()))
        return _rebuild(type(self), values)


_set = object.__setattr__


class Meld(Record):
    """An exposed set, or a concealed gong.  ``tiles`` ascending; ``claimed`` is the TID taken from ``source``."""

    __slots__ = ("type", "tiles", "claimed", "source", "promoted")
    __match_args__ = FIELDS = ("type", "tiles", "claimed", "source", "promoted")
    type: MeldType
    tiles: tuple[int, ...]
    claimed: int | None  # None by default
    source: int | None  # the seat the claimed tile came from
    promoted: bool  # a gong made by promoting a pong

    def __init__(
        self,
        type: MeldType,  # noqa: A002  (the field's name)
        tiles: tuple[int, ...],
        claimed: int | None = None,
        source: int | None = None,
        promoted: bool = False,
    ) -> None:
        _set(self, "type", type)
        _set(self, "tiles", tiles)
        _set(self, "claimed", claimed)
        _set(self, "source", source)
        _set(self, "promoted", promoted)

    @property
    def kind(self) -> int:
        return self.tiles[0] // 10

    @property
    def is_concealed(self) -> bool:
        return self.type == "concealed_gong"

    @property
    def is_gong(self) -> bool:
        return self.type in ("gong", "concealed_gong")


class Answer(Record):
    """A seat's answer.  ``tiles`` are the TIDs the bot names, ascending; ``mode`` is the gong type 0, 1 or 4."""

    __slots__ = ("kind", "tiles", "mode")
    __match_args__ = FIELDS = ("kind", "tiles", "mode")
    kind: AnswerKind
    tiles: tuple[int, ...]
    mode: int | None

    def __init__(self, kind: AnswerKind, tiles: tuple[int, ...] = (), mode: int | None = None) -> None:
        _a_kind(self, kind)  # the slots' own setters, as in Question: answers to claims are built per question
        _a_tiles(self, tiles)
        _a_mode(self, mode)

    # compared and hashed in the engine's inner loop (``answer in legal``): written out, not generic
    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Answer:
            return NotImplemented
        return self.kind == other.kind and self.tiles == other.tiles and self.mode == other.mode  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self.kind, self.tiles, self.mode))

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


_a_kind = Answer.__dict__["kind"].__set__
_a_tiles = Answer.__dict__["tiles"].__set__
_a_mode = Answer.__dict__["mode"].__set__

HU = Answer("hu")
PASS = Answer("pass")


class Question(Record):
    """What the engine needs next: seat ``seat`` is asked ``ask``; ``legal`` lists every acceptable answer."""

    __slots__ = ("seat", "ask", "legal", "tile")
    __match_args__ = FIELDS = ("seat", "ask", "legal", "tile")
    seat: int
    ask: AskKind
    legal: tuple[Answer, ...]
    tile: int | None  # the tile the question is about (a throw to claim, a promoted gong to rob)

    def __init__(self, seat: int, ask: AskKind, legal: tuple[Answer, ...], tile: int | None = None) -> None:
        # The slots' own setters, not ``_set`` by name: the engine builds a question for every move, and this
        # skips looking each name up (a third of the construction's cost).  Still frozen: ``__setattr__`` refuses.
        _q_seat(self, seat)
        _q_ask(self, ask)
        _q_legal(self, legal)
        _q_tile(self, tile)

    def __str__(self) -> str:
        return f"/ask {self.ask}"


_q_seat = Question.__dict__["seat"].__set__
_q_ask = Question.__dict__["ask"].__set__
_q_legal = Question.__dict__["legal"].__set__
_q_tile = Question.__dict__["tile"].__set__


# ---------------------------------------------------------------------------------------------------- events
# Each event knows its audience: the seats that see it.  A concealed gong is two events: the owner's, with tiles,
# and the others', without (``Gong(mode=0, tiles=())``).  ``audience`` is keyword-only and last in ``FIELDS``;
# ``__match_args__`` leaves it out.


class Event(Record):
    __slots__ = ("audience",)
    kind: ClassVar[str] = "event"
    FIELDS: ClassVar[tuple[str, ...]] = ("audience",)
    audience: frozenset[int]

    def __init__(self, *, audience: frozenset[int] = ALL_SEATS) -> None:
        _set(self, "audience", audience)


class InitGame(Event):
    __slots__ = ("round_wind", "hand_wind", "open", "dealer", "cont")
    kind: ClassVar[str] = "init_game"
    __match_args__ = ("round_wind", "hand_wind", "open", "dealer", "cont")
    FIELDS = (*__match_args__, "audience")
    round_wind: str
    hand_wind: str
    open: int
    dealer: int
    cont: int

    def __init__(
        self,
        round_wind: str,
        hand_wind: str,
        open: int,  # noqa: A002  (the protocol's word)
        dealer: int,
        cont: int = 0,
        *,
        audience: frozenset[int] = ALL_SEATS,
    ) -> None:
        _set(self, "round_wind", round_wind)
        _set(self, "hand_wind", hand_wind)
        _set(self, "open", open)
        _set(self, "dealer", dealer)
        _set(self, "cont", cont)
        _set(self, "audience", audience)


class InitCard(Event):
    __slots__ = ("seat", "tiles")
    kind: ClassVar[str] = "init_card"
    __match_args__ = ("seat", "tiles")
    FIELDS = (*__match_args__, "audience")
    seat: int
    tiles: tuple[int, ...]

    def __init__(self, seat: int, tiles: tuple[int, ...], *, audience: frozenset[int] = ALL_SEATS) -> None:
        _set(self, "seat", seat)
        _set(self, "tiles", tiles)
        _set(self, "audience", audience)


class Mo(Event):
    """A draw, seen only by the drawer.  ``replacement``: drawn from the back after a gong or flower."""

    __slots__ = ("seat", "tile", "replacement")
    kind: ClassVar[str] = "mo"
    __match_args__ = ("seat", "tile", "replacement")
    FIELDS = (*__match_args__, "audience")
    seat: int
    tile: int
    replacement: bool

    def __init__(
        self, seat: int, tile: int, replacement: bool = False, *, audience: frozenset[int] = ALL_SEATS
    ) -> None:
        _set(self, "seat", seat)
        _set(self, "tile", tile)
        _set(self, "replacement", replacement)
        _set(self, "audience", audience)


class Flower(Event):
    """A flower set aside by ``seat`` (flowers on); sent as ``/flower`` to bots that opted in."""

    __slots__ = ("seat", "tile")
    kind: ClassVar[str] = "flower"
    __match_args__ = ("seat", "tile")
    FIELDS = (*__match_args__, "audience")
    seat: int
    tile: int

    def __init__(self, seat: int, tile: int, *, audience: frozenset[int] = ALL_SEATS) -> None:
        _set(self, "seat", seat)
        _set(self, "tile", tile)
        _set(self, "audience", audience)


class Throw(Event):
    __slots__ = ("seat", "tile")
    kind: ClassVar[str] = "throw"
    __match_args__ = ("seat", "tile")
    FIELDS = (*__match_args__, "audience")
    seat: int
    tile: int

    def __init__(self, seat: int, tile: int, *, audience: frozenset[int] = ALL_SEATS) -> None:
        _set(self, "seat", seat)
        _set(self, "tile", tile)
        _set(self, "audience", audience)


class Eat(Event):
    """``tiles`` in broadcast order: the claimed tile in the middle, the eater's two around it by rank."""

    __slots__ = ("seat", "tiles")
    kind: ClassVar[str] = "eat"
    __match_args__ = ("seat", "tiles")
    FIELDS = (*__match_args__, "audience")
    seat: int
    tiles: tuple[int, int, int]

    def __init__(self, seat: int, tiles: tuple[int, int, int], *, audience: frozenset[int] = ALL_SEATS) -> None:
        _set(self, "seat", seat)
        _set(self, "tiles", tiles)
        _set(self, "audience", audience)


class Pong(Event):
    __slots__ = ("seat", "tiles")
    kind: ClassVar[str] = "pong"
    __match_args__ = ("seat", "tiles")
    FIELDS = (*__match_args__, "audience")
    seat: int
    tiles: tuple[int, int, int]

    def __init__(self, seat: int, tiles: tuple[int, int, int], *, audience: frozenset[int] = ALL_SEATS) -> None:
        _set(self, "seat", seat)
        _set(self, "tiles", tiles)
        _set(self, "audience", audience)


class Gong(Event):
    """``mode`` 4 melded (4 tiles), 1 promoted (the one tile), 0 concealed (4 tiles to the owner, none to others)."""

    __slots__ = ("seat", "mode", "tiles")
    kind: ClassVar[str] = "gong"
    __match_args__ = ("seat", "mode", "tiles")
    FIELDS = (*__match_args__, "audience")
    seat: int
    mode: int
    tiles: tuple[int, ...]

    def __init__(
        self, seat: int, mode: int, tiles: tuple[int, ...], *, audience: frozenset[int] = ALL_SEATS
    ) -> None:
        _set(self, "seat", seat)
        _set(self, "mode", mode)
        _set(self, "tiles", tiles)
        _set(self, "audience", audience)


class Hu(Event):
    """A win: ``tile`` the winning tile, ``concealed`` the winner's other concealed tiles, ascending."""

    __slots__ = ("seat", "tile", "concealed")
    kind: ClassVar[str] = "hu"
    __match_args__ = ("seat", "tile", "concealed")
    FIELDS = (*__match_args__, "audience")
    seat: int
    tile: int
    concealed: tuple[int, ...]

    def __init__(
        self, seat: int, tile: int, concealed: tuple[int, ...], *, audience: frozenset[int] = ALL_SEATS
    ) -> None:
        _set(self, "seat", seat)
        _set(self, "tile", tile)
        _set(self, "concealed", concealed)
        _set(self, "audience", audience)


class Exit(Event):
    """The end of a hand with its settlement per seat (sums to zero)."""

    __slots__ = ("scores",)
    kind: ClassVar[str] = "exit"
    __match_args__ = ("scores",)
    FIELDS = (*__match_args__, "audience")
    scores: tuple[int, int, int, int]

    def __init__(self, scores: tuple[int, int, int, int], *, audience: frozenset[int] = ALL_SEATS) -> None:
        _set(self, "scores", scores)
        _set(self, "audience", audience)


class Dealt(Event):
    """To a seat that declares its own sets (``Hand``'s ``declarers``), after its ``InitCard``: its deal as dealt,
    in the wall's order, flowers included (``tiles``), and the replacements of its flowers in the order drawn."""

    __slots__ = ("seat", "tiles", "replacements")
    kind: ClassVar[str] = "dealt"
    __match_args__ = ("seat", "tiles", "replacements")
    FIELDS = (*__match_args__, "audience")
    seat: int
    tiles: tuple[int, ...]
    replacements: tuple[int, ...]

    def __init__(self, seat: int, tiles: tuple[int, ...], replacements: tuple[int, ...] = (), *,
                 audience: frozenset[int] = ALL_SEATS) -> None:
        _set(self, "seat", seat)
        _set(self, "tiles", tiles)
        _set(self, "replacements", replacements)
        _set(self, "audience", audience)


class Declare(Event):
    """A set declared at the end of a hand by a seat that declares its own (``Hand``'s ``declarers``: a client of
    mj-server's protocol): ``tiles`` ascending, a pung, chow or pair of its concealed tiles, or all of them for a
    special hand (the Thirteen Unique Wonders); ``claimed``: the set takes the winning discard (it is exposed)."""

    __slots__ = ("seat", "tiles", "claimed")
    kind: ClassVar[str] = "declare"
    __match_args__ = ("seat", "tiles", "claimed")
    FIELDS = (*__match_args__, "audience")
    seat: int
    tiles: tuple[int, ...]
    claimed: bool

    def __init__(self, seat: int, tiles: tuple[int, ...], claimed: bool = False, *,
                 audience: frozenset[int] = ALL_SEATS) -> None:
        _set(self, "seat", seat)
        _set(self, "tiles", tiles)
        _set(self, "claimed", claimed)
        _set(self, "audience", audience)


class Show(Event):
    """A declaring loser is done: ``tiles``, its concealed tiles left out of any set, ascending, shown to all."""

    __slots__ = ("seat", "tiles")
    kind: ClassVar[str] = "show"
    __match_args__ = ("seat", "tiles")
    FIELDS = (*__match_args__, "audience")
    seat: int
    tiles: tuple[int, ...]

    def __init__(self, seat: int, tiles: tuple[int, ...], *, audience: frozenset[int] = ALL_SEATS) -> None:
        _set(self, "seat", seat)
        _set(self, "tiles", tiles)
        _set(self, "audience", audience)


class Scored(Event):
    """A player's score once it is known, before the hand's ``Exit`` (where seats declare their sets: the winner's
    as soon as it has declared, as mj-server announces it): ``explanation``'s lines joined by newlines."""

    __slots__ = ("seat", "score", "explanation")
    kind: ClassVar[str] = "scored"
    __match_args__ = ("seat", "score", "explanation")
    FIELDS = (*__match_args__, "audience")
    seat: int
    score: int
    explanation: str

    def __init__(self, seat: int, score: int, explanation: str, *, audience: frozenset[int] = ALL_SEATS) -> None:
        _set(self, "seat", seat)
        _set(self, "score", score)
        _set(self, "explanation", explanation)
        _set(self, "audience", audience)


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (InitGame, InitCard, Mo, Flower, Throw, Eat, Pong, Gong, Hu, Dealt, Declare, Show, Scored, Exit)
}

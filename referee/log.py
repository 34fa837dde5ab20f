"""The match log: the one definition of its records, for writing and for reading.

A log is JSON lines, one record per line, written as the match goes.  A match killed half-way leaves a log that is
valid up to its last complete record: every record is written with one ``write`` of a whole line and flushed at the
end of each hand.

This module owns the format.  The pydantic models below define each record kind (``mjref schema log`` prints their
JSON Schema); the builders beside them (``header_record``, ``hand_record``, ``event_line``, ``answer_line``,
``fault_record``, ``result_record``, ``final_record``, ``aborted_record``) are the only code that makes a record:
the match writes with them and replay checks a log against what they give.  ``open_log`` is the only reader: it
checks the header and the format version once, and hands out the lines (replay's fast path) or validated records
(everything else).  Every way a file can fail to be a log raises :class:`LogError`, naming the file and line.

Record kinds, in order: ``header``; per hand ``hand`` (setup and wall), then ``event`` / ``answer`` / ``fault``
records in the order they happened, then ``result``; finally ``final``, or ``aborted`` when a signal stopped the
match (it may come in the middle of a hand: the log is true up to it, and ``mjref replay`` verifies it that far).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)

from referee import __version__
from referee.errors import InputError, printable
from referee.game.engine import Declaring, HandResult, WinRecord
from referee.game.family import rules_from_dump
from referee.game.match_options import RulesError
from referee.game.records import record
from referee.game.series import HandSetup
from referee.game.taiwan16.rules import Ruleset, make_ruleset
from referee.game.taiwan16.scoring import SetStatus, SetType
from referee.game.tiles import WINDS_IN_ORDER
from referee.game.types import EVENT_TYPES, Event
from referee.game.wall import Wall, bot_seed
from referee.userfiles import create_private, loads_json, read_bytes, utf8_reason
from referee.validation import validation_reason
from wrappers.sandbox import hide_from_bots, unhide
from wrappers.seat import FAULT_KINDS
from wrappers.spec import BotSpec

LOG_FORMAT = 2  # 2: each seat's ``timeout`` in the header (a format-1 log reads as unknown: None)
MAX_LOG_BYTES = 1 << 30  # a log read whole: a 16-hand match is about 200 KB, 10,000 hands some 150 MB

# Each event kind's fields in the log, in order: those of its record (``FIELDS``) in ``referee.game.types`` (the
# audience is written as ``to``).  The one table every writer and reader of event records uses.
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    kind: tuple(name for name in cls.FIELDS if name != "audience") for kind, cls in EVENT_TYPES.items()
}


class LogError(InputError):
    """A file that is not a log this mjref can read (unreadable, no header, a newer format, unknown rules, a broken
    record); the message names the file and, for a record, its line."""


# ---------------------------------------------------------------------------------------------------- records
class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


# The records a match does not make (its events and answers are written as lines, ``event_line`` and
# ``answer_line``; a fault and a stop are rare): their validators are built when first used, not at every start.
_DEFERRED = ConfigDict(extra="forbid", defer_build=True)


class SeatInfo(_Record):
    position: int
    name: str
    kind: Literal["builtin", "process", "remote", "human"]  # human: a person at the page (also remote)
    spec: str
    cmd: list[str] | None = None
    cwd: str | None = None
    hash: str | None = None
    keep_alive: bool = False
    extensions: list[str] = Field(default_factory=lambda: [])  # (pydantic reads a factory's signature: a builtin's
    # costs milliseconds to read the first time, at every start)
    bot_seed: int | None = None  # the seed this seat's bot is given (a process bot: --seed), derived from the seed
    rtt_ms: float | None = None  # a remote seat: the round trip to its wrapper measured at login
    timeout: float | None = None
    """The seconds per question the seat's player had (``wrappers.spec.seat_timeout``; a person's
    ``human_timeout``); None for a built-in bot, which answers in-process without a deadline, and in a log of
    format 1, which did not record it."""

    @field_validator("name")
    @classmethod
    def _printable_name(cls, v: str) -> str:
        if not v.isprintable():  # mjref writes only printable names; shown by every reader of the log
            raise ValueError(f"seat name '{printable(v)}' holds control characters")
        return v


class HeaderRecord(_Record):
    type: Literal["header"] = "header"
    format: int
    mjref: str
    seed: int
    rules: dict[str, Any]
    seats: list[SeatInfo]
    hands: int
    walls: Literal["seeded", "file"] = "seeded"
    started: str

    @field_validator("mjref", "started")
    @classmethod
    def _printable(cls, v: str) -> str:
        if not v.isprintable():  # shown by replay, transcript and the viewer
            raise ValueError(f"'{printable(v)[:60]}' holds control characters")
        return v

    @field_validator("seats")
    @classmethod
    def _four_seats(cls, seats: list[SeatInfo]) -> list[SeatInfo]:
        positions = [s.position for s in seats]
        if positions != [1, 2, 3, 4]:
            raise ValueError(f"a match has four seats at positions 1, 2, 3, 4; the header lists {positions}")
        return seats


class HandRecord(_Record):
    type: Literal["hand"] = "hand"
    hand: int
    round_wind: str
    hand_wind: str
    dealer: int
    cont: int
    open: int
    wall: list[int]
    # the seats that declared their own sets if the hand was won (clients of mj-server's protocol, docs/xmj.md);
    # written only when there are some
    declarers: list[int] = Field(default_factory=lambda: [])
    # how the losers among them were asked for their sets (``Hand.declaring``), written with the declarers; a log
    # written before "declaring" existed has none: its losers were asked in turn ("in_turn")
    declaring: Declaring | None = None

    @field_validator("declarers")
    @classmethod
    def _seats(cls, v: list[int]) -> list[int]:
        if any(type(p) is not int or not 1 <= p <= 4 for p in v) or len(set(v)) != len(v) or v != sorted(v):
            raise ValueError("declarers must be distinct seats 1-4, ascending")
        return v

    @model_serializer(mode="wrap")
    def _without_no_declarers(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict) and not data.get("declarers"):
            data.pop("declarers", None)
        if isinstance(data, dict) and data.get("declaring") is None:
            data.pop("declaring", None)
        return data

    @field_validator("round_wind", "hand_wind")
    @classmethod
    def _wind(cls, v: str) -> str:
        if v not in WINDS_IN_ORDER:  # shown by replay, transcript and the viewer
            raise ValueError(f"'{printable(v)[:20]}' is not a wind ({', '.join(WINDS_IN_ORDER)})")
        return v


class EventRecord(_Record):
    """One engine event with its audience; its fields are those of the event record (``EVENT_FIELDS[kind]``)."""

    model_config = ConfigDict(extra="allow", defer_build=True)
    type: Literal["event"] = "event"
    hand: int
    kind: str
    to: list[int]

    @model_validator(mode="after")
    def _fields_of_kind(self) -> EventRecord:
        names = EVENT_FIELDS.get(self.kind)
        if names is None:
            raise ValueError(f"unknown event kind {self.kind!r}")
        extra = set(self.model_extra or ())
        if extra != set(names):
            missing, unknown = sorted(set(names) - extra), sorted(extra - set(names))
            raise ValueError(f"a {self.kind} event with " + "; ".join(
                part for part in (missing and "no " + ", ".join(missing), unknown and "unknown " + ", ".join(unknown))
                if part))
        shapes = EVENT_TYPES[self.kind].__annotations__  # "int", "bool", "str", "tuple[int, ...]" by field
        for name in names:  # what every reader (the viewer's page among them) may take it for
            value = (self.model_extra or {})[name]
            shape = str(shapes.get(name))
            if shape == "str" and name == "explanation":  # a score's explanation: lines of printable text
                ok = type(value) is str and len(value) <= 4096 and all(line.isprintable() for line in value.split("\n"))
            elif shape == "str":  # the only other text an event holds: a wind
                ok = value in WINDS_IN_ORDER
            elif shape == "bool":
                ok = type(value) is bool
            elif shape.startswith("tuple"):  # a seat of [] or tiles of 3 were read as given
                ok = type(value) is list and all(type(x) is int for x in value)
            else:
                ok = type(value) is int
            if not ok:
                raise ValueError(f"a {self.kind} event's {name} is {str(value)[:40]!r}, not what a {self.kind} holds")
        return self

    def to_event(self) -> Event:
        """The engine event this record logs."""
        return event_from_json(self.model_dump())


class AnswerRecord(_Record):
    """An answer: ``answer`` is its canonical protocol line (tiles ascending), ``raw`` the line the bot sent when it
    differs (``/eat 350 341`` for the canonical ``/eat 341 350``, blanks, letter case, a ``\\r``)."""

    model_config = _DEFERRED
    type: Literal["answer"] = "answer"
    hand: int
    seat: int
    ask: str
    tile: int | None = None
    answer: str
    by: Literal["bot", "dummy"] = "bot"
    ms: float
    raw: str | None = None


# What mjref writes of a fault stays far below these (a line is cut to 80 characters, a bot's last words to 512
# bytes); a log holding more was not written by mjref, and would make every page and table that shows it huge.
FAULT_TEXT_MAX = 16384


class FaultRecord(_Record):
    """A fault: ``kind`` one of ``wrappers.seat.FAULT_KINDS``; ``line`` (the bot's line) and ``detail`` are written
    escaped (``wrappers.codec.cut``) and escaped again wherever they are shown."""

    model_config = _DEFERRED
    type: Literal["fault"] = "fault"
    hand: int
    seat: int
    kind: str = Field(max_length=64)
    question: str | None = Field(None, max_length=64)
    line: str | None = Field(None, max_length=FAULT_TEXT_MAX)
    detail: str = Field(max_length=FAULT_TEXT_MAX)

    @field_validator("kind")
    @classmethod
    def _kind(cls, v: str) -> str:
        if v not in FAULT_KINDS:
            raise ValueError(f"'{printable(v)[:40]}' is not a kind of fault ({', '.join(FAULT_KINDS)})")
        return v

    @field_validator("question")
    @classmethod
    def _question(cls, v: str | None) -> str | None:
        if v is not None and not v.isprintable():  # a question mjref asked: printable ASCII
            raise ValueError(f"'{printable(v)[:60]}' holds control characters")
        return v


class ItemJson(_Record):
    key: str
    tai: int


class WinJson(_Record):
    seat: int
    tile: int | None
    how: Literal["self_draw", "throw", "robbed_gong", "flowers"]
    thrower: int | None
    tai: int
    items: list[ItemJson]
    arrangement: Any = None  # scoring.ArrangedSet.to_json of each set, kept as written (replay compares it)
    payments: list[int]

    @field_validator("arrangement")
    @classmethod
    def _sets(cls, v: Any) -> Any:
        """What every reader (the viewer's page among them) may take a set for: a type and a status by name,
        tiles as numbers."""
        if v is None:
            return v
        if type(v) is not list:
            raise ValueError(f"an arrangement {str(v)[:60]!r} is not a list of sets")
        for s in v:
            if (type(s) is not dict or s.get("type") not in get_args(SetType)
                    or s.get("status") not in get_args(SetStatus) or type(s.get("tiles")) is not list
                    or not all(type(t) is int for t in s["tiles"]) or type(s.get("winning", False)) is not bool
                    or set(s) - {"type", "tiles", "status", "winning"}):
                raise ValueError(f"an arrangement set {str(s)[:60]!r} is not one a win holds")
        return v


class PlayerScoreJson(_Record):
    """One player's score at the end of a classical hand (``classical.family.PlayerScore``)."""

    seat: int
    sets: list[str]
    concealed: list[str]
    flowers: list[str]
    score: int
    explanation: list[str]


class ClassicalJson(_Record):
    """A classical hand's result beyond the payments (``classical.family.ClassicalDetail``)."""

    players: list[PlayerScoreJson]
    settlement: list[str]
    cannon: int | None = None

    @field_validator("players")
    @classmethod
    def _four(cls, v: list[PlayerScoreJson]) -> list[PlayerScoreJson]:
        if [p.seat for p in v] != [1, 2, 3, 4]:
            raise ValueError("a classical result scores the four seats 1, 2, 3, 4 in order")
        return v


class ResultRecord(_Record):
    type: Literal["result"] = "result"
    hand: int
    outcome: Literal["win", "draw"]
    wins: list[WinJson]
    scores: list[int]
    penalties: list[int]
    totals: list[int]
    faults: int = 0
    rtt_ms: list[float | None] | None = None  # with remote seats: each seat's last measured round trip (None: local)
    classical: ClassicalJson | None = None
    """A classical hand's every player's score with its explanation and the settlement (written only then)."""

    @model_serializer(mode="wrap")
    def _without_none(self, handler: Any, info: Any) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        if info.mode_is_json() and out.get("classical", 0) is None:  # a Taiwan result's line stays as it was
            del out["classical"]
        return out


class FinalRecord(_Record):
    type: Literal["final"] = "final"
    hands: int
    totals: list[int]
    faults: list[int]
    finished: str
    complete: bool = True


class AbortedRecord(_Record):
    """The last record of a match stopped by a signal (SIGINT, SIGTERM, SIGHUP): what stood when it stopped."""

    model_config = _DEFERRED
    type: Literal["aborted"] = "aborted"
    signal: str = Field(max_length=16)  # the signal's name
    hands: int  # hands finished (a hand under way has no result record)
    totals: list[int]
    faults: list[int]
    finished: str

    @field_validator("signal")
    @classmethod
    def _signal(cls, v: str) -> str:
        if not v.isprintable():  # shown by replay
            raise ValueError(f"'{printable(v)}' holds control characters")
        return v


LogRecord = Annotated[
    HeaderRecord | HandRecord | EventRecord | AnswerRecord | FaultRecord | ResultRecord | FinalRecord
    | AbortedRecord,
    Field(discriminator="type"),
]


@functools.cache
def record_adapter() -> TypeAdapter[Any]:
    """The validator of any record (made when a log is first read, not at every start)."""
    return TypeAdapter(LogRecord)


def log_schema() -> dict[str, Any]:
    return record_adapter().json_schema()


# ---------------------------------------------------------------------------------------------------- builders
def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def seat_info(position: int, name: str, spec: BotSpec, seed: int, *, rtt_ms: float | None = None,
              timeout: float | None = None) -> SeatInfo:
    """What the header says about one seat: who played it and how it was run (``rtt_ms``: a remote seat's round
    trip measured at login; ``timeout``: its seconds per question)."""
    kind = "human" if spec.human else "remote" if spec.remote else "builtin" if spec.builtin else "process"
    return SeatInfo(
        position=position, name=name, kind=kind,
        spec=spec.describe(), cmd=list(spec.cmd) if spec.cmd else None, cwd=spec.cwd, hash=spec.executable_hash(),
        keep_alive=spec.keep_alive, extensions=list(spec.extensions), bot_seed=bot_seed(seed, position),
        rtt_ms=rtt_ms, timeout=timeout,
    )


def header_record(seed: int, rules: Ruleset, seats: Sequence[SeatInfo], hands: int, *,
                  walls_from_file: bool = False) -> HeaderRecord:
    return HeaderRecord(format=LOG_FORMAT, mjref=__version__, seed=seed, rules=rules.model_dump(), seats=list(seats),
                        hands=hands, walls="file" if walls_from_file else "seeded", started=_now())


def hand_record(setup: HandSetup, wall: Wall, declarers: Iterable[int] = (),
                declaring: Declaring | None = None) -> HandRecord:
    seats = sorted(declarers)
    return HandRecord(hand=setup.index, round_wind=setup.round_wind, hand_wind=setup.hand_wind, dealer=setup.dealer,
                      cont=setup.cont, open=wall.open_seat(setup.dealer), wall=list(wall.tiles),
                      declarers=seats, declaring=declaring if seats else None)


def fault_record(hand: int, seat: int, kind: str, detail: str, *, question: str | None = None,
                 line: str | None = None) -> FaultRecord:
    return FaultRecord(hand=hand, seat=seat, kind=kind, question=question, line=line, detail=detail)


def win_record(w: WinRecord) -> WinJson:
    return WinJson(seat=w.seat, tile=w.tile, how=w.how, thrower=w.thrower, tai=w.score.tai,
                   items=[ItemJson(key=i.key, tai=i.tai) for i in w.score.items],
                   arrangement=w.score.to_json().get("arrangement"), payments=list(w.payments))


def result_record(hand: int, result: HandResult, penalties: Sequence[int], totals: Sequence[int],
                  faults: int, *, rtt_ms: Sequence[float | None] | None = None) -> ResultRecord:
    detail = result.detail
    classical = None if detail is None else ClassicalJson.model_validate(detail.to_json())  # type: ignore[attr-defined]
    return ResultRecord(hand=hand, outcome=result.outcome, wins=[win_record(w) for w in result.wins],
                        scores=list(result.scores), penalties=list(penalties), totals=list(totals), faults=faults,
                        rtt_ms=None if rtt_ms is None else list(rtt_ms), classical=classical)


def final_record(hands: int, totals: Sequence[int], faults: Sequence[int], *, finished: str | None = None,
                 complete: bool = True) -> FinalRecord:
    return FinalRecord(hands=hands, totals=list(totals), faults=list(faults), finished=finished or _now(),
                       complete=complete)


def aborted_record(signal: str, hands: int, totals: Sequence[int], faults: Sequence[int], *,
                   finished: str | None = None) -> AbortedRecord:
    return AbortedRecord(signal=signal, hands=hands, totals=list(totals), faults=list(faults),
                         finished=finished or _now())


# Fields a reader cannot predict from the rules (when and by which mjref a log was written, which signal stopped
# it): replay does not compare them.
UNCHECKED_FIELDS: dict[str, frozenset[str]] = {"final": frozenset({"finished"}), "result": frozenset({"rtt_ms"}),
                                               "aborted": frozenset({"finished", "signal"})}


# ---------------------------------------------------------------------------------------------------- events
def event_to_json(event: Event) -> dict[str, Any]:
    """An event's fields as its record holds them (without ``type`` and ``hand``)."""
    out: dict[str, Any] = {"kind": event.kind}
    for name in EVENT_FIELDS[event.kind]:
        value = getattr(event, name)
        out[name] = list(value) if isinstance(value, tuple) else value
    out["to"] = sorted(event.audience)
    return out


def event_record(hand: int, event: Event) -> EventRecord:
    """The general form of an event record (``event_line`` writes the same record faster)."""
    return EventRecord.model_validate({"type": "event", "hand": hand, **event_to_json(event)})


def _json_value(value: Any) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, tuple):
        return "[" + ",".join(map(str, value)) + "]"
    return json.dumps(value)


_AUDIENCE_JSON: dict[frozenset[int], str] = {}


def _audience_json(audience: frozenset[int]) -> str:
    to = _AUDIENCE_JSON.get(audience)
    if to is None:
        to = _AUDIENCE_JSON[audience] = "[" + ",".join(map(str, sorted(audience))) + "]"
    return to


# What every line of a hand starts with, for the last hand asked: (hand, an event's, an answer's), replaced as one
# tuple (matches in threads never mix them up).
_PREFIXES: tuple[int, str, str] = (-1, "", "")


def _prefixes(hand: int) -> tuple[int, str, str]:
    global _PREFIXES
    prefixes = _PREFIXES = (hand, f'{{"type":"event","hand":{hand},"kind":', f'{{"type":"answer","hand":{hand},"seat":')
    return prefixes


def event_line(hand: int, event: Event) -> str:
    """The log line of one event (the record ``event_record`` gives, built directly: events are most of a log, and
    this is the referee's and the replayer's hot path).  Throws and draws, most of the events, have their lines
    written out; a test checks every kind against the general form."""
    prefixes = _PREFIXES
    if prefixes[0] != hand:
        prefixes = _prefixes(hand)
    kind = event.kind
    to = _AUDIENCE_JSON.get(event.audience) or _audience_json(event.audience)
    if kind == "throw":
        e: Any = event
        return f'{prefixes[1]}"throw","seat":{e.seat},"tile":{e.tile},"to":{to}}}'
    if kind == "mo":
        e = event
        r = "true" if e.replacement else "false"
        return f'{prefixes[1]}"mo","seat":{e.seat},"tile":{e.tile},"replacement":{r},"to":{to}}}'
    return prefixes[1] + _general_event_tail(event, to)


def _general_event_tail(event: Event, to: str) -> str:
    fields_json = "".join(f',"{name}":{_json_value(getattr(event, name))}' for name in EVENT_FIELDS[event.kind])
    return f'"{event.kind}"{fields_json},"to":{to}}}'


def answer_ms(seconds: float) -> str:
    """An answer record's ``ms`` for an answer that took ``seconds``: the JSON text of ``round(seconds * 1000, 3)``,
    made with one decimal conversion instead of two (``.3f`` rounds as ``round`` does, and repr drops the zeros
    it leaves)."""
    ms = seconds * 1000
    if not 0 <= ms < 1e12:  # beyond, floats are too sparse for 3 decimals to be round's (or a negative, NaN)
        return repr(round(ms, 3))
    text = f"{ms:.3f}".rstrip("0")
    return text + "0" if text[-1] == "." else text


def answer_line(hand: int, seat: int, ask: str, tile: int | None, answer: str, by: str, ms: float | str,
                raw: str | None = None) -> str:
    """The log line of one answer (an ``AnswerRecord``, built directly as ``event_line``).  ``answer`` is a
    canonical protocol line (``str(Answer)``: ASCII letters, digits, ``/`` and spaces, nothing JSON would escape);
    ``ms`` the milliseconds it took, or their JSON text (``answer_ms``); ``raw`` the line the bot sent, when it is
    not the canonical one."""
    prefixes = _PREFIXES
    if prefixes[0] != hand:
        prefixes = _prefixes(hand)
    line = (f'{prefixes[2]}{seat},"ask":"{ask}","tile":{"null" if tile is None else tile},"answer":"{answer}",'
            f'"by":"{by}","ms":{ms if type(ms) is str else repr(ms)}')
    if raw is None:
        return line + "}"
    return line + ',"raw":' + json.dumps(raw, ensure_ascii=False) + "}"


def event_from_json(data: dict[str, Any]) -> Event:
    """The engine event of an event record (a dict with ``kind``, its fields and ``to``)."""
    kind = data["kind"]
    cls = EVENT_TYPES.get(kind)
    if cls is None:
        raise LogError(f"unknown event kind {kind!r}")
    kwargs = {}
    for name in EVENT_FIELDS[kind]:
        value = data[name]
        kwargs[name] = tuple(value) if isinstance(value, list) else value
    return cls(**kwargs, audience=frozenset(data.get("to", (1, 2, 3, 4))))  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------------- writing
class LogWriter:
    """Appends records as JSON lines.  Records are gathered in memory and written at ``flush()``, which the match
    calls at hand boundaries (and on the way out, whatever happened): a line is never written in two parts."""

    def __init__(self, stream: IO[str], name: str = "the log") -> None:
        self._f = stream
        self._name = name
        self._lines: list[str] = []
        self._hidden: str | None = None  # the file's registration with the sandbox, dropped at close

    @classmethod
    def open(cls, path: Path) -> LogWriter:
        """Create (or truncate) the log at ``path``: the file 0600 and new folders 0700 (a log holds the walls),
        hidden from every sandboxed bot; :class:`LogError` naming it when it cannot be written."""
        if path.is_dir():
            raise LogError(f"{path}: is a directory; give the log a file name")
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            hide_from_bots(path, path.parent)
            try:
                fd = create_private(path)
            except OSError:
                unhide(path)
                raise
        except OSError as exc:
            raise LogError(f"{path}: cannot write the log ({exc.strerror or exc})") from None
        writer = cls(open(fd, "w", encoding="utf-8", buffering=1 << 16), str(path))  # noqa: SIM115 - closed by close()
        writer._hidden = str(path)
        return writer

    def write(self, record: BaseModel) -> None:
        """Append one record made by a builder of this module."""
        self._lines.append(record.model_dump_json())

    def line_writer(self) -> Callable[[str], None] | None:
        """A function that takes a record already encoded as one JSON line (``event_line``, ``answer_line``), or
        None when records are dropped."""
        return self._lines.append

    def flush(self) -> None:
        """Write the gathered records; :class:`LogError` naming the file when the place refuses them (a full
        disk, a file such as ``/proc/version`` that opens but takes no writes)."""
        lines = self._lines
        try:
            if lines:
                self._f.write("\n".join(lines) + "\n")
                lines.clear()
            self._f.flush()
        except OSError as exc:
            lines.clear()
            raise LogError(f"{self._name}: cannot write the log ({exc.strerror or exc})") from None

    def close(self) -> None:
        """Write what is gathered and close the file.  Its registration with the sandbox is dropped (its folder's
        stays): a finished log is renamed or left, and a tournament opens one per match."""
        try:
            self.flush()
        finally:
            self._f.close()
            if self._hidden is not None:
                unhide(self._hidden)
                self._hidden = None


class NullWriter(LogWriter):
    """Drops every record (a match run without a log)."""

    def __init__(self) -> None:  # noqa: D107 - no stream
        pass

    def write(self, record: BaseModel) -> None:
        return None

    def line_writer(self) -> Callable[[str], None] | None:
        return None

    def flush(self) -> None:
        return None

    def close(self) -> None:
        return None


# ---------------------------------------------------------------------------------------------------- reading
def _validation_reason(exc: ValidationError) -> str:
    _, loc, msg = validation_reason(exc)
    return f"{loc}: {msg}" if loc else msg


def loads_line(text: str) -> Any:
    """``json.loads`` of one log line, refusing a line nested deeper than a record can be (``MAX_JSON_DEPTH``) with
    a ``json.JSONDecodeError``, so that every reader's ``except json.JSONDecodeError`` gives its one-line reason
    instead of a ``RecursionError`` from a hostile line of 100,000 ``[``."""
    return loads_json(text)


def decode_log(data: bytes, path: Path | str) -> str:
    """A log's bytes as text, refusing bytes that are not UTF-8 with the line and byte named.  The last line, when
    it has no end (a match cut off half-way, maybe in the middle of a character), is decoded leniently: it is
    never read as a record."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        end = data.rfind(b"\n") + 1
        if exc.start >= end:  # inside the unterminated last line
            return data[:end].decode("utf-8") + data[end:].decode("utf-8", "replace")
        raise LogError(f"{path}: {utf8_reason(data, exc)}") from None


@record(slots=True)
class LogFile:
    """A log whose header has been checked.  ``lines`` are all its lines without their ends (line 1, the header,
    at index 0); ``cut`` is the number of a last line that has no end (a log cut off half-way), which is not among
    ``lines``."""

    path: Path
    header: HeaderRecord
    rules: Ruleset
    lines: list[str]
    cut: int | None
    cut_text: str

    def where(self, number: int) -> str:
        return f"{self.path}:{number}"

    def parse(self, number: int, text: str) -> BaseModel:
        """Validate line ``number``; raises :class:`LogError` naming it."""
        try:
            data = loads_line(text)
        except json.JSONDecodeError as exc:
            raise LogError(f"{self.where(number)}: not JSON ({exc.msg})") from None
        return self.check(number, data)

    def check(self, number: int, data: Any) -> BaseModel:
        """Validate the JSON ``data`` of line ``number`` as a record; raises :class:`LogError` naming it."""
        try:
            return record_adapter().validate_python(data)  # type: ignore[no-any-return]
        except ValidationError as exc:
            raise LogError(f"{self.where(number)}: bad record ({_validation_reason(exc)})") from None

    def records(self, *, strict: bool = True) -> Iterator[tuple[int, BaseModel]]:
        """The records after the header with their line numbers.  A last line cut off half-way is an error with
        ``strict``, else left out."""
        for number, text in enumerate(self.lines[1:], start=2):
            yield number, self.parse(number, text)
        if self.cut is not None and strict:
            raise LogError(f"{self.where(self.cut)}: truncated record (the match was cut off here)")


def _classical_rules(options: dict[str, Any]) -> Any:
    """A classical match's ruleset from its log's header; :class:`RulesError` naming the option."""
    try:
        return rules_from_dump(options)
    except ValidationError as exc:
        _, loc, msg = validation_reason(exc)
        raise RulesError(f"classical rule option {loc!r}: {msg}") from None


def open_log(path: Path | str) -> LogFile:
    """Read a log and check its header: the one way into a log.

    Raises :class:`LogError` when the file cannot be read, is empty, does not start with an mjref header, has a
    newer log format than this mjref reads, or names rules this mjref cannot build.
    """
    p = Path(path)
    text = decode_log(read_bytes(p, LogError, MAX_LOG_BYTES), p)
    lines = text.split("\n")
    last = lines.pop()
    cut = len(lines) + 1 if last else None
    if not lines and not last:
        raise LogError(f"{p}: empty file, not an mjref log")
    first = lines[0] if lines else last
    try:
        data = loads_line(first)
    except json.JSONDecodeError:
        raise LogError(f"{p}: not an mjref log (line 1 is not JSON)") from None
    if not isinstance(data, dict) or data.get("type") != "header":
        raise LogError(f"{p}: not an mjref log (line 1 is not a header record)")
    fmt = data.get("format")
    if isinstance(fmt, int) and not isinstance(fmt, bool) and fmt > LOG_FORMAT:
        raise LogError(f"{p}: log format {fmt} is newer than this mjref reads ({LOG_FORMAT}); upgrade mjref")
    try:
        header = HeaderRecord.model_validate(data)
    except ValidationError as exc:
        raise LogError(f"{p}: not an mjref log (line 1: bad header: {_validation_reason(exc)})") from None
    options = dict(header.rules)
    options.setdefault("max_faults", 0)  # a log from before forfeits existed: its bots never forfeited
    try:
        rules = _classical_rules(options) if options.get("family") == "classical" else make_ruleset(options)
    except RulesError as exc:
        raise LogError(f"{p}: the log's rules cannot be used by mjref {__version__} ({exc}); it was written "
                       f"by mjref {header.mjref}") from None
    return LogFile(p, header, rules, lines, cut, last)

"""The match log: JSON lines, one record per line, written as the match goes.

A match killed half-way leaves a log that is valid up to its last complete record: every record is written with
one ``write`` of a whole line and flushed at the end of each hand.  Pydantic models define the records (``mjref
schema log`` prints their JSON Schema) and validate them when a log is read back; writing uses plain ``json.dumps``
of the same shapes (tests check every written record against the models).

Record types, in order: ``header``; per hand ``hand`` (setup and wall), then ``event`` / ``answer`` / ``fault``
records in the order they happened, then ``result``; finally ``final``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import fields
from pathlib import Path
from typing import IO, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from referee.errors import InputError
from referee.game.types import EVENT_TYPES, Event

LOG_FORMAT = 1


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SeatInfo(_Record):
    position: int
    name: str
    kind: Literal["builtin", "process", "remote"]
    spec: str
    cmd: list[str] | None = None
    cwd: str | None = None
    hash: str | None = None
    keep_alive: bool = False
    extensions: list[str] = Field(default_factory=list)
    bot_seed: int | None = None  # the seed this seat's bot is given (a process bot: --seed), derived from the seed
    rtt_ms: float | None = None  # a remote seat: the round trip to its wrapper measured at login


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


class HandRecord(_Record):
    type: Literal["hand"] = "hand"
    hand: int
    round_wind: str
    hand_wind: str
    dealer: int
    cont: int
    open: int
    wall: list[int]


class EventRecord(_Record):
    """One engine event with its audience; its fields are those of the event dataclass (``kind`` names it)."""

    model_config = ConfigDict(extra="allow")
    type: Literal["event"] = "event"
    hand: int
    kind: str
    to: list[int]


class AnswerRecord(_Record):
    type: Literal["answer"] = "answer"
    hand: int
    seat: int
    ask: str
    tile: int | None = None
    answer: str
    by: Literal["bot", "dummy"] = "bot"
    ms: float


class FaultRecord(_Record):
    type: Literal["fault"] = "fault"
    hand: int
    seat: int
    kind: str
    question: str | None = None
    line: str | None = None
    detail: str


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
    arrangement: Any = None
    payments: list[int]


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


class FinalRecord(_Record):
    type: Literal["final"] = "final"
    hands: int
    totals: list[int]
    faults: list[int]
    finished: str
    complete: bool = True


LogRecord = Annotated[
    HeaderRecord | HandRecord | EventRecord | AnswerRecord | FaultRecord | ResultRecord | FinalRecord,
    Field(discriminator="type"),
]
RECORD_ADAPTER: TypeAdapter[Any] = TypeAdapter(LogRecord)


def log_schema() -> dict[str, Any]:
    return RECORD_ADAPTER.json_schema()


# ---------------------------------------------------------------------------------------------------- events
_EVENT_FIELDS = {kind: tuple(f.name for f in fields(cls) if f.name != "audience") for kind, cls in EVENT_TYPES.items()}


def event_to_json(event: Event) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": event.kind}
    for name in _EVENT_FIELDS[event.kind]:
        value = getattr(event, name)
        out[name] = list(value) if isinstance(value, tuple) else value
    out["to"] = sorted(event.audience)
    return out


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


def event_line(hand: int, event: Event) -> str:
    """The log line of one event (the same record as ``event_to_json`` plus type and hand, built directly:
    events are most of a log, and this is the referee's and the replayer's hot path).  Throws and draws, most of
    the events, have their lines written out; a test checks them against the general form."""
    kind = event.kind
    to = _AUDIENCE_JSON.get(event.audience) or _audience_json(event.audience)
    if kind == "throw":
        e: Any = event
        return f'{{"type":"event","hand":{hand},"kind":"throw","seat":{e.seat},"tile":{e.tile},"to":{to}}}'
    if kind == "mo":
        e = event
        r = "true" if e.replacement else "false"
        return (f'{{"type":"event","hand":{hand},"kind":"mo","seat":{e.seat},"tile":{e.tile},'
                f'"replacement":{r},"to":{to}}}')
    return _general_event_line(hand, event, to)


def _general_event_line(hand: int, event: Event, to: str) -> str:
    fields_json = "".join(f',"{name}":{_json_value(getattr(event, name))}' for name in _EVENT_FIELDS[event.kind])
    return f'{{"type":"event","hand":{hand},"kind":"{event.kind}"{fields_json},"to":{to}}}'


def answer_line(hand: int, seat: int, ask: str, tile: int | None, answer: str, by: str, ms: float) -> str:
    """The log line of one answer (built directly, as ``event_line``); ``answer`` is a canonical protocol line
    (``str(Answer)``: ASCII letters, digits, ``/`` and spaces, nothing JSON would escape)."""
    tile_json = "null" if tile is None else tile
    return (f'{{"type":"answer","hand":{hand},"seat":{seat},"ask":"{ask}","tile":{tile_json},'
            f'"answer":"{answer}","by":"{by}","ms":{ms!r}}}')


def event_from_json(data: dict[str, Any]) -> Event:
    kind = data["kind"]
    cls = EVENT_TYPES.get(kind)
    if cls is None:
        raise ValueError(f"unknown event kind {kind!r}")
    kwargs = {}
    for name in _EVENT_FIELDS[kind]:
        value = data[name]
        kwargs[name] = tuple(value) if isinstance(value, list) else value
    return cls(**kwargs, audience=frozenset(data.get("to", (1, 2, 3, 4))))  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------------- writing
class LogWriter:
    """Appends records as JSON lines.  Records are gathered in memory and written at ``flush()``, which the match
    calls at hand boundaries (and on the way out, whatever happened): a line is never written in two parts."""

    def __init__(self, stream: IO[str]) -> None:
        self._f = stream
        self._dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
        self._lines: list[str] = []

    @classmethod
    def open(cls, path: Path) -> LogWriter:
        path.parent.mkdir(parents=True, exist_ok=True)
        return cls(open(path, "w", encoding="utf-8", buffering=1 << 16))  # noqa: SIM115 - closed by close()

    def write(self, record: dict[str, Any]) -> None:
        self._lines.append(self._dumps(record))

    def line_writer(self) -> Callable[[str], None] | None:
        """A function that takes a record already encoded as one JSON line (see ``event_line``), or None when
        records are dropped."""
        return self._lines.append

    def flush(self) -> None:
        lines = self._lines
        if lines:
            self._f.write("\n".join(lines) + "\n")
            lines.clear()
        self._f.flush()

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self._f.close()


class NullWriter(LogWriter):
    """Drops every record (a match run without a log)."""

    def __init__(self) -> None:  # noqa: D107 - no stream
        pass

    def write(self, record: dict[str, Any]) -> None:
        return None

    def line_writer(self) -> Callable[[str], None] | None:
        return None

    def flush(self) -> None:
        return None

    def close(self) -> None:
        return None


# ---------------------------------------------------------------------------------------------------- reading
class LogError(InputError):
    """A log that cannot be read; the message names the file and line."""


def read_log(path: Path | str, *, strict: bool = True) -> Iterator[BaseModel]:
    """Yield the validated records of a log.  A truncated last line is an error with ``strict``, else ignored."""
    p = Path(path)
    try:
        f = open(p, encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        raise LogError(f"{p}: cannot read ({exc.strerror})") from None
    with f:
        for number, line in enumerate(f, start=1):
            if not line.endswith("\n"):
                if strict:
                    raise LogError(f"{p}:{number}: truncated record (the match was cut off here)")
                return
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise LogError(f"{p}:{number}: not JSON ({exc.msg})") from None
            if number == 1:
                fmt = data.get("format") if isinstance(data, dict) else None
                if isinstance(fmt, int) and fmt > LOG_FORMAT:
                    raise LogError(
                        f"{p}: log format {fmt} is newer than this mjref reads ({LOG_FORMAT}); upgrade mjref"
                    )
            try:
                yield RECORD_ADAPTER.validate_python(data)
            except ValidationError as exc:
                err = exc.errors()[0]
                loc = ".".join(str(x) for x in err["loc"])
                raise LogError(f"{p}:{number}: bad record ({loc}: {err['msg']})") from None

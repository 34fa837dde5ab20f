"""The messages between ``mjref serve`` and a wrapper (``mjref connect``): one JSON object per WebSocket text frame.

They are defined here once, as pydantic models, and read by both ends; ``docs/network.md`` describes them and
``mjref schema network`` can print their JSON Schema.  Protocol lines travel unchanged inside them (``lines``,
``line``): the wrapper hands them to its bot exactly as a local referee would write them to the bot's stdin.

``PROTOCOL`` is the version of this message set.  A wrapper says which it speaks in ``hello``; a server that does
not speak it closes the connection (``CLOSE_VERSION``).  Any change to a message below bumps it.

Close codes (WebSocket close frames) tell a wrapper why it was let go; they carry no other information, so an
unauthenticated connection learns nothing about the table.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

from referee.game.kinds import AskKind, IcgaAsk, MeldType
from referee.game.match_options import MAX_SECONDS
from referee.validation import validation_reason

from .codec import cut

PROTOCOL = 1

AUTH_TIMEOUT = 5.0  # seconds a new connection has to send a valid ``hello``
MAX_CLIENT_MESSAGE = 16 * 1024  # bytes: the largest frame a server takes from a wrapper (an answer line is <= 4096)
MAX_SERVER_MESSAGE = 4 * 1024 * 1024  # bytes: the largest frame a wrapper takes from the server

CLOSE_REFUSED = 4001  # no such name, or a wrong token
CLOSE_VERSION = 4002  # a ``hello`` with a protocol version this server does not speak
CLOSE_TAKEN = 4003  # the name is already logged in on another connection (a token holds one seat at a time)
CLOSE_BAD_MESSAGE = 4004  # a frame that is not a message of this protocol, or not one expected now
CLOSE_AUTH_TIMEOUT = 4005  # no valid ``hello`` within AUTH_TIMEOUT seconds
CLOSE_OVER = 1000  # normal closure: the match or tournament is over (an ``over`` message came first)

class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# A protocol line relayed to a bot: printable ASCII, as every line of docs/protocol.md (a wrapper writes it to its
# bot's stdin as it is, so no line end, no control byte, nothing the ASCII pipe cannot carry)
ProtocolLine = Annotated[str, StringConstraints(max_length=4096, pattern=r"^[ -~]*$")]
# Seconds of a deadline: finite, positive, and no more than any timeout mjref takes (a NaN or a negative number
# from a server would make the wrapper's own deadline meaningless)
Seconds = Annotated[float, Field(gt=0, le=MAX_SECONDS, allow_inf_nan=False)]


# ------------------------------------------------------------------------------------------ wrapper -> server
class Hello(_Message):
    """The first frame of a connection: who logs in, and the proof."""

    type: Literal["hello"] = "hello"
    v: int
    name: str = Field(..., min_length=1, max_length=64)
    token: str = Field(..., min_length=1, max_length=256)


class Ready(_Message):
    """The answer to ``hand``: the bot is ready (``started``: a new process was started), or it could not start."""

    type: Literal["ready"] = "ready"
    hand: int
    started: bool = False
    fault: str | None = Field(None, max_length=32)
    detail: str | None = Field(None, max_length=1024)


class Reply(_Message):
    """The answer to ``ask`` number ``q``: the bot's line, or the fault the wrapper saw (a crash, a timeout, …)."""

    type: Literal["reply"] = "reply"
    q: int
    line: str | None = Field(None, max_length=4096)
    fault: str | None = Field(None, max_length=32)
    detail: str | None = Field(None, max_length=1024)


ClientMessage = Annotated[Hello | Ready | Reply, Field(discriminator="type")]


# ------------------------------------------------------------------------------------------ server -> wrapper
class Welcome(_Message):
    """Logged in: the server's version, and the name the wrapper plays as."""

    type: Literal["welcome"] = "welcome"
    v: int
    name: str


class Seat(_Message):
    """A match begins for this wrapper: its position and how its bot runs (per hand, or kept alive).  ``match``
    is an opaque name: it says nothing of the match's place in a tournament (its seed or seating)."""

    type: Literal["seat"] = "seat"
    match: str
    position: int = Field(..., ge=1, le=4)
    keep_alive: bool = False
    timeout: Seconds


class Hand(_Message):
    """A hand begins: start the bot if needed and send ``/start``; answer with ``ready``."""

    type: Literal["hand"] = "hand"
    hand: int
    seed: int
    position: int = Field(..., ge=1, le=4)
    flowers: bool
    dead_wall: int
    gong_from_previous_player: bool
    seven_pairs_and_pung: bool
    timeout: Seconds
    start_grace: float = Field(..., ge=0, le=MAX_SECONDS, allow_inf_nan=False)


class Ask(_Message):
    """Protocol lines for the bot, then the question ``/ask <ask>``; answer with ``reply`` number ``q``."""

    type: Literal["ask"] = "ask"
    q: int
    lines: list[ProtocolLine]
    ask: IcgaAsk


class EndHand(_Message):
    """The hand is over: the last lines (``/exit …``); a bot that is not kept alive then stops."""

    type: Literal["end_hand"] = "end_hand"
    lines: list[ProtocolLine]


class Abandon(_Message):
    """The server recorded a fault of this seat: the stand-in plays on; stop the bot (``/exit``) until next hand."""

    type: Literal["abandon"] = "abandon"
    kind: str
    detail: str


class Unseat(_Message):
    """The match is over for this wrapper (its bot is ended); more may follow in a tournament."""

    type: Literal["unseat"] = "unseat"
    match: str


class Over(_Message):
    """The match or tournament is over: the wrapper exits 0."""

    type: Literal["over"] = "over"
    reason: str = ""


ServerMessage = Annotated[Welcome | Seat | Hand | Ask | EndHand | Abandon | Unseat | Over,
                          Field(discriminator="type")]


# ------------------------------------------------------------------------------------------ server -> page
# A person's page (``human:NAME``, ``wrappers.human``) logs in and answers with the wrapper's own messages
# (``hello``, ``ready``, ``reply``) and gets ``welcome``, ``seat``, ``hand``, ``abandon``, ``unseat`` and ``over``
# like a wrapper; instead of protocol lines (``ask``, ``end_hand``) it gets the table as its seat sees it.  A
# wrapper is never sent these, so they do not change the wrapper's protocol version.
class PageMeld(_Message):
    """One exposed set (or concealed gong: ``tiles`` empty for another seat's) as the seat sees it."""

    type: MeldType
    tiles: list[int]
    claimed: int | None = None  # the tile taken from ``source``
    source: int | None = None
    promoted: bool = False


class PageSeat(_Message):
    """What the page's seat sees of one seat (itself included): name, melds, throws not claimed, flowers."""

    position: int = Field(..., ge=1, le=4)
    name: str
    melds: list[PageMeld]
    river: list[int]
    flowers: list[int]


class PageAsk(_Message):
    """A question to the person: ``legal`` is every answer the referee accepts (protocol lines), ``seconds`` the
    deadline (``human_timeout``); the page answers with ``reply`` number ``q`` whose ``line`` is one of them."""

    q: int
    ask: AskKind
    tile: int | None = None
    legal: list[str]
    seconds: float


class Table(_Message):
    """The table as the person's seat sees it (a ``SeatView``), sent with every question and at a hand's end."""

    type: Literal["table"] = "table"
    hand: int
    position: int = Field(..., ge=1, le=4)
    round_wind: str
    hand_wind: str
    dealer: int
    wall: int  # tiles left in the wall (the dead wall included)
    live: int  # tiles left to draw before the hand is drawn out
    concealed: list[int]
    drawn: int | None = None  # the tile just drawn (also in ``concealed``)
    deal: int = Field(16, ge=1, le=16)  # tiles a seat is dealt: 16 (taiwan16) or 13 (classical)
    seats: list[PageSeat]
    totals: list[int]
    winners: list[int] = []
    ask: PageAsk | None = None


class HandOver(_Message):
    """A hand is over: its ``result`` record exactly as the log holds it (wins with tai items and the winning
    arrangement, scores, penalties, totals)."""

    type: Literal["hand_over"] = "hand_over"
    result: dict[str, Any]


PageMessage = Annotated[Welcome | Seat | Hand | Table | HandOver | Abandon | Unseat | Over, Field(discriminator="type")]
PAGE: TypeAdapter[Any] = TypeAdapter(PageMessage)

CLIENT: TypeAdapter[Any] = TypeAdapter(ClientMessage)
SERVER: TypeAdapter[Any] = TypeAdapter(ServerMessage)


class BadMessage(Exception):
    """A frame that is not a message of this protocol (the reason, one line)."""


def read_client(frame: str | bytes) -> Hello | Ready | Reply:
    """Parse a wrapper's frame strictly; :class:`BadMessage` with a one-line reason otherwise."""
    return _read(CLIENT, frame)


def read_page(frame: str | bytes) -> Welcome | Seat | Hand | Table | HandOver | Abandon | Unseat | Over:
    """Parse a frame sent to a person's page strictly (tests read the page's traffic with it)."""
    return _read(PAGE, frame)


def read_server(frame: str | bytes) -> Welcome | Seat | Hand | Ask | EndHand | Abandon | Unseat | Over:
    """Parse a server's frame strictly; :class:`BadMessage` with a one-line reason otherwise."""
    return _read(SERVER, frame)


def _read(adapter: TypeAdapter[Any], frame: str | bytes) -> Any:
    if isinstance(frame, bytes):
        raise BadMessage("a binary frame (messages are JSON text)")
    try:
        return adapter.validate_json(frame)
    except ValidationError as exc:
        _, loc, msg = validation_reason(exc)
        # the reason quotes the sender's keys, tags and values, and ends up in a log line: escaped and cut
        raise BadMessage(cut(f"{loc + ': ' if loc else ''}{msg}", 200)) from None


def write(message: _Message) -> str:
    return message.model_dump_json()


def schema() -> dict[str, Any]:
    """The JSON Schema of both directions (for ``docs/network.md`` and tools)."""
    return {"wrapper_to_server": CLIENT.json_schema(), "server_to_wrapper": SERVER.json_schema(),
            "server_to_page": PAGE.json_schema()}

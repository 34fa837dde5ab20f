"""mj-server's protocol (version 1110), both directions, in one module: the wire, the messages, strictly.

The wire is lines of bytes ending in CRLF (a bare LF is read too).  A line that ends in an odd number of backslashes
goes on in the next line (the message holds a newline there), and inside a message a backslash escapes the next
character; ``Framer`` turns the bytes into messages and ``to_wire`` a message into bytes, as mj-server's
``get_line`` and ``put_line`` do.  A message is its type's word and its fields, one space apart, each as its record's
``SPEC`` says (``wrappers.xmj.messages``); the free text, if any, comes last and runs to the end, behind a
backslash when it starts with a blank or a backslash.

Reading is strict, because the other end is untrusted (a client, or a relay): a message is parsed only in its
canonical form, so that every message read is written back byte for byte as it came.  Whatever the bytes, the result
is a record or an ``XmjProtocolError`` whose reason is one line quoting the (cut) message: an unknown type, a missing
or extra field, a tile that is no tile code, an integer out of range or written another way (``01``, ``+1``), two
blanks, a control character, a byte that is not UTF-8, a line or a message past the limits below.  The aliases
mj-server's own reader accepts for a person at a telnet prompt (``d`` for ``Discard``, ``l`` for ``Lower``) are
refused: no client sends them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from operator import attrgetter
from typing import Any

from referee.errors import InputError
from referee.game.classical.history import PROTOCOL_VERSION, trailing_backslashes, unescape
from referee.game.classical.options import C_INT_MAX
from referee.game.classical.tiles import ALL, HIDDEN
from wrappers.codec import cut

from . import messages as m
from .messages import CLIENT_MESSAGES, SERVER_MESSAGES, Message

VERSION_MISMATCH = "Protocol major version mismatch"  # mj-server's reason (controller.c), word for word


def version_refusal(pvers: int) -> str | None:
    """Why a client of protocol ``pvers`` cannot play at an mjref table, or None: mj-server refuses another major
    version, and plays an older client's game by that client's older rules, which mjref does not have."""
    if pvers // 1000 != PROTOCOL_VERSION // 1000:
        return VERSION_MISMATCH
    if pvers < PROTOCOL_VERSION:
        return (f"Protocol version {pvers} is older than {PROTOCOL_VERSION}: this server plays mj-server 1.11's "
                "rules only")
    return None


MAX_LINE = 2048  # bytes of one wire line; the longest real one (a 144-tile ``Wall``) is under 450
MAX_MESSAGE = 16384  # bytes of one message over its continued lines; the longest real one (a Settlement) is < 1000
MAX_CONTINUATIONS = 128  # wire lines of one message

TILE_CODES = ALL | {HIDDEN}
WIND_LETTERS = ("E", "S", "W", "N")
CHOW_POSITIONS = ("Lower", "Middle", "Upper", "AnyPos")
OPTION_TYPES = ("bool", "int", "nat", "score", "string")
PLAYER_OPTIONS = ("Unknown", "InfoTiles", "DelayTime", "LocalTimeouts")
INT_MIN, INT_MAX = -C_INT_MAX - 1, C_INT_MAX  # a C int


class XmjProtocolError(InputError):
    """A message (or wire line) that breaks mj-server's protocol; the message is one line quoting it."""


def _fail(text: str, reason: str) -> XmjProtocolError:
    return XmjProtocolError(f"`{cut(text)}`: {reason}" if text else reason)


# ------------------------------------------------------------------------------------------------------ the wire


def to_wire(text: str) -> bytes:
    """One message as mj-server's ``put_line`` writes it: backslashes doubled, each newline a backslash-CRLF, CRLF."""
    return (text.replace("\\", "\\\\").replace("\n", "\\\r\n") + "\r\n").encode("utf-8")


class Framer:
    """Bytes in, messages out: ``feed`` the bytes read, then take the whole messages with ``messages``.  The limits
    hold before anything is kept, so a peer that never sends a line end costs at most ``MAX_MESSAGE`` bytes."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._parts: list[str] = []  # the wire lines of a message that goes on

    def feed(self, data: bytes) -> None:
        self._buffer += data
        if b"\n" not in data and len(self._buffer) > MAX_LINE:
            raise _fail(bytes(self._buffer[:80]).decode("latin-1"), f"a line longer than {MAX_LINE} bytes")

    @property
    def pending(self) -> bool:
        """Whether part of a message was read (the peer closing now cuts a message short)."""
        return bool(self._buffer or self._parts)

    def messages(self) -> Iterator[str]:
        """The whole messages in what was fed so far, each without its line end and unescaped."""
        buffer = self._buffer
        while True:
            end = buffer.find(b"\n")
            if end < 0:
                return
            raw = bytes(buffer[:end])
            del buffer[: end + 1]
            if len(raw) > MAX_LINE:
                raise _fail(raw.decode("latin-1"), f"a line longer than {MAX_LINE} bytes")
            if raw.endswith(b"\r"):
                raw = raw[:-1]
            if not self._parts and raw.isascii() and b"\\" not in raw:  # a whole message, nothing escaped
                yield raw.decode("ascii")
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise _fail(raw.decode("latin-1"), f"byte 0x{raw[exc.start]:02x} at column {exc.start + 1} is not "
                            "UTF-8") from None
            self._parts.append(line)
            if trailing_backslashes(line) % 2:
                if len(self._parts) >= MAX_CONTINUATIONS or sum(map(len, self._parts)) > MAX_MESSAGE:
                    raise _fail(self._parts[0], f"a message longer than {MAX_CONTINUATIONS} lines or "
                                f"{MAX_MESSAGE} bytes")
                continue
            parts, self._parts = self._parts, []
            yield unescape("\n".join(parts))


def frame(data: bytes) -> list[str]:
    """All the messages of a whole capture (bytes that end with a line end)."""
    framer = Framer()
    framer.feed(data)
    out = list(framer.messages())
    if framer.pending:
        raise XmjProtocolError("the bytes end inside a message (no final line end)")
    return out


# ------------------------------------------------------------------------------------------------------ reading


class _Reader:
    """The fields of one message, taken from the left, each checked as it is taken."""

    def __init__(self, text: str, name: str, rest: str | None) -> None:
        self.message, self.name, self.rest = text, name, rest

    def fail(self, reason: str) -> XmjProtocolError:
        return _fail(self.message, f"{self.name}: {reason}")

    def word(self, what: str) -> str:
        if self.rest is None:
            raise self.fail(f"missing {what}")
        w, sep, rest = self.rest.partition(" ")
        if not w:
            raise self.fail(f"two blanks before {what}" if sep else f"missing {what}")
        self.rest = rest if sep else None
        if not w.isprintable():
            raise self.fail(f"{what} {cut(w, 20)} holds a control character")
        return w

    def integer(self, what: str, lo: int = INT_MIN, hi: int = INT_MAX) -> int:
        w = self.word(what)
        digits = w[1:] if w.startswith("-") else w
        if not (digits.isascii() and digits.isdigit() and len(digits) <= 10) or (digits[0] == "0" and w != "0"):
            raise self.fail(f"{what} {cut(w, 20)} is not an integer")
        n = int(w)
        if not lo <= n <= hi:
            raise self.fail(f"{what} {n} is not from {lo} to {hi}")
        return n

    def choice(self, what: str, allowed: tuple[str, ...] | frozenset[str]) -> str:
        w = self.word(what)
        if w not in allowed:
            shown = ", ".join(allowed) if isinstance(allowed, tuple) else "a tile code such as 5B, EW, RD, 1F or --"
            raise self.fail(f"{what} {cut(w, 20)} is not {shown}")
        return w

    def text(self, what: str, guarded: bool = True) -> str:
        t, self.rest = self.rest, None
        if t is None:
            raise self.fail(f"missing {what} (a message with a text field ends with a blank before it, even empty)")
        bad = next((ch for ch in t if not ch.isprintable() and ch != "\n"), None)
        if bad is not None:
            raise self.fail(f"{what} holds the control character {cut(bad)}")
        if guarded and t.startswith("\\"):
            if t[1:2] not in (" ", "\\"):
                raise self.fail(f"{what} starts with a backslash that guards neither a blank nor a backslash")
            return t[1:]
        if t.startswith(" "):
            raise self.fail(f"{what} starts with a blank that no backslash guards")
        return t

    def tiles(self, what: str) -> tuple[str, ...]:
        t = self.text(what)
        if not t:
            return ()
        out = tuple(t.split(" "))
        for w in out:
            if w not in ALL:
                raise self.fail(f"{what}: {cut(w, 20) or 'two blanks'} is not a tile code")
        return out

    def end(self) -> None:
        if self.rest is not None:
            raise self.fail(f"unexpected {cut(self.rest, 40)!r} after the last field")


def _parse(text: str, table: dict[str, type[Message]], side: str) -> Message:
    if len(text.encode("utf-8")) > MAX_MESSAGE:
        raise _fail(text, f"a message longer than {MAX_MESSAGE} bytes")
    name, sep, rest = text.partition(" ")
    cls = table.get(name)
    if cls is None:
        other = CLIENT_MESSAGES if table is SERVER_MESSAGES else SERVER_MESSAGES
        known = f" ({name} is a {'client' if side == 'server' else 'server'}'s message)" if name in other else ""
        raise _fail(text, f"not a message a {side} sends{known}")
    r = _Reader(text, name, rest if sep else None)
    values: dict[str, Any] = {}
    for field, kind in cls.SPEC:
        if kind == m.INT:
            values[field] = r.integer(field)
        elif kind == m.BOOL:
            values[field] = bool(r.integer(field, 0, 1))
        elif kind == m.TILE:
            values[field] = r.choice(field, TILE_CODES)
        elif kind == m.WIND:
            values[field] = r.choice(field, WIND_LETTERS)
        elif kind == m.CPOS:
            values[field] = r.choice(field, CHOW_POSITIONS)
        elif kind == m.OPTION:
            values[field] = r.choice(field, PLAYER_OPTIONS)
        elif kind == m.WORD:
            w = r.word(field)
            if len(w) > 15:
                raise r.fail(f"{field} {cut(w, 20)} is longer than 15 characters")
            values[field] = w
        elif kind == m.OTYPE:
            values[field] = r.choice(field, OPTION_TYPES)
        elif kind == m.OVALUE:
            otype = values["type"]
            if otype == "string":
                values[field] = r.word(field)
            elif otype == "bool":
                values[field] = r.integer(field, 0, 1)
            else:
                values[field] = r.integer(field, 0 if otype == "nat" else INT_MIN)
        elif kind == m.DESC:
            values[field] = r.text(field, guarded=False)
        elif kind == m.TILES:
            values[field] = r.tiles(field)
        else:  # TEXT
            values[field] = r.text(field)
    r.end()
    return cls(**values)


def parse_server(text: str) -> Message:
    """One of mj-server's messages (framed: see ``Framer``) as its ``CMsg*`` record, or ``XmjProtocolError``."""
    return _parse(text, SERVER_MESSAGES, "server")


def parse_client(text: str) -> Message:
    """One of a client's messages (framed) as its ``PMsg*`` record, or ``XmjProtocolError``.  A message read before
    is the record made then (records are never changed): a client says ``NoClaim 12`` or ``Discard 5C 0`` again and
    again, and parsing each anew was a tenth of the referee's time in an xmj match."""
    msg = _CLIENT_READ.get(text)
    if msg is None:
        msg = _parse(text, CLIENT_MESSAGES, "client")
        if len(text) <= MEMO_LENGTH:
            if len(_CLIENT_READ) >= MEMO_SIZE:
                _CLIENT_READ.clear()
            _CLIENT_READ[text] = msg
    return msg


# What ``parse_client`` and ``write`` remember: at most this many messages (the distinct ones of a game are fewer),
# each at most this long (a game's repeated ones are short; a client's long chat is not kept).
MEMO_SIZE = 4096
MEMO_LENGTH = 64
_CLIENT_READ: dict[str, Message] = {}


# ------------------------------------------------------------------------------------------------------ writing


def format_message(msg: Message) -> str:
    """The message's text (``to_wire`` makes its bytes), as mj-server's ``encode_cmsg``/``encode_pmsg`` write it."""
    cls = type(msg)
    writer = _WRITERS.get(cls) or _writer(cls)
    return writer(msg)


def _text(value: str) -> str:
    return "\\" + value if value[:1] in (" ", "\\") else value


_CONVERT: dict[str, Callable[[Any], str]] = {m.BOOL: lambda v: "1" if v else "0", m.TILES: " ".join, m.TEXT: _text}
_WRITERS: dict[type[Message], Callable[[Message], str]] = {}


def _writer(cls: type[Message]) -> Callable[[Message], str]:
    """The function that writes a message of type ``cls`` (made once per type: an xmj match writes about nine
    hundred messages a hand, and the fields of most are all written by ``str``)."""
    name = cls.NAME
    names = tuple(f for f, _ in cls.SPEC)
    converts = tuple(_CONVERT.get(kind, str) for _, kind in cls.SPEC)
    writer: Callable[[Message], str]
    if not names:
        def writer(msg: Message) -> str:
            return name
    elif len(names) == 1:
        field, convert = names[0], converts[0]

        def writer(msg: Message) -> str:
            return f"{name} {convert(getattr(msg, field))}"
    elif all(c is str for c in converts):
        get = attrgetter(*names)

        def writer(msg: Message) -> str:
            return " ".join((name, *map(str, get(msg))))
    else:
        get = attrgetter(*names)

        def writer(msg: Message) -> str:
            return " ".join((name, *[c(v) for c, v in zip(converts, get(msg))]))
    _WRITERS[cls] = writer
    return writer


def write(msg: Message) -> bytes:
    """A message's bytes on the wire.  A message written before gives the bytes made then (the same discard goes to
    four clients, the same no-claim acknowledgement hand after hand)."""
    cls = msg.__class__
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = attrgetter(*(f for f, _ in cls.SPEC)) if cls.SPEC else _no_fields
    key = (cls, fields(msg))
    try:
        data = _WRITTEN.get(key)
    except TypeError:  # a field that is not hashable (tiles in a list): written, not remembered
        return to_wire(format_message(msg))
    if data is None:
        data = to_wire(format_message(msg))
        if len(data) <= MEMO_LENGTH:
            if len(_WRITTEN) >= MEMO_SIZE:
                _WRITTEN.clear()
            _WRITTEN[key] = data
    return data


def _no_fields(msg: Message) -> tuple[()]:
    return ()


_FIELDS: dict[type[Message], Callable[[Message], Any]] = {}  # a type's fields' values, as the key of ``_WRITTEN``
_WRITTEN: dict[tuple[type[Message], Any], bytes] = {}

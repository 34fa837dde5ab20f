"""The ICGA protocol codec: every line between the referee and a bot, both directions, in one module.

Server → bot
    :func:`format_start`, :func:`format_event`, :func:`format_question` build the lines the referee sends;
    :func:`parse_server_line` reads them back into :class:`Start`, :class:`Ask` or an engine ``Event``, for
    bot executables written in Python (``python -m bots.greedy``).
Bot → server
    :func:`parse_answer` turns the untrusted bytes a bot printed into an ``Answer``, or raises
    :class:`ProtocolError` with a one-line reason that quotes the line; :func:`format_answer` is its inverse.

The rules are those of docs/protocol.md.  Lines are ASCII and carry no line terminator here (the transport
adds ``\\n``).  When reading, a trailing ``\\n`` / ``\\r\\n`` is dropped, blanks (spaces, tabs) around and
between tokens are ignored, and the command word may be in any letter case; everything else is strict:

* a TID token is the canonical decimal form of a TID (``112``, not ``0112`` or ``+112``);
* a flower TID is never a valid tile in an answer (flowers are never in a hand), nor anywhere on a server
  line but ``/flower``;
* lines longer than :data:`MAX_LINE_LENGTH`, non-ASCII bytes (a UTF-8 byte order mark included), NUL bytes,
  other control characters and line breaks inside the line are refused with a reason.

``parse_answer`` checks the syntax only (the command, its arity, the TIDs, no tile named twice).  Whether the
tiles are the bot's and make the set it claims is the engine's question, answered against ``Question.legal``.

Decision on ``/start MJ <pos> <AIPath>``: the AIPath token is always sent.  An empty path becomes ``-`` and
any character outside printable ASCII (a blank included) becomes ``_``, so the line always has four tokens.
Bots written for the framework read it with ``scanf("%s %s %d %s")`` or ``cin >> a >> b >> c >> d``; with a
token missing those read on into the next line (``/initGame``) and lose their place in the protocol.

Formatting is plain string building, no regular expressions: the referee formats some 200 lines per hand.
"""

from __future__ import annotations

from referee.errors import InputError, escaped_char
from referee.game.options import throw_answer
from referee.game.tiles import ALL_TIDS, FLOWER_TIDS, KINDS, WINDS_IN_ORDER
from referee.game.types import (
    GONG_CONCEALED,
    GONG_MELDED,
    GONG_PROMOTED,
    HU,
    PASS,
    TYPE_CHECKING,
    Answer,
    Dealt,
    Declare,
    Eat,
    Event,
    Exit,
    Flower,
    Gong,
    Hu,
    InitCard,
    InitGame,
    Mo,
    Pong,
    Question,
    Record,
    Scored,
    Show,
    Throw,
)

if TYPE_CHECKING:  # ``typing`` is no part of a bot's start (see ``referee.game.kinds``)
    from typing import Final, TypeAlias

    from referee.game.kinds import AskKind

__all__ = [
    "DEBUG_TO_STDERR",
    "MAX_LINE_LENGTH",
    "ONE_LINE",
    "misplaced_output_hint",
    "Ask",
    "ProtocolError",
    "ServerMessage",
    "Start",
    "cut",
    "format_answer",
    "format_event",
    "format_question",
    "format_start",
    "parse_answer",
    "parse_server_line",
]

MAX_LINE_LENGTH: Final = 1024
"""Longest line (without its terminator) either parser reads; the longest real line is under 80 characters."""

FLOWER_EXTENSION: Final = "flower"
"""The bot-configuration extension that opts in to ``/flower <pos> <tid>`` lines (docs/protocol.md)."""

_HAND_TIDS: Final[frozenset[int]] = frozenset(ALL_TIDS)
_FLOWER_TIDS: Final[frozenset[int]] = frozenset(FLOWER_TIDS)
_KINDS: Final[frozenset[int]] = frozenset(KINDS)
_ASK_KINDS: Final[dict[str, AskKind]] = {"throw": "throw", "hu": "hu", "gong": "gong", "pong": "pong", "eat": "eat"}
_WINDS: Final[frozenset[str]] = frozenset(WINDS_IN_ORDER)
_POSITIONS: Final[dict[str, int]] = {"1": 1, "2": 2, "3": 3, "4": 4}
_ANSWER_WORDS: Final = ("/throw", "/eat", "/pong", "/gong", "/hu", "/pass")
_ANSWER_COMMANDS: Final = f"{', '.join(_ANSWER_WORDS[:-1])} or {_ANSWER_WORDS[-1]}"
ONE_LINE: Final = "an answer is one line ended by one \\n, with no empty line before or after it"
"""What a bot's author must change when it writes an empty line (``print()``, ``std::endl`` after ``\\n``)."""
DEBUG_TO_STDERR: Final = "write banners and debugging output to stderr"
"""What a bot's author must change when its stdout carries anything but answers (a fault's reason ends with
it): a bot's stdout is for its answers only."""
_BOM: Final = "\ufeff"


def misplaced_output_hint(line: bytes) -> str:
    """What the author of a bot that wrote ``line`` where no answer was due must change: for an empty line,
    ``ONE_LINE``; for a command (an answer written twice, or before its question), nothing to add; for anything
    else (a banner, a debugging line), ``DEBUG_TO_STDERR``."""
    text = line.strip()
    if not text:
        return ONE_LINE
    return "" if text.startswith(b"/") else DEBUG_TO_STDERR


class ProtocolError(InputError):
    """A line that breaks the protocol; ``reason`` is one line that quotes the (cut) offending line."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Start(Record):
    """``/start MJ <position> <AIPath>``: the first line of a hand; ``position`` is the bot's seat 1..4."""

    __slots__ = ("position", "ai_path")
    __match_args__ = FIELDS = ("position", "ai_path")
    position: int
    ai_path: str

    def __init__(self, position: int, ai_path: str = "") -> None:
        object.__setattr__(self, "position", position)
        object.__setattr__(self, "ai_path", ai_path)


class Ask(Record):
    """``/ask <kind>``: the referee asks the bot a question; the bot must answer with one line."""

    __slots__ = ("kind",)
    __match_args__ = FIELDS = ("kind",)
    kind: AskKind

    def __init__(self, kind: AskKind) -> None:
        object.__setattr__(self, "kind", kind)


ServerMessage: TypeAlias = Start | Ask | Event
"""What :func:`parse_server_line` returns: a :class:`Start`, an :class:`Ask`, or an engine event."""


# --------------------------------------------------------------------------------------- cut / reasons


def _escape(ch: str) -> str:
    """One character as a Python string literal would show it (``\\x00``, ``\\n``, ``\\u4e2d``, ``\\\\``), printable
    ASCII as it is (``referee.errors.escaped_char`` for the rest)."""
    if ch == "\\":
        return "\\\\"
    if " " <= ch <= "~":
        return ch
    return escaped_char(ch)


def cut(text: str | bytes, limit: int = 80, *, escaped: bool = False) -> str:
    """``text`` made safe to quote in a reason or a log: at most ``limit`` characters of printable ASCII.

    Every character outside printable ASCII, and the backslash, is escaped as in a Python literal
    (``\\x00``, ``\\t``, ``\\u4e2d``, ``\\\\``); bytes are shown byte by byte (``\\xff``).  A text that does
    not fit is cut and ends with ``…`` (which counts towards ``limit``).  Only about ``limit`` characters are
    read, so a huge line costs nothing.  ``escaped``: the text says it was escaped already (a wrapper's report
    of its bot's line): its backslashes are kept as they are, so that it is not escaped twice.
    """
    if not isinstance(text, str):
        text = bytes(text).decode("latin-1")  # one character per byte: non-ASCII bytes escape as \xNN
    limit = max(limit, 1)
    pieces: list[str] = []
    used = 0
    for ch in text:
        piece = ch if (" " <= ch <= "~" and (ch != "\\" or escaped)) else _escape(ch)
        if used + len(piece) > limit:
            while pieces and used + 1 > limit:
                used -= len(pieces.pop())
            pieces.append("…")
            return "".join(pieces)
        pieces.append(piece)
        used += len(piece)
    return "".join(pieces)


def _fail(display: str | bytes, message: str) -> ProtocolError:
    """The error for ``display`` (the line as received, without its terminator)."""
    if not display:
        return ProtocolError(message)
    return ProtocolError(f"`{cut(display)}`: {message}")


# --------------------------------------------------------------------------------------- server → bot


def format_start(position: int, ai_path: str = "") -> str:
    """``/start MJ <position> <AIPath>``.  The AIPath token is always present: ``-`` when empty, and any
    character outside printable ASCII (blanks included) replaced by ``_``, so token readers stay in step."""
    token = "".join(ch if "!" <= ch <= "~" else "_" for ch in ai_path) or "-"
    return f"/start MJ {position} {token}"


def _join(tiles: tuple[int, ...]) -> str:
    return " ".join(map(str, tiles))


# The lines of every throw and draw (the same with any extensions), most of a hand's events and each sent to
# several seats: made at the first event, by seat and tile (``throw_or_draw_line``).
_THROW_LINES: dict[int, dict[int, str]] = {}
_DRAW_LINES: dict[int, str] = {}


def _fill_lines() -> None:
    def line(event: Event) -> str:
        text = _format(event)  # the one writing of each line: the tables only keep what it wrote
        assert text is not None  # a throw and a draw always have a line
        return text

    tiles = (*ALL_TIDS, *FLOWER_TIDS)
    _DRAW_LINES.update({t: line(Mo(1, t)) for t in tiles})
    _THROW_LINES.update({p: {t: line(Throw(p, t)) for t in tiles} for p in (1, 2, 3, 4)})


def throw_or_draw_line(event: Event) -> str | None:
    """The line of a throw or a draw of a real seat and tile (``format_event``'s, from the tables), else None."""
    if not _DRAW_LINES:
        _fill_lines()
    cls = event.__class__
    if cls is Throw:
        return _THROW_LINES.get(event.seat, _NO_LINES).get(event.tile)  # type: ignore[attr-defined]
    if cls is Mo:
        return _DRAW_LINES.get(event.tile)  # type: ignore[attr-defined]
    return None


_NO_LINES: dict[int, str] = {}


def format_event(event: Event, *, extensions: frozenset[str] = frozenset()) -> str | None:
    """The protocol line for ``event`` (no trailing newline), or ``None`` when it has no line for this bot.

    ``Flower`` events have a line (``/flower <pos> <tid>``) only when ``"flower"`` is in ``extensions``.
    Tiles are written in the order the event holds them (the engine keeps the order docs/protocol.md gives
    for: ``/eat`` with the claimed tile in the middle, everything else ascending).  The audience is not
    checked here: the match decides who gets the line.  An unknown event type raises ``TypeError``.
    """
    line = throw_or_draw_line(event)
    return line if line is not None else _format(event, extensions)


def _format(event: Event, extensions: frozenset[str] = frozenset()) -> str | None:
    """``format_event`` without the tables of throws and draws (which are made from it)."""
    match event:
        case Throw(seat=seat, tile=tile):
            return f"/throw {seat} {tile}"
        case Mo(tile=tile):
            return f"/mo {tile}"
        case Eat(seat=seat, tiles=tiles):
            return f"/eat {seat} {_join(tiles)}"
        case Pong(seat=seat, tiles=tiles):
            return f"/pong {seat} {_join(tiles)}"
        case Gong(seat=seat, mode=mode, tiles=tiles):
            return f"/gong {seat} {mode} {_join(tiles)}" if tiles else f"/gong {seat} {mode}"
        case InitCard(tiles=tiles):
            return f"/initCard {_join(tiles)}"
        case InitGame(round_wind=rw, hand_wind=hw, open=op, dealer=dealer, cont=cont):
            return f"/initGame {rw} {hw} {op} {dealer} {cont}"
        case Hu(seat=seat, tile=tile, concealed=concealed):
            return f"/hu {seat} {tile} {_join(concealed)}" if concealed else f"/hu {seat} {tile}"
        case Exit(scores=scores):
            return f"/exit {_join(scores)}"
        case Flower(seat=seat, tile=tile):
            return f"/flower {seat} {tile}" if FLOWER_EXTENSION in extensions else None
        case Dealt() | Declare() | Show() | Scored():
            return None  # the end of a hand with a seat that declares its sets: no ICGA line (docs/protocol.md)
    raise TypeError(f"no protocol line for {type(event).__name__}")


def format_question(q: Question) -> str:
    """``/ask throw``, ``/ask hu``, ``/ask gong``, ``/ask pong`` or ``/ask eat``."""
    return f"/ask {q.ask}"


# --------------------------------------------------------------------------------------- reading lines


def _tokens(line: str | bytes, *, answer: bool = False) -> tuple[str | bytes, list[str]]:
    """Check one raw line and split it: the line to quote in reasons (without terminator) and its tokens,
    the first one (the command word) in lower case.  Raises :class:`ProtocolError` for anything else.
    ``answer``: the line is a bot's, and a line that is no command says what the author must change.
    """
    if isinstance(line, (bytearray, memoryview)):
        line = bytes(line)
    elif not isinstance(line, (str, bytes)):
        raise TypeError(f"a protocol line is str or bytes, not {type(line).__name__}")
    unit = "bytes" if isinstance(line, bytes) else "characters"
    if len(line) > MAX_LINE_LENGTH + 2:  # early exit before any copy; +2 for a "\r\n" terminator
        raise _fail(line, f"line too long ({len(line)} {unit}; the limit is {MAX_LINE_LENGTH})")
    text: str
    if isinstance(line, bytes):
        line = line.removesuffix(b"\n")
        line = line.removesuffix(b"\r")
        if line.startswith(b"\xef\xbb\xbf"):
            raise _fail(line, "starts with a UTF-8 byte order mark; lines must be plain ASCII")
        if not line.isascii():
            i = next(i for i, b in enumerate(line) if b >= 0x80)
            raise _fail(line, f"non-ASCII byte 0x{line[i]:02x} at column {i + 1}; lines must be plain ASCII")
        text = line.decode("ascii")
    else:
        line = line.removesuffix("\n")
        line = line.removesuffix("\r")
        if line.startswith(_BOM):
            raise _fail(line, "starts with a byte order mark (U+FEFF); lines must be plain ASCII")
        if not line.isascii():
            i = next(i for i, ch in enumerate(line) if ch >= "\x80")
            what = f"non-ASCII character {_escape(line[i])} at column {i + 1}"
            raise _fail(line, f"{what}; lines must be plain ASCII")
        text = line
    if len(text) > MAX_LINE_LENGTH:
        raise _fail(line, f"line too long ({len(text)} {unit}; the limit is {MAX_LINE_LENGTH})")
    text = text.replace("\t", " ")
    if not text.isprintable():  # for ASCII: anything outside 0x20..0x7e
        i = next(i for i, ch in enumerate(text) if not (" " <= ch <= "~"))
        ch = text[i]
        if ch == "\0":
            what = "NUL byte"
        elif ch in "\r\n":
            what = f"line break {_escape(ch)} inside the line"
        else:
            what = f"control character {_escape(ch)}"
        raise _fail(line, f"{what} at column {i + 1}")
    tokens = text.split()  # the text is printable ASCII now: split() splits on spaces only
    if not tokens:
        raise _fail(line, "empty line" + (f"; {ONE_LINE}" if answer else ""))
    command = tokens[0]
    if not command.startswith("/"):
        raise _fail(line, "not a command (commands start with /)" + (_not_a_command_hint(command) if answer else ""))
    tokens[0] = command.lower()
    return line, tokens


def _not_a_command_hint(word: str) -> str:
    """For a bot's line that does not start with ``/``: the command it forgot the slash of, or where other
    output belongs (a banner, a debugging line)."""
    if f"/{word.lower()}" in _ANSWER_WORDS:
        return f": /{cut(word.lower(), 16)}, not {cut(word, 16)}"
    return f"; {DEBUG_TO_STDERR}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _check_arity(display: str | bytes, command: str, args: list[str], n: int, what: str = "tile") -> None:
    if len(args) != n:
        if n == 0:
            raise _fail(display, f"{command} takes no arguments, got {len(args)}")
        raise _fail(display, f"{command} takes {_plural(n, what)}, got {len(args)}")


def _tid_token(token: str) -> int | None:
    """The TID ``token`` names, or ``None``: a TID is written 2 or 3 digits, no sign, no leading zero.  (``isdigit``
    is true for full-width digits too: ``_tokens`` has refused every non-ASCII line before this is reached.)"""
    if 2 <= len(token) <= 3 and token.isdigit() and token[0] != "0":
        t = int(token)
        if t in _HAND_TIDS or t in _FLOWER_TIDS:
            return t
    return None


def _tid_hint(token: str) -> str:
    """For a token that is a TID written another way (``0112``, ``+112``, ``112.0``): the way to write it; for a
    tile's kind (``11``, where a TID names one of its four copies): the TIDs it stands for."""
    if token.isdigit() and token[0] != "0" and int(token) in _KINDS:
        k = int(token)
        return f" ({k} is a kind: name one of its copies that the bot holds, {k * 10} to {k * 10 + 3})"
    digits = token.removeprefix("+")
    head, _, decimals = digits.partition(".")
    if head.isdigit() and (not decimals or decimals.strip("0") == "") and token != (n := str(int(head))):
        if int(n) in _HAND_TIDS:
            return f" (write {n}: a TID has no sign, leading zeros or decimal point)"
    return ""


def _hand_tile(display: str | bytes, token: str, *, thrown: bool = False) -> int:
    """A TID that may be in a hand (suit or honour tile): flowers and non-TIDs are refused with a reason."""
    t = _tid_token(token)
    if t is None:
        raise _fail(display, f"{cut(token, 16)} is not a tile ID{_tid_hint(token)}")
    if t in _FLOWER_TIDS:
        if thrown:
            raise _fail(display, f"flowers cannot be thrown ({t} is a flower; flowers are never in a hand)")
        raise _fail(display, f"{t} is a flower, and flowers are never in a hand")
    return t


def _hand_tiles(display: str | bytes, tokens: list[str]) -> list[int]:
    tiles = [_hand_tile(display, tok) for tok in tokens]
    if len(tiles) > 1:
        seen: set[int] = set()
        for t in tiles:
            if t in seen:
                raise _fail(display, f"tile {t} is named twice")
            seen.add(t)
    return tiles


# --------------------------------------------------------------------------------------- bot → server


def parse_answer(line: str | bytes) -> Answer:
    """Parse one line a bot printed into an ``Answer`` (tiles ascending), or raise :class:`ProtocolError`.

    Accepts ``/throw <tid>``, ``/eat <c1> <c2>``, ``/pong <c1> <c2>``, ``/gong 4 <c1> <c2> <c3>``,
    ``/gong 0 <c1> <c2> <c3> <c4>``, ``/gong 1 <tid>``, ``/hu`` and ``/pass``, with a trailing ``\\n`` or
    ``\\r\\n``, blanks anywhere between tokens, and the command word in any letter case.  Whatever ``line``
    holds, the result is an ``Answer`` or a ``ProtocolError`` whose ``reason`` quotes the line, cut to a safe
    length.  (Only a ``line`` that is neither str nor bytes-like raises ``TypeError``: a programming error.)
    """
    display, tokens = _tokens(line, answer=True)
    command, args = tokens[0], tokens[1:]
    if command == "/throw":
        _check_arity(display, command, args, 1)
        return throw_answer(_hand_tile(display, args[0], thrown=True))  # the shared object the engine lists
    if command == "/pass":
        _check_arity(display, command, args, 0)
        return PASS
    if command == "/hu":
        _check_arity(display, command, args, 0)
        return HU
    if command == "/eat" or command == "/pong":
        _check_arity(display, command, args, 2)
        a, b = _hand_tiles(display, args)
        return Answer.eat(a, b) if command == "/eat" else Answer.pong(a, b)
    if command == "/gong":
        if not args:
            raise _fail(display, "/gong takes a gong type (0, 1 or 4) and its tiles, got nothing")
        kind_token, tile_tokens = args[0], args[1:]
        mode = {"0": GONG_CONCEALED, "1": GONG_PROMOTED, "4": GONG_MELDED}.get(kind_token)
        if mode is None:
            hint = ""
            if _tid_token(kind_token) is not None:
                hint = " (a melded gong is /gong 4 <c1> <c2> <c3>)"
            raise _fail(display, f"gong type must be 0, 1 or 4, not {cut(kind_token, 16)}{hint}")
        n = {GONG_CONCEALED: 4, GONG_PROMOTED: 1, GONG_MELDED: 3}[mode]
        _check_arity(display, f"/gong {mode}", tile_tokens, n)
        return Answer.gong(mode, _hand_tiles(display, tile_tokens))
    if command == "/declare":  # a log's record of a set a declaring seat declared (no ICGA bot sends it)
        claimed = bool(args) and args[0] == "1"
        tiles = _hand_tiles(display, args[1:] if claimed else args)
        if not 2 <= len(tiles) <= 14:
            raise _fail(display, f"/declare names 2 to 14 tiles, got {len(tiles)}")
        return Answer("declare", tuple(sorted(tiles)), 1 if claimed else None)
    if command in _SERVER_PARSERS:
        what = f"{command} is a referee line, not an answer (a bot answers with {_ANSWER_COMMANDS})"
        raise _fail(display, what)
    raise _fail(display, f"unknown command {cut(command, 16)} (a bot answers with {_ANSWER_COMMANDS})")


def format_answer(answer: Answer) -> str:
    """The line a bot sends for ``answer``: ``/throw 112``, ``/eat 132 145``, ``/gong 4 110 112 113``."""
    head = f"/{answer.kind}" if answer.mode is None else f"/{answer.kind} {answer.mode}"
    return f"{head} {_join(answer.tiles)}" if answer.tiles else head


# --------------------------------------------------------------------------------------- server lines


def _position(display: str | bytes, token: str, what: str = "position") -> int:
    p = _POSITIONS.get(token)
    if p is None:
        raise _fail(display, f"{what} must be 1, 2, 3 or 4, not {cut(token, 16)}")
    return p


def _integer(display: str | bytes, token: str, what: str, *, signed: bool) -> int:
    digits = token[1:] if signed and token.startswith("-") else token
    if not (1 <= len(digits) <= 12 and digits.isascii() and digits.isdigit()) or (digits[0] == "0" and len(token) > 1):
        kind = "an integer" if signed else "a whole number"
        raise _fail(display, f"{what} must be {kind}, not {cut(token, 16)}")
    return int(token)


def _same_kind(display: str | bytes, tiles: list[int], what: str) -> None:
    if len({t // 10 for t in tiles}) != 1:
        raise _fail(display, f"{what} tiles are not all of one kind")


def _parse_start(display: str | bytes, args: list[str], seat: int) -> ServerMessage:
    if len(args) < 2:
        raise _fail(display, f"/start takes MJ, a position and an AIPath, got {len(args)} arguments")
    if args[0].upper() != "MJ":
        raise _fail(display, f"/start must be followed by MJ, not {cut(args[0], 16)}")
    return Start(_position(display, args[1]), " ".join(args[2:]))


def _parse_ask(display: str | bytes, args: list[str], seat: int) -> ServerMessage:
    if len(args) != 1 or args[0] not in _ASK_KINDS:
        raise _fail(display, "/ask takes one of throw, hu, gong, pong, eat")
    return Ask(_ASK_KINDS[args[0]])


def _parse_init_game(display: str | bytes, args: list[str], seat: int) -> ServerMessage:
    _check_arity(display, "/initGame", args, 5, "field")
    for w in args[:2]:
        if w not in _WINDS:
            raise _fail(display, f"wind must be EAST, SOUTH, WEST or NORTH, not {cut(w, 16)}")
    return InitGame(
        args[0],
        args[1],
        _position(display, args[2], "open"),
        _position(display, args[3], "dealer"),
        _integer(display, args[4], "continue", signed=False),
    )


def _parse_init_card(display: str | bytes, args: list[str], seat: int) -> ServerMessage:
    if len(args) not in (13, 14, 16, 17):  # Chinese Classical deals 13 (East 14), Taiwan 16 (the dealer 17)
        raise _fail(display, f"/initCard takes 13, 14, 16 or 17 tiles, got {len(args)}")
    return InitCard(seat, tuple(_hand_tiles(display, args)))


def _parse_mo(display: str | bytes, args: list[str], seat: int) -> ServerMessage:
    _check_arity(display, "/mo", args, 1)
    return Mo(seat, _hand_tile(display, args[0]))


def _parse_flower(display: str | bytes, args: list[str], seat: int) -> ServerMessage:
    _check_arity(display, "/flower", args, 2, "field")
    p = _position(display, args[0])
    t = _tid_token(args[1])
    if t is None or t not in _FLOWER_TIDS:
        raise _fail(display, f"{cut(args[1], 16)} is not a flower tile ID")
    return Flower(p, t)


def _parse_throw(display: str | bytes, args: list[str], seat: int) -> ServerMessage:
    _check_arity(display, "/throw", args, 2, "field")
    return Throw(_position(display, args[0]), _hand_tile(display, args[1]))


def _parse_eat(display: str | bytes, args: list[str], seat: int) -> ServerMessage:
    _check_arity(display, "/eat", args, 4, "field")
    p = _position(display, args[0])
    a, claimed, b = _hand_tiles(display, args[1:])
    kinds = sorted((a // 10, claimed // 10, b // 10))
    is_run = kinds[0] // 10 in (1, 2, 3) and kinds[0] // 10 == kinds[2] // 10
    if not (is_run and kinds[1] == kinds[0] + 1 and kinds[2] == kinds[0] + 2):
        raise _fail(display, "eat tiles are not a run of one suit")
    if a // 10 > b // 10:
        raise _fail(display, "the eater's two tiles (first and last) must be in ascending order of rank")
    return Eat(p, (a, claimed, b))


def _parse_pong(display: str | bytes, args: list[str], seat: int) -> ServerMessage:
    _check_arity(display, "/pong", args, 4, "field")
    p = _position(display, args[0])
    a, b, c = _hand_tiles(display, args[1:])
    _same_kind(display, [a, b, c], "pong")
    return Pong(p, (a, b, c))


def _parse_gong(display: str | bytes, args: list[str], seat: int) -> ServerMessage:
    if len(args) < 2:
        raise _fail(display, "/gong takes a position, a gong type and its tiles")
    p = _position(display, args[0])
    mode = {"0": GONG_CONCEALED, "1": GONG_PROMOTED, "4": GONG_MELDED}.get(args[1])
    if mode is None:
        raise _fail(display, f"gong type must be 0, 1 or 4, not {cut(args[1], 16)}")
    tokens = args[2:]
    if mode == GONG_PROMOTED:
        _check_arity(display, "/gong <position> 1", tokens, 1)
    elif mode == GONG_MELDED:
        _check_arity(display, "/gong <position> 4", tokens, 4)
    elif len(tokens) not in (0, 4):
        raise _fail(display, f"/gong <position> 0 takes 0 or 4 tiles, got {len(tokens)}")
    tiles = _hand_tiles(display, tokens)
    if tiles:
        _same_kind(display, tiles, "gong")
    return Gong(p, mode, tuple(tiles))


def _parse_hu(display: str | bytes, args: list[str], seat: int) -> ServerMessage:
    if len(args) < 2:
        raise _fail(display, "/hu takes a position, the winning tile and the winner's concealed tiles")
    p = _position(display, args[0])
    tiles = _hand_tiles(display, args[1:])
    rest = len(tiles) - 1
    if rest > 16 or rest % 3 != 1:
        raise _fail(display, f"a winner holds 1, 4, 7, 10, 13 or 16 other concealed tiles, not {rest}")
    return Hu(p, tiles[0], tuple(tiles[1:]))


def _parse_exit(display: str | bytes, args: list[str], seat: int) -> ServerMessage:
    if not args:  # the seed's bare /exit (an early termination): no settlement
        return Exit((0, 0, 0, 0))
    _check_arity(display, "/exit", args, 4, "score")
    s1, s2, s3, s4 = (_integer(display, a, "a score", signed=True) for a in args)
    return Exit((s1, s2, s3, s4))


_SERVER_PARSERS: Final = {
    "/start": _parse_start,
    "/initgame": _parse_init_game,
    "/initcard": _parse_init_card,
    "/mo": _parse_mo,
    "/flower": _parse_flower,
    "/ask": _parse_ask,
    "/throw": _parse_throw,
    "/eat": _parse_eat,
    "/pong": _parse_pong,
    "/gong": _parse_gong,
    "/hu": _parse_hu,
    "/exit": _parse_exit,
}


def parse_server_line(line: str | bytes, *, seat: int = 0) -> ServerMessage:
    """Parse one line from the referee: a :class:`Start`, an :class:`Ask`, or the ``Event`` it announces.

    ``seat`` is the reading bot's own position, filled into the events whose line does not name a seat
    (``/mo`` and ``/initCard``); 0 when unknown.  ``Mo.replacement`` is not on the line and reads as
    ``False``; events keep the default audience.  A bare ``/exit`` (the seed's early termination) reads as
    ``Exit((0, 0, 0, 0))``; ``/start MJ <pos>`` without an AIPath gives ``ai_path=""``.  Checks positions,
    TIDs (flowers only in ``/flower``), arity, tiles named twice, and that melds are what they say (a pong
    or gong of one kind, an eat a run of one suit); raises :class:`ProtocolError` with a reason otherwise.
    """
    display, tokens = _tokens(line)
    parser = _SERVER_PARSERS.get(tokens[0])
    if parser is None:
        raise _fail(display, f"unknown server command {cut(tokens[0], 16)}")
    return parser(display, tokens[1:], seat)

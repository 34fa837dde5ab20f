"""mj-server's hand histories (``hand-NN.mjs``, written by ``mj-server --hand-history``) read into typed records.

A history is the server's own messages, one a line, in the order it handled them: the players, the game's state
before the hand (``Game``), every ``GameOption``, the ``Wall`` (all its tiles in drawing order), the deal and every
move, each player's declarations after Mah-Jong, the ``HandScore`` of each player (with mj-server's explanation,
whose lines end with a backslash) and the ``Settlement``.  ``parse_history`` is strict: a line that is not one of
these messages, or a field that is not what the message takes, is refused with the file and line named, so that a
foreign or damaged file gets one line, never a wrong verdict.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from referee.errors import InputError
from referee.game.classical.options import GameOptions, parse_option_line
from referee.game.classical.tiles import ALL, HIDDEN, WINDS
from referee.game.records import record

ChowPosition = Literal["Lower", "Middle", "Upper", "AnyPos"]
CHOW_POSITIONS = ("Lower", "Middle", "Upper", "AnyPos")
MAX_LINES = 100_000  # far more than any hand: a guard against a foreign file of endless lines
PROTOCOL_VERSION = 1110  # mj-server 1.11's protocol (``protocol.h``): the rules mjref plays, the messages it speaks


@record(frozen=True, slots=True)
class Msg:
    """One message of the history: its kind (mj-server's name, ``PlayerDraws``) and the line it starts on."""

    kind: str
    line: int


@record(frozen=True, slots=True)
class PlayerMsg(Msg):
    id: int
    name: str


@record(frozen=True, slots=True)
class GameMsg(Msg):
    """The game before this hand: the player ids by seat (East first), the round, East's consecutive hands."""

    seats: tuple[int, int, int, int]
    round: str  # a wind tile code: EW for the East round
    hands_as_east: int
    firsteast: int
    scores: tuple[int, int, int, int]
    protversion: int
    manager: int


@record(frozen=True, slots=True)
class WallMsg(Msg):
    tiles: tuple[str, ...]


@record(frozen=True, slots=True)
class NewHandMsg(Msg):
    east: int
    start_wall: int
    start_stack: int


@record(frozen=True, slots=True)
class TileMsg(Msg):
    """A player and a tile: draws, loose draws, specials, pungs, kongs, pairs, closed sets, robbing, Mah-Jong."""

    id: int
    tile: str


@record(frozen=True, slots=True)
class SerialTileMsg(Msg):
    """A kong declared in hand or added to a pung: it can be robbed, so it has a serial number like a discard."""

    id: int
    tile: str
    discard: int


@record(frozen=True, slots=True)
class DiscardMsg(Msg):
    id: int
    tile: str
    discard: int
    calling: bool


@record(frozen=True, slots=True)
class ClaimMsg(Msg):
    """A claim of a discard (``PlayerClaimsPung``...) or a pass (``PlayerDoesntClaim``; ``flag``: by timeout)."""

    id: int
    discard: int
    cpos: str | None = None
    flag: bool = False


@record(frozen=True, slots=True)
class DangerousDiscardMsg(Msg):
    id: int
    discard: int
    nochoice: bool


@record(frozen=True, slots=True)
class ChowsMsg(Msg):
    id: int
    tile: str
    cpos: str


@record(frozen=True, slots=True)
class ShowMsg(Msg):
    """Concealed tiles shown: ``PlayerShowsTiles``, ``PlayerSpecialSet`` (with the discard), closed special sets."""

    id: int
    tile: str | None
    tiles: tuple[str, ...]


@record(frozen=True, slots=True)
class IdMsg(Msg):
    id: int


@record(frozen=True, slots=True)
class TextMsg(Msg):
    """``Pause`` (exempt and requestor ids), ``WashOut`` and ``Comment``."""

    numbers: tuple[int, ...]
    text: str


@record(frozen=True, slots=True)
class HandScoreMsg(Msg):
    id: int
    score: int
    explanation: tuple[str, ...]


@record(frozen=True, slots=True)
class SettlementMsg(Msg):
    changes: tuple[int, int, int, int]  # East, South, West, North
    explanation: tuple[str, ...]


@record(frozen=True, slots=True)
class HandHistory:
    """One won hand as mj-server recorded it."""

    name: str
    players: dict[int, str]
    game: GameMsg
    options: GameOptions
    wall: WallMsg
    moves: tuple[Msg, ...]  # from NewHand to the Settlement

    @property
    def east_first(self) -> tuple[int, int, int, int]:
        """The player ids in table order from this hand's East (``NewHand``; ``Game`` lists the previous East
        first)."""
        seats = self.game.seats
        first = self.moves[0]
        n = seats.index(first.east) if isinstance(first, NewHandMsg) and first.east in seats else 0
        return (seats[n], seats[(n + 1) % 4], seats[(n + 2) % 4], seats[(n + 3) % 4])

    @property
    def hands_as_east(self) -> int:
        """East's run before this hand: ``Game``'s count when East kept the deal, else 0 (a new East)."""
        return self.game.hands_as_east if self.east_first[0] == self.game.seats[0] else 0


TILE_MSGS = frozenset({"PlayerDraws", "PlayerDrawsLoose", "PlayerDeclaresSpecial", "PlayerPungs", "PlayerKongs",
                       "PlayerPairs", "PlayerRobsKong", "PlayerFormsClosedPung", "PlayerFormsClosedChow",
                       "PlayerFormsClosedPair", "PlayerMahJongs"})
SERIAL_MSGS = frozenset({"PlayerDeclaresClosedKong", "PlayerAddsToPung"})
CLAIM_MSGS = frozenset({"PlayerClaimsPung", "PlayerClaimsKong", "PlayerClaimsMahJong", "PlayerClaimsChow",
                        "PlayerDoesntClaim"})
MOVE_MSGS = TILE_MSGS | SERIAL_MSGS | CLAIM_MSGS | frozenset({
    "NewHand", "PlayerDiscards", "DangerousDiscard", "PlayerChows", "PlayerShowsTiles", "PlayerSpecialSet",
    "PlayerFormsClosedSpecialSet", "PlayerReady", "Pause", "WashOut", "Comment", "HandScore", "Settlement"})


class _Line:
    """The fields of one message, taken from the left, each checked as it is taken."""

    def __init__(self, where: str, kind: str, rest: str) -> None:
        self.where, self.kind, self.rest = where, kind, rest

    def _fail(self, what: str) -> InputError:
        return InputError(f"{self.where}: {self.kind}: {what}")

    def word(self, what: str) -> str:
        """The next field: mj-server separates fields by one blank (two are no message of its)."""
        w, sep, rest = self.rest.partition(" ")
        if not w:
            raise self._fail(f"two blanks before {what}" if sep else f"missing {what}")
        self.rest = rest
        return w

    def number(self, what: str, lo: int = -10**9, hi: int = 10**9) -> int:
        w = self.word(what)
        digits = w.removeprefix("-")  # (one sign at most, ASCII digits only: int() takes others, or raises)
        if not (digits.isascii() and digits.isdigit() and len(digits) <= 10) or not lo <= int(w) <= hi:
            raise self._fail(f"{what} {w!r} is not an integer from {lo} to {hi}")
        return int(w)

    def id(self) -> int:
        return self.number("player id", 0, 10**9)

    def flag(self, what: str) -> bool:
        return bool(self.number(what, 0, 1))

    def tile(self, hidden: bool = False) -> str:
        w = self.word("tile")
        if w in ALL or (hidden and w == HIDDEN):
            return w
        raise self._fail(f"{w!r} is not a tile code")

    def tiles(self) -> tuple[str, ...]:
        ts = tuple(self.rest.split(" ")) if self.rest else ()
        self.rest = ""
        for t in ts:
            if t not in ALL:
                raise self._fail(f"{t!r} is not a tile code" if t else "two blanks between tiles")
        return ts

    def cpos(self) -> str:
        w = self.word("chow position")
        if w not in CHOW_POSITIONS:
            raise self._fail(f"{w!r} is not a chow position ({', '.join(CHOW_POSITIONS)})")
        return w

    def text(self) -> str:
        """The rest of the message: a string field, whose leading backslash (mj-server's guard of a leading space
        or backslash) is not part of it."""
        t, self.rest = self.rest, ""
        return t[1:] if t.startswith("\\") else t

    def end(self) -> None:
        if self.rest.strip():
            raise self._fail(f"unexpected {self.rest.strip()[:40]!r} at the end")


def trailing_backslashes(line: str) -> int:
    """How many backslashes end ``line`` (an odd count: the line goes on, mj-server's continuation)."""
    return len(line) - len(line.rstrip("\\"))


def unescape(raw: str) -> str:
    """A message as mj-server reads it back: a backslash escapes the next character (a line end: a newline)."""
    if "\\" not in raw:
        return raw
    return _ESCAPED.sub(r"\1", raw)  # (one that ends the text escapes nothing: _records pairs every backslash)


_ESCAPED = re.compile(r"\\(.?)", re.DOTALL)  # a backslash and the character it escapes


def _records(text: str, name: str) -> list[tuple[int, str]]:
    """(first line number, message text): a line that ends in an odd number of backslashes continues on the next
    (an escaped line end: a newline in the message), and ``\\\\`` is an escaped backslash."""
    out: list[tuple[int, str]] = []
    lines = [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]  # mj-server writes CRLF
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) > MAX_LINES:
        raise InputError(f"{name}: more than {MAX_LINES} lines: not a hand history")
    i, end = 0, len(lines)
    while i < end:
        if "\\" not in lines[i]:  # most lines: one message, nothing escaped
            out.append((i + 1, lines[i]))
            i += 1
            continue
        start, parts = i + 1, [lines[i]]
        while trailing_backslashes(parts[-1]) % 2:
            i += 1
            if i == end:
                raise InputError(f"{name}:{start}: the message continues past the end of the file")
            parts.append(lines[i])
        out.append((start, unescape("\n".join(parts))))
        i += 1
    return out


# The three messages that are most of a history (claims passed, draws, discards) as mj-server writes them: ids and
# serials of at most 9 ASCII digits, flags 0 or 1, one blank apart.
_PASS = re.compile(r"(\d{1,9}) (\d{1,9}) ([01])", re.ASCII)
_DRAW = re.compile(r"(\d{1,9}) (\S\S)", re.ASCII)
_DISCARD = re.compile(r"(\d{1,9}) (\S\S) (\d{1,9}) ([01])", re.ASCII)


def _quick(kind: str, rest: str, n: int) -> Msg | None:
    """The record of a pass, a draw or a discard written as mj-server writes it, else None: ``parse_message``
    reads it field by field, and says what is wrong.  What this takes, ``parse_message`` takes as the same
    record."""
    if kind == "PlayerDoesntClaim":
        m = _PASS.fullmatch(rest)
        if m is not None:
            return ClaimMsg(kind, n, int(m[1]), int(m[2]), None, m[3] == "1")
    elif kind == "PlayerDraws":
        m = _DRAW.fullmatch(rest)
        if m is not None and m[2] in ALL:
            return TileMsg(kind, n, int(m[1]), m[2])
    elif kind == "PlayerDiscards":
        m = _DISCARD.fullmatch(rest)
        if m is not None and m[2] in ALL:
            return DiscardMsg(kind, n, int(m[1]), m[2], int(m[3]), m[4] == "1")
    return None


def parse_message(kind: str, rest: str, n: int, where: str) -> Msg:
    """One message (``kind`` and the text after it) as its typed record; ``where`` is ``file:line``."""
    f = _Line(where, kind, rest)
    msg: Msg
    if kind in TILE_MSGS:
        msg = TileMsg(kind, n, f.id(), f.tile(hidden=kind in ("PlayerMahJongs", "PlayerDeclaresSpecial")))
    elif kind in SERIAL_MSGS:
        msg = SerialTileMsg(kind, n, f.id(), f.tile(), f.number("discard serial", 0))
    elif kind == "PlayerDiscards":
        msg = DiscardMsg(kind, n, f.id(), f.tile(), f.number("discard serial", 0), f.flag("calling flag"))
    elif kind == "PlayerClaimsChow":
        msg = ClaimMsg(kind, n, f.id(), f.number("discard serial", 0), f.cpos())
    elif kind == "PlayerDoesntClaim":
        msg = ClaimMsg(kind, n, f.id(), f.number("discard serial", 0), None, f.flag("timeout flag"))
    elif kind in CLAIM_MSGS:
        msg = ClaimMsg(kind, n, f.id(), f.number("discard serial", 0))
    elif kind == "DangerousDiscard":
        msg = DangerousDiscardMsg(kind, n, f.id(), f.number("discard serial", 0), f.flag("no-choice flag"))
    elif kind == "PlayerChows":
        msg = ChowsMsg(kind, n, f.id(), f.tile(), f.cpos())
    elif kind == "PlayerSpecialSet":
        msg = ShowMsg(kind, n, f.id(), f.tile(), f.tiles())
    elif kind in ("PlayerShowsTiles", "PlayerFormsClosedSpecialSet"):
        msg = ShowMsg(kind, n, f.id(), None, f.tiles())
    elif kind == "PlayerReady":
        msg = IdMsg(kind, n, f.id())
    elif kind == "Pause":
        msg = TextMsg(kind, n, (f.number("exempt id", 0), f.number("requestor id", 0)), f.text())
    elif kind in ("WashOut", "Comment"):
        msg = TextMsg(kind, n, (), f.text())
    elif kind == "NewHand":
        msg = NewHandMsg(kind, n, f.id(), f.number("start wall", 0, 3), f.number("start stack", 0, 1000))
    elif kind == "HandScore":
        msg = HandScoreMsg(kind, n, f.id(), f.number("score", 0), tuple(f.text().split("\n")))
    elif kind == "Settlement":
        ch = (f.number("East's change"), f.number("South's change"), f.number("West's change"),
              f.number("North's change"))
        msg = SettlementMsg(kind, n, ch, tuple(f.text().split("\n")))
    elif kind == "Player":
        msg = PlayerMsg(kind, n, f.id(), f.text())
    elif kind == "Game":
        seats = (f.id(), f.id(), f.id(), f.id())
        rnd = f.word("round wind")
        if rnd not in ("E", "S", "W", "N"):
            raise InputError(f"{where}: Game: round {rnd!r} is not E, S, W or N")
        msg = GameMsg(kind, n, seats, rnd + "W", f.number("hands as east", 0), f.id(),
                      (f.number("score"), f.number("score"), f.number("score"), f.number("score")),
                      f.number("protocol version", 0), f.number("manager id", 0))
    elif kind == "Wall":
        msg = WallMsg(kind, n, f.tiles())
    else:
        raise InputError(f"{where}: {kind[:40]!r} is not an mj-server history message")
    f.end()
    return msg


def parse_history(text: str, name: str) -> HandHistory:
    """A hand history from its text; ``name`` (the file) is quoted in every error."""
    players: dict[int, str] = {}
    game: GameMsg | None = None
    wall: WallMsg | None = None
    options_read: list[tuple[int, str, Any]] = []
    moves: list[Msg] = []
    ended = False  # mj-server ends the game's option table with the option End
    for n, body in _records(text, name):
        kind, _, rest = body.partition(" ")
        if wall is not None and moves:  # most lines: a move of the hand under way, as mj-server writes it
            quick = _quick(kind, rest, n)
            if quick is not None:
                moves.append(quick)
                continue
        where = f"{name}:{n}"
        if kind == "GameOption":
            if game is None or wall is not None or ended:
                raise InputError(f"{where}: GameOption out of place (after Game, before Wall and the End option)")
            options_read.append((n, *parse_option_line(body, where)))
            ended = options_read[-1][1] == "End"
            continue
        msg = parse_message(kind, rest, n, where)
        if isinstance(msg, PlayerMsg):
            if game is not None or msg.id in players:
                raise InputError(f"{where}: Player out of place or twice (the players come first, once each)")
            players[msg.id] = msg.name
        elif isinstance(msg, GameMsg):
            if len(players) != 4 or game is not None:
                raise InputError(f"{where}: Game out of place (after four Player lines, once)")
            if sorted(msg.seats) != sorted(players):
                raise InputError(f"{where}: Game seats {msg.seats} are not the four players {sorted(players)}")
            if msg.protversion != PROTOCOL_VERSION:
                raise InputError(f"{where}: Game: protocol version {msg.protversion}: mjref plays mj-server's protocol "
                                 f"{PROTOCOL_VERSION}, and a game of another version has other rules")
            game = msg
        elif isinstance(msg, WallMsg):
            if game is None or wall is not None:
                raise InputError(f"{where}: Wall out of place (after the options, once)")
            if not ended:
                raise InputError(f"{where}: the game's options do not end with 'GameOption 0 End' (mj-server writes "
                                 "its whole option table): cut short or edited")
            wall = msg
        else:
            if wall is None:
                raise InputError(f"{where}: {kind} before the Wall")
            if not moves and not isinstance(msg, NewHandMsg):
                raise InputError(f"{where}: the hand starts with NewHand, not {kind}")
            if moves and isinstance(msg, NewHandMsg):
                raise InputError(f"{where}: a second NewHand: a history holds one hand")
            moves.append(msg)
    if game is None or wall is None or not moves:
        raise InputError(f"{name}: not an mj-server hand history (no Game, Wall and NewHand lines)")
    if not isinstance(moves[-1], SettlementMsg):
        raise InputError(f"{name}: the history does not end with a Settlement (cut short?)")
    options = GameOptions.from_options(options_read, name)
    size = 144 if options.Flowers else 136
    if len(wall.tiles) != size:
        raise InputError(f"{name}:{wall.line}: the wall has {len(wall.tiles)} tiles, not {size}")
    if game.round not in WINDS:
        raise InputError(f"{name}:{game.line}: bad round")
    first = moves[0]
    if isinstance(first, NewHandMsg) and first.east not in players:
        raise InputError(f"{name}:{first.line}: NewHand: East {first.east} is not one of {sorted(players)}")
    for m in moves:
        who = getattr(m, "id", None)
        if who is not None and not isinstance(m, TextMsg) and who not in players:
            raise InputError(f"{name}:{m.line}: {m.kind}: player {who} is not one of {sorted(players)}")
    return HandHistory(name, players, game, options, wall, tuple(moves))

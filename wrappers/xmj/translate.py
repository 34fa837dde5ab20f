"""mjref's events and questions in mj-server's words, and a client's messages as answers: the translation an xmj
seat makes, pure (``wrappers.xmj.seat`` does the I/O).

Tiles: a TID's kind becomes its mj-server code (wan ``C``, tiao ``B``, tong ``D``; East ``EW``, South ``SW``, West
``WW``, North ``NW``; red ``RD``, green ``GD``, white ``WD``; the seasons Spring..Winter ``1S``-``4S`` and the flowers
Plum, Orchid, Chrysanthemum, Bamboo ``1F``-``4F``).  Players: a seat's mj-server id is its position (1-4).

mjref asks one question at a time (``hu``, then ``gong``, then ``throw`` in one's turn; ``hu``, ``gong``, ``pong``,
``eat`` on a discard), where an mj-server client makes one decision per situation, unasked: after its draw it
discards, declares a kong or goes Mah-Jong; after a discard it claims or says ``NoClaim``.  ``Decisions`` keeps the
client's latest decision and answers each question from it: ``MahJong`` is ``hu`` and a pass to everything else,
``DeclareClosedKong``/``AddToPung``/``Kong`` a ``gong``, ``Pung`` a ``pong``, ``Chow`` an ``eat`` (its position says
which two tiles), ``Discard`` a ``throw``; any other question is passed, and the decision waits for the next one.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.game.tiles import FLOWER_KINDS
from referee.game.types import HU, PASS, Answer, Eat, Event, Exit, Flower, Gong, Hu, InitGame, Mo, Pong, Question, Throw

from . import messages as m
from .messages import Message

_SUIT = {1: "C", 2: "B", 3: "D"}
_HONOUR = {41: "EW", 42: "WW", 43: "SW", 44: "NW", 45: "RD", 46: "GD", 47: "WD"}
_FLOWER = {k: (f"{k}S" if k <= 4 else f"{k - 4}F") for k in FLOWER_KINDS}
_WIND_LETTER = {"EAST": "E", "SOUTH": "S", "WEST": "W", "NORTH": "N"}


def code_of(tid: int) -> str:
    """The mj-server code of a TID's face; ``--`` for 0 (a tile this client does not see)."""
    if tid == 0:
        return "--"
    kind = tid // 10
    if kind in _HONOUR:
        return _HONOUR[kind]
    if kind in _FLOWER:
        return _FLOWER[kind]
    return f"{kind % 10}{_SUIT[kind // 10]}"


def wind_letter(wind: str) -> str:
    return _WIND_LETTER[wind]


class ClientFault(Exception):
    """A client message that answers the question asked wrongly; ``kind`` is the seat's fault kind."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


class Translator:
    """One client's view of an mjref hand as mj-server messages (before ``table.View`` filters them: a draw's tile
    is hidden there).  ``events`` turns each event into the messages mj-server would broadcast for it: a throw gets
    a serial number (``PlayerDiscards``), a claim is announced then implemented (``PlayerClaimsPung`` then
    ``PlayerPungs``), a concealed kong or an added tile gets a serial too (it can be robbed)."""

    def __init__(self) -> None:
        self.serial = 0
        self.discard: tuple[int, int, int] | None = None  # (serial, seat, TID) of the discard in play
        self.dealer = 1
        self.last_draw: dict[int, int] = {}

    def new_hand(self, dealer: int) -> None:
        self.serial = 0
        self.discard = None
        self.dealer = dealer
        self.last_draw = {}

    def deal(self, seat: int, tiles: Sequence[int], counts: dict[int, int]) -> list[Message]:
        """The deal as mj-server draws it: three rounds of four tiles each from East on, one each, and East's
        fourteenth; ``seat``'s own tiles in ``tiles``' order (mj-player's play depends on that order), the others'
        hidden (``counts``: how many each seat was dealt)."""
        order = [(self.dealer - 1 + i) % 4 + 1 for i in range(4)]
        given = {p: 0 for p in order}
        own = list(tiles)
        out: list[Message] = []

        def give(p: int, n: int) -> None:
            for _ in range(min(n, counts[p] - given[p])):
                tile = code_of(own[given[p]]) if p == seat else "--"
                given[p] += 1
                out.append(m.CMsgPlayerDraws(p, tile))

        for _ in range(3):
            for p in order:
                give(p, 4)
        for p in order:
            give(p, 1)
        give(self.dealer, counts[self.dealer])
        return out

    def events(self, e: Event) -> list[Message]:
        if isinstance(e, Mo):
            self.discard = None
            self.last_draw[e.seat] = e.tile
            cls = m.CMsgPlayerDrawsLoose if e.replacement else m.CMsgPlayerDraws
            return [cls(e.seat, code_of(e.tile))]
        if isinstance(e, Flower):
            return [m.CMsgPlayerDeclaresSpecial(e.seat, code_of(e.tile))]
        if isinstance(e, Throw):
            self.serial += 1
            self.discard = (self.serial, e.seat, e.tile)
            return [m.CMsgPlayerDiscards(e.seat, code_of(e.tile), self.serial, False)]
        if isinstance(e, Pong):
            serial = self.discard[0] if self.discard else 0
            return [m.CMsgPlayerClaimsPung(e.seat, serial), m.CMsgPlayerPungs(e.seat, code_of(e.tiles[0]))]
        if isinstance(e, Eat):
            serial, _, claimed = self.discard if self.discard else (0, 0, e.tiles[1])
            ranks = sorted(t // 10 for t in e.tiles)
            cpos = ("Lower", "Middle", "Upper")[ranks.index(claimed // 10)]
            return [m.CMsgPlayerClaimsChow(e.seat, serial, cpos), m.CMsgPlayerChows(e.seat, code_of(claimed), cpos)]
        if isinstance(e, Gong):
            return self._gong(e)
        if isinstance(e, Hu):
            if self.discard is not None and self.discard[1] != e.seat:
                return [m.CMsgPlayerClaimsMahJong(e.seat, self.discard[0]), m.CMsgPlayerMahJongs(e.seat, "--")]
            return [m.CMsgPlayerMahJongs(e.seat, code_of(e.tile))]
        if isinstance(e, InitGame):
            self.new_hand(e.dealer)
            return []
        if isinstance(e, Exit):
            s = e.scores
            east = self.dealer
            by_wind = [s[(east - 1 + i) % 4] for i in range(4)]
            return [m.CMsgSettlement(by_wind[0], by_wind[1], by_wind[2], by_wind[3], "")]
        return []

    def _gong(self, e: Gong) -> list[Message]:
        if e.mode == 4:  # melded, on the discard in play
            serial = self.discard[0] if self.discard else 0
            return [m.CMsgPlayerClaimsKong(e.seat, serial), m.CMsgPlayerKongs(e.seat, code_of(e.tiles[0]))]
        self.serial += 1
        if e.mode == 1:
            self.discard = (self.serial, e.seat, e.tiles[0])
            return [m.CMsgPlayerAddsToPung(e.seat, code_of(e.tiles[0]), self.serial)]
        if e.tiles:  # concealed: the owner's event names the tiles, and mj-server shows them to all
            self.discard = (self.serial, e.seat, e.tiles[0])
            return [m.CMsgPlayerDeclaresClosedKong(e.seat, code_of(e.tiles[0]), self.serial)]
        return []  # the others' copy of a concealed gong: mjref hides the tiles mj-server shows (see docs/xmj.md)


class Decisions:
    """The client's latest decision, and the answer it gives each question (see the module's docstring)."""

    def __init__(self) -> None:
        self.pending: Message | None = None

    def take(self, msg: Message) -> None:
        """A decision the client sent (anything that is not a decision is the seat's to handle)."""
        self.pending = msg

    def clear(self) -> None:
        self.pending = None

    def answer(self, q: Question, serial: int) -> Answer | None:
        """The answer to ``q`` from the pending decision, or None when none is pending (wait for the client).
        ``serial``: the serial of the discard (or robbable kong) in play.  Raises ``ClientFault`` for a decision
        that does not fit: a claim of another discard, a tile the client does not hold, a set it cannot make."""
        d = self.pending
        if d is None:
            return None
        own_turn = q.ask == "throw" or q.tile is None
        match d:
            case m.PMsgNoClaim(discard=s) | m.PMsgPung(discard=s) | m.PMsgKong(discard=s) | m.PMsgChow(discard=s):
                if own_turn:
                    raise ClientFault("wrong_answer", f"a claim of discard {s} when it is the client's own turn")
                if s != serial:
                    raise ClientFault("wrong_answer", f"a claim of discard {s}; the discard in play is {serial}")
            case m.PMsgMahJong(discard=s) if s != 0 and s != serial:
                raise ClientFault("wrong_answer", f"Mah-Jong on discard {s}; the discard in play is {serial}")
            case m.PMsgMahJong(discard=0) | m.PMsgDiscard() | m.PMsgDeclareClosedKong() | m.PMsgAddToPung() \
                    if not own_turn:
                raise ClientFault("wrong_answer", f"{d.NAME} when another player's discard is in play")
        if q.ask == "throw":
            if isinstance(d, m.PMsgDiscard):
                self.pending = None
                return _of_code(q, d.tile, "throw")
            raise ClientFault("wrong_answer", f"{d.NAME} when the client must discard")
        if q.ask == "hu":
            if isinstance(d, m.PMsgMahJong):
                self.pending = None
                return HU
            return PASS
        if q.ask == "gong":
            if isinstance(d, m.PMsgDeclareClosedKong | m.PMsgAddToPung | m.PMsgKong):
                self.pending = None
                code = getattr(d, "tile", None) or _code_of_question(q)
                return _of_code(q, code, "gong")
            return PASS
        if q.ask == "pong":
            if isinstance(d, m.PMsgPung):
                self.pending = None
                return _of_code(q, _code_of_question(q), "pong")
            return PASS
        if isinstance(d, m.PMsgChow):  # q.ask == "eat"
            self.pending = None
            return _eat(q, d.cpos)
        return PASS


def _code_of_question(q: Question) -> str:
    return code_of(q.tile) if q.tile is not None else "--"


def _of_code(q: Question, code: str, kind: str) -> Answer:
    """The first legal answer of ``kind`` whose tiles are of the face ``code`` (copies are alike to the client)."""
    for a in q.legal:
        if a.kind == kind and a.tiles and code_of(a.tiles[0]) == code:
            return a
    raise ClientFault("illegal", f"{kind} {code}: not a legal {kind} now")


def _eat(q: Question, cpos: str) -> Answer:
    assert q.tile is not None
    claimed = q.tile // 10
    want = {"Lower": (claimed + 1, claimed + 2), "Middle": (claimed - 1, claimed + 1),
            "Upper": (claimed - 2, claimed - 1)}
    eats = [a for a in q.legal if a.kind == "eat"]
    if cpos == "AnyPos":
        if len(eats) == 1:
            return eats[0]
        raise ClientFault("illegal", "Chow AnyPos when several chows are possible (name the position)")
    for a in eats:
        if tuple(t // 10 for t in a.tiles) == want[cpos]:
            return a
    raise ClientFault("illegal", f"Chow {cpos} of {code_of(q.tile)}: not a chow the client can make")


__all__ = ["ClientFault", "Decisions", "Translator", "code_of", "wind_letter"]

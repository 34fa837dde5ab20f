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
from referee.game.types import (
    HU,
    PASS,
    Answer,
    Declare,
    Eat,
    Event,
    Flower,
    Gong,
    Hu,
    InitGame,
    Mo,
    Pong,
    Question,
    Scored,
    Show,
    Throw,
)

from . import messages as m
from .messages import Message

_SUIT = {1: "C", 2: "B", 3: "D"}
_HONOUR = {41: "EW", 42: "WW", 43: "SW", 44: "NW", 45: "RD", 46: "GD", 47: "WD"}
_FLOWER = {k: (f"{k}S" if k <= 4 else f"{k - 4}F") for k in FLOWER_KINDS}
_WIND_LETTER = {"EAST": "E", "SOUTH": "S", "WEST": "W", "NORTH": "N"}


def code_of(tid: int) -> str:
    """The mj-server code of a TID's face; ``--`` for 0 (a tile this client does not see)."""
    code = _CODES.get(tid)
    if code is None:
        kind = tid // 10
        if tid == 0:
            code = "--"
        elif kind in _HONOUR:
            code = _HONOUR[kind]
        elif kind in _FLOWER:
            code = _FLOWER[kind]
        else:
            code = f"{kind % 10}{_SUIT[kind // 10]}"
        _CODES[tid] = code
    return code


_CODES: dict[int, str] = {}  # the codes found so far, by TID (a hand's 144 tiles)


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

    def __init__(self, flowers_loose: bool = False) -> None:
        self.flowers_loose = flowers_loose  # a flower is replaced from the loose tiles (else from the live wall)
        self.new_hand(1)

    def new_hand(self, dealer: int) -> None:
        self.serial = 0
        self.discard: tuple[int, int, int] | None = None  # (serial, seat, TID) of the discard in play
        self.kong_in_play = False  # that "discard" is a kong's tile (robbed, not claimed: ``PlayerRobsKong``)
        self.dealer = dealer
        self.claimed: int | None = None  # the winning discard (or robbed kong tile), once a hand is won on one
        self.scored: set[int] = set()  # the players whose HandScore was sent (the others' come with the result)
        self.dealing = True  # until this client's own InitCard
        self.deal_flowers: dict[int, list[int]] = {p: [] for p in (1, 2, 3, 4)}
        # The draw a player makes next and has not been shown yet ("live" or "loose"): mjref tells a seat of its
        # own draws only, and mj-server shows every draw (another's as ``--``).  A draw is shown when its player
        # next acts: a discard, a kong, a flower, Mah-Jong from the wall.
        self.owed: dict[int, str] = {}

    def deal(self, seat: int, tiles: Sequence[int], dealt: Sequence[int] | None = None,
             drawn: Sequence[int] = ()) -> tuple[list[Message], list[Message]]:
        """The deal as mj-server draws it (three rounds of four tiles each from East on, one each, and East's
        fourteenth; the others' tiles hidden), and the specials phase's messages (each flower declared, and its
        replacement drawn).  ``dealt`` and ``drawn``: the client's deal in the wall's order, flowers included,
        and its flowers' replacements in the order drawn (the engine's ``Dealt``); without them (``tiles``, the
        client's ``InitCard``, flowers already replaced) the client is dealt its flowers and all but as many of
        its tiles, and draws those as the replacements."""
        order = [(self.dealer - 1 + i) % 4 + 1 for i in range(4)]
        counts = {p: 14 if p == self.dealer else 13 for p in order}
        mine = list(self.deal_flowers[seat])
        held = list(tiles)
        if dealt is not None:
            own, replacements = list(dealt), list(drawn)
        else:
            replacements = held[len(held) - len(mine):] if mine else []
            own = held[: len(held) - len(mine)] + mine
        given = {p: 0 for p in order}
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
        specials: list[Message] = []
        draw = m.CMsgPlayerDrawsLoose if self.flowers_loose else m.CMsgPlayerDraws
        for p in order:
            for k, f in enumerate(self.deal_flowers[p]):
                specials.append(m.CMsgPlayerDeclaresSpecial(p, code_of(f)))
                specials.append(draw(p, code_of(replacements[k]) if p == seat else "--"))
        self.dealing = False
        return out, specials

    def _shown_draw(self, p: int, tile: int = 0) -> list[Message]:
        """The draw ``p`` owes, shown now (``tile``: what it drew, when this client may see it)."""
        kind = self.owed.pop(p, None)
        if kind is None:
            return []
        self.discard = None  # a draw: the discard before it is out of play
        return [(m.CMsgPlayerDrawsLoose if kind == "loose" else m.CMsgPlayerDraws)(p, code_of(tile))]

    def events(self, e: Event) -> list[Message]:
        """The messages mj-server broadcasts for the event ``e`` (none for an event it does not show)."""
        handle = _EVENTS.get(e.__class__)
        return handle(self, e) if handle is not None else []

    def _mo(self, e: Mo) -> list[Message]:
        self.discard = None
        self.owed.pop(e.seat, None)
        cls = m.CMsgPlayerDrawsLoose if e.replacement else m.CMsgPlayerDraws
        return [cls(e.seat, code_of(e.tile))]

    def _flower(self, e: Flower) -> list[Message]:
        if self.dealing:
            self.deal_flowers[e.seat].append(e.tile)
            return []
        out = [*self._shown_draw(e.seat, e.tile), m.CMsgPlayerDeclaresSpecial(e.seat, code_of(e.tile))]
        self.owed[e.seat] = "loose" if self.flowers_loose else "live"  # its replacement (own: the next Mo)
        return out

    def _throw(self, e: Throw) -> list[Message]:
        out = self._shown_draw(e.seat) if self.owed else []
        self.serial += 1
        self.discard = (self.serial, e.seat, e.tile)
        self.kong_in_play = False
        self.owed = {e.seat % 4 + 1: "live"}  # the next player draws, unless the discard is claimed
        out.append(m.CMsgPlayerDiscards(e.seat, code_of(e.tile), self.serial, False))
        return out

    def _pong(self, e: Pong) -> list[Message]:
        self.owed = {}
        serial = self.discard[0] if self.discard else 0
        return [m.CMsgPlayerClaimsPung(e.seat, serial), m.CMsgPlayerPungs(e.seat, code_of(e.tiles[0]))]

    def _eat(self, e: Eat) -> list[Message]:
        self.owed = {}
        serial, _, claimed = self.discard if self.discard else (0, 0, e.tiles[1])
        ranks = sorted(t // 10 for t in e.tiles)
        cpos = ("Lower", "Middle", "Upper")[ranks.index(claimed // 10)]
        return [m.CMsgPlayerClaimsChow(e.seat, serial, cpos), m.CMsgPlayerChows(e.seat, code_of(claimed), cpos)]

    def _gong_event(self, e: Gong) -> list[Message]:
        if e.mode == 4:
            self.owed = {}
        out = self._shown_draw(e.seat)
        out += self._gong(e)
        self.owed[e.seat] = "loose"  # its replacement, unless the kong is robbed
        return out

    def _hu(self, e: Hu) -> list[Message]:
        if self.discard is not None and self.discard[1] != e.seat and self.discard[2] == e.tile:
            self.claimed = self.discard[2]
            self.owed = {}
            # mj-server implements Mah-Jong on a kong's tile as the kong robbed, not as a discard taken
            won = m.CMsgPlayerRobsKong(e.seat, code_of(e.tile)) if self.kong_in_play \
                else m.CMsgPlayerMahJongs(e.seat, "--")
            return [m.CMsgPlayerClaimsMahJong(e.seat, self.discard[0]), won]
        self.claimed = None  # from the wall: the winner's draw first, if not shown yet
        drawn = self._shown_draw(e.seat)
        self.owed = {}
        return [*drawn, m.CMsgPlayerMahJongs(e.seat, code_of(e.tile))]

    def _declare(self, e: Declare) -> list[Message]:
        return [self._declared(e)]

    def _show(self, e: Show) -> list[Message]:
        return [m.CMsgPlayerShowsTiles(e.seat, tuple(code_of(t) for t in e.tiles))]

    def _scored(self, e: Scored) -> list[Message]:
        self.scored.add(e.seat)
        return [m.CMsgHandScore(e.seat, e.score, e.explanation)]

    def _init_game(self, e: InitGame) -> list[Message]:
        self.new_hand(e.dealer)
        return []

    def _declared(self, e: Declare) -> Message:
        """A set declared at the end of the hand, as mj-server announces it: the set the winning discard went to
        (``PlayerPungs``, ``PlayerChows``, ``PlayerPairs``, ``PlayerSpecialSet``), or a closed one
        (``PlayerFormsClosed*``)."""
        codes = [code_of(t) for t in e.tiles]
        if e.claimed and self.claimed is not None:
            tile = code_of(self.claimed)
            if len(codes) > 4:
                rest = list(codes)
                rest.remove(tile)
                return m.CMsgPlayerSpecialSet(e.seat, tile, tuple(rest))
            if len(codes) == 2:
                return m.CMsgPlayerPairs(e.seat, tile)
            if codes[0] == codes[1]:
                return m.CMsgPlayerPungs(e.seat, tile)
            ranks = sorted(t // 10 for t in e.tiles)
            return m.CMsgPlayerChows(e.seat, tile, ("Lower", "Middle", "Upper")[ranks.index(self.claimed // 10)])
        if len(codes) > 4:
            return m.CMsgPlayerFormsClosedSpecialSet(e.seat, tuple(codes))
        if len(codes) == 2:
            return m.CMsgPlayerFormsClosedPair(e.seat, codes[0])
        if codes[0] == codes[1]:
            return m.CMsgPlayerFormsClosedPung(e.seat, codes[0])
        return m.CMsgPlayerFormsClosedChow(e.seat, min(codes))

    def _gong(self, e: Gong) -> list[Message]:
        if e.mode == 4:  # melded, on the discard in play
            serial = self.discard[0] if self.discard else 0
            return [m.CMsgPlayerClaimsKong(e.seat, serial), m.CMsgPlayerKongs(e.seat, code_of(e.tiles[0]))]
        self.serial += 1
        if e.mode == 1:
            self.discard, self.kong_in_play = (self.serial, e.seat, e.tiles[0]), True
            return [m.CMsgPlayerAddsToPung(e.seat, code_of(e.tiles[0]), self.serial)]
        if e.tiles:  # concealed: the owner's event names the tiles, and mj-server shows them to all
            self.discard, self.kong_in_play = (self.serial, e.seat, e.tiles[0]), True
            return [m.CMsgPlayerDeclaresClosedKong(e.seat, code_of(e.tiles[0]), self.serial)]
        return []  # the others' copy of a concealed gong: mjref hides the tiles mj-server shows (see docs/xmj.md)


# What each event is in mj-server's words (an event of another type, such as ``Exit``, is none: the scores and the
# settlement come from the hand's result, the seat's ``hand_over``).  The events are final classes: their type is
# looked up, on a path that every event of every seat takes.
_EVENTS = {Mo: Translator._mo, Flower: Translator._flower, Throw: Translator._throw, Pong: Translator._pong,
           Eat: Translator._eat, Gong: Translator._gong_event, Hu: Translator._hu, Declare: Translator._declare,
           Show: Translator._show, Scored: Translator._scored, InitGame: Translator._init_game}


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
        if q.ask == "declare":
            self.pending = None
            return _declaration(q, d)
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


# The client messages that declare a set at the end of a hand: (claimed, shape) of the set each names.
DECLARATIONS = (m.PMsgFormClosedPung, m.PMsgFormClosedChow, m.PMsgFormClosedPair, m.PMsgFormClosedSpecialSet,
                m.PMsgPair, m.PMsgSpecialSet, m.PMsgShowTiles)


def _declaration(q: Question, d: Message) -> Answer:
    """The ``declare`` answer a client's declaration gives: ``ShowTiles`` is ``pass`` (a loser is done), a closed
    set (``FormClosedPung 5C``) or the set the winning discard goes to (``Pung 0``, ``Chow 0 Lower``, ``Pair``,
    ``SpecialSet``) is the legal answer of that shape; anything else does not answer the question."""
    match d:
        case m.PMsgShowTiles():
            if PASS in q.legal:
                return PASS
            raise ClientFault("illegal", "ShowTiles by the winner: a winner declares all its tiles")
        case m.PMsgFormClosedPung(tile=t):
            want, claimed = [t, t, t], False
        case m.PMsgFormClosedPair(tile=t):
            want, claimed = [t, t], False
        case m.PMsgFormClosedChow(tile=t):
            want, claimed = _chow_codes(t), False
        case m.PMsgFormClosedSpecialSet():
            want, claimed = [], False
        case m.PMsgPung(discard=0):
            want, claimed = ["pung"], True
        case m.PMsgPair():
            want, claimed = ["pair"], True
        case m.PMsgChow(discard=0, cpos=cpos):
            want, claimed = ["chow", cpos], True
        case m.PMsgSpecialSet():
            want, claimed = [], True
        case _:
            raise ClientFault("wrong_answer", f"{d.NAME} when the client must declare its sets")
    for a in q.legal:
        if a.kind != "declare" or (a.mode == 1) != claimed:
            continue
        codes = sorted(code_of(t) for t in a.tiles)
        if not want:  # a special set: all the tiles
            if len(codes) > 4:
                return a
        elif not claimed:
            if codes == sorted(want):
                return a
        elif _claimed_shape(a, q.tile) == tuple(want):
            return a
    raise ClientFault("illegal", f"{str(d)[:60]}: not a set the client can declare now")


def _chow_codes(t: str) -> list[str]:
    if len(t) == 2 and t[0] in "1234567" and t[1] in "CBD":
        return [t, f"{int(t[0]) + 1}{t[1]}", f"{int(t[0]) + 2}{t[1]}"]
    return [t, "?", "?"]


def _claimed_shape(a: Answer, claim: int | None) -> tuple[str, ...]:
    """The shape of a declare answer that takes the winning discard ``claim`` (one of ``a.tiles``), as a client
    names it: ``pung``, ``pair``, ``chow`` and the discard's place in it, or ``special``."""
    ranks = sorted(t // 10 for t in a.tiles)
    if len(ranks) == 2:
        return ("pair",)
    if len(ranks) == 3 and ranks[0] == ranks[1]:
        return ("pung",)
    if len(ranks) == 3 and claim is not None and claim // 10 in ranks:
        return ("chow", ("Lower", "Middle", "Upper")[ranks.index(claim // 10)])
    return ("special",)


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

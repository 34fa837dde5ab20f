"""The server half of mj-server's protocol for one client, as data: what mj-server says to a client at login and
before a hand, which of the table's messages the client sees and how, and which client message each of the
table's moves answers.

Everything here is pure (no socket, no clock): ``wrappers.xmj.seat`` does the I/O, and tests drive the same code
from mj-server's own hand histories.  The table is described in mj-server's words (``CMsg*`` records, player ids,
tile codes); a seat at an mjref table has its events translated into these first (``wrappers.xmj.translate``).

What mj-server does, found in its sources (controller.c) and checked against captured traffic:

* **Login.** The client sends ``Connect``; the server answers ``ConnectReply`` (its protocol version, the client's
  id, an empty reason), then one ``Player`` per other player.  When the table is full: ``Game`` (the seats by wind,
  the round, the scores), every ``GameOption`` and the ``End`` pseudo-option, ``Pause 0 0 to start hand`` and
  ``StartPlay 0``.  The client answers ``Ready`` (``mj-player`` also asks ``ListGameOptions 0``: answered with the
  same options again).
* **What a client sees.** Every message of the hand, but a draw of another player shows ``--`` for its tile, and
  another player's ``PlayerDoesntClaim`` is not sent.  A client whose claim loses to another's is told
  ``ClaimDenied <id> There was a prior claim`` just before the winning claim is implemented.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from referee.game.classical.options import GameOptions
from referee.game.classical.tiles import HIDDEN

from . import messages as m
from .codec import PROTOCOL_VERSION
from .messages import Message

PRIOR_CLAIM = "There was a prior claim"  # mj-server's reason when a claim loses to a claim of higher priority
START_HAND = "to start hand"
START_PLAY = "to start play"
NEXT_HAND = "to start next hand"

# The least protocol version of each GameOption (mj-server's game.c), in the order mj-server lists them.
OPTION_PROTOCOL: dict[str, int] = {
    "Timeout": 0, "TimeoutGrace": 0, "ScoreLimit": 0, "NoLimit": 0, "MahJongScore": 0, "SevenPairs": 1020,
    "SevenPairsVal": 1020, "Flowers": 1020, "FlowersLoose": 0, "FlowersOwnEach": 0, "FlowersOwnBoth": 0,
    "FlowersBouquet": 0, "DeadWall": 1020, "DeadWall16": 1020, "ConcealedFully": 0, "ConcealedAlmost": 0,
    "LosersPurity": 0, "KongHas3Types": 1034, "EastDoubles": 0, "LosersSettle": 0, "DiscDoubles": 0,
    "ShowOnWashout": 0, "NumRounds": 0,
}
END_OPTION = m.CMsgGameOption(0, "End", "bool", 0, 1, 1, "end of option list")


def option_messages(options: GameOptions) -> list[m.CMsgGameOption]:
    """The ``GameOption`` messages of a game's options, as mj-server lists them, with the ``End`` pseudo-option."""
    out: list[m.CMsgGameOption] = []
    for name, minprot in OPTION_PROTOCOL.items():
        kind = GameOptions.kind(name)
        desc = (GameOptions.model_fields[name].description or "").split(": ", 1)[1]
        value = getattr(options, name)
        out.append(m.CMsgGameOption(0, name, kind, minprot, 1, int(value), desc))
    out.append(END_OPTION)
    return out


def login_messages(client: int, names: dict[int, str]) -> list[Message]:
    """mj-server's answer to a client's ``Connect``: its id, and the other players (``names``: id → name)."""
    out: list[Message] = [m.CMsgConnectReply(PROTOCOL_VERSION, client, "")]
    out += [m.CMsgPlayer(pid, name) for pid, name in sorted(names.items()) if pid != client]
    return out


def game_messages(game: m.CMsgGame, options: Sequence[m.CMsgGameOption]) -> list[Message]:
    """What the table says once it is full, before the first hand: the game, its options, and the pause."""
    out: list[Message] = [game, *options]
    if not options or options[-1] != END_OPTION:
        out.append(END_OPTION)
    out += [m.CMsgPause(0, 0, START_HAND), m.CMsgStartPlay(0)]
    return out


# Messages by which the server implements a claim of the discard in play (the end of the other claims on it).
_IMPLEMENTS = frozenset({m.CMsgPlayerPungs, m.CMsgPlayerKongs, m.CMsgPlayerChows, m.CMsgPlayerMahJongs,
                         m.CMsgPlayerRobsKong})
_CLAIMS = frozenset({m.CMsgPlayerClaimsPung, m.CMsgPlayerClaimsKong, m.CMsgPlayerClaimsChow,
                     m.CMsgPlayerClaimsMahJong})
_DRAWS = frozenset({m.CMsgPlayerDraws, m.CMsgPlayerDrawsLoose})
# The messages ``View.see`` changes, drops or learns from; a client sees every other one as it is.  (The records
# are final classes: their type is looked up, not tested with ``isinstance``, on a path that sees every message.)
_WATCHED = _IMPLEMENTS | _CLAIMS | _DRAWS | {m.CMsgPlayerDoesntClaim, m.CMsgPlayerDiscards, m.CMsgNewHand}


class View:
    """Which of the table's messages one client sees, and how: ``see`` one message of the table, in order, and get
    the messages to send this client (none, the message, the message with a hidden tile, or a ``ClaimDenied``
    before it)."""

    def __init__(self, client: int) -> None:
        self.client = client
        self.claim: int | None = None  # the serial of the discard this client has claimed, until it is settled

    def see(self, msg: Message) -> list[Message]:
        me = self.client
        kind = msg.__class__
        if kind in _DRAWS:
            self.claim = None
            return [msg if msg.id == me else kind(msg.id, HIDDEN)]  # type: ignore[attr-defined, call-arg]
        if kind is m.CMsgPlayerDoesntClaim:
            return [msg] if msg.id == me else []  # type: ignore[attr-defined]
        if kind in _CLAIMS:
            if msg.id == me:  # type: ignore[attr-defined]
                self.claim = msg.discard  # type: ignore[attr-defined]
        elif kind in _IMPLEMENTS:
            denied = self.claim is not None and msg.id != me  # type: ignore[attr-defined]
            self.claim = None
            if denied:
                return [m.CMsgClaimDenied(me, PRIOR_CLAIM), msg]
        elif kind is m.CMsgPlayerDiscards or kind is m.CMsgNewHand:
            self.claim = None
        return [msg]

    def claimed(self, discard: int) -> None:
        """This client claimed ``discard`` (an mjref table announces only the claim that wins, where mj-server
        announces each): if another player's claim is implemented instead, the client is told ``ClaimDenied``."""
        self.claim = discard

    def see_all(self, msgs: Iterable[Message]) -> list[Message]:
        out: list[Message] = []
        for msg in msgs:
            if msg.__class__ in _WATCHED:
                out += self.see(msg)
            else:
                out.append(msg)
        return out


def client_message(msg: Message, client: int, *, scoring: bool) -> Message | None:
    """The client message that mj-server implements with the table's ``msg``, when it is this client's (None when
    ``msg`` is not a move of this client's, or is the server's own doing).  ``scoring``: after the hand's
    ``PlayerMahJongs``, when a pung, chow or pair names where the winning discard goes (a claim in play names the
    discard's serial; the claim itself is ``PlayerClaims*``, and ``PlayerPungs`` in play is its implementation)."""
    if getattr(msg, "id", None) != client:
        return None
    match msg:
        case m.CMsgPlayerReady():
            return m.PMsgReady()
        case m.CMsgPlayerDeclaresSpecial(tile=tile):
            return m.PMsgDeclareSpecial(tile)
        case m.CMsgPlayerDiscards(tile=tile, calling=calling):
            return m.PMsgDiscard(tile, calling)
        case m.CMsgPlayerDoesntClaim(discard=serial, timeout=False):
            return m.PMsgNoClaim(serial)
        case m.CMsgPlayerClaimsPung(discard=serial):
            return m.PMsgPung(serial)
        case m.CMsgPlayerClaimsKong(discard=serial):
            return m.PMsgKong(serial)
        case m.CMsgPlayerClaimsChow(discard=serial, cpos=cpos):
            return m.PMsgChow(serial, cpos)
        case m.CMsgPlayerClaimsMahJong(discard=serial):
            return m.PMsgMahJong(serial)
        case m.CMsgPlayerMahJongs(tile=tile) if tile != HIDDEN:
            return m.PMsgMahJong(0)  # from the wall
        case m.CMsgPlayerDeclaresClosedKong(tile=tile):
            return m.PMsgDeclareClosedKong(tile)
        case m.CMsgPlayerAddsToPung(tile=tile):
            return m.PMsgAddToPung(tile)
        case m.CMsgPlayerFormsClosedPung(tile=tile):
            return m.PMsgFormClosedPung(tile)
        case m.CMsgPlayerFormsClosedChow(tile=tile):
            return m.PMsgFormClosedChow(tile)
        case m.CMsgPlayerFormsClosedPair(tile=tile):
            return m.PMsgFormClosedPair(tile)
        case m.CMsgPlayerFormsClosedSpecialSet():
            return m.PMsgFormClosedSpecialSet()
        case m.CMsgPlayerShowsTiles():
            return m.PMsgShowTiles()
        case m.CMsgPlayerPairs() if scoring:
            return m.PMsgPair()
        case m.CMsgPlayerSpecialSet() if scoring:
            return m.PMsgSpecialSet()
        case m.CMsgPlayerPungs() if scoring:
            return m.PMsgPung(0)
        case m.CMsgPlayerChows(cpos=cpos) if scoring:
            return m.PMsgChow(0, cpos)
    return None

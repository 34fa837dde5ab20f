"""``XmjSeat``: a seat played by a client of mj-server's protocol (``mj-player``, or a person's ``xmj``), behind the
same ``Seat`` door as process, remote and human seats.  The match does not know which protocol a seat speaks.

The seat is mj-server for its one client: it accepts the client's connection (``XmjConnection`` over any trio
stream: a per-seat unix socket, or TCP for ``--xmj-listen``), logs it in as mj-server does, turns the events it is
delivered into mj-server's messages (``translate.Translator``, then ``table.View`` for what this client may see),
and answers each question from the client's own decision (``translate.Decisions``).  Faults are those of every
seat: a message that does not parse is ``garbage``, a decision that does not answer the question ``wrong_answer``,
a tile or set the client cannot play ``illegal``, silence past the deadline ``timeout``, a connection that drops
``disconnected``.

What is not translated (docs/xmj.md, "Not supported yet"): ``QueryMahJong``, reconnection, and mj-server's
informational messages (``DangerousDiscard``, the announcement of a claim that loses; the claimant itself is told
``ClaimDenied``).
"""

from __future__ import annotations

import math
import os
import shutil
import socket
import struct
import tempfile
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import trio

from referee.errors import printable
from referee.game.classical.options import GameOptions
from referee.game.types import Dealt, Event, Gong, Hu, InitCard, InitGame, Question, Throw

from .. import sandbox
from ..codec import cut
from ..process import ENDED_WAIT, STDERR_TAIL, BotProcess, Box, BoxError, end_box
from ..seat import Fault, FaultKind, HandInfo, Reply, Seat
from ..spec import BotSpec
from . import messages as m
from .codec import PROTOCOL_VERSION, Framer, XmjProtocolError, parse_client, version_refusal, write
from .messages import Message
from .table import NEXT_HAND, START_PLAY, View, game_messages, login_messages, option_messages
from .translate import DECLARATIONS, ClientFault, Decisions, Translator, code_of, wind_letter

if TYPE_CHECKING:
    from referee.game.engine import HandResult

LOGIN_TIMEOUT = 30.0  # seconds for a client to connect and send Connect once started (a start grace, not a move)
READ_SIZE = 65536
_DECISIONS = frozenset({m.PMsgDiscard, m.PMsgNoClaim, m.PMsgPung, m.PMsgKong, m.PMsgChow, m.PMsgMahJong,
                        m.PMsgDeclareClosedKong, m.PMsgAddToPung, *DECLARATIONS})
# The decisions that claim the discard in play (or rob the kong in play): a claim that loses is told ``ClaimDenied``.
_CLAIMS = frozenset({m.PMsgPung, m.PMsgKong, m.PMsgChow, m.PMsgMahJong})
WASHOUT = "wall exhausted"  # the reason a washout is given (a hand with no winner)


class ClientGone(Exception):
    """The client's connection ended (or broke)."""


class XmjConnection:
    """One client's connection: messages out, messages in, strictly (``XmjProtocolError`` for a bad one).

    On a socket both ways go straight to its file descriptor and wait only when they must: a message already
    read, or bytes the socket takes at once, cost no pass through trio's scheduler (in an xmj match that pass,
    made twice per message by trio's stream methods, was a sixth of the referee's time).  A client that keeps
    the referee reading without a wait still lets it reach a checkpoint every ``STREAK`` messages, so that a
    deadline fires."""

    STREAK = 64

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.framer = Framer()
        self.queue: deque[str] = deque()
        # a socket stream's own socket, read and written through its descriptor, asked for at each use: once the
        # socket is closed (a door closing a stranger's connection) its number may be another connection's
        self._sock = getattr(stream, "socket", None)
        self._held: Message | None = None  # a message taken and put back (``hold``), the next one ``take`` gives
        self._streak = 0  # messages ``receive`` gave in a row without a wait
        self._unsent = b""  # posted bytes the socket did not take at once, sent first by the next ``send``
        self._sending = False  # a ``send`` waits for the socket: ``post`` then only queues
        self._broken: str | None = None  # why a ``post`` found the connection broken
        self._error: Exception | None = None  # what ``ready_here`` found wrong: the next ``take`` raises it

    def post(self, msgs: Sequence[Message]) -> None:
        """Send ``msgs`` without waiting: what the socket takes at once goes now, the rest with the next ``send``
        (a broken connection is told by that ``send``)."""
        data = self._unsent + b"".join(map(write, msgs))
        if not data:
            return  # nothing to send (an outbox emptied before): no empty write
        self._unsent = b""
        if self._sending or self._broken is not None or self._sock is None:
            self._unsent = data
            return
        fd = self._sock.fileno()
        if fd < 0:
            self._broken, self._unsent = "the connection is closed", data
            return
        try:
            sent = os.write(fd, data)  # the socket is non-blocking (trio's)
        except BlockingIOError:
            sent = 0
        except OSError as exc:
            self._broken, sent = exc.strerror or str(exc), 0
        self._unsent = data[sent:]

    @property
    def settled(self) -> bool:
        """Whether everything posted is on the wire (nothing waits for a ``send``)."""
        return not self._unsent and self._broken is None

    async def send(self, msgs: Sequence[Message]) -> None:
        """Send ``msgs`` after what was posted, waiting for the socket only if it does not take them at once."""
        self.post(msgs)
        if self._broken is not None:
            raise ClientGone(f"the connection broke ({self._broken})")
        data, self._unsent = self._unsent, b""
        if not data:
            return
        self._sending = True
        try:
            while data:
                await self.stream.send_all(data)
                data, self._unsent = self._unsent, b""  # posted while this send waited
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            raise ClientGone(f"the connection broke ({exc})") from None
        finally:
            self._sending = False

    def take(self) -> Message | None:
        """The client's next message if it is already here (read from the socket without waiting), else None."""
        if self._held is not None:
            msg, self._held = self._held, None
            return msg
        if self._error is not None:
            exc, self._error = self._error, None
            raise exc
        if not self.queue and self._sock is not None:
            try:
                data = os.read(self._fileno(), READ_SIZE)  # non-blocking (trio's socket)
            except BlockingIOError:
                return None
            except OSError as exc:
                raise ClientGone(f"the connection broke ({exc.strerror or exc})") from None
            self._feed(data)
        return parse_client(self.queue.popleft()) if self.queue else None

    def ready_here(self) -> bool:
        """Whether the client's next message is ``Ready`` and here already (read without waiting): taken if so.
        Anything else is left for ``take`` and ``receive``: another message (put back), or what is wrong (a message
        that does not parse, a closed connection: raised by the next ``take``)."""
        if self._held is not None or self._error is not None:
            return False
        try:
            msg = self.take()
        except (XmjProtocolError, ClientGone) as exc:
            self._error = exc
            return False
        if msg is None:
            return False
        if msg.__class__ is m.PMsgReady:
            return True
        self._held = msg
        return False

    async def wait_readable(self) -> None:
        """Wait until the client has sent something (or closed): ``fill`` then reads it.  A socket stream only."""
        await trio.lowlevel.wait_readable(self._fileno())

    def fill(self) -> int:
        """Read what the client has sent so far into the queue, without waiting (a client that logged in and waits
        for its seat to be played: its messages are kept for the seat); how many are queued.  ``ClientGone`` if it
        closed the connection, ``XmjProtocolError`` for bytes that are no message."""
        if self._sock is None:
            return len(self.queue)
        try:
            data = os.read(self._fileno(), READ_SIZE)  # non-blocking (trio's socket)
        except BlockingIOError:
            return len(self.queue)
        except OSError as exc:
            raise ClientGone(f"the connection broke ({exc.strerror or exc})") from None
        self._feed(data)
        return len(self.queue)

    def _fileno(self) -> int:
        assert self._sock is not None
        fd = self._sock.fileno()
        if fd < 0:
            raise ClientGone("the connection is closed")
        return fd

    def hold(self, msg: Message) -> None:
        """Put back a message taken: ``take`` and ``receive`` give it next."""
        self._held = msg

    def _feed(self, data: bytes) -> None:
        if not data:
            raise ClientGone("the client closed the connection")
        self.framer.feed(data)
        self.queue.extend(self.framer.messages())

    async def receive(self) -> Message:
        """The client's next message (waits; the caller bounds the wait)."""
        while True:
            if self._streak >= self.STREAK:
                self._streak = 0
                await trio.lowlevel.checkpoint()
            msg = self.take()
            if msg is not None:
                self._streak += 1
                return msg
            self._streak = 0
            try:
                if self._sock is not None:
                    await trio.lowlevel.wait_readable(self._fileno())
                else:
                    self._feed(bytes(await self.stream.receive_some(READ_SIZE)))
            except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                raise ClientGone(f"the connection broke ({exc})") from None

    async def close(self) -> None:
        await self.stream.aclose()


class XmjSeat(Seat):
    """One position played by an mj-server-protocol client, on the connection ``client`` opens; ``names`` are the
    table's players by position, ``options`` the game's."""

    kind = "xmj"

    def __init__(self, name: str, position: int, *, names: dict[int, str], options: GameOptions,
                 client: Client, timeout: float | None = None) -> None:
        self.name = name
        self.position = position
        self.names = names
        self.options = options
        self.client = client
        self.timeout = timeout
        self.conn: XmjConnection | None = None
        self.translator = Translator(flowers_loose=bool(options.FlowersLoose))
        self.decisions = Decisions()
        self.view = View(position)
        self.outbox: list[Message | _Await] = []
        self.info: HandInfo | None = None
        self.hands = 0
        self.scores = [0, 0, 0, 0]
        self.first_east: int | None = None
        self.dealing = False
        self.between_hands = False  # the hand is over and the client not yet Ready for the next
        self.round_wind = ""  # the round of the last hand
        self.init_card: tuple[int, ...] | None = None  # the client's InitCard, until its deal is sent
        self.prompted = False  # the outbox has a message the client answers with a decision (``_PROMPTS``)
        self.awaiting = False  # the outbox waits for the client's Ready (an ``_Await``): ``delivered`` looks for it
        self.paused = False  # the hand's end (its ``Pause``) was posted by ``end_hand_nowait``, not all taken yet
        self.late_fault: Fault | None = None  # a fault found after a hand's end (its close), charged at the next
        self.specials: list[Message] = []  # flowers declared in the deal, shown when the deal is over
        self.acknowledged: set[int] = set()  # the hand's discards whose no-claim was acknowledged

    # ------------------------------------------------------------------------------------------- the hand
    def question_timeout(self, info: HandInfo) -> float | None:
        return self.timeout or info.timeout

    async def begin_hand(self, info: HandInfo) -> Fault | None:
        self.info = info
        self.view = View(self.position)
        self.decisions.clear()
        self.acknowledged.clear()
        self.paused = False  # (a hand ended on the way out, its ``end_hand`` never awaited: this hand's is told)
        if self.late_fault is not None:  # found at the end of the last hand: this hand is the stand-in's
            fault, self.late_fault = self.late_fault, None
            return fault
        return await self._connect() if self.conn is None else None

    async def prepare(self) -> None:
        """The client started and logged in before the first hand, beside the other seats' (a fault is charged at
        the first hand's start)."""
        if self.conn is None and self.late_fault is None:
            self.late_fault = await self._connect()

    async def _connect(self) -> Fault | None:
        """Start the client, take its connection and log it in; the fault if that fails.  What was queued for a
        client before (the scores of a hand it left) is not for this one: it learns the scores at its login."""
        self.outbox = []
        self.prompted = self.awaiting = False
        fault: Fault | None = None
        try:
            with trio.fail_after(LOGIN_TIMEOUT):
                self.conn = await self.client.open()
                hello = await self.conn.receive()
                if not isinstance(hello, m.PMsgConnect):
                    fault = Fault("wrong_answer", f"the client's first message is {hello.NAME}, not Connect")
                elif (refusal := version_refusal(hello.pvers)) is not None:
                    await self.conn.send([m.CMsgConnectReply(PROTOCOL_VERSION, 0, refusal)])
                    fault = Fault("start_failed", f"the client speaks protocol {hello.pvers}: {refusal}")
                else:
                    await self.conn.send(login_messages(self.position, self.names))
        except trio.TooSlowError:
            fault = Fault("start_failed", f"the client did not connect and log in within {LOGIN_TIMEOUT:g} s")
        except XmjProtocolError as exc:
            fault = Fault("garbage", str(exc))
        except ClientGone as exc:
            fault = Fault(self.client.gone, str(exc))
        except OSError as exc:
            fault = Fault("start_failed", f"cannot start the client: {exc}")
        if fault is not None:
            await self._drop()  # the next hand starts the client anew
            await self.client.stop()
        return fault

    def deliver(self, event: Event) -> None:
        kind = event.__class__  # (the events are final classes)
        if kind is InitGame:
            self._init_game(event)  # type: ignore[arg-type]
            return
        if kind is InitCard:
            if event.seat == self.position:  # type: ignore[attr-defined]
                self.init_card = event.tiles  # type: ignore[attr-defined]  # dealt at the Dealt that follows
            return
        if kind is Dealt:
            self._deal(event)  # type: ignore[arg-type]
            return
        if self.init_card is not None:  # no Dealt (a seat that does not declare): the InitCard's tiles
            self._deal(None)
        if self.dealing and kind in _PLAY:
            self._end_of_deal()
        self._out(self.translator.events(event))

    def _deal(self, e: Dealt | None) -> None:
        tiles, self.init_card = self.init_card or (), None
        if e is None:
            dealt, self.specials = self.translator.deal(self.position, tiles)
        else:
            dealt, self.specials = self.translator.deal(self.position, tiles, e.tiles, e.replacements)
        self._out(dealt)
        self.dealing = True

    def hand_over(self, result: HandResult) -> None:
        """The hand's end as mj-server tells it: a washout, or every player's ``HandScore`` (its score and the
        explanation) and the ``Settlement`` (the changes by wind from East, and the explanation).  Until the client
        is Ready for the next hand, what it decides is about this one, and is dropped."""
        self.between_hands = True
        if result.outcome != "win":
            self._out([m.CMsgWashOut(WASHOUT)])
            return
        detail = result.detail
        players = getattr(detail, "players", ())
        winner = result.wins[0].seat
        order = [winner, *(q for q in (1, 2, 3, 4) if q != winner)]
        by_seat = {ps.seat: ps for ps in players}
        out: list[Message] = [m.CMsgHandScore(q, by_seat[q].score, "\n".join(by_seat[q].explanation))
                              for q in order if q in by_seat and q not in self.translator.scored]
        dealer = self.translator.dealer
        ch = [result.scores[(dealer - 1 + i) % 4] for i in range(4)]
        out.append(m.CMsgSettlement(ch[0], ch[1], ch[2], ch[3], "\n".join(getattr(detail, "settlement", ()))))
        for q in (1, 2, 3, 4):
            self.scores[q - 1] += result.scores[q - 1]
        self._out(out)

    def _init_game(self, e: InitGame) -> None:
        self.translator.new_hand(e.dealer)
        seats = [(e.dealer - 1 + i) % 4 + 1 for i in range(4)]
        if self.first_east is None:
            self.first_east = e.dealer
        by_wind = [self.scores[p - 1] for p in seats]
        game = m.CMsgGame(seats[0], seats[1], seats[2], seats[3], wind_letter(e.round_wind), e.cont,
                          self.first_east, by_wind[0], by_wind[1], by_wind[2], by_wind[3],
                          PROTOCOL_VERSION, 0)
        if self.hands == 0:
            self.outbox += game_messages(game, option_messages(self.options))
        self.outbox.append(_Await("Ready"))
        self.awaiting = True
        self.outbox += [m.CMsgPlayerReady(p) for p in seats]
        if self.hands and e.round_wind != self.round_wind:  # (the first hand's round is in its Game)
            self.outbox.append(m.CMsgNewRound(wind_letter(e.round_wind)))
        self.round_wind = e.round_wind
        self.outbox.append(m.CMsgNewHand(e.dealer, 0, 0))
        self.hands += 1

    def _end_of_deal(self) -> None:
        """The specials phase, as mj-server runs it, from East: each player's flowers and their replacements, then
        its ``PlayerDeclaresSpecial <id> --``; then the pause to start play (East, who discards first, exempt)."""
        dealer = self.translator.dealer
        for i in range(4):
            p = (dealer - 1 + i) % 4 + 1
            own = [x for x in self.specials if getattr(x, "id", None) == p]
            self._out([*own, m.CMsgPlayerDeclaresSpecial(p, "--")])
        self.specials = []
        self.dealing = False
        self.outbox.append(m.CMsgPause(dealer, 0, START_PLAY))
        if self.position != dealer:
            self.outbox.append(_Await("Ready"))
            self.awaiting = True
        self.outbox += [m.CMsgPlayerReady(p) for p in (1, 2, 3, 4) if p != dealer]

    def _out(self, msgs: Sequence[Message]) -> None:
        seen = self.view.see_all(msgs)
        self.outbox += seen
        if self.prompted:
            return
        for x in seen:
            kind = x.__class__
            if kind in _PROMPTS:  # another player's discard or kong (the client's own asks it nothing)
                if x.id != self.position:  # type: ignore[attr-defined]
                    self.prompted = True
                    return
            elif kind in _DECLARING_PROMPTS and self.translator.scored and not self.between_hands:
                # the winner has scored: its score prompts a loser's first set, a set of the loser's own its next
                if (x.id == self.position) is (kind is not m.CMsgHandScore):  # type: ignore[attr-defined]
                    self.prompted = True
                    return

    posts_early = True

    def delivered(self) -> None:
        """An outbox that asks the client to decide (a discard to claim, a kong to rob, a loser's next set) goes at
        once, as mj-server sends it: the client decides while the others are asked.  So does one that waits for the
        client's ``Ready`` (a new hand's deal, the pause to start play) once that ``Ready`` is here: the four clients
        take in their deals side by side, as mj-server deals them, not each at its first question.  Each goes up to
        a ``Ready`` not here yet; the rest waits for the seat's next question, in one write."""
        conn = self.conn
        if conn is None or not (self.prompted or self.awaiting):
            return
        self.prompted = False
        outbox = self.outbox
        while True:
            upto = 0
            for x in outbox:
                if x.__class__ is _Await:
                    break
                upto += 1
            if upto:
                conn.post(outbox[:upto])  # type: ignore[arg-type]
                del outbox[:upto]
            if not outbox:
                self.awaiting = False
                return
            if not conn.ready_here():
                return
            del outbox[0]  # the Ready it waited for
            self.between_hands = False

    async def _flush(self, deadline: float) -> None:
        """Send the outbox; at each ``_Await`` wait (until ``deadline``) for the client's message it names."""
        assert self.conn is not None
        batch: list[Message] = []
        for item in self.outbox:
            if item.__class__ is _Await:
                await self.conn.send(batch)
                batch = []
                await self._until_ready(deadline)
            else:
                batch.append(item)
        self.outbox = []
        self.awaiting = False
        await self.conn.send(batch)

    async def _until_ready(self, deadline: float) -> None:
        assert self.conn is not None
        with trio.fail_at(deadline):
            while True:
                msg = await self.conn.receive()
                if isinstance(msg, m.PMsgReady):
                    self.between_hands = False
                    return
                await self._aside(msg)

    async def _aside(self, msg: Message) -> None:
        """A client message that decides nothing: answered as mj-server answers it, or left aside."""
        assert self.conn is not None
        if isinstance(msg, m.PMsgListGameOptions):
            await self.conn.send(option_messages(self.options))
        elif msg.__class__ in _DECISIONS:
            self._decision(msg, None, self.translator.discard[0] if self.translator.discard else 0)
        # Ready twice, DeclareSpecial (mjref declares flowers itself), chat, options: nothing to do

    async def ask(self, question: Question) -> Reply:
        started = time.perf_counter()
        limit = self.question_timeout(self.info) if self.info else None
        if self.conn is None:
            return Reply(None, 0.0, fault=Fault("disconnected", "the client is not connected"))
        serial = self.translator.discard[0] if self.translator.discard else 0
        if self.dealing:
            self._end_of_deal()  # East is asked to discard before any discard ends the deal
        self._drop_stale(question, serial)
        try:
            reply = self._answer_now(question, serial, started)
            if reply is not None:
                return reply
            # a bare cancel scope, not ``fail_at``: its context manager cost a tenth of the referee's time in an
            # xmj match (and most questions are answered above, by a decision already read, with no scope at all)
            deadline = trio.current_time() + (limit if limit else math.inf)
            with trio.CancelScope(deadline=deadline):
                await self._flush(deadline)
                self._drop_stale(question, serial)
                while True:
                    reply = self._answer(question, serial, started)
                    if reply is not None:
                        return reply
                    msg = await self.conn.receive()
                    if msg.__class__ in _DECISIONS:
                        self._decision(msg, question, serial)
                    else:
                        await self._aside(msg)
        except trio.TooSlowError:  # the deadline passed in a wait for a Ready in the outbox (``_until_ready``)
            pass
        except XmjProtocolError as exc:
            return Reply(None, time.perf_counter() - started, fault=Fault("garbage", str(exc)))
        except ClientGone as exc:
            await self._drop()
            return Reply(None, time.perf_counter() - started, fault=Fault("disconnected", str(exc)))
        return Reply(None, time.perf_counter() - started,  # the deadline passed
                     fault=Fault("timeout", f"no decision within {limit:g} s" if limit else "no decision"))

    def _answer_now(self, question: Question, serial: int, started: float) -> Reply | None:
        """The answer without a wait, if the client's decision is already here: the outbox (if it waits for no
        ``Ready``) goes on the wire as the socket takes it, and the messages read so far are taken, up to the
        first that needs a wait (an aside, put back) or ``XmjConnection.STREAK`` of them.  None: ``ask`` waits."""
        conn = self.conn
        assert conn is not None
        if self.outbox:
            if any(type(x) is _Await for x in self.outbox):
                return None
            conn.post(self.outbox)  # type: ignore[arg-type]
            self.outbox = []
        if not conn.settled:
            return None
        for _ in range(conn.STREAK):
            reply = self._answer(question, serial, started)
            if reply is not None:
                return reply
            msg = conn.take()
            if msg is None:
                return None
            if msg.__class__ not in _DECISIONS:
                conn.hold(msg)
                return None
            self._decision(msg, question, serial)
        return None

    def _answer(self, question: Question, serial: int, started: float) -> Reply | None:
        """The reply if the decisions taken answer ``question`` (or break the protocol), else None."""
        try:
            answer = self.decisions.answer(question, serial)
        except ClientFault as exc:
            line = str(self.decisions.pending)
            self.decisions.clear()
            return Reply(None, time.perf_counter() - started, line=cut(line),
                         fault=Fault(exc.kind, exc.detail))  # type: ignore[arg-type]
        if answer is not None:
            return Reply(answer, time.perf_counter() - started, line=str(answer))
        return None

    def _decision(self, msg: Message, question: Question | None, serial: int) -> None:
        """Take the client's decision, unless it is about a discard already gone (a late no-claim, a claim that
        lost to another).  A no-claim is acknowledged as mj-server does (``PlayerDoesntClaim`` to the client), in
        the outbox: it goes with what the client is sent next, in one write, and nothing waits for it (read when the
        seat is asked about that discard, before the discard's outcome; read later, after it).  Once a discard: a
        client that repeats its no-claim gets no more to read than one."""
        if self.between_hands:
            return  # a decision about the hand that is over, sent before the client's Ready for the next
        if msg.__class__ is m.PMsgNoClaim and 0 < msg.discard <= self.translator.serial \
                and msg.discard not in self.acknowledged:
            # (any discard made so far: a no-claim read at the seat's own turn, when no discard is in play, is
            # acknowledged too; a client's game ignores an acknowledgement of a discard gone by)
            self.acknowledged.add(msg.discard)
            self.outbox.append(m.CMsgPlayerDoesntClaim(self.position, msg.discard, False))
        if question is None or not _stale(msg, question, serial):
            self.decisions.take(msg)
            if msg.__class__ in _CLAIMS and 0 < msg.discard == serial:  # (a claim of the discard in play)
                self.view.claimed(serial)

    def _drop_stale(self, question: Question, serial: int) -> None:
        if self.decisions.pending is not None and _stale(self.decisions.pending, question, serial):
            self.decisions.clear()

    def end_hand_nowait(self) -> bool:
        """The hand's end told at once when nothing waits for the client (no ``Ready`` awaited, the socket taking
        what is posted): the match then awaits no ``end_hand`` of this seat."""
        conn = self.conn
        if conn is None:
            return True
        if self.awaiting or not conn.settled:
            return False
        self.outbox.append(m.CMsgPause(0, 0, NEXT_HAND))
        conn.post(self.outbox)  # type: ignore[arg-type]
        self.outbox = []
        if not conn.settled:  # the socket did not take it all (or broke): ``end_hand`` sends the rest, or tells
            self.paused = True
            return False
        self.decisions.clear()
        return True

    async def end_hand(self) -> None:
        if self.conn is None:
            return
        if not self.paused:
            self.outbox.append(m.CMsgPause(0, 0, NEXT_HAND))
        self.paused = False
        try:
            with trio.move_on_after(LOGIN_TIMEOUT):
                await self._flush(math.inf)
        except XmjProtocolError as exc:  # the seat's fault, charged at the next hand's start
            self.late_fault = Fault("garbage", str(exc))
            await self._drop()
        except ClientGone as exc:
            self.late_fault = Fault("disconnected", str(exc))
            await self._drop()
        self.decisions.clear()

    async def abandon(self) -> None:
        """After a fault the stand-in plays the rest of the hand.  A client that mjref started is ended at once and
        started anew at the next hand, as a process bot is: a client that went silent was given the Ready waits of
        the hand's end, half a minute each (``LOGIN_TIMEOUT``), twice a hand.  A person's connection (which cannot be
        made again) is kept, and the hand's end told as to any seat."""
        if self.client.restarts:
            await self._drop()
        else:
            await self.end_hand()

    async def _drop(self) -> None:
        """The connection is gone or unusable: its client is stopped (the next hand starts a new one)."""
        conn, self.conn = self.conn, None
        if conn is not None:
            with trio.CancelScope(shield=True):
                await conn.close()
                await self.client.stop()

    async def close(self) -> None:
        if self.conn is not None:
            with trio.move_on_after(1.0):
                try:
                    await self.conn.send([m.CMsgGameOver()])
                except ClientGone:
                    pass
            await self.conn.close()
            self.conn = None
        await self.client.stop()


# The moves that end the deal: East's first discard, or, before it, a kong declared or Mah-Jong on its dealt tiles
# (mj-server runs the specials phase and the pause to start play first).
_PLAY = frozenset({Throw, Gong, Hu})
# What a client answers with a claim or NoClaim (or, on a kong, by robbing it): sent as it happens.
_PROMPTS = frozenset({m.CMsgPlayerDiscards, m.CMsgPlayerAddsToPung, m.CMsgPlayerDeclaresClosedKong})
# What a losing client answers, once the winner has declared and scored, with its next declaration: the winner's
# score (its first), a set of its own declared (its next).  Sent as it happens: the losers declare side by side
# (``Hand.declaring``).
_DECLARING_PROMPTS = frozenset({m.CMsgHandScore, m.CMsgPlayerFormsClosedPair, m.CMsgPlayerFormsClosedPung,
                                m.CMsgPlayerFormsClosedChow, m.CMsgPlayerFormsClosedSpecialSet, m.CMsgPlayerPairs,
                                m.CMsgPlayerSpecialSet, m.CMsgPlayerPungs, m.CMsgPlayerChows})


def _stale(msg: Message, question: Question, serial: int) -> bool:
    """A claim of a discard that is no longer in play: an earlier one, or any when it is the client's turn (at
    the end of a hand, a claim of any discard: the sets are declared with serial 0)."""
    kind = msg.__class__
    if question.ask == "declare":
        return (kind in _ON_DISCARD or kind is m.PMsgMahJong) and msg.discard != 0  # type: ignore[attr-defined]
    if kind in _DECLARED or ((kind is m.PMsgPung or kind is m.PMsgChow) and msg.discard == 0):  # type: ignore[attr-defined]
        return True  # a declaration of a hand that is over (the seat asks no more once a loser has shown)
    if kind in _ON_DISCARD or (kind is m.PMsgMahJong and msg.discard):  # type: ignore[attr-defined]
        return question.ask == "throw" or question.tile is None or msg.discard < serial  # type: ignore[attr-defined]
    return False


# The decisions about a discard in play (Mah-Jong on one names its serial too), and the declarations of sets at the
# end of a hand.  The records are final classes: their types are looked up.
_ON_DISCARD = frozenset({m.PMsgNoClaim, m.PMsgPung, m.PMsgKong, m.PMsgChow})
_DECLARED = frozenset(DECLARATIONS)


class _Await:
    """In an outbox: wait here for the client's message ``what`` (``Ready``) before sending on."""

    def __init__(self, what: str) -> None:
        self.what = what


class Client(Protocol):
    """How a seat gets its client's connection: ``await client.open()`` (a client started, its connection taken),
    and ``await client.stop()`` when the match is over.  ``gone``: the fault of a hand whose client is not there
    (``ClientGone`` from ``open``).  ``restarts``: whether ``open`` after ``stop`` starts the client anew (one that
    mjref starts), so that a client at fault is ended at once, as a process bot is (``XmjSeat.abandon``)."""

    gone: FaultKind
    restarts: bool

    async def open(self) -> XmjConnection: ...

    async def stop(self) -> None: ...


class BoxedClient:
    """Start the client program (``spec``: mj-player, or xmj) in a box as every bot is started (``wrappers.sandbox``:
    never root, no network, its limits), with one thing from outside: the folder of a fresh unix socket of its own,
    bound read-only (a socket needs no write to be connected to), on which it logs in.  mj-player and xmj take
    ``--server PATH --id N --name NAME``."""

    gone: FaultKind = "start_failed"  # mjref starts it: a client that is not there could not be started
    restarts = True

    def __init__(self, spec: BotSpec, position: int, name: str, nursery: trio.Nursery, *, mode: str | None = None,
                 hands: int | None = None) -> None:
        assert spec.cmd is not None
        self.spec = spec
        self.position = position
        self.name = name
        self._nursery = nursery
        self._mode = mode
        self._hands = hands
        self._folder: Path | None = None
        self.path: Path | None = None  # its socket, while it is open
        self._scratch: Path | None = None
        self._box: Box | None = None
        self._proc: BotProcess | None = None

    async def open(self) -> XmjConnection:
        await self.stop()  # a client started before (its connection dropped) is ended first
        self._folder = Path(tempfile.mkdtemp(prefix="mjref-xmj-"))
        path = self.path = self._folder / "socket"
        listener = trio.socket.socket(trio.socket.AF_UNIX, trio.socket.SOCK_STREAM)
        try:
            assert self.spec.cmd is not None
            cmd = (*self.spec.cmd, "--server", str(path), "--id", str(self.position), "--name", self.name)
            spec = self.spec.model_copy(update={"cmd": cmd, "cwd": str(self._folder), "keep_alive": True})
            self._scratch = Path(tempfile.mkdtemp(prefix="mjref-seat-"))
            self._folder.chmod(0o755)  # as planned: a folder the bot's uid may enter, not one copied for it
            launch = sandbox.plan(spec, self._scratch, mode=self._mode, hands=self._hands)
            if launch.uid is not None:  # as root the client runs as the seat's own uid (and as its gid): no other
                os.chown(self._folder, 0, launch.uid)  # seat's uid may reach its socket
            self._folder.chmod(0o750 if launch.uid is not None else 0o700)  # before the socket is made
            await listener.bind(str(path))
            os.chmod(path, 0o777)  # the folder is the door
            listener.listen(1)
            self._box = box = await Box.open(launch, self._nursery)
            self._proc = proc = await box.spawn()
            tail = bytearray()  # the end of its stderr, which says why a client that ends before it connects ended
            read = trio.Event()  # its stderr read to the end
            if proc.stdout is not None:  # read and dropped: a full pipe would stop the client
                self._nursery.start_soon(_drain, proc.stdout)
            if proc.stderr is not None:
                self._nursery.start_soon(_drain, proc.stderr, tail, read)
            sock = await _accept_own(listener, box, launch.uid, proc)
            if sock is None:
                with trio.move_on_after(ENDED_WAIT):
                    await read.wait()
                ended = launch.describe_exit(proc.returncode, bytes(tail), proc.flags)
                said = bytes(tail).decode("utf-8", "replace").strip().splitlines()
                raise ClientGone(f"{cut(self.spec.cmd[0])} {ended} before it connected"
                                 + (f": {cut(printable(said[-1]), 200)}" if said else ""))
        except (sandbox.BotError, BoxError) as exc:
            raise ClientGone(f"cannot start {cut(self.spec.cmd[0])}: {exc}") from None
        finally:
            listener.close()
        return XmjConnection(trio.SocketStream(sock))

    async def stop(self) -> None:
        box, self._box = self._box, None
        if self._proc is not None:
            self._proc.signal("kill")
            self._proc = None
        if box is not None:
            await end_box(box, self._scratch)
        elif self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
        self._scratch = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


def _peer_in(sock: trio.socket.SocketType, box: Box, uid: int | None) -> bool:
    """Whether the process at the other end of ``sock`` (a unix socket; its credentials as of its connect) is one
    of ``box``'s, and runs as the seat's ``uid`` when it has one of its own."""
    pid, peer_uid, _ = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                           struct.calcsize("3i")))
    return (uid is None or peer_uid == uid) and pid > 0 and box.holds(pid)


async def _accept_own(listener: trio.socket.SocketType, box: Box, uid: int | None,
                      proc: BotProcess) -> trio.socket.SocketType | None:
    """The client's connection on ``listener`` (any other is closed: ``_peer_in``), or None once the client's
    process has ended without one (it is not waited for: a client that cannot start says so at once)."""
    got: list[trio.socket.SocketType] = []
    async with trio.open_nursery() as nursery:
        async def ended() -> None:
            await proc.wait()
            nursery.cancel_scope.cancel()

        nursery.start_soon(ended)
        while True:
            sock, _ = await listener.accept()
            if _peer_in(sock, box, uid):
                got.append(sock)
                nursery.cancel_scope.cancel()
                break
            sock.close()
    return got[0] if got else None


async def _drain(stream: trio.lowlevel.FdStream, tail: bytearray | None = None, read: trio.Event | None = None
                 ) -> None:
    """Read ``stream`` to its end, keeping its last ``STDERR_TAIL`` bytes in ``tail`` (if given); ``read`` is set
    at its end."""
    try:
        while data := await stream.receive_some(READ_SIZE):
            if tail is not None:
                tail += data
                del tail[:-STDERR_TAIL]
    except (trio.ClosedResourceError, trio.BrokenResourceError, OSError):
        pass
    finally:
        await stream.aclose()
        if read is not None:
            read.set()


__all__ = ["BoxedClient", "XmjConnection", "XmjSeat", "ClientGone", "code_of"]

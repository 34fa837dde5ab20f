"""``RemoteSeat``: a seat whose bot runs on another machine, behind a wrapper (``mjref connect``) logged in over a
WebSocket.  The match does not know the difference from a ``ProcessSeat``: the same lines, the same faults.

Three pieces, server side:

* ``Link``: one logged-in wrapper's connection.  It reads the wrapper's frames (strictly: a frame that is not a
  ``ready`` or ``reply`` closes the connection), measures the round trip with WebSocket pings (at login and every
  ``PING_INTERVAL`` seconds; a ping unanswered within ``PING_TIMEOUT`` ends the link), and says when it is gone.
  Every frame it sends has a deadline (``SEND_TIMEOUT``): a wrapper that does not read (its socket's buffers
  full, say of the pongs to its own pings) is cut, and holds up neither the match nor the other seats.
* ``Slot``: a remote bot's place at the server, by name; it holds the current link, if any, across matches and
  reconnections (``referee.server`` attaches links to it after login).
* ``RemoteSeat``: one position for one match, on a slot.  The deadline of every question runs here, at the server,
  and includes the network: the bot's timeout plus the ruleset's ``network_grace``.  A connection that drops
  mid-hand is a ``disconnected`` fault (the stand-in plays on); the seat plays again from the next hand for which
  its wrapper is back.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import trio
from trio_websocket import ConnectionClosed, WebSocketConnection

from referee.game.types import Event, Question

from . import messages as m
from .codec import cut, format_event
from .process import judge_line
from .seat import FAULT_KINDS, Fault, HandInfo, Reply, Seat
from .spec import BotSpec, seat_timeout
from .websocket import SEND_TIMEOUT, close_ws, ping

PING_INTERVAL = 5.0  # seconds between round-trip measurements of a logged-in wrapper
PING_TIMEOUT = 10.0  # a ping unanswered this long ends the link (a silent, half-open connection)
LOGIN_PINGS = 3  # round trips measured at login; the smallest is the link's first rtt
MAX_QUEUED = 32  # frames from a wrapper not yet read by its seat; more is a flood and ends the link
# The faults a wrapper may report for its bot's answer: what its own process seat can see.  Not what only the
# referee decides (``disconnected``; ``forfeit`` after max_faults, which a log that says it where the rules do not
# fails its replay), nor ``start_failed``, which ``ready`` reports: any other word is a ``crash``.
WRAPPER_FAULTS = frozenset(FAULT_KINDS) - {"disconnected", "forfeit", "start_failed"}


class Link:
    """One logged-in wrapper's connection, server side.  ``run`` reads it until it ends."""

    def __init__(self, ws: WebSocketConnection, name: str, peer: str) -> None:
        self.ws = ws
        self.name = name
        self.peer = peer
        self.rtt_ms: float | None = None
        self.gone = trio.Event()
        self.reason = ""  # why the link ended, for the server's log
        self._to_seat, self._from_wrapper = trio.open_memory_channel[m.Ready | m.Reply](MAX_QUEUED)
        self.on_rtt: Callable[[Link], None] | None = None
        self.asked = 0  # the number of the last question sent: a reply numbered above it answers nothing yet

    async def measure(self) -> float | None:
        """One round trip (a WebSocket ping and its pong), in ms; None if the link ended or it took too long."""
        started = time.perf_counter()
        if not await ping(self.ws, PING_TIMEOUT):
            return None
        self.rtt_ms = round((time.perf_counter() - started) * 1000, 3)
        if self.on_rtt is not None:
            self.on_rtt(self)
        return self.rtt_ms

    async def login_rtt(self) -> float | None:
        """The round trip at login: the best of a few pings (the first may pay for cold caches)."""
        best = math.inf
        for _ in range(LOGIN_PINGS):
            rtt = await self.measure()
            if rtt is None:
                return None
            best = min(best, rtt)
        self.rtt_ms = best
        return best

    async def send(self, message: m.Welcome | m.Seat | m.Hand | m.Ask | m.EndHand | m.Abandon | m.Unseat | m.Over
                   | m.Table | m.HandOver) -> bool:
        """Send one message; False if the connection is gone."""
        if self.gone.is_set():
            return False
        q = message.q if isinstance(message, m.Ask) else (
            message.ask.q if isinstance(message, m.Table) and message.ask is not None else None)
        if q is not None:
            self.asked = max(self.asked, q)  # before the send: its reply may be read before the send returns
        elif isinstance(message, m.Seat):
            self.asked = 0  # a match's seat numbers its questions from 1
        with trio.move_on_after(SEND_TIMEOUT):
            try:
                await self.ws.send_message(m.write(message))
            except ConnectionClosed:
                self._end("the connection closed")
                return False
            return True
        self._end(f"it did not read what it was sent for {SEND_TIMEOUT:g} s")
        await close_ws(self.ws, m.CLOSE_BAD_MESSAGE, wait=False)  # its close frame would wait behind the rest
        return False

    async def receive(self) -> m.Ready | m.Reply | None:
        """The wrapper's next message; None once the link has ended."""
        try:
            return await self._from_wrapper.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            return None

    async def close(self, code: int, reason: str) -> None:
        self._end(reason)
        await close_ws(self.ws, code)

    def _end(self, reason: str) -> None:
        if not self.gone.is_set():
            self.reason = reason
            self.gone.set()
            self._to_seat.close()

    async def run(self) -> None:
        """Read the wrapper's frames and measure the round trip, until the connection ends or is ended."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._pinger)
            try:
                await self._read()
            finally:
                nursery.cancel_scope.cancel()

    async def _read(self) -> None:
        while True:
            try:
                frame = await self.ws.get_message()
            except ConnectionClosed as exc:
                r = exc.reason
                # the reason is the wrapper's own text, shown in the server's log: escaped and cut
                self._end(f"the connection closed ({r.code}{' ' + cut(r.reason) if r and r.reason else ''})"
                          if r else "the connection closed")
                return
            try:
                message = m.read_client(frame)
            except m.BadMessage as exc:
                await self.close(m.CLOSE_BAD_MESSAGE, f"a bad frame: {exc}")
                return
            if isinstance(message, m.Hello):
                await self.close(m.CLOSE_BAD_MESSAGE, "a second hello")
                return
            if isinstance(message, m.Reply) and message.q > self.asked:
                continue  # an answer sent before its question: dropped (kept, it would be taken as given at once)
            try:
                self._to_seat.send_nowait(message)
            except trio.WouldBlock:
                await self.close(m.CLOSE_BAD_MESSAGE, f"more than {MAX_QUEUED} frames nobody asked for")
                return
            except trio.ClosedResourceError:
                return

    async def _pinger(self) -> None:
        while not self.gone.is_set():
            await trio.sleep(PING_INTERVAL)
            if await self.measure() is None and not self.gone.is_set():
                await self.close(m.CLOSE_BAD_MESSAGE, f"no pong within {PING_TIMEOUT:g} s")


class Slot:
    """A remote bot's place at the server: its name and its current link (if logged in)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.link: Link | None = None
        self.pending: Link | None = None  # logging in (welcome sent, round trip being measured)
        self.last_rtt_ms: float | None = None
        self._arrived = trio.Event()

    @property
    def connected(self) -> bool:
        return self.link is not None and not self.link.gone.is_set()

    def attach(self, link: Link) -> None:
        self.pending = None
        self.link = link
        self.last_rtt_ms = link.rtt_ms
        self._arrived.set()

    def detach(self, link: Link) -> None:
        if self.pending is link:
            self.pending = None
        if self.link is link:
            self.last_rtt_ms = link.rtt_ms
            self.link = None
            self._arrived = trio.Event()

    async def wait(self, seconds: float) -> Link | None:
        """The current link, waiting up to ``seconds`` for the wrapper to (re)connect."""
        with trio.move_on_after(seconds):
            while not self.connected:
                await self._arrived.wait()
                if not self.connected:  # attached and gone again at once
                    await trio.sleep(0)
        return self.link if self.connected else None


class RemoteSeat(Seat):
    """One position for one match, played by the wrapper logged in on ``slot``."""

    kind = "remote"

    def __init__(self, spec: BotSpec, position: int, slot: Slot, *, match: str, network_grace: float,
                 timeout: float | None = None) -> None:
        self.spec = spec
        self.name = spec.name
        self.position = position
        self.slot = slot
        self.match = match
        self.network_grace = network_grace
        self._timeout_override = timeout
        self._extensions = frozenset(spec.extensions)
        self._link: Link | None = None  # the link this match's seat was announced on (``seat`` message)
        self._outbox: list[str] = []
        self._q = 0
        self._timeout = 10.0
        self._start_grace = 10.0
        self._first_question = False
        self._playing = False  # the bot is playing this hand (false after a fault: the stand-in plays)
        self._fault: Fault | None = None  # the last fault the match recorded for this seat (told to the wrapper)

    @property
    def rtt_ms(self) -> float | None:  # type: ignore[override]
        link = self.slot.link
        return link.rtt_ms if link is not None else self.slot.last_rtt_ms

    def note_fault(self, kind: str, detail: str) -> None:
        """The match recorded a fault of this seat (the server's ``on_fault``): the wrapper is told why."""
        self._fault = Fault("crash", detail) if kind not in FAULT_KINDS else Fault(kind, detail)  # type: ignore[arg-type]

    def _gone(self, doing: str) -> Fault:
        link = self._link
        why = f": {link.reason}" if link is not None and link.reason else ""
        return Fault("disconnected", f"the wrapper of {self.name!r} is not connected ({doing}){why}")

    async def begin_hand(self, info: HandInfo) -> Fault | None:
        self._outbox.clear()
        self._playing = False
        self._fault = None
        self._timeout = self.question_timeout(info)
        self._start_grace = info.start_grace
        # A wrapper that dropped gets a start's worth of time to be back: reconnecting is its way of starting.
        link = self.slot.link if self.slot.connected else await self.slot.wait(info.start_grace)
        if link is None:
            return self._gone(f"at the start of hand {info.index + 1}")
        if link is not self._link:
            self._link = link
            seat = m.Seat(match=self.match, position=self.position, keep_alive=self.spec.keep_alive,
                          timeout=self._timeout)
            if not await link.send(seat):
                return self._gone("announcing the seat")
        hand = m.Hand(hand=info.index, seed=info.seed, position=info.position, flowers=info.flowers,
                      dead_wall=info.dead_wall, gong_from_previous_player=info.gong_from_previous_player,
                      seven_pairs_and_pung=info.seven_pairs_and_pung, timeout=self._timeout,
                      start_grace=info.start_grace)
        if not await link.send(hand):
            return self._gone(f"starting hand {info.index + 1}")
        limit = info.start_grace + self.network_grace
        ready: m.Ready | None = None
        with trio.move_on_after(limit):
            while ready is None:
                message = await link.receive()
                if message is None:
                    return self._gone(f"starting hand {info.index + 1}")
                if isinstance(message, m.Ready) and message.hand == info.index:
                    ready = message
        if ready is None:
            who = "the page" if self.spec.human else "the wrapper"  # a person plays from a page (wrappers.human)
            return Fault("timeout", f"{who} did not start hand {info.index + 1} within {limit:g} s")
        if ready.fault is not None:
            return Fault("start_failed", cut(f"{ready.fault}: {ready.detail or ''}"))
        self._first_question = ready.started
        self._playing = True
        return None

    def deliver(self, event: Event) -> None:
        line = format_event(event, extensions=self._extensions)
        if line is not None:
            self._outbox.append(line)

    async def ask(self, question: Question) -> Reply:
        link = self._link
        if not self._playing or link is None or link.gone.is_set():
            return Reply(None, 0.0, fault=self._gone(f"asked /ask {question.ask}"))
        self._q += 1
        q = self._q
        timeout = self._timeout + self.network_grace
        if self._first_question:
            timeout += self._start_grace
            self._first_question = False
        started = time.perf_counter()
        with trio.move_on_after(timeout):
            if not await link.send(self._ask_message(q, question)):
                return Reply(None, time.perf_counter() - started, fault=self._gone(f"sending /ask {question.ask}"))
            while True:
                message = await link.receive()
                if message is None:
                    return Reply(None, time.perf_counter() - started,
                                 fault=self._gone(f"waiting for the answer to /ask {question.ask}"))
                if isinstance(message, m.Reply) and message.q == q:
                    break  # anything else is a late reply to an earlier question: dropped
            seconds = time.perf_counter() - started
            if message.line is not None and message.fault is None:
                return judge_line(message.line.encode("utf-8", "replace"), question.ask, seconds)
            kind = message.fault if message.fault in WRAPPER_FAULTS else "crash"
            # The wrapper escaped its bot's line and reason (wrappers.process) already: not twice, and the reason whole
            detail = cut(f"reported by the wrapper: {message.detail or message.fault or 'no answer'}", 400,
                         escaped=True)
            line = cut(message.line, escaped=True) if message.line is not None else None
            return Reply(None, seconds, line, Fault(kind, detail, line))  # type: ignore[arg-type]
        return Reply(None, time.perf_counter() - started, fault=Fault(
            "timeout", f"no answer to /ask {question.ask} within {timeout:g} s "
                       f"(including {self.network_grace:g} s for the network)"))

    def question_timeout(self, info: HandInfo) -> float:
        """Seconds per question, before the network's grace: the bot's timeout (``seat_timeout``)."""
        return seat_timeout(self._timeout_override, self.spec, info.timeout)

    def _ask_message(self, q: int, question: Question) -> m.Ask | m.Table:
        """What goes to the other end with question ``q``: the lines the seat was told since, and ``/ask``."""
        lines, self._outbox = self._outbox, []
        return m.Ask(q=q, lines=lines, ask=question.ask)

    async def end_hand(self) -> None:
        if self._playing and self._link is not None:
            lines, self._outbox = self._outbox, []
            await self._link.send(m.EndHand(lines=lines))
        self._playing = False

    async def abandon(self) -> None:
        """After a fault: the wrapper is told (``abandon``: it sends ``/exit`` and ends its bot)."""
        self._outbox.clear()
        if self._playing and self._link is not None:
            fault = self._fault or Fault("crash", "a fault")
            await self._link.send(m.Abandon(kind=fault.kind, detail=fault.detail))
        self._playing = False

    async def close(self) -> None:
        if self._link is not None:
            await self._link.send(m.Unseat(match=self.match))
        self._link = None


__all__ = ["Link", "RemoteSeat", "Slot"]

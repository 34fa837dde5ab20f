"""The wrapper: the other end of a remote seat, on the player's machine (``mjref connect``).

It logs in to ``mjref serve`` over a WebSocket, runs the player's bot as a local ``ProcessSeat`` (the same process
handling, limits and sandbox as a seat at the referee's own machine) and passes lines both ways: the server's
protocol lines to the bot's stdin, unchanged, and the bot's answer line back.  The server keeps the deadline and
judges every line again; what the wrapper reports is only what it saw (a crash, a timeout, a line too long).

If the connection drops, it reconnects with backoff and the server seats it again from the next hand.  It ends
when the server says the match or tournament is over (``over``), or raises :class:`Refused` when the server will
not let it in (a wrong token, another protocol version).
"""

from __future__ import annotations

import ssl
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import trio
from trio_websocket import ConnectionClosed, HandshakeError, WebSocketConnection, open_websocket_url

from referee.errors import BotError
from referee.game.types import Question

from . import messages as m
from .process import ProcessSeat
from .remote import PING_INTERVAL, PING_TIMEOUT
from .seat import HandInfo
from .spec import BotSpec
from .websocket import close_ws, ping  # (importing it fixes trio-websocket for this end too)

BACKOFF_FIRST = 0.5  # seconds before the first reconnection; doubled each time, up to BACKOFF_MAX
BACKOFF_MAX = 10.0

Say = Callable[[str], None]


class Refused(BotError):
    """The server will not let this wrapper in (a wrong name or token, another protocol version)."""


class _Over(Exception):
    pass


class _Silent(Exception):
    """The server said nothing when it should have (why, one line): the wrapper reconnects."""


_REFUSALS = {
    m.CLOSE_REFUSED: "the server refused the login: wrong name or token",
    m.CLOSE_VERSION: f"the server does not speak protocol version {m.PROTOCOL}",
}


async def relay(url: str, token: str, name: str, spec: BotSpec, *, say: Say,
                ssl_context: ssl.SSLContext | None = None, stderr_path: Path | None = None,
                reconnect: bool = True) -> None:
    """Play as ``name`` at the server at ``url`` until it says it is over (returns) or refuses the login
    (:class:`Refused`).  ``say`` is told what happens, one line at a time."""
    if url.startswith("wss://") and ssl_context is None:
        ssl_context = ssl.create_default_context()
    delay = BACKOFF_FIRST
    while True:
        try:
            if ssl_context is not None:
                await _check_certificate(url, ssl_context)
            async with open_websocket_url(url, ssl_context=ssl_context, max_message_size=m.MAX_SERVER_MESSAGE,
                                          connect_timeout=m.AUTH_TIMEOUT) as ws:
                await _session(ws, url, token, name, spec, say, stderr_path)
                delay = BACKOFF_FIRST
        except _Over:
            return
        except ConnectionClosed as exc:
            code = exc.reason.code if exc.reason is not None else None
            if code in _REFUSALS:
                raise Refused(_REFUSALS[code]) from None
            why = "the name is logged in on another connection" if code == m.CLOSE_TAKEN else (
                f"the connection closed ({code}{' ' + exc.reason.reason if exc.reason and exc.reason.reason else ''})")
            say(why)
        except (HandshakeError, OSError, trio.BrokenResourceError) as exc:
            say(f"cannot reach {url}: {_why(exc)}")
        except m.BadMessage as exc:
            say(f"the server sent a message this wrapper does not understand ({exc})")
        except _Silent as exc:
            say(str(exc))
        if not reconnect:
            raise Refused(f"the connection to {url} ended before the server said it was over")
        say(f"reconnecting in {delay:g} s")
        await trio.sleep(delay)
        delay = min(delay * 2, BACKOFF_MAX)


async def _check_certificate(url: str, context: ssl.SSLContext) -> None:
    """A TLS handshake of its own before the WebSocket's: the WebSocket library reports a certificate it does not
    trust only as a handshake timeout, and a certificate that is not trusted is not worth retrying (:class:`Refused`).
    """
    parts = urlsplit(url)
    try:
        port = parts.port or 443
    except ValueError:
        raise Refused(f"{url}: not a valid port") from None
    stream = await trio.open_ssl_over_tcp_stream(parts.hostname or "", port, ssl_context=context)
    try:
        await stream.do_handshake()
    except trio.BrokenResourceError as exc:
        if isinstance(exc.__cause__, ssl.SSLCertVerificationError):
            raise Refused(f"{url}: the server's certificate is not trusted ({exc.__cause__.verify_message}); "
                          "--cafile FILE trusts its authority") from None
        raise
    finally:
        await stream.aclose()


def _why(exc: BaseException) -> str:
    """What went wrong, from the exception's causes: trio wraps a TLS error in BrokenResourceError."""
    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and len(chain) < 10:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    for one in chain:
        if isinstance(one, ssl.SSLError):
            return f"TLS: {one.reason or one}"
    for one in chain:
        if str(one):
            return str(one)
    return type(exc).__name__


async def _session(ws: WebSocketConnection, url: str, token: str, name: str, spec: BotSpec, say: Say,
                   stderr_path: Path | None) -> None:
    await ws.send_message(m.write(m.Hello(v=m.PROTOCOL, name=name, token=token)))
    first: m.Welcome | m.Seat | m.Hand | m.Ask | m.EndHand | m.Abandon | m.Unseat | m.Over | None = None
    with trio.move_on_after(m.AUTH_TIMEOUT):  # a server that takes the connection and says nothing
        first = m.read_server(await ws.get_message())
    if first is None:
        raise _Silent(f"the server sent no welcome within {m.AUTH_TIMEOUT:g} s")
    if not isinstance(first, m.Welcome):
        raise m.BadMessage(f"expected welcome, got {first.type}")
    say(f"logged in to {url} as {name}")
    ended: BaseException | None = None  # raised again outside the nursery, so that it is not wrapped in a group
    async with trio.open_nursery() as nursery:
        wrapper = _Wrapper(ws, spec, nursery, say, stderr_path)
        nursery.start_soon(_keep_alive, ws)
        try:
            while await wrapper.step():
                pass
        except (ConnectionClosed, m.BadMessage, _Over) as exc:
            ended = exc
        finally:
            with trio.CancelScope(shield=True):
                await wrapper.unseat()
            nursery.cancel_scope.cancel()  # the keep-alive
    if ended is not None:
        raise ended


async def _keep_alive(ws: WebSocketConnection) -> None:
    """Ping the server as it pings its wrappers (``PING_INTERVAL``): a connection that went silent (half-open, a
    server that stopped answering) is closed, and the wrapper reconnects, instead of waiting for it for ever."""
    while True:
        await trio.sleep(PING_INTERVAL)
        if not await ping(ws, PING_TIMEOUT):
            await close_ws(ws, m.CLOSE_BAD_MESSAGE, wait=False)
            return


class _Wrapper:
    """One logged-in session: the server's messages, one at a time, to the local ``ProcessSeat``."""

    def __init__(self, ws: WebSocketConnection, spec: BotSpec, nursery: trio.Nursery, say: Say,
                 stderr_path: Path | None) -> None:
        self.ws = ws
        self.spec = spec
        self.nursery = nursery
        self.say = say
        self.stderr_path = stderr_path
        self.seat: ProcessSeat | None = None

    async def unseat(self) -> None:
        if self.seat is not None:
            await self.seat.close()
            self.seat = None

    async def send(self, message: m.Ready | m.Reply) -> None:
        await self.ws.send_message(m.write(message))

    async def step(self) -> bool:
        """Handle the server's next message; raises ``_Over`` when the server says it is over."""
        message = m.read_server(await self.ws.get_message())
        if isinstance(message, m.Over):
            self.say(f"over{': ' + message.reason if message.reason else ''}")
            raise _Over
        if isinstance(message, m.Seat):
            await self.unseat()
            bot = self.spec.model_copy(update={"keep_alive": self.spec.keep_alive or message.keep_alive})
            self.seat = ProcessSeat(bot, message.position, self.nursery, stderr_path=self.stderr_path,
                                    timeout=message.timeout, block_ms=0.0)
            self.say(f"seated at position {message.position} (match {message.match})")
            if message.timeout is not None and self.spec.timeout is not None and message.timeout != self.spec.timeout:
                # The server judges the answers: its deadline is the one that counts, whatever the bot file says.
                self.say(f"the server gives {message.timeout:g} s per question; the bot file's timeout "
                         f"({self.spec.timeout:g} s) does not apply to a served match")
            return True
        seat = self.seat
        if seat is None:
            raise m.BadMessage(f"{message.type} before seat")
        if isinstance(message, m.Ask):
            for line in message.lines:
                seat.deliver_line(line)
            reply = await seat.ask(Question(seat.position, message.ask, ()))
            f = reply.fault
            await self.send(m.Reply(q=message.q, line=reply.line, fault=f.kind if f else None,
                                    detail=f.detail if f else None))
        elif isinstance(message, m.Hand):
            before = seat.pid if seat.running else None
            # ``more``: the server never says whether another hand follows (a bot is not told which hand is the
            # match's last, here or at a local table), so the next hand's process is always started beside this
            # hand (``ProcessSeat._prestart``); after the last hand it is killed unused when the seat closes.
            info = HandInfo(message.seed, message.hand, message.position, message.flowers, message.dead_wall,
                            message.gong_from_previous_player, message.seven_pairs_and_pung, message.timeout,
                            message.start_grace, more=True)
            fault = await seat.begin_hand(info)
            started = fault is None and seat.pid is not None and seat.pid != before
            self.say(f"hand {message.hand + 1}" + (f": the bot did not start: {fault.detail}" if fault else ""))
            await self.send(m.Ready(hand=message.hand, started=started, fault=fault.kind if fault else None,
                                    detail=fault.detail if fault else None))
        elif isinstance(message, m.EndHand):
            for line in message.lines:
                seat.deliver_line(line)
            await seat.end_hand()
        elif isinstance(message, m.Abandon):
            self.say(f"fault reported by the server: {message.kind}: {message.detail}")
            await seat.abandon()
        elif isinstance(message, m.Unseat):
            await self.unseat()
            self.say(f"match {message.match} is over")
        else:
            raise m.BadMessage(f"unexpected {message.type}")
        return True

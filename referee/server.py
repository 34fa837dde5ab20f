"""The referee server (``mjref serve``): wrappers log in over WebSocket and play remote seats.

This is the framework's own shape: the referee sets up a seed and waits for the players to log in, each through a
wrapper that runs its AI on its own machine.  The server accepts connections, checks each login against its
tokens, and attaches the connection to the remote bot's ``Slot``; the match (``run_match``) seats a
``RemoteSeat`` on that slot and plays exactly as with local seats: same log, faults, stand-in and penalties.

Safety, for a port open to anyone: a connection must log in (``hello``) within ``AUTH_TIMEOUT`` seconds or it is
closed; nothing of the table is sent before a good login (a refusal is a bare close code); frames over
``MAX_CLIENT_MESSAGE`` bytes close the connection (the WebSocket library refuses them); tokens are compared in
constant time (``hmac.compare_digest``); a name holds one connection at a time; every refused attempt is logged,
and its close waits at most ``SEND_TIMEOUT`` for the client's answer (a client that never answers is cut);
at most ``MAX_PENDING`` connections beyond one per remote bot are open at once (more are closed as they are
accepted), so a client opening thousands of connections, or trickling its handshake byte by byte, cannot take the
file descriptors a match needs for its bots and its wrappers; and at most ``MAX_PENDING_PER_ORIGIN`` of those not
logged in come from one address (``Door``), so that one client alone cannot keep the wrappers out.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import ssl
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote

import trio
from trio_websocket import ConnectionClosed, Endpoint, WebSocketRequest, WebSocketServer

from referee.errors import InputError
from referee.match import FaultInfo, MatchResult, RemoteSeats, run_match
from referee.numbers import is_int_text
from referee.shutdown import Shutdown
from referee.userfiles import read_bytes, read_toml
from wrappers import messages as m
from wrappers.human import HumanSeat
from wrappers.remote import Link, RemoteSeat, Slot
from wrappers.seat import Seat
from wrappers.spec import REMOTE_NAME, BotSpec
from wrappers.websocket import close_ws

TOKEN_MIN = 16  # characters: a token shorter than this is refused in a tokens file
TOKEN_MAX = 256
MAX_PENDING = 32  # connections open at once beyond one per remote bot (logging in, or not wrappers at all)
MAX_PENDING_PER_ORIGIN = 8  # of those, from one address (an IPv6 /64): one client alone cannot fill the door

Say = Callable[[str], None]


class ServeError(InputError):
    """A server that cannot run as asked (bad tokens file, address, certificate; wrappers that never came)."""


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6; port 0: the OS picks a free one)."""
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise ServeError(f"--listen {text!r}: give HOST:PORT, e.g. 127.0.0.1:8765")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not is_int_text(port, signed=False):  # ASCII digits only (referee.numbers)
        raise ServeError(f"--listen {text!r}: the port {port!r} is not a number")
    number = int(port)
    if not 0 <= number <= 65535:
        raise ServeError(f"--listen {text!r}: the port must be 0-65535")
    return host, number


def load_tokens(path: Path, names: Iterable[str]) -> dict[str, str]:
    """The tokens of a TOML file ``name = "token"``, for exactly the remote bots ``names`` (each must have one)."""
    data = read_toml(path, ServeError)  # a FIFO or /dev/zero is refused, not read for ever
    tokens: dict[str, str] = {}
    for name, token in data.items():
        if not REMOTE_NAME.fullmatch(name):
            raise ServeError(f"{path}: {name!r}: a name is 1-64 letters, digits, '_', '.', '-'")
        if not isinstance(token, str):
            raise ServeError(f"{path}: {name}: the token must be a string, not {type(token).__name__}")
        if not TOKEN_MIN <= len(token) <= TOKEN_MAX or not token.isascii() or not token.isprintable() \
                or " " in token or token.startswith("-"):
            raise ServeError(f"{path}: {name}: a token is {TOKEN_MIN}-{TOKEN_MAX} printable ASCII characters "
                             "without spaces, not starting with '-' (mjref connect --token would take it for an "
                             "option)")
        tokens[name] = token
    wanted = list(names)
    missing = [n for n in wanted if n not in tokens]
    if missing:
        raise ServeError(f"{path}: no token for the remote bot(s) {', '.join(missing)}")
    return {n: tokens[n] for n in wanted}  # a token for a bot not at this table logs in nowhere


def generate_tokens(names: Iterable[str]) -> dict[str, str]:
    """A random token per name, never starting with '-' (one in 64 would: ``--token -x…`` reads as an option)."""
    return {n: _token() for n in names}


def _token() -> str:
    while (token := secrets.token_urlsafe(24)).startswith("-"):
        pass
    return token


def server_ssl_context(cert: Path | None, key: Path | None) -> ssl.SSLContext | None:
    """TLS for ``wss://``: the certificate chain and its key (PEM), or None for plain ``ws://``."""
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        raise ServeError("--cert and --key go together")
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    for option, path in (("--cert", cert), ("--key", key)):
        try:
            read_bytes(path)  # OpenSSL would wait on a FIFO for ever
        except InputError as exc:
            raise ServeError(f"{option} {exc}") from None
    try:
        ctx.load_cert_chain(str(cert), str(key))
    except (OSError, ssl.SSLError) as exc:
        raise ServeError(f"--cert {cert} --key {key}: cannot load ({exc})") from None
    return ctx


_BUSY = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


def socket_of(stream: trio.abc.Stream) -> Any:
    """The trio socket under a TCP stream, plain or TLS."""
    while isinstance(stream, trio.SSLStream):
        stream = stream.transport_stream
    return stream.socket if isinstance(stream, trio.SocketStream) else None


def _address_of(sock: Any) -> tuple[str, int] | None:
    try:
        address = sock.getpeername()
        return str(address[0]), int(address[1])
    except (OSError, IndexError, TypeError, ValueError):
        return None  # gone already


def _origin(ip: str) -> str:
    """Whom a connection counts against: its IPv4 address, or its IPv6 /64 (one host has a whole /64)."""
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return ip
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


class Door:
    """Who may come in through a server's listeners (shared: localhost may be IPv4 and IPv6): at most ``limit()``
    connections open at once, and of those at most ``MAX_PENDING_PER_ORIGIN`` from one address (an IPv6 /64) that
    have not logged in (``vouch``), so that one client alone cannot fill the door and keep the wrappers out."""

    def __init__(self, limit: Callable[[], int], refused: Callable[[str, str], None], *, logins: bool = True) -> None:
        self.limit = limit
        self.refused = refused  # told the peer and the reason of each connection turned away
        self._pending = " not logged in" if logins else ""  # the play page's port has no logins to vouch
        self._open: dict[Any, str] = {}  # the sockets handed out, and their origins
        self._vouched: set[Any] = set()

    def admit(self, sock: Any, address: tuple[str, int]) -> str | None:
        """None if ``sock`` may come in (it is counted from now on), else why not."""
        for gone in [s for s in self._open if s.fileno() == -1]:  # a closed socket's fileno is -1
            del self._open[gone]
            self._vouched.discard(gone)
        if len(self._open) >= self.limit():
            return f"more than {self.limit()} connections at once"
        origin = _origin(address[0])
        if sum(o == origin and s not in self._vouched for s, o in self._open.items()) >= MAX_PENDING_PER_ORIGIN:
            return f"more than {MAX_PENDING_PER_ORIGIN} connections at once from {origin}{self._pending}"
        self._open[sock] = origin
        return None

    def vouch(self, address: tuple[str, int]) -> None:
        """The connection from ``address`` logged in: it no longer counts against its origin."""
        self._vouched.update(s for s in self._open if s.fileno() != -1 and _address_of(s) == address)


class Capped(trio.abc.Listener[trio.abc.Stream]):
    """A listener (TCP, or TLS over TCP) that lets in only what its ``door`` admits: a connection turned away is
    closed at once, and the door's ``refused`` is told its peer and why.  A plain one first gets an HTTP 503
    (before any byte is read): a WebSocket client then fails at once, where a bare close leaves it waiting for its
    handshake's timeout; a TLS one is closed before its handshake, which fails at once too."""

    def __init__(self, inner: trio.abc.Listener[Any], door: Door, port: int) -> None:
        self.inner = inner
        self.door = door
        self.port = port  # the port it listens on (the OS chose it for port 0)

    async def accept(self) -> trio.abc.Stream:
        while True:
            stream = await self.inner.accept()
            sock = socket_of(stream)
            if sock is None:
                return stream
            address = _address_of(sock)
            reason = self.door.admit(sock, address) if address is not None else "gone before it was let in"
            if reason is None:
                return stream
            if isinstance(stream, trio.SocketStream):
                with trio.move_on_after(0.1):
                    try:
                        await stream.send_all(_BUSY)
                    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                        pass
            await trio.aclose_forcefully(stream)
            self.door.refused(f"{address[0]}:{address[1]}" if address is not None else "?", reason)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def open_capped(host: str, port: int, ssl_context: ssl.SSLContext | None, door: Door) -> list[Capped]:
    """Listeners on ``host:port`` (TLS with ``ssl_context``) that let in only what ``door`` admits; OSError if it
    cannot listen."""
    tcp = await trio.open_tcp_listeners(port, host=host)
    inner: list[trio.abc.Listener[Any]] = list(tcp)
    if ssl_context is not None:
        inner = [trio.SSLListener(t, ssl_context, https_compatible=True) for t in tcp]
    return [Capped(t, door, tcp[0].socket.getsockname()[1]) for t in inner]


@dataclass(slots=True)
class Attempt:
    """A login that was refused (for the server's log)."""

    peer: str
    name: str | None
    reason: str


class Server:
    """The listening side: logins, slots, and the seats a match takes from them."""

    def __init__(self, tokens: dict[str, str], *, say: Say, on_change: Callable[[], None] | None = None) -> None:
        self.slots = {name: Slot(name) for name in tokens}
        self._tokens = {name: token.encode() for name, token in tokens.items()}
        self._decoy = secrets.token_bytes(32)
        self.say = say
        self.on_change = on_change
        self.refused: list[Attempt] = []
        self.too_many: dict[str, int] = {}  # connections closed at once for being one too many, by port
        self.port = 0
        self._links: set[Link] = set()
        self._busy: dict[str, trio.Lock] = {name: trio.Lock() for name in tokens}
        self._matches = 0
        self._door = Door(self._connection_limit, self.turned_away(""))

    # ------------------------------------------------------------------------------------------ listening
    async def listen(self, host: str, port: int, ssl_context: ssl.SSLContext | None,
                     *, task_status: trio.TaskStatus[WebSocketServer] = trio.TASK_STATUS_IGNORED) -> None:
        try:
            listeners = await open_capped(host, port, ssl_context, self._door)
        except OSError as exc:
            raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
        self.port = listeners[0].port
        server = WebSocketServer(self._handle, listeners, max_message_size=m.MAX_CLIENT_MESSAGE,
                                 connect_timeout=m.AUTH_TIMEOUT, disconnect_timeout=2.0)
        await server.run(task_status=task_status)

    def _connection_limit(self) -> int:
        return len(self.slots) + MAX_PENDING

    def turned_away(self, where: str) -> Callable[[str, str], None]:
        """The ``refused`` of a :class:`Door` (``where``: which port, for the log line): one line for the first
        connection turned away, then one per 100 (a flood is one event)."""
        def refused(peer: str, reason: str) -> None:
            count = self.too_many[where] = self.too_many.get(where, 0) + 1
            if count % 100 == 1:
                self._refuse(peer, None, f"{reason}{where} ({count} refused so far)")

        return refused

    async def start(self, nursery: trio.Nursery, host: str, port: int, ssl_context: ssl.SSLContext | None) -> str:
        """Listen in ``nursery``; the URL wrappers connect to."""
        await nursery.start(self.listen, host, port, ssl_context)
        shown = f"[{host}]" if ":" in host else host
        return f"{'wss' if ssl_context else 'ws'}://{shown}:{self.port}"

    def page_link(self, page_url: str, name: str) -> str:
        """The address a person opens to play ``name``'s seat: the page, with the name and token in the fragment
        (a fragment is never sent to the server in a request, so the token stays out of request lines and logs)."""
        token = quote(self._tokens[name].decode(), safe="")
        return f"{page_url}/#name={quote(name, safe='')}&token={token}"

    def _refuse(self, peer: str, name: str | None, reason: str) -> None:
        self.refused.append(Attempt(peer, name, reason))
        self.say(f"refused {peer}{' as ' + repr(name) if name else ''}: {reason}")

    def _check(self, name: str, token: str) -> bool:
        """Constant time in the token, and the same work for an unknown name."""
        expected = self._tokens.get(name)
        ok = hmac.compare_digest(token.encode(), expected if expected is not None else self._decoy)
        return ok and expected is not None

    async def _handle(self, request: WebSocketRequest) -> None:
        remote = request.remote
        address = (str(remote.address), remote.port) if isinstance(remote, Endpoint) else None
        peer = f"{address[0]}:{address[1]}" if address is not None else str(remote)
        try:
            ws = await request.accept()
        except ConnectionClosed:
            return
        try:
            frame: str | bytes | None = None
            with trio.move_on_after(m.AUTH_TIMEOUT):
                frame = await ws.get_message()
            if frame is None:
                self._refuse(peer, None, f"no hello within {m.AUTH_TIMEOUT:g} s")
                await close_ws(ws, m.CLOSE_AUTH_TIMEOUT)
                return
            try:
                hello = m.read_client(frame)
            except m.BadMessage as exc:
                self._refuse(peer, None, f"not a hello ({exc})")
                await close_ws(ws, m.CLOSE_BAD_MESSAGE)
                return
            if not isinstance(hello, m.Hello):
                self._refuse(peer, None, f"{hello.type} before hello")
                await close_ws(ws, m.CLOSE_BAD_MESSAGE)
                return
            if not self._check(hello.name, hello.token):
                self._refuse(peer, hello.name, "wrong name or token")
                await close_ws(ws, m.CLOSE_REFUSED)
                return
            if hello.v != m.PROTOCOL:
                self._refuse(peer, hello.name, f"protocol version {hello.v} (this server speaks {m.PROTOCOL})")
                await close_ws(ws, m.CLOSE_VERSION)
                return
            slot = self.slots[hello.name]
            if slot.link is not None or slot.pending is not None:
                self._refuse(peer, hello.name, "already logged in on another connection")
                await close_ws(ws, m.CLOSE_TAKEN)
                return
            link = Link(ws, hello.name, peer)
            slot.pending = link  # held from here: a second login with the same token is refused
            try:
                await self._serve_link(slot, link, address)
            finally:
                slot.detach(link)
                self._changed()
        except ConnectionClosed:
            return

    async def _serve_link(self, slot: Slot, link: Link, address: tuple[str, int] | None) -> None:
        if not await link.send(m.Welcome(v=m.PROTOCOL, name=link.name)):
            return
        rtt = await link.login_rtt()
        if rtt is None:
            self.say(f"{link.name} ({link.peer}): no pong at login; closed")
            await link.close(m.CLOSE_BAD_MESSAGE, "no pong at login")
            return
        slot.attach(link)
        if address is not None:
            self._door.vouch(address)
        link.on_rtt = lambda _: self._changed()
        self._links.add(link)
        self.say(f"{link.name} logged in from {link.peer} (round trip {rtt:.3f} ms)")
        self._changed()
        try:
            await link.run()
        finally:
            self._links.discard(link)
            self.say(f"{link.name} ({link.peer}) left: {link.reason or 'the connection ended'}")

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    # ------------------------------------------------------------------------------------------ the lobby
    def missing(self) -> list[str]:
        return [name for name, slot in self.slots.items() if not slot.connected]

    async def wait_for_all(self, wait: float | None) -> None:
        """Until every remote bot is logged in; after ``wait`` seconds, :class:`ServeError` naming who is not."""
        with trio.move_on_after(wait if wait is not None else float("inf")):
            while self.missing():
                await trio.sleep(0.05)
            return
        raise ServeError(f"after {wait:g} s, still waiting for: {', '.join(self.missing())}")

    # ------------------------------------------------------------------------------------------ matches
    def seat_factory(self, match: str, network_grace: float, timeout: float | None,
                     seats: dict[int, Seat] | None = None, names: Sequence[str] = ()) -> RemoteSeats:
        def make(spec: BotSpec, position: int) -> Seat:
            seat: RemoteSeat
            if spec.human:  # a person at the page: the table as the seat sees it, the legal answers
                seat = HumanSeat(spec, position, self.slots[spec.name], match=match, network_grace=network_grace,
                                 names=names)
            else:
                seat = RemoteSeat(spec, position, self.slots[spec.name], match=match, network_grace=network_grace,
                                  timeout=timeout)
            if seats is not None:
                seats[position] = seat
            return seat

        return make

    @asynccontextmanager
    async def seating(self, specs: Sequence[BotSpec], match: str, network_grace: float,
                      timeout: float | None = None) -> AsyncIterator[tuple[RemoteSeats, Callable[[FaultInfo], None]]]:
        """The remote seats of one match, and the fault hook that tells their wrappers; a remote bot plays one
        match at a time (its connection is one seat), so matches that share one wait for each other.  ``match`` is
        all a wrapper is told of the match: a tournament gives its opaque ``MatchJob.public_id``, never the ID that
        names its group, seed and seating."""
        names = sorted({s.name for s in specs if s.remote})
        unknown = [n for n in names if n not in self.slots]
        if unknown:
            raise ServeError(f"no token for the remote bot(s) {', '.join(unknown)}")
        seats: dict[int, Seat] = {}

        def on_fault(info: FaultInfo) -> None:
            seat = seats.get(info.position)
            if isinstance(seat, RemoteSeat):
                seat.note_fault(info.kind, info.detail)

        held: list[trio.Lock] = []
        try:
            for n in names:  # in name order: two matches never hold each other's bots
                await self._busy[n].acquire()
                held.append(self._busy[n])
            yield self.seat_factory(match, network_grace, timeout, seats, [s.name for s in specs]), on_fault
        finally:
            for lock in reversed(held):
                lock.release()

    async def over(self, reason: str) -> None:
        """Tell every logged-in wrapper that it is over, and close their connections."""
        async with trio.open_nursery() as nursery:
            for link in list(self._links):
                nursery.start_soon(self._bye, link, reason)

    @staticmethod
    async def _bye(link: Link, reason: str) -> None:
        if await link.send(m.Over(reason=reason)):
            await link.close(m.CLOSE_OVER, "over")


def remote_names(specs: Sequence[BotSpec]) -> list[str]:
    """The remote bots' names in seat order, each once; a name twice in one match is refused."""
    names = [s.name for s in specs if s.remote]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ServeError(f"remote:{twice[0]} sits twice: one wrapper plays one seat")
    return names


async def serve_match(specs: Sequence[BotSpec], server: Server, *, listen: tuple[str, int],
                      ssl_context: ssl.SSLContext | None = None, wait: float | None = None,
                      on_listen: Callable[[str], None] | None = None, on_fault: Callable[[FaultInfo], None] | None,
                      timeout: float | None = None, page: tuple[str, int] | None = None,
                      tls: tuple[Path, Path] | None = None, on_page: Callable[[str, str], None] | None = None,
                      shutdown: Shutdown | None = None, **match_kwargs: Any) -> MatchResult:
    """Listen, wait for every remote bot's wrapper, play the match, tell the wrappers it is over.

    With ``human:NAME`` seats the play page is served too, on ``page`` (HOST, PORT; default: the listening host, any
    free port), over HTTPS with ``tls`` (certificate and key files); ``on_page(name, link)`` gets each person's
    address (with its token).  ``shutdown`` (``referee.shutdown``): a stop signal ends the wait for the players
    (``Interrupted``) or stops the match in order (its log ends with an ``aborted`` record)."""
    remote_names(specs)
    rules = match_kwargs["rules"]
    humans = [s.name for s in specs if s.human]
    async with trio.open_nursery() as nursery:
        url = await server.start(nursery, listen[0], listen[1], ssl_context)
        if on_listen is not None:
            on_listen(url)
        if humans:
            from referee.pages import serve_pages

            host, port = page if page is not None else (listen[0], 0)
            door = Door(lambda: MAX_PENDING, server.turned_away(" to the play page"), logins=False)
            page_url = await nursery.start(partial(serve_pages, host, port, server.port, tls, door=door))
            for name in humans:
                if on_page is not None:
                    on_page(name, server.page_link(page_url, name))
        with shutdown.scope() if shutdown is not None else trio.CancelScope():
            await server.wait_for_all(wait)  # a stop signal here ends the wait: nothing was played yet
        if shutdown is not None:
            shutdown.raise_if_stopped()
        async with server.seating(specs, "1", rules.network_grace, timeout) as (factory, tell):
            def faulted(info: FaultInfo) -> None:
                tell(info)
                if on_fault is not None:
                    on_fault(info)

            result = await run_match(specs, remote=factory, on_fault=faulted, timeout=timeout, block_ms=0.0,
                                     shutdown=shutdown,
                                     **match_kwargs)
        await server.over("the match is over")
        nursery.cancel_scope.cancel()
    return result


__all__ = ["Capped", "Door", "MAX_PENDING", "MAX_PENDING_PER_ORIGIN", "Server", "ServeError", "generate_tokens",
           "load_tokens", "open_capped", "parse_listen", "remote_names", "serve_match", "server_ssl_context"]

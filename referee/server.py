"""The referee server (``mjref serve``): wrappers log in over WebSocket and play remote seats.

This is the framework's own shape: the referee sets up a seed and waits for the players to log in, each through a
wrapper that runs its AI on its own machine.  The server accepts connections, checks each login against its
tokens, and attaches the connection to the remote bot's ``Slot``; the match (``run_match``) seats a
``RemoteSeat`` on that slot and plays exactly as with local seats: same log, faults, stand-in and penalties.

Safety, for a port open to anyone: a connection must log in (``hello``) within ``AUTH_TIMEOUT`` seconds or it is
closed; nothing of the table is sent before a good login (a refusal is a bare close code); frames over
``MAX_CLIENT_MESSAGE`` bytes close the connection (the WebSocket library refuses them); tokens are compared in
constant time (``hmac.compare_digest``); a name holds one connection at a time; every refused attempt is logged,
and its close waits at most ``SEND_TIMEOUT`` for the client's answer (a client that never answers is cut).
A handshake with an ``Origin`` (a browser's) is refused unless it is the play page's own (``foreign_origin``): a
page of another site, opened in the person's browser, cannot talk to the referee.  At most ``MAX_PENDING``
connections that have not logged in are open at once, and at most ``MAX_PENDING_PER_ORIGIN`` of them from one
address (an IPv6 /64); a new connection takes the place of the oldest of them (``Door``), so that neither a client
opening thousands of connections, or trickling its handshake byte by byte, can take the file descriptors a match
needs, nor idle connections keep a wrapper or a person out: a connection that holds a token never counts.

With ``xmj:NAME`` seats, a second port speaks mj-server's protocol (``--xmj-listen``): a person's ``xmj`` logs in
with the seat's name and its token as password (``wrappers.xmj.listen``), behind a door of its own with the same
rules (a timeout for a silent client, the per-address cap, one connection per name).
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import socket
import ssl
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import trio
from trio_websocket import ConnectionClosed, Endpoint, WebSocketRequest, WebSocketServer

from referee.errors import InputError, printable
from referee.game.family import family_of
from referee.match import FaultInfo, MatchResult, RemoteSeats, run_match, table_names
from referee.numbers import is_int_text
from referee.shutdown import Shutdown
from referee.tokens import new_token
from referee.userfiles import read_bytes, read_toml
from wrappers import messages as m
from wrappers.codec import cut
from wrappers.human import HumanSeat
from wrappers.remote import Link, RemoteSeat, Slot
from wrappers.seat import Seat
from wrappers.spec import REMOTE_NAME, BotSpec, SpecError, check_protocol_family
from wrappers.websocket import close_ws
from wrappers.xmj.listen import XmjDoor
from wrappers.xmj.seat import XmjSeat

TOKEN_MIN = 16  # characters: a token shorter than this is refused in a tokens file
TOKEN_MAX = 256
MAX_PENDING = 32  # connections not logged in open at once (logging in, or not wrappers at all): Door
REFUSALS_KEPT = 1000  # refused attempts a server keeps to look at (each is also said in its log as it happens)
MAX_PENDING_PER_ORIGIN = 8  # of those, from one address (an IPv6 /64)

Say = Callable[[str], None]


class ServeError(InputError):
    """A server that cannot run as asked (bad tokens file, address, certificate; wrappers that never came)."""


def parse_listen(text: str, option: str = "--listen") -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6; port 0: the OS picks a free one); ``option`` names it in errors."""
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise ServeError(f"{option} {text!r}: give HOST:PORT, e.g. 127.0.0.1:8765")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not is_int_text(port, signed=False):  # ASCII digits only (referee.numbers)
        raise ServeError(f"{option} {text!r}: the port {port!r} is not a number")
    number = int(port)
    if not 0 <= number <= 65535:
        raise ServeError(f"{option} {text!r}: the port must be 0-65535")
    return host, number


def check_listen(host: str, port: int, option: str = "--listen") -> None:
    """Refuse (``ServeError``) an address this machine cannot listen on: a host name that does not resolve, an
    address of another machine, a port in use or one this user may not take.  A command checks each of its
    addresses before it mints or prints anything (a token printed for a server that never listened is a secret
    given away for nothing).  Each address is bound as trio's listeners bind it (``SO_REUSEADDR``, IPv6 only on
    an IPv6 socket) and kept listening: the listener this process opens on that address later takes these very
    sockets (:func:`open_capped`), so the port cannot be taken by another program between the check and the
    listening, after the tokens were printed.  A command that checks releases what it did not use on its way out
    (:func:`released_listeners`)."""
    where = f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError, ValueError) as exc:  # gaierror; a name IDNA cannot encode; a NUL in it
        raise ServeError(f"cannot listen on {where} ({option}): {getattr(exc, 'strerror', None) or exc}") from None
    socks: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in infos:
            sock = socket.socket(family, kind, proto)
            socks.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(BACKLOG)
    except OSError as exc:
        for sock in socks:
            sock.close()
        raise ServeError(f"cannot listen on {where} ({option}): {exc.strerror or exc}") from None
    _HELD.setdefault((host, port), []).append(socks)


BACKLOG = 0xFFFF  # connections the system queues before they are accepted (trio's own; it caps it at its maximum)
_HELD: dict[tuple[str, int], list[list[socket.socket]]] = {}  # check_listen's sockets, by the address checked


def _take_held(host: str, port: int) -> list[socket.socket] | None:
    """The sockets :func:`check_listen` bound and keeps for ``host:port`` (None: it checked no such address)."""
    held = _HELD.get((host, port))
    if not held:
        return None
    socks = held.pop(0)
    if not held:
        del _HELD[(host, port)]
    return socks


@contextmanager
def released_listeners() -> Iterator[None]:
    """Around a command that calls :func:`check_listen`: the sockets it checked and its listeners never took (it
    failed, or ended, before it listened) are closed on the way out, so that the port is free again."""
    try:
        yield
    finally:
        while _HELD:
            _, held = _HELD.popitem()
            for socks in held:
                for sock in socks:
                    sock.close()


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
    """A random token per name (``referee.tokens.new_token``)."""
    return {n: new_token() for n in names}


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


def _network(origin: str) -> str:
    """The network an origin belongs to, for choosing whose stranger makes room: an IPv6 /48 (one site: its /64s
    are one client's many "addresses"), an IPv4 /24."""
    try:
        net = ipaddress.ip_network(origin if "/" in origin else f"{origin}/{32 if ':' not in origin else 128}",
                                   strict=False)
    except ValueError:
        return origin
    return str(net.supernet(new_prefix=48 if net.version == 6 else 24))


def _same_host(name: str, host: str) -> bool:
    """Whether a page loaded from ``name`` is the play page served on ``host`` (see ``Server.foreign_origin``)."""
    if name == host:
        return True
    try:
        served = ipaddress.ip_address(host)
    except ValueError:
        return False  # a host name: only itself
    if served.is_unspecified:
        return True
    if not served.is_loopback:
        return False
    try:
        return name == "localhost" or ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class Door:
    """Who may come in through a server's listeners (shared: localhost may be IPv4 and IPv6).  Only strangers count:
    connections that have not logged in (``vouch``; the play page's port has no logins, so all of its connections
    are strangers).  At most ``limit`` strangers are open at once, and at most ``MAX_PENDING_PER_ORIGIN`` from one
    address (an IPv6 /64).  A new connection is never turned away for that: it takes the place of the oldest
    stranger of its own address when that address is full, else of the oldest stranger of the network (an IPv6 /48,
    an IPv4 /24) and then the address holding the most, which is closed: a client with a whole /56 (256 /64s) floods
    out its own connections, not those of a person elsewhere.  The door cannot tell whether a new connection holds
    a token, so it always lets it in: idle strangers cannot keep a person or a wrapper out, since a login takes a
    round trip or two and a stranger's place is only ever taken by a newer one.  Where a login takes longer (the
    xmj port asks for a password, which a person types), a connection that has said which free seat it logs in to
    (``hear``) is closed to make room only after every stranger that has not.  Connections that logged in are at
    most one per name, and never closed here."""

    def __init__(self, limit: int, refused: Callable[[str, str], None], *, where: str = "",
                 logins: bool = True) -> None:
        self.limit = limit
        self.refused = refused  # told the peer and the reason of each connection closed to make room
        self._where = where  # which port, for the log line (" to the play page")
        self._pending = " not logged in" if logins else ""  # the play page's port has no logins to vouch
        self._open: dict[Any, str] = {}  # the sockets handed out, oldest first, and their origins
        self._vouched: set[Any] = set()
        self._heard: set[Any] = set()  # strangers asked for a password (``hear``): closed to make room last

    def admit(self, sock: Any, address: tuple[str, int]) -> str | None:
        """Count ``sock`` from now on, closing a stranger to make room if need be; None (it may come in)."""
        for gone in [s for s in self._open if s.fileno() == -1]:  # a closed socket's fileno is -1
            del self._open[gone]
            self._vouched.discard(gone)
            self._heard.discard(gone)
        origin = _origin(address[0])
        strangers = [(s, o) for s, o in self._open.items() if s not in self._vouched]
        same = [s for s, o in strangers if o == origin]
        if len(same) >= MAX_PENDING_PER_ORIGIN:
            oldest = next((s for s in same if s not in self._heard), same[0])
            self._close(oldest, f"more than {MAX_PENDING_PER_ORIGIN} connections at once from {origin}"
                                f"{self._where}{self._pending}: the oldest was closed")
        elif len(strangers) >= self.limit:  # the network, then the address, holding the most gives up its oldest
            strangers = [(s, o) for s, o in strangers if s not in self._heard] or strangers
            networks = Counter(_network(o) for _, o in strangers)
            counts = Counter(o for _, o in strangers)
            most = max((networks[_network(o)], counts[o]) for _, o in strangers)
            oldest = next(s for s, o in strangers if (networks[_network(o)], counts[o]) == most)
            self._close(oldest, f"more than {self.limit} connections at once{self._where}{self._pending}: the "
                                f"oldest from {self._open[oldest]} (whose network {_network(self._open[oldest])} "
                                f"holds {most[0]}) was closed")
        self._open[sock] = origin
        return None

    def _close(self, sock: Any, reason: str) -> None:
        """End a stranger's connection now: its file descriptor is free at once, and the task serving it (the
        WebSocket library's, Hypercorn's) wakes with the socket closed under it, which both take as the end of the
        connection (as ``referee.pages`` ends a connection that outlives its time)."""
        del self._open[sock]
        self._heard.discard(sock)
        peer = _address_of(sock)
        with suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)  # the peer learns at once
        sock.close()
        self.refused(f"{peer[0]}:{peer[1]}" if peer is not None else "?", reason)

    def hear(self, address: tuple[str, int]) -> None:
        """The connection from ``address`` has said who it is and is asked for its password (the xmj port: a person
        types it): it still counts, but it is closed to make room only when every other stranger of its address
        (or of the door) has said who it is as well."""
        self._heard.update(s for s in self._open if s.fileno() != -1 and _address_of(s) == address)

    def vouch(self, address: tuple[str, int]) -> None:
        """The connection from ``address`` holds a token: it no longer counts, and is never closed to make room."""
        self._vouched.update(s for s in self._open if s.fileno() != -1 and _address_of(s) == address)


class Capped(trio.abc.Listener[trio.abc.Stream]):
    """A listener (TCP, or TLS over TCP) that counts its connections at its ``door``: one turned away (today only
    one gone before it was let in) is closed at once, and the door's ``refused`` is told its peer and why.  A plain
    one first gets an HTTP 503 (before any byte is read): a WebSocket client then fails at once, where a bare close
    leaves it waiting for its handshake's timeout; a TLS one is closed before its handshake, which fails at once
    too."""

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
    cannot listen.  The sockets :func:`check_listen` bound for that address are the ones that listen."""
    held = _take_held(host, port)
    if held is not None:
        tcp = [trio.SocketListener(trio.socket.from_stdlib_socket(sock)) for sock in held]
    else:
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

    def __init__(self, tokens: dict[str, str], *, say: Say, on_change: Callable[[], None] | None = None,
                 xmj: Iterable[str] = ()) -> None:
        self._xmj_names = frozenset(xmj)  # the names that log in on the xmj port (``xmj:NAME`` seats), not here
        self.slots = {name: Slot(name) for name in tokens if name not in self._xmj_names}
        self._tokens = {name: token.encode() for name, token in tokens.items()}
        self._decoy = secrets.token_bytes(32)
        self.say = say
        self.on_change = on_change
        self.refused: deque[Attempt] = deque(maxlen=REFUSALS_KEPT)  # the latest (a flood of them is not kept)
        self.too_many: dict[str, int] = {}  # connections closed at once for being one too many, by port
        self.port = 0
        self._links: set[Link] = set()
        self._busy: dict[str, trio.Lock] = {name: trio.Lock() for name in tokens}
        self._matches = 0
        self._door = Door(MAX_PENDING, self.turned_away(""))
        self._page: tuple[str, int] | None = None  # the play page's scheme and port (``allow_page``)
        self._xmj_door = Door(MAX_PENDING, self.turned_away("xmj"), where=" to the xmj port")
        self.xmj = XmjDoor([n for n in tokens if n in self._xmj_names], partial(self._check, xmj=True),
                           refuse=self._refuse, say=say, vouch=self._xmj_door.vouch, hear=self._xmj_door.hear,
                           changed=self._changed)
        self.xmj_port = 0

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

    async def listen_xmj(self, host: str, port: int, *,
                         task_status: trio.TaskStatus[list[Any]] = trio.TASK_STATUS_IGNORED) -> None:
        """The xmj port: mj-server's protocol over TCP, for the ``xmj:NAME`` seats (``wrappers.xmj.listen``)."""
        try:
            listeners = await open_capped(host, port, None, self._xmj_door)
        except OSError as exc:
            raise ServeError(f"cannot listen on {host}:{port} (--xmj-listen): {exc.strerror or exc}") from None
        self.xmj_port = listeners[0].port
        await self.xmj.serve(list(listeners), task_status=task_status)

    async def start_xmj(self, nursery: trio.Nursery, host: str, port: int) -> str:
        """Listen for xmj clients in ``nursery``; the address they give as ``--server`` (``HOST:PORT``)."""
        await nursery.start(self.listen_xmj, host, port)
        return f"{host}:{self.xmj_port}"

    def turned_away(self, where: str) -> Callable[[str, str], None]:
        """The ``refused`` of a :class:`Door` (``where``: which port, counted apart): one line for the first
        connection closed to make room, then one per 100 (a flood is one event)."""
        def refused(peer: str, reason: str) -> None:
            count = self.too_many[where] = self.too_many.get(where, 0) + 1
            if count % 100 == 1:
                self._refuse(peer, None, f"{reason} ({count} so far)")

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

    def _check(self, name: str, token: str, xmj: bool = False) -> bool:
        """Constant time in the token, and the same work for an unknown name; a name logs in on its own port only
        (``xmj``: the xmj port's ``xmj:NAME`` seats; else the WebSocket's)."""
        expected = self._tokens.get(name) if (name in self._xmj_names) == xmj else None
        ok = hmac.compare_digest(token.encode(), expected if expected is not None else self._decoy)
        return ok and expected is not None

    def allow_page(self, page_url: str) -> None:
        """The play page is served at ``page_url`` (``http://HOST:PORT``): the one origin a browser may come from."""
        parts = urlsplit(page_url)
        self._page = (parts.scheme, parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80))

    def foreign_origin(self, headers: Sequence[tuple[bytes, bytes]]) -> str | None:
        """Why a handshake's ``Origin`` is refused, or None.  A browser always sends one, and a page of another
        site must not talk to the referee from the person's machine (their browser reaches 127.0.0.1).  Accepted:
        no ``Origin`` at all (not a browser: ``mjref connect``, a script), or the play page's own origin: its
        scheme, its port and its host (on a loopback address, any name of this machine's loopback: ``localhost``,
        ``127.0.0.1``, ``::1``; on a wildcard address such as ``0.0.0.0``, any host, as the person may name the
        machine as they like).  Without a play page, every ``Origin`` is refused."""
        origins = [v for k, v in headers if k.lower() == b"origin"]
        if not origins:
            return None
        shown = printable(origins[0].decode("latin-1"))[:100]
        if len(origins) > 1:
            return "more than one Origin"
        if self._page is None:
            return f"a browser page ({shown}), and this server has no play page"
        scheme, host, port = self._page
        try:
            origin = urlsplit(origins[0].decode("ascii"))
            same = (origin.scheme, origin.port or (443 if origin.scheme == "https" else 80)) == (scheme, port)
        except (UnicodeDecodeError, ValueError):
            same = False
        if not same or origin.hostname is None or not _same_host(origin.hostname, host):
            return f"Origin {shown!r} is not the play page's"
        return None

    async def _handle(self, request: WebSocketRequest) -> None:
        remote = request.remote
        address = (str(remote.address), remote.port) if isinstance(remote, Endpoint) else None
        peer = f"{address[0]}:{address[1]}" if address is not None else str(remote)
        foreign = self.foreign_origin(request.headers)
        if foreign is not None:
            self._refuse(peer, None, foreign)
            with suppress(ConnectionClosed, trio.BrokenResourceError, trio.ClosedResourceError):
                await request.reject(403)
            return
        try:
            ws = await request.accept()
        except ConnectionClosed:
            self._refuse(peer, None, "the connection closed during the WebSocket handshake")
            return
        try:
            frame: str | bytes | None = None
            with trio.move_on_after(m.AUTH_TIMEOUT):
                try:
                    frame = await ws.get_message()
                except ConnectionClosed as exc:  # a frame too large, one that breaks the protocol, or a close
                    r = exc.reason
                    self._refuse(peer, None, f"the connection closed before a hello ({r.code if r else '?'}"
                                             f"{' ' + cut(r.reason) if r and r.reason else ''})")
                    return
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
            if address is not None:  # it holds a token: no longer a stranger, never closed to make room (Door)
                self._door.vouch(address)
            if hello.v != m.PROTOCOL:
                self._refuse(peer, hello.name, f"protocol version {cut(str(hello.v), 24)} (this server speaks "
                                               f"{m.PROTOCOL})")
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
                await self._serve_link(slot, link)
            finally:
                slot.detach(link)
                self._changed()
        except ConnectionClosed:
            return

    async def _serve_link(self, slot: Slot, link: Link) -> None:
        if not await link.send(m.Welcome(v=m.PROTOCOL, name=link.name)):
            return
        rtt = await link.login_rtt()
        if rtt is None:
            self.say(f"{link.name} ({link.peer}): no pong at login; closed")
            await link.close(m.CLOSE_BAD_MESSAGE, "no pong at login")
            return
        slot.attach(link)
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
        return [name for name, slot in self.slots.items() if not slot.connected] + self.xmj.missing()

    def status(self, name: str) -> tuple[bool, str, float | None]:
        """Whether ``name`` is logged in, from where, and its round trip in ms (None: not measured)."""
        if name in self._xmj_names:
            login = self.xmj.logins[name]
            return login.connected or login.taken, login.peer, None
        slot = self.slots[name]
        link = slot.link if slot.connected else None
        return link is not None, link.peer if link else "", link.rtt_ms if link else None

    async def wait_for_all(self, wait: float | None) -> None:
        """Until every remote bot is logged in; after ``wait`` seconds, :class:`ServeError` naming who is not."""
        with trio.move_on_after(wait if wait is not None else float("inf")):
            while self.missing():
                await trio.sleep(0.05)
            return
        raise ServeError(f"after {wait:g} s, still waiting for: {', '.join(self.missing())}")

    # ------------------------------------------------------------------------------------------ matches
    def seat_factory(self, match: str, network_grace: float, timeout: float | None,
                     seats: dict[int, Seat] | None = None, names: Sequence[str] = (),
                     rules: Any = None, table: Sequence[str] = ()) -> RemoteSeats:
        """The seats of the remote bots; an ``xmj:NAME`` seat needs the match's ``rules`` (its options are told to
        the client, and a person's seconds per question are ``human_timeout``, unless ``timeout`` is given) and the
        ``table``'s names by position (the match's, ``referee.match``)."""
        def make(spec: BotSpec, position: int) -> Seat:
            seat: Seat
            if spec.protocol == "xmj":
                if rules is None or not hasattr(rules, "options"):
                    raise ServeError(f"xmj:{spec.name} plays Chinese Classical: it needs a classical ruleset")
                seat = XmjSeat(table[position - 1] if table else spec.name, position,
                               names={q: table[q - 1] for q in (1, 2, 3, 4)} if table else {position: spec.name},
                               options=rules.options, client=self.xmj.client(spec.name),
                               timeout=timeout or rules.human_timeout)
            elif spec.human:  # a person at the page: the table as the seat sees it, the legal answers
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
                      timeout: float | None = None, rules: Any = None
                      ) -> AsyncIterator[tuple[RemoteSeats, Callable[[FaultInfo], None]]]:
        """The remote seats of one match, and the fault hook that tells their wrappers; a remote bot plays one
        match at a time (its connection is one seat), so matches that share one wait for each other.  ``match`` is
        all a wrapper is told of the match: a tournament gives its opaque ``MatchJob.public_id``, never the ID that
        names its group, seed and seating."""
        names = sorted({s.name for s in specs if s.remote})
        unknown = [n for n in names if n not in self.slots and n not in self.xmj.logins]
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
            yield self.seat_factory(match, network_grace, timeout, seats, [s.name for s in specs], rules,
                                    table_names(specs)), on_fault
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
                      shutdown: Shutdown | None = None, xmj_listen: tuple[str, int] | None = None,
                      on_xmj: Callable[[str], None] | None = None, **match_kwargs: Any) -> MatchResult:
    """Listen, wait for every remote bot's wrapper, play the match, tell the wrappers it is over.

    With ``human:NAME`` seats the play page is served too, on ``page`` (HOST, PORT; default: the listening host, any
    free port), over HTTPS with ``tls`` (certificate and key files); ``on_page(name, link)`` gets each person's
    address (with its token).  With ``xmj:NAME`` seats the xmj port listens on ``xmj_listen`` (HOST, PORT);
    ``on_xmj(address)`` is told its ``HOST:PORT``.  ``shutdown`` (``referee.shutdown``): a stop signal ends the
    wait for the players (``Interrupted``) or stops the match in order (its log ends with an ``aborted`` record)."""
    remote_names(specs)
    rules = match_kwargs["rules"]
    humans = [s.name for s in specs if s.human]
    check_xmj_seats(specs, rules, xmj_listen)
    async with trio.open_nursery() as nursery:
        url = await server.start(nursery, listen[0], listen[1], ssl_context)
        if on_listen is not None:
            on_listen(url)
        if xmj_listen is not None:
            address = await server.start_xmj(nursery, xmj_listen[0], xmj_listen[1])
            if on_xmj is not None:
                on_xmj(address)
        if humans:
            from referee.pages import serve_pages

            host, port = page if page is not None else (listen[0], 0)
            door = Door(MAX_PENDING, server.turned_away("page"), where=" to the play page", logins=False)
            page_url = await nursery.start(partial(serve_pages, host, port, server.port, tls, door=door))
            server.allow_page(page_url)
            for name in humans:
                if on_page is not None:
                    on_page(name, server.page_link(page_url, name))
        with shutdown.scope() if shutdown is not None else trio.CancelScope():
            await server.wait_for_all(wait)  # a stop signal here ends the wait: nothing was played yet
        if shutdown is not None:
            shutdown.raise_if_stopped()
        async with server.seating(specs, "1", rules.network_grace, timeout, rules) as (factory, tell):
            def faulted(info: FaultInfo) -> None:
                tell(info)
                if on_fault is not None:
                    on_fault(info)

            result = await run_match(specs, remote=factory, on_fault=faulted, timeout=timeout, block_ms=0.0,
                                     shutdown=shutdown,
                                     **match_kwargs)
        await server.over("the match is over")
        await server.xmj.close()
        nursery.cancel_scope.cancel()
    return result


def check_xmj_seats(specs: Sequence[BotSpec], rules: Any, xmj_listen: tuple[str, int] | None) -> None:
    """Before anything listens: an ``xmj:NAME`` seat needs the xmj port (``--xmj-listen``) and a classical
    ruleset; the xmj port needs such a seat."""
    seats = [s for s in specs if s.remote and s.protocol == "xmj"]
    if seats and xmj_listen is None:
        raise ServeError(f"xmj:{seats[0].name} is played by an xmj client: give --xmj-listen HOST:PORT for it to "
                         "log in")
    if xmj_listen is not None and not seats:
        raise ServeError("--xmj-listen: no xmj:NAME seat to log in to")
    for spec in seats:
        try:
            check_protocol_family(spec, family_of(rules).name)
        except SpecError as exc:
            raise ServeError(str(exc)) from None


__all__ = ["Capped", "Door", "MAX_PENDING", "MAX_PENDING_PER_ORIGIN", "Server", "ServeError", "check_listen",
           "generate_tokens", "load_tokens", "open_capped", "parse_listen", "released_listeners", "remote_names",
           "serve_match", "server_ssl_context"]

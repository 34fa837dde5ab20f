"""The TCP door of ``mjref serve --xmj-listen``: clients of mj-server's protocol (a person's ``xmj``) log in to the
``xmj:NAME`` seats of a match, with the seat's token as their password, as mj-server's ``--auth-basic`` asks it.

The login is mj-server's own (its controller's ``PMsgConnect``/``PMsgAuthInfo``): the client sends ``Connect``
(protocol version, id, name); the door answers ``AuthReqd basic``, whatever the name (an unknown name is told
apart only by the refusal, after a password, as a wrong one is); the client sends ``AuthInfo basic PASSWORD``.  A
wrong name or password gets mj-server's ``ConnectReply <version> 0 Authentication failure`` and the connection is
closed; so does a protocol of another major version (``Protocol major version mismatch``) and a second connection
for a name already held (``Your id is already connected elsewhere``).  A good login is held for its seat: the seat
(``XmjSeat``, through :class:`ListenClient`) reads the ``Connect`` again and logs the client in at the table.

Door rules, as on the WebSocket port (``referee.server``, which owns the listeners and the per-address cap): a
connection must send ``Connect`` within ``AUTH_TIMEOUT`` seconds (``wrappers.messages``'s, the same door's), and
then its password within ``PASSWORD_TIMEOUT`` (a person types it in xmj's dialog); passwords are compared in
constant time by the server's ``check``; every refusal is told to ``refuse`` (the server's log).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from typing import Any

import trio

from ..messages import AUTH_TIMEOUT
from ..seat import FaultKind
from . import messages as m
from .codec import PROTOCOL_VERSION, XmjProtocolError, version_refusal
from .seat import ClientGone, XmjConnection

PASSWORD_TIMEOUT = 120.0  # seconds a client asked for its password has to give it (a person types it)
AUTH_FAILURE = "Authentication failure"  # mj-server's reasons (its controller.c), word for word
ALREADY_CONNECTED = "Your id is already connected elsewhere"
NAME_MISSING = "A non-empty name must be given"
REFUSAL_SEND_TIMEOUT = 2.0  # seconds a refusal may take to send before the connection is cut
LOBBY_MESSAGES = 64  # messages a client that logged in may send before its seat is played (a client sends none)


class XmjLogin:
    """A seat's login: its connection once a client logged in with the seat's name and token."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.conn: XmjConnection | None = None
        self.peer = ""
        self.pending = False  # a login with this name is under way (its password checked): a second one is refused
        self.arrived = trio.Event()
        self.taken = False  # the seat took the connection
        self.released = trio.Event()  # the seat is done with it (or the match over): the connection may close
        self.lobby: trio.CancelScope | None = None  # watches the connection until the seat takes it (``_lobby``)

    @property
    def connected(self) -> bool:
        return self.conn is not None


class XmjDoor:
    """The logins of the ``xmj:NAME`` seats: serve each connection a listener accepts (``serve``) until it logs in
    to one of ``names`` (``check(name, password)``: the server's constant-time token check) or is refused."""

    def __init__(self, names: list[str], check: Callable[[str, str], bool], *,
                 refuse: Callable[[str, str | None, str], None], say: Callable[[str], None],
                 vouch: Callable[[tuple[str, int]], None] = lambda _: None,
                 hear: Callable[[tuple[str, int]], None] = lambda _: None,
                 changed: Callable[[], None] = lambda: None) -> None:
        self.logins = {name: XmjLogin(name) for name in names}
        self._check = check
        self._refuse = refuse
        self._say = say
        self._vouch = vouch
        self._hear = hear
        self._changed = changed

    def missing(self) -> list[str]:
        return [name for name, login in self.logins.items() if not login.connected]

    async def serve(self, listeners: list[Any], *,
                    task_status: trio.TaskStatus[list[Any]] = trio.TASK_STATUS_IGNORED) -> None:
        """Accept on ``listeners`` (trio listeners) for ever, each connection in its own task."""
        await trio.serve_listeners(self.handle, listeners, task_status=task_status)

    async def handle(self, stream: trio.abc.Stream) -> None:
        """One connection's login; one that logged in stays open (this task holds it: ``trio.serve_listeners`` closes
        a stream when its handler returns) until its seat is done with it."""
        address = _peer(stream)
        peer = f"{address[0]}:{address[1]}" if address is not None else "?"
        conn = XmjConnection(stream)
        login: XmjLogin | None = None
        try:
            login = await self._login(conn, peer, address)
            if login is not None and not await self._lobby(login, conn, peer):
                login = None  # it left (or misbehaved) before its seat took it: closed below, its name free again
            if login is not None:
                await login.released.wait()
        except _Refused:
            pass
        except (ClientGone, trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            self._refuse(peer, None, f"the connection ended during login ({exc})")
        finally:
            if login is None:
                with suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    await trio.aclose_forcefully(stream)

    async def _login(self, conn: XmjConnection, peer: str, address: tuple[str, int] | None) -> XmjLogin | None:
        hello: m.Message | None = None
        with trio.move_on_after(AUTH_TIMEOUT):
            hello = await self._next(conn, peer, None)
        if hello is None:
            self._refuse(peer, None, f"no Connect within {AUTH_TIMEOUT:g} s")
            return None
        if not isinstance(hello, m.PMsgConnect):
            self._refuse(peer, None, f"{hello.NAME} before Connect")
            return None
        name = hello.name
        if not name:
            await self._reply(conn, NAME_MISSING)
            self._refuse(peer, None, "Connect without a name")
            return None
        refusal = version_refusal(hello.pvers)
        if refusal is not None:
            await self._reply(conn, refusal)
            self._refuse(peer, name, f"protocol version {hello.pvers} (this server speaks {PROTOCOL_VERSION})")
            return None
        await conn.send([m.CMsgAuthReqd("basic", "")])
        login = self.logins.get(name)
        if address is not None and login is not None and not (login.pending or login.connected or login.taken):
            self._hear(address)  # a person may take a while to type the password: strangers make room first
        auth: m.Message | None = None
        with trio.move_on_after(PASSWORD_TIMEOUT):
            auth = await self._next(conn, peer, name)
        if auth is None:
            self._refuse(peer, name, f"no password within {PASSWORD_TIMEOUT:g} s")
            return None
        if not isinstance(auth, m.PMsgAuthInfo) or auth.authtype != "basic":
            await self._reply(conn, AUTH_FAILURE)
            self._refuse(peer, name, f"{auth.NAME} {getattr(auth, 'authtype', '')} where AuthInfo basic was asked")
            return None
        if not self._check(name, auth.authdata) or login is None:
            await self._reply(conn, AUTH_FAILURE)
            self._refuse(peer, name, "wrong name or token")
            return None
        if address is not None:  # it holds a token: never closed to make room for a stranger
            self._vouch(address)
        if login.pending or login.connected or login.taken:
            await self._reply(conn, ALREADY_CONNECTED)
            self._refuse(peer, name, "already logged in on another connection")
            return None
        login.pending = True
        conn.hold(hello)  # the seat reads the Connect and logs the client in itself
        login.conn = conn
        login.peer = peer
        login.arrived.set()
        self._say(f"{name} logged in with xmj from {peer}")
        self._changed()
        return login

    async def _lobby(self, login: XmjLogin, conn: XmjConnection, peer: str) -> bool:
        """Watch a client that logged in until its seat takes the connection (``ListenClient.open`` cancels this)
        or the match is over: True.  A client that closes its connection meanwhile, sends bytes that are no
        message, or more than ``LOBBY_MESSAGES`` messages, loses its login (False): its name may log in again,
        where it was held, refused as "connected elsewhere", for the whole match.  What it sent is kept for the
        seat."""
        with trio.CancelScope() as scope:
            login.lobby = scope
            try:
                while conn.fill() <= LOBBY_MESSAGES:
                    await conn.wait_readable()
                why = f"more than {LOBBY_MESSAGES} messages before its seat was played"
            except ClientGone:
                why = "it left before its seat was played"
            except XmjProtocolError as exc:
                why = f"not a message of mj-server's protocol ({exc})"
            login.conn, login.pending, login.peer, login.arrived, login.lobby = None, False, "", trio.Event(), None
            self._refuse(peer, login.name, f"login given up: {why}")
            self._changed()
            return False
        login.lobby = None
        return True

    async def _next(self, conn: XmjConnection, peer: str, name: str | None) -> m.Message:
        """The client's next message; one that does not parse is refused (logged, and ``_Refused`` raised)."""
        try:
            return await conn.receive()
        except XmjProtocolError as exc:
            self._refuse(peer, name, f"not a message of mj-server's protocol ({exc})")
            raise _Refused from None

    @staticmethod
    async def _reply(conn: XmjConnection, reason: str) -> None:
        """mj-server's refusal: ``ConnectReply`` with id 0 and the reason (the caller then closes)."""
        with trio.move_on_after(REFUSAL_SEND_TIMEOUT), suppress(ClientGone):
            await conn.send([m.CMsgConnectReply(PROTOCOL_VERSION, 0, reason)])

    def client(self, name: str) -> ListenClient:
        return ListenClient(self.logins[name])

    async def close(self) -> None:
        """The match is over: every connection held is let go (closed by its task)."""
        for login in self.logins.values():
            if login.lobby is not None:
                login.lobby.cancel()
            login.conn = None
            login.released.set()


class _Refused(Exception):
    """A login refused and logged already: the connection is closed."""


class ListenClient:
    """The ``Client`` of an ``xmj:NAME`` seat (``wrappers.xmj.seat``): the connection its client logged in on."""

    gone: FaultKind = "disconnected"  # a person's client that is not there left (reconnecting is not supported)
    restarts = False  # a person's connection: kept after a fault

    def __init__(self, login: XmjLogin) -> None:
        self.login = login

    async def open(self) -> XmjConnection:
        await self.login.arrived.wait()  # the seat bounds the wait (its LOGIN_TIMEOUT)
        if self.login.conn is None or self.login.taken:
            raise ClientGone(f"{self.login.name}'s client is not connected")
        if self.login.lobby is not None:
            self.login.lobby.cancel()  # at once: its wait for the socket is given up before the seat's begins
        self.login.taken = True
        return self.login.conn

    async def stop(self) -> None:
        """The seat closed the connection; its task lets it go."""
        self.login.conn = None
        self.login.released.set()


def _peer(stream: trio.abc.Stream) -> tuple[str, int] | None:
    sock = getattr(stream, "socket", None)
    try:
        address = sock.getpeername() if sock is not None else None
        return (str(address[0]), int(address[1])) if address else None
    except (OSError, IndexError, TypeError, ValueError):
        return None


__all__ = ["ALREADY_CONNECTED", "AUTH_FAILURE", "ListenClient", "PASSWORD_TIMEOUT", "XmjDoor", "XmjLogin"]

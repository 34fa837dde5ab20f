"""The WebSocket library (trio-websocket) as both ends of the network use it: one deadline for a peer that does
not take what it is sent, one bounded close, and one fix of the library.

The fix: trio-websocket's reader task answers a ping with a pong, and a message over its size limit with a close,
whatever the connection's state; once this end has sent its close (wsproto's ``LOCAL_CLOSING``) wsproto refuses
both with a ``LocalProtocolError``, which escaped the connection's task and ended the whole server.  A stranger
did it with one ping sent right after the close that refused its login (trio-websocket issue #184; the fix of pull
request #198 is not released).  Here such a frame is dropped: this end's close is already on its way, and the
close handshake is bounded (``close_ws``).
"""

from __future__ import annotations

from typing import Any

import trio
from trio_websocket import ConnectionClosed, WebSocketConnection
from wsproto.connection import ConnectionState
from wsproto.events import CloseConnection, Pong

SEND_TIMEOUT = 2.0  # a frame the other end takes no room for, or a close it does not answer: then it is cut

_SENDABLE = {Pong: {ConnectionState.OPEN}, CloseConnection: {ConnectionState.OPEN, ConnectionState.REMOTE_CLOSING}}
# The library's own method, wrapped; a version without it (its internals changed) is left as it is, and
# tests/match/test_server.py's test_frames_after_a_refusal_never_end_the_server says whether it needs the fix.
_library_send = getattr(WebSocketConnection, "_send", None)


async def _send_unless_closed(self: WebSocketConnection, event: Any) -> None:
    states = _SENDABLE.get(type(event))
    if states is not None and self._wsproto.state not in states:
        return  # a pong or a close this end may no longer send (see above)
    await _library_send(self, event)  # type: ignore[misc]


if _library_send is not None:
    WebSocketConnection._send = _send_unless_closed  # type: ignore[method-assign]


async def close_ws(ws: WebSocketConnection, code: int, *, wait: bool = True) -> None:
    """Close ``ws`` with ``code``, waiting at most ``SEND_TIMEOUT`` for the other end's answer (not at all with
    ``wait=False``); then the TCP connection is cut.  A peer that never answers a close, or never reads, holds
    nothing: not a task, not a socket, not one of the server's connections."""
    with trio.move_on_after(SEND_TIMEOUT if wait else 0):
        await ws.aclose(code)  # cancelled, it still closes the stream (trio-websocket's aclose)


CLOSED_POLL = 0.1  # seconds between looks at whether a connection closed while a ping waits for its pong


async def ping(ws: WebSocketConnection, timeout: float) -> bool:
    """A ping, and its pong within ``timeout`` seconds: False if none came, or if the connection closed first.
    The library's ``ping`` waits for its pong even once the connection is closed (nothing wakes it), so a link
    that dropped would otherwise be noticed only at the timeout, holding its name that long."""
    answered = False
    async with trio.open_nursery() as nursery:

        async def closed() -> None:
            while ws.closed is None:
                await trio.sleep(CLOSED_POLL)
            nursery.cancel_scope.cancel()

        nursery.start_soon(closed)
        with trio.move_on_after(timeout):
            try:
                await ws.ping()
                answered = True
            except ConnectionClosed:
                pass
        nursery.cancel_scope.cancel()
    return answered


__all__ = ["SEND_TIMEOUT", "close_ws", "ping"]

"""The play page's HTTP side: a small ASGI app (Starlette) served by Hypercorn, in the referee's trio loop.

The WebSocket server (``referee.server``, trio-websocket) speaks only WebSocket, so the page itself (one HTML
document, its script and its style, all from the package: no build step, nothing from elsewhere) is served here,
on its own port.  The page then logs in to the WebSocket server like a wrapper (``hello`` with its name and token,
taken from the address's fragment), so every rule of a remote seat holds for it: the token check, one connection
per name, the frame limits, the deadline at the server.

Every response forbids what the page does not need (a Content-Security-Policy allowing scripts and styles from
this server only and a WebSocket to the referee's port only; no caching; no referrer).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import trio
from hypercorn.config import Config
from hypercorn.trio.tcp_server import TCPServer
from hypercorn.trio.worker_context import WorkerContext
from hypercorn.utils import wrap_app
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from referee.errors import InputError
from referee.html import play_page
from referee.server import Door, open_capped, server_ssl_context, socket_of

MAX_SECONDS = 10.0  # a connection to the page's port lives at most this long (the page and its two files take one)


def _csp(request: Request, ws_port: int, secure: bool) -> str:
    host = request.url.hostname or "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    ws = f"{'wss' if secure else 'ws'}://{host}:{ws_port}"
    return (f"default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
            f"connect-src {ws}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def page_app(ws_port: int, secure: bool = False) -> ASGIApp:
    """The app: ``/`` (the page), ``/play.js``, ``/play.css``; anything else is 404."""
    script = play_page.script()
    style = play_page.style()

    async def index(request: Request) -> Response:
        return Response(play_page.page(ws_port), media_type="text/html; charset=utf-8")

    async def js(request: Request) -> Response:
        return Response(script, media_type="text/javascript; charset=utf-8")

    async def css(request: Request) -> Response:
        return Response(style, media_type="text/css; charset=utf-8")

    app = Starlette(routes=[Route("/", index), Route("/play.js", js), Route("/play.css", css)])
    app.router.redirect_slashes = False  # /play.js/ is a 404, not a redirect built from the request's Host
    return with_headers(app, lambda request: _csp(request, ws_port, secure))


def with_headers(app: ASGIApp, csp_of: Callable[[Request], str]) -> ASGIApp:
    """``app`` whose every response, a 404 or 405 too, carries the policy ``csp_of(request)`` and the no-store,
    no-referrer, no-sniff headers (every page mjref serves)."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        csp = csp_of(Request(scope)).encode("latin-1")

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"content-security-policy", csp),
                                      (b"cache-control", b"no-store"), (b"referrer-policy", b"no-referrer"),
                                      (b"x-content-type-options", b"nosniff")]
            await send(message)

        await app(scope, receive, sending)

    return wrapped


async def serve_pages(host: str, port: int, ws_port: int, tls: tuple[Path, Path] | None = None, *,
                      door: Door,
                      task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
    """Serve the play page on ``host:port`` (0: any free port) until cancelled; ``task_status`` gets its base URL
    (``http://HOST:PORT``, or https with ``tls``: certificate and key files).

    Hypercorn serves each connection, on listeners of the referee's own (``referee.server.open_capped``) whose
    ``door`` keeps a number of connections at once, fewer from one address (a new one takes the oldest one's place:
    idle clients cannot keep the person from loading the page), and each lives at most ``MAX_SECONDS``.  Hypercorn
    alone kept a connection whose client never read its response for ever (its writes are shielded from
    cancellation), so enough of them took every file descriptor of the referee."""
    await serve_app(page_app(ws_port, tls is not None), host, port, tls, door=door, what="the play page",
                    task_status=task_status)


async def serve_app(asgi: ASGIApp, host: str, port: int, tls: tuple[Path, Path] | None = None, *, door: Door,
                    what: str, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
    """Serve ``asgi`` as :func:`serve_pages` serves the play page (the same listeners, door and time limit); a port
    that cannot be listened on is an ``InputError`` naming ``what``."""
    config = Config()
    config.loglevel = "WARNING"
    config.accesslog = None
    shown = f"[{host}]" if ":" in host else host
    context = server_ssl_context(*tls) if tls is not None else None
    try:
        listeners = await open_capped(host, port, context, door)
    except OSError as exc:  # a port in use, an unknown host
        raise InputError(f"cannot serve {what} on {host}:{port}: {exc.strerror or exc}") from None
    app = wrap_app(asgi, config.wsgi_max_body_size, "asgi")  # type: ignore[arg-type]
    worker = WorkerContext(None)

    async def connection(stream: trio.abc.Stream) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_cut_after, stream, nursery.cancel_scope)
            await TCPServer(app, config, worker, {}, stream)  # type: ignore[arg-type]
            nursery.cancel_scope.cancel()

    async with trio.open_nursery() as nursery:
        await nursery.start(trio.serve_listeners, connection, listeners)
        task_status.started(f"{'https' if tls else 'http'}://{shown}:{listeners[0].port}")


async def _cut_after(stream: trio.abc.Stream, scope: trio.CancelScope) -> None:
    """After ``MAX_SECONDS``, end the connection: cancel what waits (a TLS handshake, a read) and close the socket,
    which wakes a write blocked under Hypercorn's shield (a cancellation does not)."""
    await trio.sleep(MAX_SECONDS)
    scope.cancel()
    sock = socket_of(stream)
    if sock is not None:
        sock.close()


__all__ = ["page_app", "serve_app", "serve_pages", "with_headers"]

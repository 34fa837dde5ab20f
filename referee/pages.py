"""The play page's HTTP side: a small ASGI app (Starlette) under Hypercorn's trio worker, in the referee's trio loop.

The WebSocket server (``referee.server``, trio-websocket) speaks only WebSocket, so the page itself (one HTML
document, its script and its style, all from the package: no build step, nothing from elsewhere) is served here,
on its own port.  The page then logs in to the WebSocket server like a wrapper (``hello`` with its name and token,
taken from the address's fragment), so every rule of a remote seat holds for it: the token check, one connection
per name, the frame limits, the deadline at the server.

Every response forbids what the page does not need (a Content-Security-Policy allowing scripts and styles from
this server only and a WebSocket to the referee's port only; no caching; no referrer).
"""

from __future__ import annotations

from pathlib import Path

import trio
from hypercorn.config import Config
from hypercorn.trio import serve
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from referee.errors import InputError
from referee.html import play_page


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

    async def with_headers(scope: Scope, receive: Receive, send: Send) -> None:
        """Every response, a 404 or 405 too, carries the policy and the no-store, no-sniff headers."""
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        csp = _csp(Request(scope), ws_port, secure).encode("latin-1")

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"content-security-policy", csp),
                                      (b"cache-control", b"no-store"), (b"referrer-policy", b"no-referrer"),
                                      (b"x-content-type-options", b"nosniff")]
            await send(message)

        await app(scope, receive, sending)

    return with_headers


async def serve_pages(host: str, port: int, ws_port: int, tls: tuple[Path, Path] | None = None, *,
                      task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
    """Serve the play page on ``host:port`` (0: any free port) until cancelled; ``task_status`` gets its base URL
    (``http://HOST:PORT``, or https with ``tls``: certificate and key files)."""
    config = Config()
    shown = f"[{host}]" if ":" in host else host
    config.bind = [f"{shown}:{port}"]
    config.loglevel = "WARNING"
    config.accesslog = None
    if tls is not None:
        config.certfile, config.keyfile = str(tls[0]), str(tls[1])
    app = page_app(ws_port, tls is not None)

    async def run(*, task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED) -> None:
        try:
            await serve(app, config, task_status=task_status)  # type: ignore[arg-type]
        except* OSError as group:  # the bind, inside Hypercorn's nurseries: a port in use, an unknown host
            exc = group.exceptions[0]
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise InputError(f"cannot serve the play page on {host}:{port}: {reason}") from None

    async with trio.open_nursery() as nursery:
        binds: list[str] = await nursery.start(run)
        bound = binds[0].rpartition(":")[2]  # the port the OS gave (port 0: any free one)
        task_status.started(f"{'https' if tls else 'http'}://{shown}:{bound}")


__all__ = ["page_app", "serve_pages"]

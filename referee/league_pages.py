"""The league's page over HTTP: a read-only Starlette app served by Hypercorn in the league's trio loop, on the
play page's listeners (``referee.pages.serve_app``: the same connection caps and time limit, the same headers).

``/`` is the page (``referee.html.league_page``), ``/api/standings`` and ``/api/matches`` its JSON.  The data come
from callables the command hands in (floor 6 wires the league's store in; this module reads no store), run in a
worker thread so that a slow read never holds the matches up.  Anything but GET and HEAD is refused (405).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from referee.html import league_page
from referee.pages import with_headers

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
MAX_MATCHES = 100  # /api/matches?limit=N: at most this many


def league_app(standings: Callable[[], dict[str, Any]], matches: Callable[[int], list[dict[str, Any]]]) -> ASGIApp:
    """The app: ``standings()`` gives ``/api/standings``, ``matches(n)`` the ``n`` latest matches, newest first."""
    script, style, html = league_page.script(), league_page.style(), league_page.page()

    async def index(request: Request) -> Response:
        return Response(html, media_type="text/html; charset=utf-8")

    async def js(request: Request) -> Response:
        return Response(script, media_type="text/javascript; charset=utf-8")

    async def css(request: Request) -> Response:
        return Response(style, media_type="text/css; charset=utf-8")

    async def api_standings(request: Request) -> Response:
        return JSONResponse(await trio.to_thread.run_sync(standings))

    async def api_matches(request: Request) -> Response:
        text = request.query_params.get("limit", "20")
        if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= MAX_MATCHES:
            return JSONResponse({"error": f"limit: give a whole number from 1 to {MAX_MATCHES}"}, status_code=400)
        return JSONResponse({"matches": await trio.to_thread.run_sync(matches, int(text))})

    app = Starlette(routes=[Route("/", index), Route("/league.js", js), Route("/league.css", css),
                            Route("/api/standings", api_standings), Route("/api/matches", api_matches)])
    app.router.redirect_slashes = False
    return with_headers(app, lambda request: CSP)


__all__ = ["league_app"]

"""The league's page over HTTP: a read-only Starlette app served by Hypercorn in the league's trio loop, on the
play page's listeners (``referee.pages.serve_app``: the same connection caps and time limit, the same headers).

``/`` is the page (``referee.html.league_page``), ``/api/standings`` and ``/api/matches`` its JSON; ``/bot/NAME``
a bot's page and ``/api/bots/NAME`` its JSON.  The data come
from callables the command hands in (floor 6 wires the league's store in; this module reads no store), run in a
worker thread so that a slow read never holds the matches up.  Anything but GET and HEAD is refused (405).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

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
MAX_BODY = 20 << 20  # bytes of a submission (tournaments.submissions.MAX_ARCHIVE says the same to the author)


class Desk(Protocol):
    """Submissions and the organiser's actions (``tournaments.league.LeagueDesk``): each gives (status, JSON)."""

    async def submit(self, token: str | None, bot: str, data: bytes) -> tuple[int, dict[str, Any]]: ...
    async def act(self, token: str | None, action: str, name: str) -> tuple[int, dict[str, Any]]: ...
    def entry(self, token: str | None, name: str) -> tuple[int, dict[str, Any]]: ...
    def entries(self) -> list[dict[str, Any]]: ...


def _token(request: Request) -> str | None:
    value = request.headers.get("authorization", "")
    return value[7:].strip() or None if value.lower().startswith("bearer ") else None


def _number(request: Request, name: str, default: int, low: int, high: int) -> int | Response:
    """A whole number in the query, or the 400 that says what to give: read only when it has no more digits than
    ``high`` (``int()`` of 5,000 digits raised past Python's limit on them: an HTTP 500)."""
    text = request.query_params.get(name, str(default))
    if not (text.isascii() and text.isdigit() and len(text) <= len(str(high)) and low <= int(text) <= high):
        return JSONResponse({"error": f"{name}: give a whole number from {low} to {high}"}, status_code=400)
    return int(text)


def _foreign_origin(request: Request) -> bool:
    """A browser's request from another site (a POST a page elsewhere makes): refused, as the play page's server
    refuses a WebSocket from another origin.  Tools send no Origin."""
    origin = request.headers.get("origin")
    return origin is not None and origin != f"{request.url.scheme}://{request.headers.get('host', '')}"


VIEWER_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"
"""A match's viewer page is one self-contained document (``referee.viewer``): its own inline script and style."""


def league_app(standings: Callable[[], dict[str, Any]], matches: Callable[[int], list[dict[str, Any]]],
               desk: Desk | None = None, viewer: Callable[[str], str | None] | None = None,
               bot: Callable[[str], dict[str, Any] | None] | None = None) -> ASGIApp:
    """The app: ``standings()`` gives ``/api/standings``, ``matches(n)`` the ``n`` latest matches, newest first,
    ``viewer(id)`` a match's viewer page at ``/match/ID`` (None: 404), ``bot(name)`` a bot's data at
    ``/api/bots/NAME`` beside its page ``/bot/NAME`` (None: 404);
    with a ``desk``, ``POST /api/submit?bot=NAME`` (the archive as the body), ``GET /api/entries``,
    ``GET /api/entries/NAME`` and ``POST /api/entries/NAME/ACTION``, each with ``Authorization: Bearer TOKEN``
    where a token is needed."""
    script, style = league_page.script(), league_page.style()
    html, bot_html = league_page.page(), league_page.bot_page()

    async def index(request: Request) -> Response:
        return Response(html, media_type="text/html; charset=utf-8")

    async def js(request: Request) -> Response:
        return Response(script, media_type="text/javascript; charset=utf-8")

    async def css(request: Request) -> Response:
        return Response(style, media_type="text/css; charset=utf-8")

    async def api_standings(request: Request) -> Response:
        return JSONResponse(await trio.to_thread.run_sync(standings))

    async def api_matches(request: Request) -> Response:
        limit = _number(request, "limit", 20, 1, MAX_MATCHES)
        if isinstance(limit, Response):
            return limit
        return JSONResponse({"matches": await trio.to_thread.run_sync(matches, limit)})

    async def submit(request: Request) -> Response:
        assert desk is not None
        if _foreign_origin(request):
            return JSONResponse({"error": "a request from another site"}, status_code=403)
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                return JSONResponse({"error": f"the archive is larger than {MAX_BODY >> 20} MB"}, status_code=413)
        status, data = await desk.submit(_token(request), request.query_params.get("bot", ""), bytes(body))
        return JSONResponse(data, status_code=status)

    async def entries(request: Request) -> Response:
        assert desk is not None
        return JSONResponse({"entries": desk.entries()})

    async def entry(request: Request) -> Response:
        assert desk is not None
        status, data = desk.entry(_token(request), request.path_params["name"])
        return JSONResponse(data, status_code=status)

    async def act(request: Request) -> Response:
        assert desk is not None
        if _foreign_origin(request):
            return JSONResponse({"error": "a request from another site"}, status_code=403)
        status, data = await desk.act(_token(request), request.path_params["action"], request.path_params["name"])
        return JSONResponse(data, status_code=status)

    async def match_page(request: Request) -> Response:
        assert viewer is not None
        html = await trio.to_thread.run_sync(viewer, request.path_params["id"])
        if html is None:
            return JSONResponse({"error": "no such match, or its table is still being played"}, status_code=404)
        return Response(html, media_type="text/html; charset=utf-8")

    async def bot_page(request: Request) -> Response:
        return Response(bot_html, media_type="text/html; charset=utf-8")

    async def api_bot(request: Request) -> Response:
        assert bot is not None
        data = await trio.to_thread.run_sync(bot, request.path_params["name"])
        if data is None:
            return JSONResponse({"error": "no such bot in this league"}, status_code=404)
        return JSONResponse(data)

    routes = [Route("/", index), Route("/league.js", js), Route("/league.css", css),
              Route("/api/standings", api_standings), Route("/api/matches", api_matches)]
    if bot is not None:  # the page reads the bot's name from its address: nothing of it is written into the HTML
        routes += [Route("/bot/{name}", bot_page), Route("/api/bots/{name}", api_bot)]
    if viewer is not None:
        routes.append(Route("/match/{id}", match_page))
    if desk is not None:
        routes += [Route("/api/submit", submit, methods=["POST"]), Route("/api/entries", entries),
                   Route("/api/entries/{name}", entry), Route("/api/entries/{name}/{action}", act, methods=["POST"])]
    app = Starlette(routes=routes)
    app.router.redirect_slashes = False
    return with_headers(app, lambda request: VIEWER_CSP if request.url.path.startswith("/match/") else CSP)


__all__ = ["league_app"]

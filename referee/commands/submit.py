"""``mjref submit URL --token T PATH``: hand a bot in to a running league (its page's address), wait for its check,
and print the report.  PATH is a folder (packed here as a tar.gz) or an archive (tar, tar.gz or zip) with a
``bot.toml`` at its top; see docs/league.md."""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from referee.commands import fail
from referee.errors import printable
from referee.validation import validation_reason

WAIT_SECONDS = 600.0  # the longest a check is waited for
POLL_SECONDS = 1.0
MAX_REPLY = 16 << 20  # bytes of a server's reply read at most: a league's replies are a few kilobytes


class _Reply(BaseModel):
    """What ``submit`` reads of a league's JSON reply: the server is another machine, so its reply is validated
    like any input (a field of the wrong type is one line naming it, never a traceback); fields it does not use
    are ignored.  Its text is printed through ``printable``."""

    model_config = ConfigDict(strict=True, extra="ignore")


Text = Annotated[str, Field(max_length=4096)]
Name = Annotated[str, Field(min_length=1, max_length=200)]


class _Submitted(_Reply):
    entrant: Name


class _Scenario(_Reply):
    name: Text
    status: Text
    note: Text | None = None
    received: Text | None = None


class _Report(_Reply):
    scenarios: list[_Scenario] = []
    stderr_tail: list[Text] = []
    error: Text | None = None


class _Entry(_Reply):
    status: Annotated[str, Field(pattern=r"^[a-z_]{1,40}$")]
    report: _Report | None = None


class _Refusal(_Reply):
    error: Text


M = TypeVar("M", bound=_Reply)


class ReplyError(Exception):
    """A league's reply that is not what its API gives: too large, not JSON, or JSON of another shape."""


def register(sub: Any, name: str, summary: str) -> None:
    p = sub.add_parser(name, help=summary, description="Submit a bot to a league: it enters only if `mjref check` "
                       "passes in the league's box; the check's report is printed. A new submission of the same bot is "
                       "its next version (BOT.v2, …), keeping the old one's history.",
                       epilog="exit status: 0 the bot entered the league, 1 its check failed, 2 refused (a bad "
                       "archive or bot file, a wrong token) or bad usage.")
    p.add_argument("url", metavar="URL", help="the league's page, e.g. http://league.example:8080/")
    p.add_argument("path", type=Path, metavar="PATH", help="a folder or an archive holding bot.toml")
    p.add_argument("--token", required=True, help="your author's token (mjref league add-author)")
    p.add_argument("--bot", default=None, help="the bot's name in the league (default: the folder's or archive's)")
    p.add_argument("--json", action="store_true", help="print the entry and its report as JSON")
    p.set_defaults(func=run)


def _call(url: str, token: str, data: bytes | None = None) -> tuple[int, Any]:
    """The status and the JSON body of one request to the league (``ReplyError``: a body too large or not JSON;
    an error status's body that is not JSON: ``{"error": "HTTP 404"}``)."""
    req = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET",
                                 headers={"Authorization": f"Bearer {token}",
                                          "Content-Type": "application/octet-stream"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:  # noqa: S310 - an http(s) URL, checked by run
            return r.status, _json(r.read(MAX_REPLY + 1))
    except urllib.error.HTTPError as exc:
        try:
            return exc.code, _json(exc.read(MAX_REPLY + 1))
        except (ReplyError, OSError, http.client.HTTPException):
            return exc.code, {"error": f"HTTP {exc.code}"}


def _json(body: bytes) -> Any:
    if len(body) > MAX_REPLY:
        raise ReplyError(f"a reply larger than {MAX_REPLY >> 20} MB")
    try:
        return json.loads(body)
    except (ValueError, RecursionError) as exc:  # not JSON, a number of too many digits, nesting past the stack
        raise ReplyError(f"a reply that is not JSON ({type(exc).__name__})") from None


def _read(model: type[M], reply: Any, what: str) -> M:
    """``reply`` as ``model`` (``ReplyError`` naming ``what`` and the bad field)."""
    try:
        return model.model_validate(reply)
    except ValidationError as exc:
        kind, loc, msg = validation_reason(exc)
        if kind in ("model_type", "model_attributes_type"):  # not "… or instance of _Entry": the class is ours
            msg = "not a JSON object"
        raise ReplyError(f"{what}: {f'{loc}: ' if loc else ''}{msg}") from None


def _refusal(status: int, reply: Any) -> str:
    """Why the league refused a request: its reply's ``error``, else the HTTP status."""
    try:
        return _Refusal.model_validate(reply).error
    except ValidationError:
        return f"HTTP {status}"


def run(args: argparse.Namespace) -> int:
    from tournaments.submissions import SubmissionError, pack_folder

    base = args.url.rstrip("/")
    try:
        parts = urllib.parse.urlsplit(base)
        parts.port  # noqa: B018 - a port past 65535 or not a number: ValueError here, not at the first request
    except ValueError as exc:
        return fail("submit", f"URL {args.url}: {exc}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return fail("submit", f"URL {args.url}: give the league page's http:// or https:// address")
    token: str = args.token
    if not token or not token.isascii() or not token.isprintable() or " " in token:
        return fail("submit", "--token: an author's token is printable ASCII without spaces")
    path: Path = args.path
    try:
        if path.is_dir():
            data = pack_folder(path)
        elif path.is_file():
            data = path.read_bytes()
        else:
            return fail("submit", f"{path}: no such folder or archive")
    except (SubmissionError, OSError) as exc:
        return fail("submit", str(exc))
    bot = args.bot or path.name.split(".")[0]
    try:
        status, reply = _call(f"{base}/api/submit?{urllib.parse.urlencode({'bot': bot})}", token, data)
        if status != 202:
            return fail("submit", f"refused: {_refusal(status, reply)}")
        name = _read(_Submitted, reply, "the reply to the submission").entrant
        print(f"submitted as {printable(name)}; checking…", file=sys.stderr, flush=True)
        deadline = time.monotonic() + WAIT_SECONDS
        while True:  # the name is one segment of the path, whatever the server called it ("a/../b", "x?y")
            status, reply = _call(f"{base}/api/entries/{urllib.parse.quote(name, safe='')}", token)
            if status != 200:
                return fail("submit", f"{name}: {_refusal(status, reply)}")
            entry = _read(_Entry, reply, f"the entry {name}")
            if entry.status != "checking":
                break
            if time.monotonic() > deadline:
                return fail("submit", f"{name}: still being checked after {WAIT_SECONDS:g} s")
            time.sleep(POLL_SECONDS)
    except ReplyError as exc:
        return fail("submit", f"{args.url}: {exc}")
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
        return fail("submit", f"{args.url}: {getattr(exc, 'reason', exc)}")
    if args.json:
        print(json.dumps(reply, indent=2))  # ASCII: every control character is a \u escape
    else:
        report = entry.report or _Report()
        for s in report.scenarios:
            mark = "pass" if s.status == "pass" else "FAIL"
            print(printable(f"{mark}  {s.name}: {s.note or s.received or ''}")[:160])
        for line in report.stderr_tail:
            print(f"  stderr: {printable(line)}")
        if report.error:
            print(f"  {printable(report.error)}")
        verdict = "entered the league" if entry.status == "active" else \
            "was refused: its check failed" if entry.status == "refused" else f"is {entry.status}"
        print(f"{printable(name)} {verdict}")
    return 0 if entry.status == "active" else 1

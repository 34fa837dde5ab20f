"""``mjref submit URL --token T PATH``: hand a bot in to a running league (its page's address), wait for its check,
and print the report.  PATH is a folder (packed here as a tar.gz) or an archive (tar, tar.gz or zip) with a
``bot.toml`` at its top; see docs/league.md."""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from referee.commands import fail

WAIT_SECONDS = 600.0  # the longest a check is waited for
POLL_SECONDS = 1.0


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


def _call(url: str, token: str, data: bytes | None = None) -> tuple[int, dict[str, Any]]:
    req = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET",
                                 headers={"Authorization": f"Bearer {token}",
                                          "Content-Type": "application/octet-stream"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:  # noqa: S310 - an http(s) URL, checked by run
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        try:
            return exc.code, json.loads(exc.read())
        except ValueError:
            return exc.code, {"error": f"HTTP {exc.code}"}


def run(args: argparse.Namespace) -> int:
    from tournaments.submissions import SubmissionError, pack_folder

    base = args.url.rstrip("/")
    if urllib.parse.urlsplit(base).scheme not in ("http", "https"):
        return fail("submit", f"{args.url}: give the league page's http:// or https:// address")
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
        status, reply = _call(f"{base}/api/submit?{urllib.parse.urlencode({'bot': bot})}", args.token, data)
        if status != 202:
            return fail("submit", f"refused: {reply.get('error', status)}")
        name = reply["entrant"]
        print(f"submitted as {name}; checking…", file=sys.stderr, flush=True)
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            status, entry = _call(f"{base}/api/entries/{urllib.parse.quote(name)}", args.token)
            if status != 200:
                return fail("submit", f"{name}: {entry.get('error', status)}")
            if entry["status"] != "checking":
                break
            if time.monotonic() > deadline:
                return fail("submit", f"{name}: still being checked after {WAIT_SECONDS:g} s")
            time.sleep(POLL_SECONDS)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        return fail("submit", f"{args.url}: {getattr(exc, 'reason', exc)}")
    if args.json:
        print(json.dumps(entry, indent=2))
    else:
        report = entry.get("report") or {}
        for s in report.get("scenarios", []):
            mark = "pass" if s["status"] == "pass" else "FAIL"
            print(f"{mark}  {s['name']}: {s.get('note') or s.get('received') or ''}"[:160])
        for line in report.get("stderr_tail", []):
            print(f"  stderr: {line}")
        verdict = "entered the league" if entry["status"] == "active" else "was refused: its check failed"
        print(f"{name} {verdict}")
    return 0 if entry["status"] == "active" else 1

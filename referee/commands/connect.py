"""``mjref connect URL --token TOKEN [--name NAME] BOT``: the wrapper, on the player's machine.

A thin face over ``wrappers.relay``: it checks the BOT before connecting (exit 2 if it cannot run), says what
happens (logged in, hand N, faults the server reported) with the time, and exits 0 when the server says it is
over, 2 when the server refuses the token.
"""

from __future__ import annotations

import argparse
import ssl
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import trio

from bots.base import BUILTIN_NAMES
from referee.commands import fail, make_console
from referee.errors import InputError, printable
from referee.userfiles import check_output_file, read_bytes
from wrappers.relay import Refused, relay
from wrappers.spec import REMOTE_NAME, SpecError, parse_bot


def register(sub: Any, name: str, summary: str) -> None:
    p = sub.add_parser(
        name,
        help=summary,
        description="Log in to `mjref serve` at URL (ws://HOST:PORT or wss://HOST:PORT) and play the seat NAME "
        "with BOT, a bot executable on this machine (a command line in one quoted string, or a bot TOML file). "
        "It reconnects if the connection drops, and exits 0 when the server says it is over.",
    )
    p.add_argument("url", metavar="URL", help="the server: ws://HOST:PORT or wss://HOST:PORT")
    p.add_argument("bot", metavar="BOT", help="the bot to run here: a command line (quoted) or a bot TOML file")
    p.add_argument("--token", required=True, help="the token the server gave for NAME")
    p.add_argument("--name", default=None, help="the remote seat's name (default: the bot's name)")
    p.add_argument("--cafile", type=Path, default=None, metavar="FILE",
                   help="for wss://: trust the certificate authority in this PEM file (a self-signed server)")
    p.add_argument("--stderr", type=Path, default=None, metavar="FILE",
                   help="where the bot's stderr goes (default: NAME.stderr in the current folder)")
    p.add_argument("--once", action="store_true", help="do not reconnect: exit 2 if the connection drops")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not args.url.startswith(("ws://", "wss://")):
        return fail("connect", f"URL {args.url!r}: give ws://HOST:PORT or wss://HOST:PORT")
    try:  # what the websocket client splits: ws://[::1, a port of 99999 or no host was a traceback
        parts = urlsplit(args.url)
        host, _port = parts.hostname, parts.port
    except ValueError as exc:
        return fail("connect", f"URL {args.url!r}: {exc}")
    if not host:
        return fail("connect", f"URL {args.url!r}: give ws://HOST:PORT or wss://HOST:PORT")
    try:
        spec = parse_bot(args.bot, set(BUILTIN_NAMES))
        if spec.cmd is None:
            raise SpecError(f"bot {args.bot!r}: a wrapper runs a bot executable; a built-in bot plays at the server "
                            f"(or run it as a process: \"python -m bots.{args.bot.split(':')[0]}\")")
        spec.check_runnable()
    except SpecError as exc:
        return fail("connect", str(exc))
    name = args.name or spec.name
    if not REMOTE_NAME.fullmatch(name):
        return fail("connect", f"--name {name!r}: a name is 1-64 letters, digits, '_', '.', '-'")
    context: ssl.SSLContext | None = None
    if args.cafile is not None:
        try:
            read_bytes(args.cafile)  # OpenSSL would wait on a FIFO for ever
        except InputError as exc:
            return fail("connect", f"--cafile {exc}")
        try:
            context = ssl.create_default_context(cafile=str(args.cafile))
        except (OSError, ssl.SSLError) as exc:
            return fail("connect", f"--cafile {args.cafile}: cannot load ({exc})")
    console = make_console(stderr=True)

    def say(text: str) -> None:  # it quotes the server's words (a match, a reason, a fault's detail): escaped
        console.print(printable(f"{time.strftime('%H:%M:%S')} {name}: {text}"), markup=False, highlight=False)

    stderr_path = args.stderr or Path(f"{name}.stderr")
    check_output_file(stderr_path, "--stderr", private=True)
    try:
        trio.run(lambda: relay(args.url, args.token, name, spec, say=say, ssl_context=context,
                               stderr_path=stderr_path, reconnect=not args.once))
    except Refused as exc:
        return fail("connect", str(exc))
    return 0

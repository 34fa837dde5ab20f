"""``mjref play [BOT BOT BOT]``: a person plays one seat against bots, in the browser.

A thin face over ``mjref serve``'s library: a served match on 127.0.0.1 whose seat N is ``human:NAME``, with the
play page's address (and its token) printed and opened in the default browser.  The match is logged like any
other (``replay`` verifies it, ``view`` shows it); it takes ``mjref match``'s options.  With ``--xmj-listen`` the
person plays in ``xmj`` (the Unix Mah-Jong client) instead: the seat is ``xmj:NAME``, and how to start xmj (with
the token as its password) is printed.
"""

from __future__ import annotations

import argparse
import sys
import threading
import webbrowser
from typing import Any

import trio

from referee.commands import fail
from referee.commands import match as match_command
from referee.errors import InputError
from referee.match import MatchResult
from referee.numbers import int_arg
from referee.server import Server, check_listen, generate_tokens, parse_listen, released_listeners, serve_match
from referee.shutdown import watching_signals
from wrappers.spec import HUMAN_PREFIX, REMOTE_NAME, XMJ_PREFIX, BotSpec

DEFAULT_BOT = "greedy"
HOST = "127.0.0.1"  # a local game: nothing listens beyond this machine (``mjref serve human:NAME`` for that)


def register(sub: Any, name: str, summary: str) -> None:
    p = sub.add_parser(
        name,
        help=summary,
        description="Play one seat yourself against three bots (default: three greedy), in the browser: the page's "
        "address is printed and opened. BOT is anything `mjref match` accepts. Your seconds per question are the "
        "rule option human_timeout (default 60; --set human_timeout=120). See docs/play.md.",
        epilog="exit status: 0 the match was played, 2 bad usage or input, 128 + the signal's number when stopped.",
    )
    p.add_argument("bots", nargs="*", metavar="BOT", help="up to three bots, seated in order around you")
    p.add_argument("--seat", type=int_arg, default=1, choices=(1, 2, 3, 4), help="your seat (default 1)")
    p.add_argument("--port", type=int_arg, default=0, metavar="P",
                   help="the page's port on 127.0.0.1 (default 0: any free port, printed)")
    p.add_argument("--name", default="you", help="your name at the table and in the log (default: you)")
    p.add_argument("--no-browser", action="store_true", help="only print the page's address")
    p.add_argument("--xmj-listen", default=None, metavar="HOST:PORT",
                   help="play in xmj (the Unix Mah-Jong client, Chinese Classical: --rules classical) instead of the "
                   "browser: it connects here (port 0: any free port) and logs in with the printed token")
    match_command.add_match_options(p)
    p.set_defaults(func=run)


def seat_bots(bots: list[str], seat: int, name: str, prefix: str = HUMAN_PREFIX) -> list[str]:
    """The four BOT arguments: the bots in turn order around the person's seat (``prefix``: the page's
    ``human:`` or xmj's ``xmj:``), ``greedy`` for missing ones."""
    others = list(bots) + [DEFAULT_BOT] * (3 - len(bots))
    return others[:seat - 1] + [f"{prefix}{name}"] + others[seat - 1:]


@released_listeners()  # the address checked is kept until listened on: closed if never
def run(args: argparse.Namespace) -> int:
    if len(args.bots) > 3:
        return fail("play", f"at most three bots (you are the fourth), got {len(args.bots)}")
    if not 0 <= args.port <= 65535:
        return fail("play", f"--port {args.port}: give 0-65535 (0: any free port)")
    if not REMOTE_NAME.fullmatch(args.name):
        return fail("play", f"--name {args.name!r}: use 1-64 letters, digits, '_', '.', '-'")
    try:  # every address checked before the match starts
        xmj_listen = parse_listen(args.xmj_listen, "--xmj-listen") if args.xmj_listen is not None else None
        if xmj_listen is not None:
            check_listen(*xmj_listen, "--xmj-listen")
        else:
            check_listen(HOST, args.port, "--port")
    except InputError as exc:
        return fail("play", str(exc))
    args.bots = seat_bots(args.bots, args.seat, args.name, XMJ_PREFIX if xmj_listen else HUMAN_PREFIX)

    def show(name: str, link: str) -> None:
        # stdout, unless --json keeps it for the result alone (as mjref serve does with its tokens)
        print(f"your seat ({name}, seat {args.seat}): {link}", flush=True, file=sys.stderr if args.json else sys.stdout)
        if not args.no_browser:  # some browsers block until closed: never in the referee's loop
            threading.Thread(target=webbrowser.open, args=(link,), daemon=True).start()

    def play(specs: list[BotSpec], **kwargs: Any) -> MatchResult:
        tokens = generate_tokens([args.name])
        server = Server(tokens, say=lambda text: print(text, file=sys.stderr, flush=True),
                        xmj=[args.name] if xmj_listen else [])

        def show_xmj(address: str) -> None:
            print(f"your seat ({args.name}, seat {args.seat}): xmj --server {address} --name {args.name} --connect, "
                  f"password {tokens[args.name]}", flush=True, file=sys.stderr if args.json else sys.stdout)
        given = kwargs.pop("shutdown", None)  # the command's, which a closed stdout stops

        async def main() -> MatchResult:  # Ctrl-C, SIGTERM, SIGHUP stop the match in order, as in mjref match
            async with watching_signals(given) as shutdown:
                return await serve_match(specs, server, listen=(HOST, 0), page=(HOST, args.port), on_page=show,
                                         xmj_listen=xmj_listen, on_xmj=show_xmj, shutdown=shutdown, **kwargs)

        return trio.run(main)

    return match_command.run(args, command="play", play=play, live_table=False, remote=True)

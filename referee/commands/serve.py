"""``mjref serve``: a match (or a tournament) whose seats may be remote, played by wrappers that log in.

With BOT arguments it takes exactly ``mjref match``'s options (one definition, ``commands.match``); a seat
``remote:NAME`` waits for ``mjref connect … --name NAME``; a seat ``xmj:NAME`` for an xmj client on
``--xmj-listen``.  With a tournament file it runs the tournament as
``mjref tournament`` does, its ``remote = true`` bots played by wrappers.
"""

from __future__ import annotations

import argparse
import json
import ssl
import sys
import time
from pathlib import Path
from typing import Any

import trio
from rich.console import Console
from rich.live import Live
from rich.table import Table
from rich.text import Text

from referee.commands import fail, make_console, seconds_arg
from referee.commands import match as match_command
from referee.errors import printable
from referee.game.match_options import MAX_SECONDS
from referee.match import MatchResult
from referee.server import (
    ServeError,
    Server,
    check_listen,
    generate_tokens,
    load_tokens,
    parse_listen,
    released_listeners,
    remote_names,
    serve_match,
    server_ssl_context,
)
from referee.shutdown import watching_signals
from tournaments.config import is_tournament_file
from wrappers.spec import BotSpec


def register(sub: Any, name: str, summary: str) -> None:
    p = sub.add_parser(
        name,
        help=summary,
        description="Referee a match whose seats may be remote: BOT is any bot `mjref match` accepts, or "
        "remote:NAME, a seat played by a wrapper (`mjref connect URL --token TOKEN --name NAME BOT`) on the "
        "player's own machine, or human:NAME, a seat a person plays in the browser (see docs/play.md), or xmj:NAME, "
        "a seat a person plays in xmj, the Unix Mah-Jong client, logging in on --xmj-listen (docs/xmj.md). "
        "With a tournament FILE, its bots with `remote = true` are played by wrappers. "
        "See docs/network.md.",
    )
    p.add_argument("bots", nargs="*", metavar="BOT",
                   help="up to four bots, seated 1..4 in order (remote:NAME for a wrapper); or one tournament file")
    p.add_argument("--listen", default="127.0.0.1:8765", metavar="HOST:PORT",
                   help="where wrappers connect (default 127.0.0.1:8765; port 0: any free port, printed)")
    p.add_argument("--tokens", type=Path, default=None, metavar="FILE",
                   help='a TOML file of name = "token" per remote bot (default: new random tokens, printed)')
    p.add_argument("--cert", type=Path, default=None, metavar="FILE", help="TLS certificate chain (PEM): wss://")
    p.add_argument("--key", type=Path, default=None, metavar="FILE", help="TLS private key (PEM) for --cert")
    p.add_argument("--page", default=None, metavar="HOST:PORT",
                   help="where the play page of human:NAME seats is served (default: --listen's host, any free "
                   "port); each person's address, with its token, is printed")
    p.add_argument("--xmj-listen", default=None, metavar="HOST:PORT",
                   help="where the xmj clients of xmj:NAME seats connect (mj-server's protocol; port 0: any free "
                   "port, printed); each logs in with its seat's name and token as password")
    p.add_argument("--wait", type=wait_seconds, default=None, metavar="SECONDS",
                   help="give up (exit 2) if the wrappers are not all logged in after this long, at most "
                   f"{MAX_SECONDS:g} s (default: wait as long as it takes)")
    match_command.add_match_options(p)
    p.set_defaults(func=run)


class Lobby:
    """Who is logged in, shown before play: a live table on a terminal, plain lines otherwise."""

    def __init__(self, names: list[str], console: Console, quiet: bool) -> None:
        self.names = names
        self.console = console
        self.quiet = quiet
        self.server: Server | None = None
        self.live: Live | None = None

    def table(self) -> Table:
        t = Table(title="Remote seats")
        for col in ("name", "status", "from", "round trip"):
            t.add_column(col)
        assert self.server is not None
        for name in self.names:
            logged_in, peer, rtt_ms = self.server.status(name)
            status = "[green]logged in[/green]" if logged_in else "[yellow]waiting[/yellow]"
            rtt = f"{rtt_ms:.2f} ms" if rtt_ms is not None else "-"
            t.add_row(Text(name), status, Text(peer), rtt)
        return t

    def say(self, text: str) -> None:
        if self.live is None:
            # what it says quotes peers and their frames: escaped, whatever the caller did
            self.console.print(printable(f"{time.strftime('%H:%M:%S')} {text}"), markup=False, highlight=False,
                               soft_wrap=True)

    def changed(self) -> None:
        if self.live is not None:
            self.live.update(self.table())

    def start(self) -> None:
        if self.console.is_terminal and not self.quiet:
            self.live = Live(self.table(), console=self.console, refresh_per_second=4, transient=True)
            self.live.start()

    def stop(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None


def tokens_for(args: argparse.Namespace, names: list[str], out: Console) -> dict[str, str]:
    """The remote bots' tokens: ``--tokens FILE``'s, or new ones printed as ``NAME TOKEN`` lines on ``out``."""
    if args.tokens is not None:
        return load_tokens(args.tokens, names)
    tokens = generate_tokens(names)
    for name, token in tokens.items():
        out.print(f"{name} {token}", markup=False, highlight=False)
    return tokens


MIN_WAIT = 0.001  # seconds: less is no wait at all (1e-320 was taken)


def wait_seconds(text: str) -> float:
    """The value of ``--wait``: seconds from ``MIN_WAIT`` to ``MAX_SECONDS`` (without ``--wait`` the server waits
    as long as it takes): inf, 1e309, nan, 0 and 1e-320 are refused."""
    return seconds_arg(text, example=", e.g. 60", least=MIN_WAIT)


@released_listeners()  # the addresses checked are kept until listened on: closed if never
def run(args: argparse.Namespace) -> int:
    try:  # every address checked (and kept: referee.server.check_listen) before a token is minted or printed
        listen = parse_listen(args.listen)
        page = parse_listen(args.page, "--page") if args.page is not None else None
        ssl_context = server_ssl_context(args.cert, args.key)
        xmj_listen = parse_listen(args.xmj_listen, "--xmj-listen") if args.xmj_listen is not None else None
        for address, option in ((listen, "--listen"), (page, "--page"), (xmj_listen, "--xmj-listen")):
            if address is not None:
                check_listen(*address, option)
    except ServeError as exc:
        return fail("serve", str(exc))
    # Progress and the server's log go to stderr: stdout carries the tokens (unless --json) and the result.
    tls = (args.cert, args.key) if args.cert is not None and args.key is not None else None
    err = make_console(stderr=True)
    out = make_console(stderr=args.json)
    if len(args.bots) == 1 and args.bots[0].endswith(".toml") and is_tournament_file(Path(args.bots[0])):
        given = [flag for flag, value in (("--seed", args.seed), ("--hands", args.hands), ("--wallfile", args.wallfile),
                                          ("--rules", args.rules), ("--set", args.options), ("--log", args.log),
                                          ("--html", args.html))
                 if value]
        if given:
            return fail("serve", f"{given[0]} is for a match; a tournament file sets its own (seeds, hands, rules)")
        if xmj_listen is not None:
            return fail("serve", "--xmj-listen is for a match's xmj:NAME seats; a tournament has none")
        return _tournament(args, Path(args.bots[0]), listen, ssl_context, err, out)

    def play(specs: list[BotSpec], **kwargs: Any) -> MatchResult:
        names = remote_names(specs)
        tokens = tokens_for(args, names, out)
        lobby = Lobby(names, err, args.quiet or args.json)
        xmj = [s.name for s in specs if s.remote and s.protocol == "xmj"]
        server = Server(tokens, say=lobby.say, on_change=lobby.changed, xmj=xmj)
        lobby.server = server

        def on_xmj(address: str) -> None:  # how each person starts xmj (the token is its password): stdout
            for name in xmj:
                out.print(f"{name} xmj: xmj --server {address} --name {name} --connect (password: its token)",
                          markup=False, highlight=False, soft_wrap=True)

        def on_page(name: str, link: str) -> None:  # a person's address, with the token: like the tokens, stdout
            out.print(f"{name} page: {link}", markup=False, highlight=False, soft_wrap=True)

        def on_listen(url: str) -> None:
            err.print(f"listening on {url}", markup=False, highlight=False)
            if not names:
                err.print("no remote seats: the match starts at once", markup=False, highlight=False)
            lobby.start()

        given = kwargs.pop("shutdown", None)  # the command's, which a closed stdout stops

        async def main() -> MatchResult:  # Ctrl-C, SIGTERM, SIGHUP stop the match in order, as in mjref match
            try:
                async with watching_signals(given) as shutdown, trio.open_nursery() as nursery:
                    async def stop_lobby() -> None:
                        while server.missing():
                            await trio.sleep(0.05)
                        lobby.stop()
                    nursery.start_soon(stop_lobby)
                    return await serve_match(specs, server, listen=listen, ssl_context=ssl_context, wait=args.wait,
                                             on_listen=on_listen, page=page, tls=tls, on_page=on_page,
                                             xmj_listen=xmj_listen, on_xmj=on_xmj, shutdown=shutdown, **kwargs)
            finally:
                lobby.stop()

        return trio.run(main)

    return match_command.run(args, command="serve", play=play, live_table=False, remote=True)


def _tournament(args: argparse.Namespace, path: Path, listen: tuple[str, int], ssl_context: ssl.SSLContext | None,
                err: Console, out: Console) -> int:
    """A tournament file served: its ``remote = true`` bots are played by wrappers; it resumes like ``mjref
    tournament`` (finished matches are kept in its store and never played again)."""
    from referee.commands.standings import render_standings
    from tournaments.config import ConfigError, load_config
    from tournaments.runner import MatchJob, TournamentError, execute, plan
    from tournaments.stats import compute_standings, to_json
    from tournaments.store import MatchRecord

    try:
        config = load_config(path).with_timeout(args.timeout)  # the remote bots' too: their specs carry it
        p = plan(config, path.resolve().parent, where=str(path))
        names = [b.name for b in config.bots if b.remote]
        tokens = tokens_for(args, names, out)
    except (ConfigError, TournamentError, ServeError) as exc:
        return fail("serve", str(exc))
    lobby = Lobby(names, err, args.quiet or args.json)
    server = Server(tokens, say=lobby.say, on_change=lobby.changed)
    lobby.server = server
    done = [p.done]

    def on_match(rec: MatchRecord) -> None:
        done[0] += 1
        lobby.say(f"match {rec.id} recorded ({done[0]}/{p.total})")

    def on_start(job: MatchJob) -> None:
        if any(s.remote for s in job.specs):
            lobby.say(f"match {job.match.id} starts; its wrappers know it as {job.public_id}")

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            url = await server.start(nursery, listen[0], listen[1], ssl_context)
            err.print(f"listening on {url}", markup=False, highlight=False)
            err.print(f"{p.total} matches, {p.done} already in {p.store_path}", markup=False, highlight=False,
                      soft_wrap=True)
            lobby.start()
            try:
                await server.wait_for_all(args.wait)
            finally:
                lobby.stop()
            # A wrapper is told the match's public_id, never its ID (which names its group, seed and seating)
            await execute(p, on_match=on_match, on_start=on_start, remote=lambda job: server.seating(
                job.specs, job.public_id, p.rules.network_grace))
            await server.over("the tournament is over")
            nursery.cancel_scope.cancel()

    trio.run(main)
    standings = compute_standings(p.store_path)
    if args.json:
        print(json.dumps(to_json(standings)))
    else:
        render_standings(standings, out)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(2)

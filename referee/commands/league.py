"""``mjref league LEAGUE.toml``: run a league (a tournament that never ends) until stopped or for ``--matches N``.

A thin face over :mod:`tournaments.league`: the live view shows the ratings beside points; at the end (``--matches``)
the standings are printed as ``mjref standings`` prints them.  See docs/league.md."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import trio
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from referee.commands import add_play_options, make_console
from referee.commands._runs import LongRun, RunStopped, bad_input_exits_2, check_dask, dask_address, open_dask
from referee.errors import printable
from referee.numbers import int_arg
from referee.userfiles import check_output_file
from tournaments.config import ConfigError, check_concurrency

DEFAULT_WRAPPERS = "127.0.0.1:8765"  # as mjref serve's --listen


def register(sub: Any, name: str, summary: str) -> None:
    p = sub.add_parser(
        name,
        help=summary,
        description="Run a league: it chooses each next table to learn the most, plays it on a new seed, and keeps "
        "every result and the ratings in its store, until stopped (Ctrl-C, SIGTERM) or --matches N. Running the "
        "same command again goes on where it stopped: nothing is lost or played twice. See docs/league.md.",
        epilog="exit status: 0 --matches were played, 2 bad usage or input, 128 + the signal's number when stopped.",
    )
    p.add_argument("file", type=Path, metavar="LEAGUE", help="the league TOML file (or: add-author NAME)")
    p.add_argument("author", nargs="?", default=None, metavar="NAME",
                   help="with add-author: the new author's name; their token is printed once")
    p.add_argument("--league", type=Path, default=Path("league.toml"), metavar="FILE",
                   help="with add-author: the league file (default: league.toml)")
    p.add_argument("--organiser", action="store_true",
                   help="with add-author: an organiser, who may also pause, retire and reinstate any entry")
    p.add_argument("--matches", type=int_arg, default=None, metavar="N",
                   help="stop after N more matches (default: never)")
    p.add_argument("--concurrency", type=int_arg, default=None, help="matches at once (default: the file's, or cores)")
    p.add_argument("--store", type=Path, default=None, help="the results store (default: the file's)")
    p.add_argument("--restart", action="store_true", help="discard the store's results and start again")
    p.add_argument("--quiet", action="store_true", help="no live view")
    p.add_argument("--json", action="store_true", help="at the end (--matches), print the standings as JSON")
    p.add_argument("--listen", default=None, metavar="HOST:PORT",
                   help="serve the league's page (live standings and latest matches, read-only) there; port 0: any "
                   "free port, printed")
    p.add_argument("--dask", metavar="ADDRESS", default=None, type=dask_address,
                   help="play the matches on a Dask cluster: a scheduler address (tcp://host:8786) or 'local' "
                   "(default: the file's dask, else this machine; needs: pip install 'mjref[dask]')")
    p.add_argument("--wrappers", default=None, metavar="HOST:PORT",
                   help="where the wrappers of the league's remote bots (remote = true) log in with mjref connect "
                   f"(default {DEFAULT_WRAPPERS}; port 0: any free port, printed)")
    p.add_argument("--tokens", type=Path, default=None, metavar="FILE",
                   help='the remote bots\' tokens, a TOML file of name = "token" (default: new ones, printed; a '
                   "league that restarts wants a file)")
    p.add_argument("--cert", type=Path, default=None, metavar="FILE",
                   help="TLS certificate chain (PEM) for the wrappers' address: wss://")
    p.add_argument("--key", type=Path, default=None, metavar="FILE", help="TLS private key (PEM) for --cert")
    add_play_options(p)
    p.set_defaults(func=run)


class LeagueView:
    """The live view: matches recorded in this run and the ratings, best first."""

    def __init__(self) -> None:
        self.recorded = 0
        self.faults = 0
        self.ratings: Any = None

    def add(self, rec: Any, ratings: Any) -> None:
        self.recorded += 1
        self.faults += len(rec.fault_rows)
        self.ratings = ratings

    def table(self) -> Table:
        from tournaments.ratings import league_order

        t = Table(title=f"League ratings ({self.recorded} matches this run, {self.faults} faults)")
        for col in ("bot", "rating", "± sigma", "matches"):
            t.add_column(col, justify="left" if col == "bot" else "right")
        by_name = self.ratings.by_name if self.ratings is not None else {}
        for name in league_order(by_name, by_name):
            r = by_name[name]
            t.add_row(Text(name), f"{r.mu:.2f}", f"{r.sigma:.2f}", str(r.matches))
        return t

    def line(self) -> str:
        return f"  {self.recorded} matches recorded this run, {self.faults} faults"


async def serve_page(plan: Any, listen: tuple[str, int], desk: Any, control: Any,
                     online: Callable[[], dict[str, bool]] | None,
                     task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
    """The league's page on ``listen`` until cancelled, with ``desk`` taking submissions; its address is printed
    once it listens."""
    from referee.league_pages import league_app
    from referee.pages import serve_app
    from referee.server import MAX_PENDING, Door
    from tournaments.league import LeaguePage
    from tournaments.ratings import LeagueReader

    reader = LeagueReader(plan.store_path)
    page = LeaguePage(plan, reader, control, desk.register, online)
    door = Door(MAX_PENDING, lambda peer, reason: None, where=" to the league's page", logins=False)
    async with trio.open_nursery() as nursery:
        desk.nursery = nursery
        app = league_app(page.standings, reader.matches, desk, reader.viewer, page.bot)
        url = await nursery.start(partial(serve_app, app, *listen,
                                          door=door, what="the league's page"))
        # the address on stderr, always (also with --quiet or --json): a script waits for it
        print(f"league page: {url}/", file=sys.stderr, flush=True)
        task_status.started()


def say(quiet: bool) -> Callable[[str], None]:
    """The wrappers' server's log (logins, departures, refusals): timed lines on stderr, unless ``quiet``."""
    def line(text: str) -> None:
        if not quiet:  # it quotes peers and their frames: printable, whatever they sent
            print(printable(f"{time.strftime('%H:%M:%S')} {text}"), file=sys.stderr, flush=True)

    return line


def add_author(args: argparse.Namespace) -> int:
    """``mjref league add-author NAME [--league FILE] [--organiser]``: print the new author's token (kept only as
    its SHA-256 in the league's register)."""
    from tournaments.league import load_league
    from tournaments.submissions import Register

    if not args.author:
        raise ConfigError("add-author needs the author's NAME")
    config = load_league(args.league)
    register = Register(args.league.resolve().parent / config.submissions)
    try:
        token = register.add_author(args.author, organiser=args.organiser)
    finally:
        register.close()
    print(token)
    print(f"{'organiser' if args.organiser else 'author'} {args.author} added to {config.name}; the token above is "
          "shown only now", file=sys.stderr)
    return 0


@bad_input_exits_2("league")
def run(args: argparse.Namespace) -> int:
    from referee.server import released_listeners

    with released_listeners():  # the addresses checked are kept until listened on: closed if never
        return _start(args)


def _start(args: argparse.Namespace) -> int:
    from referee.commands.serve import tokens_for
    from referee.server import ServeError, check_listen, parse_listen, server_ssl_context
    from tournaments import league as lg

    if args.file.name == "add-author":
        return add_author(args)

    if args.author is not None:
        raise ConfigError(f"unexpected {args.author!r} after the league file (add-author NAME adds an author)")
    check_concurrency(args.concurrency)
    if args.matches is not None and args.matches < 1:
        raise ConfigError(f"--matches must be at least 1, not {args.matches}")
    if args.store is not None:
        check_output_file(args.store, "--store", private=True)
    listen = parse_listen(args.listen) if args.listen is not None else None
    try:
        wrappers = parse_listen(args.wrappers or DEFAULT_WRAPPERS)
    except ServeError as exc:
        raise ServeError(str(exc).replace("--listen", "--wrappers", 1)) from None
    ssl_context = server_ssl_context(args.cert, args.key)
    config = lg.load_league(args.file)
    remote = [b.name for b in config.tournament.bots if b.remote]
    if not remote and (args.wrappers or args.tokens or args.cert):
        raise ConfigError(f"{args.file}: no bot has remote = true: --wrappers, --tokens and --cert are for remote bots")
    dask = args.dask or config.tournament.dask
    if args.restart:
        check_dask(dask)
    # every address checked (and kept: referee.server.check_listen) before a token is minted or printed
    if listen is not None:
        check_listen(*listen, "--listen")
    if remote:
        check_listen(*wrappers, "--wrappers")
    # before the store is opened (--restart discards it): a bad tokens file is said first
    tokens = tokens_for(args, remote, make_console(stderr=args.json)) if remote else {}
    p = lg.open_league(config, args.file.resolve().parent, where=str(args.file), restart=args.restart,
                       store_override=args.store)
    executor = open_dask(dask, lambda d, address: lg.dask_executor(address, p, workers=args.concurrency))
    try:
        return _run(args, config, p, listen, wrappers, ssl_context, tokens, executor)
    finally:
        if executor is not None:
            executor.shutdown()


def _run(args: argparse.Namespace, config: Any, p: Any, listen: tuple[str, int] | None, wrappers: tuple[str, int],
         ssl_context: Any, tokens: dict[str, str], executor: Any) -> int:
    from referee.game.family import rules_from_dump
    from referee.server import Server
    from tournaments import league as lg

    view = LeagueView()
    session = LongRun("league", json=args.json, quiet=args.quiet, render=view.table, every=5, line=view.line)
    for note in p.notes:
        session.console.print(f"note: {escape(note)}", style="yellow")
    at_once = args.concurrency or (executor.slots if executor is not None else config.tournament.workers())
    if executor is not None:
        session.say(escape(executor.describe()))
    session.say(f"[bold]{escape(config.name)}[/bold]: {len(p.active)} entrants, {config.tournament.hands} hands a "
                f"match, {at_once} at once; store {escape(str(p.store_path))}"
                + (f"; stops after {args.matches} matches" if args.matches else "; Ctrl-C stops it"))

    def on_match(rec: Any, ratings: Any) -> None:
        view.add(rec, ratings)
        session.update()

    control = lg.LeagueControl(p)
    if executor is not None:
        control.vet = lg.dask_vet(executor)
    desk = lg.LeagueDesk(p, control) if listen is not None else None
    remote = list(tokens)
    server = Server(tokens, say=say(args.quiet)) if remote else None
    grace = rules_from_dump(p.rules_json).network_grace  # either family's

    def online() -> dict[str, bool]:
        return {n: server.slots[n].connected for n in remote} if server is not None else {}

    async def main() -> int:
        async with trio.open_nursery() as nursery:
            seating = available = None
            if server is not None:
                url = await server.start(nursery, wrappers[0], wrappers[1], ssl_context)
                # on stderr, always: a script (or a test) waits for it
                print(f"wrappers log in at: {url}", file=sys.stderr, flush=True)
                available = lambda name: name not in server.slots or server.slots[name].connected  # noqa: E731
                seating = lambda job: server.seating(job.specs, job.public_id, grace)  # noqa: E731
            if listen is not None:
                await nursery.start(serve_page, p, listen, desk, control, online if server is not None else None)
            n = await lg.run_league(p, matches=args.matches, concurrency=args.concurrency or at_once,
                                    on_match=on_match, control=control, executor=executor, remote=seating,
                                    available=available)
            if server is not None:
                await server.over("the league stopped")
            nursery.cancel_scope.cancel()
        return n

    try:
        session.play(main, executor=None, recorded=lambda: f"{view.recorded} matches of this run are recorded in "
                     f"{p.store_path}")
    except RunStopped as stop:
        return stop.status
    session.finish_line()
    from referee.commands.standings import render_standings
    from tournaments.ratings import league_standings
    from tournaments.stats import to_json

    standings, ratings = league_standings(p.store_path)
    if args.json:
        print(json.dumps(to_json(standings, ratings)))
        return 0
    render_standings(standings, session.console, ratings=ratings)
    return 0

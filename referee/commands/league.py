"""``mjref league LEAGUE.toml``: run a league (a tournament that never ends) until stopped or for ``--matches N``.

A thin face over :mod:`tournaments.league`: the live view shows the ratings beside points; at the end (``--matches``)
the standings are printed as ``mjref standings`` prints them.  See docs/league.md."""

from __future__ import annotations

import argparse
import json
import sys
from functools import partial
from pathlib import Path
from typing import Any

import trio
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from referee.commands import add_play_options
from referee.commands._runs import LongRun, RunStopped, bad_input_exits_2
from referee.numbers import int_arg
from referee.userfiles import check_output_file
from tournaments.config import ConfigError, check_concurrency


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


async def serve_page(store: Path, listen: tuple[str, int], desk: Any,
                     task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
    """The league's page on ``listen`` until cancelled, with ``desk`` taking submissions; its address is printed
    once it listens."""
    from referee.league_pages import league_app
    from referee.pages import serve_app
    from referee.server import MAX_PENDING, Door
    from tournaments.ratings import LeagueReader

    reader = LeagueReader(store)
    door = Door(MAX_PENDING, lambda peer, reason: None, where=" to the league's page", logins=False)
    async with trio.open_nursery() as nursery:
        desk.nursery = nursery
        app = league_app(reader.standings, reader.matches, desk, reader.viewer)
        url = await nursery.start(partial(serve_app, app, *listen,
                                          door=door, what="the league's page"))
        # the address on stderr, always (also with --quiet or --json): a script waits for it
        print(f"league page: {url}/", file=sys.stderr, flush=True)
        task_status.started()


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
    from tournaments.league import LeagueControl, LeagueDesk, load_league, open_league, run_league

    if args.file.name == "add-author":
        return add_author(args)

    if args.author is not None:
        raise ConfigError(f"unexpected {args.author!r} after the league file (add-author NAME adds an author)")
    check_concurrency(args.concurrency)
    if args.matches is not None and args.matches < 1:
        raise ConfigError(f"--matches must be at least 1, not {args.matches}")
    if args.store is not None:
        check_output_file(args.store, "--store", private=True)
    listen = None
    if args.listen is not None:
        from referee.server import parse_listen

        listen = parse_listen(args.listen)
    config = load_league(args.file)
    p = open_league(config, args.file.resolve().parent, where=str(args.file), restart=args.restart,
                    store_override=args.store)
    view = LeagueView()
    session = LongRun("league", json=args.json, quiet=args.quiet, render=view.table, every=5, line=view.line)
    for note in p.notes:
        session.console.print(f"note: {escape(note)}", style="yellow")
    at_once = args.concurrency or config.tournament.workers()
    session.say(f"[bold]{escape(config.name)}[/bold]: {len(p.active)} entrants, {config.tournament.hands} hands a "
                f"match, {at_once} at once; store {escape(str(p.store_path))}"
                + (f"; stops after {args.matches} matches" if args.matches else "; Ctrl-C stops it"))

    def on_match(rec: Any, ratings: Any) -> None:
        view.add(rec, ratings)
        session.update()

    control = LeagueControl(p)
    desk = LeagueDesk(p, control) if listen is not None else None

    async def main() -> int:
        async with trio.open_nursery() as nursery:
            if listen is not None:
                await nursery.start(serve_page, p.store_path, listen, desk)
            n = await run_league(p, matches=args.matches, concurrency=args.concurrency, on_match=on_match,
                                 control=control)
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

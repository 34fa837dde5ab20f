"""``mjref standings STORE``: the standings of a results store, with intervals, and the head-to-head matrix.

The numbers come from :mod:`tournaments.stats` (see docs/statistics.md); this module only shows them: a rich table
(``--format table``, the default, and :func:`render_standings`, which ``mjref tournament`` calls at the end of a
run), or CSV, JSON or markdown for scripts and CI pages.  A missing or unreadable store exits with status 2 and
one line naming the file.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from referee.commands import make_console
from referee.errors import printable
from referee.numbers import count
from tournaments.ratings import league_standings, league_standings_in
from tournaments.stats import (
    BotStanding,
    Standings,
    fmt_faults,
    fmt_interval,
    fmt_num,
    fmt_pct,
    to_csv,
    to_json,
    to_markdown,
)
from tournaments.store import recount


def register(sub: Any, name: str, summary: str) -> None:
    p = sub.add_parser(
        name,
        help=summary,
        description="Show the standings of a tournament's results store (it may still be running). Every "
        "interval is a 95% interval clustered by duplicate group (one table of bots on one seed), given from 5 "
        "groups on and shown as 'too few groups' below that; see docs/statistics.md.",
    )
    p.add_argument("store", type=Path, metavar="STORE", help="the SQLite results store of a tournament")
    p.add_argument("--format", choices=("table", "csv", "json", "markdown"), default="table",
                   help="table (default, for a terminal), csv (one row per bot), json, or markdown (for CI pages)")
    p.add_argument("--head-to-head", action=argparse.BooleanOptionalAction, default=True,
                   help="include the head-to-head numbers (default: yes; csv never has them)")
    p.add_argument("--cluster", choices=("group", "seed"), default="group",
                   help="the unit of independence for intervals: the duplicate group (default), or the seed "
                   "(more cautious: groups that share a seed share its walls)")
    p.add_argument("--recount", action="store_true",
                   help="first compute the store's kept totals again from its match rows (after the rows were "
                   "edited by hand); waits for no runner: a store in use is refused")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.recount:  # a recount that fails changes nothing; its standings are read in its own transaction
        n, (standings, ratings) = recount(args.store, lambda con: league_standings_in(con, args.store,
                                                                                       cluster_by=args.cluster))
    else:
        n = None
        standings, ratings = league_standings(args.store, cluster_by=args.cluster)
    if n is not None:  # said once the standings are read: no progress line before an error
        print(printable(f"{args.store}: totals recounted from {count(n, 'match', 'matches')}"), file=sys.stderr)
    if args.format == "json":
        data = to_json(standings, ratings)
        if not args.head_to_head:
            data.pop("head_to_head")
        print(json.dumps(data, indent=2))
    elif args.format == "csv":
        sys.stdout.write(to_csv(standings))
    elif args.format == "markdown":
        sys.stdout.write(to_markdown(standings, head_to_head=args.head_to_head))
    else:
        console = make_console(width=170)
        render_standings(standings, console, head_to_head=args.head_to_head, ratings=ratings)
    return 0


def _name(b: BotStanding) -> Text:
    t = Text(b.name, style="dim" if b.dummy else "bold")
    if b.dummy:
        t.append(" (dummy)", style="dim italic")
    return t


def standings_table(standings: Standings, ratings: Mapping[str, Any] | None = None) -> Table:
    """The standings; with a league's ``ratings``, a rating column (mu ± sigma) after the bot's name."""
    title = f"Standings{': ' + standings.name if standings.name else ''}{standings.mark}"
    groups = f"{standings.groups} {standings.cluster_word}{'' if standings.groups == 1 else 's'}"
    caption = (f"{count(standings.matches, 'match', 'matches')}, {count(standings.hands, 'hand')}, {groups}; "
               "± is the 95% interval")
    if ratings is not None:
        caption += "; rating: Plackett-Luce mu ± sigma, ranked by mu - 3 sigma"
    t = Table(title=Text(title), caption=caption)
    rating_col = (("rating", "right"),) if ratings is not None else ()
    for col, just in (("#", "right"), ("bot", "left"), *rating_col, ("matches", "right"), ("hands", "right"),
                      ("points", "right"), ("mean/hand", "right"), ("avg rank", "right"), ("1st %", "right"),
                      ("win %", "right"), ("self-draw %", "right"), ("deal-in %", "right"), ("faults", "left"),
                      ("answer ms\nmean / max", "right")):
        t.add_column(col, justify=just, overflow="fold")  # type: ignore[arg-type]
    for i, b in enumerate(standings.bots, start=1):
        rating = () if ratings is None else (fmt_rating(ratings.get(b.name)),)
        t.add_row(
            str(i), _name(b), *rating, str(b.matches), str(b.hands), f"{b.points:g}",
            fmt_interval(b.mean, 1, sign=True),
            fmt_interval(b.rank, 2), fmt_pct(b.first_rate.value), fmt_pct(b.win_rate), fmt_pct(b.self_draw_rate),
            fmt_pct(b.deal_in_rate), Text(fmt_faults(b), style="red" if b.fault_count else ""),
            f"{fmt_num(b.mean_answer_ms, 2)} / {fmt_num(b.max_answer_ms, 2)}",
        )
    return t


def head_to_head_table(standings: Standings) -> Table:
    """Row minus column, points per hand; green or red when the 95% interval excludes 0."""
    names = [b.name for b in standings.bots]
    cell = {(h.a, h.b): h for h in standings.head_to_head}
    t = Table(title="Head-to-head: row minus column, points per hand ± 95%",
              caption="coloured when the interval excludes 0; blank: never met")
    t.add_column("")
    for n in names:
        t.add_column(Text(n), justify="right", overflow="fold")
    for a in names:
        row: list[Text] = []
        for b in names:
            h = cell.get((a, b))
            if a == b:
                row.append(Text("—", style="dim"))
            elif h is None:
                row.append(Text(""))
            else:
                style = ("green" if (h.diff.value or 0) > 0 else "red") if h.diff.excludes_zero else ""
                row.append(Text(fmt_interval(h.diff, 1, sign=True), style=style))
        t.add_row(Text(a, style="bold"), *row)
    return t


def fmt_rating(r: Any) -> str:
    """A league rating as shown: ``mu ± sigma`` (blank for a bot the league does not rate: a dummy)."""
    return "" if r is None else f"{r.mu:.1f} ± {r.sigma:.1f}"


def render_standings(standings: Standings, console: Console, *, head_to_head: bool = True,
                     ratings: Mapping[str, Any] | None = None) -> None:
    """Print the standings table, the head-to-head matrix and the notes (what ``mjref tournament`` ends with)."""
    if not standings.bots:
        console.print("No finished matches yet.")
        return
    console.print(standings_table(standings, ratings))
    if head_to_head and standings.head_to_head:
        console.print(head_to_head_table(standings))
    for note in standings.notes:
        console.print(Text(note, style="dim"))

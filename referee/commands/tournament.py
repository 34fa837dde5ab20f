"""``mjref tournament [FILE]``: run (or resume) a tournament, with a live view; no FILE runs the demo."""

from __future__ import annotations

import argparse
import json
from collections import deque
from pathlib import Path
from typing import Any

from rich.console import Group
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from referee.commands import add_force_option, add_play_options, add_timeout_option, fail
from referee.commands._runs import LongRun, RunStopped, bad_input_exits_2, check_dask, open_dask
from referee.numbers import int_arg
from referee.userfiles import check_output_file
from tournaments.config import check_concurrency, concurrency_warning, demo_config, load_config
from tournaments.runner import Plan, execute, plan
from tournaments.store import MatchRecord


def register(sub: Any, name: str, summary: str) -> None:
    p = sub.add_parser(
        name,
        help=summary,
        description="Run a tournament file. Running the same command again resumes: finished matches are never "
        "repeated or lost, also after kill -9. With no FILE, a demo round-robin of the built-in bots runs.",
    )
    p.add_argument("file", nargs="?", type=Path, metavar="FILE", help="the tournament TOML file")
    p.add_argument("--restart", action="store_true", help="discard the store's results and start again")
    p.add_argument("--concurrency", type=int_arg, default=None, help="matches at once (default: the file's, or cores)")
    p.add_argument("--store", type=Path, default=None, help="the results store (default: the file's)")
    p.add_argument("--quiet", action="store_true", help="no live view; only the final standings")
    p.add_argument("--json", action="store_true", help="print the final standings as JSON")
    p.add_argument("--report", type=Path, default=None, metavar="FILE",
                   help="at the end, write the tournament's report: one self-contained HTML page")
    p.add_argument("--with-matches", action="store_true",
                   help="with --report: also write every match's viewer page beside it, linked from the report")
    add_force_option(p, "the --report file")
    p.add_argument("--dask", metavar="ADDRESS", default=None,
                   help="run every match on a Dask cluster: a scheduler address, or 'local' for a local cluster "
                   "(needs: pip install 'mjref[dask]')")
    add_timeout_option(p)
    add_play_options(p)
    p.set_defaults(func=run)


class LiveView:
    """Progress with ETA, live standings (points per hand so far) and the most recent faults."""

    def __init__(self, p: Plan) -> None:
        self.plan = p
        self.progress = Progress(
            TextColumn("{task.description}", style="bold", markup=False),  # the tournament's name, as written
            BarColumn(), MofNCompleteColumn(), TextColumn("matches"),
            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
        )
        self.task = self.progress.add_task(p.config.name, total=p.total, completed=p.done)
        self.points: dict[str, int] = {}
        self.hands: dict[str, int] = {}
        self.matches: dict[str, int] = {}
        self.faults: deque[str] = deque(maxlen=5)
        self.fault_count = 0
        self.recorded = 0

    def add(self, rec: MatchRecord) -> None:
        self.recorded += 1
        self.progress.advance(self.task)
        for seat in rec.seat_results:
            bot = seat.bot
            self.points[bot] = self.points.get(bot, 0) + int(seat.points)
            self.hands[bot] = self.hands.get(bot, 0) + seat.hands
            self.matches[bot] = self.matches.get(bot, 0) + 1
        for f in rec.fault_rows:
            self.fault_count += 1
            self.faults.append(escape(f"{rec.id} hand {f.hand + 1}: {f.bot} {f.kind}: {f.detail}"))

    def table(self) -> Table:
        t = Table(title="Live standings (this run)", expand=False)
        for col in ("bot", "matches", "hands", "points", "per hand"):
            t.add_column(col, justify="left" if col == "bot" else "right")
        for bot in sorted(self.points, key=lambda b: -self.points[b] / max(1, self.hands[b])):
            h = self.hands[bot]
            per_hand = f"{self.points[bot] / max(1, h):+.1f}"
            t.add_row(Text(bot), str(self.matches[bot]), str(h), str(self.points[bot]), per_hand)
        return t

    def render(self) -> Group:
        parts: list[Any] = [self.progress, self.table()]
        if self.faults:
            faults = Table(title=f"Recent faults ({self.fault_count} in all)", show_header=False)
            faults.add_column("fault", overflow="fold")
            for line in self.faults:
                faults.add_row(line)
            parts.append(faults)
        return Group(*parts)


@bad_input_exits_2("tournament")
def run(args: argparse.Namespace) -> int:
    if args.with_matches and args.report is None:
        return fail("tournament", "--with-matches needs --report FILE")
    check_concurrency(args.concurrency)
    if args.file is None:
        config, base_dir, where = demo_config(), Path.cwd(), "demo"
    else:
        config, base_dir, where = load_config(args.file), args.file.resolve().parent, str(args.file)
    config = config.with_timeout(args.timeout)
    if args.restart:
        check_dask(args.dask or config.dask)
    if args.store is not None:
        check_output_file(args.store, "--store", private=True)
    if args.report is not None:
        check_output_file(args.report, "--report", overwrite=args.force)
    p = plan(config, base_dir, restart=args.restart, where=where, store_override=args.store)
    executor = open_dask(args.dask or p.config.dask, lambda d, address: d.dask_executor(address, p,
                                                                                         workers=args.concurrency))
    at_once = args.concurrency or (executor.slots if executor is not None else config.workers())
    view = LiveView(p)
    session = LongRun("tournament", json=args.json, quiet=args.quiet, render=view.render, every=2,
                      line=lambda: f"  {p.done + view.recorded}/{p.total} matches, {view.fault_count} faults")
    for note in p.notes:
        session.console.print(f"note: {escape(note)}", style="yellow")  # notes quote paths
    warning = concurrency_warning(config, at_once) if executor is None else None
    if warning:
        session.console.print(f"warning: {escape(warning)}", style="yellow")
    if not args.json:
        why = ""
        if executor is None and not (args.concurrency or config.concurrency) and config.has_process_bots:
            why = " (process bots: one core left for the referee, see docs/tournaments.md)"
        session.console.print(f"[bold]{escape(config.name)}[/bold]: {p.total} matches ({p.done} already in "
                              f"{escape(str(p.store_path))}), {config.hands} hands each, {at_once} at once{why}")
        if executor is not None:
            session.console.print(Text(executor.describe()))

    def on_match(rec: MatchRecord) -> None:
        view.add(rec)
        session.update(final=p.done + view.recorded == p.total)

    concurrency = args.concurrency or (executor.slots if executor is not None else None)
    try:
        session.play(lambda: execute(p, concurrency=concurrency, on_match=on_match, executor=executor,
                                     shutdown=session.shutdown),
                     executor=executor,
                     recorded=lambda: f"{p.done + view.recorded} of {p.total} matches are recorded in {p.store_path}")
    except RunStopped as stop:
        return stop.status
    from referee.commands.standings import render_standings
    from tournaments.stats import compute_standings, to_json

    standings = compute_standings(p.store_path)
    if args.report is not None:
        from tournaments.report import write_report

        write_report(p.store_path, args.report, with_matches=args.with_matches)
        if not args.json:
            session.console.print(Text(f"report: {args.report}"))
    if args.json:
        print(json.dumps(to_json(standings)))
        return 0
    session.console.print(Text(f"{view.recorded} matches played in {session.elapsed:.1f} s; results in "
                               f"{p.store_path}, logs in {p.logs_dir}"))
    render_standings(standings, session.console)
    return 0

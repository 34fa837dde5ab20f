"""``mjref tournament [FILE]``: run (or resume) a tournament, with a live view; no FILE runs the demo."""

from __future__ import annotations

import argparse
import json
import os
import signal
import time
from collections import deque
from pathlib import Path
from typing import Any

from rich.console import Group
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from referee.commands import (
    add_force_option,
    add_play_options,
    add_rules_options,
    add_timeout_option,
    fail,
    make_console,
)
from referee.commands._runs import LongRun, RunStopped, bad_input_exits_2, check_dask, dask_address, open_dask
from referee.errors import InputError, printable
from referee.numbers import count, int_arg
from referee.rulesets import rules_table
from referee.userfiles import check_output_file
from tournaments.commandline import (
    DEFAULT_FOLDER,
    REGISTRY_NAME,
    check_round_trip,
    config_from_command_line,
    default_store,
    find_registry,
    parse_seeds,
    to_toml,
)
from tournaments.config import (
    TournamentConfig,
    check_concurrency,
    concurrency_warning,
    demo_config,
    is_tournament_file,
    load_config,
    parse_config,
)
from tournaments.runner import Plan, execute, plan
from tournaments.store import MatchRecord


def register(sub: Any, name: str, summary: str) -> None:
    p = sub.add_parser(
        name,
        help=summary,
        description="Run a tournament: a tournament file (FILE.toml), or bots named on the command line, each as "
        "mjref match takes it (a built-in such as greedy or greedy:chowness=0.8, a command line in one quoted "
        "string, a bot TOML file) or a name from the bot registry (bots.toml here, or --bots FILE). Running the "
        "same command again resumes: finished matches are never repeated or lost, also after kill -9. With no "
        "argument, a demo round-robin of the built-in bots runs. See docs/cli.md.",
        epilog="exit status: 0 the tournament is complete, 2 bad usage or input, 128 + the signal's number when "
        "stopped (130 Ctrl-C, 141 its output was closed; what is finished stays recorded).",
    )
    p.add_argument("items", nargs="*", metavar="FILE | BOT",
                   help="a tournament TOML file, or two or more bots (fewer than four: dummies fill the table)")
    p.add_argument("--restart", action="store_true", help="discard the store's results and start again")
    p.add_argument("--concurrency", type=int_arg, default=None, help="matches at once (default: the file's, or cores)")
    p.add_argument("--store", type=Path, default=None,
                   help="the results store (default: the file's; for bots on the command line "
                   f"{DEFAULT_FOLDER}/NAME-HASH.sqlite, HASH from the bots and settings, so the same command resumes)")
    p.add_argument("--quiet", action="store_true", help="no live view; only the final standings")
    p.add_argument("--json", action="store_true",
                   help="JSON lines on stdout: one per finished match, the standings every N (--standings-every) "
                   "and the final standings last (with --quiet: only the final standings, one JSON object)")
    p.add_argument("--report", type=Path, default=None, metavar="FILE",
                   help="at the end, write the tournament's report: one self-contained HTML page")
    p.add_argument("--with-matches", action="store_true",
                   help="with --report: also write every match's viewer page beside it, linked from the report")
    add_force_option(p, "the --report and --save files")
    p.add_argument("--lines", action="store_true",
                   help="a line per finished match (id, bots and points, faults) instead of the live view; the "
                   "default when stdout is not a terminal")
    p.add_argument("--standings-every", type=int_arg, default=None, metavar="N",
                   help="with lines: the standings every N finished matches, with the rate and an ETA")
    p.add_argument("--dask", metavar="ADDRESS", default=None, type=dask_address,
                   help="run every match on a Dask cluster: a scheduler address, or 'local' for a local cluster "
                   "(needs: pip install 'mjref[dask]')")
    add_timeout_option(p)
    add_play_options(p)
    g = p.add_argument_group("a tournament from the command line (what a tournament file says; see docs/cli.md)")
    g.add_argument("--format", choices=("round-robin", "gauntlet"), default=None,
                   help="round-robin (default: every group of four) or gauntlet (the first bot against every three "
                   "others)")
    g.add_argument("--seeds", type=_seeds_arg, default=None, metavar="N|S1,S2,…",
                   help="how many seeds, 1..N (default 4), or the list of seeds")
    g.add_argument("--hands", type=int_arg, default=None, help="hands per match (default 16)")
    g.add_argument("--duplicate", action=argparse.BooleanOptionalAction, default=None,
                   help="play each seed in every seating, so the luck of the wall cancels (default: on)")
    g.add_argument("--seatings", type=int_arg, choices=(4, 24), default=None,
                   help="with --duplicate: the 4 rotations (default) or all 24 seatings")
    g.add_argument("--wallfile", type=Path, default=None, metavar="FILE|FOLDER",
                   help="openings: the walls of the matches from a wall file (H walls per seed, in order) or a "
                   "folder of them (one file per seed, by name); without --seeds, one seed per opening")
    add_rules_options(g)
    g.add_argument("--each", action="append", default=[], metavar="KEY=VALUE",
                   help="a field for every bot that is not built in (repeatable), e.g. --each timeout=5 "
                   "--each keep_alive=true --each env.LEVEL=3")
    g.add_argument("--name", default=None, help="the tournament's name (default: the bots' names)")
    g.add_argument("--bots", type=Path, default=None, metavar="FILE",
                   help=f"the bot registry: [[bots]] entries naming bots (default: {REGISTRY_NAME} here, if any)")
    g.add_argument("--save", type=Path, default=None, metavar="FILE",
                   help="write the tournament as a tournament file and stop (run it with mjref tournament FILE)")
    p.set_defaults(func=run)


def _seeds_arg(text: str) -> int | list[int]:
    try:
        return parse_seeds(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--seeds: ")) from None


COMMAND_LINE_ONLY = ("format", "seeds", "hands", "duplicate", "seatings", "wallfile", "rules", "options", "each",
                     "name", "bots", "save")


def _given(args: argparse.Namespace) -> list[str]:
    """The options of a command-line tournament that were given, as the user spelled them."""
    spelled = {"options": "--set", "duplicate": "--duplicate/--no-duplicate"}
    return [spelled.get(k, f"--{k}") for k in COMMAND_LINE_ONLY if getattr(args, k) not in (None, [])]


def _names_a_tournament_file(item: str) -> bool:
    """One argument that names a tournament file, not a bot: a TOML file with ``[[bots]]``, or any other path
    that is there but cannot be a bot (not ``.toml``, not an executable file: a FIFO, a folder, ``club.cfg``), so
    that reading it as a tournament file says what is wrong with it."""
    path = Path(item)
    if item.endswith(".toml"):
        return is_tournament_file(path)
    try:
        there = os.path.lexists(path)
    except ValueError:  # a NUL in the name
        return False
    return there and (path.is_dir() or not (path.is_file() and os.access(path, os.X_OK)))


def command_line_config(args: argparse.Namespace) -> tuple[TournamentConfig, Path, str]:
    """The tournament the command line's bots and options describe: its config, base folder and where it came
    from (for messages); with ``--save``, written as a file too."""
    cwd = Path.cwd()
    settings = {"name": args.name, "format": args.format, "seeds": args.seeds, "hands": args.hands,
                "duplicate": args.duplicate, "seatings": args.seatings, "rules": rules_table(args.rules, args.options),
                "wallfile": str(args.wallfile) if args.wallfile is not None else None}
    registry = find_registry(args.bots, cwd)
    data = config_from_command_line(args.items, settings, args.each, registry, cwd)
    if args.store is not None:
        data["store"] = str(args.store)
    else:
        data["store"] = os.path.relpath(default_store(data, cwd), cwd)
    config = parse_config(data, "the command line")
    if args.save is not None:
        check_output_file(args.save, "--save", overwrite=args.force)
        folder = args.save.resolve().parent
        text = to_toml(data, folder, cwd)
        check_round_trip(text, data, folder, cwd)
        args.save.write_text(text, encoding="utf-8")
    return config, cwd, "the command line"


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


def duration(seconds: float) -> str:
    """``12 s``, ``3 min 05 s``, ``2 h 07 min``: an elapsed time or an ETA, as a CI log shows it."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class MatchLines:
    """A line per finished match (``--lines``, or stdout not a terminal), and the standings every ``every``
    matches with the rate and an ETA; as JSON lines with ``--json`` (docs/cli.md shows both)."""

    def __init__(self, p: Plan, *, every: int | None, json_lines: bool, write: Any) -> None:
        self.plan = p
        self.every = every
        self.json = json_lines
        self.write = write  # prints one line (a closed pipe stops the run: make_console)
        self.started = time.monotonic()
        self.played = 0  # in this run

    @property
    def done(self) -> int:
        return self.plan.done + self.played

    def rate(self) -> tuple[float | None, float | None]:
        """Matches per second in this run, and the seconds the rest will take at that rate (None: not known yet)."""
        elapsed = time.monotonic() - self.started
        if not self.played or elapsed <= 0:
            return None, None
        rate = self.played / elapsed
        return rate, (self.plan.total - self.done) / rate

    def add(self, rec: MatchRecord) -> None:
        self.played += 1
        if self.json:
            self.write(json.dumps(match_json(rec, self.done, self.plan.total), ensure_ascii=False))
        else:
            self.write(match_line(rec, self.done, self.plan.total))
        if self.every and (self.played % self.every == 0) and self.done < self.plan.total:
            self.standings()

    def standings(self) -> None:
        from tournaments.stats import compute_standings, to_json

        table = to_json(compute_standings(self.plan.store_path))
        rate, eta = self.rate()
        if self.json:
            self.write(json.dumps({"type": "standings", "after": self.done, "total": self.plan.total,
                                   "matches_per_second": rate, "eta_seconds": eta, **table}, ensure_ascii=False))
            return
        pace = (f"{rate * 60:.1f} matches/min, ETA {duration(eta)}" if rate is not None and eta is not None
                else "no match played yet in this run")
        self.write(f"standings after {self.done}/{self.plan.total} matches ({pace}):")
        for rank, bot in enumerate(table["bots"], start=1):
            ci = f" ± {(bot['ci95'][1] - bot['ci95'][0]) / 2:.1f}" if bot.get("ci95") else ""
            mean = f"{bot['mean']:+.1f}" if bot.get("mean") is not None else "-"
            self.write(f"  {rank:>2} {printable(bot['name']):<24} {mean + ci:>16} points/hand  "
                       f"{count(bot['hands'], 'hand')}  {count(bot['fault_count'], 'fault')}")


def _fault_words(rec: MatchRecord) -> dict[str, dict[str, int]]:
    """Each bot's faults in the match by kind, in seat order."""
    out: dict[str, dict[str, int]] = {}
    for f in rec.fault_rows:
        kinds = out.setdefault(f.bot, {})
        kinds[f.kind] = kinds.get(f.kind, 0) + 1
    return out


def match_line(rec: MatchRecord, done: int, total: int) -> str:
    """``[ 3/40] g0000-s1-r02  greedy +340  random -120  mine -220  drawdiscard +0  (16 hands, 2.1 s)``, and the
    faults by bot and kind: what a CI log shows of each finished match."""
    width = len(str(total))
    seats = "  ".join(f"{printable(s.bot)} {int(s.points):+d}" for s in sorted(rec.seat_results,
                                                                              key=lambda s: s.position))
    faults = _fault_words(rec)
    said = ("  faults: " + "; ".join(f"{printable(bot)} " + ", ".join(f"{kind} {n}" for kind, n in kinds.items())
                                     for bot, kinds in faults.items())) if faults else ""
    return (f"[{done:>{width}}/{total}] {rec.id}  {seats}  ({count(rec.hands, 'hand')}, {rec.seconds:.1f} s)"
            f"{said}")


def match_json(rec: MatchRecord, done: int, total: int) -> dict[str, Any]:
    """A finished match as one JSON line (``--json``)."""
    return {"type": "match", "done": done, "total": total, "id": rec.id, "seed": rec.seed, "hands": rec.hands,
            "seconds": round(rec.seconds, 3), "log": rec.log,
            "seats": [{"seat": s.position, "bot": s.bot, "points": int(s.points), "faults": s.faults}
                      for s in sorted(rec.seat_results, key=lambda s: s.position)],
            "faults": [{"hand": f.hand + 1, "seat": f.position, "bot": f.bot, "kind": f.kind, "detail": f.detail}
                       for f in rec.fault_rows]}


@bad_input_exits_2("tournament")
def run(args: argparse.Namespace) -> int:
    if args.with_matches and args.report is None:
        return fail("tournament", "--with-matches needs --report FILE")
    if args.standings_every is not None and args.standings_every < 1:
        return fail("tournament", f"--standings-every {args.standings_every}: give a number of matches, 1 or more")
    check_concurrency(args.concurrency)
    items = args.items
    store_override = args.store
    if not items or len(items) == 1 and _names_a_tournament_file(items[0]):
        given = _given(args)
        if given:
            what = "the demo" if not items else f"{items[0]} is a tournament file; it"
            return fail("tournament", f"{given[0]} is for bots named on the command line: {what} sets its own "
                        "(see docs/cli.md)")
        if not items:
            config, base_dir, where = demo_config(), Path.cwd(), "demo"
        else:
            path = Path(items[0])
            config, base_dir, where = load_config(path), path.resolve().parent, str(path)
    else:
        config, base_dir, where = command_line_config(args)
        store_override = None  # in the config itself: --save writes it
        if args.save is not None:
            print(f"wrote {printable(args.save)}: run it with mjref tournament {printable(args.save)}")
            return 0
    config = config.with_timeout(args.timeout)
    if args.restart:
        check_dask(args.dask or config.dask)
    if args.store is not None:
        check_output_file(args.store, "--store", private=True)
    if args.report is not None:
        check_output_file(args.report, "--report", overwrite=args.force)
    p = plan(config, base_dir, restart=args.restart, where=where, store_override=store_override)
    executor = open_dask(args.dask or p.config.dask, lambda d, address: d.dask_executor(address, p,
                                                                                         workers=args.concurrency))
    at_once = args.concurrency or (executor.slots if executor is not None else config.workers())
    view = LiveView(p)
    console = make_console()
    lines_wanted = not args.quiet and not args.json and (args.lines or not console.is_terminal)
    session = LongRun("tournament", json=args.json, quiet=args.quiet, render=view.render, every=2,
                      line=lambda: f"  {p.done + view.recorded}/{p.total} matches, {count(view.fault_count, 'fault')}",
                      live=not lines_wanted)
    err = make_console(stderr=True)  # notes and warnings: stderr, beside the errors, never in the output
    for note in p.notes:
        err.print(f"note: {note}", style="yellow", markup=False)  # notes quote paths
    warning = concurrency_warning(config, at_once) if executor is None else None
    if warning:
        err.print(f"warning: {warning}", style="yellow", markup=False)
    if not args.json:
        why = ""
        if executor is None and not (args.concurrency or config.concurrency) and config.has_process_bots:
            why = " (process bots: one core left for the referee, see docs/tournaments.md)"
        session.console.print(f"[bold]{escape(config.name)}[/bold]: {count(p.total, 'match', 'matches')} ({p.done} "
                              f"already in {escape(str(p.store_path))}), {count(config.hands, 'hand')} each, "
                              f"{at_once} at once{why}")
        if executor is not None:
            session.console.print(Text(executor.describe()))

    lines: MatchLines | None = None
    if args.json and not args.quiet:
        out = make_console(on_closed=lambda: session.shutdown.stop(signal.SIGPIPE))
        lines = MatchLines(p, every=args.standings_every, json_lines=True,
                           write=lambda text: out.print(text, markup=False, highlight=False, soft_wrap=True))
    elif lines_wanted:
        lines = MatchLines(p, every=args.standings_every, json_lines=False,
                           write=lambda text: session.console.print(text, markup=False, highlight=False,
                                                                    soft_wrap=True))

    def on_match(rec: MatchRecord) -> None:
        view.add(rec)
        if lines is not None:
            lines.add(rec)
        else:
            session.update(final=p.done + view.recorded == p.total)

    concurrency = args.concurrency or (executor.slots if executor is not None else None)
    try:
        session.play(lambda: execute(p, concurrency=concurrency, on_match=on_match, executor=executor,
                                     shutdown=session.shutdown),
                     executor=executor,
                     recorded=lambda: f"{p.done + view.recorded} of {count(p.total, 'match', 'matches')} "
                              f"{'is' if p.done + view.recorded == 1 else 'are'} recorded in {p.store_path}")
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
        final = to_json(standings) if args.quiet else {"type": "standings", "final": True, **to_json(standings)}
        print(json.dumps(final))
        return 0
    session.console.print(Text(f"{count(view.recorded, 'match', 'matches')} played in {session.elapsed:.1f} s; "
                               "results in "
                               f"{p.store_path}, logs in {p.logs_dir}"))
    render_standings(standings, session.console)
    return 0

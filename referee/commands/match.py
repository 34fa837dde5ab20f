"""``mjref match [BOT ...]``: play one match and show its score table."""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from bots.base import seat_filler
from referee.commands import (
    HOW,
    add_force_option,
    add_play_options,
    add_rules_options,
    add_timeout_option,
    fail,
    make_console,
    score_words,
)
from referee.errors import BotError, InputError
from referee.game.tiles import glyph
from referee.game.wall import Wall, WallError, parse_wallfile
from referee.match import FaultInfo, HandSummary, MatchResult, check_match, play_match, resolve_bots, stderr_files
from referee.numbers import count, int_arg
from referee.rulesets import PLAYED, playable_rules, with_match_options
from referee.shutdown import Interrupted, Shutdown
from referee.userfiles import check_not_same_file, check_output_dir, check_output_file, read_text
from wrappers.sandbox import probe_ahead

if TYPE_CHECKING:
    from rich.live import Live

FAULTED = 4  # --fail-on-fault: a bot that is not built in faulted (0 played, 2 bad usage, 128 + n stopped by signal n)


def register(sub: Any, name: str, summary: str) -> None:
    p = sub.add_parser(
        name,
        help=summary,
        description="Play one match. BOT is a built-in name (greedy, random, drawdiscard, dead_hand; "
        "greedy:chowness=0.8), a command line in one quoted string, or a bot TOML file. Fewer than four BOTs: greedy "
        "fills the other seats, so `mjref match ./mybot` tests one bot against dummies.",
        epilog="exit status: 0 the match was played (whatever the bots did), 2 bad usage or input, 4 with "
        "--fail-on-fault when a bot that is not built in faulted, 128 + the signal's number when stopped (130 "
        "Ctrl-C, 143 SIGTERM, 129 SIGHUP: the bots get /exit and the log ends with an aborted record).",
    )
    p.add_argument("bots", nargs="*", metavar="BOT", help="up to four bots, seated 1..4 in order")
    add_match_options(p)
    p.set_defaults(func=run)


def add_match_options(p: argparse.ArgumentParser) -> None:
    """The options of one match: ``mjref match`` and ``mjref serve`` (without a tournament file) share them."""
    p.add_argument("--seed", type=int_arg, default=None, help="match seed (default: a random one, printed)")
    p.add_argument("--hands", type=int_arg, default=None, help="hands in the match (default 16)")
    add_timeout_option(p)
    p.add_argument("--wallfile", type=Path, action="append", default=None, metavar="FILE",
                   help="explicit walls: a file of one line of TIDs per hand, or mj-server hand histories "
                   "(hand-NN.mjs files or a folder of them; repeatable), whose walls, seats and options are dealt "
                   "(docs/xmj.md, 'The same wall, the same game')")
    add_rules_options(p)
    p.add_argument("--log", type=Path, default=None,
                   help="the JSON-lines log (default: mjref-logs/<time>-<random>.jsonl; 'none' for no log)")
    p.add_argument("--stderr-dir", type=Path, default=None,
                   help="the folder for the bots' stderr files, one per seat (default: NAME.stderr/ beside the log "
                   "NAME.jsonl)")
    p.add_argument("--html", type=Path, default=None, metavar="FILE",
                   help="at the end, write the match's viewer: one self-contained HTML page (needs the log)")
    p.add_argument("--fail-on-fault", action="store_true",
                   help=f"exit {FAULTED} when a bot that is not built in faulted (for a CI job that tests one bot)")
    p.add_argument("--quiet", action="store_true", help="only the final standings")
    p.add_argument("--json", action="store_true", help="print one JSON object with the result, nothing else")
    add_force_option(p, "the --log and --html files and the bots' stderr files")
    add_play_options(p)


def _read_walls(paths: list[Path], rules: Any, args: argparse.Namespace) -> tuple[list[Wall], Any]:
    """The walls of ``--wallfile`` and the ruleset to play them under: a walls file under the match's ruleset, or
    mj-server hand histories under their own options (a classical ruleset; the match's own options, such as
    hands and timeouts, still from ``--rules`` and ``--set``)."""
    from referee.mjserver import history_walls, is_history_path  # here: a match without --wallfile never needs it

    if not any(is_history_path(p) for p in paths):
        if len(paths) > 1:
            raise InputError(f"--wallfile {paths[1]}: one walls file (several --wallfile are mj-server hand "
                             "histories, *.mjs)")
        return parse_wallfile(read_text(paths[0], WallError), rules, str(paths[0])), rules
    if not all(is_history_path(p) for p in paths):
        other = next(p for p in paths if not is_history_path(p))
        raise InputError(f"--wallfile {other}: not an mj-server hand history (*.mjs, or a folder of them), and the "
                         "other --wallfile are")
    return history_walls(paths, rules, args.rules)


Player = Callable[..., MatchResult]


PLAY_STOPPABLE: Player = partial(play_match, handle_signals=True)  # SIGINT, SIGTERM, SIGHUP stop it in order


def run(args: argparse.Namespace, *, command: str = "match", play: Player = PLAY_STOPPABLE,
        live_table: bool = True, remote: bool = False) -> int:
    """Play the match the arguments describe with ``play`` (``play_match`` handling the stop signals; ``mjref serve``
    seats remote bots and shows its own live view of who is logged in, so its hands come as lines: ``live_table``
    False; remote seats log in there and at ``mjref play``: ``remote``).  A match stopped by a signal
    (``MatchResult.aborted``) exits 128 + the signal's number."""
    if not remote:
        probe_ahead()  # whether bubblewrap works, known by the time the bots are checked
    if args.wallfile:
        from referee.mjserver import is_history_path

        histories = any(is_history_path(p) for p in args.wallfile)
    else:
        histories = False
    if histories and "classical" not in PLAYED.get(command, ()):
        return fail(command, f"--wallfile {args.wallfile[0]}: an mj-server hand history deals Chinese Classical, "
                    f"which mjref {command} does not run yet (mjref match does)")
    # (a history's ruleset is classical: --set names classical options even without --rules)
    rules = playable_rules("classical" if histories and args.rules is None else args.rules, args.options, command)
    walls = None
    if args.wallfile:
        walls, rules = _read_walls(args.wallfile, rules, args)
    if args.hands is not None:
        rules = with_match_options(rules, hands=args.hands)
    try:
        filler = seat_filler(rules.default_dummy)
    except BotError as exc:
        raise InputError(f"rule option 'default_dummy': {exc}") from None
    specs = resolve_bots(args.bots, filler)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(8), "big")  # not guessable
    check_match(specs, seed, rules, remote=remote)  # a match refused is refused before any folder is made
    log_path: Path | None
    if args.log is not None and str(args.log).lower() == "none":
        log_path = None
    elif args.log is not None:
        log_path = args.log
    else:
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        log_path = Path("mjref-logs") / f"{stamp}-{secrets.token_hex(3)}.jsonl"  # no seed in a name bots may see
    if args.html is not None and log_path is None:
        return fail(command, "--html needs the match's log: drop --log none")
    stderr_dir = args.stderr_dir or (log_path.parent if log_path else None)
    if stderr_dir is not None and log_path is not None and args.stderr_dir is None:
        stderr_dir = log_path.parent / (log_path.stem + ".stderr")
    # (a folder of histories: each of its files is an input)
    inputs = [("--wallfile", f) for w in args.wallfile or ()
              for f in (sorted(w.glob("*.mjs")) if os.path.isdir(w) else [w])]
    if log_path is not None:  # every place the match will write, checked before it starts
        check_not_same_file(log_path, "--log", inputs)
        check_output_file(log_path, "--log", private=True, overwrite=args.force)
    if args.html is not None:
        check_not_same_file(args.html, "--html", [("--log", log_path), *inputs])
        check_output_file(args.html, "--html", overwrite=args.force)
    if args.stderr_dir is not None:
        check_output_dir(args.stderr_dir, "--stderr-dir", private=True)
    if stderr_dir is not None and not args.force:
        for path in stderr_files(specs, stderr_dir):
            check_output_file(path, "a bot's stderr file", overwrite=False)

    # A closed stdout (``| head -1``) stops the match in order, as SIGPIPE: its log ends with an ``aborted`` record.
    shutdown = Shutdown()
    console = make_console(width=150, on_closed=lambda: shutdown.stop(signal.SIGPIPE))
    show_hands = not (args.quiet or args.json)
    table = _score_table([s.name for s in specs], [])
    live: Live | None = None
    if show_hands and console.is_terminal and live_table:
        from rich.live import Live  # here: only a terminal's table is live

        live = Live(table, console=console, refresh_per_second=8, transient=False)
        live.start()
    names = [s.name for s in specs]

    def on_hand(summary: HandSummary, result: MatchResult) -> None:
        if not show_hands:
            return
        if live is not None:
            live.update(_score_table([s.bot for s in result.seats], result.hands))
        else:
            console.print(_hand_line(summary, [s.bot for s in result.seats]))

    def on_fault(f: FaultInfo) -> None:
        if show_hands and live is None:
            console.print(f"  [red]fault[/red] seat {f.position} ({escape(names[f.position - 1])}), hand "
                          f"{f.hand + 1}: {f.kind}: {escape(f.detail)}")  # a bot's words are never markup

    try:
        result = play(specs, seed=seed, rules=rules, walls=walls, log_path=log_path, stderr_dir=stderr_dir,
                      timeout=args.timeout, on_hand=on_hand, on_fault=on_fault, shutdown=shutdown)
    finally:
        if live is not None:
            live.stop()
    if result.aborted is not None:
        # Stopped by a signal: the bots are ended and the log closed with its ``aborted`` record.
        where = f"; log: {log_path} (ends with an aborted record)" if log_path is not None else ""
        why = " (its output was closed)" if result.aborted == "SIGPIPE" else ""
        played = count(len(result.hands), "hand")
        print(f"mjref {command}: stopped by {result.aborted}{why} after {played} (seed {seed}){where}",
              file=sys.stderr)
        return Interrupted(signal.Signals[result.aborted]).exit_status
    if args.html is not None and log_path is not None:
        from referee.viewer import write_viewer

        write_viewer(log_path, args.html)
    if args.json:
        out = result.to_json()
        if args.html is not None:
            out["html"] = str(args.html)
        print(json.dumps(out))
        return _status(args, result, specs)
    if show_hands and live is None:
        console.print()  # every hand was printed once, as it ended; no second copy as a table
    console.print(_standings(result))
    if result.faults:
        console.print(_faults_table(result))
    if args.html is not None:
        console.print(f"viewer: {escape(str(args.html))}")
    if log_path is not None:
        console.print(f"seed {seed}; log: {escape(str(log_path))}")
    else:
        console.print(f"seed {seed}")
    status = _status(args, result, specs)
    if status:
        console.print(f"[red]a bot faulted[/red] (--fail-on-fault): exit {status}")
    return status


def _status(args: argparse.Namespace, result: MatchResult, specs: list[Any]) -> int:
    """The exit status of a played match: 0, or ``FAULTED`` with ``--fail-on-fault`` when a process bot faulted."""
    if args.fail_on_fault and any(specs[f.position - 1].builtin is None for f in result.faults):
        return FAULTED
    return 0


def _describe(summary: HandSummary, names: list[str]) -> str:
    """The hand's result in words, as plain text (it names bots: escape it where markup is read)."""
    r = summary.result
    if r.outcome == "draw":
        return "exhaustive draw"
    parts = []
    for w in r.wins:
        who = f"{w.seat} {names[w.seat - 1]}"
        how = HOW[w.how] + (f" from {w.thrower}" if w.thrower else "")
        tile = f" {glyph(w.tile)}" if w.tile else ""
        parts.append(f"{who} wins {how}{tile}: {score_words(w, none=None)}")
    return "; ".join(parts)


def _hand_line(summary: HandSummary, names: list[str]) -> str:
    s = summary.setup
    scores = "  ".join(f"{x:+d}" for x in summary.result.scores)
    totals = "  ".join(str(x) for x in summary.totals)
    fault = f"  [red]{len(summary.faults)} fault(s)[/red]" if summary.faults else ""
    return (f"hand {summary.index + 1:>2} {s.round_wind[0]}{s.hand_wind[0]} dealer {s.dealer}: "
            f"{escape(_describe(summary, names))}  | {scores} | totals {totals}{fault}")


def _score_table(names: list[str], hands: list[HandSummary]) -> Table:
    """Kajongg-style score table: per hand, each seat's payment and running total."""
    t = Table(title="Score table", show_lines=False)
    t.add_column("#", justify="right")
    t.add_column("hand")
    t.add_column("result", overflow="fold", max_width=60)
    for p, n in enumerate(names, start=1):
        t.add_column(Text(f"{p} {n}"), justify="right")  # a bot's name is text, never markup
    for h in hands:
        cells = []
        for i in range(4):
            pay = h.result.scores[i] - h.penalties[i]
            style = "green" if pay > 0 else ("red" if pay < 0 else "dim")
            cells.append(f"[{style}]{pay:+d}[/{style}] [bold]{h.totals[i]}[/bold]")
        t.add_row(str(h.index + 1), f"{h.setup.round_wind[0]}{h.setup.hand_wind[0]} d{h.setup.dealer}",
                  Text(_describe(h, names)), *cells)
    return t


def _standings(result: MatchResult) -> Table:
    t = Table(title=f"Standings after {count(len(result.hands), 'hand')} (seed {result.seed})")
    for col, just in (("rank", "right"), ("seat", "right"), ("bot", "left"), ("points", "right"), ("wins", "right"),
                      ("faults", "right"), ("mean answer", "right")):
        t.add_column(col, justify=just)  # type: ignore[arg-type]
    for s in sorted(result.seats, key=lambda s: (s.rank, s.position)):
        mean = f"{s.mean_answer_ms:.2f} ms" if s.answers else "-"
        t.add_row(f"{s.rank:g}", str(s.position), Text(s.bot), str(s.points), str(s.wins), str(s.faults), mean)
    return t


def _faults_table(result: MatchResult) -> Table:
    t = Table(title="Faults")
    for col in ("hand", "seat", "kind", "question", "line", "detail"):
        t.add_column(col, overflow="fold")
    for f in result.faults:
        t.add_row(str(f.hand + 1), f"{f.position} {escape(result.seats[f.position - 1].bot)}", f.kind,
                  f.question or "", escape(f.line or ""), escape(f.detail))
    return t

"""``mjref check BOT``: run the protocol conformance suite against one bot; exit 0 only if every scenario passes."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.table import Table

from referee.commands import add_play_options, add_rules_options, add_timeout_option, fail, shown
from referee.commands.replay import console
from referee.conformance import ORDER, TARGETS, CheckReport, run_check
from referee.game.match_options import MAX_SECONDS
from referee.match import resolve_local_bot
from referee.numbers import count, float_arg
from referee.rulesets import playable_rules
from referee.userfiles import check_output_file


def register(sub: Any, name: str, summary: str) -> None:
    p = sub.add_parser(
        name,
        help=summary,
        description="Play crafted hands with BOT in one seat and scripted seats steering play into each protocol "
        "situation (silent start, /ask throw after /mo, eat, pong, /ask eat with two or three chows, /ask pong, "
        "/ask gong melded, concealed and promoted, /ask hu on a self-draw, a throw and a robbed gong, /pass, exit "
        "after /exit). Every answer must be legal and on time; declining a claim passes. Exit 0 only if all pass. "
        "--rules classical (or a preset or file) deals the same situations in 13-tile hands.",
    )
    p.add_argument("bot", metavar="BOT", nargs="?", default=None,
                   help="a built-in name, a command line in one quoted string, or a TOML file (not needed with --list)")
    p.add_argument("--only", action="append", default=None, metavar="SCENARIO",
                   help=f"run only this scenario (repeatable): {', '.join(ORDER)}")
    add_rules_options(p)
    add_timeout_option(p)
    p.add_argument("--start-grace", type=float_arg, default=None, metavar="SECONDS",
                   help="extra seconds for a hand's first question, for the process to start (default 10)")
    p.add_argument("--list", action="store_true", help="list the scenarios and exit")
    p.add_argument("--stderr", type=Path, default=None, metavar="FILE",
                   help="append the bot's stderr to FILE (default: a new file in the temporary folder, kept only if "
                   "the bot wrote something; its last lines are shown when a scenario fails)")
    p.add_argument("--json", action="store_true", help="print one JSON object, nothing else")
    add_play_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.list:
        for name in ORDER:
            print(f"{name:<17} {TARGETS[name].title}")
        return 0
    if args.bot is None:
        return fail("check", "give the BOT to check (see mjref check --help; --list shows the scenarios)")
    if args.start_grace is not None and not 0 <= args.start_grace <= MAX_SECONDS:
        return fail("check", f"--start-grace {args.start_grace:g}: must be 0 to {MAX_SECONDS:g} seconds")
    rules = playable_rules(args.rules, args.options, "check")  # a bad ruleset: one line, before any bot starts
    spec = resolve_local_bot(args.bot, "check")
    spec.check_runnable()
    if args.stderr is not None:
        check_output_file(args.stderr, "--stderr", private=True)
    report = run_check(spec, rules=rules, timeout=args.timeout, start_grace=args.start_grace, only=args.only,
                       stderr_path=args.stderr)
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False))
    else:
        print_report(report)
    return 0 if report.ok else 1


def print_report(report: CheckReport) -> None:
    out = console()
    t = Table(title=f"mjref check {shown(report.bot)} ({report.kind}; {report.family} rules)", show_lines=False)
    t.add_column("")
    t.add_column("scenario")
    t.add_column("expected", overflow="fold", max_width=34)
    t.add_column("received", overflow="fold", max_width=30)
    t.add_column("note", overflow="fold")
    for r in report.results:
        # A scenario the bot's own choices never led to passes (it is no failure) but was not tested: said so.
        mark = ("[green]PASS[/green]" if r.reached else "[yellow]NOT REACHED[/yellow]") if r.passed else \
            "[red bold]FAIL[/red bold]"
        received = "" if r.received is None else shown(r.received) + (f" [dim]({r.ms:.1f} ms)[/dim]" if r.ms else "")
        note = shown(r.note) if r.reached or not r.passed else f"[dim]{shown(r.note)}[/dim]"
        t.add_row(mark, f"{r.name}\n[dim]{shown(r.title)}[/dim]", shown(r.expected), received, note)
    out.print(t)
    n, bad = len(report.results), len(report.failed)
    took = f"{report.seconds:.1f} s" + (f"; {report.timeout:g} s per question" if report.timeout is not None else "")
    unreached = [r.name for r in report.results if r.passed and not r.reached]
    if unreached:  # passed, but the bot's own choices never led there: said, so that a pass is not read as tested
        took += f"; not reached, so not tested: {', '.join(unreached)}"
    tested = n - len(unreached)
    if bad:
        out.print(f"[red bold]{bad} of {n} scenarios failed[/red bold]: {', '.join(report.failed)} ({took})")
    elif unreached:
        out.print(f"[green]{tested} of {count(n, 'scenario')} passed[/green], [yellow]{len(unreached)} not "
                  f"reached[/yellow] ({took})")
    else:
        out.print(f"[green]all {count(n, 'scenario')} passed[/green] ({took})")
    if report.timed_out and report.timeout is not None:
        out.print(f"[yellow]{len(report.timed_out)} timed out[/yellow] at {report.timeout:g} s per question: if "
                  "the bot is only slow, give it more time with --timeout SECONDS (and --start-grace SECONDS for a "
                  "slow start)")
    if report.stderr_tail:
        out.print(f"[bold]the bot's stderr[/bold] (last {len(report.stderr_tail)} lines of "
                  f"{shown(report.stderr_path or '')}):")
        for line in report.stderr_tail:
            out.print(f"  [dim]│[/dim] {shown(line)}", highlight=False)
    elif report.stderr_path is not None:
        out.print(f"the bot's stderr: {shown(report.stderr_path)}")

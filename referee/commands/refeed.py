"""``mjref refeed LOG --seat N [--hand H] BOT``: does BOT, in seat N, answer every recorded question as logged?

Exit status: 0 when every answer matches, 1 at the first divergence (shown with the bot's hand at that point),
2 when the log, seat, hand or BOT cannot be used.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from referee.commands import add_force_option, add_play_options, add_timeout_option, fail, shown
from referee.commands.replay import console, meld_glyphs
from referee.game.tiles import glyph, glyphs
from referee.match import resolve_local_bot
from referee.numbers import int_arg
from referee.refeed import RefeedReport, run_refeed
from referee.userfiles import check_output_file


def register(sub: Any, name: str, summary: str) -> None:
    p = sub.add_parser(
        name,
        help=summary,
        description="Re-drive the engine from LOG; at seat N's questions ask BOT (a built-in name, a command line "
        "in one quoted string, or a bot TOML file) and compare with the logged answer; the other seats' answers "
        "come from the log. Exit 0 when every answer matches, 1 at the first difference. A process bot seeds "
        "itself: give `python -m bots.random --seed S` the log's seed S to reproduce a built-in random bot.",
    )
    p.add_argument("log", type=Path, metavar="LOG", help="a match log")
    p.add_argument("bot", metavar="BOT", help="the bot to feed the seat's questions to")
    p.add_argument("--seat", type=int_arg, required=True, metavar="N", help="the seat, 1..4")
    p.add_argument("--hand", type=int_arg, default=None, metavar="H", help="only hand H (1-based)")
    add_timeout_option(p, "the bot file's timeout, else the seat's in the log")
    p.add_argument("--stderr", type=Path, default=None, metavar="FILE", help="where a process bot's stderr goes")
    p.add_argument("--json", action="store_true", help="print one JSON object, nothing else")
    add_force_option(p, "the --stderr file")
    add_play_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.hand is not None and args.hand < 1:
        return fail("refeed", f"--hand {args.hand}: hands are counted from 1")
    spec = resolve_local_bot(args.bot, "refeed")
    spec.check_runnable()
    if args.stderr is not None:
        check_output_file(args.stderr, "--stderr", private=True, overwrite=args.force)
    report = run_refeed(args.log, args.seat, spec, hand=None if args.hand is None else args.hand - 1,
                        timeout=args.timeout, stderr_path=args.stderr)
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False))
    else:
        print_report(report)
    return 0 if report.ok else 1


def print_report(report: RefeedReport) -> None:
    out = console()
    hands = ", ".join(str(h + 1) for h in report.hands) or "none"
    mean = f"{1000 * report.bot_seconds / report.questions:.2f} ms" if report.questions else "-"
    per_question = f" ({report.timeout:g} s per question)" if report.timeout is not None else ""
    out.print(f"refeed of [bold]{shown(report.bot)}[/bold] in seat {report.seat} of {shown(str(report.path))} "
              f"(seed {report.seed}); hands {hands}; {report.questions} questions asked{per_question}, mean answer "
              f"{mean}")
    for note in report.notes:
        out.print(f"  note: {shown(note)}")
    m = report.mismatch
    if m is None:
        out.print(f"[green]match[/green]: all {report.matched} answers are the logged ones")
        return
    q = m.question
    tile = f" on {glyph(q.tile)} ({q.tile})" if q.tile is not None else ""
    out.print(f"[red bold]divergence[/red bold] at hand {m.hand + 1}, line {m.line}: /ask {q.ask}{tile}: "
              f"{shown(m.reason)}")
    if m.fault is not None and m.fault.line:
        out.print(f"  the bot's line: {shown(m.fault.line)}")
    out.print(f"  the bot's hand: {glyphs(m.concealed)}  ({' '.join(map(str, m.concealed))})")
    if m.melds:
        out.print(f"  its melds:      {' '.join(meld_glyphs(x) for x in m.melds)}")
    legal = [str(a) for a in q.legal]
    if q.ask == "throw":
        legal_text = f"/throw with any of its {len(legal)} concealed tiles"
    else:
        legal_text = ", ".join(legal[:12]) + (f", … ({len(legal)} in all)" if len(legal) > 12 else "")
    out.print(f"  legal answers:  {shown(legal_text)}")
    out.print(f"  matched before: {report.matched} answers")

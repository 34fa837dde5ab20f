"""``mjref transcript LOG --seat N [--hand H]``: the protocol lines seat N received and sent, as its bot saw them."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from referee.commands import fail
from referee.numbers import int_arg
from referee.transcript import format_transcript, transcript


def register(sub: Any, name: str, summary: str) -> None:
    p = sub.add_parser(
        name,
        help=summary,
        description="Rebuild from LOG the lines seat N received ('<') and sent ('>'), in order, with the time each "
        "answer took; faults ('!') and the default dummy's answers after a fault are marked.",
    )
    p.add_argument("log", type=Path, metavar="LOG", help="a match log")
    p.add_argument("--seat", type=int_arg, required=True, metavar="N", help="the seat, 1..4")
    p.add_argument("--hand", type=int_arg, default=None, metavar="H", help="only hand H (1-based)")
    p.add_argument("--json", action="store_true", help="print one JSON object, nothing else")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.hand is not None and args.hand < 1:
        return fail("transcript", f"--hand {args.hand}: hands are counted from 1")
    header, hands = transcript(args.log, args.seat, None if args.hand is None else args.hand - 1)
    if args.json:
        seat = next(s for s in header.seats if s.position == args.seat)
        print(json.dumps({"log": str(args.log), "seat": args.seat, "name": seat.name, "kind": seat.kind,
                          "hands": [h.to_json() for h in hands]}, ensure_ascii=False))
        return 0
    print(format_transcript(header, args.seat, hands))
    return 0

"""``mjref view LOG -o FILE``: write a match's viewer, one self-contained HTML page that opens from disk."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from referee.commands import add_force_option
from referee.userfiles import check_not_same_file, check_output_file, page_beside
from referee.viewer import write_viewer


def register(sub: Any, name: str, summary: str) -> None:
    p = sub.add_parser(
        name,
        help=summary,
        description="Write one self-contained HTML page (no network: scripts, styles and tile art inline) that "
        "shows the match of LOG seen from above the table: every hand face up, melds, flowers, throws, the wall, "
        "step by step, with each hand's winner, tai and payments. Open it from disk in any browser.",
    )
    p.add_argument("log", type=Path, metavar="LOG", help="a match log (JSON lines, as written by mjref match)")
    p.add_argument("-o", "--output", type=Path, default=None, metavar="FILE",
                   help="the page to write (default: LOG with .html instead of .jsonl)")
    p.add_argument("--json", action="store_true", help="print one JSON object describing what was written")
    add_force_option(p, "the page")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    out = args.output or page_beside(args.log, "LOG")
    check_not_same_file(out, "-o", [("the log", args.log)])
    check_output_file(out, "-o", overwrite=args.force)
    written = write_viewer(args.log, out)
    size = written.stat().st_size
    if args.json:
        print(json.dumps({"log": str(args.log), "html": str(written), "bytes": size}))
    else:
        print(f"wrote {written} ({size / 1024:.0f} KiB); open it in a browser")
    return 0

"""``mjref report STORE -o FILE``: a tournament's report, one self-contained HTML page (and, with --with-matches,
every match's viewer page beside it)."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from referee.commands import add_force_option, fail
from referee.errors import printable
from referee.userfiles import check_output_file, page_beside
from tournaments.report import make_report, matches_dir


def register(sub: Any, name: str, summary: str) -> None:
    p = sub.add_parser(
        name,
        help=summary,
        description="Write one self-contained HTML page (no network; charts are inline SVG) for the results store "
        "STORE: standings with 95% intervals as error bars, each bot's points per hand, cumulative points over "
        "the matches, the head-to-head matrix, fault counts and the list of matches. With --with-matches, each "
        "match's viewer page is written to FILE's folder under <FILE stem>_matches/ and linked from the report.",
    )
    p.add_argument("store", type=Path, metavar="STORE", help="the SQLite results store of a tournament")
    p.add_argument("-o", "--output", type=Path, default=None, metavar="FILE",
                   help="the page to write (default: STORE with .html instead of its suffix)")
    p.add_argument("--with-matches", action="store_true",
                   help="also write every match's viewer page (from the logs the store names) and link them")
    p.add_argument("--json", action="store_true", help="print one JSON object describing what was written")
    add_force_option(p, "the page")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    out = args.output or page_beside(args.store, "STORE")
    if os.path.realpath(out) == os.path.realpath(args.store):  # realpath: a symlink loop is no RuntimeError
        return fail("report", f"{out}: the output would overwrite the store; give another -o FILE")
    check_output_file(out, "-o", overwrite=args.force)
    written = make_report(args.store, out, with_matches=args.with_matches)
    if args.json:
        print(json.dumps({"store": str(args.store), "html": str(written.path), "bytes": written.path.stat().st_size,
                          "viewers": {k: str(v) for k, v in written.viewers.items()},
                          "problems": written.problems}))
        return 0
    print(printable(f"wrote {written.path}"))
    if args.with_matches:
        print(printable(f"wrote {len(written.viewers)} match viewer(s) in {matches_dir(written.path)}"))
    for match_id, why in written.problems.items():  # a reason may quote a log the store names
        print(printable(f"  no viewer for {match_id}: {why}"))
    return 0

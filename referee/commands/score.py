"""``mjref score``: the scoring calculator (docs/rules.md), a thin face over :mod:`referee.game.taiwan16.scoring`.

Reads one JSON object (a win) from a file or stdin, prints the result as JSON, or with ``--explain`` a readable
table.  With any rule option (``--set``, ``--scoring``) the payments are included too.  Bad input exits with
status 2 and one line on stderr: ``mjref score: <FILE>: <reason>``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from referee.commands import fail, make_console
from referee.errors import InputError
from referee.game import tiles
from referee.game.match_options import RulesError
from referee.game.taiwan16.rules import DEFAULT_RULES, Ruleset, make_ruleset, parse_assignments
from referee.game.taiwan16.scoring import ITEM_TITLES, ScoreError, score_request
from referee.userfiles import loads_json, read_limited, read_text, utf8_text

EPILOG = """\
The request (every field but winning_tile, seat_wind and round_wind may be omitted):
  {"concealed": [...TIDs, with the winning tile...], "melds": [{"type": "pong", "tiles": [450, 451, 452]}],
   "winning_tile": 131, "self_drawn": false, "seat_wind": "SOUTH", "round_wind": "EAST", "dealer": false,
   "flowers": [], "last_tile": false, "kong_replacement": false, "robbing_kong": false, "first_turn": false}

seat_wind is the winner's seat wind. The dealer always sits EAST: a winner with "seat_wind": "EAST" is the
dealer and needs "dealer": true; any other seat wind needs "dealer": false (the default). Every field is
described in docs/rules.md ("mjref score: the scoring calculator").

Payments (with --set or --scoring) are given by seat wind, the dealer sitting EAST: "per_payer" is what each
other seat pays when it pays; on a self-drawn win all three pay ("payers": "all"), on a throw only the thrower
("payers": "thrower").

Examples:
  mjref score examples/score-request.json
  mjref score --explain examples/score-request.json
  mjref score --set per_tai=50 --set tai.half_flush=6 - < win.json
"""


def register(subparsers: Any, name: str, summary: str) -> None:
    parser = subparsers.add_parser(
        name,
        help=summary,
        description="Score one winning hand given as a JSON object: its tai items, the arrangement scored and, with "
        "--set or --scoring, the payments.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "file", nargs="?", default="-", metavar="FILE", help="the request; '-' (default) is stdin"
    )
    parser.add_argument("--explain", action="store_true", help="print a readable table instead of JSON")
    parser.add_argument(
        "--set",
        dest="assignments",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="a ruleset option, e.g. per_tai=50, seven_pairs_and_pung=true, tai.full_flush=10 (repeatable)",
    )
    parser.add_argument("--scoring", choices=("tai", "wins"), help="the scoring scheme (default tai)")
    parser.add_argument("--rules", metavar="NAME|FILE", default=None,
                        help="the ruleset: taiwan16 (default), classical, a preset (xmj, dmjl) or a file (a TOML "
                        "ruleset, or an mj-server option file as it is); see docs/classical.md for a classical "
                        "request")
    parser.set_defaults(func=run)


def _fail(where: str, reason: str) -> int:
    return fail("score", f"{where}: {reason}" if where else reason)


def _rules(args: argparse.Namespace, base: object = None) -> Ruleset:
    start = base if isinstance(base, Ruleset) else DEFAULT_RULES
    rules = parse_assignments(args.assignments, start) if args.assignments else start
    if args.scoring:
        rules = make_ruleset({"scoring": args.scoring}, rules)
    return rules


def _read(path: str) -> tuple[str, str]:
    if path == "-":  # bounded as a file is: `< /dev/zero` ended in a MemoryError
        return "<stdin>", utf8_text(read_limited(sys.stdin.buffer, "<stdin>"), "<stdin>")
    return path, read_text(path)


def run(args: argparse.Namespace) -> int:
    chosen = None
    if args.rules is not None:
        from referee.rulesets import load_rules

        chosen = load_rules(args.rules)
        if chosen.family == "classical":
            return run_classical(args, chosen.options)
    try:
        rules = _rules(args, chosen.options if chosen is not None else None)
    except RulesError as exc:
        return _fail("", str(exc))
    where = "<stdin>" if args.file == "-" else args.file
    try:
        where, text = _read(args.file)
    except InputError as exc:  # the file's own reason: missing, a directory, a FIFO, not UTF-8, too large
        return fail("score", str(exc))
    except OSError as exc:
        return _fail(where, f"cannot read ({exc.strerror or exc})")
    except UnicodeDecodeError:
        return _fail(where, "not UTF-8 text")
    try:
        data = loads_json(text)  # bounded nesting: a hostile request is a reason, not a RecursionError
    except json.JSONDecodeError as exc:
        return _fail(where, f"bad JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}")
    with_payments = bool(args.assignments or args.scoring)
    try:
        result = score_request(data, rules, payments=with_payments)
    except ScoreError as exc:
        return _fail(where, str(exc))
    if args.explain:
        explain(result, rules)
    else:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


def run_classical(args: argparse.Namespace, options: Any) -> int:
    """``--rules classical`` (or a classical preset or file): one player's hand, best declaration, explanation."""
    from referee.game.classical.request import score_classical
    from referee.rulesets import with_assignments

    if args.scoring:
        return _fail("", "--scoring is a taiwan16 option; classical scores points and doubles")
    try:
        opts = with_assignments(options, args.assignments)
    except InputError as exc:
        return _fail("", str(exc))
    where = "<stdin>" if args.file == "-" else args.file
    try:
        where, text = _read(args.file)
        data = loads_json(text)
        result = score_classical(data, opts)  # type: ignore[arg-type]
    except json.JSONDecodeError as exc:
        return _fail(where, f"bad JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}")
    except InputError as exc:
        return _fail(where, str(exc))
    if args.explain:
        console = make_console()
        console.print("declared: " + "  ".join(result["declared"]) +
                      ("   concealed: " + " ".join(result["concealed"]) if result["concealed"] else ""))
        for line in result["explanation"]:
            console.print(line, markup=False)
    else:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


def explain(result: dict[str, Any], rules: Ruleset) -> None:
    """Print a result as rich tables: the items with their tai, the arrangement in glyphs, the total."""
    from rich.table import Table

    console = make_console()
    items = Table(title="Items", title_justify="left")
    items.add_column("item")
    items.add_column("key", style="dim")
    items.add_column("tai", justify="right")
    for item in result["items"]:
        english, chinese = ITEM_TITLES.get(item["key"], (item["key"], ""))
        label = f"{english} {chinese}".strip()
        if item.get("count", 1) != 1:
            label += f" ×{item['count']}"
        items.add_row(label, item["key"], str(item["tai"]))
    items.add_section()
    items.add_row("[bold]Total[/bold]", "", f"[bold]{result['tai']}[/bold]")
    console.print(items)

    sets = Table(title="Arrangement", title_justify="left")
    sets.add_column("set")
    sets.add_column("tiles")
    sets.add_column("TIDs", style="dim")
    sets.add_column("status")
    sets.add_column("glyphs")  # last: terminals disagree on the width of Mahjong glyphs
    for s in result["arrangement"]:
        status = s["status"] + (" (winning tile)" if s.get("winning") else "")
        sets.add_row(
            s["type"],
            " ".join(tiles.short(t) for t in s["tiles"]),
            " ".join(str(t) for t in s["tiles"]),
            status,
            " ".join(tiles.glyph(t) for t in s["tiles"]),
        )
    console.print(sets)

    payments = result.get("payments")
    if payments:
        pay = Table(title=f"Payments ({payments['scoring']} scheme)", title_justify="left")
        pay.add_column("seat")
        pay.add_column("pays", justify="right")
        for wind, amount in payments["per_payer"].items():
            pay.add_row(wind + (" (dealer)" if wind == "EAST" else ""), str(amount))
        console.print(pay)
        if payments["self_drawn"]:
            console.print(f"Self-drawn: all three pay; {payments['winner']} gets {payments['winner_gets']}.")
        else:
            console.print(f"On a throw: only the thrower pays its amount to {payments['winner']}.")
    console.print(f"[bold]Total: {result['tai']} tai[/bold]")

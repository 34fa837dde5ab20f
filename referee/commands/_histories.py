"""``mjref replay hand-NN.mjs...``: verify mj-server's own hand histories under mjref's Chinese Classical rules.

Exit status: 0 when every player's score, each item of its explanation and the settlement equal mj-server's in
every file; 1 at the first difference (file, line, mjref's value, mj-server's); 2 when a file is not an mj-server
hand history (one line naming the file and line).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from referee.commands import fail, make_console
from referee.errors import printable
from referee.mjserver import HistoryReport, Verified, verify_histories

SEATS = ("East", "South", "West", "North")


def run_histories(args: argparse.Namespace) -> int:
    if args.hand is not None:
        return fail("replay", "--hand is for mjref's own logs; for mj-server histories name the file (with --explain)")
    report = verify_histories(args.log, no_special_scores=args.no_special_scores)
    if args.json:
        print(json.dumps(report_json(report, explain=args.explain), ensure_ascii=False))
        return 0 if report.ok else 1
    out = make_console(width=140)
    out.print(table(report))
    if args.explain:
        for v in report.hands:
            explain(out, v)
    out.print(verdict(report))
    return 0 if report.ok else 1


def explain(out: Any, v: Verified) -> None:
    """Each player's declared sets, flowers and concealed tiles, and mjref's explanation of its score."""
    out.print(Text(f"\n{printable(v.path)}", style="bold"))
    for x in v.check.scored:
        pid = v.check.seats[x.at.seat]
        head = f"{SEATS[x.at.seat]} (player {pid}){' wins' if x.at.winner else ''}: " + "  ".join(
            [ts.text() for ts in x.hand.sets] + ([" ".join(x.hand.specials)] if x.hand.specials else [])
            + ([f"concealed {' '.join(x.hand.concealed)}"] if x.hand.concealed else []))
        out.print(Text(printable(head)))
        for line in x.score.explanation:
            out.print(Text("    " + line))


def _winner(v: Verified) -> str:
    seat = next((x.at.seat for x in v.check.scored if x.at.winner), None)
    if seat is None:
        return ""
    pid = v.check.seats[seat]
    return f"{pid} {v.history.players.get(pid, '')}"


def table(report: HistoryReport) -> Table:
    """Kajongg-style: a row per hand, and per player (by id) the hand's change ∆ and the game's running total ∑
    (the total before the hand, from the history's Game line, plus ∆)."""
    ids = sorted({pid for v in report.hands for pid in v.history.players})
    t = Table(title="mj-server hand histories (Chinese Classical)")
    for col in ("file", "winner", "verdict"):
        t.add_column(col, overflow="fold")
    for pid in ids:
        names = {v.history.players.get(pid, "") for v in report.hands}
        t.add_column(Text(f"{pid} {printable(names.pop()) if len(names) == 1 else ''}".strip()), justify="right")
    for v in report.hands:
        c = v.check
        verdict_ = "[green]verified[/green]" if c.difference is None else "[red]differs[/red]"
        before = dict(zip(v.history.game.seats, v.history.game.scores, strict=True))
        change = dict(zip(c.seats, c.changes, strict=True))
        cells = []
        for pid in ids:
            if pid not in change:
                cells.append("")
                continue
            d = change[pid]
            style = "green" if d > 0 else ("red" if d < 0 else "dim")
            cells.append(f"[{style}]{d:+d}[/{style}] [bold]{before.get(pid, 0) + d}[/bold]")
        t.add_row(Text(printable(v.path)), Text(printable(_winner(v))), verdict_, *cells)
    return t


def verdict(report: HistoryReport) -> str:
    first = report.first
    n = len(report.hands)
    if first is None:
        return (f"[green]verified[/green]: {n} hand histor{'ies' if n != 1 else 'y'}; every score, "
                f"{report.items} explanation and settlement lines and every settlement equal mj-server's")
    path, d = first
    return (f"[red bold]difference[/red bold] at {escape(printable(path))}:{d.line}: {escape(printable(d.what))}: "
            f"mjref {escape(printable(repr(d.mjref)))}, mj-server {escape(printable(repr(d.mjserver)))}")


def _scored_json(v: Verified) -> list[dict[str, Any]]:
    return [{"seat": x.at.seat, "player": v.check.seats[x.at.seat], "winner": x.at.winner,
             "sets": [ts.text() for ts in x.hand.sets], "specials": x.hand.specials, "concealed": x.hand.concealed,
             "score": x.score.value, "explanation": list(x.score.explanation)} for x in v.check.scored]


def report_json(report: HistoryReport, *, explain: bool = False) -> dict[str, Any]:
    first = report.first
    return {
        "ok": report.ok,
        "hands": [{"file": str(v.path), "seats": list(v.check.seats), "scores": list(v.check.scores),
                   "changes": list(v.check.changes), "verified": v.check.difference is None,
                   **({"scored": _scored_json(v)} if explain else {})} for v in report.hands],
        "items": report.items,
        "difference": None if first is None else {
            "file": str(first[0]), "line": first[1].line, "what": first[1].what, "mjref": first[1].mjref,
            "mjserver": first[1].mjserver},
    }

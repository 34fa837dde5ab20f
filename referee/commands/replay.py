"""``mjref replay LOG``: verify a match log through the engine; show its hands, one hand move by move, or scoring.

Exit status: 0 when every event, settlement and total matches the rules (also for a log that ends with an
``aborted`` record: a match stopped by a signal, verified up to there, and said so); 1 at the first divergence
(the report names the hand, the log line, what the log says and what the rules give); 2 when the file is not a log
this mjref can replay (unreadable, not a log, a newer log format).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from referee.commands import HOW, fail, make_console, score_words, shown
from referee.errors import printable
from referee.game.classical.family import ClassicalDetail, ClassicalRuleset, ClassicalScore
from referee.game.engine import WinRecord
from referee.game.taiwan16.rules import DEFAULT_RULES
from referee.game.taiwan16.scoring import ITEM_TITLES
from referee.game.tiles import glyph, glyphs
from referee.game.types import Meld
from referee.mjserver import is_history_path
from referee.numbers import int_arg
from referee.replay import HandReport, ReplayReport, Step, event_text, replay_log


def register(sub: Any, name: str, summary: str) -> None:
    p = sub.add_parser(
        name,
        help=summary,
        description="Rebuild every hand of LOG from its walls and recorded answers, with the rules from its header, "
        "and check that every event, settlement and total matches. Exit 0 when all match, 1 at the first "
        "divergence (hand, line, what the log says, what the rules give), 2 when LOG is not a replayable log. "
        "Given mj-server hand histories (hand-NN.mjs, or folders of them), replay each under Chinese Classical "
        "with the file's own options and compare every player's score, its explanation and the settlement.",
    )
    p.add_argument("log", type=Path, nargs="+", metavar="LOG",
                   help="a match log (JSON lines, as written by mjref match); or mj-server hand histories "
                   "(hand-NN.mjs files, or folders of them: several at once), verified under Chinese Classical")
    p.add_argument("--hand", type=int_arg, default=None, metavar="N",
                   help="show hand N (1-based) move by move, with every seat's tiles after each step")
    p.add_argument("--explain", action="store_true",
                   help="show each win's arrangement, tai items and payments (of hand N with --hand); for mj-server "
                   "histories, each player's declaration and the explanation of its score")
    p.add_argument("--json", action="store_true", help="print one JSON object, nothing else")
    p.add_argument("--against", type=Path, action="append", default=None, metavar="HISTORY",
                   help="compare LOG (one classical match log) with mj-server hand histories (hand-NN.mjs files or a "
                   "folder of them; repeatable), hand by hand in order, move by move: the dealer and round, the wall, "
                   "each deal, every draw, flower, discard, claim, kong and Mah-Jong, each player's sets, score and "
                   "explanation, the settlement. Exit 0 when all are equal, 1 at the first difference (the history's "
                   "file and line, the log's line, mjref's move and mj-server's), 2 for a file that cannot be read")
    p.add_argument("--no-special-scores", action="store_true",
                   help="mj-server histories only: the game was played with mj-server --no-special-scores "
                   "(flowers and seasons score nothing), which its histories do not record")
    p.set_defaults(func=run)


def console() -> Console:
    return make_console(width=140)


def run(args: argparse.Namespace) -> int:
    if args.against:
        return run_against(args)
    if any(is_history_path(p) for p in args.log):
        from referee.commands._histories import run_histories

        return run_histories(args)
    if len(args.log) > 1:
        return fail("replay", "one match log at a time (several files are for mj-server hand histories, .mjs)")
    if args.no_special_scores:
        return fail("replay", "--no-special-scores is for mj-server hand histories (.mjs), not mjref's logs")
    args.log = args.log[0]
    if args.hand is not None and args.hand < 1:
        return fail("replay", f"--hand {args.hand}: hands are counted from 1")
    detail = args.hand - 1 if args.hand is not None else None
    report = replay_log(args.log, detail=detail)
    if detail is not None and report.detail is None and report.ok:
        n = len(report.hands)
        return fail("replay", f"--hand {args.hand}: {args.log} has {n} hand{'s' if n != 1 else ''}")
    if args.json:
        print(json.dumps(report_json(report, explain=args.explain), ensure_ascii=False))
        return 0 if report.ok else 1
    out = console()
    names = [s.name for s in report.header.seats]
    out.print(_title(report))
    if report.detail is not None:
        print_moves(out, report.detail, names)
    else:
        out.print(score_table(report.hands, names))
    if args.explain:
        hands = [report.detail] if report.detail is not None else report.hands
        for h in hands:
            if h is not None and h.end is not None:
                print_explanation(out, h, names)
    if report.faults:
        out.print(_faults_table(report, names))
    out.print(verdict(report))
    return 0 if report.ok else 1


def run_against(args: argparse.Namespace) -> int:
    """``--against HISTORY... LOG``: the log compared with mj-server's histories (``referee.against``)."""
    from referee.against import compare

    if len(args.log) != 1 or is_history_path(args.log[0]):
        return fail("replay", "--against compares one mjref match log (JSON lines) with mj-server's histories: "
                    "name the log once, and the histories with --against")
    if args.hand is not None or args.explain or args.no_special_scores:
        flag = "--hand" if args.hand is not None else "--explain" if args.explain else "--no-special-scores"
        return fail("replay", f"{flag} does not go with --against")
    report = compare(args.against, args.log[0])
    d = report.difference
    if args.json:
        print(json.dumps({"ok": report.ok, "log": str(report.log), "histories": [str(p) for p in report.histories],
                          "hands": report.hands, "log_hands": report.log_hands, "moves": report.moves,
                          "difference": None if d is None else d.to_json()}, ensure_ascii=False))
    elif d is None:
        rest = report.log_hands - report.hands
        print(f"equal: {report.hands} hand{'s' if report.hands != 1 else ''}, {report.moves} moves of "
              f"{printable(str(report.log))} are mj-server's"
              + (f" (its {rest} later hand{'s have' if rest != 1 else ' has'} no history to compare with)"
                 if rest > 0 else ""))
    else:
        print(f"differs: {printable(d.message)}")
    return 0 if report.ok else 1


# ---------------------------------------------------------------------------------------------------- text
def _title(report: ReplayReport) -> str:
    h = report.header
    seats = ", ".join(f"{s.position} {shown(s.name)}" for s in h.seats)
    changed = rules_changed(report)
    rules = ", ".join(f"{k}={v}" for k, v in changed.items()) if changed else "default"
    return (f"[bold]{shown(str(report.path))}[/bold]: seed {h.seed}, {h.hands} hands planned, {h.walls} walls, "
            f"written by mjref {shown(h.mjref)} (log format {h.format})\nseats: {seats}\nrules: {shown(rules)}")


def rules_changed(report: ReplayReport) -> dict[str, Any]:
    """The ruleset options that differ from the defaults (``tai.KEY`` for changed tai values); a classical
    ruleset's ``family`` and each GameOption that differs from mj-server's default."""
    now = report.rules.model_dump()
    classical = now.get("family") == "classical"
    base = ClassicalRuleset().model_dump() if classical else DEFAULT_RULES.model_dump()
    out: dict[str, Any] = {"family": "classical"} if classical else {}
    for k, v in now.items():
        if k in ("tai", "options"):
            for key, x in v.items():
                if base[k].get(key) != x:
                    out[f"{k}.{key}" if k == "tai" else key] = x
        elif base.get(k) != v:
            out[k] = v
    return out


def describe_win(w: WinRecord, names: list[str]) -> str:
    """A win in words, as plain text (it names bots: escape it where markup is read)."""
    who = f"{w.seat} {names[w.seat - 1]}"
    how = HOW[w.how] + (f" from {w.thrower}" if w.thrower else "")
    tile = f" {glyph(w.tile)}" if w.tile else ""
    return f"{who} wins {how}{tile}: {score_words(w)}"


def score_table(hands: list[HandReport], names: list[str]) -> Table:
    """Kajongg-style: per hand the result, each seat's payment and running total."""
    t = Table(title="Hands (verified)", show_lines=False)
    t.add_column("#", justify="right")
    t.add_column("hand")
    t.add_column("lines", justify="right", style="dim")
    t.add_column("result", overflow="fold", max_width=56)
    for p, n in enumerate(names, start=1):
        t.add_column(Text(printable(f"{p} {n}")), justify="right")  # a bot's name is text, never markup
    for h in hands:
        e = h.end
        r = e.result
        text = "exhaustive draw" if r.outcome == "draw" else shown("; ".join(describe_win(w, names) for w in r.wins))
        if e.faults:
            text += f" [red]({len(e.faults)} fault{'s' if len(e.faults) > 1 else ''})[/red]"
        cells = []
        for i in range(4):
            pay = r.scores[i] - e.penalties[i]
            style = "green" if pay > 0 else ("red" if pay < 0 else "dim")
            cells.append(f"[{style}]{pay:+d}[/{style}] [bold]{e.totals[i]}[/bold]")
        t.add_row(str(e.index + 1), shown(f"{e.setup.round_wind[0]}{e.setup.hand_wind[0]} d{e.setup.dealer}"),
                  f"{e.first_line}-{e.line}", text, *cells)
    return t


def verdict(report: ReplayReport) -> str:
    if report.ok:
        n = len(report.hands)
        totals = " ".join(str(x) for x in (report.hands[-1].end.totals if report.hands else (0, 0, 0, 0)))
        text = (f"[green]verified[/green]: {n} hand{'s' if n != 1 else ''}, {report.records} records; every event, "
                f"settlement and total matches the rules (totals {totals})")
        if report.aborted is not None:
            text += (f"\n[yellow]aborted[/yellow]: the match was stopped by {shown(report.aborted)} after {n} "
                     f"hand{'s' if n != 1 else ''}; the log is verified up to where it stops")
        return text
    d = report.divergence
    assert d is not None
    return f"[red bold]divergence[/red bold] at {shown(d.message)}"


def meld_glyphs(m: Meld | dict[str, Any]) -> str:
    mtype = m.type if isinstance(m, Meld) else m["type"]
    tiles = m.tiles if isinstance(m, Meld) else m["tiles"]
    concealed = mtype in ("concealed_gong", "concealed_pong")  # (the second: a concealed gong robbed)
    return ("{" + glyphs(tiles) + "}") if concealed else ("[" + glyphs(tiles) + "]")


def seat_line(p: int, tiles: dict[str, Any], dealer: int, acted: bool) -> str:
    from referee.game.engine import seat_wind

    wind = seat_wind(p, dealer)[0]
    parts = [f"  {p} {wind}{'▸' if acted else ' '} {glyphs(tiles['concealed'])}"]
    if tiles["melds"]:
        parts.append(" ".join(meld_glyphs(m) for m in tiles["melds"]))
    if tiles["flowers"]:
        parts.append("✿ " + glyphs(tiles["flowers"]))
    return "  ".join(parts)


def step_text(step: Step, names: list[str]) -> str:
    q = step.question
    tile = f" {glyph(q.tile)} ({q.tile})" if q.tile is not None else ""
    by = " [yellow](dummy)[/yellow]" if step.by == "dummy" else ""
    return (f"seat {q.seat} {shown(names[q.seat - 1])}: /ask {q.ask}{tile} → [bold]{shown(str(step.answer))}[/bold]"
            f"{by}  [dim]{step.ms:g} ms[/dim]")


def print_moves(out: Console, h: HandReport, names: list[str]) -> None:
    begin = h.begin
    assert begin is not None and h.steps is not None and h.snapshots is not None
    s = begin.setup
    out.print(f"\n[bold]Hand {s.index + 1}[/bold]: {shown(s.round_wind)} round, {shown(s.hand_wind)} hand, "
              f"dealer {s.dealer}, "
              f"open {begin.wall.open_seat(s.dealer)} (line {begin.line})")
    out.print("[bold]deal[/bold]: " + shown("  ".join(event_text(e) for e in begin.events if e.kind == "flower"))
              if any(e.kind == "flower" for e in begin.events) else "[bold]deal[/bold]")
    for p in (1, 2, 3, 4):
        out.print(seat_line(p, h.snapshots[0][p], s.dealer, False))
    for n, (step, snap) in enumerate(zip(h.steps, h.snapshots[1:]), start=1):
        out.print(f"[bold]{n:>3}[/bold] [dim]line {step.line}[/dim]  {step_text(step, names)}")
        for e in step.events:
            out.print(f"      [cyan]{shown(event_text(e))}[/cyan]")
        for p in (1, 2, 3, 4):
            out.print(seat_line(p, snap[p], s.dealer, p == step.question.seat))
    if h.end is not None:
        r = h.end.result
        res = "exhaustive draw" if r.outcome == "draw" else "; ".join(describe_win(w, names) for w in r.wins)
        out.print(f"[bold]result[/bold] (line {h.end.line}): {shown(res)}; scores "
                  f"{' '.join(f'{x:+d}' for x in r.scores)}; totals {' '.join(map(str, h.end.totals))}")


def print_explanation(out: Console, h: HandReport, names: list[str]) -> None:
    e = h.end
    r = e.result
    if r.outcome == "draw":
        out.print(f"\n[bold]Hand {e.index + 1}[/bold]: exhaustive draw, nobody pays.")
        return
    for w in r.wins:
        how = HOW[w.how] + (f" from seat {w.thrower} ({shown(names[w.thrower - 1])})" if w.thrower else "")
        tile = f" with {glyph(w.tile)} ({w.tile})" if w.tile is not None else ""
        out.print(f"\n[bold]Hand {e.index + 1}[/bold]: seat {w.seat} ({shown(names[w.seat - 1])}) wins {how}{tile}")
        if isinstance(r.detail, ClassicalDetail):
            print_classical(out, r.detail, names)
            continue
        sets = Table(title="Arrangement", title_justify="left")
        for col in ("set", "TIDs", "status", "glyphs"):
            sets.add_column(col)
        for a in w.score.arrangement:
            status = a.status + (" (winning tile)" if a.winning else "")
            sets.add_row(shown(a.type), " ".join(map(str, a.tiles)), shown(status), " ".join(glyph(t) for t in a.tiles))
        if w.score.arrangement:
            out.print(sets)
        items = Table(title="Tai", title_justify="left")
        items.add_column("item")
        items.add_column("key", style="dim")
        items.add_column("tai", justify="right")
        for i in w.score.items:
            english, chinese = ITEM_TITLES.get(i.key, (i.key, ""))
            label = f"{english} {chinese}".strip() + (f" ×{i.count}" if i.count != 1 else "")
            items.add_row(shown(label), shown(i.key), str(i.tai))
        items.add_section()
        items.add_row("[bold]Total[/bold]", "", f"[bold]{w.score.tai}[/bold]")
        out.print(items)
        pays = ", ".join(f"seat {p} {shown(names[p - 1])} {x:+d}" for p, x in enumerate(w.payments, start=1) if x)
        out.print(f"payments: {pays}")


def print_classical(out: Console, d: ClassicalDetail, names: list[str]) -> None:
    """A classical hand's end: every player's sets as scored, score and mj-server's explanation, the settlement."""
    t = Table(title="Every player's score", title_justify="left", show_lines=True)
    for col in ("seat", "sets (declared for it where it did not)", "left over", "flowers", "explanation", "score"):
        t.add_column(col, justify="right" if col == "score" else "left")
    for p in d.players:
        t.add_row(f"{p.seat} {shown(names[p.seat - 1])}", shown(" ".join(p.sets)), shown(" ".join(p.concealed)),
                  shown(" ".join(p.flowers)), "\n".join(shown(x) for x in p.explanation), str(p.score))
    out.print(t)
    cannon = f" (seat {d.cannon} let off a cannon)" if d.cannon is not None else ""
    out.print("settlement" + cannon + ":\n" + "\n".join(shown(x) for x in d.settlement if x))


def _faults_table(report: ReplayReport, names: list[str]) -> Table:
    t = Table(title="Faults in the log")
    for col in ("hand", "line", "seat", "kind", "question", "bot's line", "detail"):
        t.add_column(col, overflow="fold")
    for f in report.faults:
        t.add_row(str(f.index + 1), str(f.line), f"{f.seat} {shown(names[f.seat - 1])}", shown(f.kind),
                  shown(f.question or ""), shown(f.text or ""), shown(f.detail))
    return t


# ---------------------------------------------------------------------------------------------------- JSON
def win_json(w: WinRecord) -> dict[str, Any]:
    if isinstance(w.score, ClassicalScore):
        return {"seat": w.seat, "how": w.how, "tile": w.tile, "thrower": w.thrower, "score": w.score.tai,
                "explanation": list(w.score.explanation), "payments": list(w.payments)}
    return {"seat": w.seat, "how": w.how, "tile": w.tile, "thrower": w.thrower, "tai": w.score.tai,
            "items": [i.to_json() for i in w.score.items],
            "arrangement": [a.to_json() for a in w.score.arrangement], "payments": list(w.payments)}


def hand_json(h: HandReport) -> dict[str, Any]:
    e = h.end
    r = e.result
    return {
        "hand": e.index + 1, "round_wind": e.setup.round_wind, "hand_wind": e.setup.hand_wind,
        "dealer": e.setup.dealer, "lines": [e.first_line, e.line], "outcome": r.outcome,
        "wins": [win_json(w) for w in r.wins], "scores": list(r.scores), "penalties": list(e.penalties),
        **({"classical": r.detail.to_json()} if isinstance(r.detail, ClassicalDetail) else {}),
        "totals": list(e.totals),
        "faults": [{"seat": f.seat, "kind": f.kind, "line": f.line, "question": f.question, "detail": f.detail}
                   for f in e.faults],
    }


def moves_json(h: HandReport) -> dict[str, Any]:
    begin = h.begin
    assert begin is not None and h.steps is not None and h.snapshots is not None
    return {
        "hand": begin.index + 1, "line": begin.line, "dealer": begin.setup.dealer,
        "deal": {str(p): h.snapshots[0][p] for p in (1, 2, 3, 4)},
        "steps": [
            {"line": s.line, "seat": s.question.seat, "ask": s.question.ask, "tile": s.question.tile,
             "answer": str(s.answer), "by": s.by, "ms": s.ms, "events": [event_text(e) for e in s.events],
             "tiles": {str(p): snap[p] for p in (1, 2, 3, 4)}}
            for s, snap in zip(h.steps, h.snapshots[1:])
        ],
    }


def report_json(report: ReplayReport, *, explain: bool = False) -> dict[str, Any]:
    h = report.header
    out: dict[str, Any] = {
        "ok": report.ok, "log": str(report.path), "format": h.format, "mjref": h.mjref, "seed": h.seed,
        "rules_changed": rules_changed(report), "seats": [s.name for s in h.seats], "records": report.records,
        "hands": [hand_json(x) for x in report.hands],
        "totals": list(report.hands[-1].end.totals) if report.hands else [0, 0, 0, 0],
        "divergence": report.divergence.to_json() if report.divergence else None,
        "aborted": report.aborted,
    }
    if report.detail is not None:
        out["moves"] = moves_json(report.detail)
    return out

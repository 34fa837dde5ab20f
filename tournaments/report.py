"""The tournament report: one self-contained HTML page for a results store.

The numbers come from :mod:`tournaments.stats` (standings with 95% intervals clustered by duplicate group, and the
head-to-head), through its JSON form :func:`tournaments.stats.to_json`, so the page and ``mjref standings --format
json`` can never disagree.  What the stats module does not give (each bot's points in every hand, its cumulative
points over the matches, the list of matches and faults) is read here from the store's tables, read-only.

Charts are inline SVG drawn by :mod:`referee.html.charts`; the page has no script and makes no request.  With
``with_matches`` every match with a log gets its viewer page (:func:`referee.viewer.write_viewer`) in a folder next to
the report (``<report stem>_matches/<match id>.html``), linked by a relative path, so the folder can be moved or
served as a whole.
"""

from __future__ import annotations

import math
import os
import sqlite3
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from referee import __version__
from referee.errors import InputError, MjrefError, printable
from referee.html import charts, html_text, report_page
from referee.viewer import write_viewer
from tournaments import totals as agg
from tournaments.schedule import MATCH_ID
from tournaments.stats import TRUST_MEMORY_MARK, compute_standings, to_json
from tournaments.store import StoreError, connect, has_totals

__all__ = [
    "ReportError", "ReportWritten", "build_report", "make_report", "matches_dir", "render_report", "write_report",
]


class ReportError(InputError):
    """A store the report cannot be made from, or a page that cannot be written; the message names the file."""


def matches_dir(out_path: Path) -> Path:
    """Where ``write_report(..., with_matches=True)`` puts the matches' viewer pages."""
    return out_path.with_name(out_path.stem + "_matches")


# ---------------------------------------------------------------------------------------------------- data
MATCH_LIST = 200
"""The most matches the page lists (and gives viewer pages): every match of a smaller store; of a larger one, the
matches with the most faults (up to a quarter of the list) and the latest recorded."""
FAULT_LIST = 200
"""The most faults the page lists one by one (their counts by bot and kind are always complete)."""
CURVE_POINTS = 400
"""The most points of each bot's cumulative curve: a larger store is drawn in buckets of consecutive matches."""


def _histograms(con: sqlite3.Connection) -> dict[str, list[list[int]]]:
    """Per bot: ``[points in one hand, how many hands]``, from the totals (or summed, for an older store)."""
    if has_totals(con):
        return {bot: [[p, n] for p, n in pairs] for bot, pairs in agg.hand_points_histogram(con).items()}
    counts: dict[tuple[str, int], int] = defaultdict(int)
    for p in (1, 2, 3, 4):
        for bot, pts, n in con.execute(
                f"SELECT m.seat{p}, h.s{p} - h.p{p}, COUNT(*) FROM hands h JOIN matches m ON m.id = h.match_id "
                f"GROUP BY 1, 2"):  # noqa: S608 - p is 1..4
            counts[(str(bot), int(pts))] += int(n)
    out: dict[str, list[list[int]]] = defaultdict(list)
    for (bot, pts), n in sorted(counts.items()):
        out[bot].append([pts, n])
    return dict(out)


def _curves(con: sqlite3.Connection, matches: int) -> dict[str, list[list[float]]]:
    """Per bot: ``[matches so far, its cumulative points]`` in schedule order; at most ``CURVE_POINTS`` points, each
    the end of a bucket of consecutive schedule indices (every match, for a small store).  One pass over the
    matches table, whose rows name the seats and their totals."""
    if not matches:
        return {}
    top = int(con.execute("SELECT MAX(idx) FROM matches").fetchone()[0]) + 1
    step = max(1, -(-top // CURVE_POINTS))
    per_bucket: dict[int, int] = {}
    gained: dict[int, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for bucket, *cols in con.execute(
            "SELECT idx / ?, COUNT(*), seat1, SUM(total1), seat2, SUM(total2), seat3, SUM(total3), seat4, "
            "SUM(total4) FROM matches GROUP BY 1, seat1, seat2, seat3, seat4", (step,)):
        per_bucket[bucket] = per_bucket.get(bucket, 0) + int(cols[0])
        for i in range(1, 9, 2):
            gained[bucket][str(cols[i])] += cols[i + 1]
    out: dict[str, list[list[float]]] = defaultdict(list)
    running: dict[str, float] = defaultdict(float)
    seen = 0
    for bucket in sorted(per_bucket):
        seen += per_bucket[bucket]
        for bot, pts in gained[bucket].items():
            running[bot] += pts
            out[bot].append([seen, running[bot]])
    return dict(out)


def _listed_ids(con: sqlite3.Connection, matches: int) -> list[str]:
    if matches <= MATCH_LIST:
        return [str(r[0]) for r in con.execute("SELECT id FROM matches")]
    notable = [str(r[0]) for r in con.execute(
        "SELECT match_id FROM faults GROUP BY match_id ORDER BY COUNT(*) DESC, match_id LIMIT ?", (MATCH_LIST // 4,))]
    latest = [str(r[0]) for r in con.execute("SELECT id FROM matches ORDER BY rowid DESC LIMIT ?", (MATCH_LIST,))]
    return list(dict.fromkeys([*notable, *latest]))[:MATCH_LIST]


def _read_tables(store_path: Path) -> dict[str, Any]:
    """What the page shows beyond the standings, read in one snapshot; bounded whatever the store's size."""
    try:
        con = connect(store_path, readonly=True)
    except sqlite3.Error as exc:
        raise StoreError(f"{store_path}: not an mjref results store ({exc})") from None
    try:
        con.execute("BEGIN")
        total = int(con.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
        ids = _listed_ids(con, total)
        listed: list[dict[str, Any]] = []
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            marks = ",".join("?" * len(chunk))
            listed += [dict(r) for r in con.execute(
                "SELECT id, idx, grp, seed, rotation, seat1, seat2, seat3, seat4, hands, total1, total2, total3, "
                f"total4, log, seconds, finished, (SELECT COUNT(*) FROM faults f WHERE f.match_id = m.id) AS faults "
                f"FROM matches m WHERE id IN ({marks})", chunk)]  # noqa: S608 - placeholders only
        for m in listed:  # (before the sort: an idx that is not a number cannot be compared)
            _check_match_row(m, store_path)
        listed.sort(key=lambda m: (m["idx"], m["id"]))
        seats: dict[str, dict[int, dict[str, Any]]] = defaultdict(dict)
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            marks = ",".join("?" * len(chunk))
            for r in con.execute(f"SELECT match_id, position, bot, points, rank, faults FROM seats "
                                 f"WHERE match_id IN ({marks})", chunk):  # noqa: S608 - placeholders only
                seats[r["match_id"]][r["position"]] = dict(r)
        faults = [dict(r) for r in con.execute(
            "SELECT f.match_id, f.hand, f.position, f.bot, f.kind, f.detail, f.line FROM faults f "
            "JOIN matches m ON m.id = f.match_id ORDER BY m.idx, f.hand, f.position LIMIT ?", (FAULT_LIST,))]
        fault_total = int(con.execute("SELECT COUNT(*) FROM faults").fetchone()[0])
        per_hand = _histograms(con)
        cumulative = _curves(con, total)
        meta = {r["key"]: r["value"] for r in con.execute("SELECT key, value FROM meta")}
        con.execute("ROLLBACK")
    except sqlite3.Error as exc:
        raise StoreError(f"{store_path}: not an mjref results store ({exc})") from None
    finally:
        con.close()
    return {"matches": listed, "matches_total": total, "seats": seats, "faults": faults,
            "faults_total": fault_total, "per_hand": per_hand, "cumulative": cumulative, "meta": meta}


_MATCH_NUMBERS = ("idx", "seed", "hands", "total1", "total2", "total3", "total4", "seconds")


def _check_match_row(m: dict[str, Any], store_path: Path | str) -> None:
    """A listed match as the report writes it into its page and its viewers' file names: a plain ID, numbers where
    numbers go, a log path as text.  A store edited by hand (an ID ``../../x``, a seed holding HTML) is refused."""
    if type(m["id"]) is not str or not MATCH_ID.fullmatch(m["id"]):
        raise StoreError(f"{store_path}: a match ID {printable(str(m['id'])[:60])!r} is not one mjref makes; the "
                         "store is damaged")
    for column in _MATCH_NUMBERS:
        value = m[column]  # whole numbers but the seconds: the page writes a total of 1.5 as {:d} (a ValueError)
        if type(value) is not int and (column != "seconds" or type(value) is not float or not math.isfinite(value)):
            raise StoreError(f"{store_path}: match {m['id']}: column {column!r} holds {printable(str(value)[:60])!r}, "
                             f"not {'a' if column == 'seconds' else 'a whole'} number; the store is damaged")
    if m["log"] is not None and type(m["log"]) is not str:
        raise StoreError(f"{store_path}: match {m['id']}: its log is not a path; the store is damaged")


def _seat_bot(tables: dict[str, Any], match: dict[str, Any], position: int) -> str:
    row = tables["seats"].get(match["id"], {}).get(position)
    return str(row["bot"]) if row else str(match[f"seat{position}"])


def build_report(store_path: Path | str) -> dict[str, Any]:
    """Everything the page shows, as plain data (``standings`` is :func:`tournaments.stats.to_json`).  Its size is
    bounded: aggregates (standings, histograms as counts, curves of at most ``CURVE_POINTS`` points) and at most
    ``MATCH_LIST`` matches and ``FAULT_LIST`` faults, with the totals (``matches_total``, ``faults_total``)."""
    path = Path(store_path)
    if path.is_dir():
        raise ReportError(f"{path}: is a directory, not a results store")
    try:
        standings = to_json(compute_standings(path))
        tables = _read_tables(path)
    except StoreError as exc:
        raise ReportError(str(exc)) from None
    match_rows = []
    for m in tables["matches"]:
        seats = [{"position": p, "bot": _seat_bot(tables, m, p), "total": m[f"total{p}"],
                  "rank": tables["seats"].get(m["id"], {}).get(p, {}).get("rank")} for p in (1, 2, 3, 4)]
        match_rows.append({
            "n": m["idx"] + 1, "id": m["id"], "idx": m["idx"], "group": m["grp"], "seed": m["seed"],
            "rotation": m["rotation"], "hands": m["hands"], "seats": seats, "log": m["log"], "seconds": m["seconds"],
            "faults": m["faults"],
        })
    return {
        "store": str(path),
        "name": standings.get("name") or tables["meta"].get("name") or path.stem,
        "created": tables["meta"].get("created"),
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "standings": standings,
        "per_hand": tables["per_hand"],
        "cumulative": tables["cumulative"],
        "matches": match_rows,
        "matches_total": tables["matches_total"],
        "faults": tables["faults"],
        "faults_total": tables["faults_total"],
    }


def resolve_log(store_path: Path, log: str | None, match_id: str) -> Path | None:
    """A match's log: the path the store names (relative: to the store's folder), else ``<store>-logs/<id>.jsonl``."""
    candidates = []
    if log:
        p = Path(log)
        candidates.append(p if p.is_absolute() else store_path.parent / p)
    candidates.append(store_path.with_name(store_path.stem + "-logs") / f"{match_id}.jsonl")
    return next((c for c in candidates if c.is_file()), None)


# ---------------------------------------------------------------------------------------------------- the page
def _num(v: Any, digits: int = 1, sign: bool = False) -> str:
    if v is None:
        return "n/a"
    return f"{v:+.{digits}f}" if sign else f"{v:.{digits}f}"


def _pct(v: Any) -> str:
    return "n/a" if v is None else f"{100 * v:.0f}%"


def _ci(ci: Any, caveat: str | None = None, digits: int = 1) -> str:
    """An interval cell; its caveat (``ci95_caveat``: why it may cover less than 95 %) beside it."""
    if not ci:
        return "too few groups"
    text = f"[{ci[0]:+.{digits}f}, {ci[1]:+.{digits}f}]"
    return f"{text} <small>({html_text(caveat)})</small>" if caveat else text


def _standings_table(st: dict[str, Any]) -> str:
    head = ("<tr><th>#</th><th class=l>bot</th><th>matches</th><th>hands</th><th>points</th>"
            "<th>per hand</th><th>95% interval</th><th>avg rank</th><th>1st</th><th>win</th><th>self-draw</th>"
            "<th>deal-in</th><th>faults</th><th title='answer time in ms, mean / max'>ms</th></tr>")
    rows = []
    for i, b in enumerate(st["bots"], start=1):
        ci = b["ci95"]
        sig = ""
        if ci and (ci[0] > 0 or ci[1] < 0):
            sig = " pos" if ci[0] > 0 else " neg"
        dummy = ' <span class="tag">dummy</span>' if b["dummy"] else ""
        swatch = f'<span class="sw" style="background:{charts.colour(i - 1, b["dummy"])}"></span>'
        ms = f'{_num(b["mean_answer_ms"], 2)} / {_num(b["max_answer_ms"], 1)}'
        rows.append(
            f'<tr class="standing{" dummy" if b["dummy"] else ""}" data-bot="{html_text(b["name"])}" data-rank="{i}" '
            f'data-mean="{b["mean"]}" data-points="{b["points"]}">'
            f'<td>{i}</td><td class="l name">{swatch}{html_text(b["name"])}{dummy}</td><td>{b["matches"]}</td>'
            f'<td>{b["hands"]}</td><td>{b["points"]:g}</td><td class="mean{sig}">{_num(b["mean"], 1, True)}</td>'
            f'<td class="ci">{_ci(ci, b.get("ci95_caveat"))}</td><td>{_num(b["avg_rank"], 2)}</td>'
            f'<td>{_pct(b["first_rate"])}</td>'
            f'<td>{_pct(b["win_rate"])}</td><td>{_pct(b["self_draw_rate"])}</td><td>{_pct(b["deal_in_rate"])}</td>'
            f'<td class="faults">{b["fault_count"]}</td><td>{ms}</td></tr>')
    return f'<table id="standings" class="grid"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'


def _h2h_table(st: dict[str, Any]) -> str:
    names = [b["name"] for b in st["bots"]]
    cells = {(h["a"], h["b"]): h for h in st["head_to_head"]}
    head = "<tr><th class=l>row − column</th>" + "".join(f"<th>{html_text(n)}</th>" for n in names) + "</tr>"
    rows = []
    for a in names:
        tds = []
        for b in names:
            if a == b:
                tds.append('<td class="self">—</td>')
                continue
            h = cells.get((a, b))
            if h is None or h["mean_diff"] is None:
                tds.append(f'<td class="none" data-a="{html_text(a)}" data-b="{html_text(b)}">never met</td>')
                continue
            ci = h["ci95"]
            tone = "pos" if ci and ci[0] > 0 else "neg" if ci and ci[1] < 0 else "flat"
            tip = (f"{a} minus {b}: {h['mean_diff']:+.2f} points per hand over {h['hands']} hands "
                   f"({h['matches']} matches)")
            tds.append(f'<td class="{tone}" data-a="{html_text(a)}" data-b="{html_text(b)}" '
                       f'data-diff="{h["mean_diff"]}" title="{html_text(tip)}">{_num(h["mean_diff"], 1, True)}<br>'
                       f'<small>{_ci(ci, h.get("ci95_caveat"))}</small></td>')
        rows.append(f"<tr><th class=l>{html_text(a)}</th>{''.join(tds)}</tr>")
    return f'<table id="h2h" class="grid"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'


def _faults_section(report: dict[str, Any], limit: int = 100) -> str:
    st = report["standings"]
    kinds = sorted({k for b in st["bots"] for k in b["faults"]})
    head = "<tr><th class=l>bot</th><th>faults</th>" + "".join(f"<th>{html_text(k)}</th>" for k in kinds) + "</tr>"
    rows = "".join(
        f'<tr data-bot="{html_text(b["name"])}" data-faults="{b["fault_count"]}">'
        f'<td class=l>{html_text(b["name"])}</td>'
        f'<td class="{"neg" if b["fault_count"] else ""}">{b["fault_count"]}</td>'
        + "".join(f"<td>{b['faults'].get(k, 0)}</td>" for k in kinds) + "</tr>"
        for b in st["bots"])
    out = f'<table id="fault-counts" class="grid"><thead>{head}</thead><tbody>{rows}</tbody></table>'
    faults = report["faults"]
    if faults:  # one row per bot and kind, with its full count; the faults listed fold out under it
        groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        for f in faults:
            groups[(f["bot"], f["kind"])].append(f)
        counts = {(b["name"], k): n for b in st["bots"] for k, n in b["faults"].items()}  # every fault, not listed
        items = []
        for (bot, kind), n in sorted(counts.items(), key=lambda g: (-g[1], g[0])):
            fs = groups.get((bot, kind), [])[:limit]
            rows = "".join(
                f'<tr class="fault-row"><td class=l>{html_text(f["match_id"])}</td><td>{f["hand"] + 1}</td>'
                f'<td>{f["position"]}</td><td class="l detail">{html_text(f["detail"])}'
                + (f' <code>{html_text(f["line"])}</code>' if f.get("line") else "") + "</td></tr>"
                for f in fs)
            more = f"<p class=note>… and {n - len(fs)} more (see the store's faults table).</p>" \
                if n > len(fs) else ""
            matches = len({f["match_id"] for f in fs})
            where = (f'in {matches} match{"es" if matches != 1 else ""}; ' if n == len(fs) else "") + \
                (f'first: {html_text(fs[0]["detail"][:120])}' if fs else "")
            items.append(
                f'<details class="fault-group" data-bot="{html_text(bot)}" data-kind="{html_text(kind)}" '
                f'data-count="{n}"><summary><b>{n}×</b> {html_text(bot)}: <b>{html_text(kind)}</b> '
                f'<span class=note>{where}</span></summary>'
                f'<table class="grid"><thead><tr><th class=l>match</th><th>hand</th><th>seat</th>'
                f'<th class=l>detail</th></tr></thead><tbody>{rows}</tbody></table>{more}</details>')
        out += f'<div id="fault-list">{"".join(items)}</div>'
    else:
        out += '<p class="note" id="no-faults">No faults: every bot answered every question legally and in time.</p>'
    return out


def _matches_table(report: dict[str, Any], links: dict[str, str], problems: dict[str, str]) -> str:
    rows = []
    for m in report["matches"]:
        seats = " ".join(
            f'<span class="seat{" first" if s["rank"] == 1 else ""}">{s["position"]} '
            f'{html_text(s["bot"])} <b>{s["total"]:+d}</b></span>' for s in m["seats"])
        if m["id"] in links:
            view = f'<a class="viewer" href="{html_text(quote(links[m["id"]]))}">view</a>'
        elif m["id"] in problems:
            view = f'<span class="note" title="{html_text(problems[m["id"]])}">no viewer</span>'
        else:
            view = ""
        rows.append(f'<tr class="match" data-id="{html_text(m["id"])}"><td>{m["n"]}</td>'
                    f'<td class=l>{html_text(m["id"])}</td><td>{m["seed"]}</td><td>{m["hands"]}</td>'
                    f'<td class="l seats">{seats}</td>'
                    f'<td>{m["faults"] or ""}</td><td>{m["seconds"]:.1f}</td><td>{view}</td></tr>')
    return ('<table id="matches" class="grid"><thead><tr><th>#</th><th class=l>match</th><th>seed</th><th>hands</th>'
            '<th class=l>seats (points)</th><th>faults</th><th>s</th><th></th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _matches_heading(report: dict[str, Any]) -> str:
    shown, total = len(report["matches"]), report.get("matches_total", len(report["matches"]))
    if shown >= total:
        return str(total)
    return (f"{shown} of {total}: those with the most faults and the latest recorded; the standings above count "
            f"every match")


def render_report(report: dict[str, Any], *, links: dict[str, str] | None = None,
                  problems: dict[str, str] | None = None) -> str:
    """The page.  ``links``: match id → relative URL of its viewer; ``problems``: match id → why it has none."""
    links, problems = links or {}, problems or {}
    st = report["standings"]
    bots = st["bots"]
    if not bots:
        body = '<section class="card"><h2>No finished matches yet</h2><p>The store holds no match; run the ' \
               'tournament (or wait for it) and make the report again.</p></section>'
    else:
        ci_rows = [{"name": b["name"], "mean": b["mean"], "lo": (b["ci95"] or [None, None])[0],
                    "hi": (b["ci95"] or [None, None])[1], "dummy": b["dummy"]} for b in bots]
        hist = [{"name": b["name"], "counts": report["per_hand"].get(b["name"], []), "dummy": b["dummy"]}
                for b in bots]
        lines = [{"name": b["name"], "points": report["cumulative"].get(b["name"], []), "dummy": b["dummy"]}
                 for b in bots]
        notes = "".join(f"<li>{html_text(n)}</li>" for n in st["notes"])
        body = "".join([
            '<section class="card"><h2>Standings</h2>',
            '<p class="scroll-note">more columns to the right: scroll the table sideways (rates, faults, times)</p>',
            _standings_table(st), f'<ul class="notes">{notes}</ul>',
            charts.interval_chart(ci_rows), "</section>",
            ('<section class="card"><h2>Points per hand, each bot</h2><p class="note">How a bot\'s hands end: the '
            "big bar at 0 is the hands others won without it; right, its wins; left, its deal-ins and the others' "
            "self-draws. The dashed line is its mean.</p>"), charts.histograms(hist), "</section>",
            '<section class="card"><h2>Cumulative points over the matches</h2>',
            charts.line_chart(lines, matches=report.get("matches_total", len(report["matches"]))), "</section>",
            ('<section class="card"><h2>Head to head</h2><p class="note">Row bot\'s points minus column bot\'s, per '
            "hand, over the matches where both sat, with its 95% interval; green or red when the interval excludes "
            "zero.</p>"), _h2h_table(st), "</section>",
            '<section class="card"><h2>Faults</h2>', _faults_section(report), "</section>",
            f'<section class="card"><h2>Matches ({_matches_heading(report)})</h2>',
            _matches_table(report, links, problems), "</section>",
        ])
    trusted = f"{TRUST_MEMORY_MARK} · " if st.get("trust_memory") else ""  # the note under the standings says who
    subtitle = (f"{trusted}{st['matches']} matches · {st['hands']} hands · {st['groups']} "
                f"{html_text(st['cluster_by'])}s · "
                f"store {html_text(report['store'])} · made {html_text(report['generated'])} by mjref {__version__}")
    mark = f" ({TRUST_MEMORY_MARK})" if st.get("trust_memory") else ""
    return report_page.render(title=f"mjref tournament: {report['name']}{mark}", subtitle=subtitle, body=body)


def _write(out: Path, text: str) -> None:
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"{out}: cannot write ({exc.strerror})") from None


@dataclass(frozen=True, slots=True)
class ReportWritten:
    """What :func:`make_report` wrote: the page, the viewer pages (match id → path) and matches left without one."""

    path: Path
    viewers: dict[str, Path]
    problems: dict[str, str]


def make_report(store_path: Path | str, out_path: Path | str, with_matches: bool = False) -> ReportWritten:
    """Write the report of a results store; with ``with_matches``, each match's viewer page beside it.

    A match whose log is missing or unreadable gets no viewer (the report says why, on that row); the report is
    still written.  Raises :class:`ReportError` when the store cannot be read or the page cannot be written.
    """
    store, out = Path(store_path), Path(out_path)
    report = build_report(store)
    links: dict[str, str] = {}
    viewers: dict[str, Path] = {}
    problems: dict[str, str] = {}
    if with_matches:
        folder = matches_dir(out)
        for m in report["matches"]:
            log = resolve_log(store, m["log"], m["id"])
            if log is None:
                problems[m["id"]] = f"log not found ({m['log'] or 'none recorded'})"
                continue
            target = folder / f"{m['id']}.html"
            try:
                viewers[m["id"]] = write_viewer(log, target)
            except MjrefError as exc:  # a log (or its page) that cannot be used: a ViewerError, a LogError, …
                problems[m["id"]] = str(exc)
                continue
            links[m["id"]] = Path(os.path.relpath(target, out.parent)).as_posix()
    _write(out, render_report(report, links=links, problems=problems))
    return ReportWritten(out, viewers, problems)


def write_report(store_path: Path | str, out_path: Path | str, with_matches: bool = False) -> Path:
    """Write the report page (and with ``with_matches`` the matches' viewers); returns the page's path."""
    return make_report(store_path, out_path, with_matches).path

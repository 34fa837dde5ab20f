"""The tournament report: its numbers against the store and tournaments.stats, the matches' viewer pages and links,
bad input, and the page in headless Chromium (standings rows, charts, no network)."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from tournaments.config import parse_config
from tournaments.report import ReportError, build_report, make_report, matches_dir, write_report
from tournaments.runner import plan, run_job
from tournaments.stats import compute_standings, to_json
from tournaments.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from chromium import chromium, open_page, screenshot

BADBOT = Path(__file__).resolve().parents[1] / "bots" / "badbot.py"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real tournament: three built-in bots, a bot that throws a tile it does not hold (faults), the dummy."""
    d = tmp_path_factory.mktemp("report")
    cfg = parse_config({"name": "report <test>", "seeds": 2, "hands": 2, "store": "t.sqlite",
                        "bots": [{"name": "g", "builtin": "greedy"}, {"name": "r", "builtin": "random"},
                                 {"name": "bad", "cmd": [sys.executable, str(BADBOT), "bad_throw"]}]})
    p = plan(cfg, d)
    with Store(p.store_path) as s:
        for job in p.jobs:
            s.record(run_job(job))
    return p.store_path


def test_numbers_are_the_stats_modules_and_the_stores(store: Path) -> None:
    r = build_report(store)
    st = r["standings"]
    assert st == to_json(compute_standings(store))
    assert [b["name"] for b in st["bots"]][:1] and st["matches"] == len(r["matches"]) == 8
    for b in st["bots"]:
        counts = r["per_hand"][b["name"]]  # [points in one hand, how many hands]
        assert sum(p * n for p, n in counts) == b["points"]  # every hand's points add up to the standings
        assert sum(n for _, n in counts) == b["hands"]
        assert r["cumulative"][b["name"]][-1][1] == b["points"]
        xs = [n for n, _ in r["cumulative"][b["name"]]]
        assert xs == sorted(xs)
    bad = next(b for b in st["bots"] if b["name"] == "bad")
    assert bad["fault_count"] > 0 and len([f for f in r["faults"] if f["bot"] == "bad"]) == bad["fault_count"]


def test_report_with_matches_links_every_viewer(store: Path, tmp_path: Path) -> None:
    out = tmp_path / "site" / "report.html"
    written = make_report(store, out, with_matches=True)
    assert written.path == out and not written.problems
    text = out.read_text()
    folder = matches_dir(out)
    assert folder == tmp_path / "site" / "report_matches"
    links = [line.split('href="')[1].split('"')[0] for line in text.split("<a ")[1:]]
    assert len(links) == 8 and all(link.startswith("report_matches/") for link in links)
    for link in links:
        assert (out.parent / link).is_file()
    assert "https://" not in text and "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "<script" not in text and "report &lt;test&gt;" in text
    for tag in ('id="standings"', 'id="ci-chart"', 'id="distribution"', 'id="cumulative"', 'id="h2h"',
                'id="fault-counts"', 'id="fault-list"', 'id="matches"'):
        assert tag in text
    assert write_report(store, tmp_path / "plain.html") == tmp_path / "plain.html"
    assert 'class="viewer"' not in (tmp_path / "plain.html").read_text()


def test_a_missing_log_leaves_that_match_without_a_viewer(store: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "copy.sqlite"
    src = sqlite3.connect(store)
    dst = sqlite3.connect(copy)
    src.backup(dst)
    first = dst.execute("SELECT id FROM matches ORDER BY idx LIMIT 1").fetchone()[0]
    dst.execute("UPDATE matches SET log = ? WHERE id = ?", (str(tmp_path / "gone.jsonl"), first))
    dst.commit()
    dst.close()
    src.close()
    out = tmp_path / "r.html"
    assert main(["report", str(copy), "-o", str(out), "--with-matches", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert list(info["problems"]) == [first] and "log not found" in info["problems"][first]
    assert len(info["viewers"]) == 7
    assert "no viewer" in out.read_text()


def test_an_empty_store_says_so(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite"
    with Store(path) as s:
        s.initialise("empty", {})
    out = write_report(path, tmp_path / "e.html", with_matches=True)
    assert "No finished matches yet" in out.read_text()


def test_report_command_default_output(store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x" / "r.html"
    assert main(["report", str(store), "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {out}"


@pytest.mark.parametrize("kind", ["missing", "directory", "not sqlite", "other sqlite", "same file"])
def test_bad_store_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    path = tmp_path / "s.sqlite"
    out = tmp_path / "r.html"
    if kind == "missing":
        path = tmp_path / "nope.sqlite"
    elif kind == "directory":
        path = tmp_path
    elif kind == "not sqlite":
        path.write_text("hello, not a database\n" * 10)
    elif kind == "other sqlite":
        con = sqlite3.connect(path)
        con.execute("CREATE TABLE t (x)")
        con.commit()
        con.close()
    elif kind == "same file":
        path.write_text("x")
        out = path
    assert main(["report", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("mjref report: ")
    if kind != "same file":
        assert not out.exists()
        with pytest.raises(ReportError):
            build_report(path)


# ------------------------------------------------------------------------------------------------ in a browser
def test_report_in_the_browser(store: Path, tmp_path: Path) -> None:
    out = write_report(store, tmp_path / "report.html", with_matches=True)
    st = to_json(compute_standings(store))
    with chromium() as browser, open_page(browser, out, width=1400, height=1000) as op:
        page = op.page
        rows: list[dict[str, Any]] = page.evaluate("""() => [...document.querySelectorAll(
            "#standings tbody tr.standing")].map(tr => ({bot: tr.dataset.bot, rank: +tr.dataset.rank,
            mean: tr.querySelector("td.mean").textContent, points: tr.children[4].textContent,
            ci: tr.querySelector("td.ci").textContent, faults: +tr.querySelector("td.faults").textContent}))""")
        assert [r["bot"] for r in rows] == [b["name"] for b in st["bots"]]
        assert [r["rank"] for r in rows] == list(range(1, len(st["bots"]) + 1))
        for r, b in zip(rows, st["bots"], strict=True):
            assert r["mean"] == f"{b['mean']:+.1f}"
            assert r["points"] == f"{b['points']:g}"
            caveat = f" ({b['ci95_caveat']})" if b["ci95_caveat"] else ""  # why it may cover less than 95 %
            assert r["ci"] == (f"[{b['ci95'][0]:+.1f}, {b['ci95'][1]:+.1f}]{caveat}" if b["ci95"] else "too few groups")
            assert r["faults"] == b["fault_count"]
        charts = page.evaluate("""() => ({
            ci: [...document.querySelectorAll("#ci-chart .ci-row")].map(g => g.dataset.bot),
            bars: document.querySelectorAll("#ci-chart .ci-row line.bar").length,
            hist: [...document.querySelectorAll("#distribution .hist")].map(g => [g.dataset.bot, +g.dataset.n]),
            lines: [...document.querySelectorAll("#cumulative .line")].map(g => [g.dataset.bot, +g.dataset.final]),
            h2h: document.querySelectorAll("#h2h td[data-diff]").length,
            links: [...document.querySelectorAll("#matches a.viewer")].map(a => a.getAttribute("href")),
            width: document.getElementById("ci-chart").getBoundingClientRect().width})""")
        assert charts["ci"] == [b["name"] for b in st["bots"]]
        assert charts["bars"] == sum(1 for b in st["bots"] if b["ci95"])
        assert charts["hist"] == [[b["name"], b["hands"]] for b in st["bots"]]
        assert charts["lines"] == [[b["name"], b["points"]] for b in st["bots"]]
        assert charts["h2h"] == sum(1 for h in st["head_to_head"] if h["mean_diff"] is not None)
        assert len(charts["links"]) == 8 and charts["width"] > 300
        screenshot(page, "report.png")
        assert op.foreign_requests() == [], op.requests
        assert op.errors == []
        # a match link opens that match's viewer, itself self-contained
        before = len(op.requests)
        page.click("#matches a.viewer >> nth=0")
        page.wait_for_selector("body[data-ready='1']")
        url = page.url.split("#")[0]
        assert url.endswith(charts["links"][0])
        assert page.locator("#hand-1 .tile").count() > 0
        assert op.requests[before:] == [url]
        screenshot(page, "report-match-viewer.png")


def test_report_on_a_narrow_screen_groups_faults(store: Path, tmp_path: Path) -> None:
    """At 375 px nothing is wider than the window (wide tables scroll inside their card), and faults come as one
    group per bot and kind, with a count, instead of one row each."""
    r = build_report(store)
    out = write_report(store, tmp_path / "narrow.html")
    with chromium() as browser, open_page(browser, out, width=375, height=800) as op:
        page = op.page
        size = page.evaluate("() => ({scroll: document.documentElement.scrollWidth, inner: window.innerWidth})")
        groups = page.evaluate("""() => [...document.querySelectorAll('#fault-list details.fault-group')].map(
            (d) => [d.dataset.bot, d.dataset.kind, +d.dataset.count, d.querySelectorAll('tr.fault-row').length])""")
        page.locator("#fault-list details.fault-group summary >> nth=0").click()
        assert page.locator("#fault-list tr.fault-row >> nth=0").is_visible()
        screenshot(page, "report-375px.png")
        assert size["scroll"] <= size["inner"], size
        assert op.errors == []
    expected: dict[tuple[str, str], int] = {}
    for f in r["faults"]:
        expected[(f["bot"], f["kind"])] = expected.get((f["bot"], f["kind"]), 0) + 1
    assert sorted((b, k, n) for b, k, n, _ in groups) == sorted((b, k, n) for (b, k), n in expected.items())
    assert all(rows == min(n, 100) for _, _, n, rows in groups)


@pytest.mark.parametrize(("width", "height"), [(375, 800), (1440, 900)])
def test_charts_stay_readable_and_every_standings_column_can_be_seen(store: Path, tmp_path: Path, width: int,
                                                                      height: int) -> None:
    """On a phone the charts keep their size (their labels were shrunk to about 5 px) and scroll in their card,
    and the standings say they go on to the right; scrolled there, the last column and the bot names are both in
    view.  On a desktop all of it fits as it is."""
    out = write_report(store, tmp_path / f"report-{width}.html")
    with chromium() as browser, open_page(browser, out, width=width, height=height) as op:
        page = op.page
        labels = page.evaluate("""() => [...document.querySelectorAll('svg.chart')].map((svg) => {
            const texts = [...svg.querySelectorAll('text')].map((t) => t.getBoundingClientRect().height);
            return Math.min(...texts); })""")
        assert labels and min(labels) >= 9, f"chart labels {labels} px tall"
        note = page.locator("#standings").locator("xpath=preceding-sibling::p[@class='scroll-note']")
        seen = page.evaluate("""() => { const t = document.getElementById('standings'); const card = t.parentElement;
            card.scrollLeft = card.scrollWidth; t.scrollIntoView({block: 'center'});
            const last = t.querySelector('thead th:last-child').getBoundingClientRect();
            const name = t.querySelector('tbody td.name').getBoundingClientRect();
            const hit = document.elementFromPoint(name.left + 4, name.top + name.height / 2);
            return {lastRight: last.right, lastLeft: last.left, nameSeen: !!hit && !!hit.closest('td.name'),
                    wider: card.scrollWidth > card.clientWidth}; }""")
        assert 0 <= seen["lastLeft"] and seen["lastRight"] <= width + 1, seen  # the last column can be brought in
        assert seen["nameSeen"], "scrolled to the last column, the bot names are still in view"
        assert note.is_visible() == seen["wider"], "the note says the table goes on exactly when it does"
        size = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert size <= 0
        screenshot(page, f"report-standings-{width}.png", full_page=False)
        assert op.errors == []

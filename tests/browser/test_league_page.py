"""The league's pages in headless Chromium at 375 and 1440 px: the standings appear (rating ± sigma beside points
per hand, each bot's rating trend, a link to its page), a match finished after the page loaded appears without a
reload, a bot's page draws its rating over time, its head-to-head and versions and redraws as it plays, nothing
overflows a phone's width, and the pages ask nothing of any server but their own."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from chromium import chromium, screenshot
from leagues import served_league

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def league(tmp_path: Path):  # type: ignore[no-untyped-def]
    text = 'name = "class"\nhands = 1\nduplicate = false\nconcurrency = 1\nstore = "league.sqlite"\n'
    for name, builtin in (("greedy", "greedy"), ("random", "random"), ("drawdiscard", "drawdiscard"),
                          ("chowy", "greedy:chowness=0.9"), ("a-bot-with-a-rather-long-name", "greedy")):
        text += f'[[bots]]\nname = "{name}"\nbuiltin = "{builtin}"\n'
    (tmp_path / "league.toml").write_text(text)
    with served_league(tmp_path / "league.toml") as (url, _):
        yield url + "/"


def watched(browser: Any, width: int) -> tuple[Any, Any, list[str], list[str]]:
    """A page at ``width`` px, with every URL it asks for and every script error or console error it gives."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    return context, page, requests, errors


@pytest.mark.parametrize("width", [375, 1440])
def test_the_page_shows_live_standings_and_new_matches_without_a_reload(league: str, width: int) -> None:
    with chromium() as browser:
        context, page, requests, errors = watched(browser, width)
        page.goto(league)
        page.wait_for_selector("#standings-body tr[data-bot]", timeout=30_000)
        # (predicates as functions: an expression is evaluated by eval() while it polls, which the page's CSP refuses)
        page.wait_for_function("() => document.querySelectorAll('#standings-body tr[data-bot]').length === 5",
                               timeout=30_000)
        # live once the whole load is in (standings, matches, then entries): the rows come before the entries
        page.wait_for_function("() => document.body.dataset.state === 'live'", timeout=30_000)
        first = page.eval_on_selector_all("#matches-body tr[data-match]", "rs => rs.map(r => r.dataset.match)")
        # a match recorded after the page loaded appears without a reload
        page.wait_for_function("(seen) => [...document.querySelectorAll('#matches-body tr[data-match]')]"
                               ".some(r => !seen.includes(r.dataset.match))", arg=first, timeout=30_000)
        navigations = page.evaluate("performance.getEntriesByType('navigation').length")
        assert navigations == 1
        row = page.inner_text("#standings-body tr[data-bot='greedy']")
        assert "±" in row  # the rating's sigma (and the interval once there are enough tables)
        # every bot's rating over time, and a link to its page
        trend = page.eval_on_selector_all("#standings-body tr[data-bot] svg.spark",
                                          "ss => ss.map(s => +s.dataset.points)")
        assert len(trend) == 5 and all(n >= 2 for n in trend), trend
        assert page.eval_on_selector("#standings-body tr[data-bot='greedy'] a.bot", "a => a.getAttribute('href')") == \
            "/bot/greedy"
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing wider than the screen
        screenshot(page, f"league-{width}.png")
        context.close()
    assert not errors, errors
    assert all(u.startswith(league.rstrip("/")) or u.startswith("data:") for u in requests), requests


def until(page: Any, expression: str, timeout: float = 60) -> None:
    """Poll from here (the page's policy forbids the eval that wait_for_function uses)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, expression
        page.wait_for_timeout(100)


@pytest.mark.parametrize("width", [375, 1440])
def test_a_bots_page_draws_its_rating_over_time_and_redraws_as_it_plays(league: str, width: int) -> None:
    with chromium() as browser:
        context, page, requests, errors = watched(browser, width)
        page.goto(league)
        page.wait_for_selector("#standings-body tr[data-bot='a-bot-with-a-rather-long-name'] a.bot", timeout=30_000)
        page.click("#standings-body tr[data-bot='a-bot-with-a-rather-long-name'] a.bot")  # the link leads there
        page.wait_for_url("**/bot/a-bot-with-a-rather-long-name")
        until(page, "document.body.dataset.state === 'live' && "
                    "+document.querySelector('#chart svg.chart').dataset.points >= 2")
        assert page.inner_text("#title") == "a-bot-with-a-rather-long-name"
        summary = page.inner_text("#summary")
        assert summary.startswith("built-in") and "rating" in summary and "matches" in summary, summary
        opponents = page.eval_on_selector_all("#h2h-body tr[data-opponent]", "rs => rs.map(r => r.dataset.opponent)")
        assert opponents and set(opponents) <= {"greedy", "random", "drawdiscard", "chowy"}, opponents
        assert len(set(opponents)) == len(opponents), opponents
        assert page.eval_on_selector_all("#versions-body tr[data-entry]", "rs => rs.map(r => r.dataset.entry)") == \
            ["a-bot-with-a-rather-long-name"]
        # it plays on: its chart grows without a reload
        drawn = page.evaluate("+document.querySelector('#chart svg.chart').dataset.points")
        until(page, f"+document.querySelector('#chart svg.chart').dataset.points > {drawn}")
        assert page.evaluate("performance.getEntriesByType('navigation').length") == 1
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        box = page.eval_on_selector("#chart svg.chart", "s => s.getBoundingClientRect().width")
        assert 200 <= box <= width  # drawn to the screen's width, not off it
        screenshot(page, f"league-bot-{width}.png")
        page.goto(league.rstrip("/") + "/bot/nobody")  # no such bot: said, no error
        until(page, "document.body.dataset.state === 'away'")
        assert "no such bot" in page.inner_text("#status")
        context.close()
    assert not errors or all("404" in e for e in errors), errors  # the console's note of the 404 above
    assert all(u.startswith(league.rstrip("/")) or u.startswith("data:") for u in requests), requests


def test_an_author_submits_on_the_page_and_a_non_author_can_neither_submit_nor_retire(tmp_path: Path) -> None:
    from tournaments.submissions import pack_folder

    league = tmp_path / "league.toml"
    league.write_text('name = "class"\nhands = 1\nduplicate = false\nconcurrency = 1\nstore = "league.sqlite"\n'
                      '[[bots]]\nname = "greedy"\nbuiltin = "greedy"\n[[bots]]\nname = "random"\nbuiltin = "random"\n')
    tokens = {}
    for who in ("alice", "bob"):
        out = subprocess.run([sys.executable, "-m", "referee.cli", "league", "add-author", who, "--league",
                              str(league)], cwd=ROOT, capture_output=True, text=True, check=True)
        tokens[who] = out.stdout.strip()
    bot = tmp_path / "mine"
    bot.mkdir()
    (bot / "bot.py").write_text((ROOT / "examples" / "mybot.py").read_text())
    (bot / "bot.toml").write_text('cmd = ["python3", "bot.py"]\n')
    archive = tmp_path / "mine.tar.gz"
    archive.write_bytes(pack_folder(bot))
    with served_league(league) as (url, _), chromium() as browser:
        context = browser.new_context(viewport={"width": 375, "height": 900})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        page.wait_for_selector("#standings-body tr[data-bot]", timeout=30_000)

        def until(expression: str, timeout: float = 60) -> None:
            """Poll from here (the page's policy forbids the eval that wait_for_function uses)."""
            deadline = time.monotonic() + timeout
            while not page.evaluate(expression):
                assert time.monotonic() < deadline, expression
                page.wait_for_timeout(100)

        def submit(token: str, name: str) -> str:
            page.fill("#token", token)
            page.fill("#bot-name", name)
            page.set_input_files("#archive", str(archive))
            page.click("#submit")
            until("['accepted', 'refused', 'error'].includes("
                  "document.querySelector('#submit-result').dataset.outcome)")
            return str(page.eval_on_selector("#submit-result", "e => e.dataset.outcome + ': ' + e.textContent"))

        assert submit("not-a-token", "mine").startswith("error: refused: a valid author's token is needed")
        result = submit(tokens["alice"], "mine")
        assert result.startswith("accepted: mine: entered the league"), result
        assert "pass  throw_after_mo" in result  # the check's report, for its author
        page.wait_for_selector("#entries-body tr[data-entry='mine'] button.retire", timeout=30_000)
        page.fill("#token", tokens["bob"])  # another author may not retire it
        page.click("#entries-body tr[data-entry='mine'] button.retire")
        until("document.querySelector('#submit-result').dataset.outcome === 'error'")
        assert "only the entry's author or an organiser may retire it" in page.inner_text("#submit-result")
        page.fill("#token", "")
        page.click("#entries-body tr[data-entry='mine'] button.retire")
        until("document.querySelector('#submit-result').textContent.includes('a valid token')")
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        screenshot(page, "league-submit-375.png")
        # its page: its version and check; the check's report only with its author's token
        page.goto(url + "/bot/mine")
        until("document.querySelector('#versions-body tr[data-entry=\"mine\"]') !== null")
        assert "passed" in page.inner_text("#versions-body tr[data-entry='mine']")
        assert page.inner_text("#summary").startswith("submitted")
        page.fill("#token", tokens["bob"])
        page.click("#show-reports")
        until("document.querySelector('#reports').textContent.includes('only its author')")
        page.fill("#token", tokens["alice"])
        page.click("#show-reports")
        until("document.querySelector('#reports').textContent.includes('throw_after_mo')")
        assert "mine: passed" in page.inner_text("#reports")
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        context.close()
        assert not errors, errors

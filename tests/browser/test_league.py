"""The league's page in headless Chromium at 375 and 1440 px: the standings appear (rating ± sigma beside points
per hand), a match finished after the page loaded appears without a reload, nothing overflows a phone's width,
and the page asks nothing of any server but its own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from chromium import chromium, screenshot

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def league(tmp_path: Path):  # type: ignore[no-untyped-def]
    text = 'name = "class"\nhands = 1\nduplicate = false\nconcurrency = 1\nstore = "league.sqlite"\n'
    for name, builtin in (("greedy", "greedy"), ("random", "random"), ("drawdiscard", "drawdiscard"),
                          ("chowy", "greedy:chowness=0.9"), ("a-bot-with-a-rather-long-name", "greedy")):
        text += f'[[bots]]\nname = "{name}"\nbuiltin = "{builtin}"\n'
    (tmp_path / "league.toml").write_text(text)
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "league", str(tmp_path / "league.toml"), "--quiet",
                             "--listen", "127.0.0.1:0"], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert line.startswith("league page: http://127.0.0.1:"), line
        yield line.split(": ", 1)[1].strip()
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=60)


@pytest.mark.parametrize("width", [375, 1440])
def test_the_page_shows_live_standings_and_new_matches_without_a_reload(league: str, width: int) -> None:
    with chromium() as browser:
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        requests: list[str] = []
        errors: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(league)
        page.wait_for_selector("#standings-body tr[data-bot]", timeout=30_000)
        page.wait_for_function("document.querySelectorAll('#standings-body tr[data-bot]').length === 5",
                               timeout=30_000)
        assert page.eval_on_selector("body", "b => b.dataset.state") == "live"
        first = page.eval_on_selector_all("#matches-body tr[data-match]", "rs => rs.map(r => r.dataset.match)")
        # a match recorded after the page loaded appears without a reload
        page.wait_for_function("(seen) => [...document.querySelectorAll('#matches-body tr[data-match]')]"
                               ".some(r => !seen.includes(r.dataset.match))", arg=first, timeout=30_000)
        navigations = page.evaluate("performance.getEntriesByType('navigation').length")
        assert navigations == 1
        row = page.inner_text("#standings-body tr[data-bot='greedy']")
        assert "±" in row  # the rating's sigma (and the interval once there are enough tables)
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing wider than the screen
        screenshot(page, f"league-{width}.png")
        context.close()
    assert not errors, errors
    assert all(u.startswith(league.rstrip("/")) or u.startswith("data:") for u in requests), requests

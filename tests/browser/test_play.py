"""The play page in headless Chromium: a person plays two crafted hands of ``mjref play`` by clicking and with the
keyboard (throws, a pong, an eat, a self-drawn win and a win on a throw), sees the winning hand with its tai items,
and the log verifies with ``mjref replay``.  The page's WebSocket traffic never names a tile that seat 1 may not
know, and the page asks for nothing but its own server.  Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main as mjref
from referee.game.engine import Hand
from referee.game.taiwan16.rules import make_ruleset
from referee.game.types import Answer
from referee.game.wall import Wall, arrange_wall

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from chromium import chromium, screenshot

ROOT = Path(__file__).resolve().parents[2]
RULES = make_ruleset({"flowers": False, "dealer_continues": True})  # seat 1 deals both hands
WAIT = 120.0  # seconds to wait for the page's next question: a margin a loaded machine cannot eat, not a measure

# Hand 1 (seat 1 deals): throw East; seat 4 throws a 1-tong: pong it; throw White; draw a 3-tiao: self-drawn win.
HAND_1 = [110, 111, 112, 120, 130, 140, 150, 160, 170, 210, 220, 310, 311, 350, 351, 410, 470]
DRAWS_1 = [420, 430, 312, 440, 450, 460, 230]
# Hand 2 (seat 1 deals again): throw North; seat 4 throws a 3-tong: eat it; throw Red; seat 2 throws White: win.
HAND_2 = [110, 111, 112, 150, 160, 170, 210, 220, 230, 340, 350, 380, 381, 382, 470, 440, 450]
DRAWS_2 = [420, 430, 330, 471]
# Hand 3 (seat 1 deals a third time): four 1-wan in the deal: a concealed gong, then play on to the hand's end.
HAND_3 = [110, 111, 112, 113, 150, 160, 170, 210, 230, 250, 270, 310, 330, 350, 370, 410, 430]


def walls() -> list[Wall]:
    return [arrange_wall({1: HAND_1}, RULES, dealer=1, draws=DRAWS_1, filler_seed=1),
            arrange_wall({1: HAND_2}, RULES, dealer=1, draws=DRAWS_2, filler_seed=2),
            arrange_wall({1: HAND_3}, RULES, dealer=1, filler_seed=3)]


def hidden_from_seat_1(log: Path) -> dict[int, set[int]]:
    """Per hand, the tiles seat 1 may never see: the other seats' concealed tiles at the hand's end (they did not
    win) and the wall's undrawn tiles; the engine replays the logged answers."""
    records = [json.loads(x) for x in log.read_text().splitlines()]
    out: dict[int, set[int]] = {}
    for hr in (r for r in records if r["type"] == "hand"):
        h = hr["hand"]
        engine = Hand(Wall(tuple(hr["wall"])), RULES, dealer=hr["dealer"], round_wind=hr["round_wind"],
                      hand_wind=hr["hand_wind"], cont=hr["cont"], check=False)
        engine.start()
        for a in (r for r in records if r["type"] == "answer" and r["hand"] == h):
            parts = a["answer"].split()
            nums = [int(x) for x in parts[1:]]
            mode = nums.pop(0) if parts[0] == "/gong" else None
            engine.apply(Answer(parts[0][1:], tuple(sorted(nums)), mode))  # type: ignore[arg-type]
        assert engine.is_over
        out[h] = set(engine.undrawn()).union(*(set(engine.concealed(p)) for p in (2, 3, 4)))
    return out


def frame_tids(frame: dict[str, Any]) -> set[int]:
    """The tile IDs a page frame names (tables and questions; results name only the winner's revealed hand)."""
    found: set[int] = set()

    def walk(v: Any, key: str = "") -> None:
        if key in ("position", "hand", "dealer", "wall", "live", "q", "seconds", "totals", "seat", "source",
                   "thrower", "tai", "scores", "penalties", "payments", "rtt_ms", "faults", "v", "timeout",
                   "start_grace", "seed", "dead_wall", "winners", "match"):
            return
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, k)
        elif isinstance(v, list):
            for x in v:
                walk(x, key)
        elif isinstance(v, int) and not isinstance(v, bool):
            found.add(v)
        elif isinstance(v, str) and key in ("legal",):
            found.update(int(w) for w in v.split() if w.isdigit())

    walk(frame)
    return found


@pytest.mark.slow
def test_a_person_plays_two_crafted_hands_in_the_browser(tmp_path: Path) -> None:
    wallfile = tmp_path / "walls.txt"
    wallfile.write_text("".join(" ".join(map(str, w.tiles)) + "\n" for w in walls()))
    log = tmp_path / "play.jsonl"
    with chromium() as browser:
        proc = subprocess.Popen(
            [sys.executable, "-m", "referee.cli", "play", "--no-browser", "--hands", "3", "--wallfile", str(wallfile),
             "--set", "flowers=false", "--set", "dealer_continues=true", "--seed", "9", "--log", str(log),
             "--name", "tester",
             "dead_hand", "dead_hand", "dead_hand"],
            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            found = re.search(r"(http://127\.0\.0\.1:\d+)/#name=tester&token=\S+", line)
            assert found, line + (proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
            origin = found.group(1)
            context = browser.new_context(viewport={"width": 1400, "height": 960})
            page = context.new_page()
            requests: list[str] = []
            errors: list[str] = []
            frames: list[dict[str, Any]] = []
            page.on("request", lambda r: requests.append(r.url))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(json.loads(f))))
            page.goto(found.group(0))

            # ---- hand 1: throw by clicking, pong by button, throw, self-drawn win by key H
            asked = "body[data-state=asked]"
            page.wait_for_selector(asked + ' #hand-1 .tile.playable[data-tid="410"]')
            assert page.locator("#seat-1").get_attribute("class").split().count("pos-bottom") == 1  # type: ignore
            assert page.locator("#hand-1 .tile").count() == 17
            assert [page.locator(f"#hand-{p} .tile.back").count() for p in (2, 3, 4)] == [16, 16, 16]  # face down
            assert page.locator("#countdown").get_attribute("data-seconds") is not None
            screenshot(page, "play-first-throw.png")
            page.click('#hand-1 .tile[data-tid="410"]')
            pong = page.wait_for_selector('button.answer[data-kind="pong"]')
            assert pong is not None
            kinds = [b.get_attribute("data-kind") for b in page.query_selector_all("button.answer")]
            assert kinds == ["pong", "pass"]  # exactly the legal answers
            assert sorted(int(t.get_attribute("data-tid") or 0) for t in pong.query_selector_all(".tile")) == \
                [310, 311, 312]
            screenshot(page, "play-pong-offered.png")
            pong.click()
            page.wait_for_selector(asked + ' #hand-1 .tile.playable[data-tid="470"]')
            assert page.locator("#melds-1 .meld[data-type=pong]").count() == 1
            page.click('#hand-1 .tile[data-tid="470"]')
            page.wait_for_selector('button.answer[data-kind="hu"]')
            page.keyboard.press("h")
            page.wait_for_selector("#winner-panel[data-outcome=win] .tai-item")
            panel = page.locator("#winner-panel")
            assert "1 tester" in panel.inner_text() and "self-draw" in panel.inner_text()
            assert page.locator("#winner-panel .win[data-seat='1'] .tai-total").count() == 1
            screenshot(page, "play-hand-1-won.png")

            # ---- hand 2: throw with the keyboard, eat by key E, throw, win on a throw by clicking
            page.wait_for_selector(asked + ' #hand-1 .tile.playable[data-tid="440"]')
            page.keyboard.press("ArrowRight")  # choose tiles from the left to North, then Enter
            tids = [int(t.get_attribute("data-tid") or 0) for t in page.query_selector_all("#hand-1 .tile")]
            for _ in range(tids.index(440)):
                page.keyboard.press("ArrowRight")
            assert page.locator("#hand-1 .tile.chosen").get_attribute("data-tid") == "440"
            page.keyboard.press("Enter")
            eat = page.wait_for_selector('button.answer[data-kind="eat"]')
            assert eat is not None
            assert sorted(int(t.get_attribute("data-tid") or 0) for t in eat.query_selector_all(".tile")) == \
                [330, 340, 350]
            page.keyboard.press("e")
            page.wait_for_selector(asked + ' #hand-1 .tile.playable[data-tid="450"]')
            assert page.locator("#melds-1 .meld[data-type=eat]").count() == 1
            page.click('#hand-1 .tile[data-tid="450"]')
            page.wait_for_selector('button.answer[data-kind="hu"]')
            screenshot(page, "play-win-offered.png")
            last_q = page.evaluate("window.MJPLAY.state().ask.q")
            page.click('button.answer[data-kind="hu"]')
            # Hand 1's result stays on the panel until hand 2's arrives: wait for the panel that names hand 2 (CI
            # once read hand 1's self-draw here, the wait having matched the old panel at once).
            page.wait_for_selector("#winner-panel[data-outcome=win]:has-text('Hand 2') .win[data-seat='1']")
            assert "on a throw" in page.locator("#winner-panel").inner_text()

            # ---- hand 3: a concealed gong by its button, then plain answers to the hand's (and match's) end
            ask = _next_question(page, last_q)
            assert ask is not None and ask["ask"] == "gong"
            gong = page.wait_for_selector('button.answer[data-kind="gong"]')
            assert gong is not None and "concealed gong" in gong.inner_text()
            assert sorted(int(t.get_attribute("data-tid") or 0) for t in gong.query_selector_all(".tile")) == \
                [110, 111, 112, 113]
            page.keyboard.press("g")
            page.wait_for_selector("#melds-1 .meld[data-type=concealed_gong]")
            assert _answer_until_over(page, last_q=ask["q"]) > 5
            screenshot(page, "play-match-over.png")
            out, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err
            assert not errors, errors
            assert all(u.startswith(origin + "/") for u in requests), requests  # nothing from elsewhere
            context.close()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    records = [json.loads(x) for x in log.read_text().splitlines()]
    mine = [(r["hand"], r["answer"]) for r in records if r["type"] == "answer" and r["seat"] == 1]
    assert mine[:9] == [(0, "/throw 410"), (0, "/pong 310 311"), (0, "/throw 470"), (0, "/hu"),
                        (1, "/throw 440"), (1, "/eat 340 350"), (1, "/throw 450"), (1, "/hu"),
                        (2, "/gong 0 110 111 112 113")]
    assert not [r for r in records if r["type"] == "fault"]
    results = [r for r in records if r["type"] == "result"]
    assert [w["how"] for r in results for w in r["wins"]][:2] == ["self_draw", "throw"] and len(results) == 3
    assert mjref(["replay", str(log)]) == 0

    # The information rule over the page's traffic: no frame names a tile seat 1 never may see.
    hidden = hidden_from_seat_1(log)
    hand = -1
    for frame in frames:
        if frame["type"] == "hand":
            hand = frame["hand"]
        if frame["type"] in ("table", "hand_over") and hand >= 0:
            leaked = frame_tids(frame) & hidden[hand]
            assert not leaked, f"hand {hand}: the page was sent hidden tiles {sorted(leaked)} in {frame['type']}"
    assert sum(1 for f in frames if f["type"] == "table") >= 8
    last = [f for f in frames if f["type"] == "table" and f["hand"] == 1][-1]  # hand 2's end: won on 471
    assert last["ask"] is None and last["winners"] == [1]
    assert 471 not in last["seats"][1]["river"]  # the tile won on left seat 2's river


def _next_question(page: Any, last_q: int, stop: str = "over") -> dict[str, Any] | None:
    """The page's next question (another ``q`` than ``last_q``), or None once its state is ``stop``; polled from
    here, as the page's Content-Security-Policy forbids the eval of ``wait_for_function``."""
    deadline = time.monotonic() + WAIT
    while True:
        state, ask = page.evaluate("[document.body.dataset.state, window.MJPLAY.state().ask]")
        if state == stop:
            return None
        if ask is not None and ask["q"] != last_q:
            return ask  # type: ignore[no-any-return]
        assert time.monotonic() < deadline, f"no new question and no {stop!r} within {WAIT:g} s (state {state})"
        page.wait_for_timeout(20)


def _answer(page: Any, ask: dict[str, Any]) -> None:
    """A plain answer: hu when offered, pass to claims, throw the first tile offered (a click)."""
    if "/hu" in ask["legal"]:
        page.keyboard.press("h")
    elif ask["ask"] != "throw":
        page.keyboard.press("Escape")
    else:
        position = page.evaluate("window.MJPLAY.state().position")
        page.click(f"#hand-{position} .tile.playable >> nth=0")


def _answer_until_over(page: Any, limit: int = 400, last_q: int = -1) -> int:
    answered = 0
    while answered < limit:
        ask = _next_question(page, last_q)
        if ask is None:
            return answered
        last_q = ask["q"]
        _answer(page, ask)
        answered += 1
    raise AssertionError(f"the match was not over after {limit} questions")


@contextmanager
def _playing(tmp_path: Path, *options: str) -> Iterator[tuple[subprocess.Popen[str], re.Match[str]]]:
    """``mjref play OPTIONS`` against three dead_hand bots, and the address it printed for the person (``you``);
    the process is killed at the end if it still runs."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "play", "--no-browser", *options, "dead_hand", "dead_hand", "dead_hand"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    try:
        assert proc.stdout is not None
        found = re.search(r"http://127\.0\.0\.1:\d+/#name=you&token=\S+", proc.stdout.readline())
        if found is None:
            proc.kill()
            raise AssertionError(proc.stderr.read() if proc.stderr else "mjref play printed no address")
        yield proc, found
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.slow
def test_closing_the_tab_mid_hand_the_stand_in_plays_on_and_reopening_rejoins(tmp_path: Path) -> None:
    log = tmp_path / "rejoin.jsonl"
    with chromium() as browser, _playing(tmp_path, "--hands", "3", "--seed", "12", "--set", "start_grace=30", "--log",
                                         str(log)) as (proc, found):
        first = browser.new_context()
        page = first.new_page()
        page.goto(found.group(0))
        last_q = -1
        for _ in range(3):  # three answers, then the tab is closed with the hand under way
            ask = _next_question(page, last_q)
            assert ask is not None
            last_q = ask["q"]
            _answer(page, ask)
        _next_question(page, last_q)  # the fourth question is asked: close the tab now
        first.close()

        again = browser.new_context(viewport={"width": 1400, "height": 960})
        page = again.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(found.group(0))
        page.wait_for_selector("body[data-state=asked]")
        assert page.evaluate("window.MJPLAY.state().table.hand") == 1  # back from the next hand, not mid-hand
        screenshot(page, "play-rejoined.png")
        assert _answer_until_over(page) > 10
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert not errors, errors
        again.close()
    records = [json.loads(x) for x in log.read_text().splitlines()]
    faults = [r for r in records if r["type"] == "fault"]
    assert [(f["hand"], f["seat"], f["kind"]) for f in faults] == [(0, 1, "disconnected")]
    seat1 = [r for r in records if r["type"] == "answer" and r["seat"] == 1]
    assert [r["by"] for r in seat1 if r["hand"] == 0][:4] == ["bot", "bot", "bot", "dummy"]
    assert {r["by"] for r in seat1 if r["hand"] == 0}.issuperset({"dummy"})  # the stand-in finished hand 1
    assert {r["by"] for r in seat1 if r["hand"] >= 1} == {"bot"}  # and the person played hands 2 and 3
    assert mjref(["replay", str(log)]) == 0


# ----------------------------------------------------------------------------------- what a person sees (issue 35)
def _covered(page: Any, selector: str) -> str | None:
    """Scroll the element to the top of the window, as a person reading down the page does, and say what covers its
    middle (None: nothing, it is seen)."""
    return page.evaluate(
        """(sel) => { const el = document.querySelector(sel); el.scrollIntoView({block: "start"});
        const r = el.getBoundingClientRect(); const hit = document.elementFromPoint(r.left + r.width / 2,
        r.top + Math.min(r.height / 2, 8));
        return el.contains(hit) ? null : (hit ? hit.tagName + "." + hit.className : "nothing"); }""", selector)


@pytest.mark.slow
@pytest.mark.parametrize(("width", "height"), [(375, 740), (1440, 900)])
def test_what_a_person_sees_on_a_phone_and_a_desktop(tmp_path: Path, width: int, height: int) -> None:
    """D with no drawn tile says why; the prompt is never under the header; the page says what a closed tab costs;
    after the match no empty "Your move" card is left."""
    wallfile = tmp_path / "walls.txt"
    wallfile.write_text(" ".join(map(str, walls()[0].tiles)) + "\n")
    with chromium() as browser, _playing(tmp_path, "--hands", "1", "--wallfile", str(wallfile), "--set",
                                         "flowers=false", "--seed", "9", "--log", "none") as (proc, found):
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(found.group(0))
        ask = _next_question(page, -1)
        assert ask is not None and ask["ask"] == "throw"
        assert page.evaluate("window.MJPLAY.state().table.drawn") is None  # the dealer's first throw
        page.keyboard.press("d")
        hint = page.locator("#key-hint")
        assert hint.is_visible() and "no drawn tile" in hint.inner_text()
        assert page.evaluate("window.MJPLAY.state().ask.q") == ask["q"]  # nothing was sent
        assert _covered(page, "#prompt") is None, "the prompt is under something"
        assert page.locator("#prompt").inner_text().strip() != ""
        keep = page.locator("#keep-open")
        assert keep.is_visible() and "fault penalty" in keep.inner_text() and "wrapper" not in keep.inner_text()
        screenshot(page, f"play-first-throw-{width}.png", full_page=False)
        _answer(page, ask)
        assert _answer_until_over(page, last_q=ask["q"]) > 3
        assert not page.locator("#answer-card").is_visible(), "an empty 'Your move' card after the match"
        assert not page.locator("#keep-open").is_visible()
        screenshot(page, f"play-over-{width}.png")
        proc.communicate(timeout=60)
        assert proc.returncode == 0
        assert not errors, errors
        context.close()


# ----------------------------------------------------------------------------------- Chinese Classical (issue 32)
@pytest.mark.slow
def test_a_person_plays_a_classical_hand_of_13_tiles_and_sees_every_players_score(tmp_path: Path) -> None:
    """``mjref play --rules xmj``: the person (East) is dealt 14 tiles and sees 13 face down at each other seat; a
    throw, then a self-drawn win on East; the result shows every player's score line with mj-server's explanation
    and the settlement, as the viewer does; the log is a classical one and replays."""
    from referee.conformance import crafted_wall
    from referee.rulesets import playable_rules

    rules = playable_rules("xmj", [])
    # 123m 456m 789m 123s, East and White: throw White, the others throw North, South, Red; draw East: Mah-Jong
    hand = [110, 120, 130, 140, 150, 160, 170, 180, 190, 210, 220, 230, 410, 470]
    wall = crafted_wall({1: hand}, rules, dealer=1, draws=[440, 430, 450, 411], filler_seed=4)
    wallfile = tmp_path / "walls.txt"
    wallfile.write_text(" ".join(map(str, wall.tiles)) + "\n")
    log = tmp_path / "classical.jsonl"
    with chromium() as browser, _playing(tmp_path, "--rules", "xmj", "--hands", "1", "--wallfile", str(wallfile),
                                         "--seed", "5", "--log", str(log)) as (proc, found):
        context = browser.new_context(viewport={"width": 1400, "height": 960})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(found.group(0))
        page.wait_for_selector('body[data-state=asked] #hand-1 .tile.playable[data-tid="470"]')
        assert page.locator("#hand-1 .tile").count() == 14
        assert [page.locator(f"#hand-{p} .tile.back").count() for p in (2, 3, 4)] == [13, 13, 13]
        assert page.evaluate("window.MJPLAY.state().table.deal") == 13
        screenshot(page, "play-classical-first-throw.png")
        page.click('#hand-1 .tile[data-tid="470"]')
        page.wait_for_selector('button.answer[data-kind="hu"]')
        assert page.locator("#hand-1 .tile").count() == 14  # 13 and the East just drawn
        page.keyboard.press("h")
        page.wait_for_selector("#winner-panel[data-outcome=win] table.classical")
        panel = page.locator("#winner-panel")
        assert page.locator("#winner-panel tr.player-score").count() == 4
        text = panel.inner_text()
        assert "1 you wins by self-draw" in text and "points" in text and "SCORE:" in text, text
        assert "tai" not in text.lower().split(), text  # points, not Taiwan's tai
        assert "points" in page.locator("#notes").inner_text()
        screenshot(page, "play-classical-won.png")
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert not errors, errors
        context.close()
    records = [json.loads(x) for x in log.read_text().splitlines()]
    assert records[0]["rules"]["family"] == "classical"
    assert [r["answer"] for r in records if r["type"] == "answer" and r["seat"] == 1] == ["/throw 470", "/hu"]
    result = next(r for r in records if r["type"] == "result")
    assert [w["seat"] for w in result["wins"]] == [1] and len(result["classical"]["players"]) == 4
    assert mjref(["replay", str(log)]) == 0

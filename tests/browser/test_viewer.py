"""The match viewer: states folded from the log (tiles conserved, throws and wins as logged), the page's size and
self-containment, bad input, and the page itself in headless Chromium (stepping with the keyboard, the winner
panel, the controls, no network)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from referee.errors import MjrefError
from referee.game.taiwan16.rules import make_ruleset
from referee.match import play_match, resolve_bots
from referee.viewer import (
    build_match,
    encode_steps,
    expand_steps,
    page_data,
    render_viewer,
    write_viewer,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from chromium import chromium, open_page, screenshot

ROOT = Path(__file__).resolve().parents[2]
BADBOT = ROOT / "tests" / "bots" / "badbot.py"


# ------------------------------------------------------------------------------------------------ logs
def play(path: Path, seed: int, hands: int, bots: list[str] | None = None, **rules: Any) -> Path:
    play_match(resolve_bots(bots or [], "greedy"), seed=seed, rules=make_ruleset({"hands": hands, **rules}),
               log_path=path, stderr_dir=path.parent)
    return path


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("viewer-logs")
    out = {
        "plain": play(d / "plain.jsonl", 3, 4),
        "flowers": play(d / "flowers.jsonl", 7, 4, flowers=True),
        "faults": play(d / "faults.jsonl", 5, 2, ["greedy", f"{sys.executable} {BADBOT} bad_throw"],
                       fault_penalty=30),
    }
    for seed in range(1, 60):  # a log with an exhaustive draw (greedy bots draw now and then)
        p = play(d / f"draw{seed}.jsonl", seed, 2)
        if '"outcome":"draw"' in p.read_text():
            out["draw"] = p
            break
    assert "draw" in out, "no seed in 1..59 gave an exhaustive draw"
    return out


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def log_hands(path: Path) -> list[dict[str, Any]]:
    """Per hand, straight from the log: the wall, the deal, the throws in order, the hu events and the result."""
    hands: list[dict[str, Any]] = []
    for r in records(path):
        if r["type"] == "hand":
            hands.append({"wall": r["wall"], "deal": {}, "throws": [], "hu": [], "result": None, "faults": []})
        elif r["type"] == "event" and r["kind"] == "init_card":
            hands[-1]["deal"][r["seat"]] = r["tiles"]
        elif r["type"] == "event" and r["kind"] == "throw":
            hands[-1]["throws"].append((r["seat"], r["tile"]))
        elif r["type"] == "event" and r["kind"] == "hu":
            hands[-1]["hu"].append(r)
        elif r["type"] == "result":
            hands[-1]["result"] = r
        elif r["type"] == "fault":
            hands[-1]["faults"].append(r)
    return hands


def visible(step: dict[str, Any]) -> list[int]:
    """Every tile a step places outside the wall (claimed throws are counted in the melds that took them)."""
    tiles: list[int] = []
    for i in range(4):
        tiles += step["c"][i]
        tiles += [step["d"][i]] if step["d"][i] else []
        tiles += [t for m in step["m"][i] for t in m["t"]]
        tiles += [t for t in step["r"][i] if t > 0]
        tiles += step["f"][i]
    return tiles


# ------------------------------------------------------------------------------------------------ the states
@pytest.mark.parametrize("which", ["plain", "flowers", "faults", "draw"])
def test_every_step_conserves_the_tiles(logs: dict[str, Path], which: str) -> None:
    hands = log_hands(logs[which])
    match = build_match(logs[which])
    assert len(match["hands"]) == len(hands)
    for n, step in enumerate(match["steps"]):
        wall = hands[step["h"]]["wall"]
        tiles = visible(step)
        dupes = [t for t, k in Counter(tiles).items() if k > 1]
        assert not dupes, f"step {n}: tiles {dupes} shown twice"
        assert set(tiles) <= set(wall), f"step {n}: tiles not in the wall"
        assert len(tiles) + step["w"] == len(wall), f"step {n} ({step['a']}): {len(tiles)} + {step['w']} tiles"
        for i in range(4):
            assert step["c"][i] == sorted(step["c"][i])


@pytest.mark.parametrize("which", ["plain", "flowers", "faults", "draw"])
def test_throws_deal_and_wins_are_as_logged(logs: dict[str, Path], which: str) -> None:
    hands = log_hands(logs[which])
    match = build_match(logs[which])
    for h, (info, logged) in enumerate(zip(match["hands"], hands, strict=True)):
        steps = match["steps"][info["start"]: info["end"] + 1]
        assert all(s["h"] == h for s in steps)
        deal = steps[0]
        assert deal["k"] == "deal"
        for seat, tiles in logged["deal"].items():
            assert deal["c"][seat - 1] == sorted(tiles)
        # the rivers, read in throw order, are the log's throws; a throw step shows exactly one more throw
        thrown = 0
        for s in steps:
            if s["k"] == "throw":
                thrown += 1
            for seat in (1, 2, 3, 4):
                river = [abs(t) for t in s["r"][seat - 1]]
                assert river == [t for p, t in logged["throws"][:thrown] if p == seat]
        assert thrown == len(logged["throws"])
        end = steps[-1]
        assert end["k"] == "end" and end["e"] == 1
        assert end["z"] == logged["result"]["totals"]
        assert info["result"]["wins"] == logged["result"]["wins"]
        for hu in logged["hu"][:1]:
            seat = hu["seat"] - 1
            if hu["tile"] < 100:  # eight flowers: nothing moves
                continue
            assert sorted(end["c"][seat] + [end["d"][seat]]) == sorted([*hu["concealed"], hu["tile"]])
            assert end["d"][seat] == hu["tile"]
        assert len(info["faults"]) == len(logged["faults"])
        assert sum(1 for s in steps if s["k"] == "fault") == len(logged["faults"])
    assert match["meta"]["totals"] == records(logs[which])[-1]["totals"]


def test_draws_and_faults_are_shown_as_such(logs: dict[str, Path]) -> None:
    m = build_match(logs["draw"])
    draws = [h for h in m["hands"] if h["result"]["outcome"] == "draw"]
    assert draws and all(m["steps"][h["end"]]["a"].startswith("Exhaustive draw") for h in draws)
    f = build_match(logs["faults"])
    faults = [s for s in f["steps"] if s["k"] == "fault"]
    assert faults and all(s["s"] == 2 and "illegal" in s["a"] and "dummy plays on" in s["a"] for s in faults)
    assert f["hands"][0]["result"]["penalties"][1] == 30


def test_delta_encoding_round_trips(logs: dict[str, Path]) -> None:
    for path in logs.values():
        steps = build_match(path)["steps"]
        encoded = encode_steps(steps)
        assert expand_steps(encoded) == steps
        assert len(json.dumps(encoded)) < len(json.dumps(steps)) / 3


def test_a_cut_off_log_shows_what_there_is(logs: dict[str, Path], tmp_path: Path) -> None:
    lines = logs["plain"].read_text().splitlines(keepends=True)
    second_hand = [i for i, line in enumerate(lines) if line.startswith('{"type":"hand"')][1]
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[: second_hand + 30]) + lines[second_hand + 30][:20])  # a half-written last line
    m = build_match(cut)
    assert len(m["hands"]) == 2 and m["hands"][1]["result"] is None and not m["meta"]["complete"]
    assert m["steps"][-1]["k"] == "end" and "cut off" in m["steps"][-1]["a"]


# ------------------------------------------------------------------------------------------------ the page
def test_sixteen_hands_stay_small_and_self_contained(tmp_path: Path) -> None:
    # random and draw-discard bots rarely win, so their hands run long: about the largest 16 hands there are
    log = play(tmp_path / "m16.jsonl", 2, 16, ["random", "random", "drawdiscard", "drawdiscard"], flowers=True)
    out = write_viewer(log, tmp_path / "m16.html")
    size = out.stat().st_size
    assert size < 2_000_000, f"{size} bytes"
    text = out.read_text()
    assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in text and " src=" not in text and "@import" not in text and "url(" not in text
    assert text.count("</script>") == 2
    assert len(build_match(log)["hands"]) == 16


def test_names_cannot_break_out_of_the_page(logs: dict[str, Path], tmp_path: Path) -> None:
    recs = records(logs["plain"])
    recs[0]["seats"][1]["name"] = "</script><script>alert(1)</script>@@DATA@@"
    bad = tmp_path / "names.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in recs))
    text = render_viewer(build_match(bad))
    assert text.count("</script>") == 2 and text.count("<script>") == 1
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;@@DATA@@" in text
    data = page_data(build_match(bad))
    assert data["meta"]["seats"][1]["name"].startswith("</script>")


def test_view_command_writes_the_page(logs: dict[str, Path], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "deep" / "m.html"
    assert main(["view", str(logs["plain"]), "-o", str(out), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["html"] == str(out) and info["bytes"] == out.stat().st_size
    assert main(["view", str(logs["plain"])]) == 0  # default: beside the log
    assert logs["plain"].with_suffix(".html").exists()
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize("kind", ["missing", "directory", "not json", "not a log", "empty", "binary",
                                  "no hands", "bad event", "same file"])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str,
                                          logs: dict[str, Path]) -> None:
    path = tmp_path / "in.jsonl"
    out = tmp_path / "out.html"
    if kind == "missing":
        path = tmp_path / "nope.jsonl"
    elif kind == "directory":
        path = tmp_path
    elif kind == "not json":
        path.write_text("hello\n")
    elif kind == "not a log":
        path.write_text('{"type": "something"}\n')
    elif kind == "empty":
        path.write_text("")
    elif kind == "binary":
        path.write_bytes(b"\xff\xfe\x00\x01garbage\n")
    elif kind == "no hands":
        path.write_text(logs["plain"].read_text().splitlines(keepends=True)[0])
    elif kind == "bad event":  # a throw of a tile nobody holds
        lines = logs["plain"].read_text().splitlines(keepends=True)
        i = next(i for i, line in enumerate(lines) if '"kind":"throw"' in line)
        lines[i] = lines[i].replace('"kind":"throw"', '"kind":"pong"', 1).replace('"tile":', '"tiles":[1,2,3],"x":')
        path.write_text("".join(lines[:i + 1]))
    elif kind == "same file":
        path.write_text(logs["plain"].read_text())
        out = path
    assert main(["view", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("mjref view: ")
    if kind != "same file":
        assert not out.exists()
        with pytest.raises(MjrefError):  # a LogError for a file that is not a log, a ViewerError for the rest
            build_match(path)


# ------------------------------------------------------------------------------------------------ in a browser
@pytest.fixture(scope="module")
def browser() -> Any:
    with chromium() as b:
        yield b


def seat_view(page: Any) -> dict[str, Any]:
    v: dict[str, Any] = page.evaluate("""() => {
        const out = {step: +document.getElementById("step-label").dataset.step,
                     hand: +document.getElementById("step-label").dataset.hand,
                     label: document.getElementById("step-label").textContent,
                     action: document.getElementById("action").textContent,
                     kind: document.getElementById("action").dataset.kind,
                     wall: +document.getElementById("wall-count").dataset.wall,
                     last: [...document.querySelectorAll(".tile.last")].map(t => +t.dataset.tid),
                     panel: !document.getElementById("winner-panel").hidden, seats: {}};
        for (const p of [1, 2, 3, 4]) {
            const q = (sel) => [...document.querySelectorAll(sel)].map(t => +t.dataset.tid);
            out.seats[p] = {hand: q(`#hand-${p} .tile`), drawn: q(`#hand-${p} .tile.drawn`),
                            river: q(`#river-${p} .tile`), claimed: q(`#river-${p} .tile.claimed`),
                            melds: q(`#melds-${p} .tile`), flowers: q(`#flowers-${p} .tile`),
                            all: document.querySelectorAll(`[data-seat="${p}"] .tile`).length,
                            score: +document.getElementById(`score-${p}`).textContent,
                            classes: document.getElementById(`seat-${p}`).className};
        }
        return out;
    }""")
    v["seats"] = {int(p): s for p, s in v["seats"].items()}
    return v


def test_step_through_a_hand_with_the_keyboard(browser: Any, logs: dict[str, Path], tmp_path: Path) -> None:
    html = write_viewer(logs["plain"], tmp_path / "plain.html")
    logged = log_hands(logs["plain"])[0]
    match = build_match(logs["plain"])
    first = match["hands"][0]
    with open_page(browser, html) as op:
        page = op.page
        page.wait_for_selector("body[data-ready='1']")
        v = seat_view(page)
        assert v["step"] == 0 and v["kind"] == "deal" and not v["panel"]
        for seat, tiles in logged["deal"].items():  # the deal: 17 tiles for the dealer, 16 for the others
            assert sorted(v["seats"][seat]["hand"]) == sorted(tiles)
        assert len(v["seats"][match["hands"][0]["dealer"]]["hand"]) == 17
        thrown = 0
        for n in range(first["start"] + 1, first["end"] + 1):
            page.keyboard.press("ArrowRight")
            v = seat_view(page)
            state = match["steps"][n]
            assert v["step"] == n and v["action"] == state["a"]
            if state["k"] == "throw":
                thrown += 1
                seat, tile = logged["throws"][thrown - 1]
                assert v["last"] == [tile] and v["seats"][seat]["river"][-1] == tile
            for p in (1, 2, 3, 4):
                s = v["seats"][p]
                assert s["river"] == [t for q, t in logged["throws"][:thrown] if q == p]  # the throws, in order
                assert len(s["hand"]) == len(state["c"][p - 1]) + (1 if state["d"][p - 1] else 0)
                assert s["claimed"] == [-t for t in state["r"][p - 1] if t < 0]
                assert s["melds"] == [t for m in state["m"][p - 1] for t in m["t"]]
            assert v["wall"] == state["w"]
            if n == first["start"] + 12:
                screenshot(page, "viewer-mid-hand.png")
        # the hand's end: the winner panel with the logged tai items and payments
        assert v["panel"] and v["kind"] == "end"
        result = logged["result"]
        win = result["wins"][0]
        panel = page.evaluate("""() => ({
            outcome: document.getElementById("winner-panel").dataset.outcome,
            items: [...document.querySelectorAll("#winner-panel .tai-item")]
                .map(li => [li.dataset.key, +li.dataset.tai]),
            total: document.querySelector("#winner-panel .tai-total").textContent,
            pay: [...document.querySelectorAll("#winner-panel .payment")].map(r => +r.dataset.amount),
            sets: document.querySelectorAll("#winner-panel .set").length,
            text: document.getElementById("winner-panel").textContent})""")
        assert panel["outcome"] == "win"
        assert panel["items"] == [[i["key"], i["tai"]] for i in win["items"]]
        assert panel["total"] == f"{win['tai']} tai"
        assert panel["pay"] == win["payments"]
        assert panel["sets"] == len(win["arrangement"])
        assert f"{win['seat']} {match['meta']['seats'][win['seat'] - 1]['name']} wins" in panel["text"]
        assert [v["seats"][p]["score"] for p in (1, 2, 3, 4)] == result["totals"]
        assert "winner" in v["seats"][win["seat"]]["classes"]
        hu = logged["hu"][0]
        assert sorted(v["seats"][hu["seat"]]["hand"]) == sorted([*hu["concealed"], hu["tile"]])
        screenshot(page, "viewer-hand-end.png")
        # and back again
        page.keyboard.press("ArrowLeft")
        assert seat_view(page)["step"] == first["end"] - 1 and not seat_view(page)["panel"]
        assert op.foreign_requests() == [], op.requests
        assert op.errors == []


def test_controls_jump_and_autoplay(browser: Any, logs: dict[str, Path], tmp_path: Path) -> None:
    html = write_viewer(logs["plain"], tmp_path / "plain.html")
    match = build_match(logs["plain"])
    hands = match["hands"]
    with open_page(browser, html) as op:
        page = op.page
        page.wait_for_selector("body[data-ready='1']")
        page.keyboard.press("ArrowDown")
        assert seat_view(page)["step"] == hands[1]["start"]
        page.keyboard.press("End")
        assert seat_view(page)["step"] == hands[1]["end"]
        page.keyboard.press("Home")
        assert seat_view(page)["step"] == hands[1]["start"]
        page.keyboard.press("ArrowUp")
        assert seat_view(page)["step"] == hands[0]["start"]
        page.select_option("#hand-select", "2")
        assert seat_view(page)["step"] == hands[2]["start"]
        assert "Hand 3/4" in seat_view(page)["label"]
        page.click("#next-hand")
        assert seat_view(page)["hand"] == 3
        page.click("#prev")
        assert seat_view(page)["step"] == hands[3]["start"] - 1
        page.click("#score-sheet tr.hand-row[data-hand='1']")
        assert seat_view(page)["step"] == hands[1]["start"]
        page.select_option("#speed", "40")
        page.click("#play")
        for _ in range(100):  # the page's CSP forbids eval, so poll from here rather than wait_for_function
            if seat_view(page)["step"] >= hands[1]["start"] + 10:
                break
            page.wait_for_timeout(50)
        assert seat_view(page)["step"] >= hands[1]["start"] + 10
        page.keyboard.press(" ")  # pause
        paused = seat_view(page)["step"]
        page.wait_for_timeout(300)
        assert seat_view(page)["step"] == paused
        assert op.foreign_requests() == [] and op.errors == []
    # a deep link opens at its step
    with open_page(browser, html) as op:
        op.page.goto(op.url + "#step=50")
        op.page.reload()
        op.page.wait_for_selector("body[data-ready='1']")
        assert seat_view(op.page)["step"] == 50


def test_faults_draws_and_flowers_in_the_browser(browser: Any, logs: dict[str, Path], tmp_path: Path) -> None:
    f = build_match(logs["faults"])
    fault_step = next(i for i, s in enumerate(f["steps"]) if s["k"] == "fault")
    html = write_viewer(logs["faults"], tmp_path / "faults.html")
    with open_page(browser, html) as op:
        page = op.page
        page.wait_for_selector("body[data-ready='1']")
        for _ in range(fault_step):
            page.keyboard.press("ArrowRight")
        v = seat_view(page)
        assert v["kind"] == "fault" and "faulted" in v["seats"][2]["classes"]
        assert "1 fault" in page.inner_text("#seat-2 .badges")
        screenshot(page, "viewer-fault.png")
        page.keyboard.press("End")
        group = page.locator("#winner-panel details.fault-group")
        assert group.count() == 1 and group.get_attribute("data-count") == "1"
        assert "illegal" in page.inner_text("#winner-panel details.fault-group summary")
        group.locator("summary").click()  # unfolds the faults of the group
        assert page.locator("#winner-panel .fault").count() == 1 and page.locator("#winner-panel .fault").is_visible()
        assert op.errors == []

    d = build_match(logs["draw"])
    draw_hand = next(h for h in d["hands"] if h["result"]["outcome"] == "draw")
    html = write_viewer(logs["draw"], tmp_path / "draw.html")
    with open_page(browser, html) as op:
        page = op.page
        page.wait_for_selector("body[data-ready='1']")
        page.select_option("#hand-select", str(draw_hand["i"]))
        page.keyboard.press("End")
        assert page.get_attribute("#winner-panel", "data-outcome") == "draw"
        assert "exhaustive draw" in page.inner_text("#winner-panel").lower()
        assert page.locator("#winner-panel .tai-item").count() == 0
        assert seat_view(page)["wall"] == d["meta"]["dead_wall"]  # the live wall is used up
        screenshot(page, "viewer-draw.png")
        assert op.errors == [] and op.foreign_requests() == []

    fl = build_match(logs["flowers"])
    html = write_viewer(logs["flowers"], tmp_path / "flowers.html")
    with open_page(browser, html) as op:
        page = op.page
        page.wait_for_selector("body[data-ready='1']")
        v = seat_view(page)
        for p in (1, 2, 3, 4):
            assert v["seats"][p]["flowers"] == fl["steps"][0]["f"][p - 1]
        page.keyboard.press("End")
        screenshot(page, "viewer-flowers.png")
        assert op.errors == [] and op.foreign_requests() == []


@pytest.mark.parametrize("width", [375, 800])
def test_narrow_screens_do_not_overflow_and_faults_come_in_groups(browser: Any, logs: dict[str, Path],
                                                                   tmp_path: Path, width: int) -> None:
    """Below 800 px the page used to clip (a 900 px column); now nothing is wider than the window, and a hand's
    faults come as one group per seat and kind with a count."""
    log = tmp_path / "two-faulty.jsonl"
    play(log, 11, 2, ["greedy", f"{sys.executable} {BADBOT} bad_throw", f"{sys.executable} {BADBOT} garbage"])
    info = build_match(log)
    html = write_viewer(log, tmp_path / "narrow.html")
    with open_page(browser, html, width=width, height=800) as op:
        page = op.page
        page.wait_for_selector("body[data-ready='1']")
        page.keyboard.press("End")
        size = page.evaluate("() => ({scroll: document.documentElement.scrollWidth, inner: window.innerWidth,"
                             " body: document.body.scrollWidth})")
        screenshot(page, f"viewer-{width}px.png")
        assert size["scroll"] <= size["inner"] and size["body"] <= size["inner"], size
        wide = page.evaluate("""() => [...document.querySelectorAll('body *')].filter((e) => {
            const r = e.getBoundingClientRect(); return r.width > 0 && (r.right > window.innerWidth + 1 || r.left < -1);
          }).filter((e) => !e.closest('.card')).map((e) => e.tagName + '.' + e.className).slice(0, 5)""")
        assert wide == [], wide
        last = info["hands"][0]["faults"]  # End: the end of the first hand
        groups = page.evaluate("""() => [...document.querySelectorAll('#winner-panel details.fault-group')].map(
            (d) => [+d.dataset.seat, d.dataset.kind, +d.dataset.count])""")
        expected: Counter[tuple[int, str]] = Counter((f["seat"], f["kind"]) for f in last)
        assert sorted((s, k, n) for s, k, n in groups) == sorted((s, k, n) for (s, k), n in expected.items())
        assert op.errors == []


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (375, 740)])
def test_a_hands_win_panel_does_not_push_the_table_down(browser: Any, logs: dict[str, Path], tmp_path: Path,
                                                        width: int, height: int) -> None:
    """At a hand's end the win panel (tai items, payments) fills the side column; the table keeps its own height,
    so on a desktop window seat 1 (the bottom seat) stays in view (it was pushed below the fold at 1440x900:
    the table stretched to the side column's 1035 px); on a phone nothing is wider than the screen."""
    html = write_viewer(logs["plain"], tmp_path / "plain.html")
    with open_page(browser, html, width=width, height=height) as op:
        page = op.page
        page.wait_for_selector("body[data-ready='1']")
        page.keyboard.press("End")  # hand 1's end: its result
        panel = page.locator("#winner-panel")
        assert panel.is_visible()
        table = page.locator("#table").bounding_box()
        seat1 = page.locator("#seat-1").bounding_box()
        assert table is not None and seat1 is not None
        if width >= 1340:  # two columns: the table beside the side column
            assert seat1["y"] + seat1["height"] <= height, f"seat 1 ends at {seat1['y'] + seat1['height']:.0f} px"
            side = page.locator("aside.side").bounding_box()
            assert side is not None and side["height"] > table["height"], "the panel fills the side column"
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"the page is {overflow} px wider than the window"
        screenshot(page, f"viewer-hand-end-{width}.png", full_page=False)
        assert not op.errors, op.errors

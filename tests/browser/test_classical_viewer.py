"""The match viewer shows a classical match: 13-tile deals, each hand's winner in points, every player's score
line with mj-server's explanation, and the settlement."""

from __future__ import annotations

from pathlib import Path

from chromium import chromium, open_page

from referee.game.classical.family import ClassicalRuleset
from referee.match import play_match, resolve_bots
from referee.viewer import build_match, write_viewer


def test_the_viewer_shows_every_players_classical_score(tmp_path: Path) -> None:
    log = tmp_path / "c.jsonl"
    play_match(resolve_bots(["greedy", "greedy", "greedy", "greedy"]), seed=3, rules=ClassicalRuleset(hands=3),
               log_path=log)
    match = build_match(log)
    assert match["meta"]["rules"]["family"] == "classical" and match["meta"]["dead_wall"] == 14
    won = next(h for h in match["hands"] if h["result"]["outcome"] == "win")
    assert "points" in won["result"]["text"] and len(won["result"]["classical"]["players"]) == 4
    first = match["steps"][won["start"]]
    assert "deals (14 tiles)" in first["a"] and len(first["c"][won["dealer"] - 1]) == 14
    html = write_viewer(log, tmp_path / "c.html")
    with chromium() as browser, open_page(browser, html) as op:
        page = op.page
        page.wait_for_selector("body[data-ready='1']")
        for _ in range(won["i"]):
            page.keyboard.press("ArrowDown")
        page.keyboard.press("End")
        page.wait_for_selector("#winner-panel[data-outcome=win] table.classical")
        assert page.locator("#winner-panel tr.player-score").count() == 4
        text = page.locator("#winner-panel").inner_text()
        assert "SCORE:" in text and "GAINS" in text and "points" in text
        assert not op.errors, op.errors

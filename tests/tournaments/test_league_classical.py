"""A league under Chinese Classical rules (``rules = "xmj"`` in its file): it plays rounds of 13-tile matches, logged
and replayable, with its ratings kept; the command runs it; a submitted bot's conformance check is dealt under the
league's family and the bot then plays."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from referee.cli import main
from tournaments.store import Store

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "tournaments"))
from leagues import served_league  # noqa: E402
from test_league import FOUR, check_ratings, count, play, rows, write_league  # noqa: E402
from test_submissions import GOOD_BOT, bot_folder, seated  # noqa: E402


def test_a_classical_league_plays_duplicate_rounds_of_13_tile_matches(tmp_path: Path) -> None:
    path = write_league(tmp_path, bots=FOUR, duplicate=True, extra='rules = "xmj"\nlogs = "logs"\n', concurrency=1)
    store = tmp_path / "league.sqlite"
    assert play(path, 8) == 8
    assert count(store) == 8
    with Store(store) as s:
        identity = s.identity()
    assert identity is not None and identity["rules"]["family"] == "classical"
    assert len({r[3] for r in rows(store)}) == 2  # two duplicate deals: four seatings each
    check_ratings(store)
    logs = sorted((tmp_path / "logs").rglob("*.jsonl"))
    assert len(logs) == 8
    for log in logs[:2]:
        records = [json.loads(x) for x in log.read_text().splitlines()]
        assert records[0]["rules"]["family"] == "classical"
        hand = next(r for r in records if r["type"] == "hand")
        assert len(hand["wall"]) == 144
        assert main(["replay", str(log)]) == 0
    # the command, resumed over the same store: four more matches, under the same rules
    assert main(["league", str(path), "--matches", "4", "--quiet"]) == 0
    assert count(store) == 12


@pytest.mark.slow
def test_a_bot_submitted_to_a_classical_league_is_checked_in_13_tile_hands(tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    league = tmp_path / "league.toml"
    text = 'name = "class"\nhands = 1\nduplicate = false\nconcurrency = 1\nstore = "league.sqlite"\nrules = "xmj"\n'
    for name, builtin in (("greedy", "greedy"), ("random", "random"), ("drawdiscard", "drawdiscard")):
        text += f'[[bots]]\nname = "{name}"\nbuiltin = "{builtin}"\n'
    league.write_text(text)
    assert main(["league", "add-author", "alice", "--league", str(league)]) == 0
    token = capsys.readouterr().out.strip()
    good = bot_folder(tmp_path, "good", GOOD_BOT)
    with served_league(league) as (url, _):
        assert main(["submit", url, "--token", token, str(good), "--json"]) == 0
        entry = json.loads(capsys.readouterr().out)
        assert entry["status"] == "active" and entry["report"]["ok"] is True
        assert entry["report"]["family"] == "classical"
        deadline = time.monotonic() + 120
        while "good" not in seated(tmp_path / "league.sqlite") and time.monotonic() < deadline:
            time.sleep(0.2)
        assert "good" in seated(tmp_path / "league.sqlite")

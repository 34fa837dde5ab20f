"""xmj seats at an mjref table: mj-player (Debian's ``mah-jong``) and a minimal client of mj-server's protocol
play classical matches through ``referee.match``, boxed like any bot, with the faults of any seat."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import mjserver
import pytest

from referee.match import MatchError, play_match, resolve_bots
from referee.rulesets import playable_rules
from wrappers.spec import BotSpec

CLIENT = Path(__file__).resolve().parents[1] / "bots" / "xmjclient.py"


def _client(mode: str) -> BotSpec:
    return BotSpec(name=f"client-{mode}", cmd=(sys.executable, str(CLIENT), mode), protocol="xmj")


def _mjref(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=600)


def test_four_mj_players_play_sixteen_hands_without_a_fault_and_the_log_replays(tmp_path: Path) -> None:
    mjserver.require()
    log = tmp_path / "m.jsonl"
    specs = resolve_bots(["mj-player", "mj-player:suitness=1", "mj-player:chowness=-1,hiddenness=0.5",
                          "mj-player:majorness=0.7"])
    result = play_match(specs, seed=2, rules=playable_rules("xmj", []), log_path=log)
    assert [f.kind for f in result.faults] == []
    assert len(result.hands) == 16 and sum(result.totals) == 0
    won = [h for h in result.hands if h.result.outcome == "win"]
    assert won, "mj-players win hands"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    declared = [r for r in records if r.get("type") == "answer" and r["ask"] == "declare"]
    assert declared and all(r["by"] == "bot" for r in declared), "the players declare their own sets"
    for h in won:  # every player scored, each with mj-server's explanation
        players = h.result.detail.players
        assert len(players) == 4 and all(p.explanation[-1].startswith("SCORE:") for p in players)
    replay = _mjref("replay", str(log))
    assert replay.returncode == 0, replay.stdout + replay.stderr


def test_a_mixed_table_plays_classical_and_an_xmj_seat_is_refused_under_taiwan16() -> None:
    mjserver.require()
    specs = resolve_bots(["mj-player", "greedy", "mj-player:suitness=1", "random"])
    result = play_match(specs, seed=5, rules=playable_rules("xmj", ["hands=4"]))
    assert [f.kind for f in result.faults] == [] and len(result.hands) == 4
    with pytest.raises(MatchError, match="speaks mj-server's protocol .* not taiwan16"):
        play_match(specs, seed=5)


def test_a_correct_minimal_client_plays_without_a_fault() -> None:
    specs = [_client("pass"), *resolve_bots(["greedy", "greedy", "greedy"])[:3]]
    result = play_match(specs, seed=3, rules=playable_rules("xmj", ["hands=3"]), timeout=20)
    assert [f.kind for f in result.faults] == [] and len(result.hands) == 3


@pytest.mark.parametrize(("mode", "kind"), [("garbage", "garbage"), ("silent", "timeout"),
                                             ("disconnect", "disconnected"), ("falsemj", "wrong_answer"),
                                             ("badtile", "illegal")])
def test_a_misbehaving_client_gets_its_fault_and_the_match_goes_on(mode: str, kind: str) -> None:
    specs = [_client(mode), *resolve_bots(["greedy", "greedy", "greedy"])[:3]]
    result = play_match(specs, seed=3, rules=playable_rules("xmj", ["hands=2"]), timeout=3)
    assert result.faults and result.faults[0].kind == kind and result.faults[0].position == 1
    assert len(result.hands) == 2 and sum(result.totals) == 0

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


def test_a_tournament_of_two_mj_player_personalities_and_two_builtins_runs_and_resumes(tmp_path: Path) -> None:
    """Stopped (as by SIGTERM) once its first match is recorded, then run again: the rest is played, the first
    match kept; no fault, every log replays."""
    mjserver.require()
    import signal
    import sqlite3

    import trio

    from referee.replay import replay_log
    from referee.shutdown import Interrupted, Shutdown
    from tournaments.config import load_config
    from tournaments.runner import execute, plan

    bots = ('[[bots]]\nname = "suity"\ncmd = ["mj-player", "--suitness", "1"]\nprotocol = "xmj"\n'
            '[[bots]]\nname = "punger"\ncmd = ["mj-player", "--chowness", "-1"]\nprotocol = "xmj"\n'
            '[[bots]]\nname = "g"\nbuiltin = "greedy"\n[[bots]]\nname = "r"\nbuiltin = "random"\n')
    toml = tmp_path / "t.toml"
    toml.write_text(f'name = "x"\nrules = "xmj"\nseeds = 3\nhands = 2\nduplicate = false\n{bots}')

    def matches() -> list[tuple[str, int]]:
        con = sqlite3.connect(p.store_path)
        try:
            assert con.execute("SELECT COUNT(*) FROM faults").fetchone()[0] == 0
            return con.execute("SELECT id, total1 + total2 + total3 + total4 FROM matches").fetchall()
        finally:
            con.close()

    p = plan(load_config(toml), tmp_path)
    shutdown = Shutdown()
    with pytest.raises(Interrupted):  # what the command turns into its exit status
        trio.run(lambda: execute(p, concurrency=1, shutdown=shutdown,
                                 on_match=lambda *_: shutdown.stop(signal.SIGTERM)))
    first = matches()
    assert len(first) == 1
    p = plan(load_config(toml), tmp_path)
    trio.run(lambda: execute(p, concurrency=1))
    done = matches()
    assert len(done) == 3 and set(first) <= set(done) and all(total == 0 for _, total in done)
    for log in Path(p.logs_dir).glob("*.jsonl"):
        assert replay_log(log).ok, log

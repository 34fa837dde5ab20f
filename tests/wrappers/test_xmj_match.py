"""xmj seats at an mjref table: mj-player (Debian's ``mah-jong``) and a minimal client of mj-server's protocol
play classical matches through ``referee.match``, boxed like any bot, with the faults of any seat."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import mjserver
import pytest

from referee.game.classical.options import GameOptions
from referee.game.family import family_of
from referee.game.wall import arrange_wall
from referee.match import MatchError, play_match, resolve_bots
from referee.rulesets import playable_rules
from referee.viewer import build_match
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
    assert all(r["declaring"] == "together" for r in records if r.get("type") == "hand")
    side_by_side = 0
    for h in won:  # the losers declare side by side: a set each, round and round (a k+1th never before a kth)
        losers = [r["seat"] for r in declared if r["hand"] == h.index and r["seat"] != h.result.wins[0].seat]
        rounds = [losers[:i].count(p) for i, p in enumerate(losers)]
        assert rounds == sorted(rounds), losers
        side_by_side += len(set(losers)) > 1 and max(rounds, default=0) > 0
    assert side_by_side, "two losers each declared more than one set in some hand"
    replay = _mjref("replay", str(log))
    assert replay.returncode == 0, replay.stdout + replay.stderr


def test_mj_player_robs_a_concealed_kong_for_the_thirteen_unique_wonders(tmp_path: Path) -> None:
    """East (mj-player) is dealt four 1-wan and declares the concealed kong at once; South, dealt the other twelve
    wonders and a pair of 9-wan, robs it (``MahJong 1``, then ``PlayerRobsKong 2 1C``), as under mj-server (the
    same wall dealt there, its ``rand()`` steered through LD_PRELOAD in a one-off check, gave the same messages).
    South then answers ``ShowTiles`` instead of its special set: mj-server refuses it (``Must finish making your
    sets``) and its game stops there; mjref charges ``illegal`` and the dummy declares the Wonders."""
    mjserver.require()
    t = lambda kind, copy=0: kind * 10 + copy  # noqa: E731
    east = [t(11, c) for c in range(4)] + [t(k) for k in (12, 13, 14, 35, 36, 37, 22, 23, 24, 15)]
    south = [t(19), t(19, 1)] + [t(k) for k in (31, 39, 21, 29, 41, 43, 42, 44, 45, 47, 46)]
    wall = arrange_wall({1: east, 2: south}, family_of(GameOptions(Flowers=False)), dealer=1, deal_size=13)
    log = tmp_path / "rob.jsonl"
    result = play_match(resolve_bots(["mj-player"] * 4), seed=1, walls=[wall], log_path=log,
                        rules=playable_rules("classical", ["Flowers=false", "hands=1"]))
    records = [json.loads(line) for line in log.read_text().splitlines()]
    play = [(r["kind"], r.get("seat"), r.get("mode")) for r in records if r.get("type") == "event"
            and r["kind"] in ("gong", "hu", "throw")]
    assert play == [("gong", 1, 0), ("hu", 2, None)], play
    (win,) = result.hands[0].result.wins
    assert (win.seat, win.how, win.thrower, win.tile // 10) == (2, "robbed_gong", 1, 11)
    players = result.hands[0].result.detail.players
    assert "Limit Hand 1000 (Thirteen Unique Wonders)" in players[1].explanation
    assert "1C+1C+1C" in players[0].sets  # the robbed kong is East's concealed pung (mj-server's ClosedPung)
    assert [(f.position, f.kind) for f in result.faults] == [(2, "illegal")] and "ShowTiles" in result.faults[0].detail
    shown = [s for s in build_match(log)["steps"] if "m" in s][-1]  # the viewer's last table: East's pung
    assert shown["m"][0] == [{"k": "concealed_pong", "t": [t(11, 1), t(11, 2), t(11, 3)], "c": 0, "f": 0}]
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

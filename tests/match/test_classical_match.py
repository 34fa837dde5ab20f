"""Matches under Chinese Classical (``--rules classical`` and its presets): built-in bots, process bots over the
ICGA protocol, the log with every player's score line, replay of the log, and the commands that do not run it yet."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from referee.game.classical.family import ClassicalRuleset
from referee.game.classical.options import GameOptions
from referee.log import open_log
from referee.match import play_match, resolve_bots
from referee.refeed import run_refeed
from referee.replay import replay_log
from referee.rulesets import playable_rules
from wrappers.spec import BotSpec

ROOT = Path(__file__).resolve().parents[2]


def bot_proc(module: str, *, name: str | None = None) -> BotSpec:
    return BotSpec(name=name or module, cmd=(sys.executable, "-m", f"bots.{module}"), cwd=str(ROOT))


def test_builtin_bots_play_a_classical_match_and_the_log_replays(tmp_path: Path) -> None:
    rules = ClassicalRuleset(hands=12)
    specs = resolve_bots(["random", "drawdiscard", "greedy", "greedy:hiddenness=0.9,majorness=0.2"])
    log = tmp_path / "c.jsonl"
    a = play_match(specs, seed=21, rules=rules, log_path=log)
    b = play_match(specs, seed=21, rules=rules)
    assert len(a.hands) == 12 and not a.faults
    assert a.totals == b.totals and a.play_digest == b.play_digest  # same seed, same match
    assert sum(a.totals) == 0
    won = [h for h in a.hands if h.result.outcome == "win"]
    assert won  # greedy wins classical hands
    for prev, h in zip(a.hands, a.hands[1:]):
        kept = prev.result.outcome == "draw" or prev.setup.dealer in prev.result.winners
        assert (h.setup.dealer == prev.setup.dealer) == kept  # East keeps the deal only by winning or a washout
    records = [rec for _n, rec in open_log(log).records()]
    results = [r for r in records if r.type == "result"]
    for r in results:
        if r.outcome == "win":
            assert r.classical is not None and [p.seat for p in r.classical.players] == [1, 2, 3, 4]
            assert all(p.explanation[-1].startswith("SCORE:") or "Limit" in " ".join(p.explanation)
                       for p in r.classical.players)
        else:
            assert r.classical is None and r.scores == [0, 0, 0, 0]
    header = open_log(log).header
    assert header.rules["family"] == "classical" and header.rules["options"]["Flowers"] is True
    report = replay_log(log)
    assert report.ok and len(report.hands) == 12


def test_process_bots_play_classical_as_the_builtins_do(tmp_path: Path) -> None:
    """Greedy and drawdiscard as processes over the ICGA protocol (13-tile /initCard) answer exactly as in-process."""
    rules = ClassicalRuleset(hands=3, options=GameOptions(Flowers=False))
    procs = [bot_proc("greedy"), bot_proc("drawdiscard"), bot_proc("greedy", name="g2"), bot_proc("drawdiscard",
                                                                                                   name="d2")]
    builtins = [BotSpec(name="greedy", builtin="greedy"), BotSpec(name="drawdiscard", builtin="drawdiscard"),
                BotSpec(name="g2", builtin="greedy"), BotSpec(name="d2", builtin="drawdiscard")]
    a = play_match(procs, seed=4, rules=rules, log_path=tmp_path / "p.jsonl", stderr_dir=tmp_path)
    b = play_match(builtins, seed=4, rules=rules, log_path=tmp_path / "b.jsonl")
    assert not a.faults, a.faults
    assert a.totals == b.totals

    def answers(p: Path) -> list[tuple[int, str]]:
        return [(r["seat"], r["answer"]) for r in map(json.loads, p.read_text().splitlines()) if r["type"] == "answer"]

    assert answers(tmp_path / "p.jsonl") == answers(tmp_path / "b.jsonl")
    # refeed: the process bot put back in its seat of the built-ins' log answers every question as logged
    report = run_refeed(tmp_path / "b.jsonl", 1, procs[0])
    assert report.ok and report.questions == report.matched > 0, report.mismatch
    init = [json.loads(x) for x in (tmp_path / "p.jsonl").read_text().splitlines()]
    dealt = [e for e in init if e.get("kind") == "init_card" and e["hand"] == 0]
    assert sorted(len(e["tiles"]) for e in dealt) == [13, 13, 13, 14]


def test_a_preset_and_set_options_reach_the_match() -> None:
    rules = playable_rules("dmjl", ["LosersSettle=false", "hands=5"])
    assert isinstance(rules, ClassicalRuleset)
    assert rules.options.ScoreLimit == 500 and rules.options.LosersSettle is False and rules.hands == 5


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def test_mjref_match_plays_classical_and_play_refuses_a_bad_option_in_one_line(tmp_path: Path) -> None:
    r = run_cli("match", "greedy", "--rules", "xmj", "--hands", "2", "--seed", "3", "--json", "--log",
                str(tmp_path / "m.jsonl"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert len(out["hands"]) == 2
    r = run_cli("play", "--rules", "classical", "--set", "NoSuchOption=1", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "unknown classical option 'NoSuchOption'" in r.stderr

"""``mjref check --rules classical``: the conformance suite deals its situations in 13-tile hands (Chinese Classical),
to a built-in bot and to a process bot; a bot that breaks a situation fails it there too; a bad ruleset is one line."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import pytest

from referee import cli
from referee.conformance import ORDER, run_check
from referee.match import resolve_bots
from referee.rulesets import playable_rules

ROOT = Path(__file__).resolve().parents[2]
CHECKBOTS = ROOT / "tests" / "bots" / "checkbots"


@pytest.fixture(autouse=True)
def _stderr_files_in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


@pytest.mark.parametrize(("rules", "options", "family"), [
    ("classical", [], "classical"),  # mj-server's flowers and seasons, replaced from the live wall
    ("dmjl", ["FlowersLoose=true", "DeadWall16=true"], "classical"),
    ("classical", ["Flowers=false"], "classical"),
    ("taiwan16", ["flowers=true"], "taiwan16"),  # a flowered wall: the deals are those the scenarios were made for
])
def test_greedy_reaches_every_situation_under_each_family(rules: str, options: list[str], family: str) -> None:
    report = run_check(resolve_bots(["greedy"])[0], rules=playable_rules(rules, options))
    assert report.ok and report.family == family, [(r.name, r.note) for r in report.results if not r.passed]
    assert [r.name for r in report.results] == list(ORDER)
    for r in report.results:
        if r.name not in ("start_silent", "exit_after_exit", "pass"):
            assert r.reached and r.received, (r.name, r.note)
    answers = {r.name: r.received for r in report.results}
    assert answers["hu_robbed_gong"] == "/hu" and answers["gong_promoted"] == "/gong 1 453"


def test_a_process_bot_is_dealt_13_tiles_and_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The recorder (drawdiscard over the protocol) writes every line it reads to its stderr, which --stderr keeps:
    every /initCard it was sent holds a classical deal (13 tiles, the dealer's 14), none a Taiwan one."""
    lines = tmp_path / "bot.stderr"
    code = cli.main(["check", f"{sys.executable} {CHECKBOTS / 'recorder.py'} -", "--rules", "xmj",
                     "--set", "SevenPairs=true", "--stderr", str(lines), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["ok"] and data["kind"] == "process" and data["family"] == "classical", data
    assert data["scenarios"][0]["note"].startswith("no output before the first question")
    deals = [len(x.split()) - 2 for x in lines.read_text().splitlines() if x.startswith("<  /initCard")]
    assert len(deals) >= 10 and set(deals) <= {13, 14} and 13 in deals, deals
    code = cli.main(["check", f"{sys.executable} {CHECKBOTS / 'recorder.py'} -", "--only", "throw_after_mo",
                     "--stderr", str(tmp_path / "taiwan.stderr"), "--json"])  # the default: Taiwan's 16 tiles
    assert code == 0 and json.loads(capsys.readouterr().out)["family"] == "taiwan16"
    taiwan = [len(x.split()) - 2 for x in (tmp_path / "taiwan.stderr").read_text().splitlines()
              if x.startswith("<  /initCard")]
    assert set(taiwan) <= {16, 17} and taiwan, taiwan


@pytest.mark.parametrize(("mode", "scenario"), [("eat_wrong", "eat_two"), ("pong_as_eat", "pong"),
                                                ("gong_promoted_mode0", "gong_promoted"),
                                                ("hu_robbed_throw", "hu_robbed_gong")])
def test_a_bot_that_breaks_a_situation_fails_it_under_classical(mode: str, scenario: str,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["check", f"{sys.executable} {CHECKBOTS / 'checkbot.py'} {mode}", "--rules", "classical",
                     "--only", scenario, "--timeout", "5", "--start-grace", "5"])
    out = capsys.readouterr().out
    words = " ".join(out.split())  # rich wraps the heading at the terminal's width, which depends on the path
    assert code == 1, out
    assert f"1 of 1 scenarios failed: {scenario}" in words
    assert "classical rules" in words


def test_a_bad_ruleset_is_one_line_before_any_bot_starts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    started = tmp_path / "started"
    bot = f"{sys.executable} -c \"open('{started}', 'w')\""
    for argv, words in ((["--rules", "nosuch"], "not a rule family"),
                        (["--rules", "classical", "--set", "ScoreLimit=-1"], "ScoreLimit"),
                        (["--rules", "dmjl", "--set", "NoSuch=1"], "unknown classical option 'NoSuch'")):
        assert cli.main(["check", bot, *argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err and err.startswith("mjref check: "), err
    assert not started.exists()

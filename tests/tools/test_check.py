"""``mjref check``: every built-in bot passes the conformance suite; bots that break one situation fail it, by name."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from referee import cli
from referee.conformance import ORDER, run_check
from referee.match import resolve_bots
from wrappers.spec import BotSpec

ROOT = Path(__file__).resolve().parents[2]
CHECKBOT = ROOT / "tests" / "bots" / "checkbots" / "checkbot.py"


@pytest.fixture(autouse=True)
def _stderr_files_in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failing bot's stderr file is kept for its author; here it goes to the test's own folder."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def run_cmd(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("bot", ["greedy", "random", "drawdiscard", "greedy:chowness=0.9,hiddenness=0.1"])
def test_builtin_bots_pass_in_process(bot: str) -> None:
    report = run_check(resolve_bots([bot])[0])
    assert report.ok, [(r.name, r.note) for r in report.results if not r.passed]
    assert [r.name for r in report.results] == list(ORDER)


@pytest.mark.parametrize("module", ["greedy", "random", "drawdiscard"])
def test_builtin_bots_pass_as_processes(module: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cmd([f"{sys.executable} -m bots.{module}", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["ok"], [s for s in data["scenarios"] if s["status"] == "fail"]
    assert data["kind"] == "process"
    notes = {s["name"]: s["note"] for s in data["scenarios"]}
    assert notes["start_silent"].startswith("no output before the first question")
    assert notes["exit_after_exit"].startswith("exited by itself")


def test_greedy_reaches_every_situation() -> None:
    """The crafted hands lead a bot that claims when it helps into every situation (none is 'not reached')."""
    report = run_check(resolve_bots(["greedy"])[0])
    for r in report.results:
        if r.name not in ("start_silent", "exit_after_exit", "pass"):
            assert r.reached and r.received, (r.name, r.note)
    answers = {r.name: r.received for r in report.results}
    assert answers["gong_promoted"] == "/gong 1 453"
    assert answers["hu_robbed_gong"] == "/hu"
    assert answers["eat_three"] is not None and answers["eat_three"].startswith("/eat ")


def test_declining_a_claim_passes_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cmd(["drawdiscard", "--only", "eat_two", "--only", "throw_after_eat", "--json"], capsys)
    data = json.loads(out)
    assert code == 0
    by = {s["name"]: s for s in data["scenarios"]}
    assert by["eat_two"]["received"] == "/pass" and "declined" in by["eat_two"]["note"]
    assert by["throw_after_eat"]["reached"] is False
    assert "the bot passed on /ask eat" in by["throw_after_eat"]["note"]
    code, out, _ = run_cmd(["drawdiscard", "--only", "eat_two", "--only", "throw_after_eat"], capsys)
    assert code == 0
    summary = " ".join(out.split())  # the table's terminal width folds lines
    # a scenario never reached is no failure, but it is not shown as a PASS either: it was not tested
    assert "1 of 2 scenarios passed, 1 not reached" in summary, out
    assert "not reached, so not tested: throw_after_eat)" in summary, out
    assert "NOT REACHED │ throw_after_eat" in summary and "PASS │ throw_after_eat" not in summary, out


# Each mode of the check bot breaks the situation of one scenario.
BROKEN = [
    ("chatty_start", "start_silent"),
    ("no_exit", "exit_after_exit"),
    ("pass_throw_after_mo", "throw_after_mo"),
    ("bad_throw_after_eat", "throw_after_eat"),
    ("bad_throw_after_pong", "throw_after_pong"),
    ("eat_wrong", "eat_two"),
    ("eat3_crash", "eat_three"),
    ("pong_as_eat", "pong"),
    ("gong_melded_wrong", "gong_melded"),
    ("gong_concealed_mode1", "gong_concealed"),
    ("gong_promoted_mode0", "gong_promoted"),
    ("hu_self_slow", "hu_self_draw"),
    ("hu_throw_args", "hu_throw"),
    ("hu_robbed_throw", "hu_robbed_gong"),
]


@pytest.mark.parametrize(("mode", "scenario"), BROKEN)
def test_a_bot_that_breaks_a_situation_fails_that_scenario(mode: str, scenario: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cmd([f"{sys.executable} {CHECKBOT} {mode}", "--only", scenario, "--timeout", "1",
                            "--start-grace", "1"], capsys)
    assert code == 1, out
    assert f"1 of 1 scenarios failed: {scenario}" in out
    assert "FAIL" in out


def test_the_same_bot_passes_where_it_behaves() -> None:
    """The eat-breaking bot still passes the situations without an eat."""
    spec = BotSpec(name="checkbot", cmd=(sys.executable, str(CHECKBOT), "eat3_crash"), cwd=str(ROOT))
    report = run_check(spec, only=["eat_two", "eat_three", "pong", "hu_throw"])
    assert report.failed == ["eat_three"]
    failed = next(r for r in report.results if r.name == "eat_three")
    assert failed.expected.startswith("one of /eat ")
    assert "crash" in failed.note or "closed" in failed.note


def test_failure_shows_the_expected_form_and_the_line_received(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cmd([f"{sys.executable} {CHECKBOT} pong_as_eat", "--only", "pong", "--json"], capsys)
    data = json.loads(out)
    s = data["scenarios"][0]
    assert code == 1 and s["status"] == "fail"
    assert s["expected"] == "one of /pong 451 452, /pass"
    assert s["received"].startswith("/eat ")
    assert "wrong_answer" in s["note"]


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cmd(["greedy", "--only", "no_such"], capsys)
    assert code == 2 and "unknown scenario 'no_such'" in err
    code, _, err = run_cmd(["nosuchbot"], capsys)
    assert code == 2 and err.startswith("mjref check: ")
    code, _, err = run_cmd(["greedy", "--timeout", "0"], capsys)
    assert code == 2
    code, out, _ = run_cmd(["greedy", "--list"], capsys)
    assert code == 0 and all(name in out for name in ORDER)


def test_the_command_lines_timeout_wins_over_the_bot_files(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """A bot file saying ``timeout = 5`` and ``--timeout 2``: the bot has 2 s, as in ``mjref match``."""
    badbot = ROOT / "tests" / "bots" / "badbot.py"
    toml = tmp_path / "slow.toml"
    toml.write_text(f'name = "slow"\ncmd = [{json.dumps(sys.executable)}, {json.dumps(str(badbot))}, "slow"]\n'
                    f'cwd = {json.dumps(str(ROOT))}\ntimeout = 5\n[env]\nBADBOT_DELAY = "3"\n')
    code, out, _ = run_cmd([str(toml), "--timeout", "2", "--start-grace", "0", "--only", "throw_after_mo",
                            "--json"], capsys)
    data = json.loads(out)
    assert code == 1 and "within 2 s" in json.dumps(data), data


BADBOT = ROOT / "tests" / "bots" / "badbot.py"


def test_a_crashing_bot_shows_its_stderr_once_and_where_it_is(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A bot that dies at start: every row fails, its stderr's last lines and the file's place come once."""
    code, out, _ = run_cmd([f"{sys.executable} {BADBOT} crash_start", "--timeout", "1", "--start-grace", "1"], capsys)
    assert code == 1
    assert out.count("the bot's stderr") == 1
    path = Path(out.split("lines of ", 1)[1].split("):", 1)[0].replace("\n", ""))
    assert path.is_file() and "badbot crash_start: started" in path.read_text()
    assert path.parent == tmp_path and path.name.startswith("mjref-check-")
    assert "│ badbot crash_start: started" in out


def test_failed_rows_show_the_scenarios_expected_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stderr = tmp_path / "bot.stderr"
    code, out, _ = run_cmd([f"{sys.executable} {BADBOT} crash_start", "--timeout", "1", "--start-grace", "1",
                            "--stderr", str(stderr), "--json"], capsys)
    data = json.loads(out)
    by = {s["name"]: s for s in data["scenarios"]}
    assert code == 1
    # the bot died at its first question of each hand (a /ask throw, a /ask pong): the rows still say what each
    # scenario wanted, and the exact legal answers only where it died at the situation itself
    assert by["hu_robbed_gong"]["expected"] == "/hu or /pass"
    assert "/ask throw" in by["hu_robbed_gong"]["note"]
    assert by["throw_after_pong"]["expected"] == "/throw <a tile it holds>"
    assert "/ask pong" in by["throw_after_pong"]["note"]
    assert by["pong"]["expected"] == "one of /pong 451 452, /pass"
    assert data["stderr_path"] == str(stderr) and "badbot crash_start: started" in data["stderr_tail"]


def test_a_timeout_suggests_more_time(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cmd([f"{sys.executable} {CHECKBOT} hu_self_slow", "--only", "hu_self_draw", "--timeout", "1",
                            "--start-grace", "1"], capsys)
    assert code == 1
    assert "1 timed out at 1 s per question" in out and "--timeout SECONDS" in out
    code, out, _ = run_cmd([f"{sys.executable} {CHECKBOT} hu_self_slow", "--only", "hu_self_draw", "--timeout", "1",
                            "--start-grace", "1", "--json"], capsys)
    s = json.loads(out)["scenarios"][0]
    assert s["expected"] == "one of /hu, /pass"  # it failed at the situation itself: the exact legal answers


def test_a_quiet_bot_leaves_no_stderr_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cmd([f"{sys.executable} -m bots.greedy", "--only", "throw_after_mo", "--json"], capsys)
    assert code == 0 and json.loads(out)["stderr_path"] is None


def test_a_stopped_check_leaves_no_temporary_file(tmp_path: Path) -> None:
    """Ctrl-C during a check: the bot's empty stderr file in the temporary folder goes too (it stayed behind)."""
    bot = f"{sys.executable} -c 'import time; time.sleep(60)'"
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "check", bot], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "TMPDIR": str(tmp_path)})
    deadline = time.monotonic() + 30
    while not list(tmp_path.glob("mjref-check-*.stderr")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(tmp_path.glob("mjref-check-*.stderr")), "the check made its file"
    time.sleep(0.5)  # the bot is running: the check waits for its first answer
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode != 0 and b"Traceback" not in err, err
    assert list(tmp_path.glob("mjref-check-*")) == []


@pytest.mark.parametrize("after", ["exit 0", "exec 0<&-; sleep 3; exit 0", "exit 255"],
                         ids=["exits", "closes-stdin", "exits-255"])
def test_a_bot_that_ends_right_after_its_first_answer_gets_a_report(after: str, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The throw's broadcast and ``/exit`` find the pipe to the bot broken: the suite goes on and says what the bot
    did (it raised out of ``mjref check``, and out of a league checking a submission, before)."""
    bot = tmp_path / "bot.sh"
    bot.write_text('#!/bin/sh\nwhile read -r cmd a rest; do\n  case "$cmd" in\n    /initCard) t=$a ;;\n'
                   f'    /ask) echo "/throw $t"; {after} ;;\n  esac\ndone\n', encoding="ascii")
    bot.chmod(0o755)
    code, out, err = run_cmd([str(bot), "--only", "start_silent", "--only", "exit_after_exit", "--json"], capsys)
    assert "Traceback" not in out + err and code in (0, 1), (code, out, err)
    scenarios = {s["name"]: s for s in json.loads(out)["scenarios"]}
    assert scenarios["start_silent"]["status"] == "pass", scenarios
    assert set(scenarios) == {"start_silent", "exit_after_exit"}

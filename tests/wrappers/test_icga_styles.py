"""Bots written the way the ICGA framework's users wrote them, each habit refereed as the framework did, or refused
with a reason that says what the bot's author must change (docs/protocol.md, "The channel" and "Faults").

The bots: ``tests/bots/icgabot.c`` (C, one habit per mode), ``tests/bots/cinbot.cpp`` (C++ reading tokens) and
``tests/bots/JavaBot.java``, compiled here into the test's folder (a test is skipped only where its compiler, cc,
c++ or javac, is missing), and ``tests/bots/pystyle.py`` (Python's print without flush).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from toolchains import tool

from referee.conformance import run_check
from referee.game.taiwan16.rules import make_ruleset
from referee.match import MatchResult, play_match, resolve_bots
from wrappers.codec import DEBUG_TO_STDERR, ONE_LINE
from wrappers.process import UNFLUSHED
from wrappers.sandbox import SCRATCH_CWD
from wrappers.spec import BotSpec

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "tests" / "bots"


@pytest.fixture(scope="module")
def icgabot(cbot: Path) -> Path:
    """tests/bots/icgabot.c, compiled once per test process (the ``cbot`` fixture): each test gives its mode."""
    return cbot


@pytest.fixture(scope="module")
def cinbot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    exe = tmp_path_factory.mktemp("cinbot") / "cinbot"
    subprocess.run([tool("c++", "g++"), "-O2", "-Wall", "-o", str(exe), str(BOTS / "cinbot.cpp")], check=True)
    return exe


@pytest.fixture(scope="module")
def javabot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of the compiled JavaBot.class (a class path)."""
    out = tmp_path_factory.mktemp("javabot")
    subprocess.run([tool("javac"), "-d", str(out), str(BOTS / "JavaBot.java")], check=True)
    tool("java")
    return out


def _play(bot: str, tmp_path: Path, *, hands: int = 2, **rules: float) -> MatchResult:
    """``bot`` (a command line) in seat 1 against three built-in ``drawdiscard`` bots."""
    specs = resolve_bots([bot, "drawdiscard", "drawdiscard", "drawdiscard"])
    return play_match(specs, seed=5, rules=make_ruleset({"hands": hands, **rules}), log_path=tmp_path / "m.jsonl",
                      stderr_dir=tmp_path / "stderr")


def _answers(tmp_path: Path) -> list[dict]:
    return [r for r in map(json.loads, (tmp_path / "m.jsonl").read_text().splitlines()) if r["type"] == "answer"]


@pytest.mark.parametrize("mode", ["flush", "unbuf", "crlf", "blanks", "stderr", "nostart", "stay", "status"])
def test_habits_the_framework_took_are_taken(mode: str, icgabot: Path, tmp_path: Path) -> None:
    """Flushing or an unbuffered stdout, \\r\\n, blanks and tabs, a flood of stderr, ignoring /start, waiting for the
    end of input instead of exiting at /exit, a non-zero status at /exit: no fault, hand after hand."""
    result = _play(f"{icgabot} {mode}", tmp_path)
    assert not result.faults, result.faults
    assert result.seats[0].answers > 10


def test_a_python_bot_reading_with_input_needs_no_flush(tmp_path: Path) -> None:
    """input() flushes stdout before it reads: print() alone gets the answers out."""
    result = _play(f"{sys.executable} {BOTS / 'pystyle.py'} input", tmp_path)
    assert not result.faults, result.faults


def test_a_python_bot_reading_stdin_as_a_file_is_told_to_flush(tmp_path: Path) -> None:
    result = _play(f"{sys.executable} {BOTS / 'pystyle.py'} loop", tmp_path, hands=1, move_timeout=0.5,
                   start_grace=2)
    fault = result.faults[0]
    assert fault.kind == "timeout" and fault.detail.endswith(UNFLUSHED), fault
    assert "print(..., flush=True)" in UNFLUSHED


def test_a_bot_that_answered_before_is_not_told_to_flush(tmp_path: Path) -> None:
    """The flush hint is for a bot that never wrote a line in the match: one that played hand 1 and stalls at the
    first question of the second hand (hand 1, a new process) flushes, and its fault must not say otherwise."""
    result = _play(f"{sys.executable} {BOTS / 'pystyle.py'} stall2", tmp_path, move_timeout=0.5, start_grace=0.5)
    fault = result.faults[0]
    assert fault.kind == "timeout" and fault.hand == 1 and UNFLUSHED not in fault.detail, fault


def test_a_slow_start_is_covered_by_the_start_grace(icgabot: Path, tmp_path: Path) -> None:
    """2 s to start, every hand (a process per hand), with 1 s per question: the start grace (docs/protocol.md,
    Timing; 10 s by default) covers the first question of each process."""
    result = _play(f"{icgabot} slow", tmp_path, move_timeout=1, start_grace=3)
    assert not result.faults, result.faults
    first = [r for r in _answers(tmp_path) if r["seat"] == 1][0]
    assert first["ms"] > 1900, first


def test_a_token_reading_cpp_bot_passes_the_check(cinbot: Path) -> None:
    report = run_check(BotSpec(name="cinbot", cmd=(str(cinbot),)))
    assert not report.failed, [r for r in report.results if not r.passed]


def test_a_bot_that_never_flushes_is_told_to_flush(icgabot: Path, tmp_path: Path) -> None:
    """Its answers sit in its stdout buffer: a timeout, as in the framework, whose reason says to flush."""
    result = _play(f"{icgabot} nobuf", tmp_path, hands=1, move_timeout=0.3, start_grace=0.3)
    fault = result.faults[0]
    assert fault.kind == "timeout" and fault.detail.endswith(UNFLUSHED), fault
    assert "fflush(stdout)" in UNFLUSHED


@pytest.mark.parametrize(("mode", "line"), [("banner", "icgabot 1.0 ready"), ("debug", "debug: 17 tiles in hand")])
def test_other_output_on_stdout_is_a_fault_that_says_use_stderr(mode: str, line: str, icgabot: Path,
                                                                tmp_path: Path) -> None:
    """docs/protocol.md: a bot's stdout carries its answers only.  The fault names the line and where it belongs."""
    result = _play(f"{icgabot} {mode}", tmp_path, hands=1)
    fault = result.faults[0]
    assert fault.kind in ("garbage", "unasked") and fault.line == line, fault
    assert fault.detail.endswith(DEBUG_TO_STDERR), fault


def test_an_empty_line_after_an_answer_is_a_fault_that_says_so(icgabot: Path, tmp_path: Path) -> None:
    """One line per question (docs/protocol.md): the empty line is found at the next question, and named."""
    result = _play(f"{icgabot} empty", tmp_path, hands=1)
    fault = result.faults[0]
    assert fault.kind == "unasked" and fault.detail.startswith("an empty line nobody asked for"), fault
    assert fault.detail.endswith(ONE_LINE), fault


def test_a_tile_with_leading_zeros_is_refused_saying_how_to_write_it(icgabot: Path, tmp_path: Path) -> None:
    result = _play(f"{icgabot} zeros", tmp_path, hands=1)
    fault = result.faults[0]
    assert fault.kind == "garbage" and fault.line is not None and fault.line.startswith("/throw 0"), fault
    assert f"(write {int(fault.line.split()[1])}: a TID has no sign, leading zeros" in fault.detail, fault


def test_a_bot_that_reads_its_files_from_its_working_folder_is_told_about_cwd(icgabot: Path,
                                                                              tmp_path: Path) -> None:
    """A bot runs in a private scratch folder unless its TOML file names cwd (docs/security.md); one that opens its
    table by a relative path dies at its start, and the fault says why that may be.  With cwd it plays."""
    result = _play(f"{icgabot} table", tmp_path, hands=1)
    fault = result.faults[0]
    assert fault.kind == "crash" and "exited with status 2" in fault.detail, fault
    assert fault.detail.endswith(f"({SCRATCH_CWD})"), fault
    (icgabot.parent / "icgabot.dat").write_text("a table\n")
    toml = tmp_path / "icgabot.toml"
    toml.write_text(f'cmd = ["{icgabot}", "table"]\ncwd = "{icgabot.parent}"\n')
    assert not _play(str(toml), tmp_path / "with-cwd", hands=1).faults


def test_check_accepts_a_bot_that_exits_at_the_end_of_its_input(icgabot: Path) -> None:
    """A match closes a bot's input right after /exit, so a bot that exits there plays the same (docs/protocol.md):
    check said it failed, and told it to set keep_alive."""
    report = run_check(BotSpec(name="stay", cmd=(str(icgabot), "stay")), only=["exit_after_exit"])
    (row,) = (r for r in report.results if r.name == "exit_after_exit")
    assert row.passed and "end of its input" in row.note, row


def test_check_fails_a_bot_that_outlives_exit_and_its_input() -> None:
    report = run_check(BotSpec(name="immortal", cmd=(sys.executable, str(BOTS / "pystyle.py"), "immortal")),
                       only=["exit_after_exit"])
    (row,) = (r for r in report.results if r.name == "exit_after_exit")
    assert not row.passed and "after its input ended" in row.note, row


def test_check_tells_a_bot_with_a_banner_where_it_belongs(icgabot: Path) -> None:
    report = run_check(BotSpec(name="banner", cmd=(str(icgabot), "banner")), only=["start_silent"])
    (row,) = (r for r in report.results if r.name == "start_silent")
    assert not row.passed and row.received == "icgabot 1.0 ready", row
    assert row.note.endswith(DEBUG_TO_STDERR), row.note


def test_check_names_a_timeout_at_the_first_question_once(icgabot: Path) -> None:
    report = run_check(BotSpec(name="nobuf", cmd=(str(icgabot), "nobuf")), only=["start_silent"], timeout=0.3,
                       start_grace=0.3)
    (row,) = (r for r in report.results if r.name == "start_silent")
    assert row.note.startswith("timeout: no answer to /ask throw within 0.6 s; " + UNFLUSHED), row.note


def test_a_default_jvm_fault_names_the_memory_limit_and_what_to_change(javabot: Path, tmp_path: Path) -> None:
    """A default JVM cannot reserve its address space under the default memory limit; it says so on stdout and
    exits.  The fault says that, and the flag (or memory_mb) that lets it start."""
    result = _play(f"java -cp {javabot} JavaBot", tmp_path, hands=1)
    fault = result.faults[0]
    assert fault.kind == "garbage" and "then the bot exited with status 1: memory limit 2048 MB" in fault.detail, fault
    assert "-XX:CompressedClassSpaceSize=64m" in fault.detail and "memory_mb" in fault.detail, fault


def test_a_jvm_with_a_small_class_space_plays_within_the_start_grace(javabot: Path, tmp_path: Path) -> None:
    result = _play(f"java -XX:CompressedClassSpaceSize=64m -cp {javabot} JavaBot", tmp_path, hands=1)
    assert not result.faults, result.faults

"""A bot written the way the ICGA framework's bots were (C, stdin/stdout, flush, exit on /exit) runs unchanged.

The ``cbot`` fixture (tests/conftest.py) compiles tests/bots/icgabot.c (run without a mode, it plays as the
framework's dummy), and skips where there is no C compiler."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.cli import main
from referee.game.taiwan16.rules import make_ruleset
from referee.match import play_match, resolve_bots


def test_a_c_bot_passes_the_conformance_check(cbot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(cbot)]) == 0
    out = capsys.readouterr().out
    # A scenario the bot's own choices never lead to (it never claims) passes untested, and the summary says so.
    assert "all 15 scenarios passed" in out or " of 15 scenarios passed" in out and "failed" not in out, out


def test_a_c_bot_plays_a_match_without_a_fault(cbot: Path, tmp_path: Path) -> None:
    specs = resolve_bots([str(cbot), "greedy", str(cbot), "random"])
    result = play_match(specs, seed=21, rules=make_ruleset({"hands": 8}), log_path=tmp_path / "m.jsonl")
    assert len(result.hands) == 8 and not result.faults, result.faults
    assert all(sum(h.result.scores) == 0 for h in result.hands)
    assert result.seats[0].answers > 50
    assert main(["replay", str(tmp_path / "m.jsonl")]) == 0

"""Hostile command-line arguments found by a second fuzzing pass: each is refused in one line naming the argument,
exit status 2, never a traceback (the helpers are ``test_fuzz_inputs``')."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_fuzz_inputs import ROOT, mjref, one_line

HUGE = "9" * 5000  # more digits than Python converts to an integer (a ValueError of its own, not a JSONDecodeError)
DEEP = "[" * 50_000  # JSON nested past Python's stack (a RecursionError)
BOT_TOML = 'name = "c"\ncmd = ["python3", "-c", "pass"]\n'

VALUE_CASES = [
    (["match", "--set", f"hands={HUGE}", "--log", "none"], "--set hands: a number of more than 4300 digits"),
    (["match", "--set", f"tai.dealer={HUGE}", "--log", "none"], "--set tai.dealer: a number of more"),
    (["match", "--set", f"hands={DEEP}", "--log", "none"], "--set hands: nested more than"),
    (["match", "--rules", "classical", "--set", f"ScoreLimit={HUGE}", "--log", "none"], "--set ScoreLimit: a number"),
    (["match", "--rules", "classical", "--set", f"ScoreLimit={DEEP}", "--log", "none"], "--set ScoreLimit: nested"),
    (["score", str(ROOT / "examples" / "score-request.json"), "--set", f"tai.dealer={HUGE}"], "--set tai.dealer"),
    (["tournament", "greedy", "c.toml", "--set", f"hands={HUGE}", "--quiet"], "--set hands: a number"),
    (["tournament", "greedy", "c.toml", "--rules", "classical", "--set", f"ScoreLimit={HUGE}", "--quiet"],
     "--set ScoreLimit: a number"),
    (["tournament", "greedy", "c.toml", "--each", f"timeout={HUGE}", "--quiet"], "--each timeout: a number"),
    (["tournament", "greedy", "c.toml", "--each", f"timeout={DEEP}", "--quiet"], "--each timeout: nested"),
]


@pytest.mark.parametrize(("argv", "word"), VALUE_CASES, ids=[" ".join(a)[:60] for a, _ in VALUE_CASES])
def test_an_option_value_json_cannot_hold_is_one_line(argv: list[str], word: str, tmp_path: Path) -> None:
    """``--set``/``--each`` values are read as JSON where they parse: a number of 5000 digits raised json's
    ValueError of its own and 50,000 brackets a RecursionError, both past the ``except JSONDecodeError``."""
    (tmp_path / "c.toml").write_text(BOT_TOML)
    one_line(mjref(*argv, cwd=tmp_path), word)


def test_an_option_value_that_is_not_json_is_still_text(tmp_path: Path) -> None:
    one_line(mjref("match", "--set", "hands=abc", "--log", "none", cwd=tmp_path), "not 'abc'")

"""``pace``: a turn's question never comes sooner than ``pace`` seconds after the previous turn's answer, so the time
from a bot's throw to its next question no longer counts the claims the others declined (docs/security.md)."""

from __future__ import annotations

import sys
from pathlib import Path

from referee.game.taiwan16.rules import make_ruleset
from referee.match import play_match
from wrappers.spec import BotSpec

BOT = Path(__file__).resolve().parents[1] / "bots" / "timing.py"


def test_a_bots_next_question_after_its_throw_never_comes_sooner_than_the_pace(tmp_path: Path) -> None:
    pace = 0.05
    specs = [BotSpec(name="spy", cmd=(sys.executable, str(BOT), "spy", "0"))]
    specs += [BotSpec(name=f"t{i}", cmd=(sys.executable, str(BOT), "think", "0")) for i in (2, 3, 4)]
    err = tmp_path / "stderr"
    result = play_match(specs, seed=5, rules=make_ruleset({"hands": 1, "pace": pace}), stderr_dir=err)
    assert result.faults == []
    text = next(err.glob("seat1-*.stderr")).read_text()
    gaps = [float(line.split()[1]) for line in text.splitlines() if line.startswith("GAP ") and line.endswith("throw")]
    assert len(gaps) > 5, text
    # The spy stamps its answer just after writing it, the referee just after reading it: a few ms either way.
    assert min(gaps) >= pace - 0.005, sorted(gaps)[:5]


def test_pace_is_a_ruleset_option_with_bounds() -> None:
    assert make_ruleset({}).pace == 0
    for bad in (-1, 61, "0.1"):
        try:
            make_ruleset({"pace": bad})
        except Exception as exc:  # noqa: BLE001 - the ruleset's own error type
            assert "pace" in str(exc)
        else:
            raise AssertionError(f"pace = {bad!r} was taken")

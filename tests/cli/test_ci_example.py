"""The example CI workflow (docs/ci-regression.yml) handles every exit status ``mjref regress`` can give.

The workflow is documentation a bot author copies; these checks keep its shell ``case`` in step with
``tournaments.regress.EXIT_STATUS`` (a new verdict or status must be handled there too) and with the options it
passes (each must be one ``mjref regress`` accepts).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from referee.cli import build_parser
from tournaments.regress import EXIT_STATUS

WORKFLOW = Path(__file__).resolve().parents[2] / "docs" / "ci-regression.yml"


def _regress_step() -> str:
    text = WORKFLOW.read_text()
    start = text.index("mjref regress \\")
    return text[start:text.index("esac", start)]


def test_every_exit_status_has_a_branch() -> None:
    step = _regress_step()
    branches = {int(x) for x in re.findall(r"^\s+(\d+)\)", step, flags=re.M)}
    assert set(EXIT_STATUS.values()) | {2} <= branches, branches
    assert re.search(r"^\s+\*\)", step, flags=re.M), "signals (128 + n) need the catch-all branch"
    # a regression fails the job; an inconclusive run fails it only when asked to
    assert re.search(r"1\)[^;]*::error::.*\n\s+exit 1", step)
    assert 'if [ "$REGRESS_INCONCLUSIVE" = fail ]' in step


def test_the_workflow_passes_only_options_mjref_regress_accepts() -> None:
    step = _regress_step()
    options = re.findall(r"(--[a-z-]+)", step.split("status=$?")[0])
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    known = {opt for action in sub.choices["regress"]._actions for opt in action.option_strings}
    assert options and set(options) <= known, set(options) - known

"""Where bubblewrap cannot run: mode ``auto`` plays on unsandboxed with one warning line that names why and what is
not protected, and ``--sandbox bwrap`` refuses with one line (exit 2) before any match starts.

bwrap is made unrunnable by pointing the sandbox's lookup of it at a path that does not exist, so the real probe
(``bwrap_problem``) runs and fails as it would on a machine without a working bwrap.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
from processes import unprivileged_bot

from referee.cli import main as mjref
from wrappers import sandbox

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[str]:
    """bwrap looked up at a missing path; a fresh probe and a fresh set of warnings.  Yields the missing path."""
    missing = str(tmp_path / "no-such-dir" / "bwrap")
    real = sandbox._which

    def which(name: str) -> str | None:
        return missing if name == "bwrap" else real(name)

    monkeypatch.setattr(sandbox, "_which", which)
    monkeypatch.setattr(sandbox, "_warned", set())
    monkeypatch.setenv(sandbox.MODE_ENV, "auto")  # --sandbox sets it for the run; restored after the test
    sandbox.bwrap_problem.cache_clear()
    yield missing
    sandbox.bwrap_problem.cache_clear()  # the next test probes the real bwrap again


def process_bots(cbot_or_none: Path | None) -> list[str]:
    """Two process bots (the C bot starts fastest), so a warning printed per bot would show twice."""
    one = str(cbot_or_none) if cbot_or_none is not None else shlex.join(unprivileged_bot("drawdiscard"))
    return [one, one]


def test_the_probe_names_the_missing_bwrap(no_bwrap: str) -> None:
    problem = sandbox.bwrap_problem()
    assert problem is not None and problem.startswith("bwrap does not run:") and no_bwrap in problem


def test_auto_falls_back_to_none_with_one_warning(no_bwrap: str, cbot_or_none: Path | None, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "m.jsonl"
    code = mjref(["match", *process_bots(cbot_or_none), "drawdiscard", "drawdiscard", "--hands", "1", "--seed", "3",
                  "--quiet", "--log", str(log)])
    err = capsys.readouterr().err
    assert code == 0, err
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1, err
    assert warnings[0].startswith("mjref: warning: bots run without a sandbox (bwrap does not run:")
    if os.geteuid() == 0:  # never as root: a uid of its own, which reads only what is open to all
        said = ("an unprivileged uid of its own", "every file open to all users", "see the other processes")
    else:
        said = ("read the referee's files", "signal other bots' processes")
    for unprotected in (*said, "fill the disk", "use the network"):
        assert unprotected in warnings[0]
    assert log.exists(), "the match was played"


def test_sandbox_bwrap_is_refused_in_one_line(no_bwrap: str, cbot_or_none: Path | None, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "m.jsonl"
    code = mjref(["match", *process_bots(cbot_or_none), "--hands", "1", "--quiet", "--log", str(log),
                  "--sandbox", "bwrap"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.splitlines()) == 1, err
    assert err.startswith("mjref match: bot ") and "sandbox 'bwrap' asked for, but bwrap does not run:" in err
    assert "Traceback" not in err
    assert not log.exists(), "refused before the match started"


def test_sandbox_none_runs_without_a_warning(no_bwrap: str, cbot_or_none: Path | None,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Asking for no sandbox is a choice, not a fallback: nothing to warn about."""
    code = mjref(["match", *process_bots(cbot_or_none)[:1], "--hands", "1", "--quiet", "--log", "none",
                  "--sandbox", "none"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "warning" not in err

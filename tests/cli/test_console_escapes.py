"""What mjref's console shows is escaped wherever it came from: a tournament file someone else wrote could name its
store ``"\\u001b]0;…\\u0007"`` or ``"\\u001b[2J…"``, and the lines that say where the results are (``N matches
(0 already in STORE)``, ``results in STORE, logs in LOGS``) printed it raw: the file drove the terminal of whoever
ran it.  The console now escapes every string and one-style ``Text`` it shows (``printable``), so no command's
line can carry a control character, whoever wrote its words."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_long_names import tournament_toml

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
STORE = "\\u001b]0;owned\\u0007\\u001b[2Jst\\tore.sqlite"  # as TOML writes it: a title, a clear screen, a tab


@pytest.mark.parametrize("extra", [[], ["--report", "r\x1b[31m.html"]], ids=["lines", "report"])
def test_a_store_named_with_escapes_in_a_tournament_file_never_reaches_the_terminal_raw(
        extra: list[str], tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text(tournament_toml(store=STORE))
    done = subprocess.run([sys.executable, "-m", "referee.cli", "tournament", "t.toml", *extra], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL, env=ENV)
    assert done.returncode == 0, done.stderr
    shown = done.stdout + done.stderr
    assert "results in" in shown, shown
    for raw in ("\x1b", "\x07", "\t"):
        assert raw not in shown, (raw, shown)
    assert "\\x1b]0;owned\\x07\\x1b[2Jst\\tore.sqlite" in shown, shown
    assert (tmp_path / "\x1b]0;owned\x07\x1b[2Jst\tore.sqlite").is_file()  # the file is named as written

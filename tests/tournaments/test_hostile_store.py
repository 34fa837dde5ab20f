"""A crafted results store: a view or a trigger where mjref keeps its tables is refused at once, by every command
that opens a store, with one line and exit status 2 (a ``matches`` view over an endless recursive query once held
``standings`` and ``report`` for ever)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from referee.cli import main

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
TOML = ('name = "t"\nseeds = 1\nhands = 1\nconcurrency = 1\nstore = "t.sqlite"\n'
        + "".join(f'[[bots]]\nname = "{n}"\nbuiltin = "{b}"\n'
                  for n, b in (("g", "greedy"), ("r", "random"), ("d", "drawdiscard"), ("h", "greedy"))))

_ENDLESS = "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) "
_COLUMNS = ("id", "idx", "grp", "seed", "rotation", "seat1", "seat2", "seat3", "seat4", "hands", "total1", "total2",
            "total3", "total4", "log", "log_sha256", "seconds", "finished")
CRAFTS = {
    # every read of matches runs for ever: the recursion never yields a row that passes the WHERE
    "view": ("DROP TABLE matches; CREATE VIEW matches AS " + _ENDLESS + "SELECT "
             + ", ".join(f"x AS {c}" for c in _COLUMNS) + " FROM r WHERE x < 0;", "a view 'matches'"),
    # every write of a match runs for ever
    "trigger": ("CREATE TRIGGER hang AFTER INSERT ON matches BEGIN SELECT count(*) FROM (" + _ENDLESS
                + "SELECT x FROM r WHERE x < 0); END;", "a trigger 'hang'"),
}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real store of a small finished tournament."""
    where = tmp_path_factory.mktemp("store")
    (where / "t.toml").write_text(TOML)
    assert main(["tournament", str(where / "t.toml"), "--quiet"]) == 0
    return where


def _mjref(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # a generous timeout: a hang is a failure of the test, not a number it measures
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], cwd=cwd, env=ENV, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("craft", sorted(CRAFTS))
@pytest.mark.parametrize("command", ["standings", "standings --format json", "standings --recount", "report",
                                     "tournament", "regress"])
def test_a_crafted_store_is_refused_at_once(played: Path, tmp_path: Path, craft: str, command: str) -> None:
    shutil.copytree(played, tmp_path / "t", dirs_exist_ok=True)
    where = tmp_path / "t"
    sql, named = CRAFTS[craft]
    con = sqlite3.connect(where / "t.sqlite")
    con.executescript(sql)
    con.close()
    args = {"tournament": ["tournament", "t.toml", "--quiet"],
            "regress": ["regress", "--candidate", "greedy", "--baseline", "random", "--store", "t.sqlite",
                        "--concurrency", "1"]}.get(command, [*command.split(), "t.sqlite"])
    done = _mjref(where, *args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0] and "t.sqlite" in lines[0], done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_an_unknown_table_is_refused_and_our_own_store_still_opens(played: Path, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(played, tmp_path / "t", dirs_exist_ok=True)
    store = tmp_path / "t" / "t.sqlite"
    assert main(["standings", str(store)]) == 0  # ANALYZE's tables are SQLite's own, not a craft
    con = sqlite3.connect(store)
    con.execute("ANALYZE")
    con.commit()
    con.close()
    assert main(["standings", str(store)]) == 0
    con = sqlite3.connect(store)
    con.execute("CREATE TABLE extra (x)")
    con.commit()
    con.close()
    capsys.readouterr()
    assert main(["standings", str(store)]) == 2
    assert "an unknown table 'extra'" in capsys.readouterr().err

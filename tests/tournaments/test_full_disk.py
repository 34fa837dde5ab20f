"""The disk of the store and the logs fills up mid-tournament (a bot's stderr, other programs, a small volume):
what is recorded stays recorded, nothing is left half-written, and running the same command again, once there is
room, finishes the tournament without any cleaning by hand.

Mounting a small tmpfs needs root: CI runs as root; run by an ordinary user this test has nothing to mount on.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FLOODER = """import runpy, sys
sys.stderr.write("x" * (3 << 20))
sys.stderr.flush()
runpy.run_module("bots.drawdiscard", run_name="__main__")
"""


def _run(toml: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", "tournament", str(toml), "--quiet"], cwd=toml.parent,
                          capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL, check=False)


def _recorded(store: Path) -> int:
    con = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        return con.execute("SELECT count(*) FROM matches").fetchone()[0]
    finally:
        con.close()


@pytest.mark.slow
def test_a_full_disk_loses_nothing_recorded_and_the_resume_finishes(tmp_path: Path) -> None:
    if shutil.which("mount") is None or not Path("/proc/self/status").read_text().count("CapEff:\t000001ff"):
        pytest.skip("mounting a small file system needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1500k", "tmpfs", str(disk)], check=True)
    try:
        bot = tmp_path / "flooder.py"
        bot.write_text(FLOODER)
        toml = disk / "t.toml"
        toml.write_text('name = "full"\nseeds = 6\nhands = 1\nconcurrency = 1\nduplicate = false\n'
                        'store = "t.sqlite"\n[[bots]]\nname = "flood"\n'
                        f'cmd = ["{sys.executable}", "{bot}"]\n'
                        '[[bots]]\nname = "g"\nbuiltin = "greedy"\n[[bots]]\nname = "r"\nbuiltin = "random"\n'
                        '[[bots]]\nname = "d"\nbuiltin = "drawdiscard"\n')
        first = _run(toml)
        assert first.returncode != 0, "the disk filled before the tournament ended"
        assert "Traceback" not in first.stderr and first.stderr.strip().count("\n") <= 2, first.stderr
        assert "No space left" in first.stderr or "no space" in first.stderr.lower(), first.stderr
        done = _recorded(disk / "t.sqlite")
        assert 0 < done < 6
        left = [p.name for p in disk.rglob("*") if p.name.endswith((".part", "-journal", ".tmp"))]
        assert left == [], f"half-written files left behind: {left}"
        subprocess.run(["mount", "-o", "remount,size=64m", str(disk)], check=True)
        second = _run(toml)
        assert second.returncode == 0, second.stderr
        assert _recorded(disk / "t.sqlite") == 6
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


@pytest.mark.slow
def test_a_store_that_cannot_be_created_on_a_full_disk_says_so(tmp_path: Path) -> None:
    """A full disk at the store's creation said 'not an mjref results store, or a damaged one'."""
    if shutil.which("mount") is None or not Path("/proc/self/status").read_text().count("CapEff:\t000001ff"):
        pytest.skip("mounting a small file system needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", str(disk)], check=True)
    try:
        (disk / "filler").write_bytes(b"x" * 4096)
        done = subprocess.run([sys.executable, "-m", "referee.cli", "tournament", "greedy", "random", "--seeds", "1",
                               "--hands", "1", "--store", str(disk / "t.sqlite"), "--quiet"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL, check=False)
        assert done.returncode == 2, done.stderr
        assert "disk is full" in done.stderr and "damaged" not in done.stderr, done.stderr
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)

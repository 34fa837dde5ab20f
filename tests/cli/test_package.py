"""What ``pip install .`` ships: the package data the commands read at run time (the play page's script and style,
which are plain files of ``referee/html``, not Python strings, and the hand analysis's suit tables), checked in a
wheel built from a copy of the tree."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_wheel_ships_the_play_page(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for package in ("referee", "wrappers", "bots", "tournaments"):
        shutil.copytree(ROOT / package, src / package, ignore=shutil.ignore_patterns("__pycache__"))
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                          str(tmp_path / "dist"), str(src)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    (wheel,) = (tmp_path / "dist").glob("mjref-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for asset in ("referee/html/play.js", "referee/html/play.css", "referee/html/play_page.py", "referee/pages.py",
                  "wrappers/human.py", "referee/game/suit_tables.bin", "referee/game/seen_tables.bin"):
        assert asset in names, f"{asset} is not in the wheel"

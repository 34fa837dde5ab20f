"""Fixtures of the box's tests: a bot folder every user may read, and records of what a match opened."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from wrappers import process

BOTS = Path(__file__).resolve().parents[1] / "bots"


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A bot folder every user may read, with the test bots ``notes.py`` and ``stamps.py`` (as root, a closed one
    is copied for the seat's uid: such a bot's box is never kept, and it has one box a match)."""
    folder = Path(tempfile.mkdtemp(prefix="mjref-open-", dir="/tmp"))
    folder.chmod(0o755)
    for name in ("notes.py", "stamps.py"):
        shutil.copy(BOTS / name, folder / name)
        (folder / name).chmod(0o644)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def boxes_opened(monkeypatch: pytest.MonkeyPatch) -> list[process.Box]:
    """Every box ``process.Box.open`` opens from now on, in order."""
    opened: list[process.Box] = []
    real_open = process.Box.open.__func__  # type: ignore[attr-defined]

    async def counting(cls: type[process.Box], launch: object, nursery: trio.Nursery) -> process.Box:
        box = await real_open(cls, launch, nursery)
        opened.append(box)
        return box

    monkeypatch.setattr(process.Box, "open", classmethod(counting))
    return opened


@pytest.fixture
def scratch_made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The seats' scratch folders made from now on (only this test's: others, run beside it, make theirs)."""
    made: list[str] = []
    real_mkdtemp = process.tempfile.mkdtemp

    def mkdtemp(*args: object, **kwargs: object) -> str:
        path = real_mkdtemp(*args, **kwargs)  # type: ignore[arg-type]
        if kwargs.get("prefix") == "mjref-seat-":
            made.append(path)
        return path

    monkeypatch.setattr(process.tempfile, "mkdtemp", mkdtemp)
    return made

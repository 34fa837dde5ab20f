"""Fixtures of the box's tests: records of what a match opened (their bot folder, ``open_folder``, is in
tests/conftest.py: served matches use it too)."""

from __future__ import annotations

import pytest
import trio

from wrappers import process


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

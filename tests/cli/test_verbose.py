"""``-v``: the debug log of every line between the referee and a bot process, off by default."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator

import pytest

from referee.cli import main

BOT = f"{sys.executable} -m bots.greedy"


@pytest.fixture(autouse=True)
def _quiet_logger() -> Iterator[None]:
    log = logging.getLogger("mjref.protocol")
    level, handlers = log.level, list(log.handlers)
    yield
    log.setLevel(level)
    log.handlers[:] = handlers


def test_match_v_logs_every_line_in_and_out(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", BOT, "--hands", "1", "--seed", "3", "--quiet", "--log", "none", "-v"]) == 0
    err = capsys.readouterr().err
    sent = [line for line in err.splitlines() if " seat 1 (bots.greedy) < " in line]
    read = [line for line in err.splitlines() if " seat 1 (bots.greedy) > " in line]
    assert any("< /initGame " in line for line in sent)
    assert any("< /ask throw" in line for line in sent)
    assert read and all(line.split(" > ", 1)[1].startswith("/") for line in read)
    assert "seat 2" not in err  # built-in seats speak no lines


def test_match_without_v_logs_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", BOT, "--hands", "1", "--seed", "3", "--quiet", "--log", "none"]) == 0
    assert "seat 1 (bots.greedy)" not in capsys.readouterr().err

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


def test_a_bots_line_is_escaped_in_the_protocol_log(caplog: pytest.LogCaptureFixture) -> None:
    """A bot's bytes never reach the terminal of whoever debugs it with -v (clear the screen, set the title, write
    the clipboard): its line is logged escaped, whole (a lone \\r or \\x0b does not split it)."""
    from wrappers.process import ProtocolLog

    log = ProtocolLog(2, "evil")
    with caplog.at_level(logging.DEBUG, logger="mjref.protocol"):
        log.append(("w", b"/mo 112\n/ask throw\n"))
        log.append(("r", b"\x1b[2J\x1b]52;c;eA==\x07/throw\r112\x0b"))
    assert [r.getMessage() for r in caplog.records] == [
        "seat 2 (evil) < /mo 112", "seat 2 (evil) < /ask throw",
        "seat 2 (evil) > \\x1b[2J\\x1b]52;c;eA==\\x07/throw\\r112\\x0b"]

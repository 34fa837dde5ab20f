"""One rule for a bot's seconds per question in every command: ``--timeout`` over the bot file's ``timeout`` over
the ruleset's ``move_timeout`` (``wrappers.spec.seat_timeout``), and the seconds each seat had are in the log.

A bot file says ``timeout = 5`` and the command line ``--timeout 2``: ``match``, ``regress`` and ``tournament`` log
2 s for the bot's seat, ``check`` and ``refeed`` report it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from referee.cli import main
from referee.log import open_log

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def bot_file(tmp_path: Path) -> Path:
    toml = tmp_path / "mine.toml"
    toml.write_text(f'name = "mine"\ncmd = [{json.dumps(sys.executable)}, "-m", "bots.greedy"]\n'
                    f"cwd = {json.dumps(str(ROOT))}\ntimeout = 5\n")
    return toml


def seat_timeouts(log: Path, move_timeout: float = 10) -> list[float | None]:
    """Each seat's seconds per question in the log's header.  The header's rules keep the ruleset's own
    ``move_timeout``: ``--timeout`` is a seat's, in every command, never a change of the rules."""
    header = open_log(log).header
    assert header.rules["move_timeout"] == move_timeout
    return [s.timeout for s in header.seats]


def test_match_logs_the_command_lines_timeout(bot_file: Path, tmp_path: Path) -> None:
    log = tmp_path / "m.jsonl"
    assert main(["match", str(bot_file), "--timeout", "2", "--hands", "1", "--seed", "1", "--quiet",
                 "--log", str(log)]) == 0
    assert seat_timeouts(log) == [2, None, None, None]  # built-in seats answer in-process: no deadline
    assert main(["match", str(bot_file), "--hands", "1", "--seed", "1", "--quiet", "--log", str(log),
                 "--force"]) == 0
    assert seat_timeouts(log) == [5, None, None, None]  # without --timeout, the bot file's
    plain = tmp_path / "plain.toml"  # the same bot, its file silent about time
    plain.write_text(bot_file.read_text().replace("timeout = 5\n", ""))
    assert main(["match", str(plain), "--set", "move_timeout=7", "--hands", "1", "--seed", "1", "--quiet",
                 "--log", str(log), "--force"]) == 0
    assert seat_timeouts(log, move_timeout=7) == [7, None, None, None]  # without either, the ruleset's


def test_regress_logs_the_command_lines_timeout(bot_file: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    logs = tmp_path / "logs"
    code = main(["regress", "--candidate", str(bot_file), "--baseline", "greedy", "--timeout", "2", "--hands", "1",
                 "--max-hands", "4", "--store", str(tmp_path / "r.sqlite"), "--logs", str(logs), "--json"])
    assert code in (0, 1, 3), capsys.readouterr().err
    found = sorted(logs.glob("*.jsonl"))
    assert len(found) == 4  # the candidate in each seat of one group
    for log in found:
        timeouts = seat_timeouts(log)
        assert sorted(timeouts, key=str) == [2, None, None, None], (log.name, timeouts)


def test_tournament_takes_and_logs_the_command_lines_timeout(bot_file: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "t.toml"
    config.write_text(f'name = "t"\nseeds = 1\nhands = 1\nduplicate = false\nstore = "t.sqlite"\n'
                      f'[[bots]]\nname = "mine"\ncmd = [{json.dumps(sys.executable)}, "-m", "bots.greedy"]\n'
                      f"cwd = {json.dumps(str(ROOT))}\ntimeout = 5\n"
                      + "".join(f'[[bots]]\nname = "b{i}"\nbuiltin = "greedy"\n' for i in range(3)))
    assert main(["tournament", str(config), "--timeout", "2", "--quiet", "--concurrency", "1"]) == 0
    logs = sorted((tmp_path / "t-logs").glob("*.jsonl"))
    assert logs
    for log in logs:
        assert sorted(seat_timeouts(log), key=str) == [2, None, None, None]
    capsys.readouterr()
    # The store remembers the bots' timeout: resuming with another is refused, naming it.
    assert main(["tournament", str(config), "--quiet"]) == 2
    assert "bots[mine].timeout: 2.0 -> 5.0" in capsys.readouterr().err


def test_check_reports_the_command_lines_timeout(bot_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(bot_file), "--timeout", "2", "--only", "throw_after_mo", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["timeout"] == 2
    assert main(["check", str(bot_file), "--only", "throw_after_mo"]) == 0
    assert "5 s per question" in capsys.readouterr().out


def test_refeed_reports_the_command_lines_timeout(bot_file: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "m.jsonl"
    assert main(["match", str(bot_file), "--timeout", "3", "--hands", "1", "--seed", "1", "--quiet",
                 "--log", str(log)]) == 0
    capsys.readouterr()
    assert main(["refeed", str(log), "--seat", "1", str(bot_file), "--timeout", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["timeout"] == 2
    assert main(["refeed", str(log), "--seat", "1", str(bot_file), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["timeout"] == 5  # the bot file's, over the seat's in the log (3)
    plain = tmp_path / "plain.toml"  # the same bot, its file silent about time
    plain.write_text(bot_file.read_text().replace("timeout = 5\n", ""))
    assert main(["refeed", str(log), "--seat", "1", str(plain)]) == 0
    assert "(3 s per question)" in capsys.readouterr().out  # neither: the seconds the seat had in the match


def test_a_log_of_format_1_reads_each_seats_timeout_as_unknown() -> None:
    """Format 1 had no ``timeout`` in the header's seats: such a log still reads, the seconds unknown (None)."""
    log = open_log(ROOT / "tests" / "data" / "golden-seed7.jsonl")
    assert log.header.format == 1 and [s.timeout for s in log.header.seats] == [None] * 4

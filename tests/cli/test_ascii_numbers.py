"""Numbers are ASCII digits wherever user or bot text becomes one (``referee.numbers``): Python's ``int()`` and
``float()`` read full-width digits (``int("２３") == 23``), underscores and blanks, and none of those is a number
a person or a bot means."""

from __future__ import annotations

from pathlib import Path

import pytest

from bots.base import parse_spec
from referee.errors import InputError
from referee.game.tiles import TileError, parse_tid
from referee.numbers import is_float_text, is_int_text, parse_float, parse_int
from referee.replay import replay_log
from wrappers.codec import ProtocolError, parse_answer, parse_server_line

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "golden-seed7.jsonl"


@pytest.mark.parametrize("text", ["0", "7", "-3", "+12", "0012", str(10**23)])
def test_ascii_whole_numbers(text: str) -> None:
    assert is_int_text(text) and parse_int(text, "--seed") == int(text)


@pytest.mark.parametrize("text", ["２３", "１", "٣", "1_000", " 5", "5 ", "", "-", "1.0", "0x10", "+-1", "1" * 5000])
def test_not_whole_numbers(text: str) -> None:
    assert not is_int_text(text)
    with pytest.raises(InputError, match="--seed: .* is not a whole number"):
        parse_int(text, "--seed")


def test_unsigned_whole_numbers() -> None:
    assert is_int_text("8765", signed=False) and not is_int_text("-1", signed=False)
    assert not is_int_text("+1", signed=False)


@pytest.mark.parametrize("text", ["0", "2.5", "-.5", "5.", "1e3", "1E-3", "+2", "inf", "-Infinity", "nan"])
def test_ascii_numbers(text: str) -> None:
    assert is_float_text(text) and parse_float(text, "--margin") == pytest.approx(float(text), nan_ok=True)


@pytest.mark.parametrize("text", ["０.5", "５", "1_0.5", " 1", "1e", ".", "e3", "1..2", "infinit", "1.0j", ""])
def test_not_numbers(text: str) -> None:
    assert not is_float_text(text)
    with pytest.raises(InputError, match="--margin: "):
        parse_float(text, "--margin")


def test_a_bot_line_with_full_width_digits_is_not_a_tile() -> None:
    assert parse_answer("/throw 110").tiles == (110,)
    for line in ("/throw １１０", "/throw ２３", "/eat １１０ 111", b"/throw \xef\xbc\x91\xef\xbc\x91\xef\xbc\x90"):
        with pytest.raises(ProtocolError, match="non-ASCII"):
            parse_answer(line)


def test_a_server_line_with_full_width_digits_is_refused() -> None:
    with pytest.raises(ProtocolError, match="non-ASCII"):
        parse_server_line("/initGame 1 ３ 0 0 0 0", seat=1)


def test_a_tile_id_is_ascii_digits() -> None:
    assert parse_tid("110") == 110
    for token in ("１１０", "1_10", " 110"):
        with pytest.raises(TileError, match="not a number"):
            parse_tid(token)


def test_bot_parameters_are_ascii_numbers() -> None:
    assert parse_spec("greedy:chowness=0.5")[1] == {"chowness": 0.5}
    for raw in ("０.5", "1_0", "１"):
        with pytest.raises(InputError, match="chowness"):
            parse_spec(f"greedy:chowness={raw}")


def test_a_built_in_bot_executable_reads_ascii_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    from bots.stdio import build_parser

    parser = build_parser("greedy")
    assert parser.parse_args(["--seed", "3", "--chowness", "0.5"]).seed == 3
    for argv in (["--seed", "３"], ["--chowness", "０.5"]):
        with pytest.raises(SystemExit) as exc:
            parser.parse_args(argv)
        assert exc.value.code == 2
        assert "ASCII digits" in capsys.readouterr().err


def test_replay_reads_an_answer_time_of_full_width_digits_as_no_number(tmp_path: Path) -> None:
    # the fast reader of answer records used float() on "ms", and verified such a log
    text = GOLDEN.read_text(encoding="utf-8")
    assert '"ms":2.059' in text
    log = tmp_path / "fw.jsonl"
    log.write_text(text.replace('"ms":2.059', '"ms":２.059', 1), encoding="utf-8")
    assert replay_log(GOLDEN).ok
    report = replay_log(log)
    assert not report.ok and report.divergence is not None and "not JSON" in str(report.divergence)

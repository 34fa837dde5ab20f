"""Seats that speak mj-server's protocol, as bot files and short specs: ``protocol = "xmj"`` with ``cmd``, and
``mj-player:suitness=1,hiddenness=0.5``; every mistake gets one line, and an xmj seat under taiwan16 is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from wrappers.spec import SpecError, check_protocol_family, load_spec_file, parse_bot

BUILTINS = frozenset({"greedy", "random"})


def test_short_spec_runs_mj_player_with_its_knobs() -> None:
    spec = parse_bot("mj-player:suitness=1,hiddenness=0.5", BUILTINS)
    assert spec.protocol == "xmj"
    assert spec.cmd is not None and Path(spec.cmd[0]).name == "mj-player"
    assert spec.cmd[1:] == ("--suitness", "1", "--hiddenness", "0.5")
    assert parse_bot("mj-player", BUILTINS).cmd[1:] == ()  # type: ignore[index]
    assert parse_bot("mj-player:chowness=-0.9", BUILTINS).cmd[1:] == ("--chowness", "-0.9")  # type: ignore[index]


@pytest.mark.parametrize("text,reason", [
    ("mj-player:greed=1", "unknown mj-player knob 'greed' (known: chowness, hiddenness, majorness, suitness)"),
    ("mj-player:suitness", "suitness needs a value"),
    ("mj-player:suitness=lots", "suitness='lots' is not a number"),
    ("mj-player:suitness=1.5", "suitness=1.5 is out of range (0 to 1)"),
    ("mj-player:chowness=-2", "chowness=-2 is out of range (-1 to 1)"),
    ("mj-player:suitness=nan", "suitness=nan is out of range"),
    ("mj-player:suitness=1,suitness=0", "suitness is given twice"),
])
def test_short_spec_mistakes_get_one_line(text: str, reason: str) -> None:
    with pytest.raises(SpecError) as e:
        parse_bot(text, BUILTINS)
    assert reason in str(e.value) and "\n" not in str(e.value)


def test_bot_file_with_protocol_xmj(tmp_path: Path) -> None:
    f = tmp_path / "suity.toml"
    f.write_text('protocol = "xmj"\ncmd = ["mj-player", "--suitness", "1"]\n')
    spec = load_spec_file(f)
    assert spec.protocol == "xmj" and spec.name == "suity" and spec.cmd == ("mj-player", "--suitness", "1")
    assert spec.executable_problem() is None  # found where Debian installs it, on the PATH or not
    assert spec.describe() == "xmj:mj-player --suitness 1"


@pytest.mark.parametrize("body,reason", [
    ('protocol = "xmj"\nbuiltin = "greedy"\n', "give 'cmd'"),
    ('protocol = "xmj"\ncmd = ["mj-player", "--server", "x"]\n', "'cmd' gives --server: mjref gives an xmj client"),
    ('protocol = "xmj"\ncmd = ["mj-player", "--id=2"]\n', "'cmd' gives --id"),
    ('protocol = "xmj"\ncmd = ["mj-player"]\nextensions = ["flower"]\n', "an xmj seat takes none"),
    ('protocol = "telnet"\ncmd = ["mj-player"]\n', "protocol"),
])
def test_bot_file_mistakes_name_the_file(tmp_path: Path, body: str, reason: str) -> None:
    f = tmp_path / "bad.toml"
    f.write_text(body)
    with pytest.raises(SpecError) as e:
        load_spec_file(f)
    assert str(e.value).startswith(str(f)) and reason in str(e.value) and "\n" not in str(e.value)


def test_an_xmj_seat_is_refused_under_taiwan16() -> None:
    spec = parse_bot("mj-player:suitness=1", BUILTINS)
    check_protocol_family(spec, "classical")
    with pytest.raises(SpecError) as e:
        check_protocol_family(spec, "taiwan16")
    assert str(e.value) == ("bot 'mj-player:suitness=1' speaks mj-server's protocol (xmj), which plays Chinese "
                            "Classical only, not taiwan16: use --rules classical (or a classical preset such as xmj)")
    check_protocol_family(parse_bot("greedy", BUILTINS), "taiwan16")  # an ICGA seat plays either

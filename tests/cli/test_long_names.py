"""A name longer than the system takes (a component over 255 bytes, or a path over 4,096) is input like any other:
``pathlib``'s ``exists()``, ``is_dir()`` and ``is_file()`` raise ``OSError`` (ENAMETOOLONG) for it where they
return False for a missing file, and every place that asked them of a name a user wrote (``--rules``,
``--wallfile``, ``replay``'s logs and ``--against``, a bot's command, a tournament file's ``wallfile``) ended in a
traceback.  Each must be one line and exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.cli import main

COMPONENT = "a" * 300  # one name over NAME_MAX
DEEP = "a/" * 2100  # a path over PATH_MAX



def tournament_toml(**fields: str) -> str:
    """A one-hand tournament file of greedy and random with ``fields`` as TOML strings (written as given: a
    ``\\u001b`` stays TOML's escape)."""
    lines = ['name = "x"', "seeds = 1", "hands = 1", *(f'{k} = "{v}"' for k, v in fields.items())]
    return "\n".join([*lines, "[[bots]]", 'name = "g"', 'builtin = "greedy"', "[[bots]]", 'name = "r"',
                      'builtin = "random"', ""])

CASES = [
    ["match", "greedy", "greedy", "greedy", "greedy", "--rules", "{long}"],
    ["match", "greedy", "greedy", "greedy", "greedy", "--wallfile", "{long}"],
    ["check", "greedy", "--rules", "{long}"],
    ["score", "--rules", "{long}", "request.json"],
    ["regress", "--candidate", "./{long}", "--baseline", "greedy"],
    ["check", "./{long}"],
    ["replay", "{long}"],
    ["replay", "{long}.mjs"],
    ["replay", "m.jsonl", "--against", "{long}"],
    ["tournament", "wallfile.toml"],
    ["tournament", "rules.toml"],
]


@pytest.mark.parametrize("long", [COMPONENT, DEEP], ids=["component", "path"])
@pytest.mark.parametrize("argv", CASES, ids=[" ".join(c) for c in CASES])
def test_a_name_too_long_for_the_system_is_one_line_and_exit_2(
        argv: list[str], long: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    for field in ("wallfile", "rules"):
        (tmp_path / f"{field}.toml").write_text(tournament_toml(**{field: long}))
    (tmp_path / "m.jsonl").write_text("")
    (tmp_path / "request.json").write_text("{}")
    args = [a.format(long=long) for a in argv]
    try:
        rc = main(args)
    except SystemExit as exc:  # argparse
        rc = int(exc.code or 0)
    err = capsys.readouterr().err
    assert "Traceback" not in err and "OSError" not in err, err[-500:]
    assert rc == 2, (rc, err[-500:])
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1 and lines[0].startswith("mjref"), err[-500:]

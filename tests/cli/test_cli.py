"""The ``mjref`` front: every command module is registered by name in one list, a user's error is one line and exit
2, and anything else (a bug) keeps its traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

import referee.commands
import referee.commands.check
from referee import cli
from referee.errors import BotError


def test_every_command_module_is_registered() -> None:
    folder = Path(referee.commands.__file__).parent
    # A module whose name starts with "_" (and __init__) holds what commands share; every other one is a command.
    modules = {p.stem for p in folder.glob("*.py") if not p.stem.startswith("_")}
    registered = {m.__name__.rsplit(".", 1)[1] for m in cli.COMMANDS}
    assert registered == modules
    parser = cli.build_parser()
    choices = next(a for a in parser._actions if a.dest == "command").choices  # noqa: SLF001
    assert choices is not None and set(choices) == modules


def test_a_users_error_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["check", "nosuchbot"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mjref check: ") and "bot 'nosuchbot': not a built-in" in err and err.count("\n") == 1


def test_a_bug_is_not_reported_as_bad_input(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain ValueError inside a command is a bug in mjref: it is raised, not turned into exit 2."""

    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("a bug")

    monkeypatch.setattr(referee.commands.check, "run_check", broken)
    with pytest.raises(ValueError, match="a bug"):
        cli.main(["check", "greedy"])

    def refused(*args: object, **kwargs: object) -> None:
        raise BotError("bot 'x': cannot be used")

    monkeypatch.setattr(referee.commands.check, "run_check", refused)
    assert cli.main(["check", "greedy"]) == 2

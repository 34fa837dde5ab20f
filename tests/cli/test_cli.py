"""The ``mjref`` front: every command module is registered by name in one list, a user's error is one line and exit
2, and anything else (a bug) keeps its traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import referee.commands
import referee.commands.check
from referee import cli
from referee.errors import BotError

ROOT = Path(__file__).resolve().parents[2]


def test_every_command_module_is_registered() -> None:
    folder = Path(referee.commands.__file__).parent
    # A module whose name starts with "_" (and __init__) holds what commands share; every other one is a command.
    modules = {p.stem for p in folder.glob("*.py") if not p.stem.startswith("_")}
    assert {module for module, _ in cli.COMMANDS.values()} == {f"referee.commands.{m}" for m in modules}
    parser = cli.build_parser()  # imports every registered module: a missing or broken one fails here
    choices = next(a for a in parser._actions if a.dest == "command").choices  # noqa: SLF001
    assert choices is not None and list(choices) == list(cli.COMMANDS)
    for name, (module, _) in cli.COMMANDS.items():
        assert module.rsplit(".", 1)[1] == name
        assert choices[name].prog == f"mjref {name}" and choices[name].get_default("func") is not None


def test_a_missing_command_module_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(cli.COMMANDS, "gone", ("referee.commands.gone", "a command whose module was deleted"))
    with pytest.raises(ModuleNotFoundError, match="referee.commands.gone"):
        cli.main(["gone"])
    with pytest.raises(ModuleNotFoundError, match="referee.commands.gone"):
        cli.build_parser()


def test_help_lists_every_command_without_importing_their_modules() -> None:
    """``mjref --help`` names every command with its one-line help (written once, in ``cli.COMMANDS``) and imports
    no command module: a command's module is imported only when it runs."""
    code = ("import sys, contextlib, io\n"
            "from referee import cli\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):\n"
            "    cli.main(['--help'])\n"
            "print(out.getvalue())\n"
            "print(sorted(m for m in sys.modules if m.startswith('referee.commands')))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    help_text, imported = proc.stdout.rsplit("\n", 2)[0], proc.stdout.rsplit("\n", 2)[1]
    assert imported == "[]", imported
    flat = " ".join(help_text.split())
    for name, (_, summary) in cli.COMMANDS.items():
        assert f"{name} {summary.replace('%%', '%')}" in flat, name


def test_a_commands_help_is_the_one_in_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    """Running one command imports only its module; its parser carries the table's help."""
    parser = cli.build_parser(["standings"])
    sub = next(a for a in parser._actions if a.dest == "command")  # noqa: SLF001
    shown = {c.dest: c.help for c in sub._choices_actions}  # noqa: SLF001
    assert shown == {name: summary for name, (_, summary) in cli.COMMANDS.items()}
    assert sub.choices is not None and sub.choices["standings"].get_default("func") is not None
    assert sub.choices["match"].get_default("func") is None  # only named


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

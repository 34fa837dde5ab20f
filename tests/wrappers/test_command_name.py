"""A process bot is named after its script or executable, not its interpreter (``python3 mybot.py`` is ``mybot``)."""

from __future__ import annotations

import pytest

from wrappers.spec import command_name, parse_bot


@pytest.mark.parametrize(("argv", "name"), [
    (["./mybot"], "mybot"),
    (["python3", "mybot.py", "--fast"], "mybot"),
    (["python", "-u", "bots/x/mybot.py"], "mybot"),
    (["python", "-m", "bots.greedy"], "bots.greedy"),
    (["/usr/bin/python3.11", "examples/mybot.py"], "mybot"),
    (["node", "bot.js"], "bot"),
    (["java", "-jar", "build/bot.jar"], "bot"),
    (["python3"], "python3"),
])
def test_command_name(argv: list[str], name: str) -> None:
    assert command_name(argv) == name


def test_parse_bot_uses_it() -> None:
    assert parse_bot("python3 -m bots.random --seed 3", {"greedy"}).name == "bots.random"

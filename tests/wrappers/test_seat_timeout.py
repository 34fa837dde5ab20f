"""One rule for a seat's seconds per question, for every command: command line over bot file over ruleset."""

from __future__ import annotations

from wrappers.spec import BotSpec, seat_timeout


def test_command_line_over_bot_file_over_ruleset() -> None:
    with_file = BotSpec(name="b", cmd=("bot",), timeout=5)
    without = BotSpec(name="b", cmd=("bot",))
    assert seat_timeout(2, with_file, 10) == 2
    assert seat_timeout(None, with_file, 10) == 5
    assert seat_timeout(None, without, 10) == 10
    assert seat_timeout(3, without, 10) == 3

"""One rule for a seat's seconds per question, for every command: command line over bot file over ruleset."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from bots.base import make_policy
from referee.game.taiwan16.rules import make_ruleset
from wrappers.human import HumanSeat
from wrappers.process import ProcessSeat
from wrappers.remote import RemoteSeat
from wrappers.seat import BuiltinSeat, HandInfo
from wrappers.spec import BotSpec, seat_timeout


def test_command_line_over_bot_file_over_ruleset() -> None:
    with_file = BotSpec(name="b", cmd=("bot",), timeout=5)
    without = BotSpec(name="b", cmd=("bot",))
    assert seat_timeout(2, with_file, 10) == 2
    assert seat_timeout(None, with_file, 10) == 5
    assert seat_timeout(None, without, 10) == 10
    assert seat_timeout(3, without, 10) == 3


def test_each_seat_says_the_seconds_its_player_has() -> None:
    """What the match logs in the header (``SeatInfo.timeout``): a bot's by the one rule, a person's
    ``human_timeout``, none for a policy in this process."""
    info = HandInfo.for_seat(make_ruleset({"move_timeout": 7, "human_timeout": 90}), 1, 0, 1)
    with_file = BotSpec(name="b", cmd=("bot",), timeout=5)
    without = BotSpec(name="b", cmd=("bot",))
    nursery: Any = None  # a seat only keeps it until it starts a process
    assert ProcessSeat(with_file, 1, nursery, timeout=2).question_timeout(info) == 2
    assert ProcessSeat(with_file, 1, nursery).question_timeout(info) == 5
    assert ProcessSeat(without, 1, nursery).question_timeout(info) == 7
    slot: Any = SimpleNamespace(link=None)
    remote = BotSpec(name="r", remote=True, timeout=5)
    assert RemoteSeat(remote, 1, slot, match="1", network_grace=1.0, timeout=2).question_timeout(info) == 2
    assert RemoteSeat(remote, 1, slot, match="1", network_grace=1.0).question_timeout(info) == 5
    person = BotSpec(name="me", remote=True, human=True)
    assert HumanSeat(person, 1, slot, match="1", network_grace=1.0, names=["me"] * 4).question_timeout(info) == 90
    assert BuiltinSeat("g", 1, make_policy("greedy")).question_timeout(info) is None

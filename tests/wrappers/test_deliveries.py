"""A step's events to the seats (``wrappers.seat.Deliveries``): each seat gets the events it may see, in order; the
seats that post early (xmj seats) are served one after another, from the seat the step ends with round the table,
each posting before the next is even delivered, so the player the game waits for is woken first."""

from __future__ import annotations

from typing import Any

from referee.game.types import Event, Mo, Question, Throw
from wrappers.seat import Deliveries, Fault, HandInfo, Reply, Seat


class Recording(Seat):
    """A seat that writes down what it is delivered and when it posts, in one log shared by the table."""

    def __init__(self, position: int, log: list[tuple[Any, ...]], *, early: bool) -> None:
        self.name = f"s{position}"
        self.position = position
        self.log = log
        self.posts_early = early  # type: ignore[misc]

    async def begin_hand(self, info: HandInfo) -> Fault | None:
        return None

    def deliver(self, event: Event) -> None:
        self.log.append(("deliver", self.position, event))

    def delivered(self) -> None:
        self.log.append(("posts", self.position))

    async def ask(self, question: Question) -> Reply:
        raise AssertionError("not asked here")

    async def end_hand(self) -> None:
        return None


def _table(early: tuple[int, ...]) -> tuple[Deliveries, list[tuple[Any, ...]]]:
    log: list[tuple[Any, ...]] = []
    deliveries = Deliveries()
    for p in (1, 2, 3, 4):
        deliveries.seat(p, Recording(p, log, early=p in early))
    return deliveries, log


def test_the_seat_the_game_waits_for_is_served_and_posts_first() -> None:
    deliveries, log = _table((1, 2, 3, 4))
    throw, draw = Throw(1, 112), Mo(2, 131, audience=frozenset({2}))
    deliveries.deliver([throw, draw])  # 1 throws, 2 draws: 2 is asked next
    assert log == [("deliver", 2, throw), ("deliver", 2, draw), ("posts", 2),
                   ("deliver", 3, throw), ("posts", 3),
                   ("deliver", 4, throw), ("posts", 4),
                   ("deliver", 1, throw), ("posts", 1)]


def test_seats_that_do_not_post_early_come_after_and_every_seat_gets_its_events_in_order() -> None:
    deliveries, log = _table((2, 4))
    events = [Throw(3, 112), Mo(4, 131, audience=frozenset({4})), Throw(4, 131)]
    deliveries.deliver(events)
    order = [entry[1] for entry in log if entry[0] == "posts"]
    assert order == [4, 2], "the early seats, from the step's last seat round the table"
    served = [entry[1] for entry in log if entry[0] == "deliver"]
    assert served[:3] == [4, 4, 4] and set(served[3:5]) == {2} and set(served[5:]) == {1, 3}
    for p in (1, 2, 3, 4):
        mine = [entry[2] for entry in log if entry[0] == "deliver" and entry[1] == p]
        assert mine == [e for e in events if p in e.audience]


def test_a_table_that_posts_nothing_early_is_served_event_by_event() -> None:
    deliveries, log = _table(())
    events = [Throw(1, 112), Mo(2, 131, audience=frozenset({2}))]
    deliveries.deliver(events)
    assert log == [("deliver", p, events[0]) for p in (1, 2, 3, 4)] + [("deliver", 2, events[1])]
    deliveries.deliver([])
    assert len(log) == 5


def test_the_seat_asked_next_is_served_first_when_the_caller_names_it() -> None:
    """After a discard someone can claim, the last event is the thrower's, but the game asks the claimant: the
    match names that seat, and it is served and posts first (a new hand: East, who discards first)."""
    deliveries, log = _table((1, 2, 3, 4))
    throw = Throw(1, 112)
    deliveries.deliver([throw], 3)
    assert [entry[1] for entry in log if entry[0] == "posts"] == [3, 4, 1, 2]
    assert log[:2] == [("deliver", 3, throw), ("posts", 3)]

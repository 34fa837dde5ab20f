"""Information hiding: every protocol line a seat is sent names only tiles that seat may know.

Over many random hands (flowers on and off), each event is formatted exactly as a process bot would receive it, and
every TID in the line is checked against the engine's hidden state: it must not be in the undrawn wall, and not
in another seat's concealed hand, except in ``/hu`` (the protocol reveals the winner's hand).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from referee.game.engine import Hand
from referee.game.taiwan16.rules import Ruleset
from referee.game.types import Hu
from referee.game.wall import generate_wall
from wrappers.codec import format_event
from wrappers.seat import Fault, HandInfo

FLOWER_EXTENSION = frozenset({"flower"})


def tids_in(line: str) -> set[int]:
    head, _, rest = line.partition(" ")
    numbers = [int(t) for t in rest.split() if t.isdigit()]
    if head in ("/throw", "/eat", "/pong", "/hu", "/flower"):
        numbers = numbers[1:]  # the first number is a seat
    elif head == "/gong":
        numbers = numbers[2:]  # seat and gong type
    elif head in ("/initGame", "/exit"):
        return set()
    return set(numbers)


@pytest.mark.parametrize("flowers", [False, True])
def test_no_seat_is_ever_sent_a_hidden_tile(flowers: bool) -> None:
    rules = Ruleset(flowers=flowers)
    rng = random.Random(2026)
    lines_checked = 0
    for h in range(120):
        hand = Hand(generate_wall(h, h % 16, rules), rules, dealer=h % 4 + 1)
        events = hand.start()
        while True:
            undrawn = set(hand.undrawn())
            concealed = {p: set(hand.concealed(p)) for p in (1, 2, 3, 4)}
            # what each seat may not be told: the others' concealed tiles (built once a step, for every line)
            hidden = {p: set().union(*(concealed[q] for q in (1, 2, 3, 4) if q != p)) for p in (1, 2, 3, 4)}
            for e in events:
                # the line is the same for every seat of the audience: formatted once
                line = format_event(e, extensions=FLOWER_EXTENSION)
                if line is None or isinstance(e, Hu):
                    continue
                named = tids_in(line)
                for p in e.audience:
                    others = hidden[p]
                    assert not named & undrawn, f"seat {p} was sent undrawn tiles: {line}"
                    assert not named & others, f"seat {p} was sent another seat's concealed tiles: {line}"
                    lines_checked += 1
            if hand.is_over:
                break
            q = hand.question
            assert q is not None
            # prefer claims and wins now and then, so melds, gongs and wins are exercised
            eager = [a for a in q.legal if a.kind != "pass"]
            answer = rng.choice(eager) if eager and rng.random() < 0.6 else rng.choice(q.legal)
            events = hand.apply(answer)
    assert lines_checked > 10_000


def test_the_check_itself_catches_a_leak() -> None:
    """The checker is not vacuous: a line naming a tile in another seat's hand is reported."""
    rules = Ruleset()
    hand = Hand(generate_wall(1, 0, rules), rules, dealer=1)
    hand.start()
    secret = hand.concealed(2)[0]
    leaked = f"/throw 1 {secret}"
    others = set(hand.concealed(2))
    assert tids_in(leaked) & others == {secret}


def test_a_builtin_policy_cannot_rebuild_the_wall(tmp_path: Path) -> None:
    """What a built-in seat is given at the start of a hand (its bot seed) does not reproduce the wall."""
    from referee.game.taiwan16.rules import make_ruleset
    from referee.game.wall import generate_wall as wall_of
    from referee.match import play_match, resolve_bots
    from wrappers.seat import BuiltinSeat

    given: list[tuple[int, int]] = []
    original = BuiltinSeat.begin_hand

    async def spy(self: BuiltinSeat, info: HandInfo) -> Fault | None:
        given.append((info.seed, info.index))
        return await original(self, info)

    rules = make_ruleset({"hands": 2})
    BuiltinSeat.begin_hand = spy  # type: ignore[method-assign]
    try:
        play_match(resolve_bots([]), seed=99, rules=rules)
    finally:
        BuiltinSeat.begin_hand = original  # type: ignore[method-assign]
    assert len(given) == 8 and len({s for s, _ in given}) == 4  # one seed per seat, none of them the match seed
    for s, h in given:
        assert s != 99
        assert wall_of(s, h, rules).tiles != wall_of(99, h, rules).tiles

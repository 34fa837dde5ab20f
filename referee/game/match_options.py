"""The match's own options, which every family's ruleset has beside its rules: hands, timeouts, the pace, faults
and their penalty, the stand-in.  Defined here once (their types, defaults, bounds and descriptions), in the order
a ruleset lists them, and the penalties a faulted hand costs (``fault_settlement``; its ``"auto"`` amount is the
family's, ``Family.auto_fault_penalty``).

A Taiwan ruleset (``referee.game.taiwan16.rules.Ruleset``) and a classical one (``referee.game.classical.family.
ClassicalRuleset``) declare these fields from ``MATCH_FIELDS``; their dumps, and so logs and stores, are what they
were when Taiwan's ruleset defined them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import Field
from pydantic.fields import FieldInfo

from referee.errors import InputError


class RulesError(InputError):
    """A ruleset option that does not exist or has a bad value; the message names the field."""


MAX_SECONDS = 3600
"""The longest time any rule or option may give for one question or a hand's start: the ruleset's
``move_timeout``, ``start_grace`` and ``human_timeout``, a bot file's ``timeout`` and every ``--timeout``."""

MAX_POINTS = 1_000_000
"""The most ``base``, ``per_tai`` and ``fault_penalty`` may be, and ``MAX_TAI`` the most one tai item may count:
far above any real table, and low enough that a match's points fit a store's integers (SQLite's end at 2**63 - 1;
a base of 10**23 was an OverflowError once the first match was played)."""

MATCH_FIELDS: dict[str, tuple[Any, FieldInfo]] = {
    "hands": (int, Field(16, ge=1, le=1000, description="Hands per match.")),
    "move_timeout": (float, Field(10.0, gt=0, le=MAX_SECONDS, description="Seconds a bot has to answer one question.")),
    "start_grace": (float, Field(
        10.0, ge=0, le=MAX_SECONDS, description="Extra seconds for the first question of a hand (process start).")),
    "network_grace": (float, Field(
        1.0, ge=0, le=60, description="Extra seconds per question for a remote seat (the network's round trip).")),
    "pace": (float, Field(
        0.0, ge=0, le=60,
        description="Seconds a turn takes at the least (0: as fast as the bots answer): a turn's question waits until "
        "pace after the previous turn's answer, the claim questions between are asked at once.  A claim question is "
        "asked only when the claim is legal, so without a pace the time from a bot's throw to its next question says "
        "how many claims the others declined; a pace above the time the claims take hides it (docs/security.md).",
    )),
    "human_timeout": (float, Field(
        60.0, gt=0, le=MAX_SECONDS,
        description="Seconds a person (a human:NAME seat, `mjref play`) has to answer one question; a timeout is a "
        "fault like a bot's.",
    )),
    "fault_penalty": (int | Literal["auto"], Field(
        "auto",
        description="Points a seat pays for each hand in which its bot faulted (or had forfeited), split among the "
        "other three.  'auto': the family's own: under taiwan16 what an 8-tai self-drawn win collects, "
        "3 × (base + 8 × per_tai) (780 by default; 3 with scoring 'wins'); under classical the limit (ScoreLimit).",
    )),
    "max_faults": (int, Field(
        3, ge=0, le=1000,
        description="After this many faults in one match a bot forfeits the rest of it: it is not started again "
        "and the stand-in plays its seat (0: never).",
    )),
    "default_dummy": (str, Field(
        "dead_hand",
        description="The built-in bot that plays a seat to the end of the hand after its bot faults (and every hand "
        "after a forfeit).  'dead_hand' draws and throws, never claims, never wins; 'greedy' (or any built-in) plays "
        "on as the ICGA framework's dummy did.",
    )),
}


def field(name: str) -> Any:
    """A match option's field, to declare it in a ruleset model (``hands: int = field("hands")``)."""
    return MATCH_FIELDS[name][1]


def check_fault_penalty(value: Any) -> Any:
    """``fault_penalty``'s check (before pydantic's own): a whole number of points in range, or ``"auto"``."""
    if isinstance(value, bool) or not (value == "auto" or (isinstance(value, int) and 0 <= value <= MAX_POINTS)):
        raise ValueError(f"must be a whole number of points from 0 to {MAX_POINTS:,} or \"auto\", not {value!r}")
    return value


def fault_penalty_points(rules: Any) -> int:
    """What a seat pays for one faulted (or forfeited) hand: ``rules.fault_penalty``, or with ``"auto"`` the
    family's amount (``Family.auto_fault_penalty``: Taiwan's 8-tai self-drawn win, classical's limit)."""
    if rules.fault_penalty != "auto":
        return int(rules.fault_penalty)
    from referee.game.family import family_of

    return family_of(rules).auto_fault_penalty()


def fault_settlement(payers: Iterable[int], rules: Any) -> tuple[int, int, int, int]:
    """The fault penalties of one hand, per seat 1..4, as points *paid* (a receiver's entry is negative); they sum
    to zero.  ``payers``: the seats whose bot faulted in the hand or had forfeited, each once.

    Each payer pays ``fault_penalty_points``, split among the other three: a third each, and the points that do
    not divide by three (one or two) go one each to the seats after the payer in turn order, so that the split is
    exact and the same every time.
    """
    amount = fault_penalty_points(rules)
    paid = [0, 0, 0, 0]
    for p in payers:
        if p not in (1, 2, 3, 4):
            raise ValueError(f"fault_settlement: a payer must be a seat 1..4, not {p!r}")
        paid[p - 1] += amount
        share, rest = divmod(amount, 3)
        for k in (1, 2, 3):
            q = (p - 1 + k) % 4
            paid[q] -= share + (1 if k <= rest else 0)
    return (paid[0], paid[1], paid[2], paid[3])


__all__ = ["MATCH_FIELDS", "MAX_POINTS", "MAX_SECONDS", "RulesError", "check_fault_penalty", "fault_penalty_points",
           "fault_settlement", "field"]

"""The fault penalty (docs/rules.md, "Faults never pay"): its default follows the scoring options, it is paid by the
faulting seat to the other three, and every hand's settlement still sums to zero."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.game.match_options import RulesError, fault_penalty_points, fault_settlement
from referee.game.taiwan16.rules import make_ruleset, parse_assignments
from referee.game.taiwan16.scoring import settle


def test_auto_is_what_an_8_tai_self_drawn_win_collects() -> None:
    rules = make_ruleset()
    assert fault_penalty_points(rules) == 3 * (100 + 8 * 20) == 780
    assert fault_penalty_points(rules) == settle(2, 2, 8, self_drawn=True, thrower=None, rules=rules)[1]
    assert fault_penalty_points(make_ruleset({"base": 50, "per_tai": 10})) == 3 * (50 + 80)
    assert fault_penalty_points(make_ruleset({"scoring": "wins"})) == 3
    assert fault_penalty_points(make_ruleset({"fault_penalty": 7})) == 7
    assert fault_penalty_points(parse_assignments(["fault_penalty=auto"])) == 780


def test_bad_penalties_name_the_field() -> None:
    for bad in (-1, "lots", True, 2.5):
        with pytest.raises(RulesError, match="rule option 'fault_penalty'"):
            make_ruleset({"fault_penalty": bad})
    with pytest.raises(RulesError, match="rule option 'max_faults'"):
        make_ruleset({"max_faults": -1})


def test_the_faulting_seat_pays_a_third_to_each_other_seat() -> None:
    rules = make_ruleset()
    assert fault_settlement([2], rules) == (-260, 780, -260, -260)
    assert fault_settlement([], rules) == (0, 0, 0, 0)
    assert fault_settlement([1, 3], rules) == (780 - 260, -520, 780 - 260, -520)


def test_an_amount_that_does_not_divide_by_three_goes_to_the_next_seats_in_turn() -> None:
    assert fault_settlement([4], make_ruleset({"fault_penalty": 5})) == (-2, -2, -1, 5)
    assert fault_settlement([2], make_ruleset({"fault_penalty": 4})) == (-1, 4, -2, -1)
    assert fault_settlement([1], make_ruleset({"fault_penalty": 1})) == (1, -1, 0, 0)
    with pytest.raises(ValueError, match="seat 1..4"):
        fault_settlement([5], make_ruleset())


@given(st.lists(st.integers(1, 4), unique=True), st.integers(0, 10_000))
def test_settlements_sum_to_zero(payers: list[int], amount: int) -> None:
    paid = fault_settlement(payers, make_ruleset({"fault_penalty": amount}))
    assert sum(paid) == 0
    share = -(-amount // 3)  # the most one seat gets of one payer's penalty
    for p in (1, 2, 3, 4):
        if p in payers:
            assert paid[p - 1] >= amount - share * (len(payers) - 1)
        else:
            assert paid[p - 1] <= 0

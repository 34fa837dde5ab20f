"""Scoring: every tai item of docs/rules.md, every "replaces" rule, the choice of the best reading, the
settlement, flowers, and the request model of section 8."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.game.taiwan16.rules import DEFAULT_RULES, DEFAULT_TAI, Ruleset, make_ruleset
from referee.game.taiwan16.scoring import (
    ITEM_TITLES,
    ArrangedSet,
    Item,
    ScoreError,
    ScoreResult,
    WinContext,
    payments_for,
    score_flower_win,
    score_request,
    score_win,
    settle,
)
from referee.game.types import Meld

HONOURS = {"E": 41, "W": 42, "S": 43, "N": 44, "R": 45, "G": 46, "B": 47}  # B: white ("blank")


def kinds_of(text: str) -> list[int]:
    """Kinds from a short form: ``123m`` wan, ``45s`` tiao, ``678p`` tong, honours E W S N R G B (B = white)."""
    out: list[int] = []
    for token in text.split():
        if token[-1] in "msp":
            suit = {"m": 1, "s": 2, "p": 3}[token[-1]]
            out.extend(suit * 10 + int(ch) for ch in token[:-1])
        else:
            out.extend(HONOURS[ch] for ch in token)
    return out


def make_ctx(
    concealed: str,
    win: str,
    melds: Sequence[tuple[str, str]] = (),
    *,
    seat_wind: str = "SOUTH",
    round_wind: str = "EAST",
    dealer: bool | None = None,
    **flags: Any,
) -> WinContext:
    """A context with real TIDs (copies handed out in order, melds first); ``win`` names the winning kind, whose
    tile is the last copy of that kind in ``concealed``."""
    copies: Counter[int] = Counter()

    def take(k: int) -> int:
        tid = k * 10 + copies[k]
        copies[k] += 1
        assert copies[k] <= 4, f"test hand uses a fifth {k}"
        return tid

    meld_objs = tuple(Meld(t, tuple(sorted(take(k) for k in kinds_of(spec)))) for t, spec in melds)  # type: ignore[arg-type]
    concealed_tids = tuple(take(k) for k in kinds_of(concealed))
    w = kinds_of(win)[0]
    winning = max(t for t in concealed_tids if t // 10 == w)
    return WinContext(
        concealed=concealed_tids,
        melds=meld_objs,
        winning_tile=winning,
        self_drawn=flags.pop("self_drawn", False),
        seat_wind=seat_wind,
        round_wind=round_wind,
        dealer=(seat_wind == "EAST") if dealer is None else dealer,
        **flags,
    )


def score(
    concealed: str,
    win: str,
    melds: Sequence[tuple[str, str]] = (),
    rules: Ruleset = DEFAULT_RULES,
    **flags: Any,
) -> ScoreResult:
    return score_win(make_ctx(concealed, win, melds, **flags), rules)


def items(result: ScoreResult) -> dict[str, int]:
    return {i.key: i.tai for i in result.items}


# A plain hand worth nothing: one exposed chow, a pung (so not all chows), two suits, a two-sided wait.
PLAIN = {"concealed": "456m 789s 111p 234p 55s", "win": "2p", "melds": [("eat", "123m")]}

# Every test case: (name, arguments of score(), expected items).  Together they cover every key of the table.
CASES: list[tuple[str, dict[str, Any], dict[str, int]]] = [
    ("plain", PLAIN, {}),
    ("dealer", {**PLAIN, "seat_wind": "EAST"}, {"dealer": 1}),
    ("self_draw", {**PLAIN, "self_drawn": True}, {"self_draw": 1}),
    ("concealed", {"concealed": "123m 456m 789s 111p 234p 55s", "win": "2p"}, {"concealed": 1}),
    (
        "concealed_self_draw replaces concealed and self_draw",
        {"concealed": "123m 456m 789s 111p 234p 55s", "win": "2p", "self_drawn": True},
        {"concealed_self_draw": 3},
    ),
    (
        "concealed gongs keep a hand concealed",
        {"concealed": "456m 789s 111p 234p 55s", "win": "2p", "melds": [("concealed_gong", "9999m")]},
        {"concealed": 1},
    ),
    (
        "all_melded replaces single_wait",
        {
            "concealed": "55s",
            "win": "5s",
            "melds": [("eat", "123m"), ("eat", "456m"), ("eat", "789s"), ("pong", "111p"), ("eat", "234p")],
        },
        {"all_melded": 2},
    ),
    (
        "all melded but self-drawn is not all_melded",
        {
            "concealed": "55s",
            "win": "5s",
            "self_drawn": True,
            "melds": [("eat", "123m"), ("eat", "456m"), ("eat", "789s"), ("pong", "111p"), ("eat", "234p")],
        },
        {"self_draw": 1, "single_wait": 1},
    ),
    (
        "all_chows",
        {"concealed": "456m 789s 345p 234p 55s", "win": "2p", "melds": [("eat", "123m")]},
        {"all_chows": 2},
    ),
    (
        "all_chows, concealed",
        {"concealed": "123m 456m 789s 345p 234p 55s", "win": "2p"},
        {"concealed": 1, "all_chows": 2},
    ),
    (
        "not all_chows on a single wait",
        {"concealed": "456m 789s 678p 123p 55s", "win": "3p", "melds": [("eat", "123m")]},
        {"single_wait": 1},
    ),
    (
        "not all_chows when self-drawn",
        {"concealed": "456m 789s 345p 234p 55s", "win": "2p", "melds": [("eat", "123m")], "self_drawn": True},
        {"self_draw": 1},
    ),
    (
        "not all_chows with flowers",
        {"concealed": "456m 789s 345p 234p 55s", "win": "2p", "melds": [("eat", "123m")], "flowers": (30,)},
        {},
    ),
    (
        "not all_chows with an honour pair",
        {"concealed": "456m 789s 345p 234p NN", "win": "2p", "melds": [("eat", "123m")]},
        {},
    ),
    (
        "all_pungs; the pung completed by the throw is not concealed",
        {"concealed": "555p 222s 777m 33p", "win": "7m", "melds": [("pong", "111m"), ("pong", "999s")]},
        {"all_pungs": 4},
    ),
    (
        "all_pungs self-drawn: three concealed pungs",
        {
            "concealed": "555p 222s 777m 33p",
            "win": "7m",
            "melds": [("pong", "111m"), ("pong", "999s")],
            "self_drawn": True,
        },
        {"self_draw": 1, "all_pungs": 4, "concealed_pungs_3": 2},
    ),
    (
        "concealed_pungs_4",
        {"concealed": "111m 555p 222s 777m 33p", "win": "7m", "melds": [("eat", "789s")], "self_drawn": True},
        {"self_draw": 1, "concealed_pungs_4": 5},
    ),
    (
        "concealed_pungs_5 (a concealed gong counts, an exposed gong does not)",
        {
            "concealed": "111m 555p 222s 777m 33p",
            "win": "3p",
            "melds": [("concealed_gong", "9999s")],
            "self_drawn": True,
        },
        {"concealed_self_draw": 3, "all_pungs": 4, "concealed_pungs_5": 8},  # 3p waits with 4p (345p 55p)
    ),
    (
        "an exposed gong is not a concealed pung",
        {
            "concealed": "111m 555p 222s 777m 33p",
            "win": "3p",
            "melds": [("gong", "9999s")],
            "self_drawn": True,
        },
        {"self_draw": 1, "all_pungs": 4, "concealed_pungs_4": 5},
    ),
    (
        "half_flush",
        {"concealed": "123p 456p 789p 111p EE", "win": "9p", "melds": [("pong", "RRR")]},
        {"half_flush": 4, "dragon_pung": 1},
    ),
    (
        "full_flush",
        {"concealed": "234p 567p 888p 99p 345p", "win": "7p", "melds": [("pong", "111p")]},
        {"full_flush": 8},
    ),
    (
        "all_honours replaces half_flush and all_pungs",
        {
            "concealed": "SSS RRR GGG WWW BB",
            "win": "B",
            "melds": [("pong", "EEE")],
            "seat_wind": "NORTH",
            "round_wind": "NORTH",
        },
        {"all_honours": 16, "concealed_pungs_4": 5, "small_three_dragons": 4, "single_wait": 1},
    ),
    (
        "dragon_pung, once per dragon pung",
        {"concealed": "456m 789s 234p 55s", "win": "2p", "melds": [("pong", "RRR"), ("gong", "GGGG")]},
        {"dragon_pung": 2},
    ),
    (
        "small_three_dragons replaces dragon_pung",
        {"concealed": "456m 789s 234p BB", "win": "2p", "melds": [("pong", "RRR"), ("pong", "GGG")]},
        {"small_three_dragons": 4},
    ),
    (
        "big_three_dragons replaces dragon_pung",
        {
            "concealed": "456m 234p 55s",
            "win": "2p",
            "melds": [("pong", "RRR"), ("pong", "GGG"), ("pong", "BBB")],
        },
        {"big_three_dragons": 8},
    ),
    (
        "seat_wind",
        {"concealed": "456m 789s 234p 55s", "win": "2p", "melds": [("eat", "123m"), ("pong", "SSS")]},
        {"seat_wind": 1},
    ),
    (
        "round_wind",
        {"concealed": "456m 789s 234p 55s", "win": "2p", "melds": [("eat", "123m"), ("pong", "EEE")]},
        {"round_wind": 1},
    ),
    (
        "seat_wind and round_wind on one pung",
        {
            "concealed": "456m 789s 234p 55s",
            "win": "2p",
            "melds": [("eat", "123m"), ("pong", "SSS")],
            "round_wind": "SOUTH",
        },
        {"seat_wind": 1, "round_wind": 1},
    ),
    (
        "small_four_winds replaces seat_wind and round_wind",
        {
            "concealed": "234p 555s NN",
            "win": "2p",
            "melds": [("pong", "EEE"), ("pong", "SSS"), ("pong", "WWW")],
        },
        {"small_four_winds": 8},
    ),
    (
        "big_four_winds replaces seat_wind and round_wind",
        {
            "concealed": "234p 55s",
            "win": "2p",
            "melds": [("pong", "EEE"), ("pong", "SSS"), ("pong", "WWW"), ("pong", "NNN")],
        },
        {"big_four_winds": 16},
    ),
    (
        "single_wait: a kind whose four copies the winner holds is no wait (23m with a gong of 4m)",
        {"concealed": "123m 789s 111p 234p 55s", "win": "1m", "melds": [("gong", "4444m")]},
        {"single_wait": 1},
    ),
    (
        "single_wait (edge wait)",
        {"concealed": "456m 789s 111p 123p 55s", "win": "3p", "melds": [("eat", "123m")]},
        {"single_wait": 1},
    ),
    (
        "last_tile_draw",
        {**PLAIN, "self_drawn": True, "last_tile": True},
        {"self_draw": 1, "last_tile_draw": 1},
    ),
    ("last_tile_throw", {**PLAIN, "last_tile": True}, {"last_tile_throw": 1}),
    (
        "kong_replacement",
        {
            "concealed": "456m 789s 234p 55s",
            "win": "2p",
            "melds": [("eat", "123m"), ("gong", "1111p")],
            "self_drawn": True,
            "kong_replacement": True,
        },
        {"self_draw": 1, "kong_replacement": 1},
    ),
    (
        "robbing_kong is a win on a throw",
        {"concealed": "123m 456m 789s 111p 234p 55s", "win": "2p", "robbing_kong": True},
        {"concealed": 1, "robbing_kong": 1},
    ),
    (
        "heavenly replaces concealed_self_draw and single_wait",
        {
            "concealed": "123m 456m 789s 111p 123p 55s",
            "win": "3p",
            "self_drawn": True,
            "first_turn": True,
            "seat_wind": "EAST",
        },
        {"dealer": 1, "heavenly": 24},
    ),
    (
        "earthly replaces concealed_self_draw and single_wait",
        {"concealed": "123m 456m 789s 111p 123p 55s", "win": "3p", "self_drawn": True, "first_turn": True},
        {"earthly": 16},
    ),
    (
        "human replaces concealed and single_wait",
        {"concealed": "123m 456m 789s 111p 123p 55s", "win": "3p", "first_turn": True},
        {"human": 8},
    ),
    ("own_flower, each", {**PLAIN, "flowers": (20, 60, 30)}, {"own_flower": 2}),
    ("no own flower", {**PLAIN, "flowers": (10, 50)}, {}),
    ("flower_set (seasons)", {**PLAIN, "flowers": (10, 20, 30, 40)}, {"own_flower": 1, "flower_set": 2}),
    (
        "eight_flowers with both sets",
        {**PLAIN, "flowers": (10, 20, 30, 40, 50, 60, 70, 80)},
        {"own_flower": 2, "flower_set": 4, "eight_flowers": 8},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_items(case: tuple[str, dict[str, Any], dict[str, int]]) -> None:
    _name, args, expected = case
    result = score(**args)
    assert items(result) == expected
    assert result.tai == sum(expected.values())


def test_every_table_key_is_tested() -> None:
    tested = {k for _n, _a, expected in CASES for k in expected}
    tested |= {"seven_pairs_and_pung"}  # test_seven_pairs_and_pung below
    assert tested == set(DEFAULT_TAI)
    assert set(ITEM_TITLES) == set(DEFAULT_TAI)


def test_seven_pairs_and_pung() -> None:
    args = {"concealed": "11m 22m 55m 55p 77p 99s EE RRR", "win": "R", "self_drawn": True}
    with pytest.raises(ScoreError, match="not a winning hand"):
        score(**args)  # type: ignore[arg-type]
    rules = make_ruleset({"seven_pairs_and_pung": True})
    result = score(rules=rules, **args)  # type: ignore[arg-type]
    # before the winning tile: eight pairs, waiting on any of them for the pung (not a single wait)
    assert items(result) == {"concealed_self_draw": 3, "dragon_pung": 1, "seven_pairs_and_pung": 8}
    assert [s.type for s in result.arrangement].count("pair") == 7
    flush = score(rules=rules, concealed="11p 22p 55p 66p 77p 99p EE RRR", win="E", self_drawn=True)
    assert items(flush)["half_flush"] == 4 and "seven_pairs_and_pung" in items(flush)


def test_item_counts_and_json() -> None:
    result = score(concealed="456m 789s 234p 55s", win="2p", melds=[("pong", "RRR"), ("gong", "GGGG")])
    assert result.items == (Item("dragon_pung", 2, 2),)
    assert result.to_json()["items"] == [{"key": "dragon_pung", "tai": 2, "count": 2}]
    assert score(**PLAIN).to_json()["items"] == []  # type: ignore[arg-type]


def test_tai_values_come_from_the_ruleset() -> None:
    rules = make_ruleset({"tai": {"half_flush": 6, "dragon_pung": 0}})
    result = score(concealed="123p 456p 789p 111p EE", win="9p", melds=[("pong", "RRR")], rules=rules)
    assert items(result) == {"half_flush": 6}  # a zero-valued item is left out


# ------------------------------------------------------------------------------------ best reading


def test_the_better_of_two_arrangements_is_chosen() -> None:
    # 111222333m: three pungs or three chows.  Self-drawn, the pungs are worth concealed_pungs_3.
    result = score(concealed="111222333m 456p 789s 55s", win="5s", self_drawn=True)
    assert items(result) == {"concealed_self_draw": 3, "concealed_pungs_3": 2, "single_wait": 1}
    assert [s.type for s in result.arrangement[:3]] == ["pung", "pung", "pung"]
    assert result.arrangement[0].tiles == (110, 111, 112)


def test_values_decide_between_arrangements() -> None:
    # On a throw, with all_chows worth more than three concealed pungs, the chow reading wins.
    rules = make_ruleset({"tai": {"all_chows": 5}})
    args = {"concealed": "111222333m 456p 789s 55s", "win": "5s"}
    assert items(score(**args)) == {"concealed": 1, "concealed_pungs_3": 2, "single_wait": 1}  # type: ignore[arg-type]
    # single wait: all_chows needs more than one waiting kind, so even then it cannot apply ...
    assert items(score(rules=rules, **args)) == {"concealed": 1, "concealed_pungs_3": 2, "single_wait": 1}  # type: ignore[arg-type]
    # ... while on a two-sided wait it can: 23m waiting 1m/4m, with 111222333m readable as pungs or chows
    args2 = {"concealed": "111222333m 456p 123s 55s", "win": "1s"}
    chow_reading = score(rules=rules, **args2)  # type: ignore[arg-type]
    assert items(chow_reading) == {"concealed": 1, "all_chows": 5}
    assert [s.type for s in chow_reading.arrangement[:3]] == ["chow", "chow", "chow"]
    tie = score(**args2)  # type: ignore[arg-type]
    # default values: chows (concealed + all_chows) = pungs (concealed + concealed_pungs_3) = 3 tai;
    # the first reading in arrangement order (chows sort before pungs) is kept
    assert items(tie) == {"concealed": 1, "all_chows": 2}
    assert [s.type for s in tie.arrangement[:3]] == ["chow", "chow", "chow"]


def test_concealed_pung_on_a_throw_takes_the_better_set_for_the_winning_tile() -> None:
    # 1111m 23m: the thrown 1m completes the chow 123m, so the pung 111m stays concealed (four concealed pungs).
    result = score(concealed="111m 123m 555p 777s 999s EE", win="1m")
    assert items(result) == {"concealed": 1, "concealed_pungs_4": 5}
    winning = [s for s in result.arrangement if s.winning]
    assert winning == [ArrangedSet("chow", (113, 120, 130), "claimed", True)]
    assert ArrangedSet("pung", (110, 111, 112), "concealed") in result.arrangement


def test_a_pung_completed_by_a_thrown_tile_is_not_concealed() -> None:
    args = {"concealed": "111m 234m 555p 777s 999s EE", "win": "1m"}
    on_throw = score(**args)  # type: ignore[arg-type]
    assert items(on_throw) == {"concealed": 1, "concealed_pungs_3": 2}
    assert ArrangedSet("pung", (110, 111, 112), "claimed", True) in on_throw.arrangement
    self_drawn = score(self_drawn=True, **args)  # type: ignore[arg-type]
    assert items(self_drawn) == {"concealed_self_draw": 3, "concealed_pungs_4": 5}


def test_arrangement_json_lists_concealed_sets_then_melds() -> None:
    result = score(**PLAIN)  # type: ignore[arg-type]
    data = result.to_json()["arrangement"]
    assert data[-1] == {"type": "chow", "tiles": [110, 120, 130], "status": "exposed"}
    assert {"type": "chow", "tiles": [320, 330, 340], "status": "claimed", "winning": True} in data
    assert {"type": "pair", "tiles": [250, 251], "status": "concealed"} in data
    assert sorted(t for s in data for t in s["tiles"]) == sorted(
        [*make_ctx(**PLAIN).concealed, 110, 120, 130]  # type: ignore[arg-type]
    )


# --------------------------------------------------------------------------------------- invalid wins


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            {"concealed": "456m 789s 111p 234p 56s", "win": "2p", "melds": [("eat", "123m")]},
            "not a winning hand",
        ),
        ({"concealed": "456m 789s 111p 234p 55s", "win": "2p"}, "wrong number of tiles: 14"),
        (
            {"concealed": "456m 789s 111p 234p 55s", "win": "2p", "melds": [("eat", "124m")]},
            "melds\\[0\\]: .*not an eat",
        ),
        (
            {"concealed": "456m 789s 111p 234p 55s", "win": "2p", "melds": [("pong", "122m")]},
            "melds\\[0\\]: .*not a pong",
        ),
        (
            {"concealed": "456m 789s 111p 234p 55s", "win": "2p", "melds": [("gong", "111m")]},
            "a gong has 4 tiles",
        ),
        ({**PLAIN, "self_drawn": True, "robbing_kong": True}, "robbing_kong: .*self_drawn must be false"),
        ({**PLAIN, "kong_replacement": True}, "kong_replacement: .*self-drawn"),
        ({**PLAIN, "first_turn": True}, "first_turn: .*exposed melds"),
        ({**PLAIN, "seat_wind": "EAST", "dealer": False}, "dealer: the dealer's seat wind is EAST"),
        ({**PLAIN, "dealer": True}, "dealer: the dealer's seat wind is EAST"),
    ],
)
def test_invalid_wins(args: dict[str, Any], message: str) -> None:
    with pytest.raises(ScoreError, match=message):
        score(**args)


def test_invalid_tiles_in_a_context() -> None:
    good = make_ctx(**PLAIN)  # type: ignore[arg-type]
    from dataclasses import replace

    with pytest.raises(ScoreError, match=r"concealed\[0\]: 999 is not a tile ID"):
        score_win(replace(good, concealed=(999, *good.concealed[1:])), DEFAULT_RULES)
    with pytest.raises(
        ScoreError, match=r"concealed\[1\]: tile 410 \(East\) is used twice \(also concealed\[0\]\)"
    ):
        score_win(replace(good, concealed=(410, 410, *good.concealed[2:])), DEFAULT_RULES)
    with pytest.raises(ScoreError, match="winning_tile: 471 .* is not in concealed"):
        score_win(replace(good, winning_tile=471), DEFAULT_RULES)
    with pytest.raises(ScoreError, match=r"flowers\[0\]: 110 is not a flower"):
        score_win(replace(good, flowers=(110,)), DEFAULT_RULES)
    with pytest.raises(ScoreError, match=r"concealed\[0\]: 10 is a flower"):
        score_win(replace(good, concealed=(10, *good.concealed[1:])), DEFAULT_RULES)


# ------------------------------------------------------------------------------------------ settlement


def test_settle_tai_scheme() -> None:
    r = DEFAULT_RULES  # base 100, per_tai 20
    # a non-dealer self-draws 5 tai: the dealer pays for 6
    assert settle(2, 1, 5, self_drawn=True, thrower=None, rules=r) == (-220, 620, -200, -200)
    # the dealer self-draws 5 tai (its dealer item already counted): all pay the same
    assert settle(1, 1, 5, self_drawn=True, thrower=None, rules=r) == (600, -200, -200, -200)
    # a throw: only the thrower pays; the dealer as thrower pays one tai more
    assert settle(3, 1, 4, self_drawn=False, thrower=1, rules=r) == (-200, 0, 200, 0)
    assert settle(3, 1, 4, self_drawn=False, thrower=2, rules=r) == (0, -180, 180, 0)
    assert settle(1, 1, 4, self_drawn=False, thrower=4, rules=r) == (180, 0, 0, -180)
    custom = make_ruleset({"base": 50, "per_tai": 10})
    assert settle(4, 2, 3, self_drawn=True, thrower=None, rules=custom) == (-80, -90, -80, 250)


def test_settle_wins_scheme() -> None:
    r = make_ruleset({"scoring": "wins"})
    assert settle(2, 1, 7, self_drawn=True, thrower=None, rules=r) == (-1, 3, -1, -1)
    assert settle(2, 1, 7, self_drawn=False, thrower=1, rules=r) == (-1, 1, 0, 0)
    assert settle(1, 1, 0, self_drawn=False, thrower=3, rules=r) == (1, 0, -1, 0)


@given(
    winner=st.integers(1, 4),
    dealer=st.integers(1, 4),
    tai=st.integers(0, 80),
    thrower_step=st.integers(0, 3),
    scheme=st.sampled_from(["tai", "wins"]),
)
def test_settlement_sums_to_zero(winner: int, dealer: int, tai: int, thrower_step: int, scheme: str) -> None:
    rules = make_ruleset({"scoring": scheme})
    self_drawn = thrower_step == 0
    thrower = None if self_drawn else (winner - 1 + thrower_step) % 4 + 1
    scores = settle(winner, dealer, tai, self_drawn=self_drawn, thrower=thrower, rules=rules)
    assert sum(scores) == 0
    assert scores[winner - 1] > 0
    for q in (1, 2, 3, 4):
        if q != winner and (self_drawn or q == thrower):
            expected = 1 if scheme == "wins" else 100 + 20 * (tai + (q == dealer and winner != dealer))
            assert scores[q - 1] == -expected
        elif q != winner:
            assert scores[q - 1] == 0


def test_settle_rejects_impossible_payers() -> None:
    with pytest.raises(ScoreError, match="thrower other than the winner"):
        settle(2, 1, 3, self_drawn=False, thrower=2, rules=DEFAULT_RULES)
    with pytest.raises(ScoreError, match="thrower other than the winner"):
        settle(2, 1, 3, self_drawn=False, thrower=None, rules=DEFAULT_RULES)
    with pytest.raises(ScoreError, match="no thrower"):
        settle(2, 1, 3, self_drawn=True, thrower=3, rules=DEFAULT_RULES)
    with pytest.raises(ScoreError, match="winner must be a seat"):
        settle(5, 1, 3, self_drawn=True, thrower=None, rules=DEFAULT_RULES)


# --------------------------------------------------------------------------------------------- flowers


def test_eight_flowers_win() -> None:
    all_eight = (10, 20, 30, 40, 50, 60, 70, 80)
    south = score_flower_win(all_eight, "SOUTH", False, DEFAULT_RULES)
    assert items(south) == {"own_flower": 2, "flower_set": 4, "eight_flowers": 8}
    assert south.tai == 14 and south.arrangement == ()
    east = score_flower_win(all_eight, "EAST", True, DEFAULT_RULES)
    assert items(east) == {"dealer": 1, "own_flower": 2, "flower_set": 4, "eight_flowers": 8}
    with pytest.raises(ScoreError, match="all eight flowers"):
        score_flower_win(all_eight[:7], "SOUTH", False, DEFAULT_RULES)
    with pytest.raises(ScoreError, match=r"flowers\[0\]: 110 is not a flower"):
        score_flower_win((110, *all_eight[1:]), "SOUTH", False, DEFAULT_RULES)


# --------------------------------------------------------------------------------------------- request


def request(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "concealed": [111, 121, 131, 450, 451, 452, 310, 320, 330, 340, 350, 360, 390, 391],
        "melds": [{"type": "eat", "tiles": [210, 220, 230]}],
        "winning_tile": 131,
        "seat_wind": "SOUTH",
        "round_wind": "EAST",
    }
    base.update(overrides)
    return base


def test_score_request_defaults_and_result() -> None:
    out = score_request(request(), DEFAULT_RULES)  # 12m waits on 3m only
    assert out["tai"] == 2
    assert out["items"] == [{"key": "dragon_pung", "tai": 1}, {"key": "single_wait", "tai": 1}]
    assert set(out) == {"tai", "items", "arrangement"}
    assert len(out["arrangement"]) == 6


def test_score_request_payments() -> None:
    self_drawn = score_request(request(self_drawn=True), DEFAULT_RULES, payments=True)
    assert self_drawn["tai"] == 3
    assert self_drawn["payments"] == {
        "scoring": "tai",
        "winner": "SOUTH",
        "self_drawn": True,
        "payers": "all",
        "per_payer": {"EAST": 180, "WEST": 160, "NORTH": 160},
        "winner_gets": 500,
    }
    on_throw = score_request(request(), make_ruleset({"per_tai": 50}), payments=True)["payments"]
    assert on_throw["payers"] == "thrower" and on_throw["winner_gets"] is None
    assert on_throw["per_payer"] == {"EAST": 250, "WEST": 200, "NORTH": 200}
    dealer = payments_for("EAST", 3, self_drawn=False, rules=make_ruleset({"scoring": "wins"}))
    assert dealer["per_payer"] == {"SOUTH": 1, "WEST": 1, "NORTH": 1} and dealer["scoring"] == "wins"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            request(concealed=[111, 121, 131, 450, 451, 452, 310, 320, 330, 340, 350, 360, 390, 999]),
            r"concealed\[13\]: 999 is not a tile ID",
        ),
        (
            request(
                melds=[
                    {"type": "eat", "tiles": [210, 220, 230]},
                ]
            )
            | {"concealed": [111, 111]},
            r"concealed\[1\]: tile 111 .* used twice",
        ),
        (request(concealed=[110, 111, 112, 113, 110]), "more than four of a kind: 5 tiles of 1-Wan"),
        (request(winning_tile=471), "winning_tile: 471 .*not in concealed"),
        (
            request(concealed=[111, 121, 131, 450, 451, 452, 310, 320, 330, 340, 350, 360, 390]),
            "wrong number of tiles: 16",
        ),
        (request(melds=[{"type": "pong", "tiles": [210, 220, 230]}]), r"melds\[0\]: .*not a pong"),
        (request(melds=[{"type": "chi", "tiles": [210, 220, 230]}]), r"melds\[0\]\.type: input should be"),
        (
            request(
                concealed=[111, 121, 141, 450, 451, 452, 310, 320, 330, 340, 350, 360, 390, 391],
                winning_tile=141,
            ),
            "not a winning hand",
        ),
        (request(colour="red"), "colour: unknown field"),
        (request(self_drawn="yes"), "self_drawn: input should be a valid boolean"),
        (request(winning_tile="131"), "winning_tile: input should be a valid integer"),
        ({k: v for k, v in request().items() if k != "seat_wind"}, "seat_wind: missing"),
        (request(seat_wind="south"), "seat_wind: input should be 'EAST'"),
        ([1, 2], "expected one JSON object"),
    ],
)
def test_score_request_errors(data: Any, message: str) -> None:
    with pytest.raises(ScoreError, match=message) as info:
        score_request(data, DEFAULT_RULES)
    assert "\n" not in str(info.value)

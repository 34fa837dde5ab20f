"""Chinese Classical scoring by hand: each item of mj-server's explanation, the doubles, the limit and limit hands,
robbing a kong, East's consecutive deals, and the settlement with each of its options (EastDoubles, LosersSettle,
DiscDoubles, letting off a cannon).  Expected figures are worked out from the rules file of the Unix Mah-Jong
programs; the explanations are in mj-server's own layout (compare the histories in tests/data/mjserver)."""

from __future__ import annotations

from collections import Counter

import pytest

from referee.errors import InputError
from referee.game.classical.hand import Hand, TileSet, can_mah_jong
from referee.game.classical.options import GameOptions, Score, parse_option_file
from referee.game.classical.scoring import Danger, Situation, score_hand, set_points, settle

DEFAULT = GameOptions()


def sets(*specs: str) -> list[TileSet]:
    """``"Pung:RD"`` → TileSet("Pung", "RD"); ``"Kong+:5C"`` an annexed kong."""
    out = []
    for spec in specs:
        kind, tile = spec.split(":")
        out.append(TileSet(kind.rstrip("+"), tile, annexed=kind.endswith("+")))  # type: ignore[arg-type]
    return out


def hand(*specs: str, concealed: str = "", specials: str = "") -> Hand:
    return Hand(concealed.split(), sets(*specs), specials.split())


def dbl(text: str, n: int = 1, left: str = "") -> str:
    return f"{left:<12}  {n} dbl ({text})"


# ------------------------------------------------------------------------------------------------ points of sets
@pytest.mark.parametrize("spec, points, text", [
    ("Chow:2B", 0, ""), ("ClosedChow:7D", 0, ""),
    ("Pung:5C", 2, "open pung of minors"), ("Pung:9C", 4, "open pung of majors"),
    ("Pung:RD", 4, "open pung of majors"), ("ClosedPung:5C", 4, "closed pung of minors"),
    ("ClosedPung:NW", 8, "closed pung of majors"), ("Kong:5C", 8, "open kong of minors"),
    ("Kong:1B", 16, "open kong of majors"), ("ClosedKong:5C", 16, "closed kong of minors"),
    ("ClosedKong:GD", 32, "closed kong of majors"), ("Pair:5C", 0, ""), ("ClosedPair:9B", 0, ""),
    ("Pair:WD", 2, "pair of dragons"), ("ClosedPair:SW", 2, "pair of own wind"),
    ("ClosedPair:EW", 2, "pair of prevailing wind"), ("ClosedPair:WW", 0, ""),
])
def test_points_of_each_set(spec: str, points: int, text: str) -> None:
    (ts,) = sets(spec)
    assert set_points(ts, "SW", "EW", DEFAULT) == (points, text)


def test_a_pair_of_own_and_prevailing_wind_scores_4_and_kong_has_3_types_names_kongs() -> None:
    assert set_points(TileSet("Pair", "EW"), "EW", "EW", DEFAULT) == (4, "pair of own and prevailing wind")
    three = GameOptions(KongHas3Types=True)
    assert set_points(TileSet("Kong", "5C"), "EW", "EW", three) == (8, "claimed kong of minors")
    assert set_points(TileSet("Kong", "5C", annexed=True), "EW", "EW", three) == (8, "annexed kong of minors")


def test_set_text_is_mj_servers() -> None:
    assert TileSet("Kong", "WD").text() == "WD-WD-WD+WD"  # a claimed kong shows its last tile apart
    assert TileSet("Kong", "WD", annexed=True).text() == "WD-WD-WD-WD"
    assert TileSet("ClosedPung", "7B").text() == "7B+7B+7B"
    assert TileSet("Chow", "3C").text() == "3C-4C-5C"
    assert TileSet("ClosedChow", "3C").text() == "3C+4C+5C"


# ------------------------------------------------------------------------------------------------ whole hands
def test_a_concealed_no_score_hand_from_the_wall() -> None:
    """Four concealed chows and a plain pair, completed from the wall on the only tile that could do it."""
    h = hand("ClosedChow:2C", "ClosedChow:5D", "ClosedChow:3B", "ClosedChow:6B", "ClosedPair:5C")
    caller = Hand("2C 3C 4C 5D 6D 7D 3B 5B 6B 7B 8B 5C 5C".split(), [], [])
    s = score_hand(h, Situation(seat=1, round_wind="EW", winner=True, whence="wall", tile="4B", caller=caller),
                   DEFAULT)
    assert s.explanation == (
        "basic        20 (going Mah Jong)",
        "extra         2 (winning from wall)",
        "extra         2 (filling the only place)",
        "total pts    24",
        dbl("no score hand"),
        dbl("concealed hand"),
        "total dbls    2",
        "SCORE:       96",
    )
    assert s.value == 96 and s.danger == Danger.END


def test_two_places_get_no_extra_and_four_exposed_copies_do_not_count_as_a_place() -> None:
    h = hand("ClosedChow:2C", "ClosedChow:5D", "ClosedChow:3B", "ClosedChow:6B", "ClosedPair:5C")
    two_sided = Hand("2C 3C 4C 5D 6D 7D 4B 5B 6B 7B 8B 5C 5C".split(), [], [])  # waits on 3B and 6B... and 9B
    at = Situation(seat=1, round_wind="EW", winner=True, whence="wall", tile="3B", caller=two_sided)
    assert "filling the only place" not in " ".join(score_hand(h, at, DEFAULT).explanation)
    # with every copy of 6B and 9B face up on the table, 3B is the only place left
    seen = Counter({"6B": 4, "9B": 4})
    at = Situation(seat=1, round_wind="EW", winner=True, whence="wall", tile="3B", caller=two_sided, exposed=seen)
    assert "extra         2 (filling the only place)" in score_hand(h, at, DEFAULT).explanation


def test_a_loser_scores_its_declared_sets_and_doubles_but_no_winners_items() -> None:
    h = hand("Pung:WW", "ClosedPung:RD", "ClosedPair:SW", "Chow:1B", concealed="3C 7D")
    s = score_hand(h, Situation(seat=2, round_wind="SW", winner=False), DEFAULT)
    assert s.explanation == (
        "WW-WW-WW      4 (open pung of majors)",
        "RD+RD+RD      8 (closed pung of majors)",
        "SW+SW         2 (pair of prevailing wind)",
        "total pts    14",
        dbl("pung/kong of own wind", left="WW-WW-WW"),
        dbl("pung/kong of dragons", left="RD+RD+RD"),
        "total dbls    2",
        "SCORE:       56",
    )


def test_over_the_limit_and_no_limit() -> None:
    h = hand("Pung:RD", "Pung:GD", "Pung:WD", "Chow:1B", "Pair:5C")
    caller = hand("Pung:RD", "Pung:GD", "Pung:WD", "Chow:1B", concealed="5C")
    at = Situation(seat=3, round_wind="EW", winner=True, whence="discard", tile="5C", caller=caller)
    s = score_hand(h, at, DEFAULT)
    assert s.explanation == (
        "basic        20 (going Mah Jong)",
        "RD-RD-RD      4 (open pung of majors)",
        "GD-GD-GD      4 (open pung of majors)",
        "WD-WD-WD      4 (open pung of majors)",
        "extra         2 (fishing the eyes)",
        "extra         2 (filling the only place)",
        "total pts    36",
        dbl("pung/kong of dragons", left="RD-RD-RD"),
        dbl("pung/kong of dragons", left="GD-GD-GD"),
        dbl("pung/kong of dragons", left="WD-WD-WD"),
        dbl("Big Three Dragons", 2),
        "total dbls    5",
        "score:     1152 (over limit)",
        "SCORE:     1000",
    )
    assert s.value == 1000 and s.danger == Danger.END | Danger.DRAGON
    unlimited = score_hand(h, at, GameOptions(NoLimit=True))
    assert unlimited.value == 1152 and unlimited.explanation[-1] == "SCORE:     1152"
    assert not any("over limit" in x for x in unlimited.explanation)
    lower = score_hand(h, at, GameOptions(ScoreLimit=500))
    assert lower.value == 500


@pytest.mark.parametrize("specs, concealed, at, limit", [
    (("ClosedPung:2B", "ClosedPung:5C", "ClosedPung:7D", "ClosedKong:9D", "ClosedPair:3C"), "",
     {"whence": "wall", "tile": "3C"}, "Buried Treasure"),
    (("Pung:RD", "Pung:GD", "Pung:WD", "Pung:2B", "Pair:5C"), "", {"whence": "discard", "tile": "5C"},
     "Three Great Scholars"),
    (("Pung:EW", "Pung:SW", "Pung:WW", "Pung:NW", "Pair:5C"), "", {"whence": "discard", "tile": "5C"},
     "Four Blessing o'er the Door"),
    (("Pung:EW", "Pung:RD", "Pung:WW", "Pung:GD", "Pair:NW"), "", {"whence": "discard", "tile": "NW"},
     "All Honours"),
    (("Pung:1B", "Pung:9B", "Pung:1C", "Pung:9D", "Pair:1D"), "", {"whence": "discard", "tile": "1D"},
     "Heads and Tails"),
    (("Kong:1B", "Kong:3C", "ClosedKong:7D", "Kong+:5C", "Pair:1D"), "", {"whence": "discard", "tile": "1D"},
     "Fourfold Plenty"),
    (("Chow:2B", "Pung:3B", "Pung:6B", "Pung:GD", "Pair:8B"), "", {"whence": "discard", "tile": "8B"},
     "Imperial Jade"),
    (("ClosedChow:1C", "ClosedChow:4C", "ClosedPung:9C", "ClosedPung:7C", "ClosedPair:2C"), "",
     {"whence": "wall", "tile": "2C"}, "Concealed Clear Suit"),
    ((), "1B 9B 1C 9C 1D 9D EW SW WW NW RD WD GD GD", {"whence": "wall", "tile": "GD"},
     "Thirteen Unique Wonders"),
    (("Pung:1B", "Pung:9B", "Chow:3B", "Chow:6B", "Pair:2B"), "", {"whence": "discard", "tile": "2B"},
     "Wriggling Snake"),
    (("Chow:2B", "Chow:5C", "Chow:6C", "Pung:4D", "Pair:3C"), "", {"whence": "loose", "tile": "5D"},
     "Gathering Plum Blossom from the Roof"),
    (("Chow:2B", "Chow:5C", "Chow:6C", "Chow:1D", "Pair:3C"), "",
     {"whence": "wall", "tile": "1D", "exactly_last": True, "last_tile": True},
     "Catching the Moon from the Bottom of the Sea"),
    (("Chow:2B", "Chow:5C", "Chow:6C", "Chow:1D", "Pair:3C"), "", {"whence": "robbed", "tile": "2B"},
     "Scratching a Carrying Pole"),
    (("Chow:2B", "Chow:5C", "Kong:6C", "Kong:1D", "Pair:3C"), "", {"whence": "loose", "tile": "3C",
                                                                   "kong_upon_kong": True}, "Kong upon Kong"),
])
def test_limit_hands(specs: tuple[str, ...], concealed: str, at: dict[str, object], limit: str) -> None:
    h = hand(*specs, concealed=concealed)
    s = score_hand(h, Situation(seat=2, round_wind="EW", winner=True, **at), DEFAULT)  # type: ignore[arg-type]
    assert f"Limit Hand 1000 ({limit})" in s.explanation, s.explanation
    assert s.explanation[-1] == "SCORE:     1000" and s.value == 1000
    assert all(x.startswith(("Limit Hand", "SCORE:")) for x in s.explanation)  # limits replace the working


def test_heavens_and_earths_blessing_and_easts_thirteenth_win() -> None:
    h = hand("ClosedChow:2B", "ClosedChow:5C", "ClosedChow:6C", "ClosedChow:1D", "ClosedPair:3C")
    heaven = Situation(seat=0, round_wind="EW", winner=True, whence="wall", tile="3C",
                       no_discard=(True, True, True, True))
    assert "Limit Hand 1000 (Heaven's Blessing)" in score_hand(h, heaven, DEFAULT).explanation
    earth = Situation(seat=2, round_wind="EW", winner=True, whence="discard", tile="3C",
                      no_discard=(False, True, True, True))
    assert "Limit Hand 1000 (Earth's Blessing)" in score_hand(h, earth, DEFAULT).explanation
    late = Situation(seat=2, round_wind="EW", winner=True, whence="discard", tile="3C",
                     no_discard=(False, True, True, False))
    assert not any("Blessing" in x for x in score_hand(h, late, DEFAULT).explanation)
    thirteenth = Situation(seat=0, round_wind="EW", winner=True, whence="discard", tile="3C", hands_as_east=12)
    assert "Limit Hand 1000 (East's 13th consecutive win)" in score_hand(h, thirteenth, DEFAULT).explanation
    twelfth = Situation(seat=0, round_wind="EW", winner=True, whence="discard", tile="3C", hands_as_east=11)
    assert score_hand(h, twelfth, DEFAULT).value < 1000


def test_winners_doubles_for_how_the_hand_was_completed() -> None:
    h = hand("Chow:2B", "Chow:5C", "Chow:6C", "Pung:4D", "Pair:3C")
    items = lambda **at: score_hand(h, Situation(seat=1, round_wind="EW", winner=True, **at), DEFAULT).explanation  # noqa: E731
    assert dbl("winning with loose tile") in items(whence="loose", tile="4D")
    assert dbl("robbing a kong") in items(whence="robbed", tile="4D")
    assert dbl("winning with last tile") in items(whence="discard", tile="4D", last_tile=True)
    assert dbl("completing Original Call") in items(whence="discard", tile="4D", original_call=True)
    assert "extra         2 (winning from wall)" not in items(whence="loose", tile="4D")


def test_purity_doubles_and_losers_purity() -> None:
    pure = hand("Chow:1B", "Chow:4B", "Pung:9B", "Chow:6B", "Pair:2B")
    mixed = hand("Chow:1B", "Chow:4B", "Pung:RD", "Chow:6B", "Pair:2B")
    at = Situation(seat=1, round_wind="EW", winner=True, whence="discard", tile="2B")
    assert dbl("one suit only", 3) in score_hand(pure, at, DEFAULT).explanation
    assert Danger.BAMBOO in score_hand(pure, at, DEFAULT).danger
    assert dbl("one suit with honours") in score_hand(mixed, at, DEFAULT).explanation
    loser = Situation(seat=1, round_wind="EW", winner=False)
    assert not any("one suit" in x for x in score_hand(pure, loser, DEFAULT).explanation)
    assert dbl("one suit only", 3) in score_hand(pure, loser, GameOptions(LosersPurity=True)).explanation
    majors = hand("Pung:1B", "Pung:9C", "Pung:RD", "Pung:EW", "Pair:9D")
    assert dbl("all majors") in score_hand(majors, at, DEFAULT).explanation
    assert dbl("no chows") in score_hand(majors, at, DEFAULT).explanation


def test_three_dragons_four_joys_and_three_concealed_pungs() -> None:
    at = Situation(seat=1, round_wind="EW", winner=False)
    little = hand("Pung:RD", "Pung:GD", "Pair:WD", concealed="1B 2B")
    assert dbl("Little Three Dragons") in score_hand(little, at, DEFAULT).explanation
    joys = hand("Pung:EW", "Pung:SW", "Pung:WW", "Pair:NW", concealed="1B")
    assert dbl("Little Four Joys") in score_hand(joys, at, DEFAULT).explanation
    closed = hand("ClosedPung:2B", "ClosedPung:3C", "ClosedKong:4D", concealed="1B")
    assert dbl("three concealed pungs") in score_hand(closed, at, DEFAULT).explanation
    claimed = hand("ClosedPung:2B", "ClosedPung:3C", "Kong:4D", concealed="1B")
    assert dbl("three concealed pungs") not in score_hand(claimed, at, DEFAULT).explanation
    assert dbl("three concealed pungs") in score_hand(claimed, at, GameOptions(KongHas3Types=True)).explanation


def test_flowers_and_seasons_and_their_options() -> None:
    at = Situation(seat=1, round_wind="EW", winner=False)
    h = hand("Pung:5C", concealed="1B", specials="2F 2S 1F")
    s = score_hand(h, at, DEFAULT)
    assert "3 specials   12 (flowers and seasons)" in s.explanation
    assert dbl("own flower and season") in s.explanation
    each = score_hand(h, at, GameOptions(FlowersOwnEach=4))
    assert f"{'':<12}  4 (own flower)" in each.explanation and f"{'':<12}  4 (own season)" in each.explanation
    bouquet = score_hand(hand(concealed="1B", specials="1F 2F 3F 4F"), at, DEFAULT)
    assert dbl("all four flowers") in bouquet.explanation
    assert score_hand(h, Situation(seat=1, round_wind="EW", winner=False, no_special_scores=True), DEFAULT).value == 2


def test_seven_pairs_when_allowed() -> None:
    h = hand(*(f"ClosedPair:{t}" for t in ("1B", "4B", "RD", "5C", "8C", "2D", "9D")))
    s = score_hand(h, Situation(seat=1, round_wind="EW", winner=True, whence="wall", tile="9D"),
                   GameOptions(SevenPairs=True))
    assert s.explanation[:5] == ("basic        20 (going Mah Jong)", "RD+RD         2 (pair of dragons)",
                                 "basic points 20 (seven pairs)", "extra         2 (winning from wall)",
                                 "total pts    44")
    assert not any("fishing" in x or "only place" in x for x in s.explanation)  # not for seven pairs
    caller = Hand("1B 1B 4B 4B RD RD 5C 5C 8C 8C 2D 2D 9D".split(), [], [])
    assert can_mah_jong(caller, "9D", seven_pairs=True)
    assert not can_mah_jong(caller, "9D", seven_pairs=False)


def test_can_mah_jong() -> None:
    wonders = Hand("1B 9B 1C 9C 1D 9D EW SW WW NW RD WD GD".split(), [], [])
    assert all(can_mah_jong(wonders, t, False) for t in wonders.concealed)
    assert not can_mah_jong(wonders, "5C", False)
    gates = Hand("1C 1C 1C 2C 3C 4C 5C 6C 7C 8C 9C 9C 9C".split(), [], [])
    assert all(can_mah_jong(gates, f"{v}C", False) for v in range(1, 10))
    melded = Hand(["5C"], sets("Pung:RD", "Chow:1B", "Kong:2D", "Pung:9C"), [])
    assert can_mah_jong(melded, "5C", False) and not can_mah_jong(melded, "6C", False)


def test_nine_gates_is_a_limit() -> None:
    caller = Hand("1C 1C 1C 2C 3C 4C 5C 6C 7C 8C 9C 9C 9C".split(), [], [])
    h = hand("ClosedPung:1C", "ClosedChow:2C", "ClosedChow:5C", "ClosedPung:9C", "ClosedPair:8C")
    at = Situation(seat=1, round_wind="EW", winner=True, whence="discard", tile="8C", caller=caller)
    assert "Limit Hand 1000 (Nine Gates)" in score_hand(h, at, DEFAULT).explanation


# ------------------------------------------------------------------------------------------------ settlement
def test_settlement_east_doubles_and_losers_settle() -> None:
    """A hand of mj-server's (seed 5): South won 104 from the wall; East 24, West 2, North 56."""
    s = settle([24, 104, 2, 56], 1, DEFAULT, whence="wall", supplier=None, cannoner=None)
    assert s.changes == (-228, 416, -202, 14)
    assert s.explanation == (
        "East  pays South   208", "West  pays South   104", "North pays South   104", "South GAINS   416", "",
        "West  pays East     44", "East  pays North    64", "East  LOSES   228", "",
        "West  pays North    54", "West  LOSES   202", "", "North GAINS    14", "", "")


def test_settlement_options() -> None:
    scores = [24, 104, 2, 56]
    assert settle(scores, 1, GameOptions(LosersSettle=False), whence="wall", supplier=None,
                  cannoner=None).changes == (-208, 416, -104, -104)
    assert settle(scores, 1, GameOptions(EastDoubles=False), whence="wall", supplier=None,
                  cannoner=None).changes == (-104 - 32 + 22, 312, -104 - 22 - 54, -104 + 32 + 54)
    disc = settle(scores, 1, GameOptions(DiscDoubles=True), whence="discard", supplier=2, cannoner=None)
    assert disc.changes[1] == 208 + 208 + 104
    drawn = settle(scores, 1, GameOptions(DiscDoubles=True), whence="wall", supplier=None, cannoner=None)
    assert drawn.changes[1] == 416 + 208 + 208
    even = settle([10, 50, 10, 8], 1, DEFAULT, whence="wall", supplier=None, cannoner=None)
    assert "East  and West  are even" in even.explanation
    assert sum(even.changes) == 0


def test_letting_off_a_cannon_makes_the_discarder_pay_everybodys_debt() -> None:
    s = settle([24, 104, 2, 56], 1, DEFAULT, whence="discard", supplier=3, cannoner=3)
    assert s.changes == (0, 416, 0, -416)
    assert s.explanation[:6] == ("North let off a cannon", "", "North pays South (for East )   208",
                                 "North pays South (for West )   104", "North pays South   104", "South GAINS   416")


# ------------------------------------------------------------------------------------------------ options
def test_an_mj_server_option_file_is_read_as_it_is() -> None:
    o = parse_option_file("GameOption 0 LosersSettle bool 0 1 0 losers pay each other\r\n\n"
                          "GameOption 0 ScoreLimit nat 0 1 500 limit on hand score\n"
                          "GameOption 0 FlowersOwnEach score 0 1 10004 score for each own flower or season\n"
                          "GameOption 0 End bool 0 1 1 end of option list\n", "opts")
    assert not o.LosersSettle and o.ScoreLimit == 500 and Score.of(o.FlowersOwnEach) == Score(0, 1, 4)
    assert o.DiscDoubles is False and o.MahJongScore == 20  # the rest at mj-server's defaults
    assert GameOptions.model_json_schema()["properties"]["NumRounds"]["default"] == 4


@pytest.mark.parametrize("text, reason", [
    ("GameOption 0 Lucky bool 0 1 1 x\n", "opts:1: unknown game option 'Lucky'"),
    ("LosersSettle=0\n", "opts:1: not a GameOption line"),
    ("GameOption 0 NumRounds nat 0 1 3 rounds\n", "opts: option NumRounds: the number of rounds is 1, 2 or a"),
    ("GameOption 0 ScoreLimit nat 0 1 -5 x\n", "opts:1: option ScoreLimit cannot be negative (-5)"),
    ("GameOption 0 ScoreLimit nat 0 1 5\nGameOption 0 ScoreLimit nat 0 1 6\n",
     "opts:2: option ScoreLimit is set twice"),
    ("GameOption 0 Flowers bool 0 1 yes x\n", "opts:1: option Flowers: the value 'yes' is not an integer"),
])
def test_a_bad_option_file_names_the_line(text: str, reason: str) -> None:
    with pytest.raises(InputError) as e:
        parse_option_file(text, "opts")
    assert str(e.value).startswith(reason), str(e.value)


def test_dmjl_differs_where_kajongg_does() -> None:
    """The dmjl preset's own options: East's ninth win, the Scholars with a chow, a loose tile from the wall."""
    from referee.rulesets import load_rules

    dmjl = load_rules("dmjl").options
    assert isinstance(dmjl, GameOptions)
    h = hand("ClosedChow:2B", "ClosedChow:5C", "ClosedChow:6C", "ClosedChow:1D", "ClosedPair:3C")
    ninth = Situation(seat=0, round_wind="EW", winner=True, whence="discard", tile="3C", hands_as_east=8)
    assert "Limit Hand  500 (East's 9th consecutive win)" in score_hand(h, ninth, dmjl).explanation
    assert score_hand(h, ninth, DEFAULT).value < 1000
    scholars = hand("Pung:RD", "Pung:GD", "Pung:WD", "Chow:2B", "Pair:5C")
    at = Situation(seat=1, round_wind="EW", winner=True, whence="discard", tile="5C")
    assert "Limit Hand  500 (Three Great Scholars)" in score_hand(scholars, at, dmjl).explanation
    assert not any("Scholars" in x for x in score_hand(scholars, at, DEFAULT).explanation)


def test_concealed_almost_for_a_hand_concealed_until_mah_jong() -> None:
    """A winner whose hand was concealed until it claimed the winning discard: ConcealedAlmost (0 by default);
    a concealed loser only under LosersPurity."""
    h = hand("ClosedChow:2B", "ClosedChow:5C", "ClosedPung:9D", "ClosedChow:1D", "Pair:3C")
    caller = Hand("2B 3B 4B 5C 6C 7C 9D 9D 9D 1D 2D 3D 3C".split(), [], [])
    at = Situation(seat=1, round_wind="EW", winner=True, whence="discard", tile="3C", caller=caller)
    semi = GameOptions(ConcealedAlmost=10000)
    assert dbl("almost concealed hand") in score_hand(h, at, semi).explanation
    assert not any("almost" in x for x in score_hand(h, at, DEFAULT).explanation)
    assert dbl("concealed hand") not in score_hand(h, at, semi).explanation  # not fully: the pair was claimed
    opened = Situation(seat=1, round_wind="EW", winner=True, whence="discard", tile="3C",
                       caller=Hand(caller.concealed[3:], sets("Chow:2B"), []))
    assert not any("almost" in x for x in score_hand(h, opened, semi).explanation)
    loser = hand("ClosedPung:9D", concealed="1B 5C")
    assert dbl("almost concealed hand") in score_hand(loser, Situation(seat=2, round_wind="EW", winner=False),
                                                      GameOptions(ConcealedAlmost=10000, LosersPurity=True)).explanation

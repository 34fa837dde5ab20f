"""Tiles (TIDs exactly as the protocol page) and the ruleset options model."""

from __future__ import annotations

import json

import pytest

from referee.cli import main
from referee.game import tiles
from referee.game.match_options import RulesError
from referee.game.taiwan16.rules import DEFAULT_TAI, Ruleset, make_ruleset, parse_assignments
from referee.game.tiles import TileError


# ------------------------------------------------------------------------------------------------ tiles
def test_tids_are_the_seeds() -> None:
    assert len(tiles.ALL_TIDS) == 136 and len(set(tiles.ALL_TIDS)) == 136
    assert tiles.ALL_TIDS[:4] == (110, 111, 112, 113)  # 1-Wan
    assert {t // 10 for t in tiles.ALL_TIDS if 210 <= t < 300} == set(range(21, 30))  # Tiao
    assert {t // 10 for t in tiles.ALL_TIDS if 310 <= t < 400} == set(range(31, 40))  # Tong
    assert tiles.FLOWER_TIDS == (10, 20, 30, 40, 50, 60, 70, 80)
    assert len(tiles.ALL_TIDS_WITH_FLOWERS) == 144


def test_winds_in_the_seeds_order() -> None:
    """The seed's table lists East, West, South, North: West is 42x and South 43x."""
    assert tiles.WIND_KIND == {"EAST": 41, "WEST": 42, "SOUTH": 43, "NORTH": 44}
    assert tiles.name(420) == "West" and tiles.name(430) == "South"
    assert tiles.name(423, chinese=True) == "西" and tiles.name(433, chinese=True) == "南"


@pytest.mark.parametrize(("tid", "english", "chinese", "glyph", "short"), [
    (110, "1-Wan", "一萬", "🀇", "1m"),
    (193, "9-Wan", "九萬", "🀏", "9m"),
    (252, "5-Tiao", "五條", "🀔", "5s"),
    (371, "7-Tong", "七筒", "🀟", "7p"),
    (410, "East", "東", "🀀", "E"),
    (450, "Red", "中", "🀄", "R"),
    (472, "White", "白", "🀆", "Wh"),
    (50, "Plum", "梅", "🀢", "f5"),
])
def test_names_glyphs_and_short_forms(tid: int, english: str, chinese: str, glyph: str, short: str) -> None:
    assert tiles.name(tid) == english
    assert tiles.name(tid, chinese=True) == chinese
    assert tiles.glyph(tid) == glyph
    assert tiles.short(tid) == short


@pytest.mark.parametrize(("token", "reason"), [
    ("999", "999 is not a tile ID"),
    ("114", "114 is not a tile ID"),
    ("abc", "'abc' is not a tile ID (not a number)"),
    ("1.5", "not a number"),
])
def test_parse_errors_say_why(token: str, reason: str) -> None:
    with pytest.raises(TileError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        tiles.parse_tid(token)


def test_flowers_can_be_refused_and_duplicates_found() -> None:
    assert tiles.parse_tids("110 410 10") == [110, 410, 10]
    with pytest.raises(TileError, match="10 is a flower, and flowers are not in play"):
        tiles.parse_tids("110 10", flowers=False)
    with pytest.raises(TileError, match="tile 110 appears twice"):
        tiles.check_distinct([110, 111, 110], "hand")


def test_counts34_uses_the_dense_index() -> None:
    c = tiles.counts34([110, 111, 193, 410, 472, 10])
    assert sum(c) == 5  # the flower is not counted
    assert c[tiles.INDEX[11]] == 2 and c[tiles.INDEX[19]] == 1 and c[tiles.INDEX[41]] == 1 and c[33] == 1


# ------------------------------------------------------------------------------------------------ rules
def test_defaults_are_rules_md() -> None:
    r = Ruleset()
    assert (r.flowers, r.dead_wall, r.hands, r.dealer_continues, r.multiple_winners) == (False, 16, 16, False, False)
    assert (r.gong_from_previous_player, r.rob_kong, r.move_timeout, r.start_grace) == (False, True, 10, 10)
    assert (r.fault_penalty, r.seven_pairs_and_pung, r.scoring, r.base, r.per_tai) == ("auto", False, "tai", 100, 20)
    assert (r.max_faults, r.default_dummy) == (3, "dead_hand")
    assert r.tai == DEFAULT_TAI and r.tai["concealed_self_draw"] == 3 and r.tai["heavenly"] == 24


def test_unknown_options_and_bad_values_name_the_field() -> None:
    with pytest.raises(RulesError, match="unknown rule option 'flowerz'"):
        make_ruleset({"flowerz": True})
    with pytest.raises(RulesError, match="rule option 'dead_wall'"):
        make_ruleset({"dead_wall": -1})
    with pytest.raises(RulesError, match="rule option 'scoring'"):
        make_ruleset({"scoring": "points"})
    with pytest.raises(RulesError, match="unknown tai item 'lucky'"):
        make_ruleset({"tai": {"lucky": 3}})
    # a value of another type is refused, and the reason says what was given, as the file has it
    for options, given in (({"flowers": 1}, "not 1"), ({"hands": True}, "not true"), ({"hands": 2.0}, "not 2.0"),
                           ({"default_dummy": None}, "not null")):
        with pytest.raises(RulesError) as err:
            make_ruleset(options)
        assert str(err.value).startswith(f"rule option '{next(iter(options))}': ") and str(err.value).endswith(given)


def test_set_assignments() -> None:
    r = parse_assignments(["flowers=true", "tai.dealer=2", "scoring=wins", "move_timeout=2.5"])
    assert r.flowers is True and r.tai["dealer"] == 2 and r.tai["self_draw"] == 1
    assert r.scoring == "wins" and r.move_timeout == 2.5
    with pytest.raises(RulesError, match="expected OPTION=VALUE"):
        parse_assignments(["flowers"])
    assert hash(r) == hash(parse_assignments(["flowers=true", "tai.dealer=2", "scoring=wins", "move_timeout=2.5"]))


def test_cli_rejects_a_bad_set_with_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "--set", "flowerz=true", "--log", "none"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mjref match: unknown rule option 'flowerz'") and err.count("\n") == 1


def test_schema_rules_lists_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "rules"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert set(schema["families"]["taiwan16"]["options"]["properties"]) == set(Ruleset.model_fields)
    assert schema["families"]["taiwan16"]["default"] is True
    classical = schema["families"]["classical"]["options"]["properties"]
    assert classical["LosersSettle"]["default"] is True and classical["ScoreLimit"]["default"] == 1000
    assert schema["presets"]["dmjl"]["options"]["ScoreLimit"] == 500 and schema["presets"]["xmj"]["options"] == {}

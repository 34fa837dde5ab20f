"""Rulesets by name, preset or file (``--rules NAME|FILE``), and ``mjref score`` under Chinese Classical: the best
declaration of a player's undeclared tiles, scored with mj-server's explanation."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.errors import InputError
from referee.game.classical.arrange import best_arrangement
from referee.game.classical.hand import Hand
from referee.game.classical.options import GameOptions
from referee.game.classical.request import parse_set, score_classical
from referee.game.classical.scoring import Situation
from referee.game.taiwan16.rules import DEFAULT_RULES, Ruleset
from referee.rulesets import families_schema, load_rules, preset_names, with_assignments


def test_families_and_presets_by_name() -> None:
    assert load_rules("taiwan16").options == DEFAULT_RULES
    assert load_rules("classical").options == GameOptions()
    assert preset_names() == ["dmjl", "xmj"]
    assert load_rules("xmj").options == GameOptions()  # mj-server 1.11's defaults
    dmjl = load_rules("dmjl").options
    assert isinstance(dmjl, GameOptions) and dmjl.ScoreLimit == 500 and dmjl.LooseTileFromWall
    schema = families_schema()
    assert set(schema["families"]) == {"taiwan16", "classical"} and set(schema["presets"]) == {"xmj", "dmjl"}


def test_an_mj_server_option_file_is_a_classical_ruleset_as_it_is(tmp_path: Path) -> None:
    f = tmp_path / "opts"
    f.write_text("GameOption 0 DiscDoubles bool 0 1 1 the discarder pays double\n")
    rules = load_rules(str(f))
    assert rules.family == "classical" and isinstance(rules.options, GameOptions) and rules.options.DiscDoubles


def test_toml_rulesets(tmp_path: Path) -> None:
    t = tmp_path / "t.toml"
    t.write_text('family = "taiwan16"\n[options]\nflowers = true\n')
    rules = load_rules(str(t))
    assert isinstance(rules.options, Ruleset) and rules.options.flowers
    c = tmp_path / "c.toml"
    c.write_text('family = "classical"\n[options]\nLosersSettle = false\n')
    assert load_rules(str(c)).options == GameOptions(LosersSettle=False)


@pytest.mark.parametrize("text, reason", [
    ('family = "riichi"\n', "family 'riichi' is not one of taiwan16, classical"),
    ('family = "classical"\n[options]\nScoreLimit = -1\n', "option ScoreLimit: Input should be greater than"),
    ('family = "classical"\ncolour = 1\n', "unknown key 'colour'"),
    ('family = "taiwan16"\n[options]\nflowerz = true\n', "unknown rule option 'flowerz'"),
    ("GameOption 0 Lucky bool 0 1 1 x\n", "unknown game option 'Lucky'"),
    ("[[[", "not a TOML ruleset (nor an mj-server option file)"),
    ('family = ["classical"]\n', "family ['classical'] is not one of taiwan16, classical"),
    ('family = {a = 1}\n', "family {'a': 1} is not one of"),
    ('description = 5\n', "description must be a string"),
    ('[options]\nhands = "x"\n', "rule option 'hands': Input should be a valid integer"),
])
def test_a_bad_ruleset_file_is_refused_with_a_reason(tmp_path: Path, text: str, reason: str) -> None:
    f = tmp_path / "r"
    f.write_text(text)
    with pytest.raises(InputError) as e:
        load_rules(str(f))
    assert reason in str(e.value) and "\n" not in str(e.value)
    assert str(e.value).startswith(f"{f}:"), str(e.value)  # the file named (and its line, where it has one)


def test_set_changes_single_options_of_either_family() -> None:
    assert with_assignments(GameOptions(), ["LosersSettle=false", "ScoreLimit=300"]) == GameOptions(
        LosersSettle=False, ScoreLimit=300)
    with pytest.raises(InputError, match="unknown classical option 'losers'"):
        with_assignments(GameOptions(), ["losers=0"])
    with pytest.raises(InputError, match="classical option 'NumRounds'"):
        with_assignments(GameOptions(), ["NumRounds=3"])
    assert with_assignments(DEFAULT_RULES, ["flowers=true"]) == Ruleset(flowers=True)


def test_mj_server_set_texts() -> None:
    assert [parse_set(x).text() for x in ("RD-RD-RD", "5C+5C+5C", "WD-WD-WD+WD", "2B+2B+2B+2B", "3C-4C-5C",
                                          "3C+4C+5C", "GD-GD", "9B+9B", "7D-7D-7D-7D")] == [
        "RD-RD-RD", "5C+5C+5C", "WD-WD-WD+WD", "2B+2B+2B+2B", "3C-4C-5C", "3C+4C+5C", "GD-GD", "9B+9B",
        "7D-7D-7D-7D"]
    assert parse_set("7D-7D-7D-7D").annexed and parse_set("2B+2B+2B+2B").type == "ClosedKong"
    for bad in ("RD-GD-WD", "5C-6C", "1X-1X-1X", "5C-5C-5C-5C-5C"):
        with pytest.raises(ValueError):
            parse_set(bad)


def test_the_best_declaration_is_scored() -> None:
    """Nine Gates completed with 5B: of its arrangements, the one with closed pungs of 1s and 9s scores most."""
    at = Situation(seat=1, round_wind="EW", winner=True, whence="wall", tile="5B")
    hand = Hand("1B 1B 1B 2B 3B 4B 5B 5B 6B 7B 8B 9B 9B 9B".split(), [], [])
    declared, score = best_arrangement(hand, at, GameOptions(NoLimit=True))
    assert score.value >= 1000  # one suit, concealed: a limit (Concealed Clear Suit) even without the roof
    assert sum(s.type == "ClosedPung" for s in declared.sets) == 2  # 111 and 999 scored as pungs, not chows
    loser = Situation(seat=2, round_wind="EW", winner=False)
    declared, score = best_arrangement(Hand("RD RD RD 5C 5C 1B 2B 3B EW EW 9D".split(), [], []), loser, GameOptions())
    assert score.value == (8 + 2) * 2  # closed pung of dragons, pair of the prevailing wind; a dragon double
    assert {"RD+RD+RD", "EW+EW"} <= {s.text() for s in declared.sets} and "9D" in declared.concealed


def test_mjref_score_classical(tmp_path: Path) -> None:
    req = tmp_path / "r.json"
    req.write_text(json.dumps({"seat_wind": "SOUTH", "concealed": "2C 3C 4C 5D 6D 7D 3B 4B 5B 6B 7B 8B 5C 5C".split(),
                               "how": "wall", "winning_tile": "4B"}))
    r = subprocess.run([sys.executable, "-m", "referee.cli", "score", "--rules", "classical", str(req)],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["score"] == 96 and out["explanation"][-1] == "SCORE:       96"
    r = subprocess.run([sys.executable, "-m", "referee.cli", "score", "--rules", "dmjl", "--set", "ConcealedFully=0",
                        str(req)], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert json.loads(r.stdout)["score"] == 48
    req.write_text(json.dumps({"seat_wind": "SOUTH", "concealed": ["1X"], "winning_tile": "1X"}))
    r = subprocess.run([sys.executable, "-m", "referee.cli", "score", "--rules", "classical", str(req)],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert r.returncode == 2 and "'1X' is not a tile code" in r.stderr and r.stderr.count("\n") == 1


def test_a_classical_request_that_is_no_complete_hand_is_refused() -> None:
    with pytest.raises(InputError, match="do not make a complete hand"):
        score_classical({"seat_wind": "EAST", "concealed": ["1B", "2B"], "winning_tile": "2B"}, GameOptions())
    with pytest.raises(InputError, match="winning_tile"):
        score_classical({"seat_wind": "EAST", "concealed": ["1B", "1B"]}, GameOptions())


def test_a_match_takes_a_ruleset_file_of_either_family_and_every_command_refuses_a_bad_one(tmp_path: Path) -> None:
    t = tmp_path / "short.toml"
    t.write_text('family = "taiwan16"\n[options]\nhands = 1\n')
    c = tmp_path / "classical.toml"
    c.write_text('family = "classical"\n[options]\nhands = 2\nLosersSettle = false\n')
    for path, hands in ((t, 1), (c, 2)):
        r = subprocess.run([sys.executable, "-m", "referee.cli", "match", "random", "random", "--rules", str(path),
                            "--seed", "3", "--log", "none", "--json"], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL)
        assert r.returncode == 0, r.stderr
        assert len(json.loads(r.stdout)["hands"]) == hands
    bad = tmp_path / "bad.toml"
    bad.write_text('family = "classical"\n[options]\nhands = 0\n')
    r = subprocess.run([sys.executable, "-m", "referee.cli", "match", "--rules", str(bad), "--log", "none"],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "hands" in r.stderr
    for command in ("play", "check", "regress"):  # every command that plays reads --rules alike, before anything
        r = subprocess.run([sys.executable, "-m", "referee.cli", command, "--rules", str(bad), "--log", "none"]
                           if command == "play" else
                           [sys.executable, "-m", "referee.cli", command, "--rules", str(bad),
                            *(["greedy"] if command == "check" else ["--candidate", "greedy", "--baseline", "greedy"])],
                           capture_output=True, text=True, stdin=subprocess.DEVNULL, cwd=tmp_path)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, (command, r.stderr)
        assert str(bad) in r.stderr and "hands" in r.stderr, (command, r.stderr)
    assert not list(tmp_path.glob("mjref-*")), "nothing is started or written for a bad ruleset"

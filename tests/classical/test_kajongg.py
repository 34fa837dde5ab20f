"""Kajongg as a second opinion: under the ``dmjl`` preset mjref scores every player of real hands exactly as
Kajongg's own ``Hand`` class scores them under its "Classical Chinese DMJL" ruleset (Debian's ``kajongg``, only
its scoring code).  The hands are mj-server's (default options, generated on the fly and verified first), written
as Kajongg hand strings; and a few hands made for the points where DMJL and mj-server differ."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import kajongg
import mjserver
import pytest

from referee.game.classical.hand import Hand, TileSet
from referee.game.classical.options import GameOptions
from referee.game.classical.scoring import Situation, score_hand
from referee.mjserver import verify_histories
from referee.rulesets import load_rules

DATA = Path(__file__).resolve().parents[1] / "data" / "mjserver"


def dmjl() -> GameOptions:
    rules = load_rules("dmjl")
    assert isinstance(rules.options, GameOptions)
    return rules.options


@pytest.fixture(scope="module")
def hands(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Hand, Situation, int, int]]:
    mjserver.require()
    kajongg.require()
    root = tmp_path_factory.mktemp("kajongg")
    files = [f for i, pers in enumerate(mjserver.PERSONALITIES)
             for f in mjserver.corpus(root / pers, 500 + i, personality=pers)]
    files += sorted(DATA.glob("*.mjs"))
    report = verify_histories(files)
    assert report.ok, report.first
    out = []
    for v in report.hands:
        if v.history.options.SevenPairs:  # seven pairs exists only in mj-server
            continue
        winner = next(s.at.seat for s in v.check.scored if s.at.winner)
        out += [(s.hand, s.at, winner, kajongg.round_index(s.at.round_wind)) for s in v.check.scored]
    return out


def test_dmjl_scores_every_player_as_kajongg_does(hands: list[tuple[Hand, Situation, int, int]]) -> None:
    answers = kajongg.score(hands)
    options = dmjl()
    tally: Counter[str] = Counter()
    for (hand, at, _, _), answer in zip(hands, answers, strict=True):
        assert "error" not in answer, (kajongg.hand_string(hand, at), answer)
        ours = score_hand(hand, at, options)
        assert ours.value == answer["total"], (kajongg.hand_string(hand, at), answer["rules"], ours.explanation)
        tally["winner" if at.winner else "loser"] += 1
    assert tally["winner"] >= 40 and tally["loser"] >= 120


def _check(hand: Hand, at: Situation, expected_dmjl: int, expected_xmj: int) -> None:
    """Kajongg's DMJL score of a made hand, mjref's under dmjl, and mjref's under xmj where the rules differ."""
    kajongg.require()
    (answer,) = kajongg.score([(hand, at, at.seat, kajongg.round_index(at.round_wind))])
    assert answer.get("total") == expected_dmjl, answer
    assert score_hand(hand, at, dmjl()).value == expected_dmjl
    assert score_hand(hand, at, GameOptions()).value == expected_xmj


def sets(*specs: str) -> list[TileSet]:
    return [TileSet(k, t) for k, t in (s.split(":") for s in specs)]  # type: ignore[arg-type]


def test_a_win_on_a_loose_tile() -> None:
    """DMJL counts a loose tile as drawn from the wall (2 points) and gives no last-tile double for it."""
    h = Hand([], sets("Kong:7B", "Pung:4D", "ClosedPung:SW", "ClosedChow:7C", "ClosedPair:1C"), [])
    at = Situation(seat=2, round_wind="EW", winner=True, whence="loose", tile="SW", last_tile=True)
    # points 20 + 8 + 2 + 8 (+2 from the wall in DMJL) = 38/40; doubles: loose tile (+ last tile in mj-server)
    _check(h, at, expected_dmjl=80, expected_xmj=152)


def test_the_three_great_scholars_with_a_chow() -> None:
    h = Hand([], sets("Pung:RD", "Pung:GD", "Pung:WD", "Chow:2B", "Pair:5C"), [])
    at = Situation(seat=1, round_wind="EW", winner=True, whence="discard", tile="5C", claimed_set=4)
    _check(h, at, expected_dmjl=500, expected_xmj=1000)  # a limit in DMJL (500); over mj-server's limit too

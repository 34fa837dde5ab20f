"""Kajongg's ``Hand`` class as a second opinion on Chinese Classical scores: mjref's hands written as Kajongg hand
strings, scored by ``tests/kajongg_score.py`` under the system's Python.  Where Kajongg is missing the test is
skipped; under ``MJREF_REQUIRE_KAJONGG=1`` (``.ci/run`` installs it and sets it) it fails instead."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

import pytest

from referee.game.classical.hand import Hand
from referee.game.classical.scoring import Situation
from referee.game.classical.tiles import WINDS

REQUIRE_ENV = "MJREF_REQUIRE_KAJONGG"
KAJONGG = Path("/usr/share/kajongg")
PYTHON = "/usr/bin/python3"  # the system's Python, which has Kajongg's dependencies (qtpy, twisted)
SCRIPT = Path(__file__).with_name("kajongg_score.py")
DMJL = "Classical Chinese DMJL"

_SUIT = {"B": "b", "C": "c", "D": "s"}
_HONOUR = {"EW": "we", "SW": "ws", "WW": "ww", "NW": "wn", "RD": "dr", "WD": "db", "GD": "dg"}
_BONUS_WIND = "eswn"


def require() -> None:
    if (KAJONGG / "hand.py").exists() and Path(PYTHON).exists():
        return
    if os.environ.get(REQUIRE_ENV, "") not in ("", "0"):
        pytest.fail(f"the Kajongg tests are required here ({REQUIRE_ENV}) but {KAJONGG} is missing")
    pytest.skip("Debian's kajongg is not installed")


def tile(t: str, concealed: bool) -> str:
    """A tile in Kajongg's notation: lower case exposed, upper case concealed (``b5``/``B5``, ``dr``/``Dr``)."""
    if t[1] in _SUIT and t[0].isdigit():
        code = _SUIT[t[1]] + t[0]
    elif t in _HONOUR:
        code = _HONOUR[t]
    else:  # flowers 1F-4F and seasons 1S-4S: f/y and the wind of their seat
        code = ("f" if t[1] == "F" else "y") + _BONUS_WIND[int(t[0]) - 1]
    return code[0].upper() + code[1] if concealed else code


def melds(hand: Hand) -> list[str]:
    """The sets in Kajongg's notation."""
    out = []
    for ts in hand.sets:
        tiles = ts.tiles()
        if ts.type == "ClosedKong":  # Kajongg shows a concealed kong with its two end tiles face down
            out.append(tile(tiles[0], False) + tile(tiles[1], True) + tile(tiles[2], True) + tile(tiles[3], False))
        else:
            out.append("".join(tile(x, ts.type.startswith("Closed")) for x in tiles))
    return out


def hand_string(hand: Hand, at: Situation) -> str:
    parts = melds(hand) + [tile(t, False) for t in hand.specials]
    if hand.concealed:
        parts.append("R" + "".join(tile(t, True) for t in hand.concealed))
    if at.winner and at.tile is not None:
        source = {"wall": "z" if at.last_tile else "w", "discard": "Z" if at.last_tile else "d", "loose": "e",
                  "robbed": "k"}[at.whence]
        parts.append("m" + source)
        if at.claimed_set is not None:  # the last tile and the exposed set it made
            parts.append("L" + tile(at.tile, False) + melds(hand)[at.claimed_set])
        else:
            parts.append("L" + tile(at.tile, at.whence != "robbed"))
    return " ".join(parts)


def score(requests: Iterable[tuple[Hand, Situation, int, int]], ruleset: str = DMJL) -> list[dict[str, object]]:
    """Kajongg's answers for (hand, situation, winner's seat, round index) requests, in order."""
    lines = [json.dumps({"ruleset": ruleset, "seat": at.seat, "round": rnd, "winner": winner,
                         "hand": hand_string(hand, at)}) for hand, at, winner, rnd in requests]
    r = subprocess.run([PYTHON, str(SCRIPT)], input="\n".join(lines) + "\n", capture_output=True, text=True,
                       timeout=600, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    if r.returncode != 0:
        raise RuntimeError(f"Kajongg failed: {r.stderr[-2000:]}")
    return [json.loads(x) for x in r.stdout.splitlines()]


def round_index(round_wind: str) -> int:
    return WINDS.index(round_wind)

"""The classical family's fast paths give what the straightforward code gives: the danger flags of declared sets
(``danger.sets_danger``, from a table of each set's part) against a direct transcription of mj-server's tally."""

from __future__ import annotations

import itertools
import random

from referee.game.classical.danger import sets_danger
from referee.game.classical.scoring import Danger
from referee.game.classical.tiles import DRAGONS, GREEN, PLAYING, WINDS, is_honour, is_terminal, suit

SET_TYPES = ("Chow", "ClosedChow", "Pung", "ClosedPung", "Kong", "ClosedKong", "Pair", "ClosedPair")
ALL_SETS = [(k, t) for k in SET_TYPES for t in PLAYING]


def sets_danger_oracle(sets: list[tuple[str, str]]) -> Danger:
    """mj-server's tally of the dangerous hands that declared sets threaten, set by set, as it writes it."""
    n = dragonsets = windsets = 0
    allh = allt = allg = True
    pure = {"B", "C", "D"}
    for kind, tile in sets:
        if kind == "Chow":
            allt = allh = False
        if kind in ("Chow", "Pung", "Kong"):
            n += 1
        if tile in DRAGONS:
            dragonsets += 1
        elif tile in WINDS:
            windsets += 1
        su = suit(tile)
        pure &= {su}
        if su == "B":
            if kind == "Chow":
                allg = allg and tile[0] == "2"
            elif tile not in GREEN:
                allg = False
        elif su != "Dr" or tile != "GD":
            allg = False
        allh = allh and is_honour(tile)
        allt = allt and is_terminal(tile)
    f = Danger.END
    if n >= 3:
        for s, flag in (("B", Danger.BAMBOO), ("C", Danger.CHARACTER), ("D", Danger.CIRCLE)):
            if s in pure:
                f |= flag
        if allh:
            f |= Danger.HONOUR
        if allg:
            f |= Danger.GREEN
        if allt:
            f |= Danger.TERMINAL
    if windsets >= 3:
        f |= Danger.WIND
    if dragonsets >= 2:
        f |= Danger.DRAGON
    return f


def test_sets_danger_every_one_or_two_sets() -> None:
    assert sets_danger([]) == Danger.END
    for one in ALL_SETS:
        assert sets_danger([one]) == sets_danger_oracle([one]), one
    for two in itertools.product(ALL_SETS, repeat=2):
        assert sets_danger(list(two)) == sets_danger_oracle(list(two)), two


def test_sets_danger_random_hands_and_dangerous_ones() -> None:
    rng = random.Random(7)
    # sets drawn from one suit, from the honours, or the green tiles make the dangerous hands common
    pools = [ALL_SETS, [s for s in ALL_SETS if s[1][1] == "B"], [s for s in ALL_SETS if s[1] in WINDS + DRAGONS],
             [s for s in ALL_SETS if s[1] in GREEN or s == ("Chow", "2B")],
             [s for s in ALL_SETS if is_terminal(s[1]) or is_honour(s[1])]]
    seen: set[Danger] = set()
    for _ in range(40_000):
        pool = rng.choice(pools)
        sets = [rng.choice(pool) for _ in range(rng.randint(3, 6))]
        got = sets_danger(iter(sets))  # any iterable, as the history replay passes a generator
        assert got == sets_danger_oracle(sets), sets
        seen.add(got)
    # every flag was produced at least once, so the comparison covered each
    for flag in Danger:
        assert any(d & flag for d in seen), flag


def test_sets_danger_of_tiles_outside_the_table() -> None:
    odd = [("Pung", "1F"), ("Pung", "RD"), ("Kong", "WD")]
    assert sets_danger(odd) == sets_danger_oracle(odd)

"""The classical family's fast paths give what the straightforward code gives: the danger flags of declared sets
(``danger.sets_danger``, from a table of each set's part) against a direct transcription of mj-server's tally; the
best arrangement of a player's tiles (``arrange.best_arrangement``) against the plain enumeration of every
partition, scored one by one; the tiles that complete a hand (``hand.completions``) against ``can_mah_jong`` of
each; a loser's declarations (``family._closed_sets``) against every two or three of its tiles that make a set."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace

from referee.game.classical.arrange import _sets_and_kept, _winning_sets, best_arrangement
from referee.game.classical.danger import sets_danger
from referee.game.classical.family import CODE, _closed_sets, _declared_set
from referee.game.classical.hand import Hand, TileSet, can_mah_jong, completions, thirteen_wonders
from referee.game.classical.options import GameOptions
from referee.game.classical.scoring import Danger, HandScore, Situation, score_hand
from referee.game.classical.tiles import DRAGONS, GREEN, PLAYING, SPECIALS, WINDS, is_honour, is_terminal, step, suit

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


# ------------------------------------------------------------------------------------------------ arrangements
def _completes(part: list[TileSet], declared: int, pairs: int, seven: bool) -> bool:
    """Whether ``part`` with ``declared`` sets (``pairs`` of them pairs) is four sets and a pair, or seven pairs."""
    total = declared + len(part)
    n = pairs + sum(1 for s in part if s.size == 2)
    return (total == 5 and n == 1) or (seven and total == 7 and n == 7)


def partitions_oracle(counts: Counter[str], complete: bool) -> Iterator[list[TileSet]]:
    """Every way to make closed sets of ``counts``, each once: the first tile's pung, chow, pair, or kept out."""
    first = next((t for t in PLAYING if counts[t] > 0), None)
    if first is None:
        yield []
        return
    options: list[tuple[TileSet, list[str]]] = []
    if counts[first] >= 3:
        options.append((TileSet("ClosedPung", first), [first] * 3))
    b, c = step(first, 1), step(first, 2)
    if b is not None and c is not None and counts[b] and counts[c]:
        options.append((TileSet("ClosedChow", first), [first, b, c]))
    if counts[first] >= 2:
        options.append((TileSet("ClosedPair", first), [first] * 2))
    for ts, used in options:
        for t in used:
            counts[t] -= 1
        for rest in partitions_oracle(counts, complete):
            yield [ts, *rest]
        for t in used:
            counts[t] += 1
    if not complete:
        n = counts[first]
        counts[first] = 0
        yield from partitions_oracle(counts, complete)
        counts[first] = n


def best_arrangement_oracle(hand: Hand, at: Situation, options: GameOptions) -> tuple[Hand, HandScore]:
    """The first highest-scoring arrangement, every candidate built and scored from scratch."""
    counts = Counter(hand.concealed)
    if at.winner and thirteen_wonders(counts) and not hand.sets:
        return hand, score_hand(hand, at, options)
    claimed = at.winner and at.whence in ("discard", "robbed") and at.tile is not None
    caller = None
    if at.winner and at.tile is not None and at.tile in hand.concealed:
        rest = list(hand.concealed)
        rest.remove(at.tile)
        caller = Hand(rest, list(hand.sets), list(hand.specials))
    best: tuple[Hand, HandScore] | None = None
    for sets in partitions_oracle(counts, complete=at.winner):
        if at.winner and not _completes(sets, len(hand.sets), sum(1 for s in hand.sets if s.size == 2),
                                        bool(options.SevenPairs)):
            continue
        targets: list[int | None] = [i for i, s in enumerate(sets) if claimed and at.tile in s.tiles()] or [None]
        for i in targets:
            declared = list(sets)
            if i is not None:
                exposed = {"ClosedPung": "Pung", "ClosedChow": "Chow", "ClosedPair": "Pair"}[declared[i].type]
                declared[i] = TileSet(exposed, declared[i].tile)  # type: ignore[arg-type]
            leftover = Counter(hand.concealed) - Counter(t for s in sets for t in s.tiles())
            candidate = Hand(sorted(leftover.elements()), [*hand.sets, *declared], list(hand.specials))
            where = replace(at, caller=caller, claimed_set=(len(hand.sets) + i) if i is not None else None)
            scored = score_hand(candidate, where, options)
            if best is None or scored.value > best[1].value:
                best = (candidate, scored)
    assert best is not None
    return best


def random_sets(rng: random.Random, n: int) -> list[TileSet]:
    out = []
    for _ in range(n):
        kind = rng.choice(["Chow", "Pung", "Kong", "ClosedKong", "Pung"])
        tiles = [t for t in PLAYING if step(t, 2) is not None] if kind == "Chow" else list(PLAYING)
        out.append(TileSet(kind, rng.choice(tiles), annexed=kind == "Kong" and rng.random() < 0.5))  # type: ignore[arg-type]
    return out


def random_winner(rng: random.Random) -> tuple[list[TileSet], list[str]]:
    """Declared sets and the concealed tiles (completing tile included) of a complete hand."""
    declared = random_sets(rng, rng.randint(0, 3))
    if rng.random() < 0.15:  # seven pairs (scored as such only where SevenPairs allows)
        return [], [t for t in rng.sample(PLAYING, 7) for _ in range(2)]
    suit_pool = [t for t in PLAYING if t[1] == rng.choice("BCD")] if rng.random() < 0.5 else list(PLAYING)
    conc: list[str] = []
    for _ in range(4 - len(declared)):
        t = rng.choice([x for x in suit_pool if step(x, 2) is not None] or suit_pool)
        conc += [t, step(t, 1) or t, step(t, 2) or t] if rng.random() < 0.5 and step(t, 2) else [t] * 3
    conc += [rng.choice(suit_pool)] * 2
    return declared, conc


def test_best_arrangement_as_the_plain_enumeration() -> None:
    rng = random.Random(11)
    option_sets = [GameOptions(), GameOptions(SevenPairs=True, LosersPurity=True, KongHas3Types=True),
                   GameOptions(NoLimit=True, OnlyPlaceCountsExposed=False)]
    compared = winners = 0
    for k in range(1500):
        options = option_sets[k % len(option_sets)]
        exposed = Counter(rng.choices(PLAYING, k=30))
        specials = rng.sample(SPECIALS, rng.randint(0, 2))
        seat = rng.randrange(4)
        if k % 2:
            declared, conc = random_winner(rng)
            if not can_mah_jong(Hand(conc, declared, []), None, options.SevenPairs):
                continue
            tile = rng.choice(conc)
            whence = rng.choice(["wall", "loose", "discard", "robbed"])
            at = Situation(seat=seat, round_wind=rng.choice(WINDS), winner=True, whence=whence,  # type: ignore[arg-type]
                           tile=tile, exposed=exposed)
            winners += 1
        else:
            declared = random_sets(rng, rng.randint(0, 3))
            pool = [t for t in PLAYING if t[1] == rng.choice("BCD")] + list(DRAGONS) if rng.random() < 0.5 else PLAYING
            conc = sorted(rng.choices(pool, k=13 - 3 * len(declared)))
            conc = [t for t in conc if conc.count(t) <= 4]
            at = Situation(seat=seat, round_wind=rng.choice(WINDS), winner=False, exposed=exposed)
        hand = Hand(list(conc), declared, specials)
        got = best_arrangement(hand, at, options)
        want = best_arrangement_oracle(hand, at, options)
        assert got == want, (hand, at)
        compared += 1
    assert compared > 1200 and winners > 500


def test_partitions_in_the_plain_enumeration_s_order() -> None:
    """Every partition, in the same order (the first best arrangement is kept), for hands of one suit (many ways)
    and of any tiles, tiles kept out of sets or not (a winner's: the next test)."""
    rng = random.Random(3)
    for k in range(400):
        pool = [t for t in PLAYING if t[1] == "BCD"[k % 3]] if k % 2 else list(PLAYING)
        tiles = rng.choices(pool, k=rng.choice([8, 11, 14]))
        tiles = [t for t in tiles if tiles.count(t) <= 4]
        want = list(partitions_oracle(Counter(tiles), False))
        assert [sets for sets, _ in _sets_and_kept([tiles.count(t) for t in PLAYING], 0, [], [])] == want, tiles


def test_a_winners_sets_are_the_complete_partitions_in_their_order() -> None:
    """``_winning_sets`` (the walk with the branches that cannot complete a hand cut) gives the partitions of the
    plain enumeration that make four sets and a pair with the sets already declared, or seven pairs where allowed,
    in the same order: for hands that win and hands that do not, with 0 to 3 sets (pairs among them) declared."""
    rng = random.Random(11)
    found = 0
    for k in range(600):
        pool = [t for t in PLAYING if t[1] == "BCD"[k % 3]] if k % 2 else list(PLAYING)
        declared = rng.choice([0, 1, 2, 3])
        tiles = rng.choices(pool, k=14 - 3 * declared + rng.choice([0, 0, -1]))
        tiles = [t for t in tiles if tiles.count(t) <= 4]
        if k % 5 == 0:  # pairs only: seven pairs, or a pair in a hand of pairs
            tiles = [t for t in rng.sample(pool, 7 - declared) for _ in (0, 1)]
        pairs = rng.choice([0, 1]) if declared else 0
        for seven in (False, True):
            want = [part for part in partitions_oracle(Counter(tiles), True)
                    if _completes(part, declared, pairs, seven)]
            counts = [tiles.count(t) for t in PLAYING]
            assert _winning_sets(counts, declared, pairs, seven) == want, (tiles, declared, pairs, seven)
            assert counts == [tiles.count(t) for t in PLAYING]  # (left as it was)
            found += bool(want)
    assert found > 50


def test_completions_as_can_mah_jong_of_each_tile() -> None:
    rng = random.Random(5)
    for k in range(600):
        declared = random_sets(rng, rng.randint(0, 2))
        if k % 3 == 0:  # one tile short of the Thirteen Unique Wonders or of seven pairs
            conc = rng.sample(["1B", "9B", "1C", "9C", "1D", "9D", *WINDS, *DRAGONS], 13) if k % 2 else \
                [t for t in rng.sample(PLAYING, 6) for _ in range(2)] + [rng.choice(PLAYING)]
            declared = []
        else:
            suit_pool = [t for t in PLAYING if t[1] == rng.choice("BCD")]
            conc = rng.choices(suit_pool, k=13 - 3 * len(declared))
        hand = Hand(conc, declared, [])
        for seven in (False, True):
            want = [t for t in PLAYING if can_mah_jong(hand, t, seven)]
            assert list(completions(hand, PLAYING, seven)) == want, (hand, seven)
    # Waiting hands: four sets and a pair of one suit and the honours, less one tile (``completions`` looks only at
    # the tiles next to the ones held)
    waiting = 0
    for k in range(400):
        pool = [t for t in PLAYING if t[1] == "BCD"[k % 3]] + list(WINDS + DRAGONS)[: k % 8]
        held: Counter[str] = Counter()
        while sum(held.values()) < 12:
            t = rng.choice(pool)
            run = [t, step(t, 1), step(t, 2)] if rng.random() < 0.6 else [t, t, t]
            if None not in run and all(held[x] + run.count(x) <= 4 for x in run):
                held.update(run)  # type: ignore[arg-type]
        eyes = rng.choice([t for t in pool if held[t] <= 2])
        held[eyes] += 2
        conc = sorted(held.elements())
        conc.remove(rng.choice(conc))
        hand = Hand(conc, [], [])
        want = [t for t in PLAYING if can_mah_jong(hand, t, False)]
        assert list(completions(hand, PLAYING, False)) == want, hand
        waiting += bool(want)
    assert waiting == 400


def test_a_losers_declarations_are_every_set_of_its_tiles_once() -> None:
    """``_closed_sets`` (what a declaring loser is offered after ``pass``) against a plain enumeration: every two or
    three of its tiles that make a pair, a pung or a chow, one per set of faces, made of the lowest copies, in
    mj-server's order of faces (a face's pung, then the chow it starts, then its pair)."""
    rng = random.Random(33)
    playing = [t for t in sorted(CODE) if CODE[t] in PLAYING]
    kinds = {"ClosedPung": 0, "ClosedChow": 1, "ClosedPair": 2}
    for i in range(1500):
        pool = playing if i % 2 else [t for t in playing if CODE[t].endswith("C")]  # one suit: many runs
        rest = rng.sample(pool, rng.choice([0, 1, 2, 3, 5, 8, 11, 13, 14]))
        found: dict[TileSet, tuple[int, ...]] = {}
        for size in (2, 3):
            for tiles in itertools.combinations(sorted(rest), size):
                ts = _declared_set(tiles)  # (the set named by its faces, if they make one)
                if ts is not None and sorted(ts.tiles()) == sorted(CODE[t] for t in tiles):
                    found[ts] = min(found.get(ts, tiles), tiles)
        expected = [found[ts] for ts in sorted(found, key=lambda ts: (PLAYING.index(ts.tile), kinds[ts.type]))]
        assert _closed_sets(rest) == expected, rest

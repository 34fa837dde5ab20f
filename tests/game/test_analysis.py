"""Hand analysis: hand-built hands, and a brute-force cross-check of is_complete, waits and shanten."""

from __future__ import annotations

import itertools
import random
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.game import analysis
from referee.game.analysis import (
    Group,
    arrangements,
    is_complete,
    is_seven_pairs_and_pung,
    shanten,
    useful_tiles,
    waits,
)
from referee.game.tiles import ALL_TIDS, INDEX, KIND_AT, counts34

HONOUR_LETTERS = {"E": 27, "W": 28, "S": 29, "N": 30, "R": 31, "G": 32, "B": 33}  # B: white ("blank")


def hand(text: str) -> list[int]:
    """Counts from a short form: ``123m`` wan, ``45s`` tiao, ``678p`` tong, honours as letters E W S N R G B."""
    c = [0] * 34
    for token in text.split():
        if token[-1] in "msp":
            base = {"m": 0, "s": 9, "p": 18}[token[-1]]
            for ch in token[:-1]:
                c[base + int(ch) - 1] += 1
        else:
            for ch in token:
                c[HONOUR_LETTERS[ch]] += 1
    return c


def kinds(text: str) -> list[int]:
    c = hand(text)
    return [KIND_AT[j] for j in range(34) for _ in range(c[j])]


# ------------------------------------------------------------------------------------------ brute force

_SETS = [(j, j, j) for j in range(34)] + [
    (lo + r, lo + r + 1, lo + r + 2) for lo in (0, 9, 18) for r in range(7)
]


def brute_complete(counts: list[int], seven: bool = False) -> bool:
    """Try every group at the lowest tile, in every order (no canonical shortcut)."""
    if seven and sum(counts) == 17:
        odd = [c for c in counts if c % 2]
        if odd == [3] and all(c in (0, 2, 3, 4) for c in counts):
            return True
    if sum(counts) % 3 != 2:
        return False
    c = list(counts)

    def rec(pair_done: bool) -> bool:
        i = next((j for j in range(34) if c[j]), None)
        if i is None:
            return pair_done
        shapes = [s for s in _SETS if i in s] + ([] if pair_done else [(i, i)])
        for s in shapes:
            for x in s:
                c[x] -= 1
            if min(c) >= 0 and rec(pair_done or len(s) == 2):
                for x in s:
                    c[x] += 1
                return True
            for x in s:
                c[x] += 1
        return False

    return rec(False)


def brute_shanten(counts: list[int], need: int, seen: list[int] | None = None) -> int:
    """min over complete targets T (four copies at most, less the ``seen`` ones) of |T - hand| - 1, by enumeration.

    Targets are built from sets touching a held kind, plus sets and a pair on unheld kinds (a group that uses no
    hand tile costs the same wherever it sits)."""
    caps = [4 - x for x in seen] if seen else [4] * 34
    held = [j for j in range(34) if counts[j]]
    far = [j for j in range(33, -1, -1) if not counts[j] and caps[j] == 4][:3]
    sets = [s for s in _SETS if any(counts[x] for x in s)] + [(f, f, f) for f in far[:2]]
    pairs = [j for j in held] + [far[2]]
    best = 0
    for combo in itertools.combinations_with_replacement(sets, need):
        t: dict[int, int] = {}  # the target's sets: kind -> copies
        for s in combo:
            for x in s:
                t[x] = t.get(x, 0) + 1
        used = 0  # the hand tiles the sets use (plain loops: this oracle is the suite's hottest test code)
        for x, n in t.items():
            if n > caps[x]:
                break  # more copies than there are: no target
            used += n if n < counts[x] else counts[x]
        else:
            for p in pairs:  # and a pair at p: min(n + 2, held) - min(n, held) more hand tiles there
                n, c = t.get(p, 0), counts[p]
                if n + 2 <= caps[p]:
                    total = used + (n + 2 if n + 2 < c else c) - (n if n < c else c)
                    if total > best:
                        best = total
    return 3 * need + 1 - best


def brute_waits(counts: list[int], seven: bool = False, seen: list[int] | None = None) -> list[int]:
    out = []
    for j in range(34):
        if counts[j] + (seen[j] if seen else 0) < 4:
            c = list(counts)
            c[j] += 1
            if brute_complete(c, seven):
                out.append(KIND_AT[j])
    return out


POOLS = [
    list(range(9)),  # one suit: dense, many quads
    list(range(9)) + [27, 31],
    list(range(4, 9)) + list(range(9, 14)),
    list(range(27, 34)) + [0, 1, 2],
    list(range(34)),
]


@st.composite
def small_hands(draw: st.DrawFn, max_need: int = 2) -> tuple[list[int], int]:
    need = draw(st.integers(1, max_need))
    size = 3 * need + 1 + draw(st.integers(0, 1))
    pool = [k for k in draw(st.sampled_from(POOLS)) for _ in range(4)]
    picked = draw(st.lists(st.sampled_from(range(len(pool))), min_size=size, max_size=size, unique=True))
    c = [0] * 34
    for i in picked:
        c[pool[i]] += 1
    return c, need


@st.composite
def hands_with_seen(draw: st.DrawFn, max_need: int = 2) -> tuple[list[int], int, list[int]]:
    """A small hand and up to eight more copies of its pool's kinds out of its reach (``seen``)."""
    need = draw(st.integers(1, max_need))
    size = 3 * need + 1 + draw(st.integers(0, 1))
    more = draw(st.integers(1, 8))
    pool = [k for k in draw(st.sampled_from(POOLS)) for _ in range(4)]
    picked = draw(st.lists(st.sampled_from(range(len(pool))), min_size=size + more, max_size=size + more, unique=True))
    c = [0] * 34
    seen = [0] * 34
    for n, i in enumerate(picked):
        (c if n < size else seen)[pool[i]] += 1
    return c, need, seen


# --------------------------------------------------------------------------------------- is_complete


def test_is_complete_standard_hands() -> None:
    assert is_complete(hand("123m 456m 789m 111p 222p 33s"))
    assert is_complete(hand("111222333m 456p EEE 99s"))
    assert is_complete(hand("EEE WWW SSS NNN RR BBB"))  # 17 honours: five pungs and a pair
    assert is_complete(hand("11m"))  # after five melds only the pair is concealed
    assert is_complete(hand("234m 55p"))
    assert not is_complete(hand("123m 456m 789m 111p 222p 34s"))
    assert not is_complete(hand("123m 456m 789m 111p 2p 345s E"))  # 17 tiles, two singles
    assert not is_complete(hand("EEEE 11m"))  # four honours are not a pung and a single
    assert not is_complete(hand("12m"))
    assert not is_complete(hand("123m"))  # sum 3: not 3k+2
    assert not is_complete(hand("11m 22p"))  # two pairs


def test_seven_pairs_and_pung_only_with_the_option() -> None:
    h = hand("11m 22m 33m 55p 77p 99s EE RRR")
    assert sum(h) == 17
    assert is_seven_pairs_and_pung(h)
    assert not is_complete(h)
    assert is_complete(h, seven_pairs_and_pung=True)
    four_as_two_pairs = hand("1111m 22m 55p 77p 99s EE RRR")
    assert is_complete(four_as_two_pairs, seven_pairs_and_pung=True)
    assert not is_complete(hand("11m 22m 33m 55p 77p 99s EE RRRR"), seven_pairs_and_pung=True)  # 18 tiles
    assert not is_seven_pairs_and_pung(hand("11m 22m 33m 55p 77p 99s EEE RRR"))  # two pungs, six pairs


# --------------------------------------------------------------------------------------- arrangements


def test_arrangements_of_three_identical_chows_or_three_pungs() -> None:
    result = arrangements(hand("111222333m 55p"))
    assert result == [
        (Group("chow", 11), Group("chow", 11), Group("chow", 11), Group("pair", 35)),
        (Group("pung", 11), Group("pung", 12), Group("pung", 13), Group("pair", 35)),
    ]


def test_arrangements_pair_can_move() -> None:
    assert arrangements(hand("11123444m")) == [
        (Group("chow", 11), Group("pair", 11), Group("pung", 14)),
        (Group("pung", 11), Group("chow", 12), Group("pair", 14)),
    ]
    assert arrangements(hand("12m")) == []
    assert arrangements(hand("EEE WW 123m 456p 789s 11p")) == []  # two pairs


def test_arrangements_seven_pairs_shape_is_listed_last() -> None:
    h = hand("112233m 112233p 99s EEE")
    standard = arrangements(h)
    assert standard == [
        (
            Group("chow", 11),
            Group("chow", 11),
            Group("pair", 29),
            Group("chow", 31),
            Group("chow", 31),
            Group("pung", 41),
        ),
    ]
    both = arrangements(h, seven_pairs_and_pung=True)
    assert both[:1] == standard and len(both) == 2
    assert both[1] == (
        Group("pair", 11),
        Group("pair", 12),
        Group("pair", 13),
        Group("pair", 29),
        Group("pair", 31),
        Group("pair", 32),
        Group("pair", 33),
        Group("pung", 41),
    )
    assert arrangements(hand("1111m 22m 55p 77p 99s EE RRR"), seven_pairs_and_pung=True) == [
        (
            Group("pair", 11),
            Group("pair", 11),
            Group("pair", 12),
            Group("pair", 29),
            Group("pair", 35),
            Group("pair", 37),
            Group("pair", 41),
            Group("pung", 45),
        ),
    ]


# -------------------------------------------------------------------------------------------- waits


def test_waits_nine_gates_waits_on_all_nine() -> None:
    assert waits(hand("1112345678999m")) == [11, 12, 13, 14, 15, 16, 17, 18, 19]


def test_waits_two_sided_edge_and_single() -> None:
    assert waits(hand("23m 55p")) == [11, 14]
    assert waits(hand("12m 55p")) == [13]
    assert waits(hand("13m 55p")) == [12]
    assert waits(hand("E")) == [41]
    assert waits(hand("EE 55p")) == [35, 41]
    assert waits(hand("123m 456p 789s EEE RRR N")) == [44]


def test_a_kind_held_four_times_is_not_a_wait() -> None:
    assert waits(hand("1111m")) == []
    h = hand("1111m 234m")  # 111 + 234 + 1 would wait on a fifth 1m
    assert waits(h) == brute_waits(h) == [14]
    assert shanten(hand("1111m"), 4) == 1
    assert waits(hand("EEEE")) == []


def test_waits_rejects_wrong_sizes() -> None:
    with pytest.raises(ValueError, match="3k\\+1"):
        waits(hand("11m"))


def test_waits_seven_pairs() -> None:
    h = hand("11m 22m 33m 55p 77p 99s EE RR")  # eight pairs: any of them can become the pung
    assert sum(h) == 16
    assert waits(h) == []
    assert waits(h, seven_pairs_and_pung=True) == [11, 12, 13, 29, 35, 37, 41, 45]


# ------------------------------------------------------------------------------------------- shanten


def test_shanten_known_values() -> None:
    assert shanten(hand("123m 456m 789m 111p 222p 33s")) == -1
    assert shanten(hand("123m 456m 789m 111p 222p 3s")) == 0
    assert shanten(hand("147m 147s 147p ESWNRGB")) == 10  # 16 isolated tiles: 2*5 - 0
    assert shanten(hand("147m 147s 147p ESWNRGB 9m")) == 9  # 17 tiles: a partial 79m
    assert shanten(hand("123m 456m 789m 11p 23p 57p 9s")) == 1  # three sets, two partials, a pair
    assert shanten(hand("11m"), 5) == -1
    assert shanten(hand("1m"), 5) == 0
    assert shanten(hand("1m 2p"), 5) == 0  # 3k+2 with a swap from ready: throw one, wait on the other


def test_shanten_counts_melds() -> None:
    h = hand("123m 456m 11p 34s")
    assert sum(h) == 10
    assert shanten(h, melds=2) == 0
    with pytest.raises(ValueError, match="with 0 melds"):
        shanten(h, melds=0)
    with pytest.raises(ValueError, match="melds must be 0..5"):
        shanten(h, melds=6)


def test_shanten_seven_pairs_option() -> None:
    h = hand("11m 22m 44m 55p 77p 99s EE RR")  # 16 tiles: eight pairs -> ready for seven pairs and a pung
    assert shanten(h) > 0
    assert shanten(h, seven_pairs_and_pung=True) == 0
    full = hand("11m 22m 44m 55p 77p 99s EE RRR")
    assert shanten(full, seven_pairs_and_pung=True) == -1


def test_useful_tiles_of_a_ready_hand_are_its_waits() -> None:
    h = hand("123m 456m 789m 111p 222p 3s")
    assert useful_tiles(h) == waits(h) == [23]
    one_away = hand("123m 456m 789m 11p 23p 57p 9s")
    useful = useful_tiles(one_away)
    assert {31, 34, 36} <= set(useful)  # 1p (11p + 123p), 4p (234p), 6p (567p)
    for k in useful:
        c = list(one_away)
        c[INDEX[k]] += 1
        assert shanten(c) < shanten(one_away)
    assert useful_tiles(hand("1111m"), 4) == [k for k in KIND_AT if k != 11]  # any tile starts the pair
    with pytest.raises(ValueError):
        useful_tiles(hand("11m"), 5)


def test_an_exposed_pong_is_counted_against_the_wait() -> None:
    """The issue's hand: an exposed pong of 7-tong and concealed ``373 290 291 292``: no wait on a fifth 7-tong."""
    from referee.game.analysis import meld_counts
    from referee.game.types import Meld

    concealed = counts34([373, 290, 291, 292])
    seen = meld_counts([Meld("pong", (370, 371, 372), 372, 2)])
    assert seen[INDEX[37]] == 3 and sum(seen) == 3
    assert waits(concealed) == [37]  # the bare hand, as if no pong were known
    assert waits(concealed, seen=seen) == []
    assert shanten(concealed, 4) == 0 and shanten(concealed, 4, seen=seen) == 1
    useful = useful_tiles(concealed, 4, seen=seen)
    assert 37 not in useful and 11 in useful  # any new pair partner, never the gone 7-tong
    # a concealed gong (its four tiles known to their owner) takes all of its kind
    assert meld_counts([Meld("concealed_gong", (110, 111, 112, 113))])[INDEX[11]] == 4
    with pytest.raises(ValueError, match="at most 4"):
        waits(concealed, seen=[0] * 24 + [4] + [0] * 9)
    with pytest.raises(ValueError, match="34 counts"):
        shanten(concealed, 4, seen=[0])


def test_seen_tiles_make_live_waits() -> None:
    """Tiles seen anywhere (others' melds, rivers) count the same way: a wait whose copies are all gone is dead."""
    h = hand("123m 456m 789m 111p 222p 3s")  # waits on 3s alone
    seen = [0] * 34
    seen[INDEX[23]] = 3
    assert waits(h, seen=seen) == []
    assert shanten(h, seen=seen) == 1
    seen[INDEX[23]] = 2
    assert waits(h, seen=seen) == [23] and shanten(h, seen=seen) == 0
    two_sided = hand("123m 456m 789m 111p 22p 45s")  # 3s or 6s
    seen = [0] * 34
    seen[INDEX[23]] = 4
    assert waits(two_sided, seen=seen) == [26] == useful_tiles(two_sided, seen=seen)


# ------------------------------------------------------------------------------------ brute-force checks


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands_with_seen())
def test_seen_against_brute_force(case: tuple[list[int], int, list[int]]) -> None:
    """``seen`` copies lower every kind's limit: waits, shanten and useful tiles against brute force."""
    counts, need, seen = case
    melds = 5 - need
    s = shanten(counts, melds, seen=seen)
    assert s == brute_shanten(counts, need, seen)
    if sum(counts) % 3 == 1:
        w = waits(counts, seen=seen)
        assert w == brute_waits(counts, seen=seen)
        assert (s == 0) == bool(w)
        expected = []
        for j in range(34):
            if counts[j] + seen[j] < 4:
                c = list(counts)
                c[j] += 1
                if brute_shanten(c, need, seen) < s:
                    expected.append(KIND_AT[j])
        assert useful_tiles(counts, melds, seen=seen) == expected


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_hands())
def test_against_brute_force(case: tuple[list[int], int]) -> None:
    counts, need = case
    melds = 5 - need
    assert is_complete(counts) == brute_complete(counts)
    s = shanten(counts, melds)
    assert s == brute_shanten(counts, need)
    assert (s == -1) == is_complete(counts)
    if sum(counts) % 3 == 1:
        w = waits(counts)
        assert w == brute_waits(counts)
        assert (s == 0) == bool(w)
        useful = useful_tiles(counts, melds)
        expected = []
        for j in range(34):
            if counts[j] < 4:
                c = list(counts)
                c[j] += 1
                if brute_shanten(c, need) < s:
                    expected.append(KIND_AT[j])
        assert useful == expected


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_hands(max_need=3))
def test_against_brute_force_three_sets(case: tuple[list[int], int]) -> None:
    counts, need = case
    assert shanten(counts, 5 - need) == brute_shanten(counts, need)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=9, max_size=9).filter(lambda t: sum(t) <= 14))
def test_block_tables_agree_with_the_exact_programme(t: list[int]) -> None:
    """Without four of a kind the fast (unlimited-supply) suit tables equal the exact ones."""
    key = tuple(t)
    assert analysis._suit_table(key) == analysis._exact_suit_table(key)


def test_suit_tables_with_four_of_a_kind_agree_with_the_whole_suit_programme() -> None:
    """Suits with four of a kind: the table built run by run (the exact programme over each run's reach, the
    block tables elsewhere, shifted suits sharing one entry) equals the exact programme over the whole suit."""
    rng = random.Random(11)
    checked = 0
    while checked < 400:
        t = [0] * 9
        t[rng.randrange(9)] = 4
        for _ in range(rng.randrange(0, 10)):
            r = rng.randrange(9)
            if t[r] < 4:
                t[r] += 1
        key = tuple(t)
        assert analysis._suit_table(key) == analysis._exact_suit_table(key), key
        checked += 1


def brute_suit_table(t: tuple[int, ...], caps: tuple[int, ...] = (4,) * 9) -> tuple[int, ...]:
    """The definition of a suit's table by enumeration: entry ``s + 6 * p`` is the most tiles of ``t`` that at most
    ``s`` sets and ``p`` pairs of that suit (``caps[r]`` copies of rank ``r`` at most: four less those seen) can
    use.  Groups that use no tile of ``t`` are left out: dropping them never uses fewer tiles."""
    sets = [(r, r, r) for r in range(9) if t[r]] + [
        (r, r + 1, r + 2) for r in range(7) if t[r] or t[r + 1] or t[r + 2]
    ]
    best = [0] * 12
    for n in range(6):
        for combo in itertools.combinations_with_replacement(sets, n):
            target = [0] * 9
            for group in combo:
                for r in group:
                    target[r] += 1
            if any(target[r] > caps[r] for r in range(9)):
                continue
            used = sum(min(a, b) for a, b in zip(target, t))
            best[n] = max(best[n], used)
            for r in range(9):
                if t[r] and target[r] + 2 <= caps[r]:
                    best[n + 6] = max(best[n + 6], used + min(t[r], target[r] + 2) - min(t[r], target[r]))
    for p in (0, 1):
        for n in range(1, 6):
            best[n + 6 * p] = max(best[n + 6 * p], best[n - 1 + 6 * p])
    for n in range(6):
        best[n + 6] = max(best[n + 6], best[n])
    return tuple(best)


def random_suit(rng: random.Random, most: int) -> tuple[int, ...]:
    """Counts 0..3 of one suit, at most ``most`` tiles (the suits the shipped tables hold)."""
    t = [0] * 9
    for _ in range(rng.randrange(1, most + 1)):
        r = rng.randrange(9)
        if t[r] < 3:
            t[r] += 1
    return tuple(t)


def test_shipped_suit_tables_against_the_definitions() -> None:
    """The shipped tables (``suit_tables.bin``, what a new suit is looked up in) against the exact programme on
    random suits of up to 17 tiles, and against the enumeration of target groups on smaller ones."""
    rng = random.Random(19)
    for _ in range(300):
        t = random_suit(rng, 17)
        analysis._SUIT_IDS.pop(t, None)
        assert analysis._TABLE_AT[analysis._suit_id(t)] == analysis._exact_suit_table(t), t
    for _ in range(40):
        t = random_suit(rng, 9)
        analysis._SUIT_IDS.pop(t, None)
        assert analysis._TABLE_AT[analysis._suit_id(t)] == brute_suit_table(t), t


def test_the_exact_programme_with_copies_seen_against_the_enumeration() -> None:
    """``_exact_suit_table`` with ``caps`` (what ``seen`` copies leave: a greedy bot's every question) against the
    enumeration of target groups, on random small suits with random copies out of reach."""
    rng = random.Random(23)
    capped = 0
    for _ in range(60):
        t = random_suit(rng, 8)
        caps = tuple(rng.choice([4, 4, 3, 2, 1, 0]) if x < 2 else rng.choice([4, 3, x]) for x in t)
        caps = tuple(max(c, x) for c, x in zip(caps, t))  # the hand's own copies are never out of reach
        expected = brute_suit_table(t, caps)
        assert analysis._exact_suit_table(t, caps) == expected, (t, caps)
        capped += expected != brute_suit_table(t)
    assert capped > 10  # the seen copies changed the table in many of the cases


def test_suits_with_copies_seen_by_parts_agree_with_the_programme_over_the_whole_suit() -> None:
    """``_capped_suit_id`` (a suit with copies seen, split into parts that share no scarce rank) against the exact
    programme over the whole suit, on random suits with random copies seen: runs whose reaches share a rank with
    copies seen must be one part (split, their chows could both count the same last copy)."""
    rng = random.Random(29)
    merged = split = 0
    # Runs two empty ranks apart with copies seen between them: found by this comparison when runs were always parts.
    found = [((0, 1, 1, 0, 1, 1, 0, 0, 1), (0, 0, 0, 4, 2, 0, 3, 0, 3)),
             ((1, 1, 2, 1, 0, 0, 3, 2, 0), (0, 3, 0, 0, 3, 2, 0, 2, 0)),
             ((1, 1, 0, 0, 1, 0, 2, 3, 1), (0, 0, 3, 0, 2, 4, 0, 0, 0))]
    for case in range(1500):
        if case < len(found):
            t, seen = map(list, found[case])
        else:
            t = [0] * 9
            for _ in range(rng.randrange(1, 15)):
                r = rng.randrange(9)
                t[r] = min(t[r] + 1, 4)
            seen = [rng.randint(0, 4 - c) if rng.random() < 0.3 else 0 for c in t]
        key = tuple(t)
        caps = analysis._seen_caps(key, seen)
        parts = analysis._capped_parts(key, caps)
        merged += len(parts) < len(analysis._components(key))
        split += len(parts) > 1 and min(caps) < 4
        analysis._CAPPED_SUITS.pop((key, tuple(seen)), None)
        got = analysis._TABLE_AT[analysis._capped_suit_id(key, seen)]
        assert got == analysis._exact_suit_table(key, caps), (key, seen)
    assert merged > 50 and split > 200  # both cases were met


@pytest.mark.slow
def test_the_shipped_suit_tables_are_what_the_builder_makes() -> None:
    """``suit_tables.bin`` holds exactly what ``python -m referee.game.make_suit_tables`` writes (compared
    decompressed: zlib's bytes may differ between zlib builds, the tables may not)."""
    shipped = Path(analysis.__file__).with_name(analysis.SUIT_TABLES_FILE).read_bytes()
    assert zlib.decompress(shipped) == analysis.build_suit_tables()


def random_seen_suit(rng: random.Random, patterns: list[tuple[tuple[int, ...], int]]) -> tuple[tuple[int, ...], ...]:
    """A suit of ``seen_tables.bin`` (``patterns``: its seen patterns): a pattern (the copies of one, two or three
    melds alike often) and held counts within its bounds and limit."""
    most = rng.choice(analysis.SEEN_TABLES_HELD)
    seen = rng.choice([s for s, limit in patterns if limit == most])
    bounds = analysis._held_bounds(seen)
    t = [0] * 9
    for _ in range(rng.randrange(0, most + 1)):
        r = rng.randrange(9)
        if t[r] < bounds[r]:
            t[r] += 1
    return tuple(t), seen


def test_the_shipped_seen_tables_hold_what_their_header_names() -> None:
    """``seen_tables.bin``'s header: the patterns, their held limits and where each pattern's suits start, as the
    builder lays them out; the suits of a pattern are indexed by their place in the builder's order."""
    data = Path(analysis.__file__).with_name(analysis.SEEN_TABLES_FILE).read_bytes()
    patterns = analysis.seen_patterns()
    assert len(patterns) == int.from_bytes(data[0:2], "little") == 2074
    first = 0
    for k, (seen, most) in enumerate(patterns):
        record = data[8 + 14 * k : 22 + 14 * k]
        assert (tuple(record[:9]), record[9], int.from_bytes(record[10:14], "little")) == (seen, most, first)
        first += analysis._held_ranker(seen, most)[9][most][0]
    assert int.from_bytes(data[4:8], "little") == first
    assert len(data) == 8 + 14 * len(patterns) + 12 * int.from_bytes(data[2:4], "little") + first
    for seen, most in (patterns[0], patterns[20], patterns[-1]):
        steps = analysis._held_ranker(seen, most)
        for index, t in enumerate(analysis._held_suits(seen, most)):
            k, at = most, 0
            for r, x in enumerate(t):
                at += steps[r][k][x]
                k -= x
            assert at == index, (seen, t)


def test_shipped_seen_tables_against_the_builder_and_the_programme() -> None:
    """Suits with copies seen looked up in ``seen_tables.bin`` (greedy's copies of its own melds) against the same
    tables built from scratch, against the exact programme over the whole suit, and against the enumeration of
    target groups on small suits."""
    rng = random.Random(31)
    patterns = analysis.seen_patterns()
    capped = 0
    for case in range(1500):
        t, seen = random_seen_suit(rng, patterns)
        shipped = analysis._shipped_seen_id(t, seen)
        assert shipped is not None, (t, seen)
        built = analysis._built_capped_suit_id(t, seen)
        table = analysis._TABLE_AT[analysis._built_suit_id(t) if built is None else built]
        caps = analysis._seen_caps(t, seen)
        assert analysis._TABLE_AT[shipped] == table == analysis._exact_suit_table(t, caps), (t, seen)
        if case < 60 and sum(t) <= 5:
            assert table == brute_suit_table(t, caps), (t, seen)
        capped += table != analysis._suit_table(t)
    assert capped > 60  # the copies seen changed the table in many cases (92 of this sample)


def test_suits_outside_the_shipped_seen_tables_are_built() -> None:
    """A suit the file does not hold (four of a kind in hand, more held tiles than its limit, copies seen that are
    not those of one, two or three melds) is built, and equals the exact programme."""
    pung_of_4 = (0, 0, 0, 3, 0, 0, 0, 0, 0)
    for t, seen in (((4, 1, 1, 1, 0, 0, 0, 0, 0), pung_of_4),  # four of a kind
                    ((2, 2, 1, 1, 2, 1, 0, 0, 0), pung_of_4),  # 9 held beside one meld
                    ((1, 1, 1, 1, 1, 1, 1, 0, 0), (0, 0, 0, 3, 3, 0, 0, 0, 0)),  # 7 held beside two melds
                    ((1, 1, 1, 1, 0, 0, 0, 0, 0), (0, 0, 0, 3, 3, 3, 0, 0, 0)),  # 4 held beside three melds
                    ((0, 1, 1, 0, 2, 0, 0, 0, 0), (0, 0, 0, 2, 0, 1, 0, 0, 0))):  # copies from rivers
        assert analysis._shipped_seen_id(t, seen) is None, (t, seen)
        analysis._CAPPED_SUITS.pop((t, seen), None)
        assert analysis._TABLE_AT[analysis._capped_suit_id(t, seen)] == analysis._exact_suit_table(
            t, analysis._seen_caps(t, seen)), (t, seen)


def test_useful_tiles_with_copies_seen_are_the_draws_that_lower_shanten() -> None:
    """``useful_tiles`` with the copies of a seat's own melds seen (greedy's every question once it has melded),
    which decides the tiles far from the hand and from the seen copies with one look-up, against its definition:
    the kinds not all gone whose draw lowers ``shanten`` with the same copies seen.  Hands of a few kinds, so that
    many kinds are far from the hand; a kind near none of its tiles but with copies seen is not a lone tile (the
    first case: 8-wan and 8-tiao, three of each seen, cannot make the pair the hand needs)."""
    rng = random.Random(37)
    melds_of = [(k, k, k) for k in range(34)] + [(k, k + 1, k + 2) for k in range(27) if k % 9 < 7]
    melds_of += [(k, k, k, k) for k in range(34)]
    cases = [(hand("2222p"), 4, hand("567m 888m 888s EEE"))]
    while len(cases) < 400:
        melds = rng.randrange(1, 5)
        seen = [0] * 34
        for group in rng.sample(melds_of, melds):
            for k in group:
                seen[k] += 1
        kinds = rng.sample(range(34), rng.randrange(1, 7))
        counts = [0] * 34
        for k in rng.choices(kinds, k=40):
            if sum(counts) < 16 - 3 * melds and counts[k] + seen[k] < 4:
                counts[k] += 1
        if max(seen) <= 4 and sum(counts) == 16 - 3 * melds:
            cases.append((counts, melds, seen))
    for counts, melds, seen in cases:
        base = shanten(counts, melds, seen=seen)
        expected = []
        for j in range(34):
            if counts[j] + seen[j] < 4:
                counts[j] += 1
                if shanten(counts, melds, seen=seen) < base:
                    expected.append(KIND_AT[j])
                counts[j] -= 1
        assert useful_tiles(counts, melds, seen=seen) == expected, (counts, melds, seen)


@pytest.mark.slow
def test_the_shipped_seen_tables_are_what_the_builder_makes() -> None:
    """``seen_tables.bin`` against what ``python -m referee.game.make_suit_tables`` writes: its header whole, the
    tables of an eighth of its patterns built and compared (some 20 s; building it whole took three minutes of the
    suite's run; ``python -m referee.game.make_suit_tables --check`` compares it all)."""
    shipped = Path(analysis.__file__).with_name(analysis.SEEN_TABLES_FILE).read_bytes()
    assert analysis.check_seen_tables(shipped, every=8) is None


def test_a_seen_tables_file_that_differs_is_found_where_it_differs() -> None:
    """``check_seen_tables`` on copies of the shipped file changed in one place: a pattern's record, the table of a
    pattern's entry, an entry pointing at another table, a cut file; each is named."""
    shipped = Path(analysis.__file__).with_name(analysis.SEEN_TABLES_FILE).read_bytes()
    _p, n, _size, tables_at, entries_at = analysis.seen_layout(shipped)
    first_table = shipped[entries_at]  # the table of the first pattern's first suit

    def changed(at: int, value: int) -> bytes:
        data = bytearray(shipped)
        data[at] = value
        return bytes(data)

    assert "pattern 0" in (analysis.check_seen_tables(changed(8 + 9, shipped[8 + 9] ^ 1), every=8) or "")
    table_byte = tables_at + 12 * first_table
    found = analysis.check_seen_tables(changed(table_byte, shipped[table_byte] ^ 0xFF), every=8) or ""
    assert found.startswith("pattern 0") and "not the one the builder makes" in found
    other = next(k for k in range(n) if shipped[tables_at + 12 * k : tables_at + 12 * (k + 1)]
                 != shipped[tables_at + 12 * first_table : tables_at + 12 * (first_table + 1)])
    assert "not the one the builder makes" in (analysis.check_seen_tables(changed(entries_at, other), every=8) or "")
    assert "bytes, not the" in (analysis.check_seen_tables(shipped[:-1]) or "")
    assert analysis.check_seen_tables(b"") == "0 bytes: no header"


def test_the_table_builder_refuses_an_unknown_argument() -> None:
    """``python -m referee.game.make_suit_tables`` takes ``--check`` or nothing: anything else is a usage error
    (exit 2), and nothing is written."""
    import subprocess
    import sys

    before = {name: Path(analysis.__file__).with_name(name).stat().st_mtime_ns
              for name in (analysis.SUIT_TABLES_FILE, analysis.SEEN_TABLES_FILE)}
    proc = subprocess.run([sys.executable, "-m", "referee.game.make_suit_tables", "--chek"], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, check=False)
    assert proc.returncode == 2 and proc.stderr.startswith("usage: python -m referee.game.make_suit_tables"), proc
    assert {name: Path(analysis.__file__).with_name(name).stat().st_mtime_ns for name in before} == before


def test_greedy_plays_the_same_with_the_shipped_seen_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """Greedy's decisions with the suits of its copies seen looked up in ``seen_tables.bin`` are those it made when
    it built them: the play digests of two matches in which the copies seen change its play (they differ when
    greedy passes no copies seen) are pinned, and equal those of the same matches with the tables built."""
    from referee.game.taiwan16.rules import make_ruleset
    from referee.match import play_match, resolve_bots

    seats = ["greedy:chowness=0.9,hiddenness=0.1", "greedy", "greedy:chowness=0.9,hiddenness=0.1",
             "greedy:hiddenness=0.1"]
    pinned = {2: "6bd4a24d23144100913b925e09afc8af", 21: "24b9d837f2803cdc03789087e9c1e4bf"}

    def digests() -> dict[int, str]:
        monkeypatch.setattr(analysis, "_CAPPED_SUITS", {})
        rules = make_ruleset({"hands": 4})
        return {seed: play_match(resolve_bots(seats), seed=seed, rules=rules).play_digest for seed in pinned}

    assert digests() == pinned
    monkeypatch.setattr(analysis, "_shipped_seen_id", lambda t, seen: None)
    assert digests() == pinned


def test_full_size_hands_consistency() -> None:
    """16/17-tile random hands: shanten -1 iff complete, 0 iff waiting; draws of useful tiles lower shanten."""
    rng = random.Random(7)
    wall = list(ALL_TIDS)
    for _ in range(300):
        rng.shuffle(wall)
        h17 = counts34(wall[:17])
        assert (shanten(h17) == -1) == is_complete(h17)
        h16 = counts34(wall[:16])
        s = shanten(h16)
        assert (s == 0) == bool(waits(h16))
        useful = set(useful_tiles(h16))
        for j in range(34):
            if h16[j] < 4:
                c = list(h16)
                c[j] += 1
                assert (shanten(c) < s) == (KIND_AT[j] in useful)


@pytest.mark.slow
def test_seven_pairs_against_brute_force() -> None:
    rng = random.Random(3)
    pool = [k for k in range(9) for _ in range(4)] + [27] * 4 + [31] * 4
    for _ in range(300):
        c = [0] * 34
        seen = [0] * 34
        picked = rng.sample(pool, 16 + rng.randrange(4))
        for k in picked[:16]:
            c[k] += 1
        for k in picked[16:]:
            seen[k] += 1
        w = waits(c, seven_pairs_and_pung=True)
        assert w == brute_waits(c, seven=True)
        assert (shanten(c, seven_pairs_and_pung=True) == 0) == bool(w)
        w = waits(c, seven_pairs_and_pung=True, seen=seen)
        assert w == brute_waits(c, seven=True, seen=seen)
        assert (shanten(c, seven_pairs_and_pung=True, seen=seen) == 0) == bool(w)


@settings(max_examples=400)
@given(st.data())
def test_completes_with_agrees_with_is_complete(data: st.DataObject) -> None:
    """The per-group shortcut the engine uses for "does this tile win?" is ``is_complete`` of the hand plus it."""
    from referee.game.analysis import completes_with, group_states

    size = data.draw(st.sampled_from([1, 4, 7, 10, 13, 16]))
    pool = [i for i in range(34) for _ in range(4)]
    picks = data.draw(st.lists(st.sampled_from(range(len(pool))), min_size=size, max_size=size, unique=True))
    counts = [0] * 34
    for k in picks:
        counts[pool[k]] += 1
    states = group_states(counts)
    for i in range(34):
        if counts[i] == 4:
            continue
        plus = list(counts)
        plus[i] += 1
        assert completes_with(counts, states, i) == is_complete(plus), (counts, i)


def _waiting_hand(rng: random.Random, sets: int = 5, chow_share: float = 0.5) -> list[int]:
    """A complete hand of ``sets`` random chows and pungs (a chow with probability ``chow_share``) and a pair, less
    one of its tiles: it waits at least on the tile taken out."""
    while True:
        counts = [0] * 34
        for _ in range(sets):
            if rng.random() < chow_share:
                suit, r = rng.randrange(3), rng.randrange(7)
                for d in range(3):
                    counts[9 * suit + r + d] += 1
            else:
                counts[rng.randrange(34)] += 3
        counts[rng.randrange(34)] += 2
        if max(counts) <= 4:
            counts[rng.choice([i for i in range(34) if counts[i]])] -= 1
            return counts


def test_completes_with_on_waiting_hands() -> None:
    """Waiting hands (a complete hand less one tile), where the shortcut must search: 3,000 of them."""
    from referee.game.analysis import completes_with, group_states

    rng = random.Random(5)
    checked = wins = 0
    while checked < 3000:
        counts = _waiting_hand(rng)
        states = group_states(counts)
        for i in range(34):
            plus = list(counts)
            plus[i] += 1
            expected = is_complete(plus)
            wins += expected
            assert completes_with(counts, states, i) == expected, (counts, i)
        checked += 1
    assert wins >= 3000  # every hand waits on at least the tile taken out


def test_group_is_the_named_tuple_the_type_checker_reads() -> None:
    """``analysis.Group`` is a ``collections.namedtuple`` at run time (``typing`` is no part of a bot's start) and a
    ``typing.NamedTuple`` for type checkers: both must name the same fields in the same order."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(analysis))
    checked = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef) and node.name == "Group"]
    assert len(checked) == 1
    fields = [s.target.id for s in checked[0].body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
    assert tuple(fields) == analysis.Group._fields == ("type", "kind")
    group = analysis.Group("pung", 11)
    assert group == ("pung", 11) and group.kind == 11 and group.type == "pung"


# ------------------------------------------------------------------------------------------ group keys


def _key_by_definition(counts: list[int], g: int) -> int:
    """A group's key as documented: base 5, the r-th kind's count times 5**r, the honours offset by 5**9."""
    lo, n = (0, 9) if g == 0 else (9, 9) if g == 1 else (18, 9) if g == 2 else (27, 7)
    return sum(counts[lo + r] * 5**r for r in range(n)) + (5**9 if g == 3 else 0)


def _waiting_or_random_hand(rng: random.Random) -> list[int]:
    """Half random 3k+1 hands, half a complete hand less one tile (so that waits are often not empty)."""
    size = rng.choice([1, 4, 7, 10, 13, 16])
    counts = [0] * 34
    if rng.random() < 0.5:
        for t in rng.sample(ALL_TIDS, size):
            counts[INDEX[t // 10]] += 1
        return counts
    return _waiting_hand(rng, (size - 1) // 3, chow_share=0.6)


def test_waits_by_group_keys_agree_with_standard_waits_and_brute_force() -> None:
    """``group_keys`` is the documented base-5 code; ``standard_waits_of_keys`` (what the engine asks) is
    ``standard_waits`` of the counts, which is brute force's waits; a tile added by ``KEY_STEP`` is the key of the
    counts plus it."""
    from referee.game.analysis import GROUP_OF, KEY_START, KEY_STEP, group_keys, standard_waits, standard_waits_of_keys

    assert group_keys([0] * 34) == list(KEY_START)
    rng = random.Random(11)
    nonempty = 0
    for _ in range(2000):
        counts = _waiting_or_random_hand(rng)
        keys = group_keys(counts)
        assert keys == [_key_by_definition(counts, g) for g in range(4)]
        found = standard_waits_of_keys(keys)
        assert found == standard_waits(counts)
        assert [KIND_AT[i] for i in found] == brute_waits(counts)
        nonempty += bool(found)
        i = rng.choice([j for j in range(34) if counts[j] < 4])
        stepped = list(keys)
        stepped[GROUP_OF[i]] += KEY_STEP[i]
        counts[i] += 1
        assert stepped == group_keys(counts)
    assert nonempty > 600  # the check saw many waiting hands, not only hands with no wait

"""Hand analysis: complete hands, their arrangements, waits, shanten and useful tiles.

This module is in every bot's inner loop, so it is pure, allocation-light and cached.  A hand is a 34-vector of
counts by dense kind index (``tiles.INDEX``/``tiles.KIND_AT``, ``tiles.counts34``): 0-8 wan, 9-17 tiao, 18-26 tong,
27-33 honours.  Exposed melds are not part of the vector; functions that need to know how many sets are already
made take ``melds`` (exposed sets and concealed gongs).

How it is fast: every question is answered suit by suit.  The three suits are looked up in caches keyed by their
9-count tuple; the honours need no search (no chows), so they are handled by counting.

Copies the hand cannot draw: ``waits``, ``shanten`` and ``useful_tiles`` take ``seen``, a 34-vector of the copies of
each kind that are outside the concealed hand.  The four-copy limit then applies to hand plus ``seen``: a seat
must pass at least its own melds (exposed sets and concealed gongs; ``meld_counts``), or a hand holding one 7-tong
beside an exposed pong of 7-tong "waits" on a fifth copy.  A bot that passes every tile it sees (all melds, all
rivers) gets *live* answers: no wait or useful tile that is all gone.  The engine's own questions never need it.

Shanten (tiles away from ready; -1 complete, 0 ready) is computed **exactly**, counting the four-copy limit: it is
``min over complete hands C of the hand's size (or one more) of |C minus hand| - 1``, which is the number of
draw-and-throw exchanges to reach a winning hand.  Each suit contributes a small table: the most hand tiles that
``s`` set-groups and ``p`` pair-groups (s <= 5, p <= 1) can use there.  Suits without four of a kind use the usual
block decomposition (sets, partial sets, pairs, singles; each block is completed by tiles of unlimited supply);
a suit with four of a kind, or with ``seen`` copies, where the unlimited-supply shortcut can be wrong (a wait on a
fifth copy), uses an exact dynamic programme over target hands.  The classic formula
``2*need - 2*sets - partials - pair`` (with the cap ``sets + partials <= need``) is what the block tables compute;
the tests check all of this against brute force.
"""

from __future__ import annotations

from _thread import _local  # (``threading`` itself would cost a bot's every start a millisecond)
from collections import namedtuple
from collections.abc import Iterable, Iterator, Sequence
from operator import add

from .tiles import INDEX, KIND_AT
from .types import TYPE_CHECKING, Meld

if TYPE_CHECKING:  # ``typing`` is no part of a bot's start (see ``referee.game.kinds``)
    from mmap import mmap
    from typing import NamedTuple

    from .kinds import GroupType

__all__ = [
    "GROUP_OF",
    "KEY_START",
    "KEY_STEP",
    "SETS_NEEDED",
    "UNKNOWN",
    "Group",
    "completes_with",
    "group_states",
    "arrangements",
    "is_complete",
    "is_seven_pairs_and_pung",
    "meld_counts",
    "shanten",
    "standard_waits",
    "standard_waits_of_keys",
    "group_keys",
    "useful_tiles",
    "waits",
]

SETS_NEEDED = 5  # Taiwan 16-tile: five sets and a pair
_CACHE_LIMIT = 400_000  # entries per cache before it is cleared (a bound on memory in very long runs)
_SUIT_STARTS = (0, 9, 18)


if TYPE_CHECKING:

    class Group(NamedTuple):
        """One group of an arrangement: ``type`` chow/pung/pair and ``kind`` (11..47; the lowest kind of a chow)."""

        type: GroupType
        kind: int

else:  # the same named tuple without ``typing`` (a test checks that the two name the same fields)
    Group = namedtuple("Group", ("type", "kind"))
    Group.__doc__ = "One group of an arrangement: ``type`` chow/pung/pair and ``kind`` (11..47; a chow's lowest kind)."


# ------------------------------------------------------------------------------------ exact decompositions


if TYPE_CHECKING:
    _Groups = tuple[tuple[GroupType, int], ...]  # (type, rank index 0..8) within one suit


def _splits(t: tuple[int, ...], pair: bool) -> Iterator[tuple[int, int, int, int, tuple[int, ...]]]:
    """The ways to spend every tile of the lowest rank held in the 9 counts ``t`` of one suit: ``(i, pungs,
    pairs, chows, rest)``, ``i`` that rank, ``rest`` the counts left.  A pair only when ``pair``.  The one step
    of ``_decompose`` and ``_can_sets``; empty counts give nothing."""
    i = 0
    while i < 9 and t[i] == 0:
        i += 1
    if i == 9:
        return
    c = t[i]
    for pungs in (0, 1):
        for pairs in (0, 1) if pair else (0,):
            chows = c - 3 * pungs - 2 * pairs
            if chows < 0:
                continue
            if chows and (i > 6 or t[i + 1] < chows or t[i + 2] < chows):
                continue
            rest = list(t)
            rest[i] = 0
            if chows:
                rest[i + 1] -= chows
                rest[i + 2] -= chows
            yield i, pungs, pairs, chows, tuple(rest)


def _decompose(t: tuple[int, ...], pair: bool) -> tuple[_Groups, ...]:
    """Every multiset of groups ``(type, rank index 0..8)`` that exactly uses the 9 counts ``t`` of one suit:
    sets only, or sets and exactly one pair (``pair``).  Canonical: at the lowest rank held, all its tiles are
    spent at once on a pung, a pair and chows starting there, so that no multiset is produced twice."""
    key = (t, pair)
    hit = _DECOMP.get(key)
    if hit is not None:
        return hit
    if not any(t):
        result: tuple[_Groups, ...] = () if pair else ((),)
    else:
        out: list[_Groups] = []
        for i, pungs, pairs, chows, rest in _splits(t, pair):
            pung: _Groups = (("pung", i),)
            pair_group: _Groups = (("pair", i),)
            chow: _Groups = (("chow", i),)
            head = pung * pungs + pair_group * pairs + chow * chows
            for tail in _decompose(rest, pair and not pairs):
                out.append(head + tail)
        result = tuple(out)
    if len(_DECOMP) > _CACHE_LIMIT:
        _DECOMP.clear()
    _DECOMP[key] = result
    return result


_DECOMP: dict[tuple[tuple[int, ...], bool], tuple[_Groups, ...]] = {}


def _can_sets(t: tuple[int, ...], pair: bool) -> bool:
    """Whether the suit counts ``t`` split into sets (and exactly one pair, with ``pair``); early exit."""
    if not any(t):
        return not pair
    for _, _, pairs, _, rest in _splits(t, pair):
        if _can_sets(rest, pair and not pairs):
            return True
    return False


_SUIT_STATE: dict[tuple[int, ...], int] = {}


def _suit_state(t: tuple[int, ...]) -> int:
    """-1: the suit cannot be part of a complete hand; 0: it splits into sets; 1: into sets and one pair."""
    r = sum(t) % 3
    if r == 1:
        state = -1
    elif r == 0:
        state = 0 if _can_sets(t, False) else -1
    else:
        state = 1 if _can_sets(t, True) else -1
    if len(_SUIT_STATE) > _CACHE_LIMIT:
        _SUIT_STATE.clear()
    _SUIT_STATE[t] = state
    return state


def _is_standard(counts: Sequence[int]) -> bool:
    pairs = 0
    for c in counts[27:34]:
        if c == 2:
            pairs += 1
        elif c == 1 or c == 4:
            return False
    if pairs > 1:
        return False
    get = _SUIT_STATE.get
    for lo in _SUIT_STARTS:
        t = tuple(counts[lo : lo + 9])
        s = get(t)
        if s is None:
            s = _suit_state(t)
        if s < 0:
            return False
        pairs += s
    return pairs == 1


def _honour_state(honours: Sequence[int]) -> int:
    """``_suit_state`` for the 7 honour counts: pungs only, so a count of 1 or 4 (or two pairs) cannot complete."""
    pairs = 0
    for c in honours:
        if c == 2:
            pairs += 1
        elif c == 1 or c == 4:
            return -1
    return pairs if pairs <= 1 else -1


UNKNOWN = -2  # a group state not computed yet (see ``group_states``)


def group_states(counts: Sequence[int], states: list[int] | None = None) -> list[int]:
    """Per group (wan, tiao, tong, honours): -1 if it cannot be part of a complete hand as it is, 0 if it splits
    into sets, 1 into sets and one pair.  With ``completes_with`` this answers "does this tile win?" for a
    waiting hand by looking at one group only (the others cannot change).  Given ``states``, only its
    ``UNKNOWN`` entries are computed, in place: a hand that changed in one group costs one look-up."""
    if states is None:
        states = [UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN]
    get = _SUIT_STATE.get
    for g in range(3):
        if states[g] == UNKNOWN:
            lo = 9 * g
            t = tuple(counts[lo : lo + 9])
            st = get(t)
            states[g] = _suit_state(t) if st is None else st
    if states[3] == UNKNOWN:
        states[3] = _honour_state(counts[27:34])
    return states


GROUP_OF = (0,) * 9 + (1,) * 9 + (2,) * 9 + (3,) * 7  # kind index -> group


def completes_with(counts: Sequence[int], states: Sequence[int], i: int) -> bool:
    """Whether ``counts`` plus one tile of kind index ``i`` is a complete standard hand (``is_complete`` without
    seven pairs and a pung), given ``states = group_states(counts)``.  Usually decided without any search: a
    hand whose other groups cannot complete is rejected at once."""
    g = GROUP_OF[i]
    pairs = 0
    for k in range(4):
        if k != g:
            st = states[k]
            if st < 0:
                return False
            pairs += st
    if pairs > 1:
        return False
    lo = 9 * g
    part = list(counts[lo : lo + 9])
    part[i - lo] += 1
    if g == 3:
        st = _honour_state(part)
    else:
        t = tuple(part)
        hit = _SUIT_STATE.get(t)
        st = _suit_state(t) if hit is None else hit
    return st >= 0 and pairs + st == 1


def is_seven_pairs_and_pung(counts: Sequence[int]) -> bool:
    """嚦咕嚦咕: 17 concealed tiles as seven pairs and one pung.  Four of a kind counts as two pairs."""
    threes = 0
    total = 0
    for c in counts:
        if c == 3:
            threes += 1
        elif c == 1 or c > 4:
            return False
        total += c
    return threes == 1 and total == 17


def is_complete(counts: Sequence[int], *, seven_pairs_and_pung: bool = False) -> bool:
    """Whether the concealed counts (sum ≡ 2 mod 3) split into (sum-2)/3 sets and one pair.

    With ``seven_pairs_and_pung`` a 17-tile hand of seven pairs and one pung also counts.
    """
    if sum(counts) % 3 != 2:
        return False
    if _is_standard(counts):
        return True
    return seven_pairs_and_pung and is_seven_pairs_and_pung(counts)


def _honour_groups(counts: Sequence[int]) -> tuple[Group, ...] | None:
    groups: list[Group] = []
    for j in range(27, 34):
        c = counts[j]
        if c == 3:
            groups.append(Group("pung", KIND_AT[j]))
        elif c == 2:
            groups.append(Group("pair", KIND_AT[j]))
        elif c:
            return None
    return tuple(groups)


def _group_key(g: Group) -> tuple[int, str]:
    return (g.kind, g.type)


def arrangements(counts: Sequence[int], *, seven_pairs_and_pung: bool = False) -> list[tuple[Group, ...]]:
    """Every distinct decomposition of a complete concealed hand into sets and one pair (empty if none).

    Each arrangement is a tuple of :class:`Group`, sorted by kind then type name; the list is sorted.  With
    ``seven_pairs_and_pung`` a 17-tile seven-pairs-and-pung hand also yields that shape (seven ``pair`` groups,
    four of a kind giving two, and one ``pung``), listed last.
    """
    result: list[tuple[Group, ...]] = []
    if sum(counts) % 3 == 2:
        honours = _honour_groups(counts)
        if honours is not None:
            honour_pairs = sum(1 for g in honours if g.type == "pair")
            if honour_pairs <= 1:
                # which suit holds the pair is fixed by the remainders; enumerate per suit and combine
                per_suit: list[list[tuple[Group, ...]]] = []
                pairs_needed = 1 - honour_pairs
                ok = True
                for lo in _SUIT_STARTS:
                    t = tuple(counts[lo : lo + 9])
                    r = sum(t) % 3
                    if r == 1 or (r == 2 and not pairs_needed):
                        ok = False
                        break
                    if r == 2:
                        pairs_needed = 0
                    options = _decompose(t, r == 2)
                    if not options:
                        ok = False
                        break
                    per_suit.append([tuple(Group(typ, KIND_AT[lo + i]) for typ, i in opt) for opt in options])
                if ok and pairs_needed == 0:
                    combos: list[tuple[Group, ...]] = [honours]
                    for options_of_suit in per_suit:
                        combos = [c + o for c in combos for o in options_of_suit]
                    result = sorted({tuple(sorted(c, key=_group_key)) for c in combos}, key=_arrangement_key)
    if seven_pairs_and_pung and is_seven_pairs_and_pung(counts):
        groups: list[Group] = []
        for j, c in enumerate(counts):
            if c == 3:
                groups.append(Group("pung", KIND_AT[j]))
            elif c:
                groups.extend([Group("pair", KIND_AT[j])] * (c // 2))
        result.append(tuple(sorted(groups, key=_group_key)))
    return result


def _arrangement_key(a: tuple[Group, ...]) -> tuple[tuple[int, str], ...]:
    return tuple(_group_key(g) for g in a)


# ------------------------------------------------------------------------------------------------ waits


def meld_counts(melds: Iterable[Meld]) -> list[int]:
    """The 34-vector of the copies in ``melds`` (a seat's exposed sets and concealed gongs), for ``seen``."""
    c = [0] * 34
    for m in melds:
        for t in m.tiles:
            if t >= 100:
                c[INDEX[t // 10]] += 1
    return c


def _with_seen(counts: Sequence[int], seen: Sequence[int] | None, what: str) -> Sequence[int]:
    """Hand plus ``seen``, per kind, checked: no kind has more than four copies in all."""
    if seen is None:
        return counts
    if len(seen) != 34:
        raise ValueError(f"{what}: seen must have 34 counts, not {len(seen)}")
    have = list(map(add, counts, seen))
    if max(have) > 4 or min(seen) < 0:  # then find the kind to name (a bot asks this on every throw it weighs)
        for j, x in enumerate(have):
            if x > 4 or seen[j] < 0:
                raise ValueError(f"{what}: {x} copies of kind {KIND_AT[j]} in hand and seen (at most 4)")
    return have


_PART_STATES: dict[tuple[int, ...], int] = {}


def _part_state(t: tuple[int, ...]) -> int:
    """``4 * (count mod 3) + state + 1`` of one group's counts (9 of a suit, or the 7 honours), ``state`` as in
    :func:`group_states` (-1, 0 or 1): 1 for 3k tiles that split into sets, 10 for 3k+2 tiles that split into
    sets and a pair."""
    state = _honour_state(t) if len(t) == 7 else _SUIT_STATE.get(t, UNKNOWN)
    if state == UNKNOWN:
        state = _suit_state(t)
    code = 4 * (sum(t) % 3) + state + 1
    if len(_PART_STATES) > _CACHE_LIMIT:
        _PART_STATES.clear()
    _PART_STATES[t] = code
    return code


_PART_WINS: dict[tuple[int, ...], tuple[int, ...]] = {}


def _part_wins(t: tuple[int, ...], lo: int) -> tuple[int, ...]:
    """The dense indices (``lo`` + offset) whose tile completes the group ``t`` (to sets and a pair when it
    holds 3k+1 tiles, to sets only with 3k+2), never a fifth copy.  Cached per group: asked only of a group that
    must take the tile, after the other groups passed."""
    hit = _PART_WINS.get(t)
    if hit is None:
        honours = len(t) == 7
        part = list(t)
        wins: list[int] = []
        for r in range(len(t)):
            near = part[r] if honours else any(part[max(0, r - 2) : r + 3])
            if not near or part[r] >= 4:
                continue
            part[r] += 1
            grown = tuple(part)
            part[r] -= 1
            st = _honour_state(grown) if honours else _SUIT_STATE.get(grown, UNKNOWN)
            if st == UNKNOWN:
                st = _suit_state(grown)
            if st >= 0:
                wins.append(r)
        hit = tuple(wins)
        if len(_PART_WINS) > _CACHE_LIMIT:
            _PART_WINS.clear()
        _PART_WINS[t] = hit
    return tuple([lo + r for r in hit]) if lo else hit


def _standard_waits(counts: Sequence[int]) -> tuple[int, ...]:
    """The dense indices (ascending) whose tile makes ``counts`` (3k+1 tiles) a complete standard hand (sets and
    one pair).  A tile changes one group only, so it is decided group by group: a group of 3k tiles must split
    into sets as it is; then either the one group of 3k+1 tiles takes the tile, or one of two groups of 3k+2
    does while the other holds the pair."""
    get = _PART_STATES.get
    parts: list[tuple[int, ...]] = []  # built group by group: most hands are rejected by their first groups
    one = -1
    twos: list[int] = []
    codes = [0, 0, 0, 0]
    for g in (0, 1, 2, 3):
        lo = _PART_STARTS[g]
        t = tuple(counts[lo : lo + 9]) if g < 3 else tuple(counts[27:34])
        parts.append(t)
        code = get(t)
        if code is None:
            code = _part_state(t)
        codes[g] = code
        if code < 4:  # 3k tiles
            if code != 1:
                return ()
        elif code < 8:  # 3k+1 tiles
            if one >= 0 or twos:
                return ()
            one = g
        else:
            if one >= 0 or len(twos) == 2:
                return ()
            twos.append(g)
    if one >= 0:
        return _part_wins(parts[one], _PART_STARTS[one])
    if len(twos) != 2:
        return ()
    a, b = twos
    out: tuple[int, ...] = ()
    if codes[b] == 10:  # a takes the tile and becomes sets only, b keeps its sets and pair
        out = _part_wins(parts[a], _PART_STARTS[a])
    if codes[a] == 10:
        out += _part_wins(parts[b], _PART_STARTS[b])
    return out


_PART_STARTS = (0, 9, 18, 27)


def standard_waits(counts: Sequence[int]) -> tuple[int, ...]:
    """The dense indices (ascending) whose tile completes ``counts`` (3k+1 tiles) as sets and a pair: ``waits``
    without seven pairs and a pung, without ``seen`` and without its checks, for the engine's "does this throw
    win?" (a hand holding four of a kind never waits on a fifth: the fifth does not exist)."""
    return _standard_waits(counts)


# Group keys: the engine asks for the waits of a seat's hand each time the hand changed (some sixty times a hand),
# and building a tuple per group to look its state up was most of that cost.  A key is one group's counts as one
# int, base 5 (the count of its r-th kind times 5**r), the honours' keys offset by 5**9 so that they never meet a
# suit's; a seat keeps its four keys up to date with KEY_STEP as tiles come and go (one addition per tile), and
# standard_waits_of_keys looks the states up by key.  Tests check it against ``_standard_waits`` and brute force.
_HONOUR_KEY = 5**9
KEY_START: tuple[int, int, int, int] = (0, 0, 0, _HONOUR_KEY)
"""The keys of four empty groups (wan, tiao, tong, honours)."""
KEY_STEP: tuple[int, ...] = tuple(5 ** (i - _PART_STARTS[GROUP_OF[i]]) for i in range(34))
"""Per dense kind index: what one tile of that kind adds to its group's key (``GROUP_OF`` names the group)."""


def group_keys(counts: Sequence[int]) -> list[int]:
    """The four group keys of a 34-vector of counts."""
    keys = list(KEY_START)
    for i, c in enumerate(counts):
        if c:
            keys[GROUP_OF[i]] += c * KEY_STEP[i]
    return keys


_KEY_PARTS: dict[int, tuple[int, ...]] = {}  # key -> the group's counts (9 for a suit, 7 for the honours)


def _key_part(key: int) -> tuple[int, ...]:
    t = _KEY_PARTS.get(key)
    if t is None:
        x, n = (key - _HONOUR_KEY, 7) if key >= _HONOUR_KEY else (key, 9)
        t = tuple((x // 5**r) % 5 for r in range(n))
        if len(_KEY_PARTS) > _CACHE_LIMIT:
            _KEY_PARTS.clear()
        _KEY_PARTS[key] = t
    return t


_KEY_CODES: dict[int, int] = {}  # key -> _part_state of its group


def _key_code(key: int) -> int:
    code = _PART_STATES.get(t := _key_part(key))
    if code is None:
        code = _part_state(t)
    if len(_KEY_CODES) > _CACHE_LIMIT:
        _KEY_CODES.clear()
    _KEY_CODES[key] = code
    return code


def _key_wins(keys: Sequence[int], g: int) -> tuple[int, ...]:
    return _part_wins(_key_part(keys[g]), _PART_STARTS[g])


def standard_waits_of_keys(keys: Sequence[int]) -> tuple[int, ...]:
    """``standard_waits`` of the hand whose four group keys are ``keys`` (see ``group_keys``): the same decision
    group by group as ``_standard_waits``, with each group's state looked up by its key."""
    get = _KEY_CODES.get
    one = -1
    two_a = two_b = -1
    code_a = code_b = 0
    for g in (0, 1, 2, 3):
        key = keys[g]
        code = get(key)
        if code is None:
            code = _key_code(key)
        if code < 4:  # 3k tiles: must split into sets as they are
            if code != 1:
                return ()
        elif code < 8:  # 3k+1 tiles: this group must take the tile
            if one >= 0 or two_a >= 0:
                return ()
            one = g
        else:  # 3k+2 tiles: two such groups, one takes the tile, the other holds the pair
            if one >= 0 or two_b >= 0:
                return ()
            if two_a < 0:
                two_a, code_a = g, code
            else:
                two_b, code_b = g, code
    if one >= 0:
        return _key_wins(keys, one)
    if two_b < 0:
        return ()
    out: tuple[int, ...] = ()
    if code_b == 10:  # a takes the tile and becomes sets only, b keeps its sets and pair
        out = _key_wins(keys, two_a)
    if code_a == 10:
        out += _key_wins(keys, two_b)
    return out


def waits(
    counts: Sequence[int], *, seven_pairs_and_pung: bool = False, seen: Sequence[int] | None = None
) -> list[int]:
    """The kinds (11..47, ascending) that complete a hand of sum ≡ 1 mod 3.

    A kind of which the hand and ``seen`` (see the module docstring) already hold four is not a wait: there is
    no fifth tile.
    """
    n = sum(counts)
    if n % 3 != 1:
        raise ValueError(f"waits: a waiting hand has 3k+1 tiles, not {n}")
    have = _with_seen(counts, seen, "waits")
    found = list(_standard_waits(counts))
    if seen is not None:
        found = [j for j in found if have[j] < 4]
    if seven_pairs_and_pung and n == 16:
        c = list(counts)
        extra = []
        for j in range(34):
            if c[j] and have[j] < 4 and j not in found:  # a tile of a kind not held makes a single
                c[j] += 1
                if is_seven_pairs_and_pung(c):
                    extra.append(j)
                c[j] -= 1
        if extra:
            found = sorted(found + extra)
    return [KIND_AT[j] for j in found]


# ---------------------------------------------------------------------------------------------- shanten
# A table is a tuple of 12 ints: entry s + 6*p is the most hand tiles usable with at most s set-groups
# (s = 0..5) and at most p pair-groups (p = 0..1).  Tables are monotone in s and p.

_Table = tuple[int, ...]
_ZERO: _Table = (0,) * 12


def _conv(a: Sequence[int], b: Sequence[int], need: int = SETS_NEEDED) -> _Table:
    """Max-plus convolution of two tables (groups shared between two independent parts), up to ``need`` sets.

    The hot loop compares with ``if`` rather than calling ``max()``, which is twice as slow here.
    """
    out = [0] * 12
    for s in range(need + 1):
        b0 = 0
        b1 = 0
        for s1 in range(s + 1):
            s2 = s - s1
            a0 = a[s1]
            c0 = b[s2]
            v = a0 + c0
            if v > b0:  # noqa: PLR1730
                b0 = v
            v = a0 + b[s2 + 6]
            if v > b1:  # noqa: PLR1730
                b1 = v
            v = a[s1 + 6] + c0
            if v > b1:  # noqa: PLR1730
                b1 = v
        out[s] = b0
        out[s + 6] = b1
    return tuple(out)


def _single_kind_table(c: int, cap: int = 4) -> _Table:
    """A kind with no neighbours (an honour, or an isolated suit tile) of which ``cap`` copies exist: one group
    at most."""
    if c == 0:
        return _ZERO
    pung = min(c, 3) if cap >= 3 else 0
    pair = min(c, 2) if cap >= 2 else 0
    either = max(pung, pair)
    return (0, pung, pung, pung, pung, pung, pair, either, either, either, either, either)


_SINGLE_KIND = tuple(_single_kind_table(c) for c in range(5))


def _strip(t: tuple[int, ...]) -> tuple[int, ...]:
    i = 0
    n = len(t)
    while i < n and t[i] == 0:
        i += 1
    j = n
    while j > i and t[j - 1] == 0:
        j -= 1
    return t[i:j] if (i or j != n) else t


_BLOCKS: dict[tuple[int, ...], _Table] = {(): _ZERO}


def _block_table(t: tuple[int, ...]) -> _Table:
    """Unlimited-supply table of a run of suit counts ``t`` (leading/trailing zeros stripped).

    Position-free: with unlimited supply a partial set always has a completion, wherever it sits in the suit.
    The tile at the lowest rank is either unused or in one block: a single, pair or pung (as a set-group), a
    single or pair (as the pair-group), or with the next ranks a partial chow (i,i+1), (i,i+2) or a chow.
    """
    hit = _BLOCKS.get(t)
    if hit is not None:
        return hit
    c = t[0]
    n1 = t[1] if len(t) > 1 else 0
    n2 = t[2] if len(t) > 2 else 0
    if n1 == 0 and n2 == 0:
        table = _conv(_SINGLE_KIND[c], _block_table(_strip(t[3:])))
    else:
        rest = t[1:]
        options: list[tuple[int, int, int, tuple[int, ...]]] = []
        minus1 = _strip((c - 1,) + rest)
        options.append((0, 0, 0, minus1))
        options.append((1, 0, 1, minus1))
        options.append((0, 1, 1, minus1))
        if c >= 2:
            minus2 = _strip((c - 2,) + rest)
            options.append((0, 1, 2, minus2))
            options.append((1, 0, 2, minus2))
        if c >= 3:
            options.append((1, 0, 3, _strip((c - 3,) + rest)))
        if n1:
            options.append((1, 0, 2, _strip((c - 1, n1 - 1) + t[2:])))
        if n2:
            options.append((1, 0, 2, _strip((c - 1, n1, n2 - 1) + t[3:])))
        if n1 and n2:
            options.append((1, 0, 3, _strip((c - 1, n1 - 1, n2 - 1) + t[3:])))
        best = [0] * 12
        for ds, dp, used, sub in options:
            sub_table = _block_table(sub)
            for p in range(dp, 2):
                shift = 6 * dp + ds  # entry i of best takes entry i - shift of the sub-table
                for i in range(6 * p + ds, 6 * p + 6):
                    v = sub_table[i - shift] + used
                    if v > best[i]:  # an ``if``, not ``max()``: this loop builds every shipped table
                        best[i] = v
        table = tuple(best)
    if len(_BLOCKS) > _CACHE_LIMIT:
        _BLOCKS.clear()
        _BLOCKS[()] = _ZERO
    _BLOCKS[t] = table
    return table


_FULL_CAPS = (4,) * 9
# :func:`_exact_suit_table`'s last run in each thread (matches may run in threads): ``path``, per rank, (held,
# copies, chow room) and the states after it (never changed)
_PROGRAMME = _local()
_PROGRAMME_START: dict[tuple[int, int, int], list[int]] = {(0, 0, 0): [0, -1, -1, -1, -1, -1]}


def _exact_suit_table(t: tuple[int, ...], caps: tuple[int, ...] = _FULL_CAPS) -> _Table:
    """Exact table of one suit (the four-copy limit respected), by dynamic programming over target hands.

    ``t`` may also be a stretch of a suit (a component with the empty ranks a chow can reach around it).

    Ranks are visited in order; the state is (chows started one rank back, chows started at this rank, sets,
    pairs).  At each rank the target holds ``T`` = pending chows + new chows + 3 per pung + 2 per pair <= the
    copies there are (``caps``: 4 less the seen ones) tiles, of which ``min(T, held)`` are hand tiles used.
    Groups that use no hand tile are never placed (a target can drop them: the table counts at most ``s`` sets
    and ``p`` pairs): no pung or pair on an empty rank, and no more chows at a rank than the most tiles held on
    the three ranks they cover.  That keeps the programme small on the sparse suits of real hands.  The sets are
    kept apart from the rest of the state: one entry per (chows started one rank back, chows started at this
    rank, pairs) holds, per number of sets 0..5, the most hand tiles used (-1: unreachable), so that a rank's
    choices are worked out once for all set counts (a greedy bot asks this for every suit with copies seen).

    The states after each rank depend only on the ranks so far (each rank's held count, copies and chow room), so
    the programme keeps the ranks of its last run (``_PROGRAMME``) and starts after the ranks a new suit shares with
    it: suits asked for in order (``build_seen_tables`` asks for every suit of a pattern in lexicographic order)
    share most of their ranks.  States are never changed once made, so a kept one can be shared.
    """
    last_chow = len(t) - 3
    ranks = [(t[i], caps[i], max(t[i : i + 3]) if i <= last_chow else 0) for i in range(len(t))]
    path = getattr(_PROGRAMME, "path", None)
    if path is None:
        path = _PROGRAMME.path = []
    done = 0
    while done < len(ranks) and done < len(path) and path[done][0] == ranks[done]:
        done += 1
    del path[done:]
    states = path[done - 1][1] if done else _PROGRAMME_START
    for i in range(done, len(t)):
        rank = ranks[i]
        held, cap, chow_room = rank
        groups = (0, 1) if held else (0,)
        new: dict[tuple[int, int, int], list[int]] = {}
        for (x, y, p), by_sets in states.items():
            pending = x + y
            for pungs in groups:
                for pairs in groups if p == 0 else (0,):
                    fixed = pending + 3 * pungs + 2 * pairs
                    if fixed > cap:
                        continue
                    max_chows = min(cap - fixed, chow_room)
                    for chows in range(max_chows + 1):
                        more = chows + pungs  # sets added at this rank
                        if more > SETS_NEEDED:
                            break
                        target = fixed + chows
                        gain = target if target < held else held
                        key = (y, chows, p + pairs)
                        out = new.get(key)
                        if out is None:
                            out = new[key] = [-1, -1, -1, -1, -1, -1]
                        for s in range(SETS_NEEDED + 1 - more):
                            used = by_sets[s]
                            if used >= 0 and used + gain > out[s + more]:
                                out[s + more] = used + gain
        path.append((rank, new))
        states = new
    best = [0] * 12
    for (_x, _y, p), by_sets in states.items():
        for s in range(SETS_NEEDED + 1):
            best[s + 6 * p] = max(best[s + 6 * p], by_sets[s])
    for p in (0, 1):
        for s in range(1, 6):
            best[s + 6 * p] = max(best[s + 6 * p], best[s - 1 + 6 * p])
    for s in range(6):
        best[s + 6] = max(best[s + 6], best[s])
    return tuple(best)


def _components(t: tuple[int, ...]) -> list[tuple[int, int]]:
    """``(start, end)`` (end exclusive) of each run of suit counts between two or more empty ranks: no group
    that uses a hand tile spans such a gap, so each run is a part of its own."""
    parts: list[tuple[int, int]] = []
    start = -1
    last = -10
    for r in range(9):
        if t[r]:
            if start < 0:
                start = r
            elif r - last > 2:
                parts.append((start, last + 1))
                start = r
            last = r
    if start >= 0:
        parts.append((start, last + 1))
    return parts


_EXACT_PARTS: dict[tuple[tuple[int, ...], tuple[int, ...]], _Table] = {}  # (counts, caps) over a part's reach


def _exact_part_table(t: tuple[int, ...], start: int, end: int, caps: tuple[int, ...] = _FULL_CAPS) -> _Table:
    """The exact table of the run ``t[start:end]`` (it holds four of a kind, or copies are seen within its reach):
    the programme runs over the run and the (up to two) empty ranks on either side that its chows can reach, not
    over the whole suit."""
    lo, hi = _reach(start, end)
    key = (t[lo:hi], caps[lo:hi])
    hit = _EXACT_PARTS.get(key)
    if hit is None:
        if len(_EXACT_PARTS) > _CACHE_LIMIT:
            _EXACT_PARTS.clear()
        hit = _EXACT_PARTS[key] = _exact_suit_table(*key)
    return hit


def _reach(start: int, end: int) -> tuple[int, int]:
    """The ranks the chows of the run ``start:end`` can use: the run and up to two ranks on either side (within the
    suit), as a slice."""
    return max(0, start - 2), min(9, end + 2)


def _parts_id(t: tuple[int, ...], parts: Iterable[tuple[int, int]], caps: tuple[int, ...] = _FULL_CAPS) -> int:
    """The interned table of the suit counts ``t`` made of independent ``parts`` (``(start, end)`` runs): their
    tables combined.  A part with four of a kind, or with copies seen (``caps`` below 4) within its reach, takes the
    exact programme over its reach; the others the unlimited-supply block table."""
    i = _ZERO_ID
    for start, end in parts:
        part = t[start:end]
        lo, hi = _reach(start, end)
        if 4 in part or min(caps[lo:hi]) < 4:
            table = _exact_part_table(t, start, end, caps)
        else:
            table = _block_table(part)
        i = _conv_id(i, _intern(table), SETS_NEEDED)
    return i


# Interned tables: every distinct table gets a small int id, so that the caches that combine tables (two parts
# into one, four parts into a shanten) are keyed by ints instead of by tuples of twelve.  There are only a few
# thousand distinct tables (each entry is at most 17), so the id space stays small and is never cleared.
_ID_OF: dict[_Table, int] = {}
_TABLE_AT: list[_Table] = []


def _intern(table: _Table) -> int:
    i = _ID_OF.get(table)
    if i is None:
        i = _ID_OF[table] = len(_TABLE_AT)
        _TABLE_AT.append(table)
    return i


_ZERO_ID = _intern(_ZERO)
_LONE_ID = _intern(_SINGLE_KIND[1])
_CONV_IDS: dict[tuple[int, int, int], int] = {}


def _conv_id(a: int, b: int, need: int) -> int:
    """:func:`_conv` of two interned tables, interned, through a cache (keyed by the pair in order: the
    convolution is symmetric)."""
    key = (a, b, need) if a < b else (b, a, need)
    hit = _CONV_IDS.get(key)
    if hit is None:
        if len(_CONV_IDS) > _CACHE_LIMIT:
            _CONV_IDS.clear()
        hit = _CONV_IDS[key] = _intern(_conv(_TABLE_AT[a], _TABLE_AT[b], need))
    return hit


_SUIT_IDS: dict[tuple[int, ...], int] = {}  # 9 suit counts -> the id of their table (no copies seen)


def _suit_id(t: tuple[int, ...]) -> int:
    """The interned table of the 9 counts ``t`` of one suit, cached.  A suit without four of a kind (all but some
    0.5% of the suits of random hands) is looked up in the shipped tables (``suit_tables.bin``, loaded at the
    first miss); one with four of a kind is built by :func:`_built_suit_id`."""
    if 4 not in t:
        codes = _SHIPPED_CODES or _load_shipped()
        code = t[0] | t[1] << 2 | t[2] << 4 | t[3] << 6 | t[4] << 8 | t[5] << 10 | t[6] << 12 | t[7] << 14 | t[8] << 16
        j = codes[code]
        if j != _NOT_SHIPPED:
            i = _SHIPPED_IDS[j]
            if len(_SUIT_IDS) > _CACHE_LIMIT:
                _SUIT_IDS.clear()
            _SUIT_IDS[t] = i
            return i
    return _built_suit_id(t)


def _built_suit_id(t: tuple[int, ...]) -> int:
    """The interned table of the 9 counts ``t`` of one suit, built: its runs' tables combined.  A run without four
    of a kind takes the unlimited-supply block table, one with four of a kind the exact programme over its reach.
    What ``suit_tables.bin`` holds is made by this (``build_suit_tables``)."""
    shifted = None
    if 4 not in t:  # then the table does not depend on where the tiles sit: one entry for all shifts of them
        shifted = _strip(t)
        i = _SHIFTED_IDS.get(shifted)
        if i is not None:
            _SUIT_IDS[t] = i
            return i
    i = _parts_id(t, _components(t))
    if len(_SUIT_IDS) > _CACHE_LIMIT:
        _SUIT_IDS.clear()
        _SHIFTED_IDS.clear()
    _SUIT_IDS[t] = i
    if shifted is not None:
        _SHIFTED_IDS[shifted] = i
    return i


_SHIFTED_IDS: dict[tuple[int, ...], int] = {}  # suit counts without 4, empty ranks at the ends stripped -> id

# The shipped suit tables: the table of every suit of at most 17 tiles with no four of a kind (231,182 suits, 4**9
# codes), so that a new hand costs a look-up, not a build.  ``suit_tables.bin`` is zlib-compressed: one byte N,
# then N distinct tables of 12 bytes, then 4**9 bytes, the table number of each suit by its code (count of rank r
# in bits 2r, 2r+1), 255 where the suit has more than 17 tiles.  ``python -m referee.game.make_suit_tables``
# writes it from :func:`build_suit_tables`; a test checks that the file is what the builder makes.
SUIT_TABLES_FILE = "suit_tables.bin"
_NOT_SHIPPED = 255
_SHIPPED_CODES = b""
_SHIPPED_IDS: list[int] = []


def build_suit_tables() -> bytes:
    """The contents of ``suit_tables.bin`` before compression, built from scratch (a few seconds)."""
    from itertools import product

    numbers: dict[_Table, int] = {}
    codes = bytearray(4**9)
    # In code order: a code counts rank r in bits 2r, 2r+1, so rank 0 changes fastest, as product()'s last item.
    for code, reverse in enumerate(product(range(4), repeat=9)):
        if sum(reverse) > 17:
            codes[code] = _NOT_SHIPPED
            continue
        table = _TABLE_AT[_built_suit_id(reverse[::-1])]
        codes[code] = numbers.setdefault(table, len(numbers))
    if len(numbers) >= _NOT_SHIPPED:
        raise AssertionError(f"{len(numbers)} distinct suit tables do not fit in a byte")
    return bytes([len(numbers)]) + b"".join(bytes(table) for table in numbers) + bytes(codes)


def _load_shipped() -> bytes:
    """Read ``suit_tables.bin`` (once; a missing or damaged file is a broken install, not a user error)."""
    global _SHIPPED_CODES, _SHIPPED_IDS
    import os
    import zlib

    with open(os.path.join(os.path.dirname(__file__), SUIT_TABLES_FILE), "rb") as f:
        raw = zlib.decompress(f.read())
    n = raw[0]
    if len(raw) != 1 + 12 * n + 4**9:
        raise RuntimeError(f"{SUIT_TABLES_FILE}: {len(raw)} bytes, not the expected {1 + 12 * n + 4**9}")
    _SHIPPED_IDS = [_intern(tuple(raw[1 + 12 * k : 13 + 12 * k])) for k in range(n)]
    _SHIPPED_CODES = raw[1 + 12 * n :]
    return _SHIPPED_CODES


def _suit_table(t: tuple[int, ...]) -> _Table:
    """The table of one suit's 9 counts (no copies seen); the tests pin it to :func:`_exact_suit_table`."""
    hit = _SUIT_IDS.get(t)
    return _TABLE_AT[_suit_id(t) if hit is None else hit]


_HONOUR_IDS: dict[tuple[int, ...], int] = {}  # 7 honour counts -> the id of their table (no copies seen)


def _honour_id(honours: tuple[int, ...], seen: Sequence[int] | None = None) -> int:
    """The interned table of the 7 honour counts: one group per kind at most, so the kinds' own tables combined
    (a kind with copies seen may lack the copies for a pung or a pair)."""
    if seen is not None and any(seen[27:34]):
        key = (honours, tuple(seen[27:34]))
        hit = _SEEN_HONOURS.get(key)
        if hit is not None:
            return hit
        capped = tuple(sorted((c, 4 - x) for c, x in zip(honours, seen[27:34]) if c))
        hit = _CAPPED_HONOURS.get(capped)
        if hit is None:
            hit = _ZERO_ID
            for c, cap in capped:
                hit = _conv_id(hit, _intern(_single_kind_table(c, cap)), SETS_NEEDED)
            _CAPPED_HONOURS[capped] = hit  # at most a few thousand keys
        if len(_SEEN_HONOURS) > _CACHE_LIMIT:
            _SEEN_HONOURS.clear()
        _SEEN_HONOURS[key] = hit
        return hit
    hit = _HONOUR_IDS.get(honours)
    if hit is None:
        # the table depends on how many kinds are held once, twice, ... only, not on which kinds
        shape = (honours.count(1), honours.count(2), honours.count(3), honours.count(4))
        hit = _HONOUR_SHAPES.get(shape)
        if hit is None:
            hit = _ZERO_ID
            for c in (1, 2, 3, 4):
                for _ in range(shape[c - 1]):
                    hit = _conv_id(hit, _intern(_SINGLE_KIND[c]), SETS_NEEDED)
            _HONOUR_SHAPES[shape] = hit  # at most a few hundred keys
        _HONOUR_IDS[honours] = hit  # at most 5**7 keys, a few hundred in practice
    return hit


_HONOUR_SHAPES: dict[tuple[int, ...], int] = {}  # kinds held 1, 2, 3 and 4 times -> the id of their table


_CAPPED_HONOURS: dict[tuple[tuple[int, int], ...], int] = {}
_SEEN_HONOURS: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}  # (honour counts, their seen copies) -> id
_CAPPED_SUITS: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}  # (counts, seen) of a suit -> its table's id


def _seen_caps(t: tuple[int, ...], seen: Sequence[int]) -> tuple[int, ...]:
    """The copies of each rank a target may use: 4 less those seen, where a held tile is within two ranks (a seen
    copy farther from the hand cannot matter), else 4."""
    return tuple(4 - x if x and any(t[max(0, i - 2) : i + 3]) else 4 for i, x in enumerate(seen))


def _capped_parts(t: tuple[int, ...], caps: tuple[int, ...]) -> list[tuple[int, int]]:
    """The suit's runs (:func:`_components`) as parts, except that two runs whose reaches share a rank with copies
    seen (``caps`` below 4) are one part: their chows could ask for the same scarce copies."""
    parts: list[tuple[int, int]] = []
    for start, end in _components(t):
        if parts:
            lo, _ = _reach(start, end)
            _, hi = _reach(*parts[-1])
            if min(caps[lo:hi], default=4) < 4:
                parts[-1] = (parts[-1][0], end)
                continue
        parts.append((start, end))
    return parts


def _capped_suit_id(t: tuple[int, ...], seen: Sequence[int]) -> int:
    """The interned exact table of suit counts ``t`` when ``seen`` (its 9 counts) copies are out of reach: looked
    up in the shipped tables (``seen_tables.bin``, :func:`_shipped_seen_id`) when the suit is one of theirs, else
    built (:func:`_built_capped_suit_id`)."""
    key = (t, tuple(seen))
    hit = _CAPPED_SUITS.get(key)
    if hit is not None:
        return hit
    hit = _shipped_seen_id(t, key[1])
    if hit is None:
        hit = _built_capped_suit_id(t, seen)
        if hit is None:
            hit = _SUIT_IDS.get(t)
            if hit is None:
                hit = _suit_id(t)
    if len(_CAPPED_SUITS) > _CACHE_LIMIT:
        _CAPPED_SUITS.clear()
    _CAPPED_SUITS[key] = hit
    return hit


def _built_capped_suit_id(t: tuple[int, ...], seen: Sequence[int]) -> int | None:
    """The interned exact table of suit counts ``t`` with ``seen`` copies out of reach, built; None when no seen
    copy is within reach, so that the suit's table is the one without copies seen.

    A seen copy matters only within two ranks of a held tile: a group touching a rank with no held tile that
    near uses no hand tile, so a target can drop it.  Otherwise the suit is split into parts as without copies
    seen, keeping together runs that could share scarce copies (:func:`_capped_parts`), and :func:`_parts_id`
    combines them.  A test pins the parts to the programme over the whole suit."""
    caps = _seen_caps(t, seen)
    if caps == _FULL_CAPS:
        return None
    return _parts_id(t, _capped_parts(t, caps), caps)


# The shipped tables of suits with copies seen.  A greedy bot passes the copies in its own melds as ``seen``, and
# each of its processes used to build the tables of its suits beside such copies by the exact programme, cold (the
# protocol starts a bot per hand).  Every held suit beside every seen suit is far too many to ship, so
# ``seen_tables.bin`` holds the common part: the copies of one meld (a pung, a chow or four of a kind: 25
# patterns) beside at most ``SEEN_TABLES_HELD[0]`` held tiles of that suit, and the copies of two melds (277
# patterns) beside at most ``SEEN_TABLES_HELD[1]``, each held count at most 3 and at most 4 less the copies seen
# (688,967 suits, 116 distinct tables).  Other suits are built as before.  The file is read in place (``mmap``),
# not unpacked: ``P`` (u16), ``N`` (u16), ``E`` (u32), little-endian; per pattern its 9 seen counts, its held
# limit (a byte) and the index of its first entry (u32); N distinct tables of 12 bytes; E entries, a table number
# (a byte) each: each pattern's suits in lexicographic order of their counts (see :func:`_held_ranker`).
# ``python -m referee.game.make_suit_tables`` writes it from :func:`build_seen_tables`.
SEEN_TABLES_FILE = "seen_tables.bin"
SEEN_TABLES_HELD = (8, 6, 3)  # the most held tiles of the suit beside the copies of one, two, three melds
_SEEN_RECORD = 14


def seen_patterns() -> list[tuple[tuple[int, ...], int]]:
    """The seen counts of one suit that ``seen_tables.bin`` covers, each with its held limit, in file order: the
    copies of one meld, then of two, then of three (``SEEN_TABLES_HELD``)."""
    melds: set[tuple[int, ...]] = set()
    for r in range(9):
        for copies in (3, 4):
            melds.add(tuple(copies if i == r else 0 for i in range(9)))
        if r < 7:
            melds.add(tuple(1 if r <= i < r + 3 else 0 for i in range(9)))
    out: list[tuple[tuple[int, ...], int]] = []
    done: set[tuple[int, ...]] = set()
    layer: set[tuple[int, ...]] = {(0,) * 9}
    for most in SEEN_TABLES_HELD:
        layer = {s for s in (tuple(x + y for x, y in zip(a, b)) for a in layer for b in melds) if max(s) <= 4}
        layer -= done
        done |= layer
        out += [(s, most) for s in sorted(layer)]
    return out
def _held_bounds(seen: Sequence[int]) -> list[int]:
    """The most tiles of each rank that a suit of ``seen_tables.bin`` holds beside ``seen`` copies."""
    return [min(3, 4 - x) for x in seen]


def _held_ranker(seen: tuple[int, ...], most: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For the suits beside ``seen`` copies (each count at most 3 and at most 4 less the copies seen, at most
    ``most`` tiles in all) in lexicographic order: ``steps[r][k][x]`` is how many of them come before those whose
    count at rank ``r`` is ``x``, among those that agree on the ranks before ``r`` and hold ``k`` more tiles at
    most from ``r`` on.  A suit's index is the sum of its steps; ``steps[9][k][0]`` counts them all."""
    bounds = _held_bounds(seen)
    count = [1] * (most + 1)  # how many suits of the ranks after r hold at most k tiles, by k
    steps: list[tuple[tuple[int, ...], ...]] = []
    for r in range(8, -1, -1):
        row = []
        for k in range(most + 1):
            before = [0]
            for x in range(min(bounds[r], k)):
                before.append(before[-1] + count[k - x])
            row.append(tuple(before))
        count = [row[k][-1] + count[k - len(row[k]) + 1] for k in range(most + 1)]
        steps.append(tuple(row))
    steps.reverse()
    return (*steps, tuple((c,) for c in count))


def _held_suits(seen: tuple[int, ...], most: int) -> Iterator[tuple[int, ...]]:
    """The suits of :func:`_held_ranker`, in its order."""
    bounds = _held_bounds(seen)
    counts = [0] * 9

    def walk(r: int, left: int) -> Iterator[tuple[int, ...]]:
        if r == 9:
            yield tuple(counts)
            return
        for x in range(min(bounds[r], left) + 1):
            counts[r] = x
            yield from walk(r + 1, left - x)
        counts[r] = 0

    return walk(0, most)


def build_seen_tables() -> bytes:
    """The contents of ``seen_tables.bin``, built from scratch (a minute or two: the exact programme of every part
    of every suit it holds)."""
    numbers: dict[_Table, int] = {}
    records = bytearray()
    entries = bytearray()
    first = 0
    for seen, most in seen_patterns():
        records += _seen_record(seen, most, first)
        for t in _held_suits(seen, most):
            entries.append(numbers.setdefault(_seen_table(t, seen), len(numbers)))
            first += 1
        if len(numbers) > 256:
            raise AssertionError(f"{len(numbers)} distinct suit tables do not fit in a byte")
    head = len(seen_patterns()).to_bytes(2, "little") + len(numbers).to_bytes(2, "little") + first.to_bytes(4, "little")
    return head + bytes(records) + b"".join(bytes(table) for table in numbers) + bytes(entries)


def _seen_record(seen: tuple[int, ...], most: int, first: int) -> bytes:
    """A pattern's record in ``seen_tables.bin``: its seen counts, its held limit, the index of its first entry."""
    return bytes(seen) + bytes([most]) + first.to_bytes(4, "little")


def _seen_table(t: tuple[int, ...], seen: tuple[int, ...]) -> _Table:
    """The table of the held suit ``t`` beside ``seen`` copies, as the builder makes it."""
    i = _built_capped_suit_id(t, seen)
    return _TABLE_AT[_built_suit_id(t) if i is None else i]


def seen_layout(data: bytes | mmap) -> tuple[int, int, int, int, int]:
    """Where the parts of ``seen_tables.bin`` (``data``, at least its 8-byte header) are: the count of patterns, of
    distinct tables and of entries, then the offsets of the tables and of the entries."""
    p, n, size = (int.from_bytes(data[a:b], "little") for a, b in ((0, 2), (2, 4), (4, 8)))
    tables_at = 8 + _SEEN_RECORD * p
    return p, n, size, tables_at, tables_at + 12 * n


def check_seen_tables(data: bytes, every: int = 1) -> str | None:
    """Where ``data`` (what ``seen_tables.bin`` holds) differs from what :func:`build_seen_tables` makes, or None.
    Its header is checked whole (the patterns in order, their held limits and first entries, the counts); the
    tables of the entries of every ``every``-th pattern (the first and the last always) are built and compared: all
    of them with 1 (a minute or two, as a build), an eighth with 8.  Tables are compared by their contents, not by
    the numbers the file gives them."""
    patterns = seen_patterns()
    if len(data) < 8:
        return f"{len(data)} bytes: no header"
    p, n, size, tables_at, entries_at = seen_layout(data)
    if p != len(patterns):
        return f"{p} patterns, not {len(patterns)}"
    if len(data) != entries_at + size:
        return f"{len(data)} bytes, not the {entries_at + size} its header says"
    first = 0
    for j, (seen, most) in enumerate(patterns):
        record = data[8 + _SEEN_RECORD * j : 8 + _SEEN_RECORD * (j + 1)]
        if record != _seen_record(seen, most, first):
            return f"pattern {j} ({seen}, held limit {most}): its record is {record.hex()}"
        held = _held_suits(seen, most)
        if j % every and j != len(patterns) - 1:
            first += sum(1 for _ in held)
            continue
        for t in held:
            number = data[entries_at + first]
            if number >= n:
                return f"pattern {j}, suit {t}: table {number} of {n}"
            if data[tables_at + 12 * number : tables_at + 12 * (number + 1)] != bytes(_seen_table(t, seen)):
                return f"pattern {j} ({seen}), suit {t}: its table is not the one the builder makes"
            first += 1
    if first != size:
        return f"{size} entries, not {first}"
    return None


_SEEN_FILE: dict[str, memoryview] = {}  # the mapped file, once loaded: its "tables" and its "entries"
_SEEN_RANKERS: dict[tuple[int, ...], tuple[int, int, tuple[tuple[tuple[int, ...], ...], ...]] | tuple[()]] = {}
_SEEN_IDS: dict[int, int] = {}  # table number in the file -> interned id
_SEEN_PATTERNS: dict[bytes, tuple[int, int]] = {}  # bytes(seen counts) -> (held limit, first entry)


def _load_seen() -> dict[bytes, tuple[int, int]]:
    """Map ``seen_tables.bin`` (once): the patterns of its header, ``bytes(seen) -> (held limit, first entry)``; its
    tables and entries are read in place when asked for.  A missing or damaged file is a broken install, not a user
    error."""
    import mmap
    import os

    with open(os.path.join(os.path.dirname(__file__), SEEN_TABLES_FILE), "rb") as f:
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    p, _n, size, tables_at, entries_at = seen_layout(data)
    if len(data) != entries_at + size:
        raise RuntimeError(f"{SEEN_TABLES_FILE}: {len(data)} bytes, not the expected {entries_at + size}")
    head = data[8:tables_at]
    patterns = {head[o : o + 9]: (head[o + 9], int.from_bytes(head[o + 10 : o + 14], "little"))
                for o in range(0, len(head), _SEEN_RECORD)}
    view = memoryview(data)
    _SEEN_FILE.update(tables=view[tables_at:entries_at], entries=view[entries_at:])
    return patterns


def _seen_ranker(seen: tuple[int, ...]) -> tuple[int, int, tuple[tuple[tuple[int, ...], ...], ...]] | tuple[()]:
    """``(held limit, first entry, steps)`` of a pattern of ``seen_tables.bin``, or ``()`` when it holds none for
    ``seen``; cached (the first one loads the file)."""
    if not _SEEN_FILE:
        _SEEN_PATTERNS.update(_load_seen())
    pattern = _SEEN_PATTERNS.get(bytes(seen)) if max(seen) < 256 and min(seen) >= 0 else None
    ranker = () if pattern is None else (pattern[0], pattern[1], _held_ranker(seen, pattern[0]))
    if len(_SEEN_RANKERS) > _CACHE_LIMIT:
        _SEEN_RANKERS.clear()
    _SEEN_RANKERS[seen] = ranker
    return ranker


def _shipped_seen_id(t: tuple[int, ...], seen: tuple[int, ...]) -> int | None:
    """The interned table of suit counts ``t`` beside ``seen`` copies from ``seen_tables.bin``, or None when the file
    does not hold that suit."""
    ranker = _SEEN_RANKERS.get(seen)
    if ranker is None:
        ranker = _seen_ranker(seen)
    if not ranker:
        return None
    k, index, steps = ranker
    for r in range(9):
        x = t[r]
        if x:
            row = steps[r][k]
            if x >= len(row):
                return None
            index += row[x]
            k -= x
    j = _SEEN_FILE["entries"][index]
    i = _SEEN_IDS.get(j)
    if i is None:
        i = _SEEN_IDS[j] = _intern(tuple(_SEEN_FILE["tables"][12 * j : 12 * j + 12]))
    return i


def _part_ids(counts: Sequence[int], seen: Sequence[int] | None = None) -> list[int]:
    """The interned tables of the four parts (wan, tiao, tong, honours)."""
    get = _SUIT_IDS.get
    out: list[int] = []
    for lo in _SUIT_STARTS:
        t = tuple(counts[lo : lo + 9])
        if seen is not None:
            part_seen = tuple(seen[lo : lo + 9])
            if part_seen != _NO_COPIES:
                i = _CAPPED_SUITS.get((t, part_seen))
                out.append(_capped_suit_id(t, part_seen) if i is None else i)
                continue
        i = get(t)
        out.append(_suit_id(t) if i is None else i)
    h = tuple(counts[27:34])
    i = _HONOUR_IDS.get(h) if seen is None or not any(seen[27:34]) else None
    out.append(_honour_id(h, seen) if i is None else i)
    return out


_NO_COPIES = (0,) * 9
_NOTHING_SEEN = (0,) * 34


def _final(a: Sequence[int], b: Sequence[int], need: int) -> int:
    """The most tiles usable by ``need`` set-groups and one pair-group split between two parts."""
    best = 0
    for s1 in range(need + 1):
        s2 = need - s1
        v = a[s1] + b[s2 + 6]
        if v > best:  # noqa: PLR1730
            best = v
        v = a[s1 + 6] + b[s2]
        if v > best:  # noqa: PLR1730
            best = v
    return best


_FINALS: dict[tuple[int, int, int], int] = {}


def _final_id(a: int, b: int, need: int) -> int:
    """:func:`_final` of two interned tables, through a cache (keyed by the pair in order: it is symmetric)."""
    key = (a, b, need) if a < b else (b, a, need)
    hit = _FINALS.get(key)
    if hit is None:
        if len(_FINALS) > _CACHE_LIMIT:
            _FINALS.clear()
        hit = _FINALS[key] = _final(_TABLE_AT[a], _TABLE_AT[b], need)
    return hit


def _max_used(ids: Sequence[int], need: int) -> int:
    """The most hand tiles that ``need`` sets and a pair can use, the four parts' tables given by id.  The parts
    combine in any order; the three suits' ids are sorted first, so that the hands whose suits are the same three
    tables in any order share the cached combinations."""
    a, b, c, h = ids
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
        if a > b:
            a, b = b, a
    return _final_id(_conv_id(a, b, need), _conv_id(c, h, need), need)


def _seven_pairs_used(counts: Sequence[int], seen: Sequence[int] | None = None) -> int:
    """Most hand tiles usable by a seven-pairs-and-pung target (a pung kind, seven pair slots elsewhere), where
    a kind gives a pung slot only if three copies exist and a second pair slot only if four do."""
    caps = [4] * 34 if seen is None else [4 - x for x in seen]
    best = 0
    for pung_kind in [-1, *range(34)]:
        if pung_kind >= 0 and caps[pung_kind] < 3:
            continue
        pung = min(counts[pung_kind], 3) if pung_kind >= 0 else 0
        slots: list[int] = []
        for j, c in enumerate(counts):
            if j != pung_kind and c and caps[j] >= 2:
                slots.append(min(c, 2))
                if c > 2 and caps[j] >= 4:
                    slots.append(min(c - 2, 2))
        slots.sort(reverse=True)
        best = max(best, pung + sum(slots[:7]))
    return best


def _check_size(n: int, melds: int, what: str) -> int:
    if not 0 <= melds <= SETS_NEEDED:
        raise ValueError(f"{what}: melds must be 0..5, not {melds}")
    need = SETS_NEEDED - melds
    if n not in (3 * need + 1, 3 * need + 2):
        raise ValueError(
            f"{what}: with {melds} melds the concealed hand has {3 * need + 1} or {3 * need + 2} tiles, not {n}"
        )
    return need


def shanten(
    counts: Sequence[int], melds: int = 0, *, seven_pairs_and_pung: bool = False, seen: Sequence[int] | None = None
) -> int:
    """Tiles away from ready (Taiwan 16-tile): -1 complete, 0 ready (tenpai), 1 one exchange from ready, ...

    ``counts`` is the concealed hand (3k+1 or 3k+2 tiles); ``melds`` exposed sets and concealed gongs already
    made, so that the hand needs ``5 - melds`` more sets and a pair.  Exact, with the four-copy limit (a hand
    whose only completion needs a fifth copy of a kind is not ready; copies in ``seen``, see the module docstring,
    count towards the four).  With ``seven_pairs_and_pung`` (and no melds) the 嚦咕嚦咕 shape is also a target.
    """
    need = _check_size(sum(counts), melds, "shanten")
    if seen is not None:
        _with_seen(counts, seen, "shanten")
        result = 3 * need + 1 - _max_used(_part_ids(counts, seen), need)
    else:  # _part_ids and _max_used inlined: this is the hot path of a bot weighing its throws
        get = _SUIT_IDS.get
        t = tuple(counts[0:9])
        x = get(t)
        if x is None:
            x = _suit_id(t)
        t = tuple(counts[9:18])
        y = get(t)
        if y is None:
            y = _suit_id(t)
        t = tuple(counts[18:27])
        z = get(t)
        if z is None:
            z = _suit_id(t)
        t = tuple(counts[27:34])
        h = _HONOUR_IDS.get(t)
        if h is None:
            h = _honour_id(t)
        if x > y:
            x, y = y, x
        if y > z:
            y, z = z, y
            if x > y:
                x, y = y, x
        key = (x, y, need)
        xy = _CONV_IDS.get(key)
        if xy is None:
            xy = _conv_id(x, y, need)
        key = (z, h, need) if z < h else (h, z, need)
        zh = _CONV_IDS.get(key)
        if zh is None:
            zh = _conv_id(z, h, need)
        key = (xy, zh, need) if xy < zh else (zh, xy, need)
        used = _FINALS.get(key)
        if used is None:
            used = _final_id(xy, zh, need)
        result = 3 * need + 1 - used
    if seven_pairs_and_pung and melds == 0:
        result = min(result, 16 - _seven_pairs_used(counts, seen))
    return result


def useful_tiles(
    counts: Sequence[int], melds: int = 0, *, seven_pairs_and_pung: bool = False, seen: Sequence[int] | None = None
) -> list[int]:
    """The kinds (11..47, ascending) whose draw lowers the shanten of a 3k+1 hand; a kind of which the hand and
    ``seen`` hold four is never useful.  For a ready hand these are exactly its waits (with the same ``seen``)."""
    n = sum(counts)
    need = _check_size(n, melds, "useful_tiles")
    if n % 3 != 1:
        raise ValueError(f"useful_tiles: a hand before its draw has 3k+1 tiles, not {n}")
    c = list(counts)
    have = _with_seen(c, seen, "useful_tiles")
    if seven_pairs_and_pung and melds == 0:
        base = shanten(c, melds, seven_pairs_and_pung=True, seen=seen)
        out: list[int] = []
        for j in range(34):
            if have[j] < 4:
                c[j] += 1
                if shanten(c, melds, seven_pairs_and_pung=True, seen=seen) < base:
                    out.append(KIND_AT[j])
                c[j] -= 1
        return out
    ids = _part_ids(c, seen)
    used = _max_used(ids, need)
    gone = _NOTHING_SEEN if seen is None else seen
    out = []
    for part, lo in enumerate((0, 9, 18, 27)):
        others = [ids[k] for k in range(4) if k != part]
        rest = _conv_id(_conv_id(others[0], others[1], need), others[2], need)
        # A tile with no held tile and no seen copy within two ranks (an honour neither held nor seen) adds an
        # isolated single to its part, which changes no other rank's caps (:func:`_seen_caps`) nor parts
        # (:func:`_capped_parts`): one answer for all of them.  The others, tile by tile.
        lone_useful: bool | None = None
        near = 0
        part_seen = any(gone[lo : lo + 9 if lo < 27 else 34])
        if lo < 27:
            held = 0  # the ranks held or seen
            for r in range(9):
                if c[lo + r] or gone[lo + r]:
                    held |= 1 << r
            near = held | held << 1 | held << 2 | held >> 1 | held >> 2
            suit_seen = tuple(gone[lo : lo + 9])
        for j in range(lo, lo + 9 if lo < 27 else 34):
            if have[j] >= 4:
                continue
            if (c[j] == 0 and gone[j] == 0) if lo == 27 else not (near >> (j - lo)) & 1:
                if lone_useful is None:
                    lone_useful = _final_id(rest, _conv_id(ids[part], _LONE_ID, need), need) > used
                if lone_useful:
                    out.append(KIND_AT[j])
                continue
            c[j] += 1
            if lo == 27:
                table = _honour_id(tuple(c[27:34]), seen)
            elif part_seen:
                t = tuple(c[lo : lo + 9])
                hit = _CAPPED_SUITS.get((t, suit_seen))
                table = _capped_suit_id(t, suit_seen) if hit is None else hit
            else:
                t = tuple(c[lo : lo + 9])
                hit = _SUIT_IDS.get(t)
                table = _suit_id(t) if hit is None else hit
            c[j] -= 1
            if _final_id(rest, table, need) > used:
                out.append(KIND_AT[j])
    return out

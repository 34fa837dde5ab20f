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

from collections.abc import Iterable, Iterator, Sequence
from typing import Literal, NamedTuple

from .tiles import INDEX, KIND_AT
from .types import Meld

__all__ = [
    "GROUP_OF",
    "SETS_NEEDED",
    "UNKNOWN",
    "Group",
    "completes_with",
    "group_states",
    "GroupType",
    "arrangements",
    "is_complete",
    "is_seven_pairs_and_pung",
    "meld_counts",
    "shanten",
    "useful_tiles",
    "waits",
]

GroupType = Literal["chow", "pung", "pair"]

SETS_NEEDED = 5  # Taiwan 16-tile: five sets and a pair
_CACHE_LIMIT = 400_000  # entries per cache before it is cleared (a bound on memory in very long runs)
_SUIT_STARTS = (0, 9, 18)


class Group(NamedTuple):
    """One group of an arrangement: ``type`` chow/pung/pair and ``kind`` (11..47; the lowest kind of a chow)."""

    type: GroupType
    kind: int


# ------------------------------------------------------------------------------------ exact decompositions


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


def _candidates(counts: Sequence[int]) -> list[int]:
    """Dense indices that could complete the hand: held kinds and suit kinds within two ranks of a held one."""
    near = [False] * 34
    for lo in _SUIT_STARTS:
        for r in range(9):
            if counts[lo + r]:
                for d in range(max(0, r - 2), min(8, r + 2) + 1):
                    near[lo + d] = True
    for j in range(27, 34):
        if counts[j]:
            near[j] = True
    return [j for j in range(34) if near[j]]


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
    have = [a + b for a, b in zip(counts, seen)]
    for j, x in enumerate(have):
        if x > 4 or seen[j] < 0:
            raise ValueError(f"{what}: {x} copies of kind {KIND_AT[j]} in hand and seen (at most 4)")
    return have


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
    c = list(counts)
    have = _with_seen(c, seen, "waits")
    seven = seven_pairs_and_pung and n == 16
    # A tile changes one group only.  By the tile counts mod 3 alone: a group of 3k+1 tiles must take it, and
    # the groups may end with only one of 3k+2 (the pair); most hands are rejected here without any search.
    rem = [sum(c[0:9]) % 3, sum(c[9:18]) % 3, sum(c[18:27]) % 3, sum(c[27:34]) % 3]
    ones = rem.count(1)
    twos = rem.count(2)
    if not ((ones == 1 and twos == 0) or (ones == 0 and twos == 2)):
        if not seven:
            return []
        broken = [0, 1]  # no standard win: only the seven-pairs shape is tried
        states = [UNKNOWN] * 4
    else:
        # with two groups that cannot complete, no tile wins a standard hand; with one, only its kinds can
        states = group_states(c)
        broken = [g for g in range(4) if states[g] < 0]
    out: list[int] = []
    candidates = _candidates(c)
    if not seven:
        takers = [g for g in range(4) if rem[g] == 1] or [g for g in range(4) if rem[g] == 2]
        candidates = [j for j in candidates if GROUP_OF[j] in takers]
    for j in candidates:
        if have[j] >= 4:
            continue
        if len(broken) > 1 or (broken and GROUP_OF[j] != broken[0]) or not completes_with(c, states, j):
            if not seven:
                continue
            c[j] += 1
            wins = is_seven_pairs_and_pung(c)
            c[j] -= 1
            if not wins:
                continue
        out.append(KIND_AT[j])
    return out


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


_CONVS: dict[tuple[_Table, _Table, int], _Table] = {}


def _conv_cached(a: _Table, b: _Table, need: int) -> _Table:
    """:func:`_conv` through a cache: random hands have only a few hundred distinct suit tables."""
    key = (a, b, need)
    hit = _CONVS.get(key)
    if hit is None:
        if len(_CONVS) > _CACHE_LIMIT:
            _CONVS.clear()
        hit = _CONVS[key] = _conv(a, b, need)
    return hit


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
                off = 6 * p
                sub_off = 6 * (p - dp)
                for s in range(ds, 6):
                    best[s + off] = max(best[s + off], sub_table[s - ds + sub_off] + used)
        table = tuple(best)
    if len(_BLOCKS) > _CACHE_LIMIT:
        _BLOCKS.clear()
        _BLOCKS[()] = _ZERO
    _BLOCKS[t] = table
    return table


_FULL_CAPS = (4,) * 9


def _exact_suit_table(t: tuple[int, ...], caps: tuple[int, ...] = _FULL_CAPS) -> _Table:
    """Exact table of one suit (the four-copy limit respected), by dynamic programming over target hands.

    Ranks are visited in order; the state is (chows started one rank back, chows started at this rank, sets,
    pairs).  At each rank the target holds ``T`` = pending chows + new chows + 3 per pung + 2 per pair <= the
    copies there are (``caps``: 4 less the seen ones) tiles, of which ``min(T, held)`` are hand tiles used.
    Groups that use no hand tile are never placed (a target can drop them: the table counts at most ``s`` sets
    and ``p`` pairs): no pung or pair on an empty rank, and no more chows at a rank than the most tiles held on
    the three ranks they cover.  That keeps the programme small on the sparse suits of real hands.
    """
    states: dict[tuple[int, int, int, int], int] = {(0, 0, 0, 0): 0}
    for i in range(9):
        held = t[i]
        cap = caps[i]
        groups = (0, 1) if held else (0,)
        chow_room = max(t[i : i + 3]) if i <= 6 else 0
        new: dict[tuple[int, int, int, int], int] = {}
        for (x, y, s, p), used in states.items():
            pending = x + y
            for pungs in groups:
                for pairs in groups if p == 0 else (0,):
                    fixed = pending + 3 * pungs + 2 * pairs
                    if fixed > cap:
                        continue
                    max_chows = min(cap - fixed, chow_room)
                    for chows in range(max_chows + 1):
                        ns = s + chows + pungs
                        if ns > SETS_NEEDED:
                            break
                        target = fixed + chows
                        nu = used + (target if target < held else held)
                        key = (y, chows, ns, p + pairs)
                        if new.get(key, -1) < nu:
                            new[key] = nu
        states = new
    best = [0] * 12
    for (_x, _y, s, p), used in states.items():
        best[s + 6 * p] = max(best[s + 6 * p], used)
    for p in (0, 1):
        for s in range(1, 6):
            best[s + 6 * p] = max(best[s + 6 * p], best[s - 1 + 6 * p])
    for s in range(6):
        best[s + 6] = max(best[s + 6], best[s])
    return tuple(best)


def _components(t: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Split suit counts where two or more empty ranks separate tiles (no block spans such a gap)."""
    parts: list[tuple[int, ...]] = []
    start = -1
    last = -10
    for r in range(9):
        if t[r]:
            if start < 0:
                start = r
            elif r - last > 2:
                parts.append(t[start : last + 1])
                start = r
            last = r
    if start >= 0:
        parts.append(t[start : last + 1])
    return parts


_SUIT_TABLES: dict[tuple[int, ...], _Table] = {}


def _suit_table(t: tuple[int, ...]) -> _Table:
    hit = _SUIT_TABLES.get(t)
    if hit is not None:
        return hit
    if 4 in t:
        table = _exact_suit_table(t)
    else:
        table = _ZERO
        for part in _components(t):
            table = _conv(table, _block_table(part))
    if len(_SUIT_TABLES) > _CACHE_LIMIT:
        _SUIT_TABLES.clear()
    _SUIT_TABLES[t] = table
    return table


_HONOUR_TABLES: dict[tuple[int, ...], _Table] = {(): _ZERO}


def _honour_table(counts: Sequence[int], seen: Sequence[int] | None = None) -> _Table:
    if seen is not None and any(seen[27:34]):
        capped = tuple(sorted((c, 4 - x) for c, x in zip(counts[27:34], seen[27:34]) if c))
        hit = _CAPPED_HONOURS.get(capped)
        if hit is None:
            hit = _ZERO
            for c, cap in capped:
                hit = _conv(hit, _single_kind_table(c, cap))
            _CAPPED_HONOURS[capped] = hit  # at most a few thousand keys
        return hit
    key = tuple(sorted(c for c in counts[27:34] if c))
    hit = _HONOUR_TABLES.get(key)
    if hit is not None:
        return hit
    table = _ZERO
    for c in key:
        table = _conv(table, _SINGLE_KIND[c])
    _HONOUR_TABLES[key] = table  # at most a few hundred keys
    return table


_CAPPED_HONOURS: dict[tuple[tuple[int, int], ...], _Table] = {}
_CAPPED_SUITS: dict[tuple[tuple[int, ...], tuple[int, ...]], _Table] = {}


def _capped_suit_table(t: tuple[int, ...], seen: Sequence[int]) -> _Table:
    """The exact table of suit counts ``t`` when ``seen`` (its 9 counts) copies are out of reach.

    A seen copy matters only within two ranks of a held tile: a group touching a rank with no held tile that
    near uses no hand tile, so a target can drop it.  Suits whose seen copies are all that far use the fast
    tables."""
    caps = tuple(4 - x if x and any(t[max(0, i - 2) : i + 3]) else 4 for i, x in enumerate(seen))
    if caps == _FULL_CAPS:
        hit = _SUIT_TABLES.get(t)
        return hit if hit is not None else _suit_table(t)
    key = (t, caps)
    hit = _CAPPED_SUITS.get(key)
    if hit is None:
        if len(_CAPPED_SUITS) > _CACHE_LIMIT:
            _CAPPED_SUITS.clear()
        hit = _CAPPED_SUITS[key] = _exact_suit_table(t, caps)
    return hit


def _tables(counts: Sequence[int], seen: Sequence[int] | None = None) -> list[_Table]:
    out: list[_Table] = []
    get = _SUIT_TABLES.get
    for lo in _SUIT_STARTS:
        t = tuple(counts[lo : lo + 9])
        if seen is not None and any(seen[lo : lo + 9]):
            out.append(_capped_suit_table(t, seen[lo : lo + 9]))
            continue
        table = get(t)
        out.append(table if table is not None else _suit_table(t))
    out.append(_honour_table(counts, seen))
    return out


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


_FINALS: dict[tuple[_Table, _Table, int], int] = {}


def _max_used(tables: Sequence[_Table], need: int) -> int:
    return _final(_conv_cached(tables[0], tables[1], need), _conv_cached(tables[2], tables[3], need), need)


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
    result = 3 * need + 1 - _max_used(_tables(counts, seen), need)
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
    tables = _tables(c, seen)
    used = _max_used(tables, need)
    lone = _SINGLE_KIND[1]
    finals = _FINALS
    out = []
    for part, lo in enumerate((0, 9, 18, 27)):
        others = [tables[k] for k in range(4) if k != part]
        rest = _conv_cached(_conv_cached(others[0], others[1], need), others[2], need)
        # A tile with no held tile within two ranks (or an honour not held) adds an isolated single to its part:
        # one answer for all of them.  (Suits with four of a kind are computed tile by tile: exact tables.)
        # With ``seen`` copies in the part, tile by tile too: the lone tiles' caps may differ.
        lone_useful: bool | None = None
        near = 0
        part_seen = seen is not None and any(seen[lo : lo + 9 if lo < 27 else 34])
        if lo < 27:
            held = 0
            for r in range(9):
                if c[lo + r]:
                    held |= 1 << r
            capped = part_seen or 4 in c[lo : lo + 9]
            near = 0x1FF if capped else held | held << 1 | held << 2 | held >> 1 | held >> 2
        for j in range(lo, lo + 9 if lo < 27 else 34):
            if have[j] >= 4:
                continue
            if (c[j] == 0 and not part_seen) if lo == 27 else not (near >> (j - lo)) & 1:
                if lone_useful is None:
                    lone_useful = _final(rest, _conv_cached(tables[part], lone, need), need) > used
                if lone_useful:
                    out.append(KIND_AT[j])
                continue
            c[j] += 1
            if lo == 27:
                table = _honour_table(c, seen)
            elif part_seen:
                table = _capped_suit_table(tuple(c[lo : lo + 9]), seen[lo : lo + 9])  # type: ignore[index]
            else:
                table = _suit_table(tuple(c[lo : lo + 9]))
            c[j] -= 1
            key = (rest, table, need)
            best = finals.get(key)
            if best is None:
                if len(finals) > _CACHE_LIMIT:
                    finals.clear()
                best = finals[key] = _final(rest, table, need)
            if best > used:
                out.append(KIND_AT[j])
    return out

"""The arrangement of a player's undeclared tiles that scores highest, for a player who declares nothing (a bot
over the ICGA protocol, ``mjref score``): mj-server scores what each player declares, so mjref declares for such a
player the closed sets that score most.  A winner's tiles must all be arranged (four sets and a pair, or seven
pairs where allowed); a loser may keep tiles out of any set.  The set that took a claimed winning tile is exposed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import replace

from referee.game.classical.hand import Hand, TileSet, complete_shape, open_shape, thirteen_wonders
from referee.game.classical.options import GameOptions
from referee.game.classical.scoring import HandScore, Situation, score_hand
from referee.game.classical.tiles import CHOW_REST, PLAYING

MAX_ARRANGEMENTS = 20_000  # far above any 14 tiles' count; a guard against a hostile request


_INDEX = {t: i for i, t in enumerate(PLAYING)}
_N = len(PLAYING)
# Per index of PLAYING: its closed pung, chow (None where no chow starts) and pair, made once (a TileSet is frozen)
_PUNG = [TileSet("ClosedPung", t) for t in PLAYING]
_CHOW = [TileSet("ClosedChow", t) if t in CHOW_REST else None for t in PLAYING]
_PAIR = [TileSet("ClosedPair", t) for t in PLAYING]


def _sets_and_kept(counts: list[int], i: int, chosen: list[TileSet],
                   kept: list[str]) -> Iterator[tuple[list[TileSet], list[str]]]:
    """Every way to make closed sets of some of the tiles of ``counts`` (by index of PLAYING), each once: the sets,
    and the tiles kept out of any set.  Sets are made from the first tile held, from index ``i`` on (the tiles
    before it are used up): its pung, its chow, its pair, then kept out of every set.  ``chosen`` and ``kept`` are
    the way down so far; each answer is a copy.  (A winner's, every tile in a set: ``_winning_sets``.)"""
    while i < _N and not counts[i]:
        i += 1
    if i == _N:
        yield list(chosen), list(kept)
        return
    n = counts[i]
    chow = _CHOW[i]
    # The sets it can make, in a fixed order: each with how many of the first tile it takes, and whether it takes
    # the two tiles above it too
    options: list[tuple[TileSet, int, bool]] = []
    if n >= 3:
        options.append((_PUNG[i], 3, False))
    if chow is not None and counts[i + 1] and counts[i + 2]:
        options.append((chow, 1, True))
    if n >= 2:
        options.append((_PAIR[i], 2, False))
    for ts, take, run in options:
        counts[i] = n - take
        if run:
            counts[i + 1] -= 1
            counts[i + 2] -= 1
        chosen.append(ts)
        yield from _sets_and_kept(counts, i, chosen, kept)
        chosen.pop()
        counts[i] = n
        if run:
            counts[i + 1] += 1
            counts[i + 2] += 1
    counts[i] = 0  # the first tile kept out of every set
    kept.extend([PLAYING[i]] * n)
    yield from _sets_and_kept(counts, i + 1, chosen, kept)
    del kept[-n:]
    counts[i] = n


def _winning_sets(counts: list[int], sets: int, pairs: int, seven: bool) -> list[list[TileSet]]:
    """The ways to make closed sets of every tile of ``counts`` (by index of PLAYING) that complete a winner's hand
    which has ``sets`` sets already, ``pairs`` of them pairs: four sets and a pair, or seven pairs where ``seven``.
    In the order of ``_sets_and_kept``: the same walk, with no tile kept out, and without the branches that can no
    longer make such a hand (a second pair, a sixth set; for seven pairs, any set but a pair)."""
    out: list[list[TileSet]] = []
    chosen: list[TileSet] = []

    def walk(i: int, made: int, paired: int) -> None:
        while i < _N and not counts[i]:
            i += 1
        if i == _N:
            if complete_shape(made, paired, seven):
                out.append(list(chosen))
            return
        if not open_shape(made, paired, seven):
            return
        n = counts[i]
        if n >= 3:
            counts[i] = n - 3
            chosen.append(_PUNG[i])
            walk(i, made + 1, paired)
            chosen.pop()
            counts[i] = n
        chow = _CHOW[i]
        if chow is not None and counts[i + 1] and counts[i + 2]:
            counts[i] = n - 1
            counts[i + 1] -= 1
            counts[i + 2] -= 1
            chosen.append(chow)
            walk(i, made + 1, paired)
            chosen.pop()
            counts[i] = n
            counts[i + 1] += 1
            counts[i + 2] += 1
        if n >= 2:
            counts[i] = n - 2
            chosen.append(_PAIR[i])
            walk(i, made + 1, paired + 1)
            chosen.pop()
            counts[i] = n

    walk(0, sets, pairs)
    return out


def _caller(hand: Hand, at: Situation) -> Hand | None:
    """The winner's tiles just before the completing tile (what mj-server's scoring of waits looks at)."""
    if at.winner and at.tile is not None and at.tile in hand.concealed:
        rest = list(hand.concealed)
        rest.remove(at.tile)
        return Hand(rest, list(hand.sets), list(hand.specials))
    return None


def next_declarations(hand: Hand, at: Situation, options: GameOptions, claim: bool) -> list[TileSet | None]:
    """What a winner who declares its own sets (an mj-server client) may declare next, of its undeclared tiles
    ``hand.concealed`` (``hand.sets`` are its sets so far): a set of some arrangement that completes its hand (with
    ``claim``, one that takes the winning tile ``at.tile``: the set the discard went to, declared first and
    exposed), or ``None``, the special hand (the Thirteen Unique Wonders: all its tiles).  Empty once every tile is
    declared.  (A loser's are any closed set it holds: ``ClassicalFamily.declare_options``.)"""
    counts = Counter(hand.concealed)
    out: list[TileSet | None] = []
    if not hand.concealed:
        return out
    if not hand.sets and thirteen_wonders(counts):
        return [None]
    seen: set[TileSet] = set()
    pairs = sum(1 for s in hand.sets if s.size == 2)
    for part in _winning_sets([counts[t] for t in PLAYING], len(hand.sets), pairs, bool(options.SevenPairs)):
        for ts in part:
            if ts not in seen and (not claim or at.tile in ts.tiles()):
                seen.add(ts)
                out.append(ts)
    return out


def score_declared(hand: Hand, declared: list[TileSet], claimed: int | None, at: Situation,
                   options: GameOptions) -> tuple[Hand, HandScore]:
    """The score of what a player declared itself: ``declared`` are its closed sets (the one at index ``claimed``
    took the winning discard, and is exposed), ``hand.concealed`` every tile it had not declared before (a
    winner's with the completing tile); the tiles left out stay concealed (a special hand's all of them)."""
    sets = list(declared)
    if claimed is not None:
        exposed = {"ClosedPung": "Pung", "ClosedChow": "Chow", "ClosedPair": "Pair"}[sets[claimed].type]
        sets[claimed] = TileSet(exposed, sets[claimed].tile)  # type: ignore[arg-type]
    leftover = Counter(hand.concealed) - Counter(t for s in sets for t in s.tiles())
    arranged = Hand(sorted(leftover.elements()), [*hand.sets, *sets], list(hand.specials))
    where = replace(at, caller=_caller(hand, at),
                    claimed_set=(len(hand.sets) + claimed) if claimed is not None else None)
    return arranged, score_hand(arranged, where, options)


def best_arrangement(hand: Hand, at: Situation, options: GameOptions) -> tuple[Hand, HandScore]:
    """The declaration of ``hand``'s concealed tiles that scores highest (the first such, in a fixed order), and
    its score.  For a winner, ``hand.concealed`` holds every undeclared tile including the completing one."""
    if at.winner and not hand.sets and thirteen_wonders(Counter(hand.concealed)):
        return hand, score_hand(hand, at, options)
    counts = [0] * _N
    odd: list[str] = []  # (tiles that make no set: none in a real hand; kept out, as the enumeration leaves them)
    for t in hand.concealed:
        k = _INDEX.get(t)
        if k is None:
            odd.append(t)
        else:
            counts[k] += 1
    best: tuple[Hand, HandScore] | None = None
    claimed = at.winner and at.whence in ("discard", "robbed") and at.tile is not None
    caller = None
    if at.winner and at.tile is not None and at.tile in hand.concealed:
        rest = list(hand.concealed)
        rest.remove(at.tile)
        caller = Hand(rest, list(hand.sets), list(hand.specials))
    declared_pairs = sum(1 for s in hand.sets if s.size == 2)
    wheres: dict[int | None, Situation] = {}  # the situation of each claimed set's index, made once
    seen = 0
    # a winner's: the ways that complete its hand; another player's: every way, tiles kept out of sets or not
    ways = (((sets, []) for sets in _winning_sets(counts, len(hand.sets), declared_pairs, bool(options.SevenPairs)))
            if at.winner else _sets_and_kept(counts, 0, [], []))
    for sets, kept in ways:
        targets: list[int | None] = [i for i, s in enumerate(sets) if at.tile in s.tiles()] if claimed else []
        targets = targets or [None]
        leftover = sorted(kept + odd) if odd else sorted(kept)
        for i in targets:
            declared = sets
            if i is not None:
                declared = list(sets)
                exposed = {"ClosedPung": "Pung", "ClosedChow": "Chow", "ClosedPair": "Pair"}[declared[i].type]
                declared[i] = TileSet(exposed, declared[i].tile)  # type: ignore[arg-type]
            candidate = Hand(list(leftover), [*hand.sets, *declared], list(hand.specials))
            where = wheres.get(i)
            if where is None:
                where = wheres[i] = replace(at, caller=caller,
                                            claimed_set=(len(hand.sets) + i) if i is not None else None)
            scored = score_hand(candidate, where, options)
            if best is None or scored.value > best[1].value:
                best = (candidate, scored)
            seen += 1
            if seen >= MAX_ARRANGEMENTS:
                break
        if seen >= MAX_ARRANGEMENTS:
            break
    if best is None:
        raise ValueError("the tiles do not make a complete hand")
    return best

"""The arrangement of a player's undeclared tiles that scores highest, for a player who declares nothing (a bot
over the ICGA protocol, ``mjref score``): mj-server scores what each player declares, so mjref declares for such a
player the closed sets that score most.  A winner's tiles must all be arranged (four sets and a pair, or seven
pairs where allowed); a loser may keep tiles out of any set.  The set that took a claimed winning tile is exposed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import replace

from referee.game.classical.hand import Hand, TileSet, thirteen_wonders
from referee.game.classical.options import GameOptions
from referee.game.classical.scoring import HandScore, Situation, score_hand
from referee.game.classical.tiles import PLAYING, step

MAX_ARRANGEMENTS = 20_000  # far above any 14 tiles' count; a guard against a hostile request


def _partitions(counts: Counter[str], complete: bool) -> Iterator[list[TileSet]]:
    """Every way to make closed sets of ``counts`` (all of them when ``complete``), each once."""
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
        for rest in _partitions(counts, complete):
            yield [ts, *rest]
        for t in used:
            counts[t] += 1
    if not complete:  # the first tile kept out of every set
        n = counts[first]
        counts[first] = 0
        yield from _partitions(counts, complete)
        counts[first] = n


def _complete(sets: list[TileSet], options: GameOptions) -> bool:
    """Whether a winner's sets (all its tiles in them) make four sets and a pair, or seven pairs where allowed."""
    pairs = sum(1 for s in sets if s.size == 2)
    return (len(sets) == 5 and pairs == 1) or (bool(options.SevenPairs) and len(sets) == 7 and pairs == 7)


def _caller(hand: Hand, at: Situation) -> Hand | None:
    """The winner's tiles just before the completing tile (what mj-server's scoring of waits looks at)."""
    if at.winner and at.tile is not None and at.tile in hand.concealed:
        rest = list(hand.concealed)
        rest.remove(at.tile)
        return Hand(rest, list(hand.sets), list(hand.specials))
    return None


def next_declarations(hand: Hand, at: Situation, options: GameOptions, claim: bool) -> list[TileSet | None]:
    """What a player who declares its own sets (an mj-server client) may declare next, of its undeclared tiles
    ``hand.concealed`` (``hand.sets`` are its sets so far): a loser any closed pung, chow or pair it holds; a
    winner a set of some arrangement that completes its hand (with ``claim``, one that takes the winning tile
    ``at.tile``: the set the discard went to, declared first and exposed), or ``None``, the special hand (the
    Thirteen Unique Wonders: all its tiles).  Empty for a winner with every tile declared."""
    counts = Counter(hand.concealed)
    out: list[TileSet | None] = []
    if not at.winner:
        for t in PLAYING:
            n = counts[t]
            if not n:
                continue
            if n >= 3:
                out.append(TileSet("ClosedPung", t))
            b, c = step(t, 1), step(t, 2)
            if b is not None and c is not None and counts[b] and counts[c]:
                out.append(TileSet("ClosedChow", t))
            if n >= 2:
                out.append(TileSet("ClosedPair", t))
        return out
    if not hand.concealed:
        return out
    if not hand.sets and thirteen_wonders(counts):
        return [None]
    seen: set[TileSet] = set()
    for part in _partitions(counts, complete=True):
        if not _complete([*hand.sets, *part], options):
            continue
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
    counts = Counter(hand.concealed)
    best: tuple[Hand, HandScore] | None = None
    if at.winner and thirteen_wonders(counts) and not hand.sets:
        return hand, score_hand(hand, at, options)
    claimed = at.winner and at.whence in ("discard", "robbed") and at.tile is not None
    caller = None
    if at.winner and at.tile is not None and at.tile in hand.concealed:
        rest = list(hand.concealed)
        rest.remove(at.tile)
        caller = Hand(rest, list(hand.sets), list(hand.specials))
    seen = 0
    for sets in _partitions(counts, complete=at.winner):
        if at.winner:
            pairs = sum(1 for s in [*hand.sets, *sets] if s.size == 2)
            total = len(hand.sets) + len(sets)
            if not ((total == 5 and pairs == 1) or (options.SevenPairs and total == 7 and pairs == 7)):
                continue
        targets: list[int | None] = [i for i, s in enumerate(sets) if claimed and at.tile in s.tiles()]
        targets = targets or [None]
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
            seen += 1
            if seen >= MAX_ARRANGEMENTS:
                break
        if seen >= MAX_ARRANGEMENTS:
            break
    if best is None:
        raise ValueError("the tiles do not make a complete hand")
    return best

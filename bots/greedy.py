"""``greedy``: the default dummy.  Plays to lower its shanten, one question at a time, from its own view only.

The core (all four personality weights at their default 0.5):

* ``/ask hu``: always ``/hu``.
* ``/ask throw``: throw the kind that leaves the lowest shanten (``analysis.shanten`` with ``melds`` = the
  number of its own melds, concealed gongs included; one more when 13 tiles were dealt, as four sets and a pair
  make the hand).  Ties are broken by the **useful tiles still unseen** after the throw (the sum of
  ``view.unseen(kind)`` over ``analysis.useful_tiles``; computed only for the throws tied at the best shanten),
  then by a stable rule: honours first, then terminals, then the rank
  farthest from 5, then the lowest kind.  Of several copies of the kind it throws the lowest TID.
* ``/ask pong``, ``/ask eat``: claim only when the claim lowers shanten, that is when the shanten after the
  claim and its best throw (the shanten of the claimed hand, which has its draw-size) is below the shanten
  now.  Of several eat shapes it takes the one with the lowest shanten, then the most unseen useful tiles.
* ``/ask gong`` on another's throw (a meld gong): the shanten after the gong (before its replacement draw) can
  never be below the shanten now (the three tiles were already a set), so the literal rule would never gong.
  It gongs when the gong **does not raise** shanten, like a concealed gong: the replacement draw is a free
  draw. ``hiddenness`` (below) can decline it.
* ``/ask gong`` in its own turn (concealed gong or promotion): gong when it does not raise shanten (the
  shanten of the hand after the gong against the shanten of the hand now); of several, the lowest shanten,
  then the first.

Personality weights, in the spirit of xmj's ``mj-player`` (floats 0..1, default 0.5; 0.5 means "no bias", so
the default bot is exactly the core above):

* ``chowness``, appetite for eating, and ``hiddenness``, reluctance to expose, combine into an *appetite* per
  claim: eat ``0.5 + chowness - hiddenness``, pong and meld gong ``1 - hiddenness`` (clipped to 0..1).
  - appetite < 0.25: a claim that lowers shanten by only one is declined unless it makes the hand ready
    (shanten 0 after the throw); a meld gong is declined.  So ``hiddenness > 0.75`` declines such pongs and
    eats (and every meld gong), and ``chowness < 0.25`` declines such eats.
  - appetite > 0.75: a claim that keeps shanten is also taken when it increases the unseen useful tiles.  So
    ``hiddenness < 0.25`` pongs (and eats) for shape, and ``chowness > 0.75`` eats for shape.
* ``majorness``, preference to keep honours and terminals: among throws tied at the best shanten, throwing an
  honour or terminal costs ``8 * (majorness - 0.5)`` useful tiles (at 1: keeps them unless another throw is
  four useful tiles worse; at 0: throws them unless they are worth four more).
* ``suitness``, preference for one suit: among throws tied at the best shanten, throwing a suit tile gains
  ``8 * (suitness - 0.5) * (1 - n_suit / n_max)`` useful tiles, where ``n_suit`` counts its own tiles
  (hand and melds) of that suit and ``n_max`` those of its biggest suit: at 1 it sheds its minority suits
  first.

What it counts: ``shanten`` and ``useful_tiles`` are given ``seen`` = the copies in its own melds (its exposed sets
and concealed gongs, and for a claim or gong being weighed, the meld it would make), so it never plays for a fifth
copy of a kind it has exposed three of.  Tiles seen elsewhere (rivers, others' melds) are not passed: they enter
only through the unseen-count weighting of useful tiles, where an all-gone kind weighs nothing.  (Passing them
would send most suits down the exact, slower analysis path.)

Cost: one ``shanten`` per distinct kind in hand per throw, and ``useful_tiles`` only for tied throws.  The bot
is deterministic (it draws no random numbers).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence

from bots.base import BasePolicy, pick
from referee.game.analysis import meld_counts, shanten, useful_tiles
from referee.game.options import throw_answer
from referee.game.tiles import INDEX
from referee.game.types import GONG_CONCEALED, GONG_MELDED, HU, TYPE_CHECKING, Answer
from referee.game.view import SeatView

if TYPE_CHECKING:  # ``typing`` is no part of a bot's start (see ``referee.game.kinds``)
    from typing import ClassVar

BIAS_SCALE = 8.0  # useful tiles that a personality weight at 0 or 1 is worth, across its 0.5-wide half range


def _clip(x: float) -> float:
    return min(max(x, 0.0), 1.0)


def _made(view: SeatView, own: Sequence[object]) -> int:
    """The sets already made, counted against Taiwan's five (``analysis.shanten`` counts sets to five): a hand
    dealt 13 tiles (Chinese Classical, four sets and a pair) is one set further on than its melds."""
    return len(own) + 5 - view.sets_needed


def _is_major(i: int) -> bool:
    return i >= 27 or i % 9 in (0, 8)


def _stable_key(i: int) -> tuple[int, int]:
    """Lower sorts first, thrown first: honours, terminals, then far from the middle, then the lowest kind."""
    if i >= 27:
        return (0, i)
    return (5 - abs(i % 9 - 4), i)


def _copies(seen: Sequence[int]) -> Sequence[int] | None:
    """``seen`` for the analysis: None when it holds no copy (the same answers, by the analysis's fast path)."""
    return seen if any(seen) else None


def unseen_vector(view: SeatView) -> list[int]:
    """``view.unseen(kind)`` for all 34 kinds at once, by dense index: 4 minus the copies this seat sees."""
    seen = list(view.counts)
    for ms in view.melds.values():
        for m in ms:
            for t in m.tiles:
                seen[INDEX[t // 10]] += 1
    for river in view.rivers.values():
        for t in river:
            seen[INDEX[t // 10]] += 1
    return [4 - c if c < 4 else 0 for c in seen]


class Greedy(BasePolicy):
    name = "greedy"
    PARAMS: ClassVar[Mapping[str, float]] = {
        "chowness": 0.5,
        "hiddenness": 0.5,
        "majorness": 0.5,
        "suitness": 0.5,
    }

    def __init__(
        self, chowness: float = 0.5, hiddenness: float = 0.5, majorness: float = 0.5, suitness: float = 0.5
    ) -> None:
        super().__init__()
        for key, value in (
            ("chowness", chowness),
            ("hiddenness", hiddenness),
            ("majorness", majorness),
            ("suitness", suitness),
        ):
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"bot greedy: parameter {key}={value!r} must be a number from 0 to 1")
        self.chowness = float(chowness)
        self.hiddenness = float(hiddenness)
        self.majorness = float(majorness)
        self.suitness = float(suitness)

    # ------------------------------------------------------------------------------------------------ entry
    def decide(self, view: SeatView, ask: str, legal: Sequence[Answer]) -> Answer:
        if ask == "hu":
            return pick(legal, HU)
        if ask == "throw":
            i = self.choose_throw(view)
            return pick(legal, throw_answer(min(t for t in view.hand if INDEX[t // 10] == i)))
        if ask == "gong":
            if any(a.mode == GONG_MELDED for a in legal):  # on another's throw
                return pick(legal, self._meld_gong(view, legal))
            return pick(legal, self._self_gong(view, legal))
        if ask == "pong":
            return pick(legal, self._pong(view, legal))
        if ask == "eat":
            return pick(legal, self._eat(view, legal))
        return pick(legal, None)

    # ------------------------------------------------------------------------------------------------ helpers
    # ``copies`` is ``_copies(seen)``: no copies seen (no melds yet, most of a hand) is asked as no ``seen`` at all,
    # the same answers by the analysis's fast path for hands without copies seen.
    def _shanten(self, view: SeatView, counts: Sequence[int], melds: int, copies: Sequence[int] | None) -> int:
        return shanten(counts, melds, seven_pairs_and_pung=view.seven_pairs_and_pung and melds == 0, seen=copies)

    def _ukeire(
        self, view: SeatView, counts: Sequence[int], melds: int, unseen: Sequence[int], copies: Sequence[int] | None
    ) -> int:
        kinds = useful_tiles(
            counts, melds, seven_pairs_and_pung=view.seven_pairs_and_pung and melds == 0, seen=copies
        )
        return sum(unseen[INDEX[k]] for k in kinds)

    def _bias(self, i: int, suit_sizes: Sequence[int]) -> float:
        """Personality adjustment (in useful tiles) to throwing kind index ``i``; 0 at default weights."""
        b = 0.0
        if self.majorness != 0.5 and _is_major(i):
            b -= BIAS_SCALE * (self.majorness - 0.5)
        if self.suitness != 0.5 and i < 27:
            n_max = max(suit_sizes)
            if n_max:
                b += BIAS_SCALE * (self.suitness - 0.5) * (1.0 - suit_sizes[i // 9] / n_max)
        return b

    def _suit_sizes(self, view: SeatView) -> list[int]:
        sizes = [sum(view.counts[0:9]), sum(view.counts[9:18]), sum(view.counts[18:27])]
        for m in view.melds[view.position]:
            for t in m.tiles:
                if t < 400:
                    sizes[t // 100 - 1] += 1
        return sizes

    def ranked_throws(
        self, view: SeatView, counts: list[int], melds: int, seen: Sequence[int]
    ) -> list[tuple[int, float, int]]:
        """``(shanten, -score, index)`` of the throws tied at the best shanten, best first (``counts`` is
        draw-size and is restored before returning; ``seen`` the copies in its melds)."""
        copies = _copies(seen)
        best = 99
        tied: list[int] = []
        for i in range(34):
            if counts[i]:
                counts[i] -= 1
                s = self._shanten(view, counts, melds, copies)
                counts[i] += 1
                if s < best:
                    best, tied = s, [i]
                elif s == best:
                    tied.append(i)
        if len(tied) == 1:
            return [(best, 0.0, tied[0])]
        unseen = unseen_vector(view)
        neutral = self.majorness == 0.5 and self.suitness == 0.5
        sizes = None if neutral else self._suit_sizes(view)
        ranked = []
        for i in tied:
            counts[i] -= 1
            score = float(self._ukeire(view, counts, melds, unseen, copies))
            counts[i] += 1
            if sizes is not None:
                score += self._bias(i, sizes)
            ranked.append((best, -score, i))
        ranked.sort(key=lambda r: (r[1], _stable_key(r[2])))
        return ranked

    def choose_throw(self, view: SeatView) -> int:
        """The dense kind index to throw."""
        counts = list(view.counts)
        own = view.melds[view.position]
        return self.ranked_throws(view, counts, _made(view, own), meld_counts(own))[0][2]

    def _best_after_claim(
        self, view: SeatView, counts: list[int], melds: int, unseen: Sequence[int], seen: Sequence[int]
    ) -> int:
        """Unseen useful tiles after the best throw of a draw-size hand (``counts`` restored)."""
        ranked = self.ranked_throws(view, counts, melds, seen)
        i = ranked[0][2]
        counts[i] -= 1
        try:
            return self._ukeire(view, counts, melds, unseen, _copies(seen))
        finally:
            counts[i] += 1

    def _claim(self, view: SeatView, legal: Sequence[Answer], kind: str, appetite: float) -> Answer | None:
        """Shared pong/eat logic: evaluate each distinct shape; the answer to give, or None to pass."""
        t = view.claim_tile
        if t is None:
            return None
        counts = list(view.counts)
        own = view.melds[view.position]
        melds = _made(view, own)
        if melds >= 5:
            return None
        seen = meld_counts(own)
        s_now = self._shanten(view, counts, melds, _copies(seen))
        shapes: dict[tuple[int, ...], Answer] = {}
        for a in legal:
            if a.kind == kind:
                shapes.setdefault(tuple(INDEX[x // 10] for x in a.tiles), a)
        if not shapes:
            return None
        claimed = INDEX[t // 10]
        after: dict[tuple[int, ...], list[int]] = {}  # the copies in its melds once the shape is claimed
        results: list[tuple[int, int, Answer, tuple[int, ...]]] = []  # (s_after, order, answer, used)
        for order, (used, a) in enumerate(shapes.items()):
            seen_after = after[used] = list(seen)
            seen_after[claimed] += 1
            for j in used:
                counts[j] -= 1
                seen_after[j] += 1
            results.append((self._shanten(view, counts, melds + 1, _copies(seen_after)), order, a, used))
            for j in used:
                counts[j] += 1
        results.sort()
        s_after = results[0][0]
        gain = s_now - s_after
        eager = gain == 0 and appetite > 0.75
        if gain <= 0 and not eager:
            return None
        if gain == 1 and s_after > 0 and appetite < 0.25:
            return None
        tied = [r for r in results if r[0] == s_after]
        choice = tied[0]
        if len(tied) > 1 or eager:
            unseen = unseen_vector(view)
            best_u = -1
            for r in tied:
                for j in r[3]:
                    counts[j] -= 1
                u = self._best_after_claim(view, counts, melds + 1, unseen, after[r[3]])
                for j in r[3]:
                    counts[j] += 1
                if u > best_u:
                    best_u, choice = u, r
            if eager and best_u <= self._ukeire(view, counts, melds, unseen, _copies(seen)):
                return None
        return choice[2]

    def _pong(self, view: SeatView, legal: Sequence[Answer]) -> Answer | None:
        return self._claim(view, legal, "pong", _clip(1.0 - self.hiddenness))

    def _eat(self, view: SeatView, legal: Sequence[Answer]) -> Answer | None:
        return self._claim(view, legal, "eat", _clip(0.5 + self.chowness - self.hiddenness))

    def _meld_gong(self, view: SeatView, legal: Sequence[Answer]) -> Answer | None:
        options = [a for a in legal if a.kind == "gong"]
        if not options or _clip(1.0 - self.hiddenness) < 0.25:
            return None
        a = options[0]
        counts = list(view.counts)
        own = view.melds[view.position]
        melds = _made(view, own)
        if melds >= 5:
            return None
        seen = meld_counts(own)
        s_now = self._shanten(view, counts, melds, _copies(seen))
        k = INDEX[a.tiles[0] // 10]
        counts[k] -= 3
        seen[k] = 4  # the three from its hand and the claimed one
        s_after = self._shanten(view, counts, melds + 1, _copies(seen))
        return a if s_after <= s_now else None

    def _self_gong(self, view: SeatView, legal: Sequence[Answer]) -> Answer | None:
        counts = list(view.counts)
        own = view.melds[view.position]
        melds = _made(view, own)
        seen = meld_counts(own)
        s_now = self._shanten(view, counts, melds, _copies(seen))
        best: tuple[int, int] | None = None
        choice: Answer | None = None
        for order, a in enumerate(legal):
            if a.kind != "gong":
                continue
            extra = 1 if a.mode == GONG_CONCEALED else 0
            if melds + extra > 5:
                continue
            for x in a.tiles:
                counts[INDEX[x // 10]] -= 1
                seen[INDEX[x // 10]] += 1
            s_after = self._shanten(view, counts, melds + extra, _copies(seen))
            for x in a.tiles:
                counts[INDEX[x // 10]] += 1
                seen[INDEX[x // 10]] -= 1
            if s_after <= s_now and (best is None or (s_after, order) < best):
                best, choice = (s_after, order), a
        return choice


if __name__ == "__main__":
    from bots import stdio

    sys.exit(stdio.main("greedy"))

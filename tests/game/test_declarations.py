"""Seats that declare their own sets at a won hand's end (clients of mj-server's protocol): the engine asks them
``declare`` set by set, and scores what they declared."""

from __future__ import annotations

import random

import pytest

from referee.game.engine import Hand
from referee.game.types import PASS, Declare, Scored, Show
from referee.game.wall import generate_wall
from referee.rulesets import playable_rules

RULES = playable_rules("xmj", [])


def _play(seed: int, declarers: frozenset[int], rng: random.Random, *, best: bool) -> tuple[Hand, list[object]]:
    """A hand of eager claimers (Mah-Jong whenever they can, claims often); declaring seats answer at random, or
    with the sets the engine declares for a winner that declares nothing (``best``)."""
    hand = Hand(generate_wall(seed, 0, RULES), RULES, dealer=1 + seed % 4, declarers=declarers)
    events: list[object] = list(hand.start())
    plan: list[tuple[int, ...]] = []
    while not hand.is_over:
        q = hand.question
        assert q is not None
        if q.ask == "declare":
            assert q.seat in declarers and q.legal
            if best and not plan and PASS not in q.legal:
                plan = [tiles for tiles, _ in hand.family.best_declaration(hand, hand._won)]  # type: ignore[arg-type]
            wanted = plan.pop(0) if best and plan else None
            a = next((x for x in q.legal if x.tiles == wanted), None) if wanted else None
            a = a or (PASS if best and PASS in q.legal else rng.choice(q.legal))
        else:
            hu = [x for x in q.legal if x.kind == "hu"]
            a = hu[0] if hu else rng.choice(q.legal)
        events += hand.apply(a)
    return hand, events


def test_random_declarations_are_legal_scored_and_sum_to_zero() -> None:
    rng = random.Random(7)
    won = 0
    for seed in range(600):
        declarers = frozenset(p for p in (1, 2, 3, 4) if rng.random() < 0.6)
        hand, events = _play(seed, declarers, rng, best=False)
        r = hand.result
        assert r is not None and sum(r.scores) == 0
        if r.outcome != "win":
            continue
        won += 1
        winner = r.wins[0].seat
        scored = [e for e in events if isinstance(e, Scored)]
        if not declarers:
            assert not scored and not hand.declared  # nobody declares: the hand ends as it always did
            continue
        assert [e.seat for e in scored] == [winner]  # the winner's score, announced before the losers declare
        assert scored[0].score == r.wins[0].score.tai
        for p in declarers - {winner}:  # every declaring loser is done: shown, or every tile declared
            assert any(isinstance(e, Show) and e.seat == p for e in events) or not hand.concealed(p) or \
                sum(len(t) for t, _ in hand.declared[p]) == len(hand.concealed(p))
        declared = [e for e in events if isinstance(e, Declare)]
        assert all(e.audience == frozenset({1, 2, 3, 4}) for e in declared)
    assert won >= 10, won


def test_declaring_the_best_sets_scores_as_declaring_nothing() -> None:
    """A declaring winner that declares the sets the engine would declare for it, and losers that show all their
    tiles, are scored as if nobody declared, except the losers' sets (shown tiles score as they lie)."""
    compared = 0
    for seed in range(600):
        hand, _ = _play(seed, frozenset({1, 2, 3, 4}), random.Random(seed), best=True)
        plain, _ = _play(seed, frozenset(), random.Random(seed), best=True)
        r, q = hand.result, plain.result
        assert r is not None and q is not None
        if r.outcome != "win":
            assert q.outcome == r.outcome
            continue
        w = r.wins[0].seat
        assert q.wins[0].seat == w and r.wins[0].score == q.wins[0].score
        compared += 1
    assert compared >= 10, compared


def _declare_first(seed: int, declaring: str) -> tuple[Hand, list[int]]:
    """Every seat declares; before the win a seeded policy plays (Mah-Jong whenever it can), after it each
    declarer answers its first set, or ``pass`` when that is all it may do.  The declaring seats in the order
    asked."""
    rng = random.Random(seed)
    hand = Hand(generate_wall(seed, 0, RULES), RULES, dealer=1 + seed % 4, declarers=frozenset({1, 2, 3, 4}),
                declaring=declaring)  # type: ignore[arg-type]
    hand.start()
    asked: list[int] = []
    while not hand.is_over:
        q = hand.question
        assert q is not None
        if q.ask == "declare":
            asked.append(q.seat)
            a = next((x for x in q.legal if x is not PASS), PASS)
        else:
            hu = [x for x in q.legal if x.kind == "hu"]
            a = hu[0] if hu else rng.choice(q.legal)
        hand.apply(a)
    return hand, asked


def test_losers_declare_together_a_set_each_round_and_round_with_the_same_sets_and_scores() -> None:
    """``together`` (a match's way): after the winner's sets, the losers are asked a set each in turn order, round
    and round, so that each decides its next while the others' are checked; ``in_turn`` (a log from before it):
    each loser's sets, then the next's.  The same answers make the same sets and the same scores either way."""
    differ = 0
    for seed in range(300):
        together, order = _declare_first(seed, "together")
        in_turn, order_in_turn = _declare_first(seed, "in_turn")
        r, q = together.result, in_turn.result
        assert r is not None and q is not None and r.scores == q.scores
        assert together.declared == in_turn.declared
        if r.outcome != "win":
            continue
        winner = r.wins[0].seat
        assert sorted(order) == sorted(order_in_turn)
        k = order.count(winner)
        assert order[:k] == order_in_turn[:k] == [winner] * k, "the winner first, alone"
        counts = {p: order.count(p) for p in (1, 2, 3, 4) if p != winner and p in order}
        after = [p for p in (winner % 4 + 1, (winner + 1) % 4 + 1, (winner + 2) % 4 + 1) if p in counts]
        assert order_in_turn[k:] == [p for p in after for _ in range(counts[p])]
        rounds = max(counts.values(), default=0)
        assert order[k:] == [p for i in range(rounds) for p in after if counts[p] > i]
        differ += order != order_in_turn
    assert differ >= 5, differ  # (8 of these 300 seeds)


def test_a_way_of_declaring_that_is_none_is_refused() -> None:
    with pytest.raises(ValueError, match="declaring must be one of together, in_turn"):
        Hand(generate_wall(1, 0, RULES), RULES, declarers=frozenset({1}),
             declaring="sideways")  # type: ignore[arg-type]

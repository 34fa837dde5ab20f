"""Unit tests of the hand engine on hand-built walls: every situation of docs/protocol.md's flow, asserted as the
exact questions (seat, ask, legal answers) and events (type, fields, audience) that result.

Hands are written in the short notation ``"234m 55p E"`` (m wan, s tiao, p tong; E W S N winds, R G Wh
dragons) and turned into physical tiles by :class:`Table`, which hands out a fresh copy of a kind each time.
Seats whose exact tiles do not matter are padded with *quiet* tiles: single honours and single suit tiles at
least three ranks from every other suit tile of that seat, so that padding can never make a chow or a pong,
nor (two or more of them) a win. The dealer's 17th tile has to pair one padding tile. Every test still asserts
the whole sequence of questions, so an accidental claim would show.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence

import pytest

from referee.game.engine import EngineError, Hand, HandResult, IllegalAnswer, WinRecord
from referee.game.series import Series
from referee.game.taiwan16.rules import Ruleset
from referee.game.tiles import ALL_TIDS, ALL_TIDS_WITH_FLOWERS, FLOWER_TIDS
from referee.game.types import (
    ALL_SEATS,
    HU,
    PASS,
    Answer,
    Eat,
    Event,
    Exit,
    Flower,
    Gong,
    Hu,
    InitCard,
    InitGame,
    Mo,
    Pong,
    Question,
    Throw,
)
from referee.game.view import new_view
from referee.game.wall import (
    SplitMix64,
    Wall,
    WallError,
    arrange_wall,
    deal_positions,
    generate_wall,
    parse_wallfile,
)

RULES = Ruleset()
FLOWER_RULES = Ruleset(flowers=True)
EVERYONE = frozenset(ALL_SEATS)

# ------------------------------------------------------------ helpers

_HONOURS = {"E": 41, "W": 42, "S": 43, "N": 44, "R": 45, "G": 46, "Wh": 47}
_SUITS = {"m": 1, "s": 2, "p": 3}
_HONOUR_KINDS = (41, 42, 43, 44, 45, 46, 47)


def kinds(spec: str) -> list[int]:
    """``"234m 55p E f3"`` → kinds [12, 13, 14, 35, 35, 41, 3] (``fN`` is flower N)."""
    out: list[int] = []
    for tok in spec.split():
        if tok in _HONOURS:
            out.append(_HONOURS[tok])
        elif tok[0] == "f":
            out.append(int(tok[1:]))
        else:
            out.extend(_SUITS[tok[-1]] * 10 + int(d) for d in tok[:-1])
    return out


def kinds_in(tiles: Sequence[int]) -> set[int]:
    return {t // 10 for t in tiles}


class Table:
    """Hands out physical tiles (TIDs), never the same one twice, and builds crafted walls from them."""

    def __init__(self, rules: Ruleset = RULES) -> None:
        self.rules = rules
        self.used: set[int] = set()

    def free(self, k: int) -> int | None:
        if k < 10:  # a flower: one copy
            return None if k * 10 in self.used else k * 10
        return next((k * 10 + c for c in range(4) if k * 10 + c not in self.used), None)

    def __call__(self, spec: str) -> list[int]:
        out = []
        for k in kinds(spec):
            t = self.free(k)
            assert t is not None, f"no copy of kind {k} left"
            self.used.add(t)
            out.append(t)
        return out

    def one(self, spec: str) -> int:
        (t,) = self(spec)
        return t

    def pad(self, tiles: list[int], size: int, shift: int = 0) -> list[int]:
        """``tiles`` padded to ``size`` with quiet tiles (see the module docstring); suit ranks are tried from
        ``1 + shift`` on, so that seats padded with different shifts use different kinds."""
        ranks = [(r + shift) % 9 + 1 for r in range(9)]
        pad_order = _HONOUR_KINDS + tuple(s * 10 + r for r in ranks for s in (1, 2, 3))
        out = list(tiles)
        held = kinds_in(tiles)

        def far(k: int) -> bool:
            return k > 40 or all(k // 10 != s // 10 or abs(k - s) > 2 for s in held if s < 40)

        for k in pad_order:
            if len(out) >= size:
                break
            t = self.free(k)
            if t is not None and k not in held and far(k):
                self.used.add(t)
                out.append(t)
                held.add(k)
        # At most 16 tiles can be mutually quiet: the dealer's 17th (or a crowded hand) pairs a padding tile.
        padding = kinds_in(out[len(tiles):])
        for k in pad_order:
            if len(out) >= size:
                break
            t = self.free(k)
            if t is not None and k in padding:
                self.used.add(t)
                out.append(t)
        assert len(out) == size, f"cannot pad {tiles} to {size}"
        return out

    def wall(
        self,
        hands: dict[int, list[int]],
        *,
        dealer: int = 1,
        draws: Sequence[int] = (),
        replacements: Sequence[int] = (),
        junk_before: int = 0,
        avoid: Sequence[int] = (),
    ) -> Wall:
        """Pad every seat to 16 tiles (17 for the dealer) and arrange the wall.  ``junk_before``: that many
        free tiles (of kinds not in ``avoid``, lowest TID first) are drawn before ``draws``."""
        order = [p for p in ALL_SEATS if p != dealer] + [dealer]  # the dealer last: it needs a pair
        full: dict[int, Sequence[int]] = {
            p: self.pad(hands.get(p, []), 17 if p == dealer else 16, shift=p - 1) for p in order
        }
        junk = [x for x in ALL_TIDS if x not in self.used and x // 10 not in avoid][:junk_before]
        assert len(junk) == junk_before
        self.used.update(junk)
        return arrange_wall(full, self.rules, dealer=dealer, draws=[*junk, *draws], replacements=replacements)


def ev_kinds(events: Sequence[Event]) -> list[str]:
    return [e.kind for e in events]


def only(events: Sequence[Event], cls: type) -> list:
    return [e for e in events if isinstance(e, cls)]


def q(seat: int, ask: str, legal: Sequence[Answer], tile: int | None = None) -> Question:
    return Question(seat, ask, tuple(legal), tile)  # type: ignore[arg-type]


def throw_q(hand: Hand, seat: int) -> Question:
    return q(seat, "throw", [Answer.throw(t) for t in hand.concealed(seat)])


def hu_q(seat: int, tile: int | None = None) -> Question:
    return q(seat, "hu", [HU, PASS], tile)


def keys(win: WinRecord) -> list[str]:
    return [i.key for i in win.score.items]


def start(wall: Wall, rules: Ruleset = RULES, dealer: int = 1) -> tuple[Hand, list[Event]]:
    hand = Hand(wall, rules, dealer=dealer)
    return hand, hand.start()


def check_exit(hand: Hand, events: Sequence[Event]) -> HandResult:
    """The hand is over, ended by one ``Exit`` to everybody whose scores are the result's and sum to zero."""
    assert hand.is_over and hand.question is None
    assert isinstance(events[-1], Exit) and events[-1].audience == EVERYONE
    result = hand.result
    assert result is not None
    assert events[-1].scores == result.scores
    assert sum(result.scores) == 0
    return result


Policy = Callable[[Hand, Question, "int | None"], Answer]


def play_through(hand: Hand, policy: Policy, limit: int = 1000) -> list[Event]:
    """Answer with ``policy(hand, question, drawn)`` until the hand ends; all events.  ``drawn`` is the tile
    the asked seat has just drawn, if it has."""
    out: list[Event] = []
    drawn: dict[int, int | None] = dict.fromkeys(ALL_SEATS)
    for _ in range(limit):
        if hand.is_over:
            return out
        question = hand.question
        assert question is not None
        events = hand.apply(policy(hand, question, drawn[question.seat]))
        for e in events:
            if isinstance(e, Mo):
                drawn[e.seat] = e.tile
            elif isinstance(e, Throw):
                drawn[e.seat] = None
        out += events
    raise AssertionError("the hand did not end")


def tsumogiri(hand: Hand, question: Question, drawn: int | None) -> Answer:
    """Pass every claim, decline every win and gong, and throw the tile just drawn (else the highest tile)."""
    if question.ask != "throw":
        return PASS
    return Answer.throw(drawn) if drawn is not None else question.legal[-1]


# ------------------------------------------------------------ the wall


def test_golden_wall() -> None:
    wall = generate_wall(1, 0, Ruleset())
    assert wall.tiles[:10] == (323, 342, 210, 151, 273, 432, 223, 192, 341, 450)
    assert wall.dice == (2, 6, 1)
    assert sorted(wall.tiles) == list(ALL_TIDS)


def test_wall_is_a_function_of_seed_hand_and_flowers() -> None:
    assert generate_wall(1, 0, RULES) == generate_wall(1, 0, Ruleset(hands=4, multiple_winners=True))
    assert generate_wall(1, 0, RULES) != generate_wall(1, 1, RULES)
    assert generate_wall(1, 0, RULES) != generate_wall(2, 0, RULES)
    flowered = generate_wall(1, 0, FLOWER_RULES)
    assert sorted(flowered.tiles) == sorted(ALL_TIDS_WITH_FLOWERS)
    assert len(flowered.tiles) == 144


def _recipe_wall(seed: int, hand: int, rules: Ruleset) -> Wall:
    """The wall module's docstring recipe, written plainly: one ``SplitMix64.next()`` at a time."""
    import hashlib

    digest = hashlib.sha256(f"mjref-wall/1|{seed}|{hand}|{1 if rules.flowers else 0}".encode()).digest()
    rng = SplitMix64(int.from_bytes(digest[:8], "big"))
    tiles = list(ALL_TIDS_WITH_FLOWERS if rules.flowers else ALL_TIDS)
    for i in range(len(tiles) - 1, 0, -1):
        j = rng.next() % (i + 1)
        tiles[i], tiles[j] = tiles[j], tiles[i]
    dice = (1 + rng.next() % 6, 1 + rng.next() % 6, 1 + rng.next() % 6)
    return Wall(tuple(tiles), dice)


@pytest.mark.parametrize("rules", [RULES, FLOWER_RULES], ids=["no flowers", "flowers"])
def test_generate_wall_follows_the_recipe_one_number_at_a_time(rules: Ruleset) -> None:
    """``generate_wall`` computes SplitMix64's numbers all at once (in lanes of one big integer); the walls and
    dice are those of the recipe drawn one number at a time, for small, large and extreme seeds."""
    seeds = [0, 1, 7, 2**32 - 1, 2**63, 2**64 - 1, *range(100, 140)]
    for seed in seeds:
        for hand in (0, 1, 15, 999):
            assert generate_wall(seed, hand, rules) == _recipe_wall(seed, hand, rules)  # tiles and dice


def test_wallfile_round_trip_and_comments() -> None:
    walls = [generate_wall(5, h, RULES) for h in range(3)]
    text = "# three hands\n\n" + "\n".join(" ".join(map(str, w.tiles)) for w in walls) + "\n"
    assert [w.tiles for w in parse_wallfile(text, RULES)] == [w.tiles for w in walls]


def _line(tiles: Sequence[int]) -> str:
    return " ".join(map(str, tiles))


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (_line(ALL_TIDS[:-1]) + " 1x", "walls.txt:3: '1x' is not a tile ID (not a number)"),
        (_line(ALL_TIDS[:-1]) + " 999", "walls.txt:3: 999 is not a tile ID"),
        (_line(ALL_TIDS[:-1]) + " 110", "walls.txt:3: tile 110 appears twice"),
        (_line(ALL_TIDS[:-1]), "walls.txt:3: 135 tiles, expected 136; missing 473"),
        (_line(ALL_TIDS) + " 10", "walls.txt:3: tile 10 is a flower, and flowers are off"),
    ],
)
def test_wallfile_errors_name_the_line(bad: str, message: str) -> None:
    good = _line(generate_wall(1, 0, RULES).tiles)
    text = f"{good}\n# a comment\n{bad}\n"
    with pytest.raises(WallError) as err:
        parse_wallfile(text, RULES, "walls.txt")
    assert str(err.value) == message


def test_wallfile_without_walls() -> None:
    with pytest.raises(WallError, match=r"^walls.txt: no walls"):
        parse_wallfile("# nothing\n\n", RULES, "walls.txt")


def test_hand_rejects_a_bad_wall() -> None:
    with pytest.raises(WallError, match="136 tiles|135 tiles"):
        Hand(ALL_TIDS[:-1], RULES)


def test_arrange_wall_places_hands_draws_and_replacements() -> None:
    t = Table()
    mine = t("123m 456m 789m 123p 456p 7p")
    draws, reps = t("9s 8s"), t("N R")
    wall = t.wall({2: mine}, draws=draws, replacements=reps)
    positions = deal_positions(1)
    assert [wall.tiles[i] for i in positions[2]] == mine
    assert wall.tiles[65:67] == tuple(draws)
    assert wall.tiles[-1] == reps[0] and wall.tiles[-2] == reps[1]


# ------------------------------------------------------------ the deal


@pytest.mark.parametrize("dealer", [1, 2, 3, 4])
def test_deal_gives_the_dealer_17_and_no_first_draw(dealer: int) -> None:
    wall = generate_wall(3, 0, RULES)
    hand, events = start(wall, dealer=dealer)
    order = [(dealer - 1 + i) % 4 + 1 for i in range(4)]
    assert ev_kinds(events) == ["init_game"] + ["init_card"] * 4
    init = events[0]
    assert isinstance(init, InitGame) and init.audience == EVERYONE
    assert (init.round_wind, init.dealer, init.cont) == ("EAST", dealer, 0)
    assert init.open == wall.open_seat(dealer)
    positions = deal_positions(dealer)
    for e, p in zip(events[1:], order, strict=True):
        assert isinstance(e, InitCard) and e.seat == p and e.audience == {p}
        assert e.tiles == tuple(sorted(wall.tiles[i] for i in positions[p]))
        assert len(e.tiles) == (17 if p == dealer else 16)
    assert not only(events, Mo)
    assert hand.question is not None and hand.question.seat == dealer
    assert hand.remaining == 136 - 65


def test_first_throw_then_the_next_seat_draws_from_the_front() -> None:
    t = Table()
    draw = t.one("9s")
    wall = t.wall({}, draws=[draw])
    hand, _ = start(wall)
    assert hand.question == throw_q(hand, 1)
    thrown = hand.concealed(1)[0]
    events = hand.apply(Answer.throw(thrown))
    assert events == [Throw(1, thrown), Mo(2, draw, False, audience=frozenset({2}))]
    assert hand.question == throw_q(hand, 2)
    assert hand.river(1) == [thrown]
    assert hand.remaining == 136 - 66


def test_start_twice_and_apply_before_start() -> None:
    hand = Hand(generate_wall(1, 0, RULES), RULES)
    with pytest.raises(EngineError):
        hand.apply(PASS)
    hand.start()
    with pytest.raises(EngineError):
        hand.start()


# ------------------------------------------------------------ wins

# Seat 2 waits on 9p: five pungs and a single 9p.
WAIT_9P = "222m 333m 555s 666s 888p 9p"


def test_self_draw_win() -> None:
    t = Table()
    mine = t(WAIT_9P)
    win = t.one("9p")
    wall = t.wall({2: mine}, draws=[win])
    hand, _ = start(wall)
    west = next(x for x in hand.concealed(1) if x // 10 == 42)
    events = hand.apply(Answer.throw(west))
    assert events == [Throw(1, west), Mo(2, win, False, audience=frozenset({2}))]
    assert hand.question == hu_q(2)
    events = hand.apply(HU)
    assert ev_kinds(events) == ["hu", "exit"]
    assert events[0] == Hu(2, win, tuple(sorted(mine)))
    result = check_exit(hand, events)
    (w,) = result.wins
    assert (w.seat, w.tile, w.how, w.thrower) == (2, win, "self_draw", None)
    assert "earthly" in keys(w) and "all_pungs" in keys(w)  # seat 2's first draw, before any claim
    assert result.scores[1] > 0 and all(result.scores[i] < 0 for i in (0, 2, 3))
    # the dealer pays one tai more than the others
    assert result.scores[0] == result.scores[2] - RULES.per_tai == result.scores[3] - RULES.per_tai


def test_passing_a_self_draw_win_goes_on_to_the_throw() -> None:
    t = Table()
    mine = t(WAIT_9P)
    win = t.one("9p")
    wall = t.wall({2: mine}, draws=[win])
    hand, _ = start(wall)
    hand.apply(Answer.throw(hand.concealed(1)[-1]))
    assert hand.question == hu_q(2)
    assert hand.apply(PASS) == []
    assert hand.question == throw_q(hand, 2)


def test_heavenly_hand() -> None:
    t = Table()
    dealt = t("222m 333m 555s 666s 888p 99p")
    hand, events = start(t.wall({1: dealt}))
    assert not only(events, Mo)
    assert hand.question == hu_q(1)
    events = hand.apply(HU)
    assert events[0] == Hu(1, dealt[-1], tuple(sorted(dealt[:-1])))  # the 17th tile dealt is the winning tile
    result = check_exit(hand, events)
    (w,) = result.wins
    assert "heavenly" in keys(w) and "concealed_self_draw" not in keys(w)
    assert result.scores[0] > 0


def test_win_on_a_throw_and_human() -> None:
    t = Table()
    mine = t(WAIT_9P)
    tile = t.one("9p")
    wall = t.wall({1: [tile], 2: mine})
    hand, _ = start(wall)
    events = hand.apply(Answer.throw(tile))
    assert events == [Throw(1, tile)]
    assert hand.question == hu_q(2, tile)
    events = hand.apply(HU)
    assert events[0] == Hu(2, tile, tuple(sorted(mine)))
    result = check_exit(hand, events)
    (w,) = result.wins
    assert (w.seat, w.how, w.thrower) == (2, "throw", 1)
    assert "human" in keys(w)
    assert result.scores[0] < 0 and result.scores[1] > 0 and result.scores[2] == result.scores[3] == 0
    assert hand.river(1) == []  # the winning tile left the thrower's river


def _two_waiters(t: Table) -> tuple[list[int], list[int], int]:
    two = t(WAIT_9P)
    four = t("222p 333p 555m 666m 888s 9p")
    tile = t.one("9p")
    return two, four, tile


def test_two_seats_can_win_the_first_after_the_thrower_is_asked_first() -> None:
    t = Table()
    two, four, tile = _two_waiters(t)
    hand, _ = start(t.wall({1: [tile], 2: two, 4: four}))
    hand.apply(Answer.throw(tile))
    assert hand.question == hu_q(2, tile)
    events = hand.apply(HU)
    assert ev_kinds(events) == ["hu", "exit"]  # seat 4 is never asked
    result = check_exit(hand, events)
    assert result.winners == (2,)


def test_two_seats_can_win_the_second_is_asked_after_a_pass() -> None:
    t = Table()
    two, four, tile = _two_waiters(t)
    hand, _ = start(t.wall({1: [tile], 2: two, 4: four}))
    hand.apply(Answer.throw(tile))
    assert hand.apply(PASS) == []
    assert hand.question == hu_q(4, tile)
    events = hand.apply(HU)
    assert events[0] == Hu(4, tile, tuple(sorted(four)))
    assert check_exit(hand, events).winners == (4,)


def test_two_winners_with_multiple_winners() -> None:
    rules = Ruleset(multiple_winners=True)
    t = Table(rules)
    two, four, tile = _two_waiters(t)
    hand, _ = start(t.wall({1: [tile], 2: two, 4: four}), rules)
    hand.apply(Answer.throw(tile))
    assert hand.question == hu_q(2, tile)
    assert hand.apply(HU) == []
    assert hand.question == hu_q(4, tile)
    events = hand.apply(HU)
    assert ev_kinds(events) == ["hu", "hu", "exit"]
    assert events[0] == Hu(2, tile, tuple(sorted(two)))
    assert events[1] == Hu(4, tile, tuple(sorted(four)))
    result = check_exit(hand, events)
    assert result.winners == (2, 4)
    assert all(w.how == "throw" and w.thrower == 1 for w in result.wins)
    summed = tuple(sum(w.payments[i] for w in result.wins) for i in range(4))
    assert result.scores == summed
    assert result.scores[0] < 0 and result.scores[1] > 0 and result.scores[3] > 0 and result.scores[2] == 0


def test_multiple_winners_one_passes() -> None:
    rules = Ruleset(multiple_winners=True)
    t = Table(rules)
    two, four, tile = _two_waiters(t)
    hand, _ = start(t.wall({1: [tile], 2: two, 4: four}), rules)
    hand.apply(Answer.throw(tile))
    assert hand.apply(HU) == []
    events = hand.apply(PASS)
    assert ev_kinds(events) == ["hu", "exit"]
    assert check_exit(hand, events).winners == (2,)


# ------------------------------------------------------------ claims


def _pong_and_eat(t: Table) -> tuple[int, list[int], list[int]]:
    tile = t.one("5m")
    pair = t("55m")
    run = t("67m")
    return tile, pair, run


def test_next_seat_is_asked_pong_first_then_eat() -> None:
    t = Table()
    tile, pair, run = _pong_and_eat(t)
    hand, _ = start(t.wall({1: [tile], 2: pair + run}))
    assert hand.apply(Answer.throw(tile)) == [Throw(1, tile)]
    assert hand.question == q(2, "pong", [Answer.pong(*pair), PASS], tile)
    assert hand.apply(PASS) == []
    assert hand.question == q(2, "eat", [Answer.eat(*run), PASS], tile)
    events = hand.apply(Answer.eat(*run))
    assert events == [Eat(2, (run[0], tile, run[1]))]  # the claimed tile in the middle
    assert hand.question == throw_q(hand, 2)
    assert len(hand.concealed(2)) == 14
    assert hand.river(1) == []
    (meld,) = hand.melds(2)
    assert (meld.type, meld.tiles, meld.claimed, meld.source) == ("eat", tuple(sorted((tile, *run))), tile, 1)


def test_pong_is_granted_at_once() -> None:
    t = Table()
    tile, pair, run = _pong_and_eat(t)
    hand, _ = start(t.wall({1: [tile], 2: pair + run}))
    hand.apply(Answer.throw(tile))
    events = hand.apply(Answer.pong(*pair))
    assert events == [Pong(2, tuple(sorted((tile, *pair))))]  # type: ignore[arg-type]
    assert events[0].audience == EVERYONE
    assert hand.question == throw_q(hand, 2)
    assert hand.river(1) == []
    assert hand.concealed(2) == sorted(set(hand.concealed(2)) - set(pair))


def test_pong_by_a_seat_across_the_table_comes_before_the_next_seats_eat() -> None:
    t = Table()
    tile = t.one("5m")
    pair = t("55m")
    run = t("46m")
    hand, _ = start(t.wall({1: [tile], 2: run, 3: pair}))
    hand.apply(Answer.throw(tile))
    assert hand.question == q(3, "pong", [Answer.pong(*pair), PASS], tile)
    assert hand.apply(PASS) == []
    assert hand.question == q(2, "eat", [Answer.eat(*run), PASS], tile)
    events = hand.apply(Answer.eat(*run))
    assert events == [Eat(2, (run[0], tile, run[1]))]


def test_eat_lists_every_copy_and_shape_and_all_pass_means_a_draw() -> None:
    t = Table()
    tile = t.one("5m")
    mine = t("3m 44m 6m")
    draw = t.one("9s")
    hand, _ = start(t.wall({1: [tile], 2: mine}, draws=[draw]))
    hand.apply(Answer.throw(tile))
    three, four_a, four_b, six = mine
    assert hand.question == q(
        2, "eat", [Answer.eat(three, four_a), Answer.eat(three, four_b), Answer.eat(four_a, six),
                   Answer.eat(four_b, six), PASS], tile,
    )
    assert hand.apply(PASS) == [Mo(2, draw, False, audience=frozenset({2}))]
    assert hand.river(1) == [tile]


def test_honours_cannot_be_eaten() -> None:
    t = Table()
    tile = t.one("E")
    draw = t.one("9s")
    hand, _ = start(t.wall({1: [tile]}, draws=[draw]))
    assert hand.apply(Answer.throw(tile)) == [Throw(1, tile), Mo(2, draw, False, audience=frozenset({2}))]


def test_meld_gong_on_the_previous_players_throw_is_refused_by_default() -> None:
    t = Table()
    tile = t.one("5m")
    three = t("555m")
    hand, _ = start(t.wall({1: [tile], 2: three}))
    hand.apply(Answer.throw(tile))
    a, b, c = three
    pongs = [Answer.pong(a, b), Answer.pong(a, c), Answer.pong(b, c), PASS]
    assert hand.question == q(2, "pong", pongs, tile)


def test_meld_gong_on_the_previous_players_throw_with_the_option() -> None:
    rules = Ruleset(gong_from_previous_player=True)
    t = Table(rules)
    tile = t.one("5m")
    three = t("555m")
    rep = t.one("N")
    hand, _ = start(t.wall({1: [tile], 2: three}, replacements=[rep]), rules)
    hand.apply(Answer.throw(tile))
    assert hand.question == q(2, "gong", [Answer.gong(4, three), PASS], tile)
    events = hand.apply(Answer.gong(4, three))
    four = tuple(sorted((tile, *three)))
    assert events == [Gong(2, 4, four), Mo(2, rep, True, audience=frozenset({2}))]
    assert events[0].audience == EVERYONE
    assert rep == hand.wall.tiles[-1]
    assert hand.question == throw_q(hand, 2)
    assert len(hand.concealed(2)) == 14
    assert hand.river(1) == []
    (meld,) = hand.melds(2)
    assert (meld.type, meld.tiles, meld.claimed, meld.source) == ("gong", four, tile, 1)


def test_meld_gong_across_the_table_then_pong_after_a_pass() -> None:
    t = Table()
    tile = t.one("5m")
    three = t("555m")
    hand, _ = start(t.wall({1: [tile], 3: three}))
    hand.apply(Answer.throw(tile))
    assert hand.question == q(3, "gong", [Answer.gong(4, three), PASS], tile)
    assert hand.apply(PASS) == []
    a, b, c = three
    pongs = [Answer.pong(a, b), Answer.pong(a, c), Answer.pong(b, c), PASS]
    assert hand.question == q(3, "pong", pongs, tile)
    events = hand.apply(Answer.pong(a, c))
    assert events == [Pong(3, tuple(sorted((tile, a, c))))]  # type: ignore[arg-type]
    assert b in hand.concealed(3)


# ------------------------------------------------------------ gongs


def test_concealed_gong_two_events_and_replacements_from_the_back() -> None:
    t = Table()
    four = t("2222m")
    four2 = t("3333m")
    reps = t("N R")
    hand, _ = start(t.wall({1: four + four2}, replacements=reps))
    before = hand.remaining
    assert hand.question == q(1, "gong", [Answer.gong(0, four), Answer.gong(0, four2), PASS])
    events = hand.apply(Answer.gong(0, four))
    assert events == [
        Gong(1, 0, tuple(four), audience=frozenset({1})),
        Gong(1, 0, (), audience=frozenset({2, 3, 4})),
        Mo(1, reps[0], True, audience=frozenset({1})),
    ]
    assert reps[0] == hand.wall.tiles[-1] and hand.remaining == before - 1
    # another concealed gong, still in the same turn
    assert hand.question == q(1, "gong", [Answer.gong(0, four2), PASS])
    events = hand.apply(Answer.gong(0, four2))
    assert events[-1] == Mo(1, reps[1], True, audience=frozenset({1}))
    assert reps[1] == hand.wall.tiles[-2]
    assert hand.question == throw_q(hand, 1)
    assert len(hand.concealed(1)) == 17 - 8 + 2
    assert [m.type for m in hand.melds(1)] == ["concealed_gong", "concealed_gong"]
    assert hand.undrawn() == list(hand.wall.tiles[65:-2])


def test_gong_replacement_completes_the_hand() -> None:
    t = Table()
    dealt = t("2222m 333m 555s 666s 888p 9p")
    rep = t.one("9p")
    hand, _ = start(t.wall({1: dealt}, replacements=[rep]))
    assert hand.question == q(1, "gong", [Answer.gong(0, dealt[:4]), PASS])
    events = hand.apply(Answer.gong(0, dealt[:4]))
    assert events[-1] == Mo(1, rep, True, audience=frozenset({1}))
    assert hand.question == hu_q(1)
    events = hand.apply(HU)
    assert events[0] == Hu(1, rep, tuple(sorted(dealt[4:])))
    (w,) = check_exit(hand, events).wins
    assert w.how == "self_draw" and "kong_replacement" in keys(w)


def _promotion_wall(rules: Ruleset) -> tuple[Wall, list[Answer], int, int]:
    """Seat 2 pongs the dealer's 2m and draws the fourth 2m; seat 3 can win on 2m (34m waiting on 2m/5m).

    Returns the wall, the answers up to the ``/ask gong`` for the promotion, the fourth 2m and the
    replacement.
    """
    t = Table(rules)
    tile = t.one("2m")
    pair = t("22m")
    fourth = t.one("2m")
    robber = t("34m 555s 666s 888p 999p 22p")
    junk2 = t.one("9s")
    d1, d2, d3 = t("N R G")
    rep = t.one("Wh")
    wall = t.wall({1: [tile], 2: pair + [junk2], 3: robber}, draws=[d1, d2, d3, fourth], replacements=[rep])
    answers = [Answer.throw(tile), PASS, Answer.pong(*pair), Answer.throw(junk2), Answer.throw(d1),
               Answer.throw(d2), Answer.throw(d3)]
    return wall, answers, fourth, rep


def _promotion(rules: Ruleset) -> tuple[Hand, int, int]:
    wall, answers, fourth, rep = _promotion_wall(rules)
    hand, _ = start(wall, rules)
    throw_tile, _, pong, junk2, d1, d2, d3 = answers
    tile = throw_tile.tiles[0]
    hand.apply(throw_tile)
    assert hand.question == hu_q(3, tile)  # seat 3 can win on it, but waits
    assert hand.apply(PASS) == []
    assert hand.question == q(2, "pong", [pong, PASS], tile)
    hand.apply(pong)
    assert hand.apply(junk2) == [Throw(2, junk2.tiles[0]), Mo(3, d1.tiles[0], False, audience=frozenset({3}))]
    assert hand.apply(d1)[-1] == Mo(4, d2.tiles[0], False, audience=frozenset({4}))
    assert hand.apply(d2)[-1] == Mo(1, d3.tiles[0], False, audience=frozenset({1}))
    assert hand.apply(d3)[-1] == Mo(2, fourth, False, audience=frozenset({2}))
    assert hand.question == q(2, "gong", [Answer.gong(1, [fourth]), PASS])
    return hand, fourth, rep


def test_promoted_gong_is_robbed() -> None:
    hand, fourth, _ = _promotion(RULES)
    events = hand.apply(Answer.gong(1, [fourth]))
    assert events == [Gong(2, 1, (fourth,))]
    assert events[0].audience == EVERYONE
    assert hand.question == hu_q(3, fourth)
    events = hand.apply(HU)
    assert events[0] == Hu(3, fourth, tuple(hand.concealed(3)))
    result = check_exit(hand, events)
    (w,) = result.wins
    assert (w.seat, w.how, w.thrower, w.tile) == (3, "robbed_gong", 2, fourth)
    assert "robbing_kong" in keys(w)
    assert result.scores[1] < 0 and result.scores[2] > 0 and result.scores[0] == result.scores[3] == 0
    # The robbed tile went to the winner: the promoter keeps a pong without it.
    (meld,) = [m for m in hand.melds(2) if m.kind == fourth // 10]
    assert meld.type == "pong" and fourth not in meld.tiles and len(meld.tiles) == 3


def test_promoted_gong_not_robbed_draws_a_replacement() -> None:
    hand, fourth, rep = _promotion(RULES)
    hand.apply(Answer.gong(1, [fourth]))
    assert hand.apply(PASS) == [Mo(2, rep, True, audience=frozenset({2}))]
    (meld,) = hand.melds(2)
    assert meld.type == "gong" and meld.promoted and len(meld.tiles) == 4
    assert hand.question == throw_q(hand, 2)
    assert len(hand.concealed(2)) == 14


def test_no_robbing_without_rob_kong() -> None:
    hand, fourth, rep = _promotion(Ruleset(rob_kong=False))
    events = hand.apply(Answer.gong(1, [fourth]))
    assert events == [Gong(2, 1, (fourth,)), Mo(2, rep, True, audience=frozenset({2}))]
    assert hand.question == throw_q(hand, 2)


def test_no_gong_right_after_a_pong() -> None:
    """Seat 2 pongs while holding four of another kind: it is asked to throw, not gong."""
    t = Table()
    tile = t.one("5m")
    pair = t("55m")
    four = t("8888s")
    hand, _ = start(t.wall({1: [tile], 2: pair + four}))
    hand.apply(Answer.throw(tile))
    hand.apply(Answer.pong(*pair))
    assert hand.question == throw_q(hand, 2)


# ------------------------------------------------------------ the end of the wall


LIVE_DRAWS = 136 - 65 - 16  # 55


def test_exhaustive_draw_at_the_dead_wall() -> None:
    hand, _ = start(generate_wall(9, 0, RULES))
    events = play_through(hand, tsumogiri)
    mos = only(events, Mo)
    assert len(mos) == LIVE_DRAWS
    assert mos[-1].tile == hand.wall.tiles[136 - 16 - 1]
    assert hand.remaining == 16 and hand.undrawn() == list(hand.wall.tiles[-16:])
    assert events[-1] == Exit((0, 0, 0, 0))
    assert isinstance(events[-2], Throw)  # the last throw, then nobody can draw
    result = check_exit(hand, events)
    assert result.outcome == "draw" and result.wins == ()


def test_dead_wall_option() -> None:
    rules = Ruleset(dead_wall=0)
    hand, _ = start(generate_wall(9, 0, rules), rules)
    events = play_through(hand, tsumogiri)
    assert len(only(events, Mo)) == 136 - 65 and hand.remaining == 0


def _last_tile_wall(t: Table, waiter: int, wait_hand: list[int], last: int, avoid: set[int]) -> Wall:
    return t.wall({waiter: wait_hand}, draws=[last], junk_before=LIVE_DRAWS - 1, avoid=tuple(avoid))


def test_last_tile_self_draw() -> None:
    # The 55th live draw goes to seat 4 (seat 2 draws first after the dealer's throw).
    t = Table()
    mine = t(WAIT_9P)
    last = t.one("9p")
    wall = _last_tile_wall(t, 4, mine, last, avoid={39})
    hand, _ = start(wall)

    def policy(hand: Hand, question: Question, drawn: int | None) -> Answer:
        if question.ask == "hu" and hand.remaining == 16:
            return HU
        return tsumogiri(hand, question, drawn)

    events = play_through(hand, policy)
    assert events[-3] == Mo(4, last, False, audience=frozenset({4}))
    (w,) = check_exit(hand, events).wins
    assert (w.seat, w.how) == (4, "self_draw")
    assert "last_tile_draw" in keys(w) and "last_tile_throw" not in keys(w)


def test_last_tile_throw() -> None:
    # Seat 4 draws the last live tile and throws it; seat 1 wins on it.
    t = Table()
    mine = t("222p 333p 555m 666m 888s 9p")
    last = t.one("9p")
    wall = _last_tile_wall(t, 1, mine, last, avoid={39})
    hand, _ = start(wall)
    asked: list[Question] = []

    def policy(hand: Hand, question: Question, drawn: int | None) -> Answer:
        if question.ask == "hu":
            asked.append(question)
            return HU if hand.remaining == 16 else PASS
        return tsumogiri(hand, question, drawn)

    events = play_through(hand, policy)
    assert asked[-1] == hu_q(1, last)
    assert events[-3] == Throw(4, last)
    (w,) = check_exit(hand, events).wins
    assert (w.seat, w.how, w.thrower) == (1, "throw", 4)
    assert "last_tile_throw" in keys(w) and "last_tile_draw" not in keys(w)


def test_no_gong_when_the_replacement_cannot_be_drawn() -> None:
    """With only the dead wall left, a held four is not offered as a gong."""
    t = Table()
    four = t("888s")
    last = t.one("8s")
    wall = _last_tile_wall(t, 4, four, last, avoid={28})
    hand, _ = start(wall)
    gongs: list[Question] = []

    def policy(hand: Hand, question: Question, drawn: int | None) -> Answer:
        if question.ask == "gong":
            gongs.append(question)
        return tsumogiri(hand, question, drawn)

    events = play_through(hand, policy)
    assert gongs == []
    assert events[-3] == Mo(4, last, False, audience=frozenset({4}))


# ------------------------------------------------------------ illegal answers


def _snapshot(hand: Hand) -> tuple:
    return (
        hand.question,
        hand.remaining,
        tuple(tuple(hand.concealed(p)) for p in ALL_SEATS),
        tuple(tuple(hand.melds(p)) for p in ALL_SEATS),
        tuple(tuple(hand.river(p)) for p in ALL_SEATS),
    )


def _refused(hand: Hand, answer: Answer, reason: str) -> None:
    before = _snapshot(hand)
    with pytest.raises(IllegalAnswer) as err:
        hand.apply(answer)
    assert str(err.value) == reason
    assert _snapshot(hand) == before


def test_illegal_answers_to_a_throw() -> None:
    t = Table()
    tile = t.one("5m")
    hand, _ = start(t.wall({1: [tile]}))
    not_held = next(x for x in ALL_TIDS if x not in hand.concealed(1))
    _refused(hand, PASS, "/pass is not allowed: /ask throw must be answered with /throw")
    _refused(hand, Answer.throw(not_held), f"tile {not_held} is not in the hand")
    _refused(hand, HU, "/hu does not answer /ask throw")
    _refused(hand, Answer.pong(110, 111), "/pong does not answer /ask throw")
    # the same question is still pending, and a legal answer still works
    assert hand.apply(Answer.throw(tile))[0] == Throw(1, tile)


def test_illegal_answers_to_claims() -> None:
    t = Table()
    tile = t.one("5m")
    pair = t("55m")
    run = t("67m")
    hand, _ = start(t.wall({1: [tile], 2: pair + run}))
    hand.apply(Answer.throw(tile))
    other = next(x for x in hand.concealed(2) if x // 10 > 40)
    _refused(hand, Answer.pong(pair[0], other),
             f"{' '.join(map(str, sorted((pair[0], other))))} do not make a pong with {tile}")
    _refused(hand, Answer.pong(pair[0], 999), "tile 999 not in the hand")
    _refused(hand, Answer.eat(*run), "/eat does not answer /ask pong")
    _refused(hand, Answer.throw(pair[0]), "/throw does not answer /ask pong")
    assert hand.apply(PASS) == []
    _refused(hand, Answer.eat(run[0], other),
             f"{' '.join(map(str, sorted((run[0], other))))} do not make a chow with {tile}")
    not_held = next(x for x in ALL_TIDS if x not in hand.concealed(2) and x // 10 == 15)
    _refused(hand, Answer.eat(run[0], not_held), f"tile {not_held} not in the hand")
    _refused(hand, Answer.gong(4, pair + [tile]), "/gong does not answer /ask eat")
    assert hand.apply(Answer.eat(*run)) == [Eat(2, (run[0], tile, run[1]))]


def test_illegal_gongs() -> None:
    t = Table()
    four = t("2222m")
    hand, _ = start(t.wall({1: four}))
    _refused(hand, Answer.gong(0, four[:3] + [hand.concealed(1)[-1]]),
             f"{' '.join(map(str, sorted(four[:3] + [hand.concealed(1)[-1]])))} do not make the gong claimed")
    _refused(hand, Answer.gong(1, four[:1]), f"no pong of tile {four[0]} to promote")
    _refused(hand, Answer.gong(4, four[:3]), "/gong 4 is not possible here (possible: /gong 0)")
    _refused(hand, Answer.gong(0, [130, 131, 132, 133]), "tiles 130 131 132 133 not in the hand")


def test_no_question_after_the_end() -> None:
    t = Table()
    hand, _ = start(t.wall({1: t("222m 333m 555s 666s 888p 99p")}))
    hand.apply(HU)
    with pytest.raises(EngineError):
        hand.apply(PASS)


# ------------------------------------------------------------ flowers


def test_flowers_are_set_aside_at_the_deal_and_replaced_from_the_back() -> None:
    t = Table(FLOWER_RULES)
    f_dealer = t.one("f3")
    f_two = t("f1 f2")
    reps = t("N R")
    rep_flower = t.one("f4")  # seat 2's second replacement is itself a flower
    rep3 = t.one("G")
    dealt1 = t.pad([], 16) + [f_dealer]  # the dealer's 17th tile is a flower
    wall = t.wall({1: dealt1, 2: f_two}, replacements=[reps[0], reps[1], rep_flower, rep3])
    hand, events = start(wall, FLOWER_RULES)
    assert ev_kinds(events) == ["init_game", "flower", "flower", "flower", "flower"] + ["init_card"] * 4
    assert only(events, Flower) == [Flower(1, f_dealer), Flower(2, f_two[0]), Flower(2, f_two[1]),
                                    Flower(2, rep_flower)]
    assert all(e.audience == EVERYONE for e in only(events, Flower))
    cards = {e.seat: e for e in only(events, InitCard)}
    assert reps[0] in cards[1].tiles and f_dealer not in cards[1].tiles and len(cards[1].tiles) == 17
    assert {reps[1], rep3} <= set(cards[2].tiles) and len(cards[2].tiles) == 16
    assert not any(x in FLOWER_TIDS for c in cards.values() for x in c.tiles)
    assert hand.flowers(1) == [f_dealer] and hand.flowers(2) == [f_two[0], f_two[1], rep_flower]
    assert hand.remaining == 144 - 65 - 4


def test_a_drawn_flower_is_replaced_from_the_back() -> None:
    t = Table(FLOWER_RULES)
    flower = t.one("f5")
    rep = t.one("N")
    hand, _ = start(t.wall({}, draws=[flower], replacements=[rep]), FLOWER_RULES)
    thrown = hand.concealed(1)[0]
    events = hand.apply(Answer.throw(thrown))
    assert events == [Throw(1, thrown), Flower(2, flower), Mo(2, rep, True, audience=frozenset({2}))]
    assert hand.flowers(2) == [flower]
    assert hand.remaining == 144 - 65 - 2
    assert hand.question == throw_q(hand, 2)


def test_eight_flowers_win() -> None:
    t = Table(FLOWER_RULES)
    seven = t("f1 f2 f3 f4 f5 f6 f7")
    eighth = t.one("f8")
    reps = t("N R G Wh 9s 9m 9p")
    wall = t.wall({2: seven}, draws=[eighth], replacements=reps)
    hand, _ = start(wall, FLOWER_RULES)
    thrown = hand.concealed(1)[0]
    events = hand.apply(Answer.throw(thrown))
    assert ev_kinds(events) == ["throw", "flower", "hu", "exit"]
    assert events[1] == Flower(2, eighth)
    assert events[2] == Hu(2, eighth, tuple(hand.concealed(2)))
    result = check_exit(hand, events)
    (w,) = result.wins
    assert (w.seat, w.how, w.tile) == (2, "flowers", None)
    assert "eight_flowers" in keys(w)
    assert result.scores[1] > 0 and all(result.scores[i] < 0 for i in (0, 2, 3))


def test_seven_flowers_rob_the_eighth() -> None:
    t = Table(FLOWER_RULES)
    seven = t("f1 f2 f3 f4 f5 f6 f7")
    eighth = t.one("f8")
    reps = t("N R G Wh 9s 9m 9p")
    wall = t.wall({3: seven}, draws=[eighth], replacements=reps)
    hand, _ = start(wall, FLOWER_RULES)
    events = hand.apply(Answer.throw(hand.concealed(1)[0]))
    assert ev_kinds(events) == ["throw", "flower", "hu", "exit"]
    assert events[2] == Hu(3, eighth, tuple(hand.concealed(3)))
    (w,) = check_exit(hand, events).wins
    assert (w.seat, w.how) == (3, "flowers") and "eight_flowers" in keys(w)
    assert sorted(hand.flowers(3)) == list(FLOWER_TIDS) and hand.flowers(2) == []


def test_eight_flowers_dealt() -> None:
    t = Table(FLOWER_RULES)
    eight = t("f1 f2 f3 f4 f5 f6 f7 f8")
    reps = t("N R G Wh 9s 9m 9p 8p")
    hand, events = start(t.wall({3: eight}, replacements=reps), FLOWER_RULES)
    assert ev_kinds(events)[-2:] == ["hu", "exit"]
    assert check_exit(hand, events).winners == (3,)


def test_flowers_off_has_no_flower_tiles() -> None:
    hand, events = start(generate_wall(1, 0, RULES))
    events += play_through(hand, tsumogiri)
    assert not only(events, Flower)
    assert all(x >= 100 for e in only(events, InitCard) for x in e.tiles)


# ------------------------------------------------------------ information


@pytest.mark.parametrize("robbed", [True, False])
def test_views_follow_a_hand_with_claims_and_a_promoted_gong(robbed: bool) -> None:
    """The four seat views, fed only their own events, agree with the engine at every question, including the
    robbing-the-kong question (asked before the promoter's replacement draw)."""
    wall, answers, fourth, _ = _promotion_wall(RULES)
    answers += [Answer.gong(1, [fourth]), HU if robbed else PASS]
    hand, events = start(wall)
    views = {p: new_view(p) for p in ALL_SEATS}

    def feed(events: Sequence[Event]) -> None:
        for e in events:
            for p in e.audience:
                views[p].apply(e)

    feed(events)
    river_errors = []
    for answer in answers:
        question = hand.question
        assert question is not None
        v = views[question.seat]
        assert v.legal(question.ask) == question.legal
        assert sorted(v.hand) == hand.concealed(question.seat)
        assert v.wall_remaining == hand.remaining
        for view in views.values():
            if view.rivers != {s: hand.river(s) for s in ALL_SEATS}:
                river_errors.append((view.position, question))
            assert len(view.melds[2]) == len(hand.melds(2))
        feed(hand.apply(answer))
    assert river_errors == []  # (the thrower's own view once kept a claimed tile in its river)
    assert hand.is_over is robbed
    if robbed:
        assert hand.result is not None and hand.result.winners == (3,)
        assert all(v.scores == hand.result.scores for v in views.values())
    else:
        assert all(v.melds[2] == hand.melds(2) for v in views.values())


# ------------------------------------------------------------ the series


def _win(seat: int) -> HandResult:
    pay = tuple(300 if p == seat else -100 for p in ALL_SEATS)
    record = WinRecord(seat, 111, "self_draw", None, None, pay)  # type: ignore[arg-type]
    return HandResult("win", (record,), pay)  # type: ignore[arg-type]


DRAW = HandResult("draw", (), (0, 0, 0, 0))


def test_series_rotation() -> None:
    series = Series(RULES)
    seen = []
    while not series.is_over:
        setup = series.next_setup()
        assert setup is not None
        seen.append((setup.index, setup.round_wind, setup.hand_wind, setup.dealer, setup.cont))
        series.record(_win(setup.dealer) if setup.index % 3 == 0 else DRAW)
    winds = ("EAST", "SOUTH", "WEST", "NORTH")
    assert seen == [(i, winds[i // 4], winds[i % 4], i % 4 + 1, 0) for i in range(16)]
    assert series.next_setup() is None
    assert len(series.results) == 16
    assert sum(series.totals) == 0


def test_series_dealer_continues() -> None:
    series = Series(Ruleset(dealer_continues=True), hands=6)
    plan = [_win(1), DRAW, _win(2), _win(2), _win(4), DRAW]
    seen = []
    for result in plan:
        setup = series.next_setup()
        assert setup is not None
        seen.append((setup.round_wind, setup.hand_wind, setup.dealer, setup.cont))
        series.record(result)
    assert seen == [
        ("EAST", "EAST", 1, 0),
        ("EAST", "EAST", 1, 1),  # the dealer won
        ("EAST", "EAST", 1, 2),  # a drawn hand
        ("EAST", "SOUTH", 2, 0),  # a non-dealer won
        ("EAST", "SOUTH", 2, 1),
        ("EAST", "WEST", 3, 0),
    ]
    assert series.is_over


def test_series_totals_and_penalties() -> None:
    series = Series(RULES, hands=2)
    series.record(_win(2), penalties=(0, 0, 5, 0))
    series.record(DRAW)
    assert series.totals == [-100, 300, -105, -100]
    assert series.is_over


def test_series_drives_real_hands() -> None:
    series = Series(RULES, hands=4)
    counts: Counter[str] = Counter()
    while (setup := series.next_setup()) is not None:
        hand = Hand(generate_wall(11, setup.index, RULES), RULES, dealer=setup.dealer,
                    round_wind=setup.round_wind, hand_wind=setup.hand_wind, cont=setup.cont)
        events = hand.start()
        assert events[0] == InitGame(setup.round_wind, setup.hand_wind,
                                     hand.wall.open_seat(setup.dealer), setup.dealer, 0)
        play_through(hand, tsumogiri)
        assert hand.result is not None
        counts[hand.result.outcome] += 1
        series.record(hand.result)
    assert counts == {"draw": 4}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"hands": {5: [110]}}, "arranged wall: 5 is not a seat 1..4"),
        ({"draws": list(ALL_TIDS[:71]), "replacements": [ALL_TIDS[100]]},
         "arranged wall: 71 draws and 1 replacements do not fit in the 71 undealt tiles"),
        ({"draws": list(ALL_TIDS[:72])},
         "arranged wall: 72 draws and 0 replacements do not fit in the 71 undealt tiles"),
        ({"draws": [110, 110]}, "arranged wall: tile 110 is named twice"),
        ({"draws": [10]}, "arranged wall: 10 is not a tile of this ruleset"),
        ({"hands": {2: list(ALL_TIDS[:17])}}, "arranged wall: seat 2 is dealt 16 tiles, 17 given"),
    ],
)
def test_arrange_wall_errors(kwargs: dict, message: str) -> None:
    kwargs.setdefault("hands", {})
    with pytest.raises(WallError) as err:
        arrange_wall(kwargs.pop("hands"), RULES, **kwargs)
    assert str(err.value) == message


def test_arrange_wall_can_fill_the_whole_undealt_wall() -> None:
    t = Table()
    reps = t("N R")
    wall = t.wall({}, replacements=reps, junk_before=71 - 2)
    assert sorted(wall.tiles) == list(ALL_TIDS)
    assert wall.tiles[-2:] == (reps[1], reps[0])


def _questions_of_hands(rules: Ruleset, wall_seed: int, hands: int) -> Iterator[tuple[Hand, Question]]:
    """Each question of ``hands`` hands on the walls of ``wall_seed``, with its hand: the caller applies an answer
    before asking for the next."""
    for h in range(hands):
        hand = Hand(generate_wall(wall_seed, h, rules), rules, dealer=h % 4 + 1, check=False)
        hand.start()
        while hand.result is None:
            q = hand.question
            assert q is not None
            yield hand, q


@pytest.mark.slow
def test_the_engines_win_check_agrees_with_is_complete_through_random_hands() -> None:
    """The engine keeps per-group states and updates them as tiles come and go; through 150 randomly played
    hands, its answer to "does this tile win for that seat?" is always ``is_complete`` of the hand plus it."""
    import random

    from referee.game.analysis import is_complete
    from referee.game.tiles import INDEX

    probes = (111, 155, 199, 211, 291, 311, 351, 411, 471, 472)
    # is_complete of each counts vector met, for every probe tile: a seat's hand is the same over the several
    # questions between two of its changes, and the reference answer is a function of the counts alone
    reference: dict[tuple[int, ...], list[bool]] = {}
    rng = random.Random(3)
    checks = 0
    for hand, q in _questions_of_hands(Ruleset(), 9, 150):
        for p in (1, 2, 3, 4):
            counts = hand._seats[p].counts
            if sum(counts) % 3 != 1:
                continue
            key = tuple(counts)
            expected = reference.get(key)
            if expected is None:
                expected = []
                for t in probes:
                    plus = list(counts)
                    plus[INDEX[t // 10]] += 1
                    expected.append(is_complete(plus))
                reference[key] = expected
            for t, complete in zip(probes, expected):
                assert hand._can_win_on(p, t) == complete
                checks += 1
        hand.apply(q.legal[rng.randrange(len(q.legal))])
    assert checks > 50_000


def test_the_engines_lookup_tables_follow_their_definitions() -> None:
    """The TID tables of the engine's fast paths: dense index, group and key step of every tile's kind; the chow
    neighbours of every kind index (both others held makes a chow with it: three consecutive ranks of one suit)."""
    from referee.game import engine
    from referee.game.analysis import GROUP_OF, KEY_STEP
    from referee.game.options import throw_answer
    from referee.game.tiles import INDEX

    for t in ALL_TIDS:
        i = INDEX[t // 10]
        assert engine._KI[t] == i and engine._KG[t] == GROUP_OF[i] and engine._KS[t] == KEY_STEP[i]
        assert engine._THROW_AT[t] is throw_answer(t)
    for t in (10, 20, 80, 100, 200):  # flowers and numbers that are no tile have no index
        assert engine._KI[t] is None
    for i in range(34):
        expected = set()
        if i < 27:
            for a in range(34):
                for b in range(a + 1, 34):
                    ranks = sorted((i, a, b))
                    if a != i != b and ranks[2] < 27 and ranks[0] // 9 == ranks[2] // 9 and ranks[2] - ranks[0] == 2:
                        expected.add((a, b))
        assert set(engine._CHOW_PAIRS[i]) == expected, i


@pytest.mark.parametrize("flowers", [False, True])
def test_the_seats_bookkeeping_kept_tile_by_tile_is_its_definition(flowers: bool) -> None:
    """Each seat's hand is kept ascending with its /throw answers, counts and group keys updated a tile at a
    time (draws, throws, claims, gongs, flowers); through randomly played hands they always equal what they are
    built from, and every /ask throw lists exactly ``throw_options`` of the hand."""
    import random

    from referee.game.analysis import group_keys
    from referee.game.options import throw_options
    from referee.game.tiles import counts34

    rng = random.Random(4)
    claims = 0
    for hand, q in _questions_of_hands(Ruleset(flowers=flowers), 12, 60):
        for p in (1, 2, 3, 4):
            s = hand._seats[p]
            assert s.concealed == sorted(s.concealed)
            assert tuple(s.throws) == throw_options(s.concealed)
            assert s.counts == counts34(s.concealed)
            assert s.keys == group_keys(s.counts)
        if q.ask == "throw":
            assert q.legal == throw_options(hand.concealed(q.seat))
        # claim whenever possible, so that melds and gongs change hands too
        claim = [a for a in q.legal if a.kind != "pass"]
        a = claim[0] if claim and q.ask != "throw" else q.legal[rng.randrange(len(q.legal))]
        claims += q.ask != "throw" and a.kind != "pass"
        hand.apply(a)
    assert claims > 100


def _eat_options_by_definition(concealed: list[int], tile: int) -> list[Answer]:
    """Every pair of held tiles that makes three consecutive ranks of one suit with ``tile``: shapes in
    ``chow_shapes`` order, then the lower copy, then the higher."""
    from referee.game.options import chow_shapes

    out = []
    for a, b in chow_shapes(tile):
        for x in sorted(t for t in concealed if t // 10 == a):
            for y in sorted(t for t in concealed if t // 10 == b):
                out.append(Answer("eat", (x, y)))
    return out


def test_eat_options_are_every_chow_pair_in_order() -> None:
    import random

    from referee.game.options import eat_options

    rng = random.Random(8)
    found = 0
    for _ in range(20_000):
        tiles = rng.sample(ALL_TIDS, 18)
        concealed, tile = tiles[: rng.choice([1, 4, 7, 10, 13, 16])], tiles[17]
        options = eat_options(concealed, tile)
        assert options == _eat_options_by_definition(concealed, tile), (concealed, tile)
        found += len(options)
    assert found > 2000

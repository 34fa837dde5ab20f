"""The xmj seat (``wrappers.xmj.seat.XmjSeat``) through its ``Seat`` door, with a real ``mj-player`` behind it.

Without the classical engine, an mj-server hand history stands in for it: ``HistoryHand`` turns the history into
the events and questions mjref's engine gives one seat (TIDs, ``Mo``, ``Throw``, ``Pong``, ``Eat``, ``Gong``,
``Flower``; a question wherever the history has that player's decision, with legal answers), delivers them to the
seat and asks it; mj-player's answers, translated back by the seat, must be the history's moves, up to the hand's
Mah-Jong (the declarations after it are not translated yet).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import mjserver
import pytest
import trio

from referee.game.classical.options import GameOptions
from referee.game.tiles import ALL_TIDS_WITH_FLOWERS
from referee.game.types import HU, PASS, Answer, Eat, Event, Flower, Gong, InitCard, InitGame, Mo, Pong, Question, Throw
from wrappers.seat import HandInfo
from wrappers.xmj import messages as m
from wrappers.xmj.codec import frame, parse_server
from wrappers.xmj.seat import UnixClient, XmjSeat
from wrappers.xmj.translate import code_of

WINDS = {"E": "EAST", "S": "SOUTH", "W": "WEST", "N": "NORTH"}
_KIND_OF = {code_of(t): t // 10 for t in ALL_TIDS_WITH_FLOWERS}


class Tiles:
    """TIDs for a history's tile codes: each face's copies numbered in the order they are first seen."""

    def __init__(self) -> None:
        self.used: Counter[str] = Counter()

    def new(self, code: str) -> int:
        kind = _KIND_OF[code]
        copy = self.used[code]
        self.used[code] += 1
        return kind * 10 + (0 if kind < 10 else copy)


def hand_script(path: Path, me: int) -> tuple[list[object], GameOptions]:
    """The events (``Event``) and the questions (``(Question, expected Answer)``) of one hand for seat ``me``."""
    records = [parse_server(t) for t in frame(path.read_bytes())]
    game = next(r for r in records if isinstance(r, m.CMsgGame))
    options = GameOptions.from_option_lines(
        [(i, f"GameOption {r.id} {r.name} {r.type} {r.protversion} {r.enabled} {r.value} {r.desc}")
         for i, r in enumerate(records) if isinstance(r, m.CMsgGameOption)], path.name)
    start = next(i for i, r in enumerate(records) if isinstance(r, m.CMsgNewHand))
    new_hand = records[start]
    assert isinstance(new_hand, m.CMsgNewHand)
    dealer = new_hand.east
    tiles = Tiles()
    hand: list[int] = []  # my concealed TIDs
    held: dict[int, list[int]] = {p: [] for p in (1, 2, 3, 4)}  # every seat's known TIDs (for the sets' TIDs)
    out: list[object] = []
    dealing = True
    deal: list[int] = []
    discard: tuple[int, int] | None = None  # (seat, TID)

    def take(p: int, code: str, n: int) -> list[int]:
        got = [t for t in held[p] if code_of(t) == code][:n]
        assert len(got) == n, (p, code, n, held[p])
        for t in got:
            held[p].remove(t)
            if p == me:
                hand.remove(t)
        return got

    def give(p: int, code: str) -> int:
        t = tiles.new(code)
        held[p].append(t)
        if p == me:
            hand.append(t)
        return t

    def to_me(p: int, t: int) -> int:
        return t if p == me else 0

    for r in records[start + 1:]:
        if dealing and not out and isinstance(r, m.CMsgPlayerDraws):
            t = give(r.id, r.tile)
            if r.id == me:
                deal.append(t)
            continue
        if dealing and isinstance(r, m.CMsgPlayerDeclaresSpecial) and not out:
            out.append(InitGame(WINDS[game.round], WINDS["ESWN"[(me - dealer) % 4]], 1, dealer, game.hands_as_east))
            out.append(InitCard(me, tuple(deal)))
        match r:
            case m.CMsgPlayerDeclaresSpecial(id=p, tile=code) if code != "--":
                (t,) = take(p, code, 1)
                out.append(Flower(p, t))
            case m.CMsgPlayerDraws(id=p, tile=code) | m.CMsgPlayerDrawsLoose(id=p, tile=code):
                t = give(p, code)
                out.append(Mo(p, to_me(p, t), isinstance(r, m.CMsgPlayerDrawsLoose)))
            case m.CMsgPlayerDiscards(id=p, tile=code):
                dealing = False
                if p == me:
                    legal = tuple(sorted({Answer.throw(t) for t in hand}, key=lambda a: a.tiles))
                    mine = next(a for a in legal if code_of(a.tiles[0]) == code)
                    out.append((Question(me, "throw", legal), mine))
                (t,) = take(p, code, 1)
                discard = (p, t)
                out.append(Throw(p, t))
            case m.CMsgPlayerDoesntClaim(id=p) if p == me and discard is not None:
                face = code_of(discard[1])
                if sum(code_of(t) == face for t in hand) >= 2:  # the engine asks whoever could pung
                    two = tuple(t for t in hand if code_of(t) == face)[:2]
                    out.append((Question(me, "pong", (Answer.pong(*two), PASS), discard[1]), PASS))
            case m.CMsgPlayerPungs(id=p, tile=code) if discard is not None:
                # a claim is asked when it is the one granted (mjref asks one seat at a time; a losing claim of
                # mj-player's is left unanswered, and the seat drops it)
                if p == me:
                    out.append((Question(me, "hu", (HU, PASS), discard[1]), PASS))
                    mine = Answer.pong(*tuple(t for t in hand if code_of(t) == code)[:2])
                    out.append((Question(me, "pong", (mine, PASS), discard[1]), mine))
                pair = take(p, code, 2)
                out.append(Pong(p, (*sorted((*pair, discard[1])),)))  # type: ignore[arg-type]
            case m.CMsgPlayerChows(id=p, tile=code, cpos=cpos) if discard is not None:
                v, s = int(code[0]), code[1]
                ranks = {"Lower": (v + 1, v + 2), "Middle": (v - 1, v + 1), "Upper": (v - 2, v - 1)}[cpos]
                a, b = (take(p, f"{x}{s}", 1)[0] for x in ranks)
                if p == me:
                    out.append((Question(me, "eat", (Answer.eat(a, b), PASS), discard[1]), Answer.eat(a, b)))
                out.append(Eat(p, (a, discard[1], b)))
            case m.CMsgPlayerKongs(id=p, tile=code) if discard is not None:
                three = take(p, code, 3)
                if p == me:
                    kong = Answer.gong(4, three)
                    out.append((Question(me, "gong", (kong, PASS), discard[1]), kong))
                out.append(Gong(p, 4, tuple(sorted((*three, discard[1])))))
            case m.CMsgPlayerDeclaresClosedKong(id=p, tile=code):
                four = take(p, code, 4)
                if p == me:
                    out.append((Question(me, "gong", (Answer.gong(0, four), PASS)), Answer.gong(0, four)))
                out.append(Gong(p, 0, tuple(sorted(four))))
            case m.CMsgPlayerAddsToPung(id=p, tile=code):
                (t,) = take(p, code, 1)
                if p == me:
                    out.append((Question(me, "gong", (Answer.gong(1, (t,)), PASS)), Answer.gong(1, (t,))))
                out.append(Gong(p, 1, (t,)))
            case m.CMsgPlayerMahJongs(id=p, tile=code):
                if p == me:
                    out.append((Question(me, "hu", (HU, PASS), None if code != "--" else discard and discard[1]),
                                HU))
                break
            case m.CMsgWashOut():
                break
    return out, options


async def play(path: Path, me: int, folder: Path, args: list[str]) -> int:
    script, options = hand_script(path, me)
    client = UnixClient([mjserver.PLAYER, *args], folder / f"seat-{me}.sock", me, f"seat{me}")
    seat = XmjSeat(f"seat{me}", me, names={p: f"seat{p}" for p in (1, 2, 3, 4)}, options=options, client=client,
                   timeout=60.0)
    info = HandInfo(0, 0, me, True, 14, False, False, 60.0, 30.0)
    asked = 0
    try:
        assert await seat.begin_hand(info) is None
        for item in script:
            if isinstance(item, Event):
                seat.deliver(item)
                continue
            assert isinstance(item, tuple)
            question: Question = item[0]
            expected: Answer = item[1]
            reply = await seat.ask(question)
            assert reply.fault is None, (path.name, me, question, reply.fault)
            assert reply.answer == expected, (path.name, me, question.ask, reply.answer, expected)
            asked += 1
    finally:
        await seat.close()
    return asked


@pytest.fixture(scope="module")
def hands(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Path, str]]:
    mjserver.require()
    base = tmp_path_factory.mktemp("xmj-seat")
    out: list[tuple[Path, str]] = []
    for seed, who in ((41, "default"), (42, "mixed")):
        out += [(p, who) for p in mjserver.corpus(base / f"s{seed}", seed, personality=who)]
    return out


def test_mj_player_behind_the_seat_plays_the_history_s_moves(hands: list[tuple[Path, str]], tmp_path: Path) -> None:
    total = 0
    for path, who in hands:
        for me in (1, 2, 3, 4):
            total += trio.run(play, path, me, tmp_path, mjserver.PERSONALITIES[who][me - 1])
    assert total > 500

"""The built-in bots: always legal, deterministic, greedy better than random, drawdiscard as documented,
personality weights that matter, the spec registry, and the protocol executables end to end."""

from __future__ import annotations

import io
import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots import BUILTIN_NAMES, Policy, make_policy
from bots.base import parse_spec
from bots.drawdiscard import DrawDiscard
from bots.greedy import Greedy
from bots.stdio import Runner
from referee.game.analysis import shanten
from referee.game.engine import Hand
from referee.game.taiwan16.rules import Ruleset
from referee.game.tiles import INDEX, counts34
from referee.game.types import HU, PASS, Answer, Event, Exit, InitCard, InitGame, Mo, Throw
from referee.game.view import SeatView, new_view
from referee.game.wall import generate_wall
from wrappers.codec import (
    Ask,
    ProtocolError,
    Start,
    format_event,
    format_question,
    format_start,
    parse_answer,
    parse_server_line,
)

REPO = Path(__file__).resolve().parents[2]
RULES = Ruleset()
SPECS = [
    "random",
    "drawdiscard",
    "greedy",
    "greedy:chowness=0.9,hiddenness=0.1",
    "greedy:hiddenness=0.9",
    "greedy:majorness=0,suitness=1",
    "greedy:majorness=1,suitness=0",
]

Decision = tuple[int, str, Answer]


# ------------------------------------------------------------------------------------------------ helpers
def play_hand(specs: Sequence[str | Policy], seed: int, h: int, *, check=None) -> tuple[Hand, list[Decision]]:
    """One hand driven by four policies, each on a view fed only the events its seat may see.

    ``check(view, ask, legal, answer, seat)`` is called before each answer is applied."""
    policies = {p: make_policy(s) if isinstance(s, str) else s for p, s in zip((1, 2, 3, 4), specs)}
    for p, pol in policies.items():
        pol.start_hand(seed, h, p)
    hand = Hand(generate_wall(seed, h, RULES), RULES, dealer=h % 4 + 1)
    views = {p: new_view(p) for p in (1, 2, 3, 4)}
    for e in hand.start():
        for p in e.audience:
            views[p].apply(e)
    decisions: list[Decision] = []
    while not hand.is_over:
        q = hand.question
        assert q is not None
        a = policies[q.seat].decide(views[q.seat], q.ask, q.legal)
        assert a in q.legal, f"{specs[q.seat - 1]} answered {a} to {q}"
        if check is not None:
            check(views[q.seat], q.ask, q.legal, a, q.seat)
        decisions.append((q.seat, q.ask, a))
        for e in hand.apply(a):
            for p in e.audience:
                views[p].apply(e)
    return hand, decisions


def view_with(
    hand: Sequence[int],
    *,
    pos: int = 2,
    dealer: int = 1,
    throw: tuple[int, int] | None = None,
    draw: int | None = None,
) -> SeatView:
    """A crafted view: seat ``pos`` dealt ``hand``, then optionally another's throw or its own draw."""
    v = new_view(pos)
    v.apply(InitGame("EAST", "EAST", 1, dealer, 0))
    v.apply(InitCard(pos, tuple(sorted(hand))))
    if throw is not None:
        v.apply(Throw(*throw))
    if draw is not None:
        v.apply(Mo(pos, draw))
    return v


def decide(spec: str, view: SeatView, ask: str) -> Answer:
    legal = view.legal(ask)
    a = make_policy(spec).decide(view, ask, legal)
    assert a in legal
    return a


# ------------------------------------------------------------------------------------------------ registry
def test_registry_names_and_specs() -> None:
    assert BUILTIN_NAMES == frozenset({"random", "drawdiscard", "greedy", "dead_hand"})
    for name in BUILTIN_NAMES:
        p = make_policy(name)
        assert isinstance(p, Policy)
        assert p.name == name
    g = make_policy("greedy:chowness=0.2,hiddenness=0.8")
    assert isinstance(g, Greedy)
    assert (g.chowness, g.hiddenness, g.majorness, g.suitness) == (0.2, 0.8, 0.5, 0.5)
    assert g.spec == "greedy:chowness=0.2,hiddenness=0.8"
    assert make_policy(g.spec).params == g.params
    assert parse_spec(" greedy:suitness=1 ") == ("greedy", {"suitness": 1.0})


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("foo", "unknown bot 'foo' (known: dead_hand, drawdiscard, greedy, random)"),
        ("", "empty bot spec"),
        (
            "greedy:boldness=1",
            "unknown parameter 'boldness' for bot greedy (known: chowness, hiddenness, majorness",
        ),
        ("random:chowness=1", "unknown parameter 'chowness' for bot random (it takes none)"),
        ("greedy:chowness=2", "chowness='2' must be a number from 0 to 1"),
        ("greedy:chowness=abc", "chowness='abc' must be a number from 0 to 1"),
        ("greedy:chowness=nan", "must be a number from 0 to 1"),
        ("greedy:chowness", "'chowness' is not NAME=VALUE"),
        ("greedy:", "nothing after ':'"),
        ("greedy:chowness=0.1,chowness=0.2", "given twice"),
    ],
)
def test_make_policy_errors(spec: str, fragment: str) -> None:
    with pytest.raises(ValueError) as info:
        make_policy(spec)
    message = str(info.value)
    assert fragment in message
    assert "\n" not in message


# ------------------------------------------------------------------------------------------------ legality
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    h=st.integers(0, 15),
    specs=st.lists(st.sampled_from(SPECS), min_size=4, max_size=4),
)
def test_every_answer_is_legal(seed: int, h: int, specs: list[str]) -> None:
    def check(view: SeatView, ask: str, legal: Sequence[Answer], a: Answer, seat: int) -> None:
        assert set(view.legal(ask)) == set(legal)  # the view derives exactly what the engine accepts

    hand, decisions = play_hand(specs, seed, h, check=check)
    assert hand.is_over and decisions


@pytest.mark.parametrize("spec", SPECS)
def test_each_policy_legal_over_many_hands(spec: str) -> None:
    for h in range(8):
        play_hand([spec] * 4, 1000 + h, h)


def test_determinism() -> None:
    for h in range(4):
        specs = ["random", "greedy", "random", "drawdiscard"]
        _, first = play_hand(specs, 42, h)
        _, again = play_hand(specs, 42, h)
        assert first == again
    # the random bot's choices depend on the seed, the hand and the seat
    runs = {tuple(play_hand(["random"] * 4, seed, 0)[1]) for seed in range(4)}
    assert len(runs) == 4


def test_random_reseeds_per_hand() -> None:
    pol = make_policy("random")
    pol.start_hand(1, 0, 2)
    a = [pol.rng.random() for _ in range(3)]
    pol.start_hand(1, 0, 2)
    assert a == [pol.rng.random() for _ in range(3)]
    pol.start_hand(1, 0, 3)
    assert a != [pol.rng.random() for _ in range(3)]


# ------------------------------------------------------------------------------------------------ strength
def test_greedy_beats_random() -> None:
    """Duplicate: 20 walls, each played with greedy at seats 1 and 3 and again at seats 2 and 4."""
    greedy_points = random_points = 0
    greedy_wins = random_wins = 0
    for h in range(20):
        for specs in (["greedy", "random"] * 2, ["random", "greedy"] * 2):
            hand, _ = play_hand(specs, 7, h)
            assert hand.result is not None
            for i, s in enumerate(specs):
                if s == "greedy":
                    greedy_points += hand.result.scores[i]
                else:
                    random_points += hand.result.scores[i]
            for w in hand.result.winners:
                if specs[w - 1] == "greedy":
                    greedy_wins += 1
                else:
                    random_wins += 1
    assert greedy_points + random_points == 0
    mean_greedy = greedy_points / 80  # about +50 points per seat and hand, random about -50
    assert mean_greedy > 20, (greedy_points, random_points)
    assert greedy_wins > 3 * random_wins + 10, (greedy_wins, random_wins)


def test_greedy_throws_minimise_shanten_and_always_wins() -> None:
    def check(view: SeatView, ask: str, legal: Sequence[Answer], a: Answer, seat: int) -> None:
        if seat not in (1, 3):
            return
        if ask == "hu":
            assert a == HU
        elif ask == "throw":
            melds = len(view.melds[view.position])
            c = list(view.counts)
            best = min(shanten(c[:i] + [c[i] - 1] + c[i + 1 :], melds) for i in range(34) if c[i])
            i = INDEX[a.tiles[0] // 10]
            c[i] -= 1
            assert shanten(c, melds) == best

    for h in range(6):
        play_hand(["greedy", "random", "greedy", "drawdiscard"], 3, h, check=check)


def test_drawdiscard_as_documented() -> None:
    seen_claims = 0
    seen_after_claim = 0

    def check(view: SeatView, ask: str, legal: Sequence[Answer], a: Answer, seat: int) -> None:
        nonlocal seen_claims, seen_after_claim
        if seat not in (1, 3):
            return
        if ask == "hu":
            assert a == HU
        elif ask == "throw":
            if view.last_draw is not None and view.last_draw in view.hand:
                assert a == Answer.throw(view.last_draw)
            else:
                seen_after_claim += 1
                assert a == Answer.throw(max(view.hand))
        else:
            seen_claims += 1
            assert a == PASS

    for h in range(12):
        play_hand(["drawdiscard", "greedy", "drawdiscard", "greedy"], 11, h, check=check)
    assert seen_claims and seen_after_claim  # both branches were exercised

    # the dealer's first turn: 17 tiles, no draw
    v = view_with(
        [111, 112, 121, 131, 141, 151, 161, 171, 181, 191, 211, 221, 231, 311, 321, 331, 471], pos=1
    )
    assert v.last_draw is None
    assert DrawDiscard().decide(v, "throw", v.legal("throw")) == Answer.throw(471)


# ------------------------------------------------------------------------------------------------ personality
# 16 tiles at shanten 6; a pong of 1-wan or an eat of 6-wan lowers it to 5 (not ready).
LOOSE = [111, 112, 141, 151, 171, 211, 221, 251, 281, 321, 331, 361, 391, 431, 451, 462]
# 16 tiles at shanten 1: four sets, the pair 5-tiao and two singles; a pong of 5-tiao makes it ready.
NEAR = [111, 121, 131, 141, 151, 161, 171, 181, 191, 311, 321, 331, 251, 252, 291, 411]


def test_crafted_hands_are_what_the_tests_say() -> None:
    c = counts34(LOOSE)
    assert shanten(c) == 6
    c[INDEX[11]] -= 2
    assert shanten(c, 1) == 5
    c = counts34(NEAR)
    assert shanten(c) == 1
    c[INDEX[25]] -= 2
    assert shanten(c, 1) == 0


def test_hiddenness_declines_claims_that_gain_one_unless_ready() -> None:
    pong = view_with(LOOSE, throw=(4, 113))
    assert decide("greedy", pong, "pong") == Answer.pong(111, 112)
    assert decide("greedy:hiddenness=0.1", pong, "pong") == Answer.pong(111, 112)
    assert decide("greedy:hiddenness=0.8", pong, "pong") == PASS
    ready = view_with(NEAR, throw=(4, 253))
    assert decide("greedy:hiddenness=1", ready, "pong") == Answer.pong(251, 252)


def test_chowness_controls_eating() -> None:
    eat = view_with(LOOSE, throw=(1, 161))  # seat 1 is seat 2's previous player
    assert decide("greedy", eat, "eat") == Answer.eat(141, 151)
    assert decide("greedy:chowness=0.2", eat, "eat") == PASS
    assert decide("greedy:hiddenness=0.8", eat, "eat") == PASS
    assert decide("greedy:chowness=0.8,hiddenness=0.8", eat, "eat") == Answer.eat(141, 151)
    # an eat that keeps shanten: only an eager eater takes it, and only for more useful tiles
    hand = [113, 122, 131, 150, 171, 181, 212, 293, 341, 342, 360, 362, 380, 392, 471, 473]
    keep = view_with(hand, throw=(1, 130))
    c = counts34(hand)
    assert shanten(c) == 3
    c[INDEX[11]] -= 1
    c[INDEX[12]] -= 1
    assert shanten(c, 1) == 3
    assert decide("greedy", keep, "eat") == PASS
    assert decide("greedy:chowness=1", keep, "eat") == Answer.eat(113, 122)


def test_majorness_keeps_or_sheds_honours() -> None:
    # East and 5-tong are tied at the best shanten with as many useful tiles after either throw
    v = view_with(
        [111, 121, 131, 141, 151, 161, 171, 181, 191, 321, 331, 351, 251, 261, 281, 282, 411], pos=1
    )
    assert decide("greedy", v, "throw") == Answer.throw(411)  # the stable rule: honours first
    assert decide("greedy:majorness=0", v, "throw") == Answer.throw(411)
    assert decide("greedy:majorness=1", v, "throw") == Answer.throw(351)


def test_suitness_sheds_the_minority_suit() -> None:
    # 9-tong (tong: 2 tiles) and 2-tiao (tiao: 4 tiles) are tied; wan has 11 tiles
    v = view_with(
        [111, 112, 121, 131, 141, 151, 161, 171, 181, 191, 192, 251, 281, 282, 221, 351, 391], pos=1
    )
    assert decide("greedy:suitness=1", v, "throw") == Answer.throw(391)
    assert decide("greedy:suitness=0", v, "throw") == Answer.throw(221)


def test_gongs() -> None:
    # four isolated Reds: a concealed gong does not raise shanten
    v = view_with(
        [111, 121, 131, 141, 151, 161, 171, 181, 191, 311, 321, 331, 251, 450, 451, 452], pos=2, draw=453
    )
    a = decide("greedy", v, "gong")
    assert a == Answer.gong(0, (450, 451, 452, 453))
    assert decide("drawdiscard", v, "gong") == PASS
    # four 3-wan inside a 2345 run: the gong would break the runs and raise shanten
    v = view_with(
        [121, 130, 131, 132, 141, 151, 161, 171, 211, 221, 231, 251, 261, 311, 321, 391], pos=2, draw=133
    )
    assert decide("greedy", v, "gong") == PASS
    # a meld gong on three Reds (thrown by seat 4, not seat 2's previous player)
    v = view_with(
        [111, 121, 131, 141, 151, 161, 171, 181, 191, 311, 321, 331, 251, 450, 451, 452], throw=(4, 453)
    )
    assert decide("greedy", v, "gong") == Answer.gong(4, (450, 451, 452))
    assert decide("greedy:hiddenness=0.9", v, "gong") == PASS


# ------------------------------------------------------------------------------------------------ stdio
def conversation(lines: list[str], answers: list[str]) -> list[tuple[str, tuple[Answer, ...], str]]:
    """Pair each ``/ask`` of ``lines`` with the legal answers of a view folded from the same lines."""
    out: list[tuple[str, tuple[Answer, ...], str]] = []
    view: SeatView | None = None
    it = iter(answers)
    for line in lines:
        try:
            msg = parse_server_line(line, seat=view.position if view else 0)
        except ProtocolError:
            continue  # the bot skips it too
        if isinstance(msg, Start):
            view = new_view(msg.position)
        elif isinstance(msg, Ask):
            assert view is not None
            out.append((msg.kind, view.legal(msg.kind), next(it)))
        else:
            assert view is not None
            view.apply(msg)
    return out


SCRIPT = [
    "/start MJ 2 x",
    "/initGame EAST EAST 1 1 0",
    "/initCard 111 112 121 131 141 151 161 171 181 211 221 231 311 321 331 411",
    "/throw 1 113",
    "/ask pong",
    "/ask eat",
    "/mo 412",
    "/ask throw",
    "/throw 2 412",
    "/throw 3 419",  # a bad line (not a tile ID): logged and skipped
    "/throw 3 413",
    "/ask pong",
    "/throw 4 191",
    "/throw 1 471",
    "/mo 192",
    "/ask throw",
    "/exit 0 0 0 0",
]


@pytest.mark.parametrize("name", sorted(BUILTIN_NAMES))
def test_module_runs_a_scripted_conversation(name: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", f"bots.{name}", "--seed", "5"],
        input="\n".join(SCRIPT) + "\n",
        check=False,
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    answers = proc.stdout.splitlines()
    asked = conversation(SCRIPT, answers)
    assert len(answers) == len(asked) == 5
    for kind, legal, line in asked:
        assert parse_answer(line) in legal, (kind, line)
    assert "419" in proc.stderr  # the bad line was reported


# What a bot process must never import: the referee's own machinery (pydantic models, trio, rich, the engine and
# scoring).  Each would add tens of milliseconds to every start, and a bot is started once per hand.
HEAVY_MODULES = ("pydantic", "pydantic_core", "trio", "rich", "referee.game.taiwan16.rules", "referee.game.engine",
                 "referee.game.taiwan16.scoring", "referee.match", "referee.log")

# Not heavy, but each a few milliseconds of every start: a bot started without options (the usual per-hand start)
# builds no dataclass, no argument parser, loads no OpenSSL, and no seat machinery; nor ``typing``, ``re`` or
# ``enum`` (``import typing`` alone, which imports the other two, was some 20 ms of CPU on the development machine).
START_MODULES = ("dataclasses", "argparse", "hashlib", "_hashlib", "wrappers.seat", "inspect", "typing", "re", "enum")

PLAY_AND_LIST_MODULES = """
import runpy, sys
sys.argv = [sys.argv[0], *ARGS]
try:
    runpy.run_module("bots." + NAME, run_name="__main__", alter_sys=True)
except SystemExit as exc:
    assert not exc.code, exc.code
modules = sorted(sys.modules)  # before json, which imports re
import json
sys.__stderr__.write(json.dumps(modules))
"""


def _modules_of_bot_process(name: str, args: list[str], *, bare: bool = False) -> list[str]:
    """``sys.modules`` of ``python -m bots.NAME ARGS`` after it played ``SCRIPT`` (answering every ``/ask``).
    ``bare``: without the ``site`` module (``python -S``), as a regular install starts: this environment may be a
    development install, whose ``.pth`` file imports ``re`` and ``pathlib`` into every Python it starts."""
    code = PLAY_AND_LIST_MODULES.replace("NAME", repr(name)).replace("ARGS", repr(args))
    proc = subprocess.run(
        [sys.executable, *(["-S"] if bare else []), "-c", code],
        input="\n".join(SCRIPT) + "\n",
        check=False,
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) == 5  # it did answer every /ask
    modules: list[str] = json.loads(proc.stderr.splitlines()[-1])
    return modules


@pytest.mark.parametrize("name", sorted(BUILTIN_NAMES))
def test_bot_process_imports_no_heavy_module(name: str) -> None:
    """``python -m bots.NAME`` answers a real conversation without importing pydantic (or anything else heavy):
    the module list is read from ``sys.modules`` in the bot process itself, after it played the script."""
    modules = _modules_of_bot_process(name, ["--seed", "5"])
    assert "referee.game.analysis" in modules or name != "greedy"
    heavy = [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY_MODULES)]
    assert heavy == []


@pytest.mark.parametrize("name", sorted(BUILTIN_NAMES))
def test_bot_process_without_options_starts_lean(name: str) -> None:
    """Started without options, a bot also leaves out what only costs start time (``START_MODULES``)."""
    modules = _modules_of_bot_process(name, [], bare=True)
    assert [m for m in modules if m in START_MODULES] == []


class BotProcess:
    """A bot executable with line-at-a-time I/O and a timeout on every read."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            bufsize=1,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def answer(self) -> str:
        line = self.lines.get(timeout=30)
        assert line is not None, "the bot closed stdout"
        return line.rstrip("\n")

    def finish(self) -> int:
        try:
            return self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                if f is not None:
                    f.close()


def test_greedy_executable_plays_a_real_hand() -> None:
    """``python -m bots.greedy`` at seat 2 of an engine-driven hand: every answer legal, exit 0 at /exit."""
    seat = 2
    bot = BotProcess([sys.executable, "-m", "bots.greedy", "--seed", "3", "--hiddenness", "0.6"])
    others = {1: make_policy("greedy"), 3: make_policy("random"), 4: make_policy("drawdiscard")}
    for p, pol in others.items():
        pol.start_hand(3, 0, p)
    try:
        bot.send(format_start(seat, "x"))
        hand = Hand(generate_wall(3, 0, RULES), RULES, dealer=1)
        views = {p: new_view(p) for p in (1, 2, 3, 4)}
        asked = 0

        def deliver(events: list[Event]) -> None:
            for e in events:
                for p in e.audience:
                    if p == seat:
                        line = format_event(e)
                        if line is not None:
                            bot.send(line)
                    else:
                        views[p].apply(e)

        deliver(hand.start())
        while not hand.is_over:
            q = hand.question
            assert q is not None
            if q.seat == seat:
                bot.send(format_question(q))
                line = bot.answer()
                a = parse_answer(line)
                assert a in q.legal, (q, line)
                asked += 1
            else:
                a = others[q.seat].decide(views[q.seat], q.ask, q.legal)
            deliver(hand.apply(a))
        assert asked > 3
        assert bot.finish() == 0
    finally:
        if bot.proc.poll() is None:
            bot.proc.kill()


def run_lines(lines: list[str], spec: str = "random", **kw) -> tuple[Runner, list[str], str]:
    out, err = io.StringIO(), io.StringIO()
    runner = Runner(make_policy(spec), out=out, err=err, **kw)
    code = runner.run(io.StringIO("".join(line + "\n" for line in lines)))
    assert code == 0
    return runner, out.getvalue().splitlines(), err.getvalue()


def test_runner_keep_alive_and_seeding() -> None:
    hand = SCRIPT[:-1] + ["/exit 0 0 0 0"]
    second = [line.replace("EAST EAST", "EAST SOUTH") for line in hand]
    runner, answers, _ = run_lines(hand + second, keep_alive=True, seed=9)
    assert runner.hands_played == 2
    assert len(answers) == 10
    first_only = run_lines(hand + second, seed=9)  # without --keep-alive the process stops at the first /exit
    assert first_only[1] == answers[:5] and first_only[0].hands_played == 1
    assert run_lines(hand + second, keep_alive=True, seed=9)[1] == answers  # same seed, same answers
    answers_by_seed = {tuple(run_lines(hand, seed=s)[1]) for s in range(8)}
    assert len(answers_by_seed) > 1


def test_runner_survives_bad_input() -> None:
    lines = ["/ask throw", "hello", "/frobnicate 1", "", "/mo 999", "/start MJ 1 x", "/ask throw"]
    _, answers, err = run_lines(lines, spec="greedy")
    assert answers == ["/pass", "/pass"]  # asked before any hand, or with no tiles: /pass rather than silence
    assert "before any hand" in err and "no legal answer" in err
    assert "hello" in err and "/frobnicate" in err and "999" in err


def test_exit_event_ends_the_hand() -> None:
    runner, _, _ = run_lines(["/start MJ 3 y", "/initGame EAST EAST 1 1 0", "/exit 1 -1 0 0"])
    assert runner.view is not None and runner.view.scores == (1, -1, 0, 0)
    assert isinstance(parse_server_line("/exit 1 -1 0 0"), Exit)

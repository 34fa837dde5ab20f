"""``mjref check``: a conformance suite for a bot, one crafted situation per protocol question.

Each scenario deals a crafted wall (``wall.arrange_wall``) and plays one real ``Hand`` to its end, with the bot
under test in one seat (``ProcessSeat`` for an executable, ``BuiltinSeat`` for a built-in, in a trio nursery as
in a match) and scripted answers for the other three seats that steer play into the situation: a throw the bot
can eat in two or three ways, a tile it can pong, three of a kind to gong on a throw, four in hand, a pong to
promote, a ready hand that self-draws, wins on a throw, or can rob a promoted gong.

A scenario passes when every answer the bot gave in that hand was legal and on time.  The bot need not claim:
when it declines a claim (``/pass``), the scenario passes and says so, and a situation that can only follow
the claim (the throw after an eat, a promotion after a pong) is reported as not reached.  Where a situation
depends on the bot's own throws (robbing a gong: the bot must keep its ready hand), not reaching it passes too,
with the reason.

Two checks concern the process itself and use a bare process (``ProcessSeat`` deliberately hides these): that
``/start MJ`` and ``/initGame`` are accepted silently (nothing is printed before the first question), and that the
bot exits by itself after ``/exit``.  An in-process bot passes them by construction.
"""

from __future__ import annotations

import os
import stat
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from bots.base import make_policy
from referee.aio import unwrap_single
from referee.errors import InputError, printable
from referee.game.engine import Hand
from referee.game.family import family_of
from referee.game.taiwan16.rules import DEFAULT_RULES
from referee.game.types import (
    GONG_CONCEALED,
    GONG_PROMOTED,
    PASS,
    Answer,
    Eat,
    Event,
    Exit,
    Gong,
    Mo,
    Pong,
    Question,
    Throw,
)
from referee.game.wall import Wall, arrange_wall, deal_positions
from wrappers.codec import cut, format_event, format_question, misplaced_output_hint
from wrappers.process import EXIT_GRACE, ProcessSeat
from wrappers.seat import BuiltinSeat, Fault, HandInfo, Seat
from wrappers.spec import BotSpec, seat_timeout

__all__ = ["SCENARIOS", "CheckReport", "ScenarioResult", "check", "run_check", "scenario_names"]

SILENCE_WINDOW = 0.5  # seconds the bot is watched for output after /start, /initGame, /initCard
EXIT_WAIT = 2.0  # seconds a bot has to exit by itself after /exit
STDERR_LINES = 10  # the last lines of a failing bot's stderr shown under the table


# ---------------------------------------------------------------------------------------------------- tiles
_HONOURS = {"E": 41, "W": 42, "S": 43, "N": 44, "R": 45, "G": 46, "Wh": 47}
_SUITS = {"m": 10, "s": 20, "p": 30}


def _kinds(spec: str) -> list[int]:
    """``"123m 9p E R"`` → kinds ``[11, 12, 13, 39, 41, 45]``: digits then a suit letter, or honour names."""
    out: list[int] = []
    for token in spec.split():
        if token in _HONOURS:
            out.append(_HONOURS[token])
        else:
            base = _SUITS[token[-1]]
            out.extend(base + int(d) for d in token[:-1])
    return out


class _Pool:
    """Hands out TIDs copy by copy, so a crafted wall never names a tile twice."""

    def __init__(self) -> None:
        self.used: dict[int, int] = {}

    def take(self, spec: str) -> list[int]:
        tids = []
        for k in _kinds(spec):
            n = self.used.get(k, 0)
            if n >= 4:
                raise ValueError(f"scenario: a fifth tile of kind {k}")
            self.used[k] = n + 1
            tids.append(k * 10 + n)
        return tids


# ---------------------------------------------------------------------------------------------------- scenarios
@dataclass(frozen=True)
class Script:
    """A scripted seat: throws these kinds first (then its drawn tile), claims with ``claim`` (ask kinds)."""

    throws: tuple[str, ...] = ()
    claim: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Target:
    name: str
    title: str
    expected: str  # the answer forms, in words
    needs: str = ""  # why it may not be reached: what the bot must have chosen before
    claim: str = ""  # the ask kind of the claim it needs (eat, pong), if any


@dataclass(frozen=True)
class Run:
    """One crafted hand: who is dealt what, the draws, the scripted seats, and the situations it checks."""

    name: str
    bot: int
    hands: dict[int, str]
    targets: tuple[str, ...]
    draws: str = ""
    dealer: int = 1
    scripts: dict[int, Script] = field(default_factory=dict)

    def wall(self, rules: Any) -> Wall:
        pool = _Pool()
        hands: dict[int, Sequence[int]] = {p: pool.take(spec) for p, spec in self.hands.items()}
        draws = pool.take(self.draws)
        return crafted_wall(hands, rules, dealer=self.dealer, draws=draws, filler_seed=len(self.name))


def crafted_wall(hands: dict[int, Sequence[int]], rules: Any, *, dealer: int, draws: Sequence[int] = (),
                 filler_seed: int) -> Wall:
    """A scenario's wall under ``rules`` (either family: the deal's size is the family's).  With flowers in the
    set, every seat is dealt what it is dealt without them (the scenarios are made for those deals: a flower dealt
    would be replaced and move the scripted draws, other filler could let a scripted seat claim first); the draws
    after the scenario's own may be flowers, as in play."""
    deal = family_of(rules).deal_size
    if rules.flowers:
        plain = arrange_wall(hands, DEFAULT_RULES, dealer=dealer, draws=draws, filler_seed=filler_seed,
                             deal_size=deal)  # DEFAULT_RULES: a wall without flowers (only its tile set is read)
        hands = {p: [plain.tiles[i] for i in positions] for p, positions in deal_positions(dealer, deal).items()}
    return arrange_wall(hands, rules, dealer=dealer, draws=draws, filler_seed=filler_seed, deal_size=deal)


TARGETS: dict[str, Target] = {t.name: t for t in (
    Target("start_silent", "/start and /initGame accepted silently",
           "no output until the first question, then one answer line"),
    Target("throw_after_mo", "/ask throw after /mo", "/throw <a tile it holds>"),
    Target("throw_after_eat", "/ask throw after an eat", "/throw <a tile it holds>", "the bot's eat", "eat"),
    Target("throw_after_pong", "/ask throw after a pong", "/throw <a tile it holds>", "the bot's pong", "pong"),
    Target("eat_two", "/ask eat, two chows possible", "/eat <c1> <c2> (one of the chows) or /pass"),
    Target("eat_three", "/ask eat, three chows possible", "/eat <c1> <c2> (one of the chows) or /pass"),
    Target("pong", "/ask pong", "/pong <c1> <c2> or /pass"),
    Target("gong_melded", "/ask gong on a throw (meld gong)", "/gong 4 <c1> <c2> <c3> or /pass"),
    Target("gong_concealed", "/ask gong with four in hand (concealed gong)", "/gong 0 <c1> <c2> <c3> <c4> or /pass"),
    Target("gong_promoted", "/ask gong to promote a pong", "/gong 1 <tid> or /pass", "the bot's pong",
           "pong"),
    Target("hu_self_draw", "/ask hu on a self-draw", "/hu or /pass"),
    Target("hu_throw", "/ask hu on a throw", "/hu or /pass"),
    Target("hu_robbed_gong", "/ask hu on a robbed gong", "/hu or /pass",
           "the bot to keep its ready hand (throwing its loose honour)"),
    Target("pass", "/pass everywhere it is allowed", "/pass only to /ask eat, pong, gong or hu"),
    Target("exit_after_exit", "exits after /exit", f"the process ends by itself within {EXIT_WAIT:g} s"),
)}

# The bot's hands: spaced suit tiles and single honours cannot eat, pong or win on anything.
_LOOSE = "147m 258s 369p"
_SETS = "123m 456m 123s 456s"
RUNS: tuple[Run, ...] = (
    Run("mo", 2, {2: _LOOSE + " E S W N R G Wh"}, ("throw_after_mo",)),
    Run("eat2", 2, {1: "3m", 2: "124m 7m 258s 369p E S W N"}, ("eat_two", "throw_after_eat"),
        scripts={1: Script(throws=("3m",))}),
    Run("eat3", 2, {1: "3m", 2: "1245m 8m 258s 369p E S W"}, ("eat_three",), scripts={1: Script(throws=("3m",))}),
    Run("pong", 2, {1: "R", 2: "R R " + _LOOSE + " E S W N G"}, ("pong", "throw_after_pong"),
        scripts={1: Script(throws=("R",))}),
    Run("gong_melded", 3, {1: "R", 3: "R R R " + _LOOSE + " E S W N"}, ("gong_melded",),
        scripts={1: Script(throws=("R",))}),
    Run("gong_concealed", 2, {2: "R R R R " + _LOOSE + " E S W"}, ("gong_concealed",)),
    Run("gong_promoted", 2, {1: "R", 2: _SETS + " R R E W"}, ("gong_promoted",), draws="N G Wh R",
        scripts={1: Script(throws=("R",))}),
    Run("hu_self_draw", 2, {1: "Wh", 2: _SETS + " E E 78p"}, ("hu_self_draw",), draws="9p",
        scripts={1: Script(throws=("Wh",))}),
    Run("hu_throw", 2, {1: "9p", 2: _SETS + " E E 78p"}, ("hu_throw",), scripts={1: Script(throws=("9p",))}),
    Run("hu_robbed_gong", 2, {1: "9p", 2: _SETS + " 78p R Wh", 3: "9p 9p N"}, ("hu_robbed_gong",),
        draws="G S R 9p",
        scripts={1: Script(throws=("9p",)), 3: Script(throws=("N",), claim=frozenset({"pong", "gong"}))}),
)
# The same situations with 13-tile deals (Chinese Classical): the bot's hands one set (three tiles) shorter.
_LOOSE13 = "147m 258s 369p E S W N"
_SETS13 = "123m 456m 123s"
RUNS_13: tuple[Run, ...] = (
    Run("mo", 2, {2: _LOOSE13}, ("throw_after_mo",)),
    Run("eat2", 2, {1: "3m", 2: "124m 7m 258s 369p E S"}, ("eat_two", "throw_after_eat"),
        scripts={1: Script(throws=("3m",))}),
    Run("eat3", 2, {1: "3m", 2: "1245m 8m 258s 369p E"}, ("eat_three",), scripts={1: Script(throws=("3m",))}),
    Run("pong", 2, {1: "R", 2: "R R 147m 258s 369p E S"}, ("pong", "throw_after_pong"),
        scripts={1: Script(throws=("R",))}),
    Run("gong_melded", 3, {1: "R", 3: "R R R 147m 258s 369p E"}, ("gong_melded",),
        scripts={1: Script(throws=("R",))}),
    Run("gong_concealed", 2, {2: "R R R R 147m 258s 369p"}, ("gong_concealed",)),
    Run("gong_promoted", 2, {1: "R", 2: _SETS13 + " R R E W"}, ("gong_promoted",), draws="N G Wh R",
        scripts={1: Script(throws=("R",))}),
    Run("hu_self_draw", 2, {1: "Wh", 2: _SETS13 + " E E 78p"}, ("hu_self_draw",), draws="9p",
        scripts={1: Script(throws=("Wh",))}),
    Run("hu_throw", 2, {1: "9p", 2: _SETS13 + " E E 78p"}, ("hu_throw",), scripts={1: Script(throws=("9p",))}),
    Run("hu_robbed_gong", 2, {1: "9p", 2: _SETS13 + " 78p R Wh", 3: "9p 9p N"}, ("hu_robbed_gong",),
        draws="G S R 9p",
        scripts={1: Script(throws=("9p",)), 3: Script(throws=("N",), claim=frozenset({"pong", "gong"}))}),
)
# The bare process's first hand (``start_silent``): the dealer's loose tiles, one more than the deal.
_PROBE_HAND = {16: _LOOSE + " E S W N R G Wh 1m", 13: _LOOSE13 + " 1m"}


def runs_for(rules: Any) -> tuple[Run, ...]:
    """The crafted hands for the ruleset's family (by its deal: 16 tiles, or 13)."""
    return RUNS_13 if family_of(rules).deal_size == 13 else RUNS


ORDER: tuple[str, ...] = (
    "start_silent", "throw_after_mo", "throw_after_eat", "throw_after_pong", "eat_two", "eat_three", "pong",
    "gong_melded", "gong_concealed", "gong_promoted", "hu_self_draw", "hu_throw", "hu_robbed_gong", "pass",
    "exit_after_exit",
)
SCENARIOS = ORDER


def scenario_names() -> tuple[str, ...]:
    return ORDER


# ---------------------------------------------------------------------------------------------------- results
@dataclass(slots=True)
class ScenarioResult:
    name: str
    title: str
    passed: bool
    expected: str
    received: str | None = None  # the bot's line (or what came instead)
    ms: float | None = None
    note: str = ""
    reached: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "status": "pass" if self.passed else "fail",
                "reached": self.reached, "expected": self.expected, "received": self.received, "ms": self.ms,
                "note": self.note}


@dataclass(slots=True)
class CheckReport:
    bot: str
    kind: str  # "process" or "builtin"
    results: list[ScenarioResult] = field(default_factory=list)
    seconds: float = 0.0
    stderr_path: str | None = None  # where the bot's stderr was kept (None: it wrote nothing there)
    stderr_tail: list[str] = field(default_factory=list)  # its last lines, escaped for a terminal
    timeout: float | None = None  # the seconds per question the bot had (None: a built-in bot, no deadline)
    family: str = "taiwan16"  # the rule family its hands were dealt under (13 tiles for classical)

    @property
    def timed_out(self) -> list[str]:
        return [r.name for r in self.results if not r.passed and r.note.startswith("timeout:")]

    @property
    def ok(self) -> bool:
        return all(r.passed for r in self.results)

    @property
    def failed(self) -> list[str]:
        return [r.name for r in self.results if not r.passed]

    def to_json(self) -> dict[str, Any]:
        return {"bot": self.bot, "kind": self.kind, "family": self.family, "ok": self.ok,
                "passed": sum(r.passed for r in self.results), "failed": self.failed,
                "seconds": round(self.seconds, 3), "timeout": self.timeout, "stderr_path": self.stderr_path,
                "stderr_tail": self.stderr_tail, "scenarios": [r.to_json() for r in self.results]}


@dataclass(slots=True)
class _Asked:
    """One question the bot answered in a run."""

    q: Question
    last: Event | None  # the last event the bot was sent before the question
    answer: Answer
    line: str
    ms: float


@dataclass(slots=True)
class _RunFault:
    q: Question | None
    fault: Fault
    ms: float
    number: int  # the bot's n-th question in the hand (0: before any)
    last: Event | None = None  # the last event the bot was sent before the question


# ---------------------------------------------------------------------------------------------------- matching
def _is_target(name: str, a: _Asked | _RunFault, bot: int) -> bool:
    q, last = a.q, a.last
    if q is None:
        return False
    if name == "throw_after_mo":
        return q.ask == "throw" and isinstance(last, Mo) and last.seat == bot
    if name == "throw_after_eat":
        return q.ask == "throw" and isinstance(last, Eat) and last.seat == bot
    if name == "throw_after_pong":
        return q.ask == "throw" and isinstance(last, Pong) and last.seat == bot
    claims = [x for x in q.legal if x.kind != "pass"]
    if name == "eat_two":
        return q.ask == "eat" and len(claims) == 2
    if name == "eat_three":
        return q.ask == "eat" and len(claims) == 3
    if name == "pong":
        return q.ask == "pong"
    if name == "gong_melded":
        return q.ask == "gong" and q.tile is not None
    if name == "gong_concealed":
        return q.ask == "gong" and q.tile is None and any(x.mode == GONG_CONCEALED for x in claims)
    if name == "gong_promoted":
        return q.ask == "gong" and q.tile is None and any(x.mode == GONG_PROMOTED for x in claims)
    if name == "hu_self_draw":
        return q.ask == "hu" and q.tile is None
    if name == "hu_throw":
        return q.ask == "hu" and q.tile is not None and isinstance(last, Throw)
    if name == "hu_robbed_gong":
        return q.ask == "hu" and q.tile is not None and isinstance(last, Gong) and last.mode == GONG_PROMOTED
    return False


def _legal_text(q: Question) -> str:
    if q.ask == "throw":
        return "/throw <a tile it holds>"
    return "one of " + ", ".join(str(a) for a in q.legal)


def _declined(asked: list[_Asked], ask: str) -> bool:
    """Did the bot pass on an ``/ask <ask>`` it could have claimed?"""
    return any(a.q.ask == ask and a.answer.kind == "pass" for a in asked)


def _results_for_run(run: Run, asked: list[_Asked], fault: _RunFault | None) -> list[ScenarioResult]:
    out: list[ScenarioResult] = []
    for name in run.targets:
        t = TARGETS[name]
        hit = next((a for a in asked if _is_target(name, a, run.bot)), None)
        if fault is not None:
            q = fault.q
            where = ("at the start of the hand" if q is None
                     else f"at {format_question(q)}, the bot's question {fault.number} in this hand")
            if hit is not None:
                where += f" (the situation itself was answered `{hit.line}`)"
            # The scenario's answer, unless the bot failed at the situation itself: then the exact legal answers.
            expected = _legal_text(q) if q is not None and _is_target(name, fault, run.bot) else t.expected
            out.append(ScenarioResult(name, t.title, False, expected, fault.fault.line or None,
                                      round(fault.ms, 3), f"{fault.fault.kind}: {fault.fault.detail} {where}",
                                      reached=hit is not None))
            continue
        if hit is None:
            declined = bool(t.claim) and _declined(asked, t.claim)
            why = f"the bot passed on /ask {t.claim}" if declined else "the bot's own choices led elsewhere"
            note = f"not reached: it needs {t.needs}; {why}" if t.needs else (
                "not reached (the crafted hand did not lead here)")
            out.append(ScenarioResult(name, t.title, bool(t.needs), t.expected, None, None, note, reached=False))
            continue
        note = "legal and on time"
        if hit.answer.kind == "pass":
            note = "declined: /pass is legal here (a claim is optional)"
        out.append(ScenarioResult(name, t.title, True, _legal_text(hit.q), hit.line, round(hit.ms, 3), note))
    return out


# ---------------------------------------------------------------------------------------------------- one run
class _Scripter:
    """The three scripted seats of one run: planned throws and claims, else throw the drawn tile and pass."""

    def __init__(self, scripts: dict[int, Script]) -> None:
        self.scripts = scripts
        self.thrown: dict[int, int] = {}  # planned throws used, per seat
        self.last_mo: dict[int, int] = {}

    def answer(self, hand: Hand, q: Question) -> Answer:
        script = self.scripts.get(q.seat, Script())
        if q.ask == "throw":
            held = hand.concealed(q.seat)
            while self.thrown.get(q.seat, 0) < len(script.throws):
                kind = _kinds(script.throws[self.thrown.get(q.seat, 0)])[0]
                self.thrown[q.seat] = self.thrown.get(q.seat, 0) + 1
                for t in held:
                    if t // 10 == kind:
                        return Answer.throw(t)
            drawn = self.last_mo.get(q.seat)
            return Answer.throw(drawn if drawn is not None and drawn in held else max(held))
        if q.ask in script.claim:
            for a in q.legal:
                if a.kind != "pass":
                    return a
        return PASS


async def _play(run: Run, index: int, seat: Seat, rules: Any) -> tuple[list[_Asked], _RunFault | None]:
    wall = run.wall(rules)
    hand = Hand(wall, rules, dealer=run.dealer)
    info = HandInfo.for_seat(rules, 0, index, run.bot)
    asked: list[_Asked] = []
    fault = await seat.begin_hand(info)
    if fault is not None:
        return asked, _RunFault(None, fault, 0.0, 0)
    last: list[Event | None] = [None]
    scripter = _Scripter(run.scripts)

    def deliver(events: Sequence[Event]) -> None:
        for e in events:
            if isinstance(e, Mo):
                scripter.last_mo[e.seat] = e.tile
            if run.bot in e.audience:
                seat.deliver(e)
                last[0] = e

    deliver(hand.start())
    while not hand.is_over:
        q = hand.question
        assert q is not None
        if q.seat == run.bot:
            reply = await seat.ask(q)
            ms = reply.seconds * 1000
            if reply.fault is not None:
                await seat.abandon()
                return asked, _RunFault(q, reply.fault, ms, len(asked) + 1, last[0])
            a = reply.answer
            assert a is not None
            line = reply.line or str(a)
            if a not in q.legal:
                await seat.abandon()
                return asked, _RunFault(q, Fault("illegal", hand.explain_illegal(q, a), line), ms, len(asked) + 1,
                                        last[0])
            asked.append(_Asked(q, last[0], a, line, ms))
        else:
            a = scripter.answer(hand, q)
        deliver(hand.apply(a))
    await seat.end_hand()
    return asked, None


# ---------------------------------------------------------------------------------------------------- process probe
async def _probe(spec: BotSpec, rules: Any, timeout: float, stderr_path: Path | None) -> list[ScenarioResult]:
    """Start the bot bare: watch for output after /start, /initGame and /initCard; ask one throw; send /exit."""
    silent, exits = TARGETS["start_silent"], TARGETS["exit_after_exit"]
    pool = _Pool()
    wall = crafted_wall({1: pool.take(_PROBE_HAND[family_of(rules).deal_size])}, rules, dealer=1, filler_seed=1)
    hand = Hand(wall, rules, dealer=1)
    events = hand.start()
    with unwrap_single():
        async with trio.open_nursery() as nursery:
            seat = ProcessSeat(spec, 1, nursery, timeout=timeout, stderr_path=stderr_path)
            try:
                start_fault = await seat.begin_hand(HandInfo.for_seat(rules, 0, 0, 1))
                if start_fault is not None:
                    fail = start_fault.detail
                    return [ScenarioResult("start_silent", silent.title, False, silent.expected, None, None, fail),
                            ScenarioResult("exit_after_exit", exits.title, False, exits.expected, None, None, fail)]
                start = await _start_silent(seat, hand, events)
                if not start.passed:
                    return [start, ScenarioResult("exit_after_exit", exits.title, False, exits.expected, None, None,
                                                  "not checked: the bot failed before /exit", reached=False)]
                return [start, await _exit_after_exit(seat, spec)]
            finally:
                with trio.CancelScope(shield=True):
                    await seat.close()


async def _start_silent(seat: ProcessSeat, hand: Hand, events: list[Event]) -> ScenarioResult:
    """The hand's first lines are delivered and the bot watched: it must print nothing before it is asked, then
    answer the throw it is asked legally.  When it does, it is sent the throw's broadcast and ``/exit``."""
    silent = TARGETS["start_silent"]
    q = hand.question
    assert q is not None and q.ask == "throw"
    sent = ["/start"] + [line.split()[0] for line in (format_event(e) for e in events if 1 in e.audience) if line]
    for e in events:
        if 1 in e.audience:
            seat.deliver(e)
    try:
        await seat.flush()
        early = await seat.read_line(SILENCE_WINDOW)
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
        return ScenarioResult("start_silent", silent.title, False, silent.expected, None, None,
                              f"the pipe to the bot broke ({exc!r})")
    if early is not None:
        what = "its output closed" if early == b"" else f"it printed `{cut(early)}`"
        hint = misplaced_output_hint(early) if early != b"" else ""
        fix = f"; {hint}" if hint else ""
        return ScenarioResult("start_silent", silent.title, False, silent.expected,
                              None if early == b"" else cut(early), None,
                              f"{what} before any question (after {', '.join(sent)}){fix}")
    reply = await seat.ask(q)
    ms = round(reply.seconds * 1000, 3)
    expected = "/throw <a tile it holds>"
    if reply.fault is not None and reply.line is None:
        return ScenarioResult("start_silent", silent.title, False, expected, None, ms,
                              f"{reply.fault.kind}: {reply.fault.detail}")
    if reply.fault is not None:
        return ScenarioResult("start_silent", silent.title, False, expected, reply.line, ms,
                              f"silent until the first question, but its answer is wrong: {reply.fault.detail}")
    a = reply.answer
    assert a is not None
    if a not in q.legal:
        return ScenarioResult("start_silent", silent.title, False, expected, reply.line, ms,
                              "silent until the first question, but its answer is not legal: "
                              f"{hand.explain_illegal(q, a)}")
    for e in hand.apply(a):
        if 1 in e.audience:
            seat.deliver(e)
    seat.deliver(Exit((0, 0, 0, 0)))
    try:
        await seat.flush()
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        pass  # it ended (or closed its input) after its answer: ``exit_after_exit`` judges how it ended
    return ScenarioResult("start_silent", silent.title, True, expected, reply.line, ms,
                          "no output before the first question; then one legal answer")


async def _exit_after_exit(seat: ProcessSeat, spec: BotSpec) -> ScenarioResult:
    """After ``/exit`` the bot ends by itself within ``EXIT_WAIT`` seconds (a ``keep_alive`` bot stays up)."""
    exits = TARGETS["exit_after_exit"]
    if spec.keep_alive:
        return ScenarioResult("exit_after_exit", exits.title, True, exits.expected, None, None,
                              "n/a: the bot is configured keep_alive (it stays up for the next hand)")
    started = time.perf_counter()
    code = await seat.wait_exit(EXIT_WAIT)
    how = "exited by itself"
    if code is None:  # a match closes the bot's input right after /exit: a bot that ends there plays the same
        await seat.end_input()
        code = await seat.wait_exit(EXIT_GRACE)
        how = "exited at the end of its input, not at /exit (accepted: a match closes its input after /exit)"
    if code is None:
        return ScenarioResult("exit_after_exit", exits.title, False, exits.expected, None, None,
                              f"still running {EXIT_WAIT:g} s after /exit and {EXIT_GRACE:g} s after its input "
                              "ended: a bot exits when it reads /exit, or at the latest when its input ends")
    ms = round((time.perf_counter() - started) * 1000, 3)
    status = "exit status 0" if code == 0 else f"exit status {code}"
    return ScenarioResult("exit_after_exit", exits.title, True, exits.expected, None, ms, f"{how} ({status})")


# ---------------------------------------------------------------------------------------------------- the suite
def _pass_summary(all_asked: list[_Asked], any_fault: bool) -> ScenarioResult:
    t = TARGETS["pass"]
    passes: dict[str, int] = {}
    for a in all_asked:
        if a.answer.kind == "pass":
            passes[a.q.ask] = passes.get(a.q.ask, 0) + 1
    if not all_asked and any_fault:
        return ScenarioResult("pass", t.title, True, t.expected, None, None,
                              "nothing to check: the bot gave no answers (see the failures above)", reached=False)
    seen = ", ".join(f"/ask {k} ×{n}" for k, n in sorted(passes.items()))
    note = f"/pass accepted where it was sent: {seen}" if passes else "the bot never passed (allowed, not required)"
    return ScenarioResult("pass", t.title, True, t.expected, "/pass" if passes else None, None, note)


async def check(spec: BotSpec, *, rules: Any = DEFAULT_RULES, timeout: float | None = None,
                only: Sequence[str] | None = None, on_result: Callable[[ScenarioResult], None] | None = None,
                stderr_path: Path | None = None) -> CheckReport:
    """Run the suite (or the scenarios named in ``only``) against one bot; ``timeout``: the command line's seconds
    per question (resolved as in a match, ``seat_timeout``, and reported); ``rules``: a Taiwan ``Ruleset`` or a
    classical ruleset (its scenarios are dealt 13 tiles, ``RUNS_13``).  A process bot's stderr is appended to
    ``stderr_path`` (default: a new file in the temporary folder, removed again if the bot wrote nothing); when a
    scenario fails, the report carries its last lines and the file's place."""
    wanted = list(only) if only else list(ORDER)
    unknown = [n for n in wanted if n not in TARGETS]
    if unknown:
        raise InputError(f"unknown scenario {unknown[0]!r} (known: {', '.join(ORDER)})")
    seconds = None if spec.builtin is not None else seat_timeout(timeout, spec, rules.move_timeout)
    report = CheckReport(spec.describe(), "builtin" if spec.builtin else "process", timeout=seconds,
                         family=family_of(rules).name)
    own_file = False
    if spec.builtin is None and stderr_path is None:
        fd, name = tempfile.mkstemp(prefix="mjref-check-", suffix=".stderr")
        os.close(fd)
        stderr_path, own_file = Path(name), True
    try:
        started = time.perf_counter()
        results: dict[str, ScenarioResult] = {}

        def add(rs: list[ScenarioResult]) -> None:
            for r in rs:
                if r.name in wanted and r.name not in results:
                    results[r.name] = r
                    if on_result is not None:
                        on_result(r)

        all_asked: list[_Asked] = []
        any_fault = False
        if spec.builtin is not None:
            policy = make_policy(spec.builtin)
            for name in ("start_silent", "exit_after_exit"):
                t = TARGETS[name]
                add([ScenarioResult(name, t.title, True, t.expected, None, None,
                                    "n/a: an in-process bot has no process or output of its own")])
        elif "start_silent" in wanted or "exit_after_exit" in wanted:
            assert seconds is not None
            add(await _probe(spec, rules, seconds, stderr_path))
        with unwrap_single():
            async with trio.open_nursery() as nursery:
                seat: Seat = (BuiltinSeat(spec.name, 1, policy) if spec.builtin is not None
                              else ProcessSeat(spec, 1, nursery, timeout=seconds, stderr_path=stderr_path))
                try:
                    for i, run in enumerate(runs_for(rules)):
                        if not any(t in wanted for t in run.targets) and "pass" not in wanted:
                            continue
                        seat.position = run.bot
                        asked, fault = await _play(run, i, seat, rules)
                        all_asked.extend(asked)
                        any_fault = any_fault or fault is not None
                        add(_results_for_run(run, asked, fault))
                finally:
                    with trio.CancelScope(shield=True):
                        await seat.close()
        if "pass" in wanted:
            add([_pass_summary(all_asked, any_fault)])
        report.results = [results[n] for n in ORDER if n in results]
        report.seconds = time.perf_counter() - started
    except BaseException:  # stopped (Ctrl-C) or failed: the temporary file goes, unless the bot wrote to it
        if own_file and stderr_path is not None and stderr_path.exists() and stderr_path.stat().st_size == 0:
            stderr_path.unlink(missing_ok=True)
        raise
    if stderr_path is not None:
        _keep_stderr(report, stderr_path, remove_if_empty=own_file)
    return report


def _keep_stderr(report: CheckReport, path: Path, *, remove_if_empty: bool) -> None:
    """Name the bot's stderr file in the report, with its last lines when a scenario failed."""
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):  # /dev/null, /dev/zero: written to, never read back (it would never end)
            return
        size = st.st_size
        with path.open("rb") as f:
            f.seek(max(0, size - 64 * STDERR_LINES * 8))
            tail = f.read(64 * STDERR_LINES * 8)
    except OSError:
        return
    if size == 0:
        if remove_if_empty:
            path.unlink(missing_ok=True)
        return
    report.stderr_path = str(path)
    if not report.ok:
        lines = tail.decode("utf-8", "replace").rstrip("\n").split("\n")[-STDERR_LINES:]
        report.stderr_tail = [printable(line.rstrip("\r"))[:300] for line in lines]


def run_check(spec: BotSpec, *, rules: Any = DEFAULT_RULES, timeout: float | None = None,
              start_grace: float | None = None, only: Sequence[str] | None = None,
              on_result: Callable[[ScenarioResult], None] | None = None,
              stderr_path: Path | None = None) -> CheckReport:
    """Synchronous wrapper.  ``rules``: either family's ruleset (``referee.rulesets.playable_rules``);
    ``timeout``: seconds per question; ``start_grace``: extra seconds for a hand's first question (defaults: the
    ruleset's, 10 s and 10 s, as in a match)."""
    if start_grace is not None:
        from referee.rulesets import with_match_options

        rules = with_match_options(rules, start_grace=start_grace)
    return trio.run(lambda: check(spec, rules=rules, timeout=timeout, only=only, on_result=on_result,
                                  stderr_path=stderr_path))

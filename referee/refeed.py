"""Refeed: put a bot in one seat of a logged match and ask it every question that seat was asked.

The engine is re-driven from the log (:class:`referee.replay.LogWalker`: the logged walls and answers, checked as
it goes).  The bot under test gets exactly what that seat was sent, through a real ``Seat`` (``BuiltinSeat``
in-process, ``ProcessSeat`` for an executable, in a trio nursery as in a match); the other seats' answers come
from the log.  At each of the seat's questions the bot's answer is compared with the logged one; the first
answer that differs, is illegal, or does not come (a fault), ends the refeed with a :class:`Mismatch` that shows
the bot's hand at that point.

Logged faults of the refed seat (decision, also in docs/authoring.md): when the log shows that the seat's bot
faulted at a question, the bot under test is asked that question too.  If it faults as well, the fault is
reproduced when it is of the same kind (``garbage``, ``timeout``, …); an answer, or a fault of another kind, is a
mismatch ("the log has a fault here").  Either way the rest of that hand
is not compared: in the match the default dummy answered for the seat from there on, and the bot under test is
ended as the referee ended the faulty bot (it gets ``/exit``).  A seat that failed to start in the log is not
compared in that hand.  The next hand starts the bot again, as a match does, until the log shows that the seat's
bot forfeited the match (``max_faults``): from that hand on nothing is compared.

Built-in bots reseed per hand from (match seed, hand, seat) through ``Policy.start_hand``, so the refeed of a
built-in bot with the log's seed reproduces its log exactly.  A process bot seeds itself: ``python -m bots.X``
takes ``--seed`` (give the log's seed) and numbers hands from ``/initGame``'s winds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from bots.base import make_policy
from referee.aio import unwrap_single
from referee.errors import InputError
from referee.game.types import Answer, Meld, Question
from referee.replay import Divergence, FaultSeen, HandBegin, HandEnd, LogWalker, Step
from wrappers.process import ProcessSeat
from wrappers.seat import BuiltinSeat, Fault, HandInfo, Reply, Seat
from wrappers.spec import BotSpec, seat_timeout

__all__ = ["Mismatch", "RefeedError", "RefeedReport", "refeed", "run_refeed"]


class RefeedError(InputError):
    """The refeed cannot run: the log is not replayable, or the seat or hand does not exist."""


@dataclass(slots=True)
class Mismatch:
    """The first question where the bot's answer is not the logged one."""

    hand: int  # 0-based
    line: int  # the log line of the logged answer (or fault)
    question: Question
    logged: str  # the logged answer, or "fault <kind>: <detail>"
    got: str | None  # the bot's answer (None: it faulted)
    fault: Fault | None
    concealed: tuple[int, ...]
    melds: tuple[Meld, ...]
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "hand": self.hand + 1, "line": self.line, "ask": self.question.ask, "tile": self.question.tile,
            "legal": [str(a) for a in self.question.legal], "logged": self.logged, "got": self.got,
            "fault": None if self.fault is None else {"kind": self.fault.kind, "detail": self.fault.detail,
                                                      "line": self.fault.line},
            "concealed": list(self.concealed),
            "melds": [{"type": m.type, "tiles": list(m.tiles)} for m in self.melds], "reason": self.reason,
        }


@dataclass(slots=True)
class RefeedReport:
    path: Path
    seat: int
    bot: str
    seed: int
    hands: list[int] = field(default_factory=list)  # 0-based hands fed
    questions: int = 0
    matched: int = 0
    bot_seconds: float = 0.0
    timeout: float | None = None  # the bot's seconds per question (None: a built-in bot, no deadline)
    notes: list[str] = field(default_factory=list)
    mismatch: Mismatch | None = None

    @property
    def ok(self) -> bool:
        return self.mismatch is None

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "log": str(self.path), "seat": self.seat, "bot": self.bot, "seed": self.seed,
                "hands": [h + 1 for h in self.hands], "questions": self.questions, "matched": self.matched,
                "mean_answer_ms": round(1000 * self.bot_seconds / self.questions, 3) if self.questions else 0.0,
                "timeout": self.timeout,
                "notes": self.notes, "mismatch": self.mismatch.to_json() if self.mismatch else None}


def _why(a: Answer, q: Question, concealed: tuple[int, ...]) -> str:
    """Why ``a`` is not legal (the engine's own reasons need its state before the answer, which has moved on)."""
    if a.kind == "pass" and q.ask == "throw":
        return "/pass is not allowed: /ask throw must be answered with /throw"
    if a.kind != q.ask and a.kind != "pass":
        return f"/{a.kind} does not answer /ask {q.ask}"
    missing = [t for t in a.tiles if t not in concealed]
    if missing and not (a.kind == "gong" and a.mode == 1):
        return f"tile{'s' if len(missing) > 1 else ''} {' '.join(map(str, missing))} not in the hand"
    return f"{a} is not one of the legal answers"


def _check(reply: Reply, q: Question, concealed: tuple[int, ...]) -> tuple[Answer | None, Fault | None]:
    if reply.fault is not None:
        return None, reply.fault
    a = reply.answer
    assert a is not None
    if a not in q.legal:
        return None, Fault("illegal", _why(a, q, concealed), reply.line or str(a))
    return a, None


async def refeed(path: Path | str, seat: int, spec: BotSpec, *, hand: int | None = None,
                 timeout: float | None = None, stderr_path: Path | None = None) -> RefeedReport:
    """Feed ``spec`` the questions seat ``seat`` was asked in the log (only 0-based ``hand`` if given).

    The bot's seconds per question: ``timeout`` (the command line's) over the bot file's over the seconds the seat
    had in the logged match (its header's ``timeout``; an older log: its rules' ``move_timeout``), resolved by
    ``seat_timeout`` as in a match."""
    if seat not in (1, 2, 3, 4):
        raise RefeedError(f"seat {seat}: seats are 1..4")
    if stderr_path is not None and spec.cmd is not None:
        if stderr_path.is_dir():
            raise RefeedError(f"{stderr_path}: is a directory; give the stderr file a name")
        try:
            stderr_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            stderr_path.open("ab").close()
        except OSError as exc:
            raise RefeedError(f"{stderr_path}: cannot write the bot's stderr there ({exc.strerror or exc})") from None
    walker = LogWalker(path, keep_before=seat)
    header, rules = walker.header, walker.rules
    if hand is not None and not 0 <= hand < header.hands:
        raise RefeedError(f"hand {hand + 1}: {path} plans {header.hands} hands")
    report = RefeedReport(walker.path, seat, spec.describe(), header.seed)
    if spec.builtin is None:
        logged = header.seats[seat - 1].timeout
        report.timeout = seat_timeout(timeout, spec, logged if logged is not None else rules.move_timeout)
    if spec.builtin is not None:
        policy = make_policy(spec.builtin)
    with unwrap_single():
        async with trio.open_nursery() as nursery:
            bot: Seat
            if spec.builtin is not None:
                bot = BuiltinSeat(spec.name, seat, policy)
            else:
                bot = ProcessSeat(spec, seat, nursery, stderr_path=stderr_path, timeout=report.timeout)
            try:
                await _walk(walker, bot, seat, hand, report, rules)
            finally:
                with trio.CancelScope(shield=True):
                    await bot.close()
    return report


async def _walk(walker: LogWalker, bot: Seat, seat: int, only: int | None, report: RefeedReport,
                rules: Any) -> None:
    feeding = False  # this hand is fed to the bot
    comparing = False  # and its answers are still compared
    start_fault: Fault | None = None
    index = -1
    try:
        for item in walker.items():
            if isinstance(item, HandBegin):
                index = item.index
                feeding = comparing = only is None or index == only
                start_fault = None
                if not feeding:
                    continue
                if seat in walker.forfeited:  # the stand-in played the whole hand: the bot was not started
                    report.notes.append(f"hand {index + 1}: the logged bot had forfeited the match; this hand is "
                                        "not compared")
                    feeding = comparing = False
                    continue
                report.hands.append(index)
                info = HandInfo.for_seat(rules, walker.header.seed, index, seat)
                start_fault = await bot.begin_hand(info)
                for e in item.events:
                    if seat in e.audience:
                        bot.deliver(e)
            elif isinstance(item, FaultSeen):
                if not comparing or item.seat != seat:
                    continue
                if item.question is None:  # the logged bot did not start: nothing to compare in this hand
                    report.notes.append(f"hand {index + 1}: the logged bot failed before its first question "
                                        f"({item.kind}); this hand is not compared")
                    comparing = False
                    await bot.abandon()
                    continue
                if await _logged_fault(walker, bot, seat, item, report):
                    return
                comparing = False
            elif isinstance(item, Step):
                if not feeding:
                    continue
                q = item.question
                if comparing and q.seat == seat:
                    if start_fault is not None:
                        report.mismatch = Mismatch(item.index, item.line, q, str(item.answer), None, start_fault,
                                                   item.before or (), item.before_melds or (),
                                                   f"the bot failed to start ({start_fault.detail})")
                        return
                    if await _compare(walker, bot, seat, item, report):
                        return
                for e in item.events:
                    if seat in e.audience and comparing:
                        bot.deliver(e)
            elif isinstance(item, HandEnd):
                if feeding and comparing:
                    await bot.end_hand()
                feeding = comparing = False
                if only is not None and item.index >= only:
                    return
    except Divergence as d:
        raise RefeedError(f"{walker.path} does not replay ({d.message}); see mjref replay") from None


async def _compare(walker: LogWalker, bot: Seat, seat: int, step: Step, report: RefeedReport) -> bool:
    """Ask the bot ``step``'s question; True (and the report's mismatch set) when it differs from the log."""
    q = step.question
    report.questions += 1
    reply = await bot.ask(q)
    report.bot_seconds += reply.seconds
    before, melds = step.before or (), step.before_melds or ()
    answer, fault = _check(reply, q, before)
    if fault is not None:
        report.mismatch = Mismatch(step.index, step.line, q, str(step.answer), None, fault, before, melds,
                                   f"the bot faulted ({fault.kind}: {fault.detail}); the log has `{step.answer}`")
        await bot.abandon()
        return True
    if answer != step.answer:
        report.mismatch = Mismatch(step.index, step.line, q, str(step.answer), str(answer), None, before, melds,
                                   f"the bot answered `{answer}`; the log has `{step.answer}`")
        await bot.abandon()
        return True
    report.matched += 1
    return False


async def _logged_fault(walker: LogWalker, bot: Seat, seat: int, f: FaultSeen, report: RefeedReport) -> bool:
    """The log has a fault of this seat at the pending question: ask the bot too.  True on a mismatch."""
    hand = walker.hand
    assert hand is not None and hand.question is not None
    q = hand.question
    report.questions += 1
    reply = await bot.ask(q)
    report.bot_seconds += reply.seconds
    concealed, melds = tuple(hand.concealed(seat)), tuple(hand.melds(seat))
    answer, fault = _check(reply, q, concealed)
    logged = f"fault {f.kind}: {f.detail}"
    await bot.abandon()
    if fault is None:
        report.mismatch = Mismatch(f.index, f.line, q, logged, str(answer), None, concealed, melds,
                                   f"the log has a fault ({f.kind}) here; the bot answered `{answer}`")
        return True
    if fault.kind != f.kind:
        report.mismatch = Mismatch(f.index, f.line, q, logged, None, fault, concealed, melds,
                                   f"the log has a fault ({f.kind}) here; the bot faulted differently "
                                   f"({fault.kind}: {fault.detail})")
        return True
    report.matched += 1
    report.notes.append(f"hand {f.index + 1}, line {f.line}: the logged fault ({f.kind}) is reproduced; "
                        f"the dummy's answers that follow in this hand are not compared")
    return False


def run_refeed(path: Path | str, seat: int, spec: BotSpec, **kwargs: Any) -> RefeedReport:
    """Synchronous wrapper: ``trio.run(refeed, …)``."""
    return trio.run(lambda: refeed(path, seat, spec, **kwargs))

"""The one interface the match talks to: a ``Seat``.

A seat is told the events its position may see (``deliver``, synchronous: it only buffers or folds), is asked
questions (``ask``, with a deadline), and is told when a hand begins and ends.  ``BuiltinSeat`` runs a policy
in-process on a ``SeatView`` folded from the same events a process would receive; ``ProcessSeat``
(``wrappers.process``) speaks the ICGA protocol to an executable.

Faults are values, not exceptions: ``ask`` returns a ``Reply`` that carries either an answer or a ``Fault``.
"""

from __future__ import annotations

import functools
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from referee.game.types import Answer, Event, Question
from referee.game.view import SeatView, new_view
from referee.game.wall import bot_seed

from .codec import format_event, throw_or_draw_line

if TYPE_CHECKING:  # the ruleset is a pydantic model: a bot process (``python -m bots.greedy``) must not import it
    from referee.game.engine import HandResult
    from referee.game.taiwan16.rules import Ruleset

FaultKind = Literal[
    "start_failed",  # the executable could not be started
    "crash",  # the process exited (or was killed by a signal) before answering
    "resource",  # a limit of its box ended it: CPU (all its processes together), memory, processes, scratch space
    "closed",  # stdout closed or stdin broken while the process lives
    "timeout",  # no answer before the deadline
    "line_too_long",  # a stdout line longer than the cap
    "garbage",  # a line that does not parse
    "wrong_answer",  # a command that does not answer the question asked
    "illegal",  # TIDs the bot does not hold, or that do not make the claimed set
    "false_hu",  # /hu on a hand that does not win
    "unasked",  # a line when no question was asked
    "disconnected",  # a remote seat's connection dropped (or was not back) when it was needed
    "forfeit",  # max_faults reached: the bot is not started again, the stand-in plays every remaining hand
]
FAULT_KINDS: tuple[str, ...] = FaultKind.__args__  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class Fault:
    kind: FaultKind
    detail: str
    line: str | None = None  # the offending line, cut to a safe length


@dataclass(slots=True)  # not frozen: one is made per question, and a frozen __init__ costs twice as much
class Reply:
    """A seat's reply to one question: an answer, or a fault; ``seconds`` how long it took.

    ``line`` is the answer's canonical line (the offending line for a fault); ``raw`` the line exactly as the bot
    sent it (without its ``\\n``), when that is not the canonical line (``/eat 350 341`` for ``/eat 341 350``)."""

    answer: Answer | None
    seconds: float
    line: str | None = None
    fault: Fault | None = None
    raw: str | None = None


@runtime_checkable
class Policy(Protocol):
    """A built-in bot: a pure function of one seat's view and the question (see ``bots/``)."""

    name: str

    def start_hand(self, seed: int, hand: int, position: int) -> None: ...

    def decide(self, view: SeatView, ask: str, legal: Sequence[Answer]) -> Answer: ...


# A seat's bot seed is a SHA-256, the same every hand of a match: kept for the seats of the last few matches (a
# bounded cache: a runner that plays a million matches keeps no more).
_bot_seed = functools.lru_cache(maxsize=16)(bot_seed)


@dataclass(frozen=True, slots=True)
class HandInfo:
    """What a seat is told when a hand begins.  ``seed`` is the seat's own bot seed (``wall.bot_seed``), never the
    match seed: a policy given the match seed could rebuild the wall."""

    seed: int
    index: int
    position: int
    flowers: bool
    dead_wall: int
    gong_from_previous_player: bool
    seven_pairs_and_pung: bool
    timeout: float
    start_grace: float
    human_timeout: float = 60.0  # a person's seconds per question (the ruleset's ``human_timeout``)
    more: bool = False  # another hand of the match follows this one (a process seat starts its process meanwhile)

    def new_view(self) -> SeatView:
        """A fresh view of this seat for the hand (built-in bots and a person's page fold their events into it)."""
        return new_view(self.position, flowers=self.flowers, dead_wall=self.dead_wall,
                        gong_from_previous_player=self.gong_from_previous_player,
                        seven_pairs_and_pung=self.seven_pairs_and_pung)

    @classmethod
    def for_seat(cls, rules: Ruleset, match_seed: int, index: int, position: int, *, more: bool = False
                 ) -> HandInfo:
        return cls(_bot_seed(match_seed, position), index, position, rules.flowers, rules.dead_wall,
                   rules.gong_from_previous_player, rules.seven_pairs_and_pung, rules.move_timeout, rules.start_grace,
                   rules.human_timeout, more)


class Seat(ABC):
    """One position at the table for one match."""

    name: str
    position: int
    kind: str = "seat"
    rtt_ms: float | None = None  # a remote seat: the last round trip to its wrapper (logged), None for local seats

    @abstractmethod
    async def begin_hand(self, info: HandInfo) -> Fault | None:
        """Get ready for a hand (a process seat starts its process and sends ``/start MJ``)."""

    @abstractmethod
    def deliver(self, event: Event) -> None:
        """An event this seat may see.  Must not block: process seats buffer and send with the next question."""

    def delivered(self) -> None:
        """After each step's events: a seat that ``posts_early`` sends what its peer may see now, without waiting
        (mj-server's clients decide their claims as the discard comes, and think while the others are asked)."""

    posts_early = False  # whether ``Deliveries`` calls ``delivered`` after each step

    def line_sink(self) -> tuple[list[str], frozenset[str]] | None:
        """A seat that sends its events as protocol lines: the list it gathers them in until the next send, and the
        protocol extensions of its lines; ``Deliveries`` then appends each line there itself, formatted once for
        every such seat, instead of calling ``deliver``.  None (the default): ``deliver`` each event."""
        return None

    @abstractmethod
    async def ask(self, question: Question) -> Reply:
        """Ask a question; the seat enforces its own deadline and returns a Reply (never raises for bot faults)."""

    @abstractmethod
    async def end_hand(self) -> None:
        """The hand is over (``/exit`` was delivered): flush and, for per-hand processes, stop the process."""

    def end_hand_nowait(self) -> bool:
        """``end_hand`` if it can be done at once without waiting (True), else nothing (False: await ``end_hand``)."""
        return False

    def question_timeout(self, info: HandInfo) -> float | None:
        """The seconds per question this seat's player has in the hand ``info`` begins (logged in the header); None:
        a policy in this process, which has no deadline."""
        return None

    def hand_over(self, result: HandResult) -> None:
        """The hand's result, as soon as the engine has it (before ``end_hand``): for a seat whose protocol tells
        its client the scores with their explanation (an xmj seat)."""

    async def hand_result(self, record: dict[str, Any]) -> None:
        """The hand's result as the log records it (public once the hand is over), after the hand ended; only
        seats that show it to someone (a person's page) use it."""

    async def abandon(self) -> None:
        """After a fault: send ``/exit`` and end the bot's processes at once.  The dummy takes over the hand."""
        await self.end_hand()

    async def prepare(self) -> None:
        """Before the match's first hand, beside the other seats' (the match prepares them all at once): what a
        seat can ready ahead, such as a process seat's box.  A failure is left for the first hand to report."""

    async def close(self) -> None:
        """The match is over (or cancelled): release everything."""


class BuiltinSeat(Seat):
    """A policy playing in-process, on the view built from the events it is delivered and nothing else."""

    kind = "builtin"

    def __init__(self, name: str, position: int, policy: Policy) -> None:
        self.name = name
        self.position = position
        self.policy = policy
        self.view: SeatView = new_view(position)

    async def begin_hand(self, info: HandInfo) -> Fault | None:
        self.start(info)
        return None

    def start(self, info: HandInfo) -> None:
        """A fresh view for the hand, and the policy reseeded with this seat's bot seed."""
        self.view = info.new_view()
        self.policy.start_hand(info.seed, info.index, self.position)

    def deliver(self, event: Event) -> None:
        self.view.apply(event)

    def decide(self, question: Question) -> Answer:
        """The policy's answer (exceptions propagate: see ``reply``).  A ``declare`` question (asked only of a seat
        that declares its sets, which a stand-in may take over) is answered with its first legal answer: a loser
        shows its tiles, a winner declares the first set of an arrangement that completes its hand."""
        if question.ask == "declare":
            return question.legal[0]
        return self.policy.decide(self.view, question.ask, question.legal)

    def reply(self, question: Question) -> Reply:
        """Synchronous ask (the match's fast path): the decision, timed; a policy that raises is a ``crash``
        fault of this bot, as a process that dies would be."""
        started = time.perf_counter()
        try:
            answer = self.decide(question)
        except Exception as exc:  # noqa: BLE001 - a bug in a bot is the bot's fault, not the referee's
            fault = Fault("crash", f"the policy raised {type(exc).__name__}: {exc}")
            return Reply(None, time.perf_counter() - started, fault=fault)
        return Reply(answer, time.perf_counter() - started)

    async def ask(self, question: Question) -> Reply:
        return self.reply(question)

    async def end_hand(self) -> None:
        return None

    def end_hand_nowait(self) -> bool:
        return True


class Deliveries:
    """Where a hand's events go: to each seat, those its position may see, in order.  A seat with a ``line_sink``
    (a process seat) gets each event's protocol line appended to its outbox, the line formatted once for all the
    seats whose lines have the same extensions; the others are delivered the event.  The match calls ``deliver``
    once per step of the engine."""

    __slots__ = ("_seats", "_targets", "_outboxes", "_early")

    def __init__(self) -> None:
        self._seats: dict[int, Seat] = {}
        # the seats that post early (``Seat.posts_early``), in the order they post after a step, by the seat served
        # first (the one asked next): from that seat round the table, so that the player the game waits for gets
        # its messages first and the others wake after it; then the other seats delivered events
        self._early: dict[int | None, tuple[Seat, ...]] = {}
        # per audience (the engine shares a few frozensets): the outboxes' appends grouped by extensions, and the
        # seats delivered the event
        self._targets: dict[frozenset[int], _Targets] = {}
        # per audience whose seats all have outboxes: their appends (a throw's or a draw's line goes to each as is)
        self._outboxes: dict[frozenset[int], tuple[Callable[[str], None], ...]] = {}

    def seat(self, position: int, seat: Seat) -> None:
        """From now on the events of ``position`` go to ``seat`` (a hand's seat, or the stand-in taking over)."""
        self._seats[position] = seat
        self._targets.clear()
        self._outboxes.clear()
        # the seats delivered events (no line sink), the early ones first, from each seat round the table
        early = [(p, x) for p, x in sorted(self._seats.items()) if x.posts_early]
        late = tuple(x for _, x in sorted(self._seats.items()) if not x.posts_early and x.line_sink() is None)
        self._early = {None: (*(x for _, x in early), *late)}
        if early:
            for first in (1, 2, 3, 4):
                self._early[first] = (*(x for _, x in sorted(early, key=lambda px: (px[0] - first) % 4)), *late)

    def _targets_for(self, audience: frozenset[int]) -> _Targets:
        groups: dict[frozenset[str], list[Callable[[str], None]]] = {}
        delivered: list[Seat] = []
        for p in sorted(audience):
            seat = self._seats.get(p)
            if seat is None:
                continue
            sink = seat.line_sink()
            if sink is None:
                delivered.append(seat)
            else:
                groups.setdefault(sink[1], []).append(sink[0].append)
        targets = (tuple((extensions, tuple(appends)) for extensions, appends in groups.items()), tuple(delivered))
        self._targets[audience] = targets
        if not delivered:
            self._outboxes[audience] = tuple(append for _extensions, appends in targets[0] for append in appends)
        return targets

    def deliver(self, events: Sequence[Event], first: int | None = None) -> None:
        """The step's events to the seats: each process seat's lines first; then seat by seat, the early ones from
        ``first`` (the seat the game asks next; by default the seat of the step's last event) round the table, each
        seat all its events, then (an early seat) what it posts: the player the game waits for is sent its draw, or
        its deal, before the others' events are even translated."""
        outboxes = self._outboxes
        targets = self._targets
        pending: list[tuple[Event, tuple[Seat, ...]]] | None = None
        for e in events:
            appends = outboxes.get(e.audience)
            if appends is not None:
                line = throw_or_draw_line(e)  # the same for every seat, whatever its extensions
                if line is not None:
                    for append in appends:
                        append(line)
                    continue
            sinks, delivered = targets.get(e.audience) or self._targets_for(e.audience)
            for extensions, appends in sinks:
                text = format_event(e, extensions=extensions)
                if text is not None:
                    for append in appends:
                        append(text)
            if delivered:
                if pending is None:
                    pending = []
                pending.append((e, delivered))
        early = self._early
        if len(early) == 1:  # no seat posts early (a table of built-ins and processes): event by event
            if pending is not None:
                for e, delivered in pending:
                    for seat in delivered:
                        seat.deliver(e)
            return
        if first is None and events:
            first = getattr(events[-1], "seat", None)
        order = early.get(first)
        for seat in order or early[None]:
            if pending is not None:
                for e, delivered in pending:
                    if seat in delivered:
                        seat.deliver(e)
            if seat.posts_early:
                seat.delivered()


_Targets = tuple[tuple[tuple[frozenset[str], tuple[Callable[[str], None], ...]], ...], tuple[Seat, ...]]


def builtin_takeover(name: str, position: int, policy: Policy, info: HandInfo, events: Sequence[Event]) -> BuiltinSeat:
    """The stand-in (the ruleset's ``default_dummy``) taking over a seat mid-hand, or from a hand's start after a
    forfeit: a fresh view caught up on what the seat was told."""
    seat = BuiltinSeat(name, position, policy)
    seat.start(info)
    for e in events:
        seat.view.apply(e)
    return seat


PolicyFactory = Callable[[str], Policy]

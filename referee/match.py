"""One match, in trio: four seats, the engine loop, the log.

The loop is the whole referee: ask the engine what it needs, route the question to the seat, apply the answer,
deliver each event to the seats allowed to see it, write the log.  A match is one nursery: no bot process, task
or file outlives it, whether it ends normally, by a fault, a timeout or a cancellation.

A bot's fault is a result, not an error, and it never pays: the fault is logged, the bot gets ``/exit`` and its
process group is ended, and the stand-in (the ruleset's ``default_dummy``, by default ``dead_hand``, which never
claims and never wins) plays that seat to the end of the hand, caught up on exactly what the seat had been told.
The seat pays the fault penalty to the other three in that hand's settlement.  The next hand starts the bot again,
until it has faulted ``max_faults`` times: then it forfeits the rest of the match (one ``forfeit`` fault; it is not
started again, the stand-in plays its seat and it pays the penalty in every remaining hand).  All of this goes
through one function, ``take_over``.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from bots.base import BUILTIN_NAMES, DEFAULT_DUMMY, make_policy, parse_spec
from referee.aio import unwrap_single
from referee.errors import BotError, InputError
from referee.game.engine import Hand, HandResult, IllegalAnswer
from referee.game.family import family_of
from referee.game.match_options import fault_settlement
from referee.game.series import HandSetup, Series
from referee.game.taiwan16.rules import DEFAULT_RULES, Ruleset
from referee.game.types import Event
from referee.game.wall import Wall, check_seed, generate_wall
from referee.log import (
    LogWriter,
    NullWriter,
    aborted_record,
    answer_line,
    answer_ms,
    event_line,
    fault_record,
    final_record,
    hand_record,
    header_record,
    result_record,
    seat_info,
)
from referee.results import SeatResult, rank_places
from referee.shutdown import Shutdown, watching_signals
from wrappers.process import BLOCK_MS, BoxPool, ProcessSeat
from wrappers.sandbox import hide_from_bots, unhide
from wrappers.seat import BuiltinSeat, Deliveries, Fault, HandInfo, Seat, builtin_takeover
from wrappers.spec import BotSpec, SpecError, check_protocol_family, parse_bot


class MatchError(InputError):
    """A match that cannot be set up (bad bots, bad walls); the message says which and why."""


@dataclass(frozen=True, slots=True)
class FaultInfo:
    position: int
    hand: int
    kind: str
    detail: str
    question: str | None = None
    line: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"position": self.position, "hand": self.hand, "kind": self.kind, "detail": self.detail,
                "question": self.question, "line": self.line}


@dataclass(slots=True)
class HandSummary:
    index: int
    setup: HandSetup
    result: HandResult
    penalties: tuple[int, int, int, int]
    totals: tuple[int, int, int, int]
    faults: list[FaultInfo]

    def to_json(self) -> dict[str, Any]:
        r = self.result
        return {
            "index": self.index,
            "dealer": self.setup.dealer,
            "round_wind": self.setup.round_wind,
            "hand_wind": self.setup.hand_wind,
            "outcome": r.outcome,
            "winner": r.wins[0].seat if r.wins else None,
            "winners": [w.seat for w in r.wins],
            "how": r.wins[0].how if r.wins else None,
            "tai": r.wins[0].score.tai if r.wins else 0,
            "scores": list(r.scores),
            "penalties": list(self.penalties),
            "totals": list(self.totals),
        }


@dataclass(slots=True)
class MatchResult:
    seed: int
    seats: list[SeatResult]
    hands: list[HandSummary] = field(default_factory=list)
    faults: list[FaultInfo] = field(default_factory=list)
    log_path: Path | None = None
    seconds: float = 0.0
    play_digest: str = ""
    """A hash of how the match was played: every answer in order (seat, question, the answer line, by the bot or
    its stand-in) and every fault, hand by hand.  Two matches on the same walls with the same digest were played
    identically, answer for answer; ``mjref regress`` calls two bots identical on that evidence."""
    aborted: str | None = None  # the signal that stopped the match before its end (its log ends ``aborted``)

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(int(s.points) for s in self.seats)

    def __post_init__(self) -> None:
        for s, rank in zip(self.seats, rank_places(self.totals), strict=True):
            s.rank = rank

    def ranks(self) -> list[float]:
        """Rank per seat, 1 = most points; ties share the mean of their places."""
        return [s.rank for s in self.seats]

    def add_hand(self, summary: HandSummary) -> None:
        """Count a finished hand into the seats' results: totals, ranks so far, wins, self-draws, deal-ins."""
        self.hands.append(summary)
        wins = summary.result.wins
        for s, total in zip(self.seats, summary.totals, strict=True):
            s.points = total
            s.hands += 1
        for w in wins:
            seat = self.seats[w.seat - 1]
            seat.wins += 1
            if w.how in ("self_draw", "flowers"):
                seat.self_draws += 1
        for thrower in {w.thrower for w in wins if w.thrower is not None}:  # one deal-in per throw
            self.seats[thrower - 1].deal_ins += 1
        for s, rank in zip(self.seats, rank_places(summary.totals), strict=True):
            s.rank = rank

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "seats": [
                {"position": s.position, "name": s.bot, "spec": s.spec, "total": s.points, "faults": s.faults,
                 "mean_answer_ms": s.mean_answer_ms, "max_answer_ms": round(1000 * s.max_answer_seconds, 3)}
                for s in self.seats
            ],
            "hands": [h.to_json() for h in self.hands],
            "faults": [f.to_json() for f in self.faults],
            "log": str(self.log_path) if self.log_path else None,
        }


def resolve_bots(texts: Sequence[str], default: str = DEFAULT_DUMMY) -> list[BotSpec]:
    """Turn up to four BOT arguments into four specs; missing seats get ``default`` (``bots.base.seat_filler``)."""
    if len(texts) > 4:
        raise MatchError(f"at most four bots, got {len(texts)}")
    names = set(BUILTIN_NAMES)
    try:
        specs = [parse_bot(t, names) for t in texts]
    except SpecError as exc:
        raise MatchError(str(exc)) from None
    while len(specs) < 4:
        specs.append(BotSpec(name=default, builtin=default))
    check_specs(specs)
    return specs


def check_match(specs: Sequence[BotSpec], seed: int, rules: Ruleset, *, remote: bool = False) -> None:
    """Everything about a match's seats, seed and rules that refuses it (MatchError), checked before it writes
    anything: ``run_match`` checks it, and a command calls it before it makes its output folders.  ``remote``: a
    remote seat has a wrapper to log in (``mjref serve``)."""
    if len(specs) != 4:
        raise MatchError(f"a match needs four seats, got {len(specs)}")
    check_seed(seed)
    check_specs(specs)
    try:
        make_policy(rules.default_dummy)
    except BotError as exc:
        raise MatchError(f"rule option 'default_dummy': {exc}") from None
    family = family_of(rules)
    for spec in specs:
        if not remote:
            refuse_remote(spec)
        try:
            spec.check_runnable()
            check_protocol_family(spec, family.name)
        except SpecError as exc:
            raise MatchError(str(exc)) from None


def refuse_remote(spec: BotSpec, where: str = "play it with `mjref serve`") -> None:
    """A ``remote:NAME`` bot (or a bot file with ``remote = true``) has no command to run here: MatchError, saying
    ``where`` it is played."""
    if spec.remote:
        raise MatchError(f"bot {spec.describe()!r} waits for a wrapper to log in: {where}")


def resolve_local_bot(text: str, command: str) -> BotSpec:
    """One BOT argument for a command that runs the bot here itself (``check``, ``refeed``)."""
    spec = resolve_bots([text])[0]
    refuse_remote(spec, f"{command} runs a built-in bot, a command line or a bot file here")
    return spec


def check_specs(specs: Sequence[BotSpec]) -> None:
    """Every built-in bot's name and parameters are known and in range (``greedy:chowness=5`` is refused here, before
    any match starts, not by a seat half-way through a tournament); :class:`MatchError` naming the bot."""
    for spec in specs:
        if spec.builtin is not None:
            try:
                parse_spec(spec.builtin)
            except BotError as exc:
                raise MatchError(str(exc)) from None


def table_names(specs: Sequence[BotSpec]) -> list[str]:
    """Seat names for display, all different: a name used by several seats gets its seat's number (``greedy#2`` sits
    in seat 2; ``mjref match ./mybot`` is mybot, greedy#2, greedy#3, greedy#4), or, when another seat is named
    with that already (a bot file named ``greedy#2``), the seat's number plus 4, 8…"""
    names = [s.name for s in specs]
    counts = {n: names.count(n) for n in names}
    used = set(names)
    out = []
    for p, n in enumerate(names, start=1):
        if counts[n] > 1:
            k = p  # the seat's own number: greedy#2 sits in seat 2
            while f"{n}#{k}" in used:
                k += 4
            used.add(f"{n}#{k}")
            out.append(f"{n}#{k}")
        else:
            out.append(n)
    return out


HandCallback = Callable[[HandSummary, "MatchResult"], None]
RemoteSeats = Callable[[BotSpec, int], Seat]
"""Makes the seat for a ``remote`` bot spec at a position (``referee.server`` provides it)."""


async def run_match(
    specs: Sequence[BotSpec],
    *,
    seed: int = 0,
    rules: Ruleset = DEFAULT_RULES,
    walls: Sequence[Wall] | None = None,
    log_path: Path | None = None,
    stderr_dir: Path | None = None,
    timeout: float | None = None,
    on_hand: HandCallback | None = None,
    on_fault: Callable[[FaultInfo], None] | None = None,
    on_seat: Callable[[Seat], None] | None = None,
    block_ms: float = BLOCK_MS,
    remote: RemoteSeats | None = None,
    shutdown: Shutdown | None = None,
    boxes: BoxPool | None = None,
) -> MatchResult:
    """Play one match of ``rules.hands`` hands (or one per given wall) and return its result.

    ``shutdown``: when it stops (a signal, ``referee.shutdown``), the hands stop where they are, every seat is
    closed as at a match's end (a bot under way gets ``/exit``), the log ends with an ``aborted`` record, and the
    result comes back with ``aborted`` set (its hands are the finished ones).

    ``remote`` seats the ``remote:NAME`` bots (a match with one needs it: ``mjref serve``).

    ``boxes``: the run's box pool (``wrappers.process.BoxPool``): the process seats' boxes come from it and go back
    to it, so that a tournament opens a bot's box once, not once per match.

    ``block_ms``: how long a process seat may wait for an answer in a blocking poll before yielding to trio
    (see ``wrappers.process.BLOCK_MS``); pass 0 when other matches run in the same trio loop.
    """
    check_match(specs, seed, rules, remote=remote is not None)
    family = family_of(rules)
    hands_planned = min(rules.hands, len(walls)) if walls is not None else rules.hands
    names = table_names(specs)
    result = MatchResult(seed, [SeatResult(p, names[p - 1], spec=specs[p - 1].describe()) for p in (1, 2, 3, 4)],
                         log_path=log_path)
    if stderr_dir is not None and any(s.cmd for s in specs):
        try:
            stderr_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise MatchError(f"{stderr_dir}: cannot hold the bots' stderr files ({exc.strerror or exc})") from None
        hide_from_bots(stderr_dir)  # before any seat's box is planned: no bot sees another's stderr
    writer: LogWriter = LogWriter.open(log_path) if log_path else NullWriter()
    started = time.perf_counter()
    try:
        async with trio.open_nursery() as nursery:
            seats: dict[int, Seat] = {}
            for p, spec in enumerate(specs, start=1):
                if spec.remote:
                    assert remote is not None
                    seats[p] = remote(spec, p)
                elif spec.builtin is not None:
                    seats[p] = BuiltinSeat(names[p - 1], p, make_policy(spec.builtin))
                elif spec.protocol == "xmj":
                    from wrappers.xmj.seat import BoxedClient, XmjSeat  # here: an ICGA match does not load it

                    client = BoxedClient(spec, p, names[p - 1], nursery, hands=hands_planned)
                    seats[p] = XmjSeat(names[p - 1], p, names={q: names[q - 1] for q in (1, 2, 3, 4)},
                                       options=family.options,  # type: ignore[attr-defined]
                                       client=client, timeout=timeout)
                else:
                    stderr_path = stderr_file(stderr_dir, p, names[p - 1]) if stderr_dir else None
                    seats[p] = ProcessSeat(spec, p, nursery, stderr_path=stderr_path, timeout=timeout,
                                           block_ms=block_ms, hands=hands_planned, boxes=boxes)
                if on_seat is not None:
                    on_seat(seats[p])
            seat_infos = [seat_info(p, names[p - 1], spec, seed, rtt_ms=seats[p].rtt_ms if spec.remote else None,
                                    timeout=seats[p].question_timeout(HandInfo.for_seat(rules, seed, 0, p)))
                          for p, spec in enumerate(specs, start=1)]
            writer.write(header_record(seed, rules, seat_infos, hands_planned, walls_from_file=walls is not None))
            writer.flush()
            playing = shutdown.scope() if shutdown is not None else trio.CancelScope()
            try:
                # (in the try: a match cancelled while its boxes open closes them, their plans and scratch folders)
                async with trio.open_nursery() as preparing:  # the process seats' boxes open side by side
                    for seat in seats.values():
                        preparing.start_soon(seat.prepare)
                with playing:
                    series = Series(rules, hands_planned)
                    forfeited: set[int] = set()
                    while not series.is_over:
                        setup = series.next_setup()
                        assert setup is not None
                        wall = walls[setup.index] if walls is not None else generate_wall(seed, setup.index, rules)
                        await trio.lowlevel.checkpoint()  # a match of built-in bots may never wait: a stop lands here
                        summary = await _play_hand(seats, setup, wall, seed, rules, writer, result, on_fault,
                                                   forfeited, more=setup.index + 1 < series.planned)
                        series.record(summary.result, summary.penalties)
                        summary.totals = (series.totals[0], series.totals[1], series.totals[2], series.totals[3])
                        result.add_hand(summary)
                        rtt = [seats[p].rtt_ms for p in (1, 2, 3, 4)] if remote is not None else None
                        record = result_record(summary.index, summary.result, summary.penalties, summary.totals,
                                               len(summary.faults), rtt_ms=rtt)
                        writer.write(record)
                        writer.flush()
                        if remote is not None:  # a person's page shows the result (wrappers.human)
                            shown = record.model_dump(mode="json")
                            for p in (1, 2, 3, 4):
                                await seats[p].hand_result(shown)
                        if on_hand is not None:
                            on_hand(summary, result)
            finally:
                # Together: a kept-alive bot may use its whole exit grace, and four of them one after the other
                # would add up.
                with trio.CancelScope(shield=True):
                    async with trio.open_nursery() as closing:
                        for seat in seats.values():
                            closing.start_soon(seat.close)
        result.seconds = time.perf_counter() - started
        if playing.cancelled_caught and shutdown is not None and shutdown.reason is not None:
            result.aborted = shutdown.reason
            writer.write(aborted_record(shutdown.reason, len(result.hands), list(result.totals),
                                        [s.faults for s in result.seats]))
        else:
            writer.write(final_record(len(result.hands), list(result.totals),
                                      [s.faults for s in result.seats]))
    finally:
        if stderr_dir is not None and any(s.cmd for s in specs):
            unhide(stderr_dir)
        writer.flush()
        writer.close()
    return result


def stderr_file(stderr_dir: Path, position: int, name: str) -> Path:
    """Where the stderr of the bot process at ``position`` goes: ``seatN-NAME.stderr`` in ``stderr_dir``."""
    return stderr_dir / f"seat{position}-{_safe(name)}.stderr"


def stderr_files(specs: Sequence[BotSpec], stderr_dir: Path) -> list[Path]:
    """The stderr files a match of ``specs`` writes in ``stderr_dir`` (one per bot process)."""
    names = table_names(specs)
    return [stderr_file(stderr_dir, p, names[p - 1]) for p, spec in enumerate(specs, start=1) if spec.cmd]


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:40]


async def _play_hand(
    seats: dict[int, Seat],
    setup: HandSetup,
    wall: Wall,
    seed: int,
    rules: Ruleset,
    writer: LogWriter,
    result: MatchResult,
    on_fault: Callable[[FaultInfo], None] | None,
    forfeited: set[int],
    *,
    more: bool = False,
) -> HandSummary:
    """One hand.  ``forfeited``: the seats whose bots have forfeited the match (added to here when one does);
    ``more``: another hand follows this one."""
    h = setup.index
    # Seats that declare their own sets when the hand is won: the clients of mj-server's protocol still playing
    declarers = frozenset(p for p, seat in seats.items() if seat.kind == "xmj" and p not in forfeited)
    hand = Hand(wall, rules, dealer=setup.dealer, round_wind=setup.round_wind, hand_wind=setup.hand_wind,
                cont=setup.cont, check=False, hands_as_east=setup.hands_as_east, declarers=declarers)
    writer.write(hand_record(setup, wall, declarers, hand.declaring))
    infos = {p: HandInfo.for_seat(rules, seed, h, p, more=more) for p in (1, 2, 3, 4)}
    active: dict[int, Seat] = dict(seats)
    deliveries = Deliveries()  # the events to the active seats
    # The hand in order: its events, and a tuple (seat, ask, tile, answer line, by, seconds, raw line) per answer.
    # It becomes log records in one pass at the hand's end (or before a fault record, or on the way out of a
    # failure): the formatting runs warm in a loop instead of on cold caches after every wake-up.  A dummy taking
    # over replays its seat's events from it.
    journal: list[Any] = []
    logged = 0
    log = writer.line_writer()
    faults: list[FaultInfo] = []
    payers: set[int] = set()  # the seats that pay the fault penalty in this hand

    def log_journal() -> None:
        nonlocal logged
        if log is not None:
            for item in journal[logged:]:
                if type(item) is tuple:
                    seat, ask, tile, text, by, seconds, raw = item
                    log(answer_line(h, seat, ask, tile, text, by, answer_ms(seconds), raw))
                else:
                    log(event_line(h, item))
        logged = len(journal)

    def record_fault(p: int, fault: Fault, question: str | None) -> None:
        info = FaultInfo(p, h, fault.kind, fault.detail, question, fault.line)
        faults.append(info)
        result.faults.append(info)
        result.seats[p - 1].faults += 1
        payers.add(p)
        log_journal()
        writer.write(fault_record(h, p, fault.kind, fault.detail, question=question, line=fault.line))
        if on_fault is not None:
            on_fault(info)

    def stand_in(p: int) -> BuiltinSeat:
        told = [e for e in journal if type(e) is not tuple and p in e.audience]
        dummy = builtin_takeover(rules.default_dummy, p, make_policy(rules.default_dummy), infos[p], told)
        active[p] = dummy
        deliveries.seat(p, dummy)
        payers.add(p)
        return dummy

    async def take_over(p: int, fault: Fault, question: str | None) -> BuiltinSeat:
        """The one way a seat leaves its bot: the fault logged, the bot ended (for good after a ``forfeit``), and
        the stand-in playing the seat from what the seat had been told."""
        record_fault(p, fault, question)
        if fault.kind == "forfeit":
            forfeited.add(p)
            await seats[p].close()
        else:
            await active[p].abandon()
        return stand_in(p)

    starting = [p for p in (1, 2, 3, 4)
                if p not in forfeited and not 0 < rules.max_faults <= result.seats[p - 1].faults]
    start_faults = await _begin_hands(seats, starting, infos)
    for p in (1, 2, 3, 4):
        if p in forfeited:
            stand_in(p)
        elif p not in starting:
            await take_over(p, Fault("forfeit", f"{result.seats[p - 1].faults} faults in this match (max_faults = "
                                     f"{rules.max_faults}): the bot is not started again, {rules.default_dummy} "
                                     "plays this seat to the end of the match"), None)
        else:
            start_fault = start_faults[p]
            if start_fault is not None:
                await take_over(p, start_fault, None)
            else:
                deliveries.seat(p, seats[p])

    # The hand's log lines are written once its seats are told it is over (and have gone on to the next), not
    # before: the players read the scores while the referee formats the hand.
    try:
        await _question_loop(hand, seats, active, deliveries.deliver, journal, take_over, rules.pace)
        assert hand.result is not None
        for p in (1, 2, 3, 4):
            if p not in forfeited:
                seats[p].hand_over(hand.result)

        # Seats that can end the hand at once do (a kept-alive bot: /exit written); the others are awaited together.
        ending: list[Seat] = []
        for p in (1, 2, 3, 4):
            ending.append(active[p])
            if active[p] is not seats[p] and p not in forfeited:
                ending.append(seats[p])
        waiting = [one for one in ending if not one.end_hand_nowait()]
        if waiting:
            async with trio.open_nursery() as nursery:
                for one in waiting:
                    nursery.start_soon(one.end_hand)
        result.play_digest = _play_digest(result.play_digest, h, journal, faults)  # (once the seats are told)
    finally:
        log_journal()
        _count_answers(journal, result.seats)
    assert hand.result is not None
    return HandSummary(h, setup, hand.result, fault_settlement(sorted(payers), rules), (0, 0, 0, 0), faults)


async def _begin_hands(seats: dict[int, Seat], starting: list[int], infos: dict[int, HandInfo]
                       ) -> dict[int, Fault | None]:
    """Each seat of ``starting`` begins its hand, side by side: a boxed bot's start is a round trip to its box's
    keeper, and four of them one after another each waited for the keeper to be scheduled (on a machine that two
    matches keep busy, a wait for a core each).  The faults by seat, for the caller to take in seat order."""
    faults: dict[int, Fault | None] = {}
    if len(starting) == 1 or all(type(seats[p]) is BuiltinSeat for p in starting):
        for p in starting:  # nothing to wait for: no nursery
            faults[p] = await seats[p].begin_hand(infos[p])
        return faults

    async def begin(p: int) -> None:
        faults[p] = await seats[p].begin_hand(infos[p])

    with unwrap_single():  # a bug in one seat's start raises as itself, not as a group of one
        async with trio.open_nursery() as nursery:
            for p in starting:
                nursery.start_soon(begin, p)
    return faults


def _count_answers(journal: list[Any], stats: list[SeatResult]) -> None:
    """The bots' own answers of a hand (not their stand-ins') into their seats' counts and times."""
    for item in journal:
        if type(item) is tuple and item[4] == "bot":
            s = stats[item[0] - 1]
            seconds = item[5]
            s.answers += 1
            s.answer_seconds += seconds
            if seconds > s.max_answer_seconds:
                s.max_answer_seconds = seconds


def _play_digest(previous: str, hand: int, journal: list[Any], faults: list[FaultInfo]) -> str:
    """The match's play digest after this hand: the previous one chained with this hand's answers and faults."""
    parts = [previous, str(hand)]
    parts += [f"{item[0]} {item[1]} {item[2]} {item[3]!r} {item[4]}" for item in journal if type(item) is tuple]
    parts += [f"fault {f.position} {f.kind}" for f in faults]
    return hashlib.blake2b("\n".join(parts).encode(), digest_size=16).hexdigest()


async def _question_loop(
    hand: Hand,
    seats: dict[int, Seat],
    active: dict[int, Seat],
    deliver: Callable[[list[Event], int | None], None],
    journal: list[Any],
    take_over: Callable[[int, Fault, str | None], Awaitable[BuiltinSeat]],
    pace: float = 0.0,
) -> None:
    """The hot loop: one pass per question, from the hand's start to its end.  ``deliver``: the hand's
    ``Deliveries.deliver``, which gives the active seats the events they may see.  ``pace``: the ruleset's turn
    length in seconds: a turn's question (a draw's throw, self-drawn hu or gong; no ``tile``) is held until ``pace``
    after the previous turn's answer, while the claim questions between (about a throw or a robbed gong) are asked
    at once; so the time from a bot's throw to its next question no longer counts the claims the others declined."""
    turn_mark: float | None = None
    events = hand.start()
    deliver(events, hand.question.seat if hand.question is not None else None)
    journal.extend(events)
    apply = hand.apply
    while hand.result is None:
        q = hand.question
        assert q is not None
        p = q.seat
        seat = active[p]
        by = "bot"
        if pace and q.tile is None:
            if turn_mark is not None:
                await trio.sleep_until(turn_mark + pace)
        if type(seat) is BuiltinSeat:  # the fast path: no await
            reply = seat.reply(q)
            if seat is not seats[p]:
                by = "dummy"
                if reply.fault is not None:  # the stand-in itself failed: a bug in mjref, not a bot fault
                    raise RuntimeError(f"the stand-in failed: {reply.fault.detail}")
        else:
            reply = await seat.ask(q)
        if pace and q.tile is None:
            turn_mark = trio.current_time()
        answer, fault = reply.answer, reply.fault
        if fault is None:
            assert answer is not None
            try:
                events = apply(answer)
            except IllegalAnswer as exc:
                fault = Fault("illegal", str(exc), reply.raw or reply.line or str(answer))
        if fault is not None:
            dummy = await take_over(p, fault, f"/ask {q.ask}")
            answer = dummy.decide(q)
            events = apply(answer)
            by = "dummy"
        assert answer is not None
        # (seat, ask, tile, answer line, by, seconds, raw line): counted into the seat's answers at the hand's end
        if by == "bot" and reply.line is not None:
            journal.append((p, q.ask, q.tile, reply.line, by, reply.seconds, reply.raw))
        else:
            journal.append((p, q.ask, q.tile, str(answer), by, reply.seconds, None))
        q = hand.question  # the next: its seat is served first
        deliver(events, q.seat if q is not None else None)
        journal.extend(events)


def play_match(specs: Sequence[BotSpec], *, handle_signals: bool = False, **kwargs: Any) -> MatchResult:
    """Synchronous wrapper: ``trio.run(run_match, …)``.  ``handle_signals``: SIGINT, SIGTERM and SIGHUP stop the
    match in order (``referee.shutdown``; the result's ``aborted`` names the signal) instead of at once; a
    ``shutdown`` given with it is the one they stop."""
    if not handle_signals:
        return trio.run(lambda: run_match(specs, **kwargs))
    given = kwargs.pop("shutdown", None)  # the caller's, which it may stop itself (a closed stdout)

    async def main() -> MatchResult:
        async with watching_signals(given) as shutdown:
            return await run_match(specs, shutdown=shutdown, **kwargs)

    return trio.run(main)


__all__ = ["FaultInfo", "HandSummary", "MatchError", "MatchResult", "SeatResult", "play_match", "resolve_bots",
           "resolve_local_bot", "run_match", "stderr_file", "stderr_files", "table_names"]

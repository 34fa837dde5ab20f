"""Replay: rebuild every hand of a match log through the engine and check that the log tells the truth.

A log holds everything a match needs to be played again without its bots: the ruleset (header), each hand's
setup and wall (``hand`` records) and every answer given (``answer`` records).  :class:`LogWalker` re-drives the
engine from those alone and checks, record by record, that every event, fault marker, settlement and running
total the log states is what the rules give.  The first record that differs raises :class:`Divergence`, naming
the hand, the record's line number, what the log says and what the rules give.

The walker yields what happened as it goes (:class:`HandBegin`, :class:`FaultSeen`, :class:`Step`,
:class:`HandEnd`, :class:`MatchEnd`), so that ``mjref replay`` (summaries and move-by-move views), ``mjref
refeed`` (asking a bot the recorded questions) and the benchmarks are thin consumers of one loop.

What a record should hold is never written out here: the expected records come from the builders in
``referee.log`` that the match writes with, and the keys a record may have from its model there.

Speed: a replay reads some 250 records per hand.  Event records are checked by comparing the line with the exact
line the match writer writes for the engine's event (``referee.log.event_line``: a string comparison, no JSON
parsing); only a line that differs is parsed, and compared field by field (so a log re-written by another JSON
tool still verifies).  Answer records written as ``referee.log.answer_line`` writes them are read without JSON
too, and answers are parsed once per distinct text.

Errors that mean "this is not a log this mjref can replay" (unreadable file, no header, a newer log format, a
ruleset this version does not know) raise ``referee.log.LogError`` (from ``open_log``): the command exits 2.
Everything after a valid header that does not match (a changed answer, a changed settlement, a missing or extra
record, a truncated file) is a :class:`Divergence`: the command exits 1.  A log that ends with an ``aborted`` record
(a match stopped by a signal) is verified up to that record and is not a divergence; a log that just stops, without
it, is.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from referee.game.engine import DECLARING, Hand, HandResult, IllegalAnswer
from referee.game.match_options import fault_settlement
from referee.game.options import throw_answer
from referee.game.series import HandSetup, Series
from referee.game.taiwan16.rules import Ruleset
from referee.game.tiles import WINDS_IN_ORDER
from referee.game.types import Answer, Event, Meld, Question
from referee.game.wall import Wall, WallError, check_wall, generate_wall
from referee.log import (
    UNCHECKED_FIELDS,
    AbortedRecord,
    AnswerRecord,
    FaultRecord,
    FinalRecord,
    HandRecord,
    HeaderRecord,
    ResultRecord,
    aborted_record,
    event_from_json,
    event_line,
    event_record,
    final_record,
    hand_record,
    loads_line,
    open_log,
    result_record,
)
from wrappers.codec import ProtocolError, format_event, parse_answer

__all__ = [
    "Divergence",
    "FaultSeen",
    "HandBegin",
    "HandEnd",
    "HandReport",
    "LogWalker",
    "MatchEnd",
    "ReplayReport",
    "Step",
    "event_text",
    "replay_log",
]


@dataclass(frozen=True, slots=True)
class Divergence(Exception):
    """The first record of a log that is not what the rules give.  ``hand`` is 0-based (None: outside a hand)."""

    hand: int | None
    line: int
    log: str
    rules: str

    def __str__(self) -> str:
        return self.message

    @property
    def message(self) -> str:
        where = f"hand {self.hand + 1}, line {self.line}" if self.hand is not None else f"line {self.line}"
        return f"{where}: the log says {self.log}; the rules give {self.rules}"

    def to_json(self) -> dict[str, Any]:
        return {"hand": None if self.hand is None else self.hand + 1, "line": self.line, "log": self.log,
                "rules": self.rules, "message": self.message}


# ---------------------------------------------------------------------------------------------------- items
@dataclass(slots=True)
class HandBegin:
    """A ``hand`` record: the engine has dealt; ``events`` are the deal's events (checked against the log next)."""

    index: int
    line: int
    setup: HandSetup
    wall: Wall
    hand: Hand
    events: list[Event]


@dataclass(slots=True)
class FaultSeen:
    """A ``fault`` record (``question`` None: the bot failed before its first question)."""

    index: int
    line: int
    seat: int
    kind: str
    question: str | None
    text: str | None  # the offending line, as logged
    detail: str


@dataclass(slots=True)
class Step:
    """An ``answer`` record, applied to the engine.  ``events`` are the engine's (checked against the log next).

    ``before`` is the asked seat's concealed tiles before the answer, when the walker was told to keep them.
    """

    index: int
    line: int
    question: Question
    answer: Answer
    by: str
    ms: float
    events: list[Event]
    before: tuple[int, ...] | None = None
    before_melds: tuple[Meld, ...] | None = None


@dataclass(slots=True)
class HandEnd:
    """A ``result`` record that matches the engine's result."""

    index: int
    line: int
    setup: HandSetup
    result: HandResult
    penalties: tuple[int, int, int, int]
    totals: tuple[int, int, int, int]
    faults: list[FaultSeen]
    first_line: int


@dataclass(slots=True)
class MatchEnd:
    """The ``final`` record, or an ``aborted`` one (``aborted``: the signal that stopped the match; the log is
    verified up to it, the hand under way included as far as it went)."""

    line: int
    hands: int
    totals: tuple[int, ...]
    faults: tuple[int, ...]
    aborted: str | None = None


Item = HandBegin | FaultSeen | Step | HandEnd | MatchEnd


# ---------------------------------------------------------------------------------------------------- helpers
def event_text(e: Event) -> str:
    """An event as a reader wants it in a message: its protocol line, and who saw it when not everybody."""
    line = format_event(e, extensions=frozenset({"flower"}))
    if line is None:  # pragma: no cover - every event has a line with the flower extension
        line = e.kind
    if len(e.audience) < 4:
        line += f" (to {', '.join(map(str, sorted(e.audience)))})"
    return line


def _record_text(rec: dict[str, Any]) -> str:
    """A logged record as a reader wants it in a message."""
    kind = rec.get("type")
    if kind == "event":
        try:
            return f"event `{event_text(event_from_json(rec))}`"
        except (KeyError, TypeError, ValueError, AttributeError):  # a malformed record: shown as JSON below
            pass
    if kind == "answer":
        return f"seat {rec.get('seat')} answering /ask {rec.get('ask')} with `{rec.get('answer')}`"
    if kind == "fault":
        return f"a fault of seat {rec.get('seat')} ({rec.get('kind')})"
    if kind == "hand":
        return f"the start of hand {rec.get('hand', 0) + 1 if isinstance(rec.get('hand'), int) else '?'}"
    if kind == "result":
        return "the hand's result"
    if kind == "final":
        return "the final record"
    if kind == "aborted":
        return "the aborted record"
    text = json.dumps(rec, separators=(",", ":"), ensure_ascii=False)
    return "`" + (text if len(text) <= 120 else text[:119] + "…") + "`"


def _question_text(q: Question) -> str:
    tile = f" on {q.tile}" if q.tile is not None else ""
    return f"/ask {q.ask}{tile} to seat {q.seat}"


def _meld_json(m: Meld) -> dict[str, Any]:
    return {"type": m.type, "tiles": list(m.tiles)}


def _keys(model: type[BaseModel]) -> frozenset[str]:
    return frozenset(model.model_fields)


def _with_defaults(model: type[BaseModel], rec: dict[str, Any]) -> dict[str, Any]:
    """``rec`` with the fields it leaves out at their defaults (what their absence means), others left alone."""
    out = dict(rec)
    for name, info in model.model_fields.items():
        if name not in out and not info.is_required():
            out[name] = info.get_default(call_default_factory=True)
    return out


def _first_difference(log: Any, rules: Any, path: str) -> tuple[str, Any, Any] | None:
    """The first place where two JSON values differ: (path, log value, rules value), or None."""
    if isinstance(log, dict) and isinstance(rules, dict):
        for k in list(rules) + [k for k in log if k not in rules]:
            if k not in log:
                return (f"{path}.{k}", "(missing)", rules[k])
            if k not in rules:
                return (f"{path}.{k}", log[k], "(no such field)")
            d = _first_difference(log[k], rules[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(log, list) and isinstance(rules, list):
        for i, (a, b) in enumerate(zip(log, rules)):
            d = _first_difference(a, b, f"{path}[{i}]")
            if d:
                return d
        if len(log) != len(rules):
            return (f"{path} (length)", len(log), len(rules))
        return None
    if log != rules or isinstance(log, bool) != isinstance(rules, bool):
        return (path, log, rules)
    return None


def _short(value: Any) -> str:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= 160 else text[:159] + "…"


# ---------------------------------------------------------------------------------------------------- walking
_ANSWERS: dict[str, Answer] = {}  # answer text -> parsed answer, shared by every walker (answers repeat)
_ANSWER_KEYS = _keys(AnswerRecord)
_FAULT_KEYS = _keys(FaultRecord)
_HAND_KEYS = _keys(HandRecord)
_HAND_OPTIONAL = frozenset({"declarers", "declaring"})  # written only when there are declarers


@dataclass(slots=True)
class _Place:
    """Where a walk is in the log: the hand under way and what has been read of it."""

    pending: deque[Event]  # events the engine gave that the log has not shown yet
    faults: list[FaultSeen]  # this hand's faults
    faulted: set[int]  # seats the stand-in plays in this hand (a fault, or a forfeit before it)
    hand: Hand | None = None
    index: int = -1
    setup: HandSetup | None = None
    active: bool = False  # a hand has begun and its result is not read yet
    ended: bool = False  # the hand's result is read
    started: bool = False  # a seat has answered in this hand
    first_line: int = 0  # the line of the hand's record
    final_seen: bool = False  # the final (or aborted) record is read

    def begin(self, hand: Hand, setup: HandSetup, number: int, forfeited: set[int]) -> None:
        self.hand, self.setup, self.index, self.first_line = hand, setup, setup.index, number
        self.faults, self.faulted = [], set(forfeited)
        self.ended, self.started, self.active = False, False, True


class LogWalker:
    """Re-drives the engine from a log and checks it; iterate :meth:`items` to follow along.

    ``keep_before``: a seat whose concealed tiles are copied into every ``Step`` that asks it (for refeed).
    After iteration, ``records`` is the number of records read and ``hand`` the last hand's engine.
    """

    def __init__(self, path: Path | str, *, keep_before: int | None = None) -> None:
        self.path = Path(path)
        self.log = open_log(self.path)
        self.header, self.rules = self.log.header, self.log.rules
        self.keep_before = keep_before
        self.hand: Hand | None = None
        self.series = Series(self.rules, self.header.hands)
        self.records = 1
        self._number = 1
        self._last_answer: tuple[int, int, str] | None = None
        self.fault_counts = [0, 0, 0, 0]
        self.forfeited: set[int] = set()  # seats whose bots forfeited the match: the stand-in plays every hand
        self._due: set[int] = set()  # seats that reached max_faults before this hand: a forfeit must come first

    # -------------------------------------------------------------------------------------------------
    def _parse(self, number: int, text: str, index: int | None) -> dict[str, Any]:
        try:
            rec = loads_line(text)
        except json.JSONDecodeError as exc:
            raise Divergence(index, number, f"something that is not JSON ({exc.msg})", "a JSON record") from None
        if not isinstance(rec, dict) or not isinstance(rec.get("type"), str):
            raise Divergence(index, number, f"`{_short(rec)}`", "a record with a type") from None
        return rec

    def _answer(self, text: str) -> Answer:
        a = _ANSWERS.get(text)
        if a is None:
            a = parse_answer(text)
            if a.kind == "throw":  # the engine's shared object: its legality test then hits on identity
                a = throw_answer(a.tiles[0])
            if len(_ANSWERS) < 100_000:
                _ANSWERS[text] = a
        return a

    def items(self, *, steps: bool = True) -> Iterator[Item]:
        """Walk the log, yielding what happened; raises :class:`Divergence` at the first mismatch.

        ``steps=False``: answers are checked but not yielded (a plain verification does not need them).
        """
        try:
            yield from self._items(steps)
        finally:
            self.records = self._number

    def _items(self, yield_steps: bool) -> Iterator[Item]:
        """The walk: each line is the next event the engine gives, an answer to the pending question (both read
        on fast paths, without JSON, when written exactly as the match writer writes them), or a record read
        whole and handled by its kind (:meth:`_record`); then the log's end (:meth:`_log_ended`)."""
        at = _Place(deque(), [], set())
        pending = at.pending
        popleft = pending.popleft
        hand: Hand | None = None  # at.hand, at.index, at.active and at.faulted, kept local for the fast paths
        index, active, faulted = -1, False, at.faulted
        number = 1
        for number, text in enumerate(self.log.lines[1:], start=2):
            if pending:
                e = pending[0]
                if text == event_line(index, e):
                    popleft()
                    continue
            elif active and hand.question is not None:  # type: ignore[union-attr]
                assert hand is not None
                fast = self._fast_answer(text, number, hand, index, faulted, pending)
                if fast is not None:
                    at.started = True
                    if yield_steps:
                        self._number = number
                        yield fast
                    continue
            self._number = number
            item = self._record(at, self._parse(number, text, index if active else None), number)
            hand, index, active, faulted = at.hand, at.index, at.active, at.faulted
            if item is not None and (yield_steps or type(item) is not Step):
                yield item
        self._log_ended(at, number)

    def _record(self, at: _Place, rec: dict[str, Any], number: int) -> Item | None:
        """One record read whole, checked against where the walk is (``at``, updated); what it gave, if anything."""
        kind = rec["type"]
        if at.final_seen:
            raise Divergence(None, number, _record_text(rec), "nothing after the final record")
        if kind == "event":
            self._event_record(at, rec, number)
            return None
        self._check_in_order(at, rec, kind, number)
        hand, index = at.hand, at.index
        if kind == "answer":
            if at.ended:
                raise Divergence(index, number, _record_text(rec), self._expecting(hand, at.ended))
            assert hand is not None
            at.started = True
            return self._step(rec, number, hand, index, at.faulted, at.pending)
        if kind == "fault":
            if at.ended or hand is None:
                raise Divergence(index, number, _record_text(rec), self._expecting(hand, at.ended))
            f = self._fault(rec, number, hand, index, at.faulted, at.started)
            at.faults.append(f)
            return f
        if kind == "hand":
            return self._hand_record(at, rec, number)
        if kind == "result":
            if at.ended or hand is None or at.setup is None:
                raise Divergence(index, number, _record_text(rec), self._expecting(hand, at.ended))
            if not hand.is_over:
                q = hand.question
                assert q is not None
                raise Divergence(index, number, "the hand's result", f"{_question_text(q)} first")
            end = self._result(rec, number, hand, at.setup, at.faults, at.faulted, at.first_line)
            at.ended, at.active = True, False
            return end
        if kind == "final":
            if hand is not None and not at.ended:
                raise Divergence(index, number, "the final record", self._expecting(hand, at.ended))
            final = self._final(rec, number)
            at.final_seen = True
            return final
        if kind == "aborted":  # a stop may come anywhere: the log is true up to it
            aborted = self._aborted(rec, number)
            at.final_seen, at.active = True, False
            return aborted
        raise Divergence(index if hand is not None and not at.ended else None, number,
                         f"a record of unknown type {kind!r}", self._expecting(hand, at.ended))

    def _event_record(self, at: _Place, rec: dict[str, Any], number: int) -> None:
        """An event record off the fast path: the pending event written another way, or a divergence."""
        if at.pending:
            if rec == event_record(at.index, at.pending[0]).model_dump():  # the same record, written differently
                at.pending.popleft()
                return
            raise Divergence(at.index, number, _record_text(rec), f"event `{event_text(at.pending[0])}`{self._after()}")
        raise Divergence(at.index if at.hand else None, number, _record_text(rec), self._expecting(at.hand, at.ended))

    def _check_in_order(self, at: _Place, rec: dict[str, Any], kind: str, number: int) -> None:
        """A record other than an event: no event may still be due (but before a seat's failed start, or at a
        stop), and a hand's answers, faults and result belong to the hand under way."""
        if at.pending and not (kind == "fault" and not at.started and rec.get("question") is None) \
                and kind != "aborted":
            raise Divergence(at.index, number, _record_text(rec),
                             f"event `{event_text(at.pending[0])}` first{self._after()}")
        if kind in ("answer", "fault", "result") and (at.hand is None or rec.get("hand") != at.index):
            if at.hand is not None and not at.ended:
                raise Divergence(at.index, number, f"a record of hand {_hand_no(rec.get('hand'))}",
                                 f"a record of hand {at.index + 1}")
            raise Divergence(None, number, _record_text(rec), self._expecting(at.hand, at.ended))

    def _hand_record(self, at: _Place, rec: dict[str, Any], number: int) -> HandBegin:
        """A hand's start: its wall checked, its engine dealt, the walk's place moved to it."""
        if at.hand is not None and not at.ended:
            raise Divergence(at.index, number, _record_text(rec), self._expecting(at.hand, at.ended))
        setup = self.series.next_setup()
        if setup is None:
            raise Divergence(None, number, f"hand {_hand_no(rec.get('hand'))}",
                             f"no more hands (the header plans {self.header.hands})")
        hand, events, wall = self._begin(rec, number, setup, self.header.walls == "seeded")
        self.hand = hand
        at.begin(hand, setup, number, self.forfeited)
        at.pending.extend(events)
        self._due = {p for p in (1, 2, 3, 4) if p not in self.forfeited
                     and 0 < self.rules.max_faults <= self.fault_counts[p - 1]}
        self._last_answer = None
        return HandBegin(setup.index, number, setup, wall, hand, events)

    def _log_ended(self, at: _Place, number: int) -> None:
        """The lines are over: a log must end with its final (or aborted) record, and not half-way through one."""
        self._number = number
        cut = self.log.cut
        where = at.index if at.active else None
        expecting = f"event `{event_text(at.pending[0])}`" if at.pending else self._expecting(at.hand, at.ended)
        if cut is not None:
            self._number = cut
            if at.final_seen:
                raise Divergence(None, cut, "a record cut off half-way", "nothing after the final record")
            raise Divergence(where, cut, "a record cut off half-way (the log was truncated)", expecting)
        if not at.final_seen:
            raise Divergence(where, number + 1, "nothing more (the log ends here)", expecting)

    def _after(self) -> str:
        """Where the event came from: the last answer read (a changed answer shows up in the events after it)."""
        if self._last_answer is None:
            return " (from the deal)"
        line, seat, text = self._last_answer
        return f" (after seat {seat}'s answer `{text}` on line {line})"

    def _expecting(self, hand: Hand | None, ended: bool) -> str:
        if hand is None or ended:
            if self.series.is_over:
                return "the final record"
            setup = self.series.next_setup()
            assert setup is not None
            return f"the start of hand {setup.index + 1}"
        if hand.is_over:
            return "the hand's result"
        q = hand.question
        assert q is not None
        return f"an answer to {_question_text(q)}"

    def _begin(
        self, rec: dict[str, Any], number: int, setup: HandSetup, seeded: bool
    ) -> tuple[Hand, list[Event], Wall]:
        h = setup.index
        if set(rec) - _HAND_OPTIONAL != _HAND_KEYS - _HAND_OPTIONAL:
            missing = sorted(_HAND_KEYS - _HAND_OPTIONAL - set(rec))
            extra = sorted(set(rec) - _HAND_KEYS)
            raise Divergence(h, number, f"a hand record with {'missing ' + ', '.join(missing) if missing else ''}"
                             f"{'unknown ' + ', '.join(extra) if extra else ''}", "a complete hand record")
        if any(rec[k] not in WINDS_IN_ORDER for k in ("round_wind", "hand_wind")):
            self.log.check(number, rec)  # a wind that is no wind: not a log mjref writes (exit 2)
        tiles = rec["wall"]
        if not isinstance(tiles, list) or not all(isinstance(t, int) for t in tiles):
            raise Divergence(h, number, "a wall that is not a list of TIDs", "the wall's TIDs")
        if seeded:
            wall = generate_wall(self.header.seed, h, self.rules)
            if tuple(tiles) != wall.tiles:
                at = next((i for i, (a, b) in enumerate(zip(tiles, wall.tiles)) if a != b),
                          min(len(tiles), len(wall.tiles)))
                got = tiles[at] if at < len(tiles) else "(end)"
                want = wall.tiles[at] if at < len(wall.tiles) else "(end)"
                raise Divergence(h, number, f"wall position {at} = {got}",
                                 f"{want} (the seeded wall of seed {self.header.seed}, hand {h + 1})")
        else:
            try:
                check_wall(tiles, self.rules, "the wall")
            except WallError as exc:
                raise Divergence(h, number, str(exc), "a full set of tiles") from None
            wall = Wall(tuple(tiles))
        for key, want in hand_record(setup, wall).model_dump(exclude={"wall"}).items():
            if rec[key] != want or isinstance(rec[key], bool) != isinstance(want, bool):
                raise Divergence(h, number, f"{key} {_short(rec[key])}", f"{key} {_short(want)}")
        declarers = rec.get("declarers", [])
        if not isinstance(declarers, list) or any(type(p) is not int or not 1 <= p <= 4 for p in declarers) \
                or len(set(declarers)) != len(declarers):
            raise Divergence(h, number, f"declarers {_short(declarers)}", "distinct seats 1-4")
        declaring = rec.get("declaring", "in_turn")  # (a log from before "declaring": losers asked in turn)
        if not isinstance(declaring, str) or declaring not in DECLARING:
            raise Divergence(h, number, f"declaring {_short(declaring)}", " or ".join(DECLARING))
        try:
            hand = Hand(wall, self.rules, dealer=setup.dealer, round_wind=setup.round_wind,
                        hand_wind=setup.hand_wind, cont=setup.cont, check=False, hands_as_east=setup.hands_as_east,
                        declarers=frozenset(declarers), declaring=declaring)
        except ValueError as exc:
            raise Divergence(h, number, f"declarers {_short(declarers)}", str(exc)) from None
        events = hand.start()
        return hand, events, wall

    def _step(self, rec: dict[str, Any], number: int, hand: Hand, index: int, faulted: set[int],
              pending: deque[Event]) -> Step:
        if not _ANSWER_KEYS.issuperset(rec) or "answer" not in rec or "seat" not in rec or "ask" not in rec:
            raise Divergence(index, number, f"`{_short(rec)}`", "an answer record (seat, ask, tile, answer, by, ms)")
        if hand.is_over:
            raise Divergence(index, number, _record_text(rec), "the hand's result (the hand is over)")
        q = hand.question
        assert q is not None
        if rec["seat"] != q.seat or rec["ask"] != q.ask or rec.get("tile") != q.tile:
            tile = f" on {rec.get('tile')}" if rec.get("tile") is not None else ""
            raise Divergence(index, number, f"seat {rec['seat']} answering /ask {rec['ask']}{tile}",
                             f"{_question_text(q)}")
        ms = rec.get("ms", 0.0)
        step = self._apply(q, rec["answer"], rec.get("by", "bot"),
                           float(ms) if isinstance(ms, (int, float)) else 0.0, number, hand, index, faulted, pending)
        raw = rec.get("raw")
        if raw is not None:
            try:
                said = parse_answer(raw) if isinstance(raw, str) else None
            except ProtocolError:
                said = None
            if said != step.answer:
                raise Divergence(index, number, f"the bot's line {_short(raw)} for the answer `{step.answer}`",
                                 f"a line that says `{step.answer}`")
        return step

    def _fast_answer(self, text: str, number: int, hand: Hand, index: int, faulted: set[int],
                     pending: deque[Event]) -> Step | None:
        """An answer record written exactly as the match writer writes it, read without JSON; else None."""
        q = hand.question
        assert q is not None
        prefix = (f'{{"type":"answer","hand":{index},"seat":{q.seat},"ask":"{q.ask}","tile":'
                  f'{"null" if q.tile is None else q.tile},"answer":"')
        if not text.startswith(prefix) or not text.endswith("}"):
            return None
        rest = text[len(prefix):-1]
        j = rest.find('","by":"')
        if j < 0:
            return None
        answer_text, tail = rest[:j], rest[j + 8:]
        if tail.startswith('bot","ms":'):
            by, ms_text = "bot", tail[10:]
        elif tail.startswith('dummy","ms":'):
            by, ms_text = "dummy", tail[12:]
        else:
            return None
        if "\\" in answer_text or '"' in answer_text:
            return None
        # as the writer writes it, ASCII digits first; anything else to the JSON reader, which says what is wrong
        # (float() would read "ms":１２ as 12, and 1_2 too): the checks of referee.numbers, at the cost of a few
        # string methods on this hot path
        if not (ms_text.isascii() and ms_text[:1].isdigit()) or "_" in ms_text:
            return None
        try:
            ms = float(ms_text)
        except ValueError:
            return None
        return self._apply(q, answer_text, by, ms, number, hand, index, faulted, pending)

    def _forfeit_text(self, seat: int) -> str:
        return (f"a forfeit of seat {seat} first ({self.fault_counts[seat - 1]} faults; max_faults = "
                f"{self.rules.max_faults})")

    def _apply(self, q: Question, text: Any, by: Any, ms: float, number: int, hand: Hand, index: int,
               faulted: set[int], pending: deque[Event]) -> Step:
        if q.seat not in faulted and q.seat in self._due:
            raise Divergence(index, number, f"seat {q.seat}'s bot answering", self._forfeit_text(q.seat))
        if by == "dummy" and q.seat not in faulted:
            raise Divergence(index, number, f"the dummy answering for seat {q.seat}",
                             f"seat {q.seat}'s bot answering (no fault of seat {q.seat} in this hand)")
        if by == "bot" and q.seat in faulted:
            raise Divergence(index, number, f"seat {q.seat}'s bot answering",
                             f"the dummy answering (seat {q.seat} faulted earlier in this hand)")
        if by not in ("bot", "dummy"):
            raise Divergence(index, number, f"an answer by {_short(by)}", "an answer by the bot or the dummy")
        try:
            answer = self._answer(text) if isinstance(text, str) else None
        except ProtocolError as exc:
            raise Divergence(index, number, f"answer `{_short(text)}`", f"a protocol answer ({exc.reason})") from None
        if answer is None:
            raise Divergence(index, number, f"answer {_short(text)}", "an answer line")
        before = before_melds = None
        if self.keep_before == q.seat:
            before, before_melds = tuple(hand.concealed(q.seat)), tuple(hand.melds(q.seat))
        try:
            events = hand.apply(answer)
        except IllegalAnswer as exc:
            raise Divergence(index, number, f"seat {q.seat} answering /ask {q.ask} with `{answer}`",
                             f"no such answer: it is not legal ({exc})") from None
        pending.extend(events)
        self._last_answer = (number, q.seat, str(answer))
        return Step(index, number, q, answer, by, ms, events, before, before_melds)

    def _fault(self, rec: dict[str, Any], number: int, hand: Hand, index: int, faulted: set[int],
               started: bool) -> FaultSeen:
        if not _FAULT_KEYS.issuperset(rec) or not isinstance(rec.get("seat"), int) or "detail" not in rec:
            raise Divergence(index, number, f"`{_short(rec)}`", "a fault record (seat, kind, question, line, detail)")
        seat = rec["seat"]
        question = rec.get("question")
        if seat not in (1, 2, 3, 4):
            raise Divergence(index, number, f"a fault of seat {seat}", "a seat 1..4")
        kind = rec.get("kind")
        if seat in self.forfeited:
            raise Divergence(index, number, f"a fault of seat {seat}",
                             f"no more faults (seat {seat} forfeited the match; the stand-in plays it)")
        if seat in faulted:
            raise Divergence(index, number, f"a second fault of seat {seat}",
                             f"no more faults (the dummy plays seat {seat} to the end of the hand)")
        if kind == "forfeit":
            if seat not in self._due:
                raise Divergence(index, number, f"a forfeit of seat {seat}",
                                 f"no forfeit (seat {seat} has {self.fault_counts[seat - 1]} faults; max_faults = "
                                 f"{self.rules.max_faults})")
            if question is not None or started:
                raise Divergence(index, number, f"a forfeit of seat {seat} on `{question}`",
                                 "a forfeit only before the first question of the hand")
            self.forfeited.add(seat)
            self._due.discard(seat)
        elif seat in self._due:
            raise Divergence(index, number, f"a fault of seat {seat} ({_short(kind)})", self._forfeit_text(seat))
        if question is None:
            if started:
                raise Divergence(index, number, f"a fault of seat {seat} with no question",
                                 "such faults only before the first question of the hand (a bot that did not start)")
        else:
            q = hand.question
            if q is None or q.seat != seat or question != f"/ask {q.ask}":
                want = _question_text(q) if q is not None else "the hand's result"
                raise Divergence(index, number, f"a fault of seat {seat} on `{question}`", want)
        self.log.check(number, rec)  # its text fields as the record defines them (a kind mjref knows): exit 2
        faulted.add(seat)
        self.fault_counts[seat - 1] += 1
        return FaultSeen(index, number, seat, str(rec.get("kind")), question, rec.get("line"), str(rec.get("detail")))

    def _result(self, rec: dict[str, Any], number: int, hand: Hand, setup: HandSetup, faults: list[FaultSeen],
                faulted: set[int], first_line: int) -> HandEnd:
        result = hand.result
        assert result is not None
        for seat in (1, 2, 3, 4):
            if seat in self._due:
                raise Divergence(setup.index, number, "the hand's result", self._forfeit_text(seat))
        penalties = fault_settlement(sorted(faulted), self.rules)
        totals = [self.series.totals[i] + result.scores[i] - penalties[i] for i in range(4)]
        unchecked = UNCHECKED_FIELDS["result"]
        expected = result_record(setup.index, result, penalties, totals, len(faults)).model_dump(exclude=set(unchecked))
        got = {k: v for k, v in _with_defaults(ResultRecord, rec).items() if k not in unchecked}
        diff = _first_difference(got, expected, "result")
        if diff is not None:
            path, log, rules = diff
            raise Divergence(setup.index, number, f"{path} = {_short(log)}", f"{_short(rules)}")
        self.series.record(result, penalties)
        t = self.series.totals
        return HandEnd(setup.index, number, setup, result, penalties, (t[0], t[1], t[2], t[3]), faults, first_line)

    def _aborted(self, rec: dict[str, Any], number: int) -> MatchEnd:
        played = len(self.series.results)
        unchecked = UNCHECKED_FIELDS["aborted"]
        expected = aborted_record("", played, self.series.totals, self.fault_counts).model_dump(exclude=set(unchecked))
        got = {k: v for k, v in _with_defaults(AbortedRecord, rec).items() if k not in unchecked}
        diff = _first_difference(got, expected, "aborted")
        if diff is not None:
            path, log, rules = diff
            raise Divergence(None, number, f"{path} = {_short(log)}", _short(rules))
        signal = rec.get("signal")
        if not isinstance(signal, str):
            raise Divergence(None, number, f"aborted.signal = {_short(signal)}", "the signal's name")
        return MatchEnd(number, played, tuple(self.series.totals), tuple(self.fault_counts), signal)

    def _final(self, rec: dict[str, Any], number: int) -> MatchEnd:
        played = len(self.series.results)
        if played < self.series.planned:
            raise Divergence(None, number, f"the final record after {played} hand{'s' if played != 1 else ''}",
                             f"hand {played + 1} (the header plans {self.series.planned})")
        unchecked = UNCHECKED_FIELDS["final"]
        expected = final_record(played, self.series.totals, self.fault_counts).model_dump(exclude=set(unchecked))
        got = {k: v for k, v in _with_defaults(FinalRecord, rec).items() if k not in unchecked}
        diff = _first_difference(got, expected, "final")
        if diff is not None:
            path, log, rules = diff
            raise Divergence(None, number, f"{path} = {_short(log)}", _short(rules))
        return MatchEnd(number, played, tuple(self.series.totals), tuple(self.fault_counts))


def _hand_no(value: Any) -> str:
    return str(value + 1) if isinstance(value, int) and not isinstance(value, bool) else _short(value)


# ---------------------------------------------------------------------------------------------------- reports
@dataclass(slots=True)
class HandReport:
    """One verified hand: its setup, the engine's result, the log lines it spans, and optionally its steps."""

    end: HandEnd
    steps: list[Step] | None = None
    begin: HandBegin | None = None
    snapshots: list[dict[int, dict[str, Any]]] | None = None  # per step (and the deal first): every seat's tiles

    @property
    def index(self) -> int:
        return self.end.index


@dataclass(slots=True)
class ReplayReport:
    path: Path
    header: HeaderRecord
    rules: Ruleset
    hands: list[HandReport] = field(default_factory=list)
    divergence: Divergence | None = None
    records: int = 0
    faults: list[FaultSeen] = field(default_factory=list)
    detail: HandReport | None = None  # the hand asked for with ``detail``, when it was reached (even unfinished)
    aborted: str | None = None  # the log ends with an ``aborted`` record: the signal that stopped the match

    @property
    def ok(self) -> bool:
        return self.divergence is None


def seat_tiles(hand: Hand, seat: int) -> dict[str, Any]:
    """One seat's tiles as the referee sees them: concealed (sorted), melds, flowers."""
    return {"concealed": hand.concealed(seat), "melds": [_meld_json(m) for m in hand.melds(seat)],
            "flowers": hand.flowers(seat)}


def replay_log(path: Path | str, *, detail: int | None = None) -> ReplayReport:
    """Verify a whole log.  ``detail``: a 0-based hand whose steps and tiles after each step are kept.

    Raises ``referee.log.LogError`` for a file that is not a replayable log; a mismatch is returned as
    ``report.divergence`` (the hands before it are in ``report.hands``).
    """
    walker = LogWalker(path)
    report = ReplayReport(walker.path, walker.header, walker.rules)
    current: HandReport | None = None
    try:
        for item in walker.items(steps=detail is not None):
            if isinstance(item, Step):
                if current is not None:
                    assert current.steps is not None and current.snapshots is not None
                    current.steps.append(item)
                    hand = walker.hand
                    assert hand is not None
                    current.snapshots.append({p: seat_tiles(hand, p) for p in (1, 2, 3, 4)})
            elif isinstance(item, HandBegin):
                if item.index == detail:
                    current = HandReport(end=None, steps=[], begin=item,  # type: ignore[arg-type]
                                         snapshots=[{p: seat_tiles(item.hand, p) for p in (1, 2, 3, 4)}])
                    report.detail = current
                else:
                    current = None
            elif isinstance(item, FaultSeen):
                report.faults.append(item)
            elif isinstance(item, HandEnd):
                if current is not None and current.begin is not None and current.begin.index == item.index:
                    current.end = item
                    report.hands.append(current)
                    current = None
                else:
                    report.hands.append(HandReport(item))
            elif isinstance(item, MatchEnd):
                report.aborted = item.aborted
    except Divergence as d:
        report.divergence = d
    report.records = walker.records
    return report

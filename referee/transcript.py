"""Transcripts: the exact protocol lines one seat received and sent, rebuilt from a match log.

The log records engine events with their audience, the questions' kinds and the answers, so the lines a seat's
bot saw can be rebuilt with the same codec functions the referee used to send them (``format_start``,
``format_event``, ``format_question``), in the same order: a process seat buffers the events it may see and
writes them just before its next question, which does not change their order.

Decisions (also in docs/authoring.md):

* A fault is shown where it happened: the question, the bot's offending line if it sent one (with the time it
  took), the fault itself, and for a process bot the bare ``/exit`` the referee sends before ending it.  The
  lines after it in that hand went to the default dummy, not to the bot: they are still listed (so the hand can
  be followed), each marked ``dummy``.
* A built-in seat receives events, not lines; its transcript shows the lines a process in its place would have
  received, ``/flower`` lines included (built-in bots see flowers).  A process seat gets ``/flower`` lines only
  with the ``flower`` extension, as in the match.
* A bot that did not start (a ``start_failed`` fault) received nothing: its transcript starts with the fault.
* A bot's answer is shown as it sent it (the log's ``raw`` line: ``/eat 350 341``, a ``\\r``, extra blanks), not as
  the referee normalised it; in the plain-text form, control characters are shown escaped (``\\r``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from referee.errors import InputError, printable
from referee.log import (
    AnswerRecord,
    EventRecord,
    FaultRecord,
    HandRecord,
    HeaderRecord,
    LogError,
    ResultRecord,
    SeatInfo,
    open_log,
)
from wrappers.codec import format_event, format_start

__all__ = ["TranscriptHand", "TranscriptLine", "format_transcript", "transcript"]

Direction = Literal["<", ">", "!"]


@dataclass(slots=True)
class TranscriptLine:
    """One line: ``<`` sent to the seat, ``>`` sent by it, ``!`` a fault.  ``by`` is ``dummy`` after a fault."""

    dir: Direction
    text: str
    log_line: int
    by: Literal["bot", "dummy"] = "bot"
    ms: float | None = None
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"dir": self.dir, "text": self.text, "by": self.by, "log_line": self.log_line}
        if self.ms is not None:
            out["ms"] = self.ms
        if self.note:
            out["note"] = self.note
        return out


@dataclass(slots=True)
class TranscriptHand:
    index: int
    round_wind: str
    hand_wind: str
    dealer: int
    lines: list[TranscriptLine] = field(default_factory=list)
    faulted: bool = False
    complete: bool = False  # the hand's result was reached in the log

    def to_json(self) -> dict[str, Any]:
        return {"hand": self.index + 1, "round_wind": self.round_wind, "hand_wind": self.hand_wind,
                "dealer": self.dealer, "faulted": self.faulted, "complete": self.complete,
                "lines": [x.to_json() for x in self.lines]}


def _seat_info(header: HeaderRecord, seat: int) -> SeatInfo:
    for s in header.seats:
        if s.position == seat:
            return s
    raise LogError(f"seat {seat}: the log has no such seat")


def transcript(path: Path | str, seat: int, hand: int | None = None) -> tuple[HeaderRecord, list[TranscriptHand]]:
    """The lines seat ``seat`` received and sent, hand by hand (only 0-based ``hand`` if given).

    Raises ``LogError`` for a file that is not a log, a broken record, or a hand the log lacks.
    A log cut off half-way gives the hands (and the part of the last hand) it holds.
    """
    if seat not in (1, 2, 3, 4):
        raise InputError(f"seat {seat}: seats are 1..4")
    log = open_log(path)
    header = log.header
    info = _seat_info(header, seat)
    process = info.kind == "process"
    extensions = frozenset(info.extensions) if process else frozenset({"flower"})
    ai_path = (info.cmd or [""])[0] if process else ""
    hands: list[TranscriptHand] = []
    cur: TranscriptHand | None = None
    faulted = False
    pending_fault: TranscriptLine | None = None  # the bot's offending line, waiting for the answer record's time
    for number, rec in log.records(strict=False):  # a last line cut off half-way is left out
        if isinstance(rec, HandRecord):
            cur = None
            if hand is None or rec.hand == hand:
                cur = TranscriptHand(rec.hand, rec.round_wind, rec.hand_wind, rec.dealer)
                hands.append(cur)
                faulted = False
                pending_fault = None
                cur.lines.append(TranscriptLine("<", format_start(seat, ai_path), number))
            continue
        if cur is None or getattr(rec, "hand", None) != cur.index:
            continue
        by: Literal["bot", "dummy"] = "dummy" if faulted else "bot"
        if isinstance(rec, EventRecord):
            if seat not in rec.to:
                continue
            line = format_event(rec.to_event(), extensions=extensions)
            if line is not None:
                cur.lines.append(TranscriptLine("<", line, number, by))
        elif isinstance(rec, AnswerRecord) and rec.seat == seat:
            if pending_fault is not None:
                pending_fault.ms = rec.ms
                pending_fault = None
            else:
                cur.lines.append(TranscriptLine("<", f"/ask {rec.ask}", number, by))
            dummy = rec.by == "dummy"
            cur.lines.append(TranscriptLine(">", rec.raw if rec.raw is not None else rec.answer, number,
                                            "dummy" if dummy else "bot", None if dummy else rec.ms))
        elif isinstance(rec, FaultRecord) and rec.seat == seat:
            if rec.question is None:  # the bot failed before its first question
                if cur.lines and cur.lines[-1].text.startswith("/start ") and rec.kind == "start_failed":
                    cur.lines.pop()  # it never started, so it never read /start
            else:
                cur.lines.append(TranscriptLine("<", rec.question, number))
                if rec.line is not None:
                    pending_fault = TranscriptLine(">", rec.line, number)
                    cur.lines.append(pending_fault)
            cur.lines.append(TranscriptLine("!", f"fault {rec.kind}: {rec.detail}", number))
            if process and rec.kind != "start_failed":
                cur.lines.append(TranscriptLine("<", "/exit", number, note="the referee ends the bot"))
            if rec.question is not None and pending_fault is None:
                pending_fault = TranscriptLine(">", "", number)  # no line sent: the time goes nowhere
            cur.faulted = faulted = True
        elif isinstance(rec, ResultRecord):
            cur.complete = True
    if hand is not None and not hands:
        raise LogError(f"hand {hand + 1}: {path} has no such hand")
    return header, hands


def format_transcript(header: HeaderRecord, seat: int, hands: list[TranscriptHand]) -> str:
    """Plain text: ``<  /initCard …`` for lines to the bot, ``>  /throw 112   (3.1 ms)`` for its answers."""
    info = _seat_info(header, seat)
    what = {"process": f"process: {' '.join(info.cmd or [])}", "remote": f"remote, through a wrapper: {info.spec}",
            "human": f"a person at the play page: {info.spec}"}.get(info.kind, f"built-in {info.spec}")
    out: list[str] = []
    for h in hands:
        out.append(f"# hand {h.index + 1} ({h.round_wind} round, {h.hand_wind} hand, dealer {h.dealer}), "
                   f"seat {seat}: {info.name} ({what})")
        if info.kind == "builtin":
            out.append("# a built-in bot gets events, not lines: these are the lines a process in its place gets")
        elif info.kind == "human":
            out.append("# the page gets its seat's view, not lines: these are the lines a process in its place gets")
        dummy_noted = False
        for x in h.lines:
            if x.dir == ">" and not x.text:
                continue
            if x.by == "dummy" and not dummy_noted:
                out.append("# from here the default dummy plays this seat; the bot saw none of these lines")
                dummy_noted = True
            text = f"{x.dir}  {printable(x.text)}"
            extra = []
            if x.ms is not None:
                extra.append(f"{x.ms:g} ms")
            if x.by == "dummy":
                extra.append("dummy")
            if x.note:
                extra.append(x.note)
            if extra:
                text = f"{text:<40} ({', '.join(extra)})"
            out.append(text)
        if not h.complete:
            out.append("# the log ends here, before the hand's result")
    # every line for a terminal: control characters (a bot's ``\\r``, a tab; an escape in a crafted log's command
    # or wind) escaped, everything else as it is
    return "\n".join(printable(line) for line in out)

"""mj-server's hand histories (``hand-NN.mjs``) read from disk and verified against mjref's Chinese Classical rules.

The reading of one history's text and its replay are pure (``referee.game.classical.history`` and ``.table``);
this module finds the files (a folder gives its ``hand-*.mjs`` in order), reads them with a size bound, and
collects the verdicts for ``mjref replay``.  A file that is not a history is an ``InputError`` naming it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.errors import InputError
from referee.game.classical.history import HandHistory, parse_history
from referee.game.classical.table import Difference, HandCheck, check_history
from referee.game.classical.wallfile import HistoryDeal, history_deal
from referee.game.records import record
from referee.game.wall import Wall
from referee.userfiles import read_bytes, utf8_text

MAX_BYTES = 8 * 1024 * 1024  # a history is some 20 KB; anything this large is not one
SUFFIX = ".mjs"


def is_history_path(path: Path) -> bool:
    """Whether ``mjref replay`` should read ``path`` as mj-server histories: a ``.mjs`` file or a folder."""
    return path.suffix == SUFFIX or os.path.isdir(path)  # (never an OSError for a name too long)


def history_files(paths: Iterable[Path]) -> list[Path]:
    """The history files named: files as given, a folder's ``*.mjs`` (mj-server writes ``hand-NN.mjs``) sorted
    by name."""
    out: list[Path] = []
    for p in paths:
        if os.path.isdir(p):
            found = sorted(p.glob(f"*{SUFFIX}"))
            if not found:
                raise InputError(f"{p}: a directory without mj-server hand histories (*{SUFFIX} files)")
            out += found
        elif os.path.isfile(p) or os.path.lexists(p):
            out.append(p)  # (a FIFO, a device, a symlink loop: read_history says what it is)
        else:
            raise InputError(f"{p}: no such file or folder")
    return out


def read_history(path: Path) -> HandHistory:
    data = read_bytes(path, max_bytes=MAX_BYTES)
    if b"\0" in data:
        raise InputError(f"{path}: a binary file, not an mj-server hand history")
    return parse_history(utf8_text(data, str(path)), str(path))


@record(slots=True)
class Verified:
    path: Path
    history: HandHistory
    check: HandCheck


@dataclass(slots=True)
class HistoryReport:
    """The verdict on a set of histories: each one checked, up to and including the first that differs."""

    hands: list[Verified] = field(default_factory=list)

    @property
    def first(self) -> tuple[Path, Difference] | None:
        for v in self.hands:
            if v.check.difference is not None:
                return v.path, v.check.difference
        return None

    @property
    def ok(self) -> bool:
        return self.first is None

    @property
    def items(self) -> int:
        return sum(v.check.items for v in self.hands)


def verify_histories(paths: Iterable[Path], *, no_special_scores: bool = False) -> HistoryReport:
    """Read every history (all are read first: a malformed one is refused before any verdict), then replay each
    and compare, stopping at the first difference."""
    histories = [(p, read_history(p)) for p in history_files(paths)]
    for _, h in histories:
        history_deal(h)  # its wall checked whole (each tile once), as --wallfile checks it: else not mj-server's
    report = HistoryReport()
    for p, h in histories:
        check = check_history(h, no_special_scores=no_special_scores)
        report.hands.append(Verified(p, h, check))
        if check.difference is not None:
            break
    return report


def history_deals(paths: Iterable[Path]) -> list[HistoryDeal]:
    """The deals of the histories named (files, or folders of ``*.mjs``), every one read and its wall checked
    before any is used: what ``mjref match --wallfile`` deals."""
    return [history_deal(read_history(p)) for p in history_files(paths)]


def history_walls(paths: list[Path], rules: Any, rules_name: str | None) -> tuple[list[Wall], Any]:
    """``mjref match --wallfile`` with histories: their walls, and the classical ruleset to play them under (their
    options; the match's own options from ``rules``, the ruleset ``--rules`` named ``rules_name`` and ``--set``
    made).  Refused: another family, options that differ from the histories', histories the match would deal
    otherwise (``check_match_order``)."""
    from referee.game.classical.options import GameOptions
    from referee.game.classical.wallfile import check_match_order, history_rules

    if getattr(rules, "family", "taiwan16") != "classical":
        raise InputError(f"--wallfile {paths[0]}: an mj-server hand history deals Chinese Classical under its own "
                         f"options, not --rules {rules_name}")
    deals = history_deals(paths)
    given, theirs = rules.options, deals[0].options
    if given != GameOptions() and given != theirs:  # options given by --rules or --set that the history overrides
        name = next(k for k in GameOptions.model_fields if getattr(given, k) != getattr(theirs, k))
        raise InputError(f"--wallfile {deals[0].history.name}: the history's option {name} is "
                         f"{getattr(theirs, name)}, the ruleset's {getattr(given, name)}: a history is played under "
                         "its own options (drop the --rules or --set that changes them)")
    rules = history_rules(deals, rules)
    check_match_order(deals, rules)
    return [d.wall for d in deals], rules


def write_history_log(deals: list[HistoryDeal], path: Path, *, overwrite: bool = False) -> int:
    """Write the mjref log of mj-server's game: each history's hand dealt from its wall (``wallfile``) and played
    by its own moves (``follow``), as ``mjref match --wallfile`` with mj-server's players would log it: a log that
    ``mjref replay`` verifies and ``mjref replay --against`` compares with the histories.  The log holds the hands
    up to the first the engine cannot follow (``follow``'s difference); returns how many."""
    from referee.game.classical.follow import follow
    from referee.game.classical.wallfile import check_match_order, history_rules
    from referee.game.series import Series
    from referee.log import (
        LogWriter,
        SeatInfo,
        answer_line,
        event_line,
        final_record,
        hand_record,
        header_record,
        result_record,
    )
    from referee.userfiles import check_output_file

    rules = history_rules(deals)
    check_match_order(deals, rules)
    played = []
    for deal in deals:  # every hand followed first: the log holds the ones the engine follows to their end
        f = follow(deal, rules)
        if f.difference is not None or f.hand.result is None:
            break
        played.append(f)
    if not played:
        f = follow(deals[0], rules)
        d = f.difference or Difference(deals[0].history.moves[-1].line, "the end", "no end", "an end")
        raise InputError(f"{deals[0].history.name}:{d.line}: mjref's engine cannot follow this hand: {d.what}: mjref "
                         f"{d.mjref}; mj-server {d.mjserver}")
    rules = rules.model_copy(update={"hands": len(played)})  # type: ignore[attr-defined]
    check_output_file(path, "the log", overwrite=overwrite)
    names = {p: deals[0].history.players[pid] for pid, p in deals[0].positions.items()}
    seats = [SeatInfo(position=p, name=f"{names[p]}", kind="process", spec="mj-player (mj-server's hand history)")
             for p in (1, 2, 3, 4)]
    series = Series(rules, len(played))  # type: ignore[arg-type]
    writer = LogWriter.open(path)
    try:
        writer.write(header_record(0, rules, seats, len(played), walls_from_file=True))  # type: ignore[arg-type]
        log = writer.line_writer()
        assert log is not None
        for f in played:
            setup = series.next_setup()
            assert setup is not None and f.hand.result is not None
            writer.write(hand_record(setup, f.deal.wall))
            for q, a, events in f.steps:
                if q is not None and a is not None:
                    log(answer_line(setup.index, q.seat, q.ask, q.tile, str(a), "bot", 0.0))
                for e in events:
                    log(event_line(setup.index, e))
            series.record(f.hand.result)
            t = series.totals
            writer.write(result_record(setup.index, f.hand.result, (0, 0, 0, 0), (t[0], t[1], t[2], t[3]), 0))
        writer.write(final_record(len(played), series.totals, [0, 0, 0, 0]))
    finally:
        writer.flush()
        writer.close()
    return len(played)

"""mj-server's hand histories (``hand-NN.mjs``) read from disk and verified against mjref's Chinese Classical rules.

The reading of one history's text and its replay are pure (``referee.game.classical.history`` and ``.table``);
this module finds the files (a folder gives its ``hand-*.mjs`` in order), reads them with a size bound, and
collects the verdicts for ``mjref replay``.  A file that is not a history is an ``InputError`` naming it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from referee.errors import InputError
from referee.game.classical.history import HandHistory, parse_history
from referee.game.classical.table import Difference, HandCheck, check_history
from referee.game.classical.wallfile import HistoryDeal, history_deal
from referee.userfiles import read_bytes, utf8_text

MAX_BYTES = 8 * 1024 * 1024  # a history is some 20 KB; anything this large is not one
SUFFIX = ".mjs"


def is_history_path(path: Path) -> bool:
    """Whether ``mjref replay`` should read ``path`` as mj-server histories: a ``.mjs`` file or a folder."""
    return path.suffix == SUFFIX or path.is_dir()


def history_files(paths: Iterable[Path]) -> list[Path]:
    """The history files named: files as given, a folder's ``*.mjs`` (mj-server writes ``hand-NN.mjs``) sorted
    by name."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            found = sorted(p.glob(f"*{SUFFIX}"))
            if not found:
                raise InputError(f"{p}: a directory without mj-server hand histories (*{SUFFIX} files)")
            out += found
        elif p.is_file():
            out.append(p)
        else:
            raise InputError(f"{p}: no such file or folder")
    return out


def read_history(path: Path) -> HandHistory:
    data = read_bytes(path, max_bytes=MAX_BYTES)
    if b"\0" in data:
        raise InputError(f"{path}: a binary file, not an mj-server hand history")
    return parse_history(utf8_text(data, str(path)), str(path))


@dataclass(slots=True)
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

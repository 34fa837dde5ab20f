"""What one seat got out of one match: the one typed record from the match, through the results store, to the
standings.

Why a module of its own: the match fills it (``referee.match``), the store keeps its fields as the columns of its
``seats`` table (``tournaments.store``), the live tournament view and the regression test read it, and the
statistics sum it (``tournaments.stats``).  Before, each of those had its own shape (a summary, a dict of string keys,
a row): a field added in one was silently missing in another.  It is a mutable slotted dataclass, not a pydantic
model, because the match's hot loop adds to ``answers`` and ``answer_seconds`` once per question; nothing here is
read from an untrusted source (the store checks its cells' types itself).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import astuple, dataclass, fields
from typing import Any


@dataclass(slots=True)
class SeatResult:
    """One seat of one match.  The fields up to ``max_answer_seconds`` are the store's ``seats`` columns, in order."""

    position: int  # 1..4
    bot: str  # the bot's name: in a match its seat name (``greedy#2`` when two seats share a name), in a store the
    # tournament's name for it
    points: float = 0  # the match total (an int from a match; simulations may give floats)
    rank: float = 0.0  # 1 = most points; ties share the mean of their places
    hands: int = 0  # hands played
    wins: int = 0
    self_draws: int = 0  # wins by self-draw (or by flowers)
    deal_ins: int = 0  # throws another seat won on (one per throw, however many won on it)
    faults: int = 0
    answers: int = 0  # questions the bot itself answered (not its stand-in)
    answer_seconds: float = 0.0  # their summed answer time
    max_answer_seconds: float = 0.0
    spec: str = ""  # the bot spec as given (``BotSpec.describe``); shown by ``mjref match``, not kept in the store

    @property
    def mean_answer_ms(self) -> float:
        return round(1000 * self.answer_seconds / self.answers, 3) if self.answers else 0.0

    def row(self) -> tuple[Any, ...]:
        """The values of the store's ``seats`` columns (without ``match_id``), in column order."""
        return astuple(self)[:len(STORE_COLUMNS)]

    def to_json(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in FIELDS}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeatResult:
        return cls(**{k: v for k, v in data.items() if k in FIELDS})


FIELDS = tuple(f.name for f in fields(SeatResult))
STORE_COLUMNS = FIELDS[:FIELDS.index("max_answer_seconds") + 1]
"""The ``seats`` table's columns after ``match_id``."""


def rank_places(points: Sequence[float]) -> list[float]:
    """Rank per seat, 1 = most points; ties share the mean of their places (two seats tied for first: 1.5 each)."""
    out = []
    for t in points:
        better = sum(1 for u in points if u > t)
        equal = sum(1 for u in points if u == t)
        out.append(better + (equal + 1) / 2)
    return out


__all__ = ["FIELDS", "STORE_COLUMNS", "SeatResult", "rank_places"]

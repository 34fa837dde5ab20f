"""Schedules: which four bots meet, on which seed, in which seating, computed match by match.

* **round-robin**: every group of four of the N bots (C(N, 4) tables);
* **gauntlet**: the first bot against every group of three others (C(N-1, 3) tables).

Fewer bots than a table needs: the default dummy fills the empty seats.  With ``duplicate``, each table plays
each seed once per seating (the 4 rotations, or all 24 permutations), so every bot sits in every seat of every
wall and the luck of the deal cancels within the *duplicate group* (one table of bots on one seed).  Without it,
each table plays each seed once, its seating rotated by the seed's index so seats stay balanced.

The order is fixed and arithmetic (docs/tournaments.md): match ``index`` is

    index = (table * seeds + seed_index) * per_seed + seating          (per_seed: 4 or 24 with duplicate, else 1)

with tables in the lexicographic order of ``itertools.combinations`` over the bots as the file lists them, seeds
in the file's order and seatings in the order of :func:`seatings`.  :class:`Schedule` turns an index into its match
(and back) without building the list, so a tournament of a million seeds starts at once and its memory does not
grow with its size; a resumed run asks the store which indices are recorded and plays the others, in order.

Match IDs are stable (``g0003-s17-r02``): a resumed tournament recognises what it has already played.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import permutations
from math import comb
from typing import overload

from .config import DUMMY_PREFIX, TournamentConfig

# Every match ID a schedule makes (``g0000-s7-r01``, regress's ``s7-c0``): a reader of a store refuses any other, since
# an ID names files (``report --with-matches`` writes ``<id>.html``).
MATCH_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")

_ROTATIONS = tuple(tuple((i + k) % 4 for i in range(4)) for k in range(4))
_PERMUTATIONS = tuple(permutations(range(4)))


@dataclass(frozen=True, slots=True)
class ScheduledMatch:
    id: str  # fits MATCH_ID: it names the match's log and viewer files
    index: int
    group: str  # the duplicate group: one table of bots on one seed
    seed: int
    rotation: int
    seats: tuple[str, str, str, str]  # bot names in seats 1..4


def tables(names: list[str], fmt: str, dummy: str) -> list[tuple[str, ...]]:
    """The tables of four that meet, in schedule order (small fields only: :class:`Schedule` never lists them)."""
    sched = _Tables(names, fmt, dummy)
    return [sched.table(i) for i in range(sched.count)]


def seatings(table: tuple[str, ...], count: int) -> list[tuple[str, str, str, str]]:
    """The seatings of a table in schedule order: the 4 rotations, or all 24 permutations."""
    order = _PERMUTATIONS if count == 24 else _ROTATIONS
    return [(table[p[0]], table[p[1]], table[p[2]], table[p[3]]) for p in order]


def _unrank_combination(n: int, k: int, rank: int) -> tuple[int, ...]:
    """The ``rank``-th k-combination of range(n) in lexicographic order (that of ``itertools.combinations``)."""
    out: list[int] = []
    c = 0
    for i in range(k):
        while True:
            below = comb(n - c - 1, k - i - 1)  # combinations that pick c here
            if rank < below:
                break
            rank -= below
            c += 1
        out.append(c)
        c += 1
    return tuple(out)


class _Tables:
    """Table number ↔ the bots at it, by arithmetic (C(N, 4) tables are never listed)."""

    def __init__(self, names: list[str], fmt: str, dummy: str) -> None:
        self.names = list(names)
        self.fmt = fmt
        self.filler = f"{DUMMY_PREFIX}-{dummy}"
        if fmt == "gauntlet":
            rest = len(names) - 1
            self.count = 1 if rest < 3 else comb(rest, 3)
        else:
            self.count = 1 if len(names) < 4 else comb(len(names), 4)

    def table(self, i: int) -> tuple[str, ...]:
        names = self.names
        if self.fmt == "gauntlet":
            first, rest = names[0], names[1:]
            if len(rest) < 3:
                return (first, *rest, *[self.filler] * (3 - len(rest)))
            return (first, *(rest[j] for j in _unrank_combination(len(rest), 3, i)))
        if len(names) < 4:
            return (*names, *[self.filler] * (4 - len(names)))
        return tuple(names[j] for j in _unrank_combination(len(names), 4, i))


class Schedule(Sequence[ScheduledMatch]):
    """Every match of a tournament, by index, computed on demand (see the module docstring for the order)."""

    def __init__(self, config: TournamentConfig, dummy: str = "greedy") -> None:
        self._tables = _Tables([b.name for b in config.bots], config.format, dummy)
        self._seeds: int | list[int] = config.seeds
        self.seed_count = config.seeds if isinstance(config.seeds, int) else len(config.seeds)
        self.duplicate = config.duplicate
        self.per_seed = config.seatings if config.duplicate else 1
        self._order = _PERMUTATIONS if config.seatings == 24 else _ROTATIONS
        self._cached: tuple[int, tuple[str, ...]] = (-1, ())

    def __len__(self) -> int:
        return self._tables.count * self.seed_count * self.per_seed

    @property
    def table_count(self) -> int:
        return self._tables.count

    def seed_at(self, s_index: int) -> int:
        return s_index + 1 if isinstance(self._seeds, int) else self._seeds[s_index]

    def _table(self, t: int) -> tuple[str, ...]:
        if self._cached[0] != t:  # consecutive indices share a table: unrank it once
            self._cached = (t, self._tables.table(t))
        return self._cached[1]

    def match(self, index: int) -> ScheduledMatch:
        if not 0 <= index < len(self):
            raise IndexError(f"match index {index} is outside the schedule (0..{len(self) - 1})")
        rest, r = divmod(index, self.per_seed)
        t, s_index = divmod(rest, self.seed_count)
        seed = self.seed_at(s_index)
        table = self._table(t)
        if not self.duplicate:
            r = s_index % 4
            p = _ROTATIONS[r]
        else:
            p = self._order[r]
        group = f"g{t:04d}-s{seed}"
        seats = (table[p[0]], table[p[1]], table[p[2]], table[p[3]])
        return ScheduledMatch(f"{group}-r{r:02d}", index, group, seed, r, seats)

    @overload
    def __getitem__(self, index: int) -> ScheduledMatch: ...
    @overload
    def __getitem__(self, index: slice) -> list[ScheduledMatch]: ...

    def __getitem__(self, index: int | slice) -> ScheduledMatch | list[ScheduledMatch]:
        if isinstance(index, slice):
            return [self.match(i) for i in range(*index.indices(len(self)))]
        return self.match(index + len(self) if index < 0 else index)

    def __iter__(self) -> Iterator[ScheduledMatch]:
        return self.from_index(0)

    def from_index(self, start: int) -> Iterator[ScheduledMatch]:
        """The matches from ``start`` on, in order, one at a time."""
        for i in range(start, len(self)):
            yield self.match(i)


def build_schedule(config: TournamentConfig, dummy: str = "greedy") -> list[ScheduledMatch]:
    """The whole schedule as a list: for tests and small tournaments (the runner streams :class:`Schedule`)."""
    return list(Schedule(config, dummy))


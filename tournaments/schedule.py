"""Schedules: which four bots meet, on which seed, in which seating.

* **round-robin**: every group of four of the N bots (C(N, 4) groups);
* **gauntlet**: the first bot against every group of three others (C(N-1, 3) groups).

Fewer bots than a table needs: the default dummy fills the empty seats.  With ``duplicate``, each group plays
each seed once per seating (the 4 rotations, or all 24 permutations), so every bot sits in every seat of every
wall and the luck of the deal cancels within the *duplicate group* (one group of bots on one seed).  Without it,
each group plays each seed once, its seating rotated by the seed's index so seats stay balanced.

Match IDs are stable (``g0003-s17-r2``): a resumed tournament recognises what it has already played.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, permutations

from .config import TournamentConfig

DUMMY_PREFIX = "dummy"


@dataclass(frozen=True, slots=True)
class ScheduledMatch:
    id: str
    index: int
    group: str  # the duplicate group: one table of bots on one seed
    seed: int
    rotation: int
    seats: tuple[str, str, str, str]  # bot names in seats 1..4


def tables(names: list[str], fmt: str, dummy: str) -> list[tuple[str, ...]]:
    """The groups of four that meet, in a stable order."""
    if fmt == "gauntlet":
        first, rest = names[0], names[1:]
        if len(rest) < 3:
            rest = rest + [f"{DUMMY_PREFIX}-{dummy}"] * (3 - len(rest))
            return [(first, *rest)]
        return [(first, *trio) for trio in combinations(rest, 3)]
    if len(names) < 4:
        return [tuple(names) + (f"{DUMMY_PREFIX}-{dummy}",) * (4 - len(names))]
    return list(combinations(names, 4))


def seatings(table: tuple[str, ...], count: int) -> list[tuple[str, str, str, str]]:
    if count == 24:
        return [tuple(p) for p in permutations(table)]  # type: ignore[misc]
    return [tuple(table[(i + k) % 4] for i in range(4)) for k in range(4)]  # type: ignore[misc]


def build_schedule(config: TournamentConfig, dummy: str = "greedy") -> list[ScheduledMatch]:
    names = [b.name for b in config.bots]
    out: list[ScheduledMatch] = []
    for g, table in enumerate(tables(names, config.format, dummy)):
        for s_index, seed in enumerate(config.seed_list):
            group = f"g{g:04d}-s{seed}"
            if config.duplicate:
                for r, seats in enumerate(seatings(table, config.seatings)):
                    out.append(ScheduledMatch(f"{group}-r{r:02d}", len(out), group, seed, r, seats))
            else:
                r = s_index % 4
                seats = seatings(table, 4)[r]
                out.append(ScheduledMatch(f"{group}-r{r:02d}", len(out), group, seed, r, seats))
    return out

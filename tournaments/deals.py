"""No copy of a deal meets another: which matches may not be in flight together, and the gate that keeps them apart.

Every match a tournament plays on one seed plays the same walls: the four (or 24) seatings of a duplicate group,
and the same seed at every other table.  Two such matches in flight at once let a bot in one learn, through any
channel between boxes, the hands its copy in the other holds (in a duplicate group: its own opponents' hands).
So matches on one set of walls are played one after another, and matches on other walls fill the other slots.

Only a match with a seat that can pass something on (a bot process or a remote seat) is kept apart: a match of
built-in bots tells nobody anything, so it never waits.

:class:`DealGate` hands out a tournament's pending jobs in schedule order, holding back a job whose walls are in
flight until they are not; the held-back jobs are few (at most ``HOLD_PER_SLOT`` per slot), so the runner's memory
stays flat whatever the tournament's size.  The same key (:func:`deal_key`) names the lock a Dask task holds on its
worker while it plays (``tournaments.distributed``), so that a task left running by a coordinator killed mid-run
and the resumed run's next seating of that deal never play at once either.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

import trio

if TYPE_CHECKING:
    from .runner import MatchJob

HOLD_PER_SLOT = 24  # held-back jobs per slot: every seating of one group (24 with seatings = 24) waits in order


def deal_key(job: MatchJob) -> str | None:
    """What the matches that may not meet share: a short hash of the walls' seed (the seed itself is the walls'
    secret, and the key shows in lock names); None for a match of built-in bots only, which may meet anything."""
    if job.builtin_only:
        return None
    return hashlib.sha256(f"mjref-deal/1|{job.wall_seed}".encode()).hexdigest()[:16]


class DealGate:
    """The jobs of ``jobs`` in order, except that a job waits while another job on its walls is in flight.

    ``await next()`` gives the next job that may start (None when every job was given out); ``done(job)`` says a
    job given out is no longer in flight.  At most ``slots * HOLD_PER_SLOT`` jobs are held back at a time: past
    that, ``next()`` waits for a job to finish rather than read further ahead."""

    def __init__(self, jobs: Iterator[MatchJob], slots: int) -> None:
        self._jobs = jobs
        self._limit = max(1, slots) * HOLD_PER_SLOT
        self._held: list[tuple[str | None, MatchJob]] = []  # (deal_key, job) in schedule order
        self._busy: set[str] = set()
        self._exhausted = False
        self._changed = trio.Event()

    async def next(self) -> MatchJob | None:
        while True:
            taken = self._take()
            if taken is not None:
                key, job = taken
                if key is not None:
                    self._busy.add(key)
                return job
            if self._exhausted and not self._held:
                return None
            await self._changed.wait()  # everything at hand is held back: a deal in flight must end first

    def done(self, job: MatchJob) -> None:
        key = deal_key(job)
        if key is not None:
            self._busy.discard(key)
        self._changed.set()
        self._changed = trio.Event()

    def _take(self) -> tuple[str | None, MatchJob] | None:
        for i, (key, job) in enumerate(self._held):
            if key is None or key not in self._busy:
                del self._held[i]
                return key, job
        while not self._exhausted and len(self._held) < self._limit:
            upcoming = next(self._jobs, None)
            if upcoming is None:
                self._exhausted = True
                break
            key = deal_key(upcoming)
            if key is None or key not in self._busy:
                return key, upcoming
            self._held.append((key, upcoming))
        return None


__all__ = ["HOLD_PER_SLOT", "DealGate", "deal_key"]

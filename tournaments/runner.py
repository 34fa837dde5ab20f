"""The tournament runner: many matches at once, every result kept, resumable after anything.

Structure (a trio tutorial in miniature): one nursery; one task per pending match, each holding a slot of a
``CapacityLimiter(concurrency)``.  A match between built-in bots is CPU-bound pure Python, so it runs in a worker
process (a ``ProcessPoolExecutor`` of ``concurrency`` workers: two cores give close to twice the matches per
second); a match with bot processes is I/O-bound, so it runs as ``run_match`` in this trio process.  Results come
back to this one process, which alone writes the store, one transaction per match: a match is recorded whole or
not at all, and ``kill -9`` at any moment loses at most the matches that were still being played.

Running the same tournament again resumes: finished match IDs are skipped.  A store written by a tournament
with a different identity (bots, rules, seeds, format…) is refused with the differences listed, unless
``restart``.
"""

from __future__ import annotations

import hashlib
import inspect
import multiprocessing
import os
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from bots.base import seat_filler
from referee.errors import InputError
from referee.game.rules import Ruleset
from referee.game.wall import salted_seed
from referee.match import MatchResult, play_match, run_match
from wrappers.spec import BotSpec, SpecError

from .config import ConfigError, TournamentConfig, bot_specs, diff_identity, ruleset_of
from .schedule import DUMMY_PREFIX, ScheduledMatch, build_schedule
from .store import MatchRecord, Store, StoreError


class TournamentError(InputError):
    """A tournament that cannot run (bad file, incompatible store); the message says why."""


@dataclass(frozen=True, slots=True)
class MatchJob:
    """One match to play, self-contained and picklable (for worker processes and Dask)."""

    match: ScheduledMatch
    specs: tuple[BotSpec, BotSpec, BotSpec, BotSpec]
    rules: dict[str, Any]
    log: str | None
    stderr_dir: str | None
    wall_seed: int  # the seed the match is played on: wall.salted_seed(the store's salt, match.seed)

    @property
    def builtin_only(self) -> bool:
        return all(s.builtin is not None for s in self.specs)


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def to_record(job: MatchJob, result: MatchResult) -> MatchRecord:
    """The store's view of a finished match."""
    m = job.match
    ranks = result.ranks()
    wins = [0, 0, 0, 0]
    self_draws = [0, 0, 0, 0]
    deal_ins = [0, 0, 0, 0]
    hand_rows = []
    win_rows = []
    for h in result.hands:
        r = h.result
        for w in r.wins:
            win_rows.append({"hand": h.index, "seat": w.seat, "how": w.how, "thrower": w.thrower, "tile": w.tile,
                             "tai": w.score.tai})
            wins[w.seat - 1] += 1
            if w.how in ("self_draw", "flowers"):
                self_draws[w.seat - 1] += 1
        for thrower in {w.thrower for w in r.wins if w.thrower is not None}:  # one deal-in per throw
            deal_ins[thrower - 1] += 1
        first = r.wins[0] if r.wins else None
        hand_rows.append({
            "hand": h.index, "dealer": h.setup.dealer, "outcome": r.outcome,
            "winner": first.seat if first else None, "how": first.how if first else None,
            "thrower": first.thrower if first else None, "tai": first.score.tai if first else 0,
            "s1": r.scores[0], "s2": r.scores[1], "s3": r.scores[2], "s4": r.scores[3],
            "p1": h.penalties[0], "p2": h.penalties[1], "p3": h.penalties[2], "p4": h.penalties[3],
        })
    seat_rows = []
    for i, s in enumerate(result.seats):
        seat_rows.append({
            "position": i + 1, "bot": m.seats[i], "points": s.total, "rank": ranks[i], "hands": len(result.hands),
            "wins": wins[i], "self_draws": self_draws[i], "deal_ins": deal_ins[i], "faults": s.faults,
            "answers": s.answers, "answer_seconds": s.answer_seconds, "max_answer_seconds": s.max_answer_seconds,
        })
    fault_rows = [
        {"hand": f.hand, "position": f.position, "bot": m.seats[f.position - 1], "kind": f.kind,
         "detail": f.detail, "line": f.line}
        for f in result.faults
    ]
    log = Path(job.log) if job.log else None
    return MatchRecord(
        m.id, m.index, m.group, m.seed, m.rotation, m.seats, len(result.hands),
        (result.seats[0].total, result.seats[1].total, result.seats[2].total, result.seats[3].total),
        job.log, file_sha256(log) if log and log.exists() else None, result.seconds,
        tuple(seat_rows), tuple(hand_rows), tuple(fault_rows), tuple(win_rows),
    )


def _job_kwargs(job: MatchJob) -> dict[str, Any]:
    return {
        "seed": job.wall_seed,
        "rules": Ruleset.model_validate(job.rules),
        "log_path": Path(job.log) if job.log else None,
        "stderr_dir": Path(job.stderr_dir) if job.stderr_dir else None,
    }


def run_job(job: MatchJob) -> MatchRecord:
    """Play one match synchronously and return its record (what a worker process or a Dask task runs)."""
    result = play_match(list(job.specs), **_job_kwargs(job))
    return to_record(job, result)


async def run_job_async(job: MatchJob, *, shared_loop: bool = True) -> MatchRecord:
    """Play one match in this trio loop; ``shared_loop``: other matches run in it too (no blocking waits)."""
    kwargs = _job_kwargs(job)
    if shared_loop:
        kwargs["block_ms"] = 0.0
    result = await run_match(list(job.specs), **kwargs)
    return to_record(job, result)


# trio 0.23 renamed ``cancellable`` to ``abandon_on_cancel``; accept both.
ABANDON_ON_CANCEL = (
    {"abandon_on_cancel": True}
    if "abandon_on_cancel" in inspect.signature(trio.to_thread.run_sync).parameters
    else {"cancellable": True}
)


def worker_init() -> None:
    # Ctrl-C is the coordinator's to handle: it stops the workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@dataclass(slots=True)
class Plan:
    """A tournament ready to run: its schedule, what is left, and the jobs."""

    config: TournamentConfig
    rules: Ruleset
    store_path: Path
    logs_dir: Path
    schedule: list[ScheduledMatch]
    done: set[str]
    jobs: list[MatchJob] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.schedule)


def plan(config: TournamentConfig, base_dir: Path, *, restart: bool = False, where: str = "tournament",
         store_override: Path | None = None) -> Plan:
    """Check everything that can be checked before a match is played, and open (or restart) the store."""
    rules = ruleset_of(config, where)
    specs = bot_specs(config, base_dir, where)
    for spec in specs:
        try:
            spec.check_runnable()
        except SpecError as exc:
            raise TournamentError(f"{where}: {exc}") from None
    by_name: dict[str, BotSpec] = {s.name: s for s in specs}
    try:
        dummy = seat_filler(rules.default_dummy)
    except ValueError as exc:
        raise TournamentError(f"{where}: rule option 'default_dummy': {exc}") from None
    by_name[f"{DUMMY_PREFIX}-{dummy}"] = BotSpec(name=f"{DUMMY_PREFIX}-{dummy}", builtin=dummy)
    store_path = store_override or (base_dir / (config.store or f"{config.name}.sqlite"))
    logs_dir = base_dir / config.logs if config.logs else store_path.with_name(store_path.stem + "-logs")
    schedule = build_schedule(config, dummy)
    try:
        with Store(store_path) as store:
            old = store.identity()
            # A rebuilt bot is another bot: its executable's hash is part of what decides the results.
            new = {**config.identity(),
                   "executables": {s.name: s.executable_hash() for s in specs if s.cmd is not None}}
            if old is not None and old != new:
                if not restart:
                    diffs = diff_identity(old, new)
                    raise TournamentError(
                        f"{store_path}: this store belongs to a different tournament; differences:\n  "
                        + "\n  ".join(diffs) + "\nuse --restart to discard its results, or another store"
                    )
                store.clear()
                old = None
            elif restart:
                store.clear()
                old = None
            if old is None:
                store.initialise(config.name, new, config.wall_salt)
            done = store.finished_ids()
            salt = store.wall_salt()
    except StoreError as exc:
        raise TournamentError(str(exc)) from None
    rules_json = rules.model_dump()
    p = Plan(config, rules, store_path, logs_dir, schedule, done)
    for m in schedule:
        if m.id in done:
            continue
        seat_specs = tuple(by_name[n] for n in m.seats)
        has_process = any(s.builtin is None for s in seat_specs)
        p.jobs.append(MatchJob(m, seat_specs, rules_json, str(logs_dir / f"{m.id}.jsonl"),  # type: ignore[arg-type]
                               str(logs_dir / f"{m.id}.stderr") if has_process else None,
                               salted_seed(salt, m.seed)))
    return p


MatchCallback = Callable[[MatchRecord], None]


class MatchPlayer:
    """Plays ``MatchJob``s where they belong: every job on ``executor`` when one is given (Dask); otherwise matches
    between built-in bots in a local pool (processes, or one thread when there is a single slot) and matches with
    bot processes in this trio loop.  Use it as a context manager: a pool it made is stopped on exit."""

    def __init__(self, jobs: Sequence[MatchJob], workers: int, executor: Any = None) -> None:
        self.workers = workers
        self.executor = executor
        self._pool: Any = executor
        self._own = False
        n_builtin = sum(1 for j in jobs if j.builtin_only)
        if executor is None and n_builtin:
            if workers == 1:
                self._pool = ThreadPoolExecutor(max_workers=1)  # one at a time: no process to spawn
            else:
                self._pool = ProcessPoolExecutor(max_workers=min(workers, n_builtin),
                                                 mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=worker_init)
            self._own = True

    async def play(self, job: MatchJob) -> MatchRecord:
        if self.executor is not None or job.builtin_only:
            fut = self._pool.submit(run_job, job)
            return await trio.to_thread.run_sync(fut.result, **ABANDON_ON_CANCEL)  # type: ignore[no-any-return]
        return await run_job_async(job, shared_loop=self.workers > 1)

    def __enter__(self) -> MatchPlayer:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._own:
            stop_pool(self._pool)


async def execute(
    p: Plan,
    *,
    concurrency: int | None = None,
    on_match: MatchCallback | None = None,
    on_start: Callable[[MatchJob], None] | None = None,
    executor: Any = None,
) -> int:
    """Play the plan's jobs; record each finished match; return how many were recorded.

    ``executor``: an object with ``submit(run_job, job)`` returning a future with a blocking ``result()`` (a
    ``concurrent.futures`` executor, or ``tournaments.distributed``'s Dask executor); when given, every match
    runs there.  Otherwise built-in matches run in a local process pool and process-bot matches in this process.
    """
    workers = concurrency or p.config.workers()
    limiter = trio.CapacityLimiter(workers)
    p.logs_dir.mkdir(parents=True, exist_ok=True)
    recorded = 0
    player = MatchPlayer(p.jobs, workers, executor)
    store = Store(p.store_path)

    def record(rec: MatchRecord) -> None:
        nonlocal recorded
        if store.record(rec):
            recorded += 1
        if on_match is not None:
            on_match(rec)

    async def one(job: MatchJob) -> None:
        async with limiter:
            if on_start is not None:
                on_start(job)
            record(await player.play(job))

    try:
        with player:
            async with trio.open_nursery() as nursery:
                for job in p.jobs:
                    nursery.start_soon(one, job)
    finally:
        store.close()
    return recorded


def stop_pool(pool: Any) -> None:
    if isinstance(pool, ProcessPoolExecutor):
        processes = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in processes:  # a stopped tournament does not wait for matches it will not record
            if proc.is_alive():
                try:
                    os.kill(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        for proc in processes:
            proc.join(timeout=5)
    else:
        shutdown = getattr(pool, "shutdown", None) or getattr(pool, "close", None)
        if shutdown is not None:
            shutdown()


def run_tournament(config: TournamentConfig, base_dir: Path, **kwargs: Any) -> Plan:
    """Synchronous convenience: plan and execute; returns the plan (its store holds the results)."""
    restart = kwargs.pop("restart", False)
    p = plan(config, base_dir, restart=restart)
    trio.run(lambda: execute(p, **kwargs))
    return p


__all__ = [
    "ABANDON_ON_CANCEL", "ConfigError", "MatchJob", "MatchPlayer", "Plan", "TournamentError", "execute", "plan",
    "run_job", "run_tournament", "stop_pool", "to_record", "worker_init",
]

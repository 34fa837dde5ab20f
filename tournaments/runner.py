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
import shutil
import signal
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import trio

from bots.base import seat_filler
from referee.errors import BotError, InputError
from referee.game.family import rules_from_dump
from referee.game.taiwan16.rules import Ruleset, make_ruleset
from referee.game.wall import Wall, salted_seed
from referee.match import FaultInfo, MatchResult, RemoteSeats, play_match, run_match
from referee.shutdown import Shutdown, watching_signals
from referee.userfiles import check_output_dir, check_output_file
from wrappers.identity import file_sha256
from wrappers.process import BoxPool, box_pool
from wrappers.spec import BotSpec, SpecError

from .config import (
    DUMMY_PREFIX,
    BotEntry,
    ConfigError,
    TournamentConfig,
    bot_specs,
    canonical,
    diff_identity,
    ruleset_of,
)
from .deals import DealGate
from .lock import StoreLock
from .openings import Opening, load_openings, openings_digest, seed_openings
from .schedule import Schedule, ScheduledMatch
from .store import (
    FaultRow,
    HandRow,
    MatchRecord,
    Store,
    StoreError,
    WinRow,
    check_integrity,
    connect,
    discard,
    recorded_between,
)


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
    walls: Opening | None = None  # the walls of its hands from the tournament's wallfile (tournaments.openings)

    @property
    def builtin_only(self) -> bool:
        return all(s.builtin is not None for s in self.specs)

    @property
    def public_id(self) -> str:
        """The match's name wherever a bot or a wrapper could see it (the ``seat`` message, the names of its log and
        stderr folder while it is played): a hash of its ID keyed by its secret wall seed, so it names no group,
        seed or seating and two seatings' are unrelated; the same at every attempt, so a resumed run writes over
        what a killed one left.  Logs and the store keep the real ID."""
        return hashlib.sha256(f"mjref-match/1|{self.wall_seed}|{self.match.id}".encode()).hexdigest()[:16]

    @classmethod
    def make(cls, match: ScheduledMatch, specs: Mapping[str, BotSpec], rules: dict[str, Any], logs_dir: Path | None,
             wall_salt: str, walls: Opening | None = None) -> MatchJob:
        """The one way a job is made (tournaments and regressions): seat ``i`` gets ``specs[match.seats[i]]``; with
        ``logs_dir`` the log is ``<id>.jsonl`` there, and the bots' stderr ``<id>.stderr`` when a seat is a process
        (both under the job's ``public_id`` while it is played); the walls are ``wall.salted_seed(wall_salt,
        match.seed)``."""
        seat_specs = tuple(specs[name] for name in match.seats)
        has_process = any(s.builtin is None for s in seat_specs)
        log = str(logs_dir / f"{match.id}.jsonl") if logs_dir is not None else None
        err = str(logs_dir / f"{match.id}.stderr") if logs_dir is not None and has_process else None
        return cls(match, seat_specs, rules, log, err, salted_seed(wall_salt, match.seed),  # type: ignore[arg-type]
                   walls)


def to_record(job: MatchJob, result: MatchResult) -> MatchRecord:
    """The store's view of a finished match: its seats' results under the tournament's names for the bots."""
    m = job.match
    hand_rows = []
    win_rows = []
    for h in result.hands:
        r = h.result
        win_rows += [WinRow(h.index, w.seat, w.how, w.thrower, w.tile, w.score.tai) for w in r.wins]
        first = r.wins[0] if r.wins else None
        s = r.scores
        hand_rows.append(HandRow(h.index, h.setup.dealer, r.outcome, first.seat if first else None,
                                 first.how if first else None, first.thrower if first else None,
                                 first.score.tai if first else 0, (s[0], s[1], s[2], s[3]), h.penalties))
    seats = tuple(replace(s, bot=m.seats[i]) for i, s in enumerate(result.seats))
    fault_rows = [FaultRow(f.hand, f.position, m.seats[f.position - 1], f.kind, f.detail, f.line)
                  for f in result.faults]
    log = Path(job.log) if job.log else None
    t = result.totals
    return MatchRecord(
        m.id, m.index, m.group, m.seed, m.rotation, m.seats, len(result.hands), (t[0], t[1], t[2], t[3]),
        job.log, file_sha256(log) if log and log.exists() else None, result.seconds,
        seats, tuple(hand_rows), tuple(fault_rows), tuple(win_rows), result.play_digest or None,
    )


def part_path(job: MatchJob) -> Path | None:
    """Where a match's log is written while it is played (under its ``public_id``): renamed to its own name only
    once complete."""
    return Path(job.log).with_name(f"{job.public_id}.jsonl.part") if job.log else None


def _stderr_part(job: MatchJob) -> Path | None:
    """Where a match's bots' stderr files are kept while it is played (under its ``public_id``)."""
    return Path(job.stderr_dir).with_name(f"{job.public_id}.stderr.part") if job.stderr_dir else None


def _job_kwargs(job: MatchJob) -> dict[str, Any]:
    return {
        "seed": job.wall_seed,
        "rules": rules_from_dump(job.rules),
        "log_path": part_path(job),
        "stderr_dir": _stderr_part(job),
        "walls": [Wall(tiles) for tiles in job.walls] if job.walls is not None else None,
    }


def _finish(job: MatchJob, result: MatchResult) -> MatchRecord:
    """The bots' stderr folder and then the complete log take their own names (the log's is an atomic rename: a
    log under its own name is always whole), then the record, with the log's SHA-256, is made for the store."""
    err = _stderr_part(job)
    if err is not None and err.is_dir():
        final = Path(job.stderr_dir)  # type: ignore[arg-type]
        if final.is_dir():  # an attempt killed between the two renames, or an empty folder made for this one
            shutil.rmtree(final)
        os.replace(err, final)
    part = part_path(job)
    if part is not None and part.exists():
        _kill_point(job, "before-rename")
        os.replace(part, job.log)  # type: ignore[arg-type]
        _kill_point(job, "after-rename")
    return to_record(job, result)


KILL_POINT_ENV = "MJREF_TEST_KILL_AT"
"""For the kill -9 tests only: ``<point>:<match id>`` (point ``before-rename`` or ``after-rename``) makes the
process that finishes that match SIGKILL its whole process group there: a real kill at the exact moment a log is
being renamed, which random kills rarely hit.  Unset, it costs one lookup per match."""


def _kill_point(job: MatchJob, point: str) -> None:
    wanted = os.environ.get(KILL_POINT_ENV)
    if wanted and wanted == f"{point}:{job.match.id}":
        os.killpg(os.getpgid(0), signal.SIGKILL)


def _discard(job: MatchJob) -> None:
    """What a match that failed (a full disk, a bug) had written under its public id: nothing of it is recorded, so
    nothing of it stays (a resumed run would replace it anyway; a full disk needs the room back now)."""
    part, err = part_path(job), _stderr_part(job)
    if part is not None:
        part.unlink(missing_ok=True)
    if err is not None:
        shutil.rmtree(err, ignore_errors=True)


def run_job(job: MatchJob) -> MatchRecord:
    """Play one match synchronously and return its record (what a worker process or a Dask task runs)."""
    try:
        result = play_match(list(job.specs), **_job_kwargs(job))
    except BaseException:
        _discard(job)
        raise
    return _finish(job, result)


RemoteSeating = Callable[[MatchJob], AbstractAsyncContextManager[tuple[RemoteSeats, Callable[[FaultInfo], None]]]]
"""For a match with remote bots: its seat factory and fault hook, held while it plays (``referee.server``)."""


async def run_job_async(job: MatchJob, *, shared_loop: bool = True, **extra: Any) -> MatchRecord:
    """Play one match in this trio loop; ``shared_loop``: other matches run in it too (no blocking waits);
    ``extra``: more ``run_match`` arguments (a served tournament's ``remote`` and ``on_fault``)."""
    return _finish(job, await _run_job_here(job, shared_loop, **extra))


async def _run_job_here(job: MatchJob, shared_loop: bool, shutdown: Shutdown | None = None,
                        **extra: Any) -> MatchResult:
    kwargs = {**_job_kwargs(job), **extra}
    if shared_loop:
        kwargs["block_ms"] = 0.0
    try:
        return await run_match(list(job.specs), shutdown=shutdown, **kwargs)
    except BaseException:
        _discard(job)
        raise


# trio 0.23 renamed ``cancellable`` to ``abandon_on_cancel``; accept both.
ABANDON_ON_CANCEL: dict[str, Any] = (
    {"abandon_on_cancel": True}
    if "abandon_on_cancel" in inspect.signature(trio.to_thread.run_sync).parameters
    else {"cancellable": True}
)


def worker_ready() -> None:
    """A worker's first task: its completion says the pool can play matches."""


def worker_init() -> None:
    # Ctrl-C is the coordinator's to handle: it stops the workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


WINDOW = 4096  # schedule indices looked up in the store at a time when resuming


def same_identity(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Whether a store's identity (``old``) admits a file's (``new``).  Lenient only about what older mjref did
    not record: a key a newer mjref adds (``files``), and a field of the file or of a bot absent from ``old`` whose
    ``new`` value is the field's default (``trust_memory = false``), decide nothing that the old store's results
    did not already have."""
    new = dict(new)
    if "files" not in old:
        new.pop("files", None)
    for k, f in TournamentConfig.model_fields.items():
        if k not in old and k in new and not f.is_required() and new[k] == f.get_default(call_default_factory=True):
            del new[k]
    # The rules as the ruleset they make: `flowers = false` written out is the default, the same tournament.
    old = {**old, "rules": _effective_rules(old.get("rules"))}
    new["rules"] = _effective_rules(new.get("rules"))
    old_bots, new_bots = old.get("bots"), new.get("bots")
    if isinstance(old_bots, list) and isinstance(new_bots, list) and len(old_bots) == len(new_bots):
        defaults = {k: f.get_default(call_default_factory=True) for k, f in BotEntry.model_fields.items()}
        trimmed = []
        for a, b in zip(old_bots, new_bots, strict=True):
            if isinstance(a, dict) and isinstance(b, dict):
                b = {k: v for k, v in b.items() if k in a or k not in defaults or v != defaults[k]}
            trimmed.append(b)
        new["bots"] = trimmed
    return canonical(old) == canonical(new)


def _effective_rules(rules: Any) -> Any:
    """A tournament's ``[rules]`` as every option of the ruleset they make (what decides results), or as they are
    when they make none."""
    if not isinstance(rules, dict):
        return rules
    try:
        return make_ruleset(rules).model_dump(mode="json")
    except (InputError, ValueError, TypeError):
        return rules


def changed_message(store_path: Path, old: dict[str, Any], new: dict[str, Any], recorded: int) -> str:
    """Why a store cannot be resumed by this file: a changed bot names its files, anything else its fields."""
    lines: list[str] = []
    old_files, new_files = old.get("files") or {}, new.get("files") or {}
    for bot in sorted(set(old_files) & set(new_files)):
        a, b = old_files[bot], new_files[bot]
        changed = sorted(f for f in set(a) | set(b) if a.get(f) != b.get(f))
        if changed:
            what = ", ".join(f"{f} ({'added' if f not in a else 'removed' if f not in b else 'changed'})"
                             for f in changed[:5])
            more = f" and {len(changed) - 5} more" if len(changed) > 5 else ""
            lines.append(f"bot {bot!r} changed: {what}{more}")
    rest = {k: v for k, v in old.items() if k not in ("files", "executables") or not lines}
    rest_new = {k: v for k, v in new.items() if k not in ("files", "executables") or not lines}
    lines += [d for d in diff_identity(rest, rest_new) if not (lines and d.startswith("executables."))]
    shown = lines[:12] + ([f"… and {len(lines) - 12} more"] if len(lines) > 12 else [])
    return (f"{store_path}: holds {recorded} match{'es' if recorded != 1 else ''} of a different tournament; "
            f"differences: " + "; ".join(shown) + "; use --restart to discard its results, or another store")


@dataclass(slots=True)
class Plan:
    """A tournament ready to run: its streaming schedule, how much of it the store holds, and what each match
    needs (its jobs are made one at a time by :meth:`pending`, never listed)."""

    config: TournamentConfig
    rules: Ruleset
    store_path: Path
    logs_dir: Path
    schedule: Schedule
    done: int  # matches already recorded when planned
    identity: dict[str, Any]
    wall_salt: str
    specs: dict[str, BotSpec]
    notes: list[str] = field(default_factory=list)  # said once before the run (a lock taken over, a fresh start)
    rules_json: dict[str, Any] = field(default_factory=dict)
    openings: dict[int, Opening] | None = None  # seed -> its walls, from the wallfile (tournaments.openings)

    @property
    def total(self) -> int:
        return len(self.schedule)

    @property
    def has_process_bots(self) -> bool:
        return any(s.cmd is not None for s in self.specs.values())

    def job(self, m: ScheduledMatch) -> MatchJob:
        walls = self.openings[m.seed] if self.openings is not None else None
        return MatchJob.make(m, self.specs, self.rules_json, self.logs_dir, self.wall_salt, walls)

    def pending(self, store: Store | None = None) -> Iterator[MatchJob]:
        """The jobs of the matches the store does not hold, in schedule order, one at a time.  The store is asked
        a window of indices at a time (``WINDOW``), so memory stays flat whatever the tournament's size."""
        con = store.con if store is not None else connect(self.store_path, readonly=True)
        try:
            n = len(self.schedule)
            for lo in range(0, n, WINDOW):
                hi = min(n, lo + WINDOW)
                try:
                    done = recorded_between(con, lo, hi)
                except sqlite3.DatabaseError as exc:
                    raise StoreError(f"{self.store_path}: a damaged results store ({exc})") from None
                if done:
                    i, match_id = next(iter(done.items()))
                    expected = self.schedule.match(i).id
                    if match_id != expected:
                        raise StoreError(f"{self.store_path}: match {match_id} is recorded at index {i}, where this "
                                         f"schedule has {expected}: the store belongs to another schedule")
                    if len(done) == hi - lo:
                        continue
                for i in range(lo, hi):
                    if i not in done:
                        yield self.job(self.schedule.match(i))
        finally:
            if store is None:
                con.close()

    @property
    def jobs(self) -> list[MatchJob]:
        """Every pending job as a list: for tests and small runs only (the runner streams :meth:`pending`)."""
        return list(self.pending())


def tournament_identity(config: TournamentConfig, specs: Sequence[BotSpec]) -> dict[str, Any]:
    """What decides the results: the file's identity, and what each process bot runs (its files' SHA-256): a
    rebuilt executable or an edited script is another bot."""
    return {**config.identity(),
            "executables": {s.name: s.executable_hash() for s in specs if s.cmd is not None},
            "files": {s.name: s.identity_files() for s in specs if s.cmd is not None}}


def seats_and_places(config: TournamentConfig, rules: Ruleset, specs: Sequence[BotSpec], base_dir: Path, where: str,
                     store_override: Path | None,
                     error: type[InputError]) -> tuple[dict[str, BotSpec], str, Path, Path]:
    """What a tournament or a league seats and where it writes: the specs by name with the ruleset's dummy, the
    dummy, the store and the logs folder (checked); a bad dummy or logs folder is ``error``."""
    by_name: dict[str, BotSpec] = {s.name: s for s in specs}
    try:
        dummy = seat_filler(rules.default_dummy)
    except BotError as exc:
        raise error(f"{where}: rule option 'default_dummy': {exc}") from None
    by_name[f"{DUMMY_PREFIX}-{dummy}"] = BotSpec(name=f"{DUMMY_PREFIX}-{dummy}", builtin=dummy)
    store_path = store_override or (base_dir / (config.store or f"{config.name}.sqlite"))
    logs_dir = base_dir / config.logs if config.logs else store_path.with_name(store_path.stem + "-logs")
    # The store first: a store that cannot be written was reported as its logs folder (the folder made beside it)
    check_output_file(store_path, f"{where}: store", error, private=True)
    # A file in the folder's place was a FileExistsError once the matches started
    check_output_dir(logs_dir, f"{where}: logs", error, private=True)
    return by_name, dummy, store_path, logs_dir


@contextmanager
def locked_store(store_path: Path, restart: bool, notes: list[str]) -> Iterator[Store]:
    """A store to plan a run on, under its lock (a lock taken over from a dead runner is said in ``notes``),
    discarded first with ``restart``, and checked for damage."""
    with StoreLock(store_path) as lock:
        if lock.note:
            notes.append(lock.note)
        if restart:
            discard(store_path)
        with Store(store_path) as store:
            check_integrity(store.con, store_path)
            yield store


@contextmanager
def running_store(store_path: Path, logs_dir: Path, identity: Mapping[str, Any], notes: list[str],
                  error: type[InputError], wall_salt: str | None = None) -> Iterator[Store]:
    """The store a run writes (a tournament's or a league's), locked for the whole run (a second runner fails at
    once, :class:`tournaments.lock.StoreBusy`; a lock taken over from a dead runner is said in ``notes``), with its
    logs folder made, refused (``error``) if its identity or wall salt changed since the run was planned."""
    try:
        lock = StoreLock(store_path).acquire()
    except StoreError as exc:
        raise error(str(exc)) from None
    try:
        if lock.note:
            notes.append(lock.note)
        logs_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        with Store(store_path) as store:
            if store.identity() != identity or (wall_salt is not None and store.wall_salt() != wall_salt):
                raise error(f"{store_path}: the store changed since this run was planned; run again")
            yield store
    finally:
        lock.release()


def plan(config: TournamentConfig, base_dir: Path, *, restart: bool = False, where: str = "tournament",
         store_override: Path | None = None) -> Plan:
    """Check everything that can be checked before a match is played, and open (or restart) the store.

    The store is locked while it is checked and initialised (:class:`tournaments.lock.StoreLock`); a store that
    holds no result yet is started again for a changed file, one with results is refused naming what changed."""
    rules = ruleset_of(config, where)
    openings = None
    if config.wallfile:
        found = load_openings(base_dir / config.wallfile, rules, config.hands, where, config.wallfile)
        if "seeds" not in config.model_fields_set:  # one seed per opening
            config = config.model_copy(update={"seeds": len(found)})
        openings = seed_openings(config.seed_list, found, where)
    specs = bot_specs(config, base_dir, where)
    try:
        for spec in specs:
            spec.check_runnable()
        identity = tournament_identity(config, specs)
    except SpecError as exc:
        raise TournamentError(f"{where}: {exc}") from None
    if openings is not None:
        identity["walls"] = openings_digest(list(openings.values()))
    by_name, dummy, store_path, logs_dir = seats_and_places(config, rules, specs, base_dir, where, store_override,
                                                           TournamentError)
    notes: list[str] = []
    try:
        with locked_store(store_path, restart, notes) as store:
            old = store.identity()
            if old is not None and not same_identity(old, identity):
                recorded = store.count()
                if recorded:
                    raise TournamentError(changed_message(store_path, old, identity, recorded))
                notes.append(f"{store_path} held no results yet: started again with this file")
                store.clear()
                old = None
            if old is None:
                store.initialise(config.name, identity, config.wall_salt)
            elif old != identity:
                store.set_identity(identity)  # what older mjref did not record, recorded from now on
            done = store.count()
            salt = store.wall_salt()
    except StoreError as exc:
        raise TournamentError(str(exc)) from None
    return Plan(config, rules, store_path, logs_dir, Schedule(config, dummy), done, identity, salt, by_name, notes,
                rules.model_dump(), openings)


MatchCallback = Callable[[MatchRecord], None]


class MatchPlayer:
    """Plays ``MatchJob``s where they belong: every job on ``executor`` when one is given (Dask); otherwise matches
    between built-in bots in a local pool (processes, or one thread when there is a single slot; started at the
    first such match) and matches with bot processes in this trio loop.  Use it as a context manager: a pool it
    made is stopped on exit."""

    def __init__(self, workers: int, executor: Any = None, remote: RemoteSeating | None = None) -> None:
        self.workers = workers
        self.executor = executor
        self.remote = remote
        self.boxes: BoxPool | None = None  # the run's box pool, for the matches played here (``box_pool``)
        self._pool: Any = executor
        self._own = False
        self._ready: Any = None  # a local process pool's first task: done once a worker has started

    def _local_pool(self) -> Any:
        if self._pool is None:
            if self.workers == 1:
                self._pool = ThreadPoolExecutor(max_workers=1)  # one at a time: no process to spawn
            else:
                self._pool = ProcessPoolExecutor(max_workers=self.workers,
                                                 mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=worker_init)
                self._ready = self._pool.submit(worker_ready)
            self._own = True
        return self._pool

    async def play(self, job: MatchJob) -> MatchRecord:
        if any(s.remote for s in job.specs):  # played here, by wrappers logged in to this process's server
            if self.remote is None:
                remote = next(s.name for s in job.specs if s.remote)
                raise TournamentError(f"bot {remote!r} is remote: run the tournament with `mjref serve FILE`")
            async with self.remote(job) as (seats, tell):
                return await run_job_async(job, shared_loop=True, remote=seats, on_fault=tell, boxes=self.boxes)
        if self.executor is None and job.builtin_only and self._starting():
            # A spawned worker imports the referee before its first match: seconds on a loaded machine.  Until one
            # is up, matches are played here, in a thread of this process, which has imported it already.
            return await trio.to_thread.run_sync(run_job, job, **ABANDON_ON_CANCEL)  # type: ignore[no-any-return]
        if self.executor is not None or job.builtin_only:
            fut = self._local_pool().submit(run_job, job)
            return await trio.to_thread.run_sync(fut.result, **ABANDON_ON_CANCEL)  # type: ignore[no-any-return]
        return await run_job_async(job, shared_loop=self.workers > 1, boxes=self.boxes)

    async def play_stoppable(self, job: MatchJob, shutdown: Shutdown) -> MatchRecord | None:
        """As ``play``, but a stop (``referee.shutdown``) ends the match with no record (None): a match in a pool is
        abandoned (the pool is stopped on exit), a match here is stopped in order (its bots get ``/exit``, its log
        ends with ``aborted``).  Matches already recorded stay recorded; resuming plays the match again."""
        if any(s.remote for s in job.specs) and self.remote is not None:
            async with self.remote(job) as (seats, tell):
                result = await _run_job_here(job, True, shutdown, remote=seats, on_fault=tell, boxes=self.boxes)
        elif self.executor is not None or job.builtin_only or any(s.remote for s in job.specs):
            with shutdown.scope():
                return await self.play(job)
            return None
        else:
            result = await _run_job_here(job, self.workers > 1, shutdown, boxes=self.boxes)
        return None if result.aborted is not None else _finish(job, result)

    def _starting(self) -> bool:
        """Whether this player's local process pool is still starting its workers (starting it if need be)."""
        self._local_pool()
        return self._ready is not None and not self._ready.done()

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
    remote: RemoteSeating | None = None,
    shutdown: Shutdown | None = None,
) -> int:
    """Play the plan's pending matches; record each finished match; return how many were recorded.
    ``remote`` seats the remote bots (``mjref serve``).  ``shutdown``: the one the stop signals stop, which the
    caller may also stop (a closed stdout: ``referee.commands.make_console``).

    The store is locked for the whole run (a second runner fails at once, :class:`tournaments.lock.StoreBusy`).
    Matches are taken from the streaming schedule as slots free up, except that a match waits while another on
    the same walls is in flight (``tournaments.deals``: a duplicate group's seatings, the same seed at other tables;
    matches of built-in bots only never wait), and the slot goes to the next match on other walls meanwhile.  At
    most ``concurrency`` are in flight, here or on ``executor`` (an object with ``submit(run_job, job)`` returning a
    future with a blocking ``result()``: a ``concurrent.futures`` executor, or ``tournaments.distributed``'s Dask
    executor), so neither this process nor a Dask scheduler ever holds more than that many, whatever the
    tournament's size.
    """
    workers = concurrency or p.config.workers()
    slots = trio.Semaphore(workers)
    recorded = 0
    with running_store(p.store_path, p.logs_dir, p.identity, p.notes, TournamentError, p.wall_salt) as store:
        def record(rec: MatchRecord) -> None:
            nonlocal recorded
            if store.record(rec):
                recorded += 1
            if on_match is not None:
                on_match(rec)

        async def one(job: MatchJob, shutdown: Shutdown) -> None:
            try:
                if on_start is not None:
                    on_start(job)
                rec = await player.play_stoppable(job, shutdown)
                if rec is not None:
                    record(rec)
            finally:
                gate.done(job)
                slots.release()

        # Matches on one set of walls never meet: the gate holds a job back while its deal is in flight.
        gate = DealGate(p.pending(store), workers)
        # SIGINT, SIGTERM and SIGHUP stop the matches in order and record nothing unfinished; then Interrupted.
        async with watching_signals(shutdown) as shutdown:
            with MatchPlayer(workers, executor, remote) as player:
                async with box_pool(workers) as player.boxes, trio.open_nursery() as nursery:
                    while True:
                        await slots.acquire()
                        job = await gate.next() if not shutdown.stopped else None
                        if job is None or shutdown.stopped:
                            slots.release()
                            break
                        nursery.start_soon(one, job, shutdown)
    shutdown.raise_if_stopped()
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

"""Tournaments on many machines: an executor that plays each match as one Dask task.

``execute(plan, executor=dask_executor(address, plan))`` runs every match on a Dask cluster while this process (the
coordinator) stays what it is for a local run: the single writer of the SQLite store, the live view, and the
resume logic (finished match IDs are never submitted).  Only ``submit`` and ``result`` differ:

* **One task per match, keyed by its ID**: ``mjref-<identity hash>-<match ID>``.  The identity hash is that of the
  tournament's identity (what decides results), so two tournaments never share a key, and the same match of the
  same tournament always has the same key.  Dask keeps one task per key: a second submission of a key that the
  scheduler still holds (a coordinator restarted before the scheduler dropped its old client, or two coordinators
  of the same tournament) attaches to the running task instead of playing the match again.  A task lost with its
  worker is rerun elsewhere by the scheduler (up to ``distributed.scheduler.allowed-failures`` times, then
  ``KilledWorker``); ``retries`` reruns a task that raised.  A match is a pure function of its job (seeded walls,
  seeded bots), so a rerun gives the same result, and the store refuses a second record of an ID anyway.
* **One deal at a time.**  The coordinator never submits two matches on one seed at once (``tournaments.deals``),
  and each task holds a Dask lock named after its deal while it plays, so that a task left running by a coordinator
  killed mid-run and the resumed run's next seating of that deal do not play at once either.
* **Logs come back with results.**  The task plays the match writing its log to a temporary file on the worker
  and returns the record with the log (zlib-compressed) and any bot stderr files; the coordinator writes them
  at the job's paths, checks the log's SHA-256 against the one the worker computed, and only then hands the
  record to the runner.  No shared file system is assumed, and a log appears only once its match is complete.
* **Start-up check** on the scheduler (it unpickles the tasks, so it needs mjref too) and on every worker
  (``client.run``): the same mjref (version and code), and every process bot's executable, working directory and
  file arguments at the same paths.  A worker that fails is named with the path it lacks (:class:`DaskError`).
  Built-in bots need nothing but mjref.
* **Every call to the cluster is bounded**, as the start-up's identity check is (``connect_timeout``, 10 s): a
  scheduler that took the connection and then stopped answering (a machine frozen, a process stopped) is a
  :class:`DaskError` naming its address, never a wait without end.  A match's result may take as long as the match
  does, so while one is awaited the scheduler is asked every ``connect_timeout`` seconds whether it still answers
  (:meth:`DaskExecutor.answering`); the matches already recorded stay recorded.

Dask is optional (``pip install 'mjref[dask]'``); importing this module without it raises ``ImportError`` that
says so.  ``mjref regress`` (or anything else with ``MatchJob``s) uses :func:`open_dask_executor` directly.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import shutil
import socket
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterable
from concurrent.futures import CancelledError
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Self, TypeVar

from referee.errors import InputError

try:
    import distributed
    from distributed import Client, LocalCluster
    from distributed.comm import parse_address
    from distributed.comm.addressing import parse_host_port
    from distributed.comm.registry import backends
except ImportError as exc:  # pragma: no cover - exercised by a test with dask hidden
    raise ImportError(
        f"tournaments.distributed needs Dask ({exc}); install it with: pip install 'mjref[dask]'"
    ) from exc

from referee import __version__
from wrappers.spec import BotSpec

from .config import canonical
from .deals import deal_key
from .runner import MatchJob, Plan, run_job
from .store import MatchRecord

RETRIES = 2  # reruns of a task that raised; a task lost with its worker is rerun by the scheduler regardless
LOCAL = "local"
T = TypeVar("T")


class DaskError(InputError):
    """A Dask cluster that cannot be used (unreachable, no workers, a worker failing the start-up check, a scheduler
    that stopped answering) or a match that failed there; the message is one line per problem and names the
    address, worker and path."""


class NoAnswer(DaskError):
    """The scheduler took the connection but did not answer a call within its time (:func:`answered`)."""


def answered(address: str, timeout: float, doing: str, call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``call(*args, **kwargs)``, a blocking call of a Dask ``Client`` that takes ``callback_timeout`` (Dask then
    cancels what it was waiting for), given at most ``timeout`` seconds: :class:`NoAnswer` naming ``address`` and
    what it was ``doing`` if the scheduler did not answer by then.  The one bound of every call after the identity
    check (:func:`_ask_identity`), with the same time."""
    try:
        return call(*args, callback_timeout=timeout, **kwargs)
    except TimeoutError:
        raise NoAnswer(f"{address}: the Dask scheduler did not answer within {timeout:g} s ({doing}; is it still "
                       "running?)") from None


# ------------------------------------------------------------------------------------------------ worker side
@dataclass(frozen=True, slots=True)
class RemoteResult:
    """What a task sends back: the record, the log (zlib), the bots' stderr files by name, the worker."""

    record: MatchRecord
    log: bytes | None
    stderr: dict[str, bytes] = field(default_factory=dict)
    worker: str = ""


def _this_worker() -> distributed.Worker | None:
    """The Dask worker running this task; None outside a worker (a task run in place)."""
    try:
        return distributed.get_worker()
    except ValueError:
        return None


def _worker_label(w: distributed.Worker | None) -> str:
    if w is None:
        return socket.gethostname()
    return f"{w.name} ({w.address})" if str(w.name) != w.address else w.address


def play_remote(fn: Callable[[MatchJob], MatchRecord], job: MatchJob, deal_lock: str | None = None) -> RemoteResult:
    """The task: play ``job`` with ``fn`` (``run_job``) in a temporary directory and return everything made.  The
    directory is in the worker's own folder, which Dask removes when the worker ends and, for a worker that was
    killed, when the next worker starts beside it (outside a worker: in the system's temporary folder).

    ``deal_lock`` names a Dask lock held while the match plays (``tournaments.deals``): the coordinator never
    submits two matches on one set of walls at once, but a task of a coordinator killed or stopped mid-run plays
    on to its end, and the resumed run's next seating of its deal waits here for it."""
    worker = _this_worker()
    if deal_lock is not None and worker is not None:
        with distributed.Lock(deal_lock):
            return _play_in_folder(fn, job, worker)
    return _play_in_folder(fn, job, worker)


def _play_in_folder(fn: Callable[[MatchJob], MatchRecord], job: MatchJob,
                    worker: distributed.Worker | None) -> RemoteResult:
    with tempfile.TemporaryDirectory(prefix="mjref-", dir=worker.local_directory if worker else None) as tmp:
        log = Path(tmp) / "match.jsonl" if job.log else None
        stderr_dir = Path(tmp) / "stderr" if job.stderr_dir else None
        if stderr_dir is not None:
            stderr_dir.mkdir(mode=0o700)
        local = replace(job, log=str(log) if log else None, stderr_dir=str(stderr_dir) if stderr_dir else None)
        try:
            record = fn(local)
        except Exception as exc:
            raise RuntimeError(f"worker {_worker_label(worker)}: {type(exc).__name__}: {exc}") from exc
        data = zlib.compress(log.read_bytes(), 1) if log is not None and log.exists() else None
        files = {p.name: p.read_bytes() for p in sorted(stderr_dir.iterdir())} if stderr_dir is not None else {}
    return RemoteResult(record, data, files, _worker_label(worker))


_FINGERPRINT_PACKAGES = ("referee", "wrappers", "bots", "tournaments")
_FINGERPRINT_SKIP = ("referee/commands/", "referee/cli.py", "tournaments/stats.py", "tournaments/report")


def code_fingerprint() -> str:
    """SHA-256 over mjref's source files that decide a match's result (not the command line or the reports)."""
    import referee

    root = Path(referee.__file__).resolve().parent.parent
    h = hashlib.sha256()
    for package in _FINGERPRINT_PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel.startswith(_FINGERPRINT_SKIP):
                continue
            h.update(rel.encode() + b"\0")
            h.update(path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class BotPaths:
    """The paths one process bot needs on a worker (computed on the coordinator, checked on each worker)."""

    name: str
    cwd: str | None
    executable: str  # an absolute path, or a bare name looked up on PATH
    files: tuple[str, ...]  # arguments that are existing files or folders on the coordinator


def bot_paths(spec: BotSpec) -> BotPaths | None:
    if spec.cmd is None:
        return None
    exe = spec.cmd[0]
    base = Path(spec.cwd) if spec.cwd else Path.cwd()
    if os.sep in exe or (os.altsep and os.altsep in exe):
        exe = str(Path(exe) if Path(exe).is_absolute() else base / exe)
    files = tuple(str(base / a) for a in spec.cmd[1:] if not a.startswith("-") and os.path.exists(base / a))
    return BotPaths(spec.name, spec.cwd, exe, files)


def _path_problems(bots: Iterable[BotPaths]) -> list[str]:
    problems = []
    for b in bots:
        if b.cwd and not os.path.isdir(b.cwd):
            problems.append(f"bot {b.name!r}: working directory {b.cwd} does not exist")
            continue
        if os.sep in b.executable:
            p = Path(b.executable)
            if not os.path.exists(p):
                problems.append(f"bot {b.name!r}: executable {p} does not exist")
            elif not os.path.isfile(p) or not os.access(p, os.X_OK):
                problems.append(f"bot {b.name!r}: {p} is not an executable file")
        elif shutil.which(b.executable) is None:
            problems.append(f"bot {b.name!r}: {b.executable!r} is not on the worker's PATH")
        for f in b.files:
            if not os.path.exists(f):
                problems.append(f"bot {b.name!r}: file {f} does not exist")
    return problems


def check_worker(bots: tuple[BotPaths, ...], dask_worker: Any = None) -> dict[str, Any]:
    """Run on every worker by ``client.run``: what this worker runs, and which bot paths it lacks."""
    return {
        "name": str(dask_worker.name) if dask_worker is not None else "",
        "host": socket.gethostname(),
        "mjref": __version__,
        "code": code_fingerprint(),
        "python": "{}.{}".format(*sys.version_info[:2]),
        "problems": _path_problems(bots),
    }


# ------------------------------------------------------------------------------------------------ coordinator side
class MatchFuture:
    """A submitted match; ``result()`` blocks, lands the log and stderr files locally and returns the record."""

    def __init__(self, executor: DaskExecutor, future: Any, job: MatchJob) -> None:
        self._executor = executor
        self._future = future
        self.job = job
        self._record: MatchRecord | None = None

    @property
    def key(self) -> str:
        return str(self._future.key)

    def done(self) -> bool:
        return self._record is not None or bool(self._future.done())

    def cancel(self) -> None:
        self._future.cancel()

    def result(self, timeout: float | None = None) -> MatchRecord:
        if self._record is not None:
            return self._record
        try:
            remote = self._executor.wait(self._future, timeout)
        except (CancelledError, NoAnswer):
            raise
        except Exception as exc:
            raise DaskError(f"{self._executor.address}: match {self.job.match.id}: {type(exc).__name__}: {exc}") \
                from exc
        self._record = land(self.job, remote)
        self._executor._finished(self._future)
        return self._record


def land(job: MatchJob, remote: RemoteResult) -> MatchRecord:
    """Write a remote match's log and stderr files at the job's paths; the record, naming the local log."""
    rec = remote.record
    if job.stderr_dir and remote.stderr:
        folder = Path(job.stderr_dir)
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        for name, data in remote.stderr.items():
            _write_private(folder / Path(name).name, data)
    if job.log is None or remote.log is None:
        return replace(rec, log=None, log_sha256=None)
    try:
        data = zlib.decompress(remote.log)
    except zlib.error as exc:
        raise DaskError(f"match {job.match.id}: the log from worker {remote.worker} is damaged ({exc})") from None
    sha = hashlib.sha256(data).hexdigest()
    if rec.log_sha256 is not None and sha != rec.log_sha256:
        raise DaskError(f"match {job.match.id}: the log from worker {remote.worker} does not match its SHA-256")
    path = Path(job.log)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    _write_private(part, data)
    os.replace(part, path)
    return replace(rec, log=job.log, log_sha256=sha)


def _write_private(path: Path, data: bytes) -> None:
    """Write a landed log or stderr file as the referee writes its own: 0600 (it holds walls, or a bot's words)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with open(fd, "wb") as f:
        f.write(data)


class DaskExecutor:
    """``submit(run_job, job)`` → :class:`MatchFuture`; ``shutdown()`` cancels what is left and disconnects."""

    def __init__(self, client: Client, address: str, namespace: str, cluster: LocalCluster | None = None, *,
                 timeout: float = 10.0) -> None:
        self.client = client
        self.address = address
        self.namespace = namespace
        self.cluster = cluster
        self.timeout = timeout  # seconds the scheduler has to answer any call (``answered``)
        self._pending: set[Any] = set()  # futures not yet landed (results arrive in the runner's threads)
        self._lock = threading.Lock()
        self._asking = threading.Lock()  # one liveness question at a time, whatever the threads waiting
        self._answered = time.monotonic()  # when the scheduler last answered one
        self._silent: NoAnswer | None = None  # why it is taken for gone: every later question ends at once

    @property
    def slots(self) -> int:
        """Matches the cluster can play at once now (its worker threads): a good ``concurrency``."""
        return max(1, sum(self._nthreads().values()))

    def _nthreads(self) -> dict[str, int]:
        return answered(self.address, self.timeout, "asked for its workers", self.client.nthreads)

    def answering(self) -> None:
        """Raise :class:`NoAnswer` unless the scheduler answers (its ``identity``) within :attr:`timeout`; asked at
        most once a :attr:`timeout`, however many matches are awaited (and once it did not, never again)."""
        with self._asking:
            if self._silent is not None:
                raise self._silent
            if time.monotonic() - self._answered < self.timeout:
                return
            try:
                answered(self.address, self.timeout, "asked whether it still runs while matches were awaited",
                         self.client.sync, self.client.scheduler.identity)
            except NoAnswer as exc:
                self._silent = exc
                raise
            self._answered = time.monotonic()

    def wait(self, future: Any, timeout: float | None = None) -> Any:
        """A task's result, waited for in slices of :attr:`timeout` (a match takes as long as it takes), the
        scheduler asked after each whether it still answers (:meth:`answering`): ``TimeoutError`` after
        ``timeout`` seconds, :class:`NoAnswer` once the scheduler stopped answering."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            step = self.timeout if deadline is None else max(0.0, min(self.timeout, deadline - time.monotonic()))
            try:
                return future.result(timeout=step)
            except TimeoutError:
                if future.done():  # it ended as the wait did: its result, or its own error
                    return future.result(timeout=self.timeout)
                if deadline is not None and time.monotonic() >= deadline:
                    raise  # the caller's time is up
            self.answering()

    def describe(self) -> str:
        n = self._nthreads()
        where = f"a local Dask cluster (dashboard {self.client.dashboard_link})" if self.cluster \
            else f"Dask at {self.address}"
        return f"{where}: {len(n)} workers, {sum(n.values())} threads"

    def key(self, job: MatchJob) -> str:
        return f"mjref-{self.namespace}-{job.match.id}"

    def deal_lock(self, job: MatchJob) -> str | None:
        """The name of the lock a task holds on its worker while it plays (None: built-in bots only)."""
        deal = deal_key(job)
        return f"mjref-{self.namespace}-deal-{deal}" if deal is not None else None

    def submit(self, fn: Callable[[MatchJob], MatchRecord], job: MatchJob) -> MatchFuture:
        future = self.client.submit(play_remote, fn, job, self.deal_lock(job), key=self.key(job), retries=RETRIES)
        with self._lock:
            self._pending.add(future)
        return MatchFuture(self, future, job)

    def _finished(self, future: Any) -> None:
        with self._lock:
            self._pending.discard(future)
        future.release()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = True) -> None:
        """Cancel the matches not yet landed (a running task finishes on its worker and is dropped), disconnect,
        and stop the local cluster if this executor started one."""
        with self._lock:
            pending = list(self._pending)
            self._pending.clear()
        with contextlib.suppress(Exception):  # a dead or silent scheduler cannot stop shutdown
            if cancel_futures and pending:  # (a message sent, no answer awaited)
                self.client.cancel(pending, force=True)
            self.client.close(timeout=self.timeout)
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.close(timeout=10)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()


def namespace_of(identity: dict[str, Any]) -> str:
    """The key prefix of a tournament (or regression run): a hash of what decides its results."""
    return hashlib.sha256(canonical(identity).encode()).hexdigest()[:16]


def _precheck(address: str, timeout: float) -> None:
    """Refuse (DaskError, one line) an address that cannot be a Dask scheduler's, before any ``Client`` is made:
    a scheme Dask has not, or has but cannot use here (``ucx://`` without its package: a TypeError, then a client
    that took 20 s to close at exit); a TCP address the operating system cannot reach (its reason, not Dask's
    generic timeout); a server that does not answer as a Dask scheduler within ``timeout`` (an HTTP server on the
    port made ``Client()`` wait for ever)."""
    try:  # Dask's parsers say ValueError for an address they cannot read; only that is caught here
        scheme, loc = parse_address(address)
        known = sorted(set(backends) - {"inproc"})  # inproc: within one process only
        if scheme not in known:  # Client() would fail, then time out for 20 s closing itself at exit (a traceback)
            raise ValueError(f"unknown scheme {scheme!r}, known: {', '.join(k for k in known if _unusable(k) is None)}")
        host, port = parse_host_port(loc) if scheme in ("tcp", "tls", "ws", "wss") else (None, None)
    except ValueError as exc:
        raise DaskError(f"{address}: not a Dask scheduler address ({exc}); e.g. tcp://host:8786, or 'local'") \
            from None
    why = _unusable(scheme)
    if why is not None:
        raise DaskError(f"{address}: Dask cannot use {scheme}:// here ({why})")
    if host is not None:
        try:
            with socket.create_connection((host, port), timeout=timeout):
                pass
        except socket.gaierror as exc:
            raise DaskError(f"{address}: cannot resolve host {host!r} ({exc.strerror})") from None
        except TimeoutError:
            raise DaskError(f"{address}: no answer within {timeout:g} s (is `dask scheduler` running there?)") \
                from None
        except OSError as exc:
            raise DaskError(f"{address}: cannot connect ({exc.strerror or exc}; is `dask scheduler` running there?)") \
                from None
    _ask_identity(address, timeout)


def _unusable(scheme: str) -> str | None:
    """Why Dask cannot connect by ``scheme`` here (``ucx``: registered, but its package is gone), or None."""
    try:
        backends[scheme].get_connector()
    except Exception as exc:  # noqa: BLE001 - whatever a backend fails with here, it cannot be used
        return f"{type(exc).__name__}: {_first_line(exc)}"
    return None


def _ask_identity(address: str, timeout: float) -> None:
    """Ask ``address`` who it is (the ``identity`` request every Dask server answers), within ``timeout`` whatever
    happens (``asyncio.wait_for`` cancels a read that never ends); refuse (DaskError) unless a scheduler answers."""
    import asyncio

    from distributed.comm import connect
    from distributed.core import send_recv
    from distributed.security import Security

    async def ask() -> Any:
        comm = await connect(address, timeout=timeout, **Security().get_connection_args("client"))
        try:
            return await send_recv(comm, op="identity")
        finally:
            comm.abort()

    try:
        reply = asyncio.run(asyncio.wait_for(ask(), timeout))
    except TimeoutError:
        raise DaskError(f"{address}: no Dask scheduler answered within {timeout:g} s (is `dask scheduler` running "
                        "there, on that port?)") from None
    except Exception as exc:  # noqa: BLE001 - whatever the connection failed with, it cannot be used
        raise DaskError(f"{address}: cannot connect to the Dask scheduler ({type(exc).__name__}: "
                        f"{_first_line(exc)})") from None
    kind = reply.get("type") if isinstance(reply, dict) else None
    if kind != "Scheduler":
        raise DaskError(f"{address}: not a Dask scheduler (it answered as {str(kind)[:40]!r}); give the address "
                        "of `dask scheduler`")


def _first_line(exc: BaseException) -> str:
    """An exception's message cut to its first line (Dask's run to paragraphs), at most 200 characters."""
    text = str(exc).strip().split("\n", 1)[0]
    return text if len(text) <= 200 else text[:199] + "…"


def check_address(address: str, timeout: float = 10.0) -> None:
    """Refuse (DaskError) an address that cannot be a scheduler, or one that cannot be reached or does not answer
    as a scheduler, without making a client: a run checks it before ``--restart`` discards anything."""
    if address != LOCAL:
        _precheck(address, timeout)


def _connect(address: str, workers: int | None, timeout: float) -> tuple[Client, LocalCluster | None]:
    if address == LOCAL:
        n = workers or os.cpu_count() or 1
        try:
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                                   silence_logs=logging.ERROR)
        except Exception as exc:  # noqa: BLE001
            raise DaskError(f"local: cannot start a Dask cluster of {n} workers ({type(exc).__name__}: {exc})") \
                from None
        return Client(cluster, set_as_default=False), cluster
    _precheck(address, timeout)
    try:
        client = Client(address, timeout=timeout, set_as_default=False)
    except Exception as exc:  # noqa: BLE001 - any failure to connect is the address's, said in one line
        raise DaskError(f"{address}: cannot connect to the Dask scheduler ({type(exc).__name__}: "
                        f"{_first_line(exc)})") from None
    try:
        client.wait_for_workers(1, timeout=timeout)
    except Exception as exc:  # noqa: BLE001
        client.close()
        if isinstance(exc, (TimeoutError, OSError)):
            raise DaskError(f"{address}: no Dask workers joined within {timeout:g} s (start `dask worker {address}` "
                            f"on each machine)") from None
        raise DaskError(f"{address}: the Dask scheduler failed while waiting for workers ({type(exc).__name__}: "
                        f"{_first_line(exc)})") from None
    return client, None


def scheduler_check() -> dict[str, str]:
    """Run on the scheduler by ``client.run_on_scheduler``: it unpickles every task, so it imports mjref too."""
    return {"host": socket.gethostname(), "mjref": __version__, "code": code_fingerprint()}


def check_scheduler(client: Client, address: str, timeout: float = 10.0) -> None:
    """Refuse (DaskError) unless the scheduler can import this mjref (it deserializes the tasks); it has ``timeout``
    seconds to answer."""
    try:
        r = answered(address, timeout, "checking its mjref", client.run_on_scheduler, scheduler_check)
    except NoAnswer:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever the scheduler failed with, the fix is the same
        raise DaskError(f"{address}: the scheduler cannot load mjref ({type(exc).__name__}: {exc}); install the "
                        f"same mjref where `dask scheduler` runs") from None
    if r["mjref"] != __version__ or r["code"] != code_fingerprint():
        raise DaskError(f"{address}: the scheduler (host {r['host']}) runs mjref {r['mjref']} (code {r['code']}), "
                        f"this coordinator {__version__} (code {code_fingerprint()})")


def check_workers(client: Client, address: str, bots: tuple[BotPaths, ...], timeout: float = 10.0) -> None:
    """Refuse (DaskError) unless every worker runs this mjref and has every process bot's paths; the scheduler has
    ``timeout`` seconds to answer each question (its workers' answers included)."""
    here = {"mjref": __version__, "code": code_fingerprint()}
    results = answered(address, timeout, "checking its workers", client.run, check_worker, bots, on_error="return")
    info = answered(address, timeout, "naming its workers", client.sync, client.scheduler.identity, n_workers=-1)
    names = {a: str(w.get("name", a)) for a, w in info.get("workers", {}).items()}
    lines: list[str] = []
    missing = False
    for addr, r in sorted(results.items()):
        if isinstance(r, BaseException):
            who = f"worker {names[addr]} ({addr})" if names.get(addr, addr) != addr else f"worker {addr}"
            lines.append(f"{who}: cannot run mjref's start-up check ({r}); install the same mjref on every worker")
            continue
        who = f"worker {r['name']} ({addr}, host {r['host']})" if r["name"] != addr else \
            f"worker {addr} (host {r['host']})"
        if r["mjref"] != here["mjref"]:
            lines.append(f"{who}: runs mjref {r['mjref']}, this coordinator {here['mjref']}")
        elif r["code"] != here["code"]:
            lines.append(f"{who}: runs different mjref {r['mjref']} code (fingerprint {r['code']}, here "
                         f"{here['code']})")
        lines.extend(f"{who}: {p}" for p in r["problems"])
        missing = missing or bool(r["problems"])
    if lines:
        more = "\nprocess bots must exist at the same paths on every worker (docs/distributed.md)" if missing else ""
        raise DaskError(f"{address}: " + "\n".join(lines) + more)


def open_dask_executor(address: str, *, specs: Iterable[BotSpec], namespace: str, workers: int | None = None,
                       connect_timeout: float = 10.0) -> DaskExecutor:
    """Connect to ``address`` (``tcp://host:8786``, or ``local`` for a cluster of ``workers`` processes on this
    machine, default one per core), check every worker against ``specs``, and return the executor.

    ``namespace`` keeps the task keys of different runs apart: use :func:`namespace_of` of the run's identity.
    """
    bots = tuple({b.name: b for b in (bot_paths(s) for s in specs) if b is not None}.values())
    client, cluster = _connect(address, workers, connect_timeout)
    executor = DaskExecutor(client, address, namespace, cluster, timeout=connect_timeout)
    try:
        check_scheduler(client, address, connect_timeout)
        check_workers(client, address, bots, connect_timeout)
    except BaseException:
        executor.shutdown()
        raise
    return executor


def dask_executor(address: str, plan: Plan, workers: int | None = None, *,
                  connect_timeout: float = 10.0) -> DaskExecutor:
    """The executor for ``execute(plan, executor=…)``; ``workers`` sizes a ``local`` cluster (default: the
    tournament's concurrency, or the cores) and is ignored for a remote scheduler, whose workers are what they are."""
    return open_dask_executor(address, specs=plan.specs.values(), namespace=namespace_of(plan.config.identity()),
                              workers=workers or plan.config.workers(), connect_timeout=connect_timeout)


__all__ = ["DaskError", "DaskExecutor", "MatchFuture", "NoAnswer", "RemoteResult", "answered", "check_scheduler",
           "check_workers", "code_fingerprint", "dask_executor", "land", "namespace_of", "open_dask_executor",
           "play_remote", "run_job"]

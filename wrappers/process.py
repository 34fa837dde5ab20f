"""``ProcessSeat``: a bot executable speaking the ICGA protocol over its stdin and stdout.

Bots are untrusted: they crash, hang, print garbage, flood their output and fork.  Everything that can go wrong
with a process is handled here, in one place, and comes back as a ``Fault`` value:

* the process is started as ``wrappers.sandbox`` plans it (bubblewrap, resource limits, a reduced environment, a
  private scratch folder, death with the referee); the seat only runs that plan and reads the limit a bot hit
  back out of its end;
* the process runs in its own session and process group (``start_new_session``), under ``trio.run_process`` in
  the match's nursery; ending a bot means ending its whole group (SIGTERM, then SIGKILL), so a forked child
  holding the pipe does not outlive it, and a cancelled match kills every group at once;
* stdout is read by ``ask`` itself into lines capped at ``max_line`` bytes (a bot printing 10 MB without a newline
  is a ``line_too_long`` fault after ``max_line`` bytes, not a memory problem): a blocking poll() for up to
  ``block_ms``, then trio's ``wait_readable`` for the rest of the deadline;
* stderr is drained into a per-seat file, keeping the first ``stderr_limit`` bytes: by a task while ``ask``
  waits through trio, by ``ask`` itself while it blocks;
* every question has a deadline (``move_timeout``, plus ``start_grace`` for a hand's first question);
* lines to the bot are buffered and written in one go with the next question (or ``/exit``), which keeps the
  referee's cost per protocol line small; the bot sees exactly the same lines in the same order.
"""

from __future__ import annotations

import concurrent.futures
import logging
import marshal
import os
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import trio

from referee.errors import printable
from referee.game.kinds import ICGA_ASKS
from referee.game.types import Answer, Event, Question
from referee.userfiles import create_private

from . import cgroups, sandbox
from .codec import ProtocolError, cut, format_event, format_start, misplaced_output_hint, parse_answer
from .seat import Fault, HandInfo, Reply, Seat
from .spec import BotSpec, seat_timeout

MAX_LINE = 4096
STDERR_LIMIT = 1 << 20
EXIT_GRACE = 1.0  # seconds a bot has to exit by itself after /exit
# After sending a question, wait up to this long in a blocking poll() on the bot's stdout (and stderr, drained as
# it comes) before handing the wait to trio.  A wait through trio costs about 30 µs more referee CPU than a
# blocking one (a cancel scope, the scheduler, epoll, on cold caches after the sleep; ``bench/match.py
# --block-ms 0``): as much as the engine's step.  It blocks the event loop for at most this long, so a match alone
# in its loop uses it, and matches sharing a loop (a tournament's process-bot matches) pass 0.
BLOCK_MS = 250.0
TERM_GRACE = 0.2  # seconds between SIGTERM and SIGKILL
STDERR_TAIL = 512  # the last bytes of stderr kept in memory, to tell why a bot died (e.g. MemoryError)
ENDED_WAIT = 1.0  # seconds to see whether a bot that did not answer has ended (its fault then says how)
UNFLUSHED = ("nothing has come on its stdout since it started: if it did write an answer, it is still in its "
             "stdout buffer; flush after each answer (fflush(stdout) in C, std::endl or std::flush in C++, "
             "print(..., flush=True) in Python, System.out.flush() in Java)")
"""Why a bot that never wrote a byte times out, most likely (a pipe is fully buffered unless it flushes)."""


@dataclass(frozen=True, slots=True)
class _Eof:
    pass


@dataclass(frozen=True, slots=True)
class _TooLong:
    head: bytes


_EOF = _Eof()
_Item = bytes | _Eof | _TooLong

# Bots repeat themselves (/pass, /hu, /throw 112): parsed answers, with their canonical line, are cached by their
# exact bytes.
_PARSED: dict[bytes, tuple[Answer, str, str | None]] = {}
_PARSED_LIMIT = 4096
_ASK_LINES = {kind: f"/ask {kind}" for kind in ICGA_ASKS}


PROTOCOL_LOG = logging.getLogger("mjref.protocol")
"""Every line between the referee and a bot process, at DEBUG (off unless a command's ``-v`` turns it on)."""


class ProtocolLog:
    """The debug log of one seat's lines: ``seat 2 (greedy) < /ask throw`` for a line sent, ``>`` for one read."""

    def __init__(self, position: int, name: str) -> None:
        self.prefix = f"seat {position} ({name})"

    def append(self, item: tuple[str, bytes]) -> None:
        direction, data = item
        if direction == "w":  # the referee's own lines
            for line in data.decode("ascii", "replace").split("\n")[:-1] or [""]:
                PROTOCOL_LOG.debug("%s < %s", self.prefix, line)
        else:  # one line of the bot's, escaped: its bytes never reach the terminal as they are
            PROTOCOL_LOG.debug("%s > %s", self.prefix, printable(data.decode("utf-8", "replace")))


def _parse(line: bytes) -> tuple[Answer, str, str | None]:
    """The answer on a line, its canonical text, and the line itself when it is not the canonical text."""
    parsed = _PARSED.get(line)
    if parsed is None:
        answer = parse_answer(line)  # raises ProtocolError for a bad line (never cached); a parsed line is ASCII
        canonical = str(answer)
        raw = line.decode("ascii")
        parsed = (answer, canonical, None if raw == canonical else raw)
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.clear()
        _PARSED[line] = parsed
    return parsed


# The answers each question takes: its own kind, and /pass to any but /ask throw (the one rule; ``judge_line`` and
# the process seat's fast path both read it).
ANSWERS_TO: dict[str, frozenset[str]] = {
    "throw": frozenset({"throw"}),
    **{ask: frozenset({ask, "pass"}) for ask in ("hu", "gong", "pong", "eat")},
}


def _unasked(item: bytes) -> str:
    """The reason of an ``unasked`` fault for ``item``, a line the bot wrote before its question was asked."""
    hint = misplaced_output_hint(item)
    what = "a line" if item.strip() else "an empty line"
    return f"{what} nobody asked for (before this question){'; ' + hint if hint else ''}"


def judge_line(item: bytes, ask: str, seconds: float) -> Reply:
    """A bot's line as the reply to ``/ask <ask>``: the answer, or the fault (``garbage``, ``wrong_answer``,
    ``false_hu``).  Whether the answer is legal is the engine's to say.  Used for a pipe (``ProcessSeat``) and for
    a wrapper's relayed line (``wrappers.remote``) alike."""
    parsed = _PARSED.get(item)
    if parsed is None:
        try:
            parsed = _parse(item)
        except ProtocolError as exc:
            shown = cut(item.decode("utf-8", "replace"))
            return Reply(None, seconds, shown, Fault("garbage", exc.reason, shown))
    answer, line, raw = parsed
    kind = answer.kind
    if kind in ANSWERS_TO[ask]:
        return Reply(answer, seconds, line, raw=raw)
    fault_kind = "false_hu" if kind == "hu" else "wrong_answer"
    detail = "/hu when the hand does not win" if kind == "hu" else f"/{kind} does not answer /ask {ask}"
    shown = cut(raw) if raw is not None else line
    return Reply(None, seconds, shown, Fault(fault_kind, detail, shown))  # type: ignore[arg-type]


# A broadcast event is formatted once for all the seats it goes to.
# (event, extensions, line), replaced as one tuple so that matches running in threads never mix them up.
_last_format: tuple[Event | None, frozenset[str], str | None] = (None, frozenset(), None)


def _format(event: Event, extensions: frozenset[str]) -> str | None:
    global _last_format
    last = _last_format
    if last[0] is event and last[1] == extensions:
        return last[2]
    line = format_event(event, extensions=extensions)
    _last_format = (event, extensions, line)
    return line


async def _close_quietly(stream: trio.abc.AsyncResource | None) -> None:
    """Close one of the bot's pipes; one already closed or broken is fine."""
    if stream is not None:
        with trio.move_on_after(0.1):
            try:
                await stream.aclose()
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass


# Keepers are started from one thread that lives as long as the referee.  A keeper dies with the referee through
# the kernel's parent-death signal (bwrap --die-with-parent, or the keeper's own PR_SET_PDEATHSIG in mode none), and
# that signal follows the *thread* that forked it: trio's own run_process forks in a worker thread that its thread
# cache ends after 10 s idle, which would SIGKILL every box still running 10 s after it was started.
_SPAWNER = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="mjref-spawn")
_KEEPER_REPLY = 4096  # the longest packet a keeper may send
# Seconds a keeper has to answer ``ready`` or ``pid``, or to report the end of a process it was told to kill.  A bot
# runs as its keeper's uid and may stop it (SIGSTOP): a keeper that does not answer is treated as gone (its box is
# ended and the next hand gets a new one), never waited for without end.
KEEPER_TIMEOUT = 30.0
CGROUP_GONE = 10.0  # seconds a closed box's cgroups are given to lose their last processes


class BoxError(Exception):
    """A seat's box could not be had, or its keeper broke the protocol (a bot may kill its keeper)."""


class BoxDirty(BoxError):
    """The box's keeper starts nothing more (a new box is made): it could not empty what the last process left, or
    it has used half the CPU limit it holds for the bot."""


class BotProcess:
    """A bot process started in its box: its pid (as the box sees it), trio streams for its three pipes, and its
    exit status (None while it runs), which the box's keeper reports."""

    def __init__(self, box: Box, pid: int, stdin: trio.lowlevel.FdStream, stdout: trio.lowlevel.FdStream,
                 stderr: trio.lowlevel.FdStream) -> None:
        self.box = box
        self.pid = pid
        self.stdin: trio.lowlevel.FdStream | None = stdin
        self.stdout: trio.lowlevel.FdStream | None = stdout
        self.stderr: trio.lowlevel.FdStream | None = stderr
        self.returncode: int | None = None
        self.flags: frozenset[str] = frozenset()  # what the keeper saw at its end: "cpu", "tmp", "shm"
        self._exited = trio.Event()

    def _ended(self, code: int, flags: frozenset[str]) -> None:
        if self.returncode is None:
            self.returncode = code
            self.flags = flags
            self._exited.set()

    async def wait(self) -> int:
        """The exit status, once the process has ended (any number of tasks may wait)."""
        await self._exited.wait()
        assert self.returncode is not None
        return self.returncode

    def signal(self, word: str) -> None:
        """``term``: SIGTERM to its process group; ``kill``: SIGKILL to every process of its hand."""
        self.box.send(word)

    async def end(self, *, grace: float) -> None:
        """End of input, ``grace`` to exit by itself, then SIGTERM and SIGKILL to its whole process group."""
        await _close_quietly(self.stdin)
        if self.returncode is None and grace > 0:
            with trio.move_on_after(grace):
                await self.wait()
        if self.returncode is None:
            self.signal("term")
            with trio.move_on_after(TERM_GRACE):
                await self.wait()
        if self.returncode is None or not self.swept:
            self.signal("kill")  # also sweeps what the hand left running
        with trio.move_on_after(5):
            await self.wait()
        if self.returncode is None:  # its keeper is stopped (the bot may stop it)
            self.box._break("its keeper did not end the hand's process")

    @property
    def swept(self) -> bool:
        """Whether its keeper ends every process of the hand when this one ends, before it reports the end
        (``Launch.kill_all``): a ``kill`` after that end finds nothing more to end."""
        return self.box.launch.kill_all


def _popen_keeper(argv: list[str], cwd: str, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], socket.socket, int]:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    r_err, w_err = os.pipe()
    passed: tuple[int, ...] = ()
    if sandbox.SECCOMP_FD in argv:  # the box's seccomp filter, read by bwrap from this descriptor
        bpf = sandbox.seccomp_filter()
        assert bpf is not None
        fd = os.memfd_create("mjref-seccomp")
        os.write(fd, bpf)
        os.lseek(fd, 0, os.SEEK_SET)
        passed = (fd,)
        argv = [str(fd) if a == sandbox.SECCOMP_FD else a for a in argv]
    try:
        popen = subprocess.Popen(argv, stdin=theirs.fileno(), stdout=subprocess.DEVNULL, stderr=w_err, cwd=cwd,
                                 env=env, start_new_session=True, close_fds=True, pass_fds=passed)
    except BaseException:
        ours.close()
        os.close(r_err)
        raise
    finally:
        theirs.close()
        os.close(w_err)
        for fd in passed:
            os.close(fd)
    return popen, ours, r_err


async def _ended_within(popen: subprocess.Popen[bytes], seconds: float) -> None:
    """Wait up to ``seconds`` for ``popen`` to end (woken by its pidfd the moment it does; polled where the kernel
    has no pidfds)."""
    try:
        pidfd = os.pidfd_open(popen.pid)
    except (OSError, AttributeError):
        pidfd = -1
    try:
        with trio.move_on_after(seconds):
            while popen.poll() is None:
                if pidfd >= 0:
                    await trio.lowlevel.wait_readable(pidfd)
                else:
                    await trio.sleep(0.005)
    finally:
        if pidfd >= 0:
            trio.lowlevel.notify_closing(pidfd)
            os.close(pidfd)


_MAX_DEPTH = 64  # how far up ``Box.holds`` follows a process's parents (bwrap, its init, the keeper, the bot, ...)


class Box:
    """One seat's box for one match: its keeper (``wrappers.keeper``), which starts each of the bot's processes in
    it.  Planned and started once; a box whose keeper is gone, or whose scratch could not be emptied, is replaced."""

    def __init__(self, launch: sandbox.Launch, popen: subprocess.Popen[bytes], sock: socket.socket,
                 err_fd: int) -> None:
        self.launch = launch
        self._popen = popen
        self._sock = sock
        self._err_fd = err_fd
        self._replies: deque[tuple[str, list[str]]] = deque()
        self._reply = trio.Event()
        self.proc: BotProcess | None = None
        self.broken: str | None = None  # why this box can start no more processes
        self._early_exit: tuple[int, int, frozenset[str]] | None = None
        self._ooms = 0  # the cgroup's OOM kills before the current process started
        self.dirty = False

    @classmethod
    async def open(cls, launch: sandbox.Launch, nursery: trio.Nursery) -> Box:
        if launch.cgroup is not None:
            try:
                cgroups.create(launch.cgroup, launch.limits.memory_mb << 20)
            except OSError as exc:
                raise BoxError(f"its memory cgroup could not be made: {exc.strerror or exc}") from None
        if launch.cpu_cgroup is not None:
            try:
                cgroups.create_cpu(launch.cpu_cgroup)
            except OSError as exc:
                raise BoxError(f"its CPU accounting cgroup could not be made: {exc.strerror or exc}") from None
        future = _SPAWNER.submit(_popen_keeper, list(launch.argv), launch.cwd, dict(launch.env))
        try:
            popen, sock, err_fd = await trio.to_thread.run_sync(future.result)
        except OSError as exc:
            for group in (launch.cgroup, launch.cpu_cgroup):  # made above, for a box that never started
                if group is not None:
                    cgroups.remove(group)
            raise BoxError(f"its box could not start: {exc.strerror or exc}") from None
        sock.setblocking(False)
        box = cls(launch, popen, sock, err_fd)
        nursery.start_soon(box._read)
        try:
            box.send_packet(sandbox.keeper_code())
            box.send_packet(marshal.dumps(sandbox.keeper_config(launch)))
            word, rest = await box._next()
        except BaseException:  # cancelled while it starts (a stopped match): nothing of it may outlive the match
            with trio.CancelScope(shield=True):
                await box.aclose()
            raise
        if word != "ready":
            why = " ".join(rest) if word == "error" else box._last_words(box.broken or "its keeper ended")
            await box.aclose()
            raise BoxError(f"its box could not start: {cut(why, 300)}")
        os.close(box._err_fd)
        box._err_fd = -1
        return box

    @property
    def launcher_pid(self) -> int:
        """The pid of what the referee started for this box: bwrap, or in mode ``none`` the keeper itself."""
        return self._popen.pid

    def _last_words(self, default: str) -> str:
        """What the box's launcher said on its way out (``bwrap: ...``), else ``default``."""
        try:
            os.set_blocking(self._err_fd, False)
            text = os.read(self._err_fd, 4096).decode("utf-8", "replace").strip()
        except OSError:
            text = ""
        lines = [ln for ln in text.splitlines() if ln.strip()]
        return lines[-1] if lines else default  # escaped by cut() where it is shown

    def send(self, text: str) -> None:
        self.send_packet(text.encode("ascii"))

    def send_packet(self, data: bytes) -> None:
        if self.broken is None:
            try:
                self._sock.send(data)
            except OSError as exc:
                self._break(f"its keeper is gone ({exc.strerror or exc})")

    def _break(self, why: str) -> None:
        if self.broken is None:
            self.broken = why
        if self.proc is not None:
            self.proc._ended(-signal.SIGKILL, frozenset())
        self._replies.append(("gone", []))
        self._reply.set()

    async def _read(self) -> None:
        """The one task that reads the keeper's packets: a process's end goes to its process, the rest to
        whoever waits for a reply.  A packet that is not the protocol's ends the box."""
        sock = self._sock
        try:
            while True:
                await trio.lowlevel.wait_readable(sock)
                try:
                    data = sock.recv(_KEEPER_REPLY)
                except BlockingIOError:
                    continue
                if not data:
                    self._break("its keeper ended")
                    return
                words = data.decode("ascii", "replace").split()
                if not words:
                    continue
                if words[0] == "exit" and len(words) == 4:
                    try:
                        pid, code = int(words[1]), int(words[2])
                    except ValueError:
                        self._break("its keeper said something else than its protocol")
                        return
                    flags = frozenset(words[3].split(",")) - {"-"}
                    if code == -signal.SIGKILL and self.launch.cgroup is not None \
                            and cgroups.oom_kills(self.launch.cgroup) > self._ooms:
                        flags |= {"memory"}  # the kernel killed it for the memory of all its processes
                    if self.proc is not None and self.proc.pid == pid:
                        proc, self.proc = self.proc, None
                        proc._ended(code, flags)
                    else:  # its end came before ``spawn`` took its pid: a process that ended at once
                        self._early_exit = (pid, code, flags)
                elif words[0] == "dirty":
                    self.dirty = True
                elif words[0] in ("ready", "pid", "error"):
                    self._replies.append((words[0], words[1:]))
                    self._reply.set()
                else:
                    self._break("its keeper said something else than its protocol")
                    return
        except (OSError, ValueError, trio.ClosedResourceError):  # ValueError: closed before this task first ran
            self._break("its keeper is gone")

    async def _next(self) -> tuple[str, list[str]]:
        """The keeper's next reply; a keeper that gives none within ``KEEPER_TIMEOUT`` breaks its box."""
        with trio.move_on_after(KEEPER_TIMEOUT):
            while not self._replies:
                self._reply = trio.Event()
                await self._reply.wait()
        if not self._replies:
            # A reply may have come with the deadline: a match alone in its loop can play a whole hand without
            # yielding to trio, past the deadline of the next hand's start asked for at its beginning; the reader
            # task then wakes in the same pass as this one.
            await trio.lowlevel.checkpoint()
        if not self._replies:
            self._break(f"its keeper did not answer within {KEEPER_TIMEOUT:g} s")
        return self._replies.popleft()

    def oom_kills(self) -> int:
        """How many of the current process's processes the kernel has killed for the memory of all of them (its
        seat's memory cgroup) since it started; 0 where the seat has no memory cgroup."""
        if self.launch.cgroup is None:
            return 0
        return cgroups.oom_kills(self.launch.cgroup) - self._ooms

    def holds(self, pid: int) -> bool:
        """Whether process ``pid`` (as this referee numbers it) is one of this box's: its keeper, or a descendant of
        it (in a pid namespace every process of the box is; outside one, a bot's process that left its parent for
        init is not).  A pid that has ended is no longer the box's."""
        root = self.launcher_pid
        for _ in range(_MAX_DEPTH):
            if pid == root:
                return True
            if pid <= 1:
                return False
            try:
                with open(f"/proc/{pid}/stat", "rb") as f:
                    pid = int(f.read().rpartition(b")")[2].split()[1])  # its parent (field 4 of stat)
            except (OSError, ValueError, IndexError):
                return False
        return False

    async def spawn(self) -> BotProcess:
        """Start the bot's process in the box (raises ``BoxError`` with the reason it could not start)."""
        return await self.spawned(self.request())

    def request(self) -> list[int]:
        """Ask the keeper for a process, without waiting: the referee's ends of its three pipes, for ``spawned``
        (raises ``BoxError`` if the keeper cannot be asked)."""
        if self.broken is not None:
            raise BoxError(self.broken)
        if self.launch.cgroup is not None:
            self._ooms = cgroups.oom_kills(self.launch.cgroup)
        fds = [os.pipe(), os.pipe(), os.pipe()]  # (read, write) for stdin, stdout, stderr
        child = [fds[0][0], fds[1][1], fds[2][1]]
        ours = [fds[0][1], fds[1][0], fds[2][0]]
        try:
            socket.send_fds(self._sock, [b"spawn"], child)
        except OSError as exc:
            for fd in child + ours:
                os.close(fd)
            self._break(f"its keeper is gone ({exc.strerror or exc})")
            raise BoxError(self.broken or "its keeper is gone") from None
        for fd in child:
            os.close(fd)
        return ours

    async def spawned(self, ours: list[int]) -> BotProcess:
        """The process ``request`` asked for, once its keeper has started it (``BoxError`` with the reason it could
        not)."""
        try:
            word, rest = await self._next()
        except BaseException:  # cancelled before its pid came: the box cannot tell this start from the next
            for fd in ours:
                os.close(fd)
            self._break("a start was cancelled")
            raise
        if word != "pid" or len(rest) != 1 or not rest[0].isdigit():
            for fd in ours:
                os.close(fd)
            if word == "error" and rest == ["dirty"]:
                self.dirty = True
                raise BoxDirty("the box's keeper starts nothing more (a scratch it could not empty, or worn out)")
            if word == "error" and rest[:1] and rest[0].isdigit():
                raise BoxError(os.strerror(int(rest[0])) if len(rest) == 1 else " ".join(rest[1:]))
            raise BoxError(self.broken or "its keeper said something else than its protocol")
        for fd in ours:
            os.set_blocking(fd, False)
        proc = self.proc = BotProcess(self, int(rest[0]), trio.lowlevel.FdStream(ours[0]),
                                      trio.lowlevel.FdStream(ours[1]), trio.lowlevel.FdStream(ours[2]))
        early, self._early_exit = self._early_exit, None
        if early is not None and early[0] == proc.pid:
            self.proc = None
            proc._ended(early[1], early[2])
        return proc

    async def aclose(self) -> None:
        """End the box: its keeper kills what is left and exits when its socket closes; bwrap's end (or SIGKILL
        to the keeper's session, for a keeper that does not) takes the rest."""
        if self._err_fd >= 0:
            os.close(self._err_fd)
            self._err_fd = -1
        self._break(self.broken or "closed")
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        await _ended_within(self._popen, 1.0)
        if self._popen.poll() is None:
            try:
                os.killpg(self._popen.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            with trio.move_on_after(5):
                while self._popen.poll() is None:
                    await trio.sleep(0.01)
        trio.lowlevel.notify_closing(self._sock)
        self._sock.close()
        # bwrap's first process ends before the box's last: its init tells it the keeper's status and it exits
        # while the rest are still being killed, and a cgroup in use cannot be removed (every match left its seats'
        # CPU accounting cgroups behind).  Bounded: a process the kernel cannot end leaves its cgroup.
        with trio.move_on_after(CGROUP_GONE):
            for group in (self.launch.cgroup, self.launch.cpu_cgroup):
                while group is not None and not cgroups.remove(group):
                    await trio.sleep(0.005)


POOL_PER_SLOT = 16  # a box pool keeps at most this many idle boxes per match it may play at once (two matches' worth:
# a bot started per hand has two boxes a seat)


class BoxPool:
    """Boxes kept open from one match to the next of a run (a tournament, a league): a seat then opens its box once
    per bot and concurrency slot, not once per match.  A box is given back only when nothing of one match can
    reach the next, exactly as between two hands of a match: its keeper ends every process of the box and empties
    its scratch mounts and IPC after each one (``Launch.kill_all``), it holds no copy of a bot's folder and no
    folder the bot may write, its last process is gone, and it is not broken or dirty.  It is taken again only by
    a seat of the same bot, mode and match length, and only while it covers exactly the paths the referee hides
    now (``sandbox.covers_as_planned``: a new match's log in a bot's folder is not covered by an older box, which
    is then closed)."""

    def __init__(self, nursery: trio.Nursery, limit: int) -> None:
        self.nursery = nursery  # the boxes' reader tasks live here, as long as the run
        self._limit = max(1, limit)
        self._idle: list[tuple[tuple[str, str | None, int | None], Box, Path]] = []
        self.opened = 0  # boxes opened by seats of this pool (for tests and benchmarks)
        self.reused = 0

    def take(self, key: tuple[str, str | None, int | None]) -> tuple[Box, Path] | None:
        """An idle box for ``key`` with its scratch folder, if one can serve a new match."""
        for i in range(len(self._idle) - 1, -1, -1):
            k, box, scratch = self._idle[i]
            if k != key:
                continue
            del self._idle[i]
            if box.broken is None and not box.dirty and sandbox.covers_as_planned(box.launch):
                self.reused += 1
                return box, scratch
            self.nursery.start_soon(end_box, box, scratch)
        return None

    def give(self, key: tuple[str, str | None, int | None], box: Box, scratch: Path | None, writable: bool) -> bool:
        """Keep ``box`` for the next match of the same bot (True), or refuse it (False: the seat ends it)."""
        launch = box.launch
        if (writable or scratch is None or not launch.leaves_nothing or box.broken is not None or box.dirty
                or box.proc is not None):
            return False
        self._idle.append((key, box, scratch))
        while len(self._idle) > self._limit:
            _, old, old_scratch = self._idle.pop(0)
            self.nursery.start_soon(end_box, old, old_scratch)
        return True

    async def aclose(self) -> None:
        idle, self._idle = self._idle, []
        async with trio.open_nursery() as closing:
            for _, box, scratch in idle:
                closing.start_soon(end_box, box, scratch)


@asynccontextmanager
async def box_pool(slots: int) -> AsyncIterator[BoxPool]:
    """A pool of boxes for a run that plays at most ``slots`` matches at once; its boxes end with it."""
    async with trio.open_nursery() as nursery:
        pool = BoxPool(nursery, POOL_PER_SLOT * max(1, slots))
        try:
            yield pool
        finally:
            with trio.CancelScope(shield=True):
                await pool.aclose()


async def end_box(box: Box, scratch: Path | None) -> None:
    """End a box and what its plan made: its keeper and processes, its uid and copies, its scratch folder."""
    try:
        await box.aclose()
    finally:
        sandbox.release(box.launch)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


async def run_in_box(launch: sandbox.Launch, data: bytes = b"", timeout: float = 30.0) -> tuple[int, bytes, bytes]:
    """Run the planned bot once in its box with ``data`` on its stdin: its exit status, stdout and stderr (for
    tests and benchmarks that look at the box itself)."""
    failed: BoxError | None = None
    result: tuple[int, bytes, bytes] = (-1, b"", b"")
    async with trio.open_nursery() as nursery:
        try:
            box = await Box.open(launch, nursery)
        except BoxError as exc:
            failed = exc
            nursery.cancel_scope.cancel()
        else:
            try:
                result = await _run_once(box, data, timeout)
            finally:
                await box.aclose()
                nursery.cancel_scope.cancel()
    if failed is not None:
        raise failed
    return result


async def _run_once(box: Box, data: bytes, timeout: float) -> tuple[int, bytes, bytes]:
    proc = await box.spawn()
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    out = bytearray()
    err = bytearray()

    async def drain(stream: trio.lowlevel.FdStream, into: bytearray) -> None:
        while chunk := await stream.receive_some(65536):
            into += chunk

    with trio.fail_after(timeout):
        async with trio.open_nursery() as io:
            io.start_soon(drain, proc.stdout, out)
            io.start_soon(drain, proc.stderr, err)
            if data:
                await proc.stdin.send_all(data)
            await proc.stdin.aclose()
        code = await proc.wait()
    for stream in (proc.stdout, proc.stderr):
        await stream.aclose()
    return code, bytes(out), bytes(err)


class _Slot:
    """One of a seat's boxes for a match, with its plan and its scratch folder (the box's or the pool's)."""

    __slots__ = ("box", "launch", "scratch")

    def __init__(self) -> None:
        self.box: Box | None = None
        self.launch: sandbox.Launch | None = None
        self.scratch: Path | None = None


class ProcessSeat(Seat):
    """One bot executable at one position.

    A bot started per hand (the protocol's default) has two boxes for the match, which its hands take in turns:
    while one hand is played in one box, the next hand's process starts in the other (``_prestart``), so that a
    hand never waits for its bots to start.  That process is fresh and told nothing until its hand begins; it
    shares nothing with the hand under way but what two boxes share (docs/security.md).  A bot that keeps a
    process for the whole match, writes to its folder, or whose box cannot end every process of a hand has one box.
    """

    kind = "process"

    def __init__(
        self,
        spec: BotSpec,
        position: int,
        nursery: trio.Nursery,
        *,
        stderr_path: Path | None = None,
        max_line: int = MAX_LINE,
        stderr_limit: int = STDERR_LIMIT,
        exit_grace: float = EXIT_GRACE,
        timeout: float | None = None,
        block_ms: float = 0.0,
        sandbox_mode: str | None = None,
        hands: int | None = None,
        boxes: BoxPool | None = None,
    ) -> None:
        """``sandbox_mode``: the run's ``--sandbox`` (overrides the spec's); ``hands``: the match's length, which a
        ``keep_alive`` bot's CPU limit covers; ``boxes``: the run's box pool, which the seat's box comes from and
        goes back to when it can serve another match."""
        assert spec.cmd is not None
        self.spec = spec
        self.name = spec.name
        self.position = position
        self._nursery = nursery
        self._stderr_path = stderr_path
        self._max_line = max_line
        self._stderr_limit = stderr_limit
        self._exit_grace = exit_grace
        self._in_hand = False  # between begin_hand and the hand's /exit: a stop sends /exit first
        self._timeout_override = timeout
        self._block_ms = max(0.0, block_ms)
        self._sandbox_mode = sandbox_mode
        self._hands = hands
        # The seat's box for this match (its keeper starts each hand's process), its plan, and its private host
        # folder (mode none: working directory and HOME); and the other box, where the next hand's process starts
        self._slot = _Slot()
        self._alt = _Slot()
        self._spare: BotProcess | None = None  # the next hand's process, started in ``_alt`` (``_prestart``)
        self._spare_done: trio.Event | None = None  # set when the ``_prestart`` under way has ended
        self._spare_scope: trio.CancelScope | None = None
        self._boxes = boxes
        self._stderr_tail = b""
        self._sent_exit = False  # a keep_alive bot's process has been sent /exit (and should live on)
        self._extensions = frozenset(spec.extensions)
        self._start_line = (0, "")  # (position, its /start line), made at the first hand
        self._proc: BotProcess | None = None
        self._io_scope: trio.CancelScope | None = None
        self._pending: deque[_Item] = deque()
        self._buf = bytearray()
        self._stdout_done = False
        self._stdout_fd: int | None = None
        self._stdin_fd: int | None = None
        self._stderr_fd: int | None = None  # polled beside stdout while ``ask`` blocks (see ``_wait_blocking``)
        self._poll: select.poll | None = None
        self._outbox: list[str] = []
        self._unsent = b""  # bytes a full pipe did not take in end_hand_nowait (sent first by the next flush)
        self._first_question = True
        self._timeout = 10.0
        self._start_grace = 10.0
        self._dead: Fault | None = None  # a fault that ended this process (further asks fail at once)
        self._stderr_file: IO[bytes] | None = None
        self.stderr_dropped = 0
        self.lines_sent = 0
        self.lines_received = 0
        # Optional I/O trace: ("w", bytes) for each write, ("r", line) for each answer read.  Benchmarks set a list;
        # the debug log (``mjref match -v``) sets a ProtocolLog, decided once here, so the hot path pays nothing
        # when it is off.
        self.trace: list[tuple[str, bytes]] | ProtocolLog | None = (
            ProtocolLog(position, spec.name) if PROTOCOL_LOG.isEnabledFor(logging.DEBUG) else None)

    # -------------------------------------------------------------------------------------------- lifecycle
    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.returncode is None

    @property
    def launch(self) -> sandbox.Launch | None:
        """How the current (or last) process was started."""
        return self._slot.launch

    async def prepare(self) -> None:
        """Open the seat's box (boxes: see the class) before the first hand: a match opens its seats' boxes at
        once, not one by one as their first processes start (a keeper's start is most of a box's price)."""
        try:
            await self._open_box()
            if (self._hands or 0) > 1 and self._prestarts():  # the box the second hand's process starts in
                await self._open_box(self._alt)
        except (sandbox.BotError, BoxError, OSError):
            pass  # the first hand's start tries again and says why

    async def _open_box(self, slot: _Slot | None = None) -> Box:
        """The box of ``slot`` (the current one by default), opened (and planned, once per match) if it has none
        that can start a process."""
        slot = slot or self._slot
        box = slot.box
        if box is not None and (box.broken is not None or box.dirty):
            slot.box = None
            with trio.CancelScope(shield=True):  # bounded; a stop in the middle would leave half a box behind
                await box.aclose()  # a keeper gone, or a scratch a hand left dirty: the next hand gets a new box
            box = None
        if box is None and slot.launch is None and self._boxes is not None:
            taken = self._boxes.take(self._pool_key())
            if taken is not None:
                box, slot.scratch = taken
                slot.box, slot.launch = box, box.launch
                return box
        if box is None:
            if slot.scratch is None:
                slot.scratch = Path(tempfile.mkdtemp(prefix="mjref-seat-"))
            if slot.launch is None:  # planned once per match (the paths it checks do not change mid-match)
                slot.launch = sandbox.plan(self.spec, slot.scratch, mode=self._sandbox_mode, hands=self._hands)
            nursery = self._boxes.nursery if self._boxes is not None else self._nursery
            box = slot.box = await Box.open(slot.launch, nursery)
            if self._boxes is not None:
                self._boxes.opened += 1
        return box

    def _pool_key(self) -> tuple[str, str | None, int | None]:
        return (self.spec.model_dump_json(), self._sandbox_mode, self._hands)

    async def _start(self) -> Fault | None:
        spec = self.spec
        try:
            box = await self._open_box()
        except (sandbox.BotError, BoxError, OSError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            return Fault("start_failed", f"cannot start {cut(spec.cmd[0] if spec.cmd else '?')}: {why}")
        try:
            try:
                proc = await box.spawn()
            except BoxDirty:  # the last hand's leftovers could not be removed: a new box
                proc = await (await self._open_box()).spawn()
        except (BoxError, sandbox.BotError, OSError) as exc:
            self._proc = None
            return Fault("start_failed", f"cannot start {cut(spec.cmd[0] if spec.cmd else '?')}: {exc}")
        self._attach(proc)
        return None

    def _attach(self, proc: BotProcess) -> None:
        """Make ``proc`` (just started, or started during the last hand) the seat's process."""
        self._proc = proc
        self._stderr_tail = b""
        self._sent_exit = False
        self._pending.clear()
        self._buf = bytearray()
        self._stdout_done = False
        assert self._proc.stdout is not None and self._proc.stdin is not None
        self._stdout_fd = self._proc.stdout.fileno()
        self._stdin_fd = self._proc.stdin.fileno()
        self._stderr_fd = self._proc.stderr.fileno() if self._proc.stderr is not None else None
        self._poll = select.poll()
        self._poll.register(self._stdout_fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        if self._stderr_fd is not None:
            self._poll.register(self._stderr_fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        self._io_scope = trio.CancelScope()
        if self._stderr_path is not None and self._stderr_file is None:
            self._stderr_file = open(create_private(self._stderr_path), "wb")  # noqa: SIM115 - closed in close()
        self._nursery.start_soon(self._io, self._proc, self._io_scope)
        self._dead = None

    def _prestarts(self) -> bool:
        """Whether the seat starts each hand's process while the hand before it is played (see the class)."""
        launch = self._slot.launch
        return not self.spec.keep_alive and not self.spec.writable and launch is not None and launch.leaves_nothing

    def _prestart(self) -> None:
        """Start the next hand's process in the other box, beside the hand under way: asked of its keeper here, at
        once (a match alone in its loop may not yield to trio again before the hand's end), and taken by a task.
        If it cannot start, the next hand starts its process itself, as without this, and says why."""
        box, ours = self._alt.box, None
        if box is not None and box.broken is None and not box.dirty:
            try:
                ours = box.request()
            except (BoxError, OSError):  # (OSError: no descriptors left for its pipes) the task tries again
                pass
        self._spare_done = trio.Event()
        self._nursery.start_soon(self._prestarted, box, ours, self._spare_done)

    async def _prestarted(self, box: Box | None, ours: list[int] | None, done: trio.Event) -> None:
        try:
            with trio.CancelScope() as scope:
                self._spare_scope = scope
                if box is not None and ours is not None:
                    try:
                        self._spare = await box.spawned(ours)
                        return
                    except BoxDirty:  # the box's last hand left what its keeper could not remove: a new box
                        pass
                self._spare = await (await self._open_box(self._alt)).spawn()
        except (BoxError, sandbox.BotError, OSError):
            pass
        finally:
            self._spare_scope = None
            done.set()

    async def _take_spare(self) -> BotProcess | None:
        """The process ``_prestart`` started for this hand (once it has ended: its waits are bounded), if any."""
        done = self._spare_done
        if done is not None:
            await done.wait()  # (stopped meanwhile: the seat's close still waits for it, before its boxes go)
            self._spare_done = None
        spare, self._spare = self._spare, None
        return spare

    async def _end_spare(self) -> None:
        """End a next hand's process that no hand will take (the match is over, or stopped)."""
        if self._spare_scope is not None:
            self._spare_scope.cancel()
        spare = await self._take_spare()
        if spare is not None:
            await spare.end(grace=0.0)
            await _close_quietly(spare.stdout)
            await _close_quietly(spare.stderr)

    async def _io(self, proc: BotProcess, scope: trio.CancelScope) -> None:
        with scope:
            await self._drain_stderr(proc)

    # Stdout is read inline by ``ask`` (non-blocking reads on the pipe, ``wait_readable`` only when nothing is
    # there yet): one scheduler round per question instead of a reader task and a channel hand-off.
    def _read_available(self) -> None:
        """Read what the bot has written so far, without waiting, into complete lines in ``_pending``."""
        while not self._stdout_done and self._stdout_fd is not None:
            try:
                chunk = os.read(self._stdout_fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            self._take_chunk(chunk)
            if len(chunk) < 65536 or self._pending:  # a bot flooding its stdout cannot keep the referee reading
                return

    def _take_chunk(self, chunk: bytes) -> None:
        """Split what one read gave into lines (``b""``: the end of the output)."""
        if not chunk:
            self._stdout_done = True
            self._pending.append(_EOF)
            return
        limit = self._max_line
        buf = self._buf
        buf += chunk
        start = 0
        while True:
            i = buf.find(b"\n", start)
            if i < 0:
                break
            if i - start > limit:
                self._pending.append(_TooLong(bytes(buf[start : start + 80])))
                self._stdout_done = True
                return
            self._pending.append(bytes(buf[start:i]))
            start = i + 1
        if start:
            del buf[:start]
        if len(buf) > limit:
            self._pending.append(_TooLong(bytes(buf[:80])))
            self._stdout_done = True

    def _read_one(self) -> _Item | None:
        """After poll() said so: the next item.  The usual case, exactly one whole line in the pipe and nothing
        buffered, costs one read and one slice."""
        if not self._pending and not self._buf and self._stdout_fd is not None and not self._stdout_done:
            try:
                chunk = os.read(self._stdout_fd, 65536)
            except BlockingIOError:
                return None
            except OSError:
                chunk = b""
            end = len(chunk) - 1
            if 0 <= end <= self._max_line and chunk.find(b"\n") == end:
                return chunk[:end]
            self._take_chunk(chunk)
        else:
            self._read_available()
        return self._pending.popleft() if self._pending else None

    async def _next_item(self) -> _Item:
        while not self._pending:
            if self._stdout_fd is None:
                return _EOF
            try:
                await trio.lowlevel.wait_readable(self._stdout_fd)
            except (trio.ClosedResourceError, OSError):
                return _EOF
            self._read_available()
        return self._pending.popleft()

    async def _drain_stderr(self, proc: BotProcess) -> None:
        stream = proc.stderr
        assert stream is not None
        try:
            while True:
                chunk = await stream.receive_some(65536)
                if not chunk:
                    return
                self._keep_stderr(chunk)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return

    def _keep_stderr(self, chunk: bytes | bytearray) -> None:
        """Append to the seat's stderr file up to its size limit; count the rest as dropped.  The last bytes are
        also kept in memory, to name the limit a bot that dies hit."""
        self._stderr_tail = bytes(self._stderr_tail + chunk)[-STDERR_TAIL:]
        f = self._stderr_file
        if f is None:
            return
        room = self._stderr_limit - f.tell()
        if room > 0:
            f.write(chunk[:room])
            f.flush()
        self.stderr_dropped += max(0, len(chunk) - max(room, 0))

    def _wait_blocking(self, until: float) -> _Item | None:
        """Wait in poll() (blocking the event loop) until the bot's next stdout item or ``until``
        (``time.perf_counter()``), draining its stderr meanwhile so that a bot writing to stderr never blocks."""
        poll = self._poll
        assert poll is not None
        left = until - time.perf_counter()
        while left > 0:
            if self._stdout_in(poll.poll(left * 1000.0)):
                item = self._read_one()
                if item is not None:
                    return item
            left = until - time.perf_counter()
        return None

    def _stdout_in(self, ready: list[tuple[int, int]]) -> bool:
        """Whether what poll() reported includes stdout; stderr it reports is drained on the way."""
        out_fd = self._stdout_fd
        if len(ready) == 1 and ready[0][0] == out_fd:  # the usual case: the answer, alone
            return True
        out = False
        for fd, _ in ready:
            if fd == out_fd:
                out = True
            else:
                self._read_stderr_now(fd)
        return out

    def _read_stderr_now(self, fd: int) -> None:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if chunk:
            self._keep_stderr(chunk)
        elif self._poll is not None:  # stderr closed: stop watching it (it would be "ready" for ever)
            self._poll.unregister(fd)
            if fd == self._stderr_fd:
                self._stderr_fd = None

    async def _stop(self, *, grace: float) -> None:
        """End the bot: end of its input, ``grace`` to exit by itself, then SIGTERM and SIGKILL to its whole
        process group.  End of input is how a bot kept alive between hands learns that the match is over (the
        framework's bots, and ours, exit on it)."""
        proc = self._proc
        if proc is None:
            return
        self._stdin_fd = None
        await proc.end(grace=grace)
        if self._io_scope is not None:
            self._io_scope.cancel()
        await _close_quietly(proc.stdout)
        await _close_quietly(proc.stderr)
        self._proc = None
        self._stdout_fd = self._stdin_fd = self._stderr_fd = None
        self._unsent = b""
        self._poll = None
        self._io_scope = None
        if self.stderr_dropped and self._stderr_file is not None:
            self._stderr_file.write(f"\n[mjref: {self.stderr_dropped} more bytes of stderr dropped]\n".encode())
            self._stderr_file.flush()
            self.stderr_dropped = 0

    # -------------------------------------------------------------------------------------------- the protocol
    def question_timeout(self, info: HandInfo) -> float:
        """The command line's timeout over the bot file's over the ruleset's (``seat_timeout``)."""
        return seat_timeout(self._timeout_override, self.spec, info.timeout)

    async def begin_hand(self, info: HandInfo) -> Fault | None:
        self._timeout = self.question_timeout(info)
        self._start_grace = info.start_grace
        self._first_question = False  # the start grace is for a process that has just been started
        self._outbox.clear()
        if self._sent_exit and self._proc is not None and self._proc.returncode is not None:
            # A keep_alive bot that ended at /exit, as a per-hand bot should: a fault that says why.
            gone = await self._exit_fault("crash", "before the hand")
            await self._stop(grace=0)
            self._dead = gone
            return gone
        if self._proc is None or self._proc.returncode is not None:
            if self._proc is not None:
                await self._stop(grace=0)
            self._first_question = True
            spare = await self._take_spare()
            if spare is not None:  # started during the last hand, in the other box: the boxes change places
                self._slot, self._alt = self._alt, self._slot
                self._attach(spare)
            else:
                fault = await self._start()
                if fault is not None:
                    self._dead = fault
                    return fault
            if info.more and self._prestarts():
                self._prestart()
        start = self._start_line
        if start[0] != info.position:
            start = self._start_line = (info.position, format_start(info.position, (self.spec.cmd or ("",))[0]))
        self._outbox.append(start[1])
        self._in_hand = True
        return None

    def deliver(self, event: Event) -> None:
        line = _format(event, self._extensions)
        if line is not None:
            self._outbox.append(line)

    def line_sink(self) -> tuple[list[str], frozenset[str]]:
        return self._outbox, self._extensions

    def deliver_line(self, line: str) -> None:
        """A protocol line already formatted: a wrapper relays the server's lines unchanged (``wrappers.relay``)."""
        self._outbox.append(line)

    def _take_outbox(self, extra: str | None = None) -> bytes:
        """The buffered lines (and ``extra``) as the bytes of one write; the outbox is emptied."""
        outbox = self._outbox
        if extra is not None:
            outbox.append(extra)
        if not outbox:
            return b""
        data = ("\n".join(outbox) + "\n").encode("ascii")
        self.lines_sent += len(outbox)
        outbox.clear()
        if self.trace is not None:
            self.trace.append(("w", data))
        return data

    def _write_now(self, data: bytes) -> int:
        """Write what the pipe takes without waiting: the number of bytes written.  Raises
        ``trio.BrokenResourceError`` when the bot's stdin is closed."""
        fd = self._stdin_fd
        if fd is None:
            raise trio.BrokenResourceError("the bot is not running")
        try:
            return os.write(fd, data)
        except BlockingIOError:
            return 0
        except (BrokenPipeError, ConnectionResetError):
            raise trio.BrokenResourceError("the bot's stdin is closed") from None

    async def _flush(self, extra: str | None = None) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            self._outbox.clear()
            return
        data = self._take_outbox(extra)
        if self._unsent:
            data, self._unsent = self._unsent + data, b""
        if not data:
            return
        n = self._write_now(data)
        if n < len(data):  # the pipe is full: let trio wait until the bot reads
            await proc.stdin.send_all(data[n:])

    async def _exit_fault(self, default_kind: str, detail: str) -> Fault:
        proc = self._proc
        if proc is not None and proc.returncode is None:
            with trio.move_on_after(ENDED_WAIT):
                await proc.wait()
        if proc is not None and proc.returncode is not None:
            self._drain_stderr_now()
            ended, limit = (self.launch.ending(proc.returncode, self._stderr_tail, proc.flags) if self.launch
                            else ("ended", False))
            if limit:
                return Fault("resource", f"{detail}: the bot {ended}")
            if self._sent_exit and self.spec.keep_alive:
                return Fault("crash", f"{detail}: the bot {ended} after the last hand's /exit, but it is marked "
                             "keep_alive (one process for the whole match): a bot that exits at /exit must not "
                             "set keep_alive")
            if proc.returncode != 0 and ":" not in ended and self.spec.cwd is None and self.lines_received == 0:
                # no answer yet in this match and no limit named: most often a file it could not find
                ended += f" ({sandbox.SCRATCH_CWD})"
            return Fault("crash", f"{detail}: the bot {ended}")
        return Fault(default_kind, detail)  # type: ignore[arg-type]

    def _drain_stderr_now(self) -> None:
        """Take what is left in a dead bot's stderr pipe (its last words name what killed it)."""
        fd = self._stderr_fd
        if fd is None:
            return
        for _ in range(16):
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            self._keep_stderr(chunk)

    def _next_nowait(self) -> _Item | None:
        """The next line (or end) already received, without waiting; None if there is none yet."""
        if not self._pending and self._poll is not None and self._stdout_in(self._poll.poll(0)):
            self._read_available()
        return self._pending.popleft() if self._pending else None

    async def ask(self, question: Question) -> Reply:
        # The fast path (the bot answers within ``block_ms``) makes no trio call at all: one poll(0) for a line
        # nobody asked for, one write, one blocking poll, one read, each written out here.  Only a slow answer, a
        # full pipe or a fault takes the trio path below, with the deadline counted from the same start.
        if self._dead is not None or self._proc is None:
            return Reply(None, 0.0, fault=self._dead or Fault("crash", "the bot is not running"))
        item: _Item | None = None
        poll = self._poll
        if self._pending or (poll is not None and (ready := poll.poll(0)) and self._stdout_in(ready)):
            item = self._next_nowait()
            if isinstance(item, bytes):
                text = cut(item.decode("utf-8", "replace"))
                return Reply(None, 0.0, text, Fault("unasked", _unasked(item), text))
        ask = question.ask
        ask_line = _ASK_LINES[ask]
        timeout = self._timeout
        if self._first_question:
            timeout += self._start_grace
            self._first_question = False
        data = self._take_outbox(ask_line)
        started = time.perf_counter()
        try:
            written = self._write_now(data)
        except trio.BrokenResourceError:
            fault = await self._exit_fault("closed", f"could not send {ask_line}: its stdin is closed")
            return Reply(None, time.perf_counter() - started, fault=fault)
        if item is None and written == len(data) and self._block_ms and poll is not None:
            block = self._block_ms / 1000.0
            if block > timeout:
                block = timeout
            if (ready := poll.poll(block * 1000.0)) and self._stdout_in(ready):
                item = self._read_one()
            if item is None:  # stderr came first, or a line in pieces: wait for the rest of the block
                item = self._wait_blocking(started + block)
        if item is None or written < len(data):
            with trio.CancelScope(deadline=trio.current_time() + timeout - (time.perf_counter() - started)):
                try:
                    if written < len(data):
                        assert self._proc.stdin is not None
                        await self._proc.stdin.send_all(data[written:])
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    fault = await self._exit_fault("closed", f"could not send {ask_line}: its stdin is closed")
                    return Reply(None, time.perf_counter() - started, fault=fault)
                if item is None:
                    item = await self._next_item()
        seconds = time.perf_counter() - started
        if type(item) is bytes:
            self.lines_received += 1
            if self.trace is not None:
                self.trace.append(("r", item))
            parsed = _PARSED.get(item)
            if parsed is not None and parsed[0].kind in ANSWERS_TO[ask]:  # judge_line's first case, inline
                return Reply(parsed[0], seconds, parsed[1], None, parsed[2])
            reply = judge_line(item, ask, seconds)
            if reply.fault is not None and reply.fault.kind == "garbage":
                return await self._garbage_then_exit(reply, item)
            return reply
        if item is None:
            return self._timed_out(ask_line, timeout, seconds)
        if isinstance(item, _TooLong):
            head = cut(item.head.decode("utf-8", "replace"))
            fault = Fault("line_too_long", f"a line longer than {self._max_line} bytes", head)
            return Reply(None, seconds, head, fault)
        fault = await self._exit_fault("closed", f"stdout closed before answering {ask_line}")
        return Reply(None, seconds, fault=fault)

    async def _garbage_then_exit(self, reply: Reply, item: bytes) -> Reply:
        """A line that is no answer, and the process ends right after it: a runtime that could not start says why
        on stdout (a JVM short of address space prints ``Error occurred during initialization of VM``).  The
        fault keeps its kind and says how the bot ended, read from its last words on stdout and stderr."""
        proc = self._proc
        fault = reply.fault
        if proc is None or fault is None or self.launch is None:
            return reply
        if proc.returncode is None:
            with trio.move_on_after(ENDED_WAIT):
                await proc.wait()
        if proc.returncode is None:
            return reply
        self._drain_stderr_now()
        self._read_available()
        said = b"\n".join([self._stderr_tail, item, *(x for x in self._pending if isinstance(x, bytes))])
        ended = self.launch.describe_exit(proc.returncode, said[-STDERR_TAIL:], proc.flags)
        detail = f"{fault.detail}; then the bot {ended}"
        return Reply(None, reply.seconds, reply.line, Fault(fault.kind, detail, fault.line))

    def _timed_out(self, ask_line: str, timeout: float, seconds: float) -> Reply:
        """A timeout; a line the bot began but never ended with ``\n`` (``\r`` line ends, a missing flush of
        the newline) is named, since that is the usual reason an author's answer "never came"."""
        detail = f"no answer to {ask_line} within {timeout:g} s"
        killed = self._slot.box.oom_kills() if self._slot.box is not None else 0
        if killed > 0 and self.launch is not None:  # a child of the bot's, likely the one that was to answer
            detail += (f"; the kernel killed {killed} of its processes meanwhile: together they used more than the "
                       f"memory limit of {self.launch.limits.memory_mb} MB")
        if not self._buf:
            if self.lines_received == 0:  # not one line in this match: most likely still in its stdout buffer
                detail += f"; {UNFLUSHED}"
            return Reply(None, seconds, fault=Fault("timeout", detail))
        shown = cut(bytes(self._buf[:200]).decode("utf-8", "replace"))
        detail += f"; an unfinished line (no \\n after it): {shown!r}"
        return Reply(None, seconds, shown, Fault("timeout", detail, shown))

    # -------------------------------------------------------------------------------------------- probing
    # Lower-level steps for a conformance check of the process itself (``mjref check``): send what is buffered
    # without asking anything, watch for output, and wait for the process to exit by itself.
    async def flush(self) -> None:
        """Send the buffered lines now, without a question."""
        await self._flush()

    async def read_line(self, timeout: float) -> bytes | None:
        """The next line the bot prints within ``timeout`` seconds: its bytes (``b""`` when its output ended,
        the first 80 bytes of an over-long line), or None if it printed nothing."""
        item = self._next_nowait()
        if item is None:
            with trio.move_on_after(timeout):
                item = await self._next_item()
        if item is None or isinstance(item, bytes):
            return item
        return item.head if isinstance(item, _TooLong) else b""

    async def end_input(self) -> None:
        """Close the bot's stdin (its end of input), as a match does right after ``/exit``."""
        if self._proc is not None:
            self._stdin_fd = None
            await _close_quietly(self._proc.stdin)

    async def wait_exit(self, timeout: float) -> int | None:
        """The exit status if the process ends by itself within ``timeout`` seconds, else None."""
        proc = self._proc
        if proc is None:
            return None
        with trio.move_on_after(timeout):
            await proc.wait()
        return proc.returncode

    def end_hand_nowait(self) -> bool:
        """A bot kept alive between hands: ``/exit`` written in one go, nothing to wait for."""
        if not self.spec.keep_alive or self._proc is None or self._stdin_fd is None:
            return False
        data = self._take_outbox()
        try:
            written = self._write_now(data) if data else 0
        except trio.BrokenResourceError:
            return True  # as end_hand: a bot that closed its stdin is found out at its next question
        self._sent_exit = True
        if written < len(data):
            self._unsent = data[written:]  # the pipe is full: end_hand sends the rest
            return False
        self._in_hand = False
        return True

    async def end_hand(self) -> None:
        """Send what is left (``/exit …``); a per-hand process then exits, or is ended after a short grace."""
        self._in_hand = False
        try:
            with trio.move_on_after(1.0):
                await self._flush()
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        if not self.spec.keep_alive:
            await self._stop(grace=self._exit_grace)
        else:
            self._sent_exit = True

    async def abandon(self) -> None:
        """After a fault: ``/exit`` to the bot (best effort), then its process group is ended at once."""
        await self._send_exit()
        await self._stop(grace=0.0)

    async def _send_exit(self) -> None:
        """A bare ``/exit`` in place of what was still to be sent (best effort: 0.1 s, a broken pipe is fine)."""
        self._in_hand = False
        self._outbox.clear()
        try:
            with trio.move_on_after(0.1):
                await self._flush("/exit")
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass

    async def close(self) -> None:
        """The match is over, or was stopped: a bot in the middle of a hand (a stopped match) gets ``/exit`` first,
        then end of input, its exit grace, SIGTERM and SIGKILL of its group (``_stop``)."""
        if self._in_hand and self._dead is None and self._proc is not None:
            await self._send_exit()
        try:
            await self._stop(grace=0.0 if self._dead else self._exit_grace)
        finally:
            try:
                await self._end_spare()
            finally:
                for slot in (self._slot, self._alt):
                    await self._release(slot)
            if self._stderr_file is not None:
                f, self._stderr_file = self._stderr_file, None
                try:
                    f.close()
                except OSError:
                    pass  # a full disk: what was written stays, nothing is left open


    async def _release(self, slot: _Slot) -> None:
        """Give ``slot``'s box back to the run's pool, or end it, its plan and its scratch folder."""
        box, slot.box = slot.box, None
        kept = box is not None and self._boxes is not None and self._boxes.give(
            self._pool_key(), box, slot.scratch, bool(self.spec.writable))
        launch, scratch, slot.launch, slot.scratch = slot.launch, slot.scratch, None, None
        if kept:  # its plan and scratch went with it, for the next match of this bot
            return
        if box is not None:
            await box.aclose()
        if launch is not None:
            sandbox.release(launch)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


__all__ = ["BLOCK_MS", "MAX_LINE", "Box", "BoxDirty", "BoxError", "BoxPool", "ProcessSeat", "box_pool", "end_box",
           "judge_line", "run_in_box"]

"""How a bot is boxed: the bubblewrap command line, the keeper's plan, the resource limits and the environment, as
data.

Bots are untrusted programs from other authors.  ``plan`` turns a bot spec into a ``Launch`` for one seat's match:
the command that starts the seat's keeper (``wrappers/keeper.py``, once per match) and what the keeper execs for
each hand, plus what the box shows and hides, so that tests can read the box without starting anything.  Nothing
above this floor knows how a bot is boxed.

Modes (``sandbox`` in a bot's TOML; ``--sandbox`` or ``MJREF_SANDBOX`` for every bot of a run, which wins):

* ``bwrap``: bubblewrap (Debian package ``bubblewrap``).  New PID, IPC, UTS, cgroup and network namespaces, and a
  user namespace when not running as root (as root the keeper instead switches to the seat's own unprivileged
  uid, see ``seat_uid``); ``--die-with-parent``; the system (``/usr``, ``/etc``, ...) read-only; the bot's folder
  and the files its command names read-only (its folder read-write with ``writable``; as root a private copy);
  private, size-capped ``/tmp`` and ``/dev/shm``; a fresh ``/proc`` that shows only the box's processes, its
  machine-wide counters covered; a seccomp filter; no network unless ``network``.  Paths the referee registered
  with ``hide_from_bots`` (logs, stores, stderr folders) are covered over when they would be visible.
* ``none``: no sandbox; only what every mode has (as root, still a uid of the seat's own).
* ``auto`` (the default): ``bwrap`` where it works (probed once per process), else ``none`` with one warning line
  that names what is not protected.

In every mode: the keeper sets the ``setrlimit`` limits in the forked child before the bot's exec; an environment
reduced to ``ENV_ALLOW`` (``PATH`` an allow-list) plus a private ``HOME`` and ``TMPDIR`` and the bot's own ``env``
(given to the bot's exec alone, never to bwrap or the keeper); only file descriptors 0-2; the OOM killer's score;
a memory cgroup per seat where a root referee can make one (``wrappers.cgroups``); and death with the referee.
"""

from __future__ import annotations

import atexit
import ctypes
import errno
import fcntl
import functools
import marshal
import os
import re
import resource
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Sequence
from importlib.machinery import SourceFileLoader
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from referee.errors import BotError
from referee.game.records import record

from . import cgroups

if TYPE_CHECKING:
    from .spec import BotSpec

Mode = Literal["auto", "bwrap", "none"]
MODES: tuple[str, ...] = ("auto", "bwrap", "none")
MODE_ENV = "MJREF_SANDBOX"  # set by ``--sandbox``: the mode for every bot of the run

# Defaults of the per-bot limits (fields of the same names in a bot's TOML).
MEMORY_MB = 2048  # address space (RLIMIT_AS): a bot allocating more gets an allocation failure
MAX_PROCS = 128  # processes and threads (RLIMIT_NPROC), counted per bot in bwrap mode
CPU_SECONDS = 60  # CPU seconds per hand (RLIMIT_CPU); a keep_alive bot gets this times the match's hands
FILE_MB = 64  # largest file the bot may write (RLIMIT_FSIZE)
# The kernel's OOM killer takes a bot first (the keeper's score, inherited by every process the bot starts): memory_mb
# bounds each process, not their sum, and a bot's max_procs processes can still run the machine out of memory.  A
# default for the bots that mean no harm: any process may lower its own score again (down to 0).
OOM_SCORE_ADJ = 1000
HANDS_DEFAULT = 16  # a keep_alive bot's CPU budget when the number of hands is not known
MAX_FILES = 1024  # open file descriptors per process (RLIMIT_NOFILE), or the referee's own hard limit if lower
TMP_MB = 256  # the box's private /tmp (a tmpfs, so memory outside RLIMIT_AS): bubblewrap's default is half the RAM

SCRATCH_CWD = ("it ran in a private, empty working folder: a bot that opens its own files by a relative path "
               "names its folder with cwd in a TOML file")
"""What the author of a bot without ``cwd`` that died at its start may have to change (said with the fault)."""

# The environment a bot gets from the referee (besides HOME, TMPDIR and its own ``env``).
ENV_ALLOW = ("PATH", "LANG")
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"

# The system, visible read-only inside the box (those that exist; symlinks such as merged-usr /bin stay links).
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")

# As root, each sandboxed bot runs as its own unprivileged uid from this range, so that the kernel counts its
# processes alone (RLIMIT_NPROC does not apply to uid 0) and file permissions protect the referee's 0600 files.
UID_BASE = 1_900_000_000
UID_SPAN = 1_000_000

_uids: dict[str, int] = {}  # scratch folder -> the uid its bot runs as
_uid_locks: dict[int, int] = {}  # a uid given to a seat of this referee -> its lock file (see seat_uid)
_hidden: dict[str, int] = {}  # paths registered by the referee -> how many registrations hold them
# A tournament plays built-in matches in a thread beside the loop that starts boxes: registrations change under
# this lock, and readers take a copy (``hidden_paths``)
_hidden_lock = threading.Lock()
_warned: set[str] = set()


@record(frozen=True, slots=True)
class Limits:
    """The resource limits of one bot process (and everything it starts)."""

    memory_mb: int = MEMORY_MB
    max_procs: int = MAX_PROCS
    cpu_seconds: int = CPU_SECONDS
    file_mb: int = FILE_MB


@record(frozen=True, slots=True)
class Launch:
    """How one bot process is started: what ``ProcessSeat`` runs, and what the box shows and hides."""

    argv: tuple[str, ...]
    env: dict[str, str]
    cwd: str  # the host folder the process is started in (in bwrap mode the box changes to ``inner_cwd``)
    inner_cwd: str
    mode: Literal["bwrap", "none"]
    limits: Limits
    hands: int  # the CPU limit covers this many hands
    uid: int | None  # the unprivileged uid the bot runs as (bwrap as root), else None
    binds: tuple[tuple[str, bool], ...]  # host paths visible in the box, and whether writable
    hidden: tuple[str, ...]  # registered paths covered over inside the box
    unprotected: tuple[str, ...]  # what this launch does not protect against, in words
    bot: tuple[str, ...] = ()  # the bot's command as the keeper execs it, for each hand (or once, keep_alive)
    bot_env: dict[str, str] | None = None  # the bot's environment (the keeper's own is ``env``)
    scratch: tuple[str, ...] = ()  # the folders the keeper empties between hands (as the keeper sees them)
    kill_all: bool = False  # the keeper can end every process of the seat (a pid namespace, or a uid of its own)
    pidns: bool = False  # the keeper runs in a pid namespace of its own
    copies: tuple[tuple[str, str], ...] = ()  # (a folder of the bot's, its private copy for the bot's uid)
    cgroup: str | None = None  # the seat's memory cgroup (root, where the machine has one), made when the box opens
    watched: tuple[str, ...] = ()  # folders the keeper checks for room but never empties (a writable copy)
    cpu_cgroup: str | None = None  # the seat's CPU accounting cgroup (root, where the machine has one)

    @property
    def leaves_nothing(self) -> bool:
        """Whether each process in the box leaves nothing for the next: its keeper ends every process of it and
        empties its scratch after it (``kill_all``), and the bot has no copy of a folder of its own.  Such a box may
        serve another match (``process.BoxPool``), and its seat's hands may take turns in two of them."""
        return self.kill_all and not self.copies

    def describe_exit(self, code: int | None, stderr_tail: bytes = b"", flags: frozenset[str] = frozenset()) -> str:
        """The bot's end in words, naming the limit it hit when that is what ended it."""
        return self.ending(code, stderr_tail, flags)[0]

    def ending(self, code: int | None, stderr_tail: bytes = b"", flags: frozenset[str] = frozenset()
               ) -> tuple[str, bool]:
        """The bot's end in words, and whether a limit of its box ended it (a ``resource`` fault, not a crash).
        ``flags``: what its keeper saw (``cpu``: its processes together used up the CPU budget; ``tmp``, ``shm``:
        a scratch mount was full; ``folder``: its writable copy was full)."""
        if code is None:
            return "still running", False
        if "memory" in flags:
            return (f"was killed: its processes together used more than the memory limit of "
                    f"{self.limits.memory_mb} MB; {_raise('memory_mb')}"), True
        per = "per hand" if self.hands == 1 else f"for {self.hands} hands"
        budget = f"{self.limits.cpu_seconds * self.hands} s {per}"
        if "cpu" in flags:
            return (f"was killed: its processes together used more than the CPU limit of {budget}; "
                    f"{_raise('cpu_seconds')}"), True
        tail = stderr_tail.decode("utf-8", "replace")
        full = [f for f in ("tmp", "shm", "folder") if f in flags]
        if code != 0 and full:
            where = {"tmp": f"its /tmp ({TMP_MB} MB)", "shm": f"its /dev/shm ({SHM_MB} MB)",
                     "folder": f"its writable folder (its files and {WRITABLE_MB} MB more)"}[full[0]]
            ended = f"killed by {_signal_name(-code)}" if code < 0 else f"exited with status {code}"
            return f"{ended}: {where} was full", True
        if code < 0:
            sig = -code
            text = f"killed by {_signal_name(sig)}"
            if sig == signal.SIGXCPU:
                return f"{text}: CPU limit {budget}; {_raise('cpu_seconds')}", True
            if sig == signal.SIGXFSZ:
                return f"{text}: file size limit {self.limits.file_mb} MB; {_raise('file_mb')}", True
            if sig in (signal.SIGKILL, signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS) and _out_of_memory(tail):
                return f"{text}: {self._memory_limit(tail)}", True
            return text, False
        text = f"exited with status {code}"
        if code != 0 and _out_of_memory(tail):
            return f"{text}: {self._memory_limit(tail, failed=True)}", True
        if code != 0 and any(mark in tail for mark in _NPROC_MARKS):
            return f"{text}: process limit {self.limits.max_procs} (a fork failed); {_raise('max_procs')}", True
        return text, False

    def _memory_limit(self, tail: str, *, failed: bool = False) -> str:
        """The memory limit a bot hit, and what its author can change: ``memory_mb``, or for a JVM (which reserves
        address space it never uses) the reservation itself."""
        text = f"memory limit {self.limits.memory_mb} MB of address space"
        if failed:
            text += " (an allocation failed)"
        if any(mark in tail for mark in _JVM_MARKS):
            return (f"{text}; a JVM reserves more than it uses: start it with -XX:CompressedClassSpaceSize=64m "
                    f"(and -Xmx), or {_raise('memory_mb')}")
        return f"{text}; {_raise('memory_mb')}"


def _raise(field: str) -> str:
    """What the author of a bot that hit a limit changes: the limit's field in the bot's TOML file."""
    return f"raise {field} in the bot's TOML file"


@functools.cache
def _max_files() -> int:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return MAX_FILES if hard == resource.RLIM_INFINITY else min(MAX_FILES, hard)


# What a JVM says (on stdout) when it cannot reserve its address space: its heap, its class space, its threads.
_JVM_MARKS = ("Could not reserve enough space", "Could not allocate compressed class space",
              "insufficient memory for the Java Runtime")
_OOM_MARKS = ("MemoryError", "std::bad_alloc", "Cannot allocate memory", "out of memory", "Out of memory",
              *_JVM_MARKS)


_NPROC_MARKS = ("Resource temporarily unavailable", "fork: retry", "can't start new thread")


def _out_of_memory(tail: str) -> bool:
    return any(mark in tail for mark in _OOM_MARKS)


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


# ---------------------------------------------------------------------------------------------------- hiding
def hide_from_bots(*paths: Path | str) -> None:
    """Register paths (a log, its folder, a store) that no sandboxed bot may see; a folder that holds what a bot
    needs (its own folder, say) is not covered, but the registered files in it are."""
    keys = [os.path.abspath(p) for p in paths]
    with _hidden_lock:
        for key in keys:
            _hidden[key] = _hidden.get(key, 0) + 1


def unhide(*paths: Path | str) -> None:
    """Drop registrations made by :func:`hide_from_bots` (a path stays hidden while another registration holds
    it).  Whoever registers a path per match (a log being written, a match's stderr folder) drops it when done:
    otherwise a tournament's registrations grow by one per match, and every bot start checks each of them."""
    keys = [os.path.abspath(p) for p in paths]
    with _hidden_lock:
        for key in keys:
            n = _hidden.get(key, 0)
            if n <= 1:
                _hidden.pop(key, None)
            else:
                _hidden[key] = n - 1


def hidden_paths() -> tuple[str, ...]:
    """The paths registered now (a copy: registrations may change in another thread meanwhile)."""
    with _hidden_lock:
        return tuple(_hidden)


# ---------------------------------------------------------------------------------------------------- modes
def requested_mode(spec: BotSpec, override: str | None = None) -> Mode:
    """The mode a bot runs in before probing: ``override`` (``--sandbox``), ``MJREF_SANDBOX``, the spec's own
    ``sandbox``, else ``auto``."""
    for value, where in ((override, "--sandbox"), (os.environ.get(MODE_ENV) or None, MODE_ENV),
                         (spec.sandbox, f"bot {spec.name!r}: sandbox")):
        if value is not None:
            if value not in MODES:
                raise BotError(f"{where}: unknown sandbox mode {value!r} (known: {', '.join(MODES)})")
            return value  # type: ignore[return-value]
    return "auto"


def _is_root() -> bool:
    return os.geteuid() == 0


def _namespace_args(*, network: bool) -> list[str]:
    args = [] if _is_root() else ["--unshare-user"]
    args += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not network:
        args.append("--unshare-net")
    return args + ["--die-with-parent", "--new-session"]


# The thread of the probe started ahead by ``probe_ahead``: every plan waits for it to end (``_probed``).
_ahead: list[threading.Thread] = []


def probe_ahead() -> None:
    """Start ``bwrap_problem``'s probe in a thread now, unless every bot runs unboxed (``MJREF_SANDBOX=none``) or it
    ran already: a box takes some 50 ms to start, which ``mjref match`` spends reading its arguments and walls
    meanwhile.  Where bwrap works, the thread then makes what every box's plan asks for (``_bwrap_sizes_tmpfs``,
    ``seccomp_filter``: a run of ``bwrap --help``, two of ``ldconfig -p``)."""
    if os.environ.get(MODE_ENV) == "none" or bwrap_problem.cache_info().currsize or _ahead:
        return

    def probe() -> None:
        if bwrap_problem() is None:
            _bwrap_sizes_tmpfs()
            seccomp_filter()

    # Not a daemon: a Ctrl-C while it runs lets it end (its commands have timeouts) before the interpreter does.  A
    # daemon thread stopped by the interpreter's end inside ctypes' or subprocess's C code aborted the process
    # ("FATAL: exception not rethrown", SIGABRT) instead of exiting 130.
    thread = threading.Thread(target=probe, name="mjref bwrap probe", daemon=False)
    thread.start()
    _ahead.append(thread)


def _probed() -> str | None:
    """``bwrap_problem``, once the probe started ahead (if any) ended: what a plan asks.  The thread is joined, not
    taken from the list: plans made in other threads at the same moment each wait for it too (one that found the
    list emptied by another would have run a second probe beside the first)."""
    for thread in tuple(_ahead):
        thread.join()
    return bwrap_problem()


@functools.cache
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot box a bot on this machine (None: it can).  Probed once per process (ahead, in a
    thread: ``probe_ahead``), with the same namespaces a bot gets."""
    exe = _which("bwrap")
    if exe is None:
        return "bwrap is not installed (Debian package bubblewrap)"
    argv = [exe, *_namespace_args(network=False), *_system_args(), "--proc", "/proc", "--dev", "/dev",
            "--", "/bin/true"]
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap does not run: {exc}"
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bwrap fails here: {why[-1] if why else f'status {done.returncode}'}"
    return None


@functools.cache
def _which(name: str) -> str | None:
    for folder in ("/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"):
        p = os.path.join(folder, name)
        if os.access(p, os.X_OK):
            return p
    return None


@functools.cache
def _bwrap_sizes_tmpfs() -> bool:
    """Whether this bubblewrap has ``--size`` (0.5.0 and later) to bound a tmpfs."""
    try:
        done = subprocess.run([_which("bwrap") or "bwrap", "--help"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return b"--size" in done.stdout + done.stderr


def resolve_mode(spec: BotSpec, override: str | None = None) -> Literal["bwrap", "none"]:
    """The mode a bot actually runs in.  ``bwrap`` asked for but not working is an error; ``auto`` without a
    working bwrap runs unsandboxed and warns once."""
    mode = requested_mode(spec, override)
    if mode == "none":
        return "none"
    problem = _probed()
    if problem is None:
        return "bwrap"
    if mode == "bwrap":
        raise BotError(f"bot {spec.name!r}: sandbox 'bwrap' asked for, but {problem}")
    if _is_root():
        what = ("each bot runs as an unprivileged uid of its own, but it can read every file open to all users, "
                "see the other processes, fill the disk and use the network")
    else:
        what = ("a bot can read the referee's files and logs (and so the walls), see and signal other bots' "
                "processes, fill the disk and use the network")
    warn_once("auto", f"mjref: warning: bots run without a sandbox ({problem}): {what}; only resource limits, a "
              "private working folder and a reduced environment apply")
    return "none"


def warn_once(key: str, line: str) -> None:
    """One warning line on stderr per ``key`` per process."""
    if key not in _warned:
        _warned.add(key)
        print(line, file=sys.stderr, flush=True)


def check_available(spec: BotSpec, override: str | None = None) -> None:
    """Raise ``BotError`` before a match when the bot's sandbox mode cannot be had (or is not a mode)."""
    if spec.cmd is not None:
        if resolve_mode(spec, override) == "none" and _is_root():
            exe = _bot_executable(spec)
            _check_reachable(spec, exe, spec.cwd)


# ---------------------------------------------------------------------------------------------------- the plan
SHM_MB = 64  # the box's private /dev/shm (a tmpfs): POSIX shared memory and semaphores live there
COPY_MB = 1024  # as root, the largest bot folder copied for its unprivileged uid (unreadable, or writable)
WRITABLE_MB = 256  # as root, the room a copy has beyond the bot's files (the copy is a tmpfs of its own)
KEEPER_POLL = 0.25  # seconds between two looks of the keeper at the CPU its box's processes used
BOX_SCRATCH = "/tmp"  # in the box: HOME, TMPDIR and, for a bot without cwd, the working folder (a capped tmpfs)
BOX_MQUEUE = "/dev/mqueue"  # in the box: its POSIX message queues (they outlive their process, like a file)
BOX_CPU = "/run/mjref-cpu"  # in the box: the seat's CPU accounting cgroup's counter, read by the keeper


@functools.cache
def keeper_code() -> bytes:
    """The keeper's program (``wrappers/keeper.py``) compiled, the first packet a keeper is sent (``marshal``: the
    keeper runs on the referee's own interpreter, ``_keeper_python``); its ``-c`` only receives and runs it, nothing
    to bind into the box.  The code is the one Python caches for the module (``__pycache__``), compiled (and the
    cache written) only when the file changed: compiling it at every start took some 10 ms."""
    path = str(Path(__file__).with_name("keeper.py"))
    return marshal.dumps(SourceFileLoader("wrappers.keeper", path).get_code("wrappers.keeper"))


# The keeper's ``-c``: take the program from the socket on fd 0 (left open for it) and run it as ``__main__``.
KEEPER_BOOT = ("import _socket, marshal\n_s = _socket.socket(fileno=0)\n_c = _s.recv(1 << 20)\n_s.detach()\n"
               "del _s\nexec(marshal.loads(_c))\n")


@functools.cache
def _keeper_python() -> str:
    return os.path.realpath(sys.executable)


def _keeper_paths() -> list[str]:
    """What the keeper's interpreter needs besides the system: its installation (standard library only)."""
    exe = _keeper_python()
    out = [sys.base_prefix, os.path.dirname(os.path.dirname(exe))]
    return [p for p in dict.fromkeys(out) if os.path.isdir(p) and not _is_system(p) and not _box_own(p)]


def plan(spec: BotSpec, scratch: Path, *, mode: str | None = None, hands: int | None = None) -> Launch:
    """How to box ``spec`` for one match: the keeper's command (``argv``, started once per seat per match) and the
    bot's (``bot``, which the keeper starts for each hand, or once for a ``keep_alive`` bot).  ``scratch`` is the
    seat's private host folder (in mode ``none`` its working folder when the bot names no ``cwd``, and its HOME;
    in a box, the box's own capped ``/tmp`` is); ``hands`` is the match length, which a ``keep_alive`` bot's CPU
    limit covers (one hand for a bot started per hand).  As root, the bot always runs as an unprivileged uid of
    its own, with no capability, and owns ``scratch`` (if it exists): a folder that uid cannot read, and a
    ``writable`` one, are copied for it."""
    assert spec.cmd is not None
    actual = resolve_mode(spec, mode)
    limits = Limits(spec.memory_mb or MEMORY_MB, spec.max_procs or MAX_PROCS, spec.cpu_seconds or CPU_SECONDS,
                    spec.file_mb or FILE_MB)
    cpu_hands = (hands or HANDS_DEFAULT) if spec.keep_alive else 1
    exe = _bot_executable(spec)
    uid = seat_uid(scratch) if _is_root() else None
    try:
        launch = _plan(spec, scratch, actual, limits, cpu_hands, exe, uid)
        if uid is not None and scratch.is_dir():  # the bot's uid owns its scratch folder (mode none: its HOME)
            os.chown(scratch, uid, uid)
        return launch
    except BaseException:
        if uid is not None:
            _release_uid(uid)
        raise


def _plan(spec: BotSpec, scratch: Path, actual: str, limits: Limits, cpu_hands: int, exe: str, uid: int | None
          ) -> Launch:
    assert spec.cmd is not None
    bot = (exe, *spec.cmd[1:])
    keeper = (_keeper_python(), "-I", "-S", "-c", KEEPER_BOOT)
    unprotected: list[str] = []
    if actual == "none":
        cwd = spec.cwd or str(scratch)
        if uid is not None:
            _check_reachable(spec, exe, spec.cwd)  # the scratch folder is made for the bot's uid
        unprotected += ["files the referee's user can read" if uid is None else "files any user may read",
                        "other processes of the same user" if uid is None else "the system's other processes",
                        "the network", "the disk (scratch on the host's disk)"]
        if uid is None:
            unprotected += ["the CPU of processes the bot leaves running (counted only once they end)",
                            "processes the bot starts in a session of their own, after the bot ends"]
        cgroup, cpu_cgroup, argv = _in_cgroup(uid, keeper, unprotected)
        return Launch(argv, {"PATH": DEFAULT_PATH}, str(scratch), cwd, "none", limits, cpu_hands, uid, (), (),
                      tuple(unprotected), bot, _bot_env(spec, str(scratch)), (str(scratch),), uid is not None,
                      False, (), cgroup, (), cpu_cgroup)
    binds, found = _binds(spec, exe)
    for path in sorted(found):  # the bot author's choice: never more than any user may read (nor copied as root)
        if not _others_may(path, 0o005 if os.path.isdir(path) else 0o004):
            raise BotError(f"bot {spec.name!r}: {path}, named by a link or a pyvenv.cfg among the bot's files, is not "
                           f"readable by other users, and a box shows what the bot's files point at only when any "
                           f"user may read it: make it readable (chmod o+rX {path}), or put what the bot needs in its "
                           "own folder")
    binds += [(p, False) for p in _keeper_paths() if not any(_under(p, b) for b, _ in binds)]
    binds = _minimal(binds)
    copies: list[tuple[str, str]] = []
    if uid is not None:
        binds, copies = _copies_for(spec, binds, uid, unprotected)
    if spec.network:
        unprotected.append("the network (network = true)")
    args = [_which("bwrap") or "bwrap", *_namespace_args(network=spec.network), *_system_args(),
            "--proc", "/proc", "--dev", "/dev"]
    sized = _bwrap_sizes_tmpfs()
    for folder, mb in (("/dev/shm", SHM_MB), (BOX_SCRATCH, TMP_MB)):
        args += ["--perms", "1777"]
        if sized:
            args += ["--size", str(mb << 20)]
        args += ["--tmpfs", folder]
    if not sized:
        unprotected.append("the size of /tmp and /dev/shm (this bubblewrap has no --size)")
    args += ["--mqueue", BOX_MQUEUE]  # the box's POSIX message queues, where the keeper can list and remove them
    args += ["--remount-ro", "/dev"]
    for folder in _ancestors([b for b, _ in binds]):
        args += ["--perms", "0755", "--dir", folder]  # bwrap would make them 0700: closed to an unprivileged uid
    for path, writable in binds:
        source = dict(copies).get(path, path)
        args += ["--bind" if writable else "--ro-bind", source, path]
    cwd = spec.cwd or BOX_SCRATCH
    copied = [path for path, _ in copies]
    hidden = [h for h in _hidden_in(binds, cwd) if not any(_under(h, c) for c in copied)]  # left out of the copy
    for h in hidden:
        args += ["--tmpfs", h] if os.path.isdir(h) else ["--ro-bind", "/dev/null", h]
    for path, source in _proc_covers():
        args += ["--ro-bind", source, path]
    cpu_path = cgroups.cpu_seat_path(f"mjref-seat-{uid}") if uid is not None else None
    if cpu_path is not None:  # what the seat's processes used, for its keeper to read (made when the box opens)
        args += ["--perms", "0755", "--dir", os.path.dirname(BOX_CPU), "--ro-bind", cgroups.cpu_file(cpu_path)[0],
                 BOX_CPU]
    args += ["--remount-ro", "/"]  # bubblewrap's own root (a tmpfs of no size, and its folders): nothing to write
    if seccomp_filter() is not None:
        args += ["--seccomp", SECCOMP_FD]
    else:
        unprotected.append(f"file locks and inotify between boxes ({_seccomp_problem()})")
    if uid is not None:  # bwrap runs as root: the keeper keeps only what it needs to become the seat's uid
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    elif _bwrap_disables_userns():
        args += ["--disable-userns"]
    cgroup, cpu_cgroup, argv = _in_cgroup(uid, (*args, "--", *keeper), unprotected)
    assert cpu_cgroup == cpu_path
    return Launch(argv, {"PATH": DEFAULT_PATH}, str(scratch), cwd, "bwrap", limits, cpu_hands,
                  uid, tuple(binds), tuple(hidden), tuple(unprotected), bot, _bot_env(spec, BOX_SCRATCH),
                  (BOX_SCRATCH, "/dev/shm", BOX_MQUEUE), True, True, tuple(copies), cgroup,
                  tuple(path for path, writable in binds if writable and path in dict(copies)), cpu_cgroup)


def _in_cgroup(uid: int | None, argv: Sequence[str], unprotected: list[str]
               ) -> tuple[str | None, str | None, tuple[str, ...]]:
    """The seat's memory and CPU accounting cgroups, and the launch moved into them before its first exec (a shell
    that writes its own pid into each, then execs the launch: nothing it starts is ever outside), where cgroups
    can be had."""
    path = cgroups.seat_path(f"mjref-seat-{uid}") if uid is not None else None
    cpu = cgroups.cpu_seat_path(f"mjref-seat-{uid}") if uid is not None else None
    if path is None:
        why = cgroups.problem() or "making cgroups needs root"
        unprotected.append(f"the sum of the bot's memory (each process is bounded; {why})")
    if cpu is None:
        why = cgroups.cpu_problem() or "making cgroups needs root"
        unprotected.append(f"the CPU of short-lived processes whose parent ignores SIGCHLD (counted while they run; "
                           f"{why})")
    joined = list(dict.fromkeys(p for p in (path, cpu) if p is not None))
    if not joined:
        return None, None, tuple(argv)
    script = " && ".join([f'echo $$ > "${i}/cgroup.procs"' for i in range(len(joined))]
                         + ([f"shift {len(joined) - 1}"] if len(joined) > 1 else []) + ['exec "$@"'])
    return path, cpu, ("/bin/sh", "-c", script, *joined, *argv)


SECCOMP_FD = "{seccomp-fd}"
"""Stands in ``Launch.argv`` for the file descriptor of the seccomp filter, which exists only once the box starts."""

# A box's system calls that would let it signal another box through what they share (the system's files are the
# same files in every box): a lock taken on one is seen by another (`flock`, `fcntl` locks: a whole concealed hand
# was sent this way), and so is a file opened, with inotify or fanotify.  Locks succeed without locking (a bot's own
# files are its alone, so nothing it does changes), watches are not there (ENOSYS).
_F_SETLK, _F_SETLKW, _F_OFD_SETLK, _F_OFD_SETLKW = 6, 7, 37, 38
# The kernel's keyrings are not the box's: a key in the seat uid's user keyring outlives the hand that added it (the
# keeper, of the same uid, keeps it alive for the match), and a session keyring is inherited from the referee by
# every box.  They are not there (ENOSYS, as in Docker's default profile).
_KEYRING_CALLS = ("add_key", "request_key", "keyctl")


@functools.cache
def seccomp_filter() -> bytes | None:
    """The box's seccomp filter as BPF (libseccomp, through pyseccomp), or None where it cannot be made."""
    try:
        import pyseccomp as sc
    except (ImportError, OSError):  # pyseccomp loads libseccomp.so.2 at import
        return None
    try:
        f = sc.SyscallFilter(sc.ALLOW)
        f.add_rule(sc.ERRNO(0), "flock")
        for cmd in (_F_SETLK, _F_SETLKW, _F_OFD_SETLK, _F_OFD_SETLKW):
            f.add_rule(sc.ERRNO(0), "fcntl", sc.Arg(1, sc.EQ, cmd))
        for name in ("inotify_init", "inotify_init1", "fanotify_init", *_KEYRING_CALLS):
            f.add_rule(sc.ERRNO(errno.ENOSYS), name)
        with tempfile.TemporaryFile() as out:
            f.export_bpf(out)
            out.seek(0)
            return out.read()
    except (OSError, RuntimeError, ValueError):
        return None


def _seccomp_problem() -> str:
    try:
        import pyseccomp  # noqa: F401
    except (ImportError, OSError) as exc:
        return f"no seccomp filter: {exc}"
    return "no seccomp filter: libseccomp could not make one"


def _bot_env(spec: BotSpec, home: str) -> dict[str, str]:
    """The bot's environment: ``LANG`` from the referee's, an allow-listed ``PATH`` (never the referee's own: a
    version manager's shims folder would be searched from the box), the seat's scratch as HOME and TMPDIR, and the
    bot's own ``env`` over them (set by the keeper, in the box: never given to bwrap or the keeper)."""
    env = {k: os.environ[k] for k in ENV_ALLOW if k in os.environ}
    env["PATH"] = DEFAULT_PATH
    env["HOME"] = env["TMPDIR"] = home
    env.update(spec.env or {})
    return env


def keeper_config(launch: Launch) -> dict[str, object]:
    """The plan the keeper is sent after its program (``wrappers.keeper``), as ``marshal`` data."""
    files = _max_files()
    mem = launch.limits.memory_mb << 20
    cpu = launch.limits.cpu_seconds * max(1, launch.hands)
    fsize = launch.limits.file_mb << 20
    rlimits = [("RLIMIT_AS", mem, mem), ("RLIMIT_CPU", cpu, cpu + 1), ("RLIMIT_FSIZE", fsize, fsize),
               ("RLIMIT_CORE", 0, 0), ("RLIMIT_NOFILE", files, files)]
    if launch.kill_all:  # counted for the seat's own uid, or per user namespace
        rlimits.append(("RLIMIT_NPROC", launch.limits.max_procs, launch.limits.max_procs))
    return {"argv": list(launch.bot), "env": launch.bot_env, "cwd": launch.inner_cwd, "rlimits": rlimits,
            "oom": OOM_SCORE_ADJ, "cpu": cpu, "uid": launch.uid, "kill_all": launch.kill_all, "pidns": launch.pidns,
            "scratch": list(launch.scratch), "watched": list(launch.watched), "poll": KEEPER_POLL,
            "cpu_file": _keeper_cpu_file(launch)}


def _keeper_cpu_file(launch: Launch) -> list[str] | None:
    """Where the keeper reads its seat's CPU accounting cgroup's counter (in the box, or on the host in mode
    ``none``), and the counter's kind."""
    if launch.cpu_cgroup is None:
        return None
    host, version = cgroups.cpu_file(launch.cpu_cgroup)
    return [BOX_CPU if launch.mode == "bwrap" else host, version]


@functools.cache
def _bwrap_disables_userns() -> bool:
    """Whether this bubblewrap has ``--disable-userns`` (0.8.0 and later): no user namespace inside the box."""
    return b"--disable-userns" in _bwrap_help()


@functools.cache
def _bwrap_help() -> bytes:
    try:
        done = subprocess.run([_which("bwrap") or "bwrap", "--help"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return b""
    return done.stdout + done.stderr


# Files of /proc that count what the whole machine does (other boxes' processes, open files, locks, load): a
# channel between boxes.  Covered by an empty file, or one that describes the bot's own limits.
_PROC_EMPTY = ("/proc/loadavg", "/proc/locks", "/proc/stat", "/proc/vmstat", "/proc/interrupts", "/proc/softirqs",
               "/proc/diskstats", "/proc/schedstat", "/proc/uptime", "/proc/sys/fs/file-nr",
               "/proc/sys/fs/inode-nr", "/proc/sys/fs/dentry-state", "/proc/sys/kernel/random/entropy_avail",
               "/proc/pressure/cpu", "/proc/pressure/io", "/proc/pressure/memory")


@functools.cache
def _proc_covers() -> tuple[tuple[str, str], ...]:
    """(path in /proc, host file to bind over it), for the counters above that this kernel has."""
    folder = tempfile.mkdtemp(prefix="mjref-proc-")
    os.chmod(folder, 0o755)
    empty = os.path.join(folder, "empty")
    Path(empty).write_bytes(b"")
    meminfo = os.path.join(folder, "meminfo")
    total = MEMORY_MB << 10
    Path(meminfo).write_text(f"MemTotal:       {total} kB\nMemFree:        {total} kB\n"
                             f"MemAvailable:   {total} kB\n", encoding="ascii")
    for f in (empty, meminfo):
        os.chmod(f, 0o444)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    covers = [(p, empty) for p in _PROC_EMPTY if os.path.exists(p)]
    return (*covers, ("/proc/meminfo", meminfo))


def _system_args() -> list[str]:
    args: list[str] = []
    for p in SYSTEM_PATHS:
        if os.path.islink(p):
            args += ["--symlink", os.readlink(p), p]
        elif os.path.isdir(p):
            args += ["--ro-bind", p, p]
    return args


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _is_system(path: str) -> bool:
    real = os.path.realpath(path)
    return any(_under(real, s) or _under(path, s) for s in SYSTEM_PATHS)


# The kernel's folders: the box has its own (a /dev of a few devices, a /proc of its own processes); a bot naming a
# path in them (/dev/stderr) must not have the host's bound into its box.
_NEVER_BOUND = ("/dev", "/proc", "/sys", "/run")


def command_files(spec: BotSpec) -> list[str]:
    """The absolute paths of the files and folders the bot's command names after the executable (relative ones
    are taken from its ``cwd``, else from the referee's working folder)."""
    assert spec.cmd is not None
    base = spec.cwd or os.getcwd()
    out = []
    for arg in spec.cmd[1:]:
        if arg.startswith("-") or not arg:
            continue
        p = os.path.abspath(os.path.join(base, arg))
        if p != "/" and os.path.exists(p) and not any(_under(p, f) for f in _NEVER_BOUND):
            out.append(p)
    return out


def _box_own(path: str) -> bool:
    """Whether binding ``path`` would cover what the box makes for itself (``/``, ``/tmp``, ``/dev``, ``/proc``: an
    ancestor of one of them, or one of them) or lies in a kernel folder."""
    return any(_under(m, path) for m in (BOX_SCRATCH, *_NEVER_BOUND)) or any(_under(path, f) for f in _NEVER_BOUND)


def _binds(spec: BotSpec, exe: str) -> tuple[list[tuple[str, bool]], set[str]]:
    """The host paths a bot needs: its folder (``cwd``, else the folder of the first file its command names, else
    its executable's folder), the folders of the other files its command names, and its interpreter's
    installation; and which of them were found through what the bot's files say (a link's target, a virtual
    environment's ``pyvenv.cfg``) rather than named by whoever runs the referee: those are the bot author's to
    choose, so they are bound only as they are (never copied with root's rights).  A path that would cover the
    box's own ``/``, ``/tmp``, ``/dev`` or ``/proc`` is never bound (a file there is bound alone)."""
    assert spec.cmd is not None
    files = command_files(spec)
    named: list[tuple[str, bool]] = []
    found: list[str] = []
    for p in [exe, *files]:  # an interpreter may come after a launcher: env VAR=1 python3 bot.py
        if p == exe or (os.path.isfile(p) and os.access(p, os.X_OK)):
            mine, through = _interpreter_paths(p)
            named += [(f, False) for f in mine]
            found += through
    folders = []
    for p in [*files, exe]:
        if _is_system(p):
            continue
        folder = p if os.path.isdir(p) else os.path.dirname(p)
        folders.append(p if _box_own(folder) else folder)
        real = os.path.realpath(p)
        if real != p and not _is_system(real):
            target = os.path.dirname(real)
            found.append(real if _box_own(target) else target)
    if spec.cwd and _box_own(os.path.abspath(spec.cwd)):
        raise BotError(f"bot {spec.name!r}: cwd {spec.cwd} is a folder the box makes its own (/, /tmp, /dev, /proc): "
                       "give the bot a folder of its own")
    own = os.path.abspath(spec.cwd) if spec.cwd else (folders[0] if folders else None)
    if own is not None:
        named.append((own, spec.writable))
    named += [(f, False) for f in folders]
    binds = _minimal([(p, w) for p, w in [*named, *((f, False) for f in found)] if not _box_own(p)])
    mine_too = {p for p, _ in named}
    return binds, {p for p, _ in binds if p not in mine_too}


_SCRIPT_PYTHON = re.compile(r"python[0-9.]*")


def _bot_executable(spec: BotSpec) -> str:
    """The program the keeper execs for ``spec``: its ``cmd[0]`` resolved, and a launcher found on the referee's
    own PATH (a pyenv shim) replaced by the Python it runs.  A launcher named by a path is never asked: it may be
    one of the bot's own files, and asking it runs it outside any box, with the referee's rights."""
    assert spec.cmd is not None
    exe = spec.resolved_executable() or spec.cmd[0]
    if os.sep in spec.cmd[0] or (os.altsep and os.altsep in spec.cmd[0]):
        return exe
    return real_interpreter(exe)


@functools.cache
def real_interpreter(exe: str) -> str:
    """The Python that ``exe`` launches, when ``exe`` is a launcher script named like a Python (a pyenv or asdf
    shim: a shell script that finds the real interpreter through its own tree and environment, neither of which a
    boxed bot has); ``exe`` itself otherwise.  The launcher is asked once, outside any box, with the referee's
    environment, so a bot started as ``python3 bot.py`` runs the interpreter the user's shell would run."""
    if not _SCRIPT_PYTHON.fullmatch(os.path.basename(exe)):
        return exe
    try:
        with open(exe, "rb") as f:
            if f.read(2) != b"#!":
                return exe  # a real binary (or a symlink to one)
        out = subprocess.run([exe, "-c", "import sys; print(sys.executable)"], capture_output=True, timeout=20,
                             stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.SubprocessError):
        return exe
    real = out.stdout.decode("utf-8", "replace").strip()
    return real if out.returncode == 0 and os.path.isabs(real) and os.access(real, os.X_OK) else exe


def _interpreter_paths(exe: str) -> tuple[list[str], list[str]]:
    """What an interpreter needs besides the system: a virtual environment and the installation it is made from;
    for the referee's own Python, also its import path (where mjref's own bots live).  Two lists: the folders named
    by ``exe``'s path (or the referee's own), and those found through a link or a ``pyvenv.cfg``."""
    named: list[str] = []
    through: list[str] = []
    bin_dir = os.path.dirname(exe)
    venv = os.path.dirname(bin_dir)
    cfg = os.path.join(venv, "pyvenv.cfg")
    if os.path.isfile(cfg):
        named.append(venv)
        try:
            for line in Path(cfg).read_text(encoding="utf-8", errors="replace").splitlines():
                key, _, value = line.partition("=")
                if key.strip() == "home" and value.strip():
                    through.append(os.path.dirname(os.path.abspath(value.strip())))
        except OSError:
            pass
    real = os.path.realpath(exe)
    if real != exe or _SCRIPT_PYTHON.fullmatch(os.path.basename(real)):  # an interpreter's installation (lib/)
        (through if real != exe else named).append(os.path.dirname(os.path.dirname(real)))
    if real == os.path.realpath(sys.executable) or os.path.abspath(exe) == os.path.abspath(sys.executable):
        named += [sys.prefix, sys.base_prefix, sys.exec_prefix, *_mjref_packages()]

    def usable(paths: list[str]) -> list[str]:
        return [p for p in paths if os.path.isdir(p) and not _is_system(p) and not _box_own(p)]

    named = usable(named)
    return named, [p for p in usable(through) if p not in named]


@functools.cache
def _mjref_packages() -> tuple[str, ...]:
    """The folders of mjref's own packages (an editable install imports them from the source tree)."""
    root = Path(__file__).resolve().parents[1]
    return tuple(str(root / name) for name in ("bots", "referee", "wrappers", "tournaments"))


def _ancestors(paths: Iterable[str]) -> list[str]:
    """The folders above ``paths`` that the box must make (not the root, not /tmp, not a system folder)."""
    out: set[str] = set()
    for p in paths:
        for q in Path(p).parents:
            s = str(q)
            if s not in ("/", "/tmp") and not _is_system(s):
                out.add(s)
    return sorted(out, key=lambda s: (s.count("/"), s))


def _minimal(paths: Iterable[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """Drop paths inside others (a writable one keeps its own entry inside a read-only parent)."""
    seen: dict[str, bool] = {}
    for p, w in paths:
        seen[p] = seen.get(p, False) or w
    out = []
    for p, w in sorted(seen.items()):
        if any(_under(p, q) and q != p and (seen[q] or not w) for q in seen):
            continue
        out.append((p, w))
    return out


def _hidden_in(binds: Sequence[tuple[str, bool]], cwd: str) -> list[str]:
    """Registered paths that lie inside a bound folder, except those the bot needs (an ancestor of one of its
    folders)."""
    out = []
    needed = [b for b, _ in binds] + [cwd]
    for h in hidden_paths():
        if not os.path.exists(h):
            continue
        if any(_under(n, h) for n in needed):
            continue
        if any(_under(h, b) for b, _ in binds):
            out.append(h)
    # What lies in a covered folder is covered with it, and is not mounted on its own: a mount holds the file it was
    # made on, and /proc/self/mountinfo shows that file's name as it is now, so a log renamed to its match ID once
    # its match is over would show that ID to a bot started while it was being written.
    folders = [h for h in out if os.path.isdir(h)]
    return [h for h in out if not any(f != h and _under(h, f) for f in folders)]


UID_LOCKS = "/run/mjref-uids"  # as root: one lock file per seat uid in use by a referee on this machine


@functools.cache
def _uid_lock_folder() -> str:
    """The folder of the seat uids' lock files, root's own (another user who made it could hand out uids): in
    ``/run``, else (a read-only or missing ``/run``) in ``/tmp``."""
    for folder in (UID_LOCKS, os.path.join("/tmp", "mjref-uids")):
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
        except OSError:
            continue
        st = os.lstat(folder)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != 0 or st.st_mode & 0o022:
            raise BotError(f"{folder} is not a folder of root's own that only root may write: remove it (it holds "
                           "the locks by which referees on this machine give each seat a uid no other seat has)")
        return folder
    raise BotError(f"no folder for the seat uids' locks: neither {UID_LOCKS} nor /tmp/mjref-uids can be made")


def seat_uid(scratch: Path) -> int:
    """As root: the unprivileged uid of the seat whose private folder is ``scratch`` (the same for each of its
    processes in a match, and no other seat's, in this referee or any other on the machine: a lock file held while
    the seat lives), so that the kernel counts its processes alone (RLIMIT_NPROC does not apply to uid 0), file
    permissions protect the referee's 0600 files, and the keeper can end all of them.  ``release`` frees it."""
    key = str(scratch)
    if key in _uids:
        return _uids[key]
    folder = _uid_lock_folder()
    start = secrets.randbelow(UID_SPAN)
    for i in range(4096):
        uid = UID_BASE + (start + i) % UID_SPAN
        if uid in _uid_locks:
            continue
        path = os.path.join(folder, str(uid))
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.stat(path, follow_symlinks=False).st_ino != os.fstat(fd).st_ino:
                raise BlockingIOError  # released and removed by its holder meanwhile: another try
        except (BlockingIOError, FileNotFoundError):
            os.close(fd)
            continue
        _uid_locks[uid] = fd
        _uids[key] = uid
        return uid
    raise BotError(f"no free seat uid in {folder} after 4096 tries: are that many seats running?")


@atexit.register
def _release_uids() -> None:
    """At the referee's end: free the uids of seats never released (a plan made for a test, an interrupted run)."""
    for uid in list(_uid_locks):
        _release_uid(uid)


def _release_uid(uid: int) -> None:
    for key in [k for k, v in _uids.items() if v == uid]:
        del _uids[key]
    fd = _uid_locks.pop(uid, None)
    if fd is not None:
        try:
            os.unlink(os.path.join(_uid_lock_folder(), str(uid)))  # removed while locked: see seat_uid
        except (OSError, BotError):
            pass
        os.close(fd)


def _others_may(path: str, need: int) -> bool:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return mode & need == need


def _tree_size(folder: str) -> int:
    size = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                size += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return size


def _copies_for(spec: BotSpec, binds: list[tuple[str, bool]], uid: int, unprotected: list[str]
                ) -> tuple[list[tuple[str, bool]], list[tuple[str, str]]]:
    """As root: a folder the bot is given is copied for its uid when it is closed to others (a tarball unpacked by
    root keeps 0700; the copy belongs to the bot's uid, files and all) or ``writable`` (the bot writes its own
    copy, never the original); a copy larger than ``COPY_MB`` is refused with what to change.  A file it is given
    must be readable by others.  Each copy is a tmpfs of its own, its files and ``WRITABLE_MB`` more (never the disk
    of the store and logs); where no tmpfs can be mounted, ``unprotected`` says so."""
    copies: list[tuple[str, str]] = []
    out: list[tuple[str, bool]] = []
    try:
        for path, writable in binds:
            readable = _others_may(path, 0o005 if os.path.isdir(path) else 0o004)
            if os.path.isdir(path) and (writable or not readable):
                size = _tree_size(path)
                if size > COPY_MB << 20:
                    why = "writable" if writable else "not readable by others"
                    raise BotError(f"bot {spec.name!r}: its folder {path} is {why} and too large to copy for the "
                                   f"bot's own user ({size >> 20} MB > {COPY_MB} MB): make it readable (chmod -R "
                                   f"o+rX {path}){' and drop writable' if writable else ''}")
                made, mounted = _copy_for(path, uid, [h for h in hidden_paths() if _under(h, path)], spec.name, size)
                copies.append((path, made))
                if not mounted and writable:
                    unprotected.append(f"the disk (the writable copy of {path} is on the host's disk: no tmpfs "
                                       "could be mounted for it)")
            elif not readable:
                raise BotError(f"bot {spec.name!r}: {path} is not readable by the bot's own unprivileged user (a "
                               f"bot never runs as root): make it readable (chmod o+r {path}), or put it in the bot's "
                               "folder")
            out.append((path, writable))
    except BaseException:  # nothing made for a launch that is refused is left behind
        for _, made in copies:
            _remove_copy(os.path.dirname(made))
        raise
    return out, copies


def _copy_for(folder: str, uid: int, hidden: Sequence[str] = (), name: str = "", size: int = 0) -> tuple[str, bool]:
    """A private copy of ``folder`` owned by ``uid`` (links are copied as links; nothing outside is followed), without
    the paths the referee hides from bots (a log or a stderr folder kept in the bot's folder is never copied).  Only
    files, folders and links are copied, and at most ``COPY_MB`` in all: a named pipe would block the referee, a
    device node would be read with root's rights (a tarball unpacked by root keeps both).  Nothing is left behind
    when the copy fails.  The copy, and whether it is a tmpfs of its own (``size`` bytes and ``WRITABLE_MB``)."""
    _sweep_copies()
    base = tempfile.mkdtemp(prefix=f"mjref-copy-{uid}-")
    os.chmod(base, 0o700)  # the box binds it as root: no other uid (a seat in mode none) may list or read it
    mounted = _mount_tmpfs(base, size + (WRITABLE_MB << 20))
    dest = os.path.join(base, "bot")
    skip = {os.path.abspath(h) for h in hidden} | {os.path.abspath(base)}  # the copy may be made inside the folder
    left = [COPY_MB << 20]

    def ignore(where: str, names: list[str]) -> set[str]:
        return {n for n in names if os.path.join(os.path.abspath(where), n) in skip}

    def copy_file(src: str, dst: str) -> None:
        fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise BotError(f"bot {name!r}: {src} in its folder is not a file, a folder or a link (a named pipe, "
                               "a socket or a device): remove it, mjref copies the folder for the bot's own user")
            if st.st_nlink > 1 and not _hardlinks_protected():
                raise BotError(f"bot {name!r}: {src} in its folder has other names (a hard link), and this system "
                               "lets a user link files they cannot read (fs.protected_hardlinks = 0): copying it as "
                               "root could hand the bot any file; replace the link by a copy")
            if st.st_size > left[0]:
                raise BotError(f"bot {name!r}: its folder {folder} grew past {COPY_MB} MB while it was copied")
            left[0] -= st.st_size
            out = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                todo = st.st_size
                while todo > 0 and (chunk := os.read(fd, min(todo, 1 << 20))):
                    os.write(out, chunk)
                    todo -= len(chunk)
                os.fchmod(out, stat.S_IMODE(st.st_mode) & 0o777)
            finally:
                os.close(out)
        finally:
            os.close(fd)

    try:
        shutil.copytree(folder, dest, symlinks=True, ignore=ignore, copy_function=copy_file)
        for root, dirs, files in os.walk(dest):
            os.lchown(root, uid, uid)
            for entry in dirs + files:
                os.lchown(os.path.join(root, entry), uid, uid)
    except BaseException as exc:
        _remove_copy(base)
        if isinstance(exc, shutil.Error) and exc.args and isinstance(exc.args[0], list) and exc.args[0]:
            src, _, why = exc.args[0][0]
            raise BotError(f"bot {name!r}: its folder could not be copied for the bot's own user: {src}: "
                           f"{why}") from None
        if isinstance(exc, OSError):
            raise BotError(f"bot {name!r}: its folder {folder} could not be copied for the bot's own user: "
                           f"{exc.strerror or exc}") from None
        raise
    return dest, mounted


_MS_NOSUID, _MS_NODEV = 2, 4
_MNT_DETACH = 2


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _mount_tmpfs(folder: str, size: int) -> bool:
    """As root: make ``folder`` a tmpfs of ``size`` bytes (rounded up to pages), mode 0700, owned by root; False
    where this process may not mount (a container without ``CAP_SYS_ADMIN``)."""
    options = f"size={max(size, 1 << 20)},mode=0700".encode("ascii")
    return _libc().mount(b"tmpfs", os.fsencode(folder), b"tmpfs", _MS_NOSUID | _MS_NODEV, options) == 0


def _remove_copy(base: str) -> None:
    """Remove a copy made by ``_copy_for``: its tmpfs detached (its files go with it), then its folder."""
    if os.path.ismount(base):
        _libc().umount2(os.fsencode(base), _MNT_DETACH)
    shutil.rmtree(base, ignore_errors=True)


@functools.cache
def _hardlinks_protected() -> bool:
    """Whether the kernel refuses a user a hard link to a file they cannot read (``fs.protected_hardlinks``)."""
    try:
        return Path("/proc/sys/fs/protected_hardlinks").read_text(encoding="ascii").strip() == "1"
    except OSError:
        return False


@functools.cache
def _sweep_copies() -> None:
    """Once per referee: remove the copies a referee killed by SIGKILL left behind (up to ``COPY_MB`` each, for
    every seat of every match it was playing).  A copy is named after its seat's uid, and a uid whose lock file
    nobody holds belongs to no live seat (see ``seat_uid``)."""
    folder = _uid_lock_folder()
    for base in Path(tempfile.gettempdir()).glob("mjref-copy-*-*"):
        uid = base.name.split("-")[2]
        if not uid.isdigit() or int(uid) in _uid_locks or not UID_BASE <= int(uid) < UID_BASE + UID_SPAN:
            continue
        try:
            st = os.lstat(base)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != 0:  # made by a root referee, not planted by a user
            continue
        try:
            fd = os.open(os.path.join(folder, uid), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:  # released by a referee that ended well, which removed its copies itself
            _remove_copy(str(base))
            continue
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue  # a live seat's
        _remove_copy(str(base))
        try:
            os.unlink(os.path.join(folder, uid))  # removed while locked: see seat_uid
        except OSError:
            pass
        os.close(fd)


def covers_as_planned(launch: Launch) -> bool:
    """Whether the box planned as ``launch`` still covers exactly the paths the referee hides now (a box kept for
    another match must: a log or stderr folder registered since is not covered in it)."""
    copied = [path for path, _ in launch.copies]
    now = [h for h in _hidden_in(launch.binds, launch.inner_cwd) if not any(_under(h, c) for c in copied)]
    return set(now) == set(launch.hidden)


def release(launch: Launch) -> None:
    """Remove what ``plan`` made for one seat's match (its private copies) and free its uid."""
    for _, copy in launch.copies:
        _remove_copy(os.path.dirname(copy))
    if launch.uid is not None:
        _release_uid(launch.uid)


def _check_reachable(spec: BotSpec, exe: str, cwd: str | None) -> None:
    """Mode ``none`` as root: the bot runs as an unprivileged uid on the host, so each file it needs must be
    reachable by others (every folder above it searchable)."""
    for path in [exe, os.path.realpath(exe), *([cwd] if cwd else []), *command_files(spec)]:
        p = Path(path)
        for folder in [*reversed(p.parents), p]:
            need = 0o001 if folder != p else (0o005 if p.is_dir() else 0o004)
            if not _others_may(str(folder), need):
                raise BotError(f"bot {spec.name!r}: mode none runs the bot as an unprivileged user (never as root), "
                               f"which cannot reach {path} ({folder} is closed to others): use the sandbox "
                               f"(bwrap), or make it reachable (chmod o+x on each folder above it)")


__all__ = ["CPU_SECONDS", "ENV_ALLOW", "FILE_MB", "MAX_FILES", "MAX_PROCS", "MEMORY_MB", "MODE_ENV", "MODES", "SHM_MB",
           "TMP_MB", "bwrap_problem", "check_available", "covers_as_planned", "hidden_paths", "hide_from_bots",
           "keeper_config", "Launch", "Limits", "Mode", "plan", "probe_ahead", "release", "requested_mode",
           "resolve_mode", "seat_uid", "unhide", "warn_once"]

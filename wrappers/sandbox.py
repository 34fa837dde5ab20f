"""How a bot process is boxed: the bubblewrap command line, the resource limits and the environment, as data.

Bots are untrusted programs from other authors.  ``plan`` turns a bot spec into a ``Launch``: the exact argv,
environment and working directory ``ProcessSeat`` starts, plus what it shows and hides, so that tests can read
the box without starting anything.  Nothing above this floor knows how a bot is boxed.

Modes (``sandbox`` in a bot's TOML; ``--sandbox`` or ``MJREF_SANDBOX`` for every bot of a run, which wins):

* ``bwrap``: bubblewrap (Debian package ``bubblewrap``).  New PID, IPC, UTS, cgroup and network namespaces, and a
  user namespace when not running as root (as root the bot is instead switched to an unprivileged uid of its own,
  see ``_sandbox_uid``); ``--die-with-parent``; the system (``/usr``, ``/etc``, ...) read-only; the bot's folder
  and the files its command names read-only (its folder read-write with ``writable``); a private ``/tmp``; a
  fresh ``/proc`` that shows only the bot's own processes; no network unless ``network``.  Paths the referee
  registered with ``hide_from_bots`` (logs, stores, stderr files) are covered over when they would be visible.
* ``none``: no sandbox; only the limits, the reduced environment and the private working directory below.
* ``auto`` (the default): ``bwrap`` where it works (probed once per process), else ``none`` with one warning line
  that names what is not protected.

In every mode: ``setrlimit`` limits (util-linux ``prlimit`` runs the command with them: no Python code runs
between fork and exec); an environment reduced to ``ENV_ALLOW`` plus a private ``HOME`` and ``TMPDIR`` and the
bot's own ``env`` (set by env(1) right before the bot's program, inside the box: never given to the launchers);
only file descriptors 0-2; a private per-seat scratch folder as the working directory when the
bot names no ``cwd``; and death with the referee (bwrap's ``--die-with-parent``, or util-linux ``setpriv
--pdeathsig KILL`` in mode ``none``).
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import resource
import signal
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from referee.errors import BotError

from .codec import cut

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
# The kernel's OOM killer takes a bot first (util-linux choom; inherited by every process the bot starts): memory_mb
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

_uid_counter = itertools.count()
_uids: dict[str, int] = {}  # scratch folder -> the uid its bot runs as
_hidden: dict[str, int] = {}  # paths registered by the referee -> how many registrations hold them
_warned: set[str] = set()


@dataclass(frozen=True, slots=True)
class Limits:
    """The resource limits of one bot process (and everything it starts)."""

    memory_mb: int = MEMORY_MB
    max_procs: int = MAX_PROCS
    cpu_seconds: int = CPU_SECONDS
    file_mb: int = FILE_MB

    def prlimit_args(self, *, hands: int, procs: bool) -> list[str]:
        """util-linux ``prlimit`` options: soft and hard limits (the CPU hard limit one second above the soft
        one, so a bot first gets SIGXCPU, then SIGKILL); no core files; at most ``MAX_FILES`` open files (the
        referee's own limit is often far higher, and a bot holding thousands of pipes holds kernel memory)."""
        cpu = self.cpu_seconds * max(1, hands)
        mem = self.memory_mb << 20
        files = _max_files()
        out = [f"--as={mem}:{mem}", f"--cpu={cpu}:{cpu + 1}", f"--fsize={self.file_mb << 20}:{self.file_mb << 20}",
               "--core=0:0", f"--nofile={files}:{files}"]
        if procs:
            out.append(f"--nproc={self.max_procs}:{self.max_procs}")
        return out


@dataclass(frozen=True, slots=True)
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

    def describe_exit(self, code: int | None, stderr_tail: bytes = b"") -> str:
        """The bot's end in words, naming the limit it hit when that is what ended it."""
        if code is None:
            return "still running"
        sig: int | None = None
        if code < 0:
            sig = -code
        elif self.mode == "bwrap" and code > 128 and code - 128 < signal.NSIG:
            sig = code - 128  # bwrap passes on a signal death as 128 + the signal
        tail = stderr_tail.decode("utf-8", "replace")
        if sig is not None:
            name = _signal_name(sig)
            text = f"killed by {name}"
            if sig == signal.SIGXCPU:
                per = "per hand" if self.hands == 1 else f"for {self.hands} hands"
                return f"{text}: CPU limit {self.limits.cpu_seconds * self.hands} s {per}; {_raise('cpu_seconds')}"
            if sig == signal.SIGXFSZ:
                return f"{text}: file size limit {self.limits.file_mb} MB; {_raise('file_mb')}"
            if sig in (signal.SIGKILL, signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS) and _out_of_memory(tail):
                return f"{text}: {self._memory_limit(tail)}"
            return text
        text = f"exited with status {code}"
        if code != 0 and _out_of_memory(tail):
            return f"{text}: {self._memory_limit(tail, failed=True)}"
        if self.mode == "bwrap" and code == 1 and "bwrap:" in tail:
            line = next(ln for ln in tail.splitlines() if "bwrap:" in ln)
            return f"{text}: the sandbox could not start it ({cut(line.strip(), 200)})"  # the bot's own words
        return text

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
    for p in paths:
        key = os.path.abspath(p)
        _hidden[key] = _hidden.get(key, 0) + 1


def unhide(*paths: Path | str) -> None:
    """Drop registrations made by :func:`hide_from_bots` (a path stays hidden while another registration holds
    it).  Whoever registers a path per match (a log being written, a match's stderr folder) drops it when done:
    otherwise a tournament's registrations grow by one per match, and every bot start checks each of them."""
    for p in paths:
        key = os.path.abspath(p)
        n = _hidden.get(key, 0)
        if n <= 1:
            _hidden.pop(key, None)
        else:
            _hidden[key] = n - 1


def hidden_paths() -> tuple[str, ...]:
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


@functools.cache
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot box a bot on this machine (None: it can).  Probed once per process, with the same
    namespaces a bot gets."""
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
    problem = bwrap_problem()
    if problem is None:
        return "bwrap"
    if mode == "bwrap":
        raise BotError(f"bot {spec.name!r}: sandbox 'bwrap' asked for, but {problem}")
    warn_once("auto", f"mjref: warning: bots run without a sandbox ({problem}): a bot can read the referee's "
              "files and logs (and so the walls), see and signal other bots' processes, and use the network; "
              "only resource limits, a private working folder and a reduced environment apply")
    return "none"


def warn_once(key: str, line: str) -> None:
    """One warning line on stderr per ``key`` per process."""
    if key not in _warned:
        _warned.add(key)
        print(line, file=sys.stderr, flush=True)


def check_available(spec: BotSpec, override: str | None = None) -> None:
    """Raise ``BotError`` before a match when the bot's sandbox mode cannot be had (or is not a mode)."""
    if spec.cmd is not None:
        resolve_mode(spec, override)
        if _which("prlimit") is None:
            raise BotError(f"bot {spec.name!r}: util-linux's prlimit is needed to limit a bot's resources")


# ---------------------------------------------------------------------------------------------------- the plan
def plan(spec: BotSpec, scratch: Path, *, mode: str | None = None, hands: int | None = None) -> Launch:
    """How to start ``spec``'s process: ``scratch`` is the seat's private folder (its working directory when the
    bot names no ``cwd``, and its HOME); ``hands`` is the match length, which a ``keep_alive`` bot's CPU limit
    covers (one hand for a bot started per hand)."""
    assert spec.cmd is not None
    actual = resolve_mode(spec, mode)
    limits = Limits(spec.memory_mb or MEMORY_MB, spec.max_procs or MAX_PROCS, spec.cpu_seconds or CPU_SECONDS,
                    spec.file_mb or FILE_MB)
    cpu_hands = (hands or HANDS_DEFAULT) if spec.keep_alive else 1
    cmd = list(spec.cmd)
    exe = real_interpreter(spec.resolved_executable() or cmd[0])
    cmd[0] = exe
    cwd = spec.cwd or str(scratch)
    env = _environment(home=str(scratch))
    cmd = _with_own_env(spec, cmd)
    prlimit = _which("prlimit") or "prlimit"
    choom = _which("choom")
    first = [choom, "-n", str(OOM_SCORE_ADJ), "--"] if choom is not None else []
    unprotected = [] if choom is not None else ["the OOM killer taking the bot first (util-linux choom is missing)"]
    if actual == "none":
        setpriv = _which("setpriv")
        argv = [*first, prlimit, *limits.prlimit_args(hands=cpu_hands, procs=False), "--"]
        unprotected += ["files the referee's user can read", "other processes of the same user", "the network",
                        "max_procs (needs the sandbox)"]
        if setpriv is not None:
            argv += [setpriv, "--pdeathsig", "KILL", "--"]
        else:
            unprotected.append("death with the referee (util-linux setpriv is missing)")
        unprotected.append("processes the bot starts outliving a referee killed by SIGKILL")
        return Launch(tuple(argv + cmd), env, cwd, cwd, "none", limits, cpu_hands, None, (), (), tuple(unprotected))

    binds = _binds(spec, exe)
    uid = _sandbox_uid(spec, binds, scratch)
    if _is_root() and uid is None:
        unprotected.append("max_procs (the bot runs as root: its folder is writable or not readable by others)")
    if spec.network:
        unprotected.append("the network (network = true)")
    args = [*first, _which("bwrap") or "bwrap", *_namespace_args(network=spec.network), *_system_args(),
            "--proc", "/proc", "--dev", "/dev", "--perms", "1777"]
    if _bwrap_sizes_tmpfs():
        args += ["--size", str(TMP_MB << 20)]
    else:
        unprotected.append("the size of /tmp (a tmpfs in memory: this bubblewrap has no --size)")
    args += ["--tmpfs", "/tmp"]
    for folder in _ancestors([b for b, _ in binds] + [str(scratch)]):
        args += ["--perms", "0755", "--dir", folder]  # bwrap would make them 0700: closed to an unprivileged uid
    for path, writable in binds:
        args += ["--bind" if writable else "--ro-bind", path, path]
    args += ["--bind", str(scratch), str(scratch)]
    hidden = _hidden_in(binds, cwd)
    for h in hidden:
        args += ["--tmpfs", h] if os.path.isdir(h) else ["--ro-bind", "/dev/null", h]
    args += ["--chdir", cwd]
    if uid is not None:
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    args += ["--", prlimit, *limits.prlimit_args(hands=cpu_hands, procs=True), "--"]
    if uid is not None:
        args += [_which("setpriv") or "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                 "--inh-caps=-all", "--no-new-privs", "--"]
    return Launch(tuple(args + cmd), env, str(scratch), cwd, "bwrap", limits, cpu_hands, uid, tuple(binds),
                  tuple(hidden), tuple(unprotected))


def _environment(home: str) -> dict[str, str]:
    """The environment of the launch (the box, the limits, the uid switch): the referee's allowed variables, and
    the seat's folder as HOME and TMPDIR.  None of the bot's own: see ``_with_own_env``."""
    env = {k: os.environ[k] for k in ENV_ALLOW if k in os.environ}
    env.setdefault("PATH", DEFAULT_PATH)
    env["HOME"] = env["TMPDIR"] = home
    return env


def _with_own_env(spec: BotSpec, cmd: list[str]) -> list[str]:
    """The bot's command with its own ``env`` set by env(1), the last program before the bot's, run inside the box
    and under the limits.  Given to the launch, ``LD_PRELOAD`` or the like would run code in bwrap, prlimit or
    setpriv: as root, outside the box, before the limits and the uid switch."""
    if not spec.env:
        return cmd
    if "=" in cmd[0]:  # env(1) would take it for one more variable
        raise BotError(f"bot {spec.name!r}: a program whose path holds '=' cannot be given 'env'")
    return [_which("env") or "/usr/bin/env", *(f"{name}={value}" for name, value in spec.env.items()), *cmd]


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
        if p != "/" and os.path.exists(p):
            out.append(p)
    return out


def _binds(spec: BotSpec, exe: str) -> list[tuple[str, bool]]:
    """The host paths a bot needs: its folder (``cwd``, else the folder of the first file its command names, else
    its executable's folder), the folders of the other files its command names, and its interpreter's
    installation."""
    assert spec.cmd is not None
    files = command_files(spec)
    wanted: list[tuple[str, bool]] = []
    for p in [exe, *files]:  # an interpreter may come after a launcher: env VAR=1 python3 bot.py
        if p == exe or (os.path.isfile(p) and os.access(p, os.X_OK)):
            wanted += [(f, False) for f in _interpreter_paths(p)]
    folders = []
    for p in [*files, exe]:
        if _is_system(p):
            continue
        folders.append(p if os.path.isdir(p) else os.path.dirname(p))
        real = os.path.realpath(p)
        if real != p and not _is_system(real):
            folders.append(os.path.dirname(real))
    own = os.path.abspath(spec.cwd) if spec.cwd else (folders[0] if folders else None)
    if own is not None:
        wanted.append((own, spec.writable))
    wanted += [(f, False) for f in folders]
    return _minimal(wanted)


_SCRIPT_PYTHON = re.compile(r"python[0-9.]*")


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


def _interpreter_paths(exe: str) -> list[str]:
    """What an interpreter needs besides the system: a virtual environment and the installation it is made from;
    for the referee's own Python, also its import path (where mjref's own bots live)."""
    out: list[str] = []
    bin_dir = os.path.dirname(exe)
    venv = os.path.dirname(bin_dir)
    cfg = os.path.join(venv, "pyvenv.cfg")
    if os.path.isfile(cfg):
        out.append(venv)
        try:
            for line in Path(cfg).read_text(encoding="utf-8", errors="replace").splitlines():
                key, _, value = line.partition("=")
                if key.strip() == "home" and value.strip():
                    out.append(os.path.dirname(value.strip()))
        except OSError:
            pass
    real = os.path.realpath(exe)
    if real != exe or _SCRIPT_PYTHON.fullmatch(os.path.basename(real)):  # an interpreter's installation (lib/)
        out.append(os.path.dirname(os.path.dirname(real)))
    if real == os.path.realpath(sys.executable) or os.path.abspath(exe) == os.path.abspath(sys.executable):
        out += [sys.prefix, sys.base_prefix, sys.exec_prefix, *_mjref_packages()]
    return [p for p in out if os.path.isdir(p) and not _is_system(p) and p != "/"]


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
    for h in _hidden:
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


def _sandbox_uid(spec: BotSpec, binds: Sequence[tuple[str, bool]], scratch: Path) -> int | None:
    """As root: an unprivileged uid for this seat (the same for each start, since it owns the seat's scratch
    folder), if everything the bot needs is readable by others and nothing must be writable by it (else None: it
    runs as root in the box)."""
    if not _is_root() or spec.writable:
        return None
    for path, _ in binds:
        try:
            mode = os.stat(path).st_mode
        except OSError:
            return None
        if mode & 0o005 != 0o005:
            return None
    key = str(scratch)
    if key not in _uids:
        _uids[key] = UID_BASE + (os.getpid() * 64 + next(_uid_counter)) % UID_SPAN
    return _uids[key]


def prepare_scratch(scratch: Path, launch: Launch) -> None:
    """Give the bot its scratch folder (as root, it runs as another uid that must own it)."""
    if launch.uid is not None:
        os.chown(scratch, launch.uid, launch.uid)
    elif _is_root():
        os.chown(scratch, 0, 0)


__all__ = ["CPU_SECONDS", "ENV_ALLOW", "FILE_MB", "MAX_FILES", "MAX_PROCS", "MEMORY_MB", "MODES", "MODE_ENV", "TMP_MB",
           "Launch", "Limits", "Mode", "bwrap_problem", "check_available", "hidden_paths", "hide_from_bots", "plan",
           "prepare_scratch", "requested_mode", "resolve_mode", "unhide", "warn_once"]

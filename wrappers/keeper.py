"""The keeper of one seat's box: a small process that lives in the box for a whole match and starts each of the
bot's processes there, one exec each.

Why it exists: a bot started per hand (the protocol's default) used to cost a new box per hand (bubblewrap's
namespaces and mounts, then ``choom``, ``prlimit`` and ``setpriv``: four execs before the bot's own).  The keeper is
started once per seat per match, in the box the referee planned (``wrappers.sandbox``); it gives up root and every
capability before anything else (as root it switches to the seat's own unprivileged uid), and then, for each hand,
starts the bot with its limits and its own session (the OOM score, the keeper's own, is inherited): in a pid
namespace (bwrap) with ``posix_spawn``, under the bot's limits the keeper holds itself (``Keeper.hold_limits``),
elsewhere by a fork whose child sets them and its death with the keeper.  Between hands it kills whatever the hand
left running and waits for it to be gone, empties the box's scratch mounts (at every level) and removes the System V
IPC objects the hand made, so that a hand's process starts as fresh as in a new box.

It runs as ``python -I -S -c BOOTSTRAP`` (standard library only: it imports nothing of mjref, and no
site-packages) and talks to the referee over one ``SOCK_SEQPACKET`` socket on its fd 0, one message per packet:

* the referee's first packet is this program, compiled (``marshal``: the referee's own interpreter runs it), and
  its second the plan (``marshal`` too: see ``sandbox.keeper_config``); the keeper answers ``ready``;
* ``spawn`` with three file descriptors (the bot's stdin, stdout, stderr): ``pid N``, or ``error TEXT``;
* ``term`` / ``kill``: SIGTERM to the bot's process group / SIGKILL to every process of the box's hand;
* the keeper says ``exit N CODE FLAGS`` when the hand's process ends (CODE as ``Popen.returncode``; FLAGS is ``-``
  or a comma list: ``cpu`` the box's processes together used up the CPU budget and were killed, ``tmp`` / ``shm``
  the scratch mount was full, ``folder`` the bot's writable copy was full), and ``dirty`` if the scratch could not
  be emptied or the keeper has used half the CPU limit it holds (the referee then makes a new box; a ``spawn`` that
  comes before it knows gets ``error dirty``).

The referee treats every packet as untrusted (a bot may kill its keeper): a malformed one ends the box.
"""

from __future__ import annotations

# Only modules written in C, and ``os``: a keeper starts once per seat and match, and ``json``, ``socket`` and
# ``signal`` would pull in ``re``, ``enum`` and ``collections`` (three times the interpreter's own start); ``ctypes``
# is half the interpreter's start again, so the few C calls go through ``_ctypes``, the C module under it.
import _ctypes
import _signal as signal
import _socket
import errno
import gc
import marshal
import os
import resource
import select
import stat
import sys

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
PR_SET_CHILD_SUBREAPER = 36


class _ULong(_ctypes._SimpleCData):
    _type_ = "L"


class _UInt32(_ctypes._SimpleCData):
    _type_ = "I"


class _CInt(_ctypes._SimpleCData):
    _type_ = "i"


class _Call(_ctypes.CFuncPtr):
    """A C function of the libc that returns an int and sets errno (as ``ctypes.CDLL(None, use_errno=True)``)."""
    _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
    _restype_ = _CInt


class _Libc:
    """The C library's functions by name (only what the keeper calls: ints, unsigned longs, arrays, NULL)."""

    def __init__(self) -> None:
        self._handle = _ctypes.dlopen(None, _ctypes.RTLD_LOCAL)

    def __getattr__(self, name: str) -> _Call:
        return _Call((name, self))


_libc = _Libc()


def _uint32s(*values: int) -> _ctypes.Array:
    return type("_UInt32s", (_ctypes.Array,), {"_type_": _UInt32, "_length_": len(values)})(*values)


def _prctl(option: int, value: int) -> None:
    if _libc.prctl(option, _ULong(value), 0, 0, 0) != 0:
        raise OSError(_ctypes.get_errno(), f"prctl({option})")


def _caps() -> dict[str, int]:
    out = {}
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(("CapInh", "CapPrm", "CapEff", "CapAmb")):
                key, _, value = line.partition(":")
                out[key] = int(value.strip(), 16)
    return out


def _read(path: str) -> bytes:
    """A small file's bytes (a /proc or cgroup file), read through the descriptor: ``open()`` builds a buffered
    reader (and a text decoder) and makes five system calls more, at every hand's start and end."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = []
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        os.close(fd)


def _proc_cpu(uid: int | None, me: int) -> float:
    """CPU seconds of the live processes of this box's hand (not the keeper, not bwrap's own init): in a pid
    namespace all of them; outside one, those of the seat's own uid."""
    total = 0
    tick = os.sysconf("SC_CLK_TCK")
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        if pid == me or pid == 1:
            continue
        try:
            if uid is not None and os.stat(f"/proc/{name}").st_uid != uid:
                continue
            fields = _read(f"/proc/{name}/stat").rpartition(b")")[2].split()
        except OSError:
            continue
        # utime, stime, and cutime, cstime: what its own children that ended used (fields 14 to 17 of stat)
        total += int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
    return total / tick


# Signals the bot gets with their default action: those the keeper catches, and those its Python ignores (SIGPIPE,
# SIGXFSZ: an ignored signal stays ignored across exec, and a bot past its file size limit is to die of SIGXFSZ)
_DEFAULT_SIGNALS = (signal.SIGCHLD, signal.SIGPIPE, signal.SIGXFSZ, signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
_KEEPER_HEADROOM = 64 << 20  # address space the keeper keeps for itself under the bot's RLIMIT_AS
_SETTLE_TRIES = 200  # at a hand's end, looks for processes killed but not yet gone, _SETTLE_WAIT seconds apart
_SETTLE_WAIT = 0.005


def _vm_size() -> int:
    """The keeper's address space in bytes (``VmSize``)."""
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) << 10
    return 1 << 62


def _own_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _entries(folder: str) -> set[str]:
    try:
        return set(os.listdir(folder))
    except OSError:
        return set()


def _tree(folder: str) -> dict[str, int]:
    """What ``folder`` (a scratch mount) holds when the box starts, every level down on its own file system, with
    each entry's mode: the folders the box made in it for what it binds there (a bot's folder under /tmp)."""
    out: dict[str, int] = {}
    try:
        dev = os.lstat(folder).st_dev
    except OSError:
        return out
    todo = [""]
    while todo:
        rel = todo.pop()
        for name in _entries(os.path.join(folder, rel)):
            sub = os.path.join(rel, name)
            try:
                st = os.lstat(os.path.join(folder, sub))
            except OSError:
                continue
            out[sub] = stat.S_IMODE(st.st_mode)
            if stat.S_ISDIR(st.st_mode) and st.st_dev == dev:
                todo.append(sub)
    return out


def _wipe(folder: str, keep: dict[str, int]) -> bool:
    """Remove what a hand left in ``folder`` (a scratch mount), at any level, except what was there when the box
    started (``keep``, from ``_tree``: its folders get their modes back) and anything on another file system (the
    bot's own folders, bound inside it).  True when nothing new is left."""
    try:
        dev = os.lstat(folder).st_dev
    except OSError:
        return True
    clean = True
    todo = [""]
    while todo:
        rel = todo.pop()
        for name in _entries(os.path.join(folder, rel)):
            sub = os.path.join(rel, name)
            path = os.path.join(folder, sub)
            if sub not in keep:
                clean &= _remove(path, dev)
                continue
            try:
                st = os.lstat(path)
                if stat.S_ISDIR(st.st_mode) and st.st_dev == dev:
                    if stat.S_IMODE(st.st_mode) != keep[sub]:
                        os.chmod(path, keep[sub])
                    todo.append(sub)
            except OSError:
                clean = False
    return clean


def _remove(path: str, dev: int) -> bool:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if st.st_dev != dev:
        return False  # a mount the keeper did not make: not its to remove
    if stat.S_ISDIR(st.st_mode):
        try:
            os.chmod(path, 0o700)  # a bot may have closed its own folder to its owner
        except OSError:
            pass
        ok = all([_remove(os.path.join(path, n), dev) for n in _entries(path)])
        try:
            os.rmdir(path)
        except OSError:
            return False
        return ok
    try:
        os.unlink(path)
    except OSError:
        return False
    return True


IPC_RMID = 0
# /proc/sysvipc's tables: the column of each object's id and of its owner's uid
_SYSV = (("shm", 1, 7), ("msg", 1, 7), ("sem", 1, 4))


def _wipe_ipc(uid: int) -> bool:
    """Remove the System V message queues, shared memory segments and semaphores of ``uid`` (in a box: of its own
    IPC namespace): they outlive the process that made them, with what it put there.  True when none is left."""
    clean = True
    for kind, id_col, uid_col in _SYSV:
        try:
            rows = [line.split() for line in _read(f"/proc/sysvipc/{kind}").splitlines()[1:]]
        except OSError:
            continue
        for row in rows:
            try:
                ident, owner = int(row[id_col]), int(row[uid_col])
            except (IndexError, ValueError):
                continue
            if owner != uid:
                continue
            if kind == "sem":
                done = _libc.semctl(ident, 0, IPC_RMID)
            else:
                done = getattr(_libc, f"{kind}ctl")(ident, IPC_RMID, None)
            clean &= done == 0
    return clean


def _full(folder: str) -> bool:
    try:
        st = os.statvfs(folder)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < 64 * 1024 or (st.f_files > 0 and st.f_favail == 0)


class Keeper:
    def __init__(self, sock: _socket.socket, plan: dict) -> None:
        self.sock = sock
        self.argv = [str(a) for a in plan["argv"]]
        self.env = {str(k): str(v) for k, v in plan["env"].items()}
        self.cwd = str(plan["cwd"])
        self.rlimits = [(getattr(resource, name), int(soft), int(hard)) for name, soft, hard in plan["rlimits"]]
        self.cpu = float(plan["cpu"]) if plan.get("cpu") else None
        self.uid = plan.get("uid")
        self.kill_all = bool(plan["kill_all"])  # a pid namespace, or a uid of the seat's own
        self.own_uid = self.uid if (self.kill_all and not plan.get("pidns")) else None
        self.scratch = [str(s) for s in plan["scratch"]]
        self.keep = {s: _tree(s) for s in self.scratch}
        self.watched = [str(s) for s in plan.get("watched", ())]  # checked for room, never emptied
        # The seat's CPU accounting cgroup's counter (all the box's processes, those nobody waited for included)
        self.cpu_file = plan.get("cpu_file")
        self.cg_base = 0.0
        self.poll = float(plan.get("poll", 0.25))
        self.bot: int | None = None
        self.dirty = False  # a hand's leftovers could not be removed: no process starts here again
        self.cpu_base = 0.0
        self.flags: list[str] = []
        self.me = os.getpid()
        self.pidns = bool(plan.get("pidns"))
        self.held_cpu: int | None = None  # the RLIMIT_CPU the keeper holds for the bot (``hold_limits``)
        self.holds_limits = False

    def send(self, text: str) -> None:
        self.sock.send(text.encode("ascii", "replace")[:4096])

    def spawn(self, fds: list[int]) -> None:
        if self.bot is not None or self.dirty or len(fds) != 3:
            for fd in fds:
                os.close(fd)
            self.send("error a process is already running" if self.bot is not None
                      else "error dirty" if self.dirty else "error want 3 fds")
            return
        self.cpu_base = _children_cpu()
        self.cg_base = self.cgroup_cpu() or 0.0
        try:
            try:
                pid = self._posix_spawn(fds) if self.holds_limits else self._fork(fds)
            except NotImplementedError:  # a C library without posix_spawn's setsid: the child sets it all
                self.holds_limits = False
                pid = self._fork(fds)
        except OSError as exc:
            self.send(f"error {exc.errno or errno.EINVAL} {exc.strerror or exc}")
            return
        finally:
            for fd in fds:
                os.close(fd)
        self.bot = pid
        self.flags = []
        self.send(f"pid {pid}")

    def _posix_spawn(self, fds: list[int]) -> int:
        """Start the bot with ``posix_spawn`` (a vfork: nothing of the keeper is copied, no Python runs before the
        exec), where ``hold_limits`` has given the keeper the bot's limits to pass on.  Its own session, its three
        descriptors (every other one of the keeper's closes on exec), the default for every signal the keeper
        ignores or catches, no signal blocked."""
        os.chdir(self.cwd)  # posix_spawn has no working folder of its own: the child gets the keeper's
        return os.posix_spawn(self.argv[0], self.argv, self.env, setsid=True, setsigdef=_DEFAULT_SIGNALS,
                              setsigmask=(), file_actions=[(os.POSIX_SPAWN_DUP2, fd, i) for i, fd in enumerate(fds)])

    def _fork(self, fds: list[int]) -> int:
        """Start the bot with ``fork`` and ``exec``: the child sets the limits, its death with the keeper, its own
        session and descriptors, the default for every signal, then execs (or says why not on a pipe)."""
        r, w = os.pipe2(os.O_CLOEXEC)
        pid = os.fork()
        if pid == 0:  # the child: no return from here
            try:
                os.close(r)
                os.setsid()
                for i, fd in enumerate(fds):
                    os.dup2(fd, i, inheritable=True)
                os.closerange(3, w)
                os.closerange(w + 1, 1 << 16)
                for res, soft, hard in self.rlimits:
                    resource.setrlimit(res, (soft, hard))
                _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
                for sig in _DEFAULT_SIGNALS:
                    signal.signal(sig, signal.SIG_DFL)
                signal.pthread_sigmask(signal.SIG_SETMASK, [])
                os.chdir(self.cwd)
                os.execve(self.argv[0], self.argv, self.env)
            except BaseException as exc:  # noqa: BLE001 - the child's only way out is _exit
                code = getattr(exc, "errno", None) or errno.EINVAL
                why = getattr(exc, "strerror", None) or str(exc)
                try:
                    os.write(w, f"{code} {why}".encode("ascii", "replace")[:400])
                finally:
                    os._exit(127)
        os.close(w)
        failed = b""
        while True:
            try:
                chunk = os.read(r, 512)
            except InterruptedError:
                continue
            if not chunk:
                break
            failed += chunk
        os.close(r)
        if failed:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
            code, _, why = failed.decode("ascii", "replace").partition(" ")
            raise OSError(int(code) if code.isdigit() else errno.EINVAL, why)
        return pid

    def hold_limits(self) -> bool:
        """Take the bot's own limits, once, so that ``posix_spawn`` can start it: a fork copies the keeper (its page
        tables, then each page either side writes) and runs Python in the child before the exec, two thirds of a
        start's CPU.  ``posix_spawn`` sets no limit and no ``PR_SET_PDEATHSIG`` in the child, so only:

        * in a pid namespace, where each of the bot's processes dies with its keeper without it (bwrap's init ends
          the namespace, and every process in it, when the keeper ends);
        * where the keeper can live under the bot's limits, which every process it starts inherits: its memory
          and open files well inside them, fewer processes in the box than ``max_procs`` (the keeper's starts now
          count against it), less than a quarter of the CPU limit used (it retires at half: ``worn_out``).

        Elsewhere each start forks and the child sets the limits.  Every descriptor the keeper holds but the
        three it passes closes on exec (its own are opened so; this marks any it was given)."""
        if not self.pidns:
            return False
        limits = {res: (soft, hard) for res, soft, hard in self.rlimits}
        need = {resource.RLIMIT_AS: _vm_size() + _KEEPER_HEADROOM,
                resource.RLIMIT_NOFILE: len(os.listdir("/proc/self/fd")) + 16,
                resource.RLIMIT_NPROC: len([p for p in os.listdir("/proc") if p.isdigit()]) + 1,
                resource.RLIMIT_CPU: 4 * _own_cpu()}
        if any(res in limits and 0 <= limits[res][0] < least for res, least in need.items()):
            return False
        for fd in [int(name) for name in os.listdir("/proc/self/fd")]:
            try:
                if fd > 2:
                    os.set_inheritable(fd, False)
            except OSError:
                pass  # the listing's own descriptor, closed by now
        try:
            for res, soft, hard in self.rlimits:
                resource.setrlimit(res, (soft, hard))
                if res == resource.RLIMIT_CPU:
                    self.held_cpu = soft
        except (OSError, ValueError):
            return False  # a limit the keeper may not set: the child's own setrlimit would fail as well
        return True

    def worn_out(self) -> bool:
        """Whether the keeper has used half the CPU limit it holds for the bot (``hold_limits``): it then starts
        nothing more (``dirty``), so that the limit never ends it in the middle of a hand."""
        return self.held_cpu is not None and _own_cpu() * 2 > self.held_cpu

    def kill(self, sig: int) -> None:
        if self.kill_all and sig == signal.SIGKILL:
            try:
                os.kill(-1, sig)  # every process this uid may signal here but the keeper: the box's hand
            except ProcessLookupError:
                pass
        if self.bot is not None:
            try:
                os.killpg(self.bot, sig)
            except (ProcessLookupError, PermissionError):
                pass

    def reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.bot:
                self.bot = None
                code = os.waitstatus_to_exitcode(status)
                if self.kill_all:
                    self.kill(signal.SIGKILL)  # nothing of a hand outlives its process
                for folder in self.scratch:
                    if folder != "/dev/mqueue" and _full(folder):  # a message queue takes no room there
                        self.flags.append("tmp" if folder == "/tmp" else os.path.basename(folder) or folder)
                if any([_full(folder) for folder in self.watched]):
                    self.flags.append("folder")
                self.send(f"exit {pid} {code} {','.join(self.flags) or '-'}")
                if self.kill_all:
                    self.settle()
                clean = not self.kill_all or (all([_wipe(s, self.keep[s]) for s in self.scratch])
                                              and _wipe_ipc(os.getuid()))
                if not clean or self.worn_out():
                    self.dirty = True
                    self.send("dirty")

    def settle(self) -> None:
        """Wait (about a second at most) until every process the hand's end killed is gone.  Each counts against
        the bot's RLIMIT_NPROC until it is reaped (and against the keeper's, where it holds the bot's limits): the
        next hand's process started with fewer, or not at all.  They are the keeper's children by then (it is
        their subreaper), and SIGKILL leaves them nothing to do but end."""
        for _ in range(_SETTLE_TRIES):
            try:
                while os.waitpid(-1, os.WNOHANG)[0] != 0:
                    pass
            except ChildProcessError:
                return  # none left
            select.select([], [], [], _SETTLE_WAIT)

    def cgroup_cpu(self) -> float | None:
        """CPU seconds the seat's cgroup has used (None without one, or if it cannot be read)."""
        if not self.cpu_file:
            return None
        path, version = self.cpu_file
        try:
            text = _read(path)
        except OSError:
            return None
        if version == "v1":
            return int(text) / 1e9 if text.strip().isdigit() else None
        for line in text.splitlines():
            if line.startswith(b"usage_usec "):
                return int(line.split()[1]) / 1e6
        return None

    def check_cpu(self) -> None:
        if self.bot is None or self.cpu is None:
            return
        now = self.cgroup_cpu()
        if now is not None:
            used = now - self.cg_base
        else:
            used = _children_cpu() - self.cpu_base
            if self.kill_all:
                used += _proc_cpu(self.own_uid, self.me)
        if used > self.cpu and "cpu" not in self.flags:
            self.flags.append("cpu")
            self.kill(signal.SIGKILL)

    def run(self) -> None:
        wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        sock = self.sock
        while True:
            timeout = self.poll if self.bot is not None and self.cpu is not None else None
            ready, _, _ = select.select([sock, wake_r], [], [], timeout)
            if wake_r in ready:
                try:
                    os.read(wake_r, 4096)
                except BlockingIOError:
                    pass
                self.reap()
            if sock in ready:
                msg, fds = _recv_fds(sock)
                if not msg:
                    self.kill(signal.SIGKILL)
                    return
                word = msg.split(b" ", 1)[0]
                if word == b"spawn":
                    self.spawn(fds)
                    continue
                for fd in fds:
                    os.close(fd)
                if word == b"term":
                    self.kill(signal.SIGTERM)
                elif word == b"kill":
                    self.kill(signal.SIGKILL)
                    self.reap()
            self.check_cpu()


_FD_SIZE = 4  # an int in SCM_RIGHTS


def _recv_fds(sock: _socket.socket) -> tuple[bytes, list[int]]:
    """A packet and the descriptors passed with it (at most three), as ``socket.recv_fds`` gives them."""
    msg, ancdata, _, _ = sock.recvmsg(256, _socket.CMSG_LEN(3 * _FD_SIZE), _socket.MSG_CMSG_CLOEXEC)
    fds: list[int] = []
    for level, kind, data in ancdata:
        if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
            usable = len(data) - len(data) % _FD_SIZE
            fds += [int.from_bytes(data[i:i + _FD_SIZE], sys.byteorder, signed=True)
                    for i in range(0, usable, _FD_SIZE)]
    return msg, fds


def _become(uid: int) -> None:
    """Give up root for good: no groups, the seat's own uid and gid (which clears the permitted and effective
    capabilities), then the inheritable ones bwrap granted for the switch."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    _drop_inheritable()


def _drop_inheritable() -> None:
    header = _uint32s(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = _uint32s(0, 0, 0, 0, 0, 0)  # effective, permitted, inheritable (twice: 64 bits): all empty
    if _libc.capset(header, data) != 0:
        raise OSError(_ctypes.get_errno(), "capset")


def main() -> int:
    sock = _socket.socket(fileno=os.dup(0))
    os.dup2(os.open(os.devnull, os.O_RDWR), 0)  # fd 0 stays taken, by /dev/null
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # mode none: the keeper dies with the referee's spawning thread
    plan = marshal.loads(sock.recv(1 << 20) or marshal.dumps({}))
    uid = plan.get("uid")
    with open("/proc/self/oom_score_adj", "w", encoding="ascii") as f:  # inherited by every process it starts
        f.write(str(int(plan["oom"])))
    if uid is not None and os.geteuid() == 0:
        _become(int(uid))
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    _prctl(PR_SET_DUMPABLE, 0)  # no ptrace, no /proc/<pid>/mem for the bot, though it runs as the same uid
    _prctl(PR_SET_CHILD_SUBREAPER, 1)  # orphans of the bot's come back here: their CPU is counted, they are reaped
    caps = _caps()
    if os.geteuid() == 0 or any(caps.values()):
        sock.send(f"error the box did not drop privileges (euid {os.geteuid()}, {caps})".encode("ascii"))
        return 1
    keeper = Keeper(sock, plan)
    keeper.holds_limits = keeper.hold_limits()
    sock.send(b"ready")
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    # What the keeper has made so far (this program, its plan) lives as long as it does: the collector's full
    # passes need not walk it again at every hand (they were about 4 % of a keeper's CPU in a tournament)
    gc.freeze()
    keeper.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())

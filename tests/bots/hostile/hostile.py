#!/usr/bin/env python3
"""A bot that plays like ``drawdiscard`` but first tries one attack on the referee or the other seats.

``python tests/bots/hostile/hostile.py ATTACK [ARG]``.  At its first question of the match (a per-hand bot: of
each hand) it runs the attack and writes what it managed to one line on stderr, ``HOSTILE {json}``, which the
sandbox tests read from the seat's stderr file.  Then it plays on, legally, so that a failed attack costs the
match nothing.  Attacks:

* ``spy``: find other processes in /proc and read their stdin (another seat's private ``/mo`` lines);
* ``poison``: write ``/pass`` into other processes' stdout (to give innocent seats ``unasked`` faults);
* ``secrets``: look for the log, the store and the seed: the working folder and its parents, /tmp, HOME,
  ``/proc/<ppid>/fd``, ``/proc/<ppid>/cmdline`` and every visible process's command line and environment;
* ``connect PORT``: open a TCP connection to 127.0.0.1:PORT;
* ``allocate``: allocate and touch 8 GB;
* ``forkbomb N``: start up to N processes (bounded, so a failed limit cannot take a shared machine down);
* ``daemon MARKER``: leave a ``setsid`` daemon behind (a sleeping process whose command line holds MARKER);
* ``sleep MARKER``: hang at the first question (for the tests that kill the referee);
* ``procs``: every /proc entry of every other process it sees (environ, cmdline, maps, mem, fd targets and their
  contents, status) and ``ptrace`` attach to each;
* ``collude TAG``: two seats running it try to find each other: a file in /dev/shm, /tmp, HOME and /var/tmp, an
  abstract unix socket, the other seats' scratch folders (``/tmp/mjref-seat*``), a System V message queue; each
  reports which of the other's marks it found;
* ``boxargs``: reads the box's own command line (``/proc/1/cmdline``, bubblewrap's argv), follows every path it
  names (the covered log and stderr folders included), watches them with inotify while the match runs, and looks
  for the seed in all of it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import re
import socket
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from referee.game.types import PASS, Event  # noqa: E402
from referee.game.view import SeatView, new_view  # noqa: E402
from wrappers.codec import Ask, Start, format_answer, parse_server_line  # noqa: E402

ATTACK = sys.argv[1] if len(sys.argv) > 1 else "none"
ARG = sys.argv[2] if len(sys.argv) > 2 else ""
SEED = re.compile(rb'(?:"seed"\s*:\s*|--seed[ =\x00]|seed)(\d{3,})')
INTERESTING = (".jsonl", ".db", ".sqlite", ".sqlite3", ".stderr", "-wal")


def report(**found: object) -> None:
    sys.stderr.write("HOSTILE " + json.dumps(found) + "\n")
    sys.stderr.flush()


def other_pids() -> list[int]:
    me = os.getpid()
    return sorted(int(d) for d in os.listdir("/proc") if d.isdigit() and int(d) != me)


def spy() -> None:
    visible = other_pids()
    opened = []
    for pid in visible:
        try:
            fd = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            data = os.read(fd, 4096)
        except OSError:
            data = b""
        os.close(fd)
        opened.append({"pid": pid, "read": data.decode("ascii", "replace")[:200]})
    report(attack="spy", visible=visible, opened=opened)


def poison() -> None:
    visible = other_pids()
    written = []
    for pid in visible:
        try:
            fd = os.open(f"/proc/{pid}/fd/1", os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            os.write(fd, b"/pass\n")
            written.append(pid)
        except OSError:
            pass
        os.close(fd)
    report(attack="poison", visible=visible, written=written)


def _read(path: str, limit: int = 1 << 20) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read(limit)
    except OSError:
        return None


def secrets() -> None:
    found: list[str] = []  # readable files that look like a log, a store or a stderr file
    seeds: set[str] = set()
    listed: list[str] = []
    folders = [os.getcwd(), os.environ.get("HOME", ""), "/tmp", "/var/tmp", "/dev/shm"]
    p = Path(os.getcwd())
    folders += [str(q) for q in p.parents]
    budget = 5000
    seen: set[str] = set()
    for top in folders:
        if not top or top in seen:
            continue
        seen.add(top)
        for root, dirs, files in os.walk(top):
            depth = root[len(top):].count("/")
            if depth >= 3 or root.startswith(("/proc", "/sys", "/usr", "/dev/", "/etc")):
                dirs[:] = []
            for name in files:
                budget -= 1
                if budget < 0:
                    break
                path = os.path.join(root, name)
                if name.endswith(INTERESTING) or "mjref" in path:
                    listed.append(path)
                    data = _read(path)
                    if data is not None:
                        found.append(path)
                        seeds.update(m.decode() for m in SEED.findall(data))
    ppid = os.getppid()
    cmdlines = {}
    for pid in [ppid, *other_pids()]:
        for what in ("cmdline", "environ"):
            data = _read(f"/proc/{pid}/{what}")
            if data:
                seeds.update(m.decode() for m in SEED.findall(data))
                if what == "cmdline":
                    cmdlines[pid] = data.replace(b"\0", b" ").decode("utf-8", "replace")[:300]
    fds = []
    try:
        for fd in os.listdir(f"/proc/{ppid}/fd"):
            target = os.readlink(f"/proc/{ppid}/fd/{fd}")
            fds.append(target)
            data = _read(f"/proc/{ppid}/fd/{fd}")
            if data:
                found.append(f"/proc/{ppid}/fd/{fd}")
                seeds.update(m.decode() for m in SEED.findall(data))
    except OSError:
        pass
    report(attack="secrets", cwd=os.getcwd(), ppid=ppid, listed=listed, read=found, seeds=sorted(seeds),
           cmdlines=cmdlines, parent_fds=fds)


def connect() -> None:
    try:
        with socket.create_connection(("127.0.0.1", int(ARG)), timeout=2) as s:
            s.sendall(b"hello from a bot\n")
        report(attack="connect", connected=True)
    except OSError as exc:
        report(attack="connect", connected=False, error=str(exc))


def allocate() -> None:
    block = bytearray(8 << 30)  # a sandboxed bot dies here (MemoryError), which is a fault of its own
    for i in range(0, len(block), 4096):
        block[i] = 1
    report(attack="allocate", allocated=True)


def forkbomb() -> None:
    children = 0
    error = None
    for _ in range(int(ARG or 64)):
        try:
            pid = os.fork()
        except OSError as exc:
            error = str(exc)
            break
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        children += 1
    report(attack="forkbomb", children=children, error=error)


def daemon() -> None:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for fd in (0, 1, 2):
                os.close(fd)
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", ARG])
        os._exit(0)
    os.wait()
    report(attack="daemon", started=True)


def procs() -> None:
    me = os.getpid()
    read: dict[str, int] = {}  # "/proc/<pid>/<what>" -> bytes read
    seeds: set[str] = set()
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    traced = []
    for pid in other_pids():
        for what in ("environ", "cmdline", "maps", "status", "stack", "syscall", "io", "auxv", "mountinfo"):
            data = _read(f"/proc/{pid}/{what}")
            if data:
                read[f"/proc/{pid}/{what}"] = len(data)
                seeds.update(m.decode() for m in SEED.findall(data))
        try:
            maps = Path(f"/proc/{pid}/maps").read_text()
            with open(f"/proc/{pid}/mem", "rb") as mem:
                for line in maps.splitlines()[:50]:
                    lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
                    try:
                        mem.seek(lo)
                        chunk = mem.read(min(hi - lo, 1 << 20))
                    except OSError:
                        continue
                    read[f"/proc/{pid}/mem"] = read.get(f"/proc/{pid}/mem", 0) + len(chunk)
                    seeds.update(m.decode() for m in SEED.findall(chunk))
        except OSError:
            pass
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                data = _read(f"/proc/{pid}/fd/{fd}", 65536)
                if data:
                    read[f"/proc/{pid}/fd/{fd}"] = len(data)
        except OSError:
            pass
        if pid != me and libc.ptrace(16, pid, None, None) == 0:  # PTRACE_ATTACH
            traced.append(pid)
            libc.ptrace(17, pid, None, None)  # PTRACE_DETACH
    report(attack="procs", me=me, visible=other_pids(), read=read, seeds=sorted(seeds), traced=traced)


def collude(position: int) -> None:
    tag = f"mjref-collude-{ARG}"
    mark = f"{tag}-{position}"
    places = ["/dev/shm", "/tmp", "/var/tmp", os.environ.get("HOME", "/tmp")]
    for folder in places:
        try:
            Path(folder, mark).write_text(str(position))
        except OSError:
            pass
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind("\0" + mark)
        server.listen()
    except OSError:
        pass
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    queue = libc.msgget(0x6D6A0000 + position, 0o1666)  # IPC_CREAT | 0666
    found: list[str] = []
    deadline = time.monotonic() + 1.5  # both seats are at their first question by then
    while time.monotonic() < deadline and not found:
        for other in range(1, 5):
            if other == position:
                continue
            theirs = f"{tag}-{other}"
            for folder in places:
                if Path(folder, theirs).exists():
                    found.append(f"file {folder}/{theirs}")
            for scratch in Path("/tmp").glob("mjref-seat*"):
                if (scratch / theirs).exists() or scratch != Path(os.environ.get("HOME", "")):
                    found.append(f"scratch {scratch}")
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                try:
                    s.connect("\0" + theirs)
                    found.append(f"socket {theirs}")
                except OSError:
                    pass
            if libc.msgget(0x6D6A0000 + other, 0o666) >= 0:
                found.append(f"msg queue {other}")
        time.sleep(0.1)
    server.close()
    if queue >= 0:
        libc.msgctl(queue, 0, None)  # IPC_RMID
    report(attack="collude", position=position, found=sorted(set(found)))


def boxargs() -> None:
    data = _read("/proc/1/cmdline") or b""
    args = [a.decode("utf-8", "replace") for a in data.split(b"\0") if a]
    paths = sorted({a for a in args if a.startswith("/") and a not in ("/", "/tmp", "/proc", "/dev")})
    seeds = {m.decode() for m in SEED.findall(data)}
    # what the box covers: ``--tmpfs FOLDER`` (but /tmp) and ``--ro-bind /dev/null FILE``
    covered = sorted({b for a, b in zip(args, args[1:]) if (a == "--tmpfs" and b != "/tmp") or a == "/dev/null"})
    readable: list[str] = []  # files that look like a log, a store or a stderr file, read
    for p in paths:
        if p.startswith(("/usr", "/bin", "/sbin", "/lib", "/etc", "/opt")):
            continue
        names = []
        if os.path.isdir(p):
            try:
                names = [os.path.join(p, n) for n in os.listdir(p)]
            except OSError:
                pass
        for q in [p, *names]:
            if os.path.isfile(q) and q.endswith(INTERESTING):
                got = _read(q)
                if got:
                    readable.append(q)
                    seeds.update(m.decode() for m in SEED.findall(got))
    events = 0
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    ino = libc.inotify_init1(os.O_NONBLOCK)
    watched = []
    if ino >= 0:
        for p in covered:
            if libc.inotify_add_watch(ino, p.encode(), 0xFFF) >= 0:
                watched.append(p)
        time.sleep(1.0)  # the other seats play meanwhile: a visible log would change
        try:
            events = len(os.read(ino, 65536))
        except OSError:
            events = 0
        os.close(ino)
    report(attack="boxargs", paths=paths, covered=covered, readable=readable, seeds=sorted(seeds), watched=watched,
           event_bytes=events, inotify=ino >= 0)


ATTACKS = {"spy": spy, "poison": poison, "secrets": secrets, "connect": connect, "allocate": allocate,
           "forkbomb": forkbomb, "daemon": daemon, "procs": procs, "boxargs": boxargs}


def out(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def answer(view: SeatView, ask: str) -> str:
    if ask == "hu":
        return "/hu"
    if ask == "throw":
        if view.last_draw is not None and view.last_draw in view.hand:
            return f"/throw {view.last_draw}"
        return format_answer(view.legal(ask)[-1])
    return format_answer(PASS)


def main() -> int:
    view = new_view(1)
    attacked = False
    for raw in sys.stdin:
        msg = parse_server_line(raw.rstrip("\n"), seat=view.position)
        if isinstance(msg, Start):
            view = new_view(msg.position)
            continue
        if isinstance(msg, Event):
            view.apply(msg)
            if msg.kind == "exit":
                return 0
            continue
        assert isinstance(msg, Ask)
        if not attacked:
            attacked = True
            if ATTACK == "sleep":
                time.sleep(600)
            if ATTACK == "collude":
                collude(view.position)
            elif ATTACK in ATTACKS:
                ATTACKS[ATTACK]()
        out(answer(view, msg.kind))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""One runner per results store: an exclusive lock on a file beside the store.

Two runners writing one store would each play every match and overwrite each other's logs.  So whoever writes a
store (``mjref tournament``, :func:`tournaments.runner.plan` and :func:`~tournaments.runner.execute`) first takes
``flock(LOCK_EX | LOCK_NB)`` on ``<store>.lock`` and writes who it is into the file (pid, host, since when).  A
second runner fails at once with :class:`StoreBusy`, naming the holder.  The kernel drops the lock when its holder
dies, however it dies (``kill -9`` included), so a lock left by a killed runner is simply taken over; the file
still names the dead runner, and :attr:`StoreLock.note` says so ("took over from pid 123, which is gone").

The lock file is never deleted (deleting it while another runner waits on it would let two runners hold locks on
two different files); a runner that ends cleanly empties it.  ``flock`` on NFS is emulated with POSIX locks that do
work between machines on Linux; on other network file systems, run one runner per store by hand.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from referee.errors import StoreError


class StoreBusy(StoreError):
    """Another runner holds the store's lock; the message names it (pid, host, since when)."""


def lock_path(store_path: Path) -> Path:
    return store_path.with_name(store_path.name + ".lock")


def _holder_text(info: dict[str, Any]) -> str:
    parts = [f"pid {info.get('pid', '?')}"]
    if info.get("host"):
        parts.append(f"on {info['host']}")
    if info.get("since"):
        parts.append(f"since {info['since']}")
    return " ".join(parts)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class StoreLock:
    """``with StoreLock(store_path) as lock:`` holds the store for this process; raises :class:`StoreBusy`."""

    def __init__(self, store_path: Path) -> None:
        self.store_path = store_path
        self.path = lock_path(store_path)
        self.note: str | None = None
        self._fd: int | None = None

    def _read(self, fd: int) -> dict[str, Any]:
        os.lseek(fd, 0, os.SEEK_SET)
        raw = os.read(fd, 4096)
        try:
            info = json.loads(raw.decode("utf-8")) if raw.strip() else {}
        except (UnicodeDecodeError, json.JSONDecodeError):
            return {"pid": "?", "unreadable": True}
        return info if isinstance(info, dict) else {}

    def acquire(self) -> StoreLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot open the store's lock file ({exc.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            info = self._read(fd)
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise StoreBusy(f"{self.store_path}: in use by another runner ({_holder_text(info)}); wait for it "
                                f"to finish or stop it (one runner per store)") from None
            raise StoreError(f"{self.path}: cannot lock the store ({exc.strerror})") from None
        previous = self._read(fd)
        if previous.get("pid") not in (None, os.getpid()):
            host = socket.gethostname()
            pid = previous.get("pid")
            if previous.get("host") == host and isinstance(pid, int) and not _alive(pid):
                why = "which is gone"
            else:
                why = "which no longer holds it"
            self.note = f"took over the lock of {self.store_path} from {_holder_text(previous)}, {why}"
        me = {"pid": os.getpid(), "host": socket.gethostname(),
              "since": datetime.now(UTC).isoformat(timespec="seconds")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(me) + "\n").encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)  # a clean end leaves no holder behind
        finally:
            os.close(fd)  # closing drops the flock

    def __enter__(self) -> StoreLock:
        return self.acquire()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()


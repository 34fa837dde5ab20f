"""What a process bot *is*, as file hashes: so that a resumed tournament never mixes two versions of a bot.

A bot's identity is a mapping from file to SHA-256:

* ``identity = "files"`` (the default): the executable ``cmd[0]`` resolves to, and every later argument of ``cmd``
  that names an existing file (relative to ``cwd``): ``python3 bot.py`` is ``python3`` *and* ``bot.py``;
* ``identity = "folder"``: that, plus every file under ``cwd`` (recursively), except what :data:`IGNORE` or the
  bot's ``identity_ignore`` patterns name (matched against each path component and the relative path, like
  ``.gitignore`` globs without negation), within :data:`MAX_FILES` files and :data:`MAX_BYTES` bytes.  For bots
  made of many files: a Python package run with ``-m``, a data file the bot reads.

Paths under ``cwd`` are keyed relative to it (``bot.py``, ``lib/model.bin``), others absolute.  Floor 2: it reads
files and nothing else; the tournament runner stores the mapping and compares it on resume.
"""

from __future__ import annotations

import hashlib
import os
import time
from fnmatch import fnmatch
from pathlib import Path

IGNORE = (
    ".git", ".hg", ".svn", "__pycache__", "*.pyc", "*.pyo", ".venv", "venv", "node_modules", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".DS_Store", "*.log", "logs", "*.stderr", "*.jsonl", "*.part", "*-logs",
    "*.sqlite", "*.sqlite-wal", "*.sqlite-shm", "*.lock", "*.html",
)
"""Never part of a folder identity: version control, caches, and what a tournament writes (logs, stores, pages)."""

MAX_FILES = 10_000
MAX_BYTES = 512 * 1024 * 1024


class IdentityError(ValueError):
    """A folder too large to hash; the message says how to narrow it."""


# SHA-256 of files already hashed by this process, by what would change if the file did: a match logs its bots'
# executables (an interpreter: 7 MB, about 7 ms each) and a tournament hashes them again for its identity, so each was
# hashed anew about ten times per match.  Kept only while the file's identity (device, inode, size, modification
# and change times) is as it was during the read; the change time cannot be set back by any program.  A file
# changed within the last ``_SETTLED_NS`` is not kept (git's "racy clean" rule): on a file system whose clock is
# coarse, a second write in the same tick would leave all five as they were.
_HASHED: dict[tuple[int, int, int, int, int], str] = {}
_HASHED_MAX = 4096  # files: a league's logs pass through here too; past that the cache starts again
_SETTLED_NS = 3_000_000_000


def _stamp(st: os.stat_result) -> tuple[int, int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def file_sha256(path: Path) -> str:
    with open(path, "rb") as f:
        before = _stamp(os.fstat(f.fileno()))
        known = _HASHED.get(before)
        if known is not None:
            return known
        h = hashlib.sha256()
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
        digest = h.hexdigest()
        settled = time.time_ns() - max(before[3], before[4]) > _SETTLED_NS
        if settled and _stamp(os.fstat(f.fileno())) == before:  # not written meanwhile
            if len(_HASHED) >= _HASHED_MAX:
                _HASHED.clear()
            _HASHED[before] = digest
    return digest


def _key(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return str(path)


def _ignored(rel: str, name: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch(name, p) or fnmatch(rel, p) for p in patterns)


def command_files(cmd: tuple[str, ...], cwd: Path, executable: str | None) -> list[Path]:
    """The executable and the arguments of ``cmd`` that name existing files (not folders, not options)."""
    out: list[Path] = []
    if executable is not None:
        out.append(Path(executable).resolve())
    for arg in cmd[1:]:
        if not arg or arg.startswith("-"):
            continue
        p = Path(arg) if Path(arg).is_absolute() else cwd / arg
        try:
            if p.is_file():
                out.append(p.resolve())
        except OSError:
            continue
    return out


def folder_files(cwd: Path, ignore: tuple[str, ...] = ()) -> list[Path]:
    """Every file under ``cwd`` but the ignored, in a stable order; :class:`IdentityError` past the limits."""
    patterns = IGNORE + tuple(ignore)
    out: list[Path] = []
    total = 0
    for root, dirs, files in os.walk(cwd):
        base = Path(root)
        rel_root = _key(base, cwd)
        dirs[:] = sorted(d for d in dirs
                         if not _ignored(d if rel_root == "." else f"{rel_root}/{d}", d, patterns))
        for name in sorted(files):
            p = base / name
            rel = _key(p, cwd)
            if _ignored(rel, name, patterns) or not p.is_file():
                continue
            out.append(p)
            total += p.stat().st_size
            if len(out) > MAX_FILES or total > MAX_BYTES:
                raise IdentityError(
                    f"{cwd}: more than {MAX_FILES} files or {MAX_BYTES >> 20} MiB to hash for identity = \"folder\"; "
                    f"name what to leave out in identity_ignore, or use identity = \"files\"")
    return out


def bot_identity(cmd: tuple[str, ...], cwd: Path, executable: str | None, mode: str = "files",
                 ignore: tuple[str, ...] = ()) -> dict[str, str]:
    """File → SHA-256 of everything that makes the bot (see the module docstring)."""
    paths = command_files(cmd, cwd, executable)
    if mode == "folder":
        paths += folder_files(cwd, ignore)
    out: dict[str, str] = {}
    base = cwd.resolve()
    for p in paths:
        key = _key(p.resolve(), base)
        if key in out:
            continue
        try:
            out[key] = file_sha256(p)
        except OSError as exc:
            out[key] = f"unreadable: {exc.strerror}"
    return dict(sorted(out.items()))


def short_identity(files: dict[str, str]) -> str:
    """A short fingerprint of a whole identity (12 hex digits), for tables."""
    h = hashlib.sha256()
    for key, digest in sorted(files.items()):
        h.update(f"{key}\0{digest}\n".encode())
    return h.hexdigest()[:12]

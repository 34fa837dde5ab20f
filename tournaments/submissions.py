"""Bots submitted to a league: authors and their tokens, safe unpacking, the bot file, and the register of entries.

A submission is an archive (tar, tar.gz or zip; ``mjref submit`` packs a folder into a tar.gz) holding a bot file,
``bot.toml``, at its top (or in its single top-level folder).  It is other people's code and other people's
archive, so it is unpacked by :func:`unpack` member by member, never by ``extractall``: no absolute path, no
``..``, no link that leads out of its folder (hard links and device files not at all), at most ``MAX_FILES``
files and ``MAX_UNPACKED`` bytes; anything else refuses the whole submission with one line saying why.

The bot file may say only how the bot runs (``cmd``, ``env``, ``keep_alive``, ``extensions``): its box, limits,
timeout and folder are the league's, so a submitted bot cannot ask for the network, a writable folder or no box.

The register (``<submissions>/entries.sqlite``, 0600) holds the authors (a name and the SHA-256 of their token:
the token itself is printed once, by ``mjref league add-author``) and the entries: an entry is one version of one
author's bot, named ``BOT`` for its first version and ``BOT.vN`` for the N-th, so a new version is a new entrant
in the league while the old one's history stays under its own name.  An entry is ``active``, ``paused``,
``retired`` or ``refused`` (its check failed: it never plays); its check report is kept.
"""

from __future__ import annotations

import bz2
import hashlib
import io
import json
import lzma
import os
import re
import shutil
import sqlite3
import stat
import tarfile
import zipfile
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from referee.errors import InputError
from referee.tokens import new_token
from referee.userfiles import read_toml
from wrappers.codec import cut
from wrappers.identity import command_files
from wrappers.spec import BotSpec, SpecError, spec_from_mapping

MAX_ARCHIVE = 20 << 20  # bytes of a submitted archive
MAX_UNPACKED = 64 << 20  # bytes of its files once unpacked
MAX_FILES = 500  # files, folders and links in it
BOT_FILE = "bot.toml"
ALLOWED_FIELDS = ("cmd", "env", "keep_alive", "extensions")
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,39}")  # a submitted bot's name (versions add .vN)
STATUSES = ("checking", "active", "paused", "retired", "refused")
# What the first word of a submission's cmd may be besides a file of its own: these interpreters, by their bare
# names, found on the league machine's PATH (docs/league.md)
INTERPRETERS = ("python3", "python", "pypy3", "node", "java", "ruby", "perl", "lua")


class SubmissionError(InputError):
    """A submission refused (an unsafe archive, a bad bot file, a wrong token); the message says why."""


# ------------------------------------------------------------------------------------------------ unpacking


def _quoted(text: object, limit: int = 120) -> str:
    """A name from the archive in a message: quoted and escaped once (``repr``: a control character shows as
    ``\\x1b``, never as ``\\\\x1b``), cut to ``limit`` characters."""
    s = str(text)
    return repr(s if len(s) <= limit else s[:limit] + "…")


def _member_path(name: str) -> PurePosixPath:
    p = PurePosixPath(name.replace("\\", "/"))
    if p.is_absolute() or name.startswith("/"):
        raise SubmissionError(f"archive member {_quoted(name)}: an absolute path")
    if any(part == ".." for part in p.parts):
        raise SubmissionError(f"archive member {_quoted(name)}: a path out of its folder ('..')")
    parts = [x for x in p.parts if x not in ("", ".")]
    if not parts:
        raise SubmissionError(f"archive member {_quoted(name)}: no name")
    if any("\0" in x for x in parts):
        raise SubmissionError("an archive member's name holds a NUL character")
    return PurePosixPath(*parts)


def _link_stays_inside(member: PurePosixPath, target: str) -> None:
    """The target's own text: no absolute path, no ``..`` above the folder (a chain of links, each harmless by its
    text, is caught once unpacked: :func:`check_inside`)."""
    if not target:
        raise SubmissionError(f"archive member {_quoted(member)}: a link to nothing (an empty target)")
    if "\0" in target:
        raise SubmissionError(f"archive member {_quoted(member)}: a link target holds a NUL character")
    t = PurePosixPath(target)
    if t.is_absolute():
        raise SubmissionError(f"archive member {_quoted(member)}: a link out of its folder (to {_quoted(target)})")
    depth = len(member.parts) - 1
    for part in t.parts:
        depth += -1 if part == ".." else (0 if part == "." else 1)
        if depth < 0:
            raise SubmissionError(f"archive member {_quoted(member)}: a link out of its folder (to {_quoted(target)})")


# What the archive libraries raise on damaged or hostile data (a truncated stream, a bad CRC, an encrypted or
# unsupported zip member, a name that is not UTF-8): turned into one line at the unpack boundary, and only there.
_ARCHIVE_FAULTS = (tarfile.TarError, zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, OSError, ValueError,
                   KeyError, RuntimeError, NotImplementedError)
# A tar's bytes once decompressed: its files and, for each member, its headers (a long name's or pax header's data).
MAX_TAR = MAX_UNPACKED + (MAX_FILES + 2) * 8192


def _why(exc: BaseException) -> str:
    return cut(getattr(exc, "strerror", None) or str(exc) or type(exc).__name__)


def _inflate(data: bytes) -> bytes:
    """A compressed tar's bytes, decompressed no further than :data:`MAX_TAR`: ``tarfile`` reads a member's header
    data (a pax header's, a long name's) whole into memory, so a 300 KB tar.gz claiming a 300 MB header took 600 MB
    before any limit of ours was checked."""
    if data[:2] == b"\x1f\x8b":
        new: Any = lambda: zlib.decompressobj(wbits=31)  # noqa: E731
    elif data[:3] == b"BZh":
        new = bz2.BZ2Decompressor
    elif data[:6] == b"\xfd7zXZ\x00":
        new = lzma.LZMADecompressor
    else:
        return data
    out = bytearray()
    rest = data
    while rest:  # a stream may hold several members one after another (gzip: concatenated, padded with zeros)
        d = new()
        out += d.decompress(rest, MAX_TAR + 1 - len(out))
        if len(out) > MAX_TAR:
            raise SubmissionError(f"the archive unpacks to more than {MAX_UNPACKED >> 20} MB")
        if not d.eof:
            raise SubmissionError("not a tar, tar.gz or zip archive (its compressed data end early)")
        rest = d.unused_data.lstrip(b"\0")
    return bytes(out)


@dataclass(frozen=True, slots=True)
class _Member:
    path: PurePosixPath
    kind: str  # "file", "dir", "link"
    size: int
    mode: int
    link: str = ""
    source: Any = None  # its TarInfo or ZipInfo: read by it, never looked up again by a name (a\b, a/./b)


def _tar_members(data: bytes) -> tuple[list[_Member], Any]:
    tar = tarfile.open(fileobj=io.BytesIO(_inflate(data)), mode="r:")
    out = []
    for m in tar:
        path = _member_path(m.name)
        if m.isfile():
            out.append(_Member(path, "file", m.size, m.mode, source=m))
        elif m.isdir():
            out.append(_Member(path, "dir", 0, m.mode))
        elif m.issym():
            out.append(_Member(path, "link", 0, 0o777, m.linkname))
        elif m.islnk():
            raise SubmissionError(f"archive member {_quoted(m.name)}: a hard link (not allowed)")
        else:
            raise SubmissionError(f"archive member {_quoted(m.name)}: a device, FIFO or other special file")
        if len(out) > MAX_FILES:
            raise SubmissionError(f"more than {MAX_FILES} files in the archive")

    def read(member: _Member) -> bytes:
        f = tar.extractfile(member.source)
        if f is None:
            raise SubmissionError(f"archive member {_quoted(member.path)}: cannot be read")
        return f.read(MAX_UNPACKED + 1)

    return out, read


def _zip_members(data: bytes) -> tuple[list[_Member], Any]:
    z = zipfile.ZipFile(io.BytesIO(data))
    out = []
    for info in z.infolist():
        path = _member_path(info.filename)
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            with z.open(info) as f:  # read no more than a target may hold: z.read() inflated all of it first
                target = f.read(4097)
            if len(target) > 4096:
                raise SubmissionError(f"archive member {_quoted(info.filename)}: a link target over 4096 bytes")
            out.append(_Member(path, "link", 0, 0o777, target.decode("utf-8", "replace")))
        elif info.is_dir():
            out.append(_Member(path, "dir", 0, 0o755))
        elif stat.S_IFMT(mode) and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):  # no type bits: a file
            raise SubmissionError(f"archive member {_quoted(info.filename)}: a device, FIFO or other special file")
        else:
            out.append(_Member(path, "file", info.file_size, mode or 0o644, source=info))
        if len(out) > MAX_FILES:
            raise SubmissionError(f"more than {MAX_FILES} files in the archive")

    def read(member: _Member) -> bytes:
        with z.open(member.source) as f:
            return f.read(MAX_UNPACKED + 1)

    return out, read


def _write(dest: Path, m: _Member, content: bytes) -> None:
    target = dest.joinpath(*m.path.parts)
    target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    if m.kind == "dir":
        target.mkdir(mode=0o755, exist_ok=True)
    elif m.kind == "link":
        os.symlink(m.link, target)
    else:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o755 if m.mode & 0o111 else 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(content)


def unpack(data: bytes, dest: Path) -> None:
    """Unpack a submitted archive into the new folder ``dest`` (refusing it whole, with the reason, if unsafe)."""
    if len(data) > MAX_ARCHIVE:
        raise SubmissionError(f"the archive is larger than {MAX_ARCHIVE >> 20} MB")
    try:
        if data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
            members, read = _zip_members(data)
        else:
            members, read = _tar_members(data)
    except SubmissionError:
        raise
    except _ARCHIVE_FAULTS as exc:
        raise SubmissionError(f"not a tar, tar.gz or zip archive ({_why(exc)})") from None
    total = sum(m.size for m in members)
    if total > MAX_UNPACKED:
        raise SubmissionError(f"the archive unpacks to more than {MAX_UNPACKED >> 20} MB")
    kinds: dict[PurePosixPath, str] = {}
    for m in members:
        if m.path in kinds:
            raise SubmissionError(f"archive member {_quoted(m.path)} appears twice")
        kinds[m.path] = m.kind
        if m.kind == "link":
            _link_stays_inside(m.path, m.link)
    for m in members:  # nothing is written through a link, nor under a file
        for parent in m.path.parents:
            if kinds.get(parent) == "link":
                raise SubmissionError(f"archive member {_quoted(m.path)}: inside a link")
            if kinds.get(parent) == "file":
                raise SubmissionError(f"archive member {_quoted(m.path)}: under {_quoted(parent)}, which is a file")
    dest.mkdir(mode=0o755, parents=False)
    written = 0
    try:
        for m in sorted(members, key=lambda m: len(m.path.parts)):
            content = b""
            if m.kind == "file":
                try:
                    content = read(m)
                except SubmissionError:
                    raise
                except _ARCHIVE_FAULTS as exc:
                    raise SubmissionError(f"archive member {_quoted(m.path)}: cannot be read ({_why(exc)})") from None
                written += len(content)
                if written > MAX_UNPACKED:
                    raise SubmissionError(f"the archive unpacks to more than {MAX_UNPACKED >> 20} MB")
            try:
                _write(dest, m, content)
            except (OSError, ValueError) as exc:  # a name too long for the system, not encodable, a full disk
                raise SubmissionError(f"archive member {_quoted(m.path)}: cannot be unpacked ({_why(exc)})") from None
        check_inside(dest)
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise


def check_inside(folder: Path) -> None:
    """Refuse a submission's folder that holds a link leading out of it.  Each link's own text is checked when it
    is unpacked, but a chain is not seen there: ``l2 -> .``, ``l1 -> l2/..``, ``s -> l1/league.sqlite`` each stay
    inside by their text, and together reach the league's store (hashed into the entrant's identity, it changed
    with every match and no restart was let through).  So every link is resolved as the system would."""
    root = os.path.realpath(folder)
    for dirpath, dirs, files in os.walk(root):  # links are not followed: a link to a folder is listed in dirs
        for name in dirs + files:
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                real = os.path.normpath(os.path.realpath(path))  # a loop is left unresolved: normpath settles it
                if real != root and not real.startswith(root + os.sep):
                    raise SubmissionError(f"{_quoted(os.path.relpath(path, root))}: a link out of the submission's "
                                          f"folder (to {_quoted(os.readlink(path))}, through other links)")


def bot_spec(folder: Path, entrant: str) -> BotSpec:
    """The spec of an unpacked submission: its ``bot.toml`` (at the top, or in its single top-level folder), with
    only the fields a submission may set; it runs in the folder that holds ``bot.toml``.  What makes its identity
    stays in its folder: no link out of it (:func:`check_inside`), no argument of ``cmd`` naming a file outside."""
    if not folder.is_dir():
        raise SubmissionError(f"its folder {str(folder)!r} is missing")
    check_inside(folder)
    top = folder / BOT_FILE
    if not top.is_file():
        inner = [p for p in folder.iterdir() if not p.name.startswith(".")]
        if len(inner) == 1 and inner[0].is_dir() and not inner[0].is_symlink() and (inner[0] / BOT_FILE).is_file():
            top = inner[0] / BOT_FILE
        else:
            raise SubmissionError(f"no {BOT_FILE} at the top of the submission (docs/league.md)")
    if top.is_symlink():
        raise SubmissionError(f"{BOT_FILE} is a link")
    data = read_toml(top, SubmissionError)
    extra = sorted(set(data) - set(ALLOWED_FIELDS))
    if extra:
        raise SubmissionError(f"{BOT_FILE}: {extra[0]}: not a field a submitted bot may set (only "
                              f"{', '.join(ALLOWED_FIELDS)}: the league sets its box, limits and timeout)")
    if "cmd" not in data:
        raise SubmissionError(f"{BOT_FILE}: cmd: give the command that runs the bot, e.g. cmd = [\"python3\", "
                              "\"bot.py\"]")
    try:
        spec = spec_from_mapping({**data, "name": entrant, "cwd": ".", "identity": "folder"}, BOT_FILE,
                                 top.parent)
    except SpecError as exc:
        raise SubmissionError(str(exc)) from None
    root = os.path.realpath(folder)
    check_program(spec.cmd[0] if spec.cmd else "", Path(spec.cwd or top.parent), root)
    for path in command_files(spec.cmd or (), Path(spec.cwd or top.parent), None):  # the files identity hashes
        if not str(path).startswith(root + os.sep):
            raise SubmissionError(f"{BOT_FILE}: cmd: {_quoted(path)} is a file outside the submission (only the "
                                  "program, the first word, may be one of the league's interpreters)")
    return spec


def check_program(program: str, cwd: Path, root: str) -> None:
    """Refuse the first word of a submission's ``cmd`` unless it is a file in the submission's folder (``root``,
    resolved; given with a ``/``: ``./bot``, ``bin/bot``) or an interpreter of :data:`INTERPRETERS` by its bare
    name.  Anything else (``/bin/sh``, ``../other/bot``, ``curl``) is a program the league did not agree to run,
    whose bytes the entrant's identity would not hold."""
    if os.sep in program or (os.altsep and os.altsep in program):
        real = os.path.realpath(program if os.path.isabs(program) else cwd / program)
        if real.startswith(root + os.sep):
            return
        where = "a file outside the submission"
    elif program in INTERPRETERS:
        return
    else:
        where = "not an interpreter the league runs"
    raise SubmissionError(f"{BOT_FILE}: cmd: the program {_quoted(program)} is {where}: give a file in the "
                          f"submission's folder (e.g. \"./bot\") or one of {', '.join(INTERPRETERS)} by its name")


# ------------------------------------------------------------------------------------------------ the register


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


@dataclass(frozen=True, slots=True)
class Author:
    name: str
    organiser: bool


@dataclass(frozen=True, slots=True)
class Entry:
    name: str  # the entrant's name in the league: BOT or BOT.vN
    bot: str
    version: int
    author: str
    status: str
    folder: str
    report: dict[str, Any] | None
    created: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "bot": self.bot, "version": self.version, "author": self.author,
                "status": self.status, "created": self.created,
                "check": None if self.report is None else {"ok": self.report.get("ok"),
                                                          "failed": self.report.get("failed")}}


_SCHEMA = """
CREATE TABLE IF NOT EXISTS authors (name TEXT PRIMARY KEY, token_sha256 TEXT NOT NULL UNIQUE,
                                    organiser INTEGER NOT NULL, created TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (name TEXT PRIMARY KEY, bot TEXT NOT NULL, version INTEGER NOT NULL,
                                    author TEXT NOT NULL, status TEXT NOT NULL, folder TEXT NOT NULL,
                                    report TEXT, created TEXT NOT NULL);
"""


class Register:
    """The league's authors and entries (one small SQLite file in the submissions folder)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = folder / "entries.sqlite"
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
        try:
            self.con = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self.con.execute("PRAGMA journal_mode=WAL")
            self.con.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise SubmissionError(f"{path}: not a league's register of entries ({exc})") from None

    def close(self) -> None:
        self.con.close()

    def add_author(self, name: str, *, organiser: bool = False) -> str:
        """A new author (or organiser); returns their token, which is kept only as its SHA-256."""
        if not NAME.fullmatch(name):
            raise SubmissionError(f"author name {_quoted(name)}: use 1-40 letters, digits, '_' or '-', starting "
                                  "with a letter")
        token = new_token()
        try:
            self.con.execute("INSERT INTO authors VALUES (?, ?, ?, ?)",
                             (name, _hash(token), int(organiser), _now()))
        except sqlite3.IntegrityError:
            raise SubmissionError(f"author {_quoted(name)} exists already") from None
        return token

    def author(self, token: str | None) -> Author | None:
        if not token:
            return None
        row = self.con.execute("SELECT name, organiser FROM authors WHERE token_sha256 = ?", (_hash(token),)).fetchone()
        return None if row is None else Author(str(row[0]), bool(row[1]))

    def entries(self) -> list[Entry]:
        return [_entry(r) for r in self.con.execute("SELECT * FROM entries ORDER BY bot, version")]

    def entry(self, name: str) -> Entry | None:
        row = self.con.execute("SELECT * FROM entries WHERE name = ?", (name,)).fetchone()
        return None if row is None else _entry(row)

    def next_version(self, bot: str, author: Author) -> tuple[str, int]:
        """The entrant name and version of ``author``'s next version of ``bot`` (another author's bot: refused)."""
        if not NAME.fullmatch(bot):
            raise SubmissionError(f"bot name {_quoted(bot)}: use 1-40 letters, digits, '_' or '-', starting with "
                                  "a letter")
        row = self.con.execute("SELECT author, MAX(version) FROM entries WHERE bot = ?", (bot,)).fetchone()
        if row[0] is not None and row[0] != author.name:
            raise SubmissionError(f"bot {bot!r} belongs to another author")
        version = int(row[1] or 0) + 1
        return (bot if version == 1 else f"{bot}.v{version}"), version

    def add(self, name: str, bot: str, version: int, author: str, status: str, folder: Path,
            report: dict[str, Any] | None) -> Entry:
        self.con.execute("INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (name, bot, version, author, status, str(folder), json.dumps(report), _now()))
        entry = self.entry(name)
        assert entry is not None
        return entry

    def set_status(self, name: str, status: str, report: dict[str, Any] | None = None) -> None:
        if report is None:
            self.con.execute("UPDATE entries SET status = ? WHERE name = ?", (status, name))
        else:
            self.con.execute("UPDATE entries SET status = ?, report = ? WHERE name = ?",
                             (status, json.dumps(report), name))

    def finish_check(self, name: str, report: dict[str, Any]) -> bool:
        """Keep an entry's check report: a failed check refuses it; a passed one makes it active only if it is still
        being checked (retired or paused meanwhile, it stays so).  Whether it became active."""
        if not report.get("ok"):
            self.set_status(name, "refused", report)
            return False
        cur = self.con.execute("UPDATE entries SET status = 'active', report = ? WHERE name = ? AND status = "
                               "'checking'", (json.dumps(report), name))
        if cur.rowcount:
            return True
        self.con.execute("UPDATE entries SET report = ? WHERE name = ?", (json.dumps(report), name))
        return False

    def interrupted(self) -> None:
        """Entries whose check a stopped league never finished are refused (their authors submit again)."""
        self.con.execute("UPDATE entries SET status = 'refused', report = ? WHERE status = 'checking'",
                         (json.dumps({"ok": False, "failed": [], "error": "the league stopped during the check; "
                                      "submit again"}),))


def _entry(row: Any) -> Entry:
    report = json.loads(row[6]) if row[6] else None
    return Entry(str(row[0]), str(row[1]), int(row[2]), str(row[3]), str(row[4]), str(row[5]), report, str(row[7]))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def pack_folder(folder: Path) -> bytes:
    """A folder as a tar.gz (``mjref submit``): links are packed as links (the league refuses those that lead
    out), the file count and size capped as the league caps them."""
    buf = io.BytesIO()
    count = 0
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for root, dirs, files in os.walk(folder, followlinks=False):
            for name in sorted(dirs) + sorted(files):
                count += 1
                if count > MAX_FILES:
                    raise SubmissionError(f"{folder}: more than {MAX_FILES} files")
                path = Path(root) / name
                tar.add(path, arcname=str(path.relative_to(folder)), recursive=False)
            dirs.sort()
    data = buf.getvalue()
    if len(data) > MAX_ARCHIVE:
        raise SubmissionError(f"{folder}: packed, larger than {MAX_ARCHIVE >> 20} MB")
    return data


__all__ = ["INTERPRETERS", "MAX_FILES", "Author", "Entry", "Register", "SubmissionError", "bot_spec", "check_inside",
           "check_program", "pack_folder", "unpack"]

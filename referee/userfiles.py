"""Reading the files a user hands to mjref: one line that names the file and what is wrong, never a traceback.

Every command reads some file it was given (a tournament or bot TOML file, a wall file, a ``mjref score``
request, a log).  Each of them can be missing, a directory, unreadable, not UTF-8, or crafted to break the parser
(JSON nested 100,000 levels deep makes ``json.loads`` recurse past Python's stack).  This module reads them all the
same way and raises :class:`~referee.errors.InputError` (or the subclass the caller names) with the reason.

It also checks the places a command will write (``--log``, ``--html``, ``--markdown``, ``--report``, ``-o``,
``--store``, ``--stderr``, ``--logs DIR``) before any match starts: an hour of play must not end in "cannot write".
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import tempfile
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO

from referee.errors import InputError

MAX_FILE_BYTES = 64 << 20
"""The largest TOML, JSON or wall file mjref reads (a real one is a few kilobytes): more is a mistake, not input."""

MAX_JSON_DEPTH = 32
"""How deeply a JSON document mjref reads may nest (a log record nests at most five levels, a score request four)."""

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")  # the escape of half a character beyond U+FFFF


class JSONRefused(json.JSONDecodeError):
    """JSON that mjref refuses whether or not it is well formed: nested deeper than it reads, a number of more
    digits than Python converts, half of a surrogate pair.  A ``json.JSONDecodeError``, so that every reader's
    ``except json.JSONDecodeError`` gives its reason; :func:`assignment_value` tells it from text that is not
    JSON."""


def check_depth(text: str, max_depth: int = MAX_JSON_DEPTH) -> None:
    """Raise ``JSONRefused`` (a ``json.JSONDecodeError``) if the JSON ``text`` nests deeper than ``max_depth``.
    Cheap for real input: the brackets are only followed when there are more than ``max_depth`` of them."""
    if text.count("[") + text.count("{") <= max_depth:
        return
    depth = 0
    for m in _BRACKET.finditer(_STRING.sub('""', text)):  # brackets inside strings do not nest
        depth += 1 if m.group() in "[{" else -1
        if depth > max_depth:
            raise JSONRefused(f"nested more than {max_depth} levels deep", text, m.start())


def loads_json(text: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` that refuses documents nested deeper than ``max_depth``, and strings holding half of a
    surrogate pair (``"\\ud800"`` alone: no text, and printing or writing it raised a UnicodeEncodeError), as a
    ``json.JSONDecodeError``."""
    check_depth(text, max_depth)
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # (json's only other: an integer of more digits than Python converts)
        _, pos = _long_number(text)
        raise JSONRefused(f"a number of more than {sys.get_int_max_str_digits()} digits", text, pos) from None
    found = _SURROGATE.search(text) if "\\u" in text else None  # cheap for real input: a pair is rare
    if found is not None and not _is_text(data):
        raise JSONRefused("a string holds half of a surrogate pair, not text", text, found.start())
    return data


def assignment_value(raw: str, what: str) -> Any:
    """The VALUE of an ``OPTION=VALUE`` given on the command line (``--set``, ``--each``): read as JSON where it
    parses (``true``, ``12``, ``"x"``, ``["flower"]``), else the text as given.  JSON that mjref refuses (a number
    of more digits than Python converts, nesting past ``MAX_JSON_DEPTH``) is an ``InputError`` naming ``what``
    (``--set hands``), not a traceback nor text taken in its place."""
    try:
        return loads_json(raw)
    except JSONRefused as exc:
        raise InputError(f"{what}: {exc.msg}") from None
    except json.JSONDecodeError:
        return raw


def _long_number(text: str) -> tuple[int, int]:
    """The line (from 1) and offset of the first run of more digits than Python converts to an integer."""
    found = re.search(f"[0-9]{{{sys.get_int_max_str_digits() + 1},}}", text)
    pos = found.start() if found else 0
    return text.count("\n", 0, pos) + 1, pos


def loads_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads``, with an integer of more digits than Python converts (a ``ValueError`` of its own) given
    as a ``tomllib.TOMLDecodeError`` like any other fault of the text."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise
    except ValueError:
        line, _ = _long_number(text)
        raise tomllib.TOMLDecodeError(
            f"a number of more than {sys.get_int_max_str_digits()} digits (at line {line})") from None


def _is_text(value: Any) -> bool:
    """Every string of the JSON ``value`` (keys too) can be written as UTF-8."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(value, dict):
        return all(_is_text(k) and _is_text(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_is_text(v) for v in value)
    return True


def utf8_reason(data: bytes, exc: UnicodeDecodeError) -> str:
    line = data.count(b"\n", 0, exc.start) + 1
    column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
    return f"line {line}: not UTF-8 text (byte 0x{data[exc.start]:02x} at column {column})"


def read_bytes(path: Path | str, error: type[InputError] = InputError, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of ``path``; ``error`` naming it when it is missing, a directory, not a regular file (a FIFO or
    ``/dev/zero`` would never end), larger than ``max_bytes``, a symlink loop or unreadable."""
    p = Path(path)
    try:
        st = p.stat()
        if stat.S_ISDIR(st.st_mode):
            raise error(f"{p}: is a directory, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise error(f"{p}: is not a regular file")
        if st.st_size > max_bytes:
            raise error(f"{p}: {st.st_size} bytes, more than the {max_bytes >> 20} MiB mjref reads from such a file")
        with p.open("rb") as f:
            return read_limited(f, str(p), error, max_bytes)  # a file that grew while being read is refused too
    except OSError as exc:
        raise error(f"{p}: cannot read ({exc.strerror or exc})") from None


def read_limited(stream: BinaryIO, where: str, error: type[InputError] = InputError,
                 max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """What ``stream`` holds (a file, or standard input: ``mjref score -``), at most ``max_bytes``: ``error`` naming
    ``where`` when there is more (``< /dev/zero`` would never end)."""
    data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise error(f"{where}: more than the {max_bytes >> 20} MiB mjref reads from such a file")
    return data


def read_text(path: Path | str, error: type[InputError] = InputError) -> str:
    """The UTF-8 text of ``path``; ``error`` naming the file (and the line of a byte that is not UTF-8)."""
    return utf8_text(read_bytes(path, error), str(path), error)


def utf8_text(data: bytes, where: str, error: type[InputError] = InputError) -> str:
    """``data`` as UTF-8 text; ``error`` naming ``where`` and the line of a byte that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{where}: {utf8_reason(data, exc)}") from None


def read_toml(path: Path | str, error: type[InputError] = InputError) -> dict[str, Any]:
    """The table of the TOML file ``path``; ``error`` for a file that cannot be read, is not UTF-8 or not TOML."""
    text = read_text(path, error)
    try:
        return loads_toml(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML ({exc})") from None
    except RecursionError:  # tomllib recurses on nested arrays and inline tables
        raise error(f"{path}: not valid TOML (nested too deeply)") from None


def parse_json(text: str, where: str, error: type[InputError] = InputError) -> Any:
    """The JSON document ``text`` read from ``where``; ``error`` with the line and column of a syntax error."""
    try:
        return loads_json(text)
    except json.JSONDecodeError as exc:
        raise error(f"{where}: not valid JSON ({exc.msg}, line {exc.lineno} column {exc.colno})") from None


def create_private(path: Path | str) -> int:
    """A new file at ``path`` for mjref's own output (a log, a bot's stderr), 0600, as a file descriptor: never
    opened through a link and never appended to a file someone else left there (a bot may plant a link in a folder
    it can write to); whatever stands at the path is removed first (``unlink`` removes a link, not its target; a
    FIFO a bot planted goes too) but a character device: only the user can name one (a bot cannot make one), as
    ``--log /dev/null``, and it is written to as it is, as a shell's ``>`` does (removing it, as root, replaced the
    machine's ``/dev/null`` with a file).  A block device is refused before, by ``check_output_file``."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(path, flags, 0o600)
    except FileExistsError:
        if stat.S_ISCHR(os.lstat(path).st_mode):
            return os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NOCTTY)
        os.unlink(path)
        return os.open(path, flags, 0o600)


def page_beside(path: Path, what: str) -> Path:
    """The default output of a command that makes a page of the file ``path`` (a log's viewer, a store's report):
    ``path`` with ``.html`` for its suffix.  A path that names no file (``/``, ``.``, ``..``) has no page beside it:
    an ``InputError`` naming ``what``, the argument."""
    if path.name in ("", ".", ".."):
        raise InputError(f"{what} {path}: is a folder, not a file; give the file (or -o FILE for the page)")
    return path.with_suffix(".html")


FORCE_HINT = "give --force to replace it, or another name"


def check_output_file(path: Path | str, what: str, error: type[InputError] = InputError, *,
                      make_parents: bool = True, private: bool = False, overwrite: bool | None = None) -> None:
    """Refuse, before any work, a file that a command will write but cannot: a directory, a FIFO or socket, a
    parent that is not a folder (or is missing, unless ``make_parents`` lets the command create it), or a place
    it may not write.  ``what`` names the option or field (``--markdown``); the file itself is left as it was.
    ``private``: a folder made for it is 0700 (a log, a store, a bot's stderr: see docs/security.md).

    ``overwrite``: False, the command would replace the file, so an existing one is refused (nothing a user made is
    lost to a second run: ``--force`` says to replace it); True, it may be replaced (``--force``); None, the
    command adds to what the file holds (a results store resumed, a stderr file appended to)."""
    p = Path(path)
    try:
        st = p.stat()
    except FileNotFoundError:
        st = None
    except OSError as exc:  # a symlink loop, a name too long, a parent that is a file
        raise error(f"{what} {p}: cannot write there ({exc.strerror or exc})") from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise error(f"{what} {p}: is a directory; give a file name")
        if stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode) or stat.S_ISBLK(st.st_mode):
            raise error(f"{what} {p}: is not a regular file")  # (a character device, /dev/null, is written to)
        try:
            os.close(os.open(p, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | os.O_NOCTTY))
        except OSError as exc:
            raise error(f"{what} {p}: cannot write ({exc.strerror or exc})") from None
        if overwrite is False:
            raise error(f"{what} {p}: the file exists; {FORCE_HINT}")
        return
    check_output_dir(p.parent, what, error, make=make_parents, naming=p, private=private)
    try:
        os.close(os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as exc:
        raise error(f"{what} {p}: cannot write ({exc.strerror or exc})") from None
    p.unlink(missing_ok=True)


def check_not_same_file(path: Path | str, what: str, others: Iterable[tuple[str, Path | str | None]],
                        error: type[InputError] = InputError) -> None:
    """Refuse an output ``path`` that is the same file as another a command names (an input it reads, or another
    output): writing one would destroy the other, whatever ``--force`` says."""
    p = Path(path)
    for name, other in others:
        if other is None:
            continue
        o = Path(other)
        try:  # (realpath: a symlink loop is no error here; the file checks name it)
            same = os.path.realpath(p) == os.path.realpath(o) or (p.exists() and o.exists() and os.path.samefile(p, o))
        except OSError:
            same = False
        if same:
            raise error(f"{what} {p}: is the same file as {name} {o}; give another name")


def check_output_dir(path: Path | str, what: str, error: type[InputError] = InputError, *, make: bool = True,
                     naming: Path | None = None, private: bool = False) -> None:
    """Refuse a folder a command will write files into: a file in its place, a folder it may not write, or a
    missing one (created when ``make``; 0700 when ``private``).  ``naming``: the file the message is about
    (default: the folder)."""
    d = Path(path) if str(path) else Path(".")
    shown = naming if naming is not None else d
    try:
        if not d.exists() and make:
            d.mkdir(mode=0o700 if private else 0o777, parents=True, exist_ok=True)
        st = d.stat()
    except FileNotFoundError:
        raise error(f"{what} {shown}: the folder {d} does not exist") from None
    except OSError as exc:
        raise error(f"{what} {shown}: cannot create the folder {d} ({exc.strerror or exc})") from None
    if not stat.S_ISDIR(st.st_mode):
        raise error(f"{what} {shown}: {d} is not a folder")
    # A file made and removed, not access(): that answers from the mode bits, and yes to root everywhere (/proc, a
    # read-only mount), where a run would find out only when its results had nowhere to go.
    try:
        fd, probe = tempfile.mkstemp(prefix=".mjref-probe-", dir=d)
    except OSError as exc:
        raise error(f"{what} {shown}: cannot write in the folder {d} ({exc.strerror or exc})") from None
    os.close(fd)
    os.unlink(probe)


__all__ = [
    "FORCE_HINT", "MAX_FILE_BYTES", "MAX_JSON_DEPTH", "check_depth", "check_output_dir", "check_output_file",
    "JSONRefused", "assignment_value", "loads_json",
    "parse_json", "read_bytes", "read_text", "read_toml", "utf8_reason",
]

"""Reading the files a user hands to mjref: one line that names the file and what is wrong, never a traceback.

Every command reads some file it was given (a tournament or bot TOML file, a wall file, a ``mjref score``
request, a log).  Each of them can be missing, a directory, unreadable, not UTF-8, or crafted to break the parser
(JSON nested 100,000 levels deep makes ``json.loads`` recurse past Python's stack).  This module reads them all the
same way and raises :class:`~referee.errors.InputError` (or the subclass the caller names) with the reason.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from referee.errors import InputError

MAX_JSON_DEPTH = 32
"""How deeply a JSON document mjref reads may nest (a log record nests at most five levels, a score request four)."""

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


def check_depth(text: str, max_depth: int = MAX_JSON_DEPTH) -> None:
    """Raise ``json.JSONDecodeError`` if the JSON ``text`` nests deeper than ``max_depth``.  Cheap for real input:
    the brackets are only followed when there are more than ``max_depth`` of them."""
    if text.count("[") + text.count("{") <= max_depth:
        return
    depth = 0
    for m in _BRACKET.finditer(_STRING.sub('""', text)):  # brackets inside strings do not nest
        depth += 1 if m.group() in "[{" else -1
        if depth > max_depth:
            raise json.JSONDecodeError(f"nested more than {max_depth} levels deep", text, m.start())


def loads_json(text: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` that refuses documents nested deeper than ``max_depth`` (as a ``json.JSONDecodeError``)."""
    check_depth(text, max_depth)
    return json.loads(text)


def utf8_reason(data: bytes, exc: UnicodeDecodeError) -> str:
    line = data.count(b"\n", 0, exc.start) + 1
    column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
    return f"line {line}: not UTF-8 text (byte 0x{data[exc.start]:02x} at column {column})"


def read_bytes(path: Path | str, error: type[InputError] = InputError) -> bytes:
    """The bytes of ``path``; ``error`` naming it when it is missing, a directory or unreadable."""
    p = Path(path)
    if p.is_dir():
        raise error(f"{p}: is a directory, not a file")
    try:
        return p.read_bytes()
    except OSError as exc:
        raise error(f"{p}: cannot read ({exc.strerror or exc})") from None


def read_text(path: Path | str, error: type[InputError] = InputError) -> str:
    """The UTF-8 text of ``path``; ``error`` naming the file (and the line of a byte that is not UTF-8)."""
    data = read_bytes(path, error)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: {utf8_reason(data, exc)}") from None


def read_toml(path: Path | str, error: type[InputError] = InputError) -> dict[str, Any]:
    """The table of the TOML file ``path``; ``error`` for a file that cannot be read, is not UTF-8 or not TOML."""
    text = read_text(path, error)
    try:
        return tomllib.loads(text)
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


__all__ = [
    "MAX_JSON_DEPTH", "check_depth", "loads_json", "parse_json", "read_bytes", "read_text", "read_toml", "utf8_reason",
]

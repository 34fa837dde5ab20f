"""A tournament from the command line (``mjref tournament BOT BOT … --seeds 8``), and the bot registry.

The command line is another way to write a tournament file: :func:`config_from_command_line` builds the same table
a ``tournament.toml`` holds (its settings, and one ``[[bots]]`` entry per BOT) and validates it with the same model,
so a command line and a file with the same content are the same tournament (the same store identity, so either
one resumes the other's store).  :func:`to_toml` writes that table back as a file (``--save``).

A BOT is what ``mjref match`` takes (a built-in name with its parameters, a bot TOML file, a command line in one
quoted string) or a name from the **registry**: a ``bots.toml`` in the current folder, or the file ``--bots``
names, holding ``[[bots]]`` entries exactly as a tournament file does (relative paths are relative to it)::

    [[bots]]
    name = "mine@v2"
    cmd = ["./builds/v2/mybot"]
    timeout = 5

A registry name is looked up first (it is what the user wrote down on purpose), then a built-in, then a ``.toml``
bot file, then a command.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bots.base import BUILTIN_NAMES
from referee.errors import InputError
from referee.userfiles import assignment_value, read_toml
from tournaments.config import BotEntry, ConfigError, canonical, parse_config
from wrappers.spec import SpecError, absolute_files, command_name, load_spec_file

REGISTRY_NAME = "bots.toml"  # the registry read from the current folder when --bots does not name one
DEFAULT_FOLDER = "mjref-tournaments"  # where a command line's store goes when --store does not say

# The fields a tournament entry has beyond a bot file's own; a bot file's ``human`` has no place in a tournament.
_ENTRY_FIELDS = frozenset(BotEntry.model_fields)


class RegistryError(ConfigError):
    """A registry (``bots.toml``) that cannot be used; the message names the file and entry."""


def load_registry(path: Path) -> dict[str, dict[str, Any]]:
    """The registry's entries by name, each with its paths made absolute (relative ones are relative to the file)
    and checked as a tournament file's ``[[bots]]`` entry is."""
    data = read_toml(path, RegistryError)
    unknown = sorted(set(data) - {"bots"})
    if unknown:
        raise RegistryError(f"{path}: unknown key {unknown[0]!r} (a registry holds [[bots]] entries only)")
    entries = data.get("bots", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise RegistryError(f"{path}: 'bots' must be [[bots]] tables, each with a name")
    out: dict[str, dict[str, Any]] = {}
    for i, entry in enumerate(entries):
        where = f"{path}: bots[{i}]"
        try:
            checked = BotEntry.model_validate(entry)
        except ValueError as exc:
            from wrappers.spec import validation_line

            raise RegistryError(validation_line(exc, where)) from None  # type: ignore[arg-type]
        if checked.name in out:
            raise RegistryError(f"{where}: two bots are named {checked.name!r}")
        out[checked.name] = _absolute_paths(dict(entry), path.parent, where)
    return out


def _absolute_paths(entry: dict[str, Any], base: Path, where: str) -> dict[str, Any]:
    """``entry`` with its ``cwd``, or else the files its ``cmd`` names, made absolute from ``base`` (the folder of
    the file that holds it): the tournament built from it may be run, or saved, anywhere."""
    cmd = entry.get("cmd")
    if isinstance(cmd, str):
        try:
            cmd = shlex.split(cmd)
        except ValueError as exc:
            raise ConfigError(f"{where}: cmd: {exc}") from None
    if entry.get("cwd") is not None:
        entry["cwd"] = os.path.normpath(str(base.resolve() / str(entry["cwd"])))
        if cmd is not None:
            entry["cmd"] = list(cmd)
    elif cmd is not None:
        entry["cmd"] = list(absolute_files(cmd, base))
    return entry


def find_registry(given: Path | None, cwd: Path) -> Path | None:
    """The registry to read: ``--bots FILE`` (which must exist), else ``bots.toml`` in ``cwd`` if there is one."""
    if given is not None:
        return given
    here = cwd / REGISTRY_NAME
    return here if here.is_file() else None


def bot_entry(text: str, registry: dict[str, dict[str, Any]], cwd: Path) -> dict[str, Any]:
    """One BOT argument as a tournament file's ``[[bots]]`` entry in ``cwd``: its paths relative to ``cwd`` when
    they are inside it (``./mybot``), else absolute, so that the file ``--save`` writes there reads the same."""
    return rebase(_entry(text, registry, cwd), cwd, cwd)


def _entry(text: str, registry: dict[str, dict[str, Any]], cwd: Path) -> dict[str, Any]:
    word = text.strip()
    if word in registry:
        return dict(registry[word])
    head = word.split(":", 1)[0]
    if head in BUILTIN_NAMES and " " not in word:
        return {"name": word, "builtin": word}
    if word.endswith(".toml"):
        spec = load_spec_file(Path(word) if Path(word).is_absolute() else cwd / word)
        if spec.human:
            raise SpecError(f"bot {word!r}: a person's seat (human = true) is for mjref play or mjref serve")
        data = spec.model_dump(mode="json", exclude_defaults=True)
        data["name"] = spec.name
        return {k: v for k, v in data.items() if k in _ENTRY_FIELDS}
    if not word:
        raise SpecError("an empty BOT argument")
    try:
        argv = shlex.split(word)
    except ValueError as exc:
        raise SpecError(f"bot {word!r}: {exc}") from None
    if os.sep not in argv[0] and not _on_path(argv[0]):
        known = ", ".join(sorted(registry)) or f"none: no {REGISTRY_NAME} here and no --bots FILE"
        raise SpecError(f"bot {word!r}: not a name in the registry ({known}), a built-in "
                        f"({', '.join(sorted(BUILTIN_NAMES))}), a .toml file, or a command on the PATH")
    return {"name": _entry_name(command_name(argv)), "cmd": list(absolute_files(argv, cwd))}


def _on_path(word: str) -> bool:
    import shutil

    return shutil.which(word) is not None


def _entry_name(name: str) -> str:
    """A command's name as a tournament's bot name (no blanks, no ``#``, at most 64 characters)."""
    cleaned = re.sub(r"[\s#]+", "_", name)[:64]
    return cleaned or "bot"


def _unique(entries: list[dict[str, Any]]) -> None:
    """Bots given twice under one name (``greedy greedy``) are told apart: ``greedy``, ``greedy-2``, …"""
    seen: dict[str, int] = {}
    taken = {e["name"] for e in entries}
    for e in entries:
        name = e["name"]
        if name in seen:
            k = seen[name] + 1
            while f"{name}-{k}" in taken:
                k += 1
            seen[name] = k
            e["name"] = f"{name}-{k}"
            taken.add(e["name"])
        else:
            seen[name] = 1


def apply_each(entries: list[dict[str, Any]], assignments: Sequence[str]) -> None:
    """``--each KEY=VALUE`` (repeatable): the field set on every bot that runs as a process or plays remotely (a
    built-in bot answers in-process: its timeout, sandbox and process limits do not apply).  VALUE is read as
    JSON when it parses (``5``, ``true``, ``["flower"]``), else as text; ``env.NAME=VALUE`` sets one variable."""
    for item in assignments:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--each {item!r}: expected KEY=VALUE (e.g. --each timeout=5)")
        value = assignment_value(raw, f"--each {key}")
        field = key.split(".", 1)[0]
        if field not in _ENTRY_FIELDS or field in ("name", "builtin", "cmd", "remote"):
            fields = sorted(_ENTRY_FIELDS - {"name", "builtin", "cmd", "remote"})
            raise ConfigError(f"--each {key}: not a field every bot can take (fields: {', '.join(fields)})")
        if "." in key and field != "env":
            raise ConfigError(f"--each {key}: only env takes a dotted name (env.NAME=VALUE)")
        takers = [e for e in entries if e.get("builtin") is None]
        if not takers:
            raise ConfigError(f"--each {key}: every bot here is built in (they answer in-process; --each sets the "
                              "fields of bots that run as processes)")
        for e in takers:
            if field == "env" and "." in key:
                e["env"] = {**e.get("env", {}), key.split(".", 1)[1]: raw}
            else:
                e[field] = value


def parse_seeds(text: str) -> int | list[int]:
    """``--seeds``: how many seeds (``8``), or the list of seeds (``3,7,42``)."""
    from referee.numbers import parse_int

    words = [w.strip() for w in text.split(",")]
    if len(words) == 1:
        return parse_int(words[0], "--seeds")
    return [parse_int(w, "--seeds") for w in words]


def config_from_command_line(bots: Sequence[str], settings: dict[str, Any], each: Sequence[str],
                             registry_path: Path | None, cwd: Path) -> dict[str, Any]:
    """The tournament file's table the command line describes (validated by :func:`parse_config` by the caller).
    ``settings``: the tournament's fields the options gave (None: not given)."""
    registry = load_registry(registry_path) if registry_path is not None else {}
    entries = [bot_entry(text, registry, cwd) for text in bots]
    _unique(entries)
    apply_each(entries, each)
    data: dict[str, Any] = {k: v for k, v in settings.items() if v is not None and v != {}}
    data["bots"] = entries
    if "name" not in data:
        data["name"] = _default_name(entries)
    return data


def _default_name(entries: list[dict[str, Any]]) -> str:
    names = "-".join(e["name"] for e in entries)
    return names if len(names) <= 60 else names[:59] + "…"


def default_store(data: dict[str, Any], cwd: Path) -> str:
    """Where a command line's results go when ``--store`` does not say: ``mjref-tournaments/NAME-HASH.sqlite``,
    HASH from what decides the results (the bots and the settings), so the same command resumes its own store and
    another command starts its own."""
    config = parse_config({**data, "store": "x.sqlite"}, "the command line")
    digest = hashlib.sha256((canonical(config.identity()) + config.wallfile).encode()).hexdigest()[:10]
    stem = re.sub(r"[^A-Za-z0-9._@-]+", "_", config.name)[:40].strip("._") or "tournament"
    return str(cwd / DEFAULT_FOLDER / f"{stem}-{digest}.sqlite")


# ------------------------------------------------------------------------------------------------ --save (TOML)
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_FIELD_ORDER = ("name", "format", "duplicate", "seatings", "seeds", "hands", "wallfile", "concurrency", "store", "logs",
                "dask", "wall_salt")


def to_toml(data: dict[str, Any], folder: Path, cwd: Path) -> str:
    """The tournament table ``data`` (its paths relative to ``cwd``) as a tournament file in ``folder``: settings
    first, then ``[rules]`` and one ``[[bots]]`` per bot, its paths rebased (a file is read relative to its own
    folder)."""
    lines = ["# written by mjref tournament --save: run it with `mjref tournament FILE`"]
    for key in (*_FIELD_ORDER, *sorted(set(data) - set(_FIELD_ORDER) - {"rules", "bots"})):
        if key in data and data[key] is not None:
            value = data[key]
            if key in ("store", "logs", "wallfile"):
                value = _relative(_absolute(value, cwd), folder)
            lines.append(f"{_key(key)} = {_value(value)}")
    if data.get("rules"):
        lines += ["", "[rules]"]
        lines += [f"{_key(k)} = {_value(v)}" for k, v in data["rules"].items()]
    for entry in data["bots"]:
        lines += ["", "[[bots]]"]
        lines += [f"{_key(key)} = {_value(value)}" for key, value in rebase(entry, cwd, folder).items()]
    return "\n".join(lines) + "\n"


def rebase(entry: dict[str, Any], old: Path, new: Path) -> dict[str, Any]:
    """A ``[[bots]]`` entry read relative to the folder ``old``, written for a file in the folder ``new``: its
    ``cwd`` (or, without one, each word of ``cmd`` that names an existing file) relative to ``new`` when it is
    inside it, else absolute."""
    entry = dict(entry)
    if entry.get("cwd") is not None:
        entry["cwd"] = _relative(_absolute(entry["cwd"], old), new)
    elif isinstance(entry.get("cmd"), list):
        words = []
        for i, word in enumerate(entry["cmd"]):
            if i == 0 and os.sep not in word:
                words.append(word)  # a command on the PATH
                continue
            full = _absolute(word, old)
            words.append(_relative(full, new) if os.path.exists(full) else word)
        entry["cmd"] = words
    return entry


def _absolute(path: str, base: Path) -> str:
    return path if os.path.isabs(path) else os.path.normpath(str(base.resolve() / path))


def _relative(path: str, folder: Path) -> str:
    """``path`` (absolute) relative to ``folder`` when inside it (``./x``: a program, not a command on the PATH),
    else as it is."""
    try:
        rel = Path(path).relative_to(folder.resolve())
    except ValueError:
        return path
    return f".{os.sep}{rel}" if str(rel) != "." else "."


def _key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else _string(key)


def _string(text: str) -> str:
    # A JSON string is a TOML basic string, but for DEL, which TOML wants escaped, and surrogate escapes (not
    # made: ensure_ascii=False keeps every character as it is).
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    raise InputError(f"cannot write {value!r} in a TOML file")


def check_round_trip(text: str, data: dict[str, Any], folder: Path, cwd: Path) -> None:
    """The file ``to_toml`` wrote, read back as ``mjref tournament FILE`` will read it, runs the same bots with the
    same settings: else a bug in mjref (an AssertionError, never a file that silently runs something else)."""
    import tomllib

    from tournaments.config import bot_specs

    again = parse_config(tomllib.loads(text), "the saved file")
    here = parse_config(data, "the command line")
    assert [s.model_dump() for s in bot_specs(again, folder)] == [s.model_dump() for s in bot_specs(here, cwd)], text
    settings = {k: v for k, v in again.identity().items() if k != "bots"}
    assert canonical(settings) == canonical({k: v for k, v in here.identity().items() if k != "bots"}), text


__all__ = ["DEFAULT_FOLDER", "REGISTRY_NAME", "RegistryError", "apply_each", "bot_entry", "check_round_trip",
           "config_from_command_line", "default_store", "find_registry", "load_registry", "parse_seeds", "to_toml"]

"""Bot specifications: how to run one bot, from a name, a command line or a TOML file.

``mjref match``, tournaments and regression runs all accept a BOT in one of three forms:

* a built-in name, optionally with parameters: ``greedy``, ``greedy:chowness=0.2,hiddenness=0.9``;
* a command line in one string: ``"./mybot --fast"`` (split like a shell would, no shell is run);
* a TOML file (``*.toml``) with ``name``, ``cmd`` (a list), ``cwd``, ``env``, ``timeout``, ``keep_alive``,
  ``extensions``, ``identity``, ``identity_ignore`` (or ``builtin`` instead of ``cmd``, or ``remote = true``);
* ``remote:NAME``: a seat played by a wrapper that logs in to ``mjref serve`` as NAME (see docs/network.md).
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from referee.errors import BotError
from referee.userfiles import read_toml

from .identity import IdentityError, bot_identity

KNOWN_EXTENSIONS = frozenset({"flower"})
REMOTE_PREFIX = "remote:"
# A remote seat's name is what its wrapper logs in as and the key of its token: plain, printable, short.
REMOTE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class SpecError(BotError):
    """A bot specification that cannot be used; the message names the file, field or word."""


class BotSpec(BaseModel):
    """How to run one bot.  Exactly one of ``builtin``, ``cmd`` and ``remote``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(..., min_length=1, max_length=64)
    builtin: str | None = Field(None, description="A built-in bot, e.g. 'greedy' or 'greedy:chowness=0.2'.")
    cmd: tuple[str, ...] | None = Field(None, description="The command and its arguments.")
    cwd: str | None = Field(None, description="Working directory (relative paths: to the file that names the bot).")
    env: dict[str, str] = Field(default_factory=dict, description="Extra environment variables.")
    timeout: float | None = Field(None, gt=0, le=3600, description="Seconds per question (overrides move_timeout).")
    keep_alive: bool = Field(False, description="One process for the whole match instead of one per hand.")
    extensions: tuple[str, ...] = Field((), description="Opt-in protocol extensions, e.g. 'flower'.")
    remote: bool = Field(False, description="Played by a wrapper that logs in to `mjref serve` under this name.")
    identity: Literal["files", "folder"] = Field(
        "files", description="What a resumed tournament checks is unchanged: 'files' (the executable and the "
        "files named in cmd) or 'folder' (also every file under cwd); see wrappers/identity.py.")
    identity_ignore: tuple[str, ...] = Field((), description="Extra glob patterns left out of a folder identity.")

    @model_validator(mode="after")
    def _one_kind(self) -> BotSpec:
        if (self.builtin is not None) + (self.cmd is not None) + self.remote != 1:
            raise ValueError("give exactly one of 'builtin', 'cmd' and 'remote = true'")
        if self.remote and not REMOTE_NAME.fullmatch(self.name):
            raise ValueError(f"remote bot name {self.name!r}: use 1-64 letters, digits, '_', '.', '-'")
        if self.cmd is not None and not self.cmd:
            raise ValueError("'cmd' is empty")
        unknown = set(self.extensions) - KNOWN_EXTENSIONS
        if unknown:
            raise ValueError(f"unknown extension {sorted(unknown)[0]!r} (known: {', '.join(sorted(KNOWN_EXTENSIONS))})")
        return self

    @property
    def is_builtin(self) -> bool:
        return self.builtin is not None

    def resolved_executable(self) -> str | None:
        """The path of the executable ``cmd[0]`` resolves to (relative to ``cwd``), or None if not found."""
        if self.cmd is None:
            return None
        exe = self.cmd[0]
        base = Path(self.cwd) if self.cwd else Path.cwd()
        if os.sep in exe or (os.altsep and os.altsep in exe):
            p = Path(exe) if Path(exe).is_absolute() else base / exe
            return str(p) if p.is_file() and os.access(p, os.X_OK) else None
        return shutil.which(exe)

    def executable_hash(self) -> str | None:
        """SHA-256 of the executable file (logged, so a result names the exact binary that produced it)."""
        path = self.resolved_executable()
        if path is None:
            return None
        h = hashlib.sha256()
        try:
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
        except OSError:
            return None
        return h.hexdigest()

    def identity_files(self) -> dict[str, str]:
        """File → SHA-256 of what this process bot runs (``identity``); empty for a built-in bot."""
        if self.cmd is None:
            return {}
        try:
            return bot_identity(self.cmd, Path(self.cwd) if self.cwd else Path.cwd(), self.resolved_executable(),
                                self.identity, self.identity_ignore)
        except IdentityError as exc:
            raise SpecError(f"bot {self.name!r}: {exc}") from None

    def check_runnable(self) -> None:
        """Raise :class:`SpecError` if a process bot cannot start at all (missing executable or directory)."""
        if self.cmd is None:
            return
        if self.cwd and not Path(self.cwd).is_dir():
            raise SpecError(f"bot {self.name!r}: working directory {self.cwd!r} does not exist")
        if self.resolved_executable() is None:
            raise SpecError(f"bot {self.name!r}: cannot run {self.cmd[0]!r}: not found or not executable")

    def describe(self) -> str:
        if self.remote:
            return f"{REMOTE_PREFIX}{self.name}"
        if self.builtin is not None:
            return f"builtin:{self.builtin}"
        return shlex.join(self.cmd or ())


def validation_line(exc: ValidationError, where: str) -> str:
    """One line for the first error of a pydantic validation: the file (or place), the field, the reason."""
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    if err["type"] == "extra_forbidden":
        return f"{where}: unknown field {loc!r}"
    return f"{where}: {loc + ': ' if loc else ''}{str(err['msg']).removeprefix('Value error, ')}"


def spec_from_mapping(data: dict[str, Any], where: str, base_dir: Path | None = None) -> BotSpec:
    """Build a spec from a TOML table; relative ``cwd`` is taken from ``base_dir``."""
    data = dict(data)
    if base_dir is not None:
        if data.get("cwd") is not None:
            data["cwd"] = str((base_dir / str(data["cwd"])).resolve())
        elif data.get("cmd") is not None:
            data["cwd"] = str(base_dir.resolve())
    if isinstance(data.get("cmd"), str):
        data["cmd"] = shlex.split(data["cmd"])
    try:
        return BotSpec.model_validate(data)
    except ValidationError as exc:
        raise SpecError(validation_line(exc, where)) from None


def load_spec_file(path: Path) -> BotSpec:
    data = read_toml(path, SpecError)
    data.setdefault("name", path.stem)
    return spec_from_mapping(data, str(path), path.parent)


def parse_bot(text: str, builtin_names: frozenset[str] | set[str]) -> BotSpec:
    """Turn one BOT argument into a spec: a built-in name, a ``.toml`` file, or a command line."""
    text = text.strip()
    if not text:
        raise SpecError("empty bot specification")
    if text.startswith(REMOTE_PREFIX):
        name = text[len(REMOTE_PREFIX):]
        if not REMOTE_NAME.fullmatch(name):
            raise SpecError(f"bot {text!r}: a remote seat's name is 1-64 letters, digits, '_', '.', '-'")
        return BotSpec(name=name, remote=True)
    head = text.split(":", 1)[0]
    if head in builtin_names and " " not in text:
        return BotSpec(name=text, builtin=text)
    if text.endswith(".toml"):
        return load_spec_file(Path(text))
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise SpecError(f"bot {text!r}: {exc}") from None
    name = Path(argv[0]).name
    spec = BotSpec(name=name, cmd=tuple(argv))
    if spec.resolved_executable() is None:
        known = ", ".join(sorted(builtin_names))
        raise SpecError(f"bot {text!r}: not a built-in ({known}), a .toml file, or a runnable command")
    return spec

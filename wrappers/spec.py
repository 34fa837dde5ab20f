"""Bot specifications: how to run one bot, from a name, a command line or a TOML file.

``mjref match``, tournaments and regression runs all accept a BOT in one of three forms:

* a built-in name, optionally with parameters: ``greedy``, ``greedy:chowness=0.2,hiddenness=0.9``;
* a command line in one string: ``"./mybot --fast"`` (split like a shell would, no shell is run);
* a TOML file (``*.toml``) with ``name``, ``cmd`` (a list), ``cwd``, ``env``, ``timeout``, ``keep_alive``,
  ``extensions``, ``identity``, ``identity_ignore`` (or ``builtin`` instead of ``cmd``, or ``remote = true``),
  and the sandbox's ``sandbox``, ``network``, ``writable``, ``memory_mb``, ``max_procs``, ``cpu_seconds``,
  ``file_mb`` (see ``wrappers.sandbox`` and docs/security.md);
* ``remote:NAME``: a seat played by a wrapper that logs in to ``mjref serve`` as NAME (see docs/network.md);
* ``human:NAME``: a remote seat played by a person through the page of ``mjref serve``/``mjref play`` (docs/play.md);
* ``xmj:NAME``: a remote seat played by a client of mj-server's protocol (a person's ``xmj``) that logs in to
  ``mjref serve --xmj-listen`` as NAME with the seat's token as its password (docs/xmj.md);
* ``mj-player`` or ``mj-player:suitness=1,hiddenness=0.5``: the Unix Mah-Jong computer player with its personality
  knobs, an xmj seat (``protocol = "xmj"`` in a bot file: a client of mj-server's protocol; docs/xmj.md).

A bot without ``cwd`` runs in a private scratch folder of its seat, never in the folder of the file that names it
(which may hold the store and the logs): relative paths in its command are made absolute when the spec is read.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from referee.errors import BotError, printable
from referee.game.match_options import MAX_SECONDS
from referee.userfiles import read_toml
from referee.validation import validation_reason

from .identity import IdentityError, bot_identity, file_sha256

KNOWN_EXTENSIONS = frozenset({"flower"})
PROTOCOLS = ("icga", "xmj")
XMJ_PLAYER = "mj-player"  # the short spec's name, and the program it runs
XMJ_FOLDERS = ("/usr/games",)  # where Debian installs mj-player and xmj, not always on a user's PATH
# mj-player's personality knobs (its strategy options) and their ranges, from its usage
MJ_PLAYER_KNOBS: dict[str, tuple[float, float]] = {
    "chowness": (-1.0, 1.0), "hiddenness": (0.0, 1.0), "majorness": (0.0, 1.0), "suitness": (0.0, 1.0)}
XMJ_ADDED = ("--server", "--id", "--name")  # what mjref gives an xmj client itself
REMOTE_PREFIX = "remote:"
HUMAN_PREFIX = "human:"  # a remote seat played by a person through the page (``wrappers.human``)
XMJ_PREFIX = "xmj:"  # a remote seat played by an mj-server-protocol client over TCP (``wrappers.xmj.listen``)
# A remote seat's name is what its wrapper logs in as and the key of its token: plain, printable, short.
REMOTE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
# A bot's own environment variables: portable names (never an option to env(1), never holding "=").
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class SpecError(BotError):
    """A bot specification that cannot be used; the message names the file, field or word."""


class SandboxFields(BaseModel):
    """How a bot process is boxed and limited (``wrappers.sandbox``); shared by a bot spec and a tournament's bot
    entry, so that a tournament file can set them per bot.  None: the default in ``wrappers.sandbox``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sandbox: Literal["auto", "bwrap", "none"] | None = Field(
        None, description="'auto' (default: bwrap where it works), 'bwrap' or 'none'; --sandbox overrides it.")
    # Scalars are strict, as a ruleset's are: TOML has types, so network = "false" is no bool (lax pydantic read it
    # as False, and keep_alive = "yes" as True), timeout = "5" no number and memory_mb = 512.0 no whole number.
    network: bool = Field(False, strict=True, description="Let the sandboxed bot use the network.")
    writable: bool = Field(False, strict=True,
                           description="The bot's folder is writable in the sandbox (else read-only).")
    memory_mb: int | None = Field(None, ge=16, le=1 << 20, strict=True,
                                  description="Address-space limit in MB (default 2048).")
    max_procs: int | None = Field(None, ge=1, le=1 << 16, strict=True,
                                  description="Processes and threads (default 128).")
    cpu_seconds: int | None = Field(None, ge=1, le=1 << 20, strict=True,
                                    description="CPU seconds per hand (default 60; keep_alive: times the hands).")
    file_mb: int | None = Field(None, ge=0, le=1 << 20, strict=True,
                                description="Largest file the bot may write, MB (default 64).")


class BotFields(SandboxFields):
    """The fields of one bot that a bot file and a tournament file's ``[[bots]]`` entry share, defined once here:
    what it is (``builtin``, or ``cmd`` in the subclasses, or ``remote``), where and how long it runs, and what a
    resumed tournament checks of it.  ``BotSpec`` (a bot file, a seat) and ``tournaments.config.BotEntry`` (a
    tournament's participant) add what only they have."""

    builtin: str | None = Field(None, description="A built-in bot, e.g. 'greedy' or 'greedy:chowness=0.2'.")
    protocol: Literal["icga", "xmj"] = Field(
        "icga", description="What the program speaks: 'icga' (the framework's lines on stdin/stdout) or 'xmj' "
        "(a client of mj-server's protocol, such as mj-player; docs/xmj.md).")
    cwd: str | None = Field(None, description="Working directory (relative paths: to the file that names the bot).")
    env: dict[str, str] = Field(default_factory=dict, description="Extra environment variables (names: letters, "
                                "digits and _), set right before the bot's program.")
    timeout: float | None = Field(
        None, gt=0, le=MAX_SECONDS, strict=True,
        description="Seconds per question (overrides move_timeout; --timeout overrides it)."
    )
    keep_alive: bool = Field(False, strict=True, description="One process for the whole match instead of one per hand.")
    remote: bool = Field(False, strict=True, description="Played by a wrapper that logs in to `mjref serve` under this "
                         "name (docs/network.md).")
    identity: Literal["files", "folder"] = Field(
        "files", description="What a resumed tournament checks is unchanged: 'files' (the executable and the "
        "files named in cmd) or 'folder' (also every file under cwd, but the ignored); see docs/tournaments.md.")
    identity_ignore: tuple[str, ...] = Field((), description="Extra glob patterns left out of a folder identity.")

    @field_validator("timeout", mode="before")
    @classmethod
    def _finite_timeout(cls, v: object) -> object:
        if isinstance(v, float) and v != v or v in (float("inf"), float("-inf")):  # nan: every bound said yes-or-no
            raise ValueError(f"must be seconds per question, above 0 and at most {MAX_SECONDS:g}, not {v}")
        return v

    @field_validator("env")
    @classmethod
    def _env_names(cls, v: dict[str, str]) -> dict[str, str]:
        for name, value in v.items():
            if not ENV_NAME.fullmatch(name):
                raise ValueError(f"environment variable name '{printable(name)}': use letters, digits and '_', not "
                                 "starting with a digit")
            if "\0" in value:
                raise ValueError(f"environment variable {name}: its value holds a NUL character")
        return v


class BotSpec(BotFields):
    """How to run one bot.  Exactly one of ``builtin``, ``cmd`` and ``remote``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(..., min_length=1, max_length=64)
    cmd: tuple[str, ...] | None = Field(None, description="The command and its arguments.")
    extensions: tuple[str, ...] = Field((), description="Opt-in protocol extensions, e.g. 'flower'.")
    human: bool = Field(False, strict=True,
                        description="A remote seat played by a person through the page (needs remote).")

    @model_validator(mode="after")
    def _one_kind(self) -> BotSpec:
        if (self.builtin is not None) + (self.cmd is not None) + self.remote != 1:
            raise ValueError("give exactly one of 'builtin', 'cmd' and 'remote = true'")
        if self.human and not self.remote:
            raise ValueError("'human = true' is a remote seat: give 'remote = true' too")
        if self.remote and not REMOTE_NAME.fullmatch(self.name):
            raise ValueError(f"remote bot name {self.name!r}: use 1-64 letters, digits, '_', '.', '-'")
        if self.cmd is not None and not self.cmd:
            raise ValueError("'cmd' is empty")
        if self.cmd is not None and any("\0" in arg for arg in self.cmd):
            raise ValueError("'cmd' holds a NUL character")
        if not self.name.isprintable() or not self.name.strip():  # it is shown in every table and message
            raise ValueError(f"bot name '{printable(self.name)}': use printable characters (no control characters "
                             "or escapes), not only blanks")
        if self.protocol == "xmj" and self.remote:
            if self.human:
                raise ValueError("an xmj seat is played in the xmj client, not the page: 'human' and protocol = "
                                 "\"xmj\" do not go together")
        elif self.protocol == "xmj":
            if self.cmd is None:
                raise ValueError("protocol = \"xmj\" runs a client program: give 'cmd' (e.g. [\"mj-player\"])")
            given = [a for a in self.cmd if a.split("=", 1)[0] in XMJ_ADDED]
            if given:
                raise ValueError(f"'cmd' gives {given[0].split('=', 1)[0]}: mjref gives an xmj client its server "
                                 "address, id and name itself")
            if self.extensions:
                raise ValueError("'extensions' are the ICGA protocol's; an xmj seat takes none")
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
            return str(p) if os.path.isfile(p) and os.access(p, os.X_OK) else None
        return shutil.which(exe) or (xmj_program(exe) if self.protocol == "xmj" else None)

    def executable_problem(self) -> str | None:
        """Why ``cmd[0]`` cannot be started, in words and with what to do (None: it can): no such file, no such
        command on the PATH, a folder, a file without the execute bit, or a script whose ``#!`` interpreter is
        missing (the system says "No such file or directory" of the script then, and the bot's start fails
        with status 127 without a word of the cause)."""
        if self.cmd is None:
            return None
        exe = self.cmd[0]
        where = f" (relative to the bot's cwd {self.cwd})" if self.cwd else ""
        if os.sep in exe or (os.altsep and os.altsep in exe):
            p = Path(exe) if Path(exe).is_absolute() else (Path(self.cwd) if self.cwd else Path.cwd()) / exe
            if os.path.isdir(p):  # (os.path's: a name too long for the system is no file, not an OSError)
                return f"{p} is a folder, not a program"
            if not os.path.exists(p):
                return f"no such file{where}"
            if not os.path.isfile(p):
                return "not a regular file"
            if not os.access(p, os.X_OK):
                return "the file is not executable (chmod +x it, or name its interpreter first: \"python3 FILE\")"
            return script_interpreter_problem(p, self.env.get("PATH"))
        found = shutil.which(exe, path=self.env.get("PATH"))
        if found is None and self.protocol == "xmj":
            found = xmj_program(exe)
        if found is None:
            return "no such command on the PATH (a file in the current folder is ./NAME)"
        return script_interpreter_problem(Path(found), self.env.get("PATH"))

    def executable_hash(self) -> str | None:
        """SHA-256 of the executable file (logged, so a result names the exact binary that produced it)."""
        path = self.resolved_executable()
        if path is None:
            return None
        try:
            return file_sha256(Path(path))
        except OSError:
            return None

    def identity_files(self) -> dict[str, str]:
        """File → SHA-256 of what this process bot runs (``identity``); empty for a built-in bot."""
        if self.cmd is None:
            return {}
        try:
            return bot_identity(self.cmd, Path(self.cwd) if self.cwd else Path.cwd(), self.resolved_executable(),
                                self.identity, self.identity_ignore)
        except IdentityError as exc:
            raise SpecError(f"bot {self.name!r}: {exc}") from None

    def check_runnable(self, sandbox: str | None = None) -> None:
        """Raise :class:`SpecError` if a process bot cannot start at all (missing executable or directory, or a
        sandbox mode that cannot be had; ``sandbox``: the run's ``--sandbox``)."""
        if self.cmd is None:
            return
        if self.cwd and not os.path.isdir(self.cwd):
            raise SpecError(f"bot {self.name!r}: working directory {self.cwd!r} does not exist")
        problem = self.executable_problem()
        if problem is not None:
            raise SpecError(f"bot {self.name!r}: cannot run {self.cmd[0]!r}: {problem}")
        from .sandbox import check_available  # the sandbox reads specs: imported here, not at the top

        try:
            check_available(self, sandbox)
        except BotError as exc:
            raise SpecError(str(exc)) from None

    def describe(self) -> str:
        if self.remote:
            prefix = XMJ_PREFIX if self.protocol == "xmj" else HUMAN_PREFIX if self.human else REMOTE_PREFIX
            return f"{prefix}{self.name}"
        if self.builtin is not None:
            return f"builtin:{self.builtin}"
        prefix = "xmj:" if self.protocol == "xmj" else ""
        return prefix + shlex.join(self.cmd or ())


def xmj_program(name: str) -> str | None:
    """An xmj client program named without a folder (``mj-player``, ``xmj``) where Debian puts it, off the PATH."""
    for folder in XMJ_FOLDERS:
        path = Path(folder) / name
        if os.sep not in name and path.is_file() and os.access(path, os.X_OK):
            return str(path)
    return None


def mj_player_spec(text: str) -> BotSpec:
    """The short spec ``mj-player`` or ``mj-player:KNOB=VALUE,...`` (knobs: ``MJ_PLAYER_KNOBS``, each once, a
    number in its range) as an xmj seat running mj-player with those strategy options."""
    _, _, params = text.partition(":")
    cmd: list[str] = [shutil.which(XMJ_PLAYER) or xmj_program(XMJ_PLAYER) or XMJ_PLAYER]
    seen: set[str] = set()
    for item in params.split(",") if params else []:
        knob, eq, value = item.partition("=")
        knob = knob.strip()
        if knob not in MJ_PLAYER_KNOBS:
            raise SpecError(f"bot {text!r}: unknown mj-player knob {knob!r} (known: {', '.join(MJ_PLAYER_KNOBS)})")
        if not eq:
            raise SpecError(f"bot {text!r}: {knob} needs a value ({knob}=NUMBER)")
        if knob in seen:
            raise SpecError(f"bot {text!r}: {knob} is given twice")
        seen.add(knob)
        lo, hi = MJ_PLAYER_KNOBS[knob]
        try:
            number = float(value)
        except ValueError:
            raise SpecError(f"bot {text!r}: {knob}={value!r} is not a number") from None
        if not lo <= number <= hi:  # also false for nan
            raise SpecError(f"bot {text!r}: {knob}={value} is out of range ({lo:g} to {hi:g})")
        cmd += [f"--{knob}", value.strip()]
    return BotSpec(name=printable(text), cmd=tuple(cmd), protocol="xmj")


def check_protocol_family(spec: BotSpec, family: str) -> None:
    """Refuse, before the match, a seat whose protocol cannot play the ruleset's family: an xmj client (mj-player,
    xmj) knows only mj-server's Chinese Classical."""
    if spec.protocol == "xmj" and family != "classical":
        raise SpecError(f"bot {spec.name!r} speaks mj-server's protocol (xmj), which plays Chinese Classical only, "
                        f"not {family}: use --rules classical (or a classical preset such as xmj)")


def script_interpreter_problem(path: Path, search_path: str | None = None) -> str | None:
    """Why the script ``path`` cannot start though it is executable: the interpreter its ``#!`` line names is
    missing or not executable (``#!/usr/bin/env NAME``: NAME is on no folder of ``search_path``, default the
    PATH).  None for a binary, a script whose interpreter is there, or a file that cannot be read (the start will
    say)."""
    try:
        with open(path, "rb") as f:
            head = f.read(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return "its #! line names no interpreter"
    interpreter = words[0]
    if not os.path.isfile(interpreter):
        return f"its interpreter {interpreter!r} (the script's #! line) does not exist"
    if not os.access(interpreter, os.X_OK):
        return f"its interpreter {interpreter!r} (the script's #! line) is not executable"
    if Path(interpreter).name == "env":
        name = next((w for w in words[1:] if not w.startswith("-") and "=" not in w), None)
        if name is not None and shutil.which(name, path=search_path) is None:
            return f"its interpreter {name!r} (the script's #! line: {interpreter} {name}) is not on the PATH"
    return None


def seat_timeout(command_line: float | None, spec: BotSpec, move_timeout: float) -> float:
    """A bot's seconds per question, in every command: the command line's ``--timeout`` over the bot file's
    ``timeout`` over the ruleset's ``move_timeout``.

    The one resolver: the seats (``ProcessSeat``, ``RemoteSeat``) call it at each hand's start, the match logs what
    it gives in the header (``SeatInfo.timeout``), ``mjref check`` and ``mjref refeed`` report it.  A run that stores
    its bots' specs (``mjref tournament``, ``mjref regress``) hands ``--timeout`` down as the specs' own timeout
    (:func:`with_command_line_timeout`), so that the store's identity records it; it resolves the same."""
    return command_line or spec.timeout or move_timeout


def with_command_line_timeout(spec: BotSpec, command_line: float | None) -> BotSpec:
    """``spec`` with the command line's ``--timeout`` in place of the bot file's, for a run that stores its specs
    (see :func:`seat_timeout`); a built-in bot answers in-process and has no deadline, so it is left as it is."""
    if command_line is None or spec.builtin is not None:
        return spec
    return spec.model_copy(update={"timeout": command_line})


def validation_line(exc: ValidationError, where: str) -> str:
    """One line for the first error of a pydantic validation: the file (or place), the field, the reason."""
    kind, loc, msg = validation_reason(exc)
    if kind == "extra_forbidden":
        return f"{where}: unknown field {loc!r}"
    return f"{where}: {loc + ': ' if loc else ''}{msg}"


def spec_from_mapping(data: dict[str, Any], where: str, base_dir: Path | None = None) -> BotSpec:
    """Build a spec from a TOML table; relative ``cwd`` is taken from ``base_dir``."""
    data = dict(data)
    if isinstance(data.get("cmd"), str):
        try:
            data["cmd"] = shlex.split(data["cmd"])
        except ValueError as exc:  # an unbalanced quote
            raise SpecError(f"{where}: cmd: {exc}") from None
    if base_dir is not None:
        if "\0" in str(data.get("cwd", "")):  # resolving it would raise "embedded null byte"
            raise SpecError(f"{where}: cwd: holds a NUL character")
        if data.get("cwd") is not None:
            data["cwd"] = str((base_dir / str(data["cwd"])).resolve())
        elif isinstance(data.get("cmd"), list | tuple):
            data["cmd"] = absolute_files(data["cmd"], base_dir)
    try:
        return BotSpec.model_validate(data)
    except ValidationError as exc:
        raise SpecError(validation_line(exc, where)) from None


def absolute_files(argv: Any, base: Path) -> Any:
    """``argv`` with each word that names an existing file or folder relative to ``base`` made absolute (the
    executable too, when it is a path): a bot without ``cwd`` runs in its own scratch folder, not in ``base``."""
    out = []
    for i, word in enumerate(argv):
        if isinstance(word, str) and word and not word.startswith("-") and not os.path.isabs(word) and (
                i > 0 or os.sep in word) and os.path.exists(base / word):
            word = os.path.normpath(str(base.resolve() / word))
        out.append(word)
    return out


def load_spec_file(path: Path) -> BotSpec:
    data = read_toml(path, SpecError)
    data.setdefault("name", path.stem)
    return spec_from_mapping(data, str(path), path.parent)


_INTERPRETER = re.compile(r"^(python|pypy|node|ruby|perl|php|lua|bash|sh|java|Rscript|julia)[0-9.]*(\.exe)?$")


def command_name(argv: Sequence[str]) -> str:
    """A bot's name from its command line: the script or executable, not its interpreter.  ``./mybot`` is
    ``mybot``; ``python3 mybot.py --fast`` is ``mybot``; ``python -m bots.greedy`` is ``bots.greedy``; a bare
    ``python3`` stays ``python3``."""
    return printable(_command_name(argv))  # a script named with a control character still gives a safe name


def _command_name(argv: Sequence[str]) -> str:
    exe = Path(argv[0]).name
    if not _INTERPRETER.match(exe):
        return exe
    args = list(argv[1:])
    while args:
        arg = args.pop(0)
        if arg == "-m" and args:
            return args[0]
        if arg in ("-jar", "-cp", "-classpath") and args:
            if arg == "-jar":
                return Path(args[0]).stem
            args.pop(0)
            continue
        if not arg.startswith("-"):
            return Path(arg).stem or exe
    return exe


def parse_bot(text: str, builtin_names: frozenset[str] | set[str]) -> BotSpec:
    """Turn one BOT argument into a spec: a built-in name, a ``.toml`` file, or a command line.  A spec its fields
    refuse (a built-in's name with parameters longer than a name may be) is a ``SpecError`` naming the argument."""
    try:
        return _parse_bot(text.strip(), builtin_names)
    except ValidationError as exc:
        raise SpecError(validation_line(exc, f"bot {text.strip()[:60]!r}")) from None


def _parse_bot(text: str, builtin_names: frozenset[str] | set[str]) -> BotSpec:
    if not text:
        raise SpecError("empty bot specification")
    for prefix in (REMOTE_PREFIX, HUMAN_PREFIX, XMJ_PREFIX):
        if text.startswith(prefix):
            name = text[len(prefix):]
            if not REMOTE_NAME.fullmatch(name):
                raise SpecError(f"bot {text!r}: a remote seat's name is 1-64 letters, digits, '_', '.', '-'")
            return BotSpec(name=name, remote=True, human=prefix == HUMAN_PREFIX,
                           protocol="xmj" if prefix == XMJ_PREFIX else "icga")
    head = text.split(":", 1)[0]
    if head == XMJ_PLAYER and " " not in text:
        return mj_player_spec(text)
    if head in builtin_names and " " not in text:
        return BotSpec(name=printable(text), builtin=text)  # its parameters are checked where it is made
    if text.endswith(".toml"):
        return load_spec_file(Path(text))
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise SpecError(f"bot {text!r}: {exc}") from None
    # (a name is 1-64 characters: a longer file name is cut; a command that names none, such as "/", is "bot",
    # and is refused below as a command that cannot run)
    name = command_name(argv)[:64] or "bot"
    spec = BotSpec(name=name, cmd=tuple(absolute_files(argv, Path.cwd())))
    if spec.resolved_executable() is None and os.sep not in argv[0]:
        known = ", ".join(sorted(builtin_names))
        raise SpecError(f"bot {text!r}: not a built-in ({known}), a .toml file, or a command on the PATH (a "
                        "program in the current folder is ./NAME)")
    problem = spec.executable_problem()  # a missing file, one not executable, a missing #! interpreter
    if problem is not None:
        raise SpecError(f"bot {text!r}: cannot run {argv[0]!r}: {problem}")
    return spec

"""The tournament file: a TOML document validated by a pydantic model (``mjref schema tournament``).

```toml
name = "demo"
format = "round-robin"   # or "gauntlet" (the first bot against every group of three others)
duplicate = true         # every seed is played once per seating, so each bot sits in every seat of every wall
seatings = 4             # with duplicate: 4 rotations, or 24 for every permutation
seeds = 4                # how many seeds (1..N), or a list of seeds
hands = 16               # hands per match
concurrency = 2          # matches at once (default: the cores; with process bots (cores - 1) // threads)
store = "demo.sqlite"    # relative to the tournament file
trust_memory = false     # true lets bots that can remember (writable, network, remote) see a deal again
[rules]                  # ruleset options by name (docs/rules.md); or rules = "classical" (a family or a preset)
[[bots]]
name = "greedy"
builtin = "greedy"
[[bots]]
name = "mine"
cmd = ["./mybot"]
cwd = "bots/mine"
timeout = 5
threads = 1              # cores the bot uses while it thinks (sizes the default concurrency)
identity = "files"       # or "folder": resuming also checks every file under cwd
```
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from bots.base import parse_spec
from referee.errors import BotError, InputError, printable
from referee.game.match_options import RulesError
from referee.game.taiwan16.rules import make_ruleset
from referee.game.wall import check_seed
from referee.userfiles import read_toml
from tournaments.store import MAX_STORED_SEED
from wrappers.spec import BotFields, BotSpec, SpecError, spec_from_mapping, validation_line


class ConfigError(InputError):
    """A tournament file that cannot be used; the message names the file and field."""


# The names of the dummies that fill a round's empty seats (``dummy-greedy``): no participant may take one.
DUMMY_PREFIX = "dummy"


class BotEntry(BotFields):
    """One participant: a built-in bot (``builtin``), a bot executable (``cmd``) or a remote bot, with the fields
    of a bot file (``wrappers.spec.BotFields``) and the cores it keeps busy (``threads``).  Checked as a bot file
    is by ``bot_specs`` before any match starts."""

    model_config = ConfigDict(extra="forbid", frozen=False)

    name: str = Field(..., min_length=1, max_length=64, pattern=r"^[^\s#]+$")
    cmd: list[str] | str | None = Field(None, description="The command and its arguments (a string: split on blanks).")
    extensions: list[str] = Field(default_factory=list, description="Opt-in protocol extensions, e.g. 'flower'.")
    threads: int = Field(1, ge=1, le=1024, description="Cores the bot keeps busy while it thinks: the default "
                         "concurrency leaves each match of process bots that many (see docs/tournaments.md).")

    @field_validator("name")
    @classmethod
    def _not_a_dummy(cls, v: str) -> str:
        if v.startswith(f"{DUMMY_PREFIX}-"):
            raise ValueError(f"bot name {v!r}: names starting with '{DUMMY_PREFIX}-' are the dummies that fill empty "
                             "seats; choose another")
        return v

    @field_validator("builtin")
    @classmethod
    def _known_builtin(cls, v: str | None) -> str | None:
        if v is not None:
            parse_spec(v)  # a BotError (a ValueError) names the parameter: refused before any match starts
        return v


# Fields of a bot entry that do not decide results: left out of the store's identity.
_NOT_IDENTITY = ("threads", "identity", "identity_ignore")


class TournamentConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # TOML has types: seeds = true is no number of seeds

    name: str = Field("tournament", min_length=1, max_length=200)
    format: Literal["round-robin", "gauntlet"] = "round-robin"
    duplicate: bool = True
    seatings: Literal[4, 24] = 4
    seeds: int | list[int] = Field(4, description="How many seeds (1..N), or the list of seeds.")
    hands: int = Field(16, ge=1, le=1000)
    concurrency: int | None = Field(None, ge=1, le=1024, description="Matches at once (default: the cores).")
    store: str = Field("", description="The SQLite results store, relative to the file (default: <name>.sqlite).")
    logs: str = Field("", description="Folder for match logs, relative to the file (default: <store>-logs).")
    rules: dict[str, Any] = Field(
        default_factory=dict,
        description="The ruleset: a [rules] table of options (Taiwan's, docs/rules.md; with family = \"classical\" "
        "mj-server's GameOptions and the match options, docs/classical.md), or the name of a family or a preset "
        "(\"taiwan16\", \"classical\", \"xmj\", \"dmjl\").")

    @field_validator("rules", mode="before")
    @classmethod
    def _named_rules(cls, v: Any) -> Any:
        """``rules = "NAME"``: a family or a preset, as the table of the options it sets."""
        if not isinstance(v, str):
            return v
        from referee.rulesets import named_rules_table

        return named_rules_table(v)
    bots: list[BotEntry] = Field(..., min_length=1)
    dask: str | None = Field(None, min_length=1, description="A Dask scheduler address, or 'local' (see docs).")
    trust_memory: bool = Field(
        False,
        description="Let bots that can remember across matches (writable = true, network = true, or remote) play "
        "a tournament that deals the same walls more than once (duplicate, or more than four bots): the organiser "
        "trusts them not to carry a deal from one match to the next. Standings and reports mark such a "
        "tournament.",
    )
    wallfile: str = Field("", description="Openings: a wall file, or a folder of them, relative to the file; the "
                          "k-th seed plays the k-th opening (order: docs/tournaments.md). Default: walls drawn "
                          "from the seeds.")
    wall_salt: str | None = Field(
        None,
        description="Salt of the walls. By default each store draws a secret one, so that the seeds listed here "
        "do not let a bot derive its wall; set it to replay the same walls in another store (walls then become "
        "as public as this file).",
    )

    @field_validator("name")
    @classmethod
    def _printable_name(cls, v: str) -> str:
        if not v.isprintable() or not v.strip():  # shown on the terminal, in pages and in markdown
            raise ValueError(f"tournament name '{printable(v)}': use printable characters (no control characters or "
                             "escapes), not only blanks")
        return v

    @field_validator("store", "logs", "wallfile")
    @classmethod
    def _no_nul(cls, v: str) -> str:
        if "\0" in v:  # every use of the path raised "embedded null byte" (a traceback)
            raise ValueError("a path cannot hold a NUL character")
        return v

    @field_validator("seeds", mode="before")
    @classmethod
    def _seeds_type(cls, v: object) -> object:
        """One reason for a value of another type (pydantic said ``seeds.int: Input should be a valid integer``,
        naming a branch of the union the user never wrote)."""
        if isinstance(v, bool) or not isinstance(v, int | list):
            shown = f"the text {v!r}" if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else repr(v)
            raise ValueError(f"give a whole number of seeds (seeds = 8) or a list of seeds (seeds = [1, 5, 9]), not "
                             f"{shown}")
        if isinstance(v, list):
            for i, seed in enumerate(v):
                if isinstance(seed, bool) or not isinstance(seed, int):
                    raise ValueError(f"[{i}] is {seed!r}: a seed is a whole number")
        return v

    @field_validator("seeds")
    @classmethod
    def _seeds(cls, v: int | list[int]) -> int | list[int]:
        if isinstance(v, int) and not 1 <= v <= 1_000_000:
            raise ValueError("seeds must be from 1 to 1000000, or a list of seeds")
        if isinstance(v, list):
            if not v:
                raise ValueError("the list of seeds is empty")
            if len(set(v)) != len(v):
                raise ValueError("a seed is listed twice")
            for i, seed in enumerate(v):
                check_seed(seed, f"seeds[{i}]")
                if seed > MAX_STORED_SEED:
                    raise ValueError(f"seeds[{i}] must be at most 2**63 - 1 ({MAX_STORED_SEED}), the largest seed "
                                     f"a store keeps, not {seed}")
        return v

    @model_validator(mode="after")
    def _hands_once(self) -> TournamentConfig:
        """``hands`` and ``[rules] hands`` are one setting: either place may give it, both only with one value."""
        if "hands" not in self.rules:
            return self
        hands = self.rules["hands"]
        if "hands" in self.model_fields_set and hands != self.hands:
            raise ValueError(f"hands = {self.hands} and [rules] hands = {hands!r} disagree; give the number of "
                             "hands once")
        if isinstance(hands, bool) or not isinstance(hands, int) or not 1 <= hands <= 1000:
            raise ValueError(f"[rules] hands = {hands!r}: must be a whole number from 1 to 1000")
        self.hands = hands
        self.rules = {k: v for k, v in self.rules.items() if k != "hands"}
        return self

    @model_validator(mode="after")
    def _names(self) -> TournamentConfig:
        seen = set()
        for b in self.bots:
            if b.name in seen:
                raise ValueError(f"two bots are named {b.name!r}")
            seen.add(b.name)
        if not self.store and ("/" in self.name or "\\" in self.name or self.name.startswith(".")):
            raise ValueError(f"the name {self.name!r} names the store's file (<name>.sqlite beside this file): no "
                             "'/' or '\\', not starting with '.'; or give 'store' a path")
        return self

    @model_validator(mode="after")
    def _memory(self) -> TournamentConfig:
        """A bot that can remember across matches, where a deal is dealt again, needs the organiser's trust."""
        if self.trust_memory or not deals_again(self.duplicate, len(self.bots)):
            return self
        for b in self.bots:
            why = remembers(b.model_dump())
            if why is not None:
                again = "in each seating: duplicate = true" if self.duplicate else "at each table: five bots or more"
                raise ValueError(
                    f"bot {b.name!r} can remember across matches ({why}), and this tournament deals each seed's "
                    f"walls more than once ({again}): it could carry a deal from one match to the next; set "
                    "trust_memory = true only if you trust it not to (docs/tournaments.md)")
        return self

    @property
    def seed_list(self) -> list[int]:
        return list(range(1, self.seeds + 1)) if isinstance(self.seeds, int) else list(self.seeds)

    @property
    def has_process_bots(self) -> bool:
        return any(b.cmd is not None for b in self.bots)

    def with_timeout(self, command_line: float | None) -> TournamentConfig:
        """This tournament with the command line's ``--timeout`` as every process and remote bot's ``timeout``:
        it wins over the file's, as everywhere (``wrappers.spec.seat_timeout``), and the store's identity records it
        (resuming with another ``--timeout`` is refused naming ``bots[NAME].timeout``)."""
        if command_line is None:
            return self
        bots = [b if b.builtin is not None else b.model_copy(update={"timeout": command_line}) for b in self.bots]
        return self.model_copy(update={"bots": bots})

    def workers(self) -> int:
        """Matches at once: the file's ``concurrency``, else the default (see :func:`default_concurrency`)."""
        return self.concurrency or default_concurrency(self)

    def identity(self) -> dict[str, Any]:
        """What decides the results: a store may only be resumed by a file with the same identity."""
        data = self.model_dump(mode="json")
        for key in ("concurrency", "store", "logs", "dask", "name", "wallfile"):  # the walls' own digest counts
            data.pop(key, None)
        for bot in data["bots"]:
            for key in _NOT_IDENTITY:
                bot.pop(key, None)
            if bot.get("protocol") == "icga":  # the default, which stores made before it existed do not name
                bot.pop("protocol")
        return data


def remembers(bot: Mapping[str, Any]) -> str | None:
    """Why a bot entry (as the file or a store's identity gives it) can remember across matches, or None: a remote
    seat (its wrapper and the bot behind it run outside any box), or a process bot whose box keeps something
    (``writable = true``: its folder; ``network = true``: anything it can reach)."""
    if bot.get("remote") is True:
        return "a remote seat" + (" (a person)" if bot.get("human") is True else "")
    if bot.get("cmd") is not None:
        kept = [f"{k} = true" for k in ("writable", "network") if bot.get(k) is True]
        if kept:
            return " and ".join(kept)
    return None


def deals_again(duplicate: bool, bots: int) -> bool:
    """Whether a tournament deals one seed's walls more than once: in every seating (duplicate), or at each of
    several tables (more than four bots, in either format)."""
    return duplicate or bots > 4


def trusted_memory(identity: Mapping[str, Any]) -> list[str] | None:
    """From a store's identity: None unless the tournament ran with ``trust_memory = true``; then the bots that
    could remember across matches (by ``remembers``), with why, as ``name (why)``."""
    if identity.get("trust_memory") is not True:
        return None
    bots = identity.get("bots")
    out = []
    for b in bots if isinstance(bots, list) else []:
        if isinstance(b, dict):
            why = remembers(b)
            if why is not None:
                out.append(f"{printable(str(b.get('name')))} ({why})")
    return out


def default_concurrency(config: TournamentConfig, cores: int | None = None) -> int:
    """Matches at once when the file does not say.

    Built-in bots only: one match per core (a match is one busy Python process).  With process bots, a match keeps
    busy the cores of the bot that is thinking (its ``threads``) while the referee needs time of its own to answer
    every bot before its deadline; one match per core starves multi-threaded bots into timeouts.  So: one core
    left for the referee, and each match given the most ``threads`` of its bots: ``(cores - 1) // threads``, at
    least 1.
    """
    cores = cores or os.cpu_count() or 1
    if not config.has_process_bots:
        return cores
    threads = max(b.threads for b in config.bots if b.cmd is not None)
    return max(1, (cores - 1) // threads)


def concurrency_warning(config: TournamentConfig, concurrency: int, cores: int | None = None) -> str | None:
    """A warning when ``concurrency`` matches of process bots want more cores than this machine has."""
    if not config.has_process_bots or concurrency <= 1:  # one match at once cannot be lowered: nothing to say
        return None
    cores = cores or os.cpu_count() or 1
    threads = max(b.threads for b in config.bots if b.cmd is not None)
    if concurrency * threads <= max(1, cores - 1):
        return None
    return (f"{concurrency} matches at once of bots using {threads} core{'s' if threads > 1 else ''} each want "
            f"{concurrency * threads} of this machine's {cores} cores (one is the referee's): bots may answer "
            f"late and fault; the default here is {default_concurrency(config, cores)} (docs/tournaments.md)")


def tournament_schema() -> dict[str, Any]:
    return TournamentConfig.model_json_schema()


def parse_config(data: dict[str, Any], where: str = "tournament") -> TournamentConfig:
    try:
        return TournamentConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(validation_line(exc, where)) from None


MAX_CONCURRENCY = 1024


def check_concurrency(value: int | None) -> int | None:
    """``--concurrency``: None (the default) or a whole number of matches at once, from 1 to 1024."""
    if value is not None and not 1 <= value <= MAX_CONCURRENCY:
        raise ConfigError(f"--concurrency must be from 1 to {MAX_CONCURRENCY} matches at once, not {value}")
    return value


def is_tournament_file(path: Path) -> bool:
    """A tournament file has ``[[bots]]``; a bot's own TOML file does not (a file that cannot be read is not one:
    reading it as a bot file says why)."""
    try:
        data = read_toml(path)  # a FIFO or /dev/zero is refused, not read for ever
    except InputError:
        return False
    return isinstance(data.get("bots"), list)


def load_config(path: Path) -> TournamentConfig:
    return parse_config(read_toml(path, ConfigError), str(path))


def ruleset_of(config: TournamentConfig, where: str = "tournament") -> Any:
    """The tournament's ruleset: Taiwan's ``Ruleset``, or a ``ClassicalRuleset`` when ``[rules]`` names that
    family."""
    try:
        if config.rules.get("family", "taiwan16") == "classical":
            from referee.rulesets import ruleset_from_table

            rules = ruleset_from_table({**config.rules, "hands": config.hands})
        else:
            rules = make_ruleset({k: v for k, v in config.rules.items() if k != "family"} | {"hands": config.hands})
        parse_spec(rules.default_dummy)
    except (RulesError, InputError) as exc:
        raise ConfigError(f"{where}: [rules] {exc}") from None
    except BotError as exc:
        raise ConfigError(f"{where}: [rules] default_dummy: {exc}") from None
    return rules


def bot_specs(config: TournamentConfig, base_dir: Path, where: str = "tournament") -> list[BotSpec]:
    specs = []
    for i, b in enumerate(config.bots):
        data = b.model_dump(exclude_none=True, exclude={"threads"})
        try:
            specs.append(spec_from_mapping(data, f"{where}: bots[{i}]", base_dir))
        except SpecError as exc:
            raise ConfigError(str(exc)) from None
    return specs


def canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def _short(value: Any, limit: int = 60) -> str:
    text = canonical(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _list_diff(old: list[Any], new: list[Any], path: str) -> list[str]:
    named = all(isinstance(x, dict) and "name" in x for x in (*old, *new))
    if named:  # bots: by name, field by field
        a = {x["name"]: x for x in old}
        b = {x["name"]: x for x in new}
        out = [f"{path}: {name!r} removed" for name in a if name not in b]
        out += [f"{path}: {name!r} added" for name in b if name not in a]
        for name in a.keys() & b.keys():
            out += diff_identity(a[name], b[name], f"{path}[{name}].")
        if not out and [x["name"] for x in old] != [x["name"] for x in new]:
            out.append(f"{path}: order {_short([x['name'] for x in old])} -> {_short([x['name'] for x in new])}")
        return sorted(out)
    if len(old) != len(new):
        return [f"{path}: {len(old)} entries -> {len(new)} entries"]
    first = next(i for i, (x, y) in enumerate(zip(old, new, strict=True)) if canonical(x) != canonical(y))
    return [f"{path}[{first}]: {_short(old[first])} -> {_short(new[first])}"]


def diff_identity(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> list[str]:
    """Human-readable differences between two identities, one short line per changed field (``seeds: 4 -> 8``,
    ``bots[mine].timeout: 5 -> 10``): lists of bots by name, other lists by their first difference."""
    out: list[str] = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key, "<absent>"), new.get(key, "<absent>")
        if canonical(a) == canonical(b):
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            out.extend(diff_identity(a, b, f"{prefix}{key}."))
        elif isinstance(a, list) and isinstance(b, list):
            out.extend(_list_diff(a, b, f"{prefix}{key}"))
        else:
            out.append(f"{prefix}{key}: {_short(a)} -> {_short(b)}")
    return out


DEMO_BOTS: list[dict[str, Any]] = [
    {"name": "greedy", "builtin": "greedy"},
    {"name": "greedy-chowy", "builtin": "greedy:chowness=0.9,hiddenness=0.1"},
    {"name": "greedy-hidden", "builtin": "greedy:hiddenness=0.9,chowness=0.1"},
    {"name": "random", "builtin": "random"},
    {"name": "drawdiscard", "builtin": "drawdiscard"},
]


def demo_config() -> TournamentConfig:
    """The demo round-robin of built-in bots that ``mjref tournament`` runs with no file."""
    return parse_config(
        {"name": "demo", "format": "round-robin", "duplicate": True, "seeds": 2, "hands": 8,
         "store": "mjref-demo/demo.sqlite", "bots": DEMO_BOTS},
        "demo",
    )

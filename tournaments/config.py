"""The tournament file: a TOML document validated by a pydantic model (``mjref schema tournament``).

```toml
name = "demo"
format = "round-robin"   # or "gauntlet" (the first bot against every group of three others)
duplicate = true         # every seed is played once per seating, so each bot sits in every seat of every wall
seatings = 4             # with duplicate: 4 rotations, or 24 for every permutation
seeds = 4                # how many seeds (1..N), or a list of seeds
hands = 16               # hands per match
concurrency = 2          # matches at once (default: the number of cores)
store = "demo.sqlite"    # relative to the tournament file
[rules]                  # ruleset options by name (docs/rules.md)
[[bots]]
name = "greedy"
builtin = "greedy"
[[bots]]
name = "mine"
cmd = ["./mybot"]
cwd = "bots/mine"
timeout = 5
```
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from referee.errors import InputError
from referee.game.rules import RulesError, Ruleset, make_ruleset
from wrappers.spec import BotSpec, SpecError, spec_from_mapping, validation_line


class ConfigError(InputError):
    """A tournament file that cannot be used; the message names the file and field."""


class BotEntry(BaseModel):
    """One participant: a built-in bot (``builtin``) or a bot executable (``cmd``)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(..., min_length=1, max_length=64, pattern=r"^[^\s#]+$")
    builtin: str | None = None
    cmd: list[str] | str | None = None
    cwd: str | None = None
    env: dict[str, str] = Field(default_factory=dict)
    timeout: float | None = Field(None, gt=0, le=3600)
    keep_alive: bool = False
    extensions: list[str] = Field(default_factory=list)


class TournamentConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = "tournament"
    format: Literal["round-robin", "gauntlet"] = "round-robin"
    duplicate: bool = True
    seatings: Literal[4, 24] = 4
    seeds: int | list[int] = Field(4, description="How many seeds (1..N), or the list of seeds.")
    hands: int = Field(16, ge=1, le=1000)
    concurrency: int | None = Field(None, ge=1, le=1024, description="Matches at once (default: the cores).")
    store: str = Field("", description="The SQLite results store, relative to the file (default: <name>.sqlite).")
    logs: str = Field("", description="Folder for match logs, relative to the file (default: <store>-logs).")
    rules: dict[str, Any] = Field(default_factory=dict)
    bots: list[BotEntry] = Field(..., min_length=1)
    dask: str | None = Field(None, description="A Dask scheduler address, or 'local' (see docs).")
    wall_salt: str | None = Field(
        None,
        description="Salt of the walls. By default each store draws a secret one, so that the seeds listed here "
        "do not let a bot derive its wall; set it to replay the same walls in another store (walls then become "
        "as public as this file).",
    )

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
        return v

    @model_validator(mode="after")
    def _names(self) -> TournamentConfig:
        seen = set()
        for b in self.bots:
            if b.name in seen:
                raise ValueError(f"two bots are named {b.name!r}")
            seen.add(b.name)
        return self

    @property
    def seed_list(self) -> list[int]:
        return list(range(1, self.seeds + 1)) if isinstance(self.seeds, int) else list(self.seeds)

    def workers(self) -> int:
        return self.concurrency or os.cpu_count() or 1

    def identity(self) -> dict[str, Any]:
        """What decides the results: a store may only be resumed by a file with the same identity."""
        data = self.model_dump(mode="json")
        for key in ("concurrency", "store", "logs", "dask", "name"):
            data.pop(key, None)
        return data


def tournament_schema() -> dict[str, Any]:
    return TournamentConfig.model_json_schema()


def parse_config(data: dict[str, Any], where: str = "tournament") -> TournamentConfig:
    try:
        return TournamentConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(validation_line(exc, where)) from None


def load_config(path: Path) -> TournamentConfig:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    return parse_config(data, str(path))


def ruleset_of(config: TournamentConfig, where: str = "tournament") -> Ruleset:
    try:
        return make_ruleset({**config.rules, "hands": config.hands})
    except RulesError as exc:
        raise ConfigError(f"{where}: [rules] {exc}") from None


def bot_specs(config: TournamentConfig, base_dir: Path, where: str = "tournament") -> list[BotSpec]:
    specs = []
    for i, b in enumerate(config.bots):
        data = b.model_dump(exclude_none=True)
        try:
            specs.append(spec_from_mapping(data, f"{where}: bots[{i}]", base_dir))
        except SpecError as exc:
            raise ConfigError(str(exc)) from None
    return specs


def canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def diff_identity(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> list[str]:
    """Human-readable differences between two identities (``seeds: 4 -> 8``)."""
    out: list[str] = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key, "<absent>"), new.get(key, "<absent>")
        if isinstance(a, dict) and isinstance(b, dict):
            out.extend(diff_identity(a, b, f"{prefix}{key}."))
        elif canonical(a) != canonical(b):
            out.append(f"{prefix}{key}: {canonical(a)} -> {canonical(b)}")
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

"""The ruleset: every option of docs/rules.md as one pydantic model, with the tai table as data.

A ruleset travels with every match log and tournament store, so that a result can always be explained and
replayed under the rules it was played with.  Unknown option names and bad values are rejected with the field named.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from referee.game.match_options import MAX_POINTS, RulesError, check_fault_penalty, field
from referee.userfiles import assignment_value
from referee.validation import validation_reason

DEFAULT_TAI: dict[str, int] = {
    "dealer": 1,
    "self_draw": 1,
    "concealed": 1,
    "concealed_self_draw": 3,
    "all_melded": 2,
    "all_chows": 2,
    "all_pungs": 4,
    "concealed_pungs_3": 2,
    "concealed_pungs_4": 5,
    "concealed_pungs_5": 8,
    "half_flush": 4,
    "full_flush": 8,
    "all_honours": 16,
    "dragon_pung": 1,
    "small_three_dragons": 4,
    "big_three_dragons": 8,
    "seat_wind": 1,
    "round_wind": 1,
    "small_four_winds": 8,
    "big_four_winds": 16,
    "single_wait": 1,
    "last_tile_draw": 1,
    "last_tile_throw": 1,
    "kong_replacement": 1,
    "robbing_kong": 1,
    "heavenly": 24,
    "earthly": 16,
    "human": 8,
    "own_flower": 1,
    "flower_set": 2,
    "eight_flowers": 8,
    "seven_pairs_and_pung": 8,
}


MAX_TAI = 1000  # the most one tai item may count (see match_options.MAX_POINTS)


class Ruleset(BaseModel):
    """Every rule option (docs/rules.md), with its default.  Frozen: a ruleset never changes during a match."""

    # strict: a value of another type is refused, not converted (flowers = "yes" is no bool, hands = true no count)
    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True, strict=True)

    flowers: bool = Field(False, description="Play with the eight flowers (144-tile wall).")
    dead_wall: int = Field(
        16, ge=0, le=60, description="A hand is drawn when a player would draw and only this many tiles remain."
    )
    hands: int = field("hands")
    dealer_continues: bool = Field(
        False, description="The dealer keeps the deal after a win or a draw (off in the ICGA framework)."
    )
    multiple_winners: bool = Field(
        False, description="Every seat that can win on a throw is asked; all who say /hu win."
    )
    gong_from_previous_player: bool = Field(
        False, description="Allow a meld gong on the tile thrown by one's previous player."
    )
    rob_kong: bool = Field(True, description="Other seats may win on the tile of a promoted gong.")
    move_timeout: float = field("move_timeout")
    start_grace: float = field("start_grace")
    network_grace: float = field("network_grace")
    pace: float = field("pace")
    human_timeout: float = field("human_timeout")
    fault_penalty: int | Literal["auto"] = field("fault_penalty")
    max_faults: int = field("max_faults")
    seven_pairs_and_pung: bool = Field(False, description="Allow 嚦咕嚦咕: seven pairs plus one pung.")
    scoring: Literal["tai", "wins"] = Field(
        "tai", description="'tai': base + per_tai × tai; 'wins': +3/-1 self-draw, +1/-1 throw."
    )
    base: int = Field(100, ge=0, le=MAX_POINTS, description="Points every payer pays for a win (tai scheme).")
    per_tai: int = Field(20, ge=0, le=MAX_POINTS, description="Points per tai every payer pays (tai scheme).")
    tai: dict[str, int] = Field(
        default_factory=lambda: dict(DEFAULT_TAI), description="The tai table: item key to tai."
    )
    default_dummy: str = field("default_dummy")

    @field_validator("fault_penalty", mode="before")
    @classmethod
    def _check_penalty(cls, value: Any) -> Any:
        return check_fault_penalty(value)

    @field_validator("tai", mode="before")
    @classmethod
    def _merge_tai(cls, value: Any) -> dict[str, int]:
        if not isinstance(value, Mapping):
            raise ValueError("the tai table must be a table of item key = tai")
        unknown = sorted(set(value) - set(DEFAULT_TAI))
        if unknown:
            raise ValueError(f"unknown tai item {unknown[0]!r} (known: {', '.join(sorted(DEFAULT_TAI))})")
        merged = dict(DEFAULT_TAI)
        for key, v in value.items():
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_TAI:
                raise ValueError(f"tai.{key} must be a whole number from 0 to {MAX_TAI}, not {v!r}")
            merged[key] = v
        return merged

    def __hash__(self) -> int:  # frozen models hash by value; the dict field needs help
        return hash(json.dumps(self.model_dump(), sort_keys=True))

    def value(self, key: str) -> int:
        return self.tai[key]


def option_names() -> list[str]:
    return list(Ruleset.model_fields)


def _error_line(exc: ValidationError) -> str:
    kind, loc, msg = validation_reason(exc)
    loc = loc or "rules"
    if kind == "extra_forbidden":
        return f"unknown rule option {loc!r} (known: {', '.join(option_names())})"
    return f"rule option {loc!r}: {msg}"


def make_ruleset(options: Mapping[str, Any] | None = None, base: Ruleset | None = None) -> Ruleset:
    """Build a ruleset from option values (over ``base``), raising :class:`RulesError` naming the bad field."""
    data: dict[str, Any] = base.model_dump() if base is not None else {}
    for key, value in (options or {}).items():
        if key == "tai" and isinstance(value, Mapping):
            data["tai"] = {**data.get("tai", {}), **value}
        else:
            data[key] = value
    try:
        return Ruleset.model_validate(data)
    except ValidationError as exc:
        raise RulesError(_error_line(exc)) from None


def parse_assignments(items: Iterable[str], base: Ruleset | None = None) -> Ruleset:
    """Apply ``OPTION=VALUE`` strings (as given to ``--set``).  ``tai.KEY=N`` sets one tai value.

    Values are read as JSON when they parse (``true``, ``12``, ``"x"``) and as plain strings otherwise.
    """
    return make_ruleset(assignment_options(items), base)


def assignment_options(items: Iterable[str]) -> dict[str, Any]:
    """``OPTION=VALUE`` strings (``--set``) as the options table a tournament file's ``[rules]`` holds (not yet
    checked: :func:`make_ruleset` does that)."""
    options: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise RulesError(f"--set {item!r}: expected OPTION=VALUE")
        key, raw = item.split("=", 1)
        key = key.strip()
        raw = raw.strip()
        value = assignment_value(raw, f"--set {key}")
        if key.startswith("tai."):
            table = options.setdefault("tai", {})
            if not isinstance(table, dict):  # --set tai=2 --set tai.dealer=1: a TypeError
                raise RulesError(f"rule option 'tai': the tai table must be a table of item key = tai, not {table!r}")
            table[key[4:]] = value
        else:
            options[key] = value
    return options


DEFAULT_RULES = Ruleset()


def rules_schema() -> dict[str, Any]:
    """The JSON Schema of the ruleset options (``mjref schema rules``)."""
    return Ruleset.model_json_schema()

"""Rulesets by name, preset or file: the one place where ``--rules NAME|FILE`` (and a tournament's ``rules``) is
turned into a rule family and that family's options.

A ruleset names its family (``taiwan16``, mjref's Taiwan 16-tile rules, the default; ``classical``, Chinese
Classical as the Unix Mah-Jong programs play it) and that family's options (``referee.game.taiwan16.rules.Ruleset``,
``referee.game.classical.options.GameOptions``).  Presets are data files beside the family
(``referee/game/classical/presets/*.toml``: ``xmj``, ``dmjl``).  A FILE is either a TOML ruleset (``family = ...``
and an ``[options]`` table) or an mj-server option file (``GameOption`` lines), taken as it is.
"""

from __future__ import annotations

import os
import tomllib
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ValidationError

from referee.errors import InputError
from referee.game.classical.options import GameOptions, parse_option_file
from referee.game.match_options import MATCH_FIELDS
from referee.game.records import record
from referee.game.taiwan16.rules import (
    DEFAULT_RULES,
    Ruleset,
    assignment_options,
    make_ruleset,
    parse_assignments,
    rules_schema,
)
from referee.userfiles import assignment_value, loads_toml, read_text
from referee.validation import validation_reason

if TYPE_CHECKING:
    from referee.game.classical.family import ClassicalRuleset

Family = Literal["taiwan16", "classical"]
FAMILIES: dict[str, str] = {
    "taiwan16": "Taiwan 16-tile Mahjong as the ICGA framework plays it (docs/rules.md); played, scored, replayed",
    "classical": "Chinese Classical as mj-server 1.11 plays and scores it (docs/classical.md); scored, verified, and "
                 "played in matches",
}


@record(frozen=True, slots=True)
class Rules:
    """A chosen ruleset: its family, that family's options, and the name it was chosen by; for a classical ruleset
    the match's own options its file set (``MATCH_FIELDS``: hands, timeouts, faults)."""

    family: Family
    options: Ruleset | GameOptions
    name: str
    match: tuple[tuple[str, Any], ...] = ()


def _classical() -> type[ClassicalRuleset]:
    """``ClassicalRuleset``, imported when a classical ruleset is made: the family's engine and scoring are a sixth
    of mjref's start, which a Taiwan run (every ICGA match and tournament) does not need."""
    from referee.game.classical.family import ClassicalRuleset

    return ClassicalRuleset


def preset_names() -> list[str]:
    return sorted(p.name.removesuffix(".toml") for p in _preset_dir().iterdir() if p.name.endswith(".toml"))


def _preset_dir() -> Any:
    return resources.files("referee.game.classical") / "presets"


def load_rules(spec: str) -> Rules:
    """The ruleset named ``spec``: a family, a preset, or a file (TOML ruleset or mj-server option file)."""
    if spec == "taiwan16":
        return Rules("taiwan16", DEFAULT_RULES, spec)
    if spec == "classical":
        return Rules("classical", GameOptions(), spec)
    if spec in preset_names():
        text = (_preset_dir() / f"{spec}.toml").read_text(encoding="utf-8")
        return _from_toml(text, spec, spec)
    path = Path(spec)
    if not os.path.exists(path):  # (os.path's: never an OSError for a name too long)
        raise InputError(f"--rules {spec!r}: not a rule family ({', '.join(FAMILIES)}), a preset "
                         f"({', '.join(preset_names())}) or a file")
    text = read_text(path)
    if text.lstrip().startswith("GameOption"):
        return Rules("classical", parse_option_file(text, spec), spec)
    return _from_toml(text, spec, spec)


def _from_toml(text: str, where: str, name: str) -> Rules:
    try:
        doc = loads_toml(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{where}: not a TOML ruleset (nor an mj-server option file): {e}") from None
    except RecursionError:  # tomllib recurses on nested arrays and inline tables
        raise InputError(f"{where}: not a TOML ruleset (nested too deeply)") from None
    unknown = sorted(set(doc) - {"family", "description", "options"})
    if unknown:
        raise InputError(f"{where}: unknown key {unknown[0]!r} (a ruleset has family, description and [options])")
    family = doc.get("family", "taiwan16")
    options = doc.get("options", {})
    if not isinstance(family, str) or family not in FAMILIES:
        raise InputError(f"{where}: family {family!r} is not one of {', '.join(FAMILIES)}")
    if not isinstance(doc.get("description", ""), str):
        raise InputError(f"{where}: description must be a string")
    if not isinstance(options, dict):
        raise InputError(f"{where}: options must be a table ([options])")
    if family == "taiwan16":
        try:
            return Rules("taiwan16", make_ruleset(options), name)
        except InputError as e:  # (its reason names the option; the file is named here)
            raise InputError(f"{where}: {e}") from None
    match = {k: v for k, v in options.items() if k in MATCH_FIELDS}
    game = {k: v for k, v in options.items() if k not in MATCH_FIELDS}
    try:
        rules = Rules("classical", GameOptions(**game), name, tuple(match.items()))
        _classical()(options=rules.options, **match)  # the match's options checked here, with the file named
        return rules
    except ValidationError as e:
        _, field, reason = validation_reason(e)
        raise InputError(f"{where}: option {field}: {reason}") from None


def _values(assignments: list[str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for item in assignments:
        if "=" not in item:
            raise InputError(f"--set {item!r}: expected OPTION=VALUE")
        key, raw = (x.strip() for x in item.split("=", 1))
        values[key] = assignment_value(raw, f"--set {key}")
    return values


def with_assignments(options: Ruleset | GameOptions, assignments: list[str]) -> Ruleset | GameOptions:
    """``options`` with ``--set OPTION=VALUE`` changes (values read as JSON where they parse), the option named in
    any error."""
    if isinstance(options, Ruleset):
        return parse_assignments(assignments, options) if assignments else options
    values = _values(assignments)
    unknown = sorted(set(values) - set(GameOptions.model_fields))
    if unknown:
        raise InputError(f"unknown classical option {unknown[0]!r} (known: {', '.join(GameOptions.model_fields)})")
    try:
        return GameOptions.model_validate({**options.model_dump(), **values})
    except ValidationError as e:
        _, field, reason = validation_reason(e)
        raise InputError(f"classical option {field!r}: {reason}") from None


def classical_ruleset(options: GameOptions, match: dict[str, Any] | None = None,
                      assignments: list[str] = ()) -> Any:  # type: ignore[assignment]
    """A classical ruleset for a match: ``options`` and the match's own options (``match``), with ``--set``
    changes to either (a GameOption by its name, a match option by its own)."""
    return ruleset_from_table({**options.model_dump(), **(match or {}), **_values(list(assignments))})


PLAYED: dict[str, tuple[str, ...]] = {command: ("taiwan16", "classical")
                                      for command in ("match", "play", "serve", "check", "regress")}
"""The families each command that plays runs (a command not named here runs taiwan16 only)."""


def playable_rules(spec: str | None, assignments: list[str], command: str = "match") -> Any:
    """The ruleset of a match (``--rules``, ``--set``): a Taiwan ``Ruleset`` or a ``ClassicalRuleset``.  A family
    that ``command`` does not run yet (``PLAYED``) is refused with one line saying so."""
    rules = load_rules(spec) if spec is not None else Rules("taiwan16", DEFAULT_RULES, "taiwan16")
    if rules.family not in PLAYED.get(command, ("taiwan16",)):
        runs = [c for c, families in PLAYED.items() if rules.family in families]
        raise InputError(f"--rules {spec}: mjref {command} does not run the {rules.family} family yet"
                         + (f" (mjref {' and '.join(runs)} does)" if runs else ""))
    if isinstance(rules.options, GameOptions):
        return classical_ruleset(rules.options, dict(rules.match), assignments)
    result = with_assignments(rules.options, assignments)
    assert isinstance(result, Ruleset)
    return result


def with_match_options(rules: Any, **values: Any) -> Any:
    """A match's ruleset (Taiwan or classical) with some of the match's own options changed (``--hands``)."""
    if isinstance(rules, Ruleset):
        return make_ruleset(values, rules)
    try:
        return _classical().model_validate({**rules.model_dump(), **values})
    except ValidationError as e:
        _, field, reason = validation_reason(e)
        raise InputError(f"option {field!r}: {reason}") from None


def named_rules_table(name: str) -> dict[str, Any]:
    """A tournament file's ``rules = "NAME"``: the family or preset as the ``[rules]`` table of the options it
    sets (``family`` included); ValueError naming the choices for another name (files are given as tables)."""
    if name == "taiwan16":
        return {}
    if name == "classical":
        return {"family": "classical"}
    if name in preset_names():
        doc = tomllib.loads((_preset_dir() / f"{name}.toml").read_text(encoding="utf-8"))
        return {"family": doc.get("family", "taiwan16"), **doc.get("options", {})}
    raise ValueError(f"rules = {name!r} is not a family ({', '.join(FAMILIES)}) or a preset "
                     f"({', '.join(preset_names())}); give other rules as a [rules] table")


def rules_table(spec: str | None, assignments: list[str]) -> dict[str, Any]:
    """A command-line tournament's ``[rules]`` table for ``--rules NAME|FILE`` and ``--set``: the options the
    chosen ruleset sets away from its family's defaults (``family`` included for classical), then the ``--set``
    changes (not yet checked: the tournament's ``ruleset_of`` does that, naming the option)."""
    if spec is None:
        return assignment_options(assignments)
    rules = load_rules(spec)
    if isinstance(rules.options, GameOptions):
        defaults = GameOptions().model_dump()
        table: dict[str, Any] = {"family": "classical"}
        table.update({k: v for k, v in rules.options.model_dump().items() if v != defaults[k]})
        table.update(dict(rules.match))
        table.update(_values(assignments))
        return table
    base = DEFAULT_RULES.model_dump(mode="json")
    table = {k: v for k, v in rules.options.model_dump(mode="json").items() if k != "tai" and v != base[k]}
    tai = {k: v for k, v in rules.options.model_dump(mode="json")["tai"].items() if v != base["tai"].get(k)}
    changes = assignment_options(assignments)
    extra = changes.pop("tai", None)
    table.update(changes)
    if isinstance(extra, dict):
        tai.update(extra)
    elif extra is not None:  # --set tai=2: kept as given, for the check to refuse
        table["tai"] = extra
    if tai and "tai" not in table:
        table["tai"] = tai
    return table


def ruleset_from_table(table: dict[str, Any]) -> Any:
    """A classical ruleset from one flat table of options (a tournament's ``[rules]`` with ``family =
    "classical"``): mj-server's GameOptions and the match options side by side; InputError naming the option."""
    if table.get("family", "classical") != "classical":  # (--set family=taiwan16 over --rules classical)
        raise InputError(f"option 'family': {table['family']!r} over a classical ruleset; a family is chosen with "
                         "--rules (or a file's family), not changed by --set")
    rest = {k: v for k, v in table.items() if k != "family"}
    match = {k: v for k, v in rest.items() if k in MATCH_FIELDS}
    game = {k: v for k, v in rest.items() if k not in MATCH_FIELDS}
    unknown = sorted(set(game) - set(GameOptions.model_fields))
    if unknown:
        raise InputError(f"unknown classical option {unknown[0]!r} (known: {', '.join(GameOptions.model_fields)}, "
                         f"{', '.join(MATCH_FIELDS)})")
    try:
        return _classical()(options=GameOptions(**game), **match)
    except ValidationError as e:
        _, field, reason = validation_reason(e)
        raise InputError(f"classical option {field!r}: {reason}") from None


def families_schema() -> dict[str, Any]:
    """Every family with the JSON Schema of its options (defaults included), and the presets with their options."""
    presets = {}
    for name in preset_names():
        rules = load_rules(name)
        doc = tomllib.loads((_preset_dir() / f"{name}.toml").read_text(encoding="utf-8"))
        presets[name] = {"family": rules.family, "description": doc.get("description", ""),
                         "options": doc.get("options", {})}
    return {
        "families": {
            "taiwan16": {"description": FAMILIES["taiwan16"], "default": True, "options": rules_schema()},
            "classical": {"description": FAMILIES["classical"], "default": False,
                          "options": GameOptions.model_json_schema(),
                          "match_options": list(MATCH_FIELDS)},  # listed in full in taiwan16's schema
        },
        "presets": presets,
    }

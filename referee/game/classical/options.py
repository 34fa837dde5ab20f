"""mj-server's 23 GameOptions as one pydantic model, named as mj-server names them, and its option files.

An option file (``mj-server --option-file``, ``.xmjrc``, the head of every hand history) has one line per option::

    GameOption 0  NAME TYPE MINPROT ENABLED VALUE DESC

``GameOptions.from_option_lines`` reads such lines exactly as mj-server writes them; an unknown option, a type
that is not the option's own or a value out of range is refused with the line named.  A ``score`` value encodes
C centi-limits, D doubles and P points as ``C*1000000 + D*10000 + P`` (``Score`` splits it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from referee.errors import InputError
from referee.validation import validation_reason

OptionType = Literal["bool", "int", "nat", "string", "score"]

DBL = 10000  # one double, in a score value
LIMIT = 1000000 * 100  # one whole limit (100 centi-limits), in a score value


class Score(NamedTuple):
    """A ``score`` option's value taken apart."""

    centilimits: int
    doubles: int
    points: int

    @classmethod
    def of(cls, v: int) -> Score:
        return cls(v // 1000000, (v // 10000) % 100, v % 10000)


MJREF_OPTIONS = ("OnlyPlaceCountsExposed", "LooseTileFromWall", "LastTileOnLoose", "ScholarsNoChows", "EastWinsLimit")
C_INT_MAX = 2**31 - 1  # mj-server keeps an option's value in a C int (as its protocol's every number)


class GameOptions(BaseModel):
    """The options of a Chinese Classical game, with mj-server 1.11's defaults (the ``xmj`` preset): its 23
    GameOptions under their own names, then mjref's few more (``MJREF_OPTIONS``) for the points where other rule
    books (Kajongg's DMJL) score otherwise."""

    # strict: a value of another type is refused, not converted (ScoreLimit = true is no number, 1e3 no whole one)
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    Timeout: int = Field(15, ge=0, description="nat: seconds allowed to claim a discard or rob a kong (0: none)")
    TimeoutGrace: int = Field(5, ge=0, description="nat: grace period when clients handle timeouts")
    ScoreLimit: int = Field(1000, ge=0, description="nat: limit on hand score")
    NoLimit: bool = Field(False, description="bool: no-limit game")
    MahJongScore: int = Field(20, ge=0, description="score: base score for going out")
    SevenPairs: bool = Field(False, description="bool: seven pairs hand allowed")
    SevenPairsVal: int = Field(20, ge=0, description="score: score for a seven pair hand")
    Flowers: bool = Field(True, description="bool: play using flowers and seasons")
    FlowersLoose: bool = Field(False, description="bool: flowers replaced by loose tiles")
    FlowersOwnEach: int = Field(0, ge=0, description="score: score for each own flower or season")
    FlowersOwnBoth: int = Field(DBL, ge=0, description="score: score for own flower and own season")
    FlowersBouquet: int = Field(DBL, ge=0, description="score: score for all four flowers or all four seasons")
    DeadWall: bool = Field(True, description="bool: there is a dead wall")
    DeadWall16: bool = Field(False, description="bool: dead wall is 16 tiles, unreplenished")
    ConcealedFully: int = Field(DBL, ge=0, description="score: score for fully concealed hand")
    ConcealedAlmost: int = Field(0, ge=0, description="score: score for almost concealed hand")
    LosersPurity: bool = Field(False, description="bool: losing hands score doubles for pure, concealed etc.")
    KongHas3Types: bool = Field(False, description="bool: claimed kongs count as concealed for doubling")
    EastDoubles: bool = Field(True, description="bool: east pays and receives double")
    LosersSettle: bool = Field(True, description="bool: losers pay each other")
    DiscDoubles: bool = Field(False, description="bool: the discarder pays double")
    ShowOnWashout: bool = Field(False, description="bool: tiles revealed on washout")
    NumRounds: int = Field(4, ge=1, description="nat: number of rounds to play (1, 2 or a multiple of 4)")

    # mjref's own options, beyond mj-server's: the points where Kajongg's Classical Chinese DMJL scores otherwise.
    # Their defaults are mj-server's behaviour; the dmjl preset sets them.
    OnlyPlaceCountsExposed: bool = Field(
        True, description="bool: filling the only place: a tile whose four copies are all face up is no place")
    LooseTileFromWall: bool = Field(
        False, description="bool: a win on a loose tile also scores the points for winning from the wall")
    LastTileOnLoose: bool = Field(
        True, description="bool: a win on a loose tile drawn when the live wall is used up scores the last-tile "
        "double")
    ScholarsNoChows: bool = Field(
        True, description="bool: the Three Great Scholars limit needs a hand without chows")
    EastWinsLimit: int = Field(
        13, ge=0, description="nat: East's consecutive win that is a limit hand (0: none)")

    @field_validator("*")
    @classmethod
    def _c_int(cls, v: Any) -> Any:
        if type(v) is int and v > C_INT_MAX:  # every number option (strict: a bool field holds a bool)
            raise ValueError(f"out of range (at most {C_INT_MAX}: mj-server and its clients keep it in a C int)")
        return v

    @field_validator("NumRounds")
    @classmethod
    def _rounds(cls, v: int) -> int:
        if v not in (1, 2) and v % 4:
            raise ValueError("the number of rounds is 1, 2 or a multiple of 4")
        return v

    @classmethod
    def kind(cls, name: str) -> OptionType:
        """The option's mj-server type (``bool``, ``nat``, ``score``...), from its description."""
        return _KINDS[name]

    @classmethod
    def from_option_lines(cls, lines: Iterable[tuple[int, str]], where: str) -> GameOptions:
        """The options set by ``GameOption`` lines (numbered), over the defaults; ``where`` names the file."""
        return cls.from_options(((n, *parse_option_line(line, f"{where}:{n}")) for n, line in lines), where)

    @classmethod
    def from_options(cls, options: Iterable[tuple[int, str, Any]], where: str) -> GameOptions:
        """The options of ``GameOption`` lines read by ``parse_option_line`` (line number, name, value), over the
        defaults; ``where`` names the file."""
        values: dict[str, Any] = {}
        for n, name, value in options:
            if name == "End":
                continue
            if name in values:
                raise InputError(f"{where}:{n}: option {name} is set twice")
            values[name] = value
        try:
            return cls(**values)
        except ValidationError as e:
            _, field, reason = validation_reason(e)
            raise InputError(f"{where}: option {field}: {reason}") from None


# Each option's mj-server type, from its description (``GameOptions.kind``).
_KINDS: dict[str, OptionType] = {
    name: (f.description or "").split(":", 1)[0] for name, f in GameOptions.model_fields.items()  # type: ignore[misc]
}


def parse_option_line(line: str, where: str) -> tuple[str, Any]:
    """(name, value) of one ``GameOption 0 NAME TYPE MINPROT ENABLED VALUE DESC`` line."""
    f = line.split(None, 7)
    if len(f) < 7 or f[0] != "GameOption":
        raise InputError(f"{where}: not a GameOption line (GameOption 0 NAME TYPE MINPROT ENABLED VALUE DESC)")
    _, _, name, typ, minprot, enabled, raw = f[:7]
    if name == "End":
        return name, None
    kind = _KINDS.get(name)
    if kind is None:
        raise InputError(f"{where}: unknown game option {name!r} (known: {', '.join(GameOptions.model_fields)})")
    if typ != kind:
        raise InputError(f"{where}: option {name} is of type {kind}, not {typ!r}")
    for label, text in (("minimum protocol version", minprot), ("enabled flag", enabled), ("value", raw)):
        digits = text.removeprefix("-")
        if not (digits.isascii() and digits.isdigit()):
            raise InputError(f"{where}: option {name}: the {label} {text!r} is not an integer")
        if len(digits) > 10 or int(digits) > C_INT_MAX:
            raise InputError(f"{where}: option {name}: the {label} {text} is out of range (a C int: at most "
                             f"{C_INT_MAX})")
    v = int(raw)
    if typ == "bool":
        if v not in (0, 1):
            raise InputError(f"{where}: option {name} is a bool: its value is 0 or 1, not {v}")
        return name, bool(v)
    if v < 0:
        raise InputError(f"{where}: option {name} cannot be negative ({v})")
    return name, v


def parse_option_file(text: str, where: str) -> GameOptions:
    """An mj-server option file as it is: ``GameOption`` lines (blank lines ignored)."""
    return GameOptions.from_option_lines(
        ((n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()), where)

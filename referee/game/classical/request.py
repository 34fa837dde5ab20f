"""A Chinese Classical scoring request (``mjref score --rules classical``): one player's tiles and situation as a
JSON object, answered with mj-server's explanation of the best declaration of its undeclared tiles.

Sets already declared are written as mj-server writes them (``RD-RD-RD`` an exposed pung, ``5C+5C+5C`` a closed
one, ``WD-WD-WD+WD`` a claimed kong, ``2B+2B+2B+2B`` a concealed kong, ``3C-4C-5C`` a chow, ``GD-GD`` a claimed
pair); tiles are mj-server's codes (``5C``, ``EW``, ``RD``, ``1F``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from referee.errors import InputError
from referee.game.classical.arrange import best_arrangement
from referee.game.classical.hand import Hand, TileSet
from referee.game.classical.options import GameOptions
from referee.game.classical.scoring import Situation
from referee.game.classical.tiles import ALL, PLAYING, SPECIALS, WINDS, step
from referee.validation import validation_reason

SEATS = ("EAST", "SOUTH", "WEST", "NORTH")


def parse_set(text: str) -> TileSet:
    """A declared set from mj-server's text of it."""
    parts = text.replace("+", "-").split("-")
    closed = "+" in text
    if any(p not in PLAYING for p in parts):
        raise ValueError(f"set {text!r}: tiles are mj-server codes such as 5C, EW, RD")
    n = len(parts)
    if n == 3 and parts[1] == step(parts[0], 1) and parts[2] == step(parts[0], 2):
        return TileSet("ClosedChow" if closed else "Chow", parts[0])
    if len(set(parts)) != 1 or n not in (2, 3, 4):
        raise ValueError(f"set {text!r} is not a chow, pung, kong or pair")
    t = parts[0]
    if n == 4:
        if text == "-".join(parts[:3]) + "+" + t:
            return TileSet("Kong", t)
        if "+" not in text:
            return TileSet("Kong", t, annexed=True)
        return TileSet("ClosedKong", t)
    kind = {2: "Pair", 3: "Pung"}[n]
    return TileSet(("Closed" + kind) if closed else kind, t)  # type: ignore[arg-type]


class ClassicalRequest(BaseModel):
    """One player's hand to score."""

    model_config = ConfigDict(extra="forbid")

    seat_wind: Literal["EAST", "SOUTH", "WEST", "NORTH"] = Field(description="the player's seat (EAST deals)")
    round_wind: Literal["EAST", "SOUTH", "WEST", "NORTH"] = "EAST"
    winner: bool = Field(True, description="the player went Mah-Jong")
    concealed: list[str] = Field(description="undeclared tiles (a winner's include the completing tile)")
    sets: list[str] = Field(default_factory=list, description="sets declared during play, as mj-server writes them")
    specials: list[str] = Field(default_factory=list, description="flowers and seasons (1F-4F, 1S-4S)")
    how: Literal["wall", "discard", "loose", "robbed"] = Field("wall", description="how the hand was completed")
    winning_tile: str | None = Field(None, description="the tile that completed the hand (winner only)")
    last_tile: bool = Field(False, description="the live wall was used up")
    original_call: bool = False
    first_turn: bool = Field(False, description="won before anybody discarded: Heaven's or Earth's Blessing")
    kong_upon_kong: bool = False
    hands_as_east: int = Field(0, ge=0, le=1000, description="East's consecutive wins before this hand")

    @field_validator("concealed", "specials")
    @classmethod
    def _tiles(cls, v: list[str]) -> list[str]:
        for t in v:
            if t not in ALL:
                raise ValueError(f"{t!r} is not a tile code (5C, 9B, 1D, EW, RD, 1F, 1S)")
        if len(v) > 18:
            raise ValueError("more than 18 tiles")
        return v

    @field_validator("specials")
    @classmethod
    def _specials(cls, v: list[str]) -> list[str]:
        for t in v:
            if t not in SPECIALS:
                raise ValueError(f"{t!r} is not a flower or season")
        return v

    def situation(self) -> Situation:
        seat = SEATS.index(self.seat_wind)
        no_discard = (self.first_turn,) * 4 if self.first_turn else (False,) * 4
        return Situation(seat=seat, round_wind=WINDS[SEATS.index(self.round_wind)], winner=self.winner,
                         whence=self.how, tile=self.winning_tile, last_tile=self.last_tile,
                         exactly_last=self.last_tile, original_call=self.original_call,
                         no_discard=no_discard, kong_upon_kong=self.kong_upon_kong,  # type: ignore[arg-type]
                         hands_as_east=self.hands_as_east)


def score_classical(data: Any, options: GameOptions) -> dict[str, Any]:
    """Score a request (a parsed JSON object): the best declaration and mj-server's explanation of it."""
    try:
        req = ClassicalRequest.model_validate(data)
        sets = [parse_set(s) for s in req.sets]
    except ValidationError as e:
        _, field, reason = validation_reason(e)
        raise InputError(f"{field or 'request'}: {reason}") from None
    except ValueError as e:
        raise InputError(f"sets: {e}") from None
    if req.winner and req.winning_tile is None:
        raise InputError("winning_tile: a winner's completing tile is needed")
    if req.winner and req.winning_tile not in req.concealed:
        raise InputError("winning_tile: a winner's concealed tiles include the completing tile")
    held = Counter(req.concealed)
    for ts in sets:
        held.update(ts.tiles())
    too_many = next((t for t, n in held.items() if n > 4), None)
    if too_many is not None:
        raise InputError(f"concealed and sets: {held[too_many]} copies of {too_many} (there are 4)")
    twice = next((t for t, n in Counter(req.specials).items() if n > 1), None)
    if twice is not None:
        raise InputError(f"specials: {twice} twice (there is one of each flower and season)")
    hand = Hand(list(req.concealed), sets, list(req.specials))
    try:
        declared, score = best_arrangement(hand, req.situation(), options)
    except ValueError as e:
        raise InputError(f"concealed: {e}") from None
    return {"family": "classical", "score": score.value, "explanation": list(score.explanation),
            "declared": [s.text() for s in declared.sets], "concealed": declared.concealed}

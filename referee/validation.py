"""How mjref reads pydantic's validation errors: one place for every message that names a bad field (a rule
option, a bot file's field, a log record's, a network frame's, a score request's).  Not in ``referee.errors``,
which bots import and which imports nothing."""

from __future__ import annotations

from pydantic import ValidationError


def validation_reason(exc: ValidationError) -> tuple[str, str, str]:
    """The first error of a pydantic ``ValidationError`` as (its type, the field's place such as
    ``melds[0].tiles``, or "" for the whole document, and the reason): the one reading of pydantic's errors behind
    every message that names a bad field.  The reason drops pydantic's "Value
    error, " and, for a value of the wrong type, names the value given (``flowers = 1``: "Input should be a valid
    boolean, not 1")."""
    err = exc.errors()[0]
    kind = str(err["type"])
    msg = str(err["msg"]).removeprefix("Value error, ")
    if kind.endswith("_type") and "input" in err:  # the reason alone does not say what was given
        msg += f", not {_shown(err['input'])}"
    loc = ""
    for part in err["loc"]:
        loc += f"[{part}]" if isinstance(part, int) else ("." if loc else "") + str(part)
    return kind, loc, msg


def _shown(value: object) -> str:
    """A value as a TOML or JSON file would have it (``true``, not ``True``), at most 60 characters."""
    text = "true" if value is True else "false" if value is False else "null" if value is None else repr(value)
    return text if len(text) <= 60 else text[:59] + "…"

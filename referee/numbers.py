"""The one reading of a number written by a user or a bot: ASCII digits only.

Python's ``int()`` and ``float()`` accept far more than a person means by a number: full-width and other Unicode
digits (``int("２３") == 23``), underscores (``"1_000"``), surrounding blanks.  A line, an option or a field that
says ``２３`` is a typo or an attack, never 23, so every place where text from outside (a command-line option, a
bot spec, a log, a network address) becomes a number reads it here, and an error names what was being read.

``int_arg`` and ``float_arg`` are the same for argparse's ``type=``: argparse prints ``argument --seed: ...`` and
exits 2.  (The bot protocol's lines are checked for plain ASCII before any token is read: ``wrappers.codec``.)
"""

from __future__ import annotations

from referee import TYPE_CHECKING
from referee.errors import InputError

if TYPE_CHECKING:
    import re

_FLOAT_PATTERN = r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)"
_float_re: re.Pattern[str] | None = None  # compiled on first use: ``re`` is no part of a bot start
_MAX_DIGITS = 4300  # Python's own limit for int(str): past it int() raises, and nobody means such a number


def is_int_text(text: str, *, signed: bool = True) -> bool:
    """``text`` is a whole number in ASCII digits (with one optional sign if ``signed``), nothing else."""
    digits = text[1:] if signed and text[:1] in ("+", "-") else text
    # str.isdigit() alone takes "²" and "٣": only ASCII text whose every character is a digit is 0-9
    return digits.isascii() and digits.isdigit() and len(text) <= _MAX_DIGITS


def is_float_text(text: str) -> bool:
    """``text`` is a number in ASCII (digits, one point, an exponent, ``inf`` or ``nan``), nothing else."""
    global _float_re
    if _float_re is None:
        import re

        _float_re = re.compile(_FLOAT_PATTERN, re.IGNORECASE)
    return _float_re.fullmatch(text) is not None and len(text) <= _MAX_DIGITS


def parse_int(text: str, what: str, *, signed: bool = True) -> int:
    """``text`` as a whole number, or an :class:`InputError` naming ``what``: ASCII digits only."""
    if not isinstance(text, str) or not is_int_text(text, signed=signed):
        sign = ", an optional sign" if signed else ""
        raise InputError(f"{what}: {text!r} is not a whole number (ASCII digits{sign})")
    return int(text)


def parse_float(text: str, what: str) -> float:
    """``text`` as a number, or an :class:`InputError` naming ``what``: ASCII digits, a point, an exponent."""
    if not isinstance(text, str) or not is_float_text(text):
        raise InputError(f"{what}: {text!r} is not a number (ASCII digits, e.g. 2.5)")
    return float(text)


def int_arg(text: str) -> int:
    """argparse's ``type=`` for a whole number (``argument --seed: '１' is not a whole number ...``)."""
    if not is_int_text(text):
        import argparse  # here: a bot process reads its numbers with this module and need not load argparse

        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (ASCII digits, an optional sign)")
    return int(text)


def float_arg(text: str) -> float:
    """argparse's ``type=`` for a number."""
    if not is_float_text(text):
        import argparse

        raise argparse.ArgumentTypeError(f"{text!r} is not a number (ASCII digits, e.g. 2.5)")
    return float(text)


__all__ = ["count", "float_arg", "int_arg", "is_float_text", "is_int_text", "parse_float", "parse_int"]


def count(n: int, one: str, many: str | None = None) -> str:
    """The one way a message counts things: ``1 match``, ``2 matches``, ``1 hand``, ``0 hands`` (``many``: the
    plural when it is not ``one`` + s)."""
    return f"{n} {one if n == 1 else (many or one + 's')}"

"""The one root of every error that a user's input can cause, and nothing else.

``mjref`` turns exactly these into one line on stderr and exit status 2 (``referee.cli``); any other exception is a
bug in mjref and keeps its traceback.  This module imports nothing, so that every floor, the pure game included, can
raise these without importing anything above it.

The subclasses say whose input was bad:

* ``InputError``: a file, an argument, a field or a line (a TOML file, a log, a ruleset option, a seed);
* ``BotError``: a bot that cannot be used as given (an unknown built-in, a bad parameter, a missing executable);
* ``StoreError``: a results store that cannot be used (damaged, foreign, locked by another runner).

``InputError`` is also a ``ValueError`` so that pydantic validators may raise it and have it reported as a
validation error of the field.

``printable`` is the one escaping of text quoted in a message: ``referee.cli`` applies it to every error line it
prints, so that control characters and ANSI escapes from a log, a bot or a TOML file never reach the terminal raw.
"""

from __future__ import annotations

USAGE_ERROR = 2  # the exit status of bad usage or bad input: an MjrefError, or an argument argparse refuses


def printable(text: object) -> str:
    """``text`` safe to print on a terminal: every character that is not printable (a control character, an ANSI
    escape's ESC, a newline, a bidi override, a lone surrogate) is shown escaped as in a Python literal (``\\x1b``,
    ``\\n``, ``\\u202e``); printable Unicode (a Chinese file name) stays as it is.  Messages quote logs, bot
    output, TOML files and network frames; this keeps them to one harmless line."""
    s = str(text)
    if s.isprintable():
        return s
    return "".join(ch if ch.isprintable() else escaped_char(ch) for ch in s)


def escaped_char(ch: str) -> str:
    """One character as a Python string literal shows it (``\\x1b``, ``\\n``, ``\\u202e``): the one escape of a
    character, for ``printable`` and for the protocol codec's reasons (``wrappers.codec.cut``)."""
    if ch in "\n\r\t":
        return repr(ch)[1:-1]
    o = ord(ch)
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"


class MjrefError(Exception):
    """Something the user gave cannot be used; the message names the file, field or line, in one line."""


class InputError(MjrefError, ValueError):
    """A bad file, argument, field or line."""


class BotError(InputError):
    """A bot that cannot be used as it is given."""


class StoreError(InputError):
    """A results store that cannot be used."""

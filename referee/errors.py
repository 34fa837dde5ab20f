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
"""

from __future__ import annotations


class MjrefError(Exception):
    """Something the user gave cannot be used; the message names the file, field or line, in one line."""


class InputError(MjrefError, ValueError):
    """A bad file, argument, field or line."""


class BotError(InputError):
    """A bot that cannot be used as it is given."""


class StoreError(InputError):
    """A results store that cannot be used."""

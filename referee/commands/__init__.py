"""The subcommands of ``mjref``: each module has ``register(subparsers)`` and stays a thin face over library calls."""

from __future__ import annotations

import sys

USAGE_ERROR = 2  # the exit status of bad usage or bad input


def fail(command: str, message: str) -> int:
    """Say why on one line, ``mjref COMMAND: message``, on stderr; return the exit status for bad usage or input."""
    print(f"mjref {command}: {message}", file=sys.stderr)
    return USAGE_ERROR

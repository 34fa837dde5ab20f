"""The subcommands of ``mjref``: each module has ``register(subparsers)`` and stays a thin face over library calls."""

from __future__ import annotations

import sys

from referee.aio import first_leaf, is_interrupt

USAGE_ERROR = 2  # the exit status of bad usage or bad input


def fail(command: str, message: str) -> int:
    """Say why on one line, ``mjref COMMAND: message``, on stderr; return the exit status for bad usage or input."""
    print(f"mjref {command}: {message}", file=sys.stderr)
    return USAGE_ERROR


def stopped(command: str, exc: BaseException, recorded: str) -> int:
    """A long run (tournament, regression) ended by ``exc``: a Ctrl-C (exit 130) or a failure such as a lost
    worker (exit 2), said in one line with what is kept (``recorded``: "N matches are recorded in STORE") and how
    to go on.  Anything else (SystemExit, a cancellation) is raised again."""
    if is_interrupt(exc):
        print(f"\nmjref {command}: stopped; {recorded}. Run the same command again to resume.", file=sys.stderr)
        return 130
    if not isinstance(exc, Exception):
        raise exc
    leaf = first_leaf(exc)
    print(f"mjref {command}: {type(leaf).__name__}: {leaf}; {recorded}. Run the same command again to resume.",
          file=sys.stderr)
    return USAGE_ERROR

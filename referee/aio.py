"""Small helpers for trio's exception groups.

Since trio 0.25 a nursery always wraps what its tasks raise in an exception group, even a single error.  Library
code that promises ``RefeedError`` or ``MatchError`` unwraps a group of one with :func:`unwrap_single`; commands
use :func:`first_leaf` and :func:`is_interrupt` to report a failure or a Ctrl-C that arrives inside a group.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


def leaves(exc: BaseException) -> list[BaseException]:
    """Every exception inside ``exc``, groups flattened."""
    if isinstance(exc, BaseExceptionGroup):
        out: list[BaseException] = []
        for e in exc.exceptions:
            out.extend(leaves(e))
        return out
    return [exc]


def first_leaf(exc: BaseException) -> BaseException:
    found = leaves(exc)
    return found[0] if found else exc


def is_interrupt(exc: BaseException) -> bool:
    """True if ``exc`` is, or a group holds, a KeyboardInterrupt."""
    return any(isinstance(e, KeyboardInterrupt) for e in leaves(exc))


@contextmanager
def unwrap_single() -> Iterator[None]:
    """Re-raise a group holding exactly one exception as that exception."""
    try:
        yield
    except BaseExceptionGroup as group:
        found = leaves(group)
        if len(found) == 1:
            raise found[0] from None
        raise

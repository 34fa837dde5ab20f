"""The secret tokens mjref hands out (a seat's at ``serve`` and ``play``, an author's in a league's register)."""

from __future__ import annotations

import secrets


def new_token() -> str:
    """A random URL-safe token that never starts with '-': one in 64 would, and ``--token -x…`` reads as an option
    on a command line."""
    while (token := secrets.token_urlsafe(24)).startswith("-"):
        pass
    return token

"""Built-in policies.  Each module also runs as an ICGA protocol executable: ``python -m bots.greedy``.

``make_policy(spec)`` and ``BUILTIN_NAMES`` live in ``bots.base`` and are re-exported here lazily, so that
``python -m bots.greedy`` does not import the policy modules before running one of them as ``__main__``.
"""

from __future__ import annotations

from referee.game.types import TYPE_CHECKING

if TYPE_CHECKING:  # ``typing`` is no part of a bot's start (see ``referee.game.kinds``)
    from typing import Any

__all__ = ["BUILTIN_NAMES", "DEFAULT_DUMMY", "Policy", "make_policy", "parse_spec"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from bots import base

        return getattr(base, name)
    raise AttributeError(f"module 'bots' has no attribute {name!r}")

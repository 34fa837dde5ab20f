"""The policy interface every built-in bot implements, and the registry that builds one from a spec string.

A policy is a pure function of one seat's view (``referee.game.view.SeatView``, folded only from the events
that seat was sent) and the question asked: it never sees the engine.  The same policy object plays in-process
(``wrappers.seat.BuiltinSeat``) and as a protocol executable (``bots.stdio``, ``python -m bots.greedy``).

Specs: a built-in name, optionally with parameters, ``greedy:chowness=0.2,hiddenness=0.8``.  Parameter values
are numbers from 0 to 1.  ``make_policy`` raises ``BotError`` (a ``ValueError``) with a one-line reason naming the
parameter and what is known.

Randomness: a policy that needs it keeps a ``random.Random`` reseeded in ``start_hand`` from
``wall.hand_rng(seed, hand, f"bot/{name}/{position}").next()``, so that the same match seed, hand and seat
give the same choices, in-process or as a process.
"""

from __future__ import annotations

import importlib
import math
import random as _stdlib_random
from collections.abc import Mapping, Sequence

from referee.errors import BotError
from referee.game.types import TYPE_CHECKING, Answer
from referee.game.view import SeatView
from referee.game.wall import hand_rng
from referee.numbers import is_float_text

if TYPE_CHECKING:  # ``typing`` is no part of a bot's start (see ``referee.game.kinds``)
    from typing import Any, ClassVar

    from wrappers.seat import Policy  # the one interface; re-exported for bot authors (below, on first use)


def __getattr__(name: str) -> Any:
    """``bots.base.Policy``, imported only when asked for: ``wrappers.seat`` (seats, faults, replies) is no part
    of a bot process's start."""
    if name == "Policy":
        from wrappers.seat import Policy

        return Policy
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def policy_rng(seed: int, hand: int, name: str, position: int) -> _stdlib_random.Random:
    """The per-hand ``random.Random`` of bot ``name`` at ``position`` (see the module docstring)."""
    return _stdlib_random.Random(hand_rng(seed, hand, f"bot/{name}/{position}").next())


class BasePolicy:
    """Shared plumbing: a name, declared parameters (``PARAMS``: name → default), a per-hand generator."""

    name: str = "base"
    PARAMS: ClassVar[Mapping[str, float]] = {}
    STAND_IN_ONLY: ClassVar[bool] = False  # a stand-in after faults (dead_hand), never an opponent that fills a seat

    def __init__(self) -> None:
        self.rng = _stdlib_random.Random(0)

    def start_hand(self, seed: int, hand: int, position: int) -> None:
        self.rng = policy_rng(seed, hand, self.name, position)

    @property
    def params(self) -> dict[str, float]:
        return {k: float(getattr(self, k)) for k in self.PARAMS}

    @property
    def spec(self) -> str:
        """The canonical spec string that rebuilds this policy (parameters only when not at their default)."""
        changed = [f"{k}={v!r}" for k, v in self.params.items() if v != self.PARAMS[k]]
        return self.name + (":" + ",".join(changed) if changed else "")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"

    def decide(self, view: SeatView, ask: str, legal: Sequence[Answer]) -> Answer:  # pragma: no cover
        raise NotImplementedError


# ------------------------------------------------------------------------------------------------ registry
# name → (module, class).  Imported lazily, so that importing ``bots`` stays cheap and ``python -m bots.greedy``
# does not find ``bots.greedy`` already imported when runpy starts it as ``__main__`` (a RuntimeWarning).
_REGISTRY: dict[str, tuple[str, str]] = {
    "dead_hand": ("bots.dead_hand", "DeadHand"),
    "drawdiscard": ("bots.drawdiscard", "DrawDiscard"),
    "greedy": ("bots.greedy", "Greedy"),
    "random": ("bots.random", "RandomPolicy"),
}
BUILTIN_NAMES: frozenset[str] = frozenset(_REGISTRY)
DEFAULT_DUMMY = "greedy"  # the bot that fills empty seats when the ruleset's stand-in cannot (see seat_filler)


def policy_class(name: str) -> type[BasePolicy]:
    """The class of built-in bot ``name``; ``BotError`` for an unknown name."""
    entry = _REGISTRY.get(name)
    if entry is None:
        raise BotError(f"unknown bot {name!r} (known: {', '.join(sorted(BUILTIN_NAMES))})")
    cls: type[BasePolicy] = getattr(importlib.import_module(entry[0]), entry[1])
    return cls


def seat_filler(default_dummy: str) -> str:
    """The built-in that fills the empty seats of a match or a tournament table.

    The ruleset's ``default_dummy`` does, as it always did, unless it is a stand-in only (``dead_hand``: a seat
    that never claims and never wins is no opponent to test a bot against); then ``DEFAULT_DUMMY`` (greedy) does.
    ``BotError`` for an unknown name.
    """
    return DEFAULT_DUMMY if policy_class(parse_spec(default_dummy)[0]).STAND_IN_ONLY else default_dummy


def parse_spec(spec: str) -> tuple[str, dict[str, float]]:
    """Split ``name:key=value,…`` into the name and its parameters, checked against the bot's ``PARAMS``."""
    if not isinstance(spec, str) or not spec.strip():
        raise BotError(f"empty bot spec (known: {', '.join(sorted(BUILTIN_NAMES))})")
    name, sep, rest = spec.strip().partition(":")
    cls = policy_class(name)
    known = sorted(cls.PARAMS)
    known_text = f"known: {', '.join(known)}" if known else "it takes none"
    params_text = f"parameters of {name}: {', '.join(known) if known else 'none'}"
    params: dict[str, float] = {}
    if sep and not rest.strip():
        raise BotError(f"bot spec {spec!r}: nothing after ':' ({params_text})")
    for item in rest.split(",") if sep else ():
        key, eq, raw = item.partition("=")
        key, raw = key.strip(), raw.strip()
        if not eq or not key:
            raise BotError(f"bot spec {spec!r}: {item.strip()!r} is not NAME=VALUE ({params_text})")
        if key not in cls.PARAMS:
            raise BotError(f"unknown parameter {key!r} for bot {name} ({known_text})")
        if key in params:
            raise BotError(f"bot spec {spec!r}: parameter {key!r} given twice")
        value = float(raw) if is_float_text(raw) else math.nan  # ASCII digits only: not "１" (referee.numbers)
        if not 0.0 <= value <= 1.0:
            raise BotError(f"bot {name}: parameter {key}={raw!r} must be a number from 0 to 1 (known parameters: "
                           f"{', '.join(known) if known else 'none'})")
        params[key] = value
    return name, params


def make_policy(spec: str) -> BasePolicy:
    """A fresh policy from a spec such as ``greedy`` or ``greedy:chowness=0.2,hiddenness=0.8``."""
    name, params = parse_spec(spec)
    return policy_class(name)(**params)


def pick(legal: Sequence[Answer], wanted: Answer | None) -> Answer:
    """``wanted`` if legal, else a safe legal fallback (``/pass`` when allowed, else the first answer)."""
    if wanted is not None and wanted in legal:
        return wanted
    for a in legal:
        if a.kind == "pass":
            return a
    return legal[0]


__all__ = [
    "BUILTIN_NAMES",
    "DEFAULT_DUMMY",
    "BasePolicy",
    "Policy",
    "make_policy",
    "parse_spec",
    "pick",
    "policy_class",
    "policy_rng",
    "seat_filler",
]

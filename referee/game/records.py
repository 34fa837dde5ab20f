"""``record``: ``dataclasses.dataclass`` for the many small record classes made at import, at a fraction of its cost.

A ``@dataclass(slots=True)`` costs about half a millisecond to define (a frozen one a millisecond): the dataclass
module compiles an ``__init__``, a ``__repr__``, an ``__eq__`` (and a frozen class's ``__setattr__``,
``__delattr__`` and ``__hash__``) from source for every class, and ``inspect.signature`` writes the docstring of a
class without one.  mjref's start defines some two hundred of them (mj-server's messages alone are 87), which was a
tenth of ``mjref match``'s start.  ``record`` makes the same class: a real dataclass (``dataclasses.fields``,
``replace``, ``asdict`` and ``is_dataclass`` see it as one), with the
same slots, ``__init__`` signature, equality, hash, repr, ``__match_args__``, immutability and pickling; only the
``__init__`` is compiled once per shape of class (the names of its fields, frozen or not), each class getting its own
function of that code (its defaults, its qualified name), and the other methods are closures over the field names.

Only what these records use is taken: fields with plain defaults; a ``field(...)``, a keyword-only field or a
``__post_init__`` is a ``TypeError`` at the definition (and an ``InitVar`` is not taken: use ``dataclass``).  A
frozen record is made frozen here, not by dataclass, so its ``__dataclass_params__.frozen`` is False (as its bases'
are: dataclass refuses a frozen class whose bases are not, and the other way round); nothing reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, Field, FrozenInstanceError, dataclass, fields
from operator import attrgetter
from reprlib import recursive_repr
from types import CodeType, FunctionType
from typing import Any, TypeVar

T = TypeVar("T", bound=type)

# The methods' globals: what the generated code names, nothing of any module.
_GLOBALS: dict[str, Any] = {"__builtins__": __builtins__, "__dataclass_builtins_object__": object}
_INITS: dict[tuple[tuple[str, ...], bool], CodeType] = {}  # (field names, frozen) -> the code of their __init__


def record(cls: T | None = None, /, *, frozen: bool = False, slots: bool = False) -> Any:
    """``@record(slots=True)``, ``@record(frozen=True, slots=True)``: as ``@dataclass`` with the same arguments."""

    def wrap(c: T) -> T:
        return _record(c, frozen, slots)

    return wrap if cls is None else wrap(cls)


def _record(cls: T, frozen: bool, slots: bool) -> T:
    own = dict(cls.__dict__)
    if "__post_init__" in own or any(isinstance(v, Field) for v in own.values()):
        raise TypeError(f"record {cls.__qualname__}: no field(...) nor __post_init__ (use dataclasses.dataclass)")
    class_hash = own.get("__hash__", MISSING)
    explicit_hash = not (class_hash is MISSING or (class_hash is None and "__eq__" in own))
    documented = bool(own.get("__doc__"))
    if not documented:
        cls.__doc__ = "-"  # for now: without one, dataclass writes it with inspect.signature, the slowest of all
    new: Any = dataclass(cls, init=False, repr=False, eq=False, slots=slots)  # type: ignore[call-overload]
    params = new.__dataclass_params__
    params.init = params.repr = params.eq = True  # what it has (its frozen stays False: see the docstring)
    flds = fields(new)
    names = tuple(f.name for f in flds)
    defaults: list[Any] = []
    for f in flds:
        if f.default_factory is not MISSING or not f.init or f.kw_only:
            raise TypeError(f"record {cls.__qualname__}.{f.name}: only plain defaults (use dataclasses.dataclass)")
        if f.default is not MISSING:
            defaults.append(f.default)
        elif defaults:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
    get = _values(names)
    qualname, module = new.__qualname__, new.__module__

    def method(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.__qualname__ = f"{qualname}.{fn.__name__}"
        fn.__module__ = module
        return fn

    if "__init__" not in own:
        code = _INITS.get((names, frozen)) or _compile_init(names, frozen)
        init = method(FunctionType(code, _GLOBALS, "__init__", tuple(defaults) or None))
        init.__annotations__ = {**{f.name: f.type for f in flds}, "return": None}
        new.__init__ = init
    if "__repr__" not in own:
        new.__repr__ = recursive_repr()(method(_repr(names)))
    if "__eq__" not in own:
        new.__eq__ = method(_eq(get))
    if not explicit_hash:
        new.__hash__ = method(_hash(get)) if frozen else None
    if frozen:
        if "__setattr__" in own or "__delattr__" in own:
            raise TypeError(f"Cannot overwrite attribute __setattr__ or __delattr__ in class {cls.__name__}")
        new.__setattr__ = _frozen_setattr
        new.__delattr__ = _frozen_delattr
        if slots:  # for pickling, as dataclass's: the state is the fields' values, set past __setattr__
            if "__getstate__" not in own:
                new.__getstate__ = _getstate
            if "__setstate__" not in own:
                new.__setstate__ = _setstate
    if not documented:
        sig = ", ".join(f"{f.name}: {f.type!r}" + ("" if f.default is MISSING else f" = {f.default!r}") for f in flds)
        new.__doc__ = f"{new.__name__}({sig})"
    return new  # type: ignore[no-any-return]


def _compile_init(names: tuple[str, ...], frozen: bool) -> CodeType:
    """The code of the ``__init__`` of a record with these fields, as dataclass writes it (its ``_init_fn``)."""
    if frozen:
        sets = [f"  __dataclass_builtins_object__.__setattr__(self,{n!r},{n})" for n in names]
    else:
        sets = [f"  self.{n}={n}" for n in names]
    source = "\n".join([f"def __init__(self{''.join(f', {n}' for n in names)}):", *(sets or ["  pass"]), ""])
    code = next(c for c in compile(source, "<record>", "exec").co_consts if isinstance(c, CodeType))
    _INITS[names, frozen] = code
    return code


def _values(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A record's fields' values as a tuple: what dataclass's ``__eq__`` compares and its ``__hash__`` hashes."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _repr(names: tuple[str, ...]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        return f"{self.__class__.__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in names)})"

    return __repr__


def _eq(get: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return get(self) == get(other)
        return NotImplemented

    return __eq__


def _hash(get: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(get(self))

    return __hash__


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, f.name) for f in fields(self)]


def _setstate(self: Any, state: list[Any]) -> None:
    for f, value in zip(fields(self), state):
        object.__setattr__(self, f.name, value)

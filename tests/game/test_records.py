"""``referee.game.records.record`` makes the class ``dataclasses.dataclass`` makes: the same behaviour, pinned here
against dataclass itself for each kind of record mjref defines (plain and frozen, slotted or not, with defaults,
inheritance and class variables)."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from typing import Any, ClassVar

import pytest

from referee.game.records import record


def _pair(frozen: bool, slots: bool) -> tuple[type, type, type, type]:
    """The same two classes (a base and a subclass with a default), once by dataclass and once by record."""
    out = []
    for make in (dataclasses.dataclass, record):

        @make(frozen=frozen, slots=slots)
        class Base:
            """A base."""

            KIND: ClassVar[str] = "base"
            kind: str
            line: int

        @make(frozen=frozen, slots=slots)
        class Sub(Base):
            id: int
            tiles: tuple[str, ...]
            cpos: str | None = None
            flag: bool = False

        out += [Base, Sub]
    return out[0], out[1], out[2], out[3]


KINDS = [(False, True), (True, True), (False, False), (True, False)]


@pytest.mark.parametrize("frozen,slots", KINDS)
def test_a_record_behaves_as_the_dataclass(frozen: bool, slots: bool) -> None:
    dc_base, dc_sub, rc_base, rc_sub = _pair(frozen, slots)
    assert dataclasses.is_dataclass(rc_sub)
    assert [(f.name, f.type, f.default) for f in dataclasses.fields(rc_sub)] == \
        [(f.name, f.type, f.default) for f in dataclasses.fields(dc_sub)]
    assert str(inspect.signature(rc_sub)) == str(inspect.signature(dc_sub))
    assert rc_sub.__match_args__ == dc_sub.__match_args__
    assert rc_sub.__doc__ == dc_sub.__doc__ and rc_base.__doc__ == dc_base.__doc__ == "A base."
    assert rc_sub.__init__.__qualname__ == dc_sub.__init__.__qualname__
    assert rc_sub.KIND == "base"
    for dc, rc in ((dc_base, rc_base), (dc_sub, rc_sub)):
        assert ("__slots__" in rc.__dict__) == ("__slots__" in dc.__dict__) == slots
        assert rc.__dict__.get("__slots__") == dc.__dict__.get("__slots__")
        assert (rc.__hash__ is None) == (dc.__hash__ is None) == (not frozen)

    args: tuple[Any, ...] = ("PlayerDraws", 7, 2, ("1C", "2C"))
    a, b = rc_sub(*args), rc_sub(*args, cpos="Lower")
    assert repr(a) == repr(dc_sub(*args)).replace(dc_sub.__qualname__, rc_sub.__qualname__)
    assert repr(b) == "_pair.<locals>.Sub(kind='PlayerDraws', line=7, id=2, tiles=('1C', '2C'), cpos='Lower', " \
        "flag=False)"
    assert a == rc_sub(*args) and a != b and a != dc_sub(*args) and a != rc_base("PlayerDraws", 7)
    assert rc_sub(kind="k", line=1, id=2, tiles=()) == rc_sub("k", 1, 2, ())
    if frozen:
        assert hash(a) == hash(rc_sub(*args)) == hash(dc_sub(*args))
        with pytest.raises(dataclasses.FrozenInstanceError):
            a.line = 8  # type: ignore[misc]
        with pytest.raises(dataclasses.FrozenInstanceError):
            del a.line  # type: ignore[misc]
    else:
        with pytest.raises(TypeError):
            hash(a)
        a.line = 8
        assert a.line == 8 and a != rc_sub(*args)
    if slots:
        with pytest.raises((AttributeError, TypeError)):
            a.other = 1  # type: ignore[attr-defined]
    assert copy.deepcopy(b) == b and copy.copy(b) == b  # (the state pickle takes: a frozen one's past __setattr__)
    assert dataclasses.replace(b, flag=True) == rc_sub(*args, cpos="Lower", flag=True)
    assert dataclasses.asdict(b) == dataclasses.asdict(dc_sub(*args, cpos="Lower"))
    with pytest.raises(TypeError) as r:
        rc_sub("k", 1)
    with pytest.raises(TypeError) as d:
        dc_sub("k", 1)
    assert str(r.value) == str(d.value)  # "__init__() missing 2 required positional arguments: 'id' and 'tiles'"


def test_records_of_mjref_pickle() -> None:
    from referee.game.classical.history import ClaimMsg
    from wrappers.xmj.messages import CMsgPlayerDiscards

    for msg in (ClaimMsg("PlayerClaimsChow", 3, 2, 17, "Upper"), CMsgPlayerDiscards(1, "3B", 17, False)):
        assert pickle.loads(pickle.dumps(msg)) == msg


def test_a_record_keeps_the_methods_its_class_defines() -> None:
    @record(frozen=True, slots=True)
    class Own:
        a: int

        def __repr__(self) -> str:
            return "own"

        def __eq__(self, other: object) -> bool:
            return True

        def __hash__(self) -> int:
            return 3

    assert repr(Own(1)) == "own" and Own(1) == Own(2) and hash(Own(1)) == 3


def test_a_record_refuses_what_it_does_not_make() -> None:
    with pytest.raises(TypeError, match="follows default argument"):

        @record
        class Late:
            a: int = 1
            b: int

    with pytest.raises(TypeError, match="field"):

        @record
        class Factory:
            a: list[int] = dataclasses.field(default_factory=list)

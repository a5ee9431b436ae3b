"""``@frozen`` makes what ``@dataclass(frozen=True, slots=True)`` makes: each behaviour below is
checked against a dataclass written the same way."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import field

import pytest

from engine.frozen import frozen


def _pair(order: bool = False) -> tuple[type, type]:
    """The same class twice: through @frozen, and through dataclass(frozen=True, slots=True)."""
    made = []
    for deco in (frozen(order=order), dataclasses.dataclass(frozen=True, slots=True, order=order)):
        @deco
        class Value:
            a: int
            b: str = "x"
            c: tuple[int, ...] = ()
            d: list[int] = field(default_factory=list)
            _cache: int = field(default=0, init=False, repr=False, compare=False)
            seen: int = field(default=7, init=False)

            def __post_init__(self) -> None:
                object.__setattr__(self, "_cache", self.a * 2)

        made.append(Value)
    return made[0], made[1]


def test_instances_are_built_as_a_dataclass_builds_them() -> None:
    mine, theirs = _pair()
    for args, kwargs in [((1,), {}), ((1, "y"), {"d": [3]}), ((), {"a": 2, "c": (1,)})]:
        m, t = mine(*args, **kwargs), theirs(*args, **kwargs)
        assert repr(m) == repr(t)
        assert [getattr(m, f.name) for f in dataclasses.fields(m)] == [getattr(t, f.name) for f in dataclasses.fields(t)]
    assert mine(1).d is not mine(1).d, "a default factory is called per instance"


def test_a_missing_argument_is_the_same_type_error() -> None:
    mine, theirs = _pair()
    with pytest.raises(TypeError) as m:
        mine()
    with pytest.raises(TypeError) as t:
        theirs()
    assert str(m.value).split(".", 1)[1] == str(t.value).split(".", 1)[1]


def test_equality_and_hash_compare_the_compared_fields() -> None:
    mine, theirs = _pair()
    assert mine(1, c=(2,)) == mine(1, c=(2,)) and mine(1) != mine(2) and mine(1) != theirs(1)
    a, b = mine(1, c=(2,)), mine(1, c=(2,))
    object.__setattr__(b, "_cache", 99)
    assert a == b, "a compare=False field is left out"

    @frozen
    class Key:
        x: int
        y: str

    @dataclasses.dataclass(frozen=True, slots=True)
    class TheirKey:
        x: int
        y: str

    assert hash(Key(1, "a")) == hash(TheirKey(1, "a")), "the same hash, so the same iteration order of sets"

    @frozen
    class One:
        x: float

    nan = float("nan")
    assert One(nan) == One(nan), "fields compare as a tuple does: identity first"


def test_order_compares_field_by_field() -> None:
    mine, _ = _pair(order=True)
    assert sorted([mine(2), mine(1, "z"), mine(1, "a")]) == [mine(1, "a"), mine(1, "z"), mine(2)]
    assert mine(1) <= mine(1) and mine(2) > mine(1) and mine(2) >= mine(2)
    with pytest.raises(TypeError):
        _ = mine(1) < 1


def test_fields_are_frozen_and_slotted() -> None:
    mine, _ = _pair()
    v = mine(1)
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'a'"):
        v.a = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'a'"):
        del v.a  # type: ignore[misc]
    assert not hasattr(v, "__dict__") and mine.__slots__ == ("a", "b", "c", "d", "_cache", "seen")


def test_dataclasses_functions_work_on_it() -> None:
    mine, _ = _pair()
    v = mine(1, "y")
    assert dataclasses.is_dataclass(v)
    assert [f.name for f in dataclasses.fields(v)] == ["a", "b", "c", "d", "_cache", "seen"]
    assert dataclasses.replace(v, b="z") == mine(1, "z")
    assert dataclasses.asdict(v) == {"a": 1, "b": "y", "c": (), "d": [], "_cache": 2, "seen": 7}
    assert mine.__match_args__ == ("a", "b", "c", "d")


@frozen
class Pickled:
    a: int
    d: list[int] = field(default_factory=list)
    _cache: int = field(default=0, init=False, repr=False, compare=False)


def test_it_pickles_and_copies() -> None:
    v = Pickled(1, [3])
    object.__setattr__(v, "_cache", 5)
    for other in (pickle.loads(pickle.dumps(v)), copy.copy(v), copy.deepcopy(v)):
        assert other == v and other._cache == 5


def test_methods_the_class_defines_are_kept() -> None:
    @frozen
    class Custom:
        x: int

        def __eq__(self, other: object) -> bool:
            return True

    @frozen
    class Hashed:
        x: int

        def __hash__(self) -> int:
            return 5

    assert Custom(1) == Custom(2) and hash(Custom(1)) == hash(Custom(1))
    assert hash(Hashed(1)) == 5 and Hashed(1) != Hashed(2)


def test_subclasses_inherit_fields_both_ways() -> None:
    @frozen
    class Base:
        a: int
        b: str = "x"

    @frozen
    class Sub(Base):
        c: int = 0

    @dataclasses.dataclass(frozen=True, slots=True)
    class TheirSub(Base):
        c: int = 0

    assert repr(Sub(1, c=2)).endswith("Sub(a=1, b='x', c=2)")
    assert repr(TheirSub(1, c=2)).endswith("TheirSub(a=1, b='x', c=2)")
    assert Sub.__slots__ == ("c",) and isinstance(Sub(1), Base)


def test_a_value_that_contains_itself_repr_once() -> None:
    @frozen
    class Box:
        items: list[object] = field(default_factory=list)

    b = Box()
    b.items.append(b)
    assert repr(b).endswith("Box(items=[...])")


def test_mistakes_a_dataclass_refuses_are_refused() -> None:
    with pytest.raises(ValueError, match="mutable default"):
        @frozen
        class Mutable:
            x: list[int] = []  # noqa: RUF012

    with pytest.raises(TypeError, match="non-default argument 'y' follows default argument"):
        @frozen
        class Order:
            x: int = 0
            y: int  # type: ignore[misc]

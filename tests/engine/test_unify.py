"""cty's unsafe unification (engine.lang.unify), the rules terraform 1.11's console shows
(``type(true ? A : B)``), and the defaults of optional attributes (engine.lang.defaults)."""

from __future__ import annotations

import pytest

from engine.lang.defaults import TypeDefaults, apply_defaults
from engine.lang.unify import convertible, mismatch, unify_unsafe
from engine.values import ListVal, MapVal, value_type

S, N, B = "string", "number", "bool"


def tup(*t: object) -> list:
    return ["tuple", list(t)]


def obj(**a: object) -> list:
    return ["object", dict(a)]


@pytest.mark.parametrize(("types", "unified"), [
    ([tup(S, S), tup()], ["list", S]),
    ([obj(a=S), obj()], ["map", S]),
    ([["set", S], tup()], ["set", S]),
    ([N, S], S),
    ([N, B], None),
    ([tup(N), tup(S)], tup(S)),
    ([obj(a=N), obj(b=S)], ["map", S]),
    ([tup(obj(a=N, b=N)), tup(obj(a=N))], tup(["map", N])),
    ([obj(a=tup(N)), obj(a=tup())], obj(a=["list", N])),
    ([tup(tup(N), tup()), tup()], ["list", ["list", N]]),
    ([tup(), tup()], tup()),
    ([tup(N), obj(a=N)], None),
    ([["list", "dynamic"], ["list", S]], ["list", S]),
    ([["list", S], "dynamic"], "dynamic"),
    ([S, "dynamic"], S),
])
def test_unify_unsafe_finds_ctys_type(types: list, unified: object) -> None:
    assert unify_unsafe(types) == unified


def test_conversions_between_kinds() -> None:
    assert convertible(tup(S, N), ["list", S])
    assert not convertible(tup(S, B, N), ["list", N])
    assert convertible(obj(a=S), ["map", S])
    assert convertible(["map", S], obj(a=S))
    assert not convertible(obj(a=S), obj(a=S, b=S))
    assert convertible(obj(a=S), ["object", {"a": S, "b": S}, ["b"]])


@pytest.mark.parametrize(("t", "f", "text"), [
    (N, B, "The 'true' value is number, but the 'false' value is bool"),
    (tup(N), tup(B), "Type mismatch for tuple element 0: The 'true' value is number, but the 'false' value is bool"),
    (obj(a=S), obj(), "The 'true' value includes object attribute \"a\", which is absent in the 'false' value"),
    (obj(), obj(b=S), "The 'false' value includes object attribute \"b\", which is absent in the 'true' value"),
    (tup(N), tup(), "The 'true' tuple has length 1, but the 'false' tuple has length 0"),
])
def test_mismatch_says_what_hcl_says(t: object, f: object, text: str) -> None:
    assert mismatch(t, f) == text


def test_an_empty_typed_list_records_its_element_type() -> None:
    from engine.lang.convert import convert

    v = convert(MapVal({"web": (), "db": ("backup",)}), ["map", ["list", S]])
    assert value_type(v) == ["map", ["list", S]]
    assert value_type(convert({"web": ()}, ["map", ["list", S]])) == ["map", ["list", S]]


def test_defaults_fill_missing_and_null_attributes_at_every_depth() -> None:
    inner = TypeDefaults("object", {"port": 22})
    d = TypeDefaults("object", {"enabled": True, "rules": ()}, {"rules": TypeDefaults("list", children={"": inner})})
    got = apply_defaults({"enabled": None, "rules": ListVal(({"cidr": "a"}, {"cidr": "b", "port": 443}))}, d)
    assert got == {"enabled": True, "rules": ({"cidr": "a", "port": 22}, {"cidr": "b", "port": 443})}
    assert apply_defaults(None, d) is None
    assert apply_defaults({}, d) == {"enabled": True, "rules": ()}

"""cty's msgpack encoding of values, both ways, against the engine's values."""

from __future__ import annotations

from typing import Any

import msgpack
import orjson
from hypothesis import given
from hypothesis import strategies as st

from engine.plugin import msgpack_values as mv
from engine.values import UNKNOWN, ListVal, MapVal, SetVal, equal


def test_unknown_is_extension_zero() -> None:
    assert mv.encode(UNKNOWN, "string") == b"\xd4\x00\x00"
    assert mv.decode(b"\xd4\x00\x00", "string") is UNKNOWN


def test_refined_unknown_is_read_as_unknown() -> None:
    refined = msgpack.packb(msgpack.ExtType(12, msgpack.packb({1: True})))  # "not null"
    assert mv.decode(refined, ["list", "string"]) is UNKNOWN


def test_null_is_nil_whatever_the_type() -> None:
    assert mv.encode(None, ["object", {"a": "string"}]) == b"\xc0"
    assert mv.decode(b"\xc0", ["map", "number"]) is None


def test_object_encodes_every_attribute_sorted() -> None:
    data = mv.encode({"b": "x"}, ["object", {"b": "string", "a": "number"}])
    assert list(msgpack.unpackb(data)) == ["a", "b"]
    assert msgpack.unpackb(data) == {"a": None, "b": "x"}


def test_dynamic_value_carries_its_type() -> None:
    data = mv.encode(ListVal(["a"]), "dynamic")
    wire = msgpack.unpackb(data)
    assert orjson.loads(wire[0]) == ["list", "string"] and wire[1] == ["a"]
    back = mv.decode(data, "dynamic")
    assert isinstance(back, ListVal) and back == ListVal(["a"])


def test_numbers_beyond_64_bits_survive_as_digits() -> None:
    big = 2**80 + 1
    assert msgpack.unpackb(mv.encode(big, "number")) == str(big)
    assert mv.decode(mv.encode(big, "number"), "number") == big
    assert mv.decode(msgpack.packb("1.5"), "number") == 1.5


def test_whole_float_from_a_plugin_is_an_int() -> None:
    assert type(mv.decode(msgpack.packb(3.0), "number")) is int


def test_set_decodes_as_a_set() -> None:
    back = mv.decode(msgpack.packb(["b", "a"]), ["set", "string"])
    assert isinstance(back, SetVal) and back == SetVal.of(["a", "b"])


def test_json_dynamic_reads_value_and_type() -> None:
    data = orjson.dumps({"a": {"value": ["x", 1], "type": ["tuple", ["string", "number"]]}})
    assert mv.decode_json(data, ["object", {"a": "dynamic"}]) == {"a": ("x", 1)}


# -- round trips ------------------------------------------------------------------------------

PRIMS = st.sampled_from(["string", "number", "bool"])


def types(depth: int = 3) -> st.SearchStrategy[Any]:
    if depth == 0:
        return PRIMS
    inner = types(depth - 1)
    return st.one_of(
        PRIMS,
        st.tuples(st.sampled_from(["list", "set", "map"]), inner).map(list),
        st.dictionaries(st.from_regex(r"[a-z]{1,4}", fullmatch=True), inner, max_size=3)
        .map(lambda d: ["object", d]),
        st.lists(inner, max_size=3).map(lambda ts: ["tuple", ts]),
    )


def values_of(ty: Any, allow_unknown: bool = True) -> st.SearchStrategy[Any]:
    special = [st.none()] + ([st.just(UNKNOWN)] if allow_unknown else [])
    if ty == "string":
        base: st.SearchStrategy[Any] = st.text(max_size=5)
    elif ty == "bool":
        base = st.booleans()
    elif ty == "number":
        base = st.one_of(st.integers(min_value=-(2**100), max_value=2**100),
                         st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer()))
    elif ty[0] == "list":
        base = st.lists(values_of(ty[1], allow_unknown), max_size=3).map(ListVal)
    elif ty[0] == "set":  # cty sets hold known values only
        base = st.lists(values_of(ty[1], False), max_size=3).map(SetVal.of)
    elif ty[0] == "map":
        base = st.dictionaries(st.text(max_size=3), values_of(ty[1], allow_unknown), max_size=3).map(MapVal)
    elif ty[0] == "object":
        base = st.fixed_dictionaries({k: values_of(t, allow_unknown) for k, t in ty[1].items()})
    else:
        base = st.tuples(*(values_of(t, allow_unknown) for t in ty[1]))
    return st.one_of(*special, base)


@given(st.data())
def test_encode_then_decode_is_the_same_value(data: st.DataObject) -> None:
    ty = data.draw(types())
    v = data.draw(values_of(ty))
    back = mv.decode(mv.encode(v, ty), ty)
    assert equal(back, v) and type(back) is type(v), (ty, v, back)


@given(st.data())
def test_dynamic_round_trip_keeps_the_values_type(data: st.DataObject) -> None:
    ty = data.draw(types(2))
    v = data.draw(values_of(ty, allow_unknown=False))
    back = mv.decode(mv.encode(v, "dynamic"), "dynamic")
    assert equal(back, v), (ty, v, back)

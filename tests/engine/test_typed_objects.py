"""Objects that record the types of their null attributes (engine.values.ObjectVal)."""

from __future__ import annotations

from engine.lang.convert import convert
from engine.values import ObjectVal, cty_type, equal, from_typed_json, to_json

TY = ["object", {"a": "string", "b": ["list", "number"]}, ["b"]]


def test_a_conversion_records_an_optional_attributes_type() -> None:
    v = convert({"a": "x"}, TY)
    assert v == {"a": "x", "b": None}
    assert cty_type(v) == ["object", {"a": "string", "b": ["list", "number"]}]


def test_an_object_without_nulls_stays_a_plain_dict() -> None:
    assert type(convert({"a": "x", "b": (1,)}, TY)) is dict


def test_it_equals_the_plain_object_of_the_same_attributes() -> None:
    v = convert({"a": "x"}, TY)
    assert isinstance(v, ObjectVal)
    assert equal(v, {"a": "x", "b": None}) and equal({"a": "x", "b": None}, v)
    assert not equal(v, {"a": "y", "b": None})


def test_the_state_types_come_back_from_json() -> None:
    v = convert({}, ["object", {"a": "string", "b": ["set", "bool"]}, ["a", "b"]])
    again = from_typed_json(to_json(v), cty_type(v))
    assert cty_type(again) == ["object", {"a": "string", "b": ["set", "bool"]}]

"""engine/values.py: the value model (null, known, unknown) and cty's JSON type notation.

Expected type notations are what terraform 1.11 writes into state for a
dynamic attribute (``terraform_data.input``), recorded with the real binary.
"""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from engine.values import (
    UNKNOWN,
    ListVal,
    MapVal,
    SetVal,
    _Unknown,
    cty_type,
    equal,
    from_typed_json,
    is_wholly_known,
    to_json,
    unknown_mask,
)

# --------------------------------------------------------------------------- UNKNOWN


def test_unknown_is_a_singleton():
    assert _Unknown() is UNKNOWN, "constructing _Unknown() again must give back the one UNKNOWN"


def test_unknown_survives_pickle_as_the_same_object():
    assert pickle.loads(pickle.dumps(UNKNOWN)) is UNKNOWN, "pickling UNKNOWN must not create a second unknown"


def test_unknown_survives_deepcopy_as_the_same_object():
    copied = copy.deepcopy({"a": (UNKNOWN,)})
    assert copied["a"][0] is UNKNOWN, "deepcopy must keep UNKNOWN identical (code tests `v is UNKNOWN`)"


def test_unknown_repr_reads_like_terraform():
    assert repr(UNKNOWN) == "(known after apply)"


# --------------------------------------------------------------------------- is_wholly_known


@pytest.mark.parametrize("value", [None, "s", 0, 1.5, True, (), {}, (1, "a"), {"a": {"b": (None,)}},
                                   ListVal([1]), SetVal.of(["a"]), MapVal({"k": "v"})],
                         ids=repr)
def test_is_wholly_known_true_for_known_values(value):
    assert is_wholly_known(value), f"{value!r} has no unknown inside"


@pytest.mark.parametrize("value", [UNKNOWN, (1, UNKNOWN), {"a": UNKNOWN}, {"a": {"b": (2, UNKNOWN)}},
                                   ListVal([UNKNOWN]), MapVal({"k": UNKNOWN})],
                         ids=repr)
def test_is_wholly_known_false_for_any_nested_unknown(value):
    assert not is_wholly_known(value), f"{value!r} contains an unknown"


# --------------------------------------------------------------------------- cty_type


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("node-0", "string"),
        (1, "number"),
        (1.5, "number"),
        (True, "bool"),
        (False, "bool"),
        (("8a08",), ["tuple", ["string"]]),
        ((1, "a", True), ["tuple", ["number", "string", "bool"]]),
        ((), ["tuple", []]),
        ((None, "x"), ["tuple", ["dynamic", "string"]]),
        ({"cidr": "10.0.0.0/16", "name": "net-dev"}, ["object", {"cidr": "string", "name": "string"}]),
        ({}, ["object", {}]),
        ({"a": (1,), "b": {"c": "d"}},
         ["object", {"a": ["tuple", ["number"]], "b": ["object", {"c": "string"}]}]),
        (ListVal(["b", "a"]), ["list", "string"]),
        (ListVal([]), ["list", "dynamic"]),
        (ListVal([{"a": 1}, {"a": 2}]), ["list", ["object", {"a": "number"}]]),
        (SetVal.of(["b", "a", "c"]), ["set", "string"]),
        (SetVal.of([10, 2, 1]), ["set", "number"]),
        (SetVal.of([True, False]), ["set", "bool"]),
        (MapVal({"y": 1, "x": 2}), ["map", "number"]),
    ],
    ids=repr,
)
def test_cty_type_matches_terraform_state_notation(value, expected):
    assert cty_type(value) == expected, f"cty_type({value!r}) should be written as {expected!r} in state"


def test_cty_type_of_null_is_dynamic():
    assert cty_type(None) == "dynamic"


def test_cty_type_rejects_unknown():
    with pytest.raises(TypeError):
        cty_type(UNKNOWN)


# --------------------------------------------------------------------------- from_typed_json

# (value as our representation, as terraform wrote it in state: value and type)
_STATE_SAMPLES = [
    ("api", "api", "string"),
    (("8a0815f9-d056-8a1c-3e2c-d1b1bcb96228",), ["8a0815f9-d056-8a1c-3e2c-d1b1bcb96228"], ["tuple", ["string"]]),
    ({"cidr": "10.0.0.0/16", "name": "net-dev"}, {"cidr": "10.0.0.0/16", "name": "net-dev"},
     ["object", {"cidr": "string", "name": "string"}]),
    (SetVal.of(["a", "b", "c"]), ["a", "b", "c"], ["set", "string"]),
    (SetVal.of([1, 2, 10]), [1, 2, 10], ["set", "number"]),
    (ListVal(["b", "a"]), ["b", "a"], ["list", "string"]),
    (MapVal({"x": 2, "y": 1}), {"x": 2, "y": 1}, ["map", "number"]),
    ((1, "a", True), [1, "a", True], ["tuple", ["number", "string", "bool"]]),
    ({"a": (1,), "b": {"c": "d"}}, {"a": [1], "b": {"c": "d"}},
     ["object", {"a": ["tuple", ["number"]], "b": ["object", {"c": "string"}]}]),
    ((), [], ["tuple", []]),
    ({}, {}, ["object", {}]),
    (ListVal([]), [], ["list", "dynamic"]),
    ((None, "x"), [None, "x"], ["tuple", ["dynamic", "string"]]),
    (ListVal([{"a": 1}, {"a": 2}]), [{"a": 1}, {"a": 2}], ["list", ["object", {"a": "number"}]]),
]


_IDS = [json.dumps(ty) for _o, _r, ty in _STATE_SAMPLES]


@pytest.mark.parametrize(("ours", "raw", "ty"), _STATE_SAMPLES, ids=_IDS)
def test_from_typed_json_decodes_terraform_state_values(ours, raw, ty):
    got = from_typed_json(raw, ty)
    assert equal(got, ours), f"from_typed_json({raw!r}, {ty!r}) gave {got!r}, expected {ours!r}"


@pytest.mark.parametrize(("ours", "raw", "ty"), _STATE_SAMPLES, ids=_IDS)
def test_cty_type_and_to_json_round_trip_through_json_text(ours, raw, ty):
    text = json.dumps({"value": to_json(ours), "type": cty_type(ours)})
    doc = json.loads(text)
    back = from_typed_json(doc["value"], doc["type"])
    assert equal(back, ours), f"{ours!r} came back from state JSON as {back!r}"
    assert type(back) is type(ours), f"{ours!r} came back as {type(back).__name__}, not {type(ours).__name__}"


def test_from_typed_json_turns_whole_floats_into_ints():
    got = from_typed_json(2.0, "number")
    assert got == 2 and isinstance(got, int), f"2.0 typed number should decode as int 2, got {got!r}"


def test_from_typed_json_keeps_fractional_numbers():
    assert from_typed_json(1.5, "number") == 1.5


def test_from_typed_json_null_is_none_whatever_the_type():
    assert from_typed_json(None, ["list", "string"]) is None


def test_from_typed_json_fills_missing_object_attributes_with_null():
    got = from_typed_json({"a": "x"}, ["object", {"a": "string", "b": "string"}])
    assert got == {"a": "x", "b": None}, "an object type names every attribute; absent ones are null"


def test_from_typed_json_set_is_deduplicated_and_canonically_ordered():
    got = from_typed_json(["b", "a", "b"], ["set", "string"])
    assert isinstance(got, SetVal)
    assert tuple(got) == ("a", "b"), f"set elements should be unique and sorted, got {tuple(got)!r}"


# --------------------------------------------------------------------------- equal


def test_equal_tuple_is_not_list():
    assert not equal((1,), ListVal([1])), "[1] (tuple) must not equal tolist([1]) — terraform says false"


def test_equal_list_is_not_set():
    assert not equal(ListVal(["a"]), SetVal.of(["a"]))


def test_equal_object_is_not_map():
    assert not equal({"a": 1}, MapVal({"a": 1})), "{a=1} == tomap({a=1}) is false in terraform"


def test_equal_number_is_not_bool():
    assert not equal(1, True), "1 must not equal true"
    assert not equal(True, 1), "true must not equal 1"
    assert not equal(0, False), "0 must not equal false"


def test_equal_number_is_not_string():
    assert not equal(1, "1"), '1 == "1" is false in terraform'


def test_equal_int_equals_float_of_same_value():
    assert equal(1, 1.0), "1 == 1.0 is true in terraform"


def test_equal_nested_bool_inside_collection_is_not_number():
    assert not equal((1,), (True,))
    assert not equal({"a": 0}, {"a": False})


def test_equal_sets_ignore_order():
    assert equal(SetVal(("a", "b")), SetVal(("b", "a")))


def test_equal_sets_of_different_size_differ():
    assert not equal(SetVal.of(["a"]), SetVal.of(["a", "b"]))


def test_equal_lists_respect_order():
    assert not equal(ListVal(["a", "b"]), ListVal(["b", "a"]))


def test_equal_objects_need_same_keys():
    assert not equal({"a": 1}, {"a": 1, "b": None}), "an extra attribute (even null) makes objects differ"


def test_equal_objects_ignore_key_order():
    assert equal({"a": 1, "b": 2}, {"b": 2, "a": 1})


def test_equal_unknown_equals_only_unknown():
    assert equal(UNKNOWN, UNKNOWN)
    assert not equal(UNKNOWN, None)
    assert not equal("x", UNKNOWN)


def test_equal_null_equals_null_only():
    assert equal(None, None)
    assert not equal(None, "")
    assert not equal(None, 0)


def test_equal_deep_structures():
    a = {"x": (1, ListVal(["a"]), {"y": SetVal.of([2, 1])})}
    b = {"x": (1, ListVal(["a"]), {"y": SetVal.of([1, 2])})}
    assert equal(a, b)


# --------------------------------------------------------------------------- SetVal


def test_setval_of_removes_duplicates():
    assert len(SetVal.of(["a", "b", "a"])) == 2


def test_setval_of_sorts_strings_lexically():
    assert tuple(SetVal.of(["b", "B", "a"])) == ("B", "a", "b"), "cty orders string sets by byte value"


def test_setval_of_sorts_numbers_numerically():
    assert tuple(SetVal.of([10, 2, 1])) == (1, 2, 10), "terraform writes toset([10,2,1]) as [1,2,10]"


def test_setval_of_sorts_bools_false_first():
    assert tuple(SetVal.of([True, False])) == (False, True), "terraform writes toset([true,false]) as [false,true]"


def test_setval_of_treats_int_and_float_of_same_value_as_one_element():
    assert len(SetVal.of([1, 1.0])) == 1, "toset([1, 1.0]) has one element in terraform"


def test_setval_of_keeps_string_and_number_apart():
    assert len(SetVal.of(["1", 1])) == 2


def test_setval_equality_ignores_order():
    assert SetVal(("a", "b")) == SetVal(("b", "a"))


def test_setval_is_not_equal_to_a_tuple():
    assert not SetVal.of(["a"]) == ("a",), "a set must not compare equal to a tuple of the same elements"


def test_setval_inequality_agrees_with_equality():
    a, b = SetVal(("a", "b")), SetVal(("b", "a"))
    assert a == b
    assert not (a != b), "SetVal defines == as unordered but inherits tuple's ordered !=, so a == b and a != b"


def test_setval_hash_is_order_independent():
    assert hash(SetVal(("a", "b"))) == hash(SetVal(("b", "a"))), "equal sets must hash equal"


def test_setval_of_orders_deterministically_regardless_of_input_order():
    assert tuple(SetVal.of(["c", "a", "b"])) == tuple(SetVal.of(["b", "c", "a"]))


# --------------------------------------------------------------------------- to_json / unknown_mask


def test_to_json_flattens_collections():
    v = {"a": ListVal([1]), "b": SetVal.of(["x"]), "c": MapVal({"k": (True,)})}
    assert to_json(v) == {"a": [1], "b": ["x"], "c": {"k": [True]}}


def test_unknown_mask_marks_unknown_leaves():
    v = {"id": UNKNOWN, "input": "x", "list": (1, UNKNOWN)}
    assert unknown_mask(v) == {"id": True, "list": [False, True]}, \
        "after_unknown keeps only unknown paths in objects, every position in lists"

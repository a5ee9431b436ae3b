"""engine/lang/functions/conversion.py: type conversion functions (tobool, tolist, tomap, tonumber, toset, tostring), against terraform 1.11's results."""

from __future__ import annotations

import pytest

from engine.diagnostics import FunctionError
from engine.values import ListVal, MapVal, SetVal
from tests.engine.functions.support import call, same


@pytest.mark.parametrize("fn", ["tostring", "tonumber", "tobool", "toset", "tolist", "tomap"])
def test_type_conversion_of_null_is_null(fn):
    assert call(fn, None) is None, f"{fn}(null) is null in terraform"


def test_tolist_unifies_primitives_to_string():
    assert same(call("tolist", ("a", True)), ListVal(["a", "true"]))


def test_toset_unifies_primitives_to_string():
    assert same(call("toset", ("a", 1, True)), SetVal.of(["1", "a", "true"]))


def test_tomap_unifies_primitives_to_string():
    assert same(call("tomap", {"a": "x", "b": True}), MapVal({"a": "x", "b": "true"}))


def test_tomap_keeps_uniform_element_types():
    assert same(call("tomap", {"a": (1,), "b": (2,)}), MapVal({"a": (1,), "b": (2,)}))


def test_toset_of_number_and_bool_is_an_error():
    # cty unifies number and bool only through string, and no element is a string
    with pytest.raises(FunctionError):
        got = call("toset", (1, True))
        pytest.fail(f"toset([1, true]) is an error in terraform (no single type), strata gave {got!r}")


def test_tolist_of_number_and_bool_is_an_error():
    with pytest.raises(FunctionError):
        got = call("tolist", (1, True))
        pytest.fail(f"tolist([1, true]) is an error in terraform (no single type), strata gave {got!r}")


def test_tomap_of_number_and_bool_is_an_error():
    with pytest.raises(FunctionError):
        got = call("tomap", {"a": True, "b": 1})
        pytest.fail(f"tomap({{a=true, b=1}}) is an error in terraform (no single type), strata gave {got!r}")


def test_tolist_of_tuple_and_string_is_an_error():
    with pytest.raises(FunctionError):
        got = call("tolist", (("a",), "b"))
        pytest.fail(f'tolist([["a"], "b"]) is an error in terraform (no single type), strata gave {got!r}')


def test_tomap_of_tuple_and_string_is_an_error():
    with pytest.raises(FunctionError):
        got = call("tomap", {"a": (1,), "b": "x"})
        pytest.fail(f'tomap({{a=[1], b="x"}}) is an error in terraform (no single type), strata gave {got!r}')


def test_toset_keeps_null_elements():
    got = call("toset", (None, "a"))
    assert len(got) == 2 and None in tuple(got), "toset([null, \"a\"]) keeps the null element in terraform"


def test_tostring_of_large_whole_number_has_no_exponent():
    got = call("tostring", 1e20)
    assert got == "100000000000000000000", f'tostring(1e20) is "100000000000000000000" in terraform, got {got!r}'


def test_tonumber_rejects_surrounding_whitespace():
    with pytest.raises(FunctionError):
        got = call("tonumber", " 1")
        pytest.fail(f'tonumber(" 1") is an error in terraform (not a decimal number), strata gave {got!r}')


def test_tonumber_exponent_string_gives_whole_number():
    got = call("jsonencode", call("tonumber", "1e3"))
    assert got == "1000", f'jsonencode(tonumber("1e3")) is "1000" in terraform, strata gave {got!r}'


def test_tobool_is_case_sensitive():
    with pytest.raises(FunctionError):
        call("tobool", "True")

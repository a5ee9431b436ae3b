"""engine/lang/functions/encoding.py: encoding functions (jsonencode, jsondecode, base64decode), against terraform 1.11's results."""

from __future__ import annotations

import pytest

from engine.diagnostics import FunctionError
from engine.lang.functions.registry import FUNCTIONS
from engine.values import SetVal
from tests.engine.functions.support import call, same


def test_jsonencode_sorts_object_keys():
    got = call("jsonencode", {"b": 1, "a": 2})
    assert got == '{"a":2,"b":1}', f'jsonencode({{b=1,a=2}}) is {{"a":2,"b":1}} in terraform, strata gave {got!r}'


def test_jsonencode_escapes_html_characters():
    got = call("jsonencode", "<>&")
    assert got == '"\\u003c\\u003e\\u0026"', f'jsonencode("<>&") escapes <, > and & in terraform, got {got!r}'


def test_jsonencode_large_whole_number_has_no_exponent():
    got = call("jsonencode", 1e20)
    assert got == "100000000000000000000", f"jsonencode(1e20) is 100000000000000000000 in terraform, got {got!r}"


def test_jsonencode_integer_beyond_64_bits():
    try:
        got = call("jsonencode", 10**20)
    except Exception as exc:  # noqa: BLE001 - orjson's TypeError escapes
        pytest.fail(f"jsonencode(100000000000000000000) is \"100000000000000000000\" in terraform; "
                    f"strata raised {type(exc).__name__}: {exc}")
    assert got == "100000000000000000000"


def test_jsonencode_set_in_set_order():
    assert call("jsonencode", SetVal.of(["b", "a"])) == '["a","b"]'


def test_jsondecode_arrays_become_tuples():
    got = call("jsondecode", '[1,"a",null,true,{"b":2}]')
    assert same(got, (1, "a", None, True, {"b": 2}))


def test_jsondecode_whole_float_is_a_whole_number():
    got = call("jsonencode", call("jsondecode", "1.0"))
    assert got == "1", f'jsonencode(jsondecode("1.0")) is "1" in terraform, strata gave {got!r}'


def test_jsondecode_accepts_a_number_argument():
    try:
        got = call("jsondecode", 1)
    except FunctionError as exc:
        pytest.fail(f"jsondecode(1) is 1 in terraform (the number converts to the string \"1\"); strata: {exc}")
    assert got == 1


def test_invalid_base64_is_a_function_error() -> None:
    with pytest.raises(FunctionError, match="base64"):
        FUNCTIONS["base64decode"]("not base64!")

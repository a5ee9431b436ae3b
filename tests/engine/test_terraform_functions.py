"""terraform's own provider functions, called directly (the command's tests compare them with
terraform: tests/cli/test_terraform_provider_functions.py)."""

from __future__ import annotations

import pytest

from engine.diagnostics import FunctionError
from engine.lang.terraform_functions import (
    decode_tfvars,
    encode_expr,
    encode_tfvars,
    valid_identifier,
)
from engine.values import UNKNOWN, ListVal, MapVal, SetVal


def test_encode_expr_writes_collections_as_hclwrite_does() -> None:
    assert encode_expr(ListVal(["a", "b"])) == '["a", "b"]'
    assert encode_expr(SetVal.of(["b", "a"])) == '["a", "b"]'
    assert encode_expr(MapVal()) == "{}"
    assert encode_expr({"b": 1, "a": {"c": True}}) == "{\n  a = {\n    c = true\n  }\n  b = 1\n}"


def test_encode_expr_escapes_template_introducers_and_unprintables() -> None:
    assert encode_expr("${a} %{b} $ % \u200b\x7f") == '"$${a} %%{b} $ % \\u200b\\u007f"'


def test_encoders_are_unknown_while_the_value_is_partly_unknown() -> None:
    assert encode_expr((1, UNKNOWN)) is UNKNOWN
    assert encode_tfvars({"a": UNKNOWN}) is UNKNOWN


def test_encode_tfvars_aligns_one_line_arguments() -> None:
    assert encode_tfvars({"a": 1, "long": "x"}) == 'a    = 1\nlong = "x"\n'


def test_encode_tfvars_refuses_a_name_no_variable_can_have() -> None:
    with pytest.raises(FunctionError, match='invalid variable name "a.b"'):
        encode_tfvars({"a.b": 1})


@pytest.mark.parametrize(("src", "where"), [  # recorded from terraform 1.11
    ("a = var.x", "1,5-8: Variables not allowed"),
    ("a = [1, foo]", "1,9-12: Variables not allowed"),
    ("b = 1\na = [1,\n  var.x.y]", "3,3-6: Variables not allowed"),
    ('a = {x = upper("a")}', "1,10-20: Function calls not allowed"),
])
def test_decode_tfvars_refuses_references_and_calls_where_hcl_says(src: str, where: str) -> None:
    with pytest.raises(FunctionError, match=f"<decode_tfvars argument>:{where}; "):
        decode_tfvars(src)


def test_decode_tfvars_refuses_an_argument_set_twice() -> None:
    with pytest.raises(FunctionError, match='2,1-2: Attribute redefined; The argument "a" was already set at '
                                            "<decode_tfvars argument>:1,1-2"):
        decode_tfvars("a = 1\na = 2")


def test_decode_tfvars_allows_a_for_expressions_own_names() -> None:
    assert decode_tfvars("a = [for x in [1, 2]: x * 2]") == {"a": (2, 4)}


@pytest.mark.parametrize(("name", "valid"), [("a", True), ("_a", True), ("a-b_1", True), ("for", True),
                                              ("1a", False), ("a b", False), ("", False), ("-a", False)])
def test_valid_identifier_is_hcls_rule(name: str, valid: bool) -> None:
    assert valid_identifier(name) is valid

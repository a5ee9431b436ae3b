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


def test_decode_tfvars_refuses_references_and_calls() -> None:
    with pytest.raises(FunctionError, match="1,5-10: Variables not allowed"):
        decode_tfvars("a = var.x")
    with pytest.raises(FunctionError, match="Function calls not allowed"):
        decode_tfvars('a = [upper("x")]')


def test_decode_tfvars_allows_a_for_expressions_own_names() -> None:
    assert decode_tfvars("a = [for x in [1, 2]: x * 2]") == {"a": (2, 4)}


@pytest.mark.parametrize(("name", "valid"), [("a", True), ("_a", True), ("a-b_1", True), ("for", True),
                                              ("1a", False), ("a b", False), ("", False), ("-a", False)])
def test_valid_identifier_is_hcls_rule(name: str, valid: bool) -> None:
    assert valid_identifier(name) is valid

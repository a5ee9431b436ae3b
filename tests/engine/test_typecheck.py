"""The types of expressions whose input variables are unknowns of their declared types
(:mod:`engine.lang.typecheck`): exact where the expression tells, ``"dynamic"`` where it does not,
and the type mistakes hcl finds, in its words."""

from __future__ import annotations

from typing import Any

import pytest

from engine.lang.hcl import parse_expression
from engine.lang.typecheck import DYNAMIC, ExprTypes, traversal_mistake

VARIABLES: dict[str, Any] = {
    "s": "string",
    "n": "number",
    "b": "bool",
    "l": ["list", "string"],
    "m": ["map", "number"],
    "o": ["object", {"a": "string", "b": ["list", "number"]}, ["b"]],
    "objs": ["list", ["object", {"id": "string"}]],
    "t": ["tuple", ["string", "number"]],
    "any": "dynamic",
}
LOCALS = {"upper": "upper(var.s)", "loop": "local.loop", "bad": "var.s.x"}


def _types() -> ExprTypes:
    return ExprTypes(VARIABLES.get, lambda name: parse_expression(LOCALS[name], "t.tf", 1) if name in LOCALS else None)


def _check(src: str) -> tuple[Any, list[tuple[str, str]]]:
    ty, found = _types().check(parse_expression(src, "t.tf", 1))
    return ty, [(m.summary, m.detail) for m in found]


@pytest.mark.parametrize(("src", "ty"), [
    ("var.s", "string"),
    ("var.o.b", ["list", "number"]),  # optional() markers dropped: the value has every attribute
    ("var.o.b[0] + 1", "number"),
    ("var.m.anything", "number"),
    ("var.objs[0].id", "string"),
    ("var.objs[*].id", ["list", "string"]),
    ("var.t[1]", "number"),
    ("var.l[var.n]", "string"),
    ("local.upper", "string"),
    ('"a${var.l}"', "string"),  # an unknown part of a template is not converted
    ('"${var.l}"', ["list", "string"]),  # a lone interpolation is its value
    ("length(var.l) > 0", "bool"),
    ('var.b ? var.l : []', ["list", "string"]),
    ('{ a = var.s, b = [var.n] }', ["object", {"a": "string", "b": ["tuple", ["number"]]}]),
])
def test_an_expression_has_the_type_its_parts_give(src: str, ty: Any) -> None:
    assert _check(src) == (ty, [])


@pytest.mark.parametrize("src", [
    "var.any.x.y", "var.undeclared", "local.loop", "local.bad", "each.value.x", "terraform_data.a.id",
    "[for x in var.l : x.nope]", "var.o[\"zz\"]", "var.t[var.n]", "try(var.s.x, 1)", "concat(var.l, [1])",
    "provider::p::f(var.s)", "var.b ? var.any : var.s",
])
def test_what_the_expression_does_not_tell_is_dynamic(src: str) -> None:
    assert _check(src) == (DYNAMIC, [])


@pytest.mark.parametrize(("src", "mistake"), [
    ("[for c in var.s : c]", ("Iteration over non-iterable value",
                              "A value of type string cannot be used as the collection in a 'for' expression.")),
    ("var.s.x", ("Unsupported attribute", "Can't access attributes on a primitive-typed value (string).")),
    ("var.o.c", ("Unsupported attribute", 'This object does not have an attribute named "c".')),
    ("var.s[0]", ("Invalid index", "This value does not have any indices.")),
    ("var.t[2]", ("Invalid index", "The given key does not identify an element in this collection value.")),
    ('var.l["a"]', ("Invalid index", "The given key does not identify an element in this collection value: a "
                                     "number is required.")),
    ("var.b + 1", ("Invalid operand", "Unsuitable value for left operand: number required.")),
    ("-var.l", ("Invalid operand", "Unsuitable value for unary operand: number required.")),
    ("upper(var.l)", ("Invalid function argument", 'Invalid value for "str" parameter: string required.')),
    ("var.b ? var.s : var.l", ("Inconsistent conditional result types", "The true and false result expressions "
                               "must have consistent types. The 'true' value is string, but the 'false' value is "
                               "list of string.")),
])
def test_a_type_mistake_in_hcls_words(src: str, mistake: tuple[str, str]) -> None:
    assert _check(src)[1] == [mistake]


def test_a_failed_part_fails_nothing_around_it() -> None:
    # upper(var.s.x): the argument failed, so the call is not checked (nor typed)
    ty, found = _check("[upper(var.s.x), var.l.y]")
    assert [summary for summary, _ in found] == ["Unsupported attribute", "Unsupported attribute"]
    assert ty == ["tuple", [DYNAMIC, DYNAMIC]]


def test_a_mistake_states_the_types_of_its_references() -> None:
    (mistake,) = _types().mistakes(parse_expression("length(var.o.a == \"\" ? 1 : 2)", "t.tf", 1))
    assert mistake.statements == (("var.o.a", "is a string"),)
    assert mistake.values == ("while calling length(value)",)


def test_a_hidden_reference_is_not_stated() -> None:
    types = ExprTypes(VARIABLES.get, lambda name: None, hidden=lambda root, names: names[:1] == ("s",))
    (mistake,) = types.mistakes(parse_expression("[for c in var.s : c]", "t.tf", 1))
    assert mistake.statements == ()


@pytest.mark.parametrize(("ty", "steps", "mistake"), [
    ("string", ("foo",), ("Unsupported attribute", "Can't access attributes on a primitive-typed value (string).")),
    (["map", "string"], ("k", "x"), ("Unsupported attribute",
                                     "Can't access attributes on a primitive-typed value (string).")),
    (["list", "string"], ("x",), ("Unsupported attribute", "This value does not have any attributes.")),
    (["map", "string"], ("k",), None),
    ("dynamic", ("a", "b"), None),
])
def test_a_static_traversal_into_an_attribute_type(ty: Any, steps: tuple[Any, ...],
                                                   mistake: tuple[str, str] | None) -> None:
    assert traversal_mistake(ty, steps) == mistake

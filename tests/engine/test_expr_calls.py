"""Every function call in an expression, wherever it is nested, outermost first (``E.calls``: what
validate checks for unknown functions), found by the walk that finds its references."""

from __future__ import annotations

import pytest

from engine.lang import expr as E
from engine.lang.hcl import parse_hcl


def _expr(src: str) -> E.Expr:
    return parse_hcl(f"locals {{\n  x = {src}\n}}\n", "main.tf")[0].attributes["x"].expr


@pytest.mark.parametrize(("src", "names"), [
    ("a(b(1), c())", ["a", "b", "c"]),
    ('"${a()} and %{ if b() }${c()}%{ else }${d()}%{ endif }"', ["a", "b", "c", "d"]),
    ('"%{ for x in a() }${b(x)}%{ endfor }"', ["a", "b"]),
    ("[for k, v in a() : b(v) if c(k)]", ["a", "b", "c"]),
    ("{for k, v in a() : b(k) => c(v)...}", ["a", "b", "c"]),
    ("{ (a()) = b(), k = [c(), { d = e() }] }", ["a", "b", "c", "e"]),
    ("a() ? b() : c()", ["a", "b", "c"]),
    ("!a() || -b() > c()", ["a", "b", "c"]),
    ("x[a()].y[*].z[b()]", ["a", "b"]),
    ("a()[*].b[c()]", ["a", "c"]),
    ("x.y[0]", []),
    ("provider::p::f(core::g(1))", ["provider::p::f", "core::g"]),
])
def test_every_call_is_found_outermost_first(src: str, names: list[str]) -> None:
    assert [c.name for c in E.calls(_expr(src))] == names


def test_calls_are_kept_with_the_references() -> None:
    e = _expr("a(var.x, b())")
    assert E.calls(e) is E.calls(e)
    assert [r.root for r in E.references(e)] == ["var"]

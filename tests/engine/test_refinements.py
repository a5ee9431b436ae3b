"""engine.lang.refinements beyond the oracle's cases (``tests/engine/functions``): what an unknown
conditional evaluates to find its results' refinements."""

from __future__ import annotations

from typing import Any

from engine.lang import expr as E
from engine.lang.hcl import parse_expression
from engine.lang.refinements import unknown_conditional
from engine.values import UNKNOWN


class _Scope:
    for_vars: dict[str, Any] = {}
    local_config = None


def _counting(seen: list[E.Expr]) -> Any:
    def value_of(e: E.Expr, scope: Any) -> Any:
        seen.append(e)
        if isinstance(e, E.Literal):
            return e.value
        return UNKNOWN
    return value_of


def _conditional(text: str) -> E.Conditional:
    e = parse_expression(text, "t.tf", 1)
    assert isinstance(e, E.Conditional)
    return e


def test_results_that_cannot_be_one_value_are_not_evaluated() -> None:
    for text in ('x ? { a = 1 } : { a = 2 }', 'x ? "a-${y}" : "b"', "x ? [1] : [2]", 'x ? "a" : "b"',
                 "x ? true : false", "x ? [for v in y : v] : []"):
        seen: list[E.Expr] = []
        assert unknown_conditional(_conditional(text), _Scope(), _counting(seen)) is UNKNOWN, text
        assert seen == [], text


def test_two_equal_numbers_are_that_number() -> None:
    seen: list[E.Expr] = []
    assert unknown_conditional(_conditional("x ? 5 : 5"), _Scope(), _counting(seen)) == 5
    assert unknown_conditional(_conditional("x ? 1 : 2"), _Scope(), _counting(seen)) is UNKNOWN
    assert unknown_conditional(_conditional("x ? null : null"), _Scope(), _counting(seen)) is None
    assert all(not isinstance(e, E.Var) or e.name != "x" for e in seen)  # the condition is not evaluated again

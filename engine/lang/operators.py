"""Operators: arithmetic as cty does it (exact on whole numbers, decimal on fractions), comparison,
equality, the logical operators, and the unary ``!`` and ``-``; operands convert as cty converts
them, and a failure blames the operand."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from engine.diagnostics import FunctionError
from engine.lang import expr as E
from engine.lang.convert import ConversionError, convert
from engine.lang.number import (
    DECIMAL_CONTEXT,
    exact_decimal,
    number_from_decimal,
    to_decimal,
    to_number,
)
from engine.lang.refinements import Refinement, equality, of_value, ordering, refinement
from engine.lang.scope import EvalError, Evaluator, Scope
from engine.values import UNKNOWN, cty_equals


def unary(e: E.Unary, scope: Scope, value_of: Evaluator) -> Any:
    """``!x`` or ``-x``."""
    v = value_of(e.operand, scope)
    if v is UNKNOWN:
        return UNKNOWN
    try:
        if e.op == "!":
            if v is True or v is False:
                return not v
            return not _bool(v, "unary operand", e.line)
        return -_num(v, e.line, "unary operand")
    except EvalError as exc:
        raise exc.blame(e.operand, scope) from None


def _num(v: Any, line: int, operand: str = "") -> Any:
    try:
        return to_number(v)
    except FunctionError as exc:
        if operand:  # terraform's words: the value is converted as cty converts it
            try:
                convert(v, "number")
            except ConversionError as cexc:
                raise EvalError("Invalid operand", f"Unsuitable value for {operand}: {cexc.cty_text}",
                                line) from None
        raise EvalError("Invalid operand", str(exc), line) from None


def _bool(v: Any, what: str, line: int) -> bool:
    if v is True or v is False:
        return bool(v)
    if v == "true" or v == "false":  # strings convert, as cty converts operands
        return bool(v == "true")
    try:
        convert(v, "bool")
    except ConversionError as exc:  # terraform's words: what cty says converting it
        raise EvalError("Invalid operand", f"Unsuitable value for {what}: {exc.cty_text}", line) from None
    raise EvalError("Invalid operand", f"Unsuitable value for {what}: bool required.", line)


_SCALARS = (str, int, bool)


def binary(e: E.Binary, scope: Scope, value_of: Evaluator) -> Any:
    op = e.op
    left = value_of(e.left, scope)
    if op in ("&&", "||"):
        right = value_of(e.right, scope)
        if left is UNKNOWN or right is UNKNOWN:
            return _unknown_result(_bool, left, right, e, scope)
        if not (left is True or left is False) or not (right is True or right is False):
            left = _operand(_bool, left, "left operand", e.line, e.left, scope)
            right = _operand(_bool, right, "right operand", e.line, e.right, scope)
        return (left and right) if op == "&&" else (left or right)
    right = value_of(e.right, scope)
    if left is UNKNOWN or right is UNKNOWN:
        if op == "==" or op == "!=":
            if left is UNKNOWN and right is UNKNOWN:
                return UNKNOWN
            # what terraform's refinements of the unknown one rule out (null, another type, a prefix...)
            if equality(refinement(e.left, left, scope, value_of), refinement(e.right, right, scope, value_of)) is False:
                return op == "!="
            return UNKNOWN
        _unknown_result(_num, left, right, e, scope)
        if op in _ARITH:
            return UNKNOWN
        return ordering(op, _number_refinement(e.left, left, scope, value_of),
                        _number_refinement(e.right, right, scope, value_of))
    if op == "==" or op == "!=":
        tl = type(left)
        if tl is type(right) and tl in _SCALARS:
            eq: Any = left == right
        else:
            eq = cty_equals(left, right)
            if eq is UNKNOWN:
                return UNKNOWN
        return eq if op == "==" else not eq
    a = _operand(_num, left, "left operand", e.line, e.left, scope)
    b = _operand(_num, right, "right operand", e.line, e.right, scope)
    if op in _ARITH:
        if type(a) is int and type(b) is int:
            if op == "+":
                return a + b
            if op == "-":
                return a - b
        return _arith(op, a, b, e.line)
    if op == "<":
        return a < b
    if op == ">":
        return a > b
    if op == "<=":
        return a <= b
    if op == ">=":
        return a >= b
    raise EvalError("Unsupported operator", op, e.line)


_ARITH = frozenset(("+", "-", "*", "/", "%"))


def _number_refinement(e: E.Expr, v: Any, scope: Scope, value_of: Evaluator) -> Refinement:
    """What is known of an operand of an ordering: a known one as the number it converts to."""
    if v is UNKNOWN:
        return refinement(e, v, scope, value_of)
    return of_value(_num(v, e.line))


def _unknown_result(check: Callable[..., Any], left: Any, right: Any, e: E.Binary, scope: Scope) -> Any:
    """An operation with an unknown operand is unknown, once the known one converts (as hcl
    converts both operands before it looks at either's value: ``var.n + "x"`` fails)."""
    if left is not UNKNOWN:
        _operand(check, left, "left operand", e.line, e.left, scope)
    if right is not UNKNOWN:
        _operand(check, right, "right operand", e.line, e.right, scope)
    return UNKNOWN


def _operand(check: Callable[..., Any], v: Any, what: str, line: int, e: E.Expr, scope: Scope) -> Any:
    """``check`` (:func:`_num` or :func:`_bool`) of an operand's value; a failure blames the operand."""
    if type(v) is int and check is _num:
        return v
    try:
        return check(v, line, what) if check is _num else check(v, what, line)
    except EvalError as exc:
        raise exc.blame(e, scope) from None


def _arith(op: str, a: Any, b: Any, line: int) -> Any:
    """Arithmetic as cty does it: exact on whole numbers, decimal on fractions (so
    ``0.1 + 0.2`` is ``0.3``), and ``%`` taking the sign of the dividend."""
    if (op == "/" or op == "%") and b == 0:
        raise EvalError("Invalid operand", "Can't divide by zero." if op == "/" else
                        "Can't use modulo by zero.", line)
    if type(a) is int and type(b) is int:
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "%":
            r = abs(a) % abs(b)
            return -r if a < 0 else r
        q, r = divmod(a, b)
        if r == 0:
            return q
    try:
        da, db = exact_decimal(a), exact_decimal(b)
        if da is None or db is None:
            return _float_arith(op, a, b)
        if op == "+":
            d = DECIMAL_CONTEXT.add(da, db)
        elif op == "-":
            d = DECIMAL_CONTEXT.subtract(da, db)
        elif op == "*":
            d = DECIMAL_CONTEXT.multiply(da, db)
        elif op == "/":
            d = DECIMAL_CONTEXT.divide(da, db)
        else:
            d = DECIMAL_CONTEXT.remainder(da, db)
        return number_from_decimal(d)
    except (ArithmeticError, ValueError, FunctionError):
        raise EvalError("Invalid operand", f"The result of {op} is out of range.", line) from None


def _float_arith(op: str, a: Any, b: Any) -> Any:
    # an operand is the inexact result of an earlier division: binary arithmetic keeps
    # more of its value (2/3*3 is 2) than its shortest decimal digits would
    x, y = float(a), float(b)
    if op == "+":
        r = x + y
    elif op == "-":
        r = x - y
    elif op == "*":
        r = x * y
    elif op == "/":
        r = x / y
    else:
        r = math.fmod(x, y)
    if r.is_integer():
        return number_from_decimal(to_decimal(r))
    if math.isinf(r) or math.isnan(r):
        raise ArithmeticError("out of range")
    return r

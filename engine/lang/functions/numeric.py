"""Numeric functions: ``abs``, ``ceil``, ``floor``, ``max``, ``min``, on cty's numbers (exact
integers, decimals where a float would lose digits)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_CEILING, ROUND_FLOOR
from typing import Any

from engine.diagnostics import FunctionError
from engine.lang.number import number_from_decimal, to_decimal, to_number
from engine.values import UNKNOWN, type_name


def _numbers(nums: tuple[Any, ...]) -> list[Any] | None:
    if not nums:
        raise FunctionError("must pass at least one number.")
    if any(n is UNKNOWN for n in nums):
        return None
    out = []
    for n in nums:
        if n is None:
            raise FunctionError("argument must not be null.")
        if isinstance(n, (tuple, dict)):
            raise FunctionError(f"number required, not {type_name(n)}.")
        out.append(to_number(n))
    return out


def max_(*nums: Any) -> Any:
    got = _numbers(nums)
    return UNKNOWN if got is None else max(got)


def min_(*nums: Any) -> Any:
    got = _numbers(nums)
    return UNKNOWN if got is None else min(got)


def _one_number(n: Any) -> Any:
    if n is None:
        raise FunctionError("argument must not be null.")
    if isinstance(n, (tuple, dict)):
        raise FunctionError(f"number required, not {type_name(n)}.")
    return to_number(n)


def abs_(n: Any) -> Any:
    return UNKNOWN if n is UNKNOWN else abs(_one_number(n))


def ceil(n: Any) -> Any:
    if n is UNKNOWN:
        return UNKNOWN
    x = _one_number(n)
    return x if type(x) is int else number_from_decimal(to_decimal(x).to_integral_value(rounding=ROUND_CEILING))


def floor(n: Any) -> Any:
    if n is UNKNOWN:
        return UNKNOWN
    x = _one_number(n)
    return x if type(x) is int else number_from_decimal(to_decimal(x).to_integral_value(rounding=ROUND_FLOOR))


# terraform's signature of each function here (its diagnostics name the parameters): the function
SIGNATURES: dict[str, Callable[..., Any]] = {
    "abs(num)": abs_,
    "ceil(num)": ceil,
    "floor(num)": floor,
    "max(numbers...)": max_,
    "min(numbers...)": min_,
}

"""Numeric functions: ``abs``, ``ceil``, ``floor``, ``max``, ``min``, ``log``, ``pow``, ``signum``,
``parseint`` and ``sum``, on cty's numbers (exact integers, decimals where a float would lose digits;
``log`` and ``pow`` compute in float64, as cty does)."""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any

from engine.diagnostics import FunctionError
from engine.lang.functions.arguments import ArgumentError
from engine.lang.number import (
    DECIMAL_CONTEXT,
    number_from_decimal,
    to_decimal,
    to_number,
    whole_number,
)
from engine.values import UNKNOWN, is_wholly_known, type_name


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


def _float_arg(n: Any, index: int) -> float:
    if n is None:
        raise ArgumentError(index, "argument must not be null")
    try:
        return float(_one_number(n))
    except FunctionError as exc:
        raise ArgumentError(index, str(exc).rstrip(".")) from None


def _from_float(x: float) -> Any:
    if math.isnan(x):
        raise FunctionError("the result is not a number (NaN).")
    if math.isfinite(x) and x.is_integer():
        return int(x)
    return x


def log(num: Any, base: Any) -> Any:
    if num is UNKNOWN or base is UNKNOWN:
        return UNKNOWN
    n, b = _float_arg(num, 0), _float_arg(base, 1)

    def ln(x: float) -> float:
        if x == 0:
            return -math.inf
        if x < 0:
            return math.nan
        return math.log(x)

    with_base = ln(b)
    result = ln(n) / with_base if with_base != 0 else math.copysign(math.inf, ln(n)) if ln(n) else math.nan
    return _from_float(result)


def pow_(num: Any, power: Any) -> Any:
    if num is UNKNOWN or power is UNKNOWN:
        return UNKNOWN
    n, p = _float_arg(num, 0), _float_arg(power, 1)
    try:
        return _from_float(math.pow(n, p))
    except OverflowError:
        return math.inf
    except ValueError:
        raise FunctionError("the result is not a number (NaN).") from None


def signum(num: Any) -> Any:
    if num is UNKNOWN:
        return UNKNOWN
    if num is None:
        raise ArgumentError(0, "argument must not be null")
    x = _one_number(num)
    if type(x) is not int and not x.is_integer():
        raise FunctionError("value must be a whole number, between -9223372036854775808 and "
                            "9223372036854775807.")
    return (x > 0) - (x < 0)


_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def parseint(number: Any, base: Any) -> Any:
    if number is None:
        raise ArgumentError(0, "argument must not be null")
    if number is UNKNOWN or base is UNKNOWN:
        return UNKNOWN
    if not isinstance(number, str):
        raise ArgumentError(0, f"first argument must be a string, not {type_name(number)}")
    try:
        b = whole_number(_one_number(base), "base")
    except FunctionError:
        b = 0
    if not 2 <= b <= 62:
        raise ArgumentError(1, "base must be a whole number between 2 and 62 inclusive")
    text = number
    sign = 1
    if text[:1] in "+-" and text:
        sign = -1 if text[0] == "-" else 1
        text = text[1:]
    value = 0
    for c in text:
        d = _DIGITS.find(c if b > 36 else c.lower())
        if d < 0 or d >= b:
            text = ""
            break
        value = value * b + d
    if not text:
        raise ArgumentError(0, f'cannot parse "{number}" as a base {b} integer')
    return sign * value


def sum_(lst: Any) -> Any:
    if lst is UNKNOWN:
        return UNKNOWN
    if lst is None:
        raise ArgumentError(0, "argument must not be null")
    if not isinstance(lst, tuple):
        raise ArgumentError(0, "cannot sum noniterable")
    if not lst:
        raise ArgumentError(0, "cannot sum an empty list")
    if not is_wholly_known(lst):
        return UNKNOWN
    total = Decimal(0)
    for x in lst:
        if x is None:
            raise ArgumentError(0, "argument must be list, set, or tuple of number values")
        try:
            total = DECIMAL_CONTEXT.add(total, to_decimal(_one_number(x)))
        except FunctionError:
            raise ArgumentError(0, "argument must be list, set, or tuple of number values") from None
    return number_from_decimal(total)


# terraform's signature of each function here (its diagnostics name the parameters): the function
SIGNATURES: dict[str, Callable[..., Any]] = {
    "abs(num)": abs_,
    "ceil(num)": ceil,
    "floor(num)": floor,
    "log(num, base)": log,
    "parseint(number, base)": parseint,
    "pow(num, power)": pow_,
    "signum(num)": signum,
    "sum(list)": sum_,
    "max(numbers...)": max_,
    "min(numbers...)": min_,
}

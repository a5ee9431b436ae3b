"""What every family of functions does with its arguments: a sequence or a string required,
a value converted to a type, element types unified, all arguments known."""

from __future__ import annotations

import re
from typing import Any

from engine.diagnostics import FunctionError
from engine.lang import convert as _convert
from engine.lang.number import to_string
from engine.values import UNKNOWN, type_name, value_type


class ArgumentError(FunctionError):
    """The value given for one parameter is unsuitable: terraform's "Invalid function argument",
    naming the parameter at ``index`` (counted from 0; past the fixed ones, the variadic one)."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index


def _seq(v: Any, what: str = "a list, set or tuple") -> tuple[Any, ...]:
    if isinstance(v, tuple):
        return v
    if v is None:
        raise FunctionError("argument must not be null.")
    raise FunctionError(f"{what} is required, not {type_name(v)}.")


def _string_arg(v: Any) -> str:
    if v is None:
        raise FunctionError("argument must not be null.")
    return to_string(v)


def _convert_to(v: Any, ty: Any) -> Any:
    try:
        return _convert.convert(v, ty)
    except _convert.ConversionError as exc:
        raise FunctionError(str(exc)) from None


def _unified(values: list[Any] | tuple[Any, ...], what: str) -> Any:
    ty = _convert.unify([value_type(x) for x in values])
    if ty is None:
        raise FunctionError(f"cannot convert {what} of any single type.")
    return ty


def _known(*args: Any) -> bool:
    return all(a is not UNKNOWN for a in args)


def cty_words(exc: _convert.ConversionError) -> str:
    """cty's words for a failed conversion of an argument: ``string required``, ``element 0: string
    required``, ``a number is required``."""
    short = exc.short.rstrip(".")
    if short.startswith(("a bool is", "a number is")):
        return short
    m = re.fullmatch(r"\[(\d+)\](.*)", exc.path)
    if m and not m[2]:
        return f"element {m[1]}: {short}"
    return f"{exc.path}: {short}" if exc.path else short

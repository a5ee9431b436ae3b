"""What every family of functions does with its arguments: a sequence or a string required,
a value converted to a type, element types unified, all arguments known."""

from __future__ import annotations

from typing import Any

from engine.diagnostics import FunctionError
from engine.lang import convert as _convert
from engine.lang.number import to_string
from engine.values import UNKNOWN, type_name, value_type


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

"""Type conversion functions: ``tobool``, ``tolist``, ``tomap``, ``tonumber``, ``toset``,
``tostring``, and ``sensitive``/``nonsensitive`` (terraform lists them here too).

``try`` and ``can`` are of this family in terraform's documentation, but their arguments are
expressions, not values: :mod:`engine.lang.calls` evaluates them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.diagnostics import FunctionError
from engine.lang.functions.arguments import _convert_to, _unified
from engine.lang.number import parse_number, to_string
from engine.lang.quote import go_quote
from engine.values import UNKNOWN, ListVal, MapVal, SetVal, is_wholly_known, type_name


def _to_collection(v: Any, kind: str) -> tuple[Any, ...]:
    """The elements of ``v`` for tolist/toset, or terraform's error for what is not a sequence."""
    if not isinstance(v, tuple):
        raise FunctionError(f"cannot convert {type_name(v)} to {kind} of any single type.")
    return v


def toset(v: Any) -> Any:
    if v is None or v is UNKNOWN:
        return v
    items = _to_collection(v, "set")
    if not is_wholly_known(v):
        return UNKNOWN
    if not isinstance(v, SetVal):
        ty = _unified(items, "tuple to set")
        items = tuple(_convert_to(x, ty) for x in items)
    return SetVal.of(items)


def tolist(v: Any) -> Any:
    if v is None or v is UNKNOWN:
        return v
    items = _to_collection(v, "list")
    if isinstance(v, ListVal):
        return v
    if isinstance(v, SetVal):
        return ListVal(v)
    ty = _unified(items, "tuple to list")
    return ListVal(_convert_to(x, ty) for x in items)


def tomap(v: Any) -> Any:
    if v is None or v is UNKNOWN:
        return v
    if not isinstance(v, dict):
        raise FunctionError(f"cannot convert {type_name(v)} to map of any single type.")
    if isinstance(v, MapVal):
        return v
    ty = _unified(list(v.values()), "object to map")
    return MapVal({k: _convert_to(x, ty) for k, x in v.items()})


def tostring(v: Any) -> Any:
    if v is UNKNOWN or v is None:
        return v
    return to_string(v)


def tonumber(v: Any) -> Any:
    if v is UNKNOWN or v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)):
        return v
    if isinstance(v, str):
        n = parse_number(v)
        if n is None:  # terraform's words for its to* functions, not the conversion's
            raise FunctionError(f"cannot convert {go_quote(v)} to number; given string must be a decimal "
                                "representation of a number.")
        return n
    raise FunctionError(f"cannot convert {type_name(v)} to number.")


def tobool(v: Any) -> Any:
    if v is UNKNOWN or v is None or isinstance(v, bool):
        return v
    if v in ("true", "false"):
        return v == "true"
    if isinstance(v, str):
        raise FunctionError(f'cannot convert {go_quote(v)} to bool; only the strings "true" or "false" are '
                            "allowed.")
    raise FunctionError(f"cannot convert {type_name(v)} to bool.")


def sensitive(value: Any) -> Any:
    """The value, marked sensitive: strata follows the mark through the configuration instead
    (:mod:`engine.sensitivity` sees the call), so the value itself is unchanged."""
    return value


def nonsensitive(value: Any) -> Any:
    """The value, its sensitive mark removed (again, :mod:`engine.sensitivity` sees the call)."""
    return value


def issensitive(value: Any) -> Any:
    """Unknown while the value is; otherwise the evaluator answers from what the argument refers to
    (:mod:`engine.lang.calls`), values carrying no marks: False here."""
    return UNKNOWN if value is UNKNOWN else False


def ephemeralasnull(value: Any) -> Any:
    """The value: strata has no ephemeral values, so none becomes null."""
    return value


# terraform's signature of each function here (its diagnostics name the parameters): the function
SIGNATURES: dict[str, Callable[..., Any]] = {
    "ephemeralasnull(value)": ephemeralasnull,
    "issensitive(value)": issensitive,
    "nonsensitive(value)": nonsensitive,
    "sensitive(value)": sensitive,
    "tobool(v)": tobool,
    "tolist(v)": tolist,
    "tomap(v)": tomap,
    "tonumber(v)": tonumber,
    "toset(v)": toset,
    "tostring(v)": tostring,
}

"""List functions beyond the basic collection ones: ``compact``, ``slice``, ``reverse``, ``index``,
``chunklist``, ``coalescelist``, ``matchkeys``, ``transpose``, and the boolean folds ``alltrue`` and
``anytrue`` (terraform's documentation lists them with the collection functions)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.diagnostics import FunctionError
from engine.lang import convert as _convert
from engine.lang.functions.arguments import ArgumentError, cty_words
from engine.lang.number import whole_number
from engine.values import (
    UNKNOWN,
    ListVal,
    MapVal,
    SetVal,
    cty_equals,
    is_wholly_known,
    value_type,
)


def typed_arg(v: Any, ty: Any, index: int) -> Any:
    """``v`` converted to the parameter's type ``ty`` as cty converts a function's argument (an
    element type ``"dynamic"`` is unified from the elements); a failure names the parameter."""
    if v is None or v is UNKNOWN:
        return v
    if isinstance(ty, list) and ty[1] == "dynamic":
        kind = ty[0]
        single = f"{kind} of any single type required"
        if (kind == "map") != isinstance(v, dict) or not isinstance(v, (tuple, dict)):
            raise ArgumentError(index, single)
        items = v.values() if isinstance(v, dict) else v
        ety = _convert.unify([value_type(x) for x in items])
        if ety is None:
            raise ArgumentError(index, single)
        ty = [kind, ety]
    try:
        return _convert.convert(v, ty)
    except _convert.ConversionError as exc:
        raise ArgumentError(index, cty_words(exc)) from None


def _int_arg(v: Any, index: int, what: str = "value") -> int:
    try:
        return whole_number(typed_arg(v, "number", index), what)
    except ArgumentError:
        raise
    except FunctionError as exc:
        raise ArgumentError(index, str(exc).rstrip(".")) from None


def compact(lst: Any) -> Any:
    lst = typed_arg(lst, ["list", "string"], 0)
    if not is_wholly_known(lst):
        return UNKNOWN
    return ListVal([x for x in lst if x is not None and x != ""])


def slice_(lst: Any, start: Any, end: Any) -> Any:
    if isinstance(lst, SetVal):
        raise ArgumentError(0, "cannot slice a set, because its elements do not have indices; explicitly "
                               "convert to a list if the ordering of the result is not important")
    if not isinstance(lst, tuple):
        if lst is UNKNOWN:
            return UNKNOWN
        raise ArgumentError(0, "must be a list or tuple value")
    if start is UNKNOWN or end is UNKNOWN:
        return UNKNOWN
    lo, hi = _int_arg(start, 1), _int_arg(end, 2)
    if lo < 0:
        raise ArgumentError(1, "start index must not be less than zero")
    if hi > len(lst):
        raise ArgumentError(2, "end index must not be greater than the length of the list")
    if lo > hi:
        raise ArgumentError(1, "start index must not be greater than end index")
    part = lst[lo:hi]
    return ListVal(part) if isinstance(lst, ListVal) else tuple(part)


def reverse(lst: Any) -> Any:
    if lst is UNKNOWN:
        return UNKNOWN
    if isinstance(lst, SetVal):
        return ListVal(reversed(lst))
    if not isinstance(lst, tuple):
        raise ArgumentError(0, f"can only reverse list or tuple values, not {_friendly(lst)}")
    return ListVal(reversed(lst)) if isinstance(lst, ListVal) else tuple(reversed(lst))


def _friendly(v: Any) -> str:
    return str(_convert.friendly_name(value_type(v)))


def index(lst: Any, value: Any) -> Any:
    if not isinstance(lst, tuple) or isinstance(lst, SetVal):
        if lst is UNKNOWN:
            return UNKNOWN
        raise FunctionError("argument must be a list or tuple.")
    if not lst:
        raise FunctionError("cannot search an empty list.")
    for i, x in enumerate(lst):
        eq = cty_equals(x, value)
        if eq is UNKNOWN:
            return UNKNOWN
        if eq:
            return i
    raise FunctionError("item not found.")


def chunklist(lst: Any, size: Any) -> Any:
    lst = typed_arg(lst, ["list", "dynamic"], 0)
    if size is UNKNOWN or lst is UNKNOWN:
        return UNKNOWN
    n = _int_arg(size, 1)
    if n < 0:
        raise FunctionError("the size argument must be positive.")
    if not lst:
        return ListVal([])
    if n == 0:
        return ListVal([lst])
    return ListVal([ListVal(lst[i:i + n]) for i in range(0, len(lst), n)])


def coalescelist(*vals: Any) -> Any:
    if not vals:
        raise FunctionError("at least one argument is required.")
    for v in vals:
        if v is not UNKNOWN and (not isinstance(v, tuple) or isinstance(v, SetVal)):
            raise FunctionError("coalescelist arguments must be lists or tuples.")
    for v in vals:
        if v is UNKNOWN:
            return UNKNOWN
        if v is None:
            continue
        if len(v) > 0:
            if all(isinstance(x, ListVal) for x in vals if x is not None):
                ty = _convert.unify([value_type(x) for x in vals])
                if ty is not None:
                    return _convert.convert(v, ty)
            return v
    raise FunctionError("no non-null arguments.")


def matchkeys(vals: Any, keys: Any, searchset: Any) -> Any:
    vals = typed_arg(vals, ["list", "dynamic"], 0)
    keys = typed_arg(keys, ["list", "dynamic"], 1)
    searchset = typed_arg(searchset, ["list", "dynamic"], 2)
    if _convert.unify([value_type(keys), value_type(searchset)]) is None:
        raise FunctionError("keys and searchset must be of the same type.")
    if UNKNOWN in (vals, keys, searchset):
        return UNKNOWN
    if len(vals) != len(keys):
        raise FunctionError("length of keys and values should be equal.")
    if not vals:
        return ListVal([])
    if not is_wholly_known(keys) or not is_wholly_known(searchset):
        return UNKNOWN
    out = []
    for v, k in zip(vals, keys, strict=True):
        if any(cty_equals(k, s) is True for s in searchset):
            out.append(v)
    return ListVal(out)


def transpose(m: Any) -> Any:
    m = typed_arg(m, ["map", ["list", "string"]], 0)
    if not is_wholly_known(m):
        return UNKNOWN
    out: dict[str, list[str]] = {}
    for k in sorted(m):
        for v in m[k] or ():
            if v is None:
                raise FunctionError("input list must not contain null string.")
            out.setdefault(v, []).append(k)
    return MapVal({k: ListVal(out[k]) for k in sorted(out)})


def alltrue(lst: Any) -> Any:
    lst = typed_arg(lst, ["list", "bool"], 0)
    if lst is UNKNOWN:
        return UNKNOWN
    result: Any = True
    for x in lst:
        if x is UNKNOWN:
            result = UNKNOWN
        elif x is None or x is False:
            return False
    return result


def anytrue(lst: Any) -> Any:
    lst = typed_arg(lst, ["list", "bool"], 0)
    if lst is UNKNOWN:
        return UNKNOWN
    result: Any = False
    for x in lst:
        if x is UNKNOWN:
            result = UNKNOWN
        elif x is True:
            return True
    return result


# terraform's signature of each function here (its diagnostics name the parameters): the function
SIGNATURES: dict[str, Callable[..., Any]] = {
    "alltrue(list)": alltrue,
    "anytrue(list)": anytrue,
    "chunklist(list, size)": chunklist,
    "coalescelist(vals...)": coalescelist,
    "compact(list)": compact,
    "index(list, value)": index,
    "matchkeys(values, keys, searchset)": matchkeys,
    "reverse(list)": reverse,
    "slice(list, start_index, end_index)": slice_,
    "transpose(values)": transpose,
}

"""Collection functions: lists, sets, tuples, maps and objects taken apart, combined, searched and
sorted; ``range``, ``coalesce`` and ``one`` too, as terraform's documentation lists them."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from engine.diagnostics import FunctionArityError, FunctionError
from engine.lang import convert as _convert
from engine.lang.functions.arguments import ArgumentError, _convert_to, _string_arg, _unified
from engine.lang.functions.numeric import _one_number
from engine.lang.functions.strings import graphemes
from engine.lang.number import (
    DECIMAL_CONTEXT,
    number_from_decimal,
    to_decimal,
    to_string,
    whole_number,
)
from engine.values import (
    UNKNOWN,
    ListVal,
    MapVal,
    SetVal,
    cty_equals,
    equal,
    is_wholly_known,
    type_name,
    value_type,
)


def length(v: Any) -> Any:
    if v is UNKNOWN:
        return UNKNOWN
    if isinstance(v, str):
        return len(v) if v.isascii() else len(graphemes(v))
    if isinstance(v, (tuple, dict)):
        return len(v)
    if v is None:
        raise FunctionError("argument must not be null.")
    raise FunctionError("argument must be a string, a collection type, or a structural type.")


def concat(*seqs: Any) -> Any:
    if not seqs:
        raise FunctionError("at least one argument is required.")
    if any(s is UNKNOWN for s in seqs):
        return UNKNOWN
    for i, s in enumerate(seqs):
        if s is None:
            raise FunctionError("argument must not be null.")
        if not isinstance(s, tuple) or isinstance(s, SetVal):
            raise ArgumentError(i, f"all arguments must be lists or tuples; got {type_name(s)}")
    if all(isinstance(s, ListVal) for s in seqs):
        ty = _convert.unify([value_type(s) for s in seqs])
        if ty is not None:
            out = [x for s in seqs for x in _convert_to(s, ty)]
            return ListVal(out)
    return tuple(x for s in seqs for x in s)


def merge(*maps: Any) -> Any:
    if any(m is UNKNOWN for m in maps):
        return UNKNOWN
    present = [m for m in maps if m is not None]
    for m in present:
        if not isinstance(m, dict):
            raise FunctionError(f'arguments must be maps or objects, got "{type_name(m)}".')
    if maps and not present:
        return None
    out: dict[str, Any] = {}
    for m in present:
        out.update(m)
    if present and all(isinstance(m, MapVal) for m in present):
        first = value_type(present[0])
        if all(value_type(m) == first for m in present[1:]):
            return MapVal(out)
    return out


def keys(m: Any) -> Any:
    if m is UNKNOWN:
        return UNKNOWN
    if not isinstance(m, dict):
        raise ArgumentError(0, "must have map or object type")
    ks = sorted(m)
    return ListVal(ks) if isinstance(m, MapVal) else tuple(ks)


def values(m: Any) -> Any:
    if m is UNKNOWN:
        return UNKNOWN
    if not isinstance(m, dict):
        raise FunctionError("values() requires a map as the first argument.")
    vs = [m[k] for k in sorted(m)]
    return ListVal(vs) if isinstance(m, MapVal) else tuple(vs)


def lookup(m: Any, key: Any, *default: Any) -> Any:
    if len(default) > 1:
        raise FunctionArityError("lookup takes at most three arguments.")
    if m is UNKNOWN or key is UNKNOWN:
        return UNKNOWN
    if not isinstance(m, dict):
        raise ArgumentError(0, f"lookup() requires a map as the first argument, not {type_name(m)}")
    key = _string_arg(key)
    if default and isinstance(m, MapVal) and default[0] is not UNKNOWN:
        ety = _convert.unify([value_type(x) for x in m.values()])
        try:
            fallback = _convert.convert(default[0], ety) if ety is not None else default[0]
        except _convert.ConversionError:
            raise FunctionError("the default value must have the same type as the map elements.") from None
    else:
        fallback = default[0] if default else None
    if key in m:
        return m[key]
    if default:
        return fallback
    if not isinstance(m, MapVal):
        raise ArgumentError(0, f'the given object has no attribute "{key}"')
    raise FunctionError(f'lookup failed to find key "{key}".')


def element(lst: Any, i: Any) -> Any:
    if lst is UNKNOWN or i is UNKNOWN:
        return UNKNOWN
    if i is None:
        raise FunctionError("argument must not be null.")
    idx = whole_number(i, "invalid index: value")
    if isinstance(lst, SetVal) or not isinstance(lst, tuple):
        raise FunctionError(f"cannot read elements from {type_name(lst)}.")
    if not lst:
        raise FunctionError("cannot use element function with an empty list.")
    # terraform wraps with Go's truncated %, so a negative index works only when it wraps to 0
    wrapped = abs(idx) % len(lst)
    if idx < 0 and wrapped:
        raise FunctionError(f"index {idx} out of range for a list of {len(lst)} elements.")
    return lst[wrapped]


def contains(lst: Any, v: Any) -> Any:
    if lst is UNKNOWN:
        return UNKNOWN
    if not isinstance(lst, tuple):
        raise FunctionError("argument must be list, tuple, or set.")
    items = lst
    if v is None:
        raise FunctionError("argument must not be null.")
    if not items:
        return False
    if v is UNKNOWN:
        return UNKNOWN
    unknown = False
    for x in items:
        eq = cty_equals(v, x)
        if eq is UNKNOWN:
            unknown = True
        elif eq:
            return True
    return UNKNOWN if unknown else False


def flatten(lst: Any) -> Any:
    if not is_wholly_known(lst):
        return UNKNOWN
    out: list[Any] = []

    def walk(x: tuple[Any, ...]) -> None:
        for y in x:
            if isinstance(y, tuple):
                walk(y)
            else:
                out.append(y)

    if not isinstance(lst, tuple):
        raise FunctionError("can only flatten lists, sets and tuples.")
    walk(lst)
    return tuple(out)


def distinct(lst: Any) -> Any:
    if lst is UNKNOWN:
        return UNKNOWN
    if not isinstance(lst, tuple):
        raise ArgumentError(0, "list of any single type required")
    items = lst
    if not isinstance(lst, (ListVal, SetVal)):
        ty = _unified(items, "tuple to list")
        items = tuple(_convert_to(x, ty) for x in items)
    if not is_wholly_known(items):
        return UNKNOWN
    out: list[Any] = []
    for x in items:
        if not any(equal(x, y) for y in out):
            out.append(x)
    return ListVal(out)


def sort(lst: Any) -> Any:
    if lst is UNKNOWN:
        return UNKNOWN
    if not isinstance(lst, tuple):
        raise ArgumentError(0, "list of string required")
    items = lst
    strs: list[str] = []
    unknown = False
    for i, x in enumerate(items):
        if x is UNKNOWN:
            unknown = True
        elif x is None:
            raise FunctionError(f"given list element {i} is null; a null string cannot be sorted.")
        elif isinstance(x, (tuple, dict)):
            raise FunctionError(f"element {i}: string required.")
        elif not is_wholly_known(x):
            unknown = True
        else:
            strs.append(to_string(x))
    if unknown:
        # the order isn't known yet, but the length is
        return ListVal([UNKNOWN] * len(items))
    return ListVal(sorted(strs))


def zipmap(ks: Any, vs: Any) -> Any:
    if ks is UNKNOWN or vs is UNKNOWN:
        return UNKNOWN
    if not isinstance(ks, tuple):
        raise ArgumentError(0, "list of string required")
    key_items = ks
    if isinstance(vs, SetVal) or not isinstance(vs, tuple):
        if vs is None:
            raise FunctionError("argument must not be null.")
        raise FunctionError(f"values must be a list or tuple, not {type_name(vs)}.")
    if len(key_items) != len(vs):
        raise FunctionError(f"number of keys ({len(key_items)}) does not match number of values ({len(vs)}).")
    names: list[str] = []
    for i, k in enumerate(key_items):
        if k is UNKNOWN:
            return UNKNOWN
        if k is None:
            raise FunctionError(f"keys list has null value at index {i}.")
        if isinstance(k, (tuple, dict)):
            raise FunctionError(f"element {i}: string required.")
        names.append(to_string(k))
    out = dict(zip(names, vs, strict=True))
    return MapVal(out) if isinstance(vs, ListVal) else out


def range_(*args: Any) -> Any:
    if not 1 <= len(args) <= 3:
        raise FunctionError("must have one, two, or three arguments.")
    if any(a is UNKNOWN for a in args):
        return UNKNOWN
    if any(a is None for a in args):
        raise FunctionError("argument must not be null.")
    nums = [to_decimal(_one_number(a)) for a in args]
    zero = Decimal(0)
    if len(nums) == 1:
        start, end = zero, nums[0]
        step = Decimal(-1) if end < zero else Decimal(1)
    elif len(nums) == 2:
        start, end = nums[0], nums[1]
        step = Decimal(-1) if end < start else Decimal(1)
    else:
        start, end, step = nums
    down = step < zero
    if down and end > start:
        raise FunctionError("end must be less than start when step is negative.")
    if not down and end < start:
        raise FunctionError("end must be greater than start when step is positive.")
    out: list[Any] = []
    x = start
    while (x > end) if down else (x < end):
        if len(out) >= 1024:
            raise FunctionError("more than 1024 values were generated; either decrease the "
                                "difference between start and end or use a smaller step.")
        out.append(number_from_decimal(x))
        x = DECIMAL_CONTEXT.add(x, step)
    return ListVal(out)


def coalesce(*args: Any) -> Any:
    ty = _convert.unify([value_type(a) for a in args]) if args else None
    if ty is None:
        raise FunctionError("all arguments must have the same type.")
    for a in args:
        if a is UNKNOWN:
            return UNKNOWN
        if a is None:
            continue
        a = _convert_to(a, ty)
        if a == "" and ty == "string":
            continue
        return a
    raise FunctionError("no non-null, non-empty-string arguments.")


def one(v: Any) -> Any:
    """The only element of a list, set or tuple; null when it is empty."""
    if v is UNKNOWN:
        return UNKNOWN
    if not isinstance(v, tuple) or len(v) > 1:
        raise FunctionError("must be a list, set, or tuple value with either zero or one elements.")
    if not v:
        return None
    return v[0]


# terraform's signature of each function here (its diagnostics name the parameters): the function
SIGNATURES: dict[str, Callable[..., Any]] = {
    "coalesce(vals...)": coalesce,
    "concat(seqs...)": concat,
    "contains(list, value)": contains,
    "distinct(list)": distinct,
    "element(list, index)": element,
    "flatten(list)": flatten,
    "keys(inputMap)": keys,
    "length(value)": length,
    "lookup(inputMap, key, default...)": lookup,
    "merge(maps...)": merge,
    "one(list)": one,
    "range(params...)": range_,
    "sort(list)": sort,
    "values(mapping)": values,
    "zipmap(keys, values)": zipmap,
}

"""Built-in functions of the Terraform language.

Each function returns :data:`UNKNOWN` when an argument it needs is unknown,
so unknowns propagate through planning exactly like terraform's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import orjson

from .values import UNKNOWN, ListVal, MapVal, SetVal, is_wholly_known, to_json, type_name


class FunctionError(Exception):
    """A function was called with an unsuitable argument."""


def to_string(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v.is_integer() and abs(v) < 2**53:
            return str(int(v))
        return repr(v)
    raise FunctionError(f"Cannot convert {type_name(v)} to string.")


def to_number(v: Any) -> Any:
    if isinstance(v, bool):
        raise FunctionError("A number is required, not bool.")
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, str):
        try:
            return int(v)
        except ValueError:
            try:
                return float(v)
            except ValueError:
                raise FunctionError(f'Cannot convert "{v}" to number: a number is required.') from None
    raise FunctionError(f"A number is required, not {type_name(v)}.")


def _unknown_in(*args: Any) -> bool:
    return any(a is UNKNOWN for a in args)


def _strict(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap ``fn`` so any unknown anywhere in its arguments yields unknown."""

    def wrapper(*args: Any) -> Any:
        if not all(is_wholly_known(a) for a in args):
            return UNKNOWN
        return fn(*args)

    wrapper.__name__ = fn.__name__
    return wrapper


def _seq(v: Any, fname: str) -> tuple[Any, ...]:
    if isinstance(v, tuple):
        return v
    raise FunctionError(f"a list, set or tuple is required, not {type_name(v)}.")


@_strict
def toset(v: Any) -> Any:
    if v is None:
        return None
    items = _seq(v, "toset")
    kinds = {type(to_json(x)) for x in items if x is not None}
    if len(kinds) > 1 and kinds <= {str, int, float, bool}:
        items = tuple(to_string(x) for x in items)
    return SetVal.of(items)


@_strict
def tolist(v: Any) -> Any:
    if v is None:
        return None
    items = _seq(v, "tolist")
    kinds = {type(x) for x in items if x is not None}
    if len(kinds) > 1 and kinds <= {str, int, float, bool}:
        items = tuple(to_string(x) for x in items)
    return ListVal(items)


@_strict
def tomap(v: Any) -> Any:
    if v is None:
        return None
    if not isinstance(v, dict):
        raise FunctionError(f"an object or map is required, not {type_name(v)}.")
    kinds = {type(x) for x in v.values() if x is not None}
    if len(kinds) > 1 and kinds <= {str, int, float, bool}:
        return MapVal({k: to_string(x) if x is not None else None for k, x in v.items()})
    return MapVal(v)


def tostring(v: Any) -> Any:
    if v is UNKNOWN or v is None:
        return v
    return to_string(v)


def tonumber(v: Any) -> Any:
    if v is UNKNOWN or v is None:
        return v
    return to_number(v)


def tobool(v: Any) -> Any:
    if v is UNKNOWN or v is None or isinstance(v, bool):
        return v
    if v in ("true", "false"):
        return v == "true"
    raise FunctionError(f"cannot convert {type_name(v)} to bool.")


def length(v: Any) -> Any:
    if v is UNKNOWN:
        return UNKNOWN
    if isinstance(v, str):
        return len(v)
    if isinstance(v, (tuple, dict)):
        return len(v)
    if v is None:
        raise FunctionError("argument must not be null.")
    raise FunctionError(f"a collection or string is required, not {type_name(v)}.")


_FMT = re.compile(r"%(?:%|[-+# 0]*\d*(?:\.\d+)?[sdfvqtxXobeEgG])")


@_strict
def format_(fmt: Any, *args: Any) -> Any:
    if not isinstance(fmt, str):
        raise FunctionError("the format string must be a string.")
    it = iter(args)

    def repl(m: re.Match[str]) -> str:
        spec = m.group(0)
        if spec == "%%":
            return "%"
        try:
            arg = next(it)
        except StopIteration:
            raise FunctionError(f"not enough arguments for format string {fmt!r}.") from None
        verb = spec[-1]
        flags = spec[1:-1]
        if verb == "v":
            return to_string(arg) if not isinstance(arg, (tuple, dict)) else orjson.dumps(to_json(arg)).decode()
        if verb == "q":
            return orjson.dumps(to_string(arg)).decode()
        if verb == "t":
            return "true" if arg else "false"
        if verb == "s":
            return ("%" + flags + "s") % to_string(arg)
        if verb == "d":
            return ("%" + flags + "d") % int(to_number(arg))
        return ("%" + flags + verb) % to_number(arg)

    return _FMT.sub(repl, fmt)


@_strict
def join(sep: Any, *lists: Any) -> Any:
    items: list[str] = []
    for lst in lists:
        for x in _seq(lst, "join"):
            if x is None:
                raise FunctionError("element is null; cannot concatenate null values.")
            items.append(to_string(x))
    return to_string(sep).join(items)


@_strict
def jsonencode(v: Any) -> Any:
    return orjson.dumps(to_json(v)).decode()


@_strict
def jsondecode(v: Any) -> Any:
    try:
        return _from_plain(orjson.loads(v))
    except orjson.JSONDecodeError as exc:
        raise FunctionError(f"invalid JSON: {exc}") from None


def _from_plain(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_from_plain(x) for x in v)
    if isinstance(v, dict):
        return {k: _from_plain(x) for k, x in v.items()}
    return v


def upper(s: Any) -> Any:
    return UNKNOWN if s is UNKNOWN else to_string(s).upper()


def lower(s: Any) -> Any:
    return UNKNOWN if s is UNKNOWN else to_string(s).lower()


@_strict
def concat(*lists: Any) -> Any:
    out: list[Any] = []
    for lst in lists:
        out.extend(_seq(lst, "concat"))
    return tuple(out)


@_strict
def merge(*maps: Any) -> Any:
    out: dict[str, Any] = {}
    for m in maps:
        if m is None:
            continue
        if not isinstance(m, dict):
            raise FunctionError(f"arguments must be maps or objects, not {type_name(m)}.")
        out.update(m)
    return out


@_strict
def keys(m: Any) -> Any:
    if not isinstance(m, dict):
        raise FunctionError(f"a map or object is required, not {type_name(m)}.")
    return ListVal(sorted(m))


@_strict
def values(m: Any) -> Any:
    if not isinstance(m, dict):
        raise FunctionError(f"a map or object is required, not {type_name(m)}.")
    return tuple(m[k] for k in sorted(m))


@_strict
def lookup(m: Any, key: Any, *default: Any) -> Any:
    if not isinstance(m, dict):
        raise FunctionError(f"a map or object is required, not {type_name(m)}.")
    if key in m:
        return m[key]
    if default:
        return default[0]
    raise FunctionError(f'the given key "{key}" is not present in the map, and no default was given.')


@_strict
def element(lst: Any, i: Any) -> Any:
    items = _seq(lst, "element")
    if not items:
        raise FunctionError("cannot use element function with an empty list.")
    return items[int(to_number(i)) % len(items)]


@_strict
def range_(*args: Any) -> Any:
    nums = [to_number(a) for a in args]
    if len(nums) == 1:
        start, stop, step = 0, nums[0], 1
    elif len(nums) == 2:
        start, stop, step = nums[0], nums[1], 1 if nums[1] >= nums[0] else -1
    else:
        start, stop, step = nums
    if step == 0:
        raise FunctionError("step must not be zero.")
    out = []
    x = start
    while (x < stop) if step > 0 else (x > stop):
        out.append(x)
        x += step
        if len(out) > 1024 * 1024:
            raise FunctionError("more than 1048576 elements.")
    return ListVal(out)


def coalesce(*args: Any) -> Any:
    for a in args:
        if a is UNKNOWN:
            return UNKNOWN
        if a is not None and a != "":
            return a
    raise FunctionError("no non-null, non-empty-string arguments.")


@_strict
def max_(*nums: Any) -> Any:
    return max(to_number(n) for n in nums)


@_strict
def min_(*nums: Any) -> Any:
    return min(to_number(n) for n in nums)


@_strict
def split(sep: Any, s: Any) -> Any:
    return ListVal(to_string(s).split(to_string(sep)))


@_strict
def replace(s: Any, old: Any, new: Any) -> Any:
    s, old, new = to_string(s), to_string(old), to_string(new)
    if len(old) > 1 and old.startswith("/") and old.endswith("/"):
        return re.sub(old[1:-1], re.sub(r"\$\{?(\d+)\}?", r"\\\1", new), s)
    return s.replace(old, new)


def trimspace(s: Any) -> Any:
    return UNKNOWN if s is UNKNOWN else to_string(s).strip()


@_strict
def contains(lst: Any, v: Any) -> Any:
    return v in _seq(lst, "contains")


@_strict
def flatten(lst: Any) -> Any:
    out: list[Any] = []

    def walk(x: Any) -> None:
        for y in x:
            if isinstance(y, tuple):
                walk(y)
            else:
                out.append(y)

    walk(_seq(lst, "flatten"))
    return tuple(out)


@_strict
def distinct(lst: Any) -> Any:
    out: list[Any] = []
    for x in _seq(lst, "distinct"):
        if x not in out:
            out.append(x)
    return ListVal(out)


@_strict
def sort(lst: Any) -> Any:
    return ListVal(sorted(to_string(x) for x in _seq(lst, "sort")))


@_strict
def substr(s: Any, offset: Any, n: Any) -> Any:
    s = to_string(s)
    o, ln = int(to_number(offset)), int(to_number(n))
    if o < 0:
        o = len(s) + o
    return s[o:] if ln < 0 else s[o:o + ln]


@_strict
def abs_(n: Any) -> Any:
    return abs(to_number(n))


@_strict
def ceil(n: Any) -> Any:
    return math.ceil(to_number(n))


@_strict
def floor(n: Any) -> Any:
    return math.floor(to_number(n))


@_strict
def zipmap(ks: Any, vs: Any) -> Any:
    return dict(zip((to_string(k) for k in _seq(ks, "zipmap")), _seq(vs, "zipmap"), strict=False))


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "toset": toset, "tolist": tolist, "tomap": tomap, "tostring": tostring, "tonumber": tonumber,
    "tobool": tobool, "length": length, "format": format_, "join": join, "jsonencode": jsonencode,
    "jsondecode": jsondecode, "upper": upper, "lower": lower, "concat": concat, "merge": merge,
    "keys": keys, "values": values, "lookup": lookup, "element": element, "range": range_,
    "coalesce": coalesce, "max": max_, "min": min_, "split": split, "replace": replace,
    "trimspace": trimspace, "contains": contains, "flatten": flatten, "distinct": distinct,
    "sort": sort, "substr": substr, "abs": abs_, "ceil": ceil, "floor": floor, "zipmap": zipmap,
}

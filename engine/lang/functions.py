"""Built-in functions of the Terraform language.

Each function follows its cty/terraform counterpart: an argument that is
wholly unknown makes the result unknown, while an argument that is only
partly unknown (a tuple with one unknown element, say) still gives a result
wherever that result doesn't depend on the unknown part.

Every function in :data:`FUNCTIONS` raises only :class:`FunctionError` (or
its subclass :class:`FunctionArityError` for a wrong number of arguments):
any other exception escaping an implementation is turned into one.
"""

from __future__ import annotations

import inspect
import json
import math
import re
import unicodedata
from collections.abc import Callable
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any

from engine.diagnostics import FunctionArityError, FunctionError
from engine.lang import convert as _convert
from engine.lang.number import (
    DECIMAL_CONTEXT,
    number_from_decimal,
    number_text,
    parse_number,
    to_decimal,
    to_number,
    to_string,
    whole_number,
)
from engine.lang.quote import go_quote
from engine.values import (
    UNKNOWN,
    ListVal,
    MapVal,
    SetVal,
    cty_equals,
    equal,
    from_plain_json,
    is_wholly_known,
    type_name,
    value_type,
)

# --------------------------------------------------------------------------- helpers


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


def _graphemes(s: str) -> list[str]:
    """``s`` split into user-perceived characters (approximate grapheme clusters)."""
    if s.isascii():
        return list(s)
    out: list[str] = []
    join_next = False
    flag_open = False  # a regional indicator waiting for its pair (two make one flag)
    for c in s:
        regional = "\U0001f1e6" <= c <= "\U0001f1ff"
        if out and (join_next or (regional and flag_open) or unicodedata.combining(c)
                    or "\ufe00" <= c <= "\ufe0f" or unicodedata.category(c) in ("Mn", "Me", "Mc")
                    or c == "\u200d"):
            out[-1] += c
            flag_open = False
        else:
            out.append(c)
            flag_open = regional
        join_next = c == "\u200d"
    return out


# --------------------------------------------------------------------------- type conversions


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


# --------------------------------------------------------------------------- strings


def length(v: Any) -> Any:
    if v is UNKNOWN:
        return UNKNOWN
    if isinstance(v, str):
        return len(v) if v.isascii() else len(_graphemes(v))
    if isinstance(v, (tuple, dict)):
        return len(v)
    if v is None:
        raise FunctionError("argument must not be null.")
    raise FunctionError(f"a collection or string is required, not {type_name(v)}.")


def _simple_upper(s: str) -> str:
    # Go maps each character on its own (ß stays ß), where Python's str.upper() may expand it
    if s.isascii():
        return s.upper()
    return "".join(u if len(u := c.upper()) == 1 else c for c in s)


def _simple_lower(s: str) -> str:
    if s.isascii():
        return s.lower()
    return "".join(lo if len(lo := c.lower()) == 1 else lo[0] for c in s)


def upper(s: Any) -> Any:
    return UNKNOWN if s is UNKNOWN else _simple_upper(_string_arg(s))


def lower(s: Any) -> Any:
    return UNKNOWN if s is UNKNOWN else _simple_lower(_string_arg(s))


def trimspace(s: Any) -> Any:
    return UNKNOWN if s is UNKNOWN else _string_arg(s).strip()


def split(sep: Any, s: Any) -> Any:
    if sep is UNKNOWN or s is UNKNOWN:
        return UNKNOWN
    sep, s = _string_arg(sep), _string_arg(s)
    if sep == "":
        return ListVal(s)  # Go splits into characters (so "" gives an empty list)
    return ListVal(s.split(sep))


def substr(s: Any, offset: Any, n: Any) -> Any:
    if s is UNKNOWN or offset is UNKNOWN or n is UNKNOWN:
        return UNKNOWN
    chars = _graphemes(_string_arg(s))
    o = whole_number(offset, "offset")
    ln = whole_number(n, "length")
    if o < 0:
        o = max(len(chars) + o, 0)
    if o >= len(chars):
        return ""
    return "".join(chars[o:] if ln < 0 else chars[o:o + ln])


def join(sep: Any, *lists: Any) -> Any:
    if not lists:
        raise FunctionError("at least one list is required.")
    if sep is UNKNOWN or any(lst is UNKNOWN for lst in lists):
        return UNKNOWN
    sep = _string_arg(sep)
    items: list[str] = []
    unknown = False
    for lst in lists:
        if isinstance(lst, dict):
            raise FunctionError(f"a list, set or tuple is required, not {type_name(lst)}.")
        for i, x in enumerate(_seq(lst)):
            if x is UNKNOWN:
                unknown = True
            elif x is None:
                raise FunctionError(f"element {i} is null; cannot concatenate null values.")
            elif isinstance(x, (tuple, dict)):
                raise FunctionError(f"element {i}: string required.")
            else:
                items.append(to_string(x))
    return UNKNOWN if unknown else sep.join(items)


def _go_regex(src: str) -> re.Pattern[str]:
    """Compile an RE2 pattern with Python's engine (translating the syntax that differs)."""
    src = re.sub(r"\(\?<(?![=!])", "(?P<", src)
    src = src.replace(r"\z", r"\Z")
    try:
        return re.compile(src)
    except (re.error, ValueError, OverflowError) as exc:
        raise FunctionError(f"error parsing regexp: {exc}.") from None


def replace(s: Any, old: Any, new: Any) -> Any:
    if s is UNKNOWN or old is UNKNOWN or new is UNKNOWN:
        return UNKNOWN
    s, old, new = _string_arg(s), _string_arg(old), _string_arg(new)
    if len(old) > 1 and old.startswith("/") and old.endswith("/"):
        rx = _go_regex(old[1:-1])
        template = _go_template(new)

        def expand(m: re.Match[str]) -> str:
            out: list[str] = []
            for kind, part in template:
                if kind == "text":
                    out.append(part)
                    continue
                try:
                    got = m.group(part) if part is not None else None
                except IndexError:  # no such group: Go substitutes nothing
                    got = None
                if got is not None:
                    out.append(got)
            return "".join(out)

        return rx.sub(expand, s)
    return s.replace(old, new)


def _go_template(template: str) -> list[tuple[str, Any]]:
    """Go's regexp replacement template: ``("text", str)`` and ``("group", int | str)`` parts
    (``$1``, ``${1}``, ``$name``, ``${name}``; ``$$`` is a dollar sign; a malformed ``$``
    is itself)."""
    parts: list[tuple[str, Any]] = []
    buf: list[str] = []
    i, n = 0, len(template)
    while i < n:
        c = template[i]
        if c != "$":
            buf.append(c)
            i += 1
            continue
        if template.startswith("$$", i):
            buf.append("$")
            i += 2
            continue
        j = i + 1
        brace = j < n and template[j] == "{"
        if brace:
            j += 1
        k = j
        while k < n and (template[k].isalnum() or template[k] == "_"):
            k += 1
        name = template[j:k]
        if not name or (brace and (k >= n or template[k] != "}")):
            buf.append("$")
            i += 1
            continue
        if buf:
            parts.append(("text", "".join(buf)))
            buf = []
        if name.isascii() and name.isdigit():
            ref: Any = int(name) if not (name[0] == "0" and len(name) > 1) and len(name) < 9 else None
        else:
            ref = name
        parts.append(("group", ref))
        i = k + 1 if brace else k
    if buf:
        parts.append(("text", "".join(buf)))
    return parts


# --------------------------------------------------------------------------- format


_VERB = re.compile(r"%([-+# 0]*)(?:\[([1-9][0-9]*)\])?([1-9][0-9]*)?(\.[0-9]*)?([A-Za-z])?")


def _pad(text: str, width: int | None, minus: bool, zero: bool) -> str:
    if width is None:
        return text
    have = len(text) if text.isascii() else len(_graphemes(text))
    if have >= width:
        return text
    pads = ("0" if zero else " ") * (width - have)
    return text + pads if minus else pads + text


def _format_integer(n: int, verb: str, flags: str, width: int | None, prec: int | None) -> str:
    base = {"b": 2, "o": 8, "d": 10, "x": 16, "X": 16}[verb]
    a = -n if n < 0 else n
    digits = {2: format(a, "b"), 8: format(a, "o"), 10: str(a), 16: format(a, "x")}[base]
    if verb == "X":
        digits = digits.upper()
    sign = "-" if n < 0 else "+" if "+" in flags else " " if " " in flags else ""
    prefix = ""
    if "#" in flags:
        prefix = {"b": "0b", "o": "0", "x": "0x", "X": "0X"}.get(verb, "")
    zeros = 0
    if prec is not None:
        if len(digits) < prec:
            zeros = prec - len(digits)
        elif digits == "0" and prec == 0:
            return ""
    left = right = 0
    size = len(sign) + len(prefix) + zeros + len(digits)
    if width is not None and size < width:
        d = width - size
        if "-" in flags:
            right = d
        elif "0" in flags and prec is None:
            zeros = d
        else:
            left = d
    return " " * left + sign + prefix + "0" * zeros + digits + " " * right


def _format_float(n: Any, verb: str, flags: str, width: int | None, prec: int | None) -> str:
    fmt = verb.lower() if verb in "fF" else verb
    if prec is None:
        prec = -1 if fmt in "gGv" else 6
    if fmt == "v":
        fmt = "g"
    neg, body = number_text(n, fmt, prec)
    sign = "-" if neg else "+" if "+" in flags else " " if " " in flags else ""
    padding = max((width or 0) - len(sign) - len(body), 0)
    if "0" in flags:
        return sign + "0" * padding + body
    if "-" in flags:
        return sign + body + " " * padding
    return " " * padding + sign + body


def format_(fmt: Any, *args: Any) -> Any:
    if fmt is UNKNOWN:
        return UNKNOWN
    fmt = _string_arg(fmt)
    if not all(is_wholly_known(a) for a in args):
        return UNKNOWN
    out: list[str] = []
    next_arg = 1
    max_used = 0
    i, n = 0, len(fmt)
    while i < n:
        c = fmt[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        if fmt.startswith("%%", i):
            out.append("%")
            i += 2
            continue
        m = _VERB.match(fmt, i)
        assert m is not None
        flags, argnum, width_s, prec_s, verb = m.groups()
        if verb is None:
            if m.end() >= n:
                raise FunctionError(f"invalid format string starting at offset {m.end()}.")
            raise FunctionError(f"unrecognized format character {fmt[m.end()]!r} at offset {m.end()}.")
        raw = m.group(0)
        i = m.end()
        if argnum is not None:
            next_arg = int(argnum)
        if next_arg > len(args):
            raise FunctionError(f"not enough arguments for {raw!r} at {m.start()}: need index "
                                f"{next_arg} but have {len(args)} total.")
        arg = args[next_arg - 1]
        max_used = max(max_used, next_arg)
        next_arg += 1
        width = int(width_s) if width_s else None
        prec = int(prec_s[1:] or "0") if prec_s else None
        minus, zero = "-" in flags, "0" in flags
        where = f"unsupported value for {raw!r} at {m.start()}"
        if verb != "v" and arg is None:
            raise FunctionError(f"{where}: null value cannot be formatted.")
        if verb == "v":
            if "#" not in flags and isinstance(arg, str):
                out.append(_pad(arg, width, minus, zero))
            elif "#" not in flags and isinstance(arg, (int, float)) and not isinstance(arg, bool):
                neg, body = number_text(arg, "g", -1)
                out.append(_pad(("-" if neg else "") + body, width, minus, zero))
            else:
                out.append(_pad(_json(arg), width, minus, zero))
        elif verb == "t":
            b = tobool(arg) if isinstance(arg, (bool, str)) else None
            if b is None:
                raise FunctionError(f"{where}: a bool is required.")
            out.append("true" if b else "false")
        elif verb in "bdoxXeEfgG":
            if isinstance(arg, (tuple, dict)):
                raise FunctionError(f"{where}: number required.")
            try:
                num = to_number(arg)
            except FunctionError:
                raise FunctionError(f"{where}: a number is required.") from None
            if verb in "bdoxX":
                if type(num) is not int and not (math.isfinite(num) and num.is_integer()):
                    raise FunctionError(f"{where}: an integer is required.")
                out.append(_format_integer(whole_number(num, "value"), verb, flags, width, prec))
            else:
                out.append(_format_float(num, verb, flags, width, prec))
        elif verb in "sq":
            if isinstance(arg, (tuple, dict)):
                raise FunctionError(f"{where}: string required.")
            s = to_string(arg)
            if prec is not None and prec > 0:
                s = "".join(_graphemes(s)[:prec])
            if verb == "q":
                s = _json(s)
            out.append(_pad(s, width, minus, zero))
        else:
            raise FunctionError(f"unsupported format verb {verb!r} in {raw!r} at offset {m.start()}.")
    if max_used < len(args):
        raise FunctionError(f"too many arguments; only {max_used} used by format string.")
    return "".join(out)


# --------------------------------------------------------------------------- JSON

_JSON_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b",
                 "\f": "\\f", "<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                 "\u2028": "\\u2028", "\u2029": "\\u2029"}
_JSON_SPECIAL = re.compile('["\\\\\x00-\x1f<>&\u2028\u2029]')


def _json_string(s: str) -> str:
    def esc(m: re.Match[str]) -> str:
        c = m.group(0)
        return _JSON_ESCAPES.get(c) or f"\\u{ord(c):04x}"

    return '"' + _JSON_SPECIAL.sub(esc, s) + '"'


def _json(v: Any) -> str:
    """JSON as cty writes it: object keys sorted, numbers without exponent, and strings
    escaped like Go's encoding/json (``<``, ``>`` and ``&`` too)."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, str):
        return _json_string(v)
    if isinstance(v, (int, float)):
        return to_string(v)
    if isinstance(v, dict):
        return "{" + ",".join(f"{_json_string(k)}:{_json(v[k])}" for k in sorted(v)) + "}"
    if isinstance(v, tuple):
        return "[" + ",".join(_json(x) for x in v) + "]"
    raise FunctionError(f"cannot encode {type_name(v)} as JSON.")


def jsonencode(v: Any) -> Any:
    if not is_wholly_known(v):
        return UNKNOWN
    return _json(v)


def _json_constant(name: str) -> Any:
    raise ValueError(f"invalid character {name[0]!r} looking for beginning of value")


def _json_number(s: str) -> Any:
    n = parse_number(s)
    if n is None:
        raise ValueError(f"invalid number {s}")
    return n


def jsondecode(v: Any) -> Any:
    if v is UNKNOWN:
        return UNKNOWN
    src = _string_arg(v)
    try:
        doc = json.loads(src, parse_float=_json_number, parse_int=_json_number,
                         parse_constant=_json_constant)
    except json.JSONDecodeError as exc:
        raise FunctionError(f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}.") from None
    except (ValueError, RecursionError) as exc:
        raise FunctionError(f"invalid JSON: {exc}.") from None
    return from_plain_json(doc)


# --------------------------------------------------------------------------- collections


def concat(*seqs: Any) -> Any:
    if not seqs:
        raise FunctionError("at least one argument is required.")
    if any(s is UNKNOWN for s in seqs):
        return UNKNOWN
    for i, s in enumerate(seqs):
        if s is None:
            raise FunctionError("argument must not be null.")
        if not isinstance(s, tuple) or isinstance(s, SetVal):
            raise FunctionError(f"all arguments must be lists or tuples; argument {i + 1} is "
                                f"{type_name(s)}.")
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
            raise FunctionError(f"arguments must be maps or objects, not {type_name(m)}.")
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
        raise FunctionError(f"must have map or object type, not {type_name(m)}.")
    ks = sorted(m)
    return ListVal(ks) if isinstance(m, MapVal) else tuple(ks)


def values(m: Any) -> Any:
    if m is UNKNOWN:
        return UNKNOWN
    if not isinstance(m, dict):
        raise FunctionError(f"values() requires a map as the first argument, not {type_name(m)}.")
    vs = [m[k] for k in sorted(m)]
    return ListVal(vs) if isinstance(m, MapVal) else tuple(vs)


def lookup(m: Any, key: Any, *default: Any) -> Any:
    if len(default) > 1:
        raise FunctionArityError("lookup takes at most three arguments.")
    if m is UNKNOWN or key is UNKNOWN:
        return UNKNOWN
    if not isinstance(m, dict):
        raise FunctionError(f"lookup() requires a map as the first argument, not {type_name(m)}.")
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
    raise FunctionError(f'the given key "{key}" is not present in the map, and no default was given.')


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
    items = _seq(lst, "a list, tuple or set")
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

    walk(_seq(lst, "can only flatten lists, sets and tuples; a list"))
    return tuple(out)


def distinct(lst: Any) -> Any:
    if lst is UNKNOWN:
        return UNKNOWN
    items = _seq(lst, "a list")
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
    items = _seq(lst, "a list of strings")
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
    key_items = _seq(ks, "a list of strings")
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


# --------------------------------------------------------------------------- numeric


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
    if step == zero:
        raise FunctionError("step must not be zero.")
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


def sensitive(value: Any) -> Any:
    """The value, marked sensitive: strata follows the mark through the configuration instead
    (:mod:`engine.sensitivity` sees the call), so the value itself is unchanged."""
    return value


def nonsensitive(value: Any) -> Any:
    """The value, its sensitive mark removed (again, :mod:`engine.sensitivity` sees the call)."""
    return value


# --------------------------------------------------------------------------- registry


# terraform's parameters of each function, as its diagnostics name them ("..." marks the variadic one)
_TERRAFORM_PARAMS = (
    "abs(num) abspath(path) base64decode(str) base64encode(str) basename(path) ceil(num) chomp(str) "
    "coalesce(vals...) concat(seqs...) contains(list, value) dirname(path) distinct(list) element(list, index) "
    "endswith(str, suffix) file(path) filebase64(path) fileexists(path) filemd5(path) filesha1(path) "
    "filesha256(path) filesha512(path) flatten(list) floor(num) format(format, args...) "
    "join(separator, lists...) jsondecode(str) jsonencode(val) keys(inputMap) length(value) "
    "lookup(inputMap, key, default...) lower(str) max(numbers...) md5(str) merge(maps...) min(numbers...) "
    "pathexpand(path) range(params...) replace(str, substr, replace) sha1(str) sha256(str) sha512(str) "
    "sort(list) split(separator, str) startswith(str, prefix) substr(str, offset, length) tobool(v) tolist(v) "
    "tomap(v) tonumber(v) toset(v) tostring(v) trim(str, cutset) trimprefix(str, prefix) trimspace(str) "
    "trimsuffix(str, suffix) upper(str) values(mapping) zipmap(keys, values) sensitive(value) nonsensitive(value) try(expressions...) can(expression) one(list)")
PARAMS: dict[str, tuple[tuple[str, ...], str | None]] = {}
for _sig in re.findall(r"(\w+)\(([^)]*)\)", _TERRAFORM_PARAMS):
    _names = [p.strip() for p in _sig[1].split(",") if p.strip()]
    _var = _names.pop()[:-3] if _names and _names[-1].endswith("...") else None
    PARAMS[_sig[0]] = (tuple(_names), _var)


def signature(name: str) -> str:
    """``join(separator, lists...)``: how terraform shows a function being called."""
    params, variadic = PARAMS.get(name, ((), None))
    return f"{name}({', '.join([*params, *([variadic + '...'] if variadic else [])])})"


def _arity(name: str, n: int) -> None:
    """terraform's errors for too few or too many arguments."""
    spec = PARAMS.get(name)
    if spec is None:
        return
    params, variadic = spec
    if n < len(params):
        least = " at least" if variadic else ""
        raise FunctionArityError(f'Function "{name}" expects{least} {len(params)} argument(s). Missing value '
                                 f'for "{params[n]}".', "Not enough function arguments")
    if variadic is None and n > len(params):
        raise FunctionArityError(f'Function "{name}" expects only {len(params)} argument(s).',
                                 "Too many function arguments")


def _guarded(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` checked for its argument count and with every failure a :class:`FunctionError`."""
    params = inspect.signature(fn).parameters.values()
    lo = sum(1 for p in params if p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty)
    hi = None if any(p.kind is p.VAR_POSITIONAL for p in params) else len(params)

    def call(*args: Any) -> Any:
        n = len(args)
        _arity(name, n)
        if n < lo or (hi is not None and n > hi):
            want = f"{lo}" if hi == lo else f"at least {lo}" if hi is None else f"{lo} to {hi}"
            raise FunctionArityError(f"Function {name!r} expects {want} argument(s), got {n}.")
        try:
            return fn(*args)
        except FunctionError:
            raise
        except RecursionError:
            raise FunctionError("the value is nested too deeply.") from None
        except Exception as exc:  # noqa: BLE001 - no Python exception may escape a function
            raise FunctionError(f"{type(exc).__name__}: {exc}") from None

    call.__name__ = name
    call.__doc__ = fn.__doc__
    return call


_IMPLS: dict[str, Callable[..., Any]] = {
    "toset": toset, "tolist": tolist, "tomap": tomap, "tostring": tostring, "tonumber": tonumber,
    "tobool": tobool, "length": length, "format": format_, "join": join, "jsonencode": jsonencode,
    "jsondecode": jsondecode, "upper": upper, "lower": lower, "concat": concat, "merge": merge,
    "keys": keys, "values": values, "lookup": lookup, "element": element, "range": range_,
    "coalesce": coalesce, "max": max_, "min": min_, "split": split, "replace": replace,
    "trimspace": trimspace, "contains": contains, "flatten": flatten, "distinct": distinct,
    "sort": sort, "substr": substr, "abs": abs_, "ceil": ceil, "floor": floor, "zipmap": zipmap,
    "sensitive": sensitive, "nonsensitive": nonsensitive, "one": one,
}

from engine.lang.functions_text import TEXT_FUNCTIONS  # noqa: E402 - it builds on the helpers above

_IMPLS.update(TEXT_FUNCTIONS)

FUNCTIONS: dict[str, Callable[..., Any]] = {name: _guarded(name, fn) for name, fn in _IMPLS.items()}

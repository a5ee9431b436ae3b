"""``format`` and ``formatlist``: Go's ``fmt`` verbs as terraform's ``format`` function applies them to cty values
(``%v``, ``%#v``, ``%t``, ``%b``/``%d``/``%o``/``%x``/``%X``, ``%e``/``%f``/``%g``, ``%s``/``%q``,
with flags, width, precision and explicit argument indexes)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from engine.diagnostics import FunctionError
from engine.lang.functions.arguments import ArgumentError, _string_arg
from engine.lang.functions.conversion import tobool
from engine.lang.functions.encoding import _json
from engine.lang.functions.strings import graphemes
from engine.lang.number import number_text, to_number, to_string, whole_number
from engine.lang.quote import go_quote
from engine.values import UNKNOWN, ListVal, is_wholly_known

_VERB = re.compile(r"%([-+# 0]*)(?:\[([1-9][0-9]*)\])?([1-9][0-9]*)?(\.[0-9]*)?([A-Za-z])?")


def _pad(text: str, width: int | None, minus: bool, zero: bool) -> str:
    if width is None:
        return text
    have = len(text) if text.isascii() else len(graphemes(text))
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


def _go_too_large(digits: str | None) -> bool:
    """Whether Go's fmt refuses these width or precision digits (it stops once past 1e6)."""
    num = 0
    for d in digits or "":
        if num > 1_000_000:
            return True
        num = num * 10 + int(d)
    return False


def _go_extra(v: Any) -> str:
    """An argument left over, as Go's fmt lists it: ``*big.Int=1``, ``string=x``."""
    if isinstance(v, bool):
        return f"bool={'true' if v else 'false'}"
    if isinstance(v, int):
        return f"*big.Int={v}"
    if isinstance(v, float):
        return f"*big.Float={to_string(v)}"
    if isinstance(v, str):
        return f"string={v}"
    return f"cty.Value={_json(v)}"


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
            raise FunctionError(f"not enough arguments for {go_quote(raw)} at {m.start()}: need index "
                                f"{next_arg} but have {len(args)} total.")
        arg = args[next_arg - 1]
        max_used = max(max_used, next_arg)
        next_arg += 1
        if _go_too_large(width_s) or _go_too_large((prec_s or ".")[1:]):
            # Go's fmt, given this one verb, gives up on a width or precision past a million
            out.append(f"%!(NOVERB)%!(EXTRA {_go_extra(arg)})")
            continue
        width = int(width_s) if width_s else None
        prec = int(prec_s[1:] or "0") if prec_s else None
        minus, zero = "-" in flags, "0" in flags
        where = f"unsupported value for {go_quote(raw)} at {m.start()}"
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
                s = "".join(graphemes(s)[:prec])
            if verb == "q":
                s = _json(s)
            out.append(_pad(s, width, minus, zero))
        else:
            raise FunctionError(f"unsupported format verb {verb!r} in {go_quote(raw)} at offset {m.start()}.")
    if max_used < len(args):
        raise FunctionError(f"too many arguments; only {max_used} used by format string.")
    return "".join(out)


def formatlist(fmt: Any, *args: Any) -> Any:
    """``format`` applied element-wise: lists, sets and tuples among the arguments (all of one
    length) give one result each; other arguments are repeated."""
    if fmt is UNKNOWN:
        return UNKNOWN
    length: int | None = None
    first = 0
    for i, a in enumerate(args):
        if a is UNKNOWN:
            return UNKNOWN
        if isinstance(a, tuple):
            if length is not None and len(a) != length:
                raise ArgumentError(1 + i, f"argument {i + 1} has length {len(a)}, which is inconsistent with "
                                    f"argument {first + 1} of length {length}")
            if length is None:
                length, first = len(a), i
    out = []
    for n in range(1 if length is None else length):
        row = [a[n] if isinstance(a, tuple) else a for a in args]
        try:
            out.append(format_(fmt, *row))
        except FunctionError as exc:
            raise FunctionError(f"error on format iteration {n}: {str(exc).rstrip('.')}.") from None
    return ListVal(out)


# terraform's signature of each function here (its diagnostics name the parameters): the function
SIGNATURES: dict[str, Callable[..., Any]] = {
    "format(format, args...)": format_,
    "formatlist(format, args...)": formatlist,
}

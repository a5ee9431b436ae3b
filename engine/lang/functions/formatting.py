"""``format``: Go's ``fmt`` verbs as terraform's ``format`` function applies them to cty values
(``%v``, ``%#v``, ``%t``, ``%b``/``%d``/``%o``/``%x``/``%X``, ``%e``/``%f``/``%g``, ``%s``/``%q``,
with flags, width, precision and explicit argument indexes)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from engine.diagnostics import FunctionError
from engine.lang.functions.arguments import _string_arg
from engine.lang.functions.conversion import tobool
from engine.lang.functions.encoding import _json
from engine.lang.functions.strings import _graphemes
from engine.lang.number import number_text, to_number, to_string, whole_number
from engine.values import UNKNOWN, is_wholly_known

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
        if _too_large(width_s) or _too_large(prec_s[1:] if prec_s else None):
            # Go's fmt gives up on a width or precision over a million (terraform: 30 characters
            # for format("%999999999d", 1), not a gigabyte)
            out.append(f"%!(NOVERB)%!(EXTRA {_go_operand(arg, verb)})")
            continue
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


def _too_large(digits: str | None) -> bool:
    """Go fmt's parsenum: a number that passes a million before its last digit is refused."""
    num = 0
    for d in digits or "":
        if num > 1_000_000:
            return True
        num = num * 10 + ord(d) - 48
    return False


def _go_operand(arg: Any, verb: str) -> str:
    """An argument as Go's fmt names an unused one (``*big.Int=1``): the type cty passes."""
    if isinstance(arg, bool):
        return f"bool={'true' if arg else 'false'}"
    if isinstance(arg, (int, float)):
        kind = "*big.Int" if verb in "bdoxX" else "*big.Float"
        return f"{kind}={to_string(arg)}"
    if isinstance(arg, str):
        return f"string={arg}"
    return f"cty.Value={_json(arg)}"


# terraform's signature of each function here (its diagnostics name the parameters): the function
SIGNATURES: dict[str, Callable[..., Any]] = {
    "format(format, args...)": format_,
}

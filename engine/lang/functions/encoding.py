"""Encoding functions: JSON as cty writes and reads it, and base64."""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable
from typing import Any

from engine.diagnostics import FunctionError
from engine.lang.functions.arguments import _known, _string_arg
from engine.lang.number import parse_number, to_string
from engine.values import UNKNOWN, from_plain_json, is_wholly_known, type_name

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


def base64encode(s: Any) -> Any:
    return base64.b64encode(_string_arg(s).encode()).decode() if _known(s) else UNKNOWN


def base64decode(s: Any) -> Any:
    if not _known(s):
        return UNKNOWN
    try:
        raw = base64.b64decode(_string_arg(s), validate=True)
    except binascii.Error:
        raise FunctionError("the given value is not valid base64.") from None
    try:
        return raw.decode()
    except UnicodeDecodeError:
        raise FunctionError("the result of decoding the given base64 is not valid UTF-8.") from None


# terraform's signature of each function here (its diagnostics name the parameters): the function
SIGNATURES: dict[str, Callable[..., Any]] = {
    "base64decode(str)": base64decode,
    "base64encode(str)": base64encode,
    "jsondecode(str)": jsondecode,
    "jsonencode(val)": jsonencode,
}

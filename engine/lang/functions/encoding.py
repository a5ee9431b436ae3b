"""Encoding functions: JSON as cty writes and reads it, base64 (of UTF-8, of gzip, of another
character encoding), URL query escaping and CSV (YAML has a module of its own)."""

from __future__ import annotations

import base64
import binascii
import codecs
import csv
import io
import json
import re
import struct
import urllib.parse
import zlib
from collections.abc import Callable
from typing import Any

from engine.diagnostics import FunctionError
from engine.lang.functions.arguments import ArgumentError, _known, _string_arg
from engine.lang.functions.go_json import document_end
from engine.lang.number import parse_number, to_string
from engine.lang.quote import go_quote
from engine.values import UNKNOWN, ListVal, from_plain_json, is_wholly_known, type_name

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
    raw = _string_arg(v).encode()
    end = document_end(raw)  # or Go's words for what is wrong with it
    try:
        doc = json.loads(raw[:end], parse_float=_json_number, parse_int=_json_number,
                         parse_constant=_json_constant)
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
        raise FunctionError(f"failed to decode base64 data {go_quote(_string_arg(s))}.") from None
    try:
        return raw.decode()
    except UnicodeDecodeError:
        raise FunctionError("the result of decoding the given base64 is not valid UTF-8.") from None


def urlencode(s: Any) -> Any:
    """Go's url.QueryEscape: a space is ``+``, all but letters, digits and ``-_.~`` are %-escaped."""
    return urllib.parse.quote_plus(_string_arg(s), safe="~") if _known(s) else UNKNOWN


def base64gzip(s: Any) -> Any:
    """The string gzipped as Go's gzip.Writer does after a Flush and a Close (no time, no name, the
    operating system "unknown"; the data sync-flushed, then an empty final stored block), in base64.
    The compressed bytes are zlib's: Go's may differ for longer texts, never once decompressed."""
    if not _known(s):
        return UNKNOWN
    data = _string_arg(s).encode()
    raw = zlib.compressobj(6, zlib.DEFLATED, -15)
    body = raw.compress(data) + raw.flush(zlib.Z_SYNC_FLUSH) + b"\x01\x00\x00\xff\xff"
    trailer = struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)
    return base64.b64encode(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + body + trailer).decode()


def _codec(name: Any, index: int) -> str:
    text = _string_arg(name)
    try:
        return codecs.lookup(text).name
    except LookupError:
        raise ArgumentError(index, f'"{text}" is not a supported IANA encoding name or alias in this '
                                   "Terraform version") from None


def textencodebase64(string: Any, encoding: Any) -> Any:
    if not _known(string, encoding):
        return UNKNOWN
    codec = _codec(encoding, 1)
    try:
        raw = _string_arg(string).encode(codec)
    except UnicodeEncodeError:
        raise ArgumentError(0, "the given string contains characters that cannot be represented in "
                               f"{_string_arg(encoding)}") from None
    return base64.b64encode(raw).decode()


def textdecodebase64(source: Any, encoding: Any) -> Any:
    if not _known(source, encoding):
        return UNKNOWN
    codec = _codec(encoding, 1)
    text = _string_arg(source)
    try:
        raw = base64.b64decode(text, validate=True)
    except binascii.Error:
        bad = next((i for i, c in enumerate(text) if c not in _B64), len(text))
        raise ArgumentError(0, f"the given value is has an invalid base64 symbol at offset {bad}") from None
    try:
        return raw.decode(codec)
    except UnicodeDecodeError:
        raise ArgumentError(0, f"the given string contains symbols that are not defined for {_string_arg(encoding)}"
                            ) from None


_B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")


def csvdecode(s: Any) -> Any:
    """RFC 4180 CSV, its first line naming the columns: a list of objects of strings."""
    if not _known(s):
        return UNKNOWN
    rows = csv.reader(io.StringIO(_string_arg(s), newline=""), strict=True)
    try:
        header = next(rows, None)
        if header is None:
            raise FunctionError("missing header line.")
        out = []
        for row in rows:
            if len(row) != len(header):
                raise FunctionError(f"CSV parse error on line {rows.line_num}: wrong number of fields.")
            out.append(dict(zip(header, row, strict=True)))
    except csv.Error as exc:
        raise FunctionError(f"CSV parse error on line {rows.line_num}: {exc}.") from None
    return ListVal(out)


# terraform's signature of each function here (its diagnostics name the parameters): the function
SIGNATURES: dict[str, Callable[..., Any]] = {
    "base64decode(str)": base64decode,
    "base64encode(str)": base64encode,
    "base64gzip(str)": base64gzip,
    "csvdecode(str)": csvdecode,
    "jsondecode(str)": jsondecode,
    "jsonencode(val)": jsonencode,
    "textdecodebase64(source, encoding)": textdecodebase64,
    "textencodebase64(string, encoding)": textencodebase64,
    "urlencode(str)": urlencode,
}

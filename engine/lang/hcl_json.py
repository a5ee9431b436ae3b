"""Reading ``.tf.json`` files (terraform's JSON configuration syntax) into the same generic
blocks as :mod:`engine.hcl`: strings are templates, and every attribute keeps the line of its
own key, so diagnostics point into the JSON file.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable
from typing import Any

from engine.diagnostics import DiagnosticsError, SourceRange, error
from engine.lang import expr as E
from engine.lang.hcl import Attribute, Block, parse_expression, parse_template

# Nested blocks we know inside JSON resource bodies (JSON cannot tell blocks from objects).
_JSON_NESTED_BLOCKS = {"lifecycle", "provisioner", "connection"}
_JSON_LABELS = {"resource": 2, "data": 2, "variable": 1, "output": 1, "provider": 1,
                "module": 1, "locals": 0, "terraform": 0, "moved": 0, "import": 0, "check": 1}


def parse_json(text: str, filename: str) -> list[Block]:
    """Parse a ``.tf.json`` file; strings are templates, as terraform reads them."""
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise DiagnosticsError([error("Invalid JSON", exc.msg, SourceRange(filename, exc.lineno, exc.colno))]) from None
    doc = _JSONLines(text).document()
    if not isinstance(doc, _JSONObject):
        raise DiagnosticsError([error("Invalid JSON configuration", "The root must be an object.",
                                      SourceRange(filename, 1))])
    blocks: list[Block] = []
    for btype, content in doc.items():
        if btype == "//":
            continue
        nlabels = _JSON_LABELS.get(btype, 0)
        for labels, body, line in _json_unwrap(content, nlabels, (), doc.key_lines[btype]):
            blocks.append(_json_block(btype, labels, body, filename, line))
    return blocks


_scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


class _JSONObject(dict):  # type: ignore[type-arg]
    """A JSON object that knows the line of each of its keys."""

    key_lines: dict[str, int]
    end_line: int = 0  # the line of its closing brace


class _JSONLines:
    """A JSON reader (of text already known to be valid) recording the line of every object key:
    each attribute's line is that of its own key, not of the same key elsewhere in the file."""

    _WS = re.compile(r"[ \t\n\r]*")
    _NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")

    def __init__(self, text: str) -> None:
        self.text = text
        self.newlines = [i for i, c in enumerate(text) if c == "\n"]

    def document(self) -> Any:
        return self.value(0)[0]

    def line_at(self, pos: int) -> int:
        return bisect.bisect_left(self.newlines, pos) + 1

    def skip(self, i: int) -> int:
        m = self._WS.match(self.text, i)
        return m.end() if m else i

    def value(self, i: int) -> tuple[Any, int]:
        text = self.text
        i = self.skip(i)
        c = text[i]
        if c == "{":
            obj = _JSONObject()
            obj.key_lines = {}
            i = self.skip(i + 1)
            if text[i] == "}":
                obj.end_line = self.line_at(i)
                return obj, i + 1
            while True:
                i = self.skip(i)
                key_at = i
                key, i = _scanstring(text, i + 1)
                i = self.skip(i) + 1  # the ":"
                obj[key], i = self.value(i)
                obj.key_lines[key] = self.line_at(key_at)
                i = self.skip(i)
                if text[i] == ",":
                    i += 1
                    continue
                obj.end_line = self.line_at(i)
                return obj, i + 1
        if c == "[":
            items: list[Any] = []
            i = self.skip(i + 1)
            if text[i] == "]":
                return items, i + 1
            while True:
                item, i = self.value(i)
                items.append(item)
                i = self.skip(i)
                if text[i] == ",":
                    i += 1
                    continue
                return items, i + 1
        if c == '"':
            return _scanstring(text, i + 1)
        for word, v in (("true", True), ("false", False), ("null", None)):
            if text.startswith(word, i):
                return v, i + len(word)
        m = self._NUMBER.match(text, i)
        assert m is not None
        num = m.group(0)
        return (float(num) if m.group(1) or m.group(2) else int(num)), m.end()


def _json_unwrap(content: Any, n: int, labels: tuple[str, ...],
                 line: int) -> list[tuple[tuple[str, ...], Any, int]]:
    """The blocks under a block-type key: (labels, body, line of the last label's key)."""
    if n == 0:
        if isinstance(content, list):
            return [(labels, c, line) for c in content]
        return [(labels, content, line)]
    out: list[tuple[tuple[str, ...], Any, int]] = []
    items = content if isinstance(content, list) else [content]
    for item in items:
        if isinstance(item, _JSONObject):
            for k, v in item.items():
                out.extend(_json_unwrap(v, n - 1, labels + (k,), item.key_lines[k]))
    return out


def _json_block(btype: str, labels: tuple[str, ...], body: Any, filename: str, line: int) -> Block:
    if not isinstance(body, _JSONObject):
        raise DiagnosticsError([error("Invalid JSON block", f"The {btype} block must be an object.",
                                      SourceRange(filename, line))])
    blk = Block(btype, labels, SourceRange(filename, line), end_line=body.end_line, json_syntax=True)
    for k, v in body.items():
        if k == "//":
            continue
        kline = body.key_lines[k]
        if (k in _JSON_NESTED_BLOCKS and btype in ("resource", "data", "removed")) or \
                (k == "strata" and btype == "provider") or (k == "connection" and btype == "provisioner"):
            # a provisioner's one label is its type: "provisioner": [{"local-exec": {...}}]
            for labels, item, line in _json_unwrap(v, 1 if k == "provisioner" else 0, (), kline):
                blk.blocks.append(_json_block(k, labels, item, filename, line))
            continue
        if btype == "check" and k in ("assert", "data"):  # a check block's: its assertions, its data source
            for labels, item, iline in _json_unwrap(v, 2 if k == "data" else 0, (), kline):
                blk.blocks.append(_json_block(k, labels, item, filename, iline))
            continue
        # depends_on and a variable's type are expressions written as strings ("list(string)"), not
        # templates, as terraform reads them
        raw = k == "depends_on" or (k == "type" and btype == "variable")
        blk.attributes[k] = Attribute(k, json_expr(v, filename, kline, raw_refs=raw), SourceRange(filename, kline))
    return blk


def json_expr(v: Any, filename: str, line: int, raw_refs: bool = False) -> E.Expr:
    if isinstance(v, str):
        if raw_refs:
            return parse_expression(v, filename, line)
        return parse_template(v, filename, line)
    if isinstance(v, list):
        return E.TupleExpr(line, tuple(json_expr(x, filename, line, raw_refs) for x in v))
    if isinstance(v, dict):
        return E.ObjectExpr(line, tuple((E.Literal(line, k), json_expr(x, filename, line)) for k, x in v.items()))
    return E.Literal(line, v)

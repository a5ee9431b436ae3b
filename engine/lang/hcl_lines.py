"""A ``.tf`` file written in HCL's plainest form, read a line at a time, without the syntax tree.

A large configuration (a generated one above all) is mostly blocks of one-line arguments whose
values are numbers, plain strings, keywords, references, one-line tuples and objects of them, and
strings with plain interpolations (``"web-${var.env}"``), with an object or tuple value spread
over lines now and then. Such a file is read here from its lines, each matched by one regular
expression, at a fraction of the cost of tree-sitter's parse and the walk of its tree.

Every line must be one of:

* blank, or a ``#`` / ``//`` comment alone;
* a block's header ``type "label" name {`` (plain labels), or an empty block ``type "label" {}``;
* an argument ``name = value``, or an object element ``key = value`` (with a comma or not), or a
  tuple element ``value,``, where the value is read by :func:`engine.lang.hcl_text_expr.text_expression`
  or is a quoted template of plain text and ``${reference}`` interpolations;
* the opening of an object or tuple spread over lines (``name = {``, ``key = [``, ``{`` in a tuple),
  or the closing ``}`` / ``]`` of one (with the comma a tuple or an object element may need).

A one-line value of another kind (a call, an operator, a conditional, a ``for``) in an argument
or an object's element is left to the tree: every such line of the file goes into one parse, of a
file of those lines alone, each on its own line, and its expression takes the place of the value.
Anything else, anywhere in the file (a heredoc, a value over several lines, a single-line block, a
second definition of an argument, a closing brace where none is open, anything the tree finds
wrong in those lines), and the whole file is left to the tree (None): every syntax error and every
other construct is the tree's. What is read here is what the tree gives, to the expression kinds,
values, lines and source positions (the tests read every fixture both ways and compare them).
"""

from __future__ import annotations

import re
from typing import Any

from engine.diagnostics import SourceRange
from engine.frozen import frozen
from engine.lang import expr as E
from engine.lang.hcl_ast import Attribute, Block
from engine.lang.hcl_template import template_of
from engine.lang.hcl_text_expr import KEYWORDS, WORDS, text_expression

_NAME = rb"[A-Za-z_][A-Za-z0-9_-]*"
_KEY = rb'[A-Za-z_][A-Za-z0-9_]*|"[^"\\$%\r\n]*"'
_LABELS = rb'(?:[ \t]+(?:[A-Za-z_][A-Za-z0-9_-]*|"[^"\\$%\r\n]*"))*'
# (lines are matched with their trailing blanks taken off)
# a value: a whole number or a plain string at once, else its text (read by _value)
_VALUE = rb'(?:(?P<int>[0-9]{1,18})|(?P<str>"[^"\\$%\r\n]*")|(?P<value>.+))'
# the same followed by an element's comma: that of a value's text is taken off by read_plain
_ELEMENT = rb'(?:(?:(?P<int>[0-9]{1,18})|(?P<str>"[^"\\$%\r\n]*"))(?P<sep>[ \t]*,)?|(?P<value>[^#/ \t].*))'

# a line of a body (a file's, a block's)
_BODY_LINE = re.compile(
    rb"[ \t]*(?:"
    rb"(?P<name>" + _NAME + rb")[ \t]*=[ \t]*" + _VALUE +
    rb"|(?P<type>" + _NAME + rb")(?P<labels>" + _LABELS + rb")[ \t]*\{(?P<empty>[ \t]*\})?"
    rb"|(?P<close>\})"
    rb"|(?:#|//).*"
    rb")?")
# a line of an object spread over lines
_OBJECT_LINE = re.compile(
    rb"[ \t]*(?:"
    rb"(?P<key>" + _KEY + rb")[ \t]*=[ \t]*" + _ELEMENT +
    rb"|(?P<close>\})(?P<comma>[ \t]*,)?"
    rb"|(?:#|//).*"
    rb")?")
# a line of a tuple spread over lines
_TUPLE_LINE = re.compile(
    rb"[ \t]*(?:"
    rb"(?P<close>\])(?P<comma>[ \t]*,)?"
    rb"|(?:#|//).*"
    rb"|" + _ELEMENT +
    rb")?")
_BODY, _OBJECT, _TUPLE = 0, 1, 2
_OPEN = {b"{": _OBJECT, b"[": _TUPLE}

# a quoted template of plain text and ``${reference}`` interpolations (the references are read by
# text_expression; a keyword-rooted one is refused there)
_INTERP = re.compile(rb"\$\{[ \t]*([A-Za-z_][^{}\"\\$%~ \t]*)[ \t]*\}")
_TEMPLATE = re.compile(rb'"(?:[^"\\$%\r\n]|\$\{[ \t]*[A-Za-z_][^{}"\\$%~ \t]*[ \t]*\})*"')
_LABEL = re.compile(rb'"[^"]*"|[^ \t"]+')
_RESERVED = frozenset(w.encode() for w in (*KEYWORDS, *WORDS))  # names left to the tree

_DEEPEST = 64
"""Deeper nesting is left to the tree, which knows how deep is too deep."""


class _Frame:
    """A body, object or tuple being read: its items so far and what it becomes once closed."""

    __slots__ = ("kind", "items", "names", "line", "owner", "after_item")

    def __init__(self, kind: int, line: int, owner: Any) -> None:
        self.kind = kind
        self.items: list[Any] = []  # a body: attributes and blocks; an object: pairs; a tuple: values
        self.names: set[bytes] = set()  # a body's argument names so far
        self.line = line
        # a body: (type, labels, range) of its block; an object or tuple: ("attribute", name,
        # range), ("pair", key) or ("element",)
        self.owner = owner
        self.after_item = False  # a tuple: an element without its comma was just read


def read_plain(data: bytes, filename: str) -> tuple[dict[str, Attribute], list[Block]] | None:
    """The file's top-level arguments and blocks, when every line of ``data`` (UTF-8) is of the
    plain form above; None otherwise (the tree is to read it)."""
    if b"\r" in data or b"/*" in data or b"<<" in data or b"\x00" in data:
        return None
    root = frame = _Frame(_BODY, 0, None)
    stack = [root]
    body_line, object_line, tuple_line = _BODY_LINE.fullmatch, _OBJECT_LINE.fullmatch, _TUPLE_LINE.fullmatch
    value_of = _value_of
    pending: dict[int, _Pending] = {}  # line -> a one-line value left to the tree
    offset = 0
    line = 0
    for raw in data.split(b"\n"):
        line += 1
        start = offset
        offset += len(raw) + 1
        raw = raw.rstrip(b" \t")
        kind = frame.kind
        if kind == _BODY:
            m = body_line(raw)
            if m is None:
                return None
            name, whole, text, value, btype, labels, empty, close = m.groups()
            if name is not None:
                if name in frame.names or name in _RESERVED:
                    return None
                frame.names.add(name)
                indent = m.start(1)
                where = SourceRange(filename, line, indent + 1, start + indent)
                if value in (b"{", b"["):
                    opened = _opened(stack, _OPEN[value], line, ("attribute", name.decode(), where))
                    if opened is None:
                        return None
                    frame = opened
                    continue
                expr = value_of(whole, text, value, line)
                if expr is None:  # left to the tree, with the file's other such lines
                    expr = pending[line] = _Pending(line, raw)
                frame.items.append(Attribute(name.decode(), expr, where))
            elif btype is not None:
                if btype in _RESERVED:
                    return None
                indent = m.start(5)
                where = SourceRange(filename, line, indent + 1, start + indent)
                label_t = tuple([_label(x) for x in _LABEL.findall(labels)]) if labels else ()
                if empty is not None:
                    frame.items.append(Block(btype.decode(), label_t, where, {}, [], line))
                else:
                    opened = _opened(stack, _BODY, line, (btype.decode(), label_t, where))
                    if opened is None:
                        return None
                    frame = opened
            elif close is not None:
                if frame is root:
                    return None
                stack.pop()
                btype_s, label_t, where = frame.owner
                attrs, blocks = _body(frame.items)
                frame = stack[-1]
                frame.items.append(Block(btype_s, label_t, where, attrs, blocks, line))
            continue
        if kind == _OBJECT:
            m = object_line(raw)
            if m is None:
                return None
            key, whole, text, sep, value, close, comma = m.groups()
            if value is not None and value[-1:] == b",":
                value, sep = value[:-1].rstrip(b" \t"), b","
            if key is not None:
                if key in _RESERVED:
                    return None
                k = E.Literal(line, (key[1:-1] if key[:1] == b'"' else key).decode("utf-8", "replace"))
                if value in (b"{", b"["):
                    if sep is not None:
                        return None
                    opened = _opened(stack, _OPEN[value], line, ("pair", k))
                    if opened is None:
                        return None
                    frame = opened
                    continue
                expr = value_of(whole, text, value, line)
                if expr is None:  # the element as an argument, without its comma
                    expr = pending[line] = _Pending(line, raw[:m.start("value")] + value)
                frame.items.append((k, expr))
                continue
        else:
            m = tuple_line(raw)
            if m is None:
                return None
            close, comma, whole, text, sep, value = m.groups()
            if value is not None and value[-1:] == b",":
                value, sep = value[:-1].rstrip(b" \t"), b","
            if close is None and (whole is not None or text is not None or value is not None):
                if frame.after_item:  # elements of a tuple are separated by commas, line breaks or not
                    return None
                if value in (b"{", b"["):
                    if sep is not None:
                        return None
                    opened = _opened(stack, _OPEN[value], line, ("element",))
                    if opened is None:
                        return None
                    frame = opened
                    continue
                expr = value_of(whole, text, value, line)
                if expr is None:
                    return None
                frame.items.append(expr)
                frame.after_item = sep is None
                continue
        if close is not None:  # the object or tuple is complete: it becomes its owner's value
            stack.pop()
            done: E.Expr = (E.ObjectExpr(frame.line, tuple(frame.items)) if frame.kind == _OBJECT
                            else E.TupleExpr(frame.line, tuple(frame.items)))
            owner = frame.owner
            frame = stack[-1]
            role = owner[0]
            if role == "attribute":
                if comma is not None:
                    return None
                frame.items.append(Attribute(owner[1], done, owner[2]))
            elif role == "pair":
                frame.items.append((owner[1], done))
            else:
                frame.items.append(done)
                frame.after_item = comma is None
    if frame is not root:
        return None
    attrs, blocks = _body(root.items)
    if pending:
        resolved = _through_the_tree(pending, line, filename)
        if resolved is None:
            return None
        _resolve(attrs, blocks, resolved)
    return attrs, blocks


def _body(items: list[Any]) -> tuple[dict[str, Attribute], list[Block]]:
    """A body's arguments by name, and its blocks, from its items in order."""
    attrs: dict[str, Attribute] = {}
    blocks: list[Block] = []
    for item in items:
        if type(item) is Attribute:
            attrs[item.name] = item
        else:
            blocks.append(item)
    return attrs, blocks


@frozen
class _Pending(E.Expr):
    """A one-line value the line reader leaves to the tree, in its place until the tree has read
    it: the line as an argument (``name = value``) the tree reads."""

    text: bytes


def _through_the_tree(pending: dict[int, _Pending], lines: int, filename: str) -> dict[int, E.Expr] | None:
    """The expressions of the ``pending`` lines, read by the tree at once: a file of those lines
    alone, each on its own line (so each expression has its line), every other line blank. None
    if the tree finds anything wrong (then the whole file is the tree's, to say it as it says)."""
    from engine.lang.hcl_ast import MAX_NESTING, Converter
    from engine.lang.hcl_tree import Source, SyntaxFail, parse_tree

    rows = [b""] * lines
    for ln, p in pending.items():
        rows[ln - 1] = p.text
    data = b"\n".join(rows)
    src = Source(filename, data, data.isascii())
    root = parse_tree(data).root_node
    if root.has_error:
        return None
    body = next((c for c in root.named_children if c.type == "body"), None)
    if body is None:
        return None
    conv = Converter(src)
    out: dict[int, E.Expr] = {}
    try:
        for node in body.named_children:
            if node.type == "comment":
                continue
            row = node.start_point[0]
            if (node.type != "attribute" or node.end_point[0] != row or row + 1 not in pending
                    or row + 1 in out):  # one argument a line: the tree is newline-insensitive
                return None
            expr_node = node.child(node.child_count - 1)
            assert expr_node is not None
            out[row + 1] = conv.run(expr_node)
    except SyntaxFail:
        return None
    if len(out) != len(pending) or conv.deepest > MAX_NESTING - _DEEPEST:  # with the blocks around them
        return None
    return out


def _resolve(attrs: dict[str, Attribute], blocks: list[Block], resolved: dict[int, E.Expr]) -> None:
    """Each pending value in ``attrs`` and ``blocks`` (at any depth) replaced by the tree's."""
    todo: list[dict[str, Attribute]] = [attrs]
    stack = list(blocks)
    while stack:
        b = stack.pop()
        todo.append(b.attributes)
        stack.extend(b.blocks)
    for body in todo:
        for name, a in body.items():
            new = _substituted(a.expr, resolved)
            if new is not a.expr:
                body[name] = Attribute(name, new, a.range)


def _substituted(e: Any, resolved: dict[int, E.Expr]) -> Any:
    t = type(e)
    if t is _Pending:
        return resolved[e.line]
    if t is E.ObjectExpr:
        items = tuple((k, _substituted(v, resolved)) for k, v in e.items)
        return e if all(a[1] is b[1] for a, b in zip(items, e.items, strict=True)) else E.ObjectExpr(e.line, items)
    if t is E.TupleExpr:
        elems = tuple(_substituted(v, resolved) for v in e.items)
        return e if all(a is b for a, b in zip(elems, e.items, strict=True)) else E.TupleExpr(e.line, elems)
    return e


def _opened(stack: list[_Frame], kind: int, line: int, owner: Any) -> _Frame | None:
    """A new body, object or tuple on top of ``stack``; None when that is deeper than the line
    reader goes."""
    frame = _Frame(kind, line, owner)
    stack.append(frame)
    return frame if len(stack) <= _DEEPEST else None


def _label(raw: bytes) -> str:
    return (raw[1:-1] if raw[:1] == b'"' else raw).decode("utf-8", "replace")


def _value_of(whole: bytes | None, text: bytes | None, value: bytes | None, line: int) -> E.Expr | None:
    """A value as the line's expression found it: a whole number, a plain string, or other text."""
    if whole is not None:
        return E.Literal(line, int(whole))
    if text is not None:
        return E.Literal(line, text[1:-1].decode("utf-8", "replace"))
    return None if value is None else _value(value, line)


def _value(raw: bytes, line: int) -> E.Expr | None:
    """The expression of a one-line value in the plain form (None: not plain)."""
    if not raw:
        return None
    if raw[:1] == b'"' and b"${" in raw:
        return _template(raw, line)
    return text_expression(raw, line)


def _template(raw: bytes, line: int) -> E.Expr | None:
    """``"text ${ref} text"``: the template the tree makes of it (None: not of that form)."""
    if not _TEMPLATE.fullmatch(raw):
        return None
    parts: list[str | E.Expr] = []
    pos = 1
    end = len(raw) - 1
    for m in _INTERP.finditer(raw, 1, end):
        ref = text_expression(m.group(1), line)
        if ref is None or isinstance(ref, (E.TupleExpr, E.ObjectExpr)):
            return None
        parts.append(raw[pos:m.start()].decode("utf-8", "replace"))
        parts.append(ref)
        pos = m.end()
    parts.append(raw[pos:end].decode("utf-8", "replace"))
    return template_of(line, parts)

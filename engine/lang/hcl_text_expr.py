"""Expressions read from their text, without tree-sitter's tree: the hot path of
:meth:`engine.lang.hcl_ast.Converter.simple`. Most values in real configurations are short
numbers, plain strings, keywords, traversals, or one-line tuples and objects of them; each is
built as the same expression the syntax tree gives (same kinds, values and line), and anything
else is left to the tree (None). Only text the tree already parsed without error comes here."""

from __future__ import annotations

import re

from engine.lang import expr as E

# A whole number short enough for an int, a quoted string with no escape, interpolation or
# directive, a keyword, or a traversal by names (ASCII, no dashes: a dash may be part of a name
# or a minus, which the tree decides), literal indexes and plain string keys.
_PLAIN = rb'"[^"\\$%\r\n]*"'
SIMPLE = re.compile(rb"(?P<int>[0-9]{1,18})|(?P<str>" + _PLAIN + rb")|(?P<root>[A-Za-z_][A-Za-z0-9_]*)"
                    rb"(?:\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]{1,18}\]|\[" + _PLAIN + rb"\])*")
_STEP = re.compile(rb'\.([A-Za-z_][A-Za-z0-9_]*)|\[([0-9]{1,18})\]|\["([^"]*)"\]')
KEYWORDS = {"true": True, "false": False, "null": None}
WORDS = frozenset({"for", "in", "if", "else", "endif", "endfor"})  # left to the tree, which knows their uses

# A one-line tuple or object of such expressions (``[80, 443]``, ``{ team = "core", tier = var.t }``),
# keys bare names or plain strings, separated by commas as one line needs them: the element
# expressions are read as above, with the collection's line.
_SCALAR = (rb"(?:[0-9]{1,18}|" + _PLAIN + rb"|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*|"
           rb"\[[0-9]{1,18}\]|\[" + _PLAIN + rb"\])*)")
_KEY = rb"(?:[A-Za-z_][A-Za-z0-9_]*|" + _PLAIN + rb")"
COLLECTION = re.compile(
    rb"\[[ \t]*(?:" + _SCALAR + rb"[ \t]*(?:,[ \t]*" + _SCALAR + rb"[ \t]*)*(?:,[ \t]*)?)?\]"
    rb"|\{[ \t]*(?:" + _KEY + rb"[ \t]*=[ \t]*" + _SCALAR + rb"[ \t]*(?:,[ \t]*" + _KEY + rb"[ \t]*=[ \t]*"
    + _SCALAR + rb"[ \t]*)*(?:,[ \t]*)?)?\}")
# an element of such a collection, its key (objects) and value as one of the three kinds (for findall)
_ELEMENT = re.compile(rb"(?:(" + _KEY + rb")[ \t]*=[ \t]*)?(?:([0-9]{1,18})|(" + _PLAIN + rb")|([A-Za-z_][A-Za-z0-9_]*"
                      rb"(?:\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]{1,18}\]|\[" + _PLAIN + rb"\])*))")


def text_expression(raw: bytes, line: int) -> E.Expr | None:
    """The expression ``raw`` (on ``line``) is, when it is one of the kinds above; else None."""
    m = SIMPLE.fullmatch(raw)
    if m is None:
        if raw[:1] in (b"[", b"{") and COLLECTION.fullmatch(raw):
            return collection(raw, line)
        return None
    return _scalar(raw, m, line)


def _scalar(raw: bytes, m: re.Match[bytes], line: int) -> E.Expr | None:
    """The expression of ``raw``, which ``SIMPLE`` matched as ``m`` (None: a keyword with steps,
    left to the tree)."""
    kind = m.lastgroup
    if kind == "int":
        return E.Literal(line, int(raw))
    if kind == "str":
        return E.Literal(line, raw[1:-1].decode("utf-8", "replace"))
    root = m.group("root").decode()
    if root in KEYWORDS:
        return E.Literal(line, KEYWORDS[root]) if len(root) == len(raw) else None
    if root in WORDS:
        return None
    ex: E.Expr = E.Var(line, root)
    for step in _STEP.finditer(raw, len(root)):
        name, index, key = step.groups()
        if name is not None:
            ex = E.GetAttr(line, ex, name.decode())
        elif index is not None:
            ex = E.Index(line, ex, E.Literal(line, int(index)))
        else:
            ex = E.Index(line, ex, E.Literal(line, key.decode("utf-8", "replace")))
    return ex


def _element(whole: bytes, text: bytes, ref: bytes, line: int) -> E.Expr | None:
    """An element of a collection, as ``_ELEMENT`` found it (one of the three is not empty)."""
    if whole:
        return E.Literal(line, int(whole))
    if text:
        return E.Literal(line, text[1:-1].decode("utf-8", "replace"))
    m = SIMPLE.fullmatch(ref)
    return None if m is None else _scalar(ref, m, line)


def collection(raw: bytes, line: int) -> E.Expr | None:
    """The tuple or object ``raw``, which ``COLLECTION`` matched (None: an element is left to
    the tree). A key is the string it names, a bare keyword included, as :meth:`engine.lang.hcl_ast.Converter.object_key`
    reads it."""
    elements = _ELEMENT.findall(raw, 1, len(raw) - 1)
    if raw[:1] == b"[":
        items: list[E.Expr] = []
        for _, whole, text, ref in elements:
            v = _element(whole, text, ref, line)
            if v is None:
                return None
            items.append(v)
        return E.TupleExpr(line, tuple(items))
    pairs: list[tuple[E.Expr, E.Expr]] = []
    for key, whole, text, ref in elements:
        v = _element(whole, text, ref, line)
        if v is None:
            return None
        if key[:1] == b'"':
            name = key[1:-1]
        elif key.decode() in WORDS:  # {for = 1}: the tree's to read (or refuse)
            return None
        else:
            name = key
        pairs.append((E.Literal(line, name.decode("utf-8", "replace")), v))
    return E.ObjectExpr(line, tuple(pairs))

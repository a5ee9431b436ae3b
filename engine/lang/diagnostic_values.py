"""What terraform says about the values in a failed expression, under its source line.

When evaluating an expression fails, terraform's diagnostic names the
expression and its evaluation context, and its renderer states the value of
each reference in it::

    │ local.l is tuple with 2 elements
    │ terraform_data.a.input is "x"

For each static traversal in the expression (``root.attr["key"]``, not the
names a ``for`` binds), the longest prefix of at least two steps that
evaluates without error is described: primitives in full, collections and
objects by their shape only (a collection's elements are never shown).
Unknown values are left out, and so is anything the scope says may be
sensitive. Statements are sorted by their traversal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from engine.lang import expr as E
from engine.lang.convert import friendly_name
from engine.lang.quote import go_quote
from engine.values import UNKNOWN, MapVal, value_type

Statement = tuple[str, str]
"""(traversal, statement): ``("local.l", "is tuple with 2 elements")``."""

Hidden = Callable[[str, tuple[str, ...]], bool]
"""Whether a traversal (its root and leading attribute names) may hold a sensitive value."""


def statements(e: E.Expr, evaluate: Callable[[E.Expr], Any], hidden: Hidden) -> tuple[Statement, ...]:
    """terraform's statements about the references in ``e``; ``evaluate`` gives a sub-expression's
    value in the failed evaluation's scope (raising when it cannot)."""
    seen: dict[str, str] = {}
    for node in traversals(e, frozenset()):
        while not isinstance(node, E.Var):  # terraform's: at least two steps
            root, names = path_of(node)
            if hidden(root, names):
                break
            try:
                v = evaluate(node)
            except Exception:  # noqa: BLE001 - the prefix does not evaluate: try a shorter one
                node = node.obj  # type: ignore[attr-defined]
                continue
            text = traversal_text(node)
            if text not in seen and v is not UNKNOWN:
                seen[text] = "is " + compact_value(v)
            break
    return tuple(sorted(seen.items()))


def traversals(e: E.Expr, bound: frozenset[str]) -> Iterator[E.Expr]:
    """The outermost static traversals in ``e`` (as hcl's ``Variables()``), not rooted in ``bound``."""
    if isinstance(e, (E.GetAttr, E.Index, E.Var)):
        node: E.Expr = e
        while isinstance(node, E.GetAttr) or (isinstance(node, E.Index) and isinstance(node.key, E.Literal)):
            node = node.obj
        if isinstance(node, E.Var):
            if node.name not in bound:
                yield e
            return
        if isinstance(node, (E.GetAttr, E.Index)):  # under a dynamic index: what is on either side of it
            yield from traversals(node.obj, bound)
            if isinstance(node, E.Index):
                yield from traversals(node.key, bound)
        else:  # rooted in something else (a call, a splat's element): what is in that
            yield from traversals(node, bound)
        return
    for child, inner in children(e, bound):
        yield from traversals(child, inner)


def children(e: E.Expr, bound: frozenset[str]) -> Iterator[tuple[E.Expr, frozenset[str]]]:
    if isinstance(e, E.Template):
        yield from ((p, bound) for p in e.parts if isinstance(p, E.Expr))
    elif isinstance(e, E.TupleExpr):
        yield from ((x, bound) for x in e.items)
    elif isinstance(e, E.ObjectExpr):
        for k, v in e.items:
            yield k, bound
            yield v, bound
    elif isinstance(e, E.Splat):
        yield e.obj, bound
    elif isinstance(e, E.Call):
        yield from ((x, bound) for x in e.args)
    elif isinstance(e, E.Binary):
        yield e.left, bound
        yield e.right, bound
    elif isinstance(e, E.Unary):
        yield e.operand, bound
    elif isinstance(e, E.Conditional):
        yield e.cond, bound
        yield e.true, bound
        yield e.false, bound
    elif isinstance(e, E.TemplateIf):
        yield from ((x, bound) for x in (e.cond, e.true, e.false))
    elif isinstance(e, E.TemplateFor):
        yield e.collection, bound
        yield e.body, bound | {e.value_var} | ({e.key_var} if e.key_var else set())
    elif isinstance(e, E.ForExpr):
        yield e.collection, bound
        inner = bound | {e.value_var} | ({e.key_var} if e.key_var else set())
        for x in (e.key, e.value, e.cond):
            if x is not None:
                yield x, inner


def path_of(node: E.Expr) -> tuple[str, tuple[str, ...]]:
    """A traversal's root and its attribute names (its indices left out)."""
    names: list[str] = []
    while not isinstance(node, E.Var):
        if isinstance(node, E.GetAttr):
            names.append(node.name)
        node = node.obj  # type: ignore[attr-defined]
    names.reverse()
    return node.name, tuple(names)


def traversal_text(node: E.Expr) -> str:
    """``root.attr["key"][0]``, as terraform writes a traversal in a diagnostic."""
    parts: list[str] = []
    while not isinstance(node, E.Var):
        if isinstance(node, E.GetAttr):
            parts.append("." + node.name)
        else:
            assert isinstance(node, E.Index) and isinstance(node.key, E.Literal)
            key = node.key.value
            parts.append(f"[{compact_value(key)}]" if isinstance(key, (str, int, float, bool)) else "[...]")
        node = node.obj
    parts.append(node.name)
    return "".join(reversed(parts))


def compact_value(v: Any) -> str:
    """terraform's one-line summary of a value (``compactValueStr``): primitives in full, the rest by
    type and size."""
    if v is None:
        return "null"
    if v is UNKNOWN:
        return "(not yet known)"
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return format(v, ".10g")
    if isinstance(v, str):
        return go_quote(v)
    if isinstance(v, dict) and not isinstance(v, MapVal):
        if not v:
            return "object with no attributes"
        if len(v) == 1:
            return f"object with 1 attribute {go_quote(next(iter(v)))}"
        return f"object with {len(v)} attributes"
    if isinstance(v, (tuple, MapVal)):
        name = friendly_name(value_type(v))
        n = len(v)
        if n == 0:
            return "empty " + name
        return f"{name} with 1 element" if n == 1 else f"{name} with {n} elements"
    return friendly_name(value_type(v))


__all__ = ["Hidden", "Statement", "children", "compact_value", "friendly_name", "path_of", "statements", "traversal_text", "traversals"]

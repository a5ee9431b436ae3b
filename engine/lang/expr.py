"""The expression tree of the Terraform language, and static reference analysis.

Expressions are frozen value objects carrying the line they start on, so any
evaluation error can name ``file:line``. Parsing (``engine.hcl``) builds them;
``engine.evaluate`` gives them values.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine.frozen import frozen


@frozen
class Expr:
    line: int


@frozen
class Literal(Expr):
    value: Any


@frozen
class Template(Expr):
    """A string template; parts are literal ``str`` or expressions to interpolate."""

    parts: tuple[str | Expr, ...]


@frozen
class TupleExpr(Expr):
    items: tuple[Expr, ...]


@frozen
class ObjectExpr(Expr):
    items: tuple[tuple[Expr, Expr], ...]


@frozen
class Var(Expr):
    """A bare name: ``var``, ``local``, ``count``, ``each``, a resource type, a for-variable."""

    name: str


@frozen
class GetAttr(Expr):
    obj: Expr
    name: str


@frozen
class Index(Expr):
    obj: Expr
    key: Expr


@frozen
class Splat(Expr):
    """``obj[*].a.b`` (full) or ``obj.*.a`` (attribute-only): ``each`` applies to every element."""

    obj: Expr
    each: Expr  # evaluated with the element bound to SplatItem


@frozen
class SplatItem(Expr):
    """Placeholder for the current element inside a splat's ``each`` expression."""


@frozen
class Call(Expr):
    name: str
    args: tuple[Expr, ...]
    expand_final: bool = False


@frozen
class Binary(Expr):
    op: str
    left: Expr
    right: Expr


@frozen
class Unary(Expr):
    op: str
    operand: Expr


@frozen
class Conditional(Expr):
    cond: Expr
    true: Expr
    false: Expr


@frozen
class ForExpr(Expr):
    key_var: str | None
    value_var: str
    collection: Expr
    key: Expr | None  # set for object-for
    value: Expr
    cond: Expr | None
    grouping: bool = False


@frozen
class TemplateIf(Expr):
    """``%{ if cond }true%{ else }false%{ endif }`` in a template: a string (``line`` is the
    ``if`` directive's own). The branches are templates; an absent ``else`` is ``""``."""

    cond: Expr
    true: Expr
    false: Expr


@frozen
class TemplateFor(Expr):
    """``%{ for k, v in collection }body%{ endfor }`` in a template: ``body`` rendered once per
    element and concatenated (``line`` is the ``for`` directive's own)."""

    key_var: str | None
    value_var: str
    collection: Expr
    body: Expr


@frozen
class Reference:
    """A static reference found in an expression: ``root.attr[key]...``.

    ``steps`` holds attribute names (``str``) and index expressions (``Expr``)
    in order, as far as they are static traversals of the root.
    """

    root: str
    steps: tuple[str | Expr, ...]
    line: int

    def step_name(self, i: int) -> str | None:
        if i < len(self.steps):
            s = self.steps[i]
            return s if isinstance(s, str) else None
        return None


def _traversal(e: Expr) -> tuple[str, list[str | Expr]] | None:
    steps: list[str | Expr] = []
    while True:
        if isinstance(e, GetAttr):
            steps.append(e.name)
            e = e.obj
        elif isinstance(e, Index):
            steps.append(e.key)
            e = e.obj
        elif isinstance(e, Var):
            steps.reverse()
            return e.name, steps
        else:
            return None


def references(e: Expr, bound: frozenset[str] = frozenset()) -> Iterator[Reference]:
    """Every reference in ``e`` to a name not bound by an enclosing ``for``."""
    if isinstance(e, (GetAttr, Index, Var)):
        t = _traversal(e)
        if t is not None:
            root, steps = t
            if root not in bound:
                yield Reference(root, tuple(steps), e.line)
            for s in steps:
                if isinstance(s, Expr):
                    yield from references(s, bound)
            return
        if isinstance(e, GetAttr):
            yield from references(e.obj, bound)
        elif isinstance(e, Index):
            yield from references(e.obj, bound)
            yield from references(e.key, bound)
        return
    if isinstance(e, Template):
        for p in e.parts:
            if isinstance(p, Expr):
                yield from references(p, bound)
    elif isinstance(e, TupleExpr):
        for x in e.items:
            yield from references(x, bound)
    elif isinstance(e, ObjectExpr):
        for k, v in e.items:
            yield from references(k, bound)
            yield from references(v, bound)
    elif isinstance(e, Splat):
        yield from references(e.obj, bound)
        yield from references(e.each, bound)
    elif isinstance(e, Call):
        for x in e.args:
            yield from references(x, bound)
    elif isinstance(e, Binary):
        yield from references(e.left, bound)
        yield from references(e.right, bound)
    elif isinstance(e, Unary):
        yield from references(e.operand, bound)
    elif isinstance(e, Conditional):
        yield from references(e.cond, bound)
        yield from references(e.true, bound)
        yield from references(e.false, bound)
    elif isinstance(e, TemplateIf):
        yield from references(e.cond, bound)
        yield from references(e.true, bound)
        yield from references(e.false, bound)
    elif isinstance(e, TemplateFor):
        yield from references(e.collection, bound)
        yield from references(e.body, bound | {e.value_var} | ({e.key_var} if e.key_var else set()))
    elif isinstance(e, ForExpr):
        yield from references(e.collection, bound)
        inner = bound | {e.value_var} | ({e.key_var} if e.key_var else set())
        if e.key is not None:
            yield from references(e.key, inner)
        yield from references(e.value, inner)
        if e.cond is not None:
            yield from references(e.cond, inner)

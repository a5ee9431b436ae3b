"""The expression tree of the Terraform language, and static reference analysis.

Expressions are frozen value objects carrying the line they start on, so any
evaluation error can name ``file:line``. Parsing (``engine.hcl``) builds them;
``engine.evaluate`` gives them values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
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

    @property
    def function(self) -> str:
        """The function's name without ``core::`` (``upper`` for ``core::upper``)."""
        return self.name.removeprefix("core::")


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
    """Every reference in ``e`` to a name not bound by an enclosing ``for``, in source order.

    Worked out once per expression object (a hot path: validate's checks and the
    configuration's graph each ask it of every expression): expressions are immutable, so the
    answer is kept beside the expression, which the cache holds so that its ``id`` stays its own."""
    if bound:
        return iter(_references(e, bound, None))
    return iter(_facts(e)[1])


def calls(e: Expr) -> tuple[Call, ...]:
    """Every call in ``e``, outermost first, in source order: found by the same walk as its
    references, and kept with them."""
    return _facts(e)[2]


def only_names(e: Expr) -> bool:
    """Is ``e`` made only of literals, tuples, objects, templates and traversals from a name
    (``var.a``, ``aws_instance.web.tags["k"]``): no call, operator, conditional, ``for``, splat,
    or step from anything but a name? Found by the walk that finds its references."""
    return _facts(e)[3]


class _Notes:
    """What the references walk notes on the way: the calls, and whether anything but literals,
    tuples, objects, templates and traversals from a name was met."""

    __slots__ = ("calls", "only_names")

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.only_names = True


def _facts(e: Expr) -> tuple[Expr, tuple[Reference, ...], tuple[Call, ...], bool]:
    hit = _REFERENCES.get(id(e))
    if hit is not None and hit[0] is e:
        return hit
    notes = _Notes()
    facts = (e, tuple(_references(e, frozenset(), notes)), tuple(notes.calls), notes.only_names)
    if len(_REFERENCES) >= _REFERENCES_KEPT:
        _REFERENCES.clear()
    _REFERENCES[id(e)] = facts
    return facts


_REFERENCES: dict[int, tuple[Expr, tuple[Reference, ...], tuple[Call, ...], bool]] = {}
_REFERENCES_KEPT = 1 << 18  # expressions; then the cache starts again (a long-lived program)


class _Bound:
    """A marker on :func:`_references`'s stack: from here on, these names are bound."""

    __slots__ = ("names",)

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names


def _references(e: Expr, bound: frozenset[str], notes: _Notes | None) -> list[Reference]:
    """:func:`references`, worked out: a loop over an explicit stack, not recursion (nesting
    may be deep). The names a ``for`` binds hold between two markers on the stack: the one that
    binds them, popped first, and the one that restores the names bound before. What the walk
    meets on the way goes into ``notes`` (when given). Literals, the most common leaves, never go
    on the stack."""
    out: list[Reference] = []
    found = out.append
    stack: list[Any] = [e]
    pop, push, extend = stack.pop, stack.append, stack.extend
    parts_of = PARTS.get
    while stack:
        x = pop()
        t = type(x)
        if t is GetAttr or t is Var or t is Index:
            steps: list[str | Expr] = []
            y = x
            while True:  # the traversal's steps, back to its root (see _traversal)
                ty = type(y)
                if ty is GetAttr:
                    steps.append(y.name)
                    y = y.obj
                elif ty is Index:
                    steps.append(y.key)
                    y = y.obj
                else:
                    break
            if ty is Var:
                steps.reverse()
                if y.name not in bound:
                    found(Reference(y.name, tuple(steps), x.line))
                keys = [s for s in reversed(steps) if type(s) is not str and type(s) is not Literal]
                if keys:
                    extend(keys)
            else:
                if notes is not None:  # a step from something else: {a = 1}.b, f(x)[0]
                    notes.only_names = False
                if t is GetAttr:
                    push(x.obj)
                else:
                    push(x.key)
                    push(x.obj)
        elif t is ObjectExpr:
            for k, v in reversed(x.items):
                if type(v) is not Literal:
                    push(v)
                if type(k) is not Literal:
                    push(k)
        elif t is TupleExpr:
            extend([y for y in reversed(x.items) if type(y) is not Literal])
        elif t is Literal:
            continue
        else:
            if notes is not None and t is not Template and t is not _Bound:
                notes.only_names = False
                if t is Call:
                    notes.calls.append(x)
            parts = parts_of(t)
            if parts is not None:
                extend([y for y in reversed(parts(x)) if isinstance(y, Expr)])
            elif t is _Bound:
                bound = x.names
            elif t is TemplateFor or t is ForExpr:
                inner = bound | {x.value_var} | ({x.key_var} if x.key_var else set())
                push(_Bound(bound))  # popped once the body is done
                if t is TemplateFor:
                    push(x.body)
                else:
                    extend([y for y in (x.cond, x.value, x.key) if y is not None])
                push(_Bound(inner))
                push(x.collection)  # popped first: in the names bound outside
    return out


PARTS: dict[type, Callable[[Any], tuple[Any, ...]]] = {
    Template: lambda e: e.parts,
    TupleExpr: lambda e: e.items,
    ObjectExpr: lambda e: tuple(x for kv in e.items for x in kv),
    Splat: lambda e: (e.obj, e.each),
    Call: lambda e: e.args,
    Binary: lambda e: (e.left, e.right),
    Unary: lambda e: (e.operand,),
    Conditional: lambda e: (e.cond, e.true, e.false),
    TemplateIf: lambda e: (e.cond, e.true, e.false),
}
"""The sub-expressions of each kind of expression without bound names, in source order."""

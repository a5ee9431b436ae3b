"""``dynamic`` blocks: one nested block per element of a collection, as hcl's ``dynblock`` makes
them::

    dynamic "ingress" {            # the type of block to make
      for_each = var.rules         # a list, set, tuple, map or object
      iterator = rule              # the name that holds each element (default: the block type)
      labels   = [rule.key]        # the made block's labels, for a block type that has them
      content { port = rule.value.port }
    }

The iterator is an object ``{key, value}``: the index of a list or tuple, the key of a map or
object (in lexical order), the element itself for a set. ``dynamic`` blocks nest: an inner one's
``for_each`` and content see the outer iterator. A ``for_each`` unknown while planning makes the
number of blocks of that type unknown.

:func:`expand_dynamic` makes the blocks while an instance's configuration is evaluated;
:func:`block_expressions` gives the expressions of a block for static reference analysis, each
inside a ``for`` over its ``for_each`` so the iterator is a bound name there, not a resource.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.diagnostics import Diagnostic, SourceRange, error
from engine.lang import expr as E
from engine.lang.convert import friendly_name
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.lang.hcl import Block
from engine.lang.number import to_string
from engine.provider.protocol import BlockSchema
from engine.values import UNKNOWN, SetVal, value_type

_ARGUMENTS = ("for_each", "iterator", "labels")


def expand_dynamic(b: Block, schema: dict[str, BlockSchema], scope: Scope, ctx: str | None,
                   diags: list[Diagnostic], by_type: dict[str, Any], unknown: set[str]) -> None:
    """Add to ``by_type`` (block type → [(content block, its scope, labels)]) the blocks ``b``
    makes; a block type whose ``for_each`` is unknown goes into ``unknown``."""
    fn = b.range.filename

    def fail(summary: str, detail: str, line: int | None = None) -> None:
        diags.append(error(summary, detail, b.range if line is None else SourceRange(fn, line), context=ctx))

    if len(b.labels) != 1:
        fail("Missing dynamic block type" if not b.labels else "Extraneous label for dynamic",
             "A dynamic block needs one label: the type of the blocks it makes." if not b.labels else
             "Only 1 labels (type) are expected for dynamic blocks.")
        return
    name = b.labels[0]
    bs = schema.get(name)
    if bs is None:
        fail("Unsupported block type", f'Blocks of type "{name}" are not expected here.')
        return
    for an, a in b.attributes.items():
        if an not in _ARGUMENTS:
            fail("Unsupported argument", f'An argument named "{an}" is not expected here.', a.range.line)
    contents = [nb for nb in b.blocks if nb.type == "content"]
    for nb in b.blocks:
        if nb.type != "content":
            fail("Unsupported block type", f'Blocks of type "{nb.type}" are not expected here.', nb.range.line)
    if not contents:
        fail("Missing dynamic content block", 'A dynamic block must have a nested block of type "content" to '
             "describe the body of each generated block.")
        return
    if len(contents) > 1:
        fail("Extraneous dynamic content block", "Only one nested content block is allowed for each dynamic "
             "block.", contents[1].range.line)
        return
    fe = b.attributes.get("for_each")
    if fe is None:
        fail("Missing required argument", 'The argument "for_each" is required, but no definition was found.')
        return
    iterator = name
    it = b.attributes.get("iterator")
    if it is not None:
        if not isinstance(it.expr, E.Var):
            fail("Invalid dynamic iterator name", "Dynamic iterator must be a single variable name.",
                 it.range.line)
            return
        iterator = it.expr.name
    try:
        coll = evaluate(fe.expr, scope)
    except EvalError as exc:
        diags.append(exc.error(SourceRange(fn, exc.line), context=ctx))
        return
    if coll is UNKNOWN:
        unknown.add(name)
        return
    if coll is None:
        fail("Invalid dynamic for_each value", "Cannot use a null value in for_each.", fe.range.line)
        return
    if isinstance(coll, dict):
        pairs: list[tuple[Any, Any]] = sorted(coll.items())
    elif isinstance(coll, SetVal):
        pairs = [(v, v) for v in coll]
    elif isinstance(coll, tuple):
        pairs = list(enumerate(coll))
    else:
        fail("Invalid dynamic for_each value", f"Cannot use a {friendly_name(value_type(coll))} value in "
             "for_each. An iterable collection is required.", fe.range.line)
        return
    content = contents[0]
    wanted = 1 if bs.nesting == "map" else 0
    labels_attr = b.attributes.get("labels")
    label_exprs: tuple[E.Expr, ...] = ()
    if labels_attr is not None:
        if not isinstance(labels_attr.expr, E.TupleExpr):
            fail("Invalid dynamic block labels", "The labels argument must be a list of label expressions.",
                 labels_attr.range.line)
            return
        label_exprs = labels_attr.expr.items
    if len(label_exprs) > wanted:
        fail("Extraneous dynamic block label", f'Blocks of type "{name}" require {wanted} label(s).',
             label_exprs[wanted].line)
        return
    if len(label_exprs) < wanted:
        fail("Insufficient dynamic block labels", f'Blocks of type "{name}" require {wanted} label(s).',
             labels_attr.range.line if labels_attr is not None else None)
        return
    found = by_type.setdefault(name, [])
    for k, v in pairs:
        inner = scope.child({iterator: {"key": k, "value": v}})
        labels = []
        for le in label_exprs:
            try:
                lv = evaluate(le, inner)
            except EvalError as exc:
                diags.append(exc.error(SourceRange(fn, exc.line), context=ctx))
                return
            if lv is None or lv is UNKNOWN or not isinstance(lv, (str, int, float, bool)):
                detail = ("Cannot use a null value as a dynamic block label." if lv is None else
                          "This value is not yet known. Dynamic block labels must be immediately-known values."
                          if lv is UNKNOWN else "Cannot use this value as a dynamic block label: string "
                          "required.")
                fail("Invalid dynamic block label", detail, le.line)
                return
            labels.append(to_string(lv))
        found.append((content, inner, tuple(labels)))


Wrap = Callable[[E.Expr], E.Expr]


def block_expressions(b: Block, out: list[E.Expr], wrap: Wrap | None = None) -> None:
    """Append to ``out`` every expression in ``b`` and its nested blocks; inside a ``dynamic``
    block, each wrapped in a ``for`` over its ``for_each`` that binds the iterator, so references
    to the iterator are no references to anything declared."""
    w: Wrap = wrap if wrap is not None else (lambda e: e)
    fe = b.attributes.get("for_each") if b.type == "dynamic" and len(b.labels) == 1 else None
    if fe is None:
        out.extend(w(a.expr) for a in b.attributes.values())
        for nb in b.blocks:
            block_expressions(nb, out, wrap)
        return
    it = b.attributes.get("iterator")
    name = it.expr.name if it is not None and isinstance(it.expr, E.Var) else b.labels[0]
    collection = fe.expr

    def inner(e: E.Expr) -> E.Expr:
        return w(E.ForExpr(e.line, None, name, collection, None, e, None))

    out.append(w(collection))
    labels = b.attributes.get("labels")
    if labels is not None:
        out.append(inner(labels.expr))
    for nb in b.blocks:
        block_expressions(nb, out, inner if nb.type == "content" else wrap)

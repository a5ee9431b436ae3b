"""The type mistakes ``strata validate`` finds as terraform's validate does, every input variable an
unknown of its declared type (:mod:`engine.lang.typecheck`): in local values, outputs, the
arguments of resources and their nested blocks, module call arguments, and ``count`` and
``for_each`` given a value of a type they cannot take (``for_each = var.names`` with a
``list(string)``). Plan and apply are not changed: there the values are known or say nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from typing import Any

from engine.config.model import Module
from engine.diagnostics import Diagnostic, SourceRange, error
from engine.lang import expr as E
from engine.lang.hcl import Block
from engine.lang.typecheck import DYNAMIC, ExprTypes, TypeMistake
from engine.lang.unify import convertible
from engine.values import friendly_name

FOR_EACH = ('The given "for_each" argument value is unsuitable: the "for_each" argument must be a map, or set of '
            "strings, and you have provided a value of type {}.")
Hidden = Callable[[str, tuple[str, ...]], bool]


def module_types(module: Module, hidden: Hidden) -> ExprTypes:
    """The types of ``module``'s expressions during validate."""
    def variable_type(name: str) -> Any:
        vc = module.variables.get(name)
        return None if vc is None else vc.type

    def local_expr(name: str) -> E.Expr | None:
        lc = module.locals.get(name)
        return None if lc is None else lc.expr

    return ExprTypes(variable_type, local_expr, hidden)


def type_mistakes(module: Module, types: ExprTypes, evaluated: Collection[str] = ()) -> list[Diagnostic]:
    """Each expression's first type mistake, in source order; ``evaluated``: the local values whose
    evaluation failed already (reported with their values, not again here)."""
    diags = []
    for fn, e in _expressions(module, evaluated):
        if _nothing_to_find(e):
            continue
        try:
            found = types.mistakes(e)
        except RecursionError:  # nesting too deep for a check: evaluation says what it must
            continue
        diags += [_diagnostic(exc, SourceRange(fn, exc.line)) for exc in found]
    for count in [*(rc.count for rc in module.resources.values()), *(c.count for c in module.calls.values())]:
        if count is not None:
            ty = _type(types, count.expr)
            if ty != DYNAMIC and not convertible(ty, "number"):
                diags.append(error("Incorrect value type", "Invalid expression value: number required.",
                                   count.range, expr_values=types.statements(count.expr, {})))
    for call in module.calls.values():  # a resource's for_each is checked with its value, where it has one
        if call.for_each is not None:
            name = for_each_type(types, call.for_each.expr)
            if name is not None:
                diags.append(error("Invalid for_each argument", FOR_EACH.format(name), call.for_each.range,
                                   expr_values=types.statements(call.for_each.expr, {})))
    diags.sort(key=lambda d: (d.subject.filename, d.subject.line) if d.subject else ("", 0))
    return diags


_TYPED_ROOTS = frozenset({"var", "local", "path", "terraform", "count"})
"""The names whose attributes have types the checker knows (a step beyond one can be wrong)."""


def _nothing_to_find(e: E.Expr) -> bool:
    """Is ``e`` beyond any type mistake: literals, tuples, objects, templates and traversals, each
    from a name whose type says nothing (a resource's, ``each``'s) or one step from a typed name
    (``var.a``, ``local.b``)? (A hot path: most arguments of a large configuration are such.)"""
    return E.only_names(e) and all(len(r.steps) <= 1 or r.root not in _TYPED_ROOTS for r in E.references(e))


def for_each_type(types: ExprTypes, e: E.Expr) -> str | None:
    """The friendly name of the type of a ``for_each`` that is no map, object or set (terraform's
    "Invalid for_each argument"), None when it may be one."""
    ty = _type(types, e)
    kind = ty if isinstance(ty, str) else ty[0]
    if kind in ("string", "number", "bool", "list", "tuple"):
        return friendly_name(ty)
    return None


def _type(types: ExprTypes, e: E.Expr) -> Any:
    try:
        return types.type_of(e)  # its mistakes are reported as the expression's own
    except RecursionError:
        return DYNAMIC


def _diagnostic(exc: TypeMistake, subject: SourceRange) -> Diagnostic:
    return error(exc.summary, exc.detail, subject, values=exc.values, expr_values=exc.statements)


def _expressions(module: Module, evaluated: Collection[str]) -> Iterator[tuple[str, E.Expr]]:
    """(file name, expression) of what terraform's validate walk evaluates, ``count`` and
    ``for_each`` aside (their types are checked as such)."""
    for lc in module.locals.values():
        if lc.name not in evaluated:
            yield lc.range.filename, lc.expr
    for vc in module.variables.values():
        for c in vc.validations:
            yield vc.range.filename, c.condition
            yield vc.range.filename, c.error_message
    for oc in module.outputs.values():
        yield oc.range.filename, oc.expr
        for c in oc.preconditions:
            yield oc.range.filename, c.condition
            yield oc.range.filename, c.error_message
    for rc in module.resources.values():
        fn = rc.range.filename
        for a in rc.attributes.values():
            yield fn, a.expr
        for b in rc.blocks:
            yield from ((fn, e) for e in _block_expressions(b))
        for c in (*rc.lifecycle.preconditions, *rc.lifecycle.postconditions):
            yield fn, c.condition
            yield fn, c.error_message
    for call in module.calls.values():
        for a in call.arguments.values():
            yield call.range.filename, a.expr


def _block_expressions(b: Block) -> Iterator[E.Expr]:
    """The arguments of a nested block and of the blocks in it; not those of a ``dynamic`` block,
    whose iterator is a name of no type known here."""
    if b.type == "dynamic":
        return
    for a in b.attributes.values():
        yield a.expr
    for inner in b.blocks:
        yield from _block_expressions(inner)

"""Evaluation of expressions against a scope, with unknown values propagating.

:func:`evaluate` dispatches on the kind of expression: literals, templates, tuples, objects and
conditionals are evaluated here; names and references in :mod:`engine.lang.scope` (which defines
:class:`Scope` and :class:`EvalError`), operators in :mod:`engine.lang.operators`, function calls
in :mod:`engine.lang.calls`, ``for`` and splat expressions in :mod:`engine.lang.iteration`. Those
modules are handed this module's evaluator for an expression's parts, so none imports this one.
"""

from __future__ import annotations

from typing import Any

from engine.lang import expr as E
from engine.lang.calls import call
from engine.lang.convert import ConversionError, convert
from engine.lang.iteration import for_expr, splat
from engine.lang.number import to_string
from engine.lang.operators import binary, unary
from engine.lang.refinements import unknown_conditional
from engine.lang.scope import (
    EvalError,
    Namespace,
    ResourceRef,
    ResourceResolver,
    ResourceType,
    Scope,
    get_attr,
    get_index,
    materialize,
    variable,
)
from engine.lang.unify import mismatch, unify_unsafe
from engine.values import UNKNOWN, MapVal, SetVal, type_name, value_type


def evaluate(e: E.Expr, scope: Scope) -> Any:
    """The value of ``e`` in ``scope``; raises :class:`EvalError` on a mistake."""
    return _val(e, scope)


def _val(e: E.Expr, scope: Scope) -> Any:
    v = _eval(e, scope)
    if isinstance(v, (ResourceRef, ResourceType)):
        return materialize(v, scope, e.line)
    return v


def _eval(e: E.Expr, scope: Scope) -> Any:  # noqa: C901 - dispatch on node type
    t = type(e)
    if t is E.Literal:
        return e.value  # type: ignore[attr-defined]
    if t is E.GetAttr:
        assert isinstance(e, E.GetAttr)
        base = _eval(e.obj, scope)
        try:
            return get_attr(base, e.name, scope, e.line)
        except EvalError as exc:
            if not isinstance(base, (Namespace, ResourceType, ResourceRef)):  # a value's, not a name's
                exc.blame(e, scope)
            raise
    if t is E.Index:
        assert isinstance(e, E.Index)
        base = _eval(e.obj, scope)
        try:
            return get_index(base, _val(e.key, scope), scope, e.line)
        except EvalError as exc:
            if exc.summary != "Unexpected resource instance key":
                exc.blame(e, scope)
            raise
    if t is E.Var:
        assert isinstance(e, E.Var)
        return variable(e, scope)
    if t is E.Template:
        assert isinstance(e, E.Template)
        out: list[str] = []
        unknown = False
        for p in e.parts:
            if isinstance(p, str):
                out.append(p)
                continue
            v = _val(p, scope)
            if type(v) is str:  # hot path: an id or a name interpolated as it is
                out.append(v)
                continue
            if v is UNKNOWN:
                unknown = True
                continue
            out.append(_interpolated(v, p, scope))
        return UNKNOWN if unknown else "".join(out)
    if t is E.TemplateIf or t is E.TemplateFor:
        return _directive(e, scope)
    if t is E.TupleExpr:
        assert isinstance(e, E.TupleExpr)
        return tuple(_val(x, scope) for x in e.items)
    if t is E.ObjectExpr:
        assert isinstance(e, E.ObjectExpr)
        obj: dict[str, Any] = {}
        for k, x in e.items:
            key = _val(k, scope)
            if key is UNKNOWN:
                return UNKNOWN
            if not isinstance(key, (str, int, float, bool)):
                raise EvalError("Invalid object key", f"Object keys must be strings, not {type_name(key)}.",
                                k.line)
            obj[to_string(key)] = _val(x, scope)
        return obj
    if t is E.Call:
        assert isinstance(e, E.Call)
        return call(e, scope, _val)
    if t is E.Binary:
        assert isinstance(e, E.Binary)
        return binary(e, scope, _val)
    if t is E.Unary:
        assert isinstance(e, E.Unary)
        return unary(e, scope, _val)
    if t is E.Conditional:
        assert isinstance(e, E.Conditional)
        c = _val(e.cond, scope)
        if c is UNKNOWN:  # unknown, or what terraform's refinements of the two results leave no choice of
            return unknown_conditional(e, scope, _val)
        if not isinstance(c, bool):
            if c == "true" or c == "false":
                c = c == "true"
            else:
                raise EvalError("Incorrect condition type", "The condition expression must be of type bool.",
                                e.line).blame(e.cond, scope)
        return _conditional(e, c, scope)
    if t is E.Splat:
        assert isinstance(e, E.Splat)
        return splat(e, scope, _val)
    if t is E.SplatItem:
        return scope.for_vars["\0splat"]
    if t is E.ForExpr:
        assert isinstance(e, E.ForExpr)
        return for_expr(e, scope, _val)
    raise EvalError("Unsupported expression", f"{t.__name__} is not supported", e.line)


def _conditional(e: E.Conditional, c: bool, scope: Scope) -> Any:
    """The chosen result converted to the type both results unify to, as hcl does: ``true ? ["x"]
    : []`` is a list of string. The other result is evaluated only for its type (its errors are
    not reported, as hcl's are not); a null or an unknown on either side leaves the chosen one as
    it is."""
    chosen, other = (e.true, e.false) if c else (e.false, e.true)
    v = _val(chosen, scope)
    if v is None or v is UNKNOWN or (type(other) is E.Literal and other.value is None):
        return v
    try:
        w = _val(other, scope)
    except EvalError:
        return v
    if w is None or w is UNKNOWN:
        return v
    own, theirs = value_type(v), value_type(w)
    if own == theirs:
        return v
    true_ty, false_ty = (own, theirs) if c else (theirs, own)
    ty = unify_unsafe([true_ty, false_ty])
    if ty is None:
        raise EvalError("Inconsistent conditional result types", "The true and false result expressions must "
                        f"have consistent types. {mismatch(true_ty, false_ty)}.", e.true.line)
    if ty == own or ty == "dynamic":
        return v
    try:
        return convert(v, ty)
    except ConversionError as exc:
        which = "true" if c else "false"
        raise EvalError("Inconsistent conditional result types",
                        f"The {which} result value has the wrong type: {exc.cty_text}", chosen.line) from None


def _interpolated(v: Any, p: E.Expr, scope: Scope) -> str:
    """A known value interpolated into a template, as a string (as cty converts it)."""
    if type(v) is str:
        return v
    if v is None:
        raise EvalError("Invalid template interpolation value",
                        "The expression result is null. Cannot include a null value "
                        "in a string template.", p.line).blame(p, scope)
    if not isinstance(v, (int, float)):  # a bool; anything else cty cannot make a string of
        raise EvalError("Invalid template interpolation value", "Cannot include the given value "
                        "in a string template: string required.", p.line).blame(p, scope)
    return to_string(v)


def _directive(e: E.Expr, scope: Scope) -> Any:
    """The string an ``%{ if }`` or ``%{ for }`` directive renders (unknown if what it depends on
    is); errors name the directive's own line."""
    if isinstance(e, E.TemplateIf):
        c = _val(e.cond, scope)
        if c is UNKNOWN:
            return UNKNOWN
        if not isinstance(c, bool):
            if c == "true" or c == "false":
                c = c == "true"
            else:
                why = "The condition value is null." if c is None else "bool required."
                raise EvalError("Invalid template if condition", f"The condition for an if directive in a "
                                f"template must be a boolean value: {why}", e.line).blame(e.cond, scope)
        branch = e.true if c else e.false
        v = _val(branch, scope)
        return v if v is UNKNOWN else _interpolated(v, branch, scope)
    assert isinstance(e, E.TemplateFor)
    coll = _val(e.collection, scope)
    if coll is UNKNOWN:
        return UNKNOWN
    if coll is None:
        raise EvalError("Invalid template for directive", "The collection for a for directive in a template "
                        "must not be null.", e.line).blame(e.collection, scope)
    if isinstance(coll, dict):
        pairs: list[tuple[Any, Any]] = sorted(coll.items())
    elif isinstance(coll, tuple):
        pairs = list(enumerate(coll))
    elif isinstance(coll, SetVal):
        pairs = [(v, v) for v in coll]
    else:
        raise EvalError("Invalid template for directive", f"The collection for a for directive in a template "
                        f"must be a collection: {type_name(coll)} given.", e.line).blame(e.collection, scope)
    out: list[str] = []
    for k, v in pairs:
        inner = scope.child({e.value_var: v, **({e.key_var: k} if e.key_var else {})})
        body = _val(e.body, inner)
        if body is UNKNOWN:
            return UNKNOWN
        out.append(_interpolated(body, e.body, inner))
    return "".join(out)


__all__ = ["EvalError", "ResourceResolver", "Scope", "evaluate", "MapVal"]

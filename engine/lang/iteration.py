"""Splat expressions (``list[*].id``) and ``for`` expressions (``[for k, v in x : v if k != ""]``,
``{for k, v in x : k => v...}``): an expression evaluated per element of a collection, in a scope
that binds the element."""

from __future__ import annotations

from typing import Any

from engine.lang import expr as E
from engine.lang.number import to_string
from engine.lang.scope import EvalError, Evaluator, Scope
from engine.values import UNKNOWN, ListVal, SetVal, type_name


def splat(e: E.Splat, scope: Scope, value_of: Evaluator) -> Any:
    obj = value_of(e.obj, scope)
    if obj is UNKNOWN:
        return UNKNOWN
    if obj is None:
        return ()
    if isinstance(obj, tuple):
        items = obj
    else:
        items = (obj,)
    out = []
    for item in items:
        inner = scope.child({"\0splat": item})
        out.append(value_of(e.each, inner))
    if isinstance(obj, ListVal) or isinstance(obj, SetVal):
        return ListVal(out)
    return tuple(out)


def for_expr(e: E.ForExpr, scope: Scope, value_of: Evaluator) -> Any:
    coll = value_of(e.collection, scope)
    if coll is UNKNOWN:
        return UNKNOWN
    if coll is None:
        raise EvalError("Iteration over null value", "A null value cannot be used as the collection in a "
                        "'for' expression.", e.line)
    if isinstance(coll, dict):
        pairs = sorted(coll.items())  # objects and maps iterate in lexical key order
    elif isinstance(coll, SetVal):
        pairs = [(v, v) for v in coll]
    elif isinstance(coll, tuple):
        pairs = list(enumerate(coll))
    else:
        raise EvalError("Iteration over non-iterable value",
                        f"A value of type {type_name(coll)} cannot be used as the collection in a "
                        "'for' expression.", e.line)
    if e.key is None:
        result = []
        for k, v in pairs:
            inner = scope.child({e.value_var: v, **({e.key_var: k} if e.key_var else {})})
            if e.cond is not None:
                c = value_of(e.cond, inner)
                if c is UNKNOWN:
                    return UNKNOWN
                if not c:
                    continue
            result.append(value_of(e.value, inner))
        return tuple(result)
    obj: dict[str, Any] = {}
    for k, v in pairs:
        inner = scope.child({e.value_var: v, **({e.key_var: k} if e.key_var else {})})
        if e.cond is not None:
            c = value_of(e.cond, inner)
            if c is UNKNOWN:
                return UNKNOWN
            if not c:
                continue
        key = value_of(e.key, inner)
        if key is UNKNOWN:
            return UNKNOWN
        key = to_string(key)
        val = value_of(e.value, inner)
        if e.grouping:
            obj.setdefault(key, []).append(val)
        else:
            if key in obj:
                raise EvalError("Duplicate object key", f'Two different items produced the key "{key}" in '
                                "this 'for' expression. Use the ellipsis (...) after the value expression "
                                "to group results by key.", e.line)
            obj[key] = val
    if e.grouping:
        return {k: tuple(v) for k, v in obj.items()}
    return obj

"""The types of null values: what terraform's console shows as ``tostring(null)`` or
``tolist(null) /* of string */``.

In cty a null has a type: a variable's (``variable "l" { type = list(string) }`` left null), a
conversion's (``tostring(null)``), an object attribute's (an ``optional()`` one left out), a
conditional's other branch. strata's null is Python's ``None``, with no type; where a display
needs it, :func:`static_type` works it out from the expression that gave the value, and
:func:`null_text` writes it as terraform does. A collection's own element type (``ListVal.ety``,
its non-null elements) types the nulls inside it without any expression.

Types are in cty's JSON notation; ``"dynamic"`` is "no type known" (the literal ``null``, whose
type in cty is the dynamic pseudo-type, prints as plain ``null``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.lang import expr as E
from engine.lang.unify import unify_unsafe
from engine.values import value_type

_PRIMITIVE = frozenset({"string", "number", "bool"})
_CONVERSIONS = {"tostring": "string", "tonumber": "number", "tobool": "bool"}
_COLLECTIONS = {"tolist": "list", "toset": "set", "tomap": "map"}
_FACTS = {"terraform": {"applying": "bool", "workspace": "string"},
          "path": {"module": "string", "root": "string", "cwd": "string"}}
_SAME_TYPE = frozenset({"sensitive", "nonsensitive", "ephemeralasnull"})


def type_text(ty: Any) -> str:
    """A type as a typed null's comment writes it: ``string``, ``list of string``, ``object``."""
    if isinstance(ty, str):
        return ty
    kind = ty[0]
    if kind in ("list", "set", "map"):
        return f"{kind} of {type_text(ty[1])}"
    return str(kind)


def null_text(ty: Any) -> str:
    """A null of type ``ty`` as terraform's console prints it."""
    if isinstance(ty, str) and ty in _PRIMITIVE:
        return f"to{ty}(null)"
    if isinstance(ty, list) and ty[0] in ("list", "set", "map"):
        return f"to{ty[0]}(null) /* of {type_text(ty[1])} */"
    if isinstance(ty, list) and ty[0] in ("object", "tuple"):
        return f"null /* {ty[0]} */"
    return "null"


def element_type(ty: Any, key: Any) -> Any:
    """The type of ``ty``'s element or attribute ``key`` (``"dynamic"`` when not known)."""
    if not isinstance(ty, list):
        return "dynamic"
    kind = ty[0]
    if kind in ("list", "set", "map"):
        return ty[1]
    if kind == "object" and isinstance(key, str):
        return ty[1].get(key, "dynamic")
    if kind == "tuple" and isinstance(key, int) and not isinstance(key, bool) and 0 <= key < len(ty[1]):
        return ty[1][key]
    return "dynamic"


def _known(ty: Any) -> bool:
    return ty != "dynamic" and ty is not None


class StaticTypes:
    """The types expressions give in one module: ``variable_type(name)`` a variable's declared type,
    ``local_expr(name)`` a local's expression (None when there is none)."""

    def __init__(self, variable_type: Callable[[str], Any], local_expr: Callable[[str], E.Expr | None]) -> None:
        self._variable_type = variable_type
        self._local_expr = local_expr
        self._busy: set[str] = set()

    def of(self, e: E.Expr, depth: int = 0, bound: dict[str, Any] | None = None) -> Any:
        """The type ``e``'s value has in cty, as far as its expression tells (``"dynamic"``
        otherwise); ``bound``: the types of the names a ``for`` or a splat binds around it."""
        if depth > 200:  # deep nesting: a display's detail is not worth a stack
            return "dynamic"
        d = depth + 1
        env = bound or {}
        if isinstance(e, E.Literal):
            return "dynamic" if e.value is None else value_type(e.value)
        if isinstance(e, E.Template):
            return "string"
        if isinstance(e, (E.GetAttr, E.Index, E.Var, E.SplatItem)):
            return self._traversal(e, d, env)
        if isinstance(e, E.Call):
            return self._call(e, d, env)
        if isinstance(e, E.Conditional):
            sides = [self.of(x, d, env) for x in (e.true, e.false)
                     if not (isinstance(x, E.Literal) and x.value is None)]
            if not sides:
                return "dynamic"
            got = unify_unsafe(sides)
            return got if got is not None else "dynamic"
        if isinstance(e, E.TupleExpr):
            return ["tuple", [self.of(x, d, env) for x in e.items]]
        if isinstance(e, E.ObjectExpr):
            attrs = {}
            for k, v in e.items:
                name = k.value if isinstance(k, E.Literal) else k.name if isinstance(k, E.Var) else None
                if not isinstance(name, str):
                    return "dynamic"
                attrs[name] = self.of(v, d, env)
            return ["object", attrs]
        if isinstance(e, E.ForExpr):
            coll = self.of(e.collection, d, env)
            inner = {**env, e.value_var: _any_element(coll)}
            if e.key_var:
                inner[e.key_var] = "number" if _kind(coll) in ("list", "tuple") else "string"
            each = self.of(e.value, d, inner)
            if e.grouping:
                each = ["tuple", []] if each == "dynamic" else ["list", each]
            # every element alike: a list's or map's notation says so for a tuple's or object's display
            return ["map" if e.key is not None else "list", each]
        if isinstance(e, E.Splat):
            return ["list", self.of(e.each, d, {**env, "": _any_element(self.of(e.obj, d, env))})]
        return "dynamic"

    def _call(self, e: E.Call, d: int, env: dict[str, Any]) -> Any:
        name = e.function
        if name in _CONVERSIONS:
            return _CONVERSIONS[name]
        args = [self.of(a, d, env) for a in e.args]
        if name in _COLLECTIONS and len(args) == 1:
            return [_COLLECTIONS[name], _any_element(args[0])]
        if not args:
            return "dynamic"
        if name == "coalescelist":  # one of its arguments: the first that says anything
            return next((a for a in args if a not in ("dynamic", ["tuple", []])), "dynamic")
        if name in _SAME_TYPE or name in ("try", "reverse", "slice", "distinct"):
            return args[0]
        if name in ("lookup", "element", "one"):
            return _any_element(args[0])
        if name in ("concat", "coalesce"):
            elems = [_any_element(a) for a in args] if name == "concat" else args
            return ["list", _unified(elems)] if name == "concat" else _unified(elems)
        if name == "flatten":
            return ["list", _any_element(_any_element(args[0]))]
        if name == "values":
            return ["list", _any_element(args[0])]
        if name == "merge" and all(_kind(a) == "object" for a in args):
            attrs: dict[str, Any] = {}
            for a in args:
                attrs.update(a[1])
            return ["object", attrs]
        return "dynamic"

    def _traversal(self, e: E.Expr, d: int, env: dict[str, Any]) -> Any:
        steps: list[Any] = []
        node = e
        while isinstance(node, (E.GetAttr, E.Index)):
            if isinstance(node, E.GetAttr):
                steps.append(node.name)
            elif isinstance(node.key, E.Literal):
                steps.append(node.key.value)
            else:
                steps.append(None)
            node = node.obj
        steps.reverse()
        if isinstance(node, E.SplatItem):  # a splat's element
            ty = env.get("", "dynamic")
        elif not isinstance(node, E.Var):
            ty = self.of(node, d, env)
        elif node.name in env:
            ty = env[node.name]
        elif node.name in _FACTS and steps and steps[0] in _FACTS[node.name]:
            return _FACTS[node.name][steps[0]]
        elif node.name == "var" and steps and isinstance(steps[0], str):
            ty = self._variable_type(steps.pop(0))
        elif node.name == "local" and steps and isinstance(steps[0], str) and steps[0] not in self._busy:
            name = steps.pop(0)
            expr = self._local_expr(name)
            if expr is None:
                return "dynamic"
            self._busy.add(name)
            try:
                ty = self.of(expr, d)
            finally:
                self._busy.discard(name)
        else:
            return "dynamic"
        for key in steps:
            ty = element_type(ty, key) if key is not None else _any_element(ty)
        return ty


def _kind(ty: Any) -> str:
    return ty if isinstance(ty, str) else str(ty[0])


def _any_element(ty: Any) -> Any:
    """The type of any one element of ``ty`` (their unified type for a tuple or an object)."""
    if isinstance(ty, list) and ty[0] in ("list", "set", "map"):
        return ty[1]
    elems = _element_types(ty)
    return _unified(elems) if elems is not None else "dynamic"


def _unified(types: list[Any]) -> Any:
    known = [t for t in types if _known(t)]
    got = unify_unsafe(known) if known else None
    return got if got is not None else "dynamic"


def _element_types(ty: Any) -> list[Any] | None:
    if isinstance(ty, list) and ty[0] == "tuple":
        return list(ty[1])
    if isinstance(ty, list) and ty[0] == "object":
        return list(ty[1].values())
    return None

"""Evaluation of expressions against a scope, with unknown values propagating.

References to resources are resolved lazily: ``terraform_data.a[count.index].id``
looks up exactly one instance instead of materialising the whole resource, so
expanding N instances that each reference one other instance stays linear.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.addrs import InstanceKey, ResourceAddr, resource_addr
from engine.diagnostics import Diagnostic, FunctionArityError, FunctionError, SourceRange, error
from engine.lang import expr as E
from engine.lang.convert import ConversionError, convert
from engine.lang.diagnostic_values import statements, traversals
from engine.lang.functions.registry import FUNCTIONS, PARAMS, signature
from engine.lang.number import (
    DECIMAL_CONTEXT,
    exact_decimal,
    number_from_decimal,
    to_decimal,
    to_number,
    to_string,
)
from engine.lang.quote import go_quote
from engine.values import UNKNOWN, ListVal, MapVal, SetVal, cty_equals, is_wholly_known, type_name


class EvalError(Exception):
    """An evaluation failure at a line; the caller adds the filename and address."""

    def __init__(self, summary: str, detail: str, line: int, values: tuple[str, ...] = ()) -> None:
        super().__init__(f"{summary}: {detail}")
        self.summary = summary
        self.detail = detail
        self.line = line
        self.values = values  # terraform's lines about the expression, under the source line
        self.expr: E.Expr | None = None  # the expression that failed, and where (terraform's FromExpr)
        self.scope: Scope | None = None

    def blame(self, e: E.Expr, scope: Scope) -> EvalError:
        """Name ``e`` (evaluated in ``scope``) as the expression that failed, unless an inner one is."""
        if self.expr is None:
            self.expr, self.scope = e, scope
        return self

    def error(self, subject: SourceRange | None = None, address: str | None = None,
              context: str | None = None) -> Diagnostic:
        """This failure as a diagnostic at ``subject``, with terraform's statements about the values
        of the references in the expression that failed."""
        said: tuple[tuple[str, str], ...] = ()
        scope = self.scope
        if self.expr is not None and scope is not None and scope.sensitivity is not None:
            said = statements(self.expr, lambda x: _val(x, scope), scope.sensitivity.hidden)
        return error(self.summary, self.detail, subject, address, context=context, values=self.values,
                     expr_values=said)


COUNT_OUTSIDE = ('The "count" object can only be used in "module", "resource", and "data" blocks, and only '
                 'when the "count" argument is set.')
EACH_OUTSIDE = ('The "each" object can be used only in "module" or "resource" blocks, and only when the '
                '"for_each" argument is set.')
# functions whose failures terraform reports as an unsuitable value for their first parameter
_ARGUMENT_ERRORS = frozenset({"tonumber", "tostring", "tobool", "tolist", "toset", "tomap", "lookup", "file", "one",
                              "filebase64", "filemd5", "filesha1", "filesha256", "filesha512"})
NO_ELEMENT = "The given key does not identify an element in this collection value."
BARE_TYPE = ("A reference to a resource type must be followed by at least one attribute access, specifying "
             "the resource name.")


class ResourceResolver(Protocol):
    """What the evaluator needs to know about resources (plan-time or apply-time values)."""

    def has_resource(self, addr: ResourceAddr) -> bool: ...

    def is_expanded(self, addr: ResourceAddr) -> bool:
        """True when the resource has ``count`` or ``for_each``."""
        ...

    def expansion(self, addr: ResourceAddr) -> str:
        """``"count"``, ``"for_each"`` or ``"single"``."""
        ...

    def instance_value(self, addr: ResourceAddr, key: InstanceKey) -> Any:
        """The object of one instance; raises KeyError when there is no such instance."""
        ...

    def resource_value(self, addr: ResourceAddr) -> Any:
        """The whole resource: an object, a tuple (count) or an object of objects (for_each)."""
        ...


@dataclass(slots=True)
class Scope:
    variables: dict[str, Any]
    local_value: Callable[[str, int], Any]
    resources: ResourceResolver
    count_index: int | None = None
    each: tuple[Any, Any] | None = None  # (key, value)
    for_vars: dict[str, Any] = field(default_factory=dict)
    sensitivity: Any = None
    """What may hold a sensitive value (an :class:`engine.sensitivity.Sensitivity`: ``hidden(root,
    names)``, ``uses(expr)``), so a diagnostic must not state it; None: state no value at all."""

    def child(self, names: dict[str, Any]) -> Scope:
        return Scope(self.variables, self.local_value, self.resources, self.count_index,
                     self.each, {**self.for_vars, **names}, self.sensitivity)


class _ResourceType:
    __slots__ = ("type", "mode")

    def __init__(self, type_: str, mode: str = "managed") -> None:
        self.type = type_
        self.mode = mode


class _ResourceRef:
    __slots__ = ("addr",)

    def __init__(self, addr: ResourceAddr) -> None:
        self.addr = addr


_RESERVED = {"var", "local", "count", "each", "path", "terraform", "self", "module", "data"}


def evaluate(e: E.Expr, scope: Scope) -> Any:
    """The value of ``e`` in ``scope``; raises :class:`EvalError` on a mistake."""
    return _val(e, scope)


def _val(e: E.Expr, scope: Scope) -> Any:
    v = _eval(e, scope)
    if isinstance(v, (_ResourceRef, _ResourceType)):
        return _materialize(v, scope, e.line)
    return v


def _materialize(v: Any, scope: Scope, line: int) -> Any:
    if isinstance(v, _ResourceRef):
        return scope.resources.resource_value(v.addr)
    if isinstance(v, _ResourceType):
        raise EvalError("Invalid reference", BARE_TYPE, line)
    return v


def _eval(e: E.Expr, scope: Scope) -> Any:  # noqa: C901 - dispatch on node type
    t = type(e)
    if t is E.Literal:
        return e.value  # type: ignore[attr-defined]
    if t is E.GetAttr:
        assert isinstance(e, E.GetAttr)
        base = _eval(e.obj, scope)
        try:
            return _get_attr(base, e.name, scope, e.line)
        except EvalError as exc:
            if not isinstance(base, (_Namespace, _ResourceType, _ResourceRef)):  # a value's, not a name's
                exc.blame(e, scope)
            raise
    if t is E.Index:
        assert isinstance(e, E.Index)
        base = _eval(e.obj, scope)
        try:
            return _index(base, _val(e.key, scope), scope, e.line)
        except EvalError as exc:
            if exc.summary != "Unexpected resource instance key":
                exc.blame(e, scope)
            raise
    if t is E.Var:
        assert isinstance(e, E.Var)
        return _var(e, scope)
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
            if v is None:
                raise EvalError("Invalid template interpolation value",
                                "The expression result is null. Cannot include a null value "
                                "in a string template.", p.line).blame(p, scope)
            if not isinstance(v, (int, float)):  # a bool; anything else cty cannot make a string of
                if not isinstance(v, bool):
                    raise EvalError("Invalid template interpolation value", "Cannot include the given value "
                                    "in a string template: string required.", p.line).blame(p, scope)
            out.append(to_string(v))
        return UNKNOWN if unknown else "".join(out)
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
        return _call(e, scope)
    if t is E.Binary:
        assert isinstance(e, E.Binary)
        return _binary(e, scope)
    if t is E.Unary:
        assert isinstance(e, E.Unary)
        v = _val(e.operand, scope)
        if v is UNKNOWN:
            return UNKNOWN
        try:
            if e.op == "!":
                if v is True or v is False:
                    return not v
                return not _bool(v, "unary operand", e.line)
            return -_num(v, e.line, "unary operand")
        except EvalError as exc:
            raise exc.blame(e.operand, scope) from None
    if t is E.Conditional:
        assert isinstance(e, E.Conditional)
        c = _val(e.cond, scope)
        if c is UNKNOWN:
            return UNKNOWN
        if not isinstance(c, bool):
            if c == "true" or c == "false":
                c = c == "true"
            else:
                raise EvalError("Incorrect condition type", "The condition expression must be of type bool.",
                                e.line).blame(e.cond, scope)
        return _val(e.true if c else e.false, scope)
    if t is E.Splat:
        assert isinstance(e, E.Splat)
        return _splat(e, scope)
    if t is E.SplatItem:
        return scope.for_vars["\0splat"]
    if t is E.ForExpr:
        assert isinstance(e, E.ForExpr)
        return _for(e, scope)
    raise EvalError("Unsupported expression", f"{t.__name__} is not supported", e.line)


def _var(e: E.Var, scope: Scope) -> Any:
    name = e.name
    if name in scope.for_vars:
        return scope.for_vars[name]
    if name == "var":
        return _Namespace("var")
    if name == "local":
        return _Namespace("local")
    if name == "count":
        return _Namespace("count")
    if name == "each":
        return _Namespace("each")
    if name == "data":
        return _Namespace("data")
    if name == "path":
        return _Namespace("path")
    if name in _RESERVED:
        raise EvalError("Unsupported reference", f'References to "{name}" are not supported yet.', e.line)
    return _ResourceType(name)


class _Namespace:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


def _get_attr(obj: Any, name: str, scope: Scope, line: int) -> Any:
    if type(obj) is dict:
        if name in obj:
            return obj[name]
        raise EvalError("Unsupported attribute", f'This object does not have an attribute named "{name}".', line)
    if isinstance(obj, _Namespace):
        return _namespace_attr(obj.name, name, scope, line)
    if isinstance(obj, _ResourceType):
        addr = resource_addr(obj.type, name, obj.mode)
        if not scope.resources.has_resource(addr):
            what = "data resource" if obj.mode == "data" else "managed resource"
            raise EvalError("Reference to undeclared resource",
                            f'A {what} "{obj.type}" "{name}" has not been declared in the root module.', line)
        return _ResourceRef(addr)
    if isinstance(obj, _ResourceRef):
        if scope.resources.is_expanded(obj.addr):
            kind = scope.resources.expansion(obj.addr)
            key = "count.index" if kind == "count" else "each.key"
            raise EvalError("Missing resource instance key",
                            f'Because {obj.addr} has "{kind}" set, its attributes must be accessed on specific '
                            "instances.\n\nFor example, to correlate with indices of a referring resource, use:"
                            f"\n    {obj.addr}[{key}]", line)
        try:
            value = scope.resources.instance_value(obj.addr, None)
        except KeyError:  # it could not be planned (an error says why): nothing about it is known
            return UNKNOWN
        if type(value) is dict and name not in value:  # terraform's words for a resource's schema
            raise EvalError("Unsupported attribute", "This object has no argument, nested block, or exported "
                            f'attribute named "{name}".', line)
        return _get_attr(value, name, scope, line)
    if obj is UNKNOWN:
        return UNKNOWN
    if isinstance(obj, dict):  # MapVal
        if name in obj:
            return obj[name]
        raise EvalError("Unsupported attribute", f'This map does not have an element with the key "{name}".', line)
    if obj is None:
        raise EvalError("Attempt to get attribute from null value",
                        "This value is null, so it does not have any attributes.", line)
    if isinstance(obj, (str, int, float, bool)):
        raise EvalError("Unsupported attribute",
                        f"Can't access attributes on a primitive-typed value ({type_name(obj)}).", line)
    raise EvalError("Unsupported attribute", f"Can't access attributes on a value of type {type_name(obj)}.", line)


def _namespace_attr(ns: str, name: str, scope: Scope, line: int) -> Any:
    if ns == "var":
        if name not in scope.variables:
            raise EvalError("Reference to undeclared input variable",
                            f'An input variable with the name "{name}" has not been declared.', line)
        return scope.variables[name]
    if ns == "local":
        return scope.local_value(name, line)
    if ns == "count":
        if name != "index":
            raise EvalError("Invalid \"count\" attribute", f'The "count" object has no attribute "{name}"; '
                            'only "count.index" exists.', line)
        if scope.count_index is None:
            raise EvalError("Reference to \"count\" in non-counted context", COUNT_OUTSIDE, line)
        return scope.count_index
    if ns == "each":
        if scope.each is None:
            raise EvalError("Reference to \"each\" in context without for_each", EACH_OUTSIDE, line)
        if name == "key":
            return scope.each[0]
        if name == "value":
            return scope.each[1]
        raise EvalError("Invalid \"each\" attribute", f'The "each" object has no attribute "{name}".', line)
    if ns == "data":
        return _ResourceType(name, "data")
    if ns == "path":
        if name in ("module", "root", "cwd"):
            return "."
        raise EvalError("Invalid \"path\" attribute", f'The "path" object has no attribute "{name}".', line)
    raise EvalError("Invalid reference", ns, line)


def _index(obj: Any, key: Any, scope: Scope, line: int) -> Any:
    if isinstance(obj, _ResourceRef):
        if not scope.resources.is_expanded(obj.addr):
            raise EvalError("Unexpected resource instance key",
                            f'Because {obj.addr} does not have "count" or "for_each" set, references to it must '
                            "not include an index key. Remove the bracketed index to refer to the single "
                            "instance of this resource.", line)
        if key is UNKNOWN:
            return UNKNOWN
        if key is None:
            raise EvalError("Invalid index", "Can't use a null value as an indexing key.", line)
        if isinstance(key, float) and key.is_integer():
            key = int(key)
        try:
            return scope.resources.instance_value(obj.addr, key)
        except KeyError:
            raise EvalError("Invalid index", NO_ELEMENT, line) from None
    obj = _materialize(obj, scope, line)
    if obj is UNKNOWN or key is UNKNOWN:
        return UNKNOWN
    if key is None:
        raise EvalError("Invalid index", "Can't use a null value as an indexing key.", line)
    if obj is None:
        raise EvalError("Attempt to index null value", "This value is null, so it does not have any indices.",
                        line)
    if isinstance(obj, dict):
        k = to_string(key) if not isinstance(key, str) else key
        if k in obj:
            return obj[k]
        raise EvalError("Invalid index", NO_ELEMENT, line)
    if isinstance(obj, SetVal):
        raise EvalError("Invalid index", "Elements of a set are identified only by their value and don't "
                        "have any separate index or key to select with, so it's only possible to perform "
                        "operations across all elements of the set.", line)
    if isinstance(obj, tuple):
        try:
            n = to_number(key)
        except FunctionError:
            raise EvalError("Invalid index", f"A number is required to index a {type_name(obj)}, "
                            f"not {type_name(key)}.", line) from None
        if type(n) is int:
            i = n
        elif n.is_integer():
            i = int(n)
        else:
            raise EvalError("Invalid index", "The given key does not identify an element in this collection "
                            "value: indexing a sequence requires a whole number, but the given index has a "
                            "fractional part.", line)
        if 0 <= i < len(obj):
            return obj[i]
        raise EvalError("Invalid index", NO_ELEMENT, line)
    raise EvalError("Invalid index", f"This value does not have any indices ({type_name(obj)}).", line)


def _splat(e: E.Splat, scope: Scope) -> Any:
    obj = _val(e.obj, scope)
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
        out.append(_val(e.each, inner))
    if isinstance(obj, ListVal) or isinstance(obj, SetVal):
        return ListVal(out)
    return tuple(out)


def _for(e: E.ForExpr, scope: Scope) -> Any:
    coll = _val(e.collection, scope)
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
                c = _val(e.cond, inner)
                if c is UNKNOWN:
                    return UNKNOWN
                if not c:
                    continue
            result.append(_val(e.value, inner))
        return tuple(result)
    obj: dict[str, Any] = {}
    for k, v in pairs:
        inner = scope.child({e.value_var: v, **({e.key_var: k} if e.key_var else {})})
        if e.cond is not None:
            c = _val(e.cond, inner)
            if c is UNKNOWN:
                return UNKNOWN
            if not c:
                continue
        key = _val(e.key, inner)
        if key is UNKNOWN:
            return UNKNOWN
        key = to_string(key)
        val = _val(e.value, inner)
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


def _num(v: Any, line: int, operand: str = "") -> Any:
    try:
        return to_number(v)
    except FunctionError as exc:
        if operand:  # terraform's words: the value is converted as cty converts it
            try:
                convert(v, "number")
            except ConversionError as cexc:
                raise EvalError("Invalid operand", f"Unsuitable value for {operand}: {cexc.cty_text}",
                                line) from None
        raise EvalError("Invalid operand", str(exc), line) from None


def _bool(v: Any, what: str, line: int) -> bool:
    if v is True or v is False:
        return v
    if v == "true" or v == "false":  # strings convert, as cty converts operands
        return v == "true"
    try:
        convert(v, "bool")
    except ConversionError as exc:  # terraform's words: what cty says converting it
        raise EvalError("Invalid operand", f"Unsuitable value for {what}: {exc.cty_text}", line) from None
    raise EvalError("Invalid operand", f"Unsuitable value for {what}: bool required.", line)


_SCALARS = (str, int, bool)


def _binary(e: E.Binary, scope: Scope) -> Any:
    op = e.op
    left = _val(e.left, scope)
    if op in ("&&", "||"):
        right = _val(e.right, scope)
        if left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        if not (left is True or left is False) or not (right is True or right is False):
            left = _operand(_bool, left, "left operand", e.line, e.left, scope)
            right = _operand(_bool, right, "right operand", e.line, e.right, scope)
        return (left and right) if op == "&&" else (left or right)
    right = _val(e.right, scope)
    if left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    if op == "==" or op == "!=":
        tl = type(left)
        if tl is type(right) and tl in _SCALARS:
            eq: Any = left == right
        else:
            eq = cty_equals(left, right)
            if eq is UNKNOWN:
                return UNKNOWN
        return eq if op == "==" else not eq
    a = _operand(_num, left, "left operand", e.line, e.left, scope)
    b = _operand(_num, right, "right operand", e.line, e.right, scope)
    if op in _ARITH:
        if type(a) is int and type(b) is int:
            if op == "+":
                return a + b
            if op == "-":
                return a - b
        return _arith(op, a, b, e.line)
    if op == "<":
        return a < b
    if op == ">":
        return a > b
    if op == "<=":
        return a <= b
    if op == ">=":
        return a >= b
    raise EvalError("Unsupported operator", op, e.line)


_ARITH = frozenset(("+", "-", "*", "/", "%"))


def _operand(check: Callable[..., Any], v: Any, what: str, line: int, e: E.Expr, scope: Scope) -> Any:
    """``check`` (:func:`_num` or :func:`_bool`) of an operand's value; a failure blames the operand."""
    if type(v) is int and check is _num:
        return v
    try:
        return check(v, line, what) if check is _num else check(v, what, line)
    except EvalError as exc:
        raise exc.blame(e, scope) from None


def _arith(op: str, a: Any, b: Any, line: int) -> Any:
    """Arithmetic as cty does it: exact on whole numbers, decimal on fractions (so
    ``0.1 + 0.2`` is ``0.3``), and ``%`` taking the sign of the dividend."""
    if (op == "/" or op == "%") and b == 0:
        raise EvalError("Invalid operand", "Can't divide by zero." if op == "/" else
                        "Can't use modulo by zero.", line)
    if type(a) is int and type(b) is int:
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "%":
            r = abs(a) % abs(b)
            return -r if a < 0 else r
        q, r = divmod(a, b)
        if r == 0:
            return q
    try:
        da, db = exact_decimal(a), exact_decimal(b)
        if da is None or db is None:
            return _float_arith(op, a, b)
        if op == "+":
            d = DECIMAL_CONTEXT.add(da, db)
        elif op == "-":
            d = DECIMAL_CONTEXT.subtract(da, db)
        elif op == "*":
            d = DECIMAL_CONTEXT.multiply(da, db)
        elif op == "/":
            d = DECIMAL_CONTEXT.divide(da, db)
        else:
            d = DECIMAL_CONTEXT.remainder(da, db)
        return number_from_decimal(d)
    except (ArithmeticError, ValueError, FunctionError):
        raise EvalError("Invalid operand", f"The result of {op} is out of range.", line) from None


def _float_arith(op: str, a: Any, b: Any) -> Any:
    # an operand is the inexact result of an earlier division: binary arithmetic keeps
    # more of its value (2/3*3 is 2) than its shortest decimal digits would
    x, y = float(a), float(b)
    if op == "+":
        r = x + y
    elif op == "-":
        r = x - y
    elif op == "*":
        r = x * y
    elif op == "/":
        r = x / y
    else:
        r = math.fmod(x, y)
    if r.is_integer():
        return number_from_decimal(to_decimal(r))
    if math.isinf(r) or math.isnan(r):
        raise ArithmeticError("out of range")
    return r


def _call(e: E.Call, scope: Scope) -> Any:
    if e.name == "try" or e.name == "can":  # their arguments are expressions, evaluated one by one
        return _try(e, scope)
    fn = FUNCTIONS.get(e.name)
    if fn is None:
        raise EvalError("Call to unknown function", f'There is no function named "{e.name}".', e.line)
    args = [_val(a, scope) for a in e.args]
    if e.expand_final and args:
        last = args.pop()
        if last is UNKNOWN:
            return UNKNOWN
        if not isinstance(last, tuple):
            raise EvalError("Invalid expanding argument value",
                            "The expanding argument (indicated by ...) must be of a tuple, list, or set type.",
                            e.line)
        args.extend(last)
    try:
        return fn(*args)
    except FunctionArityError as exc:
        raise EvalError(exc.summary, str(exc), e.line,
                        (f"while calling {signature(e.name)}",)).blame(e, scope) from None
    except FunctionError as exc:
        calling = (f"while calling {signature(e.name)}",)
        message = _redacted(e, args, str(exc).rstrip("."), scope)
        if e.name in _ARGUMENT_ERRORS:  # terraform's: the value given for its first parameter is unsuitable
            raise EvalError("Invalid function argument", f'Invalid value for "{PARAMS[e.name][0][0]}" '
                            f"parameter: {message[:1].lower()}{message[1:]}.", e.line,
                            calling).blame(e.args[0] if e.args else e, scope) from None
        raise EvalError("Error in function call", f'Call to function "{e.name}" failed: {message}.', e.line,
                        calling).blame(e, scope) from None
    except TypeError as exc:
        raise EvalError("Invalid function arguments", f"{e.name}: {exc}", e.line) from None


def _redacted(e: E.Call, args: list[Any], message: str, scope: Scope) -> str:
    """A function's error message with no sensitive argument's value in it (terraform's words for
    its conversions; elsewhere ``(sensitive value)`` where the value was quoted)."""
    sens = scope.sensitivity
    if sens is None:
        return message
    marked = [v for a, v in zip(e.args, args, strict=False) if sens.uses(a)]
    if not marked:
        return message
    if e.name in ("tonumber", "tobool") and isinstance(marked[0], str):
        return f"cannot convert this sensitive string to {e.name[2:]}"
    for v in marked:
        if isinstance(v, str) and v:
            message = message.replace(go_quote(v), "(sensitive value)").replace(v, "(sensitive value)")
    return message


def _try(e: E.Call, scope: Scope) -> Any:
    """terraform's ``try(expressions...)`` (the first argument that evaluates without an error) and
    ``can(expression)`` (whether it does). Either is unknown while an argument it gets to refers to an
    unknown value: whether it would fail is not known yet."""
    calling = (f"while calling {signature(e.name)}",)
    if e.name == "can" and len(e.args) != 1:
        summary = "Not enough function arguments" if not e.args else "Too many function arguments"
        detail = ('Function "can" expects 1 argument(s). Missing value for "expression".' if not e.args else
                  'Function "can" expects only 1 argument(s).')
        raise EvalError(summary, detail, e.line, calling).blame(e, scope)
    if not e.args:
        raise EvalError("Error in function call", 'Call to function "try" failed: at least one argument is '
                        "required.", e.line, calling).blame(e, scope)
    failures: list[EvalError] = []
    for arg in e.args:
        if _depends_on_unknowns(arg, scope):
            return UNKNOWN
        try:
            v = _val(arg, scope)
        except EvalError as exc:
            if exc.summary == "Call to unknown function":  # a function strata lacks: not for try to hide
                raise
            failures.append(exc)
            continue
        return True if e.name == "can" else v
    if e.name == "can":
        return False
    listed = "".join(f"\n- {f.summary} (at line {f.line})\n  {f.detail}" for f in failures)
    raise EvalError("Error in function call", f'Call to function "try" failed: no expression succeeded:{listed}'
                    "\n\nAt least one expression must produce a successful result.", e.line, calling).blame(e, scope)


def _depends_on_unknowns(e: E.Expr, scope: Scope) -> bool:
    for t in traversals(e, frozenset()):
        while True:
            try:
                v = _val(t, scope)
            except EvalError:
                if isinstance(t, E.Var):
                    break
                t = t.obj  # type: ignore[attr-defined]  # the longest prefix that evaluates
                continue
            if not is_wholly_known(v):
                return True
            break
    return False


__all__ = ["EvalError", "ResourceResolver", "Scope", "evaluate", "MapVal"]

"""The scope an expression is evaluated in, and what the names in it refer to.

A :class:`Scope` holds the input variables, the local values (computed on demand), the resources
(behind a :class:`ResourceResolver`) and the names that ``count``, ``for_each``, ``for`` and splat
expressions bind. References to resources are resolved lazily: ``terraform_data.a[count.index].id``
looks up exactly one instance instead of materialising the whole resource, so expanding N
instances that each reference one other instance stays linear. Until an attribute or an index
picks something out, a traversal's value is a :class:`Namespace` (``var``, ``local``, ...), a
:class:`ResourceType` (``terraform_data``) or a :class:`ResourceRef` (``terraform_data.a``);
:func:`materialize` turns a whole resource into its value.

:class:`EvalError` is the one error evaluation raises.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.addrs import InstanceKey, ResourceAddr, resource_addr
from engine.diagnostics import (
    Diagnostic,
    FunctionError,
    SourceRange,
    StrataError,
    error,
    name_suggestion,
)
from engine.lang import expr as E
from engine.lang.diagnostic_values import statements
from engine.lang.number import to_number, to_string
from engine.values import UNKNOWN, ObjectVal, SetVal, type_name


class EvalError(StrataError):
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
            hidden = scope.sensitivity.hidden

            def withheld(root: str, names: tuple[str, ...]) -> bool:  # sensitive, or ephemeral as terraform's
                return hidden(root, names) or (root == "terraform" and names[:1] == ("applying",))

            said = statements(self.expr, lambda x: reference_value(x, scope), withheld)
        return error(self.summary, self.detail, subject, address, context=context, values=self.values,
                     expr_values=said)


COUNT_OUTSIDE = ('The "count" object can only be used in "module", "resource", and "data" blocks, and only '
                 'when the "count" argument is set.')
EACH_OUTSIDE = ('The "each" object can be used only in "module" or "resource" blocks, and only when the '
                '"for_each" argument is set.')
NO_ELEMENT = "The given key does not identify an element in this collection value."
BARE_TYPE = ("A reference to a resource type must be followed by at least one attribute access, specifying "
             "the resource name.")


TERRAFORM_ATTRIBUTE = ('The "terraform" object does not have an attribute named "{name}". The only supported '
                       "attributes are terraform.workspace, the name of the currently-selected workspace, and "
                       "terraform.applying, a boolean which is true only during apply.")


@dataclass(slots=True)
class RunFacts:
    """What ``terraform.workspace`` says: a fact of the whole run, not of any one scope, set by the
    command line and by each operation as it takes its state (:func:`set_workspace`), before
    anything is evaluated. One per process: operations on different workspaces in one process run
    one after the other, not at the same time."""

    workspace: str = "default"


_RUN = RunFacts()


def set_workspace(name: str) -> None:
    """The workspace this run works in, as ``terraform.workspace`` gives it."""
    _RUN.workspace = name


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
    local_config: Callable[[str], Any] | None = None
    """``local.NAME``'s declaration (a :class:`engine.config.model.LocalConfig`, or None), where the
    scope's locals are a module's: what :mod:`engine.lang.refinements` reads of an unknown local."""

    def child(self, names: dict[str, Any]) -> Scope:
        return Scope(self.variables, self.local_value, self.resources, self.count_index,
                     self.each, {**self.for_vars, **names}, self.sensitivity, self.local_config)


class ResourceType:
    __slots__ = ("type", "mode")

    def __init__(self, type_: str, mode: str = "managed") -> None:
        self.type = type_
        self.mode = mode


class ResourceRef:
    __slots__ = ("addr",)

    def __init__(self, addr: ResourceAddr) -> None:
        self.addr = addr


_RESERVED = {"var", "local", "count", "each", "path", "terraform", "self", "module", "data"}


def materialize(v: Any, scope: Scope, line: int) -> Any:
    if isinstance(v, ResourceRef):
        return scope.resources.resource_value(v.addr)
    if isinstance(v, ResourceType):
        raise EvalError("Invalid reference", BARE_TYPE, line)
    return v


def variable(e: E.Var, scope: Scope) -> Any:
    name = e.name
    if name in scope.for_vars:
        return scope.for_vars[name]
    if name == "var":
        return Namespace("var")
    if name == "local":
        return Namespace("local")
    if name == "count":
        return Namespace("count")
    if name == "each":
        return Namespace("each")
    if name == "data":
        return Namespace("data")
    if name == "path":
        return Namespace("path")
    if name == "terraform":
        return Namespace("terraform")
    if name == "module":
        return Namespace("module")
    if name in _RESERVED:
        raise EvalError("Unsupported reference", f'References to "{name}" are not supported yet.', e.line)
    return ResourceType(name)


class Namespace:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


def get_attr(obj: Any, name: str, scope: Scope, line: int) -> Any:
    if type(obj) is dict or type(obj) is ObjectVal:
        if name in obj:
            return obj[name]
        raise EvalError("Unsupported attribute", f'This object does not have an attribute named "{name}".', line)
    if isinstance(obj, Namespace):
        return _namespace_attr(obj.name, name, scope, line)
    if isinstance(obj, ResourceType):
        addr = resource_addr(obj.type, name, obj.mode)
        if not scope.resources.has_resource(addr):
            what = "data resource" if obj.mode == "data" else "managed resource"
            raise EvalError("Reference to undeclared resource",
                            f'A {what} "{obj.type}" "{name}" has not been declared in the root module.', line)
        return ResourceRef(addr)
    if isinstance(obj, ResourceRef):
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
        if (type(value) is dict or type(value) is ObjectVal) and name not in value:  # terraform's words for a resource's schema
            suggestion = name_suggestion(name, sorted(value))
            mean = f' Did you mean "{suggestion}"?' if suggestion else ""
            raise EvalError("Unsupported attribute", "This object has no argument, nested block, or exported "
                            f'attribute named "{name}".{mean}', line)
        return get_attr(value, name, scope, line)
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
            suggestion = name_suggestion(name, sorted(scope.variables))
            mean = f' Did you mean "{suggestion}"?' if suggestion else (
                f' This variable can be declared with a variable "{name}" {{}} block.')
            raise EvalError("Reference to undeclared input variable",
                            f'An input variable with the name "{name}" has not been declared.{mean}', line)
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
        return ResourceType(name, "data")
    if ns == "path":
        if name == "module":  # a module's own directory, from the root's (a resolver of a module says)
            return getattr(scope.resources, "module_dir", ".")
        if name == "root":
            return "."  # the root module's directory, relative to the working directory
        if name == "cwd":
            return os.getcwd()
        raise EvalError("Invalid \"path\" attribute", f'The "path" object does not have an attribute named "{name}".',
                        line)
    if ns == "terraform":
        if name == "workspace":
            return _RUN.workspace
        if name == "applying":  # true only while apply evaluates (ephemeral: engine.lang.ephemerality)
            from engine.lang.functions.timestamps import CLOCK

            return CLOCK.get().applying
        raise EvalError("Invalid \"terraform\" attribute", TERRAFORM_ATTRIBUTE.format(name=name), line)
    if ns == "module":
        # the outputs of a module call's instances: only a resolver of a module instance knows them
        call = getattr(scope.resources, "module_call", None)
        if call is None:
            raise EvalError("Reference to undeclared module",
                            f'No module call named "{name}" is declared in the root module.', line)
        return call(name, line)
    raise EvalError("Invalid reference", ns, line)


def get_index(obj: Any, key: Any, scope: Scope, line: int) -> Any:
    if isinstance(obj, ResourceRef):
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
    obj = materialize(obj, scope, line)
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


Evaluator = Callable[[E.Expr, Scope], Any]
"""How an expression's parts are evaluated (``engine.lang.evaluate``'s), handed to the modules
that evaluate an expression's parts (operators, calls, ``for`` and splat expressions)."""


def reference_value(e: E.Expr, scope: Scope) -> Any:
    """The value of a static traversal (``var.a``, ``local.l[0]``, ``terraform_data.a["k"].id``:
    a name, attributes and constant keys) in ``scope``, as :func:`engine.lang.evaluate.evaluate`
    gives it; raises :class:`EvalError` where it does."""
    return materialize(_traverse(e, scope), scope, e.line)


def _traverse(e: E.Expr, scope: Scope) -> Any:
    if isinstance(e, E.GetAttr):
        return get_attr(_traverse(e.obj, scope), e.name, scope, e.line)
    if isinstance(e, E.Index) and isinstance(e.key, E.Literal):
        return get_index(_traverse(e.obj, scope), e.key.value, scope, e.line)
    if isinstance(e, E.Var):
        return variable(e, scope)
    raise EvalError("Invalid reference", "A static traversal is required here.", e.line)

"""``replace_triggered_by``: whether an instance must be replaced because of what is planned for
the resources its ``lifecycle`` names, as terraform 1.11 decides it (``replaceTriggered`` and
``EvaluateReplaceTriggeredBy``).

Each item becomes, for the instance being planned, a static reference (its ``count.index`` and
``each.key`` replaced by the instance's key): a whole resource, one instance, or an attribute
path inside one. The items are tried in order, and the first that triggers replaces the instance
(reason ``replace_by_triggers``, whatever else would have replaced it):

- a whole resource or instance triggers when one of its planned changes is an update or a
  replacement (a create, a delete or a no-op does not);
- an attribute path triggers when its instance is updated or replaced and the value at the path
  differs between the change's before and after values (becoming unknown is a difference; a
  path that leads nowhere on both sides is not).

The resources named are planned first (the configuration graph has the edge), so their changes
are in the plan when an instance asks. Pure functions of the plan so far and the prior state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.addrs import InstanceAddr, ModulePath, ResourceAddr, format_key, resource_addr
from engine.config.model import Module
from engine.diagnostics import Diagnostic, SourceRange, error
from engine.frozen import frozen
from engine.lang import expr as E
from engine.plans.plan import Action, ResourceInstanceChange
from engine.state.model import State
from engine.values import UNKNOWN, equal

TRIGGERING = frozenset({Action.UPDATE, *Action.REPLACES})
"""The planned actions of a referenced instance that trigger a replacement."""

_STATIC_INDEX = ("A single static variable reference is required: only attribute access and indexing with "
                 "constant keys. No calculations, function calls, template expressions, etc are allowed here.")
_INDEX_KEYS = "Only constant values, count.index or each.key are allowed in index expressions."

WHOLE: Any = object()
"""The ``key`` of a reference to a whole resource (no instance key given)."""

_MISSING: Any = object()  # where a path leads nowhere (cty's NilVal), unlike a null value


@frozen
class TriggerRef:
    """One item of ``replace_triggered_by`` for one instance: the resource (as the module instance
    has it), the instance ``key`` (:data:`WHOLE`: the reference is to the resource alone; an
    attribute of a resource without a key is of its instance without one, as terraform's
    ``ParseRef`` has it) and the attribute ``path`` after it
    (``("attr", name)`` and ``("index", key)`` steps; empty: the object itself). ``subject`` is how
    terraform names what it refers to in a diagnostic: ``terraform_data.a[0]``."""

    resource: ResourceAddr
    key: Any
    path: tuple[tuple[str, Any], ...]
    subject: str


def trigger_reference(item: E.Expr, filename: str, count_index: int | None, each_key: str | None,
                      module_path: ModulePath) -> TriggerRef | Diagnostic:
    """``item`` as a static reference for the instance whose repetition keys are ``count_index``
    and ``each_key`` (None: the resource has no such argument); a diagnostic when it is not one."""
    steps: list[tuple[str, Any]] = []
    e = item
    while True:  # from the end of the traversal back to its root
        if isinstance(e, E.GetAttr):
            steps.append(("attr", e.name))
            e = e.obj
        elif isinstance(e, E.Index):
            k = _index_key(e.key, filename, count_index, each_key)
            if isinstance(k, Diagnostic):
                return k
            steps.append(("index", k))
            e = e.obj
        elif isinstance(e, E.Var):
            steps.append(("attr", e.name))
            break
        else:
            return error("Invalid replace_triggered_by expression",
                         "Unexpected expression found in replace_triggered_by.", SourceRange(filename, e.line))
    steps.reverse()
    names = [v if kind == "attr" else None for kind, v in steps]
    if names[0] == "data":
        addr, rest = resource_addr(str(names[1]), str(names[2]), "data"), steps[3:]
    else:
        addr, rest = resource_addr(str(names[0]), str(names[1])), steps[2:]
    instance: Any = WHOLE  # terraform_data.a: the whole resource
    if rest and rest[0][0] == "index":
        instance, rest = rest[0][1], rest[1:]
    elif rest:  # terraform_data.a.output: the instance without a key (of a counted resource: none)
        instance = None
    subject = str(addr) + ("" if instance is WHOLE else format_key(instance))
    abs_addr = resource_addr(addr.type, addr.name, addr.mode, module_path) if module_path.steps else addr
    return TriggerRef(abs_addr, instance, tuple(rest), subject)


def _index_key(key: E.Expr, filename: str, count_index: int | None, each_key: str | None) -> Any:
    """The key of an index step: a constant, or ``count.index`` / ``each.key`` as this instance
    has them (terraform's ``parseReplaceTriggeredByKeyExpr``); a diagnostic otherwise."""
    where = SourceRange(filename, key.line)
    if isinstance(key, E.Literal):
        v = key.value
        return int(v) if isinstance(v, float) and v.is_integer() else v
    if isinstance(key, E.Template) and all(isinstance(p, str) for p in key.parts):
        return "".join(str(p) for p in key.parts)
    names: list[str] = []
    indexed = False  # a traversal with an index in it: not the key terraform allows
    e: E.Expr = key
    while isinstance(e, (E.GetAttr, E.Index)):
        if isinstance(e, E.GetAttr):
            names.append(e.name)
        elif isinstance(e.key, E.Literal):
            indexed = True
        else:
            return error("Invalid expression", _STATIC_INDEX, where)
        e = e.obj
    if not isinstance(e, E.Var):
        return error("Invalid expression", _STATIC_INDEX, where)
    if indexed:
        return error("Invalid index expression", _INDEX_KEYS, where)
    names.append(e.name)
    names.reverse()
    text = ".".join(names)
    if text == "count.index":
        if count_index is None:
            return error('Reference to "count" in non-counted context',
                         'The "count" object can only be used in "resource" blocks when the "count" argument '
                         "is set.", where)
        return count_index
    if text == "each.key":
        if each_key is None:
            return error('Reference to "each" in context without for_each',
                         'The "each" object can be used only in "resource" blocks when the "for_each" '
                         "argument is set.", where)
        return each_key
    return error("Invalid index expression", _INDEX_KEYS, where)


ChangesByResource = Mapping[ResourceAddr, Sequence[ResourceInstanceChange]]
"""The changes planned so far, by resource, current objects' first (in the order planned)."""


def changes_by_resource(changes: Sequence[ResourceInstanceChange]) -> dict[ResourceAddr, list[ResourceInstanceChange]]:
    """``changes`` grouped by resource, each resource's current objects' changes first."""
    out: dict[ResourceAddr, list[ResourceInstanceChange]] = {}
    for c in changes:
        out.setdefault(c.addr.resource, []).append(c)
    for cs in out.values():
        cs.sort(key=lambda c: c.deposed is not None)
    return out


def module_display(path: ModulePath) -> str:
    """terraform's ``moduleDisplayAddr``: ``the root module`` or ``module.a[0]``."""
    return str(path) if path.steps else "the root module"


def triggered(items: Sequence[E.Expr], filename: str, count_index: int | None,
              each_key: str | None, module: Module, module_path: ModulePath, changes: ChangesByResource,
              state: State) -> tuple[bool, list[Diagnostic]]:
    """Must the instance whose keys are ``count_index`` and ``each_key`` be replaced because of the ``replace_triggered_by`` items
    ``items`` (of a resource declared in ``module``, in its instance ``module_path``), given the
    ``changes`` planned so far? And the mistakes found on the way (the first item in error stops
    the search, as terraform's)."""
    for item in items:
        ref = trigger_reference(item, filename, count_index, each_key, module_path)
        if isinstance(ref, Diagnostic):
            return False, [ref]
        local = resource_addr(ref.resource.type, ref.resource.name, ref.resource.mode)
        if local not in module.resources:
            return False, [error("Reference to undeclared resource",
                                 f"A resource {ref.subject} has not been declared in {module_display(module_path)}",
                                 SourceRange(filename, item.line))]
        found = _changes_of(ref, changes, state)
        if found is None:
            return False, [error(f"no change found for {ref.subject} in {module_display(module_path)}")]
        if fires(ref, found):
            return True, []
    return False, []


def _changes_of(ref: TriggerRef, changes: ChangesByResource, state: State) -> list[ResourceInstanceChange] | None:
    """The planned changes ``ref`` looks at (what the state has of a managed resource that is not
    in configuration any more is planned for deletion later, and stands as a change that
    triggers nothing); None when there is none, which terraform reports as an error (for a data
    source, unless its read waits for apply: one read while planning is no change)."""
    planned = list(changes.get(ref.resource, ()))
    if ref.key is not WHOLE:
        planned = [c for c in planned if c.addr.key == ref.key and c.deposed is None]
    if planned:
        return planned
    rs = state.resources.get(ref.resource) if ref.resource.mode == "managed" else None
    if rs is None:
        return None
    if ref.key is WHOLE:
        return [] if any(i.current is not None or i.deposed for i in rs.instances.values()) else None
    inst = rs.instances.get(ref.key)
    return [] if inst is not None and inst.current is not None else None


def fires(ref: TriggerRef, changes: Sequence[ResourceInstanceChange]) -> bool:
    """Does a reference with these planned changes trigger the replacement (see the module's
    docstring)? ``changes``: all of a whole resource's, or the one of the instance named."""
    if not ref.path:
        return any(c.action in TRIGGERING for c in changes)
    if not changes or changes[0].action not in TRIGGERING:
        return False  # one instance (terraform looks at the first change only)
    before, after = value_at(changes[0].before, ref.path), value_at(changes[0].after, ref.path)
    if before is _MISSING or after is _MISSING:
        return before is not after
    return not equal(before, after)


def value_at(v: Any, path: Sequence[tuple[str, Any]]) -> Any:
    """The value at ``path`` in ``v``, as cty's ``Path.Apply`` finds it: unknown inside an unknown
    value, :data:`_MISSING` where the path leads nowhere (through a null, a missing attribute or
    key, an index out of range)."""
    for kind, step in path:
        if v is UNKNOWN:
            return UNKNOWN
        if isinstance(v, dict):
            if not isinstance(step, str) or step not in v:
                return _MISSING
            v = v[step]
        elif isinstance(v, tuple) and kind == "index" and isinstance(step, int) and not isinstance(step, bool) \
                and 0 <= step < len(v):
            v = v[step]
        else:
            return _MISSING
    return v


def instance_of(addr: InstanceAddr) -> tuple[int | None, str | None]:
    """The ``count.index`` and ``each.key`` an instance's references see (None: not set)."""
    key = addr.key
    if isinstance(key, int):
        return key, None
    if isinstance(key, str):
        return None, key
    return None, None

"""``relevant_attributes`` of terraform's JSON plan: the resource attributes that contributed,
directly or through named values, to a change the plan makes (what drift in them could change).

terraform's heuristic (its ``globalref`` analyzer), followed here:

- the starting references are those of every resource instance change that is not a no-op (every
  reference in its resource's configuration body; not ``count``, ``for_each``, ``depends_on`` or
  ``lifecycle``) and of every output change that is not a no-op (a root output's own action; a
  module output is always created, its state having no value before);
- each reference is then followed: a local value to its expression's references, an input
  variable to its module call's argument, a module output to its expression (a module call as a
  whole to every output), a resource to its configuration (to the one attribute the reference
  names when it names one the configuration sets, to nothing when it names one it does not set,
  to the whole body otherwise); ``count``, ``each``, ``path``, ``self`` and ``terraform`` lead
  nowhere;
- every reference to a resource met on the way is a relevant attribute: the resource (the
  instance when the reference has a constant key), and the static path the reference continues
  with (names and constant keys, up to a splat or a key that is not constant).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine.addrs import ROOT, ModulePath, ResourceAddr, format_key
from engine.config.model import Module, ResourceConfig
from engine.frozen import frozen
from engine.lang import expr as E
from engine.plans.plan import Action, Plan
from engine.values import equal, is_wholly_known

_NOWHERE = frozenset({"count", "each", "path", "self", "terraform"})
Located = tuple[ModulePath, E.Reference]


@frozen
class _Key:
    """A constant key in a traversal (``[0]``, ``["a"]``), told apart from an attribute name."""

    value: str | int


Step = str | _Key


def _static(steps: tuple[str | E.Expr, ...]) -> list[Step]:
    """The steps as terraform's traversal has them: names and constant keys, up to the first
    step that is neither (a splat or a key computed)."""
    out: list[Step] = []
    for s in steps:
        if isinstance(s, str):
            out.append(s)
        elif isinstance(s, E.Literal) and isinstance(s.value, (int, str)) and not isinstance(s.value, bool):
            out.append(_Key(s.value))
        else:
            break
    return out


def _resource_parts(ref: E.Reference) -> tuple[ResourceAddr, list[Step]] | None:
    """The resource a reference names (within its module) and the static steps after its name."""
    if ref.root in ("var", "local", "module") or ref.root in _NOWHERE:
        return None
    steps = _static(ref.steps)
    if ref.root == "data":
        if len(steps) < 2 or not isinstance(steps[0], str) or not isinstance(steps[1], str):
            return None
        return ResourceAddr(steps[0], steps[1], "data"), steps[2:]
    if not steps or not isinstance(steps[0], str):
        return None
    return ResourceAddr(ref.root, steps[0]), steps[1:]


def _key(where: ModulePath, ref: E.Reference) -> tuple[Any, ...]:
    """What tells two references apart (terraform's ``addrKey``): where, and the text as far as
    it is static. A resource named without anything after it differs from its no-key instance."""
    return (where, ref.root, tuple(_static(ref.steps)))


def _located(where: ModulePath, exprs: Iterator[E.Expr] | list[E.Expr]) -> list[Located]:
    return [(where, ref) for e in exprs for ref in E.references(e)]


def _body(rc: ResourceConfig) -> Iterator[E.Expr]:
    """Every expression of a resource's configuration body (its nested blocks' too)."""
    for _, a in sorted(rc.attributes.items()):
        yield a.expr
    stack = list(rc.blocks)
    while stack:
        blk = stack.pop()
        for a in blk.attributes.values():
            yield a.expr
        stack.extend(blk.blocks)


def _blocks_named(rc: ResourceConfig, name: str) -> Iterator[E.Expr]:
    stack = [b for b in rc.blocks if b.type == name]
    while stack:
        blk = stack.pop()
        for a in blk.attributes.values():
            yield a.expr
        stack.extend(blk.blocks)


class _Analyzer:
    def __init__(self, root: Module) -> None:
        self.root = root

    def config(self, where: ModulePath) -> Module | None:
        return self.root.descendant(tuple(n for n, _ in where.steps))

    def meta(self, where: ModulePath, ref: E.Reference) -> list[Located]:
        """What ``ref`` (made in module instance ``where``) leads to."""
        cfg = self.config(where)
        if cfg is None or ref.root in _NOWHERE:
            return []
        steps = _static(ref.steps)
        name = steps[0] if steps and isinstance(steps[0], str) else None
        if ref.root == "var":
            if where.is_root or name is None:
                return []
            caller = self.config(where.parent)
            call = caller.calls.get(where.steps[-1][0]) if caller is not None else None
            arg = call.arguments.get(name) if call is not None else None
            return _located(where.parent, [arg.expr]) if arg is not None else []
        if ref.root == "local":
            lc = cfg.locals.get(name) if name is not None else None
            return _located(where, [lc.expr]) if lc is not None else []
        if ref.root == "module":
            return self._module(where, cfg, steps)
        parts = _resource_parts(ref)
        if parts is None:
            return []
        addr, rest = parts
        rc = cfg.resources.get(addr)
        if rc is None:
            return []
        if rest and isinstance(rest[0], _Key):
            rest = rest[1:]  # the instance key
        if not rest:
            return _located(where, list(_body(rc)))
        attr = str(rest[0].value if isinstance(rest[0], _Key) else rest[0])
        if attr in rc.attributes:
            return _located(where, [rc.attributes[attr].expr])
        return _located(where, list(_blocks_named(rc, attr)))

    def _module(self, where: ModulePath, cfg: Module, steps: list[Step]) -> list[Located]:
        if not steps or not isinstance(steps[0], str) or steps[0] not in cfg.calls:
            return []
        call, rest = steps[0], steps[1:]
        key: str | int | None = None
        if rest and isinstance(rest[0], _Key):
            key, rest = rest[0].value, rest[1:]
        callee = where.child(call, key)
        module = cfg.calls[call].module
        if rest and isinstance(rest[0], str):
            oc = module.outputs.get(rest[0])
            return _located(callee, [oc.expr]) if oc is not None else []
        return _located(callee, [oc.expr for _, oc in sorted(module.outputs.items())])


def _root_output_changed(plan: Plan, name: str, sensitive: bool) -> bool:
    after = plan.outputs.get(name)
    before = plan.prior_outputs.get(name)
    if after is None and before is None:
        return False
    if before is None:
        return True
    if after is None:
        return True
    return not (is_wholly_known(after[0]) and equal(after[0], before[0]) and sensitive == before[1])


def _module_instances(plan: Plan) -> set[ModulePath]:
    """The module instances the plan expanded (those holding a resource), and their parents."""
    found: set[ModulePath] = set()
    for r in plan.expansions:
        path = r.module
        while path.steps and path not in found:
            found.add(path)
            path = path.parent
    return found


def relevant_attributes(plan: Plan, root: Module) -> list[dict[str, Any]]:
    """``[{"resource": ADDRESS, "attribute": PATH}, ...]``, sorted by resource (see the module)."""
    azr = _Analyzer(root)
    start: list[Located] = []
    for c in plan.changes:
        if c.action == Action.NOOP:
            continue
        where = c.addr.resource.module
        rc = root.resource_at(c.addr.resource)
        if rc is None:
            continue
        start += _located(where, list(_body(rc)))
    left_out = plan.kept_outputs if plan.targeted else frozenset()
    evaluated = _targeted_module_outputs(plan, root, left_out) if plan.targeted else None
    for name, oc in sorted(root.outputs.items()):
        if name not in left_out and _root_output_changed(plan, name, oc.sensitive):
            start += _located(ROOT, [oc.expr])
    for path in sorted(_module_instances(plan)):
        cfg = azr.config(path)
        if cfg is None:
            continue
        for _, oc in sorted(cfg.outputs.items()):
            if isinstance(oc.expr, E.Literal) and oc.expr.value is None:
                continue  # a null output is no change
            if evaluated is not None and (_names(path), oc.name) not in evaluated:
                continue  # under -target, only what the targets' graph evaluates
            start += _located(path, [oc.expr])
    found: dict[tuple[Any, ...], tuple[str, list[str | int]]] = {}
    visited: set[tuple[Any, ...]] = set()
    pending: dict[tuple[Any, ...], Located] = {}

    def see(where: ModulePath, ref: E.Reference) -> None:
        k = _key(where, ref)
        parts = _resource_parts(ref)
        if parts is not None:
            found.setdefault(k, _attribute(where, parts))
        if k not in visited:
            pending[k] = (where, ref)

    for where, ref in start:
        see(where, ref)
    while pending:
        k, (where, ref) = pending.popitem()
        visited.add(k)
        for w, r in azr.meta(where, ref):
            see(w, r)
    out = [{"resource": res, "attribute": path} for res, path in found.values()]
    return sorted(out, key=lambda d: d["resource"])


def _attribute(where: ModulePath, parts: tuple[ResourceAddr, list[Step]]) -> tuple[str, list[str | int]]:
    """The resource (instance) address a reference names, and the attribute path after it."""
    addr, rest = parts
    text = f"data.{addr.type}.{addr.name}" if addr.mode == "data" else f"{addr.type}.{addr.name}"
    if rest and isinstance(rest[0], _Key):
        text += format_key(rest[0].value)
        rest = rest[1:]
    path = [s.value if isinstance(s, _Key) else s for s in rest]
    return (f"{where}.{text}" if where.steps else text), path


def _names(path: ModulePath) -> tuple[str, ...]:
    return tuple(n for n, _ in path.steps)


def _targeted_module_outputs(plan: Plan, root: Module, left_out: frozenset[str]) -> set[tuple[tuple[str, ...], str]]:
    """The module outputs (by module path without keys, and name) that a targeted plan's graph
    evaluates: as terraform's ``TargetsTransformer``, a module output is a temporary value, kept
    only as a dependency of what is kept (the resources planned, the root outputs not left out),
    never for its own sake because what it refers to is targeted."""
    todo: list[tuple[tuple[str, ...], E.Expr]] = []
    found: set[tuple[tuple[str, ...], str]] = set()

    def resource(names: tuple[str, ...], rc: ResourceConfig) -> None:
        todo.extend((names, e) for e in _body(rc))
        todo.extend((names, a.expr) for a in (rc.count, rc.for_each) if a is not None)
        todo.extend((names, e) for _, e, _ in rc.depends_on if e is not None)
        cfg = root.descendant(names)
        for call in rc.depends_on_modules:
            module(names, cfg.calls[call].module if cfg is not None and call in cfg.calls else None, call, None)

    def module(names: tuple[str, ...], child: Module | None, call: str, only: str | None) -> None:
        for out, oc in sorted(child.outputs.items()) if child is not None else ():
            if only is None or only == out:
                found.add(((*names, call), out))
                todo.append(((*names, call), oc.expr))

    for r in {c.addr.resource for c in plan.changes}:
        rc = root.resource_at(r)
        if rc is not None:
            resource(_names(r.module), rc)
            for i in range(len(r.module.steps)):  # the calls' count and for_each
                caller = root.descendant(_names(r.module)[:i])
                call = caller.calls.get(r.module.steps[i][0]) if caller is not None else None
                if call is not None:
                    todo.extend((_names(r.module)[:i], a.expr) for a in (call.count, call.for_each) if a is not None)
    todo.extend(((), oc.expr) for name, oc in root.outputs.items() if name not in left_out)
    seen: set[tuple[tuple[str, ...], int]] = set()
    while todo:
        names, expr = todo.pop()
        if (names, id(expr)) in seen:
            continue
        seen.add((names, id(expr)))
        cfg = root.descendant(names)
        if cfg is None:
            continue
        for ref in E.references(expr):
            steps = _static(ref.steps)
            name = steps[0] if steps and isinstance(steps[0], str) else None
            if name is None or ref.root in _NOWHERE:
                continue
            if ref.root == "var" and names:
                caller = root.descendant(names[:-1])
                call = caller.calls.get(names[-1]) if caller is not None else None
                arg = call.arguments.get(name) if call is not None else None
                if arg is not None:
                    todo.append((names[:-1], arg.expr))
            elif ref.root == "local" and name in cfg.locals:
                todo.append((names, cfg.locals[name].expr))
            elif ref.root == "module" and name in cfg.calls:
                rest = [s for s in steps[1:] if isinstance(s, str)]
                module(names, cfg.calls[name].module, name, rest[0] if rest else None)
            elif (parts := _resource_parts(ref)) is not None and (rc := cfg.resources.get(parts[0])) is not None:
                resource(names, rc)
    return found

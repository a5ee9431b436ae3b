"""The order planning visits a module in: resources and local values, each after what its
expressions refer to (a cycle is an error naming it, as terraform's), and what ``-target`` widens
to once that graph is known.

Pure functions of the configuration (and, for a targeted destroy, the state's recorded
dependencies): nothing here calls a provider or evaluates a value.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field
from typing import Any

from engine.addrs import ModulePath, ResourceAddr, config_resource, resource_addr
from engine.config.model import Module
from engine.config.references import expressions_of
from engine.diagnostics import Diagnostic, error
from engine.frozen import frozen
from engine.graph.dag import Graph
from engine.lang import expr as E
from engine.planning.targeting import Targets
from engine.state.model import State


@frozen
class CfgNode:
    """A node of the configuration graph, in the module at configuration path ``path`` (the
    root's: ``()``): a resource (``name`` its :class:`ResourceAddr` within the module), a local
    value (``kind`` "local"), an input variable ("var") or an output ("output") of a module that
    is called, or a module call ("call": its expansion into instances)."""

    kind: str
    name: Any
    path: tuple[str, ...] = ()
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # the graph's dict keys, made afresh for each reference: hash once (as ResourceAddr does)
        object.__setattr__(self, "_hash", hash((self.kind, self.name, self.path)))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not CfgNode:
            return NotImplemented
        return (self._hash == other._hash and self.name == other.name and self.kind == other.kind
                and self.path == other.path)

    def __str__(self) -> str:
        prefix = "".join(f"module.{n}." for n in self.path)
        if self.kind == "resource":
            return prefix + str(self.name)
        if self.kind == "call":
            return f"{prefix}module.{self.name} (expand)"
        return f"{prefix}{self.kind}.{self.name}"


def ref_node(ref: E.Reference) -> CfgNode | None:
    """The resource or local value ``ref`` refers to; None for anything else (variables,
    ``count``, ``each``, ``path``, ...)."""
    name = ref.step_name(0)
    if name is None:
        return None
    if ref.root == "local":
        return CfgNode("local", name)
    if ref.root == "data":
        dname = ref.step_name(1)
        return CfgNode("resource", resource_addr(name, dname, "data")) if dname else None
    if ref.root in ("var", "count", "each", "path", "terraform", "self", "module"):
        return None
    return CfgNode("resource", resource_addr(ref.root, name))


def ref_nodes(ref: E.Reference, module: Module) -> list[CfgNode]:
    """What ``ref``, in an expression of ``module``, refers to: a resource, local or input
    variable of the module, or the outputs of a module it calls (one named, or all of them)."""
    path = module.path
    if ref.root == "var":
        name = ref.step_name(0)
        return [CfgNode("var", name, path)] if path and name is not None else []
    if ref.root == "module":
        call = module.calls.get(ref.step_name(0) or "")
        if call is None:
            return []
        child = (*path, call.name)
        rest = ref.steps[1:]
        if (call.count is not None or call.for_each is not None) and rest and not isinstance(rest[0], str):
            rest = rest[1:]
        if rest and isinstance(rest[0], str) and rest[0] in call.module.outputs:
            return [CfgNode("output", rest[0], child)]
        return [CfgNode("output", o, child) for o in call.module.outputs] + [CfgNode("call", call.name, path)]
    node = ref_node(ref)
    if node is None:
        return []
    return [CfgNode(node.kind, node.name, path)] if path else [node]


def _module_nodes(module: Module) -> list[CfgNode]:
    """Every resource node of ``module`` and of the modules it calls (``depends_on = [module.x]``)."""
    out: list[CfgNode] = []
    for m in module.tree():
        out.extend(CfgNode("resource", a, m.path) for a in m.resources)
        out.extend(CfgNode("output", o, m.path) for o in m.outputs if m.path)
    return out


def config_graph(module: Module) -> Graph[CfgNode]:
    """Resources, locals, module calls and the variables and outputs of called modules, through
    every module of the configuration, each depending on what its expressions refer to;
    everything in a called module depends on its call (it has instances once that is expanded)."""
    g: Graph[CfgNode] = Graph()
    tree = module.tree()
    for m in tree:
        p = m.path
        for addr in m.resources:
            g.add(CfgNode("resource", addr, p))
        for name in m.locals:
            g.add(CfgNode("local", name, p))
        for name in m.calls:
            g.add(CfgNode("call", name, p))
        if p:
            for name in m.variables:
                g.add(CfgNode("var", name, p))
            for name in m.outputs:
                g.add(CfgNode("output", name, p))

    def refer(node: CfgNode, exprs: list[E.Expr], m: Module) -> None:
        for e in exprs:
            for ref in E.references(e):
                for dep in ref_nodes(ref, m):
                    if dep in g and dep != node:
                        g.add_edge(node, dep)

    def depends(node: CfgNode, deps: Any, mods: tuple[str, ...], m: Module) -> None:
        for addr, _k, _l in deps:
            dep = CfgNode("resource", addr, m.path)
            if dep in g:
                g.add_edge(node, dep)
        for name in mods:
            call = m.calls.get(name)
            if call is not None:
                for dep in _module_nodes(call.module):
                    g.add_edge(node, dep)

    for m in tree:
        p = m.path
        for kind, name, exprs in _config_objects(m):
            refer(CfgNode(kind, name, p), exprs, m)
        for rc in m.resources.values():
            depends(CfgNode("resource", rc.addr, p), rc.depends_on, rc.depends_on_modules, m)
        for call in m.calls.values():
            node = CfgNode("call", call.name, p)
            refer(node, [x.expr for x in (call.count, call.for_each) if x is not None], m)
            depends(node, call.depends_on, call.depends_on_modules, m)
            child = (*p, call.name)
            for vn in call.module.variables:
                arg = call.arguments.get(vn)
                if arg is not None:
                    refer(CfgNode("var", vn, child), [arg.expr], m)
        if p:
            call_node = CfgNode("call", p[-1], p[:-1])
            for oc in m.outputs.values():
                node = CfgNode("output", oc.name, p)
                conds = [x for c in oc.preconditions for x in (c.condition, c.error_message)]
                refer(node, [oc.expr, *conds], m)
                depends(node, oc.depends_on, oc.depends_on_modules, m)
            for n in [*(CfgNode("resource", a, p) for a in m.resources), *(CfgNode("local", x, p) for x in m.locals),
                      *(CfgNode("var", x, p) for x in m.variables), *(CfgNode("output", x, p) for x in m.outputs),
                      *(CfgNode("call", x, p) for x in m.calls)]:
                g.add_edge(n, call_node)
    return g


def config_order(g: Graph[CfgNode], diags: list[Diagnostic]) -> list[CfgNode]:
    """``g``'s nodes, each after what it depends on; with cycles, none, and one error per cycle
    added to ``diags``."""
    cycles = g.cycles()
    if cycles:
        for cyc in cycles:
            # terraform's: the cycle is the summary; locals and outputs are its "expand" nodes
            names = [f"{n} (expand)" if n.startswith(("local.", "output.")) else n for n in cyc]
            diags.append(error("Cycle: " + ", ".join(names)))
        return []
    return g.topological_order()


def _config_objects(module: Module) -> list[tuple[str, Any, list[E.Expr]]]:
    out: list[tuple[str, Any, list[E.Expr]]] = []
    for rc in module.resources.values():
        # replace_triggered_by too: planned after what it names, as terraform's References()
        exprs = [*expressions_of(rc), *rc.lifecycle.replace_triggered_by]
        if rc.count is not None:
            exprs.append(rc.count.expr)
        if rc.for_each is not None:
            exprs.append(rc.for_each.expr)
        out.append(("resource", rc.addr, exprs))
    for lc in module.locals.values():
        out.append(("local", lc.name, [lc.expr]))
    return out


def with_dependencies(targets: Targets, g: Graph[CfgNode],
                      prior: Iterable[ResourceAddr] = ()) -> tuple[Targets, set[str]]:
    """The targets and everything they depend on (whole resources: in a module, in every
    instance of it, as terraform's graph of the configuration has it), and the root's locals on
    the way. A reference to a module call itself waits for everything in the module, as
    terraform's node closing it does: of the resources of ``prior`` (the state's), those under
    such a call that the configuration no longer has too."""
    seen: set[CfgNode] = set()
    rs = [*targets.resources, *(i.resource for i in targets.instances)]
    todo = [CfgNode("resource", _within(r), tuple(n for n, _k in r.module.steps)) for r in rs]
    for m in targets.modules:
        prefix = tuple(n for n, _k in m.steps)
        todo += [n for n in g.deps if n.kind == "resource" and n.path[:len(prefix)] == prefix]
    todo = [n for n in todo if n in g]
    targeted = set(todo)  # their instances are chosen by the targets; a dependency is taken whole
    closed: set[tuple[str, ...]] = set()  # the calls referred to as such, not only expanded
    while todo:
        node = todo.pop()
        for dep in g.deps[node]:
            if dep.kind == "call" and node.path[:len(dep.path) + 1] != (*dep.path, dep.name):
                closed.add((*dep.path, dep.name))
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    seen -= targeted
    included_locals = {n.name for n in seen if n.kind == "local" and not n.path}
    root = {n.name for n in seen if n.kind == "resource" and not n.path}
    inside = {resource_addr(n.name.type, n.name.name, n.name.mode, ModulePath(tuple((p, None) for p in n.path)))
              for n in seen if n.kind == "resource" and n.path}
    if closed:
        for r in prior:
            path = tuple(name for name, _k in r.module.steps)
            if any(path[:len(c)] == c for c in closed) and CfgNode("resource", _within(r), path) not in g:
                inside.add(config_resource(r))
    return targets.with_resources(root, frozenset(inside)), included_locals


def _within(r: ResourceAddr) -> ResourceAddr:
    return r if r.module.is_root else resource_addr(r.type, r.name, r.mode)


def destroy_targets(state: State, targets: Targets) -> Targets:
    """The targets and everything in state that depends on them, transitively (a dependency in a
    module, as recorded without instance keys, stands for every instance of it)."""
    by_resource: dict[ResourceAddr, set[ResourceAddr]] = {}  # resource -> resources it depends on
    for addr, _deposed, obj, _prov in state.objects():
        by_resource.setdefault(addr.resource, set()).update(obj.dependencies)
    hit = {config_resource(r) for r in by_resource if targets.touches(r)}
    more: set[ResourceAddr] = set()
    changed = True
    while changed:
        changed = False
        for r, deps in by_resource.items():
            if r not in more and deps & hit:
                more.add(r)
                hit.add(config_resource(r))
                changed = True
    return targets.with_resources(more)


def resources_referred(module: Module, expr: E.Expr, seen: set[str]) -> set[ResourceAddr]:
    """The resources ``expr`` refers to, directly or through locals (``seen``: locals already
    followed, added to)."""
    out: set[ResourceAddr] = set()
    for ref in E.references(expr):
        node = ref_node(ref)
        if node is None:
            continue
        if node.kind == "resource":
            out.add(node.name)
        elif node.name not in seen:
            seen.add(node.name)
            lc = module.locals.get(node.name)
            if lc is not None:
                out |= resources_referred(module, lc.expr, seen)
    return out


def resource_graph_of(g: Graph[CfgNode]) -> Graph[str]:
    """The resources of the configuration graph ``g`` (every module's, by their address in the
    configuration: ``module.a.terraform_data.r``), each depending on the resources it reaches
    through locals, variables, outputs and module calls (``strata graph``)."""
    out: Graph[str] = Graph()
    for node in g.deps:
        if node.kind == "resource":
            out.add(str(node))
    for node in g.deps:
        if node.kind != "resource":
            continue
        seen: set[CfgNode] = set()
        todo = list(g.deps[node])
        while todo:
            dep = todo.pop()
            if dep in seen:
                continue
            seen.add(dep)
            if dep.kind == "resource":
                if dep != node:
                    out.add_edge(str(node), str(dep))
            else:
                todo.extend(g.deps[dep])
    return out

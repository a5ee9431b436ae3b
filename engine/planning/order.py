"""The order planning visits a module in: resources and local values, each after what its
expressions refer to (a cycle is an error naming it, as terraform's), and what ``-target`` widens
to once that graph is known.

Pure functions of the configuration (and, for a targeted destroy, the state's recorded
dependencies): nothing here calls a provider or evaluates a value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.addrs import ResourceAddr, parse_resource_addr, resource_addr
from engine.config.model import Module
from engine.config.references import expressions_of
from engine.diagnostics import Diagnostic, error
from engine.graph.dag import Graph
from engine.lang import expr as E
from engine.planning.targeting import Targets
from engine.state.model import State


@dataclass(frozen=True, slots=True)
class CfgNode:
    """A node of the configuration graph: a resource (``name`` its :class:`ResourceAddr`) or a
    local value (``kind`` "local", ``name`` the local's name)."""

    kind: str
    name: Any

    def __str__(self) -> str:
        return str(self.name) if self.kind == "resource" else f"{self.kind}.{self.name}"


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


def config_graph(module: Module) -> Graph[CfgNode]:
    """Resources and locals, each depending on what its expressions refer to."""
    g: Graph[CfgNode] = Graph()
    for addr in module.resources:
        g.add(CfgNode("resource", addr))
    for name in module.locals:
        g.add(CfgNode("local", name))
    for kind, name, exprs in _config_objects(module):
        node = CfgNode(kind, name)
        for e in exprs:
            for ref in E.references(e):
                dep = ref_node(ref)
                if dep is not None and dep in g:
                    g.add_edge(node, dep)
    for rc in module.resources.values():
        for addr, _k, _l in rc.depends_on:
            if CfgNode("resource", addr) in g:
                g.add_edge(CfgNode("resource", rc.addr), CfgNode("resource", addr))
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
        exprs = expressions_of(rc)
        if rc.count is not None:
            exprs.append(rc.count.expr)
        if rc.for_each is not None:
            exprs.append(rc.for_each.expr)
        out.append(("resource", rc.addr, exprs))
    for lc in module.locals.values():
        out.append(("local", lc.name, [lc.expr]))
    return out


def with_dependencies(targets: Targets, g: Graph[CfgNode]) -> tuple[Targets, set[str]]:
    """The targets and everything they depend on (whole resources), and the locals on the way."""
    seen: set[CfgNode] = set()
    todo = [CfgNode("resource", r) for r in targets.resources]
    todo += [CfgNode("resource", i.resource) for i in targets.instances]
    todo = [n for n in todo if n in g]
    while todo:
        for dep in g.deps[todo.pop()]:
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    included_locals = {n.name for n in seen if n.kind == "local"}
    return targets.with_resources({n.name for n in seen if n.kind == "resource"}), included_locals


def destroy_targets(state: State, targets: Targets) -> Targets:
    """The targets and everything in state that depends on them, transitively."""
    by_resource: dict[ResourceAddr, set[ResourceAddr]] = {}  # resource -> resources it depends on
    for addr, _deposed, obj, _prov in state.objects():
        deps = by_resource.setdefault(addr.resource, set())
        for d in obj.dependencies:
            r = parse_resource_addr(d)
            if r is not None:
                deps.add(r)
    hit = {r for r in by_resource if targets.touches(r)}
    more: set[ResourceAddr] = set()
    changed = True
    while changed:
        changed = False
        for r, deps in by_resource.items():
            if r not in more and deps & (hit | more):
                more.add(r)
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

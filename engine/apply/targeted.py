"""What apply applies of a plan made under ``-target``: the changes terraform's apply graph keeps.

terraform plans a target's dependencies as whole resources, then builds its apply graph from
the plan's changes and prunes it to the targets again, now per instance: the changes marked
:attr:`~engine.plans.plan.ResourceInstanceChange.targeted` (the targets and what their
configuration refers to) and everything they wait for. A planned change outside that is not
applied (its object stays as it was): another instance of a dependency a target names by key,
or a module's object gone from the configuration that nothing kept waits for. A
create_before_destroy replacement whose destroy nothing kept waits for leaves its old object
deposed, as ``destroy_left_out`` says. A root output that refers to a change not applied keeps
its value, as terraform's pruned graph updates only the outputs all of whose resources it keeps.
"""

from __future__ import annotations

import dataclasses

from engine.addrs import ResourceAddr, resource_addr
from engine.apply.graph import ApplyNode, Node, build_apply_graph
from engine.config.model import Module
from engine.lang import expr as E
from engine.plans.plan import Action, Plan


def applied_part(plan: Plan, module: Module) -> Plan:
    """``plan`` less what its targets do not reach (``plan`` itself when that is nothing)."""
    if not plan.targeted or plan.destroy or all(c.targeted or c.action == Action.NOOP for c in plan.changes):
        return plan
    g, work = build_apply_graph(plan)
    todo: list[Node] = [n for n, w in work.items() if w.change.targeted]
    kept: set[Node] = set(todo)
    while todo:
        for d in g.deps[todo.pop()]:
            if d not in kept:
                kept.add(d)
                todo.append(d)
    nodes: dict[int, list[ApplyNode]] = {}
    for n, w in work.items():
        nodes.setdefault(id(w.change), []).append(n)
    changes = []
    changed = False
    dropped: set[ResourceAddr] = set()
    for c in plan.changes:
        mine = nodes.get(id(c), [])
        if not mine or c.targeted:
            changes.append(c)
        elif not any(n in kept for n in mine):
            changed = True  # not applied: the object stays as it is
            dropped.add(c.addr.resource)
        elif c.is_replace and any(n.op == Action.DELETE and n not in kept for n in mine):
            changes.append(dataclasses.replace(c, destroy_left_out=True))
            changed = True
        else:
            changes.append(c)
    if not changed:
        return plan
    kept_outputs = plan.kept_outputs | {oc.name for oc in module.outputs.values() if _refers(module, oc.expr, dropped)}
    return dataclasses.replace(plan, changes=tuple(changes), kept_outputs=kept_outputs)


def _refers(module: Module, expr: E.Expr, dropped: set[ResourceAddr]) -> bool:
    """Does ``expr`` (a root output's) refer to a resource of ``dropped``, directly, through
    locals or through a module call that has one?"""
    calls = {r.module.steps[0][0] for r in dropped if r.module.steps}
    seen: set[str] = set()
    todo = [expr]
    while todo:
        for ref in E.references(todo.pop()):
            name = ref.step_name(0)
            if name is None:
                continue
            if ref.root == "local":
                if name not in seen and name in module.locals:
                    seen.add(name)
                    todo.append(module.locals[name].expr)
            elif ref.root == "module":
                if name in calls:
                    return True
            elif ref.root == "data":
                if (n := ref.step_name(1)) is not None and resource_addr(name, n, "data") in dropped:
                    return True
            elif resource_addr(ref.root, name) in dropped:
                return True
    return False

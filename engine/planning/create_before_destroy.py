"""Forced create_before_destroy: every dependency of a create_before_destroy object becomes one too.

"All resources that precede a resource with create_before_destroy must in
turn be handled in the same manner" (004_a0c7c5032e246c72.txt); otherwise a
replace of the dependency makes a cycle in the apply graph. Dependencies are
followed both through configuration and through the ``dependencies`` recorded
in state, so orphans and objects deleted with a CBD flag in state count too.

A pure transformation of the planned changes, run once at the end of planning.
"""

from __future__ import annotations

import dataclasses

from engine.addrs import InstanceAddr, ResourceAddr, config_resource
from engine.config.model import Module
from engine.graph.dag import Graph
from engine.planning.order import CfgNode
from engine.plans.plan import Action, ResourceInstanceChange

ConfigKey = tuple[tuple[str, ...], str, str, str]
"""A resource of the configuration: the names of its modules, its type, name and mode."""


def config_key(r: ResourceAddr) -> ConfigKey:
    return tuple(n for n, _k in r.module.steps), r.type, r.name, r.mode


def configured_forcing(module: Module, graph: Graph[CfgNode]) -> set[ConfigKey]:
    """The resources of the configuration that a create_before_destroy resource depends on
    (transitively, through anything), whether or not that resource is planned. Under
    ``-target`` terraform plans the order from the targets and their dependencies, but records
    the flag of what it applies as the whole configuration forces it, dependents left out too."""
    stack = [CfgNode("resource", addr, m.path) for m in module.tree()
             for addr, rc in m.resources.items() if rc.lifecycle.create_before_destroy]
    seen = set(stack)
    out: set[ConfigKey] = set()
    while stack:
        for d in graph.deps.get(stack.pop(), ()):
            if d not in seen:
                seen.add(d)
                stack.append(d)
                if d.kind == "resource":
                    out.add((d.path, d.name.type, d.name.name, d.name.mode))
    return out


def force_create_before_destroy(changes: list[ResourceInstanceChange],
                                configured: set[ConfigKey] | frozenset[ConfigKey] = frozenset(),
                                targeted: bool = False) -> list[ResourceInstanceChange]:
    """``changes`` with every (transitive) dependency of a create_before_destroy change made
    create_before_destroy: a delete-then-create becomes create-then-delete. Order is kept.
    ``configured``: resources forced by the configuration (:func:`configured_forcing`), also by
    dependents that are not planned (a resource without instances forces too): without
    ``targeted``, as any other; with it, only the flag recorded for what is applied."""
    by_addr: dict[InstanceAddr, list[int]] = {}
    by_res: dict[ResourceAddr, list[int]] = {}
    by_config: dict[ResourceAddr, list[int]] = {}  # the state's dependencies name a module's resource without keys
    for i, c in enumerate(changes):
        if c.deposed is None:
            by_addr.setdefault(c.addr, []).append(i)
            by_res.setdefault(c.addr.resource, []).append(i)
            by_config.setdefault(config_resource(c.addr.resource), []).append(i)
    # (index, through state): forced through a dependency recorded in state only. Such a force
    # decides a replacement's order, but is not the flag terraform records for an object kept
    # (updated, unchanged): it forces through configuration only (ForcedCBDTransformer runs
    # on the reference edges), so a dependent that is gone from it forces nothing recorded.
    stack = [(i, False) for i, c in enumerate(changes) if c.create_before_destroy]
    seen: dict[int, bool] = dict(stack)
    forced: dict[int, bool] = {}
    if configured and not targeted:
        for i, c in enumerate(changes):
            if (i not in seen and c.deposed is None and c.action != Action.DELETE
                    and config_key(c.addr.resource) in configured):
                seen[i] = forced[i] = False
                stack.append((i, False))
    while stack:
        i, through_state = stack.pop()
        c = changes[i]
        targets: list[tuple[int, bool]] = []
        for d in c.depends_on:
            targets.extend((t, through_state) for t in by_addr.get(d, ()))
        for r in c.depends_on_resources:
            targets.extend((t, through_state) for t in by_res.get(r, ()))
        if _destroys_first_creating(c) or (i in forced and c.action in (Action.DELETE_THEN_CREATE, Action.DELETE)):
            # the dependencies in state force only through a destroy that waits for a creation:
            # what a consistent state records (terraform saves the flag a dependent forced); a
            # dependent that is merely updated leaves a removed dependency as it was created
            for s in c.prior_dependencies:
                targets.extend((t, True) for t in by_config.get(s, ()))
        for t, via in targets:
            if changes[t].addr.resource == c.addr.resource:
                continue
            if t not in seen or (seen[t] and not via):  # unseen, or seen only through state
                seen[t] = via
                if not changes[t].create_before_destroy:
                    forced[t] = via
                stack.append((t, via))
    out = list(changes)
    for i, c in enumerate(changes):
        # the flag recorded once applied: terraform's apply graph forces it from the whole
        # configuration; the order (and an object without a change) as its plan forced them
        if (targeted and i not in forced and not c.create_before_destroy and c.deposed is None
                and c.action not in (Action.NOOP, Action.DELETE) and config_key(c.addr.resource) in configured):
            out[i] = dataclasses.replace(c, create_before_destroy=True)
    for i, through_state in forced.items():
        c = changes[i]
        if c.action == Action.DELETE_THEN_CREATE:
            out[i] = dataclasses.replace(c, action=Action.CREATE_THEN_DELETE, create_before_destroy=True)
        elif not through_state or c.action in (Action.CREATE_THEN_DELETE, Action.DELETE):
            out[i] = dataclasses.replace(c, create_before_destroy=True)
    return out


def _destroys_first_creating(c: ResourceInstanceChange) -> bool:
    """Whether ``c`` destroys an object create_before_destroy: a replacement created first, or
    an object whose recorded flag says so."""
    return c.action == Action.CREATE_THEN_DELETE or (c.action == Action.DELETE and c.create_before_destroy)

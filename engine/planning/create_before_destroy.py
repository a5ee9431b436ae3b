"""Forced create_before_destroy: every dependency of a create_before_destroy object becomes one too.

"All resources that precede a resource with create_before_destroy must in
turn be handled in the same manner" (004_a0c7c5032e246c72.txt); otherwise a
replace of the dependency makes a cycle in the apply graph. Dependencies are
followed through configuration only, as terraform's ForcedCBDTransformer follows
reference edges: an orphan or a deposed object forces nothing, whatever flag the
state records for it, and the ``dependencies`` recorded in state force nothing
either (where that leaves a cycle in the apply graph, terraform reports it, and
so does strata).

A pure transformation of the planned changes, run once at the end of planning.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from engine.addrs import InstanceAddr, ResourceAddr
from engine.config.model import Module
from engine.graph.dag import Graph
from engine.planning.order import CfgNode
from engine.plans.plan import Action, ResourceInstanceChange

ConfigKey = tuple[tuple[str, ...], str, str, str]
"""A resource of the configuration: the names of its modules, its type, name and mode."""


def config_key(r: ResourceAddr) -> ConfigKey:
    return tuple(n for n, _k in r.module.steps), r.type, r.name, r.mode


def configured_forcing(module: Module, graph: Graph[CfgNode],
                       include: Callable[[CfgNode], bool] | None = None) -> set[ConfigKey]:
    """The resources of the configuration that a create_before_destroy resource depends on
    (transitively, through anything), whether or not that resource is planned. Under
    ``-target`` terraform plans the order from the targets and their dependencies (``include``:
    the create_before_destroy resources among them force the order), but records the flag of
    what it applies as the whole configuration forces it, dependents left out too."""
    stack = [CfgNode("resource", addr, m.path) for m in module.tree()
             for addr, rc in m.resources.items() if rc.lifecycle.create_before_destroy]
    if include is not None:
        stack = [n for n in stack if include(n)]
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


_NO_NODE = frozenset({Action.NOOP, Action.DELETE, Action.FORGET})
"""The actions of an object that has no node in terraform's apply graph to refer to (one without
a change keeps one when its resource has conditions to check)."""


def conditioned_resources(module: Module) -> set[ConfigKey]:
    """The resources of the configuration with preconditions or postconditions: their instances
    without a change keep a node in terraform's apply graph (the conditions are checked again)."""
    return {(m.path, addr.type, addr.name, addr.mode) for m in module.tree() for addr, rc in m.resources.items()
            if rc.lifecycle.preconditions or rc.lifecycle.postconditions}


def force_create_before_destroy(changes: list[ResourceInstanceChange],
                                configured: set[ConfigKey] | frozenset[ConfigKey] = frozenset(),
                                targeted: bool = False,
                                targeted_forcing: set[ConfigKey] | frozenset[ConfigKey] = frozenset(),
                                unplanned_forcing: set[ConfigKey] | frozenset[ConfigKey] | None = None,
                                conditioned: set[ConfigKey] | frozenset[ConfigKey] = frozenset(),
                                ) -> list[ResourceInstanceChange]:
    """``changes`` with every (transitive) dependency of a create_before_destroy change made
    create_before_destroy: a delete-then-create becomes create-then-delete. Order is kept.
    ``configured``: resources forced by the configuration (:func:`configured_forcing`), also by
    dependents that are not planned (a resource without instances forces too): without
    ``targeted``, as any other; with it, only the flag recorded for what is applied, and
    ``targeted_forcing`` (what the targeted create_before_destroy resources force) as any other.

    The flag an applied object records is its instance's own, as terraform's apply graph forces
    it: from the create_before_destroy changes that refer to that instance (``a["c"]`` forces
    ``a["c"]`` alone; a key that is not a constant, ``a[count.index]``, every instance of ``a``,
    as terraform's graph reads it as a reference to the whole resource), or from what
    ``unplanned_forcing`` names (the resources forced by
    create_before_destroy resources without a planned change; None: every forced resource).
    A constant key naming an instance without a node in terraform's apply graph (one deleted,
    forgotten or without a change: no change and no conditions, ``conditioned`` naming the
    resources with some) is a reference to the whole resource there, as terraform's reference
    map falls back to the resource when it has no node for the instance.
    The order stays the configuration's (terraform plans per resource: every instance of ``a``
    is replaced create-then-delete), and so does the flag rewritten on an object without a
    change."""
    by_addr: dict[InstanceAddr, list[int]] = {}
    by_res: dict[ResourceAddr, list[int]] = {}
    for i, c in enumerate(changes):
        if c.deposed is None:
            by_addr.setdefault(c.addr, []).append(i)
            by_res.setdefault(c.addr.resource, []).append(i)
    # forced through configuration only, as terraform's ForcedCBDTransformer runs on the
    # reference edges: the dependencies recorded in state force nothing, and where they would
    # order a create-first destroy after a dependency's delete-first replacement, terraform's
    # apply graph has a cycle, which strata reports as it does
    noded = [c.action not in _NO_NODE or (c.action == Action.NOOP and bool(conditioned)
                                           and config_key(c.addr.resource) in conditioned)
             for c in changes]
    stack = [i for i, c in enumerate(changes) if c.create_before_destroy]
    seen = set(stack)
    forced: set[int] = set()

    def walk() -> None:
        while stack:
            c = changes[stack.pop()]
            targets: list[int] = []
            for d in c.depends_on:
                named = by_addr.get(d, ())
                if any(noded[t] for t in named):
                    targets.extend(named)
                else:  # terraform's reference map: the whole resource, wanting the instance
                    targets.extend(by_res.get(d.resource, ()))
            for r in c.depends_on_resources | c.depends_on_whole:
                targets.extend(by_res.get(r, ()))
            for t in targets:
                if t not in seen and changes[t].addr.resource != c.addr.resource:
                    seen.add(t)
                    # an instance destroyed (gone from count or for_each) keeps the flag in state,
                    # as terraform's destroy node does
                    if not changes[t].create_before_destroy and changes[t].action != Action.DELETE:
                        forced.add(t)
                    stack.append(t)

    # first instance by instance from the create_before_destroy changes (terraform's apply graph:
    # what records the flag), then from what the configuration forces as a whole
    walk()
    reached = set(seen) if unplanned_forcing is not None and not targeted else None
    seeding = targeted_forcing if targeted else configured
    if seeding:
        for i, c in enumerate(changes):
            if (i not in seen and c.deposed is None and c.action != Action.DELETE
                    and config_key(c.addr.resource) in seeding):
                seen.add(i)
                forced.add(i)
                stack.append(i)
        walk()
    out = list(changes)
    for i, c in enumerate(changes):
        # the flag recorded once applied: terraform's apply graph forces it from the whole
        # configuration; the order (and an object without a change) as its plan forced them
        if (targeted and i not in forced and not c.create_before_destroy and c.deposed is None
                and c.action not in (Action.NOOP, Action.DELETE) and config_key(c.addr.resource) in configured):
            out[i] = dataclasses.replace(c, create_before_destroy=True)
    for i in forced:
        c = changes[i]
        flag = (reached is None or i in reached or c.action == Action.NOOP
                or config_key(c.addr.resource) in (unplanned_forcing or ()))
        if c.action == Action.DELETE_THEN_CREATE:
            out[i] = dataclasses.replace(c, action=Action.CREATE_THEN_DELETE, create_before_destroy=flag)
        elif flag:
            out[i] = dataclasses.replace(c, create_before_destroy=True)
    return out


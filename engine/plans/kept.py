"""The dependencies of objects a ``-target`` apply leaves alone, kept as terraform keeps them.

terraform records each object's dependencies transitively; strata records the direct ones, and
what an object depends on is their closure over the state. An apply rewrites the lists of the
objects it plans; under ``-target`` an object left out keeps its own, and in terraform its
transitive list as it was. When a rewritten object in between no longer lists what it did
(``b → m → a``, with ``m`` targeted and no longer referring to ``a``), the closure of the kept
``b`` would lose ``a``: the resources lost that way are added to its list, which then closes
over the new state to (at least) what it closed to before.

Only the resources that reach a rewritten one are looked at, so an apply that rewrites no list
on a path costs one pass over the state.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable, Mapping

from engine.addrs import InstanceAddr, ProviderConfigAddr, ResourceAddr, config_resource
from engine.plans.plan import Action, Plan, ResourceInstanceChange
from engine.state.model import ObjectState, State

Deps = Mapping[ResourceAddr, set[ResourceAddr]]


def kept_dependencies(plan: Plan, state: State) -> list[tuple[InstanceAddr, ProviderConfigAddr, ObjectState]]:
    """The objects of ``state`` that the targeted ``plan`` leaves alone and whose dependencies
    must grow to keep their closure (address, provider, the object with its longer list)."""
    if not plan.targeted:
        return []
    planned = {c.addr for c in plan.changes if c.deposed is None}
    old: dict[ResourceAddr, set[ResourceAddr]] = defaultdict(set)
    new: dict[ResourceAddr, set[ResourceAddr]] = defaultdict(set)
    kept: list[tuple[InstanceAddr, ProviderConfigAddr, ObjectState]] = []
    for addr, deposed, obj, provider in state.objects():
        if deposed is not None:
            continue
        r = config_resource(addr.resource)
        deps = {config_resource(d) for d in obj.dependencies}
        old[r] |= deps
        if addr not in planned:
            new[r] |= deps
            if obj.dependencies:
                kept.append((addr, provider, obj))
    for c in plan.changes:
        if c.deposed is None and c.action not in (Action.DELETE, Action.FORGET):
            new[config_resource(c.addr.resource)] |= {config_resource(d) for d in c.state_dependencies}
    changed = {r for r in old.keys() | new.keys() if old.get(r, set()) != new.get(r, set())}
    if not changed:
        return []
    affected = _reaching(old, changed)
    out = []
    for addr, provider, obj in kept:
        direct = [config_resource(d) for d in obj.dependencies]
        if not affected.intersection(direct):
            continue
        lost = _closure(old, direct) - _closure(new, direct) - {config_resource(addr.resource)}
        if lost:
            grown = tuple(sorted({*obj.dependencies, *lost}, key=str))  # the state's order
            out.append((addr, provider, dataclasses.replace(obj, dependencies=grown)))
    return out


def through_left_out(changes: list[ResourceInstanceChange], state: State) -> list[ResourceInstanceChange]:
    """``changes`` of a targeted plan, each prior object's dependencies grown by what they reach
    through the resources the plan has no change for, as the state records them.

    terraform's recorded lists are transitive, and its apply graph orders a destroy by them: an
    object that depended on ``a`` through ``b`` is destroyed before ``a`` is updated even where
    ``-target`` leaves ``b`` out of the plan. strata's direct lists reach ``a`` only through
    ``b``'s change, which the plan does not have."""
    planned = {config_resource(c.addr.resource) for c in changes}
    left: dict[ResourceAddr, set[ResourceAddr]] = defaultdict(set)
    for addr, _deposed, obj, _provider in state.objects():
        r = config_resource(addr.resource)
        if r not in planned:
            left[r] |= {config_resource(d) for d in obj.dependencies}
    if not any(left.values()):
        return changes
    out = []
    for c in changes:
        direct = {config_resource(d) for d in c.prior_dependencies}
        through = [d for d in direct if left.get(d)]
        if through:
            more = _closure(left, through) - direct - {config_resource(c.addr.resource)}
            if more:
                c = dataclasses.replace(c, prior_dependencies=tuple(sorted({*c.prior_dependencies, *more}, key=str)))
        out.append(c)
    return out


def _reaching(deps: Deps, targets: set[ResourceAddr]) -> set[ResourceAddr]:
    """The resources that depend on one of ``targets``, directly or not, and the targets."""
    dependents: dict[ResourceAddr, set[ResourceAddr]] = defaultdict(set)
    for r, ds in deps.items():
        for d in ds:
            dependents[d].add(r)
    seen = set(targets)
    todo = list(targets)
    while todo:
        for r in dependents.get(todo.pop(), ()):
            if r not in seen:
                seen.add(r)
                todo.append(r)
    return seen


def _closure(deps: Deps, direct: Iterable[ResourceAddr]) -> set[ResourceAddr]:
    seen: set[ResourceAddr] = set()
    todo = list(direct)
    while todo:
        r = todo.pop()
        if r not in seen:
            seen.add(r)
            todo.extend(deps.get(r, ()))
    return seen

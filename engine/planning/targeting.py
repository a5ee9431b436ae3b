"""``-target``: which resources and instances a plan may touch.

As terraform's: a targeted resource (``TYPE.NAME``) is planned with every instance, a targeted
instance (``TYPE.NAME[KEY]``) alone; everything a target depends on is planned too, as whole
resources, and nothing else: other resources are neither refreshed nor changed, and outputs that
refer to them keep their values. A targeted destroy takes the targets and everything that
depends on them (by the dependencies recorded in state).
"""

from __future__ import annotations

import dataclasses

from engine.addrs import (
    InstanceAddr,
    ModulePath,
    ResourceAddr,
    config_resource,
    module_contains,
    parse_target,
)
from engine.frozen import frozen
from engine.plans.plan import Action, ResourceInstanceChange


@frozen
class Targets:
    """What a plan may touch: every instance of ``resources``, the single ``instances``, every
    resource in the module instances ``modules`` (a step without a key: every instance of its
    call), and every instance of the resources ``configs`` names (as the state's dependencies
    do: module paths without keys; what a target depends on, found in the configuration)."""

    resources: frozenset[ResourceAddr]  # every instance of these
    instances: frozenset[InstanceAddr] = frozenset()  # and these single instances
    modules: frozenset[ModulePath] = frozenset()
    configs: frozenset[ResourceAddr] = frozenset()

    def covers(self, addr: InstanceAddr) -> bool:
        return addr.resource in self.resources or addr in self.instances or self.in_modules(addr.resource)

    def touches(self, r: ResourceAddr) -> bool:
        return r in self.resources or any(i.resource == r for i in self.instances) or self.in_modules(r)

    def in_modules(self, r: ResourceAddr) -> bool:
        """Is every instance of ``r`` targeted, by a module target or as a dependency in a module?"""
        if self.configs and config_resource(r) in self.configs:
            return True
        return any(module_contains(m, r.module) for m in self.modules)

    def touches_config(self, r: ResourceAddr) -> bool:
        """Is the configuration resource of ``r`` (every instance of its module) named by a
        target, or taken as a dependency? As terraform's graph of the plan has one node per
        configuration resource, which a target in any module instance selects."""
        cr = config_resource(r)
        if cr in self.configs or any(config_resource(x) == cr for x in self.resources) \
                or any(config_resource(i.resource) == cr for i in self.instances):
            return True
        names = tuple(n for n, _k in r.module.steps)
        return any(names[:len(m.steps)] == tuple(n for n, _k in m.steps) for m in self.modules)

    def with_resources(self, more: set[ResourceAddr] | frozenset[ResourceAddr],
                       configs: frozenset[ResourceAddr] = frozenset()) -> Targets:
        whole = self.resources | more
        return Targets(whole, frozenset(i for i in self.instances if i.resource not in whole), self.modules,
                       self.configs | configs)


def parse_targets(texts: tuple[str, ...] | list[str]) -> Targets | None:
    """The ``-target`` options; None when there are none. ValueError names a text that is not an
    address (``TYPE.NAME``, ``TYPE.NAME[KEY]``, ``data.TYPE.NAME``)."""
    if not texts:
        return None
    whole: set[ResourceAddr] = set()
    single: set[InstanceAddr] = set()
    modules: set[ModulePath] = set()
    for text in texts:
        addr = parse_target(text)
        if isinstance(addr, ModulePath):
            modules.add(addr)
        elif addr.key is not None or text.rstrip().endswith("]"):
            single.add(addr)
        else:
            whole.add(addr.resource)
    return Targets(frozenset(whole), frozenset(single), frozenset(modules)).with_resources(set())


def mark_targeted(changes: list[ResourceInstanceChange], given: Targets) -> list[ResourceInstanceChange]:
    """``changes`` with :attr:`~engine.plans.plan.ResourceInstanceChange.targeted` set, from the
    targets as ``given`` (before what they depend on was added).

    terraform plans a target's dependencies as whole resources (its plan graph has a node per
    resource), but applies what its apply graph, which has a node per instance change, reaches
    from the targets: the targets' changes, and what their configuration refers to, where a
    reference to an instance with a change (``a[0]``) reaches that change alone, and a
    reference to a resource, or to an instance without one, every instance of it; then
    whatever those wait for. The marks are that first part; a destroy is never referred to. A
    target without an instance to plan leaves its references unknown here: everything is
    marked, as before this was told apart."""
    current = [c for c in changes if c.deposed is None]
    by_addr = {c.addr: c for c in current}
    by_config: dict[ResourceAddr, list[ResourceInstanceChange]] = {}
    for c in current:
        if c.action not in (Action.DELETE, Action.FORGET):
            by_config.setdefault(config_resource(c.addr.resource), []).append(c)
    wanted = {config_resource(r) for r in given.resources} | {config_resource(i.resource) for i in given.instances}
    if any(r not in by_config for r in wanted):
        return [dataclasses.replace(c, targeted=True) for c in changes]
    seen: set[InstanceAddr] = set()
    todo: list[ResourceInstanceChange] = []

    def reach(c: ResourceInstanceChange) -> None:
        if c.addr not in seen:
            seen.add(c.addr)
            todo.append(c)

    for c in current:
        if given.covers(c.addr) and c.action not in (Action.DELETE, Action.FORGET):
            reach(c)
    while todo:
        c = todo.pop()
        whole = set(c.depends_on_resources)
        for d in c.depends_on:
            dc = by_addr.get(d)
            if dc is not None and dc.action not in (Action.NOOP, Action.DELETE, Action.FORGET):
                reach(dc)
            elif d.resource != c.addr.resource:
                whole.add(d.resource)
        for r in whole:
            for dc in by_config.get(config_resource(r), ()):
                reach(dc)
    return [dataclasses.replace(c, targeted=True) if c.addr in seen or given.covers(c.addr) else c
            for c in changes]

"""Building the apply graph from a plan: one node per resource-instance action.

The rules are those of 004_a0c7c5032e246c72.txt, with "X ← Y" meaning X waits for Y:

* E1  create/update(I) ← create/update(J) for every J that I's configuration refers to;
* E2  destroy(J's dependency) ← destroy(J): dependents are destroyed first;
* E3  replace: create(I) ← destroy(I), or for create_before_destroy destroy(I) ← create(I)
      (the old object is *deposed* and destroyed last);
* E4  a dependent's create/update and a dependency's destroy: create/update(J) ← destroy(I),
      inverted to destroy(I) ← create/update(J) when I is create_before_destroy;
* E5  a dependency's create/update and a dependent's destroy: create/update(I) ← destroy(J),
      inverted to destroy(J) ← create/update(I) when J is create_before_destroy.

Dependencies on a whole resource (``a[*]``, ``depends_on``, the resource-level
``dependencies`` recorded in state) go through one *barrier* node per resource
and role instead of an edge per instance pair, so the graph stays linear in
size: N instances depending on N instances cost 2N edges, not N². A resource
with a single instance for a role needs no barrier: that instance stands for it.
"""

from __future__ import annotations

import secrets
from collections import defaultdict
from dataclasses import dataclass, field

from engine.addrs import InstanceAddr, ResourceAddr, config_resource
from engine.graph.dag import Graph
from engine.plans.plan import Action, Plan, ResourceInstanceChange


@dataclass(frozen=True, slots=True)
class ApplyNode:
    """One provider operation. ``op`` is "create", "update", "delete" or "read" (a deferred data source)."""

    addr: InstanceAddr
    op: str
    deposed: str | None = None
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # nodes are dict keys throughout the walk: hash once
        object.__setattr__(self, "_hash", hash((self.addr, self.op, self.deposed)))

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        if self.op == "delete":
            if self.deposed:
                return f"{self.addr} (destroy deposed {self.deposed})"
            return f"{self.addr} (destroy)"
        return f"{self.addr} ({self.op})"


@dataclass(frozen=True, slots=True)
class Barrier:
    """A no-op node standing for "all nodes of one role of one resource"."""

    resource: ResourceAddr
    role: str

    def __str__(self) -> str:
        return f"{self.resource} [{self.role}]"


Node = ApplyNode | Barrier


@dataclass(frozen=True, slots=True)
class Work:
    """What an apply node does: its change, and for a create_before_destroy create, the deposed key."""

    change: ResourceInstanceChange
    depose_as: str | None = None


def new_deposed_key() -> str:
    return secrets.token_hex(4)


class _Builder:
    def __init__(self) -> None:
        self.g: Graph[Node] = Graph()
        self.work: dict[ApplyNode, Work] = {}
        self.cu: dict[InstanceAddr, ApplyNode] = {}
        self.cu_by_res: dict[ResourceAddr, list[ApplyNode]] = defaultdict(list)
        self.d_by_addr: dict[InstanceAddr, list[tuple[ApplyNode, bool]]] = defaultdict(list)
        self.d_by_res: dict[ResourceAddr, list[tuple[ApplyNode, bool]]] = defaultdict(list)
        self.barriers: dict[tuple[ResourceAddr, str], Barrier] = {}
        self.own_d: dict[int, tuple[ApplyNode, bool]] = {}

    def barrier(self, res: ResourceAddr, role: str, members: list[ApplyNode]) -> Node | None:
        """What waits for all ``members`` (``role`` of ``res``): the one member itself when there is
        only one (a resource without count or for_each), else a barrier (created once). A barrier
        per single-instance resource doubled the nodes the walk steps through."""
        if len(members) == 1:
            return members[0]
        key = (res, role)
        b = self.barriers.get(key)
        if b is None:
            if not members:
                return None
            b = Barrier(res, role)
            self.barriers[key] = b
            self.g.add(b)
            for m in members:
                self.g.add_edge(b, m)
        return b

    def collector(self, res: ResourceAddr, role: str) -> Barrier:
        """A barrier that nodes join later (``join``); dependents wait on it."""
        key = (res, role)
        b = self.barriers.get(key)
        if b is None:
            b = Barrier(res, role)
            self.barriers[key] = b
            self.g.add(b)
        return b


def build_apply_graph(plan: Plan) -> tuple[Graph[Node], dict[ApplyNode, Work]]:
    """The apply graph of ``plan``; raises :class:`~engine.diagnostics.CycleError` on a cycle."""
    b = _Builder()
    g = b.g
    changes = [c for c in plan.changes if c.action != Action.NOOP]

    # nodes (and E3)
    for c in changes:
        if c.action in (Action.CREATE, Action.UPDATE, Action.READ) or c.is_replace:
            op = c.action if c.action in (Action.UPDATE, Action.READ) else Action.CREATE
            n = ApplyNode(c.addr, op)
            cbd = c.action == Action.CREATE_THEN_DELETE
            dk = new_deposed_key() if cbd else None
            g.add(n)
            b.work[n] = Work(c, dk)
            b.cu[c.addr] = n
            b.cu_by_res[c.addr.resource].append(n)
            if c.is_replace:
                d = ApplyNode(c.addr, Action.DELETE, dk)
                g.add(d)
                b.work[d] = Work(c)
                b.d_by_addr[c.addr].append((d, cbd))
                b.d_by_res[c.addr.resource].append((d, cbd))
                b.own_d[id(c)] = (d, cbd)
                if cbd:
                    g.add_edge(d, n)
                else:
                    g.add_edge(n, d)
        elif c.action == Action.DELETE:
            d = ApplyNode(c.addr, Action.DELETE, c.deposed)
            g.add(d)
            b.work[d] = Work(c)
            b.d_by_addr[c.addr].append((d, c.create_before_destroy))
            b.d_by_res[c.addr.resource].append((d, c.create_before_destroy))
            b.own_d[id(c)] = (d, c.create_before_destroy)

    cu_barrier = {r: b.barrier(r, "applied", ns) for r, ns in b.cu_by_res.items()}

    def d_barrier(r: ResourceAddr, cbd: bool) -> Node | None:
        role = "destroyed-cbd" if cbd else "destroyed"
        return b.barrier(r, role, [n for n, x in b.d_by_res.get(r, ()) if x == cbd])

    # the state records a dependency in a module without its instance keys: it stands for the
    # resource in every instance of the module
    by_config: dict[ResourceAddr, set[ResourceAddr]] = defaultdict(set)
    for r in (*b.cu_by_res, *b.d_by_res):
        by_config[config_resource(r)].add(r)

    def prior_of(c: ResourceInstanceChange) -> set[ResourceAddr]:
        out: set[ResourceAddr] = set()
        for r in c.prior_dependencies:
            found = by_config.get(r)
            if found:
                out |= found
            else:
                out.add(r)
        return out

    for c in changes:
        cu_node = b.cu.get(c.addr)
        prior_res = prior_of(c)
        config_res = set(c.depends_on_resources)
        # E1 and E4 from the dependent's side (this change's create/update)
        if cu_node is not None and c.deposed is None:
            for dep in c.depends_on:
                if dep == c.addr:
                    continue
                dep_cu = b.cu.get(dep)
                if dep_cu is not None:
                    g.add_edge(cu_node, dep_cu)
                for dn, cbd in b.d_by_addr.get(dep, ()):
                    if cbd:
                        g.add_edge(dn, cu_node)
                    else:
                        g.add_edge(cu_node, dn)
            for r in config_res:
                if r == c.addr.resource:
                    continue
                bar = cu_barrier.get(r)
                if bar is not None:
                    g.add_edge(cu_node, bar)
            for r in config_res | prior_res:
                if r == c.addr.resource:
                    continue
                nb = d_barrier(r, False)
                if nb is not None:
                    g.add_edge(cu_node, nb)
                if any(x for _n, x in b.d_by_res.get(r, ())):
                    col = b.collector(r, "dependents-applied")
                    g.add_edge(col, cu_node)
        # E2 and E5 from the dependent's side (this change's destroy)
        own = b.own_d.get(id(c))
        if own is not None:
            dn, cbd = own
            # the object being destroyed is the old one: only the dependencies recorded for it in
            # state order its destruction (the new configuration's may point the other way)
            for r in prior_res:
                if r == c.addr.resource:
                    continue
                if b.d_by_res.get(r):
                    g.add_edge(b.collector(r, "dependents-destroyed"), dn)
                if cbd:
                    bar = cu_barrier.get(r)
                    if bar is not None:
                        g.add_edge(dn, bar)
                elif b.cu_by_res.get(r):
                    g.add_edge(b.collector(r, "dependents-destroyed-first"), dn)

    # wire the collectors to the nodes that wait for them
    for (r, role), bar in list(b.barriers.items()):
        if role == "dependents-destroyed":
            for dn, _cbd in b.d_by_res.get(r, ()):
                g.add_edge(dn, bar)
        elif role == "dependents-destroyed-first":
            for n in b.cu_by_res.get(r, ()):
                g.add_edge(n, bar)
        elif role == "dependents-applied":
            for dn, cbd in b.d_by_res.get(r, ()):
                if cbd:
                    g.add_edge(dn, bar)
    g.check_acyclic()
    return g, b.work

"""Building the apply graph from a plan: one node per resource-instance action.

The rules are those of 004_a0c7c5032e246c72.txt, with "X ← Y" meaning X waits for Y:

* E1  create/update(I) ← create/update(J) for every J that I's configuration refers to;
* E2  destroy(J's dependency) ← destroy(J): dependents are destroyed first (for a replaced J,
      its dependencies in the new configuration count too, as terraform merges them);
* E3  replace: create(I) ← destroy(I), or for create_before_destroy destroy(I) ← create(I)
      (the old object is *deposed* and destroyed last);
* E4  a dependent's create/update and a dependency's destroy: create/update(J) ← destroy(I),
      inverted to destroy(I) ← create/update(J) when I is create_before_destroy;
* E5  a dependency's create/update and a dependent's destroy: create/update(I) ← destroy(J),
      inverted to destroy(J) ← create/update(I) when J is create_before_destroy (for a replaced
      J, its dependencies in the new configuration count too, as in E2).

Each rule holds between transitive dependencies, as terraform's does: where an edge would pass
through a resource with no node of the kind the rule chains through, it is added explicitly
(:mod:`engine.apply.reach`).

Dependencies on a whole resource (``a[*]``, ``depends_on``, the resource-level
``dependencies`` recorded in state) go through one *barrier* node per resource
and role instead of an edge per instance pair, so the graph stays linear in
size: N instances depending on N instances cost 2N edges, not N². A resource
with a single instance for a role needs no barrier: that instance stands for it.

terraform's graph has one node per resource of a module, not per module instance: a resource in
an expanded module (``count`` or ``for_each`` on the call) that depends on another as a whole
waits for it *in every instance of the module* (E1 through one barrier per configuration
resource, :meth:`_Builder.every_instance`), as does one that reads an output of one instance.
The dependencies recorded in state (E2, E4, E5), named without instance keys, stand for the
resource in every instance of a module too, but, as terraform's destroy edges, never for one in
another instance of the dependent's own module.
"""

from __future__ import annotations

import secrets
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import field

from engine.addrs import InstanceAddr, ModulePath, ResourceAddr, config_resource
from engine.apply.reach import Reach
from engine.diagnostics import CycleError
from engine.frozen import frozen
from engine.graph.dag import Graph
from engine.plans.plan import Action, Plan, ResourceInstanceChange


@frozen
class ApplyNode:
    """One provider operation. ``op`` is "create", "update", "delete" or "read" (a deferred data source)."""

    addr: InstanceAddr
    op: str
    deposed: str | None = None
    _hash: int = field(default=0, init=False, repr=False, compare=False)
    _name: str = field(default="", init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # nodes are dict keys throughout the walk: hash once
        object.__setattr__(self, "_hash", hash((self.addr, self.op, self.deposed)))

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        # made once, when first asked (each apply event's detail names its node; most nodes of a
        # run without one are never named)
        name = self._name
        if not name:
            if self.deposed and self.op == "delete":
                name = f"{self.addr} (destroy deposed {self.deposed})"
            else:  # a concatenation: an f-string formats the address through a call of format()
                name = str(self.addr) + (_OP_NAME.get(self.op) or f" ({self.op})")
            object.__setattr__(self, "_name", name)
        return name


_OP_NAME = {"create": " (create)", "update": " (update)", "read": " (read)", "delete": " (destroy)"}


@frozen
class Barrier:
    """A no-op node standing for "all nodes of one role of one resource"."""

    resource: ResourceAddr
    role: str

    def __str__(self) -> str:
        return f"{self.resource} [{self.role}]"


Node = ApplyNode | Barrier


@frozen
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
        self.d_barriers: dict[tuple[ResourceAddr, bool], Node | None] = {}
        self.every: dict[ResourceAddr, Node | None] = {}
        self.by_config: defaultdict[ResourceAddr, list[ApplyNode]] | None = None

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

    def d_barrier(self, r: ResourceAddr, cbd: bool) -> Node | None:
        """What waits for all destroys of ``r`` of one kind (create_before_destroy or not): asked
        once per dependent instance, so its members are listed once per resource."""
        key = (r, cbd)
        if key in self.d_barriers:
            return self.d_barriers[key]
        members = [n for n, x in self.d_by_res.get(r, ()) if x == cbd]
        got = self.d_barriers[key] = self.barrier(r, "destroyed-cbd" if cbd else "destroyed", members)
        return got

    def every_instance(self, r: ResourceAddr) -> Node | None:
        """What waits for the creates and updates of ``r`` in every instance of its module, when
        that module is expanded (else of ``r`` alone, its "applied" barrier): terraform's graph
        connects a reference to a resource in a module to the resource's one node, which its
        instances in every instance of the module wait for. One barrier per configuration
        resource, its members listed once."""
        cr = config_resource(r)
        if cr is r:
            return self.barrier(r, "applied", self.cu_by_res[r]) if r in self.cu_by_res else None
        if cr in self.every:
            return self.every[cr]
        if self.by_config is None:
            self.by_config = defaultdict(list)
            for res, ns in self.cu_by_res.items():
                self.by_config[config_resource(res)].extend(ns)
        got = self.every[cr] = self.barrier(cr, "applied in every module instance", self.by_config.get(cr, []))
        return got

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
            if c.is_replace and not c.destroy_left_out:
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
        elif c.action == Action.DELETE and not c.destroy_left_out:
            d = ApplyNode(c.addr, Action.DELETE, c.deposed)
            g.add(d)
            b.work[d] = Work(c)
            b.d_by_addr[c.addr].append((d, c.create_before_destroy))
            b.d_by_res[c.addr.resource].append((d, c.create_before_destroy))
            b.own_d[id(c)] = (d, c.create_before_destroy)

    cu_barrier = {r: b.barrier(r, "applied", ns) for r, ns in b.cu_by_res.items()}

    # the state records a dependency in a module without its instance keys: it stands for the
    # resource in every instance of the module, except, for an object in the same module, in the
    # instances other than its own (terraform's DestroyEdgeTransformer skips those edges:
    # graphNodesAreResourceInstancesInDifferentInstancesOfSameModule)
    by_config: dict[ResourceAddr, set[ResourceAddr]] = defaultdict(set)
    for c in plan.changes:
        by_config[config_resource(c.addr.resource)].add(c.addr.resource)

    def prior_of(c: ResourceInstanceChange) -> set[ResourceAddr]:
        out: set[ResourceAddr] = set()
        mine = c.addr.resource.module
        for r in c.prior_dependencies:
            found = by_config.get(r)
            if found:
                out.update(f for f in found if not _other_instance_of_same_module(f.module, mine))
            else:
                out.add(r)
        return out

    reach = _Reaches(plan, b, prior_of)
    cbd_destroyed = {r for r, nodes in b.d_by_res.items() if any(x for _n, x in nodes)}
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
                elif dep.key is not None and dep.resource != c.addr.resource:
                    # an instance without a create or update: terraform's reference falls back to
                    # its resource, so this waits for the instances of it that have one
                    whole = cu_barrier.get(dep.resource)
                    if whole is not None:
                        g.add_edge(cu_node, whole)
                if dep.key is None and dep.resource.module.steps and dep.resource != c.addr.resource:
                    # a single-instance resource of a module: in every instance of the module
                    every = b.every_instance(dep.resource)
                    if every is not None and every is not dep_cu:
                        g.add_edge(cu_node, every)
                for dn, cbd in b.d_by_addr.get(dep, ()):
                    if cbd:
                        g.add_edge(dn, cu_node)
                    else:
                        g.add_edge(cu_node, dn)
            for r in config_res:
                if r == c.addr.resource:
                    continue
                bar = b.every_instance(r)  # in every instance of its module, if that is expanded
                if bar is not None:
                    g.add_edge(cu_node, bar)
            # the destroys of every instance of what it refers to, by instance too: terraform
            # orders by the resources it depends on (those of its configuration merged into those
            # recorded in state), so a create_before_destroy orphan of one waits for it as well
            for r in _config_resources(c) | prior_res:
                if r == c.addr.resource:
                    continue
                nb = b.d_barrier(r, False)
                if nb is not None:
                    g.add_edge(cu_node, nb)
                if r in cbd_destroyed:
                    col = b.collector(r, "dependents-applied")
                    g.add_edge(col, cu_node)
        # E2 and E5 from the dependent's side (this change's destroy)
        own = b.own_d.get(id(c))
        if own is not None:
            dn, cbd = own
            # the object being destroyed is the old one: the dependencies recorded for it in state
            # order its destruction; a replaced one's also those of the new configuration, as
            # terraform orders them
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
            if c.is_replace:
                for r in _config_resources(c) - prior_res:
                    if r != c.addr.resource and b.d_by_res.get(r):
                        g.add_edge(b.collector(r, "dependents-destroyed"), dn)
                    if r != c.addr.resource and not cbd and b.cu_by_res.get(r):
                        g.add_edge(b.collector(r, "dependents-destroyed-first"), dn)

        reach.add_edges(c, cu_node, own, config_res, prior_res)

    # as terraform's checkStartTransformer: a check block's data source is read once every
    # managed resource is created, updated or replaced
    scoped = [b.cu[a] for a in plan.scoped_reads if a in b.cu]
    if scoped:
        applied = b.barrier(_CHECKS_START, "execute checks",
                            [n for n in b.cu.values() if n.op != Action.READ and n.addr.resource.mode == "managed"])
        if applied is not None:
            for n in scoped:
                g.add_edge(n, applied)

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
    try:
        g.check_acyclic()
    except CycleError as exc:
        # the barriers are strata's bookkeeping: a cycle is told by the operations in it
        # the barriers are strata's bookkeeping: a cycle is told by the operations in it, named as
        # terraform names its nodes (a create or update by the instance's address alone)
        hidden = {str(x) for x in b.barriers.values()}
        named = {str(n): str(n.addr) for n in b.work if n.op != Action.DELETE}
        raise CycleError([sorted(named.get(n, n) for n in c if n not in hidden) for c in exc.cycles]) from None
    return g, b.work


_CHECKS_START = ResourceAddr("check", "blocks", "data")
"""What the barrier before the check blocks' data sources is named by (never a resource's)."""


def _other_instance_of_same_module(a: ModulePath, b: ModulePath) -> bool:
    """``a`` and ``b`` are different instances of one module of the configuration."""
    return a != b and len(a.steps) == len(b.steps) and all(x[0] == y[0] for x, y in zip(a.steps, b.steps, strict=True))


def _config_resources(c: ResourceInstanceChange) -> set[ResourceAddr]:
    """The resources ``c``'s configuration refers to, by instance or as a whole."""
    out = {a.resource for a in c.depends_on}
    out.update(c.depends_on_resources)
    return out


class _Reaches:
    """The edges terraform's transitive dependencies add beyond the direct ones (:mod:`.reach`):
    one :class:`Reach` per rule, each passing through the resources lacking, for some instance,
    the node that would carry the order."""

    def __init__(self, plan: Plan, b: _Builder, prior_of: Callable[[ResourceInstanceChange], set[ResourceAddr]]) -> None:
        self.b = b
        self.cfg: dict[ResourceAddr, ResourceAddr] = {}
        config: dict[ResourceAddr, set[ResourceAddr]] = defaultdict(set)
        prior: dict[ResourceAddr, set[ResourceAddr]] = defaultdict(set)
        instances: dict[ResourceAddr, set[InstanceAddr]] = defaultdict(set)
        for c in plan.changes:
            r = c.addr.resource
            if c.deposed is None:
                instances[r].add(c.addr)
            config[r] |= _config_resources(c)
            prior[r] |= prior_of(c)
        either = {r: frozenset(config[r] | prior[r]) for r in instances.keys() | config.keys() | prior.keys()}
        prior_deps = {r: frozenset(v) for r, v in prior.items()}
        n = {r: len(v) for r, v in instances.items()}
        cu = {r: len(v) for r, v in b.cu_by_res.items()}
        destroyed: dict[ResourceAddr, int] = defaultdict(int)
        plain: dict[ResourceAddr, int] = defaultdict(int)
        cbd: dict[ResourceAddr, int] = defaultdict(int)
        for r, nodes in b.d_by_res.items():
            for node, is_cbd in nodes:
                if b.work[node].change.deposed is None:
                    destroyed[r] += 1
                    (cbd if is_cbd else plain)[r] += 1

        def lacking(count: Mapping[ResourceAddr, int]) -> Callable[[ResourceAddr], bool]:
            return lambda r: count.get(r, 0) < n.get(r, 0) or r not in n

        with_cu = b.cu_by_res.keys()
        with_plain = [r for r, k in plain.items() if k]
        with_cbd = [r for r, k in cbd.items() if k]
        self.applied = self._applied(config, n, cu)  # E1
        self.plain_destroyed = Reach(either, lacking(cu), with_plain)  # E4
        self.cbd_destroyed = Reach(either, lacking(cbd), with_cbd)  # E4, create_before_destroy
        self.destroyed = Reach(prior_deps, lacking(destroyed), b.d_by_res.keys())  # E2
        self.destroyed_replaced = Reach(either, lacking(destroyed), b.d_by_res.keys())  # E2, replaced
        self.destroyed_first = Reach(prior_deps, lacking(plain), with_cu)  # E5
        self.destroyed_first_replaced = Reach(either, lacking(plain), with_cu)  # E5, replaced
        self.applied_first = Reach(prior_deps, lacking(cu), with_cu)  # E5, create_before_destroy

    def _applied(self, config: Mapping[ResourceAddr, set[ResourceAddr]], n: Mapping[ResourceAddr, int],
                 cu: Mapping[ResourceAddr, int]) -> Reach:
        """E1's reach, over configuration resources: terraform's graph has one node per resource of
        a module, not per module instance, which waits for what the resource refers to in every
        instance of the module. So an edge passing through ``module.m[0].b`` reaches ``a`` in every
        instance of ``m``, not only in ``m[0]``."""
        cfg = self.cfg  # each resource's configuration resource, computed once (hot: once per change)
        for r, ds in config.items():
            cfg[r] = config_resource(r)
            for d in ds:
                if d not in cfg:
                    cfg[d] = config_resource(d)
        for r in (*n, *cu):
            if r not in cfg:
                cfg[r] = config_resource(r)
        deps: dict[ResourceAddr, set[ResourceAddr]] = defaultdict(set)
        for r, ds in config.items():
            deps[cfg[r]].update(cfg[d] for d in ds)
        total: dict[ResourceAddr, int] = defaultdict(int)
        applied: dict[ResourceAddr, int] = defaultdict(int)
        for r, k in n.items():
            total[cfg[r]] += k
        for r, k in cu.items():
            applied[cfg[r]] += k
        self.member = {cfg[r]: r for r in self.b.cu_by_res}
        return Reach({r: frozenset(v) for r, v in deps.items()},
                     lambda r: applied.get(r, 0) < total.get(r, 0) or r not in total, self.member.keys())

    def add_edges(self, c: ResourceInstanceChange, cu_node: ApplyNode | None, own: tuple[ApplyNode, bool] | None,
                  config_res: set[ResourceAddr], prior_res: set[ResourceAddr]) -> None:
        b, g, me = self.b, self.b.g, c.addr.resource
        if cu_node is not None and c.deposed is None:
            direct = _config_resources(c)
            if direct:
                cfg = self.cfg
                reached = self.applied.beyond([cfg[d] for d in direct])
                if reached:
                    reached.discard(cfg[me])
                    for r in reached:
                        g.add_edge(cu_node, b.every_instance(self.member[r]))  # type: ignore[arg-type]
            both = direct | prior_res
            for r in self.plain_destroyed.beyond(both) - {me}:
                g.add_edge(cu_node, b.d_barrier(r, False))  # type: ignore[arg-type]
            for r in self.cbd_destroyed.beyond(both) - {me}:
                g.add_edge(b.collector(r, "dependents-applied"), cu_node)
        if own is not None:
            dn, is_cbd = own
            # a replaced object's destroy waits for the destroys of what depends on it in the new
            # configuration too (terraform merges those into the dependencies it orders by)
            reached = (self.destroyed_replaced.beyond(prior_res | _config_resources(c)) if c.is_replace
                       else self.destroyed.beyond(prior_res))
            for r in reached - {me}:
                g.add_edge(b.collector(r, "dependents-destroyed"), dn)
            if is_cbd:
                for r in self.applied_first.beyond(prior_res) - {me}:
                    g.add_edge(dn, b.barrier(r, "applied", b.cu_by_res[r]))  # type: ignore[arg-type]
            else:
                # a replaced object's destroy comes before the updates of what its new
                # configuration depends on too (terraform merges those into its dependencies)
                first = (self.destroyed_first_replaced.beyond(prior_res | _config_resources(c)) if c.is_replace
                         else self.destroyed_first.beyond(prior_res))
                for r in first - {me}:
                    g.add_edge(b.collector(r, "dependents-destroyed-first"), dn)

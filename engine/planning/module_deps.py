"""Which resources a value of a module instance comes from: a local value, an input variable (through
the argument its call gives it, in the calling instance), a module call's outputs, and what a
module call's ``depends_on`` makes everything in it wait for.

A resource that refers to ``module.m.ids`` waits for the resources behind that output in
``module.m``'s instance, not for the whole module (a reference to the call itself,
``module.m[*].ids``, waits for the whole module: :meth:`ModuleDeps.module_ref`); one that refers to ``var.x`` in a module waits
for what the caller's argument for ``x`` refers to. Each answer is a set of whole resources (full
addresses), worked out once per module instance and name.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.addrs import ModulePath, ResourceAddr, resource_addr
from engine.config.model import Module
from engine.config.module_instances import ModuleInstance, ModuleInstances
from engine.lang import expr as E
from engine.planning.order import ref_node


class ModuleDeps:
    """``prior``: the resources the state has (in modules, those the configuration no longer has
    count for a reference to the whole call too)."""

    def __init__(self, instances: ModuleInstances, prior: Iterable[ResourceAddr] = ()) -> None:
        self.instances = instances
        self._memo: dict[tuple[object, ...], frozenset[ResourceAddr]] = {}
        self._prior = prior
        self._prior_by_call: dict[tuple[ModulePath, str], list[ResourceAddr]] | None = None

    def _in_state(self, parent: ModulePath, call: str) -> list[ResourceAddr]:
        """The resources the state has under the call ``call`` of the module instance ``parent``,
        in any of its instances and the modules under them (indexed once, by every call on the
        way to each)."""
        if self._prior_by_call is None:
            index: dict[tuple[ModulePath, str], list[ResourceAddr]] = {}
            for r in self._prior:
                steps = r.module.steps
                for i, (name, _key) in enumerate(steps):
                    index.setdefault((ModulePath(steps[:i]), name), []).append(r)
            self._prior_by_call = index
        return self._prior_by_call.get((parent, call), [])

    def _cached(self, key: tuple[object, ...], work: list[E.Expr], mi: ModuleInstance,
                more: frozenset[ResourceAddr] = frozenset()) -> frozenset[ResourceAddr]:
        got = self._memo.get(key)
        if got is not None:
            return got
        self._memo[key] = frozenset()  # a cycle through values is reported elsewhere
        out = set(more)
        for e in work:
            out |= self.of_expr(mi, e)
        got = frozenset(out)
        self._memo[key] = got
        return got

    def of_expr(self, mi: ModuleInstance, e: E.Expr) -> set[ResourceAddr]:
        """Every resource (whole) ``e``, in ``mi``, refers to, through locals, variables and the
        outputs of called modules."""
        out: set[ResourceAddr] = set()
        for ref in E.references(e):
            out |= self.of_ref(mi, ref)
        return out

    def of_ref(self, mi: ModuleInstance, ref: E.Reference) -> frozenset[ResourceAddr] | set[ResourceAddr]:
        name = ref.step_name(0)
        if name is None:
            return set()
        if ref.root == "local":
            return self.local(mi, name)
        if ref.root == "var":
            return self.variable(mi, name)
        if ref.root == "module":
            return self.module_ref(mi, ref)
        node = ref_node(ref)
        if node is not None and node.kind == "resource":
            return {mi.at(node.name)}
        return set()

    def local(self, mi: ModuleInstance, name: str) -> frozenset[ResourceAddr]:
        lc = mi.config.locals.get(name)
        if lc is None:
            return frozenset()
        return self._cached((mi.path, "local", name), [lc.expr], mi)

    def variable(self, mi: ModuleInstance, name: str) -> frozenset[ResourceAddr]:
        if mi.parent is None or mi.call is None:
            return frozenset()
        arg = mi.call.arguments.get(name)
        if arg is None:
            return frozenset()
        key = (mi.path, "var", name)
        if key not in self._memo:
            self._memo[key] = frozenset(self.of_expr(mi.parent, arg.expr))
        return self._memo[key]

    def output(self, mi: ModuleInstance, name: str) -> frozenset[ResourceAddr]:
        oc = mi.config.outputs.get(name)
        if oc is None:
            return frozenset()
        key = (mi.path, "output", name)
        got = self._memo.get(key)
        if got is not None:
            return got
        more = {mi.at(a) for a, _k, _l in oc.depends_on}
        for mname in oc.depends_on_modules:
            more |= self.whole_call(mi, mname)
        exprs = [oc.expr, *(x for c in oc.preconditions for x in (c.condition, c.error_message))]
        return self._cached(key, exprs, mi, frozenset(more))

    def module_ref(self, mi: ModuleInstance, ref: E.Reference) -> frozenset[ResourceAddr] | set[ResourceAddr]:
        """``module.NAME...``: the output it names, of the instance it names; a reference that
        names no output stands for the whole call (:meth:`whole_call`).

        As terraform's: a reference names an output only as a static traversal,
        ``module.m.x`` or ``module.m["k"].x``. ``module.m``, ``module.m[*].x``, ``{ for k, v in
        module.m : … }``, ``module.m[0]`` and ``module.m[var.k].x`` are references to the call
        itself, which terraform's graph resolves to the node closing the module: the referrer
        depends on every resource in it, in modules under it too."""
        call = mi.config.calls.get(ref.step_name(0) or "")
        if call is None:
            return set()
        rest = ref.steps[1:]
        key: E.Literal | None = None
        if rest and isinstance(rest[0], E.Literal):
            key, rest = rest[0], rest[1:]
        if not rest or not isinstance(rest[0], str):
            return self.whole_call(mi, call.name)
        got = self.instances.call_instances(mi, call.name)
        if got is None:
            return set()
        _kind, paths = got
        if key is not None and (call.count is not None or call.for_each is not None):
            k = key.value
            if isinstance(k, float) and k.is_integer():
                k = int(k)
            paths = tuple(p for p in paths if p.steps[-1][1] == k)
        names = [rest[0]]
        out: set[ResourceAddr] = set()
        for p in paths:
            child = self.instances.by_path[p]
            for n in names:
                out |= self.output(child, n)
        return out

    def whole_call(self, mi: ModuleInstance, name: str) -> frozenset[ResourceAddr]:
        """Every resource of every instance of the call ``name`` in ``mi``, modules under it too,
        and what the arguments of those calls refer to (``depends_on = [module.NAME]``, a
        reference to the call itself); once per call (each instance of a dependent asks).

        As terraform's node closing a module, which waits for every node of it: its variables,
        and the expansion of its count or for_each, too, so the arguments count even where no
        resource of the module reads them, or the module has no instances."""
        key = (mi.path, "call", name)
        memo = self._memo.get(key)
        if memo is not None:
            return memo
        self._memo[key] = frozenset()  # a cycle through calls is reported elsewhere
        out: set[ResourceAddr] = set()
        stack: list[tuple[ModuleInstance, str]] = [(mi, name)] if name in mi.config.calls else []
        # terraform's plan graph has a node for each object the state has there and the
        # configuration not (an orphan), which the close node waits for too
        out.update(self._in_state(mi.path, name))
        while stack:
            parent, cn = stack.pop()
            call = parent.config.calls[cn]
            for e in (*(a.expr for a in call.arguments.values()),
                      *(m.expr for m in (call.count, call.for_each) if m is not None)):
                out |= self.of_expr(parent, e)
            out |= {parent.at(a) for a, _k, _l in call.depends_on}
            for dm in call.depends_on_modules:
                out |= self.whole_call(parent, dm)
            sub = self.instances.call_instances(parent, cn)
            if not sub or not sub[1]:  # terraform's graph has the resources' nodes all the same
                out |= _configured(call.module, parent.path.child(cn, None))
                continue
            for p in sub[1]:
                child = self.instances.by_path[p]
                out |= {child.at(a) for a in child.config.resources}
                stack.extend((child, n) for n in child.config.calls)
        self._memo[key] = frozenset(out)
        return self._memo[key]

    def inherited(self, mi: ModuleInstance) -> frozenset[ResourceAddr]:
        """What everything in ``mi`` waits for because a call on its way from the root has
        ``depends_on``."""
        if mi.parent is None or mi.call is None:
            return frozenset()
        key = (mi.path, "inherited")
        got = self._memo.get(key)
        if got is not None:
            return got
        out = set(self.inherited(mi.parent))
        out |= {mi.parent.at(a) for a, _k, _l in mi.call.depends_on}
        for mname in mi.call.depends_on_modules:
            out |= self.whole_call(mi.parent, mname)
        got = frozenset(out)
        self._memo[key] = got
        return got


def _configured(module: Module, path: ModulePath) -> set[ResourceAddr]:
    """Every resource of ``module`` and the modules it calls, at the module path ``path`` without
    instance keys: a module with no instances, whose resources the state names so
    (``module.m.terraform_data.r1``)."""
    out: set[ResourceAddr] = set()
    stack = [(module, path)]
    while stack:
        mod, at = stack.pop()
        out |= {resource_addr(a.type, a.name, a.mode, at) for a in mod.resources}
        stack.extend((c.module, at.child(n, None)) for n, c in mod.calls.items())
    return out

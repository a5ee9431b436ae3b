"""Per-instance dependencies: ``terraform_data.a[count.index].id`` makes instance ``b[i]`` depend on
``a[i]`` alone, not on every instance of ``a`` (terraform waits for the whole resource:
hashicorp/terraform#32148)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from engine.addrs import InstanceAddr, ResourceAddr, config_resource
from engine.config.constants import _NoResources
from engine.config.model import ResourceConfig
from engine.config.module_instances import ModuleInstance
from engine.config.references import expressions_of
from engine.frozen import frozen
from engine.lang import expr as E
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.planning.module_deps import ModuleDeps
from engine.planning.order import ref_node
from engine.values import UNKNOWN


@frozen
class RefSpec:
    """A reference of a resource's configuration to ``target``; ``key``: the expression of the
    instance key it names (``a[count.index]``), None when it names none."""

    target: ResourceAddr
    key: E.Expr | None


@frozen
class InstanceDeps:
    """What an instance depends on: single instances, whole resources (a reference with no key, or
    a key only known later, or through a local value), and both as the state records them
    (configuration resources, sorted by their text). ``keyed``: the resources of ``instances``
    named by a key that is not a constant (``a[count.index]``, ``a[each.key]``; never ``a["c"]``
    or ``a[0]``), which terraform's graph reads as references to the whole resource (what
    create_before_destroy forces: :attr:`~engine.plans.plan.ResourceInstanceChange.depends_on_whole`)."""

    instances: frozenset[InstanceAddr]
    resources: frozenset[ResourceAddr]
    recorded: tuple[ResourceAddr, ...]
    keyed: frozenset[ResourceAddr] = frozenset()


def ref_specs(rc: ResourceConfig, mi: ModuleInstance, mdeps: ModuleDeps) -> tuple[list[RefSpec], set[ResourceAddr]]:
    """What ``rc``'s configuration (in the module instance ``mi``) refers to, and the resources it
    needs whole (through locals, variables, module outputs, and the ``depends_on`` of the calls on
    the way to its module)."""
    specs: list[RefSpec] = []
    whole: set[ResourceAddr] = set(mdeps.inherited(mi))
    # count and for_each too: what they refer to must exist before any instance does (and is
    # recorded in each instance's dependencies, as terraform records it)
    for ref in references_of(rc):
        if ref.root in ("local", "var", "module"):
            whole |= mdeps.of_ref(mi, ref)
            continue
        node = ref_node(ref)
        if node is None:
            continue
        target: ResourceAddr = mi.at(node.name)
        ki = 2 if ref.root == "data" else 1
        step = ref.steps[ki] if len(ref.steps) > ki else None
        specs.append(RefSpec(target, step if isinstance(step, E.Expr) else None))
    for addr, key, _line in rc.depends_on:
        specs.append(RefSpec(mi.at(addr), key))
    for mname in rc.depends_on_modules:
        whole |= mdeps.whole_call(mi, mname)
    return specs, whole


_REFS: dict[int, tuple[object, list[E.Reference]]] = {}


def references_of(rc: ResourceConfig) -> list[E.Reference]:
    """Every reference in ``rc``'s configuration, count and for_each included: worked out once per
    resource block (the copies of a module's resource for each of its instances share them)."""
    got = _REFS.get(id(rc.attributes))
    if got is not None and got[0] is rc.attributes:
        return got[1]
    metas = [m.expr for m in (rc.count, rc.for_each) if m is not None]
    # replace_triggered_by's are dependencies too (recorded in the state, ordering apply), as terraform's
    refs = [ref for e in [*expressions_of(rc), *metas, *rc.lifecycle.replace_triggered_by] for ref in E.references(e)]
    _REFS[id(rc.attributes)] = (rc.attributes, refs)
    return refs


def through_empty(specs: list[RefSpec], whole: set[ResourceAddr],
                  known: Mapping[ResourceAddr, frozenset[ResourceAddr]]) -> frozenset[ResourceAddr]:
    """What a resource with no instances depends on (``known``: the same of the other resources
    without instances it depends on, whose own dependencies it stands for too)."""
    out = set(whole) | {s.target for s in specs}
    for r in list(out):
        out |= known.get(r, frozenset())
    return frozenset(out)


def instance_deps(specs: list[RefSpec], whole: set[ResourceAddr], scope: Scope,
                  kind_of: Callable[[ResourceAddr], str],
                  through: Mapping[ResourceAddr, frozenset[ResourceAddr]] | None = None) -> InstanceDeps:
    """The dependencies of the instance whose scope is ``scope`` (``kind_of``: how a referred
    resource expands). ``through``: for each resource with no instances, what it depends on
    (:func:`through_empty`): depended on whole, as terraform waits through the empty resource,
    and recorded, as terraform records every transitive dependency: a resource with no objects
    in the state would otherwise break the chain of dependencies that orders a later destroy.
    Only through those: recording every transitive dependency would make the state quadratic in
    size on deep graphs."""
    insts: set[InstanceAddr] = set()
    res: set[ResourceAddr] = set(whole)
    keyed: set[ResourceAddr] = set()
    for s in specs:
        if s.target in res:
            continue
        if through and s.target in through:
            # one instance of a resource without any (replace_triggered_by may name one the state
            # still has): waited for through it, as the whole
            res.add(s.target)
            continue
        kind = kind_of(s.target)
        if kind == "single":
            insts.add(InstanceAddr(s.target, None))
            continue
        if s.key is None:
            res.add(s.target)
            continue
        try:
            k = evaluate(s.key, Scope(scope.variables, scope.local_value, _NoResources(),
                                      scope.count_index, scope.each))
        except EvalError:
            k = UNKNOWN
        if isinstance(k, float) and k.is_integer():
            k = int(k)
        if isinstance(k, (int, str)) and not isinstance(k, bool):
            insts.add(InstanceAddr(s.target, k))
            if not isinstance(s.key, E.Literal):
                keyed.add(s.target)
        else:
            res.add(s.target)
    if through:  # waited for whole, as terraform's graph waits through the empty resource's node
        for r in [r for r in res if r in through]:
            res |= through[r]
    recorded = tuple(sorted({config_resource(d.resource) for d in insts} | {config_resource(r) for r in res}, key=str))
    return InstanceDeps(frozenset(insts), frozenset(res), recorded, frozenset(keyed - res))


"""A resource's plan: its instances expanded, each one's configuration evaluated and validated
(by the provider too), its preconditions checked, then planned (managed: :mod:`.instance`; data:
:mod:`.data_sources`) and its postconditions checked against the planned object; deposed objects
planned for deletion with their instance.

What refers to a resource that could not be planned is not planned either (as terraform's plan
walk): the context's ``failed`` grows, and such a resource has no instances in the resolver.
"""

from __future__ import annotations

from collections.abc import Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio

from engine.addrs import InstanceAddr, InstanceKey
from engine.config import conditions
from engine.config.checkables import POSTCONDITION, PRECONDITION, resource_config_addr
from engine.config.instance import evaluate_instance_config
from engine.config.model import ResourceConfig
from engine.config.module_instances import ModuleInstance
from engine.config.references import expressions_of, self_reference_error, self_references
from engine.diagnostics import Diagnostic, errors_of
from engine.lang.evaluate import Scope
from engine.lang.sensitivity import recorded_names
from engine.memory import tick
from engine.planning.context import PlanContext, needs_values
from engine.planning.data_sources import plan_data
from engine.planning.dependencies import instance_deps, ref_specs, references_of, through_empty
from engine.planning.expansion import Instances, expand, kind_of
from engine.planning.instance import InstanceToPlan, ResourceTarget, plan_instance
from engine.planning.replace_triggers import (
    ChangesByResource,
    changes_by_resource,
    instance_of,
    triggered,
)
from engine.plans.plan import Action, ResourceInstanceChange
from engine.provider.protocol import ValidateResourceConfigRequest
from engine.values import UNKNOWN


async def plan_resource(ctx: PlanContext, rc: ResourceConfig, mi: ModuleInstance | None = None) -> None:
    """Plan every (targeted) instance of ``rc`` (its address in the module instance ``mi``; the
    root when None), adding the changes to the context's plan and the planned values to its
    resolver."""
    mi = mi or ctx.root
    metas = [m.expr for m in (rc.count, rc.for_each) if m is not None]
    if (ctx.failed or ctx.failed_outputs) and ctx.uses_failed(
            [*expressions_of(rc), *metas, *rc.lifecycle.replace_triggered_by],
            {mi.at(a) for a, _k, _l in rc.depends_on}, mi):
        # as terraform's plan walk: what depends on a resource that could not be planned is not
        ctx.failed.add(rc.addr)
        ctx.resolver.record_unplanned(rc.addr, kind_of(rc))
        return
    expanded = None
    mentions_itself = _mentions_itself(rc)
    if not mentions_itself or not _refers_to_itself(ctx, rc, self_references(rc, metas), str(rc.addr)):
        found = expand(rc, mi.scope)
        if isinstance(found, Instances):
            expanded = found
        else:
            _expansion_error(ctx, rc, found)
    if expanded is not None and not expanded.instances:  # what it depends on, its dependents record
        specs0, whole0 = ref_specs(rc, mi, ctx.module_deps)
        ctx.through_empty[rc.addr] = through_empty(specs0, whole0, ctx.through_empty)
    untargeted: list[InstanceKey] = []
    if expanded is not None and ctx.targets is not None and rc.addr not in ctx.targets.resources \
            and not ctx.targets.in_modules(rc.addr):
        # only some instances targeted: the others are not planned, and are seen as they are
        chosen = ctx.targets.instances
        untargeted = [k for k, _sc in expanded.instances if InstanceAddr(rc.addr, k) not in chosen]
        expanded = Instances(expanded.kind, tuple((k, sc) for k, sc in expanded.instances
                                                  if InstanceAddr(rc.addr, k) in chosen))
    if expanded is None:
        ctx.failed.add(rc.addr)
        ctx.resolver.record_unplanned(rc.addr, kind_of(rc))
        return
    if (rc.lifecycle.preconditions or rc.lifecycle.postconditions) \
            and ctx.checkables.has(config := resource_config_addr(rc.addr)):  # as terraform's: targeted or not
        keys = (*(k for k, _s in expanded.instances), *untargeted)
        ctx.checkables.objects(config, [str(rc.addr.instance(k)) for k in keys])
    ctx.resolver.kind[rc.addr] = expanded.kind
    values: dict[InstanceKey, Any] = {}
    ctx.resolver.values[rc.addr] = values
    pname = rc.provider_key
    schema = ctx.providers.schema(pname, rc.addr.type, rc.addr.mode)
    assert schema is not None
    target = ResourceTarget(rc, schema, ctx.providers.seam(pname), ctx.providers.config_address(pname))
    specs, whole = ref_specs(rc, mi, ctx.module_deps)
    rs = ctx.state.resources.get(rc.addr)
    prior_instances = rs.instances if rs is not None else {}
    for key in untargeted:  # an output over the whole resource sees them, as terraform's does
        inst = prior_instances.get(key)
        if inst is not None and inst.current is not None:
            values[key] = inst.current.attributes
    exprs = expressions_of(rc)
    for key, _scope in expanded.instances:  # an instance that refers to a later one sees it unknown
        tick()
        values.setdefault(key, UNKNOWN)
    if ctx.targets is not None:
        _left_out(ctx, rc, expanded.kind, prior_instances, {*untargeted, *(k for k, _sc in expanded.instances)},
                  values)
    # what replace_triggered_by names was planned before this resource (the graph's edges)
    triggers = _Triggers(mi, changes_by_resource(ctx.plan.changes)) \
        if rc.lifecycle.replace_triggered_by and rc.addr.mode == "managed" else None

    def work(key: InstanceKey, scope: Scope) -> Coroutine[Any, Any, _Outcome]:
        return _plan_one(ctx, rc, target, key, scope, prior_instances.get(key), specs, whole, triggers)

    def commit(key: InstanceKey, scope: Scope, out: _Outcome) -> None:
        _commit(ctx, rc, target, key, scope, out, values, exprs, mi)

    if rc.addr.mode == "managed" and not mentions_itself and len(expanded.instances) > 1 \
            and ctx.parallelism > 1:
        # no instance can see another: their provider calls overlap, up to -parallelism in
        # flight (as terraform's plan walk makes them); committed in order, so the plan and its
        # diagnostics are those one instance after the other would make
        outcomes: list[_Outcome | None] = [None] * len(expanded.instances)
        raised: list[tuple[int, Exception]] = []
        pending = iter(enumerate(expanded.instances))

        limits = ctx.limits if ctx.limits is not None and ctx.limits.active() else None

        async def worker() -> None:
            for i, (key, scope) in pending:  # one event loop: next() needs no lock
                if raised:
                    return
                tick()
                try:
                    if limits is None:
                        outcomes[i] = await work(key, scope)
                    else:  # -provider-parallelism and the rest hold here as in apply
                        async with limits.slot(rc.provider_key, rc.addr.type):
                            outcomes[i] = await work(key, scope)
                except MemoryError:
                    raise  # the run ends here: the command says so in one line
                except Exception as exc:  # a provider that raises stops the plan, as it would alone
                    raised.append((i, exc))

        async with anyio.create_task_group() as tg:
            for _ in range(min(ctx.parallelism, len(expanded.instances))):
                tg.start_soon(worker)
        stop, exc = min(raised, key=lambda r: r[0]) if raised else (len(outcomes), None)
        for (key, scope), got in zip(expanded.instances[:stop], outcomes[:stop], strict=True):
            assert got is not None
            commit(key, scope, got)
        if exc is not None:
            raise exc
        ctx.resolver.planned.add(rc.addr)
        return
    for key, scope in expanded.instances:
        addr = rc.addr.instance(key)
        # per instance, as terraform's: "Configuration for terraform_data.a[0] may not refer to itself"
        if mentions_itself and _refers_to_itself(ctx, rc, self_references(rc, exprs, key), str(addr)):
            ctx.failed.add(rc.addr)
            values[key] = UNKNOWN
            continue
        commit(key, scope, await work(key, scope))
    ctx.resolver.planned.add(rc.addr)


@dataclass(slots=True)
class _Triggers:
    """What a resource's ``replace_triggered_by`` is decided with: its module instance and the
    changes planned before it."""

    mi: ModuleInstance
    changes: ChangesByResource


@dataclass(slots=True)
class _Outcome:
    """What planning one instance found, before it is added to the plan: its configuration's own
    diagnostics, the provider's verdict on it, unmet preconditions, and the planned change (a
    managed instance) with the provider's diagnostics, or the value read (a data instance)."""

    eval_diags: list[Diagnostic]
    valid_diags: list[Diagnostic] = field(default_factory=list)
    unmet: list[Diagnostic] = field(default_factory=list)
    trigger_errors: list[Diagnostic] = field(default_factory=list)
    change: ResourceInstanceChange | None = None
    found: list[Diagnostic] = field(default_factory=list)
    value: Any = UNKNOWN
    prior: Any = None


async def _plan_one(ctx: PlanContext, rc: ResourceConfig, target: ResourceTarget, key: InstanceKey,
                    scope: Scope, inst: Any, specs: Any, whole: Any, triggers: _Triggers | None = None) -> _Outcome:
    """One instance evaluated, validated (by the provider too), its preconditions checked and
    planned; a managed instance changes nothing in ``ctx`` (see :func:`_commit`)."""
    addr = rc.addr.instance(key)
    # a mistake in an expression names its block, as terraform's does (no instance address)
    config, cdiags = evaluate_instance_config(rc, target.schema, scope)
    out = _Outcome(list(cdiags), prior=inst)
    if not cdiags:
        # the provider's verdict is about this instance: "with ADDR", as terraform says
        out.valid_diags = list((await target.provider.validate_resource_config(
            ValidateResourceConfigRequest(rc.addr.type, config), data=rc.addr.mode == "data",
            address=str(addr), subject=rc.range, body=rc)).diagnostics)
    if errors_of(out.eval_diags or out.valid_diags):
        return out
    replace_triggered = False
    if triggers is not None:  # as terraform's: decided before the preconditions are checked
        count_index, each_key = instance_of(addr)
        replace_triggered, out.trigger_errors = triggered(
            rc.lifecycle.replace_triggered_by, rc.range.filename, count_index, each_key, triggers.mi.config,
            triggers.mi.path, triggers.changes, ctx.state)
        if out.trigger_errors:
            return out
    if rc.lifecycle.preconditions:
        out.unmet, _ = conditions.check(rc.lifecycle.preconditions, scope, "precondition",
                                        report=ctx.checkables.reporter(str(addr), PRECONDITION))
        if out.unmet:  # as terraform's: the instance is not planned
            return out
    deps = instance_deps(specs, whole, scope, ctx.resolver.expansion, ctx.through_empty)
    one = InstanceToPlan(target, addr, config, inst.current if inst is not None else None, deps, replace_triggered)
    if rc.addr.mode == "data":
        out.value = await plan_data(ctx, one)
    else:
        out.change = await plan_instance(ctx, one, out.found)
    return out


def _left_out(ctx: PlanContext, rc: ResourceConfig, kind: str, prior: Mapping[InstanceKey, Any],
              configured: set[InstanceKey], values: dict[InstanceKey, Any]) -> None:
    """Under -target, the instances the state still has that the configuration no longer does
    and no target destroys, added to the resource's value as terraform's evaluator adds them
    (keys of the expansion's type only; a counted resource's missing indexes unknown): an output
    over the whole resource still lists them (as the apply's resolver does,
    :func:`engine.apply.resolver.left_out_instances`)."""
    assert ctx.targets is not None
    want = int if kind == "count" else str if kind == "for_each" else type(None)
    added = False
    for key, inst in prior.items():
        if key in configured or inst.current is None or not isinstance(key, want) \
                or ctx.targets.covers(rc.addr.instance(key)):
            continue
        values[key] = inst.current.attributes
        added = True
    if added and kind == "count":
        for i in range(max(k for k in values if isinstance(k, int)) + 1):
            values.setdefault(i, UNKNOWN)


def _commit(ctx: PlanContext, rc: ResourceConfig, target: ResourceTarget, key: InstanceKey, scope: Scope,
            out: _Outcome, values: dict[InstanceKey, Any], exprs: Any, mi: ModuleInstance) -> None:
    """What :func:`_plan_one` found for one instance, added to the plan (in instance order)."""
    tick()
    addr = rc.addr.instance(key)
    for d in out.eval_diags:
        # the expression on the line the error names (all of them when none is there)
        failed = [e for e in exprs if d.subject is not None and e.line == d.subject.line] or exprs
        if d.severity == "error" and needs_values(d) and ctx.needs_plan_values(failed, mi.config):
            ctx.walk_errors.append(d)
    cdiags = out.eval_diags or out.valid_diags
    if cdiags:
        ctx.diags.extend(_unseen(cdiags, ctx.diags))
        if addr in ctx.generated:  # terraform checks configuration it generated in its plan walk
            ctx.walk_errors.extend(errors_of(cdiags))
        if errors_of(cdiags):
            ctx.failed.add(rc.addr)
            values[key] = UNKNOWN
            return
    if out.trigger_errors or out.unmet:
        for f in (*out.trigger_errors, *out.unmet):
            ctx.walk_error(f)
        ctx.failed.add(rc.addr)
        values[key] = UNKNOWN
        return
    if rc.addr.mode == "data":
        values[key] = out.value
        _postconditions(ctx, rc, key, scope, out.value)
        return
    change = out.change
    assert change is not None
    ctx.diags.extend(out.found)
    ctx.walk_errors.extend(out.found)
    values[key] = change.after if change.after is not None else UNKNOWN
    ctx.plan.changes.append(change)
    if change.after is not None:
        _postconditions(ctx, rc, key, scope, change.after)
    inst = out.prior
    if inst is not None:
        for dk, dobj in inst.deposed.items():
            ctx.plan.changes.append(ResourceInstanceChange(
                addr, Action.DELETE, target.provider_addr, dobj.attributes, None, None, dk,
                create_before_destroy=True, prior_dependencies=dobj.dependencies,
                sensitive=ctx.sensitive_of(addr) | recorded_names(dobj)))


def _mentions_itself(rc: ResourceConfig) -> bool:
    """Does any reference in ``rc``'s configuration name its own resource? Worked out once per
    resource block: a module's resource is planned once per instance of the module."""
    a = rc.addr
    for ref in references_of(rc):
        if (ref.root == "data" and a.mode == "data" and ref.step_name(0) == a.type and ref.step_name(1) == a.name) \
                or (a.mode == "managed" and ref.root == a.type and ref.step_name(0) == a.name):
            return True
    return False


def _refers_to_itself(ctx: PlanContext, rc: ResourceConfig, lines: list[int], addr: str) -> bool:
    """terraform's "Self-referential block" for each of ``lines`` (where ``addr``'s
    configuration refers to its own resource); whether there was any."""
    for line in lines:
        ctx.walk_error(self_reference_error(rc, line, addr))
    return bool(lines)


def _expansion_error(ctx: PlanContext, rc: ResourceConfig, d: Diagnostic) -> None:
    """A mistake in ``count`` or ``for_each``. Terraform's validation, before it plans, finds
    one in a constant expression; one that needs other values, its plan walk."""
    ctx.diags.append(d)
    meta = rc.count if rc.count is not None else rc.for_each
    if meta is not None and ctx.needs_plan_values([meta.expr]):
        ctx.walk_errors.append(d)


def _postconditions(ctx: PlanContext, rc: ResourceConfig, key: InstanceKey, scope: Scope, value: Any) -> None:
    """A resource's postconditions against its planned object (``self``); what is not known yet is
    checked after apply."""
    if rc.lifecycle.postconditions and value is not UNKNOWN:
        failed, _ = conditions.check(rc.lifecycle.postconditions, scope.child({"self": value}), "postcondition",
                                     self_of=(rc.addr.mode, rc.addr.type, rc.addr.name),
                                     report=ctx.checkables.reporter(str(rc.addr.instance(key)), POSTCONDITION))
        for d in failed:
            ctx.walk_error(d)


def _unseen(diags: list[Diagnostic], seen: list[Diagnostic]) -> list[Diagnostic]:
    """``diags`` without those already reported: a mistake in a counted resource's expression is
    the same diagnostic for every instance, and terraform reports it once."""
    return [d for d in diags if d.address is not None or d not in seen]

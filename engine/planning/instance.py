"""A managed resource instance's plan: its configuration (``ignore_changes`` applied) and prior
object sent to the provider's PlanResourceChange through the seam, the answer held to the
protocol's promises, and the action chosen by :func:`~engine.plans.plan.select_action`."""

from __future__ import annotations

from typing import Any

from engine.addrs import InstanceAddr, ProviderConfigAddr
from engine.config.model import ResourceConfig
from engine.diagnostics import Diagnostic, error
from engine.frozen import frozen
from engine.lang.sensitivity import recorded_names
from engine.planning.context import PlanContext
from engine.planning.dependencies import InstanceDeps
from engine.planning.ignore_changes import apply_ignore_changes
from engine.plans.plan import Action, Reason, ResourceInstanceChange, changed_paths, select_action
from engine.provider.contracts import check_planned_state
from engine.provider.protocol import (
    AttributePath,
    PlanResourceChangeRequest,
    ResourceSchema,
    proposed_new_state,
)
from engine.provider.seam import Failure, ProviderSeam, replace_paths, tolerated
from engine.state.model import ObjectState

# a provider that raises while planning stops the plan (the planner's wording of it)
_PLAN_FAILED = Failure("Provider failed to plan", "{repr}", raises=True)


@frozen
class ResourceTarget:
    """What every instance of a resource is planned with: its configuration block, its type's
    schema, its provider (through the seam) and the provider's address as the state records it."""

    config: ResourceConfig
    schema: ResourceSchema
    provider: ProviderSeam
    provider_addr: ProviderConfigAddr


@frozen
class InstanceToPlan:
    """One instance, ready to plan: its address, its configuration evaluated (every attribute of
    the schema, null when not set), its current object in the prior state (None: there is none),
    what it depends on, and whether a change elsewhere replaces it."""

    resource: ResourceTarget
    addr: InstanceAddr
    config: dict[str, Any]
    prior: ObjectState | None
    deps: InstanceDeps
    replace_triggered: bool = False
    """Its ``replace_triggered_by`` names a change that replaces it (:mod:`.replace_triggers`)."""


async def plan_instance(ctx: PlanContext, inst: InstanceToPlan,
                        found: list[Diagnostic] | None = None) -> ResourceInstanceChange:
    """The change planned for ``inst``; the provider's diagnostics and broken promises are added to
    ``found`` when given (the caller adds them to the plan), else to the context's (as found in
    the plan walk). Nothing else in ``ctx`` changes."""
    rc, schema, addr, deps = inst.resource.config, inst.resource.schema, inst.addr, inst.deps
    prior_obj, config = inst.prior, inst.config
    prior = prior_obj.attributes if prior_obj is not None else None
    tainted = prior_obj is not None and prior_obj.tainted
    lc = rc.lifecycle
    cbd = lc.create_before_destroy
    if prior is not None and (lc.ignore_changes or lc.ignore_all_changes):
        paths = tuple((("attr", n),) for n in schema.attributes) if lc.ignore_all_changes else lc.ignore_changes
        config = apply_ignore_changes(prior, config, paths, schema)
    plan_prior = None if tainted else prior
    prior_private = prior_obj.private if prior_obj is not None and not tainted else b""
    planned, requires_replace, private = await _call_plan(ctx, inst, plan_prior, config, prior_private, found)
    if requires_replace:  # kept as terraform keeps them: only where the value changes (SDK
        # providers name "id" in every answer; it forces nothing while it stays the same)
        requires_replace = (changed_paths(prior, planned, requires_replace)
                            if prior is not None and planned is not None else ())
    action, reason = select_action(prior, planned, tainted=tainted, requires_replace=requires_replace,
                                   create_before_destroy=cbd,
                                   replace_requested=addr in ctx.replace or inst.replace_triggered)
    if inst.replace_triggered:  # terraform's says so whatever the action (a create too)
        reason = Reason.REPLACE_BY_TRIGGERS
    if action in Action.REPLACES and plan_prior is not None:
        # plan the replacement object as a create, as terraform does
        planned, _, private = await _call_plan(ctx, inst, None, config, b"", found)
    return ResourceInstanceChange(
        addr, action, inst.resource.provider_addr, prior, planned, reason, None, requires_replace, cbd,
        deps.instances, deps.resources, deps.recorded, prior_obj.dependencies if prior_obj is not None else (),
        config, ctx.sensitive_of(addr) | recorded_names(prior_obj), marks=ctx.sensitive_of(addr), private=private,
        depends_on_whole=deps.keyed)


async def _call_plan(ctx: PlanContext, inst: InstanceToPlan, prior: dict[str, Any] | None, config: dict[str, Any],
                     prior_private: bytes, into: list[Diagnostic] | None
                     ) -> tuple[dict[str, Any] | None, tuple[AttributePath, ...], bytes]:
    rc, schema, addr = inst.resource.config, inst.resource.schema, inst.addr
    proposed = proposed_new_state(schema, prior, config)
    resp = await inst.resource.provider.plan_resource_change(
        PlanResourceChangeRequest(rc.addr.type, prior, proposed, config, prior_private),
        address=str(addr), subject=rc.range, failure=_PLAN_FAILED, body=rc)
    found: list[Diagnostic] = list(resp.diagnostics)
    problem = check_planned_state(schema, config, prior, resp.planned_state)
    if problem and tolerated(resp.legacy_type_system, "an invalid plan", rc.provider_key, str(addr),
                             f"{addr}{problem}"):
        problem = None
    if problem:
        found.append(error("Provider produced invalid plan",
                           f'Provider "{rc.provider_key}" planned an invalid value for {addr}{problem}. '
                           "This is a bug in the provider, which should be reported in the "
                           "provider's own issue tracker.", rc.range, str(addr)))
    if into is not None:
        into.extend(found)
    else:
        ctx.diags.extend(found)
        ctx.walk_errors.extend(found)
    return resp.planned_state, replace_paths(resp.requires_replace), resp.planned_private

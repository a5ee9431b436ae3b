"""Objects to delete: those in the state that the configuration no longer has (orphans, with
terraform's reason), every object for a destroy plan, and the refusal of ``prevent_destroy``.
Deposed objects of a configured instance are planned with the instance (:mod:`.resources`); here
only those of orphans."""

from __future__ import annotations

from engine.diagnostics import error
from engine.planning.context import PlanContext
from engine.planning.forget import forgets
from engine.plans.plan import Action, Reason, ResourceInstanceChange, orphan_reason


def plan_orphans(ctx: PlanContext) -> None:
    """A deletion for each (targeted) object whose instance is not in configuration any more; a
    data source's is forgotten instead. An instance of a resource whose planning failed is left."""
    for addr, deposed, obj, prov in list(ctx.state.objects()):
        rc = ctx.module.resource_at(addr.resource)
        if ctx.targets is not None and not ctx.targets.covers(addr) and not (
                # terraform plans a resource's objects in the module instances no longer configured
                # with the resource, whichever of its instances the targets name
                rc is not None and addr.resource.module.steps and ctx.instances.get(addr.resource.module) is None
                and ctx.targets.touches_config(addr.resource)):
            continue  # not targeted: left as it is (data sources too)
        # its module is configured but not this instance of it: "because module.m[1] is not in configuration"
        no_module = rc is not None and bool(addr.resource.module.steps) and \
            ctx.instances.get(addr.resource.module) is None
        if no_module:
            rc = None
        if addr.resource.mode == "data":
            if rc is None or addr.key not in ctx.resolver.values.get(addr.resource, {}):
                ctx.plan.forget.append(addr)
            continue
        kind = ctx.resolver.kind.get(addr.resource, "single")
        if rc is not None:
            vals = ctx.resolver.values.get(addr.resource, {})
            if addr.key in vals:
                continue  # in configuration (its deposed objects were planned with the instance)
            if ctx.errored(addr):
                continue
        reason = None if deposed else orphan_reason(rc is not None, kind != "single", addr.key, kind)
        if not deposed and no_module:
            reason = Reason.DELETE_NO_MODULE
        if ctx.forgotten and rc is None and not deposed and forgets(ctx.forgotten, addr):
            ctx.plan.forget.append(addr)  # a removed block's destroy = false (its deposed objects are destroyed)
            ctx.plan.changes.append(ResourceInstanceChange(
                addr, Action.FORGET, prov, obj.attributes, obj.attributes, reason,
                sensitive=ctx.sensitive_in_state(addr, obj, prov)))
            continue
        ctx.plan.changes.append(ResourceInstanceChange(
            addr, Action.DELETE, prov, obj.attributes, None, reason, deposed,
            create_before_destroy=obj.create_before_destroy or deposed is not None,
            prior_dependencies=obj.dependencies, sensitive=ctx.sensitive_in_state(addr, obj, prov)))


def plan_destroy(ctx: PlanContext) -> None:
    """A destroy plan: a deletion for every (targeted) object in the state, data sources forgotten."""
    if ctx.targets is not None:
        ctx.plan.outputs = dict(ctx.plan.prior_outputs)  # a targeted destroy keeps the outputs
    for addr, deposed, obj, prov in ctx.state.objects():
        if ctx.targets is not None and not ctx.targets.covers(addr):
            continue
        if addr.resource.mode == "data":
            ctx.plan.forget.append(addr)
            continue
        ctx.plan.changes.append(ResourceInstanceChange(
            addr, Action.DELETE, prov, obj.attributes, None, None, deposed,
            create_before_destroy=obj.create_before_destroy or deposed is not None,
            prior_dependencies=obj.dependencies, sensitive=ctx.sensitive_in_state(addr, obj, prov)))


def check_prevent_destroy(ctx: PlanContext) -> None:
    """``lifecycle { prevent_destroy = true }``: a plan that destroys such an object is an error."""
    for c in ctx.plan.changes:
        if c.action != Action.DELETE and not c.is_replace:
            continue
        rc = ctx.module.resource_at(c.addr.resource)
        if rc is None or not rc.lifecycle.prevent_destroy:
            continue
        ctx.walk_error(error(
            "Instance cannot be destroyed",
            f"Resource {c.addr} has lifecycle.prevent_destroy set, but the plan calls for this "
            "resource to be destroyed. To avoid this error and continue with the plan, either "
            "disable lifecycle.prevent_destroy or reduce the scope of the plan using the -target "
            "option.", rc.range.header()))

"""What refresh found, for the plan: the objects it (and schema upgrades) changed, for apply to
start from; and a ``-refresh-only`` plan, which changes no object but records the drift and the
outputs as the refreshed objects make them."""

from __future__ import annotations

from engine.addrs import InstanceAddr, ProviderConfigAddr
from engine.events import stream as ev
from engine.lang.evaluate import EvalError, evaluate
from engine.planning.context import PlanContext
from engine.planning.expansion import kind_of
from engine.planning.order import CfgNode
from engine.planning.refresh import Refresher
from engine.planning.resources import plan_resource
from engine.plans.plan import Action, Refreshed, ResourceInstanceChange
from engine.state.model import ObjectState

Drift = list[tuple[InstanceAddr, ProviderConfigAddr, ObjectState, ObjectState | None]]
"""(address, provider address, object before, object after refresh: None when it is gone)."""


def record_refreshed(ctx: PlanContext, refresher: Refresher) -> None:
    """What refresh and schema upgrades changed of the prior state, for apply to start from."""
    found = [Refreshed(addr, prov, obj, deposed) for addr, prov, obj, deposed in refresher.upgraded]
    found += [Refreshed(addr, prov, after) for addr, prov, _before, after in refresher.drift]
    ctx.plan.refreshed = tuple(found)


async def plan_refresh_only(ctx: PlanContext, drift: Drift, order: list[CfgNode]) -> None:
    """No object changes: the drift refresh found, to be recorded, and the outputs as the
    refreshed objects make them."""
    plan = ctx.plan
    plan.refresh_only = True
    for addr, prov, before, after in sorted(drift, key=lambda d: d[0].sort_key()):
        action = Action.UPDATE if after is not None else Action.DELETE
        plan.drift.append(ResourceInstanceChange(
            addr, action, prov, before.attributes, after.attributes if after is not None else None,
            sensitive=ctx.sensitive_in_state(addr, before, prov)))
        ctx.emit(ev.resource_drift(addr, "update" if after is not None else "delete"))
    # the objects as they now are, for the outputs (and the apply's view of them)
    for r, rc in ctx.module.resources.items():
        ctx.resolver.kind[r] = kind_of(rc)
        rs = ctx.state.resources.get(r)
        ctx.resolver.values[r] = {k: inst.current.attributes for k, inst in (rs.instances.items() if rs else ())
                                  if inst.current is not None}
    for r, rs in ctx.state.resources.items():  # in modules: as the state has them
        mrc = ctx.module.resource_at(r) if r.module.steps else None
        if mrc is not None:
            ctx.resolver.kind[r] = kind_of(mrc)
            ctx.resolver.values[r] = {k: inst.current.attributes for k, inst in rs.instances.items()
                                      if inst.current is not None}
    # data sources are read again, as in any plan: an output may show what they read
    for node in order:
        data = ctx.module.resources.get(node.name) if node.kind == "resource" and not node.path else None
        if data is not None and data.addr.mode == "data":
            await plan_resource(ctx, data)
    for oc in ctx.module.outputs.values():
        try:
            plan.outputs[oc.name] = (evaluate(oc.expr, ctx.scope()), oc.sensitive)
        except (EvalError, KeyError):
            # refers to what does not exist yet: keeps its value
            if oc.name in plan.prior_outputs:
                plan.outputs[oc.name] = plan.prior_outputs[oc.name]
            plan.kept_outputs.add(oc.name)

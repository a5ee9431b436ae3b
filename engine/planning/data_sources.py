"""A data source instance: read now when its configuration is known and nothing it depends on
changes; otherwise a read planned for apply."""

from __future__ import annotations

import time
from typing import Any

from engine.diagnostics import error, errors_of
from engine.events import stream as ev
from engine.planning.checks import plan_scoped_read
from engine.planning.context import PlanContext
from engine.planning.instance import InstanceToPlan
from engine.plans.plan import Action, DataRead, Reason, ResourceInstanceChange
from engine.provider.protocol import ReadDataSourceRequest
from engine.provider.seam import Failure
from engine.values import UNKNOWN, is_wholly_known

_READ_DATA_FAILED = Failure("Provider failed to read data source", "{repr}", raises=True)


async def plan_data(ctx: PlanContext, inst: InstanceToPlan) -> Any:
    """The value of data source instance ``inst``: what it read (recorded in the plan's
    ``data_reads``), or, with the read deferred to apply (a READ change), its configuration with
    the unset attributes unknown.

    The read is deferred when the configuration has unknowns, or when the data resource depends on
    a managed resource with a change planned."""
    rc, addr, config, deps = inst.resource.config, inst.addr, inst.config, inst.deps
    prov_addr = inst.resource.provider_addr
    pending = any(c.addr in deps.instances or c.addr.resource in deps.resources
                  for c in ctx.plan.changes if c.action != Action.NOOP)
    if not pending and is_wholly_known(config) and rc.check is not None:  # scoped to a check block
        return await plan_scoped_read(ctx, inst, lambda: inst.resource.provider.read_data_source(
            ReadDataSourceRequest(rc.addr.type, config), address=str(addr), subject=rc.range, body=rc))
    if not pending and is_wholly_known(config):
        ctx.emit(ev.apply_start(addr, "read"))  # terraform's "Reading...", as it reads one now
        started = time.monotonic()
        resp = await inst.resource.provider.read_data_source(
            ReadDataSourceRequest(rc.addr.type, config), address=str(addr), subject=rc.range,
            failure=_READ_DATA_FAILED, body=rc)
        ctx.emit(ev.read_ended(addr, resp.state, bool(errors_of(resp.diagnostics)), time.monotonic() - started,
                               inst.resource.schema.id_attribute))
        if resp.diagnostics:
            ctx.diags.extend(resp.diagnostics)
        if resp.state is None:
            return UNKNOWN
        if not is_wholly_known(resp.state):
            ctx.diags.append(error("Provider produced invalid object",
                                   f'Provider "{rc.provider_key}" returned unknown values when reading '
                                   f"{addr}.", rc.range, str(addr)))
        ctx.plan.data_reads[addr] = DataRead(prov_addr, resp.state, ctx.sensitive_of(addr))
        return resp.state
    if rc.check is not None:
        ctx.plan.scoped_reads.add(addr)
    planned = {k: (v if v is not None else UNKNOWN) for k, v in config.items()}
    # terraform's reason: the configuration's unknowns first
    reason = Reason.READ_DEPENDENCY_PENDING if is_wholly_known(config) else Reason.READ_CONFIG_UNKNOWN
    ctx.plan.changes.append(ResourceInstanceChange(
        addr, Action.READ, prov_addr, None, planned, reason, None, (), False, deps.instances, deps.resources,
        deps.recorded, (), config, ctx.sensitive_of(addr), depends_on_whole=deps.keyed))
    return planned

"""The ``check`` blocks, evaluated once everything else is planned: their results go into the
plan (``show -json``'s ``checks``), a failed assertion is a warning, and one that cannot be
decided until apply is a warning saying so (:func:`engine.config.check_eval.check_all`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from engine.addrs import resource_addr
from engine.config import conditions
from engine.config.check_eval import TypeOf, check_all
from engine.config.check_results import FAIL, PASS, CheckResult
from engine.config.checkables import (
    POSTCONDITION,
    PRECONDITION,
    check_module_values,
    resource_config_addr,
)
from engine.config.checks import as_check_warnings, check_object, not_evaluated, read_failure
from engine.config.model import Module
from engine.diagnostics import errors_of
from engine.planning.context import PlanContext
from engine.planning.expansion import Instances, expand
from engine.planning.instance import InstanceToPlan
from engine.planning.outputs import check_root_variables
from engine.plans.plan import Action, DataRead, ResourceInstanceChange
from engine.values import UNKNOWN as UNKNOWN_VALUE
from engine.values import is_wholly_known


def plan_checks(ctx: PlanContext) -> None:
    """Every checkable object's result into the plan: the check blocks' (their warnings, and their
    invalid conditions' errors, found in the plan walk, into the diagnostics) and what the
    conditions of resources, outputs and variables came to in the walk."""
    check_root_variables(ctx)
    ctx.plan.checks = (*_check_blocks(ctx), *ctx.checkables.results())


def check_refreshed(ctx: PlanContext) -> None:
    """A refresh-only plan's results: each resource's conditions against its objects as refreshed
    (an instance without an object stays unknown), the variables' and outputs' of each module
    instance."""
    for m in ctx.module.tree():
        for mi in ctx.instances.of_config(m.path):
            for rc in m.resources.values():
                if not (rc.lifecycle.preconditions or rc.lifecycle.postconditions):
                    continue
                r = mi.at(rc.addr)
                found = expand(rc, mi.scope)
                if not isinstance(found, Instances):
                    continue
                ctx.checkables.objects(resource_config_addr(r), [str(r.instance(k)) for k, _s in found.instances])
                for key, scope in found.instances:
                    addr = r.instance(key)
                    obj = ctx.state.object(addr)
                    if obj is None:
                        continue
                    conditions.check(rc.lifecycle.preconditions, scope, "precondition",
                                     report=ctx.checkables.reporter(str(addr), PRECONDITION))
                    conditions.check(rc.lifecycle.postconditions, scope.child({"self": obj.attributes}),
                                     "postcondition", self_of=(r.mode, r.type, r.name),
                                     report=ctx.checkables.reporter(str(addr), POSTCONDITION))
    check_module_values(ctx.checkables, ctx.module, ctx.instances, frozenset())


def _check_blocks(ctx: PlanContext) -> tuple[CheckResult, ...]:
    if not any(m.checks for m in ctx.module.tree()):
        return ()
    if ctx.targets is not None:  # as terraform's: -target leaves the check blocks out
        return not_evaluated(ctx.module)
    results, diags = check_all(ctx.module, ctx.instances, ctx.plan.check_data, planning=True,
                               type_of=lambda m: _types_in(ctx, m))
    for d in diags:
        if d.severity == "error":
            ctx.walk_error(d)
        else:
            ctx.diags.append(d)
    return results


async def plan_scoped_read(ctx: PlanContext, inst: InstanceToPlan, read: Callable[[], Awaitable[Any]]) -> Any:
    """A data source scoped to a check block, its configuration known: read now (``read`` gives
    the provider's response) for the check to use, and planned to be read again at apply
    (``read_because_check_nested``), as terraform's. A read that fails is warnings, the check
    failed, and the data source's value unknown; it never fails the plan."""
    rc, addr, config, deps = inst.resource.config, inst.addr, inst.config, inst.deps
    assert rc.check is not None
    obj = check_object(addr.resource.module, rc.check)
    resp = await read()
    errors = errors_of(resp.diagnostics)
    ctx.diags.extend(as_check_warnings(resp.diagnostics, rc.context))
    if errors or resp.state is None or not is_wholly_known(resp.state):
        why = read_failure(errors) if errors else f"Provider returned no object when reading {addr}."
        ctx.plan.check_data[obj] = (FAIL, why)
        value: dict[str, Any] = {k: (v if v is not None else UNKNOWN_VALUE) for k, v in config.items()}
        # as terraform's: the state records the configuration, what it could not read null (an
        # unknown in the planned state is null once written), until a read succeeds
        ctx.plan.data_reads[addr] = DataRead(inst.resource.provider_addr, dict(config), ctx.sensitive_of(addr))
    else:
        ctx.plan.check_data[obj] = (PASS, "")
        value = resp.state
        ctx.plan.data_reads[addr] = DataRead(inst.resource.provider_addr, value, ctx.sensitive_of(addr))
    if ctx.plan.refresh_only:  # as terraform's: a refresh-only plan plans no read
        return value
    ctx.plan.scoped_reads.add(addr)
    ctx.plan.changes.append(ResourceInstanceChange(
        addr, Action.READ, inst.resource.provider_addr, None, value, CHECK_NESTED, None, (), False,
        deps.instances, deps.resources, deps.recorded, (), config, ctx.sensitive_of(addr),
        depends_on_whole=deps.keyed))
    return value


def _types_in(ctx: PlanContext, module: Module) -> TypeOf:
    """What a traversal in ``module`` refers to, as its resource's schema types it."""
    def type_of(root: str, names: tuple[str, ...]) -> Any:
        if root == "data":
            if len(names) < 3:
                return None
            addr, path = resource_addr(names[0], names[1], "data"), names[2:]
        elif root in ("var", "local", "module", "path", "terraform", "count", "each", "self") or len(names) < 2:
            return None
        else:
            addr, path = resource_addr(root, names[0]), names[1:]
        rc = module.resources.get(addr)
        if rc is None:
            return None
        schema = ctx.providers.schema(module.root_provider_key(rc.provider_key), addr.type, addr.mode)
        attr = schema.attributes.get(path[0]) if schema is not None else None
        ty = attr.type if attr is not None else None
        for name in path[1:]:  # into an object's attributes
            if not (isinstance(ty, list) and ty[0] == "object" and name in ty[1]):
                return None
            ty = ty[1][name]
        return ty
    return type_of


CHECK_NESTED = "read_because_check_nested"
"""A scoped data source's read at apply: terraform's ``action_reason``."""

__all__ = ["CHECK_NESTED", "check_refreshed", "plan_checks", "plan_scoped_read"]

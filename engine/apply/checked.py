"""The state's check results after an apply, for the conditions outside ``check`` blocks: the
resources' instances as the plan expanded them (their conditions reported by the walk, or checked
after it for those it left unchanged: :func:`check_unchanged`); the
outputs' preconditions and variables' validations are checked once the walk is over
(:func:`engine.config.checkables.check_module_values`)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from engine.addrs import InstanceAddr, ResourceAddr, config_text
from engine.config import conditions
from engine.config.checkables import Checkables
from engine.config.model import Module
from engine.lang.scope import Scope
from engine.plans.plan import Action, Plan
from engine.state.model import State


def declare_instances(checkables: Checkables, plan: Plan) -> None:
    """The resources' instances with conditions, as the plan expanded them: unknown until checked."""
    if not checkables.any_resource:
        return
    for r, expansion in plan.expansions.items():
        config = config_text(r)
        if checkables.has(config):
            checkables.objects(config, [str(r.instance(k)) for k in expansion.keys])


def check_unchanged(checkables: Checkables, module: Module, plan: Plan, state: State,
                    unfinished: Collection[ResourceAddr],
                    instance_scope: Callable[[InstanceAddr, Any], Scope]) -> None:
    """The conditions of the managed instances the walk did not apply (the plan leaves them
    unchanged, or it only refreshes) and of the data sources it read, checked against their
    objects once the walk is over, as terraform's apply checks them again (not a read that
    failed, nor a data source read while planning: terraform's apply does not visit it).
    ``unfinished``: the resources of which an instance failed or was skipped; ``instance_scope``:
    what an instance's expressions are evaluated in."""
    if not checkables.any_resource:
        return
    walked = {c.addr for c in plan.changes if c.action not in (Action.NOOP, Action.READ)}
    read = {c.addr for c in plan.changes if c.action == Action.READ and c.addr.resource not in unfinished}
    for r, expansion in plan.expansions.items():
        rc = module.resource_at(r)
        if rc is None or not (rc.lifecycle.preconditions or rc.lifecycle.postconditions):
            continue
        for key in expansion.keys:
            addr = r.instance(key)
            obj = state.object(addr)
            if obj is None or addr in walked or (r.mode == "data" and addr not in read):
                continue
            scope = instance_scope(addr, rc)
            conditions.check(rc.lifecycle.preconditions, scope, "precondition",
                             report=checkables.reporter(str(addr), "precondition"))
            conditions.check(rc.lifecycle.postconditions, scope.child({"self": obj.attributes}), "postcondition",
                             self_of=(r.mode, r.type, r.name), report=checkables.reporter(str(addr), "postcondition"))


__all__ = ["check_unchanged", "declare_instances"]

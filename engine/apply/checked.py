"""The state's check results after an apply, for the conditions outside ``check`` blocks: the
resources' instances as the plan expanded them (their conditions reported by the walk, or checked
after it for those it left unchanged: :meth:`engine.apply.executor.Applier.check_unchanged`); the
outputs' preconditions and variables' validations are checked once the walk is over
(:func:`engine.config.checkables.check_module_values`)."""

from __future__ import annotations

from engine.addrs import config_text
from engine.config.checkables import Checkables
from engine.plans.plan import Plan


def declare_instances(checkables: Checkables, plan: Plan) -> None:
    """The resources' instances with conditions, as the plan expanded them: unknown until checked."""
    if not checkables.any_resource:
        return
    for r, expansion in plan.expansions.items():
        config = config_text(r)
        if checkables.has(config):
            checkables.objects(config, [str(r.instance(k)) for k in expansion.keys])


__all__ = ["declare_instances"]

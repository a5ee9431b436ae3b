"""The state's check results after an apply, for the conditions outside ``check`` blocks: the
resources' instances as the plan expanded them (their conditions reported by the walk, or checked
after it for those it left unchanged: :meth:`engine.apply.executor.Applier.check_unchanged`), and
the outputs' preconditions and variables' validations of every module instance, checked once
the walk is over (as terraform's apply checks them again, with every value known)."""

from __future__ import annotations

from engine.addrs import config_text
from engine.config import conditions
from engine.config.check_results import CheckResult
from engine.config.checkables import OUTPUT_PRECONDITION, VALIDATION, Checkables, named_config_addr
from engine.config.model import Module
from engine.config.module_instances import ModuleInstances
from engine.plans.plan import Plan


def declare_instances(checkables: Checkables, plan: Plan) -> None:
    """The resources' instances with conditions, as the plan expanded them: unknown until checked."""
    for r, expansion in plan.expansions.items():
        config = config_text(r)
        if checkables.has(config):
            checkables.objects(config, [str(r.instance(k)) for k in expansion.keys])


def check_module_values(checkables: Checkables, root: Module, instances: ModuleInstances) -> None:
    """The variables' validations and the outputs' preconditions of every module instance."""
    for m in root.tree():
        wanted = [vc for vc in m.variables.values() if vc.validations], \
                 [oc for oc in m.outputs.values() if oc.preconditions]
        if not any(wanted):
            continue
        for mi in instances.of_config(m.path):
            scope = mi.scope()
            prefix = f"{mi.path}." if mi.path.steps else ""
            for vc in wanted[0]:
                addr = f"{prefix}var.{vc.name}"
                checkables.objects(named_config_addr(m.path, "var", vc.name), [addr])
                conditions.check(vc.validations, scope, "validation", report=checkables.reporter(addr, VALIDATION))
            for oc in wanted[1]:
                addr = f"{prefix}output.{oc.name}"
                checkables.objects(named_config_addr(m.path, "output", oc.name), [addr])
                conditions.check(oc.preconditions, scope, "output",
                                 report=checkables.reporter(addr, OUTPUT_PRECONDITION))


def not_checked(root: Module, destroy: bool) -> tuple[CheckResult, ...]:
    """What terraform records when an apply does not check the conditions (a destroy, or under
    -target): each unknown, without objects, but for a destroy's root outputs, each one unknown."""
    checkables = Checkables(root)
    if destroy:
        for oc in root.outputs.values():
            if oc.preconditions:
                addr = named_config_addr((), "output", oc.name)
                checkables.objects(addr, [addr])
    return checkables.results()


__all__ = ["check_module_values", "declare_instances", "not_checked"]

"""The state's check results after an apply, for the conditions outside ``check`` blocks: the
resources' instances as the plan expanded them (their conditions reported by the walk, or checked
after it for those it left unchanged: :meth:`engine.apply.executor.Applier.check_unchanged`), and
the outputs' preconditions and variables' validations of every module instance, checked once
the walk is over (as terraform's apply checks them again, with every value known)."""

from __future__ import annotations

from collections.abc import Set

from engine.addrs import ModulePath, ResourceAddr, config_text, resource_addr
from engine.config import conditions
from engine.config.checkables import OUTPUT_PRECONDITION, VALIDATION, Checkables, named_config_addr
from engine.config.model import Module, OutputConfig
from engine.config.module_instances import ModuleInstances
from engine.lang import expr as E
from engine.plans.plan import Plan


def declare_instances(checkables: Checkables, plan: Plan) -> None:
    """The resources' instances with conditions, as the plan expanded them: unknown until checked."""
    if not checkables.any_resource:
        return
    for r, expansion in plan.expansions.items():
        config = config_text(r)
        if checkables.has(config):
            checkables.objects(config, [str(r.instance(k)) for k in expansion.keys])


def check_module_values(checkables: Checkables, root: Module, instances: ModuleInstances,
                        unfinished: Set[ResourceAddr]) -> None:
    """The variables' validations and the outputs' preconditions of every module instance; an
    output that refers to a resource the walk did not finish (``unfinished``) is not checked (as
    terraform's walk does not reach it)."""
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
                if unfinished and _refers_to(oc, mi.path, unfinished):
                    continue
                conditions.check(oc.preconditions, scope, "output",
                                 report=checkables.reporter(addr, OUTPUT_PRECONDITION))


def _refers_to(oc: OutputConfig, path: ModulePath, resources: Set[ResourceAddr]) -> bool:
    """Does output ``oc`` (in module instance ``path``) refer to one of ``resources``?"""
    for e in (oc.expr, *(c.condition for c in oc.preconditions)):
        for ref in E.references(e):
            if ref.root == "data":
                mode, type_, name = "data", ref.step_name(0), ref.step_name(1)
            else:
                mode, type_, name = "managed", ref.root, ref.step_name(0)
            if type_ is not None and name is not None and resource_addr(type_, name, mode, path) in resources:
                return True
    return False


__all__ = ["check_module_values", "declare_instances"]

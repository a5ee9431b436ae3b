"""Root module outputs: terraform's refusals of sensitive values before planning (an output that
does not say it exports one, a ``for_each`` whose keys would show one), and each output's planned
value once the resources are planned."""

from __future__ import annotations

import dataclasses

from engine.addrs import ModulePath, ResourceAddr, config_resource, module_contains, resource_addr
from engine.config import conditions
from engine.config.checkables import OUTPUT_PRECONDITION, VALIDATION, named_config_addr
from engine.config.model import Module
from engine.config.module_instances import ModuleInstance
from engine.config.references import expressions_of
from engine.diagnostics import SourceRange, decl_range, error, errors_of
from engine.lang import expr as E
from engine.lang.diagnostic_values import path_of, traversal_text
from engine.lang.evaluate import EvalError, evaluate
from engine.planning.context import PlanContext, needs_values
from engine.values import UNKNOWN

_SENSITIVE_OUTPUT = (
    "To reduce the risk of accidentally exporting sensitive data that was intended to be only internal, "
    "strata requires that any root module output containing sensitive data be explicitly marked as "
    "sensitive, to confirm your intent.\n\nIf you do intend to export this data, annotate the output value "
    "as sensitive by adding the following argument:\n    sensitive = true")
_SENSITIVE_FOR_EACH = (
    "Sensitive values, or values derived from sensitive values, cannot be used as for_each arguments. If "
    "used, the sensitive value could be exposed as a resource instance key.")


def check_sensitive_uses(ctx: PlanContext) -> None:
    """terraform's refusals of sensitive values: a root output that does not say it exports one,
    and a for_each (its keys would show it)."""
    for oc in ctx.module.outputs.values():
        if oc.sensitive:
            continue
        found = list(ctx.sensitivity.sources(oc.expr))
        # terraform's validation sees variables' marks and sensitive(); a resource's attribute
        # marked by its configuration only once planned: that one is found in the plan walk
        if any(isinstance(x, E.Call) or path_of(x)[0] in ("var", "local") for x in found):
            ctx.diags.append(error("Output refers to sensitive values", _SENSITIVE_OUTPUT, oc.range.header()))
        elif found:
            ctx.sensitive_outputs.add(oc.name)
    for rc in ctx.module.resources.values():
        if rc.for_each is not None and ctx.sensitivity.marked(rc.for_each.expr):
            said = sorted({traversal_text(x) for x in ctx.sensitivity.sources(rc.for_each.expr)
                           if not isinstance(x, E.Call)})
            ctx.diags.append(error("Invalid for_each argument", _SENSITIVE_FOR_EACH, rc.for_each.range,
                                   expr_values=tuple((t, "has a sensitive value") for t in said)))


def plan_outputs(ctx: PlanContext) -> None:
    """Every output's planned value into the plan (a null output is no output); under -target, one
    that refers to what was left out keeps its prior value."""
    plan = ctx.plan
    if ctx.targets is not None:  # terraform removes no output when targeting, even one not declared
        for name, prior in plan.prior_outputs.items():
            if name not in ctx.module.outputs:
                plan.outputs[name] = prior
                plan.kept_outputs.add(name)
    for oc in ctx.module.outputs.values():
        if ctx.targets is not None and not _output_included(ctx, oc.expr):
            # refers to what was not targeted: keeps its value, as terraform's does
            if oc.name in plan.prior_outputs:
                plan.outputs[oc.name] = plan.prior_outputs[oc.name]
            plan.kept_outputs.add(oc.name)
            continue
        if (ctx.failed or ctx.failed_outputs) and ctx.uses_failed([oc.expr], set()):
            continue  # refers to what could not be planned: neither planned nor an error of its own
        if oc.preconditions:
            addr = named_config_addr((), "output", oc.name)
            ctx.checkables.objects(addr, [addr])
            failed, _ = conditions.check(oc.preconditions, ctx.scope(), "output",
                                         report=ctx.checkables.reporter(addr, OUTPUT_PRECONDITION))
            if failed:  # as terraform's: the output is not planned
                for d in failed:
                    ctx.walk_error(d)
                continue
        if oc.name in ctx.sensitive_outputs:
            ctx.walk_error(error("Output refers to sensitive values", _SENSITIVE_OUTPUT, oc.range.header()))
            continue
        try:
            v = evaluate(oc.expr, ctx.scope())
        except EvalError as exc:
            d = exc.error(SourceRange(oc.range.filename, exc.line))
            if ctx.needs_plan_values([oc.expr]) and needs_values(d):
                ctx.walk_error(d)
            else:
                ctx.diags.append(d)
            continue
        if v is not None:  # as terraform's: a null output is no output
            plan.outputs[oc.name] = (v, oc.sensitive)


def _output_included(ctx: PlanContext, expr: E.Expr) -> bool:
    """Under -target, as terraform decides: an output is planned when it refers to a targeted
    resource (through locals too) and to nothing that was left out (terraform's
    TargetsTransformer: every resource node among the output's ancestors is targeted)."""
    refs = ctx.module_deps.of_expr(ctx.root, expr)
    t = ctx.targets
    if not refs or t is None:
        return False
    # terraform's targeted plan graph has one node per resource of a module, not per module
    # instance: a target in one instance of an expanded module (and what it depends on) takes
    # the resource's node in every instance, so an output over the other instances is planned
    # too; what the state has that the configuration does not are nodes of their own instances
    configs = {config_resource(r) for r in (*t.resources, *(i.resource for i in t.instances))} | t.configs
    modules = [ModulePath(tuple((n, None) for n, _k in m.steps)) for m in t.modules]

    def targeted(r: ResourceAddr) -> bool:
        if t.touches(r) or (r.module.steps and t.touches_config(r)):
            return True
        if r.module.is_root or not _configured(ctx.module, r):
            return False
        cr = config_resource(r)
        return cr in configs or any(module_contains(m, cr.module) for m in modules)

    return all(targeted(r) for r in refs)


def _configured(root: Module, r: ResourceAddr) -> bool:
    """Does the configuration have the resource ``r`` (in its module, whatever its instance)?"""
    m = root
    for name, _key in r.module.steps:
        call = m.calls.get(name)
        if call is None:
            return False
        m = call.module
    return resource_addr(r.type, r.name, r.mode) in m.resources


def check_variable(ctx: PlanContext, mi: ModuleInstance, name: str) -> None:
    """A module instance's input variable: its value, and its validations."""
    value = mi.variable(name)
    vc = mi.config.variables[name]
    if not vc.validations or mi.call is None:
        return
    addr = f"{mi.path}.var.{name}"
    if ctx.targets is None or _targets_within(ctx, mi.path):  # as terraform's targeted graph
        ctx.checkables.objects(named_config_addr(mi.config.path, "var", name), [addr])
    if value is UNKNOWN:
        return
    failed, _ = conditions.check(vc.validations, mi.scope(), "validation",
                                 report=ctx.checkables.reporter(addr, VALIDATION))
    arg = mi.call.arguments.get(name)
    # as terraform's: at the argument that gave the value, before anything is planned with it
    where = arg.range if arg is not None else mi.call.range.header()
    for d, c in zip(failed, vc.validations, strict=False):
        if d.summary == conditions.SUMMARIES["validation"]:
            rule = decl_range(c.block) if c.block is not None else str(c.range)
            d = dataclasses.replace(d, subject=where, context=f'module "{mi.call.name}"',
                                    detail=f"{d.detail}\n\nThis was checked by the validation rule at {rule}.")
        if d not in ctx.diags:
            ctx.diags.append(d)


def check_module_output(ctx: PlanContext, mi: ModuleInstance, name: str) -> None:
    """A module instance's output: its preconditions, and its value."""
    oc = mi.config.outputs[name]
    if oc.preconditions:
        addr = f"{mi.path}.output.{name}"
        if ctx.targets is None:  # under -target, terraform's graph leaves the module outputs out
            ctx.checkables.objects(named_config_addr(mi.config.path, "output", name), [addr])
        failed, _ = conditions.check(oc.preconditions, mi.scope(), "output",
                                     report=ctx.checkables.reporter(addr, OUTPUT_PRECONDITION))
        for d in failed:
            if d not in ctx.diags:
                ctx.walk_error(d)
        if errors_of(failed):  # as terraform's: not planned, nor is what refers to it
            ctx.failed_outputs.add((mi.path, name))
    mi.output(name, final=True)


def check_root_variables(ctx: PlanContext) -> None:
    """The root module's variables' validations, for the plan's results: their mistakes were
    reported before planning (:func:`engine.config.conditions.validate_variables`)."""
    wanted = _targeted_variables(ctx)
    for vc in ctx.module.variables.values():
        if vc.validations and (wanted is None or vc.name in wanted):
            addr = named_config_addr((), "var", vc.name)
            ctx.checkables.objects(addr, [addr])
            conditions.check(vc.validations, ctx.scope(), "validation",
                             report=ctx.checkables.reporter(addr, VALIDATION))


def _targeted_variables(ctx: PlanContext) -> set[str] | None:
    """Under -target, the root variables what is planned refers to (terraform's targeted graph has
    no others); None when not targeting: all of them."""
    if ctx.targets is None:
        return None
    exprs: list[E.Expr] = []
    for rc in ctx.module.resources.values():
        if ctx.targets.touches(rc.addr):
            exprs.extend([*expressions_of(rc), *(m.expr for m in (rc.count, rc.for_each) if m is not None)])
    exprs.extend(ctx.module.locals[n].expr for n in ctx.included_locals or () if n in ctx.module.locals)
    for oc in ctx.module.outputs.values():
        if _output_included(ctx, oc.expr):
            exprs.extend([oc.expr, *(c.condition for c in oc.preconditions)])
    for call in ctx.module.calls.values():
        if any(m.steps and m.steps[0][0] == call.name for m in ctx.targets.modules) or any(
                r.module.steps and r.module.steps[0][0] == call.name
                for r in (*ctx.targets.resources, *ctx.targets.configs, *(i.resource for i in ctx.targets.instances))):
            exprs.extend([a.expr for a in call.arguments.values()])
            exprs.extend(m.expr for m in (call.count, call.for_each) if m is not None)
    return {n for e in exprs for ref in E.references(e) if ref.root == "var" and (n := ref.step_name(0)) is not None}


def _targets_within(ctx: PlanContext, path: ModulePath) -> bool:
    """Is anything in the module instance ``path`` (or below it) targeted?"""
    assert ctx.targets is not None
    t = ctx.targets
    n = len(path.steps)
    if any(module_contains(m, path) or module_contains(path, m) for m in t.modules):
        return True
    if any(r.module.steps[:n] == path.steps for r in (*t.resources, *(i.resource for i in t.instances))):
        return True
    names = tuple(name for name, _k in path.steps)
    return any(tuple(name for name, _k in r.module.steps[:n]) == names for r in t.configs)

"""Applying a plan to a state: the hand-over from planning (:class:`Planned`) and the walk.

Everything here works from the :class:`~engine.plans.plan.Plan` value, the prior state, the
configuration and the providers, never from the planner: an apply right after its plan and one
of a plan read back from a file (``strata apply FILE``) are the same code. (A test holds this
module and ``engine/apply/`` to importing nothing of ``engine.planning``.)
"""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.addrs import ROOT
from engine.config.check_eval import check_all
from engine.config.check_results import CheckResult
from engine.config.checkables import check_module_values, not_checked
from engine.config.checks import from_check_block, not_evaluated
from engine.config.model import Module
from engine.config.module_instances import ModuleInstances
from engine.config.output_types import output_types
from engine.diagnostics import Diagnostic, SourceRange, StrataError, errors_of
from engine.events import stream as ev
from engine.graph.limits import Limits
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.lang.function_results import checking_function_results
from engine.lang.functions.timestamps import CLOCK, evaluation_clock, parse_plan_timestamp
from engine.lang.sensitivity import Sensitivity
from engine.lang.sensitivity import of_module as sensitivity_of
from engine.plans.plan import Plan
from engine.provider.registry import Providers
from engine.state import checks as state_checks
from engine.state.model import State
from engine.state.store import StateStore
from engine.values import equal, is_wholly_known

if TYPE_CHECKING:  # imported when an apply runs: a plan, which builds a Planned, does not load the apply stage
    from engine.apply.executor import ApplyResolver, ApplyResult
    from engine.apply.graph import ApplyNode, Node, Work
    from engine.graph.dag import Graph


@dataclass
class Planned:
    """A plan ready to apply: the plan, the state it is applied to (the prior state: as refresh
    left it), the configuration it was made from, configured providers, and the store whose lock
    is held (released when the apply ends, or by whoever decides not to apply)."""

    module: Module
    state: State
    plan: Plan
    store: StateStore
    providers: Providers
    warnings: list[Diagnostic] = field(default_factory=list)
    """What the plan found worth saying that stopped nothing (values for undeclared variables)."""
    apply_graph: tuple[Graph[Node], dict[ApplyNode, Work]] | None = None
    """The apply graph, when the plan built it to check it for cycles (as terraform's plan does)."""


def limits_of(module: Module, limits: Limits) -> Limits:
    """The command line's limits, then each provider block's where the command line set none."""
    for pc in module.providers.values():
        if pc.limits is not None:
            limits.merge(pc.limits)
    return limits


async def apply_plan(p: Planned, emit: Callable[[ev.Event], None], *, parallelism: int = 10,
                     fail_fast: bool = False, on_signals: bool = False, limits: Limits | None = None
                     ) -> ApplyResult:
    """Apply ``p.plan``; the state is written as objects complete. The lock is its holder's
    (:func:`engine.backend.operations.open_state`), released when that block ends."""
    from engine.apply.checked import check_unchanged, declare_instances
    from engine.apply.executor import Applier, ApplyResolver
    from engine.apply.graph import build_apply_graph
    from engine.apply.resolver import left_out_instances
    from engine.apply.targeted import applied_part

    applied = applied_part(p.plan, p.module)  # under -target, what terraform's pruned apply graph keeps
    if applied is not p.plan:
        p = dataclasses.replace(p, plan=applied, apply_graph=None)
    graph, work = p.apply_graph or build_apply_graph(p.plan)
    # configuration, plan and graph live until the end: move them out of the collector's
    # sight so its passes during the walk only scan what the walk creates. (No collection
    # first: it took 0.2 s at 100k resources and freed nothing that showed in peak RSS.)
    gc.freeze()
    # one view of the applied values, shared by resources, locals and outputs
    resolver = ApplyResolver(p.module, p.state, p.plan.expansions, left_out_instances(p.plan, p.state))
    sensitivity = sensitivity_of(p.module, p.providers)
    local_value = _apply_locals(p, resolver, sensitivity)
    instances = _module_instances(p, resolver, local_value, sensitivity)
    checked: tuple[CheckResult, ...] | None = None
    try:
        # timestamp(), uuid() and bcrypt() are known when applying (engine.lang.functions.timestamps)
        # plantimestamp() is the plan's time, also when a saved plan is applied later
        plan_time = parse_plan_timestamp(p.plan.timestamp) or CLOCK.get().plan_time
        with evaluation_clock(plan_time, applying=True), checking_function_results(p.plan.function_results):
            async with p.store.writer(p.state) as writer:
                applier = Applier(p.module, p.plan, graph, work, p.providers, writer, emit, dict(p.plan.variables),
                                  resolver, local_value, limits_of(p.module, limits or Limits()), instances)
                if applier.checkables is not None:
                    declare_instances(applier.checkables, p.plan)
                applier.record_data_reads()
                applier.record_unchanged()
                if (p.plan.refresh_only and p.plan.drift) or p.plan.moves:
                    writer.changed = True  # the refreshed (or moved) objects are what this apply records
                imported = [c for c in p.plan.changes if c.importing is not None]
                for c in imported:  # the object was read when planning: recorded as the apply starts
                    assert c.importing is not None
                    emit(ev.import_start(c.addr, c.importing))
                    writer.put(c.addr, c.provider, p.state.object(c.addr))
                    emit(ev.import_complete(c.addr, c.importing))
                instances.settled = False  # what the walk applies changes what expressions see
                try:
                    result = await applier.run(parallelism, fail_fast, on_signals)
                finally:
                    instances.settled = True
                result.counts["import"] = len(imported)
                outputs = _final_outputs(p, instances.by_path[ROOT], local_value, result, sensitivity)
                if not _same_outputs(outputs, p.state.outputs):
                    writer.changed = True
                p.state.outputs = outputs
                p.state.output_types = output_types(p.module, outputs)
                assert applier.checkables is not None
                if not (applier.checkables.any or any(m.checks for m in p.module.tree())) \
                        or (p.plan.destroy and p.plan.targeted):
                    pass  # a targeted destroy leaves the results as they were
                elif p.plan.destroy or p.plan.targeted:  # as terraform's: the checks are not evaluated
                    checked = (*not_evaluated(p.module), *not_checked(p.module, p.plan.destroy))
                else:
                    blocks, found = check_all(p.module, instances, applier.check_data, planning=False)
                    check_unchanged(applier.checkables, p.module, p.plan, applier.state, applier.unfinished,
                                    applier.instance_scope)
                    check_module_values(applier.checkables, p.module, instances, applier.unfinished)
                    checked = (*blocks, *applier.checkables.results())
                    found = p.module.with_context(found)
                    result.diagnostics.extend(errors_of(found))
                    # as terraform's: what the checks said when planning is replaced by what they say now
                    p.warnings[:] = [*(d for d in p.warnings if not from_check_block(d)),
                                     *p.module.with_context(applier.check_warnings),
                                     *(d for d in found if d.severity != "error")]
        # compared as written: no objects and objects not known are both null in the file
        if checked is not None and state_checks.encode(checked) != state_checks.encode(p.state.check_results):
            # as terraform's: the walk's state is written, then the checks' results with it (a
            # serial each, the second only when the results changed)
            p.state.check_results = checked
            p.store.commit(p.state)
        return result
    except BaseExceptionGroup as group:
        # a state write failure cancels the walk: report it as itself, not as a task-group error
        failure = group.subgroup(lambda e: isinstance(e, StrataError))
        if failure is None:
            raise
        first: BaseException = failure
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        raise first from group


def _same_outputs(a: dict[str, tuple[Any, bool]], b: dict[str, tuple[Any, bool]]) -> bool:
    """Equal outputs, types included: a list is not the tuple it was (Python's ``==`` says it is)."""
    return a.keys() == b.keys() and all(a[k][1] == b[k][1] and equal(a[k][0], b[k][0]) for k in a)


def _module_instances(p: Planned, resolver: ApplyResolver, local_value: Callable[[str, int], Any],
                      sensitivity: Sensitivity) -> ModuleInstances:
    """The module instances as apply sees them: values kept once wholly known."""
    by_path: dict[tuple[str, ...], Sensitivity] = {(): sensitivity}

    def sensitivity_of_module(m: Module) -> Sensitivity:
        got = by_path.get(m.path)
        if got is None:
            got = by_path[m.path] = sensitivity_of(m, p.providers, m.root_provider_key)
        return got

    def report(d: Diagnostic, _needs_values: bool) -> None:
        pass  # what planning did not find, the resource that evaluates it reports

    return ModuleInstances(p.module, dict(p.plan.variables), local_value, resolver, sensitivity_of_module, report, keep_all=False)


def _apply_locals(p: Planned, resolver: ApplyResolver, sensitivity: Sensitivity) -> Callable[[str, int], Any]:
    """Local values as apply sees them: one that refers to no resource is evaluated once; the
    others each time, as the resources they refer to are applied."""
    memo: dict[str, Any] = {}
    deps = p.plan.local_dependencies
    variables = dict(p.plan.variables)

    def local_value(name: str, line: int) -> Any:
        if name in memo:
            return memo[name]
        lc = p.module.locals.get(name)
        if lc is None:
            raise EvalError("Reference to undeclared local value", name, line)
        v = evaluate(lc.expr, Scope(variables, local_value, resolver, sensitivity=sensitivity))
        if not deps.get(name):
            memo[name] = v
        return v

    return local_value


def _final_outputs(p: Planned, resolver: Any, local_value: Callable[[str, int], Any],
                   result: ApplyResult, sensitivity: Sensitivity) -> dict[str, tuple[Any, bool]]:
    if p.plan.destroy:
        # a targeted destroy leaves the rest, outputs included, as it was
        return dict(p.state.outputs) if p.plan.targeted else {}
    out: dict[str, tuple[Any, bool]] = {}
    variables = dict(p.plan.variables)
    for oc in p.module.outputs.values():
        if oc.name in p.plan.kept_outputs:  # left out by -target
            if oc.name in p.state.outputs:
                out[oc.name] = p.state.outputs[oc.name]
            continue
        planned = p.plan.outputs.get(oc.name)
        if planned is not None and is_wholly_known(planned[0]):
            # terraform's: a value known when planning is the value (its expression, which may call
            # a provider function, is not evaluated again)
            if planned[0] is not None:
                out[oc.name] = (planned[0], oc.sensitive)
            continue
        try:
            v = evaluate(oc.expr, Scope(variables, local_value, resolver, sensitivity=sensitivity))
        except EvalError as exc:
            if result.ok:  # in the block of the line at fault (a local's, when the output refers to it)
                result.diagnostics.extend(p.module.with_context([exc.error(SourceRange(oc.range.filename, exc.line))]))
            continue
        if v is not None and is_wholly_known(v):  # as terraform's: a null output is no output
            out[oc.name] = (v, oc.sensitive)
    for name in p.plan.kept_outputs:  # no longer declared, kept by -target
        if name not in p.module.outputs and name in p.state.outputs:
            out[name] = p.state.outputs[name]
    return out


__all__ = ["Planned", "apply_plan", "limits_of"]

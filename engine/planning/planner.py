"""Planning: configuration + prior state → :class:`~engine.plans.plan.Plan`.

Resources, locals and outputs are visited in the order their references require
(:mod:`.order`); each resource is expanded (count / for_each, :mod:`.expansion`) into instances,
each instance's configuration evaluated, the provider asked to plan (:mod:`.resources`,
:mod:`.instance`, :mod:`.data_sources`), and the action chosen by
:func:`~engine.plans.plan.select_action`. What the configuration no longer has is deleted
(:mod:`.removals`); outputs are planned last (:mod:`.outputs`). The walk's shared state is a
:class:`~engine.planning.context.PlanContext`; :class:`Planner` runs the stages in order.

Per-instance dependencies are computed here (:mod:`.dependencies`): ``terraform_data.a[count.index].id``
makes instance ``b[i]`` depend on ``a[i]`` alone, not on every instance of ``a`` (terraform waits
for the whole resource: hashicorp/terraform#32148).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from engine.addrs import InstanceAddr
from engine.config.checkables import not_checked
from engine.config.checks import not_evaluated
from engine.config.model import Module
from engine.config.providers import check_resource_types, configure_providers
from engine.config.validation import referred_attributes, unknown_type_mistakes
from engine.diagnostics import Diagnostic
from engine.graph.limits import Limits
from engine.lang.ephemerality import refusals
from engine.lang.function_results import checking_function_results
from engine.planning.checks import check_refreshed, plan_checks
from engine.planning.context import Emit, PlanContext
from engine.planning.create_before_destroy import (
    ConfigKey,
    conditioned_resources,
    config_key,
    configured_forcing,
    force_create_before_destroy,
)
from engine.planning.drift import plan_refresh_only, record_refreshed
from engine.planning.forget import check_removed, forget_warning, forgets
from engine.planning.imports import check_import_targets, plan_imports
from engine.planning.moves import apply_moves, move_across_types, moves_as_drift, validate_moves
from engine.planning.order import (
    CfgNode,
    config_graph,
    config_order,
    destroy_targets,
    with_dependencies,
)
from engine.planning.outputs import (
    check_module_output,
    check_sensitive_uses,
    check_variable,
    plan_outputs,
)
from engine.planning.refresh import Refresher
from engine.planning.removals import check_prevent_destroy, plan_destroy, plan_orphans
from engine.planning.resources import plan_resource
from engine.planning.targeting import Targets, mark_targeted
from engine.plans.kept import through_left_out
from engine.plans.plan import Action, Expansion, Plan
from engine.plans.planned_changes import emit_planned_changes
from engine.provider.registry import Providers
from engine.state.model import State


class Planner:
    """One plan of ``module`` against the prior ``state``: :meth:`run` makes it. After a run
    (finished or raising), ``plan`` is what was planned so far, ``diags`` every diagnostic and
    ``walk_errors`` those terraform finds only in its plan walk (the backend tells "Planning
    failed" from a configuration mistake by them)."""

    def __init__(self, module: Module, state: State, providers: Providers, variables: dict[str, Any],
                 emit: Emit, refresh: bool = True, replace: frozenset[InstanceAddr] = frozenset(),
                 parallelism: int = 10, targets: Targets | None = None, refresh_only: bool = False,
                 limits: Limits | None = None, generate_config_out: str | None = None) -> None:
        self.module = module
        self.state = state
        self.providers = providers
        self.variables = variables
        self.refresh = refresh
        self.parallelism = parallelism
        self.refresh_only = refresh_only
        self.limits = limits
        self.ctx = PlanContext(module, state, providers, variables, emit, replace, targets)
        self.ctx.parallelism = max(1, parallelism)
        self.ctx.limits = limits
        self.ctx.generate_config_out = generate_config_out

    @property
    def plan(self) -> Plan:
        return self.ctx.plan.build()

    @property
    def diags(self) -> list[Diagnostic]:
        return self.ctx.diags

    @property
    def walk_errors(self) -> list[Diagnostic]:
        return self.ctx.walk_errors

    async def run(self, destroy: bool = False) -> Plan:
        # the provider functions' results, recorded for apply to check its own against
        with checking_function_results() as results:
            plan = await self._run(destroy)
            return replace(plan, function_results=results.hashes())

    async def _run(self, destroy: bool = False) -> Plan:
        ctx = self.ctx
        plan = ctx.plan
        plan.destroy = destroy
        plan.refresh = self.refresh
        plan.prior_outputs = dict(self.state.outputs)
        # as terraform's: the prior state's objects are where the moved blocks say before anything
        # is refreshed or planned (the statements are checked once the walk declared the instances)
        plan.moves = apply_moves(self.module, self.state)
        if plan.moves:
            ctx.diags.extend(await move_across_types(ctx, dict(plan.moves)))
            ctx.raise_if_errors()
        ctx.diags.extend(check_resource_types(self.module, self.providers))
        ctx.diags.extend(self.module.with_context(referred_attributes(self.module, self.providers, ctx.diags)))
        ctx.diags.extend(self.module.with_context(unknown_type_mistakes(self.module, self.providers)))
        ctx.diags.extend(self.module.with_context(check_removed(self.module)))
        check_sensitive_uses(ctx)
        ctx.diags.extend(refusals(self.module))
        ctx.raise_if_errors()
        await configure_providers(self.module, self.providers, self.variables, ctx.local_value, ctx.diags)
        ctx.raise_if_errors()
        plan.targeted = ctx.targets is not None
        graph = None if destroy else config_graph(self.module)
        given = ctx.targets  # as given, before what they depend on is added
        if ctx.targets is not None:
            if graph is None:
                ctx.targets = destroy_targets(self.state, ctx.targets)
            else:
                ctx.targets, ctx.included_locals = with_dependencies(ctx.targets, graph, self.state.resources)
        covers: Callable[[InstanceAddr], bool] | None = ctx.targets.covers if ctx.targets is not None else None
        if ctx.forgotten and not destroy:  # a forgotten object is not read again
            covers = _not_forgotten(ctx, covers)
        refresher = Refresher(self.module, self.state, self.providers, ctx.diags, ctx.emit,
                              self.refresh, self.parallelism, only=covers, limits=self.limits)
        await refresher.run()
        ctx.raise_if_errors()
        record_refreshed(ctx, refresher)
        imported: dict[InstanceAddr, str] = {}
        not_imported: set[InstanceAddr] = set()
        if self.refresh_only:
            order = config_order(graph if graph is not None else config_graph(self.module), ctx.diags)
            ctx.raise_if_errors()
            await plan_refresh_only(ctx, refresher.drift, order)
            check_refreshed(ctx)
            plan_checks(ctx)
            if plan.moves:
                moves_as_drift(ctx)
        elif graph is None:
            plan_destroy(ctx)
            plan.checks = (*not_evaluated(self.module), *not_checked(self.module, destroy=True))
        else:
            order = config_order(graph, ctx.diags)
            ctx.raise_if_errors()
            if self.module.imports:
                imported, not_imported = await plan_imports(ctx)
                if ctx.generated:  # the configuration generated for imports is planned too
                    order = config_order(config_graph(self.module), ctx.diags)
            for node in order:
                await self._visit(node)
            plan_orphans(ctx)
            plan_outputs(ctx)
            plan_checks(ctx)
            if imported:
                check_import_targets(ctx, imported)
            ctx.diags.extend(validate_moves(ctx))
        if not_imported:  # as terraform's: an instance whose import failed is not planned
            plan.changes = [c for c in plan.changes if c.addr not in not_imported]
        moves = plan.moves if not destroy else {}  # a destroy plan does not say where objects were
        if moves or imported:
            plan.changes = [replace(c, previous=moves.get(c.addr), importing=imported.get(c.addr),
                                    generated_config=ctx.generated.get(c.addr, ""))
                            if (c.addr in moves or c.addr in imported) and c.deposed is None else c
                            for c in plan.changes]
        forgot = [c.addr for c in plan.changes if c.action == Action.FORGET]
        if forgot:
            ctx.diags.append(forget_warning(forgot))
        check_prevent_destroy(ctx)
        ctx.raise_if_errors()
        # also what the configuration forces through resources with no change planned
        configured = configured_forcing(self.module, graph) if graph is not None else set()
        in_targets = (configured_forcing(self.module, graph, self._targeted)
                      if graph is not None and ctx.targets is not None else set())
        # what create_before_destroy resources without a planned change force (a subset of
        # ``configured``: nothing to work out without it); a resource whose instances are all
        # going forces as one without instances does
        unplanned: set[ConfigKey] = set()
        if configured and graph is not None:
            planned = {config_key(c.addr.resource) for c in plan.changes
                       if c.deposed is None and c.action != Action.DELETE}
            unplanned = configured_forcing(self.module, graph, lambda n: (n.path, n.name.type, n.name.name,
                                                                          n.name.mode) not in planned)
        plan.changes = force_create_before_destroy(plan.changes, configured, ctx.targets is not None, in_targets,
                                                   unplanned, conditioned_resources(self.module))
        if given is not None and not destroy:
            plan.changes = [replace(c, destroy_left_out=True) if c.deposed is None and not given.covers(c.addr)
                            and (c.action == Action.CREATE_THEN_DELETE
                                 or (c.action == Action.DELETE and c.create_before_destroy)) else c
                            for c in plan.changes]
        if given is not None and not destroy:
            plan.changes = mark_targeted(plan.changes, given)  # what apply applies, with what it waits for
            plan.changes = through_left_out(plan.changes, self.state)  # what the destroys wait for
        self._record_for_apply()
        emit_planned_changes(ctx.emit, plan.changes, with_no_ops=True)
        return plan.build()

    async def _visit(self, node: CfgNode) -> None:
        """Plan ``node`` in every instance of its module."""
        ctx = self.ctx
        if not node.path:  # the root's: one instance
            if node.kind == "resource":
                if ctx.targets is None or ctx.targets.touches(node.name):
                    await plan_resource(ctx, self.module.resources[node.name])
            elif node.kind == "call":
                ctx.instances.call_instances(ctx.root, node.name)
            elif ctx.included_locals is None or node.name in ctx.included_locals:
                ctx.local_value(node.name, 0)
            return
        for mi in list(ctx.instances.of_config(node.path)):
            if node.kind == "resource":
                addr = mi.at(node.name)
                # a resource targeted in one module instance expands in every other one too, with
                # no instance planned there (seen as the state has them), as terraform's graph has
                # one node per configuration resource
                if ctx.targets is None or ctx.targets.touches(addr) or ctx.targets.touches_config(addr):
                    rc = self.module.resource_at(addr)
                    assert rc is not None
                    await plan_resource(ctx, rc, mi)
            elif node.kind == "call":
                ctx.instances.call_instances(mi, node.name)
            elif node.kind == "local":
                mi.local_value(node.name, 0)
            elif node.kind == "var":
                check_variable(ctx, mi, node.name)
            elif node.kind == "output":
                check_module_output(ctx, mi, node.name)

    def _targeted(self, node: CfgNode) -> bool:
        """Whether -target plans ``node`` (a resource) in some instance of its module."""
        targets = self.ctx.targets
        assert targets is not None
        if not node.path:
            return targets.touches(node.name)
        return any(targets.touches(mi.at(node.name)) for mi in self.ctx.instances.of_config(node.path))

    def _record_for_apply(self) -> None:
        """What apply needs of what planning learned: how each resource expands and what each
        local value refers to (apply never reads the planner)."""
        resolver = self.ctx.resolver
        values = resolver.values
        self.ctx.plan.expansions = MappingProxyType({r: Expansion.of(kind, values.get(r, ()))
                                                 for r, kind in resolver.kind.items()})
        self.ctx.plan.local_dependencies = MappingProxyType(
            {name: self.ctx.local_resource_deps(name) for name in self.module.locals})


def _not_forgotten(ctx: PlanContext, covers: Callable[[InstanceAddr], bool] | None) -> Callable[[InstanceAddr], bool]:
    """What may be refreshed: what ``covers`` (all when None) and no removed block forgets."""
    def refreshed(addr: InstanceAddr) -> bool:
        if covers is not None and not covers(addr):
            return False
        return ctx.module.resource_at(addr.resource) is not None or not forgets(ctx.forgotten, addr)
    return refreshed

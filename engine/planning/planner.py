"""Planning: configuration + prior state → :class:`~engine.plan.Plan`.

Resources, locals and outputs are visited in the order their references
require; each resource is expanded (count / for_each) into instances, each
instance's configuration evaluated, the provider asked to plan, and the
action chosen by :func:`~engine.plan.select_action`.

Per-instance dependencies are computed here: ``terraform_data.a[count.index].id``
makes instance ``b[i]`` depend on ``a[i]`` alone, not on every instance of
``a`` (terraform waits for the whole resource: hashicorp/terraform#32148).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from engine.addrs import (
    InstanceAddr,
    InstanceKey,
    ResourceAddr,
    parse_resource_addr,
    resource_addr,
)
from engine.config import conditions
from engine.config.constants import _NoResources
from engine.config.instance import evaluate_instance_config
from engine.config.model import Module, ResourceConfig
from engine.config.providers import check_resource_types, configure_providers
from engine.config.references import expressions_of, self_reference_error, self_references
from engine.diagnostics import (
    Diagnostic,
    DiagnosticsError,
    SourceRange,
    error,
    errors_of,
)
from engine.events import stream as ev
from engine.graph.dag import Graph
from engine.graph.limits import Limits
from engine.lang import expr as E
from engine.lang.convert import ConversionError, convert
from engine.lang.diagnostic_values import path_of, traversal_text
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.lang.sensitivity import in_state, recorded_names
from engine.lang.sensitivity import of_module as sensitivity_of
from engine.planning.create_before_destroy import force_create_before_destroy
from engine.planning.refresh import Refresher
from engine.planning.targeting import Targets
from engine.plans.plan import (
    Action,
    DataRead,
    Expansion,
    Plan,
    Refreshed,
    ResourceInstanceChange,
    orphan_reason,
    select_action,
    whole_resource_value,
)
from engine.provider.contracts import check_planned_state
from engine.provider.protocol import (
    AttributePath,
    PlanResourceChangeRequest,
    ReadDataSourceRequest,
    ResourceSchema,
    ValidateResourceConfigRequest,
    proposed_new_state,
)
from engine.provider.registry import Providers
from engine.provider.seam import Failure, ProviderSeam, replace_paths, tolerated
from engine.state.model import ObjectState, State
from engine.values import UNKNOWN, SetVal, is_wholly_known, type_name

Emit = Callable[[ev.Event], None]

# a provider that raises while planning stops the plan (the planner's wording of it)
_PLAN_FAILED = Failure("Provider failed to plan", "{repr}", raises=True)
_READ_DATA_FAILED = Failure("Provider failed to read data source", "{repr}", raises=True)


@dataclass(frozen=True, slots=True)
class _CfgNode:
    """A node of the configuration graph: a resource or a local value."""

    kind: str
    name: Any

    def __str__(self) -> str:
        return str(self.name) if self.kind == "resource" else f"{self.kind}.{self.name}"



@dataclass(frozen=True, slots=True)
class _RefSpec:
    target: ResourceAddr
    key: E.Expr | None


class _PlanResolver:
    """Plan-time resource values: planned new values of what was already planned."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self.kind: dict[ResourceAddr, str] = {}  # "single" | "count" | "for_each"
        self.values: dict[ResourceAddr, dict[InstanceKey, Any]] = {}
        self._whole: dict[ResourceAddr, Any] = {}

    def has_resource(self, addr: ResourceAddr) -> bool:
        return addr in self.module.resources

    def is_expanded(self, addr: ResourceAddr) -> bool:
        return self.kind.get(addr, "single") != "single"

    def expansion(self, addr: ResourceAddr) -> str:
        return self.kind.get(addr, "single")

    def instance_value(self, addr: ResourceAddr, key: InstanceKey) -> Any:
        vals = self.values.get(addr)
        if vals is None:
            return UNKNOWN
        if key not in vals and isinstance(key, float) and key.is_integer():
            key = int(key)
        return vals[key]

    def resource_value(self, addr: ResourceAddr) -> Any:
        v = self._whole.get(addr)
        if v is None:
            v = whole_resource_value(self.kind.get(addr, "single"), self.values.get(addr))
            self._whole[addr] = v
        return v


def _no_locals(name: str, line: int) -> Any:
    raise EvalError("Variables not allowed", "Local values may not be used here.", line)


_SENSITIVE_OUTPUT = (
    "To reduce the risk of accidentally exporting sensitive data that was intended to be only internal, "
    "strata requires that any root module output containing sensitive data be explicitly marked as "
    "sensitive, to confirm your intent.\n\nIf you do intend to export this data, annotate the output value "
    "as sensitive by adding the following argument:\n    sensitive = true")
_SENSITIVE_FOR_EACH = (
    "Sensitive values, or values derived from sensitive values, cannot be used as for_each arguments. If "
    "used, the sensitive value could be exposed as a resource instance key.")

class Planner:
    def __init__(self, module: Module, state: State, providers: Providers, variables: dict[str, Any],
                 emit: Emit, refresh: bool = True, replace: frozenset[InstanceAddr] = frozenset(),
                 parallelism: int = 10, targets: Targets | None = None, refresh_only: bool = False,
                 limits: Limits | None = None) -> None:
        self.module = module
        self.limits = limits
        self.state = state
        self.providers = providers
        self.variables = variables
        self.emit = emit
        self.refresh = refresh
        self.replace = replace
        self.parallelism = parallelism
        self.targets = targets  # -target, widened to what the targets depend on once that is known
        self.refresh_only = refresh_only
        self._included_locals: set[str] | None = None
        self.resolver = _PlanResolver(module)
        self.sensitivity = sensitivity_of(module, providers)
        self.diags: list[Diagnostic] = []
        self._locals: dict[str, Any] = {}
        self._locals_busy: set[str] = set()
        self._local_res_deps: dict[str, frozenset[ResourceAddr]] = {}
        self.plan = Plan(variables=variables)
        # what terraform finds only in its plan walk, not when it validates the configuration first:
        # it then says "Planning failed" (or shows the changes planned before them)
        self.walk_errors: list[Diagnostic] = []
        self._sensitive_outputs: set[str] = set()  # exporting a resource attribute marked by its configuration
        self._failed: set[ResourceAddr] = set()  # resources that could not be planned

    # ------------------------------------------------------------------ entry points

    async def run(self, destroy: bool = False) -> Plan:
        self.plan.destroy = destroy
        self.plan.prior_outputs = dict(self.state.outputs)
        self.diags.extend(check_resource_types(self.module, self.providers))
        self._check_sensitive_uses()
        self._raise_if_errors()
        await configure_providers(self.module, self.providers, self.variables, self.local_value, self.diags)
        self._raise_if_errors()
        self.plan.targeted = self.targets is not None
        graph = None if destroy else self._config_graph()
        if self.targets is not None:
            self.targets = (self._destroy_targets(self.targets) if graph is None
                            else self._with_dependencies(self.targets, graph))
        covers = self.targets.covers if self.targets is not None else None
        refresher = Refresher(self.module, self.state, self.providers, self.diags, self.emit,
                              self.refresh, self.parallelism, only=covers, limits=self.limits)
        await refresher.run()
        self._raise_if_errors()
        self._record_refreshed(refresher)
        if self.refresh_only:
            order = self._config_order(graph)
            self._raise_if_errors()
            await self._plan_refresh_only(refresher.drift, order)
        elif graph is None:
            self._plan_destroy()
        else:
            order = self._config_order(graph)
            self._raise_if_errors()
            for node in order:
                if node.kind == "resource":
                    if self.targets is None or self.targets.touches(node.name):
                        await self._plan_resource(self.module.resources[node.name])
                elif self._included_locals is None or node.name in self._included_locals:
                    self.local_value(node.name, 0)
            self._plan_orphans()
            self._plan_outputs()
        self._check_prevent_destroy()
        self._raise_if_errors()
        self.plan.changes = force_create_before_destroy(self.plan.changes)
        self._record_for_apply()
        for c in self.plan.changes:
            if c.action != Action.NOOP:
                self.emit(ev.planned_change(c.addr, c.action, c.reason, c.deposed))
        return self.plan

    def _record_refreshed(self, refresher: Refresher) -> None:
        """What refresh and schema upgrades changed of the prior state, for apply to start from."""
        found = [Refreshed(addr, prov, obj, deposed) for addr, prov, obj, deposed in refresher.upgraded]
        found += [Refreshed(addr, prov, after) for addr, prov, _before, after in refresher.drift]
        self.plan.refreshed = tuple(found)

    def _record_for_apply(self) -> None:
        """What apply needs of what planning learned: how each resource expands and what each
        local value refers to (apply never reads the planner)."""
        values = self.resolver.values
        self.plan.expansions = MappingProxyType({r: Expansion.of(kind, values.get(r, ()))
                                                 for r, kind in self.resolver.kind.items()})
        self.plan.local_dependencies = MappingProxyType(
            {name: self.local_resource_deps(name) for name in self.module.locals})

    def _raise_if_errors(self) -> None:
        errs = errors_of(self.diags)
        if errs:
            raise DiagnosticsError(errs)

    # ------------------------------------------------------------------ checks and order

    def _check_sensitive_uses(self) -> None:
        """terraform's refusals of sensitive values: a root output that does not say it exports one,
        and a for_each (its keys would show it)."""
        for oc in self.module.outputs.values():
            if oc.sensitive:
                continue
            found = list(self.sensitivity.sources(oc.expr))
            # terraform's validation sees variables' marks and sensitive(); a resource's attribute
            # marked by its configuration only once planned: that one is found in the plan walk
            if any(isinstance(x, E.Call) or path_of(x)[0] in ("var", "local") for x in found):
                self.diags.append(error("Output refers to sensitive values", _SENSITIVE_OUTPUT, oc.range.header()))
            elif found:
                self._sensitive_outputs.add(oc.name)
        for rc in self.module.resources.values():
            if rc.for_each is not None and self.sensitivity.marked(rc.for_each.expr):
                said = sorted({traversal_text(x) for x in self.sensitivity.sources(rc.for_each.expr)
                               if not isinstance(x, E.Call)})
                self.diags.append(error("Invalid for_each argument", _SENSITIVE_FOR_EACH, rc.for_each.range,
                                        expr_values=tuple((t, "has a sensitive value") for t in said)))

    def _config_order(self, g: Graph[_CfgNode] | None = None) -> list[_CfgNode]:
        g = g if g is not None else self._config_graph()
        cycles = g.cycles()
        if cycles:
            for cyc in cycles:
                # terraform's: the cycle is the summary; locals and outputs are its "expand" nodes
                names = [f"{n} (expand)" if n.startswith(("local.", "output.")) else n for n in cyc]
                self.diags.append(error("Cycle: " + ", ".join(names)))
            return []
        return g.topological_order()

    def _config_graph(self) -> Graph[_CfgNode]:
        """Resources and locals, each depending on what its expressions refer to."""
        g: Graph[_CfgNode] = Graph()
        for addr in self.module.resources:
            g.add(_CfgNode("resource", addr))
        for name in self.module.locals:
            g.add(_CfgNode("local", name))
        for kind, name, exprs in self._config_objects():
            node = _CfgNode(kind, name)
            for e in exprs:
                for ref in E.references(e):
                    dep = self._ref_node(ref)
                    if dep is not None and dep in g:
                        g.add_edge(node, dep)
        for rc in self.module.resources.values():
            for addr, _k, _l in rc.depends_on:
                if _CfgNode("resource", addr) in g:
                    g.add_edge(_CfgNode("resource", rc.addr), _CfgNode("resource", addr))
        return g

    def _with_dependencies(self, targets: Targets, g: Graph[_CfgNode]) -> Targets:
        """The targets and everything they depend on (whole resources; locals on the way)."""
        seen: set[_CfgNode] = set()
        todo = [_CfgNode("resource", r) for r in targets.resources]
        todo += [_CfgNode("resource", i.resource) for i in targets.instances]
        todo = [n for n in todo if n in g]
        while todo:
            for dep in g.deps[todo.pop()]:
                if dep not in seen:
                    seen.add(dep)
                    todo.append(dep)
        self._included_locals = {n.name for n in seen if n.kind == "local"}
        return targets.with_resources({n.name for n in seen if n.kind == "resource"})

    def _destroy_targets(self, targets: Targets) -> Targets:
        """The targets and everything in state that depends on them, transitively."""
        by_resource: dict[ResourceAddr, set[ResourceAddr]] = {}  # resource -> resources it depends on
        for addr, _deposed, obj, _prov in self.state.objects():
            deps = by_resource.setdefault(addr.resource, set())
            for d in obj.dependencies:
                r = parse_resource_addr(d)
                if r is not None:
                    deps.add(r)
        hit = {r for r in by_resource if targets.touches(r)}
        more: set[ResourceAddr] = set()
        changed = True
        while changed:
            changed = False
            for r, deps in by_resource.items():
                if r not in more and deps & (hit | more):
                    more.add(r)
                    changed = True
        return targets.with_resources(more)

    def _output_included(self, expr: E.Expr) -> bool:
        """Under -target, as terraform decides: an output is planned when it refers to a targeted
        resource (through locals too) and to nothing that was left out."""
        refs = self._resources_referred(expr, set())
        return bool(refs) and self.targets is not None and all(self.targets.touches(r) for r in refs)

    def _resources_referred(self, expr: E.Expr, seen: set[str]) -> set[ResourceAddr]:
        out: set[ResourceAddr] = set()
        for ref in E.references(expr):
            node = self._ref_node(ref)
            if node is None:
                continue
            if node.kind == "resource":
                out.add(node.name)
            elif node.name not in seen:
                seen.add(node.name)
                lc = self.module.locals.get(node.name)
                if lc is not None:
                    out |= self._resources_referred(lc.expr, seen)
        return out

    def _config_objects(self) -> list[tuple[str, Any, list[E.Expr]]]:
        out: list[tuple[str, Any, list[E.Expr]]] = []
        for rc in self.module.resources.values():
            exprs = expressions_of(rc)
            if rc.count is not None:
                exprs.append(rc.count.expr)
            if rc.for_each is not None:
                exprs.append(rc.for_each.expr)
            out.append(("resource", rc.addr, exprs))
        for lc in self.module.locals.values():
            out.append(("local", lc.name, [lc.expr]))
        return out

    def _ref_node(self, ref: E.Reference) -> _CfgNode | None:
        name = ref.step_name(0)
        if name is None:
            return None
        if ref.root == "local":
            return _CfgNode("local", name)
        if ref.root == "data":
            dname = ref.step_name(1)
            return _CfgNode("resource", resource_addr(name, dname, "data")) if dname else None
        if ref.root in ("var", "count", "each", "path", "terraform", "self", "module"):
            return None
        return _CfgNode("resource", resource_addr(ref.root, name))

    # ------------------------------------------------------------------ scope and locals

    def scope(self, count_index: int | None = None, each: tuple[Any, Any] | None = None) -> Scope:
        return Scope(self.variables, self.local_value, self.resolver, count_index, each, sensitivity=self.sensitivity)

    def local_value(self, name: str, line: int) -> Any:
        if name in self._locals:
            return self._locals[name]
        lc = self.module.locals.get(name)
        if lc is None:
            raise EvalError("Reference to undeclared local value",
                            f'A local value with the name "{name}" has not been declared.', line)
        if name in self._locals_busy:
            raise EvalError("Cycle in local values", f'local.{name} refers to itself.', line)
        self._locals_busy.add(name)
        try:
            v = evaluate(lc.expr, self.scope())
        except EvalError as exc:
            d = exc.error(SourceRange(lc.range.filename, exc.line))
            if self._needs_plan_values([lc.expr]) and _needs_values(d):
                self._walk_error(d)
            else:
                self.diags.append(d)
            v = UNKNOWN
        finally:
            self._locals_busy.discard(name)
        self._locals[name] = v
        return v

    def local_resource_deps(self, name: str, seen: frozenset[str] = frozenset()) -> frozenset[ResourceAddr]:
        got = self._local_res_deps.get(name)
        if got is not None:
            return got
        lc = self.module.locals.get(name)
        out: set[ResourceAddr] = set()
        if lc is not None and name not in seen:
            for ref in E.references(lc.expr):
                node = self._ref_node(ref)
                if node is None:
                    continue
                if node.kind == "resource":
                    out.add(node.name)
                else:
                    out |= self.local_resource_deps(node.name, seen | {name})
        res = frozenset(out)
        self._local_res_deps[name] = res
        return res

    # ------------------------------------------------------------------ resources

    def _refers_to_itself(self, rc: ResourceConfig, lines: list[int], addr: str) -> bool:
        """terraform's "Self-referential block" for each of ``lines`` (where ``addr``'s
        configuration refers to its own resource); whether there was any."""
        for line in lines:
            d = self_reference_error(rc, line, addr)
            self.diags.append(d)
            self.walk_errors.append(d)
        return bool(lines)

    def _uses_failed(self, exprs: list[E.Expr], also: set[ResourceAddr]) -> bool:
        """Do ``exprs`` (or the resources in ``also``) refer, directly or through locals, to a
        resource that could not be planned?"""
        if also & self._failed:
            return True
        for ref in self._references_through_locals(exprs):
            name = ref.step_name(0)
            if name is None:
                continue
            if ref.root == "data":
                if ref.step_name(1) and resource_addr(name, str(ref.step_name(1)), "data") in self._failed:
                    return True
            elif resource_addr(ref.root, name) in self._failed:
                return True
        return False

    def _needs_plan_values(self, exprs: list[E.Expr]) -> bool:
        """Do ``exprs`` refer to a resource or a variable, directly or through locals? Terraform
        validates with those unknown: an error in evaluating them, its plan walk finds."""
        return any(ref.root not in ("count", "each", "path", "terraform", "self", "module")
                   for ref in self._references_through_locals(exprs))

    def _references_through_locals(self, exprs: list[E.Expr]) -> Iterator[E.Reference]:
        """The references in ``exprs`` and in the locals they use, the locals' own left out."""
        locals_ = self.module.locals
        stack, seen = list(exprs), set()
        while stack:
            for ref in E.references(stack.pop()):
                if ref.root != "local":
                    yield ref
                    continue
                name = ref.step_name(0)
                if name in locals_ and name not in seen:
                    seen.add(name)
                    stack.append(locals_[name].expr)

    def _walk_error(self, d: Diagnostic) -> None:
        self.diags.append(d)
        self.walk_errors.append(d)

    def _expansion_error(self, rc: ResourceConfig, d: Diagnostic) -> None:
        """A mistake in ``count`` or ``for_each``. Terraform's validation, before it plans, finds
        one in a constant expression; one that needs other values, its plan walk."""
        self.diags.append(d)
        meta = rc.count if rc.count is not None else rc.for_each
        if meta is not None and self._needs_plan_values([meta.expr]):
            self.walk_errors.append(d)

    def _expand(self, rc: ResourceConfig) -> tuple[str, list[tuple[InstanceKey, Scope]]] | None:
        fn = rc.range.filename
        if rc.count is not None:
            try:
                n = evaluate(rc.count.expr, self.scope())
            except EvalError as exc:
                self._expansion_error(rc, exc.error(SourceRange(fn, exc.line)))
                return None
            where = rc.count.range
            if n is UNKNOWN:
                self._expansion_error(rc, error("Invalid count argument",
                                        'The "count" value depends on resource attributes that cannot be '
                                        "determined until apply, so strata cannot predict how many instances "
                                        "will be created. To work around this, use the -target argument to "
                                        "first apply only the resources that the count depends on.", where))
                return None
            if n is not None and not isinstance(n, (int, float)) or isinstance(n, bool):
                try:
                    n = convert(n, "number")
                except ConversionError as exc:  # as terraform: cty's words, a string that is no number
                    self._expansion_error(rc, error("Incorrect value type", f"Invalid expression value: {exc.cty_text}",
                                            where))
                    return None
            if isinstance(n, float) and n.is_integer():
                n = int(n)
            if not isinstance(n, int) or not -(1 << 63) <= n < 1 << 63:  # cty's int64, as terraform's
                self._expansion_error(rc, error("Invalid count argument", _COUNT_NULL if n is None else
                                                _COUNT_WHOLE, where))
                return None
            if n < 0:
                self._expansion_error(rc, error("Invalid count argument",
                                        'The given "count" argument value is unsuitable: must be greater than '
                                        "or equal to zero.", where))
                return None
            variables, locals_, resolver, sens = self.variables, self.local_value, self.resolver, self.sensitivity
            return "count", [(i, Scope(variables, locals_, resolver, i, sensitivity=sens)) for i in range(n)]
        if rc.for_each is not None:
            try:
                fe = evaluate(rc.for_each.expr, self.scope())
            except EvalError as exc:
                self._expansion_error(rc, exc.error(SourceRange(fn, exc.line)))
                return None
            where = rc.for_each.range
            if fe is UNKNOWN or not is_wholly_known(fe) and not isinstance(fe, dict):
                self._expansion_error(rc, error("Invalid for_each argument",
                                        'The "for_each" set includes values derived from resource attributes '
                                        "that cannot be determined until apply, and so strata cannot determine "
                                        "the full set of keys that will identify the instances of this "
                                        "resource.\n\nWhen working with unknown values in for_each, it's better "
                                        "to use a map value where the keys are defined statically in your "
                                        "configuration and where only the values contain apply-time results."
                                        "\n\nAlternatively, you could use the -target planning option to first "
                                        "apply only the resources that the for_each value depends on, and then "
                                        "apply a second time to fully converge.", where))
                return None
            if isinstance(fe, dict):
                items = sorted(fe.items())
            elif isinstance(fe, SetVal):
                if any(x is None for x in fe):
                    self._expansion_error(rc, error("Invalid for_each set argument",
                                            'The given "for_each" argument value is unsuitable: "for_each" sets '
                                            "must not contain null values.", where))
                    return None
                if not all(isinstance(x, str) for x in fe):
                    self._expansion_error(rc, error("Invalid for_each set argument",
                                            "The given \"for_each\" argument value is unsuitable: "
                                            "\"for_each\" supports sets of strings, but you have provided a "
                                            "set containing other types.", where))
                    return None
                items = [(x, x) for x in sorted(fe)]
            else:
                self._expansion_error(rc, error("Invalid for_each argument",
                                        'The given "for_each" argument value is unsuitable: the "for_each" '
                                        "argument must be a map, or set of strings, and you have provided a "
                                        f"value of type {type_name(fe)}.", where))
                return None
            return "for_each", [(k, self.scope(None, (k, v))) for k, v in items]
        return "single", [(None, self.scope())]

    def _ref_specs(self, rc: ResourceConfig) -> tuple[list[_RefSpec], set[ResourceAddr]]:
        specs: list[_RefSpec] = []
        whole: set[ResourceAddr] = set()
        # count and for_each too: what they refer to must exist before any instance does (and is
        # recorded in each instance's dependencies, as terraform records it)
        metas = [m.expr for m in (rc.count, rc.for_each) if m is not None]
        for e in [*expressions_of(rc), *metas]:
            for ref in E.references(e):
                node = self._ref_node(ref)
                if node is None:
                    continue
                if node.kind == "local":
                    whole |= self.local_resource_deps(node.name)
                    continue
                target: ResourceAddr = node.name
                ki = 2 if ref.root == "data" else 1
                step = ref.steps[ki] if len(ref.steps) > ki else None
                specs.append(_RefSpec(target, step if isinstance(step, E.Expr) else None))
        for addr, key, _line in rc.depends_on:
            specs.append(_RefSpec(addr, key))
        return specs, whole

    def _instance_deps(self, specs: list[_RefSpec], whole: set[ResourceAddr], scope: Scope
                       ) -> tuple[frozenset[InstanceAddr], frozenset[ResourceAddr]]:
        insts: set[InstanceAddr] = set()
        res: set[ResourceAddr] = set(whole)
        for s in specs:
            if s.target in res:
                continue
            kind = self.resolver.kind.get(s.target, "single")
            if kind == "single":
                insts.add(InstanceAddr(s.target, None))
                continue
            if s.key is None:
                res.add(s.target)
                continue
            try:
                k = evaluate(s.key, Scope(scope.variables, scope.local_value, _NoResources(),
                                          scope.count_index, scope.each))
            except EvalError:
                k = UNKNOWN
            if isinstance(k, float) and k.is_integer():
                k = int(k)
            if isinstance(k, (int, str)) and not isinstance(k, bool):
                insts.add(InstanceAddr(s.target, k))
            else:
                res.add(s.target)
        return frozenset(insts), frozenset(res)

    async def _plan_resource(self, rc: ResourceConfig) -> None:
        metas = [m.expr for m in (rc.count, rc.for_each) if m is not None]
        if self._failed and self._uses_failed([*expressions_of(rc), *metas], {a for a, _k, _l in rc.depends_on}):
            # as terraform's plan walk: what depends on a resource that could not be planned is not
            self._failed.add(rc.addr)
            self.resolver.kind[rc.addr] = "count" if rc.count is not None else (
                "for_each" if rc.for_each is not None else "single")
            self.resolver.values[rc.addr] = {}
            return
        meta = self_references(rc, metas)
        expanded = None if self._refers_to_itself(rc, meta, str(rc.addr)) else self._expand(rc)
        untargeted: list[InstanceKey] = []
        if expanded is not None and self.targets is not None and rc.addr not in self.targets.resources:
            # only some instances targeted: the others are not planned, and are seen as they are
            untargeted = [k for k, _sc in expanded[1] if InstanceAddr(rc.addr, k) not in self.targets.instances]
            expanded = (expanded[0], [(k, sc) for k, sc in expanded[1]
                                      if InstanceAddr(rc.addr, k) in self.targets.instances])
        if expanded is None:
            self._failed.add(rc.addr)
            self.resolver.kind[rc.addr] = "count" if rc.count is not None else (
                "for_each" if rc.for_each is not None else "single")
            self.resolver.values[rc.addr] = {}
            return
        kind, instances = expanded
        self.resolver.kind[rc.addr] = kind
        values: dict[InstanceKey, Any] = {}
        self.resolver.values[rc.addr] = values
        pname = rc.provider_key
        provider = self.providers.seam(pname)
        schema = self.providers.schema(pname, rc.addr.type, rc.addr.mode)
        assert schema is not None
        prov_addr = self.providers.state_address(pname)
        specs, whole = self._ref_specs(rc)
        rs = self.state.resources.get(rc.addr)
        prior_instances = rs.instances if rs is not None else {}
        for key in untargeted:  # an output over the whole resource sees them, as terraform's does
            inst = prior_instances.get(key)
            if inst is not None and inst.current is not None:
                values[key] = inst.current.attributes
        cbd = rc.lifecycle.create_before_destroy
        exprs = expressions_of(rc)
        for key, _scope in instances:  # an instance that refers to a later one sees it unknown
            values.setdefault(key, UNKNOWN)
        for key, scope in instances:
            addr = rc.addr.instance(key)
            # per instance, as terraform's: "Configuration for terraform_data.a[0] may not refer to itself"
            if self._refers_to_itself(rc, self_references(rc, exprs, key), str(addr)):
                self._failed.add(rc.addr)
                values[key] = UNKNOWN
                continue
            # a mistake in an expression names its block, as terraform's does (no instance address)
            config, cdiags = evaluate_instance_config(rc, schema, scope)
            for d in cdiags:
                # the expression on the line the error names (all of them when none is there)
                failed = [e for e in exprs if d.subject is not None and e.line == d.subject.line] or exprs
                if d.severity == "error" and _needs_values(d) and self._needs_plan_values(failed):
                    self.walk_errors.append(d)
            if not cdiags:
                # the provider's verdict is about this instance: "with ADDR", as terraform says
                cdiags = list((await provider.validate_resource_config(
                    ValidateResourceConfigRequest(rc.addr.type, config), data=rc.addr.mode == "data",
                    address=str(addr), subject=rc.range)).diagnostics)
            if cdiags:
                self.diags.extend(_unseen(cdiags, self.diags))
                if errors_of(cdiags):
                    self._failed.add(rc.addr)
                    values[key] = UNKNOWN
                    continue
            if rc.lifecycle.preconditions:
                unmet, _ = conditions.check(rc.lifecycle.preconditions, scope, "precondition")
                if unmet:  # as terraform's: the instance is not planned
                    for f in unmet:
                        self._walk_error(f)
                    self._failed.add(rc.addr)
                    values[key] = UNKNOWN
                    continue
            inst = prior_instances.get(key)
            prior_obj = inst.current if inst is not None else None
            deps, dep_res = self._instance_deps(specs, whole, scope)
            state_deps = tuple(sorted({str(d.resource) for d in deps} | {str(r) for r in dep_res}))
            if rc.addr.mode == "data":
                values[key] = await self._plan_data(rc, provider, prov_addr, addr, config, deps, dep_res,
                                                    state_deps)
                self._postconditions(rc, scope, values[key])
                continue
            change = await self._plan_instance(rc, schema, provider, prov_addr, addr, config, prior_obj,
                                               deps, dep_res, state_deps, cbd)
            values[key] = change.after if change.after is not None else UNKNOWN
            self.plan.changes.append(change)
            if change.after is not None:
                self._postconditions(rc, scope, change.after)
            if inst is not None:
                for dk, dobj in inst.deposed.items():
                    self.plan.changes.append(ResourceInstanceChange(
                        addr, Action.DELETE, prov_addr, dobj.attributes, None, None, dk,
                        create_before_destroy=True, prior_dependencies=dobj.dependencies,
                        sensitive=self._sensitive_of(addr) | recorded_names(dobj)))

    def _postconditions(self, rc: ResourceConfig, scope: Scope, value: Any) -> None:
        """A resource's postconditions against its planned object (``self``); what is not known yet is
        checked after apply."""
        if rc.lifecycle.postconditions and value is not UNKNOWN:
            failed, _ = conditions.check(rc.lifecycle.postconditions, scope.child({"self": value}), "postcondition",
                                         self_of=(rc.addr.mode, rc.addr.type, rc.addr.name))
            for d in failed:
                self._walk_error(d)

    async def _plan_data(self, rc: ResourceConfig, provider: ProviderSeam, prov_addr: str, addr: InstanceAddr,
                         config: dict[str, Any], deps: frozenset[InstanceAddr],
                         dep_res: frozenset[ResourceAddr], state_deps: tuple[str, ...]) -> Any:
        """Read a data source now when possible; otherwise plan a read during apply.

        The read is deferred when the configuration has unknowns, or when the
        data resource depends on a managed resource with a change planned.
        """
        pending = any(c.addr in deps or c.addr.resource in dep_res
                      for c in self.plan.changes if c.action != Action.NOOP)
        if not pending and is_wholly_known(config):
            resp = await provider.read_data_source(ReadDataSourceRequest(rc.addr.type, config), address=str(addr),
                                                   subject=rc.range, failure=_READ_DATA_FAILED)
            if resp.diagnostics:
                self.diags.extend(resp.diagnostics)
            if resp.state is None:
                return UNKNOWN
            if not is_wholly_known(resp.state):
                self.diags.append(error("Provider produced invalid object",
                                        f'Provider "{rc.provider_key}" returned unknown values when reading '
                                        f"{addr}.", rc.range, str(addr)))
            self.plan.data_reads[addr] = DataRead(prov_addr, resp.state, self._sensitive_of(addr))
            return resp.state
        planned = {k: (v if v is not None else UNKNOWN) for k, v in config.items()}
        self.plan.changes.append(ResourceInstanceChange(
            addr, Action.READ, prov_addr, None, planned, None, None, (), False, deps, dep_res, state_deps,
            (), config, self._sensitive_of(addr)))
        return planned

    async def _plan_instance(self, rc: ResourceConfig, schema: ResourceSchema, provider: ProviderSeam,
                             prov_addr: str, addr: InstanceAddr, config: dict[str, Any],
                             prior_obj: ObjectState | None, deps: frozenset[InstanceAddr],
                             dep_res: frozenset[ResourceAddr], state_deps: tuple[str, ...],
                             cbd: bool) -> ResourceInstanceChange:
        prior = prior_obj.attributes if prior_obj is not None else None
        tainted = prior_obj is not None and prior_obj.tainted
        lc = rc.lifecycle
        if prior is not None and (lc.ignore_changes or lc.ignore_all_changes):
            config = dict(config)
            for name in (schema.attributes if lc.ignore_all_changes else lc.ignore_changes):
                if name in prior and not (schema.attributes.get(name) and schema.attributes[name].computed
                                          and not schema.attributes[name].optional):
                    config[name] = prior[name]
        plan_prior = None if tainted else prior
        prior_private = prior_obj.private if prior_obj is not None and not tainted else b""
        planned, requires_replace, private = await self._call_plan(provider, rc, addr, plan_prior, config, schema,
                                                                   prior_private)
        action, reason = select_action(prior, planned, tainted=tainted, requires_replace=requires_replace,
                                       create_before_destroy=cbd, replace_requested=addr in self.replace)
        if action in Action.REPLACES and plan_prior is not None:
            # plan the replacement object as a create, as terraform does
            planned, _, private = await self._call_plan(provider, rc, addr, None, config, schema, b"")
        return ResourceInstanceChange(
            addr, action, prov_addr, prior, planned, reason, None, requires_replace, cbd, deps, dep_res,
            state_deps, prior_obj.dependencies if prior_obj is not None else (), config,
            self._sensitive_of(addr) | recorded_names(prior_obj), marks=self._sensitive_of(addr), private=private)

    async def _call_plan(self, provider: ProviderSeam, rc: ResourceConfig, addr: InstanceAddr,
                         prior: dict[str, Any] | None, config: dict[str, Any], schema: ResourceSchema,
                         prior_private: bytes) -> tuple[dict[str, Any] | None, tuple[AttributePath, ...], bytes]:
        proposed = proposed_new_state(schema, prior, config)
        resp = await provider.plan_resource_change(
            PlanResourceChangeRequest(rc.addr.type, prior, proposed, config, prior_private),
            address=str(addr), subject=rc.range, failure=_PLAN_FAILED)
        found: list[Diagnostic] = list(resp.diagnostics)
        problem = check_planned_state(schema, config, prior, resp.planned_state)
        if problem and tolerated(resp.legacy_type_system, "an invalid plan", rc.provider_key, str(addr),
                                 f"{addr}{problem}"):
            problem = None
        if problem:
            found.append(error("Provider produced invalid plan",
                               f'Provider "{rc.provider_key}" planned an invalid value for {addr}{problem}. '
                               "This is a bug in the provider, which should be reported in the "
                               "provider's own issue tracker.", rc.range, str(addr)))
        self.diags.extend(found)
        self.walk_errors.extend(found)
        return resp.planned_state, replace_paths(resp.requires_replace), resp.planned_private

    # ------------------------------------------------------------------ orphans, outputs, destroy

    async def _plan_refresh_only(self, drift: list[tuple[InstanceAddr, str, ObjectState, ObjectState | None]],
                                 order: list[_CfgNode]) -> None:
        """No object changes: the drift refresh found, to be recorded, and the outputs as the
        refreshed objects make them."""
        self.plan.refresh_only = True
        for addr, prov, before, after in sorted(drift, key=lambda d: d[0].sort_key()):
            action = Action.UPDATE if after is not None else Action.DELETE
            self.plan.drift.append(ResourceInstanceChange(
                addr, action, prov, before.attributes, after.attributes if after is not None else None,
                sensitive=self._sensitive_in_state(addr, before, prov)))
            self.emit(ev.resource_drift(addr, "update" if after is not None else "delete"))
        # the objects as they now are, for the outputs (and the apply's view of them)
        for r, rc in self.module.resources.items():
            self.resolver.kind[r] = "count" if rc.count is not None else (
                "for_each" if rc.for_each is not None else "single")
            rs = self.state.resources.get(r)
            self.resolver.values[r] = {k: inst.current.attributes for k, inst in (rs.instances.items() if rs else ())
                                       if inst.current is not None}
        # data sources are read again, as in any plan: an output may show what they read
        for node in order:
            data = self.module.resources.get(node.name) if node.kind == "resource" else None
            if data is not None and data.addr.mode == "data":
                await self._plan_resource(data)
        for oc in self.module.outputs.values():
            try:
                self.plan.outputs[oc.name] = (evaluate(oc.expr, self.scope()), oc.sensitive)
            except (EvalError, KeyError):
                # refers to what does not exist yet: keeps its value
                if oc.name in self.plan.prior_outputs:
                    self.plan.outputs[oc.name] = self.plan.prior_outputs[oc.name]
                self.plan.kept_outputs.add(oc.name)

    def _sensitive_in_state(self, addr: InstanceAddr, obj: ObjectState, prov: str) -> frozenset[str]:
        """What of an object in the state must not be shown: its recorded marks, its type's schema's,
        and the configuration's when it is still configured."""
        return in_state(obj, addr, prov, self.providers) | self._sensitive_of(addr)

    def _sensitive_of(self, addr: InstanceAddr) -> frozenset[str]:
        """The attributes of ``addr`` a plan must not show (schema, state and configuration)."""
        r = addr.resource
        return self.sensitivity.attributes(r.mode, r.type, r.name)

    def _plan_orphans(self) -> None:
        for addr, deposed, obj, prov in list(self.state.objects()):
            if self.targets is not None and not self.targets.covers(addr):
                continue  # not targeted: left as it is (data sources too)
            rc = self.module.resources.get(addr.resource)
            if addr.resource.mode == "data":
                if rc is None or addr.key not in self.resolver.values.get(addr.resource, {}):
                    self.plan.forget.append(addr)
                continue
            kind = self.resolver.kind.get(addr.resource, "single")
            if rc is not None:
                vals = self.resolver.values.get(addr.resource, {})
                if addr.key in vals:
                    continue  # in configuration (its deposed objects were planned with the instance)
                if self._errored(addr):
                    continue
            reason = None if deposed else orphan_reason(rc is not None, kind != "single", addr.key, kind)
            self.plan.changes.append(ResourceInstanceChange(
                addr, Action.DELETE, prov, obj.attributes, None, reason, deposed,
                create_before_destroy=obj.create_before_destroy or deposed is not None,
                prior_dependencies=obj.dependencies, sensitive=self._sensitive_in_state(addr, obj, prov)))

    def _errored(self, addr: InstanceAddr) -> bool:
        prefix = str(addr.resource)
        return any(d.address and (d.address == prefix or d.address.startswith(prefix + "["))
                   for d in self.diags)

    def _plan_outputs(self) -> None:
        for oc in self.module.outputs.values():
            if self.targets is not None and not self._output_included(oc.expr):
                # refers to what was not targeted: keeps its value, as terraform's does
                if oc.name in self.plan.prior_outputs:
                    self.plan.outputs[oc.name] = self.plan.prior_outputs[oc.name]
                self.plan.kept_outputs.add(oc.name)
                continue
            if self._failed and self._uses_failed([oc.expr], set()):
                continue  # refers to what could not be planned: neither planned nor an error of its own
            if oc.preconditions:
                failed, _ = conditions.check(oc.preconditions, self.scope(), "output")
                if failed:  # as terraform's: the output is not planned
                    for d in failed:
                        self._walk_error(d)
                    continue
            if oc.name in self._sensitive_outputs:
                self._walk_error(error("Output refers to sensitive values", _SENSITIVE_OUTPUT, oc.range.header()))
                continue
            try:
                v = evaluate(oc.expr, self.scope())
            except EvalError as exc:
                d = exc.error(SourceRange(oc.range.filename, exc.line))
                if self._needs_plan_values([oc.expr]) and _needs_values(d):
                    self._walk_error(d)
                else:
                    self.diags.append(d)
                continue
            if v is not None:  # as terraform's: a null output is no output
                self.plan.outputs[oc.name] = (v, oc.sensitive)

    def _plan_destroy(self) -> None:
        if self.targets is not None:
            self.plan.outputs = dict(self.plan.prior_outputs)  # a targeted destroy keeps the outputs
        for addr, deposed, obj, prov in self.state.objects():
            if self.targets is not None and not self.targets.covers(addr):
                continue
            if addr.resource.mode == "data":
                self.plan.forget.append(addr)
                continue
            self.plan.changes.append(ResourceInstanceChange(
                addr, Action.DELETE, prov, obj.attributes, None, None, deposed,
                create_before_destroy=obj.create_before_destroy or deposed is not None,
                prior_dependencies=obj.dependencies, sensitive=self._sensitive_in_state(addr, obj, prov)))

    def _check_prevent_destroy(self) -> None:
        """``lifecycle { prevent_destroy = true }``: a plan that destroys such an object is an error."""
        for c in self.plan.changes:
            if c.action != Action.DELETE and not c.is_replace:
                continue
            rc = self.module.resources.get(c.addr.resource)
            if rc is None or not rc.lifecycle.prevent_destroy:
                continue
            self._walk_error(error(
                "Instance cannot be destroyed",
                f"Resource {c.addr} has lifecycle.prevent_destroy set, but the plan calls for this "
                "resource to be destroyed. To avoid this error and continue with the plan, either "
                "disable lifecycle.prevent_destroy or reduce the scope of the plan using the -target "
                "option.", rc.range.header()))


_COUNT_NULL = 'The given "count" argument value is null. An integer is required.'
_COUNT_WHOLE = ('The given "count" argument value is unsuitable: value must be a whole number, between '
                "-9223372036854775808 and 9223372036854775807.")

# mistakes terraform's validation finds from the configuration and schemas alone, before planning
_STATIC_SUMMARIES = frozenset({
    "Too many function arguments", "Not enough function arguments",
    "Missing resource instance key", "Unexpected resource instance key", "Invalid reference",
    "Reference to undeclared resource", "Reference to undeclared input variable",
    "Reference to undeclared local value", 'Reference to "count" in non-counted context',
    'Reference to "each" in context without for_each', "Call to unknown function",
})


def _needs_values(d: Diagnostic) -> bool:
    """Is ``d`` something only values show (terraform's plan walk), not the configuration?"""
    if d.summary in _STATIC_SUMMARIES:
        return False
    return not (d.summary == "Unsupported attribute" and d.detail.startswith("This object has no argument"))


def _unseen(diags: list[Diagnostic], seen: list[Diagnostic]) -> list[Diagnostic]:
    """``diags`` without those already reported: a mistake in a counted resource's expression is
    the same diagnostic for every instance, and terraform reports it once."""
    return [d for d in diags if d.address is not None or d not in seen]

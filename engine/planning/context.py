"""What one plan's walk shares: the inputs (configuration, prior state, providers, variables,
options), the :class:`~engine.plans.plan.PlanBuilder` of the plan being made, the resources' planned values, the
local values, and the diagnostics found so far.

A :class:`PlanContext` lives for one :meth:`Planner.run <engine.planning.planner.Planner.run>`;
the planning modules (resources, data sources, outputs, removals, drift) read and add to it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from engine.addrs import (
    ROOT,
    InstanceAddr,
    ModulePath,
    ProviderConfigAddr,
    ResourceAddr,
    resource_addr,
)
from engine.config.checkables import Checkables
from engine.config.locals import LocalValues
from engine.config.model import LocalConfig, Module
from engine.config.module_instances import ModuleInstance, ModuleInstances
from engine.diagnostics import Diagnostic, DiagnosticsError, SourceRange, errors_of
from engine.events import stream as ev
from engine.graph.limits import Limits
from engine.lang import expr as E
from engine.lang.evaluate import EvalError, Scope
from engine.lang.functions.timestamps import plan_timestamp
from engine.lang.sensitivity import Sensitivity, in_state
from engine.lang.sensitivity import of_module as sensitivity_of
from engine.planning.forget import forgotten
from engine.planning.module_deps import ModuleDeps
from engine.planning.resolver import PlanResolver
from engine.planning.targeting import Targets
from engine.plans.plan import PlanBuilder
from engine.provider.registry import Providers
from engine.state.model import ObjectState, State

Emit = Callable[[ev.Event], None]


class PlanContext:
    """One plan's shared state. ``diags`` holds every diagnostic; ``walk_errors`` those of them
    terraform finds only in its plan walk (not when it validates the configuration first: it then
    says "Planning failed"). ``failed``: resources that could not be planned (what refers to them
    is not planned either). ``targets``: ``-target``, widened to what the targets depend on once
    that is known; ``included_locals``: under ``-target``, the locals the targets need (None: all)."""

    def __init__(self, module: Module, state: State, providers: Providers, variables: dict[str, Any],
                 emit: Emit, replace: frozenset[InstanceAddr], targets: Targets | None) -> None:
        self.module = module
        self.state = state
        self.providers = providers
        self.variables = variables
        self.emit = emit
        self.replace = replace
        self.targets = targets
        self.parallelism = 10
        """How many provider calls the plan walk may have in flight (``-parallelism``)."""
        self.limits: Limits | None = None
        """``-provider-parallelism`` and the other limits, which the plan walk's calls keep too."""
        self.forgotten = forgotten(module)
        self.generate_config_out: str | None = None
        """``plan -generate-config-out=FILE``: an import target without configuration gets one
        generated (:mod:`.genconfig`), as written in FILE; ``generated`` holds each one's text."""
        self.generated: dict[InstanceAddr, str] = {}
        """The ``removed`` blocks that forget what they remove (:mod:`.forget`)."""
        self.included_locals: set[str] | None = None
        self.resolver = PlanResolver(module)
        self.sensitivity = sensitivity_of(module, providers)
        self.plan = PlanBuilder(variables=variables, timestamp=plan_timestamp())
        self.diags: list[Diagnostic] = []
        self.walk_errors: list[Diagnostic] = []
        self.failed: set[ResourceAddr] = set()
        self.through_empty: dict[ResourceAddr, frozenset[ResourceAddr]] = {}
        """For each resource with no instances, what it depends on (through other such resources
        too): recorded among its dependents' dependencies in its stead (:func:`.instance_deps`)."""
        self.failed_outputs: set[tuple[ModulePath, str]] = set()  # module outputs whose preconditions failed
        self.checkables = Checkables(module)
        """What the conditions of resources, outputs and variables came to (the plan's ``checks``)."""
        self.sensitive_outputs: set[str] = set()  # exporting a resource attribute marked by its configuration
        self.local_value = LocalValues(module, self.scope, self._local_failed)
        """``local.NAME``, evaluated once (with the resources planned so far); unknown after a
        mistake, which is added to the diagnostics."""
        self._sensitivities: dict[tuple[str, ...], Sensitivity] = {(): self.sensitivity}
        self._by_instance: dict[ModulePath, Sensitivity] = {}
        self.instances = ModuleInstances(module, variables, self.local_value, self.resolver, self._sensitivity_of,
                                         self._module_error, keep_all=True)
        """Every module instance, and the scope of each."""
        self.root = self.instances.by_path[ROOT]
        self.module_deps = ModuleDeps(self.instances, state.resources)

    # ------------------------------------------------------------------ diagnostics

    def walk_error(self, d: Diagnostic) -> None:
        """``d``, found in the plan walk (see the class's docstring)."""
        self.diags.append(d)
        self.walk_errors.append(d)

    def raise_if_errors(self) -> None:
        errs = errors_of(self.diags)
        if errs:
            raise DiagnosticsError(errs)

    def errored(self, addr: InstanceAddr) -> bool:
        """Has a diagnostic named ``addr``'s resource or one of its instances?"""
        prefix = str(addr.resource)
        return any(d.address and (d.address == prefix or d.address.startswith(prefix + "["))
                   for d in self.diags)

    # ------------------------------------------------------------------ scope and locals

    def scope(self, count_index: int | None = None, each: tuple[Any, Any] | None = None) -> Scope:
        return Scope(self.variables, self.local_value, self.root, count_index, each, sensitivity=self.sensitivity,
                     local_config=self.local_value.module.locals.get)

    def _sensitivity_of(self, m: Module) -> Sensitivity:
        got = self._sensitivities.get(m.path)
        if got is None:
            got = self._sensitivities[m.path] = sensitivity_of(m, self.providers, m.root_provider_key)
        return got

    def _module_error(self, d: Diagnostic, needs_plan_values: bool) -> None:
        """A mistake found evaluating a module instance's variables, locals, outputs or calls."""
        if d in self.diags:
            return  # the same mistake in every instance of a module: terraform says it once
        if needs_plan_values and needs_values(d):
            self.walk_error(d)
        else:
            self.diags.append(d)

    def _local_failed(self, lc: LocalConfig, exc: EvalError) -> None:
        """A local whose expression failed: a walk error when it needs planned values that a
        failure elsewhere left unknown, a diagnostic of the configuration otherwise."""
        d = exc.error(SourceRange(lc.range.filename, exc.line))
        if self.needs_plan_values([lc.expr]) and needs_values(d):
            self.walk_error(d)
        else:
            self.diags.append(d)

    def local_resource_deps(self, name: str) -> frozenset[ResourceAddr]:
        """The resources the root's ``local.NAME`` refers to, directly or through other locals
        (and the outputs of modules)."""
        return self.module_deps.local(self.root, name)

    def references_through_locals(self, exprs: list[E.Expr], module: Module | None = None) -> Iterator[E.Reference]:
        """The references in ``exprs`` and in the locals they use, the locals' own left out."""
        locals_ = (module or self.module).locals
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

    def needs_plan_values(self, exprs: list[E.Expr], module: Module | None = None) -> bool:
        """Do ``exprs`` refer to a resource or a variable, directly or through locals? Terraform
        validates with those unknown: an error in evaluating them, its plan walk finds."""
        return any(ref.root not in ("count", "each", "path", "terraform", "self", "module")
                   for ref in self.references_through_locals(exprs, module))

    def uses_failed(self, exprs: list[E.Expr], also: set[ResourceAddr], mi: ModuleInstance | None = None) -> bool:
        """Do ``exprs`` (or the resources in ``also``) refer, directly or through locals, to a
        resource that could not be planned (or a module output whose precondition failed)?"""
        if also & self.failed:
            return True
        if self.failed_outputs and self._uses_failed_output(exprs, mi or self.root):
            return True
        mi = mi or self.root
        for ref in self.references_through_locals(exprs, mi.config):
            name = ref.step_name(0)
            if name is None:
                continue
            if ref.root in ("var", "module"):
                if self.module_deps.of_ref(mi, ref) & self.failed:
                    return True
            elif ref.root == "data":
                if ref.step_name(1) and mi.at(resource_addr(name, str(ref.step_name(1)), "data")) in self.failed:
                    return True
            elif mi.at(resource_addr(ref.root, name)) in self.failed:
                return True
        return False

    def _uses_failed_output(self, exprs: list[E.Expr], mi: ModuleInstance) -> bool:
        for ref in self.references_through_locals(exprs, mi.config):
            call = mi.config.calls.get(ref.step_name(0) or "") if ref.root == "module" else None
            got = self.instances.call_instances(mi, call.name) if call is not None else None
            if got is None:
                continue
            named = next((s for s in ref.steps[1:] if isinstance(s, str)), None)  # None: the whole module
            if any(p == fp and named in (None, out) for p in got[1] for fp, out in self.failed_outputs):
                return True
        return False

    # ------------------------------------------------------------------ sensitivity

    def sensitive_of(self, addr: InstanceAddr) -> frozenset[str]:
        """The attributes of ``addr`` a plan must not show (schema, state and configuration)."""
        r = addr.resource
        if r.module.steps:
            got = self._by_instance.get(r.module)
            if got is None:
                m = self.module.descendant(tuple(n for n, _k in r.module.steps))
                if m is None:
                    return frozenset()
                got = self._by_instance[r.module] = self._sensitivity_of(m)
            return got.attributes(r.mode, r.type, r.name)
        return self.sensitivity.attributes(r.mode, r.type, r.name)

    def sensitive_in_state(self, addr: InstanceAddr, obj: ObjectState, prov: ProviderConfigAddr) -> frozenset[str]:
        """What of an object in the state must not be shown: its recorded marks, its type's schema's,
        and the configuration's when it is still configured."""
        return in_state(obj, addr, prov, self.providers) | self.sensitive_of(addr)


# mistakes terraform's validation finds from the configuration and schemas alone, before planning
_STATIC_SUMMARIES = frozenset({
    "Too many function arguments", "Not enough function arguments",
    "Missing resource instance key", "Unexpected resource instance key", "Invalid reference",
    "Reference to undeclared resource", "Reference to undeclared input variable",
    "Reference to undeclared local value", 'Reference to "count" in non-counted context',
    'Reference to "each" in context without for_each', "Call to unknown function",
})


def needs_values(d: Diagnostic) -> bool:
    """Is ``d`` something only values show (terraform's plan walk), not the configuration?"""
    if d.summary in _STATIC_SUMMARIES:
        return False
    return not (d.summary == "Unsupported attribute" and d.detail.startswith("This object has no argument"))

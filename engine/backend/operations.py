"""Operations a user runs: plan, apply, destroy. They tie configuration, state, planner and walker together.

Every operation is a coroutine that runs on trio or asyncio (anyio).
"""

from __future__ import annotations

import gc
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.addrs import InstanceAddr, InstanceKey, ResourceAddr
from engine.backend import local
from engine.config import conditions
from engine.config.module import Module, load_module
from engine.config.variables import resolve as resolve_variables
from engine.diagnostics import (
    Diagnostic,
    DiagnosticsError,
    PlanningFailed,
    ProviderError,
    SourceRange,
    StrataError,
    error,
    errors_of,
)
from engine.events import stream as ev
from engine.graph.limits import Limits
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.lang.sensitivity import of_module as sensitivity_of
from engine.lang.sensitivity import state_marks
from engine.planning.planner import Planner
from engine.planning.targeting import parse_targets
from engine.plans.plan import Plan
from engine.provider.registry import Providers
from engine.state.model import State
from engine.state.store import StateStore

if TYPE_CHECKING:  # imported where an apply runs: a plan does not load the apply stage
    from engine.apply.executor import ApplyResolver, ApplyResult


@dataclass
class Options:
    chdir: str = "."
    state_path: str | None = None
    """``-state``: the state file, overriding the configured backend; None: the backend's (see
    :mod:`engine.backend.local`)."""
    variables: dict[str, str] = field(default_factory=dict)
    var_args: list[tuple[str, str]] = field(default_factory=list)
    """("var", "NAME=VALUE") and ("var-file", PATH) in command-line order (used with ``variables``)."""
    parallelism: int = 10
    refresh: bool = True
    fail_fast: bool = False
    fsync: bool = True
    replace: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    refresh_only: bool = False
    limits: Limits = field(default_factory=Limits)
    saved_variables: dict[str, Any] | None = None
    """The variable values of a saved plan: used as they are, instead of -var, files and defaults."""
    on_signals: bool = False
    """SIGINT/SIGTERM stop an apply gracefully (the command line sets this; a library caller has
    its own signal handling)."""

    _state_file: str | None = field(default=None, init=False, repr=False)

    def state_file(self) -> str:
        """The state file this run works on: ``state_path``, else the current workspace's under the
        configuration's ``backend "local"`` (decided once per run)."""
        if self._state_file is None:
            self._state_file = local.state_file(self.chdir, self.state_path)
        return self._state_file


@dataclass
class Planned:
    module: Module
    state: State
    plan: Plan
    planner: Planner
    store: StateStore
    providers: Providers
    warnings: list[Diagnostic] = field(default_factory=list)
    """What the plan found worth saying that stopped nothing (values for undeclared variables)."""


async def make_plan(opts: Options, emit: Callable[[ev.Event], None], destroy: bool = False,
                    providers: Providers | None = None, lock: bool = False) -> Planned:
    """Load everything and plan. Raises DiagnosticsError on any user mistake."""
    module = load_module(opts.chdir)
    providers = providers or Providers()
    store = StateStore(opts.state_file(), providers.dynamic_attrs, fsync=opts.fsync)
    if lock:
        store.lock()
    warnings: list[Diagnostic] = []
    try:
        state = store.load()
        _check_limit_names(module, state, opts.limits)
        if opts.saved_variables is not None:
            variables, diags = dict(opts.saved_variables), list[Diagnostic]()
        else:
            variables, diags = _variables(module, opts)
        warnings = [d for d in diags if d.severity != "error"]
        if errors_of(diags):
            # terraform stops at a missing or undeclared value before planning; a value of the wrong
            # type it finds in its plan walk
            early = [d for d in errors_of(diags) if d.summary != "Invalid value for input variable"]
            if early:
                raise DiagnosticsError(early)
            raise PlanningFailed(errors_of(diags))
        invalid = conditions.validate_variables(module, variables, sensitivity_of(module, providers))
        if invalid:  # terraform's: found as it plans, so "Planning failed"
            raise PlanningFailed(invalid)
        replace = frozenset(_parse_replace(opts.replace))
        try:
            targets = parse_targets(opts.targets)
        except ValueError as exc:
            raise DiagnosticsError([error("Invalid target address", f"{exc}: -target takes TYPE.NAME, "
                                          'TYPE.NAME[INDEX] or TYPE.NAME["KEY"] (modules are not supported).')
                                    ]) from None
        planner = Planner(module, state, providers, variables, emit, refresh=opts.refresh, replace=replace,
                          parallelism=opts.parallelism, targets=targets, refresh_only=opts.refresh_only,
                          limits=_limits(module, opts))  # refresh reads are held to them too
        try:
            plan = await planner.run(destroy=destroy)
        except DiagnosticsError as exc:
            static = [d for d in exc.diagnostics if not any(d is w for w in planner.walk_errors)]
            if static:  # what terraform finds when it validates the configuration: it stops there
                raise DiagnosticsError(static) from None
            warnings += [d for d in planner.diags if d.severity == "warning"]
            raise PlanningFailed(exc.diagnostics, planner.plan, providers.dynamic_attrs) from None
    except DiagnosticsError as exc:
        store.unlock()
        diags = module.with_context(list(exc.diagnostics))
        again = (PlanningFailed(diags, exc.partial, exc.types) if isinstance(exc, PlanningFailed)
                 else DiagnosticsError(diags))
        again.warnings = tuple(module.with_context(list(warnings)))
        raise again from None
    except BaseException:
        store.unlock()
        raise
    warnings += module.with_context([d for d in planner.diags if d.severity == "warning"])  # a condition's withheld message
    return Planned(module, state, plan, planner, store, providers, warnings)


def _check_limit_names(module: Module, state: State, limits: Limits) -> None:
    """A typo in a concurrency setting would silently mean "no limit": make it an error."""
    from engine.addrs import provider_key_from_state

    providers = {rc.provider_key for rc in module.resources.values()} | set(module.providers)
    providers |= {provider_key_from_state(rs.provider) for rs in state.resources.values()}
    types = {a.type for a in module.resources} | {a.type for a in state.resources}
    diags = []
    sources = [("command line", limits)] + [(f'provider "{pc.key}" block', pc.limits)
                                            for pc in module.providers.values() if pc.limits is not None]
    for where, lim in sources:
        for name in list(lim.provider_parallelism) + list(lim.provider_rate) + list(lim.provider_retries):
            if name not in providers:
                diags.append(error("Unknown provider in a concurrency setting",
                                   f'The {where} sets a limit for provider "{name}", which this configuration '
                                   f"does not use (it uses: {', '.join(sorted(providers)) or 'none'}). An alias "
                                   "is written NAME.ALIAS, e.g. aws.west."))
        for name in list(lim.type_parallelism) + list(lim.type_rate):
            if name not in types:
                diags.append(error("Unknown resource type in a concurrency setting",
                                   f'The {where} sets a limit for resource type "{name}", which this '
                                   f"configuration does not use (it uses: {', '.join(sorted(types)) or 'none'})."))
    if diags:
        raise DiagnosticsError(diags)


def _variables(module: Module, opts: Options) -> tuple[dict[str, Any], list[Any]]:
    cli = list(opts.var_args) + [("var", f"{k}={v}") for k, v in opts.variables.items()]
    return resolve_variables(module, cli, directory=opts.chdir)


def _parse_replace(items: tuple[str, ...]) -> list[InstanceAddr]:
    from engine.addrs import parse_instance_addr

    out = []
    for s in items:
        try:
            out.append(parse_instance_addr(s))
        except ValueError as exc:
            raise DiagnosticsError([error("Invalid replace address", str(exc))]) from None
    return out


async def apply_planned(p: Planned, opts: Options, emit: Callable[[ev.Event], None]) -> ApplyResult:
    """Apply an already made plan; the state is written as objects complete."""
    from engine.apply.executor import ApplyResolver
    from engine.apply.graph import build_apply_graph

    try:
        graph, work = build_apply_graph(p.plan)
        # configuration, plan and graph live until the end: move them out of the collector's
        # sight so its passes during the walk only scan what the walk creates. (No collection
        # first: it took 0.2 s at 100k resources and freed nothing that showed in peak RSS.)
        gc.freeze()
        kinds = dict(p.planner.resolver.kind)
        keys: dict[ResourceAddr, list[InstanceKey]] = {
            a: sorted(v, key=_key_order) for a, v in p.planner.resolver.values.items()}
        # one view of the applied values, shared by resources, locals and outputs
        resolver = ApplyResolver(p.module, p.state, kinds, keys)
        local_value = _apply_locals(p, resolver)
        try:
            return await _walk(p, opts, emit, graph, work, resolver, local_value)
        except BaseExceptionGroup as group:
            # a state write failure cancels the walk: report it as itself, not as a task-group error
            failure = group.subgroup(lambda e: isinstance(e, StrataError))
            if failure is None:
                raise
            first: BaseException = failure
            while isinstance(first, BaseExceptionGroup):
                first = first.exceptions[0]
            raise first from group
    finally:
        p.store.unlock()


async def _walk(p: Planned, opts: Options, emit: Callable[[ev.Event], None], graph: Any, work: Any,
                resolver: ApplyResolver, local_value: Callable[[str, int], Any]) -> ApplyResult:
    from engine.apply.executor import Applier

    """The walk inside one state writer: the journal is compacted into the snapshot at the end."""
    async with p.store.writer(p.state) as writer:
        applier = Applier(p.module, p.plan, graph, work, p.providers, writer, emit, p.plan.variables,
                          resolver, local_value, _limits(p.module, opts))
        applier.record_data_reads()
        if p.plan.refresh_only and p.plan.drift:
            writer.changed = True  # the refreshed objects are what this apply records
        result = await applier.run(opts.parallelism, opts.fail_fast, opts.on_signals)
        outputs = _final_outputs(p, applier.resolver, local_value, result)
        if outputs != p.state.outputs:
            writer.changed = True
        p.state.outputs = outputs
    return result


def _limits(module: Module, opts: Options) -> Limits:
    """The command line's limits, then each provider block's where the command line set none."""
    limits = opts.limits
    for pc in module.providers.values():
        if pc.limits is not None:
            limits.merge(pc.limits)
    return limits


def _key_order(k: Any) -> tuple[int, Any]:
    return (0, k) if isinstance(k, int) else (1, k)


def _apply_locals(p: Planned, resolver: ApplyResolver) -> Callable[[str, int], Any]:
    memo: dict[str, Any] = {}

    def local_value(name: str, line: int) -> Any:
        if name in memo:
            return memo[name]
        lc = p.module.locals.get(name)
        if lc is None:
            raise EvalError("Reference to undeclared local value", name, line)
        v = evaluate(lc.expr, Scope(p.plan.variables, local_value, resolver, sensitivity=p.planner.sensitivity))
        if not p.planner.local_resource_deps(name):
            memo[name] = v
        return v

    return local_value


def _final_outputs(p: Planned, resolver: Any, local_value: Callable[[str, int], Any],
                   result: ApplyResult) -> dict[str, tuple[Any, bool]]:
    if p.plan.destroy:
        # a targeted destroy leaves the rest, outputs included, as it was
        return dict(p.state.outputs) if p.plan.targeted else {}
    out: dict[str, tuple[Any, bool]] = {}
    for oc in p.module.outputs.values():
        if oc.name in p.plan.kept_outputs:  # left out by -target
            if oc.name in p.state.outputs:
                out[oc.name] = p.state.outputs[oc.name]
            continue
        try:
            v = evaluate(oc.expr, Scope(p.plan.variables, local_value, resolver, sensitivity=p.planner.sensitivity))
        except EvalError as exc:
            if result.ok:
                result.diagnostics.append(exc.error(
                                                SourceRange(oc.range.filename, exc.line)))
            continue
        from engine.values import is_wholly_known

        if v is not None and is_wholly_known(v):  # as terraform's: a null output is no output
            out[oc.name] = (v, oc.sensitive)
    return out


Confirm = Callable[[Planned], Awaitable[bool]]


async def import_resource(opts: Options, address: str, import_id: str, emit: Callable[[ev.Event], None],
                          providers: Providers | None = None, announce: Callable[[str], None] | None = None) -> str:
    """Bring an existing remote object under management at ``address``; returns a human message.
    ``announce`` gets terraform's "Importing from ID" line once the address is known to be valid.

    As terraform requires, the resource must be declared in configuration. The
    provider turns the id into an import stub (ImportResourceState), then reads
    the full object (ReadResource); the object is recorded durably in state.
    """
    from engine.addrs import parse_instance_addr
    from engine.provider.protocol import ImportResourceStateRequest, ReadResourceRequest
    from engine.state.model import ObjectState
    from engine.values import is_wholly_known

    try:
        addr = parse_instance_addr(address)
    except ValueError as exc:
        raise DiagnosticsError([error("Invalid address", str(exc))]) from None
    module = load_module(opts.chdir)
    rc = module.resources.get(addr.resource)
    if rc is None or addr.resource.mode != "managed":
        raise DiagnosticsError([error("Configuration for import target does not exist",
                                      f"The configuration does not contain {addr.resource}. Before importing "
                                      "this resource, please create its configuration in the root module.")])
    if (addr.key is None) != (not rc.expanded) or (isinstance(addr.key, int) and rc.for_each is not None) \
            or (isinstance(addr.key, str) and rc.count is not None):
        how = ("has no count or for_each, so its address takes no instance key" if not rc.expanded else
               "uses count, so its instances are addressed with a number, like [0]" if rc.count is not None else
               'uses for_each, so its instances are addressed with a string key, like ["name"]')
        raise DiagnosticsError([error("Invalid import address",
                                      f"{addr.resource} {how}; {addr} does not match it.", rc.range)])
    providers = providers or Providers()
    store = StateStore(opts.state_file(), providers.dynamic_attrs, fsync=opts.fsync)
    store.lock()
    try:
        state = store.load()
        if state.object(addr) is not None:
            raise DiagnosticsError([error("Resource already managed by strata",
                                          f"strata is already managing a remote object for {addr}. To import "
                                          "to this address you must first remove the existing object from "
                                          "the state.")])
        variables, diags = _variables(module, opts)
        if errors_of(diags):
            raise DiagnosticsError(errors_of(diags))
        planner = Planner(module, state, providers, variables, emit, refresh=False)
        planner._check_resource_types()
        await planner._configure_providers()
        planner._raise_if_errors()
        provider = providers.get(rc.provider_key)
        schema = providers.schema(rc.provider_key, addr.resource.type)
        assert schema is not None
        if announce is not None:
            announce(f'{addr}: Importing from ID "{import_id}"...\n')
        try:
            resp = await provider.import_resource_state(ImportResourceStateRequest(addr.resource.type, import_id))
        except Exception as exc:
            raise ProviderError("Provider failed to import", address=str(addr), provider=rc.provider_key,
                                detail=f"{type(exc).__name__}: {exc}") from exc
        errs = errors_of(resp.diagnostics)
        if errs or resp.state is None:
            raise DiagnosticsError(errs or [error("Import failed", f'The provider returned nothing for id "{import_id}".')])
        try:
            read = await provider.read_resource(ReadResourceRequest(addr.resource.type, resp.state))
        except Exception as exc:
            raise ProviderError("Provider failed to read the imported object", address=str(addr),
                                provider=rc.provider_key, detail=f"{type(exc).__name__}: {exc}") from exc
        errs = errors_of(read.diagnostics)
        if errs:
            raise DiagnosticsError(errs)
        if read.new_state is None:
            raise DiagnosticsError([error("Cannot import non-existent remote object",
                                          f'While attempting to import an existing object to "{addr}", the '
                                          f'provider detected that no object exists with the given id "{import_id}".')])
        if not is_wholly_known(read.new_state):
            raise DiagnosticsError([error("Provider produced invalid object",
                                          f"The imported object for {addr} contains unknown values.")])
        obj = ObjectState(read.new_state, schema_version=schema.version,  # terraform marks what the schema does
                          sensitive_attributes=state_marks(read.new_state, frozenset(schema.sensitive_paths())))
        async with store.writer(state) as writer:
            writer.put(addr, providers.state_address(rc.provider_key), obj)
        return f"{addr}: Import prepared!\n  Prepared {addr.resource.type} for import\n\nImport successful!"
    finally:
        store.unlock()

"""Operations a user runs: plan, apply, destroy. They tie configuration, state, planner and walker together.

Every operation is a coroutine that runs on trio or asyncio (anyio).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace as with_fields
from typing import TYPE_CHECKING, Any

from engine.addrs import InstanceAddr
from engine.backend.applying import Planned, apply_plan, limits_of
from engine.backend.dependencies import require_installed

# callers import these from here (their homes: options, saved)
from engine.backend.options import OperationState as OperationState
from engine.backend.options import Options as Options
from engine.backend.options import open_state as open_state
from engine.backend.saved import CHANGED_CONFIG as CHANGED_CONFIG
from engine.backend.saved import open_saved_plan as open_saved_plan
from engine.config import conditions
from engine.config.model import Module
from engine.config.module import load_module
from engine.config.providers import check_resource_types, configure_providers, unplanned_locals
from engine.config.variables import resolve as resolve_variables
from engine.diagnostics import (
    Diagnostic,
    DiagnosticsError,
    PlanningFailed,
    error,
    errors_of,
)
from engine.events import stream as ev
from engine.graph.limits import Limits
from engine.lang.sensitivity import of_module as sensitivity_of
from engine.lang.sensitivity import state_marks
from engine.plans.plan import Action, Plan
from engine.plans.planfile import config_digest
from engine.provider.registry import Providers
from engine.provider.seam import Failure
from engine.state.model import State
from engine.state.store import StateStore

if TYPE_CHECKING:  # imported where an apply runs: a plan does not load the apply stage
    from engine.apply.executor import ApplyResult
    from engine.apply.graph import ApplyNode, Node, Work
    from engine.graph.dag import Graph


async def make_plan(opts: Options, emit: Callable[[ev.Event], None], destroy: bool = False,
                    providers: Providers | None = None, store: StateStore | None = None) -> Planned:
    """Load everything and plan. Raises DiagnosticsError on any user mistake.

    ``store``: the state, from :func:`open_state` (locked); without one, the state is read
    unlocked, as by a library caller that coordinates on its own."""
    # here, not at the top: applying a saved plan (or importing) loads nothing of the planner
    from engine.planning.planner import Planner
    from engine.planning.targeting import parse_targets

    digest = config_digest(opts.chdir)  # before loading: what the plan is made from
    module = load_module(opts.chdir)
    providers = providers or Providers()
    require_installed(module, opts.chdir, providers)
    if store is None:
        from engine.lang.scope import set_workspace

        store = StateStore(opts.state_file(), providers.dynamic_attrs, fsync=opts.fsync)
        set_workspace(opts.workspace())  # what open_state sets for a locked operation
    warnings: list[Diagnostic] = []
    try:
        state = store.load()
        _check_limit_names(module, state, opts.limits)
        variables, diags = _variables(module, opts)
        warnings = [*store.warnings, *(d for d in diags if d.severity != "error")]  # a torn journal record
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
                          limits=limits_of(module, opts.limits),  # refresh reads are held to them too
                          generate_config_out=opts.generate_config_out)
        try:
            plan = with_fields(await planner.run(destroy=destroy), config_digest=digest)
        except DiagnosticsError as exc:
            static = [d for d in exc.diagnostics if not any(d is w for w in planner.walk_errors)]
            if static:  # what terraform finds when it validates the configuration: it stops there
                raise DiagnosticsError(static) from None
            warnings += [d for d in planner.diags if d.severity == "warning"]
            partial = with_fields(planner.plan, config_digest=digest, errored=True)
            raise PlanningFailed(exc.diagnostics, partial, providers.dynamic_attrs, state) from None
    except DiagnosticsError as exc:
        diags = module.with_context(list(exc.diagnostics))
        again = (PlanningFailed(diags, exc.partial, exc.types, exc.state) if isinstance(exc, PlanningFailed)
                 else DiagnosticsError(diags))
        again.warnings = tuple(module.with_context(list(warnings)))
        raise again from None
    warnings += module.with_context([d for d in planner.diags if d.severity == "warning"])  # a condition's withheld message
    return Planned(module, state, plan, store, providers, warnings, _checked_apply_graph(plan))


def _checked_apply_graph(plan: Plan) -> tuple[Graph[Node], dict[ApplyNode, Work]] | None:
    """The apply graph of ``plan``, built as terraform's plan builds it, to report a cycle in it
    (:class:`~engine.diagnostics.CycleError`) before anything is applied. A plan without deletes
    needs no check: its graph follows the configuration's references, which have no cycle, and
    a plan only loads the apply stage for this when it has some."""
    if not any(c.action in (Action.DELETE, Action.DELETE_THEN_CREATE, Action.CREATE_THEN_DELETE)
               for c in plan.changes):
        return None
    from engine.apply.graph import build_apply_graph

    return build_apply_graph(plan)


def _check_limit_names(module: Module, state: State, limits: Limits) -> None:
    """A typo in a concurrency setting would silently mean "no limit": make it an error."""
    from engine.config.providers import all_resources

    every = all_resources(module)
    providers = {rc.provider_key for rc in every} | set(module.providers)
    providers |= {rs.provider.local_key for rs in state.resources.values()}
    types = {rc.addr.type for rc in every} | {a.type for a in state.resources}
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
    """Apply an already made plan (:func:`engine.backend.applying.apply_plan` with ``opts``'s
    settings); the state is written as objects complete."""
    return await apply_plan(p, emit, parallelism=opts.parallelism, fail_fast=opts.fail_fast,
                            on_signals=opts.on_signals, limits=opts.limits)


Confirm = Callable[[Planned], Awaitable[bool]]

# a provider that raises while importing stops the import (its wording of it)
_IMPORT_FAILED = Failure("Provider failed to import", raises=True)
_IMPORT_READ_FAILED = Failure("Provider failed to read the imported object", raises=True)


IMPORT_SUCCESSFUL = """
Import successful!

The resources that were imported are shown above. These resources are now in
your strata state and will henceforth be managed by strata.
"""
"""terraform's closing words of ``import`` (its line breaks too)."""


async def import_resource(opts: Options, address: str, import_id: str, emit: Callable[[ev.Event], None],
                          providers: Providers | None = None, announce: Callable[[str], None] | None = None) -> str:
    """Bring an existing remote object under management at ``address``; returns a human message.
    ``announce`` gets terraform's progress lines: "Importing from ID" once the address is known to be
    valid, then "Import prepared!" and the refresh of the object found.

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
    rc = module.resource_at(addr.resource)
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
    require_installed(module, opts.chdir, providers)
    async with open_state(opts, "import", providers) as store:
        state = store.load()
        if state.object(addr) is not None:
            raise DiagnosticsError([error("Resource already managed by strata",
                                          f"strata is already managing a remote object for {addr}. To import "
                                          "to this address you must first remove the existing object from "
                                          "the state.")])
        variables, diags = _variables(module, opts)
        if errors_of(diags):
            raise DiagnosticsError(errors_of(diags))
        found = check_resource_types(module, providers)
        await configure_providers(module, providers, variables,
                                  unplanned_locals(module, providers, variables, found), found)
        if errors_of(found):
            raise DiagnosticsError(errors_of(found))
        provider = providers.seam(rc.provider_key)
        schema = providers.schema(rc.provider_key, addr.resource.type)
        assert schema is not None
        if announce is not None:
            announce(f'{addr}: Importing from ID "{import_id}"...\n')
        resp = await provider.import_resource_state(ImportResourceStateRequest(addr.resource.type, import_id),
                                                    address=str(addr), failure=_IMPORT_FAILED)
        errs = errors_of(resp.diagnostics)
        if errs or resp.state is None:
            raise DiagnosticsError(errs or [error("Import failed", f'The provider returned nothing for id "{import_id}".')])
        if announce is not None:  # terraform's hooks: the import, then the refresh of what it found
            ident = resp.state.get(schema.id_attribute)
            announce(f"{addr}: Import prepared!\n  Prepared {addr.resource.type} for import\n"
                     + (f"{addr}: Refreshing state... [{schema.id_attribute}={ident}]\n" if isinstance(ident, str) else ""))
        read = await provider.read_resource(ReadResourceRequest(addr.resource.type, resp.state, resp.private),
                                            address=str(addr), failure=_IMPORT_READ_FAILED, annotate=False)
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
                          sensitive_attributes=state_marks(read.new_state, frozenset(schema.sensitive_paths())),
                          private=read.private)
        async with store.writer(state) as writer:
            writer.put(addr, providers.config_address(rc.provider_key), obj)
        prepared = "" if announce is not None else f"{addr}: Import prepared!\n  Prepared {addr.resource.type} for import\n"
        return prepared + IMPORT_SUCCESSFUL

"""Operations a user runs: plan, apply, destroy. They tie configuration, state, planner and walker together.

Every operation is a coroutine that runs on trio or asyncio (anyio).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any

from engine.addrs import InstanceAddr
from engine.backend import local
from engine.backend.applying import Planned, apply_plan, limits_of
from engine.config import conditions
from engine.config.model import Module
from engine.config.module import load_module
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
from engine.planning.planner import Planner
from engine.planning.targeting import parse_targets
from engine.plans.plan import prior_state
from engine.plans.planfile import SavedPlan, config_digest, state_mismatch
from engine.provider.registry import Providers
from engine.provider.seam import Failure
from engine.state.model import State
from engine.state.store import StateStore

if TYPE_CHECKING:  # imported where an apply runs: a plan does not load the apply stage
    from engine.apply.executor import ApplyResult


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
    on_signals: bool = False
    """SIGINT/SIGTERM stop an apply gracefully (the command line sets this; a library caller has
    its own signal handling)."""
    lock: bool = True
    """Take the state lock (``-lock=false``: don't; another operation may then write at the same time)."""
    lock_timeout: float = 0.0
    """Seconds to wait for another operation's lock (``-lock-timeout``); 0: fail at once."""

    _state_file: str | None = field(default=None, init=False, repr=False)

    def state_file(self) -> str:
        """The state file this run works on: ``state_path``, else the current workspace's under the
        configuration's ``backend "local"`` (decided once per run)."""
        if self._state_file is None:
            self._state_file = local.state_file(self.chdir, self.state_path)
        return self._state_file


def open_state(opts: Options, operation: str, providers: Providers, *, writes: bool = True,
               on_wait: Callable[[], None] | None = None) -> OperationState:
    """``async with open_state(opts, "OperationTypeApply", providers) as store``: see :class:`OperationState`."""
    return OperationState(opts, operation, providers, writes=writes, on_wait=on_wait)


class OperationState:
    """The state for one operation, its lock held for the whole block and released when it ends,
    however it ends: the one place an operation takes the lock. ``operation`` is recorded in the
    lock (terraform's names: OperationTypePlan, OperationTypeApply, state-rm, ...); ``writes=False``
    for an operation that only reads (plan). ``on_wait``: called once a wait for another holder
    (``-lock-timeout``) has lasted long enough to say so.

    A class rather than a generator: leaving it allocates next to nothing, which matters when the
    operation is unwinding because memory ran out."""

    def __init__(self, opts: Options, operation: str, providers: Providers, *, writes: bool = True,
                 on_wait: Callable[[], None] | None = None) -> None:
        self.store = StateStore(opts.state_file(), providers.dynamic_attrs, fsync=opts.fsync)
        self.lock = self.store.locked(operation, enabled=opts.lock, timeout=opts.lock_timeout, writes=writes,
                                      on_wait=on_wait)

    async def __aenter__(self) -> StateStore:
        await self.lock.acquire()
        return self.store

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        self.lock.release()


async def make_plan(opts: Options, emit: Callable[[ev.Event], None], destroy: bool = False,
                    providers: Providers | None = None, store: StateStore | None = None) -> Planned:
    """Load everything and plan. Raises DiagnosticsError on any user mistake.

    ``store``: the state, from :func:`open_state` (locked); without one, the state is read
    unlocked, as by a library caller that coordinates on its own."""
    digest = config_digest(opts.chdir)  # before loading: what the plan is made from
    module = load_module(opts.chdir)
    providers = providers or Providers()
    if store is None:
        store = StateStore(opts.state_file(), providers.dynamic_attrs, fsync=opts.fsync)
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
                          limits=limits_of(module, opts.limits))  # refresh reads are held to them too
        try:
            plan = await planner.run(destroy=destroy)
            plan.config_digest = digest
        except DiagnosticsError as exc:
            static = [d for d in exc.diagnostics if not any(d is w for w in planner.walk_errors)]
            if static:  # what terraform finds when it validates the configuration: it stops there
                raise DiagnosticsError(static) from None
            warnings += [d for d in planner.diags if d.severity == "warning"]
            raise PlanningFailed(exc.diagnostics, planner.plan, providers.dynamic_attrs) from None
    except DiagnosticsError as exc:
        diags = module.with_context(list(exc.diagnostics))
        again = (PlanningFailed(diags, exc.partial, exc.types) if isinstance(exc, PlanningFailed)
                 else DiagnosticsError(diags))
        again.warnings = tuple(module.with_context(list(warnings)))
        raise again from None
    warnings += module.with_context([d for d in planner.diags if d.severity == "warning"])  # a condition's withheld message
    return Planned(module, state, plan, store, providers, warnings)


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
    """Apply an already made plan (:func:`engine.backend.applying.apply_plan` with ``opts``'s
    settings); the state is written as objects complete."""
    return await apply_plan(p, emit, parallelism=opts.parallelism, fail_fast=opts.fail_fast,
                            on_signals=opts.on_signals, limits=opts.limits)


async def open_saved_plan(opts: Options, saved: SavedPlan, emit: Callable[[ev.Event], None],
                          providers: Providers | None = None, store: StateStore | None = None) -> Planned:
    """A plan read back from a file, ready to apply without planning again: the state locked and
    loaded, the one the plan was made from (lineage and serial), with what refresh found put back;
    the configuration unchanged (its digest); the providers configured. Otherwise diagnostics say
    which, and nothing is changed. ``store``: the state, from :func:`open_state` (locked), as for
    :func:`make_plan`."""
    plan = saved.plan
    providers = providers or Providers()
    if store is None:
        store = StateStore(opts.state_file(), providers.dynamic_attrs, fsync=opts.fsync)
    existed = os.path.exists(opts.state_file())
    module: Module | None = None
    try:
        state = store.load()
        mismatch = state_mismatch(saved, state.lineage if existed else None, state.serial if existed else None)
        if mismatch:
            raise DiagnosticsError(mismatch)
        if config_digest(opts.chdir) != plan.config_digest:
            raise DiagnosticsError([error("Saved plan does not match the configuration", CHANGED_CONFIG)])
        module = load_module(opts.chdir)
        # the providers are configured as for the plan (terraform's provider nodes are in both walks)
        planner = Planner(module, state, providers, plan.variables, emit, refresh=False)
        planner._check_resource_types()
        await planner._configure_providers()
        planner._raise_if_errors()
        prior_state(plan, state)
    except DiagnosticsError as exc:
        raise DiagnosticsError(module.with_context(list(exc.diagnostics)) if module else exc.diagnostics) from None
    return Planned(module, state, plan, store, providers)


CHANGED_CONFIG = ("The configuration files changed after the plan was created, so it can no longer be applied: "
                  "apply evaluates the configuration the plan was made from. Run strata plan again.")


Confirm = Callable[[Planned], Awaitable[bool]]

# a provider that raises while importing stops the import (its wording of it)
_IMPORT_FAILED = Failure("Provider failed to import", raises=True)
_IMPORT_READ_FAILED = Failure("Provider failed to read the imported object", raises=True)


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
        planner = Planner(module, state, providers, variables, emit, refresh=False)
        planner._check_resource_types()
        await planner._configure_providers()
        planner._raise_if_errors()
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
            writer.put(addr, providers.state_address(rc.provider_key), obj)
        return f"{addr}: Import prepared!\n  Prepared {addr.resource.type} for import\n\nImport successful!"

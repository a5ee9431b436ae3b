"""strata for programs: a :class:`Workspace` (a directory of ``.tf`` files and its state) whose
operations return value objects, and whose runs stream their events to subscribers.

Runs on trio and on asyncio (anyio)::

    ws = Workspace("infra", variables={"region": "eu-west-1"})
    plan = await ws.plan()
    run = ws.apply(events_log="events.jsonl")
    events = run.events(buffer=1000)          # before the run starts
    async with anyio.create_task_group() as tg:
        tg.start_soon(watch, events)          # async for item in events: ...
        outcome = await run.result()

A run never waits for its subscribers (:mod:`engine.events.subscribers`): one that falls behind
gets a ``Lagged`` notice and can read what it missed from the run's event log.

For one operation step by step under one lock (plan, look at the plan, ask, apply):
:meth:`Workspace.operation` (:mod:`engine.api.operation`). The ``strata`` command is a client of
this module: it runs every plan, apply, destroy, refresh, import and state edit that way, and
reads the state with :meth:`Workspace.read_state`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.api.operation import DEFAULT_PLAN, Emit, Operation, PlanOptions
from engine.backend.operations import Options
from engine.diagnostics import Diagnostic
from engine.events import stream as ev
from engine.frozen import frozen
from engine.graph.limits import Limits

if TYPE_CHECKING:
    # engine.api.run: imported by whole runs only (the command line drives operations step by step)
    from engine.api.run import ApplyOutcome, Output, PlanResult, Run
    from engine.provider.registry import Providers
    from engine.state.model import State


@frozen
class StateRead:
    """What :meth:`Workspace.read_state` read: the ``state``, the ``providers`` that know how to
    read its objects (their schemas: sensitive and dynamic attributes), and the ``warnings``
    loading it found worth saying (a torn last journal record)."""

    state: State
    providers: Providers
    warnings: tuple[Diagnostic, ...] = ()


@dataclass
class Workspace:
    """A configuration directory (``path``) and its state (``state``: a file; None: the local
    backend's, in workspace ``workspace_name``, as the command line finds it). Relative paths inside the configuration resolve
    against the process's working directory, as for ``strata -chdir``'s callers."""

    path: str = "."
    state: str | None = None
    workspace_name: str | None = None
    """The local backend's workspace to work in (``terraform workspace select``'s names: its state
    is ``terraform.tfstate.d/NAME/terraform.tfstate``, and ``terraform.workspace`` is NAME); None:
    the current one, as the command line finds it (``TF_WORKSPACE``, else the one selected)."""
    variables: dict[str, str] = field(default_factory=dict)
    """Input variables, as ``-var NAME=VALUE`` gives them (after ``variable_args``: these win)."""
    variable_args: list[tuple[str, str]] = field(default_factory=list)
    """``("var", "NAME=VALUE")`` and ``("var-file", PATH)`` in command-line order, a later one
    winning, as ``-var`` and ``-var-file`` give them (a relative path: to the working directory)."""
    parallelism: int = 10
    """At most this many operations in flight at once (``-parallelism``), refreshes too."""
    limits: Limits = field(default_factory=Limits)
    """Per provider and per resource type: concurrency, rates, retries (``-provider-parallelism``, ...)."""
    fsync: bool = True
    """fsync the state's journal as objects complete (``-no-fsync``: don't; a crash may lose them)."""
    lock: bool = True
    """Take the state's lock (``-lock=false``: don't; another operation may then write at the same time)."""
    lock_timeout: float = 0.0
    """Seconds to wait for another operation's lock (``-lock-timeout``); 0: fail at once."""
    fail_fast: bool = False
    """Stop starting operations at the first failure (``-fail-fast``); those in flight finish."""

    def _options(self, plan: PlanOptions = DEFAULT_PLAN) -> Options:
        # the one place the API's settings become the backend's
        return Options(chdir=self.path, state_path=self.state, workspace_name=self.workspace_name, var_args=list(self.variable_args),
                       variables=dict(self.variables), parallelism=self.parallelism, limits=self.limits,
                       fsync=self.fsync, lock=self.lock, lock_timeout=self.lock_timeout,
                       fail_fast=self.fail_fast, refresh=plan.refresh, refresh_only=plan.refresh_only,
                       targets=plan.targets, replace=plan.replace, generate_config_out=plan.generate_config_out)

    def state_file(self) -> str:
        """The state file the workspace's operations work on: :attr:`state` (relative to
        :attr:`path`), else :attr:`workspace_name`'s (or the current terraform workspace's) under
        the configuration's ``backend "local"``. Raises DiagnosticsError for a backend strata does not support."""
        return self._options().state_file()

    def operation(self, kind: str, *, plan: PlanOptions = DEFAULT_PLAN, writes: bool = True,
                  on_lock_wait: Callable[[], None] | None = None) -> Operation:
        """One operation on the state, step by step (``async with ws.operation(...) as op``): see
        :class:`~engine.api.operation.Operation`. ``plan``: how :meth:`Operation.plan
        <engine.api.operation.Operation.plan>` plans."""
        return Operation(self._options(plan), plan, kind, writes=writes, on_lock_wait=on_lock_wait)

    async def plan(self, options: PlanOptions = DEFAULT_PLAN, *, destroy: bool = False) -> PlanResult:
        """Plan (refreshing first, unless ``options`` say not to), read-only: the state is not
        written. ``destroy=True`` is ``PlanOptions(destroy=True)``."""
        if destroy:
            options = dataclasses.replace(options, destroy=True)
        from engine.api.run import Change, PlanResult

        async with self.operation("OperationTypePlan", plan=options, writes=False) as op:
            p = await op.plan(lambda e: None)
        counts = p.plan.counts()
        changes = tuple(Change(str(c.addr), ev.json_action(c.action), c.reason)
                        for c in p.plan.changes if ev.json_action(c.action) != "noop")
        return PlanResult(changes, counts["add"], counts["change"], counts["remove"], tuple(p.warnings))

    def apply(self, options: PlanOptions = DEFAULT_PLAN, *, destroy: bool = False, events_log: str | None = None,
              drain: float = 1.0) -> Run:
        """A run that plans (as ``options`` say; ``destroy``: to destroy everything) and applies
        when awaited (:meth:`Run.result`); ``events_log``: also write its event log there
        (``-events=FILE``); ``drain``: seconds the subscriber callbacks get, after the apply, for
        what they still buffer."""
        from engine.api.run import Run

        if destroy:
            options = dataclasses.replace(options, destroy=True)
        return Run(lambda: self.operation("OperationTypeApply", plan=options), options, events_log, drain)

    async def destroy(self, events_log: str | None = None) -> ApplyOutcome:
        return await self.apply(destroy=True, events_log=events_log).result()

    def read_state(self) -> StateRead:
        """The state as it is durable on disk, read without the lock, as ``state list``,
        ``output`` and ``show`` read it (a journal an apply in progress or a crash left is
        folded in, in memory only)."""
        from engine.provider.registry import Providers
        from engine.state.store import StateStore

        providers = Providers()
        store = StateStore(self.state_file(), providers.dynamic_attrs)
        state = store.load()
        return StateRead(state, providers, tuple(store.warnings))

    async def import_resource(self, address: str, import_id: str, emit: Emit = lambda e: None,
                              announce: Callable[[str], None] | None = None) -> str:
        """Bring the existing remote object ``import_id`` under management at ``address`` (declared
        in the configuration), recorded durably in the state; returns terraform's message.
        ``announce`` gets its "Importing from ID" line once the address is known to be valid."""
        from engine.backend.operations import import_resource

        return await import_resource(self._options(), address, import_id, emit, announce=announce)

    async def outputs(self) -> dict[str, Output]:
        """The root module's outputs in the state."""
        from engine.api.run import state_outputs

        async with self.operation("OperationTypeRefresh", writes=False) as op:
            state = op.store.load()
        return state_outputs(state.outputs)

    async def addresses(self) -> tuple[str, ...]:
        """The resource instances the state holds (``strata state list``)."""
        async with self.operation("OperationTypeRefresh", writes=False) as op:
            state = op.store.load()
        return tuple(str(addr) for addr, deposed, _obj, _p in
                     sorted(state.objects(), key=lambda t: (t[0].sort_key(), t[1] or "")) if not deposed)

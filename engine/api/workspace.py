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
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio

from engine.backend.operations import Options, apply_planned, make_plan, open_state
from engine.diagnostics import Diagnostic
from engine.events import stream as ev
from engine.events.subscribers import Callback, Subscription, deliver
from engine.frozen import frozen
from engine.graph.limits import Limits
from engine.provider.registry import Providers
from engine.values import to_json


@frozen
class Change:
    """One planned change: the instance's ``address``, terraform's UI ``action`` (create, update,
    delete, replace, read, noop) and why (``reason``, when terraform gives one)."""

    address: str
    action: str
    reason: str | None = None


@frozen
class PlanResult:
    """What :meth:`Workspace.plan` found: the changes (no-ops left out) and their counts."""

    changes: tuple[Change, ...]
    add: int
    change: int
    remove: int
    warnings: tuple[Diagnostic, ...] = ()

    @property
    def has_changes(self) -> bool:
        return bool(self.changes)


@frozen
class Output:
    value: Any
    """The value as JSON data (what ``strata output -json`` shows)."""
    sensitive: bool = False


@frozen
class ApplyOutcome:
    """How a run ended. ``ok``: no error. ``wall``: seconds from the start of planning to the end
    of the apply (the subscribers' drain after it not counted). ``events``: the sequence number
    of the run's last event. ``subscriber_errors``: what subscriber callbacks raised."""

    ok: bool
    add: int
    change: int
    remove: int
    failed: int
    skipped: int
    diagnostics: tuple[Diagnostic, ...]
    outputs: Mapping[str, Output]
    wall: float
    events: int
    subscriber_errors: tuple[BaseException, ...] = ()


@dataclass
class Workspace:
    """A configuration directory (``path``) and its state (``state``: a file; None: the local
    backend's, as the command line finds it). Relative paths inside the configuration resolve
    against the process's working directory, as for ``strata -chdir``'s callers."""

    path: str = "."
    state: str | None = None
    variables: dict[str, str] = field(default_factory=dict)
    """Input variables, as ``-var NAME=VALUE`` gives them."""
    parallelism: int = 10
    limits: Limits = field(default_factory=Limits)
    fsync: bool = True
    lock: bool = True

    def _options(self) -> Options:
        return Options(chdir=self.path, state_path=self.state, var_args=[("var", f"{k}={v}") for k, v in
                                                                           self.variables.items()],
                       parallelism=self.parallelism, limits=self.limits, fsync=self.fsync, lock=self.lock)

    async def plan(self, destroy: bool = False) -> PlanResult:
        """Plan (refreshing first), read-only: the state is not written."""
        opts = self._options()
        providers = Providers()
        async with open_state(opts, "OperationTypePlan", providers, writes=False) as store:
            p = await make_plan(opts, lambda e: None, destroy=destroy, providers=providers, store=store)
        counts = p.plan.counts()
        changes = tuple(Change(str(c.addr), ev.json_action(c.action), c.reason)
                        for c in p.plan.changes if ev.json_action(c.action) != "noop")
        return PlanResult(changes, counts["add"], counts["change"], counts["remove"], tuple(p.warnings))

    def apply(self, *, destroy: bool = False, events_log: str | None = None, drain: float = 1.0) -> Run:
        """A run that plans and applies (``destroy``: destroys everything) when awaited
        (:meth:`Run.result`); ``events_log``: also write its event log there (``-events=FILE``);
        ``drain``: seconds the subscriber callbacks get, after the apply, for what they still buffer."""
        return Run(self, destroy, events_log, drain)

    async def destroy(self, events_log: str | None = None) -> ApplyOutcome:
        return await self.apply(destroy=True, events_log=events_log).result()

    async def outputs(self) -> dict[str, Output]:
        """The root module's outputs in the state."""
        opts = self._options()
        providers = Providers()
        async with open_state(opts, "OperationTypeRefresh", providers, writes=False) as store:
            state = store.load()
        return _outputs(state.outputs)

    async def addresses(self) -> tuple[str, ...]:
        """The resource instances the state holds (``strata state list``)."""
        opts = self._options()
        providers = Providers()
        async with open_state(opts, "OperationTypeRefresh", providers, writes=False) as store:
            state = store.load()
        return tuple(str(addr) for addr, deposed, _obj, _p in
                     sorted(state.objects(), key=lambda t: (t[0].sort_key(), t[1] or "")) if not deposed)


def _outputs(outputs: Mapping[str, tuple[Any, bool]]) -> dict[str, Output]:
    return {name: Output(to_json(v), s) for name, (v, s) in sorted(outputs.items())}


class Run:
    """One apply of a :class:`Workspace`: subscribe first (:meth:`events`, :meth:`subscribe`),
    then await :meth:`result` once. Not started until then; finished when it returns."""

    def __init__(self, ws: Workspace, destroy: bool, events_log: str | None, drain: float) -> None:
        self.workspace = ws
        self.destroy = destroy
        self.events_log = events_log
        self.drain = drain
        self.bus = ev.EventBus()
        self._callbacks: list[tuple[Subscription, Callback]] = []
        self._subs: list[Subscription] = []
        self._started = False

    def events(self, buffer: int = 1024) -> Subscription:
        """The run's events for a consumer in a task of the caller's (``async for item in ...``):
        :class:`~engine.events.subscribers.Sequenced` events and ``Lagged`` notices."""
        self._not_started()
        sub = Subscription(buffer)
        self._subs.append(sub)
        self.bus.add_recorder(sub)
        return sub

    def subscribe(self, callback: Callback, buffer: int = 1024) -> Subscription:
        """``await callback(item)`` for each item, in a task of the run's; one that raises is
        detached (its error in the outcome's ``subscriber_errors``) and the run goes on."""
        sub = self.events(buffer)
        self._callbacks.append((sub, callback))
        return sub

    def _not_started(self) -> None:
        if self._started:
            raise RuntimeError("subscribe before the run starts: its first events would be missed")

    async def result(self) -> ApplyOutcome:
        self._not_started()
        self._started = True
        async with contextlib.AsyncExitStack() as stack:
            if self.events_log is not None:
                from engine.events.log import EventLog

                log = EventLog(self.events_log)
                stack.callback(log.close)
                await stack.enter_async_context(log.batching())
                self.bus.add_recorder(log)
            outcome: ApplyOutcome | None = None
            async with anyio.create_task_group() as tg:
                for sub, cb in self._callbacks:
                    tg.start_soon(deliver, sub, cb)
                try:
                    outcome = await self._apply()
                finally:
                    for sub in self._subs:
                        sub.close()
                    tg.cancel_scope.deadline = anyio.current_time() + self.drain
        assert outcome is not None
        errors = tuple(s.error for s, _ in self._callbacks if s.error is not None)
        if errors:
            outcome = _replace_errors(outcome, errors)
        return outcome

    async def _apply(self) -> ApplyOutcome:
        t0 = time.monotonic()
        ws = self.workspace
        opts = ws._options()
        providers = Providers()
        emit = self.bus.emit
        op = "destroy" if self.destroy else "apply"
        async with open_state(opts, "OperationTypeApply", providers) as store:
            p = await make_plan(opts, emit, destroy=self.destroy, providers=providers, store=store)
            emit(ev.change_summary(p.plan.counts(), "plan"))
            result = await apply_planned(p, opts, emit)
            if result.ok:
                emit(ev.change_summary(result.counts, op))
        c = result.counts
        return ApplyOutcome(result.ok, c["add"], c["change"], c["remove"], result.failed, result.skipped,
                            tuple(result.diagnostics), _outputs(p.state.outputs), time.monotonic() - t0,
                            self.bus.seq)


def _replace_errors(o: ApplyOutcome, errors: tuple[BaseException, ...]) -> ApplyOutcome:
    import dataclasses

    return dataclasses.replace(o, subscriber_errors=errors)

"""A whole run of a :class:`~engine.api.workspace.Workspace` (plan and apply at once) and the
value objects the workspace's runs return. Separate from the workspace so that the command line,
which drives its operations step by step, does not import them."""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio

from engine.api.operation import Operation, PlanOptions
from engine.diagnostics import Diagnostic
from engine.events import stream as ev
from engine.values import to_json

if TYPE_CHECKING:  # imported when a run has subscribers
    from engine.events.subscribers import Callback, Subscription


@dataclass(frozen=True, slots=True)
class Change:
    """One planned change: the instance's ``address``, terraform's UI ``action`` (create, update,
    delete, replace, read, noop) and why (``reason``, when terraform gives one)."""

    address: str
    action: str
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class PlanResult:
    """What :meth:`Workspace.plan <engine.api.workspace.Workspace.plan>` found: the changes (no-ops left out) and their counts."""

    changes: tuple[Change, ...]
    add: int
    change: int
    remove: int
    warnings: tuple[Diagnostic, ...] = ()

    @property
    def has_changes(self) -> bool:
        return bool(self.changes)


@dataclass(frozen=True, slots=True)
class Output:
    value: Any
    """The value as JSON data (what ``strata output -json`` shows)."""
    sensitive: bool = False


@dataclass(frozen=True, slots=True)
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


def state_outputs(outputs: Mapping[str, tuple[Any, bool]]) -> dict[str, Output]:
    """The state's outputs as the API returns them: JSON data, sorted by name."""
    return {name: Output(to_json(v), s) for name, (v, s) in sorted(outputs.items())}


class Run:
    """One apply of a :class:`~engine.api.workspace.Workspace` (:meth:`Workspace.apply
    <engine.api.workspace.Workspace.apply>`): subscribe first (:meth:`events`, :meth:`subscribe`),
    then await :meth:`result` once. Not started until then; finished when it returns.
    ``operation``: the workspace's operation on its state, made when the run starts."""

    def __init__(self, operation: Callable[[], Operation], options: PlanOptions, events_log: str | None,
                 drain: float) -> None:
        self.operation = operation
        self.options = options
        self.destroy = options.destroy
        self.events_log = events_log
        self.drain = drain
        self.bus = ev.EventBus()
        self._callbacks: list[tuple[Subscription, Callback]] = []
        self._subs: list[Subscription] = []
        self._started = False

    def events(self, buffer: int = 1024) -> Subscription:
        """The run's events for a consumer in a task of the caller's (``async for item in ...``):
        :class:`~engine.events.subscribers.Sequenced` events and ``Lagged`` notices."""
        from engine.events.subscribers import Subscription

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
                if self._callbacks:
                    from engine.events.subscribers import deliver

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
        emit = self.bus.emit
        kind = "destroy" if self.destroy else "apply"
        async with self.operation() as op:
            p = await op.plan(emit)
            emit(ev.change_summary(p.plan.counts(), "plan"))
            result = await op.apply(p, emit)
            if result.ok:
                emit(ev.change_summary(result.counts, kind))
        c = result.counts
        return ApplyOutcome(result.ok, c["add"], c["change"], c["remove"], result.failed, result.skipped,
                            tuple(result.diagnostics), state_outputs(p.state.outputs), time.monotonic() - t0,
                            self.bus.seq)


def _replace_errors(o: ApplyOutcome, errors: tuple[BaseException, ...]) -> ApplyOutcome:
    return dataclasses.replace(o, subscriber_errors=errors)

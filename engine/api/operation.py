"""One operation on a workspace's state, step by step: for a caller that decides between the
steps (the ``strata`` command: plan, show the plan, ask, apply), where :meth:`Workspace.plan
<engine.api.workspace.Workspace.plan>` and :meth:`~engine.api.workspace.Workspace.apply` run them
all at once.

    async with ws.operation("OperationTypeApply", plan=PlanOptions(targets=("aws_s3_bucket.logs",))) as op:
        planned = await op.plan(emit)          # or op.saved_plan(read back from plan -out)
        if planned.plan.has_changes() and approved(planned):
            result = await op.apply(planned, emit)

The state's lock is held from entering the block to leaving it, however it is left: a plan and
the apply of it see the same state, and nothing else writes it in between. ``emit`` receives each
:class:`~engine.events.stream.Event` as it happens (terraform's ``-json`` shapes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING

from engine.backend.applying import Planned
from engine.backend.operations import Options, apply_planned, make_plan, open_saved_plan, open_state
from engine.events import stream as ev
from engine.provider.registry import Providers

if TYPE_CHECKING:  # imported where an apply runs: a plan does not load the apply stage
    from engine.apply.executor import ApplyResult
    from engine.plans.planfile import SavedPlan
    from engine.state.store import StateStore

Emit = Callable[[ev.Event], None]
"""Where an operation's events go, one call per event, in order (an ``EventBus.emit``)."""


@dataclass(frozen=True, slots=True)
class PlanOptions:
    """How to plan (terraform's plan options). A plan made with them records them, and applying
    it keeps to them.

    ``destroy``: plan to destroy everything the state holds (``-destroy``). ``refresh``: read the
    real objects first (``-refresh=false``: don't). ``refresh_only``: only bring the state up to
    date with the real objects, changing none (``-refresh-only``; needs ``refresh``).
    ``targets``: only these resources or instances and what they depend on (``-target``, in
    terraform's address syntax). ``replace``: replace these instances even if unchanged
    (``-replace``; not with ``refresh_only``). ``generate_config_out``: an import block's target
    without configuration gets one generated from the object imported, planned with it
    (``-generate-config-out=FILE``; each change has its ``generated_config``, which the caller
    writes to FILE)."""

    destroy: bool = False
    refresh: bool = True
    refresh_only: bool = False
    targets: tuple[str, ...] = ()
    replace: tuple[str, ...] = ()
    generate_config_out: str | None = None


DEFAULT_PLAN = PlanOptions()
"""Plan everything the configuration asks for, refreshing first."""


class Operation:
    """One operation on the state of a workspace (:meth:`Workspace.operation
    <engine.api.workspace.Workspace.operation>`): its lock held while the ``async with`` block
    runs. ``kind`` is recorded in the lock, in terraform's names (OperationTypePlan,
    OperationTypeApply, OperationTypeRefresh, state-rm, taint, ...); ``writes=False`` for one that
    only reads. ``on_lock_wait`` is called once a wait for another holder's lock
    (``lock_timeout``) has lasted long enough to say so.

    Lifecycle: made, entered once (the lock taken, :attr:`store` open), left once (the lock
    released). :meth:`plan`, :meth:`saved_plan` and :meth:`apply` are for inside the block."""

    def __init__(self, options: Options, plan: PlanOptions, kind: str, *, writes: bool = True,
                 on_lock_wait: Callable[[], None] | None = None) -> None:
        self._options = options
        self.plan_options = plan
        self.providers = Providers()
        """The providers this operation starts and configures (closed with the process)."""
        self._state = open_state(options, kind, self.providers, writes=writes, on_wait=on_lock_wait)
        self.store: StateStore = self._state.store
        """The state, its lock held inside the block: load it, or commit an edit of it."""

    @property
    def state_file(self) -> str:
        """The state file this operation works on (decided once, when the operation was made)."""
        return self._options.state_file()

    async def __aenter__(self) -> Operation:
        await self._state.__aenter__()
        return self

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self._state.__aexit__(kind, exc, tb)

    async def plan(self, emit: Emit) -> Planned:
        """Load the configuration and the state, refresh and plan, as :attr:`plan_options` say.
        Raises :class:`~engine.diagnostics.DiagnosticsError` for what the user must fix
        (:class:`~engine.diagnostics.PlanningFailed`, with what was planned before the errors, when
        planning itself found them); nothing is written."""
        return await make_plan(self._options, emit, destroy=self.plan_options.destroy,
                               providers=self.providers, store=self.store)

    async def saved_plan(self, saved: SavedPlan, emit: Emit) -> Planned:
        """A plan read back from its file (``plan -out``), ready to apply without planning again:
        refused with diagnostics when the state moved on or the configuration changed since."""
        return await open_saved_plan(self._options, saved, emit, self.providers, self.store)

    async def apply(self, planned: Planned, emit: Emit, *, on_signals: bool = False) -> ApplyResult:
        """Apply ``planned``; each object is durable in the state before its ``apply_complete``
        is emitted. ``on_signals``: SIGINT and SIGTERM stop the apply gracefully (what is in
        flight finishes and is recorded; the command line sets it, a program with signal
        handling of its own does not)."""
        self._options.on_signals = on_signals
        return await apply_planned(planned, self._options, emit)


__all__ = ["DEFAULT_PLAN", "Emit", "Operation", "PlanOptions", "Planned"]

"""Which changes of a plan terraform's machine-readable stream lists, as ``planned_change`` events:
the planner's while it plans, and the command line's when it applies a saved plan or shows what was
planned before an error."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from engine.events import stream as ev
from engine.plans.plan import Action, ResourceInstanceChange


def emit_planned_changes(emit: Callable[[ev.Event], None], changes: Iterable[ResourceInstanceChange],
                         with_no_ops: bool) -> None:
    """A ``planned_change`` event for each change but the no-ops (``with_no_ops``: but those that
    move or import an object, as terraform's plan lists them; a saved plan applied lists none)."""
    planned = ev.planned_of(emit)
    for c in changes:
        if c.action != Action.NOOP or (with_no_ops and (c.previous is not None or c.importing is not None)):
            planned(c.addr, c.action, c.reason, c.deposed, c.previous, c.importing, c.generated_config)

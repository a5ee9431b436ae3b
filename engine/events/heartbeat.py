"""terraform's heartbeat: while an operation is in flight, an ``apply_progress`` event every
``interval`` seconds (terraform's 10) from its start, "Still creating... [10s elapsed]", with
the elapsed time as terraform reckons it (now and the start each rounded to the second, printed
as Go prints a duration: ``1m0s``). An operation shorter than the interval has none.

:class:`Heartbeats` is a watcher (it sees operations start and end on the bus:
:meth:`engine.events.stream.EventBus.add_watcher`) and a task
(:meth:`Heartbeats.running`) that emits the beats that fall due; :meth:`Heartbeats.due` is the
whole decision, a function of the clock's reading, tested without waiting.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio

from engine.events.stream import Event, progress_event

INTERVAL = 10.0
"""Seconds between two beats of one operation, as terraform's ``periodicUiTimer``."""

_ENDS = frozenset({"apply_complete", "apply_errored"})


def _rounded(t: float) -> float:
    """``t`` to the nearest second, halves away from zero (Go's ``Time.Round``)."""
    return math.floor(t + 0.5)


class Heartbeats:
    """The beats of the operations in flight. ``emit``: where they go (the bus this sink is on);
    ``clock``: seconds, monotonic."""

    def __init__(self, emit: Callable[[Event], None], interval: float = INTERVAL,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.emit = emit
        self.interval = interval
        self.clock = clock
        # (address, action) of each operation in flight: [resource, action, start, next beat]
        # (a list, not an object: one is made per operation of the run)
        self._beats: dict[tuple[str, str], list[Any]] = {}
        self._wake: anyio.Event | None = None

    def __call__(self, event: Event) -> None:
        t = event[0]  # by index, not the property: one call per event of the run
        if t == "apply_start":
            hook = event[2]["hook"]
            self.started(hook["resource"], hook["action"])
        elif t in _ENDS:
            hook = event[2]["hook"]
            self.ended(hook["resource"]["addr"], hook["action"])

    def started(self, resource: dict[str, Any], action: str) -> None:
        """An operation on ``resource`` (its events' ``resource`` object) started."""
        now = self.clock()
        beats = self._beats
        beats[(resource["addr"], action)] = [resource, action, now, now + self.interval]
        # the beating task waits for the first operation to start, or sleeps until an earlier
        # start's beat, which falls due before this one's: it is woken for the first only, not
        # with a task switch per operation
        if len(beats) == 1 and self._wake is not None:
            self._wake.set()

    def ended(self, addr: str, action: str) -> None:
        """The operation ``action`` on ``addr`` ended."""
        self._beats.pop((addr, action), None)

    def due(self, now: float) -> list[Event]:
        """The beats due at ``now``, each operation's next beat set ``interval`` after this one
        (terraform waits the interval again after each)."""
        out = []
        for beat in self._beats.values():
            if beat[3] <= now:
                resource, action, start, _ = beat
                out.append(progress_event(resource, action, _rounded(now) - _rounded(start)))
                beat[3] = now + self.interval
        return out

    def next_due(self) -> float | None:
        """When the next beat falls due (None: no operation in flight)."""
        return min((b[3] for b in self._beats.values()), default=None)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Emit the beats as they fall due while the block runs."""

        async def beat() -> None:
            while True:
                self._wake = anyio.Event()
                when = self.next_due()
                if when is None:
                    await self._wake.wait()  # until an operation starts
                    continue
                wait = when - self.clock()
                if wait > 0:
                    await anyio.sleep(wait)  # a later start's beat is never due sooner
                for e in self.due(self.clock()):
                    self.emit(e)

        failed: BaseException | None = None
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(beat)
                try:
                    yield
                except BaseException as exc:
                    failed = exc  # raised again below: the caller's own exception, not a group
                finally:
                    tg.cancel_scope.cancel()
        finally:
            self._wake = None
            if failed is not None:
                raise failed

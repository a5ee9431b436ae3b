"""A live view of an apply for a person at a terminal (rich): instead of a scrolling line per
operation, one panel that keeps itself up to date: operations done, in flight, waiting and
failed; the slowest in flight with their elapsed time; throughput; an ETA.

Only on a terminal (the command line decides: :func:`wanted`); everything else is printed as
:class:`engine.render.text.HumanSink` prints it, and the panel goes away (transient) once every
planned operation has ended, before the diagnostics and terraform's summary lines, which stay
as they are. rich is imported when the first operation starts.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import AsyncIterator
from typing import IO, Any

from engine.events import provisioning
from engine.events import stream as ev
from engine.render.text import HumanSink

_SHOWN_LIVE = frozenset({"apply_start", "apply_complete", "apply_errored", "apply_progress", "apply_skipped"})


def wanted(stream: IO[str]) -> bool:
    """A live view: standard output is a terminal, and ``STRATA_LIVE`` is not 0."""
    if os.environ.get("STRATA_LIVE", "") == "0" or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (OSError, ValueError):
        return False


class LiveSink(HumanSink):
    """:class:`HumanSink`, with the apply's per-operation lines replaced by a live panel."""

    def __init__(self, stream: IO[str] | None = None, slowest: int = 5) -> None:
        super().__init__(stream)
        self.slowest = slowest
        self.planned = 0
        self.done = 0
        self.failed = 0
        self.skipped = 0
        self.in_flight: dict[str, float] = {}  # address (and action) -> monotonic start
        self.first_start = 0.0
        self._live: Any = None
        self._finished = False

    def __call__(self, event: ev.Event) -> None:
        t = event.type
        if t == "planned_change":
            action = event.payload["change"]["action"]
            # (a move, an import and a forget are no operation of the apply)
            self.planned += 2 if action == "replace" else 0 if action in ("read", "noop", "move", "import",
                                                                           "remove") else 1
            return
        if t[:10] == "provision_" and self._live is not None and not self._finished:
            text = provisioning.human_text(event)
            if text is not None:  # a provisioner's line, printed above the panel while it is live
                # as Text: print(..., markup=False) would reach the panel's own cells too
                from rich.text import Text

                self._live.console.print(Text(text), highlight=False, soft_wrap=True)
            return
        if t not in _SHOWN_LIVE or self._finished or self.closed:
            super().__call__(event)
            return
        hook = event.payload.get("hook") or {}
        if hook.get("action") == "read":  # a data source's: a line while planning, no operation of the panel's
            if self._live is None:
                super().__call__(event)
            return
        key = f"{hook.get('resource', {}).get('addr', '?')} ({hook.get('action', '')})"
        if t == "apply_start":
            if self._live is None:
                self._start()
            self.in_flight[key] = time.monotonic()
        elif t == "apply_complete":
            self.in_flight.pop(key, None)
            self.done += 1
        elif t == "apply_errored":
            self.in_flight.pop(key, None)
            self.failed += 1
        elif t == "apply_skipped":
            self.skipped += 1
        if self.planned and self.done + self.failed + self.skipped >= self.planned and not self.in_flight:
            self.stop()

    def _start(self) -> None:
        from rich.console import Console
        from rich.live import Live

        self.first_start = time.monotonic()
        console = Console(file=self.stream, force_terminal=True)
        self._live = Live(self, console=console, refresh_per_second=4, transient=True,
                          redirect_stdout=False, redirect_stderr=False)
        self._live.start()

    def stop(self) -> None:
        """The panel goes away; what follows is printed as usual."""
        self._finished = True
        live, self._live = self._live, None
        if live is not None:
            with contextlib.suppress(Exception):
                live.stop()

    @contextlib.asynccontextmanager
    async def batching(self, max_delay: float = 0.02) -> AsyncIterator[None]:
        try:
            async with super().batching(max_delay):
                yield
        finally:
            self.stop()

    def __rich__(self) -> Any:
        """The panel, as rich draws it (from its refresh thread, four times a second)."""
        from rich.table import Table

        now = time.monotonic()
        elapsed = max(1e-9, now - self.first_start)
        ended = self.done + self.failed
        rate = ended / elapsed
        waiting = max(0, self.planned - ended - self.skipped - len(self.in_flight))
        remaining = waiting + len(self.in_flight)
        eta = f"{remaining / rate:.0f}s" if rate > 0 and remaining else ("-" if remaining else "0s")
        grid = Table.grid(padding=(0, 2))
        grid.add_row(f"[bold]done[/] {self.done}/{self.planned}", f"[bold]in flight[/] {len(self.in_flight)}",
                     f"[bold]waiting[/] {waiting}", f"[bold red]failed[/] {self.failed}",
                     f"[bold]throughput[/] {rate:.1f}/s", f"[bold]ETA[/] {eta}",
                     f"[dim]elapsed {elapsed:.0f}s[/]")
        # a copy first: the event loop's thread changes the dict while rich's thread draws
        slow = sorted(list(self.in_flight.items()), key=lambda kv: kv[1])[: self.slowest]
        body = Table.grid(padding=(0, 2))
        for addr, started in slow:
            body.add_row(f"{now - started:6.1f}s", addr)
        outer = Table.grid()
        outer.add_row(grid)
        if slow:
            outer.add_row("[dim]slowest in flight:[/]")
            outer.add_row(body)
        return outer


def human_sink(stream: IO[str] | None = None) -> HumanSink:
    """The sink for human output: the live view on a terminal, the scrolling lines elsewhere."""
    out = stream or sys.stdout
    return LiveSink(out) if wanted(out) else HumanSink(out)

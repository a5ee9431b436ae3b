"""Where a command's output goes: JSON lines or human text on stdout, diagnostics on stderr (or in
the stream with ``-json``), in terraform's order and words."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from typing import Any

from engine.diagnostics import Diagnostic, source_line
from engine.events import stream as ev
from engine.events.json_sink import JsonSink
from engine.render.text import HumanSink, render_diagnostic


class Output:
    """Where a command's events and text go: JSON lines or human text."""

    def __init__(self, json_mode: bool, quiet: bool = False, plain: bool = False) -> None:
        self.json = json_mode
        self.quiet = quiet
        self.plain = plain  # -no-color: diagnostics without the frame, as terraform prints them then
        self.sink: JsonSink | HumanSink | None = None
        self._text_failed = False
        if quiet:
            self.json = True  # and no human text either
        elif json_mode:
            self.sink = JsonSink()
        else:
            from engine.render.live import human_sink

            self.sink = human_sink()  # a live view on a terminal
        self.bus = ev.EventBus(*([self.sink] if self.sink is not None else []))
        self.emit: Callable[[ev.Event], None] = self.bus.emit  # once per event: no call in between

    def text(self, s: str) -> None:
        if not self.json and not self._text_failed:
            try:
                sys.stdout.write(s)
                sys.stdout.flush()
            except (OSError, ValueError) as exc:
                # the reader went away, or the disk is full: say so once and keep going
                self._text_failed = True
                ev.stream_failed(exc, "output")

    def diagnostics(self, diags: list[Diagnostic] | tuple[Diagnostic, ...]) -> None:
        if not self.json or self.quiet:
            diags = sorted(diags, key=_diagnostic_order)  # as terraform's human view sorts them
        for d in diags:
            if self.json and not self.quiet:
                self.emit(ev.diagnostic(d, snippet(d)))
            else:
                _flush_stdout()
                sys.stderr.write(render_diagnostic(d, self.plain) + "\n")
        _flush_stdout()
        sys.stderr.flush()


def _diagnostic_order(d: Diagnostic) -> tuple[Any, ...]:
    """terraform's order for printing diagnostics (a stable sort): warnings first, then those that
    point at no source, then by file (fewer path segments first) and position."""
    s = d.subject
    where = (0,) if s is None else (1, s.filename.count(os.sep), s.filename, s.line, s.column)
    return (d.severity == "error", where)


def snippet(d: Diagnostic) -> str | None:
    """The source line a diagnostic points at, for its JSON ``snippet``."""
    return source_line(d.subject.filename, d.subject.line) if d.subject else None


def _flush_stdout() -> None:
    with contextlib.suppress(OSError, ValueError):  # a closed pipe or a full disk: reported elsewhere
        sys.stdout.flush()


def warn(out: Output, diags: list[Diagnostic]) -> None:
    """Warnings go where terraform puts them: the stream with -json, else standard output."""
    if out.json:
        if not out.quiet:
            out.diagnostics(diags)
        return
    out.text("".join(render_diagnostic(d, out.plain) + "\n" for d in diags))


def lock_waiting(out: Output) -> Callable[[], None]:
    """terraform's note when the state's lock is slow to come (``-lock-timeout``)."""
    from engine.state.lock import WAIT_MESSAGE

    return lambda: out.text(WAIT_MESSAGE)

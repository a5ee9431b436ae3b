"""``strata report EVENTS.jsonl [-png=FILE] [-html=FILE]``: the report of an apply from its
recorded event log (``-events=FILE``), as text on standard output, and as a PNG Gantt chart and a
self-contained HTML page when asked."""

from __future__ import annotations

import sys

from engine.cli.args import Args, UsageError
from engine.diagnostics import DiagnosticsError, error


def cmd_report(a: Args) -> int:
    if len(a.positional) != 1:
        raise UsageError("report takes one argument: an event log written by strata apply -events=FILE.")
    path = a.positional[0]
    from engine.report.analysis import analyse_file
    from engine.report.text import render

    try:
        analysis = analyse_file(path)
    except OSError as exc:
        raise DiagnosticsError([error("Failed to read the event log",
                                      f"The event log {path} could not be read: {exc.strerror or exc}.")]) from None
    except ValueError as exc:
        raise DiagnosticsError([error("Not an event log",
                                      f"{exc}. strata report reads the file strata apply -events=FILE "
                                      "writes.")]) from None
    sys.stdout.write(render(analysis, path))
    png = a.flags.get("png")
    if png:
        try:
            from engine.report.gantt import write_png
        except ImportError:  # pragma: no cover - matplotlib is a dependency
            raise DiagnosticsError([error("matplotlib is not installed",
                                          "The PNG chart needs matplotlib: pip install matplotlib.")]) from None
        _writing(png, lambda: write_png(analysis, png, f"strata apply ({path})"))
        sys.stdout.write(f"\nWrote the Gantt chart to {png}\n")
    page = a.flags.get("html")
    if page:
        from engine.report.html import write_html

        _writing(page, lambda: write_html(analysis, page, path))
        sys.stdout.write(f"\nWrote the interactive report to {page}\n")
    return 0


def _writing(path: str, write: object) -> None:
    try:
        write()  # type: ignore[operator]
    except OSError as exc:
        raise DiagnosticsError([error("Failed to write the report",
                                      f"{path} could not be written: {exc.strerror or exc}.")]) from None

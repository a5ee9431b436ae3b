"""strata's internal log: structlog, to stderr (stdout carries the plan or the ``-json`` stream).

structlog is imported, and configured, on the first message, not at start-up: importing it
costs 35 ms of every command's start (100 ms where ``rich`` is installed, which structlog
then loads for its tracebacks), and a healthy run logs nothing.
"""

from __future__ import annotations

import sys
from typing import Any

_configured = False


class LazyLogger:
    """``structlog.get_logger(name)``, made on first use."""

    __slots__ = ("_name", "_log")

    def __init__(self, name: str) -> None:
        self._name = name
        self._log: Any = None

    def __getattr__(self, attr: str) -> Any:
        log = self._log
        if log is None:
            log = self._log = _structlog().get_logger(self._name)
        return getattr(log, attr)


def _structlog() -> Any:
    global _configured
    import structlog

    if not _configured:
        # the stderr of the moment of each message, not of the first one (tests swap it)
        structlog.configure(logger_factory=lambda *_: structlog.PrintLogger(sys.stderr))
        _configured = True
    return structlog


def get_logger(name: str) -> LazyLogger:
    return LazyLogger(name)

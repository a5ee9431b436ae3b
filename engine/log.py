"""strata's internal log: structlog, to stderr (stdout carries the plan or the ``-json`` stream),
or to a file.

As terraform's ``TF_LOG``: ``STRATA_LOG`` (or ``TF_LOG``, read when ``STRATA_LOG`` is unset) sets
the level, one of ``TRACE``, ``DEBUG``, ``INFO``, ``WARN``, ``ERROR`` or ``OFF`` (``JSON`` is
``TRACE``); unset, only errors (a bug in strata) are written, so what a provider plugin logs, or a
tolerated legacy-provider quirk, never reaches the user's output. ``STRATA_LOG_PATH`` (or
``TF_LOG_PATH``) appends the log to that file instead of stderr.

structlog is imported, and configured, on the first message, not at start-up: importing it
costs 35 ms of every command's start (100 ms where ``rich`` is installed, which structlog
then loads for its tracebacks), and a healthy run logs nothing.
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

_configured = False

LEVELS = {"TRACE": 0, "JSON": 0, "DEBUG": 10, "INFO": 20, "WARN": 30, "WARNING": 30, "ERROR": 40,
          "OFF": 50}
"""The level names a user may set, and structlog's (logging's) numbers for them: TRACE lets
everything through; OFF is CRITICAL, a level nothing in strata logs at."""

_DEFAULT = "ERROR"


def level() -> int:
    """The level set in the environment (an unknown name: the default, as terraform ignores it)."""
    name = os.environ.get("STRATA_LOG") or os.environ.get("TF_LOG") or _DEFAULT
    return LEVELS.get(name.strip().upper(), LEVELS[_DEFAULT])


def enabled(at: str) -> bool:
    """Would a message at level ``at`` (a :data:`LEVELS` name) be written? For callers that would
    otherwise build an expensive message (a plugin's log line) for nothing."""
    return LEVELS[at] >= level()


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


def _sink() -> TextIO:
    path = os.environ.get("STRATA_LOG_PATH") or os.environ.get("TF_LOG_PATH")
    if path:
        try:
            return open(path, "a", buffering=1, encoding="utf-8")  # noqa: SIM115 - the run's log, open until exit
        except OSError:
            pass  # an unwritable log path must not stop the run: stderr, as with no path
    return sys.stderr


def _structlog() -> Any:
    global _configured
    import structlog

    if not _configured:
        sink = _sink()
        # the stderr of the moment of each message, not of the first one (tests swap it)
        factory = (lambda *_: structlog.PrintLogger(sys.stderr)) if sink is sys.stderr else \
            (lambda *_: structlog.PrintLogger(sink))
        structlog.configure(logger_factory=factory,
                            wrapper_class=structlog.make_filtering_bound_logger(level()))
        _configured = True
    return structlog


def get_logger(name: str) -> LazyLogger:
    return LazyLogger(name)

"""strata for programs: see :mod:`engine.api.workspace` (the workspace), :mod:`engine.api.run`
(whole runs and their value objects) and :mod:`engine.api.operation` (one operation step by step,
as the ``strata`` command drives it).
The command line is a client of this package: it parses arguments, renders and asks; everything
it runs on a state goes through a :class:`Workspace`.

The names below are imported on first use (PEP 562), as ``engine``'s are: the command imports
``engine.api.workspace`` and ``engine.api.operation`` and nothing else of this package.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: see engine/__init__.py (mypy reads it the same)

if TYPE_CHECKING:
    from typing import Any

    from engine.api.operation import Operation, Planned, PlanOptions
    from engine.api.run import ApplyOutcome, Change, Output, PlanResult, Run
    from engine.api.workspace import StateRead, Workspace
    from engine.events.subscribers import Lagged, Sequenced, Subscription

_LAZY: dict[str, str] = {
    "Operation": "engine.api.operation",
    "PlanOptions": "engine.api.operation",
    "Planned": "engine.api.operation",
    "ApplyOutcome": "engine.api.run",
    "Change": "engine.api.run",
    "Output": "engine.api.run",
    "PlanResult": "engine.api.run",
    "Run": "engine.api.run",
    "StateRead": "engine.api.workspace",
    "Workspace": "engine.api.workspace",
    "Lagged": "engine.events.subscribers",
    "Sequenced": "engine.events.subscribers",
    "Subscription": "engine.events.subscribers",
}

__all__ = ["ApplyOutcome", "Change", "Lagged", "Operation", "Output", "PlanOptions", "PlanResult", "Planned", "Run",
           "Sequenced", "StateRead", "Subscription", "Workspace"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'engine.api' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # once: the next access is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

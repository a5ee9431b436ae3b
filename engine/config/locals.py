"""A module's local values, ``local.NAME``, each evaluated once, on first use.

The one evaluator of locals for every stage that needs them before apply: the planner (in the
scope of what it has planned so far) and the configuration of providers where nothing is planned
(a saved plan's apply, import). Apply evaluates locals itself, as resources complete.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.config.model import LocalConfig, Module
from engine.config.suggestions import undeclared_local
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.values import UNKNOWN


class LocalValues:
    """``local.NAME`` of ``module``: call the object as a ``LocalValue`` (name, line).

    Each is evaluated once, in the scope ``scope()`` returns (which refers back to this object
    for the other locals). A name that is not declared, or a local that refers to itself through
    others, is an :class:`EvalError` raised at the reference. A local whose expression fails is
    handed to ``failed`` (with the error) and is unknown from then on."""

    def __init__(self, module: Module, scope: Callable[[], Scope],
                 failed: Callable[[LocalConfig, EvalError], None]) -> None:
        self.module = module
        self._scope = scope
        self._failed = failed
        self._values: dict[str, Any] = {}
        self._busy: set[str] = set()

    def __call__(self, name: str, line: int) -> Any:
        if name in self._values:
            return self._values[name]
        lc = self.module.locals.get(name)
        if lc is None:
            raise EvalError("Reference to undeclared local value", undeclared_local(name, self.module.locals), line)
        if name in self._busy:
            raise EvalError("Cycle in local values", f"local.{name} refers to itself.", line)
        self._busy.add(name)
        try:
            v = evaluate(lc.expr, self._scope())
        except EvalError as exc:
            self._failed(lc, exc)
            v = UNKNOWN
        finally:
            self._busy.discard(name)
        self._values[name] = v
        return v

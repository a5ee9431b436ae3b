"""The scope of an expression that must be constant (a variable's default, a ``strata`` setting,
a ``-var`` value): no resources, no local values, no variables."""

from __future__ import annotations

from typing import Any

from engine.addrs import ResourceAddr


class _NoResources:
    def has_resource(self, addr: ResourceAddr) -> bool:
        return False

    def is_expanded(self, addr: ResourceAddr) -> bool:
        return False

    def expansion(self, addr: ResourceAddr) -> str:
        return "single"

    def instance_value(self, addr: ResourceAddr, key: Any) -> Any:
        raise KeyError(addr)

    def resource_value(self, addr: ResourceAddr) -> Any:
        raise KeyError(addr)


def _constant_scope() -> Any:
    from engine.lang.evaluate import EvalError, Scope

    def no_locals(name: str, line: int) -> Any:
        raise EvalError("Variables not allowed", "Local values may not be used here.", line)

    return Scope({}, no_locals, _NoResources())

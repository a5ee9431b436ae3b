"""The cty type of an output's value, as terraform records it in state and prints it in
``output -json`` and ``show -json``: the value's own type, with the type of each null inside it
(an ``optional()`` attribute left out, a typed variable's null) taken from the expression that
gave it (:class:`engine.lang.null_types.StaticTypes`): ``["object", {"b": ["list", "number"]}]``
where the value alone says ``{"b": "dynamic"}``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.config.model import Module
from engine.lang.convert import concrete
from engine.lang.null_types import StaticTypes
from engine.values import merge_types, value_type


def static_types(module: Module) -> StaticTypes:
    """The types the expressions of ``module`` give, as far as they tell."""
    return StaticTypes(lambda name: getattr(module.variables.get(name), "type", None) or "dynamic",
                       lambda name: getattr(module.locals.get(name), "expr", None))


def output_types(module: Module, outputs: Mapping[str, tuple[Any, bool]]) -> dict[str, Any]:
    """Each output's type (its value's, the nulls inside typed from its expression); an output
    the configuration no longer declares has its value's type."""
    types = static_types(module)
    out = {}
    for name, (v, _) in outputs.items():
        oc = module.outputs.get(name)
        static = types.of(oc.expr) if oc is not None else "dynamic"
        own = value_type(v)
        merged = merge_types(own, concrete(static)) if static != "dynamic" else None
        out[name] = merged if merged is not None else own
    return out

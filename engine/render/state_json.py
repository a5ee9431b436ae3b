"""terraform's JSON representation of values in state (``show -json``'s ``values``, a saved
plan's ``prior_state`` and ``planned_values``): resources nested by module instance, each with
its values and which of them are sensitive."""

from __future__ import annotations

from typing import Any

from engine.addrs import ROOT, InstanceAddr, ModulePath, ProviderConfigAddr
from engine.lang.sensitivity import in_state
from engine.state.codec import encode_attributes
from engine.state.model import ObjectState, State
from engine.values import to_json


def resource_item(addr: InstanceAddr, prov: ProviderConfigAddr) -> dict[str, Any]:
    """The keys that name one resource instance, in terraform's order."""
    r = addr.resource
    item: dict[str, Any] = {"address": str(addr), "mode": r.mode, "type": r.type, "name": r.name}
    if addr.key is not None:
        item["index"] = addr.key
    item["provider_name"] = str(prov.source)
    return item


def sensitive_json(value: dict[str, Any] | None, names: frozenset[str]) -> Any:
    """``before_sensitive``/``after_sensitive`` (and ``sensitive_values``): false for no object;
    else each sensitive attribute true, and for the others terraform's skeleton of a known value
    (a list keeps a ``false`` per element, an object or map only what is not false)."""
    if value is None:
        return False
    out: dict[str, Any] = {}
    for n in sorted(value):
        if n in names:
            out[n] = True
        elif (m := _skeleton(value[n])) is not False:
            out[n] = m
    return out


def _skeleton(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: m for k in sorted(v) if (m := _skeleton(v[k])) is not False}
    if isinstance(v, tuple):
        return [_skeleton(x) for x in v]
    return False


def state_resource(addr: InstanceAddr, obj: ObjectState, prov: ProviderConfigAddr, sensitive: frozenset[str]) -> dict[str, Any]:
    item = resource_item(addr, prov)
    item["schema_version"] = obj.schema_version
    item["values"] = encode_attributes(obj.attributes, {})
    item["sensitive_values"] = sensitive_json(obj.attributes, sensitive)
    if obj.dependencies:
        item["depends_on"] = [str(r) for r in obj.dependencies]
    if obj.tainted:
        item["tainted"] = True
    return item


def state_values(state: State, providers: Any) -> dict[str, Any] | None:
    """``{"outputs": ..., "root_module": ...}`` of ``state``; None when it holds nothing."""
    items: list[tuple[ModulePath, dict[str, Any]]] = []
    for addr, deposed, obj, prov in sorted(state.objects(), key=lambda t: (t[0].sort_key(), t[1] or "")):
        if deposed:
            continue
        items.append((addr.resource.module, state_resource(addr, obj, prov, in_state(obj, addr, prov, providers))))
    if not items and not state.outputs:
        return None
    return {"outputs": {n: {"sensitive": s, "value": to_json(v), "type": state.output_type(n)}
                        for n, (v, s) in sorted(state.outputs.items())},
            "root_module": module_tree(items)}


def module_tree(items: list[tuple[ModulePath, dict[str, Any]]]) -> dict[str, Any]:
    """``root_module``: resources of the root, those of each module instance under
    ``child_modules``, nested as the modules are, with terraform's keys in its order
    (``resources``, ``address``, ``child_modules``)."""
    resources: dict[ModulePath, list[dict[str, Any]]] = {ROOT: []}
    children: dict[ModulePath, list[ModulePath]] = {ROOT: []}
    for path, item in items:
        path = path if path.steps else ROOT
        for depth in range(1, len(path.steps) + 1):
            node = ModulePath(path.steps[:depth])
            if node not in resources:
                resources[node], children[node] = [], []
                children[ModulePath(path.steps[:depth - 1]) if depth > 1 else ROOT].append(node)
        resources[path].append(item)

    def module(path: ModulePath) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if resources[path]:
            out["resources"] = resources[path]
        if path.steps:
            out["address"] = str(path)
        if children[path]:
            out["child_modules"] = [module(c) for c in sorted(children[path], key=lambda c: c.sort_key())]
        return out

    return module(ROOT)

"""Terraform state v4 JSON: encoding and decoding, nothing else.

Dynamic-typed attributes (``terraform_data``'s ``input``/``output``) are
stored with their type, ``{"value": ..., "type": ...}``, exactly as
terraform writes them; every other attribute is stored as plain JSON.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import orjson

from engine.addrs import parse_module_path, resource_addr
from engine.diagnostics import StrataError
from engine.state.model import InstanceState, ObjectState, ResourceState, State
from engine.values import cty_type, from_plain_json, from_typed_json, to_json

DynamicAttrs = Callable[[str], dict[str, Any]]
"""Given a resource type, its attributes' cty types (``"dynamic"`` ones are stored with their type)."""


class StateDecodeError(StrataError):
    def __init__(self, path: str, detail: str) -> None:
        self.path = path
        self.detail = detail
        super().__init__(f"Failed to load state {path}: {detail}")


def dumps(doc: Any, indent: bool = False) -> bytes:
    """JSON bytes; orjson on the hot path, the standard library for integers beyond 64 bits
    (cty numbers are arbitrary precision, orjson's are not)."""
    try:
        return orjson.dumps(doc, option=orjson.OPT_INDENT_2) if indent else orjson.dumps(doc)
    except TypeError:
        return json.dumps(doc, indent=2 if indent else None, ensure_ascii=False).encode()


_PLAIN = frozenset({str, int, bool, float, type(None)})  # their JSON form is themselves


def encode_attributes(attrs: dict[str, Any], types: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in attrs.items():
        if types.get(k) == "dynamic":
            out[k] = None if v is None else {"value": to_json(v), "type": cty_type(v)}
        elif type(v) in _PLAIN:
            out[k] = v  # hot path: once per attribute of every object written
        else:
            out[k] = to_json(v)
    return out


def decode_attributes(raw: dict[str, Any], types: dict[str, Any]) -> dict[str, Any]:
    """Stored JSON to values, typed by the schema (a map comes back a map, a set a set)."""
    out: dict[str, Any] = {}
    for k, v in raw.items():
        t = types.get(k)
        if t == "dynamic" and isinstance(v, dict) and "value" in v and "type" in v:
            out[k] = from_typed_json(v["value"], v["type"])
        elif t is not None and not isinstance(t, str):
            out[k] = from_typed_json(v, t)
        else:
            out[k] = from_plain_json(v)
    return out


def encode_object(key: Any, obj: ObjectState, dynamic: dict[str, Any], deposed: str | None = None
                  ) -> dict[str, Any]:
    """One entry of a resource's ``instances`` list, in terraform's key order."""
    d: dict[str, Any] = {}
    if key is not None:
        d["index_key"] = key
    if obj.status == "tainted":
        d["status"] = "tainted"
    if deposed is not None:
        d["deposed"] = deposed
    d["schema_version"] = obj.schema_version
    attrs = obj.encoded
    if attrs is None:
        attrs = encode_attributes(obj.attributes, dynamic)
        object.__setattr__(obj, "encoded", attrs)  # hot path: encode once for journal and snapshot
    d["attributes"] = attrs
    d["sensitive_attributes"] = list(obj.sensitive_attributes)
    if obj.private:  # terraform's []byte: base64 in JSON
        d["private"] = base64.b64encode(obj.private).decode("ascii")
    if obj.dependencies:
        d["dependencies"] = list(obj.dependencies)
    if obj.create_before_destroy:
        d["create_before_destroy"] = True
    return d


def decode_object(raw: dict[str, Any], dynamic: dict[str, Any]) -> ObjectState:
    return ObjectState(
        attributes=decode_attributes(raw.get("attributes") or {}, dynamic),
        status=raw.get("status") or "ready",
        schema_version=int(raw.get("schema_version") or 0),
        dependencies=tuple(raw.get("dependencies") or ()),
        create_before_destroy=bool(raw.get("create_before_destroy")),
        sensitive_attributes=tuple(raw.get("sensitive_attributes") or ()),
        private=base64.b64decode(raw["private"]) if raw.get("private") else b"",
        encoded=raw.get("attributes") or {},  # written back exactly as read
    )


def _key_order(k: Any) -> tuple[int, Any]:
    if k is None:
        return (0, 0)
    if isinstance(k, int):
        return (1, k)
    return (2, k)


def encode_state(state: State, dynamic_attrs: DynamicAttrs) -> bytes:
    resources = []
    for addr in sorted(state.resources, key=lambda a: (a.module.sort_key(), a.mode != "managed", a.type, a.name)):
        rs = state.resources[addr]
        dyn = dynamic_attrs(addr.type)
        instances = []
        for key in sorted(rs.instances, key=_key_order):
            inst = rs.instances[key]
            if inst.current is not None:
                instances.append(encode_object(key, inst.current, dyn))
            for dk in sorted(inst.deposed):
                instances.append(encode_object(key, inst.deposed[dk], dyn, dk))
        r: dict[str, Any] = {} if addr.module.is_root else {"module": str(addr.module)}
        r.update(mode=addr.mode, type=addr.type, name=addr.name)
        r["provider"] = rs.provider
        r["instances"] = instances
        resources.append(r)
    outputs = {}
    for name in sorted(state.outputs):
        value, sensitive = state.outputs[name]
        o: dict[str, Any] = {"value": to_json(value), "type": cty_type(value)}
        if sensitive:
            o["sensitive"] = True
        outputs[name] = o
    doc = {
        "version": 4,
        "terraform_version": state.terraform_version,
        "serial": state.serial,
        "lineage": state.lineage,
        "outputs": outputs,
        "resources": resources,
        "check_results": None,
    }
    return dumps(doc, indent=True) + b"\n"


def decode_state(data: bytes, path: str, dynamic_attrs: DynamicAttrs) -> State:
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise StateDecodeError(path, f"not valid JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise StateDecodeError(path, "the state must be a JSON object")
    version = doc.get("version")
    if version != 4:
        raise StateDecodeError(path, f"unsupported state format version {version!r}; strata reads version 4")
    state = State(lineage=doc.get("lineage") or "", serial=int(doc.get("serial") or 0),
                  terraform_version=doc.get("terraform_version") or "1.11.4")
    for r in doc.get("resources") or []:
        try:
            addr = resource_addr(r["type"], r["name"], r.get("mode", "managed"),
                                 parse_module_path(r.get("module") or ""))
            dyn = dynamic_attrs(addr.type)
            rs = ResourceState(addr, r["provider"])
            for raw in r.get("instances") or []:
                key = raw.get("index_key")
                inst = rs.instances.setdefault(key, InstanceState())
                obj = decode_object(raw, dyn)
                if raw.get("deposed"):
                    inst.deposed[raw["deposed"]] = obj
                else:
                    inst.current = obj
            if rs.instances:
                state.resources[addr] = rs
        except (KeyError, TypeError, ValueError) as exc:
            raise StateDecodeError(path, f"malformed resource entry ({exc!r})") from None
    for name, o in (doc.get("outputs") or {}).items():
        state.outputs[name] = (from_typed_json(o.get("value"), o.get("type", "dynamic")),
                               bool(o.get("sensitive")))
    return state

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

from engine.addrs import (
    ResourceAddr,
    dependency_texts,
    parse_dependencies,
    parse_module_path,
    parse_provider_config_addr,
    resource_addr,
    schema_key,
)
from engine.diagnostics import DiagnosticsError, StrataError, error
from engine.provider.protocol import FlatmapState
from engine.state import checks
from engine.state.model import InstanceState, ObjectState, ResourceState, State
from engine.values import cty_type, from_plain_json, from_typed_json, to_json

DynamicAttrs = Callable[[str], dict[str, Any]]
"""Given a resource type (:func:`engine.addrs.schema_key`: ``data.`` before a data source's), its
attributes' cty types (``"dynamic"`` ones are stored with their type)."""


class StateDecodeError(DiagnosticsError):
    """The state file at ``path`` cannot be read: each problem a diagnostic in terraform's words
    (summary, detail), followed by the file's name."""

    def __init__(self, path: str, problems: list[tuple[str, str]]) -> None:
        self.path = path
        self.problems = tuple(problems)
        super().__init__([error(summary, f"{detail}\n\nThe state file is {path}.")
                          for summary, detail in problems])


class InvalidField(StrataError, ValueError):
    """One field of a state (or of a journal record's object) is wrong: ``summary`` and ``detail``
    in terraform's words. The caller adds which file, and which record, it was found in."""

    def __init__(self, summary: str, detail: str) -> None:
        self.summary = summary
        self.detail = detail
        super().__init__(f"{summary}: {detail}")


_GO_KINDS: dict[type, str] = {str: "string", bool: "bool", int: "number", float: "number", list: "array",
                             dict: "object", type(None): "null"}


def invalid_field(name: str, value: Any) -> InvalidField:
    """terraform's ``Invalid state file format``: ``The state file field "serial" has invalid
    value string``. A number where a whole number >= 0 was wanted is named with its value, as Go's
    decoder names it (``number -1``); elsewhere only by its kind."""
    kind = "bool" if isinstance(value, bool) else _GO_KINDS.get(type(value), type(value).__name__)
    if kind == "number" and name in _UNSIGNED:
        kind = f"number {value}"
    return InvalidField("Invalid state file format", f'The state file field "{name}" has invalid value {kind}')


_UNSIGNED = frozenset({"serial", "resources.instances.schema_version"})


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
    if type(obj.attributes) is FlatmapState:  # not read by its provider yet: kept as it was
        d["attributes_flat"] = dict(obj.attributes)
        return _encode_rest(d, obj)
    attrs = obj.encoded
    if attrs is None:
        attrs = encode_attributes(obj.attributes, dynamic)
        object.__setattr__(obj, "encoded", attrs)  # hot path: encode once for journal and snapshot
    d["attributes"] = attrs
    return _encode_rest(d, obj)


def _encode_rest(d: dict[str, Any], obj: ObjectState) -> dict[str, Any]:
    d["sensitive_attributes"] = list(obj.sensitive_attributes)
    if obj.private:  # terraform's []byte: base64 in JSON
        d["private"] = base64.b64encode(obj.private).decode("ascii")
    if obj.dependencies:
        d["dependencies"] = dependency_texts(obj.dependencies)
    if obj.create_before_destroy:
        d["create_before_destroy"] = True
    return d


def decode_object(raw: Any, dynamic: dict[str, Any], where: Any = "") -> ObjectState:
    """One entry of a resource's ``instances`` (or a journal record's object), every field checked:
    a field of the wrong type raises :class:`InvalidField` (``where``, an instance address, names the
    instance in its message), never anything else. Hot path: once per object loaded."""
    if type(raw) is not dict:
        raise invalid_field("resources.instances", raw)
    get = raw.get
    attrs = get("attributes")
    flat = get("attributes_flat") if attrs is None else None
    if flat is not None:  # a state upgraded from version 3 (Terraform before 0.12): see FlatmapState
        if type(flat) is not dict or not all(type(v) is str for v in flat.values()):
            raise invalid_field("resources.instances.attributes_flat", flat)
    elif attrs is None:
        attrs = {}
    elif type(attrs) is not dict:
        raise invalid_field("resources.instances.attributes", attrs)
    status = get("status")
    if not status:
        if status is not None and status != "":
            raise invalid_field("resources.instances.status", status)
        status = "ready"
    elif status != "tainted":
        if type(status) is not str:
            raise invalid_field("resources.instances.status", status)
        raise InvalidField("Invalid resource instance metadata in state",
                           f'Instance {where} has invalid status "{status}".')
    version = get("schema_version")
    if version is None:
        version = 0
    elif type(version) is not int or version < 0:
        raise invalid_field("resources.instances.schema_version", version)
    raw_deps = get("dependencies")
    deps: tuple[ResourceAddr, ...] = ()
    if raw_deps is not None:
        if type(raw_deps) is not list or not all(type(d) is str for d in raw_deps):
            raise invalid_field("resources.instances.dependencies", raw_deps)
        try:
            deps = parse_dependencies(raw_deps)
        except ValueError as exc:
            raise InvalidField("Invalid resource instance metadata in state",
                               f"Instance {where} has an invalid dependency: {exc}.") from None
    cbd = get("create_before_destroy")
    if cbd is None:
        cbd = False
    elif type(cbd) is not bool:
        raise invalid_field("resources.instances.create_before_destroy", cbd)
    sensitive = get("sensitive_attributes")
    if sensitive is None:
        sensitive = ()
    elif type(sensitive) is not list:
        raise invalid_field("resources.instances.sensitive_attributes", sensitive)
    private = get("private")
    if private is None or private == "":
        private = b""
    elif type(private) is not str:
        raise invalid_field("resources.instances.private", private)
    else:
        try:
            private = base64.b64decode(private, validate=True)
        except ValueError:
            raise invalid_field("resources.instances.private", private) from None
    if flat is not None:
        return ObjectState(FlatmapState(flat), status, version, tuple(deps), cbd, tuple(sensitive), private)
    try:
        values = decode_attributes(attrs or {}, dynamic)
    except Exception as exc:  # the one seam where stored values meet their types: mapped here, once
        raise InvalidField("Invalid state file format",
                           f"The attributes of {where} could not be decoded: {exc!r}") from exc
    return ObjectState(values, status, version, deps, cbd, tuple(sensitive), private,
                       encoded=attrs)  # written back exactly as read


def decode_instance_key(key: Any, resource: Any) -> Any:
    """An ``index_key`` as stored: None, a whole number or a string (1.0 is 1)."""
    if key is None or type(key) is int or type(key) is str:
        return key
    if type(key) is float and key.is_integer():
        return int(key)
    raise InvalidField("Invalid resource instance metadata in state",
                       f"Resource {resource} has an instance with the invalid instance key "
                       f"{orjson.dumps(key).decode()}.")


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
        dyn = dynamic_attrs(schema_key(addr))
        instances = []
        for key in sorted(rs.instances, key=_key_order):
            inst = rs.instances[key]
            if inst.current is not None:
                instances.append(encode_object(key, inst.current, dyn))
            for dk in sorted(inst.deposed):
                instances.append(encode_object(key, inst.deposed[dk], dyn, dk))
        r: dict[str, Any] = {} if addr.module.is_root else {"module": str(addr.module)}
        r.update(mode=addr.mode, type=addr.type, name=addr.name)
        r["provider"] = str(rs.provider)
        r["instances"] = instances
        resources.append(r)
    outputs = {}
    for name in sorted(state.outputs):
        value, sensitive = state.outputs[name]
        o: dict[str, Any] = {"value": to_json(value), "type": state.output_type(name)}
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
        "check_results": checks.encode(state.check_results),
    }
    return dumps(doc, indent=True) + b"\n"


def decode_state(data: bytes, path: str, dynamic_attrs: DynamicAttrs) -> State:
    """A v4 state file's content (not empty: an empty file is no state, its caller's decision).

    Everything is checked as terraform checks it, and refused with its diagnostic
    (:class:`StateDecodeError`): a field of the wrong type, a duplicate instance. One resource
    split over several entries of ``resources`` is merged, as terraform merges it."""
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        # Go's decoder finds a document of only whitespace wrong at its end, as terraform says
        at = len(data) if not data.strip() else exc.pos
        raise StateDecodeError(path, [
            ("Unsupported state file format",
             f"The state file could not be parsed as JSON: syntax error at byte offset {at}."),
            ("Unsupported state file format", _NO_VERSION)]) from None
    if type(doc) is not dict:
        raise StateDecodeError(path, [("Unsupported state file format", _NO_VERSION)])
    version = doc.get("version")
    if version is None:
        raise StateDecodeError(path, [("Unsupported state file format", _NO_VERSION)])
    if type(version) is not int:
        kind = "bool" if isinstance(version, bool) else _GO_KINDS.get(type(version), "null")
        raise StateDecodeError(path, [("Unsupported state file format", f"The version in the state file is "
                                       f"{kind}. A positive whole number is required.")])
    if version != 4:
        raise StateDecodeError(path, [("Unsupported state file format",
                                       f"The state file uses format version {version}; strata reads version 4.")])
    try:
        return _decode_v4(doc, dynamic_attrs)
    except InvalidField as exc:
        raise StateDecodeError(path, [(exc.summary, exc.detail)]) from None


_NO_VERSION = ('The state file does not have a "version" attribute, which is required to identify the '
               "format version.")


def _optional(doc: dict[str, Any], name: str, kind: type, field: str) -> Any:
    v = doc.get(name)
    if v is not None and type(v) is not kind:
        raise invalid_field(field, v)
    return v


def _decode_v4(doc: dict[str, Any], dynamic_attrs: DynamicAttrs) -> State:
    serial = doc.get("serial")
    if serial is None:
        serial = 0
    elif type(serial) is not int or serial < 0:
        raise invalid_field("serial", serial)
    state = State(lineage=_optional(doc, "lineage", str, "lineage") or "", serial=serial,
                  terraform_version=_optional(doc, "terraform_version", str, "terraform_version") or "1.11.4")
    state.check_results = checks.decode(_optional(doc, "check_results", list, "check_results"))
    for r in _optional(doc, "resources", list, "resources") or ():
        if type(r) is not dict:
            raise invalid_field("resources", r)
        mode = _optional(r, "mode", str, "resources.mode") or "managed"
        type_ = r.get("type")
        name = r.get("name")
        if type(type_) is not str:
            raise invalid_field("resources.type", type_)
        if type(name) is not str:
            raise invalid_field("resources.name", name)
        if mode not in ("managed", "data"):
            raise InvalidField("Invalid resource mode in state", f'State contains a resource with mode "{mode}" '
                               f'("{type_}" "{name}") which is not supported.')
        module_text = _optional(r, "module", str, "resources.module") or ""
        try:
            module = parse_module_path(module_text)
        except ValueError:
            raise InvalidField("Invalid state file format", f'Resource "{type_}" "{name}" has the invalid '
                               f'module address "{module_text}".') from None
        addr = resource_addr(type_, name, mode, module)
        provider_text = r.get("provider")
        if type(provider_text) is not str or not provider_text:
            raise invalid_field("resources.provider", provider_text)
        try:
            provider = parse_provider_config_addr(provider_text)
        except ValueError as exc:
            raise InvalidField("Invalid provider configuration address in state",
                               f'Resource {addr} has {exc}.') from None
        dyn = dynamic_attrs(schema_key(addr))
        for raw in _optional(r, "instances", list, "resources.instances") or ():
            if type(raw) is not dict:
                raise invalid_field("resources.instances", raw)
            key = decode_instance_key(raw.get("index_key"), addr)
            deposed = _optional(raw, "deposed", str, "resources.instances.deposed") or None
            rs = state.resources.get(addr)
            if rs is None:  # a resource may be split over several entries: terraform merges them
                rs = state.resources[addr] = ResourceState(addr, provider)
            inst = rs.instances.get(key)
            if inst is None:
                inst = rs.instances[key] = InstanceState()
            obj = decode_object(raw, dyn, _Where(addr, key))
            if deposed is None:
                if inst.current is not None:
                    raise InvalidField("Duplicate resource instance in state", f"Instance {addr.instance(key)} "
                                       "appears multiple times in the state file.")
                inst.current = obj
            else:
                if deposed in inst.deposed:
                    raise InvalidField("Duplicate resource instance in state", f"Instance {addr.instance(key)} "
                                       f'deposed object "{deposed}" appears multiple times in the state file.')
                inst.deposed[deposed] = obj
    for name, o in (_optional(doc, "outputs", dict, "outputs") or {}).items():
        if type(o) is not dict:
            raise invalid_field("outputs", o)
        ty = o.get("type")
        if not valid_type(ty):
            raise InvalidField("Invalid output value type in state", "The state file has an invalid type "
                               f'specification for output "{name}": {orjson.dumps(ty).decode()}.')
        sensitive = _optional(o, "sensitive", bool, "outputs.sensitive")
        try:
            value = from_typed_json(o.get("value"), ty)
        except Exception as exc:  # a value that does not fit its type: mapped at this seam, once
            raise InvalidField("Invalid output value in state", f'The state file\'s value of output "{name}" '
                               f"does not match its type: {exc!r}.") from exc
        state.outputs[name] = (value, bool(sensitive))
        state.output_types[name] = ty
    return state


class _Where:
    """An instance's address, formatted only when an error message needs it (the load's hot path
    does not)."""

    __slots__ = ("addr", "key")

    def __init__(self, addr: Any, key: Any) -> None:
        self.addr = addr
        self.key = key

    def __str__(self) -> str:
        return str(self.addr.instance(self.key))


_PRIMITIVES = frozenset({"string", "number", "bool", "dynamic"})


def valid_type(ty: Any) -> bool:
    """``ty`` is a cty type in its JSON notation (``"string"``, ``["list", "number"]``, ...)."""
    if type(ty) is str:
        return ty in _PRIMITIVES
    if type(ty) is not list or len(ty) not in (2, 3) or type(ty[0]) is not str:
        return False
    kind, arg = ty[0], ty[1]
    if kind in ("list", "set", "map") and len(ty) == 2:
        return valid_type(arg)
    if kind == "tuple" and len(ty) == 2:
        return type(arg) is list and all(valid_type(t) for t in arg)
    if kind == "object":
        return type(arg) is dict and all(valid_type(t) for t in arg.values()) and (
            len(ty) == 2 or (type(ty[2]) is list and all(type(n) is str for n in ty[2])))
    return False

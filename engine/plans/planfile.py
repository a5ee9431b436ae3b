"""Saved plans: ``strata plan -out=FILE`` writes the :class:`~engine.plans.plan.Plan`, and
``strata apply FILE`` applies the plan read back, without planning again, as terraform does.

The file is the plan value serialised, with what it was made from:

* the prior state's lineage and serial (``None`` when there was no state yet): applying it to a
  state of another lineage, or one that moved on since, is refused in terraform's words ("Saved
  plan does not match the given state", "Saved plan is stale": :func:`state_mismatch`);
* the plan: every change (addresses, actions, reasons, values before and after with their
  unknowns, sets, lists, maps and numbers of any size, the configuration each was planned
  from, dependencies, sensitive marks), what refresh found, data reads, outputs, how each
  resource expands, what each local value depends on, the variable values (so later ``-var``
  flags or ``.tfvars`` edits change nothing) and a digest of the configuration files;
* the options it was made with (destroy, refresh-only, refresh, -target, -replace);
* the plan as ``strata plan`` printed it, for ``strata show FILE``.

Apply evaluates the configuration again where the plan left values unknown, its conditions and
its outputs; terraform carries a snapshot of the configuration in its plan file, strata a digest
of it: a saved plan is refused once the configuration changed (terraform would apply its
snapshot). Nothing is refreshed or planned again when it is applied: the state is the one the plan
was made from, with what its refresh found put back (``Plan.refreshed``). Each change is planned
once more at apply time against the applied dependencies (the final plan), and the provider must
keep every value the saved plan knew ("Provider produced inconsistent final plan"), as terraform's
apply does.

The file is JSON (``format``: ``strata-plan/2``), encoded and decoded here only: in memory a plan
is value types. It holds the variable values in the clear, as terraform's plan files do, so keep
it where the state is kept.
"""

from __future__ import annotations

import base64
import hashlib
import os
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import orjson

from engine.addrs import (
    InstanceAddr,
    ProviderConfigAddr,
    ResourceAddr,
    parse_dependency,
    parse_module_path,
    parse_provider_config_addr,
    resource_addr,
)
from engine.config.module import config_files
from engine.diagnostics import Diagnostic, DiagnosticsError, error
from engine.frozen import frozen
from engine.plans.plan import DataRead, Expansion, Plan, Refreshed, ResourceInstanceChange
from engine.state import checks
from engine.state.model import ObjectState
from engine.values import UNKNOWN, ListVal, MapVal, SetVal

FORMAT = "strata-plan/2"


@frozen
class Options:
    """The options a plan was made with, as ``strata plan`` was given them (for the reader; the
    plan itself says what apply does)."""

    destroy: bool = False
    refresh_only: bool = False
    refresh: bool = True
    targets: tuple[str, ...] = ()
    replace: tuple[str, ...] = ()


@frozen
class SavedPlan:
    """A plan file read back: the plan, the state it was made from (lineage and serial, None
    when there was none), its options and its text as ``strata plan`` printed it."""

    path: str
    lineage: str | None
    serial: int | None
    plan: Plan
    options: Options
    text: str


def state_mismatch(saved: SavedPlan, lineage: str | None, serial: int | None) -> list[Diagnostic]:
    """Why the state (``lineage`` and ``serial``; None, None when there is none) is not the one the
    plan was made from, as terraform says it: another lineage, or the same one moved on. A plan
    made when there was no state yet checks only the serial (terraform's "first plan")."""
    found = []
    if saved.lineage is not None and saved.lineage != lineage:
        found.append(error("Saved plan does not match the given state",
                           "The given plan file can not be applied because it was created from a different "
                           "state lineage."))
    if (saved.serial or 0) != (serial or 0):
        found.append(error("Saved plan is stale",
                           "The given plan file can no longer be applied because the state was changed by "
                           "another operation after the plan was created."))
    return found


def config_digest(directory: str) -> str:
    """A digest of the configuration files in ``directory`` (names and contents); a diagnostic when
    the directory cannot be read, as loading it gives."""
    h = hashlib.sha256()
    for path in config_files(directory):
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as exc:  # loading the configuration reports it
            data = f"unreadable: {exc.strerror}".encode()
        h.update(os.path.basename(path).encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
    return h.hexdigest()


# ---------------------------------------------------------------------------------------- values


def _canonical(v: Any) -> Any:
    """``v`` as plain JSON that tells apart what plan values tell apart (unknowns, collection kinds,
    numbers of any size); :func:`_value` reads it back."""
    if v is UNKNOWN:
        return {"$": "unknown"}
    if type(v) is int and not -(2 ** 63) <= v < 2 ** 63:
        return {"$": "int", "v": str(v)}
    if isinstance(v, SetVal):
        return {"$": "set", "v": sorted((_canonical(x) for x in v), key=_dumps)}
    if isinstance(v, ListVal):
        return {"$": "list", "v": [_canonical(x) for x in v]}
    if isinstance(v, MapVal):
        return {"$": "map", "v": {k: _canonical(x) for k, x in v.items()}}
    if isinstance(v, tuple):
        return [_canonical(x) for x in v]
    if isinstance(v, dict):
        return {"$": "object", "v": {k: _canonical(x) for k, x in v.items()}}
    if isinstance(v, float) and v.is_integer():
        return _canonical(int(v))
    return v


def _value(j: Any) -> Any:
    """A value back from :func:`_canonical`."""
    if isinstance(j, list):
        return tuple(_value(x) for x in j)
    if not isinstance(j, dict):
        return j
    kind = j.get("$")
    v: Any = j.get("v")
    if kind == "unknown":
        return UNKNOWN
    if kind == "int":
        return int(v)
    if kind == "set":
        return SetVal.of(_value(x) for x in v)
    if kind == "list":
        return ListVal(_value(x) for x in v)
    if kind == "map":
        return MapVal({k: _value(x) for k, x in v.items()})
    if kind == "object":
        return {k: _value(x) for k, x in v.items()}
    raise ValueError(f"not a value: {j!r}")


# ---------------------------------------------------------------------------------------- the plan


def _resource(r: ResourceAddr) -> list[str]:
    return [r.mode, r.type, r.name, str(r.module)]


def _instance(a: InstanceAddr) -> list[Any]:
    return [*_resource(a.resource), a.key]


def _resource_back(j: Any) -> ResourceAddr:
    mode, type_, name, module = j
    if mode not in ("managed", "data") or not isinstance(type_, str) or not isinstance(name, str) \
            or not isinstance(module, str):
        raise ValueError(f"not a resource address: {j!r}")
    return resource_addr(type_, name, mode, parse_module_path(module))


def _instance_back(j: Any) -> InstanceAddr:
    mode, type_, name, module, key = j
    if key is not None and type(key) not in (int, str):
        raise ValueError(f"not an instance key: {key!r}")
    return _resource_back([mode, type_, name, module]).instance(key)


def _path(p: tuple[str | int, ...]) -> list[str | int]:
    return list(p)


def _path_back(j: Any) -> tuple[str | int, ...]:
    steps = _list(j)
    if not all(type(x) in (str, int) for x in steps):
        raise ValueError(f"not an attribute path: {j!r}")
    return tuple(steps)


def _bytes(b: bytes) -> str:
    return base64.b64encode(b).decode()


def _bytes_back(j: Any) -> bytes:
    return base64.b64decode(_str(j), validate=True)


def _provider_back(j: Any) -> ProviderConfigAddr:
    return parse_provider_config_addr(_str(j))


def _dependencies(deps: tuple[ResourceAddr, ...]) -> list[str]:
    return [str(r) for r in deps]


def _dependencies_back(j: Any) -> tuple[ResourceAddr, ...]:
    return tuple(parse_dependency(s) for s in _strings(j))


def _object(o: ObjectState | None) -> Any:
    if o is None:
        return None
    return {"attributes": _canonical(o.attributes), "status": o.status, "schema_version": o.schema_version,
            "dependencies": _dependencies(o.dependencies), "create_before_destroy": o.create_before_destroy,
            "sensitive_attributes": list(o.sensitive_attributes),  # state v4's paths: JSON already
            "private": _bytes(o.private)}


def _object_back(j: Any) -> ObjectState | None:
    if j is None:
        return None
    if j["status"] not in ("ready", "tainted") or type(j["schema_version"]) is not int:
        raise ValueError("not an object")
    return ObjectState(_value(j["attributes"]), j["status"], j["schema_version"], _dependencies_back(j["dependencies"]),
                       _bool(j["create_before_destroy"]), tuple(_list(j["sensitive_attributes"])),
                       _bytes_back(j["private"]))


def _change(c: ResourceInstanceChange) -> dict[str, Any]:
    return {
        "addr": _instance(c.addr), "action": c.action, "provider": str(c.provider),
        "before": _canonical(c.before), "after": _canonical(c.after), "reason": c.reason, "deposed": c.deposed,
        "requires_replace": [_path(p) for p in c.requires_replace], "private": _bytes(c.private),
        "create_before_destroy": c.create_before_destroy,
        "depends_on": sorted((_instance(a) for a in c.depends_on), key=_dumps),
        "depends_on_resources": sorted(_resource(r) for r in c.depends_on_resources),
        "state_dependencies": _dependencies(c.state_dependencies),
        "prior_dependencies": _dependencies(c.prior_dependencies),
        "config": _canonical(c.config), "sensitive": sorted(c.sensitive),
        "marks": None if c.marks is None else sorted(c.marks),
        "previous": None if c.previous is None else _instance(c.previous), "importing": c.importing,
        "destroy_left_out": c.destroy_left_out, "targeted": c.targeted,
        "depends_on_whole": sorted(_resource(r) for r in c.depends_on_whole),
    }


def _change_back(j: dict[str, Any]) -> ResourceInstanceChange:
    return ResourceInstanceChange(
        addr=_instance_back(j["addr"]), action=_str(j["action"]), provider=_provider_back(j["provider"]),
        before=_object_value(j["before"]), after=_object_value(j["after"]), reason=_opt_str(j["reason"]),
        deposed=_opt_str(j["deposed"]), requires_replace=tuple(_path_back(p) for p in _list(j["requires_replace"])),
        private=_bytes_back(j["private"]),
        create_before_destroy=_bool(j["create_before_destroy"]),
        depends_on=frozenset(_instance_back(a) for a in _list(j["depends_on"])),
        depends_on_resources=frozenset(_resource_back(r) for r in _list(j["depends_on_resources"])),
        state_dependencies=_dependencies_back(j["state_dependencies"]),
        prior_dependencies=_dependencies_back(j["prior_dependencies"]),
        config=_object_value(j["config"]), sensitive=frozenset(_strings(j["sensitive"])),
        marks=None if j["marks"] is None else frozenset(_strings(j["marks"])),
        previous=None if j.get("previous") is None else _instance_back(j["previous"]),
        importing=_opt_str(j.get("importing")), destroy_left_out=_bool(j.get("destroy_left_out", False)),
        targeted=_bool(j.get("targeted", False)),
        depends_on_whole=frozenset(_resource_back(r) for r in _list(j.get("depends_on_whole", []))))


def _outputs(outputs: Mapping[str, tuple[Any, bool]]) -> dict[str, Any]:
    return {n: [_canonical(v), s] for n, (v, s) in outputs.items()}


def _outputs_back(j: Any) -> dict[str, tuple[Any, bool]]:
    return {_str(n): (_value(v), _bool(s)) for n, (v, s) in _dict(j).items()}


def encode_plan(plan: Plan) -> dict[str, Any]:
    """``plan`` as plain JSON; :func:`decode_plan` gives back an equal plan."""
    return {
        "changes": [_change(c) for c in plan.changes],
        "drift": [_change(c) for c in plan.drift],
        "outputs": _outputs(plan.outputs), "prior_outputs": _outputs(plan.prior_outputs),
        "destroy": plan.destroy, "refresh_only": plan.refresh_only, "refresh": plan.refresh,
        "targeted": plan.targeted,
        "variables": {n: _canonical(v) for n, v in plan.variables.items()},
        "data_reads": [[_instance(a), str(r.provider), _canonical(r.value), sorted(r.sensitive)]
                       for a, r in plan.data_reads.items()],
        "forget": [_instance(a) for a in plan.forget],
        "kept_outputs": sorted(plan.kept_outputs),
        "refreshed": [[_instance(r.addr), str(r.provider), _object(r.obj), r.deposed] for r in plan.refreshed],
        "expansions": [[_resource(r), e.kind, list(e.keys)] for r, e in plan.expansions.items()],
        "local_dependencies": {n: sorted(_resource(r) for r in deps) for n, deps in plan.local_dependencies.items()},
        "moves": [[_instance(new), _instance(prev)] for new, prev in plan.moves.items()],
        "config_digest": plan.config_digest,
        "errored": plan.errored,
        "timestamp": plan.timestamp,
        "checks": checks.encode(plan.checks),
        "check_data": {a: list(v) for a, v in plan.check_data.items()},
        "scoped_reads": sorted(_instance(a) for a in plan.scoped_reads),
        "function_results": [list(h) for h in plan.function_results],
    }


def decode_plan(j: dict[str, Any]) -> Plan:
    """The plan :func:`encode_plan` wrote. Raises ValueError (or KeyError, TypeError) when ``j`` is
    not one."""
    expansions = {}
    for r, kind, keys in _list(j["expansions"]):
        if kind not in ("single", "count", "for_each"):
            raise ValueError(f"not an expansion: {kind!r}")
        expansions[_resource_back(r)] = Expansion.of(kind, [_instance_back([*r, k]).key for k in keys])
    return Plan(
        changes=tuple(_change_back(c) for c in _list(j["changes"])),
        drift=tuple(_change_back(c) for c in _list(j["drift"])),
        outputs=_outputs_back(j["outputs"]), prior_outputs=_outputs_back(j["prior_outputs"]),
        destroy=_bool(j["destroy"]), refresh_only=_bool(j["refresh_only"]), targeted=_bool(j["targeted"]),
        refresh=_bool(j.get("refresh", True)),  # absent from plans written before it was recorded
        variables={_str(n): _value(v) for n, v in _dict(j["variables"]).items()},
        data_reads={_instance_back(a): DataRead(_provider_back(p), _object_value(v), frozenset(_strings(s)))
                    for a, p, v, s in _list(j["data_reads"])},
        forget=tuple(_instance_back(a) for a in _list(j["forget"])),
        kept_outputs=frozenset(_strings(j["kept_outputs"])),
        refreshed=tuple(Refreshed(_instance_back(a), _provider_back(p), _object_back(o), _opt_str(d))
                        for a, p, o, d in _list(j["refreshed"])),
        expansions=MappingProxyType(expansions),
        local_dependencies=MappingProxyType({_str(n): frozenset(_resource_back(r) for r in _list(deps))
                                             for n, deps in _dict(j["local_dependencies"]).items()}),
        moves=MappingProxyType({_instance_back(n): _instance_back(p) for n, p in _list(j.get("moves", []))}),
        config_digest=_str(j["config_digest"]),
        errored=_bool(j.get("errored", False)),
        timestamp=_str(j.get("timestamp", "")),  # written since strata-plan/2 files began to carry it
        checks=checks.decode(j.get("checks")),
        check_data={_str(a): (_str(v[0]), _str(v[1])) for a, v in _dict(j.get("check_data", {})).items()},
        scoped_reads=frozenset(_instance_back(a) for a in _list(j.get("scoped_reads", []))),
        function_results=tuple((_str(k), _str(r)) for k, r in _list(j.get("function_results", []))),
    )


def _checked(kind: type, what: str) -> Callable[[Any], Any]:
    def check(j: Any) -> Any:
        if type(j) is not kind:
            raise ValueError(f"not {what}: {j!r}")
        return j
    return check


_str: Callable[[Any], str] = _checked(str, "a string")
_bool: Callable[[Any], bool] = _checked(bool, "a boolean")
_list: Callable[[Any], list[Any]] = _checked(list, "a list")
_dict: Callable[[Any], dict[str, Any]] = _checked(dict, "an object")


def _opt_str(j: Any) -> str | None:
    return None if j is None else _str(j)


def _strings(j: Any) -> tuple[str, ...]:
    return tuple(_str(x) for x in _list(j))


def _object_value(j: Any) -> Any:
    """An object value (a dict) or null."""
    v = _value(j)
    if v is not None and not isinstance(v, dict):
        raise ValueError(f"not an object value: {j!r}")
    return v


# ---------------------------------------------------------------------------------------- the file


def _dumps(doc: Any) -> bytes:
    return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)


def write(path: str, *, lineage: str | None, serial: int | None, options: Options, plan: Plan, text: str) -> None:
    """Write the plan file atomically (a temporary file renamed over ``path``)."""
    doc = {
        "format": FORMAT, "lineage": lineage, "serial": serial,
        "options": {"destroy": options.destroy, "refresh_only": options.refresh_only, "refresh": options.refresh,
                    "targets": list(options.targets), "replace": list(options.replace)},
        "plan": encode_plan(plan), "text": text,
    }
    data = orjson.dumps(doc) + b"\n"
    if os.path.islink(path) or (os.path.exists(path) and not os.path.isfile(path)):
        # a symlink, a device, a pipe: written through, as terraform writes, never replaced
        with open(path, "wb") as f:
            f.write(data)
        return
    directory = os.path.dirname(os.path.abspath(path))
    import tempfile  # only for plan -out

    fd, tmp = tempfile.mkstemp(prefix=".strata-plan-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read(path: str) -> SavedPlan:
    """The plan file at ``path``; a diagnostic (terraform's summary) when it is missing or is not one."""
    summary = f'Failed to load "{path}" as a plan file'
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise DiagnosticsError([error(summary, f"{path}: {exc.strerror}.")]) from None
    try:
        doc = orjson.loads(data)
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ValueError
        opts = _dict(doc["options"])
        serial = doc["serial"]
        if serial is not None and type(serial) is not int:
            raise ValueError
        return SavedPlan(
            path=path, lineage=_opt_str(doc["lineage"]), serial=serial, plan=decode_plan(_dict(doc["plan"])),
            options=Options(destroy=_bool(opts["destroy"]), refresh_only=_bool(opts["refresh_only"]),
                            refresh=_bool(opts["refresh"]), targets=_strings(opts["targets"]),
                            replace=_strings(opts["replace"])),
            text=_str(doc["text"]))
    except (ValueError, KeyError, TypeError, AttributeError):
        raise DiagnosticsError([error(summary, f"{path} is not a plan file written by strata plan -out "
                                      f"({FORMAT}).")]) from None


__all__ = ["FORMAT", "Options", "SavedPlan", "config_digest", "state_mismatch", "decode_plan", "encode_plan", "read", "write"]

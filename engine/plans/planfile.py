"""Saved plans: ``strata plan -out=FILE``, then ``strata apply FILE`` takes exactly those actions.

A plan file records what the plan was made from and what it says:

* the prior state's lineage and serial (``None`` when there was no state yet),
* a digest of the configuration files,
* the variable values, exactly (so later ``-var`` flags or ``.tfvars`` edits change nothing),
* the plan's options (destroy, refresh-only, refresh, -target, -replace),
* a digest of the plan itself: every change (address, action, deposed key, values before and
  after, unknowns included), the outputs, data reads and drift,
* the plan as ``strata plan`` printed it, for ``strata show FILE``.

Applying it plans again from the same configuration, variables, options and state, and applies
only when the result is the very same plan; otherwise nothing is changed and the error says why:
the state moved on (terraform's "Saved plan is stale"), the configuration changed, or the
infrastructure did (a refresh found different objects). terraform instead applies the recorded
plan as it is; the guarantee a user relies on, that exactly the printed actions are taken, is
the same.

The file is JSON (``format``: ``strata-plan/1``); it holds the variable values in the clear, as
terraform's plan files do, so keep it where the state is kept.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from typing import Any

import orjson

from engine.config.module import config_files
from engine.diagnostics import DiagnosticsError, error
from engine.plans.plan import Plan
from engine.values import UNKNOWN, ListVal, MapVal, SetVal

FORMAT = "strata-plan/1"


@dataclass(frozen=True)
class SavedPlan:
    path: str
    lineage: str | None
    serial: int | None
    config: str
    variables: dict[str, Any]
    destroy: bool
    refresh_only: bool
    refresh: bool
    targets: tuple[str, ...]
    replace: tuple[str, ...]
    digest: str
    text: str


def config_digest(directory: str) -> str:
    """A digest of the configuration files in ``directory`` (names and contents)."""
    h = hashlib.sha256()
    for path in config_files(directory):
        with open(path, "rb") as f:
            data = f.read()
        h.update(os.path.basename(path).encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
    return h.hexdigest()


def plan_digest(plan: Plan) -> str:
    """A digest of everything a plan says it will do."""
    doc = {
        "destroy": plan.destroy, "refresh_only": plan.refresh_only,
        "changes": [_change(c) for c in plan.changes],
        "drift": [_change(c) for c in plan.drift],
        "outputs": {n: [_canonical(v), s] for n, (v, s) in sorted(plan.outputs.items())},
        "reads": {str(a): _canonical(v) for a, (_p, v) in sorted(plan.data_reads.items(), key=lambda i: str(i[0]))},
        "forget": sorted(str(a) for a in plan.forget),
    }
    return hashlib.sha256(_dumps(doc)).hexdigest()


def _change(c: Any) -> list[Any]:
    return [str(c.addr), str(c.action), c.deposed, c.reason, _canonical(c.before), _canonical(c.after)]


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


def _dumps(doc: Any) -> bytes:
    return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)


def write(path: str, *, lineage: str | None, serial: int | None, config: str, variables: dict[str, Any],
          destroy: bool, refresh_only: bool, refresh: bool, targets: tuple[str, ...], replace: tuple[str, ...],
          plan: Plan, text: str) -> None:
    """Write the plan file atomically (a temporary file renamed over ``path``)."""
    doc = {
        "format": FORMAT, "lineage": lineage, "serial": serial, "config": config,
        "variables": {n: _canonical(v) for n, v in sorted(variables.items())},
        "options": {"destroy": destroy, "refresh_only": refresh_only, "refresh": refresh,
                    "targets": list(targets), "replace": list(replace)},
        "plan": plan_digest(plan), "text": text,
    }
    data = orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"
    if os.path.islink(path) or (os.path.exists(path) and not os.path.isfile(path)):
        # a symlink, a device, a pipe: written through, as terraform writes, never replaced
        with open(path, "wb") as f:
            f.write(data)
        return
    directory = os.path.dirname(os.path.abspath(path))
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
        opts = doc["options"]
        flags = (opts["destroy"], opts["refresh_only"], opts["refresh"])
        lists = (opts["targets"], opts["replace"])
        if not all(type(x) is bool for x in flags) or not all(
                isinstance(x, list) and all(isinstance(i, str) for i in x) for x in lists) \
                or not isinstance(doc["variables"], dict) or not all(
                isinstance(doc[k], str) for k in ("config", "plan", "text")):
            raise ValueError
        return SavedPlan(
            path=path, lineage=doc["lineage"], serial=doc["serial"], config=doc["config"],
            variables={n: _value(v) for n, v in doc["variables"].items()},
            destroy=bool(opts["destroy"]), refresh_only=bool(opts["refresh_only"]), refresh=bool(opts["refresh"]),
            targets=tuple(opts["targets"]), replace=tuple(opts["replace"]), digest=doc["plan"], text=doc["text"])
    except (ValueError, KeyError, TypeError, AttributeError):
        raise DiagnosticsError([error(summary, f"{path} is not a plan file written by strata plan -out "
                                      f"({FORMAT}).")]) from None


__all__ = ["FORMAT", "SavedPlan", "config_digest", "plan_digest", "read", "write"]

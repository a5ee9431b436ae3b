"""Compare ``show -json PLANFILE`` of the two tools' plans for the same step.

Both documents are made comparable first: generated ids become the names the state before the
plan gives them (:func:`tests.differential.compare.id_names`), and what one tool legitimately
writes differently from the other is set aside, each for a stated reason:

- ``timestamp`` and ``terraform_version``: when and by what the plan was made;
- ``relevant_attributes``: a set, in an order terraform varies from run to run;
- the sensitivity skeletons (``sensitive_values``, ``before_sensitive``, ``after_sensitive``)
  without their empty parts: terraform writes ``{}`` or ``[]`` for an unknown value whose type
  is an object or a list (``false`` for a list's element), and strata does not know the type
  of a value a provider has yet to decide;
- ``depends_on`` of ``prior_state``'s resources: terraform records transitive lists, strata
  direct ones; the state comparison checks them (closed over the state) already.

Each key of the document is then compared; ``resource_changes`` and the ``prior_state`` and
``planned_values`` resources by address, so that a finding names the instance and the field.
"""

from __future__ import annotations

from typing import Any

from tests.differential.findings import Mismatch, normalize

SENSITIVE_KEYS = ("sensitive_values", "before_sensitive", "after_sensitive")
TOP_LEVEL = ("format_version", "applyable", "complete", "errored", "variables", "output_changes",
             "checks", "relevant_attributes", "configuration")


def _without_empty(v: Any) -> Any:
    if isinstance(v, dict):  # inner parts first: what they leave empty goes too
        return {k: y for k, x in v.items() if (y := _without_empty(x)) not in ({}, [])}
    if isinstance(v, list):  # an element's place is kept: false there
        return [False if (y := _without_empty(x)) in ({}, []) else y for x in v]
    return v


def _skeletons(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: (_without_empty(x) if k in SENSITIVE_KEYS else _skeletons(x)) for k, x in v.items()}
    if isinstance(v, list):
        return [_skeletons(x) for x in v]
    return v


def _resources(module: dict | None) -> dict[str, dict]:
    """Every resource of a ``values`` module tree, by address (a deposed object's under its key)."""
    out: dict[str, dict] = {}
    todo = [module] if module else []
    while todo:
        mod = todo.pop()
        for res in mod.get("resources", []):
            res = {k: v for k, v in res.items() if k != "depends_on"}
            out[res["address"] + (f" (deposed {res['deposed_key']})" if "deposed_key" in res else "")] = res
        todo.extend(mod.get("child_modules", []))
    return out


def _changes(doc: dict, key: str) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for rc in doc.get(key) or []:
        addr = rc["address"] + (" (deposed)" if rc.get("deposed") else "")
        rc = {k: v for k, v in rc.items() if k != "deposed"}
        out[addr] = rc
    return out


def normalise(doc: dict, names: dict[str, str]) -> dict:
    """``doc`` with ids named, volatile keys dropped and skeletons trimmed (see the module)."""
    out = _skeletons(normalize(doc, names))
    for key in ("timestamp", "terraform_version"):
        out.pop(key, None)
    out["relevant_attributes"] = sorted(out.get("relevant_attributes") or [], key=repr)
    return out


def _diff_items(cls: str, phase: str, ours: dict[str, dict], theirs: dict[str, dict]) -> list[Mismatch]:
    found: list[Mismatch] = []
    for addr in sorted(theirs.keys() - ours.keys()):
        found.append(Mismatch(f"{cls}: missing in strata", f"{phase}: {addr}"))
    for addr in sorted(ours.keys() - theirs.keys()):
        found.append(Mismatch(f"{cls}: extra in strata", f"{phase}: {addr}"))
    for addr in sorted(ours.keys() & theirs.keys()):
        a, b = theirs[addr], ours[addr]
        for fld in sorted(a.keys() | b.keys()):
            if fld == "change" and isinstance(a.get(fld), dict) and isinstance(b.get(fld), dict):
                for sub in sorted(a[fld].keys() | b[fld].keys()):
                    if a[fld].get(sub) != b[fld].get(sub):
                        found.append(Mismatch(f"{cls}: change.{sub}",
                                              f"{phase}: {addr}: terraform {a[fld].get(sub)!r}, "
                                              f"strata {b[fld].get(sub)!r}"))
            elif a.get(fld) != b.get(fld):
                found.append(Mismatch(f"{cls}: {fld}", f"{phase}: {addr}: terraform {a.get(fld)!r}, "
                                                       f"strata {b.get(fld)!r}"))
    return found


def compare_plan_json(phase: str, tf_doc: dict, st_doc: dict, tf_names: dict[str, str],
                      st_names: dict[str, str]) -> list[Mismatch]:
    """Every difference between the two plans' JSON, by key (see the module docstring)."""
    theirs, ours = normalise(tf_doc, tf_names), normalise(st_doc, st_names)
    found: list[Mismatch] = []
    for key in TOP_LEVEL:
        if theirs.get(key) != ours.get(key):
            found.append(Mismatch(f"plan json: {key}", f"{phase}: terraform {theirs.get(key)!r}\n"
                                                       f"    strata {ours.get(key)!r}"))
    for key in ("resource_changes", "resource_drift"):
        found += _diff_items(f"plan json: {key}", phase, _changes(ours, key), _changes(theirs, key))
    found += _diff_items("plan json: planned_values", phase,
                         _resources((ours.get("planned_values") or {}).get("root_module")),
                         _resources((theirs.get("planned_values") or {}).get("root_module")))
    a = (theirs.get("planned_values") or {}).get("outputs")
    b = (ours.get("planned_values") or {}).get("outputs")
    if a != b:
        found.append(Mismatch("plan json: planned_values.outputs", f"{phase}: terraform {a!r}\n"
                                                                   f"    strata {b!r}"))
    prior_a = ((theirs.get("prior_state") or {}).get("values") or {})
    prior_b = ((ours.get("prior_state") or {}).get("values") or {})
    found += _diff_items("plan json: prior_state", phase, _resources(prior_b.get("root_module")),
                         _resources(prior_a.get("root_module")))
    if prior_a.get("outputs") != prior_b.get("outputs"):
        found.append(Mismatch("plan json: prior_state.outputs", f"{phase}: terraform {prior_a.get('outputs')!r}\n"
                                                                f"    strata {prior_b.get('outputs')!r}"))
    return found

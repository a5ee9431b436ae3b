"""terraform's JSON representation of a saved plan (``show -json FILE``, format 1.2): what tools
that read plans (policy checks, cost estimates, reviews) consume.

What it holds, in terraform's key order: ``variables``; ``planned_values`` (every object and
output as it will be once the plan is applied, unknown values left out); ``resource_changes``
(each instance's actions, values before and after, which values are unknown after, which are
sensitive, why it is replaced or deleted); ``output_changes``; ``prior_state`` (the state the
plan was made from, with what refresh found); ``configuration`` (the providers, and for each
resource, output and variable of the root module the references of its expressions or their
constant value); ``timestamp``, ``applyable``, ``complete`` and ``errored``.

strata marks sensitivity by attribute, not by path inside one: a sensitive attribute is
``true`` as a whole where terraform may mark only the part of it that came from a sensitive
value.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from engine.config.model import Module
from engine.config.output_types import output_types
from engine.plans.plan import Action, Plan, ResourceInstanceChange
from engine.render import checks_json
from engine.render.config_json import configuration_json
from engine.render.relevant_attributes import relevant_attributes
from engine.render.state_json import module_tree, resource_item, sensitive_json, state_values
from engine.state.model import State
from engine.values import UNKNOWN, cty_type, is_wholly_known, to_json, unknown_mask

FORMAT_VERSION = "1.2"

_ACTIONS = {Action.NOOP: ["no-op"], Action.READ: ["read"], Action.CREATE: ["create"], Action.UPDATE: ["update"],
            Action.DELETE: ["delete"], Action.DELETE_THEN_CREATE: ["delete", "create"],
            Action.CREATE_THEN_DELETE: ["create", "delete"], Action.FORGET: ["forget"]}

_REASONS = {"tainted": "replace_because_tainted", "cannot_update": "replace_because_cannot_update"}
"""strata's reasons whose plan-JSON names differ (the others are spelled as terraform spells them)."""


def known_json(v: Any) -> Any:
    """A value's JSON with unknown values left out of objects and maps (null in lists), as
    terraform writes ``after`` and ``planned_values``."""
    if isinstance(v, dict):
        return {k: known_json(v[k]) for k in sorted(v) if v[k] is not UNKNOWN}
    if isinstance(v, tuple):
        return [known_json(x) for x in v]
    if v is UNKNOWN:
        return None
    return v


def _change(c: ResourceInstanceChange, sensitive_after: frozenset[str]) -> dict[str, Any]:
    item = resource_item(c.addr, c.provider)
    module = c.addr.resource.module
    if c.previous is not None or module.steps:  # after the address, as terraform's
        head: dict[str, Any] = {"address": item.pop("address")}
        if c.previous is not None:
            head["previous_address"] = str(c.previous)
        if module.steps:
            head["module_address"] = str(module)
        item = {**head, **item}
    if c.deposed:
        item["deposed"] = c.deposed
    change: dict[str, Any] = {"actions": _ACTIONS[c.action],
                              "before": known_json(c.before) if c.before is not None else None,
                              "after": known_json(c.after) if c.after is not None else None,
                              # terraform's: {} for a wholly known value, else where it is unknown
                              "after_unknown": (unknown_mask(c.after) if c.after is not None
                                                and not is_wholly_known(c.after) else {}),
                              "before_sensitive": sensitive_json(c.before, c.sensitive),
                              "after_sensitive": sensitive_json(c.after, sensitive_after)}
    if c.is_replace and c.requires_replace:
        change["replace_paths"] = [list(p) for p in c.requires_replace]
    if c.importing is not None:
        change["importing"] = {"id": c.importing}
    if c.action == Action.FORGET:  # no object after it, as terraform writes it
        change.update(after=None, after_unknown={}, after_sensitive=False)
    item["change"] = change
    if c.reason:
        item["action_reason"] = _REASONS.get(c.reason, c.reason)
    return item


def _planned_resource(c: ResourceInstanceChange, schema_version: int, sensitive: frozenset[str]) -> dict[str, Any]:
    item = resource_item(c.addr, c.provider)
    item["schema_version"] = schema_version
    if c.action == Action.FORGET:  # terraform lists it, without values
        item["sensitive_values"] = False
        return item
    values = known_json(c.after)
    if values:  # terraform leaves out an empty object of known values
        item["values"] = values
    item["sensitive_values"] = sensitive_json(c.after, sensitive)
    return item


def _output_change(before: tuple[Any, bool] | None, after: tuple[Any, bool] | None,
                   before_sensitive: bool) -> dict[str, Any]:
    """One output's change. ``before_sensitive`` is as the state the plan walked records it (an
    output new in this plan, known already, is sensitive "before" when it is sensitive now, as in
    terraform's)."""
    b = before[0] if before is not None else None
    a = after[0] if after is not None else None
    if after is None:
        actions = ["delete"]
    elif before is None:
        actions = ["create"]
    else:
        from engine.values import equal

        actions = ["no-op"] if equal(b, a) else ["update"]
    out: dict[str, Any] = {"actions": actions, "before": to_json(b)}
    if a is UNKNOWN:
        out["after_unknown"] = True
    else:
        out["after"] = known_json(a)
        # terraform's: false for a wholly known value, else where it is unknown
        out["after_unknown"] = unknown_mask(a) if a is not None and not is_wholly_known(a) else False
    out["before_sensitive"] = before_sensitive
    out["after_sensitive"] = bool(after and after[1])
    return out


def _null_outputs(plan: Plan, module: Module | None) -> dict[str, bool]:
    """The root outputs planned as null (no output in state, but terraform's plan lists them, of
    type dynamic): in a saved plan, every declared output it has no value for and did not leave
    out by -target. Name -> sensitive."""
    if module is None or plan.destroy:
        return {}
    return {n: oc.sensitive for n, oc in module.outputs.items()
            if n not in plan.outputs and n not in plan.kept_outputs}


def plan_json(plan: Plan, prior: State, module: Module | None, providers: Any, *,
              timestamp: datetime | None = None) -> dict[str, Any]:
    """The document ``terraform show -json PLANFILE`` prints for ``plan``, made from ``prior``
    (the state with what refresh found) and the configuration ``module`` (None: left out)."""
    from engine.events.stream import TERRAFORM_COMPAT

    doc: dict[str, Any] = {"format_version": FORMAT_VERSION, "terraform_version": TERRAFORM_COMPAT}
    if plan.variables:
        doc["variables"] = {n: {"value": to_json(v)} for n, v in sorted(plan.variables.items())}
    schema_versions = {addr: obj.schema_version for addr, deposed, obj, _ in prior.objects() if not deposed}
    planned: list[tuple[Any, dict[str, Any]]] = []
    changes: list[dict[str, Any]] = []
    for c in sorted(plan.changes, key=lambda c: (c.addr.sort_key(), c.deposed or "")):
        after_marks = c.marks if c.marks is not None else c.sensitive
        if c.after is not None and not c.deposed:
            planned.append((c.addr.resource.module,
                            _planned_resource(c, schema_versions.get(c.addr, 0), after_marks)))
        changes.append(_change(c, after_marks))
    planned_values: dict[str, Any] = {}
    types = output_types(module, plan.outputs) if module is not None else {}  # typed nulls inside
    # under -target, an output the plan did not evaluate is not in it (its value stays in the state)
    left_out = plan.kept_outputs if plan.targeted else frozenset()
    evaluated = {n: vs for n, vs in plan.outputs.items() if n not in left_out}
    # a value and its type only for a wholly known value, as terraform's
    outputs = {n: ({"sensitive": s} if not is_wholly_known(v) else {"sensitive": s, "type": types.get(n) or cty_type(v),
                                                                     "value": known_json(v)})
               for n, (v, s) in sorted(evaluated.items())}
    nulls = _null_outputs(plan, module)
    for n, s in nulls.items():
        outputs[n] = {"sensitive": s, "type": "dynamic", "value": None}
    outputs = dict(sorted(outputs.items()))
    if outputs:
        planned_values["outputs"] = outputs
    planned_values["root_module"] = module_tree(planned)
    doc["planned_values"] = planned_values
    if changes:
        doc["resource_changes"] = changes
    names = sorted((set(plan.outputs) | set(plan.prior_outputs)) - left_out)
    if names:
        walked = {n: s for n, (v, s) in plan.outputs.items() if is_wholly_known(v)}
        doc["output_changes"] = {n: _output_change(plan.prior_outputs.get(n), plan.outputs.get(n),
                                                   walked.get(n, bool(plan.prior_outputs.get(n, (0, False))[1])))
                                 for n in names}
    for n, s in nulls.items():
        if n not in plan.prior_outputs:
            doc.setdefault("output_changes", {})[n] = {
                "actions": ["no-op"], "before": None, "after": None, "after_unknown": False,
                "before_sensitive": s, "after_sensitive": s}
    if "output_changes" in doc:
        doc["output_changes"] = dict(sorted(doc["output_changes"].items()))
    # as terraform's plan walk does, the outputs it could evaluate are in the state it plans from
    for n, (v, sens) in plan.outputs.items():
        if is_wholly_known(v):
            prior.outputs[n] = (v, sens)
    values = state_values(prior, providers)
    if values is not None:
        doc["prior_state"] = {"format_version": "1.0", "terraform_version": TERRAFORM_COMPAT, "values": values}
    if module is not None:
        doc["configuration"] = configuration_json(module, providers)
    if module is not None:
        relevant = relevant_attributes(plan, module)
        if relevant:
            doc["relevant_attributes"] = relevant
    if plan.checks:
        doc["checks"] = checks_json.plan_json(plan.checks)
    if timestamp is not None:
        doc["timestamp"] = timestamp.strftime("%Y-%m-%dT%H:%M:%SZ")
    else:  # the plan's own time, as terraform's
        doc["timestamp"] = plan.timestamp or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    # as terraform's: a plan that stopped at errors is neither applyable nor complete
    doc["applyable"] = plan.has_changes() and not plan.errored
    doc["complete"] = not plan.targeted and not plan.errored
    doc["errored"] = plan.errored
    return doc

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

from engine.config.model import Module, ResourceConfig
from engine.config.output_types import output_types
from engine.diagnostics import ProviderError
from engine.lang import expr as E
from engine.plans.plan import Action, Plan, ResourceInstanceChange
from engine.render import checks_json
from engine.render.state_json import module_tree, resource_item, state_values
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
                              "after_unknown": unknown_mask(c.after) if c.after is not None else {},
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
    item["values"] = known_json(c.after)
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
    outputs = {n: ({"sensitive": s} if v is UNKNOWN else {"sensitive": s, "type": types.get(n) or cty_type(v),
                                                          "value": known_json(v)})
               for n, (v, s) in sorted(plan.outputs.items())}
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
    names = sorted(set(plan.outputs) | set(plan.prior_outputs))
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
        relevant = relevant_attributes(module)
        if relevant:
            doc["relevant_attributes"] = relevant
    if plan.checks:
        doc["checks"] = checks_json.plan_json(plan.checks)
    if timestamp is not None:
        doc["timestamp"] = timestamp.strftime("%Y-%m-%dT%H:%M:%SZ")
    else:  # the plan's own time, as terraform's
        doc["timestamp"] = plan.timestamp or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    doc["applyable"] = plan.has_changes()
    doc["complete"] = not plan.targeted
    doc["errored"] = False
    return doc


# --------------------------------------------------------------------------- configuration


def references_json(e: E.Expr) -> list[str]:
    """terraform's ``references`` of an expression: each reference as written as far as it is
    static, then the object it names, then the resource or module call containing that (a
    resource instance ``a[0]`` → ``a``), in the order they occur (repeated as often, as terraform's are)."""
    return [s for ref in E.references(e) for s in _reference_strings(ref)]


def _key_text(k: E.Expr) -> str | None:
    if isinstance(k, E.Literal) and isinstance(k.value, (int, str)) and not isinstance(k.value, bool):
        import orjson

        return f"[{k.value}]" if isinstance(k.value, int) else f"[{orjson.dumps(k.value).decode()}]"
    return None


def _reference_strings(ref: E.Reference) -> list[str]:
    steps = list(ref.steps)
    root = ref.root
    if root in ("var", "local", "count", "each", "path", "terraform", "self"):
        if not steps or not isinstance(steps[0], str):
            return [root]
        subject = f"{root}.{steps[0]}"
        rest = steps[1:]
        containers: list[str] = []
    elif root == "module":
        if not steps or not isinstance(steps[0], str):
            return []
        call = f"module.{steps[0]}"
        subject, rest, containers = call, steps[1:], []
        if rest and isinstance(rest[0], E.Expr):
            key = _key_text(rest[0])
            if key is None:
                return [call]
            subject, rest, containers = call + key, rest[1:], [call]
        if rest and isinstance(rest[0], str):
            containers = [subject, *containers]
            subject, rest = f"{subject}.{rest[0]}", rest[1:]
    else:
        if root == "data":
            if len(steps) < 2 or not isinstance(steps[0], str) or not isinstance(steps[1], str):
                return []
            resource, rest = f"data.{steps[0]}.{steps[1]}", steps[2:]
        else:
            if not steps or not isinstance(steps[0], str):
                return []
            resource, rest = f"{root}.{steps[0]}", steps[1:]
        subject, containers = resource, []
        if rest and isinstance(rest[0], E.Expr):
            key = _key_text(rest[0])
            if key is None:
                return [resource]
            subject, rest, containers = resource + key, rest[1:], [resource]
    display = subject
    for s in rest:
        if isinstance(s, str):
            display += f".{s}"
        else:
            key = _key_text(s)
            if key is None:
                break
            display += key
    return ([display] if display != subject else []) + [subject, *containers]


def relevant_attributes(module: Module) -> list[dict[str, Any]]:
    """The attributes of resource instances the configuration's expressions refer to (what drift
    in them could change): ``{"resource": "a[0]", "attribute": ["output"]}``, each once, those of
    resources first."""
    exprs: list[E.Expr] = []
    for rc in sorted(module.resources.values(), key=lambda r: str(r.addr)):  # resources first, as terraform
        exprs.extend(a.expr for _, a in sorted(rc.attributes.items()))
        stack = list(rc.blocks)
        while stack:
            blk = stack.pop()
            exprs.extend(a.expr for a in blk.attributes.values())
            stack.extend(blk.blocks)
    exprs += [module.outputs[n].expr for n in sorted(module.outputs)]
    exprs += [module.locals[n].expr for n in sorted(module.locals)]
    found: dict[tuple[str, tuple[Any, ...]], None] = {}
    for e in exprs:
        for ref in E.references(e):
            strings = _reference_strings(ref)
            if len(strings) < 2 or ref.root in ("var", "local", "count", "each", "path", "terraform", "self",
                                                "module"):
                continue
            display, subject = strings[0], strings[1]
            if display == subject or not subject.endswith("]") and len(strings) == 2 and _counted(module, subject):
                continue
            path = _path_after(ref, subject)
            if path:
                found.setdefault((subject, tuple(path)), None)
    return [{"resource": r, "attribute": list(p)} for r, p in found]


def _counted(module: Module, resource: str) -> bool:
    return any(str(rc.addr) == resource and (rc.count is not None or rc.for_each is not None)
               for rc in module.resources.values())


def _path_after(ref: E.Reference, subject: str) -> list[Any]:
    """The static attribute path of ``ref`` past its subject (``a[0]``, ``data.t.n``): names, and
    constant keys."""
    skip = 2 if ref.root == "data" else 1
    steps = list(ref.steps[skip:])
    if steps and isinstance(steps[0], E.Expr) and subject.endswith("]"):
        steps = steps[1:]
    path: list[Any] = []
    for s in steps:
        if isinstance(s, str):
            path.append(s)
        elif isinstance(s, E.Literal) and isinstance(s.value, (int, str)) and not isinstance(s.value, bool):
            path.append(s.value)
        else:
            break
    return path


def _expression(e: E.Expr) -> dict[str, Any]:
    refs = references_json(e)
    if refs:
        return {"references": refs}
    if isinstance(e, E.Literal):
        return {"constant_value": to_json(e.value)}
    return {}


def _expressions(rc: ResourceConfig) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in sorted(rc.attributes):
        ex = _expression(rc.attributes[name].expr)
        if ex:
            out[name] = ex
    blocks: dict[str, list[dict[str, Any]]] = {}
    for b in rc.blocks:
        inner = {n: x for n, a in sorted(b.attributes.items()) if (x := _expression(a.expr))}
        blocks.setdefault(b.type, []).append(inner)
    out.update(blocks)
    return out


def _schema_version(providers: Any, rc: ResourceConfig) -> int:
    try:
        schema = providers.schema(_provider_key(rc), rc.addr.type, rc.addr.mode)
    except (KeyError, ProviderError):
        return 0
    return schema.version if schema is not None else 0


def _provider_key(rc: ResourceConfig) -> str:
    return rc.provider_ref or rc.addr.type.split("_", 1)[0]


def configuration_json(module: Module, providers: Any) -> dict[str, Any]:
    """``configuration``: the providers the root module uses, and its outputs, resources and
    variables with what their expressions refer to."""
    provider_config: dict[str, Any] = {}
    for rc in module.resources.values():
        key = _provider_key(rc)
        if key in provider_config:
            continue
        name, _, alias = key.partition(".")
        entry: dict[str, Any] = {"name": name}
        try:
            entry["full_name"] = providers.source(key)
        except (KeyError, ProviderError):  # a provider not installed: its name only
            pass
        if alias:
            entry["alias"] = alias
        pc = module.providers.get(key)
        if pc is not None and pc.attributes:
            entry["expressions"] = {n: x for n, a in sorted(pc.attributes.items()) if (x := _expression(a.expr))}
        provider_config[key] = entry
    root: dict[str, Any] = {}
    if module.outputs:
        outs: dict[str, Any] = {}
        for name, oc in sorted(module.outputs.items()):
            o: dict[str, Any] = {}
            if oc.sensitive:
                o["sensitive"] = True
            o["expression"] = _expression(oc.expr)
            if oc.description:
                o["description"] = oc.description
            outs[name] = o
        root["outputs"] = outs
    resources = []
    for rc in sorted(module.resources.values(), key=lambda r: str(r.addr)):
        r = rc.addr
        item: dict[str, Any] = {"address": str(r), "mode": r.mode, "type": r.type, "name": r.name,
                                "provider_config_key": _provider_key(rc), "expressions": _expressions(rc),
                                "schema_version": _schema_version(providers, rc)}
        # left out, as terraform does, when the expression has neither references nor a constant value
        if rc.count is not None and (ex := _expression(rc.count.expr)):
            item["count_expression"] = ex
        if rc.for_each is not None and (ex := _expression(rc.for_each.expr)):
            item["for_each_expression"] = ex
        if rc.depends_on:
            item["depends_on"] = [str(d[0]) for d in rc.depends_on]
        resources.append(item)
    if resources:
        root["resources"] = resources
    if module.variables:
        from engine.config.model import NO_DEFAULT

        variables: dict[str, Any] = {}
        for name, vc in sorted(module.variables.items()):
            v: dict[str, Any] = {}
            if vc.default is not NO_DEFAULT:
                v["default"] = to_json(vc.default)
            if vc.description:
                v["description"] = vc.description
            if vc.sensitive:
                v["sensitive"] = True
            variables[name] = v
        root["variables"] = variables
    return {"provider_config": provider_config, "root_module": root}


__all__ = ["FORMAT_VERSION", "configuration_json", "known_json", "plan_json", "references_json"]

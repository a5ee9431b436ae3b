"""The ``configuration`` of terraform's JSON plan: the providers, and for each module (the root,
and each module call's, nested), its outputs, resources, module calls and variables, with the
references of their expressions or, for an expression that needs nothing (no reference, no
function), its constant value. A child module's providers are its parent's when the parent has
one of the same source (terraform's opaque ``MODULE:NAME`` keys otherwise)."""

from __future__ import annotations

from typing import Any

from engine.config.model import NO_DEFAULT, Module, ModuleCall, ResourceConfig
from engine.diagnostics import ProviderError
from engine.lang import expr as E
from engine.values import is_wholly_known, to_json


def references_json(e: E.Expr) -> list[str]:
    """terraform's ``references`` of an expression: each reference as written as far as it is
    static, then the object it names, then the resource or module call containing that (a
    resource instance ``a[0]`` → ``a``), in the order they occur (repeated as often, as terraform's are)."""
    return [s for ref in E.references(e) for s in _reference_strings(ref)]


def _depends_on_json(items: tuple[E.Expr, ...]) -> list[str]:
    """terraform's ``depends_on``: what each item names, in the order written (``var.x`` and
    ``module.m`` among resources; "" for one it cannot parse, as terraform's)."""
    out = []
    for item in items:
        ref = next(iter(E.references(item)), None)
        texts = _reference_strings(ref) if ref is not None else []
        out.append(texts[0] if texts else "")
    return out


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
        if rest and isinstance(rest[0], str):  # an output: of the call instance (as written) only
            containers = [subject]
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
    # the reference as written as far as it is static, then each shorter prefix of it (as
    # terraform unwraps the remaining traversal one step at a time)
    texts = [subject]
    for st in rest:
        if isinstance(st, str):
            texts.append(f"{texts[-1]}.{st}")
        else:
            key = _key_text(st)
            if key is None:
                break
            texts.append(texts[-1] + key)
    return [*reversed(texts), *containers]


def _calls_nothing(e: E.Expr) -> bool:
    """Whether ``e`` calls no function (terraform evaluates a constant without any)."""
    stack: list[Any] = [e]
    while stack:
        x = stack.pop()
        t = type(x)
        if t is E.Call:
            return False
        parts = E.PARTS.get(t)
        if parts is not None:
            stack.extend(y for y in parts(x) if isinstance(y, E.Expr))
        elif t is E.ForExpr:
            stack.extend(y for y in (x.collection, x.key, x.value, x.cond) if y is not None)
        elif t is E.TemplateFor:
            stack.extend((x.collection, x.body))
        elif t is E.GetAttr:
            stack.append(x.obj)
        elif t is E.Index:
            stack.extend((x.obj, x.key))
    return True


def _constant(e: E.Expr) -> tuple[bool, Any]:
    """(True, its JSON) when ``e`` has a value without any context, as terraform's
    ``Value(nil)``: literals and what is built of them only."""
    if isinstance(e, E.Literal):
        return True, to_json(e.value)
    if not _calls_nothing(e):
        return False, None
    from engine.lang.evaluate import evaluate
    from engine.lang.scope import Scope

    def no_local(name: str, line: int) -> Any:
        raise LookupError(name)

    try:
        v = evaluate(e, Scope({}, no_local, None))  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - anything it cannot evaluate alone is not a constant
        return False, None
    return (True, to_json(v)) if is_wholly_known(v) else (False, None)


def _expression(e: E.Expr) -> dict[str, Any]:
    refs = references_json(e)
    if refs:
        return {"references": refs}
    known, value = _constant(e)
    return {"constant_value": value} if known else {}


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
    """The provider configuration key ``rc`` names: in its own module for a module's resource as
    written, the root's for one :meth:`Module.resource_at` gives (strata's providers are the root's)."""
    return rc.provider_ref or rc.addr.type.split("_", 1)[0]


class _Providers:
    """``provider_config`` as it is built, module by module, parents first: each entry by its
    opaque key (``NAME`` in the root, ``module.m:NAME`` in a module), and the key of the entry a
    child module's provider is its parent's (terraform's ``findSourceProviderKey``)."""

    def __init__(self, providers: Any) -> None:
        self.providers = providers
        self.entries: dict[str, dict[str, Any]] = {}
        self.keys: dict[tuple[str, str], str] = {}  # (module path, local key) → entry key

    def _source(self, module: Module, key: str) -> str | None:
        name = key.partition(".")[0]
        rp = module.required_providers.get(name)
        if rp is not None:
            return str(rp.source)
        try:
            return str(self.providers.source(module.root_provider_key(key)))
        except (KeyError, ProviderError):  # a provider not installed: its name only
            return None

    def key_for(self, module: Module, local: str) -> str:
        """The entry key serving ``local`` in ``module``, made when there is none yet."""
        path = module.display_path
        if (path, local) in self.keys:
            return self.keys[(path, local)]
        name, _, alias = local.partition(".")
        source = self._source(module, local)
        if module.path and module.providers.get(local) is None:
            parent = module.path[:-1]
            parent_path = ".".join(f"module.{n}" for n in parent)
            mapped = module.provider_map.get(local)
            parent_local = mapped if mapped and not parent else local
            found = self.keys.get((parent_path, parent_local))
            if found is not None and self.entries[found].get("full_name") == source:
                self.keys[(path, local)] = found
                return found
        key = f"{path}:{local}" if path else local
        entry: dict[str, Any] = {"name": name}
        if source is not None:
            entry["full_name"] = source
        if alias:
            entry["alias"] = alias
        if path:
            entry["module_address"] = path
        rp = module.required_providers.get(name)
        if rp is not None and rp.constraints:
            entry["version_constraint"] = ", ".join(str(c) for c in rp.constraints)
        pc = module.providers.get(local)
        if pc is not None and pc.attributes:
            entry["expressions"] = {n: x for n, a in sorted(pc.attributes.items()) if (x := _expression(a.expr))}
        self.entries[key] = entry
        self.keys[(path, local)] = key
        return key


def _module_json(module: Module, providers: Any, configs: _Providers) -> dict[str, Any]:
    for local in module.providers:
        configs.key_for(module, local)
    for name in module.required_providers:
        configs.key_for(module, name)
    out: dict[str, Any] = {}
    if module.outputs:
        outs: dict[str, Any] = {}
        for name, oc in sorted(module.outputs.items()):
            o: dict[str, Any] = {}
            if oc.sensitive:
                o["sensitive"] = True
            o["expression"] = _expression(oc.expr)
            if oc.description:
                o["description"] = oc.description
            if oc.depends_on_written:
                o["depends_on"] = _depends_on_json(oc.depends_on_written)
            outs[name] = o
        out["outputs"] = outs
    resources = []
    for rc in sorted(module.resources.values(), key=lambda r: str(r.addr)):
        r = rc.addr
        item: dict[str, Any] = {"address": str(r), "mode": r.mode, "type": r.type, "name": r.name,
                                "provider_config_key": configs.key_for(module, _provider_key(rc)),
                                "expressions": _expressions(rc),
                                "schema_version": _schema_version(providers, module.resource_at(r) or rc)}
        # left out, as terraform does, when the expression has neither references nor a constant value
        if rc.count is not None and (ex := _expression(rc.count.expr)):
            item["count_expression"] = ex
        if rc.for_each is not None and (ex := _expression(rc.for_each.expr)):
            item["for_each_expression"] = ex
        if rc.depends_on_written:
            item["depends_on"] = _depends_on_json(rc.depends_on_written)
        resources.append(item)
    if resources:
        out["resources"] = resources
    if module.calls:
        out["module_calls"] = {name: _call_json(call, providers, configs)
                               for name, call in sorted(module.calls.items())}
    if module.variables:
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
        out["variables"] = variables
    return out


def _call_json(call: ModuleCall, providers: Any, configs: _Providers) -> dict[str, Any]:
    out: dict[str, Any] = {"source": call.source}
    expressions = {n: x for n, a in sorted(call.arguments.items())
                   if n in call.module.variables and (x := _expression(a.expr))}
    if expressions:
        out["expressions"] = expressions
    if call.count is not None and (ex := _expression(call.count.expr)):
        out["count_expression"] = ex
    elif call.for_each is not None and (ex := _expression(call.for_each.expr)):
        out["for_each_expression"] = ex
    out["module"] = _module_json(call.module, providers, configs)  # {} for an empty module, as terraform
    if call.version:
        out["version_constraint"] = call.version
    if call.depends_on_written:
        out["depends_on"] = _depends_on_json(call.depends_on_written)
    return out


def configuration_json(module: Module, providers: Any) -> dict[str, Any]:
    """``configuration``: the providers every module uses, and the root module (its module calls'
    modules nested in it) with what each expression refers to."""
    configs = _Providers(providers)
    root = _module_json(module, providers, configs)
    return {"provider_config": dict(sorted(configs.entries.items())), "root_module": root}


__all__ = ["configuration_json", "references_json"]

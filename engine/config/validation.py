"""What ``strata validate`` finds without planning, as ``terraform validate`` does: calls to
functions that do not exist, attributes a resource's schema does not have (``aws_vpc.main.idd``),
nested blocks a schema does not take, and a ``for_each`` whose value, known without any input
variable or resource, is no map or set of strings.

Input variables and resources are unknown here, as in terraform's validate walk: only what the
configuration alone decides is checked.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields
from typing import Any

from engine.addrs import ResourceAddr
from engine.config.dynamic import block_expressions
from engine.config.locals import LocalValues
from engine.config.model import Module, ResourceConfig
from engine.config.providers import _Unplanned
from engine.diagnostics import Diagnostic, SourceRange, error
from engine.lang import expr as E
from engine.lang.calls import PROVIDER, unknown_provider_function
from engine.lang.convert import friendly_name
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.lang.hcl import Block
from engine.lang.provider_functions import functions_of, not_offered, split_name
from engine.lang.sensitivity import of_module as sensitivity_of
from engine.provider.protocol import BlockSchema, ResourceSchema
from engine.provider.registry import Providers
from engine.values import UNKNOWN, SetVal, value_type

_EXPRESSION_FUNCTIONS = frozenset({"try", "can"})


def validate_module(module: Module, providers: Providers, found: list[Diagnostic] | None = None
                    ) -> list[Diagnostic]:
    """Every mistake of the kinds above in ``module``. ``found``: what was found wrong before; as
    in terraform's walk, an attribute of a resource that has a mistake of its own is not checked."""
    schemas = _schemas(module, providers)
    diags = unknown_functions(module)
    for rc in module.resources.values():
        schema = schemas.get(rc.addr)
        if schema is not None:
            _blocks(rc.blocks, schema.blocks, diags)
    diags += provider_blocks(module, providers)
    diags += evaluated_values(module, providers)
    wrong = {module.context_of(d.subject) for d in [*(found or ()), *diags] if d.severity == "error"}
    failed = {rc.addr for rc in module.resources.values() if rc.context in wrong}
    return diags + resource_attributes(module, schemas, failed)


def _schemas(module: Module, providers: Providers) -> dict[ResourceAddr, ResourceSchema]:
    out = {}
    for rc in module.resources.values():
        if providers.known(rc.provider_name):
            schema = providers.schema(rc.provider_name, rc.addr.type, rc.addr.mode)
            if schema is not None:
                out[rc.addr] = schema
    return out


def _all_expressions(module: Module) -> Iterator[tuple[str, E.Expr]]:
    """(file name, expression) of every expression in ``module``."""
    for rc in module.resources.values():
        fn = rc.range.filename
        for e in _resource_expressions(rc):
            yield fn, e
    for lc in module.locals.values():
        yield lc.range.filename, lc.expr
    for oc in module.outputs.values():
        yield oc.range.filename, oc.expr
        for c in oc.preconditions:
            yield oc.range.filename, c.condition
            yield oc.range.filename, c.error_message
    for vc in module.variables.values():
        for c in vc.validations:
            yield vc.range.filename, c.condition
            yield vc.range.filename, c.error_message
    for pc in module.providers.values():
        for a in pc.attributes.values():
            yield pc.range.filename, a.expr


def _resource_expressions(rc: ResourceConfig) -> list[E.Expr]:
    out = [a.expr for a in rc.attributes.values()]
    for b in rc.blocks:
        block_expressions(b, out)
    for meta in (rc.count, rc.for_each):
        if meta is not None:
            out.append(meta.expr)
    for c in (*rc.lifecycle.preconditions, *rc.lifecycle.postconditions):
        out.extend((c.condition, c.error_message))
    return out


def _calls(e: E.Expr) -> Iterator[E.Call]:
    """Every call in ``e``, outermost first (a loop, not recursion: nesting may be deep)."""
    stack: list[Any] = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, tuple):
            stack.extend(reversed(x))
            continue
        if not isinstance(x, E.Expr):
            continue
        if isinstance(x, E.Call):
            yield x
        names = _FIELDS.get(type(x))
        if names is None:  # dataclasses.fields builds its answer anew each call: once per kind
            names = _FIELDS[type(x)] = tuple(f.name for f in reversed(fields(x)))
        for name in names:
            v = getattr(x, name)
            if isinstance(v, (E.Expr, tuple)):
                stack.append(v)


_FIELDS: dict[type, tuple[str, ...]] = {}


def unknown_functions(module: Module) -> list[Diagnostic]:
    """terraform's "Call to unknown function" for each call of a name no function has."""
    from engine.lang.functions.registry import FUNCTIONS

    diags = []
    seen: set[tuple[str, int, str]] = set()
    for fn, e in _all_expressions(module):
        for c in _calls(e):
            name = c.name[6:] if c.name.startswith("core::") else c.name
            if name in FUNCTIONS or name in _EXPRESSION_FUNCTIONS:
                continue
            if (fn, c.line, c.name) in seen:
                continue
            seen.add((fn, c.line, c.name))
            if c.name.startswith(PROVIDER):
                provider, func = split_name(c.name)
                offered = functions_of(module, provider)
                if not offered or func not in offered:
                    detail = unknown_provider_function(c.name) if not offered else not_offered(provider, func)
                    diags.append(error("Unknown provider function", detail, SourceRange(fn, c.line)))
                continue
            diags.append(error("Call to unknown function", f'There is no function named "{c.name}".',
                               SourceRange(fn, c.line)))
    return diags


def resource_attributes(module: Module, schemas: dict[ResourceAddr, ResourceSchema],
                        failed: set[ResourceAddr] | frozenset[ResourceAddr] = frozenset()) -> list[Diagnostic]:
    """terraform's "Unsupported attribute" for a reference to an attribute its resource's schema
    lacks (``terraform_data.a.inptu``), with its suggestion of the nearest name."""
    diags = []
    seen: set[tuple[str, int, str]] = set()
    for fn, e in _all_expressions(module):
        for ref in E.references(e):
            found = _referred_attribute(module, ref)
            if found is None:
                continue
            addr, name = found
            if addr in failed:
                continue
            schema = schemas.get(addr)
            if schema is None or name in schema.attributes or name in schema.blocks:
                continue
            if (fn, ref.line, name) in seen:
                continue
            seen.add((fn, ref.line, name))
            detail = f'This object has no argument, nested block, or exported attribute named "{name}".'
            suggestion = name_suggestion(name, [*schema.attributes, *schema.blocks])
            if suggestion:
                detail = detail[:-1] + f'. Did you mean "{suggestion}"?'
            diags.append(error("Unsupported attribute", detail, SourceRange(fn, ref.line)))
    return diags


def _referred_attribute(module: Module, ref: E.Reference) -> tuple[ResourceAddr, str] | None:
    """The resource and attribute name ``ref`` reads (``TYPE.NAME[KEY].ATTR``), if it is one."""
    steps = list(ref.steps)
    if ref.root == "data":
        if len(steps) < 2 or not isinstance(steps[0], str) or not isinstance(steps[1], str):
            return None
        addr, rest = ResourceAddr(steps[0], steps[1], "data"), steps[2:]
    elif ref.root in ("var", "local", "count", "each", "path", "terraform", "self", "module"):
        return None
    else:
        if not steps or not isinstance(steps[0], str):
            return None
        addr, rest = ResourceAddr(ref.root, steps[0]), steps[1:]
    rc = module.resources.get(addr)
    if rc is None or not rest:
        return None
    if rc.expanded:
        if isinstance(rest[0], str):
            return None  # the whole resource's attribute: another error, "Missing resource instance key"
        rest = rest[1:]
    if not rest or not isinstance(rest[0], str):
        return None
    return addr, rest[0]


def name_suggestion(given: str, names: list[str]) -> str | None:
    """terraform's "Did you mean": the first of ``names`` within an edit distance of 3 of ``given``."""
    for n in names:
        if _distance(given, n) < 3:
            return n
    return None


def _distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def _blocks(blocks: tuple[Block, ...] | list[Block], schema: dict[str, BlockSchema], diags: list[Diagnostic]
            ) -> None:
    """A nested block of a type the schema does not take, or an argument its block does not."""
    for b in blocks:
        if b.type == "dynamic" and len(b.labels) == 1:
            bs = schema.get(b.labels[0])
            if bs is None:
                diags.append(error("Unsupported block type",
                                   f'Blocks of type "{b.labels[0]}" are not expected here.', b.range))
                continue
            for content in b.blocks:
                if content.type == "content":
                    _block_body(content, bs, diags)
            continue
        bs = schema.get(b.type)
        if bs is None:
            diags.append(error("Unsupported block type", f'Blocks of type "{b.type}" are not expected here.',
                               b.range))
            continue
        _block_body(b, bs, diags)


def provider_blocks(module: Module, providers: Providers) -> list[Diagnostic]:
    """A provider block's arguments and nested blocks (``dynamic`` ones' content too) checked
    against the provider's own schema, as terraform's validate checks them."""
    diags: list[Diagnostic] = []
    for pc in module.providers.values():
        schema = providers.provider_schema(pc.name) if providers.known(pc.name) else None
        if schema is None:
            continue
        for name, a_s in schema.attributes.items():
            if a_s.required and name not in pc.attributes:
                diags.append(error("Missing required argument",
                                   f'The argument "{name}" is required, but no definition was found.', pc.range))
        for name, a in pc.attributes.items():
            if name not in schema.attributes:
                detail = f'An argument named "{name}" is not expected here.'
                suggestion = name_suggestion(name, list(schema.attributes))
                if suggestion:
                    detail = detail[:-1] + f'. Did you mean "{suggestion}"?'
                diags.append(error("Unsupported argument", detail, a.range))
        _blocks(pc.blocks, schema.blocks, diags)
    return diags


def _block_body(b: Block, bs: BlockSchema, diags: list[Diagnostic]) -> None:
    for name, a in b.attributes.items():
        if name not in bs.attributes:
            diags.append(error("Unsupported argument", f'An argument named "{name}" is not expected here.',
                               a.range))
    _blocks(b.blocks, bs.blocks, diags)


def evaluated_values(module: Module, providers: Providers) -> list[Diagnostic]:
    """What terraform's validate walk finds by evaluating, with every input variable and resource
    unknown: a local value, of any module, whose expression fails (``tonumber("abc")``; one that
    depends on a variable is unknown and passes), and a ``for_each`` known to be no map or set."""
    diags: list[Diagnostic] = []
    for m in module.tree():
        failed: list[Diagnostic] = []
        local_value = _local_values(m, providers, failed)
        for name, lc in m.locals.items():
            try:
                local_value(name, lc.range.line)
            except EvalError:
                pass  # a cycle, reported with the configuration's order
        diags += [d for d in failed if d.summary not in _REFERENCE_ERRORS]
        if m is module:
            diags += for_each_values(module, local_value)
    return diags


def _local_values(module: Module, providers: Providers, failed: list[Diagnostic]) -> LocalValues:
    variables: dict[str, Any] = dict.fromkeys(module.variables, UNKNOWN)
    sensitivity = sensitivity_of(module, providers, getattr(module, "root_provider_key", None))
    resources = _Unvalidated(module)
    local_value = LocalValues(module, lambda: Scope(variables, local_value, resources, sensitivity=sensitivity),
                              lambda lc, exc: failed.append(exc.error(SourceRange(lc.range.filename, exc.line))))
    return local_value


class _Unvalidated(_Unplanned):
    """Resources and module calls of the configuration, none planned: each one's value is unknown,
    its expansion the configuration's (``count`` or ``for_each``, their keys unknown)."""

    def is_expanded(self, addr: ResourceAddr) -> bool:
        rc = self.module.resources.get(addr)
        return rc is not None and rc.expanded

    def expansion(self, addr: ResourceAddr) -> str:
        rc = self.module.resources.get(addr)
        if rc is None or not rc.expanded:
            return "single"
        return "count" if rc.count is not None else "for_each"

    def module_call(self, name: str, line: int) -> Any:
        if name not in self.module.calls:
            raise EvalError("Reference to undeclared module",
                            f'No module call named "{name}" is declared in the root module.', line)
        return UNKNOWN


# found and reported with the configuration's references (engine.config.references), not again here
_REFERENCE_ERRORS = frozenset({"Reference to undeclared local value", "Reference to undeclared input variable",
                               "Reference to undeclared resource", "Reference to undeclared module",
                               "Cycle in local values"})


def for_each_values(module: Module, local_value: Any) -> list[Diagnostic]:
    """terraform's "Invalid for_each argument" for a ``for_each`` known to be no map or set (a
    list of names, most often), found with every input variable and resource unknown."""
    variables: dict[str, Any] = dict.fromkeys(module.variables, UNKNOWN)
    diags = []
    for rc in module.resources.values():
        if rc.for_each is None:
            continue
        scope = Scope(variables, local_value, _Unvalidated(module))
        try:
            v = evaluate(rc.for_each.expr, scope)
        except EvalError:
            continue  # plan reports it, with the values it then has
        if v is UNKNOWN or v is None or isinstance(v, (dict, SetVal)):
            continue
        diags.append(error("Invalid for_each argument", 'The given "for_each" argument value is unsuitable: the '
                           '"for_each" argument must be a map, or set of strings, and you have provided a value of '
                           f"type {friendly_name(value_type(v))}.", rc.for_each.range))
    return diags

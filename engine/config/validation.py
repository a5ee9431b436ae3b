"""What ``strata validate`` finds without planning, as ``terraform validate`` does: calls to
functions that do not exist, attributes a resource's schema does not have (``aws_vpc.main.idd``),
nested blocks a schema does not take, and a ``for_each`` whose value, known without any input
variable or resource, is no map or set of strings.

Input variables and resources are unknown here, as in terraform's validate walk: only what the
configuration alone decides is checked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import Any

from engine.addrs import ResourceAddr
from engine.config.dynamic import block_expressions
from engine.config.locals import LocalValues
from engine.config.model import Module, ResourceConfig
from engine.config.providers import _Unplanned
from engine.config.references import provisioner_expressions
from engine.config.suggestions import unsupported_argument, unsupported_block
from engine.config.type_checks import FOR_EACH, for_each_type, module_types, type_mistakes
from engine.diagnostics import Diagnostic, SourceRange, error, name_suggestion
from engine.lang import expr as E
from engine.lang.calls import PROVIDER, unknown_provider_function
from engine.lang.convert import friendly_name
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.lang.hcl import Block
from engine.lang.provider_functions import functions_of, not_offered, split_name
from engine.lang.sensitivity import of_module as sensitivity_of
from engine.lang.typecheck import ExprTypes, traversal_mistake
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
            _blocks(rc.blocks, schema.blocks, diags, schema.attributes)
    diags += provider_blocks(module, providers)
    diags += evaluated_values(module, providers)
    wrong = {module.context_of(d.subject) for d in [*(found or ()), *diags] if d.severity == "error"}
    failed = {rc.addr for rc in module.resources.values() if rc.context in wrong}
    return diags + resource_attributes(module, schemas, failed)


def referred_attributes(module: Module, providers: Providers, found: list[Diagnostic]) -> list[Diagnostic]:
    """:func:`resource_attributes` as plan checks them before planning (terraform's validate walk
    runs first): of the resources without a mistake of their own in ``found``."""
    wrong = {module.context_of(d.subject) for d in found if d.severity == "error"}
    failed = {rc.addr for rc in module.resources.values() if rc.context in wrong}
    return resource_attributes(module, _schemas(module, providers), failed)


def _schemas(module: Module, providers: Providers) -> dict[ResourceAddr, ResourceSchema]:
    out = {}
    known: dict[tuple[str, str, str], ResourceSchema | None] = {}  # one lookup a resource type
    for rc in module.resources.values():
        key = (rc.provider_name, rc.addr.type, rc.addr.mode)
        if key not in known:
            known[key] = (providers.schema(rc.provider_name, rc.addr.type, rc.addr.mode)
                          if providers.known(rc.provider_name) else None)
        schema = known[key]
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
    if rc.provisioners or rc.connection is not None:
        out.extend([*provisioner_expressions(rc, "create"), *provisioner_expressions(rc, "destroy")])
    return out


def unknown_functions(module: Module) -> list[Diagnostic]:
    """terraform's "Call to unknown function" for each call of a name no function has."""
    diags = []
    seen: set[tuple[str, int, str]] = set()
    for fn, e in _all_expressions(module):
        for c in E.calls(e):
            # the functions' table only once a call is met: importing it is 50M instructions
            from engine.lang.functions.registry import FUNCTIONS

            name = c.function
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
    lacks (``terraform_data.a.inptu``), with its suggestion of the nearest name.

    Every plan asks it of every expression (as terraform's validate walk does before planning):
    the resources are looked up by (mode, type, name) tuples, without building addresses."""
    targets: dict[tuple[str, str, str], tuple[bool, ResourceSchema]] = {}
    for addr, schema in schemas.items():
        rc = module.resources.get(addr)
        if rc is not None and addr not in failed:
            targets[(addr.mode, addr.type, addr.name)] = (rc.expanded, schema)
    diags = []
    seen: set[tuple[str, int, str]] = set()
    for fn, e in _all_expressions(module):
        for ref in E.references(e):
            steps = ref.steps
            if ref.root == "data":
                if len(steps) < 3 or type(steps[0]) is not str or type(steps[1]) is not str:
                    continue
                key, rest = ("data", steps[0], steps[1]), steps[2:]
            elif ref.root in _NOT_RESOURCES or len(steps) < 2 or type(steps[0]) is not str:
                continue
            else:
                key, rest = ("managed", ref.root, steps[0]), steps[1:]
            target = targets.get(key)
            if target is None:
                continue
            expanded, schema = target
            if expanded:
                if isinstance(rest[0], str):
                    continue  # the whole resource's attribute: another error, "Missing resource instance key"
                rest = rest[1:]
            if not rest or not isinstance(rest[0], str):
                continue
            name = rest[0]
            if (fn, ref.line, name) in seen:
                continue
            a_s = schema.attributes.get(name)
            if a_s is not None and len(rest) > 1 and a_s.type is not None:  # id.foo: into the attribute's type
                wrong = traversal_mistake(a_s.type, tuple(rest[1:]))
                if wrong is not None:
                    seen.add((fn, ref.line, name))
                    diags.append(error(wrong[0], wrong[1], SourceRange(fn, ref.line)))
                continue
            if a_s is not None or name in schema.blocks:
                continue
            seen.add((fn, ref.line, name))
            detail = f'This object has no argument, nested block, or exported attribute named "{name}".'
            suggestion = name_suggestion(name, sorted([*schema.attributes, *schema.blocks]))
            if suggestion:
                detail = detail[:-1] + f'. Did you mean "{suggestion}"?'
            diags.append(error("Unsupported attribute", detail, SourceRange(fn, ref.line)))
    return diags + _self_attributes(module, schemas, failed)


def _self_attributes(module: Module, schemas: dict[ResourceAddr, ResourceSchema],
                     failed: set[ResourceAddr] | frozenset[ResourceAddr]) -> list[Diagnostic]:
    """The same for ``self.ATTR`` in a resource's provisioners and connection blocks."""
    diags = []
    for rc in module.resources.values():
        schema = schemas.get(rc.addr)
        if schema is None or rc.addr in failed or not (rc.provisioners or rc.connection is not None):
            continue
        for e in [*provisioner_expressions(rc, "create"), *provisioner_expressions(rc, "destroy")]:
            for ref in E.references(e):
                name = ref.step_name(0) if ref.root == "self" else None
                if name is None or name in schema.attributes or name in schema.blocks:
                    continue
                detail = f'This object has no argument, nested block, or exported attribute named "{name}".'
                suggestion = name_suggestion(name, [*schema.attributes, *schema.blocks])
                if suggestion:
                    detail = detail[:-1] + f'. Did you mean "{suggestion}"?'
                diags.append(error("Unsupported attribute", detail, SourceRange(rc.range.filename, ref.line)))
    return diags


_NOT_RESOURCES = frozenset({"var", "local", "count", "each", "path", "terraform", "self", "module"})


def _blocks(blocks: tuple[Block, ...] | list[Block], schema: dict[str, BlockSchema], diags: list[Diagnostic],
            attributes: Iterable[str] = ()) -> None:
    """A nested block of a type the schema does not take, or an argument its block does not."""
    for b in blocks:
        if b.type == "dynamic" and len(b.labels) == 1:
            bs = schema.get(b.labels[0])
            if bs is None:
                diags.append(error("Unsupported block type", unsupported_block(b.labels[0], schema), b.range))
                continue
            for content in b.blocks:
                if content.type == "content":
                    _block_body(content, bs, diags)
            continue
        bs = schema.get(b.type)
        if bs is None:
            diags.append(error("Unsupported block type", unsupported_block(b.type, schema, attributes), b.range))
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
                diags.append(error("Unsupported argument", unsupported_argument(name, schema.attributes,
                                                                                 schema.blocks), a.range))
        _blocks(pc.blocks, schema.blocks, diags, schema.attributes)
    return diags


def _block_body(b: Block, bs: BlockSchema, diags: list[Diagnostic]) -> None:
    for name, a in b.attributes.items():
        if name not in bs.attributes:
            diags.append(error("Unsupported argument", unsupported_argument(name, bs.attributes, bs.blocks),
                               a.range))
    _blocks(b.blocks, bs.blocks, diags, bs.attributes)


def evaluated_values(module: Module, providers: Providers) -> list[Diagnostic]:
    """What terraform's validate walk finds by evaluating, with every input variable and resource
    unknown: a local value, of any module, whose expression fails (``tonumber("abc")``; one that
    depends on a variable is unknown and passes), a ``for_each`` known to be no map or set, and
    the type mistakes the declared types of the input variables show (:mod:`engine.config.type_checks`)."""
    diags: list[Diagnostic] = []
    for m in module.tree():
        walk = _ValidateWalk(m, providers)
        found = [d for d in walk.failed if d.summary not in _REFERENCE_ERRORS] + walk.type_mistakes()
        found.sort(key=lambda d: (d.subject.filename, d.subject.line) if d.subject else ("", 0))  # stable
        diags += found
        if m is module:
            diags += for_each_values(module, walk.local_value, walk.types)
    return diags


def unknown_type_mistakes(module: Module, providers: Providers) -> list[Diagnostic]:
    """The type mistakes terraform's validate walk finds from the types of unknown values (an
    input variable's declared type, a function's result type), as plan checks them before
    planning: terraform's plan runs that walk first, so ``[for c in tostring(x.id) : c]`` fails
    there whatever ``x.id`` turns out to be. (A local whose evaluation fails is left to plan's
    own evaluation, which says so with its values.)"""
    return [d for m in module.tree() for d in _ValidateWalk(m, providers).type_mistakes()]


class _ValidateWalk:
    """One module's local values as the validate walk has them (every input variable and resource
    unknown), each evaluated once: ``failed`` holds the diagnostics of those that fail."""

    def __init__(self, module: Module, providers: Providers) -> None:
        self.module = module
        self.failed: list[Diagnostic] = []
        self.failed_locals: set[str] = set()
        sensitivity = sensitivity_of(module, providers, getattr(module, "root_provider_key", None))
        self.types = module_types(module, sensitivity.hidden)
        self.local_value = validate_locals(module, sensitivity, self.types, self.failed, self.failed_locals)
        self.types.known_local = lambda name: self.local_value(name, 0)
        for name, lc in module.locals.items():
            try:
                self.local_value(name, lc.range.line)
            except EvalError:
                pass  # a cycle, reported with the configuration's order

    def type_mistakes(self) -> list[Diagnostic]:
        return type_mistakes(self.module, self.types, self.failed_locals)


def validate_locals(module: Module, sensitivity: Any, types: ExprTypes, failed: list[Diagnostic],
                    failed_locals: set[str]) -> LocalValues:
    """The local values of ``module`` as the validate walk has them (input variables and resources
    unknown); a local whose expression fails is added to ``failed`` (its diagnostic) and
    ``failed_locals`` (its name)."""
    variables: dict[str, Any] = dict.fromkeys(module.variables, UNKNOWN)
    resources = Unvalidated(module)

    def fail(lc: Any, exc: EvalError) -> None:
        failed_locals.add(lc.name)
        d = exc.error(SourceRange(lc.range.filename, exc.line))
        if exc.expr is not None:  # an unknown input variable is stated by its type, as terraform's
            said = dict(types.statements(exc.expr, dict.fromkeys(exc.scope.for_vars) if exc.scope else {}))
            if said:
                said.update(d.expr_values)
                d = dataclasses.replace(d, expr_values=tuple(sorted(said.items())))
        failed.append(d)

    local_value = LocalValues(module, lambda: Scope(variables, local_value, resources, sensitivity=sensitivity,
                                                    local_config=module.locals.get), fail)
    return local_value


class Unvalidated(_Unplanned):
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


def for_each_values(module: Module, local_value: Any, types: ExprTypes | None = None) -> list[Diagnostic]:
    """terraform's "Invalid for_each argument" for a ``for_each`` known to be no map or set (a
    list of names, most often), found with every input variable and resource unknown; with
    ``types``, also one whose value is unknown but whose type is no map or set (``var.names``, a
    ``list(string)``)."""
    variables: dict[str, Any] = dict.fromkeys(module.variables, UNKNOWN)
    diags = []
    for rc in module.resources.values():
        if rc.for_each is None:
            continue
        scope = Scope(variables, local_value, Unvalidated(module), local_config=module.locals.get)
        try:
            v = evaluate(rc.for_each.expr, scope)
        except EvalError:
            continue  # plan reports it, with the values it then has
        said: tuple[tuple[str, str], ...] = ()
        if v is UNKNOWN and types is not None:
            name = for_each_type(types, rc.for_each.expr)
            said = types.statements(rc.for_each.expr, {})
        elif v is UNKNOWN or v is None or isinstance(v, (dict, SetVal)):
            continue
        else:
            name = friendly_name(value_type(v))
        if name is not None:
            diags.append(error("Invalid for_each argument", FOR_EACH.format(name), rc.for_each.range,
                               expr_values=said))
    return diags

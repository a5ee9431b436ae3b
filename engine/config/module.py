"""The configuration model: a root module loaded from a directory's ``.tf`` and ``.tf.json`` files.

Loading collects every diagnostic it can (all files, all blocks) before
raising, so a user sees all their mistakes at once, each with ``file:line``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from typing import Any

from engine.addrs import ResourceAddr, resource_addr
from engine.config.backend import read_backend_blocks
from engine.diagnostics import (
    Diagnostic,
    DiagnosticsError,
    SourceRange,
    attribute_range,
    decl_range,
    error,
    errors_of,
)
from engine.graph.limits import Limits
from engine.lang import expr as E
from engine.lang.evaluate import BARE_TYPE, COUNT_OUTSIDE, EACH_OUTSIDE
from engine.lang.hcl import Attribute, Block, parse_hcl
from engine.lang.hcl_json import parse_json

NO_DEFAULT: Any = object()

_META_ARGS = {"count", "for_each", "depends_on", "provider", "lifecycle"}


@dataclass(frozen=True, slots=True)
class Condition:
    """A ``precondition`` or ``postcondition`` block: ``condition`` must be true, else the plan (or
    apply) fails with ``error_message``."""

    kind: str  # "precondition" | "postcondition" | "validation"
    condition: E.Expr
    error_message: E.Expr
    range: SourceRange  # the condition argument's
    block: SourceRange | None = None  # the block's own


@dataclass(frozen=True, slots=True)
class Lifecycle:
    create_before_destroy: bool = False
    prevent_destroy: bool = False
    ignore_changes: tuple[str, ...] = ()
    ignore_all_changes: bool = False
    preconditions: tuple[Condition, ...] = ()
    postconditions: tuple[Condition, ...] = ()


@dataclass(frozen=True, slots=True)
class ResourceConfig:
    addr: ResourceAddr
    range: SourceRange
    attributes: dict[str, Attribute]
    blocks: tuple[Block, ...]
    count: Attribute | None = None
    for_each: Attribute | None = None
    depends_on: tuple[tuple[ResourceAddr, E.Expr | None, int], ...] = ()
    lifecycle: Lifecycle = Lifecycle()
    provider_ref: str | None = None  # "aws" or "aws.west" when set with `provider =`
    context: str | None = None  # the block as terraform names it in a diagnostic: resource "T" "N"

    @property
    def provider_name(self) -> str:
        """The local provider name: explicit ``provider``, else the type's prefix."""
        if self.provider_ref:
            return self.provider_ref.split(".")[0]
        return self.addr.type.split("_", 1)[0]

    @property
    def provider_key(self) -> str:
        """Which provider configuration serves this resource: ``aws`` or ``aws.west``."""
        return self.provider_ref or self.provider_name

    @property
    def expanded(self) -> bool:
        return self.count is not None or self.for_each is not None


@dataclass(frozen=True, slots=True)
class VariableConfig:
    name: str
    range: SourceRange
    default: Any = NO_DEFAULT
    description: str = ""
    sensitive: bool = False
    type: Any = "dynamic"  # cty JSON type notation; "dynamic" when the variable has no type constraint
    nullable: bool = True
    validations: tuple[Condition, ...] = ()


@dataclass(frozen=True, slots=True)
class LocalConfig:
    name: str
    expr: E.Expr
    range: SourceRange


@dataclass(frozen=True, slots=True)
class OutputConfig:
    name: str
    expr: E.Expr
    range: SourceRange
    sensitive: bool = False
    description: str = ""
    preconditions: tuple[Condition, ...] = ()


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    name: str
    alias: str | None
    attributes: dict[str, Attribute]
    range: SourceRange
    limits: Limits | None = None  # from a nested ``strata { ... }`` block

    @property
    def key(self) -> str:
        return self.name + (f".{self.alias}" if self.alias else "")


@dataclass
class Module:
    """The root module. Mutable only while loading."""

    directory: str
    resources: dict[ResourceAddr, ResourceConfig] = field(default_factory=dict)
    variables: dict[str, VariableConfig] = field(default_factory=dict)
    locals: dict[str, LocalConfig] = field(default_factory=dict)
    outputs: dict[str, OutputConfig] = field(default_factory=dict)
    providers: dict[str, ProviderConfig] = field(default_factory=dict)
    blocks: dict[str, list[tuple[int, int, str]]] = field(default_factory=dict)
    """Per file, each top-level block's first and last line and its header (``resource "T" "N"``)."""

    def context_of(self, subject: SourceRange | None) -> str | None:
        """The top-level block a position is in, as terraform names it in a diagnostic; None when
        no block, or more than one, spans its line (blocks on one line: positions are lines here)."""
        if subject is None:
            return None
        found = [header for first, last, header in self.blocks.get(subject.filename, ())
                 if first <= subject.line <= last]
        return found[0] if len(found) == 1 else None

    def with_context(self, diags: list[Diagnostic]) -> list[Diagnostic]:
        """``diags`` with the block each one points into, where it names no resource of its own."""
        return [d if d.context or d.address or (d.subject is not None and d.subject.decl)
                or (ctx := self.context_of(d.subject)) is None
                else replace(d, context=ctx) for d in diags]


def config_files(directory: str) -> list[str]:
    try:
        names = sorted(os.listdir(directory))
    except OSError as exc:
        raise DiagnosticsError([error("Failed to read configuration directory",
                                      f"{directory}: {exc.strerror}")]) from None
    return [os.path.join(directory, n) for n in names
            if (n.endswith(".tf") or n.endswith(".tf.json")) and not n.startswith(".")]


def load_module(directory: str) -> Module:
    """Load every configuration file in ``directory``; raise :class:`DiagnosticsError` on mistakes."""
    files = config_files(directory)
    diags: list[Diagnostic] = []
    module = Module(directory)
    if not files:
        raise DiagnosticsError([error("No configuration files",
                                      f"There are no .tf or .tf.json files in {os.path.abspath(directory)}.")])
    for path in files:
        display = os.path.relpath(path, directory)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as exc:
            diags.append(error("Failed to read file", str(exc), SourceRange(display, 1)))
            continue
        try:
            blocks = parse_json(text, display) if path.endswith(".json") else parse_hcl(text, display)
        except DiagnosticsError as exc:
            diags.extend(exc.diagnostics)
            continue
        module.blocks[display] = [(b.range.line, b.end_line, b.context()) for b in blocks if b.end_line]
        for b in blocks:
            diags.extend(_add_block(module, b))
    if not diags:
        diags.extend(validate_references(module))
    errors = errors_of(diags)
    if errors:
        raise DiagnosticsError(module.with_context(errors))
    return module


def _literal_bool(attr: Attribute | None, diags: list[Diagnostic]) -> bool:
    if attr is None:
        return False
    if isinstance(attr.expr, E.Literal) and isinstance(attr.expr.value, bool):
        return attr.expr.value
    diags.append(error("Invalid value", f'The "{attr.name}" argument must be true or false, as a literal.',
                       attr.range))
    return False


def _add_block(module: Module, b: Block) -> list[Diagnostic]:  # noqa: C901 - one branch per block type
    diags: list[Diagnostic] = []
    if b.type in ("resource", "data"):
        if len(b.labels) != 2:
            return [error(f"Missing name for {b.type}", f'A {b.type} block needs two labels: type and name, '
                          f'as in {b.type} "terraform_data" "example".', b.range)]
        mode = "managed" if b.type == "resource" else "data"
        addr = resource_addr(b.labels[0], b.labels[1], mode)
        if not _VALID_NAME.match(b.labels[1]):
            return [_invalid_name("resource" if mode == "managed" else "data resource", b)]
        if addr in module.resources:
            prev = decl_range(module.resources[addr].range)
            what, kind = ("resource", "resource") if mode == "managed" else ("data", "data resource")
            return [error(f'Duplicate {what} "{addr.type}" configuration',
                          f'A {addr.type} {kind} named "{addr.name}" was already declared at {prev}. '
                          "Resource names must be unique per type in each module.", b.range.header())]
        lifecycle = Lifecycle()
        other_blocks = []
        for nb in b.blocks:
            if nb.type == "lifecycle":
                lifecycle = _lifecycle(nb, diags)
            elif nb.type in ("provisioner", "connection"):
                diags.append(error(f"Unsupported block type: {nb.type}",
                                   f"{nb.type} blocks are not supported by strata yet.", nb.range))
            else:
                other_blocks.append(nb)
        count = b.attributes.get("count")
        for_each = b.attributes.get("for_each")
        if count is not None and for_each is not None:
            diags.append(error('Invalid combination of "count" and "for_each"',
                               'The "count" and "for_each" meta-arguments are mutually-exclusive, only one '
                               "should be used to be explicit about the number of resources to be created.",
                               for_each.range))
        depends: list[tuple[ResourceAddr, E.Expr | None, int]] = []
        dep_attr = b.attributes.get("depends_on")
        if dep_attr is not None:
            depends = _depends_on(dep_attr, diags)
        provider_ref = None
        prov = b.attributes.get("provider")
        if prov is not None:
            t = E._traversal(prov.expr)
            if t is None or len(t[1]) > 1 or any(not isinstance(s, str) for s in t[1]):
                diags.append(error("Invalid provider reference", 'The "provider" argument must be a provider '
                                   "name, optionally with an alias, like aws.west.", prov.range))
            else:
                provider_ref = ".".join([t[0], *[str(s) for s in t[1]]])
        attrs = {k: v for k, v in b.attributes.items() if k not in _META_ARGS}
        module.resources[addr] = ResourceConfig(addr, b.range, attrs, tuple(other_blocks), count, for_each,
                                                tuple(depends), lifecycle, provider_ref, b.context())
    elif b.type == "variable":
        if len(b.labels) != 1:
            return [error("Missing name for variable", 'A variable block needs one label: its name.', b.range)]
        name = b.labels[0]
        if not _VALID_NAME.match(name):
            return [_invalid_name("variable", b)]
        if name in _RESERVED_VARIABLE_NAMES:
            return [error("Invalid variable name",
                          f'The variable name "{name}" is reserved due to its special meaning inside module '
                          "blocks.", b.range)]
        if name in module.variables:
            return [error("Duplicate variable declaration",
                          f'A variable named "{name}" was already declared at '
                          f"{decl_range(module.variables[name].range)}. Variable names must be unique within "
                          "a module.", b.range.header())]
        ty: Any = "dynamic"
        if "type" in b.attributes:
            try:
                ty = type_constraint(b.attributes["type"].expr)
            except ValueError as exc:
                diags.append(error("Invalid type specification", str(exc), b.attributes["type"].range))
        default = NO_DEFAULT
        if "default" in b.attributes:
            from engine.lang.convert import ConversionError, convert
            from engine.lang.evaluate import EvalError, evaluate

            try:
                default = convert(evaluate(b.attributes["default"].expr, _constant_scope()), ty)
            except EvalError as exc:
                diags.append(error("Invalid default value for variable",
                                   f"{exc.summary}: {exc.detail} (defaults must be constant)",
                                   b.attributes["default"].range))
            except ConversionError as exc:
                diags.append(error("Invalid default value for variable",
                                   f"This default value is not compatible with the variable's type "
                                   f"constraint: {exc.cty_text}", b.attributes["default"].range))
        validations, _ = _conditions(b, ("validation",), "a variable block", diags)
        for an, a in b.attributes.items():
            if an not in ("type", "default", "description", "sensitive", "nullable", "ephemeral"):
                diags.append(error("Unsupported argument",
                                   f'An argument named "{an}" is not expected in a variable block.', a.range))
        desc = b.attributes.get("description")
        sensitive = _literal_bool(b.attributes.get("sensitive"), diags)
        nullable = True if "nullable" not in b.attributes else _literal_bool(b.attributes["nullable"], diags)
        if not nullable and default is None:
            diags.append(error("Invalid default value for variable",
                               "A null default value is not valid when nullable=false.",
                               b.attributes["default"].range))
        module.variables[name] = VariableConfig(
            name, b.range, default,
            desc.expr.value if desc and isinstance(desc.expr, E.Literal) else "", sensitive, ty, nullable,
            validations)
    elif b.type == "locals":
        for name, a in b.attributes.items():
            if name in module.locals:
                diags.append(error("Duplicate local value definition",
                                   f'A local value named "{name}" was already defined at '
                                   f"{attribute_range(module.locals[name].range)}. Local value names must be "
                                   "unique within a module.", a.range))
                continue
            module.locals[name] = LocalConfig(name, a.expr, a.range)
    elif b.type == "output":
        if len(b.labels) != 1:
            return [error("Missing name for output", "An output block needs one label: its name.", b.range)]
        name = b.labels[0]
        if not _VALID_NAME.match(name):
            return [_invalid_name("output", b)]
        if name in module.outputs:
            return [error("Duplicate output definition",
                          f'An output named "{name}" was already defined at '
                          f"{decl_range(module.outputs[name].range)}. Output names must be unique within a "
                          "module.", b.range.header())]
        value = b.attributes.get("value")
        if value is None:
            return [error("Missing required argument", 'The argument "value" is required in an output block.',
                          b.range)]
        for an, a in b.attributes.items():
            if an not in ("value", "description", "sensitive", "depends_on", "ephemeral"):
                diags.append(error("Unsupported argument", f'An argument named "{an}" is not expected here.',
                                   a.range))
        sensitive = _literal_bool(b.attributes.get("sensitive"), diags)
        pre, _ = _conditions(b, ("precondition",), "an output block", diags)
        module.outputs[name] = OutputConfig(name, value.expr, b.range, sensitive, preconditions=pre)
    elif b.type == "provider":
        if len(b.labels) != 1:
            return [error("Missing name for provider", "A provider block needs one label: its name.", b.range)]
        alias_attr = b.attributes.get("alias")
        alias = None
        if alias_attr is not None and isinstance(alias_attr.expr, E.Literal):
            alias = str(alias_attr.expr.value)
        key = b.labels[0] + (f".{alias}" if alias else "")
        if key in module.providers:
            return [error("Duplicate provider configuration",
                          f'A provider configuration for "{key}" was already given at '
                          f"{module.providers[key].range}.", b.range)]
        attrs = {k: v for k, v in b.attributes.items() if k != "alias"}
        limits = None
        for nb in b.blocks:
            if nb.type == "strata":
                limits = _provider_limits(key, nb, diags)
            else:
                diags.append(error("Unsupported block type",
                                   f'Blocks of type "{nb.type}" are not expected in a provider block '
                                   '(only "strata" for concurrency settings).', nb.range))
        module.providers[key] = ProviderConfig(b.labels[0], alias, attrs, b.range, limits)
    elif b.type == "terraform":
        # required_providers is accepted: strata's providers are built in or installed
        rv = b.attributes.get("required_version")
        if rv is not None:
            diags.extend(_check_required_version(rv))
        diags.extend(read_backend_blocks([b])[1])  # where the state is: engine.backend.local reads it
    else:
        known = {"module", "moved", "import", "check", "removed"}
        if b.type in known:
            diags.append(error(f'Unsupported block type "{b.type}"',
                               f"{b.type} blocks are not supported by strata yet.", b.range))
        else:
            diags.append(error("Unsupported block type",
                               f'Blocks of type "{b.type}" are not expected here.', b.range))
    return diags


_PRIMITIVES = {"string": "string", "number": "number", "bool": "bool", "any": "dynamic"}


def type_constraint(e: E.Expr) -> Any:
    """A type expression (``list(string)``, ``object({a = number})``) as cty JSON type notation."""
    if isinstance(e, E.Var) and e.name in _PRIMITIVES:
        return _PRIMITIVES[e.name]
    if isinstance(e, E.Var) and e.name in ("list", "set", "map"):
        return [e.name, "dynamic"]  # the legacy bare keyword: list(any), as terraform still reads it
    if isinstance(e, E.Var) and e.name not in ("tuple", "object"):
        raise ValueError(f'The keyword "{e.name}" is not a valid type specification.')  # terraform's words
    if isinstance(e, E.Call):
        if e.name in ("list", "set", "map") and len(e.args) == 1:
            return [e.name, type_constraint(e.args[0])]
        if e.name == "tuple" and len(e.args) == 1 and isinstance(e.args[0], E.TupleExpr):
            return ["tuple", [type_constraint(x) for x in e.args[0].items]]
        if e.name == "object" and len(e.args) == 1 and isinstance(e.args[0], E.ObjectExpr):
            attrs: dict[str, Any] = {}
            optional: list[str] = []
            for k, v in e.args[0].items:
                key = k.value if isinstance(k, E.Literal) else getattr(k, "name", None)
                if not isinstance(key, str):
                    raise ValueError("Object type attribute names must be plain names.")
                if isinstance(v, E.Call) and v.name == "optional" and v.args:
                    if len(v.args) > 1:
                        raise ValueError(f'Default values in optional() ("{key}") are not supported by strata '
                                         "yet: leave out the default and use coalesce() where the value is used.")
                    optional.append(key)
                    v = v.args[0]
                attrs[key] = type_constraint(v)
            return ["object", attrs, optional] if optional else ["object", attrs]
    raise ValueError("A type specification is either a primitive type keyword (bool, number, string), "
                     "any, or a complex type constructor call, like list(string).")


def _provider_limits(key: str, b: Block, diags: list[Diagnostic]) -> Limits:
    """The ``strata { parallelism, rate_limit, type_parallelism, type_rate_limit, retries }`` block."""
    from engine.lang.evaluate import EvalError, evaluate

    limits = Limits()
    for name, a in b.attributes.items():
        try:
            v = evaluate(a.expr, _constant_scope())
        except EvalError as exc:
            diags.append(error("Invalid strata setting", f"{exc.summary}: {exc.detail} (must be constant)",
                               a.range))
            continue
        def positive(x: Any) -> bool:
            return isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0
        if name in ("parallelism", "rate_limit", "retries"):
            if not positive(v) and not (name == "retries" and v == 0):
                diags.append(error("Invalid strata setting", f'"{name}" must be a positive number.', a.range))
                continue
            if name == "parallelism":
                limits.provider_parallelism[key] = int(v)
            elif name == "rate_limit":
                limits.provider_rate[key] = float(v)
            else:
                limits.provider_retries[key] = int(v)
        elif name in ("type_parallelism", "type_rate_limit"):
            if not isinstance(v, dict) or not all(positive(x) for x in v.values()):
                diags.append(error("Invalid strata setting",
                                   f'"{name}" must be a map of resource type to a positive number.', a.range))
                continue
            for t, x in v.items():
                if name == "type_parallelism":
                    limits.type_parallelism[t] = int(x)
                else:
                    limits.type_rate[t] = float(x)
        else:
            diags.append(error("Unsupported argument",
                               f'"{name}" is not a strata setting; expected parallelism, rate_limit, '
                               "type_parallelism, type_rate_limit or retries.", a.range))
    return limits


def _lifecycle(b: Block, diags: list[Diagnostic]) -> Lifecycle:
    cbd = _literal_bool(b.attributes.get("create_before_destroy"), diags)
    prevent = _literal_bool(b.attributes.get("prevent_destroy"), diags)
    ignore: list[str] = []
    ignore_all = False
    ig = b.attributes.get("ignore_changes")
    if ig is not None:
        if isinstance(ig.expr, E.Var) and ig.expr.name == "all":
            ignore_all = True
        elif isinstance(ig.expr, E.TupleExpr):
            for item in ig.expr.items:
                if isinstance(item, E.Var):
                    ignore.append(item.name)
                elif isinstance(item, E.Literal) and isinstance(item.value, str):
                    ignore.append(item.value)
                else:
                    diags.append(error("Invalid ignore_changes", "Each item must be an attribute name.",
                                       SourceRange(ig.range.filename, item.line)))
        else:
            diags.append(error("Invalid ignore_changes",
                               'ignore_changes must be a list of attribute names, or "all".', ig.range))
    for name, a in b.attributes.items():
        if name not in ("create_before_destroy", "prevent_destroy", "ignore_changes", "replace_triggered_by"):
            diags.append(error("Unsupported argument",
                               f'An argument named "{name}" is not expected in a lifecycle block.', a.range))
        if name == "replace_triggered_by":
            diags.append(error("Unsupported argument", "replace_triggered_by is not supported by strata yet.",
                               a.range))
    pre, post = _conditions(b, ("precondition", "postcondition"), "a lifecycle block", diags)
    return Lifecycle(cbd, prevent, tuple(ignore), ignore_all, pre, post)


def _conditions(b: Block, kinds: tuple[str, ...], where: str, diags: list[Diagnostic]
                ) -> tuple[tuple[Condition, ...], tuple[Condition, ...]]:
    """The ``precondition`` (and ``postcondition``) blocks in ``b``; other blocks are mistakes."""
    found: dict[str, list[Condition]] = {k: [] for k in (*kinds, "precondition", "postcondition")}
    for nb in b.blocks:
        if nb.type not in kinds:
            diags.append(error("Unsupported block type", f'Blocks of type "{nb.type}" are not expected in '
                               f"{where}.", nb.range))
            continue
        cond, message = nb.attributes.get("condition"), nb.attributes.get("error_message")
        for name, a in (("condition", cond), ("error_message", message)):
            if a is None:
                diags.append(error("Missing required argument", f'The argument "{name}" is required, but no '
                                   "definition was found.", nb.range))
        for name, a in nb.attributes.items():
            if name not in ("condition", "error_message"):
                diags.append(error("Unsupported argument", f'An argument named "{name}" is not expected here.',
                                   a.range))
        if cond is not None and message is not None:
            found[nb.type].append(Condition(nb.type, cond.expr, message.expr, cond.range, nb.range))
    first = "validation" if "validation" in kinds else "precondition"
    return tuple(found[first]), tuple(found["postcondition"])


_VALID_NAME = re.compile(r"[^\W\d][\w-]*\Z")  # HCL's identifiers: letters (any script), digits, _ and -
# terraform's: what a module block's arguments are called
_RESERVED_VARIABLE_NAMES = frozenset({"count", "depends_on", "for_each", "lifecycle", "locals", "providers",
                                      "source", "version"})


def _invalid_name(kind: str, b: Block) -> Diagnostic:
    return error(f"Invalid {kind} name", "A name must start with a letter or underscore and may contain only "
                 "letters, digits, underscores, and dashes.", b.range)


def _check_required_version(a: Attribute) -> list[Diagnostic]:
    """``required_version``: the constraint must admit the terraform whose semantics strata has."""
    from engine.events.stream import TERRAFORM_COMPAT

    text = a.expr.value if isinstance(a.expr, E.Literal) else None
    if not isinstance(text, str):
        return [error("Invalid required_version", "required_version must be a string of version constraints, "
                      'like ">= 1.5, < 2.0".', a.range)]
    for part in text.split(","):
        if "-" in part.split("+")[0].strip().lstrip("=<>!~ v"):
            return [error("Invalid required_version constraint",
                          f"Prerelease version constraints are not supported: {part.strip()}. Remove the "
                          "prerelease information from the constraint. Prerelease versions of terraform will "
                          "match constraints using their version core only.", a.range)]
    try:
        ok = version_admits(text, TERRAFORM_COMPAT)
    except ValueError as exc:
        return [error("Invalid required_version constraint", f"{exc}.", a.range)]
    if ok:
        return []
    return [error("Unsupported Terraform Core version",
                  f"This configuration does not support Terraform version {TERRAFORM_COMPAT}. To proceed, either "
                  "choose another supported Terraform version or update this version constraint. Version "
                  "constraints are normally set for good reason, so updating the constraint may lead to other "
                  "errors or unexpected behavior.", a.range)]


_SEGMENTS = 6  # versions compare segment by segment, the missing ones 0 (go-version takes more than three)


def _version(text: str) -> tuple[tuple[int, ...], str, int]:
    """The segments (padded), the prerelease, and how many segments were given."""
    m = re.fullmatch(r"v?(\d+(?:\.\d+)*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?", text.strip())
    if m is None or m[1].count(".") >= _SEGMENTS:
        raise ValueError(f'"{text.strip()}" is not a version number')
    parts = [int(x) for x in m[1].split(".")]
    return tuple(parts + [0] * (_SEGMENTS - len(parts))), m[2] or "", len(parts)


def version_admits(constraints: str, version: str) -> bool:
    """Does ``version`` meet every comma-separated constraint (terraform's syntax: ``=``, ``!=``,
    ``>``, ``>=``, ``<``, ``<=``, ``~>``; no operator means ``=``)?"""
    v, v_pre, _ = _version(version)
    for part in constraints.split(","):
        m = re.fullmatch(r"\s*(=|!=|>=|<=|>|<|~>)?\s*(\S+)\s*", part)
        if m is None:
            raise ValueError(f'"{part.strip()}" is not a version constraint')
        op = m[1] or "="
        want, want_pre, given = _version(m[2])
        if op == "~>":  # the last given segment may grow: ~> 1.2 is 1.x from 1.2, ~> 1.2.3 is 1.2.x from 1.2.3
            i = max(given - 2, 0)
            upper = tuple(list(want[:i]) + [want[i] + 1] + [0] * (_SEGMENTS - i - 1))
            ok = want <= v < upper
        else:
            key, wkey = (v, v_pre == ""), (want, want_pre == "")
            same = key == wkey and v_pre == want_pre
            ok = {"=": same, "!=": not same, ">": key > wkey, ">=": key >= wkey, "<": key < wkey,
                  "<=": key <= wkey}[op]
        if not ok:
            return False
    return True


def _depends_on(a: Attribute, diags: list[Diagnostic]) -> list[tuple[ResourceAddr, E.Expr | None, int]]:
    out: list[tuple[ResourceAddr, E.Expr | None, int]] = []
    if not isinstance(a.expr, E.TupleExpr):
        diags.append(error("Invalid depends_on", "depends_on must be a list of resource references.", a.range))
        return out
    for item in a.expr.items:
        t = E._traversal(item)
        where = SourceRange(a.range.filename, item.line)
        if t is None or not t[1] or not isinstance(t[1][0], str):
            diags.append(error("Invalid depends_on reference",
                               "References in depends_on must be to a whole resource or resource instance, "
                               "like terraform_data.a or terraform_data.a[0].", where))
            continue
        root, steps = t
        if root in ("var", "local"):
            continue  # accepted, as terraform accepts it: no resource to wait for
        mode = "managed"
        if root == "data":
            if len(steps) < 2 or not isinstance(steps[1], str):
                diags.append(error("Invalid depends_on reference", "Expected data.TYPE.NAME.", where))
                continue
            root, steps, mode = str(steps[0]), steps[1:], "data"
        addr = resource_addr(root, str(steps[0]), mode)
        key = steps[1] if len(steps) > 1 and isinstance(steps[1], E.Expr) else None
        if len(steps) > 1 and key is None or len(steps) > 2:
            diags.append(error("Invalid depends_on reference",
                               "References in depends_on must be to a whole object, not an attribute.", where))
            continue
        out.append((addr, key, item.line))
    return out


class _NoResources:
    def has_resource(self, addr: ResourceAddr) -> bool:
        return False

    def is_expanded(self, addr: ResourceAddr) -> bool:
        return False

    def expansion(self, addr: ResourceAddr) -> str:
        return "single"

    def instance_value(self, addr: ResourceAddr, key: Any) -> Any:
        raise KeyError(addr)

    def resource_value(self, addr: ResourceAddr) -> Any:
        raise KeyError(addr)


def _constant_scope() -> Any:
    from engine.lang.evaluate import EvalError, Scope

    def no_locals(name: str, line: int) -> Any:
        raise EvalError("Variables not allowed", "Local values may not be used here.", line)

    return Scope({}, no_locals, _NoResources())


def expressions_of(rc: ResourceConfig) -> list[E.Expr]:
    """All expressions in a resource's arguments and nested blocks (not count/for_each)."""
    out: list[E.Expr] = [a.expr for a in rc.attributes.values()]
    stack = list(rc.blocks)
    while stack:
        blk = stack.pop()
        out.extend(a.expr for a in blk.attributes.values())
        stack.extend(blk.blocks)
    for c in (*rc.lifecycle.preconditions, *rc.lifecycle.postconditions):  # what they refer to comes first
        out.extend((c.condition, c.error_message))
    return out


_ANY_KEY = object()


def self_references(rc: ResourceConfig, exprs: list[E.Expr], key: Any = _ANY_KEY) -> list[int]:
    """The lines where ``exprs`` refer to ``rc``'s own resource, in order, each once: terraform's
    "Self-referential block". For the instance ``key``, a reference to another instance by a
    constant key (``a[1]`` from ``a[0]``) is not one; to the whole resource, or by a key known only
    when evaluated, it is."""
    addr = rc.addr
    lines: dict[int, None] = {}
    for e in exprs:
        for ref in E.references(e):
            if addr.mode == "data":
                found = ref.root == "data" and ref.step_name(0) == addr.type and ref.step_name(1) == addr.name
                rest = ref.steps[2:]
            else:
                found = ref.root == addr.type and ref.step_name(0) == addr.name
                rest = ref.steps[1:]
            if found and key is not _ANY_KEY and rest and isinstance(rest[0], E.Literal):
                found = rest[0].value == key or (isinstance(key, int) and rest[0].value == float(key))
            if found:
                lines[ref.line] = None
    return sorted(lines)


def self_reference_error(rc: ResourceConfig, line: int, addr: str) -> Diagnostic:
    return error("Self-referential block", f"Configuration for {addr} may not refer to itself.",
                 SourceRange(rc.range.filename, line))


def validate_references(module: Module) -> list[Diagnostic]:
    """Check every static reference points at something declared, with file:line for each mistake."""
    diags: list[Diagnostic] = []

    def check(e: E.Expr, filename: str, ctx: str, has_count: bool, has_each: bool,
              has_self: bool = False) -> None:
        for ref in E.references(e):
            where = SourceRange(filename, ref.line)
            name = ref.step_name(0)
            if ref.root == "var":
                if name is None or name not in module.variables:
                    diags.append(error("Reference to undeclared input variable",
                                       f'An input variable with the name "{name}" has not been declared. '
                                       f'This variable can be declared with a variable "{name}" {{}} block.',
                                       where))
            elif ref.root == "local":
                if name is None or name not in module.locals:
                    diags.append(error("Reference to undeclared local value",
                                       f'A local value with the name "{name}" has not been declared.', where))
            elif ref.root == "count":
                if not has_count:
                    diags.append(error('Reference to "count" in non-counted context', COUNT_OUTSIDE, where))
            elif ref.root == "each":
                if not has_each:
                    diags.append(error('Reference to "each" in context without for_each', EACH_OUTSIDE, where))
            elif ref.root == "self" and has_self:
                pass  # a postcondition's own object
            elif ref.root in ("path", "terraform", "self"):
                if ref.root != "path":
                    diags.append(error(f'Unsupported reference "{ref.root}"',
                                       f'References to "{ref.root}" are not supported by strata yet.', where))
            elif ref.root == "data":
                dname = ref.step_name(1)
                if name is None or dname is None:
                    diags.append(error("Invalid data resource reference",
                                       "A data resource reference needs a type and a name, as in "
                                       "data.TYPE.NAME.attribute.", where))
                elif ResourceAddr(name, dname, "data") not in module.resources:
                    diags.append(error("Reference to undeclared resource",
                                       f'A data resource "{name}" "{dname}" has not been declared in the root '
                                       "module.", where))
            elif ref.root == "module":
                diags.append(error("Reference to undeclared module",
                                   f'No module call named "{name}" is declared in the root module.', where))
            else:
                if name is None:
                    diags.append(error("Invalid reference", BARE_TYPE, where))
                elif ResourceAddr(ref.root, name) not in module.resources:
                    diags.append(error("Reference to undeclared resource",
                                       f'A managed resource "{ref.root}" "{name}" has not been declared in '
                                       "the root module.", where))

    for rc in module.resources.values():
        fn = rc.range.filename
        post = {id(x) for c in rc.lifecycle.postconditions for x in (c.condition, c.error_message)}
        for e in expressions_of(rc):
            check(e, fn, str(rc.addr), rc.count is not None, rc.for_each is not None, id(e) in post)
        for meta in (rc.count, rc.for_each):
            if meta is not None:
                check(meta.expr, fn, str(rc.addr), False, False)
        for addr, _key, line in rc.depends_on:
            if addr not in module.resources:
                diags.append(error("Reference to undeclared resource",
                                   f'A managed resource "{addr.type}" "{addr.name}" has not been declared in '
                                   "the root module.", SourceRange(fn, line)))
    for lc in module.locals.values():
        check(lc.expr, lc.range.filename, f"local.{lc.name}", False, False)
    for oc in module.outputs.values():
        check(oc.expr, oc.range.filename, f"output.{oc.name}", False, False)
    return diags


def resource_graph(module: Module) -> Any:
    """Resources and the resources each one refers to (through locals too), for ``strata graph``."""
    from engine.graph.dag import Graph

    g: Graph[Any] = Graph()
    for addr in module.resources:
        g.add(addr)
    local_refs: dict[str, set[Any]] = {}

    def refs_of(e: E.Expr, seen: frozenset[str] = frozenset()) -> set[Any]:
        out: set[Any] = set()
        for ref in E.references(e):
            name = ref.step_name(0)
            if name is None:
                continue
            if ref.root == "local" and name in module.locals and name not in seen:
                if name not in local_refs:
                    local_refs[name] = refs_of(module.locals[name].expr, seen | {name})
                out |= local_refs[name]
            elif ref.root == "data" and ref.step_name(1):
                out.add(resource_addr(name, str(ref.step_name(1)), "data"))
            elif ref.root not in ("var", "local", "count", "each", "path", "terraform", "self", "module"):
                out.add(resource_addr(ref.root, name))
        return out

    for rc in module.resources.values():
        targets: set[Any] = set()
        for e in expressions_of(rc):
            targets |= refs_of(e)
        for meta in (rc.count, rc.for_each):
            if meta is not None:
                targets |= refs_of(meta.expr)
        targets |= {addr for addr, _k, _l in rc.depends_on}
        for t in targets:
            if t in g and t != rc.addr:
                g.add_edge(rc.addr, t)
    return g

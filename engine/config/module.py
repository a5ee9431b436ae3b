"""A root module loaded from a directory's ``.tf`` and ``.tf.json`` files.

Loading collects every diagnostic it can (all files, all blocks) before
raising, so a user sees all their mistakes at once, each with ``file:line``.
Each top-level block is decoded here; the parts of a block that need more
(lifecycle, conditions, ``depends_on``, types, version constraints) have
decoders of their own, and the references between blocks are checked once
every file is read.
"""

from __future__ import annotations

import gc
import os
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import engine
from engine.addrs import ResourceAddr, resource_addr
from engine.config.backend import read_backend_blocks
from engine.config.checks import decode_check
from engine.config.constants import _constant_scope
from engine.config.decode import (
    TypeSpecError,
    _conditions,
    _depends_on,
    _lifecycle,
    _literal_bool,
    _provider_limits,
    depends_on_modules,
    depends_on_written,
    type_and_defaults,
)
from engine.config.model import (
    NO_DEFAULT,
    Lifecycle,
    LocalConfig,
    Module,
    OutputConfig,
    ProviderConfig,
    ResourceConfig,
    VariableConfig,
)
from engine.config.module_calls import (
    check_calls,
    configuration_aliases,
    decode_call,
    installed_dir,
    is_local_source,
)
from engine.config.provisioners import decode_resource_blocks
from engine.config.refactoring import decode_import, decode_moved, decode_removed
from engine.config.references import validate_references
from engine.config.requirements import read_required_providers
from engine.config.versions import _check_required_version
from engine.diagnostics import (
    Diagnostic,
    DiagnosticsError,
    SourceRange,
    attribute_range,
    decl_range,
    error,
    errors_of,
)
from engine.lang import expr as E
from engine.lang.defaults import apply_defaults
from engine.lang.hcl import Block, parse_hcl

_META_ARGS = {"count", "for_each", "depends_on", "provider", "lifecycle"}


def config_files(directory: str) -> list[str]:
    try:
        names = sorted(os.listdir(directory))
    except OSError as exc:
        raise DiagnosticsError([error("Failed to read configuration directory",
                                      f"{directory}: {exc.strerror}")]) from None
    return [os.path.join(directory, n) for n in names
            if (n.endswith(".tf") or n.endswith(".tf.json")) and not n.startswith(".")]


def load_module(directory: str) -> Module:
    """Load every configuration file in ``directory``, and the modules its ``module`` blocks call
    (local sources), to any depth; raise :class:`DiagnosticsError` on mistakes.

    The collector is paused while it loads, and what it built is then frozen (moved out of the
    collector's sight): a configuration is a tree of millions of small objects, acyclic, that live
    for the whole run, and collections that scanned them while they were built took 8% of
    validating 20,000 resource blocks, freeing nothing (when the ``strata`` program owns the
    process: :data:`engine.program_owns_process`)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _load_module(directory)
    finally:
        if enabled:
            if engine.program_owns_process:  # in a caller's process, its garbage would be frozen too
                gc.freeze()
            gc.enable()


def _load_module(directory: str) -> Module:
    diags: list[Diagnostic] = []
    module = _load_one(directory, directory, (), diags)
    if module is not None and not errors_of(diags):
        for m in module.tree():
            diags.extend(m.with_context(check_calls(m)))
    errors = errors_of(diags)
    if errors:
        raise DiagnosticsError(errors)
    assert module is not None
    return module


def _load_one(root: str, directory: str, path: tuple[str, ...], diags: list[Diagnostic]) -> Module | None:
    """The module in ``directory`` (``path``: the calls that lead to it), its own mistakes and its
    children's added to ``diags``; None when it has no configuration files."""
    files = config_files(directory)
    mdiags: list[Diagnostic] = []
    module = Module(directory if not path else os.path.relpath(directory, root), path=path)
    if not files:
        if not path:
            raise DiagnosticsError([error("No configuration files", "There are no .tf or .tf.json files in "
                                          f"{os.path.abspath(directory)}.")])
        return None
    for file in files:
        _read_file(module, root, file, mdiags)
    diags.extend(module.with_context(errors_of(mdiags)))
    uninstalled = False  # references to a call init has yet to install are not mistakes of their own
    for call in list(module.calls.values()):
        if is_local_source(call.source):
            child_dir = os.path.normpath(os.path.join(directory, call.source.replace("\\", "/")))
        else:
            installed, idiags = installed_dir(root, path, call)
            diags.extend(module.with_context(idiags))
            if installed is None:
                del module.calls[call.name]
                uninstalled = True
                continue
            child_dir = installed
        if not os.path.isdir(child_dir):
            diags.append(error("Unreadable module directory",
                               f"The directory {os.path.relpath(child_dir, root)} does not exist or cannot be "
                               "read.", call.range))
            del module.calls[call.name]
            continue
        child = _load_one(root, child_dir, (*path, call.name), diags)
        if child is None:
            diags.append(error("No configuration files", "There are no .tf or .tf.json files in "
                               f"{os.path.relpath(child_dir, root)}.", call.range))
            del module.calls[call.name]
            continue
        module.calls[call.name] = replace(call, module=child)
    if not mdiags and not uninstalled:
        diags.extend(module.with_context(errors_of(validate_references(module))))
    return module


def _read_file(module: Module, root: str, path: str, diags: list[Diagnostic]) -> None:
    """One configuration file's blocks into ``module``."""
    display = os.path.relpath(path, root)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        diags.append(error("Failed to read file", str(exc), SourceRange(display, 1)))
        return
    if "applying" in text:
        module.mentions_applying = True
    try:
        if path.endswith(".json"):
            from engine.lang.hcl_json import parse_json  # .tf.json files only

            blocks = parse_json(text, display)
        else:
            blocks = parse_hcl(text, display)
    except DiagnosticsError as exc:
        diags.extend(exc.diagnostics)
        return
    module.blocks[display] = [(b.range.line, b.end_line, b.context()) for b in blocks if b.end_line]
    for b in blocks:
        diags.extend(_add_block(module, b))


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
        provisioners, connection, nested, pdiags = decode_resource_blocks(b.blocks, mode == "managed")
        diags.extend(pdiags)
        for nb in nested:
            if nb.type == "lifecycle":
                lifecycle = _lifecycle(nb, diags)
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
        module.resources[addr] = ResourceConfig(
            addr, b.range, attrs, tuple(other_blocks), count, for_each, tuple(depends),
            depends_on_modules(dep_attr) if dep_attr is not None else (), lifecycle, provider_ref, b.context(),
            provisioners, connection, depends_on_written(dep_attr))
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
        defaults = None
        if "type" in b.attributes:
            try:
                ty, defaults = type_and_defaults(b.attributes["type"].expr)
            except TypeSpecError as exc:
                where = b.attributes["type"].range
                diags.append(error(exc.summary, str(exc), where if exc.line is None
                                   else SourceRange(where.filename, exc.line)))
        default = NO_DEFAULT
        if "default" in b.attributes:
            from engine.lang.convert import ConversionError, convert
            from engine.lang.evaluate import EvalError, evaluate

            try:
                default = convert(apply_defaults(evaluate(b.attributes["default"].expr, _constant_scope()),
                                                 defaults), ty)
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
            validations, defaults)
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
        deps: list[tuple[ResourceAddr, E.Expr | None, int]] = []
        dep_mods: tuple[str, ...] = ()
        if "depends_on" in b.attributes:
            deps = _depends_on(b.attributes["depends_on"], diags)
            dep_mods = depends_on_modules(b.attributes["depends_on"])
        module.outputs[name] = OutputConfig(name, value.expr, b.range, sensitive, preconditions=pre,
                                            depends_on=tuple(deps), depends_on_modules=dep_mods,
                                            depends_on_written=depends_on_written(b.attributes.get("depends_on")))
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
        nested = []
        for nb in b.blocks:
            if nb.type == "strata":
                limits = _provider_limits(key, nb, diags)
            else:  # the provider's schema says which it takes (configure_providers)
                nested.append(nb)
        module.providers[key] = ProviderConfig(b.labels[0], alias, attrs, b.range, limits, tuple(nested))
    elif b.type == "terraform":
        for nb in b.blocks:
            if nb.type == "required_providers":
                diags.extend(read_required_providers(module, nb))
        rv = b.attributes.get("required_version")
        if rv is not None:
            diags.extend(_check_required_version(rv))
        diags.extend(read_backend_blocks([b])[1])  # where the state is: engine.backend.local reads it
        aliases = configuration_aliases(b)
        if aliases:
            module.configuration_aliases = module.configuration_aliases | aliases
    elif b.type == "module":
        return decode_call(module, b)
    elif b.type in _REFACTORING:
        got, bdiags = _REFACTORING[b.type](b, module.path)
        if got is not None:
            getattr(module, "imports" if b.type == "import" else b.type).append(got)
        diags.extend(bdiags)
    elif b.type == "check":
        return _add_check(module, b)
    else:
        diags.append(error("Unsupported block type",
                           f'Blocks of type "{b.type}" are not expected here.', b.range))
    return diags


def _add_check(module: Module, b: Block) -> list[Diagnostic]:
    """A check block, and the data source scoped to it (one of the module's data sources: names
    are unique among both)."""
    cc, data, diags = decode_check(b)
    if cc is None:
        return diags
    if data is not None and len(data.labels) == 2:
        addr = resource_addr(data.labels[0], data.labels[1], "data")
        prev = module.resources.get(addr)
        if prev is not None:
            diags.append(error(f'Duplicate data "{addr.type}" configuration',
                               f'A {addr.type} data resource named "{addr.name}" was already declared at '
                               f"{decl_range(prev.range)}. Resource names must be unique per type in each module, "
                               "including within check blocks.",
                               SourceRange(data.range.filename, data.range.line, data.range.column, data.range.byte)))
        else:
            got = _add_block(module, data)
            diags.extend(got)
            if addr in module.resources:
                module.resources[addr] = replace(module.resources[addr], check=cc.name, context=cc.context)
                cc = replace(cc, data=addr)
    if cc.name in module.checks:
        diags.append(error(f'Duplicate check "{cc.name}" configuration',
                           f'A check block named "{cc.name}" was already declared at '
                           f"{decl_range(module.checks[cc.name].range)}. Check blocks must be unique within each "
                           "module.", b.range.header()))
    elif not errors_of(diags):
        module.checks[cc.name] = cc
    return diags


_REFACTORING: dict[str, Callable[[Block, tuple[str, ...]], tuple[Any, list[Diagnostic]]]] = {
    "moved": decode_moved, "removed": decode_removed, "import": decode_import}
_VALID_NAME = re.compile(r"[^\W\d][\w-]*\Z")  # HCL's identifiers: letters (any script), digits, _ and -
# terraform's: what a module block's arguments are called
_RESERVED_VARIABLE_NAMES = frozenset({"count", "depends_on", "for_each", "lifecycle", "locals", "providers",
                                      "source", "version"})


def _invalid_name(kind: str, b: Block) -> Diagnostic:
    return error(f"Invalid {kind} name", "A name must start with a letter or underscore and may contain only "
                 "letters, digits, underscores, and dashes.", b.range)

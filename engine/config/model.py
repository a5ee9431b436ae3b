"""The configuration model: a root module, the blocks it declares, and the modules its ``module``
blocks call (each a :class:`Module` of its own, to any depth), as values.

A :class:`Module` is built by :func:`engine.config.module.load_module` and
read by every later stage; nothing changes it once loading returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from engine.addrs import ROOT, ModulePath, ProviderSource, ResourceAddr, resource_addr
from engine.config.provisioners import Provisioner
from engine.config.refactoring import ImportBlock, MovedBlock, RemovedBlock
from engine.diagnostics import Diagnostic, SourceRange
from engine.frozen import frozen
from engine.graph.limits import Limits
from engine.lang import expr as E
from engine.lang.defaults import TypeDefaults
from engine.lang.hcl import Attribute, Block

NO_DEFAULT: Any = object()


@frozen
class Condition:
    """A ``precondition`` or ``postcondition`` block: ``condition`` must be true, else the plan (or
    apply) fails with ``error_message``."""

    kind: str  # "precondition" | "postcondition" | "validation"
    condition: E.Expr
    error_message: E.Expr
    range: SourceRange  # the condition argument's
    block: SourceRange | None = None  # the block's own


IgnorePath = tuple[tuple[str, Any], ...]
"""A path in ``ignore_changes``: ``("attr", name)`` and ``("index", key)`` steps, as in
``access_config[0].nat_ip`` or ``tags["Name"]``."""


@frozen
class Lifecycle:
    create_before_destroy: bool = False
    prevent_destroy: bool = False
    ignore_changes: tuple[IgnorePath, ...] = ()
    ignore_all_changes: bool = False
    preconditions: tuple[Condition, ...] = ()
    postconditions: tuple[Condition, ...] = ()
    replace_triggered_by: tuple[E.Expr, ...] = ()
    """Each item refers to one resource, instance or attribute of one (checked when loaded:
    :mod:`engine.config.replace_triggers`); its planned change replaces the instance."""


@frozen
class ResourceConfig:
    addr: ResourceAddr
    range: SourceRange
    attributes: dict[str, Attribute]
    blocks: tuple[Block, ...]
    count: Attribute | None = None
    for_each: Attribute | None = None
    depends_on: tuple[tuple[ResourceAddr, E.Expr | None, int], ...] = ()
    depends_on_modules: tuple[str, ...] = ()  # module.x in depends_on: every instance of it
    lifecycle: Lifecycle = Lifecycle()
    provider_ref: str | None = None  # "aws" or "aws.west" when set with `provider =`
    context: str | None = None  # the block as terraform names it in a diagnostic: resource "T" "N"
    provisioners: tuple[Provisioner, ...] = ()  # in the order written (engine.config.provisioners)
    connection: Block | None = None  # the resource's connection block: accepted, unused (no remote provisioner)
    depends_on_written: tuple[E.Expr, ...] = ()
    """The ``depends_on`` items as written, in order (resources and modules together: what the
    configuration JSON lists)."""
    check: str | None = None  # the check block a data source is scoped to (engine.config.checks)

    def provisioners_for(self, when: str) -> tuple[Provisioner, ...]:
        """Its ``create``-time or ``destroy``-time provisioners, in the order written."""
        return tuple(p for p in self.provisioners if p.when == when) if self.provisioners else ()

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


_RESOURCE_FIELDS = tuple(f.name for f in fields(ResourceConfig))


@frozen
class CheckConfig:
    """A ``check`` block: its assertions (conditions of kind ``assert``), and the address of the
    data source scoped to it, if it has one (that one is in :attr:`Module.resources`, its
    ``check`` this block's name)."""

    name: str
    range: SourceRange
    asserts: tuple[Condition, ...]
    data: ResourceAddr | None = None
    context: str = ""  # the block as terraform names it in a diagnostic: check "NAME"


@frozen
class VariableConfig:
    name: str
    range: SourceRange
    default: Any = NO_DEFAULT
    description: str = ""
    sensitive: bool = False
    type: Any = "dynamic"  # cty JSON type notation; "dynamic" when the variable has no type constraint
    nullable: bool = True
    validations: tuple[Condition, ...] = ()
    defaults: TypeDefaults | None = None  # of the type's optional(TYPE, DEFAULT) attributes


@frozen
class LocalConfig:
    name: str
    expr: E.Expr
    range: SourceRange


@frozen
class OutputConfig:
    name: str
    expr: E.Expr
    range: SourceRange
    sensitive: bool = False
    description: str = ""
    preconditions: tuple[Condition, ...] = ()
    depends_on: tuple[tuple[ResourceAddr, E.Expr | None, int], ...] = ()
    depends_on_modules: tuple[str, ...] = ()
    depends_on_written: tuple[E.Expr, ...] = ()  # as ResourceConfig's


@frozen
class ModuleCall:
    """A ``module "NAME" { source = ... }`` block: the child ``module`` it loads (from a local path,
    or from where ``init`` installed it), its meta-arguments, and its other arguments (the child's
    input variables, by name).
    ``providers``: the child's provider key -> the caller's (``{ aws = aws.west }``)."""

    name: str
    source: str
    range: SourceRange
    module: Module
    arguments: dict[str, Attribute]
    count: Attribute | None = None
    for_each: Attribute | None = None
    depends_on: tuple[tuple[ResourceAddr, E.Expr | None, int], ...] = ()
    depends_on_modules: tuple[str, ...] = ()
    providers: dict[str, str] = field(default_factory=dict)
    version: str | None = None
    """The ``version`` constraint as written (a registry source's)."""
    source_range: SourceRange | None = None
    depends_on_written: tuple[E.Expr, ...] = ()  # as ResourceConfig's

    @property
    def kind(self) -> str:
        return "count" if self.count is not None else ("for_each" if self.for_each is not None else "single")


@frozen
class ProviderConfig:
    name: str
    alias: str | None
    attributes: dict[str, Attribute]
    range: SourceRange
    limits: Limits | None = None  # from a nested ``strata { ... }`` block
    blocks: tuple[Block, ...] = ()
    """The nested blocks the provider's schema declares (aws ``endpoints {}``), checked against
    it when the provider is configured."""

    @property
    def key(self) -> str:
        return self.name + (f".{self.alias}" if self.alias else "")


@frozen
class RequiredProvider:
    """A ``required_providers`` entry: the local name, the provider's source (given, or implied
    from the name) and its version constraints (empty: any version)."""

    name: str
    source: ProviderSource
    constraints: tuple[Any, ...]  # engine.install.versions.Constraint
    range: SourceRange
    explicit_source: bool = True


@dataclass
class Module:
    """A module: the root (``path`` ``()``) or one a ``module`` block calls. Mutable only while
    loading. The addresses of a called module's resources are within the module (no module
    path): :meth:`resource_at` gives one as an instance of the module has it."""

    directory: str
    resources: dict[ResourceAddr, ResourceConfig] = field(default_factory=dict)
    variables: dict[str, VariableConfig] = field(default_factory=dict)
    locals: dict[str, LocalConfig] = field(default_factory=dict)
    outputs: dict[str, OutputConfig] = field(default_factory=dict)
    providers: dict[str, ProviderConfig] = field(default_factory=dict)
    required_providers: dict[str, RequiredProvider] = field(default_factory=dict)
    blocks: dict[str, list[tuple[int, int, str]]] = field(default_factory=dict)
    """Per file, each top-level block's first and last line and its header (``resource "T" "N"``)."""
    calls: dict[str, ModuleCall] = field(default_factory=dict)
    path: tuple[str, ...] = ()
    """The module calls from the root to this module (its configuration path; the root's is ``()``)."""
    provider_map: dict[str, str] = field(default_factory=dict)
    """This module's provider keys -> the root's configuration serving it (empty in the root)."""
    configuration_aliases: frozenset[str] = frozenset()
    mentions_applying: bool = False
    """A file of it has the word ``applying``: only then may it use ``terraform.applying``
    (:func:`engine.lang.ephemerality.refusals` looks no further otherwise)."""
    moved: list[MovedBlock] = field(default_factory=list)
    removed: list[RemovedBlock] = field(default_factory=list)
    imports: list[ImportBlock] = field(default_factory=list)
    """The refactoring blocks (:mod:`engine.config.refactoring`), in the order written."""
    checks: dict[str, CheckConfig] = field(default_factory=dict)
    """The ``check`` blocks, in the order written."""
    _resource_cache: dict[ResourceAddr, ResourceConfig] = field(default_factory=dict)
    _template_cache: dict[tuple[object, ...], ResourceConfig] = field(default_factory=dict)

    @property
    def display_path(self) -> str:
        return ".".join(f"module.{n}" for n in self.path)

    def descendant(self, path: tuple[str, ...]) -> Module | None:
        """The module at configuration path ``path`` under this one; None when there is none."""
        m: Module | None = self
        for name in path:
            call = m.calls.get(name) if m is not None else None
            if call is None:
                return None
            m = call.module
        return m

    def tree(self) -> list[Module]:
        """This module and every module under it, parents before children."""
        out = [self]
        i = 0
        while i < len(out):
            out.extend(c.module for c in out[i].calls.values())
            i += 1
        return out

    def root_provider_key(self, key: str) -> str:
        """The root's provider configuration that serves this module's ``key``."""
        return self.provider_map.get(key, key) if self.path else key

    def resource_at(self, addr: ResourceAddr) -> ResourceConfig | None:
        """The configuration of the resource ``addr`` (its module path included), as seen from the
        root: its ``addr`` the one asked for, its provider the root's configuration serving it.
        None when the configuration does not have it. Cached: one object per address."""
        if addr.module is ROOT or not addr.module.steps:
            return self.resources.get(addr)
        got = self._resource_cache.get(addr)
        if got is not None:
            return got
        # one configuration per resource of a module, and a copy of it per instance of the module
        # (hot: 100k resources in 1,000 module instances; dataclasses.replace was a tenth of a plan)
        steps = addr.module.steps
        key = (tuple(n for n, _k in steps), addr.type, addr.name, addr.mode)
        template = self._template_cache.get(key)
        if template is None:
            child = self.descendant(key[0])
            rc = child.resources.get(resource_addr(addr.type, addr.name, addr.mode)) if child is not None else None
            if rc is None or child is None:
                return None
            template = replace(rc, provider_ref=child.root_provider_key(rc.provider_key))
            self._template_cache[key] = template
        got = object.__new__(ResourceConfig)
        for name in _RESOURCE_FIELDS:
            object.__setattr__(got, name, getattr(template, name))
        object.__setattr__(got, "addr", addr)
        self._resource_cache[addr] = got
        return got

    def call_of(self, path: ModulePath) -> ModuleCall | None:
        """The module call that makes the module instance ``path``."""
        if not path.steps:
            return None
        parent = self.descendant(tuple(n for n, _k in path.steps[:-1]))
        return parent.calls.get(path.steps[-1][0]) if parent is not None else None

    def context_of(self, subject: SourceRange | None) -> str | None:
        """The top-level block a position is in, as terraform names it in a diagnostic; None when
        no block, or more than one, spans its line (blocks on one line: positions are lines here)."""
        if subject is None:
            return None
        blocks = self.blocks.get(subject.filename)
        if blocks is None:  # a file of a module this one calls
            blocks = next((m.blocks[subject.filename] for m in self.tree() if subject.filename in m.blocks), [])
        found = [header for first, last, header in blocks if first <= subject.line <= last]
        return found[0] if len(found) == 1 else None

    def with_context(self, diags: list[Diagnostic]) -> list[Diagnostic]:
        """``diags`` with the block each one points into, where it names no resource of its own."""
        return [d if d.context or d.address or (d.subject is not None and d.subject.decl)
                or (ctx := self.context_of(d.subject)) is None
                else replace(d, context=ctx) for d in diags]

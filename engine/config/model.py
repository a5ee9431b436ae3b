"""The configuration model: a root module and the blocks it declares, as values.

A :class:`Module` is built by :func:`engine.config.module.load_module` and
read by every later stage; nothing changes it once loading returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from engine.addrs import ResourceAddr
from engine.diagnostics import Diagnostic, SourceRange
from engine.graph.limits import Limits
from engine.lang import expr as E
from engine.lang.hcl import Attribute, Block

NO_DEFAULT: Any = object()


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
    blocks: tuple[Block, ...] = ()
    """The nested blocks the provider's schema declares (aws ``endpoints {}``), checked against
    it when the provider is configured."""

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

"""The refactoring blocks of a module, decoded: ``moved``, ``removed`` and ``import``.

An endpoint (``from``, ``to``) is a static address written as a traversal, relative to the module
the block is in: ``terraform_data.a``, ``terraform_data.a[0]``, ``module.m``, ``module.m["k"]``,
``module.m.terraform_data.a``. What a block does to the state is planning's
(:mod:`engine.planning.moves`, :mod:`engine.planning.forget`, :mod:`engine.planning.imports`);
here only what the block says, with terraform's errors for what it cannot say.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.addrs import InstanceAddr, InstanceKey, ModulePath, format_key, resource_addr
from engine.config.provisioners import Provisioner, decode_resource_blocks
from engine.diagnostics import Diagnostic, SourceRange, error
from engine.lang import expr as E
from engine.lang.hcl import Attribute, Block

_STATIC_ONLY = ("A single static variable reference is required: only attribute access and indexing with "
                "constant keys. No calculations, function calls, template expressions, etc are allowed here.")


@dataclass(frozen=True, slots=True)
class Endpoint:
    """An address in a refactoring block, relative to its module. ``resource`` is ``(mode, type,
    name)``, None for a module endpoint; ``keyed``: the last step (the resource, or the last module
    call) names one instance (``key``; None for a single-instance one), else every instance.

    Invariant: a module endpoint has at least one step."""

    steps: tuple[tuple[str, InstanceKey], ...]
    resource: tuple[str, str, str] | None
    key: InstanceKey
    keyed: bool

    @property
    def is_module(self) -> bool:
        return self.resource is None

    def module_in(self, at: ModulePath) -> ModulePath:
        """The module instance this endpoint's steps lead to from ``at`` (a module endpoint's own
        last step included: for a call, with the key None)."""
        return ModulePath(at.steps + self.steps)

    def instance_in(self, at: ModulePath) -> InstanceAddr:
        """A resource endpoint's (single) instance, from the module instance ``at``."""
        assert self.resource is not None
        mode, type_, name = self.resource
        return resource_addr(type_, name, mode, self.module_in(at)).instance(self.key)

    def __str__(self) -> str:
        mods = [f"module.{n}{format_key(k)}" for n, k in self.steps]
        if self.resource is None:
            if not self.keyed:
                mods[-1] = f"module.{self.steps[-1][0]}"
            return ".".join(mods)
        mode, type_, name = self.resource
        res = ("data." if mode == "data" else "") + f"{type_}.{name}"
        if self.keyed:
            res += format_key(self.key)
        return ".".join([*mods, res])

    def cycle_text(self) -> str:
        """As terraform lists it in a cycle: a whole resource or call with ``[*]``."""
        return str(self) if self.keyed else f"{self}[*]"


@dataclass(frozen=True, slots=True)
class MovedBlock:
    """``moved { from = ... to = ... }``: ``from`` and ``to`` unified (both resources or both
    modules, both keyed or neither)."""

    from_: Endpoint
    to: Endpoint
    range: SourceRange
    module_path: tuple[str, ...] = ()
    """The configuration path of the module the block is in."""


@dataclass(frozen=True, slots=True)
class RemovedBlock:
    """``removed { from = ... lifecycle { destroy = ... } }``: ``from`` is a resource or a module
    call, never one instance."""

    from_: Endpoint
    destroy: bool
    range: SourceRange
    module_path: tuple[str, ...] = ()
    provisioners: tuple[Provisioner, ...] = ()
    """Destroy-time provisioners (of a resource's removed block), run as it is destroyed."""


@dataclass(frozen=True, slots=True)
class ImportBlock:
    """``import { to = ... id = ... }`` (the root module's only). ``id`` and ``for_each`` are
    expressions evaluated when planning; ``to`` keeps its key expression for a for_each."""

    to: Endpoint
    id: E.Expr
    range: SourceRange
    for_each: E.Expr | None = None
    to_key: E.Expr | None = None
    """With for_each: the expression of the key in ``to`` (``terraform_data.a[each.key]``)."""
    provider: str | None = None
    to_range: SourceRange | None = None
    """Where ``to`` is written (what terraform's errors about the target point at)."""


def _endpoint(attr: Attribute, allow_key_expr: bool = False
              ) -> tuple[Endpoint | None, E.Expr | None, Diagnostic | None]:
    """The endpoint ``attr`` writes (and, when ``allow_key_expr``, a key that is an expression)."""
    parts: list[tuple[str, E.Expr | None]] = []  # names and their keys, in order
    key_expr: E.Expr | None = None
    e = attr.expr
    bad = error("Invalid expression", _STATIC_ONLY, attr.range)
    while True:
        if isinstance(e, E.Index):
            parts.insert(0, ("[", e.key))
            e = e.obj
        elif isinstance(e, E.GetAttr):
            parts.insert(0, (e.name, None))
            e = e.obj
        elif isinstance(e, E.Var):
            parts.insert(0, (e.name, None))
            break
        else:
            return None, None, bad
    # fold keys onto the names before them
    names: list[tuple[str, E.Expr | None, bool]] = []
    for name, k in parts:
        if name == "[":
            if not names or names[-1][2]:
                return None, None, bad
            names[-1] = (names[-1][0], k, True)
        else:
            names.append((name, None, False))
    steps: list[tuple[str, InstanceKey, bool]] = []
    i = 0

    def key_of(k: E.Expr | None) -> tuple[InstanceKey, bool]:
        nonlocal key_expr
        if k is None:
            return None, True
        if isinstance(k, E.Literal) and isinstance(k.value, (str, int)) and not isinstance(k.value, bool):
            return k.value, True
        if isinstance(k, E.Template) and all(isinstance(p, str) for p in k.parts):
            return "".join(str(p) for p in k.parts), True
        if allow_key_expr:
            key_expr = k
            return None, True
        return None, False

    while i < len(names) and names[i][0] == "module":
        if i + 1 >= len(names) or names[i][2]:
            return None, None, bad
        call, kexpr, keyed = names[i + 1]
        key, ok = key_of(kexpr)
        if not ok:
            return None, None, bad
        steps.append((call, key, keyed))
        i += 2
    rest = names[i:]
    if not rest:
        if not steps:
            return None, None, bad
        last_keyed = steps[-1][2]
        return Endpoint(tuple((n, k) for n, k, _ in steps), None, steps[-1][1], last_keyed), key_expr, None
    mode = "managed"
    if rest[0][0] == "data" and not rest[0][2]:
        mode, rest = "data", rest[1:]
    if len(rest) != 2 or rest[0][2]:
        return None, None, bad
    (type_, _, _), (name, kexpr, keyed) = rest
    key, ok = key_of(kexpr)
    if not ok:
        return None, None, bad
    return Endpoint(tuple((n, k) for n, k, _ in steps), (mode, type_, name), key, keyed), key_expr, None


def _unify(a: Endpoint, b: Endpoint) -> tuple[Endpoint, Endpoint]:
    """terraform's UnifyMoveEndpoints: a whole resource (or call) moved to or from one instance is
    its single instance."""
    if a.keyed != b.keyed:
        a = Endpoint(a.steps, a.resource, a.key, True)
        b = Endpoint(b.steps, b.resource, b.key, True)
    return a, b


def _required(b: Block, name: str) -> tuple[Attribute | None, Diagnostic | None]:
    attr = b.attributes.get(name)
    if attr is None:
        return None, error("Missing required argument",
                           f'The argument "{name}" is required, but no definition was found.', b.range.header())
    return attr, None


def _unexpected(b: Block, allowed: set[str], blocks: set[str]) -> list[Diagnostic]:
    out = [error("Unsupported argument", f'An argument named "{n}" is not expected here.', a.range)
           for n, a in b.attributes.items() if n not in allowed]
    out += [error("Unsupported block type", f'Blocks of type "{nb.type}" are not expected here.', nb.range)
            for nb in b.blocks if nb.type not in blocks]
    return out


def decode_moved(b: Block, module_path: tuple[str, ...]) -> tuple[MovedBlock | None, list[Diagnostic]]:
    diags = _unexpected(b, {"from", "to"}, set())
    ends: list[Endpoint] = []
    for name in ("from", "to"):
        attr, d = _required(b, name)
        if d is not None or attr is None:
            diags.append(d or error("Missing required argument"))
            continue
        ep, _k, d = _endpoint(attr)
        if d is not None or ep is None:
            diags.append(d or error("Invalid expression", _STATIC_ONLY, attr.range))
            continue
        ends.append(ep)
    if diags or len(ends) != 2:
        return None, diags
    f, t = ends
    if f.is_module != t.is_module:
        return None, [error('Invalid "moved" addresses', 'The "from" and "to" addresses must either both refer '
                            "to resources or both refer to modules.", b.range.header())]
    if f.resource is not None and t.resource is not None and f.resource[0] != t.resource[0]:
        return None, [error('Invalid "moved" addresses', "Data resources cannot be moved.", b.range.header())]
    if f.resource is not None and f.resource[0] == "data":
        return None, [error('Invalid "moved" addresses', "Data resources cannot be moved.", b.range.header())]
    f, t = _unify(f, t)
    return MovedBlock(f, t, b.range.header(), module_path), []


def decode_removed(b: Block, module_path: tuple[str, ...]) -> tuple[RemovedBlock | None, list[Diagnostic]]:
    diags = _unexpected(b, {"from"}, {"lifecycle", "provisioner", "connection"})
    attr, d = _required(b, "from")
    if d is not None or attr is None:
        return None, [*diags, d or error("Missing required argument")]
    ep, _k, d = _endpoint(attr)
    if d is not None or ep is None:
        return None, [*diags, d or error("Invalid expression", _STATIC_ONLY, attr.range)]
    provisioners, pdiags = _removed_provisioners(b, ep)
    diags += pdiags
    if ep.keyed:
        diags.append(error("Resource instance keys not allowed", "Resource address must be a resource (e.g. "
                           '"test_instance.foo"), not a resource instance (e.g. "test_instance.foo[1]").',
                           attr.range))
    destroy = True
    for nb in b.blocks:
        if nb.type != "lifecycle":
            continue
        for n, a in nb.attributes.items():
            if n != "destroy":
                diags.append(error("Unsupported argument", f'An argument named "{n}" is not expected here.',
                                   a.range))
            elif isinstance(a.expr, E.Literal) and isinstance(a.expr.value, bool):
                destroy = a.expr.value
            else:
                diags.append(error("Invalid expression", "A static value is required here.", a.range))
    if diags:
        return None, diags
    return RemovedBlock(ep, destroy, b.range.header(), module_path, provisioners), []


def _removed_provisioners(b: Block, ep: Endpoint) -> tuple[tuple[Provisioner, ...], list[Diagnostic]]:
    """A removed block's provisioners and connection block, as terraform takes them: for a managed
    resource only, and destroy-time ones only."""
    found = [nb for nb in b.blocks if nb.type in ("provisioner", "connection")]
    if not found:
        return (), []
    if ep.resource is None or ep.resource[0] != "managed":
        return (), [error(f"Invalid {nb.type} block", "Provisioners are valid only when a removed block targets a "
                          "managed resource." if nb.type == "provisioner" else "Provisioner connection "
                          "configuration is valid only when a removed block targets a managed resource.",
                          nb.range) for nb in found]
    provisioners, _connection, _rest, diags = decode_resource_blocks(found, True)
    for p in provisioners:
        if p.when != "destroy":
            diags.append(error("Invalid provisioner block", 'Only destroy-time provisioners are valid in "removed" '
                               "blocks. To declare a destroy-time provisioner, use:\n    when = destroy",
                               SourceRange(p.range.filename, p.range.line)))
    return provisioners, diags


def decode_import(b: Block, module_path: tuple[str, ...]) -> tuple[ImportBlock | None, list[Diagnostic]]:
    diags = _unexpected(b, {"to", "id", "for_each", "provider"}, set())
    if module_path:
        return None, [error("Invalid import configuration", "An import block was detected in a module. Import "
                            "blocks are only allowed in the root module.", b.range.header())]
    to_attr, d1 = _required(b, "to")
    id_attr, d2 = _required(b, "id")
    diags += [d for d in (d1, d2) if d is not None]
    if to_attr is None or id_attr is None:
        return None, diags
    for_each = b.attributes.get("for_each")
    ep, key_expr, d = _endpoint(to_attr, allow_key_expr=for_each is not None)
    if d is not None or ep is None:
        return None, [*diags, d or error("Invalid expression", _STATIC_ONLY, to_attr.range)]
    if ep.resource is None or ep.resource[0] != "managed":
        diags.append(error("Invalid import address", "Only managed resources can be imported.", to_attr.range))
    provider = None
    pattr = b.attributes.get("provider")
    if pattr is not None:
        p = pattr.expr
        if isinstance(p, E.GetAttr) and isinstance(p.obj, E.Var):
            provider = f"{p.obj.name}.{p.name}"
        elif isinstance(p, E.Var):
            provider = p.name
    if diags:
        return None, diags
    return ImportBlock(ep, id_attr.expr, b.range.header(), for_each.expr if for_each else None, key_expr,
                       provider, to_attr.range), []

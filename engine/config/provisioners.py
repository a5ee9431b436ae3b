"""A resource's ``provisioner`` and ``connection`` blocks, decoded as terraform 1.11 decodes them
(``configs/provisioner.go``), and the ``local-exec`` provisioner's schema.

strata runs one provisioner, ``local-exec``; ``file`` and ``remote-exec`` need a connection to a
remote machine, which strata does not make: they are refused here, where they are written, rather
than when an apply reaches them. A ``connection`` block is accepted where terraform accepts it (in
a resource, and in a provisioner) and checked as terraform checks it, though nothing uses it.

Invariants of a decoded :class:`Provisioner`: its ``type`` is ``local-exec``; ``when`` is
``create`` or ``destroy``; ``on_failure`` is ``fail`` or ``continue``; ``attributes`` are the
provisioner's own arguments (the meta-arguments ``when`` and ``on_failure`` taken out), each one
the schema declares; a destroy-time one refers to nothing but ``self``, ``count.index``,
``each.key``, ``path`` and ``terraform`` (terraform's rule: what it refers to may be gone).
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.diagnostics import Diagnostic, SourceRange, decl_range, error, source_line
from engine.frozen import frozen
from engine.lang import expr as E
from engine.lang.hcl import Attribute, Block

LOCAL_EXEC_SCHEMA: dict[str, tuple[object, bool]] = {
    "command": ("string", True),
    "interpreter": (["list", "string"], False),
    "working_dir": ("string", False),
    "environment": (["map", "string"], False),
    "quiet": ("bool", False),
}
"""The ``local-exec`` provisioner's arguments: name -> (cty type, required)."""

CONNECTION_ARGUMENTS = (
    "host", "type", "user", "password", "port", "timeout", "script_path", "target_platform", "private_key",
    "certificate", "host_key", "agent", "agent_identity", "proxy_scheme", "proxy_host", "proxy_port",
    "proxy_user_name", "proxy_user_password", "bastion_host", "bastion_host_key", "bastion_port", "bastion_user",
    "bastion_password", "bastion_private_key", "bastion_certificate", "https", "insecure", "cacert", "use_ntlm")
"""What a ``connection`` block may say, for any communicator (terraform's superset schema; ``host``
is required)."""

_REMOVED = ("chef", "habitat", "puppet", "salt-masterless")
_REMOTE = ("file", "remote-exec")

DESTROY_REFERENCE = ("Destroy-time provisioners and their connection configurations may only reference "
                     "attributes of the related resource, via 'self', 'count.index', or 'each.key'.\n\n"
                     "References to other resources during the destroy phase can cause dependency cycles "
                     "and interact poorly with create_before_destroy.")


@frozen
class Provisioner:
    """A ``provisioner "local-exec"`` block of a resource (see the module docstring for its
    invariants). ``range``: where the block's body opens (terraform's subject for an error the
    provisioner reports); ``connection``: its own ``connection`` block, if any."""

    type: str
    range: SourceRange
    attributes: dict[str, Attribute]
    when: str = "create"
    on_failure: str = "fail"
    connection: Block | None = None

    def expressions(self) -> list[E.Expr]:
        """Its arguments' expressions and its connection block's."""
        out = [a.expr for a in self.attributes.values()]
        if self.connection is not None:
            out.extend(a.expr for a in self.connection.attributes.values())
        return out


def decode_resource_blocks(blocks: list[Block], managed: bool
                           ) -> tuple[tuple[Provisioner, ...], Block | None, list[Block], list[Diagnostic]]:
    """A resource block's ``provisioner`` and ``connection`` blocks: its provisioners, its
    connection block, the nested blocks that are neither (its schema's and ``lifecycle``) and the
    mistakes. A data resource (``managed`` false) takes neither."""
    provs: list[Provisioner] = []
    connection: Block | None = None
    rest: list[Block] = []
    diags: list[Diagnostic] = []
    found = False
    for b in blocks:
        if b.type not in ("provisioner", "connection"):
            rest.append(b)
        elif not managed:
            diags.append(error("Unsupported block type", f'Blocks of type "{b.type}" are not expected here.',
                               b.range))
        elif b.type == "connection":
            if connection is not None:
                diags.append(error("Duplicate connection block", "This resource already has a connection block "
                                   f"at {_def_range(connection)}.", b.range))
                continue
            connection = b
        else:
            found = True
            p = decode_provisioner(b, diags)
            if p is not None:
                provs.append(p)
    if found and not diags:  # as terraform's validate walk, once the configuration loaded
        diags.extend(validate_provisioners(provs, connection))
    return tuple(provs), connection, rest, diags


def decode_provisioner(b: Block, diags: list[Diagnostic]) -> Provisioner | None:
    """One ``provisioner`` block; its mistakes added to ``diags``. None when strata cannot run it."""
    if len(b.labels) != 1:
        diags.append(error("Missing name for provisioner", 'A provisioner block needs one label: its type, as in '
                           'provisioner "local-exec".', b.range))
        return None
    kind = b.labels[0]
    if kind in _REMOVED:
        diags.append(error(f'The "{kind}" provisioner has been removed',
                           f'The "{kind}" provisioner was deprecated in Terraform 0.13.4 has been removed from '
                           "Terraform. Visit https://learn.hashicorp.com/collections/terraform/provision for "
                           "alternatives to using provisioners that are a better fit for the Terraform workflow.",
                           b.range))
        return None
    when = _keyword(b.attributes.get("when"), ("create", "destroy"), "when", diags) or "create"
    on_failure = _keyword(b.attributes.get("on_failure"), ("continue", "fail"), "on_failure", diags) or "fail"
    attrs = {n: a for n, a in b.attributes.items() if n not in ("when", "on_failure")}
    connection: Block | None = None
    for nb in b.blocks:
        if nb.type == "connection":
            if connection is not None:
                diags.append(error("Duplicate connection block", "This provisioner already has a connection "
                                   f"block at {_def_range(connection)}.", nb.range))
                continue
            connection = nb
        elif nb.type == "_":
            attrs.update(nb.attributes)  # terraform's escaping block: its arguments are the provisioner's
        else:
            diags.append(error("Reserved block type name in provisioner block",
                               f'The block type name "{nb.type}" is reserved for use by Terraform in a future '
                               "version.", nb.range))
    if when == "destroy":
        diags.extend(only_self_references(attrs, b.range.filename))
        if connection is not None:
            diags.extend(only_self_references(connection.attributes, b.range.filename))
    if kind in _REMOTE:
        diags.append(error(f'Unsupported provisioner "{kind}"',
                           f'strata runs only the "local-exec" provisioner: "{kind}" needs a connection to a '
                           "remote machine, which strata does not make. Run the command with local-exec (ssh, "
                           "scp), or leave the provisioning to a configuration management tool.", b.range))
        return None
    if kind != "local-exec":
        diags.append(error("Missing required provisioner plugin",
                           f'This configuration requires provisioner plugin "{kind}", which isn\'t available. If '
                           "you're intending to use an external provisioner plugin, you must install it manually "
                           "into one of the plugin search directories before running Terraform.", b.range))
        return None
    return Provisioner(kind, body_range(b), attrs, when, on_failure, connection)


def _keyword(attr: Attribute | None, allowed: tuple[str, ...], name: str, diags: list[Diagnostic]) -> str | None:
    """A keyword argument (``when = destroy``); terraform reads a quoted one the same."""
    if attr is None:
        return None
    e = attr.expr
    word = e.name if isinstance(e, E.Var) else e.value if isinstance(e, E.Literal) and isinstance(e.value, str) \
        else None
    if word in allowed:
        return word
    diags.append(error(f'Invalid "{name}" keyword', f'The "{name}" argument requires one of the following '
                       f"keywords: {allowed[0]} or {allowed[1]}.", attr.range))
    return None


def only_self_references(attrs: dict[str, Attribute], filename: str) -> Iterator[Diagnostic]:
    """terraform's "Invalid reference from destroy provisioner", once for each reference a
    destroy-time provisioner (or its connection block) may not make."""
    for a in attrs.values():
        for ref in E.references(a.expr):
            if ref.root in ("self", "path", "terraform"):
                continue
            if ref.root == "count" and ref.steps == ("index",) or ref.root == "each" and ref.steps == ("key",):
                continue
            yield error("Invalid reference from destroy provisioner", DESTROY_REFERENCE, a.range)


def validate_provisioners(provs: list[Provisioner], base: Block | None) -> list[Diagnostic]:
    """terraform's validation of each provisioner in turn, up to the first with a mistake: its
    arguments against the local-exec schema (each known, ``command`` given, a constant one of the
    right type), and its connection (the resource's, overridden by its own) against the superset
    of every communicator's."""
    for p in provs:
        diags = list(_check_arguments(p, p.attributes, LOCAL_EXEC_SCHEMA))
        conn = p.connection or base
        if conn is not None:
            attrs = {**(base.attributes if base is not None else {}), **(p.connection.attributes
                                                                         if p.connection is not None else {})}
            diags.extend(_check_arguments(conn, attrs, dict.fromkeys(CONNECTION_ARGUMENTS, ("dynamic", False)),
                                          "host"))
        if diags:
            return diags
    return []


def _check_arguments(b: Provisioner | Block, attrs: dict[str, Attribute], schema: dict[str, tuple[object, bool]],
                     required: str = "command") -> Iterator[Diagnostic]:
    """``attrs`` against ``schema``: each one known, ``required`` given, a constant of the type."""
    if required not in attrs:
        yield error("Missing required argument", f'The argument "{required}" is required, but no definition was '
                    "found.", b.range)
    for name, a in attrs.items():
        if name not in schema:
            near = [n for n in schema if n not in attrs and _distance(name, n) < 3]  # hcl's: not one given
            yield error("Unsupported argument", f'An argument named "{name}" is not expected here.'
                        + (f' Did you mean "{near[0]}"?' if near else ""), a.range)
        elif schema[name][0] != "dynamic" and next(E.references(a.expr), None) is None:
            problem = _constant_type(a.expr, schema[name][0])
            if problem is not None:
                yield error("Incorrect attribute value type", f'Inappropriate value for attribute "{name}": '
                            f"{problem}", a.range)


def _constant_type(e: E.Expr, ty: object) -> str | None:
    """What is wrong with the type of the constant ``e`` (cty's words), if anything; None when it
    converts, or is not constant after all (a function's mistake is the apply's to report)."""
    from engine.config.constants import _constant_scope
    from engine.lang.convert import ConversionError, convert
    from engine.lang.evaluate import EvalError, evaluate

    try:
        convert(evaluate(e, _constant_scope()), ty)
    except ConversionError as exc:
        return exc.cty_text
    except EvalError:
        return None
    return None


def body_range(b: Block) -> SourceRange:
    """Where ``b``'s body opens: its ``{``, on its header line (terraform's subject for a
    diagnostic about the whole body)."""
    text = source_line(b.range.filename, b.range.line) or ""
    at = text.find("{", max(0, b.range.column - 1))
    if at < 0:
        return SourceRange(b.range.filename, b.range.line)
    return SourceRange(b.range.filename, b.range.line, at + 1)


def _def_range(b: Block) -> str:
    """A block's declaration as terraform cites it (``main.tf:3,3-13``)."""
    return decl_range(b.range)


def _distance(a: str, b: str) -> int:
    """Levenshtein's, as terraform's "Did you mean" measures it (validation's twin: the
    configuration model cannot import validation, which imports it)."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]

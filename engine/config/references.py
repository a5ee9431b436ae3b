"""What a module's expressions refer to: every static reference checked against what the module
declares, a resource's references to itself, and the graph of resources for ``strata graph``."""

from __future__ import annotations

from typing import Any

from engine.addrs import ResourceAddr, resource_addr
from engine.config.dynamic import block_expressions
from engine.config.model import Module, ResourceConfig
from engine.config.suggestions import undeclared_local, undeclared_variable
from engine.diagnostics import Diagnostic, SourceRange, error, name_suggestion
from engine.lang import expr as E
from engine.lang.scope import BARE_TYPE, COUNT_OUTSIDE, EACH_OUTSIDE, TERRAFORM_ATTRIBUTE


def expressions_of(rc: ResourceConfig) -> list[E.Expr]:
    """All expressions in a resource's arguments and nested blocks (not count/for_each)."""
    out: list[E.Expr] = [a.expr for a in rc.attributes.values()]
    for blk in rc.blocks:
        block_expressions(blk, out)  # a dynamic block's iterator bound, as a for expression binds its names
    for c in (*rc.lifecycle.preconditions, *rc.lifecycle.postconditions):  # what they refer to comes first
        out.extend((c.condition, c.error_message))
    if rc.provisioners or rc.connection is not None:
        out.extend(provisioner_expressions(rc, "create"))
    return out


def provisioner_expressions(rc: ResourceConfig, when: str) -> list[E.Expr]:
    """The expressions of ``rc``'s connection block and of its provisioners of ``when``
    (``create``: what the resource depends on, as terraform's graph has it; ``destroy``: those
    may refer to nothing that could be gone, and are no dependency)."""
    out: list[E.Expr] = []
    if rc.connection is not None and when == "create":
        out.extend(a.expr for a in rc.connection.attributes.values())
    for p in rc.provisioners_for(when):
        out.extend(p.expressions())
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
    where_declared = module.display_path or "the root module"

    def check(e: E.Expr, filename: str, ctx: str, has_count: bool, has_each: bool,
              has_self: bool = False) -> None:
        for ref in E.references(e):
            where = SourceRange(filename, ref.line)
            name = ref.step_name(0)
            if ref.root == "var":
                if name is None or name not in module.variables:
                    diags.append(error("Reference to undeclared input variable", undeclared_variable(
                        str(name), module.variables), where))
            elif ref.root == "local":
                if name is None or name not in module.locals:
                    diags.append(error("Reference to undeclared local value",
                                       undeclared_local(str(name), module.locals), where))
            elif ref.root == "count":
                if not has_count:
                    diags.append(error('Reference to "count" in non-counted context', COUNT_OUTSIDE, where))
            elif ref.root == "each":
                if not has_each:
                    diags.append(error('Reference to "each" in context without for_each', EACH_OUTSIDE, where))
            elif ref.root == "self" and has_self:
                pass  # a postcondition's own object
            elif ref.root == "path":
                if name not in ("module", "root", "cwd"):
                    diags.append(error('Invalid "path" attribute',
                                       f'The "path" object does not have an attribute named "{name}".', where))
            elif ref.root == "terraform":
                if name not in ("workspace", "applying"):
                    diags.append(error('Invalid "terraform" attribute', TERRAFORM_ATTRIBUTE.format(name=name),
                                       where))
            elif ref.root == "self":
                diags.append(error('Unsupported reference "self"',
                                   'References to "self" are not supported by strata yet.', where))
            elif ref.root == "data":
                dname = ref.step_name(1)
                if name is None or dname is None:
                    diags.append(error("Invalid data resource reference",
                                       "A data resource reference needs a type and a name, as in "
                                       "data.TYPE.NAME.attribute.", where))
                elif ResourceAddr(name, dname, "data") not in module.resources:
                    diags.append(error("Reference to undeclared resource",
                                       f'A data resource "{name}" "{dname}" has not been declared in '
                                       f"{where_declared}.", where))
                elif (scoped := module.resources[ResourceAddr(name, dname, "data")].check) is not None \
                        and ctx != f"check.{scoped}":
                    diags.append(error("Reference to scoped resource",
                                       f'The referenced data resource "{name}" "{dname}" is not available from '
                                       "this context.", where))
            elif ref.root == "module":
                call = module.calls.get(name) if name is not None else None
                if call is None:
                    suggestion = name_suggestion(str(name), sorted(module.calls))
                    mean = f' Did you mean "{suggestion}"?' if suggestion else ""
                    diags.append(error("Reference to undeclared module",
                                       f'No module call named "{name}" is declared in {where_declared}.{mean}',
                                       where))
                else:
                    out = _module_output_name(call, ref)
                    if out is not None and out not in call.module.outputs:
                        diags.append(error("Unsupported attribute",
                                           f'This object does not have an attribute named "{out}".', where))
            else:
                if name is None:
                    diags.append(error("Invalid reference", BARE_TYPE, where))
                elif ResourceAddr(ref.root, name) not in module.resources:
                    diags.append(error("Reference to undeclared resource",
                                       f'A managed resource "{ref.root}" "{name}" has not been declared in '
                                       f"{where_declared}.", where))

    for rc in module.resources.values():
        fn = rc.range.filename
        post = {id(x) for c in rc.lifecycle.postconditions for x in (c.condition, c.error_message)}
        destroying = provisioner_expressions(rc, "destroy") if rc.provisioners else []
        if rc.provisioners or rc.connection is not None:  # `self`: the object provisioned
            post |= {id(x) for x in [*provisioner_expressions(rc, "create"), *destroying]}
        ctx = str(rc.addr)
        for e in [*expressions_of(rc), *destroying]:
            check(e, fn, ctx, rc.count is not None, rc.for_each is not None, id(e) in post)
        for meta in (rc.count, rc.for_each):
            if meta is not None:
                check(meta.expr, fn, ctx, False, False)
        for addr, _key, line in rc.depends_on:
            if addr not in module.resources:
                diags.append(error("Reference to undeclared resource",
                                   f'A managed resource "{addr.type}" "{addr.name}" has not been declared in '
                                   "the root module.", SourceRange(fn, line)))
        for mname in rc.depends_on_modules:
            if mname not in module.calls:
                diags.append(error("Reference to undeclared module",
                                   f'No module call named "{mname}" is declared in {where_declared}.', rc.range))
    for lc in module.locals.values():
        check(lc.expr, lc.range.filename, f"local.{lc.name}", False, False)
    for cc in module.checks.values():
        for c in cc.asserts:
            check(c.condition, c.range.filename, f"check.{cc.name}", False, False)
            before = len(diags)
            check(c.error_message, c.range.filename, f"check.{cc.name}", False, False)
            diags[before:] = unknown_in_message(diags[before:])
    for oc in module.outputs.values():
        check(oc.expr, oc.range.filename, f"output.{oc.name}", False, False)
    for call in module.calls.values():
        fn = call.range.filename
        expanded = (call.count is not None, call.for_each is not None)
        for a in call.arguments.values():
            check(a.expr, fn, f"module.{call.name}", *expanded)
        for meta in (call.count, call.for_each):
            if meta is not None:
                check(meta.expr, fn, f"module.{call.name}", False, False)
    return diags


def unknown_in_message(found: list[Diagnostic]) -> list[Diagnostic]:
    """What terraform says of an undeclared reference in a check block's ``error_message``: its
    evaluation finds no such variable ("Unknown variable"), and of a resource also that it was not
    declared."""
    out = []
    for d in found:
        if d.summary == "Reference to undeclared resource":
            root = "data" if d.detail.startswith("A data") else d.detail.split('"')[1]
            out += [error("Unknown variable", f'There is no variable named "{root}".', d.subject), d]
        elif d.summary in ("Reference to undeclared input variable", "Reference to undeclared local value"):
            root = "var" if "input variable" in d.summary else "local"
            out.append(error("Unknown variable", f'There is no variable named "{root}".', d.subject))
        else:
            out.append(d)
    return out


def _module_output_name(call: Any, ref: E.Reference) -> str | None:
    """The output ``module.NAME.OUT`` / ``module.NAME[KEY].OUT`` names; None when it names none
    (the whole module, or a key only known later)."""
    steps = ref.steps[1:]
    if call.count is not None or call.for_each is not None:
        if not steps or isinstance(steps[0], str):
            return None
        steps = steps[1:]
    return steps[0] if steps and isinstance(steps[0], str) else None


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
        for e in [*expressions_of(rc), *rc.lifecycle.replace_triggered_by]:
            targets |= refs_of(e)
        for meta in (rc.count, rc.for_each):
            if meta is not None:
                targets |= refs_of(meta.expr)
        targets |= {addr for addr, _k, _l in rc.depends_on}
        for t in targets:
            if t in g and t != rc.addr:
                g.add_edge(rc.addr, t)
    return g

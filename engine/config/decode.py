"""Decoders of the parts of a block that are more than an expression: ``lifecycle``,
``precondition``/``postcondition``/``validation`` blocks, ``depends_on``, a provider's ``strata``
settings and a variable's type constraint.

Each appends its mistakes to the ``diags`` it is given (or raises ``ValueError`` for a type
constraint) and returns what it could decode, so loading goes on and reports every mistake.
"""

from __future__ import annotations

from typing import Any

from engine.addrs import ResourceAddr, resource_addr
from engine.config.constants import _constant_scope
from engine.config.model import Condition, Lifecycle
from engine.diagnostics import Diagnostic, SourceRange, error
from engine.graph.limits import Limits
from engine.lang import expr as E
from engine.lang.hcl import Attribute, Block


def _literal_bool(attr: Attribute | None, diags: list[Diagnostic]) -> bool:
    if attr is None:
        return False
    if isinstance(attr.expr, E.Literal) and isinstance(attr.expr.value, bool):
        return attr.expr.value
    diags.append(error("Invalid value", f'The "{attr.name}" argument must be true or false, as a literal.',
                       attr.range))
    return False


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
        if root in ("var", "local", "module"):
            continue  # var, local: accepted, as terraform accepts it; module: depends_on_modules
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


def depends_on_modules(a: Attribute) -> tuple[str, ...]:
    """The module calls a ``depends_on`` names (``module.x``: every instance of it)."""
    if not isinstance(a.expr, E.TupleExpr):
        return ()
    out: list[str] = []
    for item in a.expr.items:
        t = E._traversal(item)
        if t is not None and t[0] == "module" and t[1] and isinstance(t[1][0], str):
            out.append(t[1][0])
    return tuple(out)

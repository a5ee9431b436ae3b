"""Decoders of the parts of a block that are more than an expression: ``lifecycle``,
``precondition``/``postcondition``/``validation`` blocks, ``depends_on``, a provider's ``strata``
settings and a variable's type constraint.

Each appends its mistakes to the ``diags`` it is given (or raises ``ValueError`` for a type
constraint) and returns what it could decode, so loading goes on and reports every mistake.
"""

from __future__ import annotations

from typing import Any

from engine.addrs import ResourceAddr, resource_addr
from engine.config.checks import NO_REFERENCES
from engine.config.constants import _constant_scope
from engine.config.model import Condition, IgnorePath, Lifecycle
from engine.config.replace_triggers import decode_replace_triggered_by
from engine.config.suggestions import unsupported_argument
from engine.diagnostics import Diagnostic, SourceRange, StrataError, error
from engine.graph.limits import Limits
from engine.lang import expr as E
from engine.lang.defaults import TypeDefaults
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


class TypeSpecError(StrataError):
    """A mistake in a type constraint; ``summary`` is terraform's."""

    def __init__(self, detail: str, summary: str = "Invalid type specification", line: int | None = None) -> None:
        super().__init__(detail)
        self.summary = summary
        self.line = line  # where in the type expression, when not at its start


def type_and_defaults(e: E.Expr) -> tuple[Any, TypeDefaults | None]:
    """A type expression as cty JSON type notation, and the defaults its ``optional(TYPE,
    DEFAULT)`` attributes give, at any depth (None when it has none). Raises
    :class:`TypeSpecError`."""
    if isinstance(e, E.Var) and e.name in _PRIMITIVES:
        return _PRIMITIVES[e.name], None
    if isinstance(e, E.Var) and e.name in ("list", "set", "map"):
        return [e.name, "dynamic"], None  # the legacy bare keyword: list(any), as terraform still reads it
    if isinstance(e, E.Var) and e.name not in ("tuple", "object"):
        raise TypeSpecError(f'The keyword "{e.name}" is not a valid type specification.')  # terraform's words
    if isinstance(e, E.Call):
        if e.name in ("list", "set", "map") and len(e.args) == 1:
            ety, inner = type_and_defaults(e.args[0])
            return [e.name, ety], None if inner is None else TypeDefaults(e.name, children={"": inner})
        if e.name == "tuple" and len(e.args) == 1 and isinstance(e.args[0], E.TupleExpr):
            elems, found = [], {}
            for i, x in enumerate(e.args[0].items):
                ety, inner = type_and_defaults(x)
                elems.append(ety)
                if inner is not None:
                    found[str(i)] = inner
            return ["tuple", elems], TypeDefaults("tuple", children=found) if found else None
        if e.name == "object" and len(e.args) == 1 and isinstance(e.args[0], E.ObjectExpr):
            return _object_type(e.args[0])
    raise TypeSpecError("A type specification is either a primitive type keyword (bool, number, string), "
                        "any, or a complex type constructor call, like list(string).")


def _object_type(e: E.ObjectExpr) -> tuple[Any, TypeDefaults | None]:
    from engine.lang.convert import ConversionError, convert
    from engine.lang.evaluate import EvalError, evaluate

    attrs: dict[str, Any] = {}
    optional: list[str] = []
    values: dict[str, Any] = {}
    children: dict[str, TypeDefaults] = {}
    for k, v in e.items:
        key = k.value if isinstance(k, E.Literal) else getattr(k, "name", None)
        if not isinstance(key, str):
            raise TypeSpecError("Object type attribute names must be plain names.")
        default: E.Expr | None = None
        if isinstance(v, E.Call) and v.name == "optional":
            if not v.args:
                raise TypeSpecError("Optional attribute modifier requires the attribute type as its argument.")
            if len(v.args) > 2:
                raise TypeSpecError("Optional attribute modifier expects at most two arguments: the attribute "
                                    "type, and a default value.")
            optional.append(key)
            default = v.args[1] if len(v.args) == 2 else None
            v = v.args[0]
        attrs[key], inner = type_and_defaults(v)
        if inner is not None:
            children[key] = inner
        if default is not None:
            try:
                values[key] = convert(evaluate(default, _constant_scope()), attrs[key])
            except EvalError as exc:
                raise TypeSpecError(f"{exc.summary}: {exc.detail}", line=default.line) from None
            except ConversionError as exc:
                raise TypeSpecError("This default value is not compatible with the attribute's type constraint: "
                                    f"{exc.cty_text.rstrip('.')}.",
                                    "Invalid default value for optional attribute", default.line) from None
    ty = ["object", attrs, optional] if optional else ["object", attrs]
    return ty, TypeDefaults("object", values, children) if values or children else None


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
    ignore: list[IgnorePath] = []
    ignore_all = False
    ig = b.attributes.get("ignore_changes")
    if ig is not None:
        if isinstance(ig.expr, E.Var) and ig.expr.name == "all":
            ignore_all = True
        elif isinstance(ig.expr, E.TupleExpr):
            for item in ig.expr.items:
                path = _ignore_path(item, ig.range.filename)
                if path is None:
                    diags.append(error("Invalid expression", "A single static variable reference is required: only "
                                       "attribute access and indexing with constant keys. No calculations, "
                                       "function calls, template expressions, etc are allowed here.",
                                       SourceRange(ig.range.filename, item.line)))
                else:
                    ignore.append(path)
        else:
            diags.append(error("Invalid ignore_changes",
                               'ignore_changes must be a list of attribute names, or "all".', ig.range))
    for name, a in b.attributes.items():
        if name not in _LIFECYCLE_ARGUMENTS:  # HCL's words, with its "Did you mean"
            diags.append(error("Unsupported argument",
                               unsupported_argument(name, _LIFECYCLE_ARGUMENTS, ("precondition", "postcondition")),
                               a.range))
    rtb = b.attributes.get("replace_triggered_by")
    triggers = decode_replace_triggered_by(rtb, diags) if rtb is not None else ()
    pre, post = _conditions(b, ("precondition", "postcondition"), "a lifecycle block", diags)
    return Lifecycle(cbd, prevent, tuple(ignore), ignore_all, pre, post, triggers)


_LIFECYCLE_ARGUMENTS = ("create_before_destroy", "prevent_destroy", "ignore_changes", "replace_triggered_by")


def _ignore_path(item: E.Expr, filename: str) -> IgnorePath | None:
    """An ``ignore_changes`` item as a path: a traversal (``tags["Name"]``, ``a[0].b``), or the
    legacy quoted form of one (``"tags"``); None when it is neither."""
    if isinstance(item, E.Literal) and isinstance(item.value, str):
        from engine.diagnostics import DiagnosticsError
        from engine.lang.hcl import parse_expression

        try:
            item = parse_expression(item.value, filename, item.line)
        except DiagnosticsError:
            return None
    t = E._traversal(item)
    if t is None:
        return None
    root, steps = t
    path: list[tuple[str, Any]] = [("attr", root)]
    for step in steps:
        if isinstance(step, str):
            path.append(("attr", step))
        elif isinstance(step, E.Literal) and isinstance(step.value, (str, int, float)) \
                and not isinstance(step.value, bool):
            key = step.value
            path.append(("index", int(key) if isinstance(key, float) and key.is_integer() else key))
        else:
            return None
    return tuple(path)


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
        if cond is not None and nb.type != "validation" and not any(True for _ in E.references(cond.expr)):
            # as terraform's: a condition that refers to nothing would check nothing
            diags.append(error(f"Invalid {nb.type} expression", NO_REFERENCES, cond.value_range()))
            continue
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


def depends_on_written(a: Attribute | None) -> tuple[E.Expr, ...]:
    """The items of a ``depends_on`` as written, in order (none when it is no list)."""
    return tuple(a.expr.items) if a is not None and isinstance(a.expr, E.TupleExpr) else ()


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

"""``lifecycle { replace_triggered_by = [...] }``: the references whose planned change forces a
resource's instances to be replaced, checked as terraform checks them when it loads the
configuration (``decodeReplaceTriggeredBy``).

Each item must refer to exactly one resource, and may use nothing else but ``count.index`` and
``each.key`` (in an index). What the item names is worked out for each instance when it is
planned (:mod:`engine.planning.replace_triggers`), where the mistakes that need the instance's
key are found.
"""

from __future__ import annotations

from engine.diagnostics import Diagnostic, SourceRange, error
from engine.lang import expr as E
from engine.lang.hcl import Attribute
from engine.lang.scope import BARE_TYPE

# the names that are not resource types at the start of a reference (terraform's ParseRef)
_NOT_RESOURCES = frozenset({"count", "each", "var", "local", "module", "path", "self", "terraform", "data",
                            "resource", "ephemeral", "template", "lazy", "arg"})
_SINGLE_ATTR = frozenset({"count", "each", "var", "local", "path", "terraform"})

_INVALID = "Invalid replace_triggered_by expression"


def decode_replace_triggered_by(attr: Attribute, diags: list[Diagnostic]) -> tuple[E.Expr, ...]:
    """The items of ``replace_triggered_by`` (all of them, mistakes included: they are only
    planned when ``diags`` has none); each mistake is added to ``diags`` in terraform's words."""
    where = attr.range
    if not isinstance(attr.expr, E.TupleExpr):
        diags.append(error("Invalid expression", "A static list expression is required.", where))
        return ()
    items: list[E.Expr] = []
    for given in attr.expr.items:
        item = _unwrap_json(given, where.filename, diags)
        if item is None:
            continue
        items.append(item)
        _check_item(item, SourceRange(where.filename, item.line), diags)
    return tuple(items)


def _unwrap_json(item: E.Expr, filename: str, diags: list[Diagnostic]) -> E.Expr | None:
    """In a ``.tf.json`` file each item is a string holding the expression."""
    if not filename.endswith(".json"):
        return item
    if isinstance(item, E.Literal) and isinstance(item.value, str):
        from engine.diagnostics import DiagnosticsError
        from engine.lang.hcl import parse_expression

        try:
            return parse_expression(item.value, filename, item.line)
        except DiagnosticsError as exc:
            diags.extend(exc.diagnostics)
            return None
    return item


def _check_item(item: E.Expr, where: SourceRange, diags: list[Diagnostic]) -> None:
    resources = 0
    for ref in E.references(item):
        problem = _reference_problem(ref)
        if problem is not None:
            diags.append(error("Invalid reference", problem, where))
            return  # as terraform's: an item whose references do not parse is not checked further
    for ref in E.references(item):
        if ref.root == "each":
            if ref.step_name(0) != "key":
                diags.append(error("Invalid each reference in replace_triggered_by expression",
                                   "Only each.key may be used in replace_triggered_by.", where))
        elif ref.root == "count":
            if ref.step_name(0) != "index":
                diags.append(error("Invalid count reference in replace_triggered_by expression",
                                   "Only count.index may be used in replace_triggered_by.", where))
        elif ref.root == "data" or ref.root not in _NOT_RESOURCES:
            resources += 1
        else:
            diags.append(error("Invalid reference in replace_triggered_by expression",
                               "Only resources, count.index, and each.key may be used in replace_triggered_by.",
                               where))
    if resources == 0:
        diags.append(error(_INVALID, "Missing resource reference in replace_triggered_by expression.", where))
    elif resources > 1:
        diags.append(error(_INVALID, "Multiple resource references in replace_triggered_by expression.", where))


def _reference_problem(ref: E.Reference) -> str | None:
    """terraform's detail for a reference that does not parse as one (``terraform_data`` alone,
    ``data.T``, ``count``); None when it parses."""
    if ref.root == "data":
        if ref.step_name(0) is None or ref.step_name(1) is None:
            return ('The "data" object must be followed by two attribute names: the data source type and the '
                    "resource name.")
        return None
    if ref.root in _SINGLE_ATTR:
        if not ref.steps:
            return f'The "{ref.root}" object cannot be accessed directly. Instead, access one of its attributes.'
        if ref.step_name(0) is None:
            return f'The "{ref.root}" object does not support this operation.'
        return None
    if ref.root not in _NOT_RESOURCES and ref.step_name(0) is None:
        return BARE_TYPE
    return None

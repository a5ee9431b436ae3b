"""The functions terraform's own provider (``terraform.io/builtin/terraform``) offers a module
that declares it in ``required_providers``: ``provider::terraform::encode_tfvars``,
``decode_tfvars`` and ``encode_expr`` (terraform 1.8+).

The two encoders write what hclwrite writes for a value -- an object's attributes one a line in
name order, ``[a, b]`` sequences on one line, strings escaped as HCL quoted literals (with ``${``
and ``%{`` doubled) -- laid out by the same rules as ``terraform fmt`` (:mod:`engine.lang.fmt`),
so the ``=`` of consecutive one-line attributes align as terraform's do. ``decode_tfvars`` reads
a string as a ``.tfvars`` file, constants only; its mistakes are reported as one line in HCL's
``file:line,column-column: summary; detail`` form, as terraform wraps them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.diagnostics import Diagnostic, DiagnosticsError, FunctionError
from engine.lang import expr as E
from engine.lang.provider_functions import Parameter, ProviderFunction
from engine.lang.quote import hcl_escape
from engine.values import UNKNOWN

SOURCE = "terraform.io/builtin/terraform"
"""The provider whose functions these are."""

DECODE_FILENAME = "<decode_tfvars argument>"


def valid_identifier(name: str) -> bool:
    """HCL's identifier rule: a letter or ``_``, then letters, digits, ``_`` or ``-``."""
    return bool(name) and (name[0] == "_" or name[0].isidentifier()) and \
        ("x" + name[1:].replace("-", "_")).isidentifier()


def _raw(v: Any) -> str:
    """``v`` (wholly known) as hclwrite's tokens before layout: objects and maps one attribute a
    line, sequences on one line."""
    from engine.lang.number import to_string

    if v is None:
        return "null"
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return to_string(v)
    if isinstance(v, str):
        return f'"{hcl_escape(v)}"'
    if isinstance(v, dict):
        if not v:
            return "{}"
        lines = [f"{k if valid_identifier(k) else _raw(k)} = {_raw(v[k])}\n" for k in sorted(v)]
        return "{\n" + "".join(lines) + "}"
    if isinstance(v, tuple):
        return "[" + ", ".join(_raw(x) for x in v) + "]"
    raise FunctionError(f"cannot encode a value of {type(v).__name__}")


def _layout(text: str) -> str:
    from engine.lang.fmt import format_source

    return format_source(text)


def encode_expr(v: Any) -> Any:
    """``v`` written as a Terraform language expression; unknown while ``v`` is not wholly known."""
    from engine.values import is_wholly_known

    if not is_wholly_known(v):
        return UNKNOWN
    prefix = "x = "
    return _layout(prefix + _raw(v) + "\n")[len(prefix):].strip()


def encode_tfvars(v: Any) -> Any:
    """An object's attributes (or a map's elements) written as a ``.tfvars`` file, in name order."""
    from engine.values import is_wholly_known

    if not is_wholly_known(v):
        return UNKNOWN
    if not isinstance(v, dict):
        raise FunctionError("invalid value to encode: must be an object whose attribute names will become the "
                            "encoded variable names")
    for key in sorted(v):
        if not valid_identifier(key):
            raise FunctionError(f'invalid variable name "{hcl_escape(key)}": must be a valid identifier, per '
                                "Terraform's rules for input variable declarations")
    return _layout("".join(f"{k} = {_raw(v[k])}\n" for k in sorted(v))) if v else ""


def decode_tfvars(src: Any) -> Any:
    """The object a ``.tfvars`` file's text defines: its arguments, each a constant."""
    from engine.lang.evaluate import EvalError, evaluate
    from engine.lang.hcl import parse_hcl_body

    if src is UNKNOWN:
        return UNKNOWN
    try:
        attrs, blocks = parse_hcl_body(src, DECODE_FILENAME)
    except DiagnosticsError as exc:
        raise FunctionError(f"invalid tfvars syntax: {_hcl_error(exc.diagnostics[0], src)}") from None
    if blocks:
        b = blocks[0]
        d = Diagnostic("error", f'Unexpected "{b.type}" block', "Blocks are not allowed here.", b.range)
        raise FunctionError(f"invalid tfvars content: {_hcl_error(d, src)}")
    out: dict[str, Any] = {}
    for name, a in attrs.items():
        problem = _not_constant(a.expr)
        if problem is not None:
            summary, detail, at = problem
            where = _expression_range(src, a.range.line, at)
            raise FunctionError(f'invalid expression for variable "{name}": {DECODE_FILENAME}:{where}: '
                                f"{summary}; {detail}")
        try:
            out[name] = evaluate(a.expr, _scope())
        except EvalError as exc:
            raise FunctionError(f'invalid expression for variable "{name}": {DECODE_FILENAME}:{exc.line}: '
                                f"{exc.summary}; {exc.detail}") from None
    return out


def _scope() -> Any:
    """No names at all: every reference was refused before evaluation (:func:`_not_constant`)."""
    from engine.lang.scope import Scope

    def no_locals(name: str, line: int) -> Any:
        raise KeyError(name)

    return Scope({}, no_locals, None)  # type: ignore[arg-type]


def _not_constant(e: E.Expr) -> tuple[str, str, E.Expr] | None:
    """HCL's refusal of an expression evaluated with no context: the first function call or
    reference to a name (``for`` expressions' own names aside) in ``e``."""
    from engine.lang.diagnostic_values import children

    stack: list[tuple[E.Expr, frozenset[str]]] = [(e, frozenset())]
    while stack:
        node, bound = stack.pop()
        if isinstance(node, E.Call):
            return "Function calls not allowed", "Functions may not be called here.", node
        if isinstance(node, E.Var) and node.name not in bound:
            return "Variables not allowed", "Variables may not be used here.", node
        if isinstance(node, (E.GetAttr, E.Index, E.Splat)):
            keys = [node.key] if isinstance(node, E.Index) else []
            stack.extend((x, bound) for x in reversed([node.obj, *keys]))
            continue
        stack.extend(reversed(list(children(node, bound))))
    return None


def _expression_range(src: str, line: int, at: E.Expr) -> str:
    """``line,column-column`` of the expression at fault, as HCL gives it: a reference's root name,
    a call from its name to its closing parenthesis (looked for on the expression's line, after
    the ``=`` of the argument when it is on that line)."""
    lines = src.split("\n")
    text = lines[at.line - 1] if 0 < at.line <= len(lines) else ""
    after = text.find("=") + 1 if at.line == line else 0
    name = at.name if isinstance(at, (E.Var, E.Call)) else ""
    found = _word(text, name, after) if name else -1
    if found < 0:
        return f"{at.line},{after + 1}-{len(text.rstrip()) + 1}"
    end = found + len(name)
    if isinstance(at, E.Call):
        depth = 0
        for i in range(end, len(text)):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                end = i + 1
                break
    return f"{at.line},{found + 1}-{end + 1}"


def _word(text: str, name: str, start: int) -> int:
    """Where ``name`` stands as a whole word in ``text`` from ``start`` (-1: nowhere)."""
    import re

    m = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])").search(text, start)
    return m.start() if m is not None else -1


def _hcl_error(d: Diagnostic, src: str) -> str:
    """``d`` as HCL's ``Error()`` spells one diagnostic: ``file:line,column-column: summary; detail``."""
    where = d.subject
    if where is None:
        return f"{d.summary}; {d.detail}"
    lines = src.split("\n")
    text = lines[where.line - 1] if 0 < where.line <= len(lines) else ""
    column = max(where.column, 1)
    rest = text[column - 1:]
    width = len(rest) - len(rest.lstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"))
    width = width or (1 if rest else 0)
    return f"{DECODE_FILENAME}:{where.line},{column}-{column + width}: {d.summary}; {d.detail}"


def functions() -> Mapping[str, ProviderFunction]:
    """The functions, with terraform's signatures (the encoders take unknown values, to refine
    their results; nothing takes null)."""
    value = Parameter("value", "dynamic", allow_unknown=True)
    return {
        "encode_tfvars": ProviderFunction("encode_tfvars", (value,), None, "string", lambda a: encode_tfvars(a[0])),
        "decode_tfvars": ProviderFunction("decode_tfvars", (Parameter("src", "string"),), None, "dynamic",
                                          lambda a: decode_tfvars(a[0])),
        "encode_expr": ProviderFunction("encode_expr", (value,), None, "string", lambda a: encode_expr(a[0])),
    }


__all__ = ["SOURCE", "decode_tfvars", "encode_expr", "encode_tfvars", "functions", "valid_identifier"]

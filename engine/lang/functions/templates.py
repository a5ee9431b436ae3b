"""``templatefile`` and ``templatestring``: a template read from a file (or a string value) and
rendered with the given variables and nothing else.

Rendering evaluates expressions, which this layer cannot do: the evaluator calls
:func:`template_for` for the parsed template and its variables, checked as terraform checks them,
then evaluates the template with those variables as its only names
(:mod:`engine.lang.calls`). :func:`parse` is the one place the template text is parsed.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

from engine.diagnostics import DiagnosticsError, FunctionError
from engine.frozen import frozen
from engine.lang import expr as E
from engine.lang import hcl
from engine.lang.functions.arguments import ArgumentError, _string_arg
from engine.lang.functions.filesystem import _read
from engine.values import UNKNOWN

TEMPLATE_FUNCTIONS = frozenset({"templatefile", "templatestring"})
STRING_TEMPLATE_NAME = "<templatestring argument>"
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


@frozen
class Template:
    """A parsed template and the variables to render it with (all of them, by name)."""

    expr: E.Expr
    variables: dict[str, Any]


def _parse_template(text: str, filename: str) -> E.Expr:
    """The parser's template parse: ``parse_template(text, filename)``, or, from a parser that also
    wants the first line, with line 1."""
    required = [p for p in inspect.signature(hcl.parse_template).parameters.values() if p.default is p.empty]
    if len(required) > 2:
        return hcl.parse_template(text, filename, 1)  # type: ignore[call-arg, unused-ignore]
    return hcl.parse_template(text, filename)  # type: ignore[call-arg, unused-ignore]


def parse(text: str, filename: str) -> E.Expr:
    """The template ``text`` (from ``filename``) as an expression; a syntax error is the template
    parameter's."""
    try:
        return _parse_template(text, filename)
    except DiagnosticsError as exc:
        d = exc.diagnostics[0] if exc.diagnostics else None
        detail = f"{d.summary}: {d.detail}" if d is not None else str(exc)
        raise ArgumentError(0, f"failed to parse template: {detail}") from None


def template_for(name: str, source: Any, variables: Any) -> Template | None:
    """What ``templatefile(path, vars)`` or ``templatestring(template, vars)`` renders; None when
    the path or template is not known yet."""
    if source is None:
        raise ArgumentError(0, "argument must not be null")
    if variables is None:
        raise ArgumentError(1, "argument must not be null")
    if source is UNKNOWN:
        return None
    if name == "templatefile":
        filename = _string_arg(source)
        try:
            raw = _read(source)
        except FunctionError as exc:
            raise ArgumentError(0, str(exc).rstrip(".")) from None
        try:
            text = raw.decode()
        except UnicodeDecodeError:
            raise ArgumentError(0, f'contents of "{filename}" are not valid UTF-8; use the filebase64 '
                                   "function to obtain the Base64 encoded contents or the other file "
                                   "functions to obtain file hashing results instead") from None
    else:
        filename, text = STRING_TEMPLATE_NAME, _string_arg(source)
    if variables is UNKNOWN:
        return None
    if not isinstance(variables, dict):
        raise ArgumentError(1, "invalid vars value: must be a map")
    for key in variables:
        if not _NAME.match(key):
            raise ArgumentError(1, f'invalid template variable name "{key}": must start with a letter, '
                                   "followed by zero or more letters, digits, and underscores")
    expr = parse(text, filename)
    for ref in E.references(expr):
        if ref.root not in variables:
            raise ArgumentError(1, f'vars map does not contain key "{ref.root}", referenced at '
                                   f"{filename}:{_where(text, ref.root, ref.line)}")
    return Template(expr, dict(variables))


def _where(text: str, name: str, line: int) -> str:
    """``line,start-end`` of the first mention of ``name`` in an interpolation on ``line``."""
    lines = text.split("\n")
    src = lines[line - 1] if 0 < line <= len(lines) else ""
    m = re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", src[src.find("{") + 1:] if "{" in src else src)
    if m is None:
        return f"{line},1-1"
    start = (src.find("{") + 1 if "{" in src else 0) + m.start() + 1
    return f"{line},{start}-{start + len(name)}"


def _rendered_by_the_evaluator(source: Any, variables: Any) -> Any:
    """Nothing: the evaluator renders the template (this checks only the argument count and nulls)."""
    return None


# terraform's signature of each function here (its diagnostics name the parameters): the
# evaluator renders them (engine.lang.calls), since their templates are expressions
SIGNATURES: dict[str, Callable[..., Any]] = {
    "templatefile(path, vars)": _rendered_by_the_evaluator,
    "templatestring(template, vars)": _rendered_by_the_evaluator,
}

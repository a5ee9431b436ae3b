"""Values as terraform prints an output's value (``terraform output``, the ``Outputs:`` after an
apply, ``show``): its console's format, which is not the plan's.

``tolist([...])``, ``toset([...])`` and ``tomap({...})`` say what a tuple or an object would
not; object and map keys are quoted strings; a string with a line break is a heredoc (``<<EOT``
at the top level, ``<<-EOT`` nested); numbers are written out in full, never with an exponent.
"""

from __future__ import annotations

from typing import Any

from engine.lang.null_types import element_type, null_text
from engine.lang.number import to_string
from engine.lang.quote import go_quote
from engine.values import UNKNOWN, ListVal, MapVal, SetVal, value_type


def scalar_text(v: Any) -> str | None:
    """An unknown, null, bool or number as terraform prints it everywhere (numbers in full:
    0.000001, not 1e-06); None for strings and collections, whose forms differ by place."""
    if v is UNKNOWN:
        return "(known after apply)"
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return to_string(v)
    return None


def output_text(v: Any, indent: int = 0, ty: Any = "dynamic") -> str:
    """``v`` as terraform prints it; ``ty``, its type where known (:mod:`engine.lang.null_types`),
    types the nulls in it (``tostring(null)``), as a collection's own element type does."""
    if v is None:
        return null_text(ty)
    scalar = scalar_text(v)
    if scalar is not None:
        return scalar
    if isinstance(v, str):
        return _heredoc(v, indent) if "\n" in v else go_quote(v)
    if isinstance(v, (ListVal, SetVal, MapVal)) and not isinstance(ty, list):
        ty = value_type(v)  # its elements' type, or the one it recorded
    if isinstance(v, ListVal):
        return f"tolist({_sequence(v, indent, ty)})"
    if isinstance(v, SetVal):
        return f"toset({_sequence(v, indent, ty)})"
    if isinstance(v, tuple):
        return _sequence(v, indent, ty)
    if isinstance(v, MapVal):
        return f"tomap({_mapping(v, indent, ty)})"
    if isinstance(v, dict):
        return _mapping(v, indent, ty)
    return repr(v)


def _sequence(v: tuple[Any, ...], indent: int, ty: Any) -> str:
    if not v:
        return "[]"
    pad = " " * (indent + 2)
    return "[\n" + "".join(f"{pad}{output_text(x, indent + 2, element_type(ty, i))},\n"
                           for i, x in enumerate(v)) + " " * indent + "]"


def _mapping(v: dict[str, Any], indent: int, ty: Any) -> str:
    if not v:
        return "{}"
    pad = " " * (indent + 2)
    body = "".join(f"\n{pad}{go_quote(k)} = {output_text(v[k], indent + 2, element_type(ty, k))}"
                   for k in sorted(v))
    return "{" + body + "\n" + " " * indent + "}"


def _heredoc(s: str, indent: int) -> str:
    lines = s.split("\n")
    delimiter = "EOT"
    while any(line.strip() == delimiter for line in lines):
        delimiter += "_"
    pad = " " * indent
    return ("<<-" if indent else "<<") + delimiter + "".join(f"\n{pad}{line}" for line in lines) + \
        f"\n{pad}{delimiter}"

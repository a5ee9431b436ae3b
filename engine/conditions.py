"""Custom conditions: a resource's ``precondition`` / ``postcondition`` blocks and an output's
``precondition``, checked as terraform checks them.

A condition that is false is an error naming the condition's line, with terraform's statements
about the values it refers to and the block's ``error_message``. A condition that cannot be
decided yet (it refers to values known only after apply) is checked when they are known: a
resource's postcondition once the object is created or updated.
"""

from __future__ import annotations

from typing import Any

from .config import Condition
from .diagnostics import Diagnostic, SourceRange, error
from .evaluate import EvalError, Scope, evaluate
from .values import UNKNOWN

SUMMARIES = {"precondition": "Resource precondition failed", "postcondition": "Resource postcondition failed",
             "output": "Module output value precondition failed"}


def check(conditions: tuple[Condition, ...], scope: Scope, kind: str,
          context: str | None = None) -> tuple[list[Diagnostic], bool]:
    """The failures among ``conditions`` (``kind``: precondition, postcondition or output; ``context``:
    the block they are in, as a diagnostic names it), and whether any could not be decided yet."""
    failures: list[Diagnostic] = []
    undecided = False
    for c in conditions:
        where = SourceRange(c.range.filename, c.range.line)
        try:
            v = evaluate(c.condition, scope)
        except EvalError as exc:
            failures.append(exc.error(SourceRange(c.range.filename, exc.line), context=context))
            continue
        if v is UNKNOWN:
            undecided = True
            continue
        if v == "true" or v == "false":
            v = v == "true"
        if v is None:
            failures.append(error("Invalid condition result", "Condition expression must return either true or "
                                  "false, not null.", where, context=context))
            continue
        if not isinstance(v, bool):
            failures.append(error("Invalid condition result", "Invalid condition result value: a bool is "
                                  "required.", where, context=context))
            continue
        if not v:
            failures.append(EvalError(SUMMARIES[kind], _message(c, scope), c.condition.line)
                            .blame(c.condition, scope).error(where, context=context))
    return failures, undecided


def _message(c: Condition, scope: Scope) -> str:
    try:
        m: Any = evaluate(c.error_message, scope)
    except EvalError as exc:
        return f"(the error message could not be evaluated: {exc.summary}: {exc.detail})"
    if m is UNKNOWN or m is None:
        return "(the error message is not known yet)"
    return str(m)


__all__ = ["SUMMARIES", "check"]

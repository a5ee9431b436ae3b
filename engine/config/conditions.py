"""Custom conditions: a resource's ``precondition`` / ``postcondition`` blocks and an output's
``precondition``, checked as terraform checks them.

A condition that is false is an error naming the condition's line, with terraform's statements
about the values it refers to and the block's ``error_message``. A condition that cannot be
decided yet (it refers to values known only after apply) is checked when they are known: a
resource's postcondition once the object is created or updated.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from engine.config.check_results import ERROR, FAIL, PASS
from engine.config.check_results import UNKNOWN as UNKNOWN_STATUS
from engine.config.constants import _NoResources
from engine.config.model import Condition
from engine.diagnostics import Diagnostic, SourceRange, decl_range, error
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.lang.sensitivity import with_self
from engine.values import UNKNOWN

SUMMARIES = {"precondition": "Resource precondition failed", "postcondition": "Resource postcondition failed",
             "output": "Module output value precondition failed",
             "assert": "Check block assertion failed", "validation": "Invalid value for variable"}


def check(conditions: tuple[Condition, ...], scope: Scope, kind: str, context: str | None = None,
          self_of: tuple[str, str, str] | None = None,
          report: Callable[[int, str, str], None] | None = None) -> tuple[list[Diagnostic], bool]:
    """The failures among ``conditions`` (``kind``: precondition, postcondition or output; ``context``:
    the block they are in, as a diagnostic names it; ``self_of``: the resource ``self`` is, as (mode,
    type, name)), with terraform's warning for an error message it will not show, and whether any
    could not be decided yet. ``report`` is told what each condition came to, as terraform records
    it (:mod:`engine.config.checkables`): its index, pass/fail/unknown/error and, when it failed,
    its error message trimmed (empty when not shown)."""
    if self_of is not None and scope.sensitivity is not None:
        scope = dataclasses.replace(scope, sensitivity=with_self(scope.sensitivity, *self_of))
    failures: list[Diagnostic] = []
    undecided = False
    said = report if report is not None else _unreported
    for i, c in enumerate(conditions):
        where = SourceRange(c.range.filename, c.range.line)
        try:
            v = evaluate(c.condition, scope)
        except EvalError as exc:
            failures.append(exc.error(SourceRange(c.range.filename, exc.line), context=context))
            said(i, ERROR, "")
            continue
        if v is UNKNOWN:
            undecided = True
            said(i, UNKNOWN_STATUS, "")
            continue
        if v == "true" or v == "false":
            v = v == "true"
        if v is None:
            failures.append(error("Invalid condition result", "Condition expression must return either true or "
                                  "false, not null.", where, context=context))
            said(i, ERROR, "")
            continue
        if not isinstance(v, bool):
            failures.append(error("Invalid condition result", "Invalid condition result value: a bool is "
                                  "required.", where, context=context))
            said(i, ERROR, "")
            continue
        if v:
            said(i, PASS, "")
        else:
            if report is not None:
                report(i, *_recorded(c, scope))
            if scope.sensitivity is not None and scope.sensitivity.uses(c.error_message):
                failures.append(Diagnostic("warning", "Error message refers to sensitive values", _WITHHELD,
                                           SourceRange(c.range.filename, c.error_message.line), context=context))
                message = ("This check failed, but has an invalid error message as described in the other "
                           "accompanying messages.")
            else:
                message = _message(c, scope)
            failures.append(EvalError(SUMMARIES[kind], message, c.condition.line)
                            .blame(c.condition, scope).error(where, context=context))
    return failures, undecided


_WITHHELD = ("The error expression used to explain this condition refers to sensitive values, so strata will "
             "not display the resulting message.\n\nYou can correct this by removing references to sensitive "
             "values, or by carefully using the nonsensitive() function if the expression will not reveal the "
             "sensitive data.")


def validate_variables(module: Any, variables: dict[str, Any], sensitivity: Any) -> list[Diagnostic]:
    """The variables' ``validation`` rules against their values, as terraform checks them before
    planning: each rule not met is "Invalid value for variable", at the variable's declaration."""
    out: list[Diagnostic] = []
    for vc in module.variables.values():
        if not vc.validations or vc.name not in variables:
            continue
        scope = Scope(variables, _no_locals, _NoResources(), sensitivity=sensitivity)
        failed, _ = check(vc.validations, scope, "validation")
        for d, c in zip(failed, vc.validations, strict=False):
            if d.summary != SUMMARIES["validation"]:
                out.append(d)
                continue
            rule = decl_range(c.block) if c.block is not None else str(c.range)
            out.append(dataclasses.replace(d, subject=vc.range.header(),
                                           detail=f"{d.detail}\n\nThis was checked by the validation rule at {rule}."))
    return out


def _no_locals(name: str, line: int) -> Any:
    raise EvalError("Invalid reference", "A variable's validation rule can refer only to variables.", line)


def _unreported(index: int, status: str, message: str) -> None:
    pass


def _recorded(c: Condition, scope: Scope) -> tuple[str, str]:
    """What terraform records of a condition that failed: fail and its error message, trimmed
    (empty when sensitive or not a known string); an error message that cannot be evaluated is
    an error."""
    try:
        m = evaluate(c.error_message, scope)
    except EvalError:
        return ERROR, ""
    if not isinstance(m, str) or (scope.sensitivity is not None and scope.sensitivity.uses(c.error_message)):
        return FAIL, ""
    return FAIL, m.strip()


def _message(c: Condition, scope: Scope) -> str:
    try:
        m: Any = evaluate(c.error_message, scope)
    except EvalError as exc:
        return f"(the error message could not be evaluated: {exc.summary}: {exc.detail})"
    if m is UNKNOWN or m is None:
        return "(the error message is not known yet)"
    return str(m)


__all__ = ["SUMMARIES", "check", "validate_variables"]

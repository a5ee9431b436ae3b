"""The ``check`` blocks evaluated, one instance of a block at a time, the same way while planning
and applying: a false assertion is a warning, one not known yet a warning while planning, an
invalid one an error; the results are terraform's (:mod:`engine.config.check_results`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from engine.config.check_results import (
    ERROR,
    FAIL,
    PASS,
    UNKNOWN,
    CheckObject,
    CheckResult,
    summarize,
)
from engine.config.checks import check_object
from engine.config.conditions import check as check_conditions
from engine.config.model import CheckConfig, Condition, Module
from engine.config.module_instances import ModuleInstances
from engine.diagnostics import Diagnostic, SourceRange, source_line
from engine.lang import expr as E
from engine.lang.diagnostic_values import path_of, traversal_text, traversals
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.values import UNKNOWN as UNKNOWN_VALUE
from engine.values import friendly_name, is_wholly_known, value_type

_KNOWN_AFTER_APPLY = ("The condition could not be evaluated at this time, a result will be known when this plan "
                      "is applied.")


TypeOf = Callable[[str, tuple[str, ...]], Any]
"""The type (cty's JSON notation) of the value a traversal (its root and attribute names) refers
to, as its provider's schema says; None when not known."""


def evaluate_check(cc: CheckConfig, addr: str, scope: Scope, data_status: str | None,
                   data_failure: str = "", planning: bool = True, type_of: TypeOf | None = None
                   ) -> tuple[CheckObject, list[Diagnostic]]:
    """One instance of ``cc`` (at ``addr``, ``check.NAME`` in its module instance) evaluated in
    ``scope``: its result and its diagnostics. ``data_status`` is its scoped data source's (None
    when it has none); a data source that failed (``data_failure``: why) leaves the assertions
    unevaluated, as terraform's. A false condition is a warning; one not known yet is a warning
    while ``planning`` (its result unknown); an invalid one is an error."""
    if data_status in (FAIL, ERROR):
        return CheckObject(addr, data_status, (data_failure,) if data_failure else ()), []
    statuses = [data_status] if data_status is not None else []
    messages: list[str] = []
    diags: list[Diagnostic] = []
    for i, c in enumerate(cc.asserts):
        # a .tf.json file's: terraform names the assert block itself (check.NAME.assert[0])
        context = cc.context if '"' in cc.context else f"{cc.context}.assert[{i}]"
        failed, undecided = check_conditions((c,), scope, "assert", context)
        if undecided:
            statuses.append(UNKNOWN)
            if planning:
                diags.append(_known_after_apply(c, scope, context, type_of))
            continue
        errors = [d for d in failed if d.severity == "error" and d.summary != "Check block assertion failed"]
        if errors:
            statuses.append(ERROR)
            diags.extend(errors)
            continue
        if not failed:
            statuses.append(PASS)
            continue
        statuses.append(FAIL)
        for d in failed:
            if d.summary == "Check block assertion failed":
                message = _failure_message(c, scope)
                if message:  # as terraform's: an empty message is not recorded
                    messages.append(message)
                d = dataclasses.replace(d, severity="warning", subject=condition_subject(c),
                                        detail=message or d.detail)  # trimmed, as terraform's
            diags.append(d)
    return CheckObject(addr, summarize(statuses), tuple(messages)), diags


def _failure_message(c: Condition, scope: Scope) -> str:
    """The message terraform records for a failed assertion: the error_message's value, trimmed
    (empty when it could not be shown)."""
    try:
        m = evaluate(c.error_message, scope)
    except EvalError:
        return ""
    if not isinstance(m, str) or (scope.sensitivity is not None and scope.sensitivity.uses(c.error_message)):
        return ""
    return m.strip()


def _known_after_apply(c: Condition, scope: Scope, context: str, type_of: TypeOf | None) -> Diagnostic:
    """terraform's warning for a condition not known yet: the known values it refers to, and of
    the unknown ones the type where it is known ("is a string")."""
    where = SourceRange(c.range.filename, c.range.line)
    d = (EvalError("Check block assertion known after apply", _KNOWN_AFTER_APPLY, c.condition.line)
         .blame(c.condition, scope).error(where, context=context))
    said = dict(d.expr_values)
    if type_of is not None:
        for node in traversals(c.condition, frozenset()):
            text = traversal_text(node)
            if text in said:
                continue
            try:
                v = evaluate(node, scope)
            except EvalError:
                continue
            if v is UNKNOWN_VALUE:
                root, names = path_of(node)
                ty = type_of(root, names)
                if ty == "dynamic" and root == "terraform_data" and names[-1:] == ("output",):
                    ty = _input_type(node, scope)  # terraform_data plans its output unknown, of its input's type
                if ty is not None and ty != "dynamic":
                    said[text] = f"is a {friendly_name(ty)}"
    return dataclasses.replace(d, severity="warning", expr_values=tuple(sorted(said.items())),
                               subject=condition_subject(c))


def condition_subject(c: Condition) -> SourceRange:
    """Where terraform points a condition's diagnostic: the start of its expression (the column
    and byte after ``condition =``), when the source line can be read."""
    r = c.range
    code = source_line(r.filename, r.line)
    if code is None or not r.column or "=" not in code[r.column - 1:]:
        return SourceRange(r.filename, r.line)
    eq = code.index("=", r.column - 1)
    start = eq + 1 + len(code[eq + 1:]) - len(code[eq + 1:].lstrip())
    return SourceRange(r.filename, r.line, start + 1, r.byte + start - (r.column - 1))


def check_all(root: Module, instances: ModuleInstances, data: Mapping[str, tuple[str, str]],
              planning: bool, type_of: Callable[[Module], TypeOf] | None = None
              ) -> tuple[tuple[CheckResult, ...], list[Diagnostic]]:
    """Every check block of ``root``'s tree in every instance of its module: the results (for the
    plan, or the state after apply) and the diagnostics, in the order the blocks are written.
    ``data``: each check object's scoped data source read, as (status, failure message), by the
    object's address."""
    results: list[CheckResult] = []
    diags: list[Diagnostic] = []
    for m in root.tree():
        if not m.checks:
            continue
        prefix = ".".join(f"module.{n}" for n in m.path)
        types = type_of(m) if type_of is not None else None
        for cc in m.checks.values():
            objects = []
            for mi in instances.of_config(m.path):
                addr = check_object(mi.path, cc.name)
                status, why = data.get(addr, (None, "")) if cc.data is not None else (None, "")
                obj, odiags = evaluate_check(cc, addr, mi.scope(), status, why, planning, types)
                objects.append(obj)
                diags.extend(odiags)
            config_addr = f"{prefix}.check.{cc.name}" if prefix else f"check.{cc.name}"
            results.append(CheckResult(config_addr, summarize(o.status for o in objects), tuple(objects)))
    return tuple(results), diags


def _input_type(node: E.Expr, scope: Scope) -> Any:
    assert isinstance(node, E.GetAttr)
    try:
        v = evaluate(E.GetAttr(node.line, node.obj, "input"), scope)
    except EvalError:
        return None
    return None if v is UNKNOWN_VALUE or v is None or not is_wholly_known(v) else value_type(v)


__all__ = ["TypeOf", "check_all", "condition_subject", "evaluate_check"]

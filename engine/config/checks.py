"""``check`` blocks: assertions about the infrastructure as a whole, reported as warnings.

A check block holds at least one ``assert`` block (``condition``, ``error_message``) and at most
one data source, *scoped* to it: read at plan and again at apply, and a read that fails is a
warning about the check, not an error of the run. Decoding refuses what terraform's
``decodeCheckBlock`` refuses, in its words; :func:`evaluate_check` evaluates one instance of a
block the same way while planning and applying.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.addrs import ModulePath
from engine.config.check_results import (
    ERROR,
    FAIL,
    PASS,
    UNKNOWN,
    CheckObject,
    CheckResult,
    summarize,
)
from engine.config.conditions import check as check_conditions
from engine.config.model import CheckConfig, Condition, Module
from engine.config.module_instances import ModuleInstances
from engine.diagnostics import Diagnostic, SourceRange, decl_range, error, source_line
from engine.lang import expr as E
from engine.lang.diagnostic_values import path_of, traversal_text, traversals
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.lang.hcl import Block
from engine.values import UNKNOWN as UNKNOWN_VALUE
from engine.values import friendly_name, is_wholly_known, value_type

_BAD_IDENTIFIER = ("A name must start with a letter or underscore and may contain only letters, digits, "
                   "underscores, and dashes.")
_NO_REFERENCES = ("The condition expression must refer to at least one object from elsewhere in the "
                  "configuration, or else its result would not be checking anything.")
_KNOWN_AFTER_APPLY = ("The condition could not be evaluated at this time, a result will be known when this plan "
                      "is applied.")
NESTED_META = 'The "count" and "for_each" meta-arguments are not supported within nested data blocks.'


def decode_check(b: Block) -> tuple[CheckConfig | None, Block | None, list[Diagnostic]]:
    """A ``check`` block: its configuration (None when it cannot be had), its scoped ``data``
    block (for the caller to declare among the module's data sources), and its mistakes."""
    diags: list[Diagnostic] = []
    if len(b.labels) != 1:
        return None, None, [error("Missing name for check", 'A check block needs one label: its name.', b.range)]
    name = b.labels[0]
    if not re.match(r"[^\W\d][\w-]*\Z", name):
        diags.append(error("Invalid check block name", _BAD_IDENTIFIER, b.range))
    for an, a in b.attributes.items():
        diags.append(error("Unsupported argument", f'An argument named "{an}" is not expected here.', a.range))
    data: Block | None = None
    asserts: list[Condition] = []
    for nb in b.blocks:
        if nb.type == "data":
            if data is not None:
                diags.append(error("Multiple data resource blocks", "This check block already has a data "
                                   f"resource defined at {decl_range(data.range)}.",
                                   SourceRange(nb.range.filename, nb.range.line, nb.range.column, nb.range.byte)))
                continue
            bad = [m for m in ("count", "for_each") if m in nb.attributes]
            for m in bad:
                diags.append(error(f'Invalid "{m}" attribute', NESTED_META, nb.attributes[m].range))
            if not bad:
                data = nb
        elif nb.type == "assert":
            got = _assert(nb, diags)
            if got is not None:
                asserts.append(got)
        else:
            diags.append(error("Unsupported block type", f'Blocks of type "{nb.type}" are not expected here.',
                               nb.range))
    if not asserts:  # as terraform's: an assert block with mistakes is not counted
        diags.append(error("Zero assert blocks", "Check blocks must have at least one assert block.",
                           b.range.header()))
    return CheckConfig(name, b.range, tuple(asserts), context=b.context()), data, diags


def _assert(nb: Block, diags: list[Diagnostic]) -> Condition | None:
    cond, message = nb.attributes.get("condition"), nb.attributes.get("error_message")
    ok = True
    for name, a in (("condition", cond), ("error_message", message)):
        if a is None:
            ok = False
            diags.append(error("Missing required argument", f'The argument "{name}" is required, but no '
                               "definition was found.", nb.range))
    for name, a in nb.attributes.items():
        if name not in ("condition", "error_message"):
            ok = False
            diags.append(error("Unsupported argument", f'An argument named "{name}" is not expected here.',
                               a.range))
    for inner in nb.blocks:
        ok = False
        diags.append(error("Unsupported block type", f'Blocks of type "{inner.type}" are not expected here.',
                           inner.range))
    if cond is not None and not any(True for _ in E.references(cond.expr)):
        ok = False
        diags.append(error("Invalid assert expression", _NO_REFERENCES, cond.range))
    if not ok or cond is None or message is None:
        return None
    return Condition("assert", cond.expr, message.expr, cond.range, nb.range)


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
    for c in cc.asserts:
        failed, undecided = check_conditions((c,), scope, "assert", cc.context)
        if undecided:
            statuses.append(UNKNOWN)
            if planning:
                diags.append(_known_after_apply(c, scope, cc.context, type_of))
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
                message = _failure_message(c, scope, d)
                messages.append(message)
                d = dataclasses.replace(d, severity="warning", subject=condition_subject(c),
                                        detail=message or d.detail)  # trimmed, as terraform's
            diags.append(d)
    return CheckObject(addr, summarize(statuses), tuple(messages)), diags


def _failure_message(c: Condition, scope: Scope, d: Diagnostic) -> str:
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


def not_evaluated(root: Module) -> tuple[CheckResult, ...]:
    """What terraform records of the check blocks after a destroy: each one unknown, without
    objects."""
    return tuple(CheckResult(".".join([*(f"module.{n}" for n in m.path), "check", name]), UNKNOWN, None)
                 for m in root.tree() for name in m.checks)


def check_object(module: ModulePath, name: str) -> str:
    """The address of check block ``name``'s object in module instance ``module``."""
    return f"{module}.check.{name}" if module.steps else f"check.{name}"


def read_failure(errors: Sequence[Diagnostic]) -> str:
    """What terraform records of a scoped data source that failed to read (Go's ``diags.Err()``)."""
    if len(errors) == 1:
        d = errors[0]
        return f"{d.summary}: {d.detail}" if d.detail else d.summary
    lines = [f"{len(errors)} problems:\n"]
    lines += [f"- {d.summary}: {d.detail}" if d.detail else f"- {d.summary}" for d in errors]
    return "\n".join(lines)


def as_check_warnings(diags: Sequence[Diagnostic], context: str | None) -> list[Diagnostic]:
    """A scoped data source's diagnostics, as terraform reports them: every one a warning, in its
    check block."""
    return [dataclasses.replace(d, severity="warning", context=context or d.context) for d in diags]


def from_check_block(d: Diagnostic) -> bool:
    """Is ``d`` a warning a check block gave (an assertion, its scoped data source)?"""
    return d.severity == "warning" and d.context is not None and d.context.startswith(("check ", "check."))


__all__ = ["NESTED_META", "as_check_warnings", "check_all", "check_object", "from_check_block", "not_evaluated",
           "read_failure", "decode_check", "evaluate_check"]

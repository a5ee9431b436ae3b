"""``check`` blocks: assertions about the infrastructure as a whole, reported as warnings.

A check block holds at least one ``assert`` block (``condition``, ``error_message``) and at most
one data source, *scoped* to it: read at plan and again at apply, and a read that fails is a
warning about the check, not an error of the run. Decoding refuses what terraform's
``decodeCheckBlock`` refuses, in its words; :mod:`engine.config.check_eval` evaluates the blocks
(loading a configuration does not import it).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from engine.addrs import ModulePath
from engine.config.check_results import (
    UNKNOWN,
    CheckResult,
)
from engine.config.model import CheckConfig, Condition, Module
from engine.diagnostics import Diagnostic, SourceRange, decl_range, error
from engine.lang import expr as E
from engine.lang.hcl import Block

_BAD_IDENTIFIER = ("A name must start with a letter or underscore and may contain only letters, digits, "
                   "underscores, and dashes.")
NO_REFERENCES = ("The condition expression must refer to at least one object from elsewhere in the "
                  "configuration, or else its result would not be checking anything.")
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
        diags.append(error("Invalid assert expression", NO_REFERENCES, cond.value_range()))
    if not ok or cond is None or message is None:
        return None
    return Condition("assert", cond.expr, message.expr, cond.range, nb.range)

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


__all__ = ["NESTED_META", "as_check_warnings", "check_object", "decode_check", "from_check_block", "not_evaluated",
           "read_failure"]

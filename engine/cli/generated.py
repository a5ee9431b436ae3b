"""``plan -generate-config-out=FILE``: the file of configuration generated for import targets
that had none (:mod:`engine.planning.genconfig` generates it), and terraform's words around it."""

from __future__ import annotations

import os

from engine.diagnostics import Diagnostic, DiagnosticsError, error
from engine.lang.quote import go_quote
from engine.plans.plan import Plan
from engine.render.wordwrap import wrap

FILE_HEADER = ("# __generated__ by Terraform\n"
               "# Please review these resources and move them into your main configuration files.\n")
"""The first lines of a generated file (terraform's words, so the file reads the same)."""

EXPERIMENTAL = Diagnostic("warning", "Config generation is experimental",
                         "Generating configuration during import is currently experimental, and the generated "
                         "configuration format may change in future versions.")

def target_file_exists(path: str) -> Diagnostic | None:
    """terraform's refusal to write into a file that is already there (checked before planning,
    and again before writing)."""
    if not os.path.lexists(path):
        return None
    return error("Target generated file already exists",
                 "Terraform can only write generated config into a new file. Either choose a different target "
                 "location or move all existing configuration out of the target file, delete it and try again.")


def file_text(generated: list[tuple[str | None, str]]) -> str:
    """The generated file: the header, then per resource (import id, block) terraform's comment
    and the block."""
    parts = [FILE_HEADER]
    for ident, block in generated:
        head = "\n# __generated__ by Terraform" + (f" from {go_quote(ident)}" if ident else "") + "\n"
        parts.append(f"{head}{block}\n")
    return "".join(parts)


def check_generate_target(path: str, other_mode: bool) -> None:
    """terraform's refusals before planning: a destroy or refresh-only plan generates nothing, and
    FILE must not exist yet."""
    if other_mode:
        raise DiagnosticsError([error("Invalid generate-config-out flag",
                                      "Config can only be generated during a normal plan operation, and not "
                                      "during a refresh-only or destroy plan.")])
    exists = target_file_exists(path)
    if exists is not None:
        raise DiagnosticsError([exists])


def write_generated(plan: Plan, path: str) -> list[Diagnostic]:
    """Write FILE when a change of ``plan`` has generated configuration (nothing otherwise, as
    terraform creates the file lazily): terraform's experimental-feature warning once written, or
    the error that kept it from being written."""
    # (a resource whose plan failed has no change saying it is imported: terraform's comment
    # then names no id)
    imported = {c.addr for c in plan.changes if c.importing is not None}
    generated = [(ident if addr in imported else None, text) for addr, ident, text in plan.generated]
    if not generated:
        return []
    exists = target_file_exists(path)
    if exists is not None:
        return [exists]
    try:
        with open(path, "x", encoding="utf-8") as f:
            f.write(file_text(generated))
    except OSError as exc:
        return [error("Failed to create target generated file",
                      f"Terraform could not create the generated file ({path}) in the target directory: "
                      f"{exc.strerror}. Depending on the error message, this may be a bug in Terraform itself. "
                      "If so, please report it!")]
    # (terraform's says so only when the change it looked at last had configuration generated:
    # its flag is set per change, and its changes are in the order the walk finished them, so
    # whether it warns of a file it wrote varies from run to run; strata always does)
    return [EXPERIMENTAL]


def generated_note(path: str) -> str:
    """What terraform says after the plan when it wrote FILE."""
    return "\n" + wrap(f"strata has generated configuration and written it to {path}. Please review the "
                       "configuration and edit it as necessary before adding it to version control.", 78) + "\n"

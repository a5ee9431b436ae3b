"""The ``backend`` (and ``cloud``) block of a ``terraform`` block: where the state lives.

strata keeps its state in local files, so of terraform's backends it reads ``backend "local"``
only, with its two arguments, ``path`` (the default workspace's state file, ``terraform.tfstate``
when not given) and ``workspace_dir`` (the directory of the other workspaces' states,
``terraform.tfstate.d``). Any other backend, and ``cloud``, is refused with a diagnostic: running
on a local file while the configuration says the state is elsewhere would plan to create
everything again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.diagnostics import Diagnostic, SourceRange, decl_range, error
from engine.frozen import frozen
from engine.lang import expr as E
from engine.lang.number import to_string as number_to_string

if TYPE_CHECKING:
    from engine.lang.hcl import Block

DEFAULT_STATE_FILE = "terraform.tfstate"
DEFAULT_WORKSPACE_DIR = "terraform.tfstate.d"


@frozen
class BackendConfig:
    """A ``backend "local"`` block as configured. ``path`` and ``workspace_dir`` are never empty:
    None where the block leaves them out (terraform's defaults then apply)."""

    path: str | None
    workspace_dir: str | None
    range: SourceRange


def read_backend_blocks(terraform_blocks: list[Block]) -> tuple[BackendConfig | None, list[Diagnostic]]:
    """The local backend the ``terraform`` blocks of a module configure (None: none, which is
    terraform's default local backend), and the mistakes in them: a backend strata does not
    support, a second backend block, an argument the local backend does not take, a value that
    is not a literal string (or number) or is empty, each in terraform's words."""
    found: BackendConfig | None = None
    first: Block | None = None
    diags: list[Diagnostic] = []
    for tb in terraform_blocks:
        for nb in tb.blocks:
            if nb.type not in ("backend", "cloud"):
                continue
            if first is not None:
                diags.append(error("Duplicate backend configuration",
                                   "A module may have only one backend configuration. The backend was "
                                   f"previously configured at {decl_range(first.range)}.", nb.range.header()))
                continue
            first = nb
            if nb.type == "cloud" or nb.labels[:1] != ("local",):
                what = f'backend "{nb.labels[0]}"' if nb.type == "backend" and nb.labels else nb.type
                diags.append(error("Unsupported backend",
                                   f"strata keeps state in a local file (terraform.tfstate, or -state=PATH); "
                                   f"the {what} block is not supported, and ignoring it would put your state "
                                   "somewhere you do not expect.", nb.range))
                continue
            found = _local(nb, diags)
    return found, diags


def _local(b: Block, diags: list[Diagnostic]) -> BackendConfig:
    values: dict[str, str | None] = {"path": None, "workspace_dir": None}
    for name, a in b.attributes.items():
        if name not in values:
            import difflib

            hint = difflib.get_close_matches(name, sorted(values), n=1)
            diags.append(error("Unsupported argument", f'An argument named "{name}" is not expected here.'
                               + (f' Did you mean "{hint[0]}"?' if hint else ""), a.range))
            continue
        e = a.expr
        if isinstance(e, E.Template) and all(isinstance(p, str) for p in e.parts):
            text = "".join(str(p) for p in e.parts)
        elif isinstance(e, E.Literal) and e.value is not None and not isinstance(e.value, bool):
            text = number_to_string(e.value)  # a string as it is; a number as terraform converts it
        else:
            diags.append(error("Variables not allowed", "Variables may not be used here.", a.range))
            continue
        if not text:
            what = "state file" if name == "path" else "workspace directory"
            diags.append(error(f"Invalid local {what} path",
                               f'The "{name}" attribute value must not be empty.', a.range))
            continue
        values[name] = text
    return BackendConfig(values["path"], values["workspace_dir"], b.range)

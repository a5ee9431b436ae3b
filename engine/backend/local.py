"""terraform's local backend: which file holds the state a command works on.

As terraform 1.11 decides it, in this order:

- ``-state=PATH`` wins over everything (terraform's "legacy" option for the local backend);
- otherwise the current workspace's state (:mod:`engine.backend.workspaces`: ``TF_WORKSPACE``,
  else the name ``workspace select`` recorded, else ``default``, or the name a program gives);
- the ``default`` workspace's state is the backend's ``path`` (``terraform.tfstate`` when the
  configuration has no ``backend "local"`` block or leaves ``path`` out); any other workspace's is
  ``<workspace_dir>/<name>/terraform.tfstate`` (``workspace_dir`` defaults to
  ``terraform.tfstate.d``), whatever ``path`` says.

Relative paths are relative to the working directory (the one ``-chdir`` switched to).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.backend.workspaces import (
    DEFAULT_WORKSPACE,
    create_workspace,
    current_workspace,
    list_workspaces,
    select_workspace,
    valid_workspace_name,
    workspace_state_file,
)
from engine.config.backend import BackendConfig, read_backend_blocks
from engine.diagnostics import DiagnosticsError, error, errors_of

if TYPE_CHECKING:
    from engine.lang.hcl import Block

__all__ = ["DEFAULT_WORKSPACE", "check_selected_workspace", "current_workspace", "read_backend", "state_file"]


def state_file(directory: str, explicit: str | None = None, workspace_name: str | None = None) -> str:
    """The state file for a command run in ``directory``: ``explicit`` (``-state``) when given,
    else the workspace's (``workspace_name``; None: the current one) under the configured local
    backend. As terraform's local backend does when it opens a workspace's state, a workspace
    other than ``default`` comes into existence (its directory), even with ``-state``. Raises
    :class:`DiagnosticsError` for a backend strata does not support or an invalid workspace."""
    if workspace_name is None:
        workspace_name = current_workspace(directory)
    elif not valid_workspace_name(workspace_name):
        raise DiagnosticsError([error("Invalid workspace name",
                                      f'"{workspace_name}" is not a valid workspace name: a workspace name is '
                                      "made of letters, digits and - _ . ~ $ & + : = @ only.")])
    if workspace_name == DEFAULT_WORKSPACE and explicit is not None:
        return os.path.join(directory, explicit)  # the configuration's backend is not read
    backend = read_backend(directory)
    if workspace_name != DEFAULT_WORKSPACE:
        try:
            create_workspace(directory, workspace_name, backend)
        except OSError as exc:
            raise DiagnosticsError([error("Failed to create the workspace",
                                          f"The directory of workspace {workspace_name!r} could not be made: "
                                          f"{exc.strerror or exc}.")]) from None
    if explicit is not None:
        return os.path.join(directory, explicit)  # an absolute path stays as it is
    return workspace_state_file(directory, workspace_name, backend)


SELECT_PROMPT = ("\nThe currently selected workspace ({name}) does not exist.\n"
                 "  This is expected behavior when the selected workspace did not have an\n"
                 "  existing non-empty state. Please enter a number to select a workspace:\n  \n"
                 "{choices}\n  Enter a value: ")
"""terraform's question when ``init`` finds the selection missing among several workspaces."""


def check_selected_workspace(directory: str, ask: Callable[[str], str] | None = None) -> None:
    """What ``init`` checks of the selected workspace when the configuration has a ``backend``
    block, as terraform 1.11 does: a workspace that exists is kept; one that does not is replaced
    by ``default`` when that is the only workspace; otherwise the user is asked to choose one by
    number (``ask``: shows the question, returns the answer, raises EOFError when there is none),
    and without input (None) it is an error. Without a backend block, nothing is checked (neither does terraform)."""
    backend = read_backend(directory)
    if backend is None:
        return
    try:
        names = list_workspaces(directory, backend)
    except OSError as exc:
        raise DiagnosticsError([error(f"Failed to get existing workspaces: {exc}", "")]) from None
    name = current_workspace(directory)
    if name in names:
        return
    if len(names) == 1:
        select_workspace(directory, names[0])
        return
    if ask is None:
        raise DiagnosticsError([error(f'Currently selected workspace "{name}" does not exist', "")])
    try:
        answer = ask(SELECT_PROMPT.format(name=name, choices="".join(f"  {i}. {n}\n"
                                                                    for i, n in enumerate(names, 1))))
    except EOFError:
        raise DiagnosticsError([error("Failed to select workspace: EOF", "")]) from None
    try:
        chosen = int(answer.strip())
    except ValueError:
        chosen = 0
    if not 1 <= chosen <= len(names):
        raise DiagnosticsError([error("Failed to select workspace: input not a valid number", "")])
    select_workspace(directory, names[chosen - 1])


def read_backend(directory: str) -> BackendConfig | None:
    """The ``backend "local"`` block of the configuration in ``directory`` (None: there is none),
    read without loading the whole module: only files that mention a backend are parsed, so
    commands that never load the configuration (``output``, ``state list``) stay fast."""
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return None  # no configuration to read: loading the module, where there is one, says why
    terraform_blocks: list[Block] = []
    # the files load_module reads (engine.config.module.config_files, not imported: it brings the parser)
    for name in names:
        if not (name.endswith(".tf") or name.endswith(".tf.json")) or name.startswith("."):
            continue
        try:
            with open(os.path.join(directory, name), "rb") as f:
                raw = f.read()
        except OSError:
            continue  # loading the module reports it, where the module is loaded
        if b"backend" not in raw and b"cloud" not in raw:
            continue
        text = raw.decode("utf-8", errors="replace")
        # the parser costs its import only where a backend is written
        if name.endswith(".json"):
            from engine.lang.hcl_json import parse_json

            blocks = parse_json(text, name)
        else:
            from engine.lang.hcl import parse_hcl

            blocks = parse_hcl(text, name)
        terraform_blocks += [b for b in blocks if b.type == "terraform"]
    backend, diags = read_backend_blocks(terraform_blocks)
    if errors_of(diags):
        raise DiagnosticsError(errors_of(diags))
    return backend

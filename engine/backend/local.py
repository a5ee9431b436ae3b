"""terraform's local backend: which file holds the state a command works on.

As terraform 1.11 decides it, in this order:

- ``-state=PATH`` wins over everything (terraform's "legacy" option for the local backend);
- otherwise the current workspace: ``TF_WORKSPACE`` when set, else the name ``terraform
  workspace select`` wrote to ``.terraform/environment`` (``$TF_DATA_DIR/environment``), else
  ``default``;
- the ``default`` workspace's state is the backend's ``path`` (``terraform.tfstate`` when the
  configuration has no ``backend "local"`` block or leaves ``path`` out); any other workspace's is
  ``<workspace_dir>/<name>/terraform.tfstate`` (``workspace_dir`` defaults to
  ``terraform.tfstate.d``), whatever ``path`` says.

Relative paths are relative to the working directory (the one ``-chdir`` switched to). strata
has no ``workspace`` command: it works on the workspace terraform would, and an invalid workspace
name is refused, never turned into a path outside the workspace directory.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from engine.config.backend import (
    DEFAULT_STATE_FILE,
    DEFAULT_WORKSPACE_DIR,
    BackendConfig,
    read_backend_blocks,
)
from engine.diagnostics import DiagnosticsError, error, errors_of

if TYPE_CHECKING:
    from engine.lang.hcl import Block

DEFAULT_WORKSPACE = "default"

# Go's url.PathEscape(name) == name: what terraform accepts as a workspace name
_VALID_WORKSPACE = re.compile(r"[A-Za-z0-9\-_.~$&+:=@]+")


def state_file(directory: str, explicit: str | None = None) -> str:
    """The state file for a command run in ``directory``: ``explicit`` (``-state``) when given,
    else the current workspace's state under the configured local backend. Raises
    :class:`DiagnosticsError` for a backend strata does not support or an invalid workspace."""
    if explicit is not None:
        return os.path.join(directory, explicit)  # an absolute path stays as it is
    backend = read_backend(directory)
    workspace = current_workspace(directory)
    if workspace == DEFAULT_WORKSPACE:
        path = backend.path if backend is not None and backend.path else DEFAULT_STATE_FILE
        return os.path.join(directory, path)
    wsdir = backend.workspace_dir if backend is not None and backend.workspace_dir else DEFAULT_WORKSPACE_DIR
    return os.path.join(directory, wsdir, workspace, DEFAULT_STATE_FILE)


def current_workspace(directory: str) -> str:
    """The workspace terraform would use in ``directory``: ``TF_WORKSPACE``, else the one
    recorded in the data directory's ``environment`` file, else ``default``."""
    name = os.environ.get("TF_WORKSPACE", "")
    if name:
        if not _VALID_WORKSPACE.fullmatch(name):
            raise DiagnosticsError([error("Invalid workspace name set using TF_WORKSPACE",
                                          f'"{name}" is not a valid workspace name: a workspace name is made '
                                          "of letters, digits and - _ . ~ only, as it names a directory.")])
        return name
    data_dir = os.environ.get("TF_DATA_DIR") or ".terraform"
    env_file = os.path.join(directory, data_dir, "environment")
    try:
        with open(env_file, encoding="utf-8") as f:
            name = f.read().strip()
    except (FileNotFoundError, NotADirectoryError):
        return DEFAULT_WORKSPACE
    except (OSError, UnicodeDecodeError) as exc:
        raise DiagnosticsError([error("Failed to read the selected workspace",
                                      f"The workspace selected in {env_file} could not be read: {exc}.")]) from None
    if not name:
        return DEFAULT_WORKSPACE
    if not _VALID_WORKSPACE.fullmatch(name):
        raise DiagnosticsError([error("Invalid workspace name",
                                      f'The workspace selected in {env_file}, "{name}", is not a valid workspace '
                                      "name: a workspace name is made of letters, digits and - _ . ~ only.")])
    return name


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

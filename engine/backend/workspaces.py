"""The local backend's workspaces: named states beside the default one, as terraform 1.11 keeps them.

A workspace is a name. ``default`` always exists, and its state is the backend's ``path``
(:mod:`engine.backend.local`). Every other workspace is a directory ``<workspace_dir>/NAME``
(``terraform.tfstate.d/NAME`` unless ``backend "local" { workspace_dir = ... }`` says otherwise)
holding its ``terraform.tfstate``: the workspace exists exactly when the directory does, whether
or not a state was ever written in it.

Which workspace is current: ``TF_WORKSPACE`` when set and not empty (it *overrides* the selection),
else the name ``workspace select`` wrote to ``environment`` in the data directory
(``.terraform``, or ``$TF_DATA_DIR``), else ``default``.

This is not :class:`engine.api.Workspace` (a configuration directory with a program's settings):
here a workspace is one of the states a configuration directory can work on; the API selects one
with its ``workspace_name``.
"""

from __future__ import annotations

import os
import re

from engine.config.backend import DEFAULT_STATE_FILE, DEFAULT_WORKSPACE_DIR, BackendConfig
from engine.diagnostics import DiagnosticsError, error
from engine.frozen import frozen

DEFAULT_WORKSPACE = "default"
ENVIRONMENT_FILE = "environment"
WORKSPACE_ENV_VAR = "TF_WORKSPACE"

# the names Go's url.PathEscape leaves as they are: terraform's test for a workspace name (the
# empty name passes it too, and means the default workspace once selected)
_URL_SAFE = re.compile(r"[A-Za-z0-9\-_.~$&+:=@]*")

INVALID_ENV_NAME = "Invalid workspace name set using TF_WORKSPACE"


def valid_workspace_name(name: str) -> bool:
    """terraform's rule: a name that escaping as a URL path segment would not change, so that it
    can name a directory (no ``/``, no spaces, ASCII only)."""
    return _URL_SAFE.fullmatch(name) is not None


@frozen
class Selection:
    """The current workspace's ``name`` as terraform reads it, not checked, and whether
    ``TF_WORKSPACE`` set it (``overridden``: ``workspace select`` and ``new`` refuse to change
    it then)."""

    name: str
    overridden: bool


def data_dir(directory: str) -> str:
    """The working directory's data directory: ``$TF_DATA_DIR`` (relative to ``directory``), else
    ``.terraform``."""
    return os.path.join(directory, os.environ.get("TF_DATA_DIR") or ".terraform")


def current_selection(directory: str) -> Selection:
    """The current workspace, as terraform's ``WorkspaceOverridden`` reads it: nothing is checked
    (``workspace select`` must be able to leave a selection that is not valid), and an environment
    file that cannot be read selects ``default``."""
    name = os.environ.get(WORKSPACE_ENV_VAR, "")
    if name:
        return Selection(name, True)
    try:
        with open(os.path.join(data_dir(directory), ENVIRONMENT_FILE), "rb") as f:
            name = f.read().decode("utf-8", errors="replace").strip()
    except OSError:
        name = ""
    return Selection(name or DEFAULT_WORKSPACE, False)


def current_workspace(directory: str) -> str:
    """The workspace the state commands work on in ``directory``. Raises :class:`DiagnosticsError`
    with terraform's error for a ``TF_WORKSPACE`` that is not a valid name; a name selected in the
    environment file that is not valid is refused too (terraform would use it as a path)."""
    sel = current_selection(directory)
    if valid_workspace_name(sel.name):
        return sel.name
    if sel.overridden:
        raise DiagnosticsError([error(INVALID_ENV_NAME, "")])
    env_file = os.path.join(data_dir(directory), ENVIRONMENT_FILE)
    raise DiagnosticsError([error("Invalid workspace name",
                                  f'The workspace selected in {env_file}, "{sel.name}", is not a valid workspace '
                                  "name: a workspace name is made of letters, digits and - _ . ~ $ & + : = @ only.")])


def select_workspace(directory: str, name: str) -> None:
    """Record ``name`` as the selected workspace (the environment file, as terraform writes it:
    the name alone, no newline)."""
    os.makedirs(data_dir(directory), 0o755, exist_ok=True)
    with open(os.path.join(data_dir(directory), ENVIRONMENT_FILE), "wb") as f:
        f.write(name.encode())


def workspace_dir(directory: str, backend: BackendConfig | None) -> str:
    """The directory of the workspaces other than ``default``."""
    configured = backend.workspace_dir if backend is not None else None
    return os.path.join(directory, configured or DEFAULT_WORKSPACE_DIR)


def workspace_state_file(directory: str, name: str, backend: BackendConfig | None) -> str:
    """Where workspace ``name``'s state lives: the backend's ``path`` for ``default`` (and the
    empty name), else ``<workspace_dir>/NAME/terraform.tfstate``, whatever ``path`` says."""
    if name in (DEFAULT_WORKSPACE, ""):
        return os.path.join(directory, backend.path if backend is not None and backend.path else DEFAULT_STATE_FILE)
    return os.path.join(workspace_dir(directory, backend), name, DEFAULT_STATE_FILE)


def list_workspaces(directory: str, backend: BackendConfig | None) -> list[str]:
    """The workspaces that exist: ``default`` first, then the directories in the workspace
    directory, sorted by their bytes (Go's sort of strings). Raises OSError when the workspace
    directory exists but cannot be read."""
    try:
        entries = list(os.scandir(workspace_dir(directory, backend)))
    except FileNotFoundError:
        return [DEFAULT_WORKSPACE]
    # a link to a directory is not a workspace: Go's ReadDir does not follow it
    names = sorted((e.name for e in entries if e.is_dir(follow_symlinks=False)), key=lambda n: n.encode())
    return [DEFAULT_WORKSPACE, *names]


def create_workspace(directory: str, name: str, backend: BackendConfig | None) -> None:
    """Make workspace ``name`` exist (its directory; its state is written by the first command
    that changes it), as terraform's local backend does whenever it opens a workspace's state.
    Nothing for ``default``. Raises OSError when the directory cannot be made."""
    if name == DEFAULT_WORKSPACE:
        return
    path = os.path.join(workspace_dir(directory, backend), name)
    if os.path.isdir(path):
        return
    if os.path.lexists(path):  # a file of that name: Go's MkdirAll says so
        raise NotADirectoryError(20, "not a directory", path)
    os.makedirs(path, 0o755, exist_ok=True)


def delete_workspace(directory: str, name: str, backend: BackendConfig | None) -> None:
    """Remove workspace ``name``'s directory and all in it. Raises :class:`ValueError` with
    terraform's words for ``default`` (and the empty name), OSError when removing fails."""
    if name == "":
        raise ValueError("empty state name")
    if name == DEFAULT_WORKSPACE:
        raise ValueError("cannot delete default state")
    path = os.path.join(workspace_dir(directory, backend), name)
    if os.path.islink(path) or not os.path.isdir(path):
        if os.path.lexists(path):
            os.unlink(path)
        return
    import shutil  # here: a plan has no use for it (start-up)

    shutil.rmtree(path)

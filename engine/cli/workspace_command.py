"""``strata workspace new|select|list|show|delete``: the local backend's workspaces
(:mod:`engine.backend.workspaces`), with terraform 1.11's flags, checks (in its order), messages
and exit statuses. It runs without the event loop.

Messages go where terraform's do: what a subcommand did on standard output, what stopped it on
standard error (a plain line, or a diagnostic where terraform shows one). strata's output is never
colored, so the texts are terraform's ``-no-color`` ones, with strata's name where terraform says
its own.
"""

from __future__ import annotations

import os
import sys

from engine.backend.workspaces import (
    DEFAULT_WORKSPACE,
    INVALID_ENV_NAME,
    create_workspace,
    current_selection,
    delete_workspace,
    list_workspaces,
    select_workspace,
    valid_workspace_name,
    workspace_state_file,
)
from engine.cli.args import Args, parse_duration
from engine.config.backend import BackendConfig
from engine.diagnostics import Diagnostic, DiagnosticsError, StrataError, error
from engine.lang.quote import go_quote

# terraform's texts (internal/command/workspace_command.go), "%s" where it has %q
DOES_NOT_EXIST = ("\nWorkspace %s doesn't exist.\n\nYou can create this workspace with the \"new\" subcommand \n"
                  "or include the \"-or-create\" flag with the \"select\" subcommand.")
CREATED = ("Created and switched to workspace %s!\n\nYou're now on a new, empty workspace. Workspaces isolate "
           "their state,\nso if you run \"strata plan\" strata will not see any existing state\n"
           "for this configuration.")
DELETE_CURRENT = ("Workspace %s is your active workspace.\n\nYou cannot delete the currently active workspace. "
                  "Please switch\nto another workspace and try again.")
NOT_EMPTY_WARNING = ("WARNING: %s was non-empty.\nThe resources managed by the deleted workspace may still exist,\n"
                     "but are no longer manageable by strata since the state has\nbeen deleted.\n")
INVALID_NAME = ("\nThe workspace name %s is not allowed. The name must contain only URL safe\n"
                "characters, and no path separators.\n")
OVERRIDDEN_NOTE = "\n\nThe active workspace is being overridden using the TF_WORKSPACE environment\nvariable.\n"
OVERRIDDEN_SELECT = ("\nThe selected workspace is currently overridden using the TF_WORKSPACE\nenvironment variable.\n\n"
                     "To select a new workspace, either update this environment variable or unset\n"
                     "it and then run this command again.\n")
OVERRIDDEN_NEW = ("\nThe workspace is currently overridden using the TF_WORKSPACE environment\nvariable. You cannot "
                  "create a new workspace when using this setting.\n\nTo create a new workspace, either unset this "
                  "environment variable or update it\nto match the workspace name you are trying to create, and "
                  "then run this command\nagain.\n")
NOT_EMPTY = ("Workspace %s is currently tracking the following resource instances:%s\n\nDeleting this workspace "
             "would cause strata to lose track of any associated remote objects, which would then require you to "
             "delete them manually outside of strata. You should destroy these objects with strata before deleting "
             "the workspace.\n\nIf you want to delete this workspace anyway, and have strata forget about these "
             "managed objects, use the -force option to disable this safety check.")

HELP = {
    "": """Usage: strata [global options] workspace

  new, list, show, select and delete strata workspaces.

Subcommands:
    delete    Delete a workspace
    list      List Workspaces
    new       Create a new workspace
    select    Select a workspace
    show      Show the name of the current workspace
""",
    "new": """Usage: strata [global options] workspace new [OPTIONS] NAME

  Create a new strata workspace.

Options:

    -lock=false         Don't hold a state lock during the operation. This is
                        dangerous if others might concurrently run commands
                        against the same workspace.

    -lock-timeout=0s    Duration to retry a state lock.

    -state=path         Copy an existing state file into the new workspace.
""",
    "select": """Usage: strata [global options] workspace select NAME

  Select a different strata workspace.

Options:

    -or-create=false    Create the strata workspace if it doesn't exist.
""",
    "list": "Usage: strata [global options] workspace list\n\n  List strata workspaces.\n",
    "show": "Usage: strata [global options] workspace show\n\n  Show the name of the current workspace.\n",
    "delete": """Usage: strata [global options] workspace delete [OPTIONS] NAME

  Delete a strata workspace


Options:

  -force             Remove a workspace even if it is managing resources.
                     strata can no longer track or manage the workspace's
                     infrastructure.

  -lock=false        Don't hold a state lock during the operation. This is
                     dangerous if others might concurrently run commands
                     against the same workspace.

  -lock-timeout=0s   Duration to retry a state lock.
""",
}

_FLAGS = {  # each subcommand's own flags (terraform's flag sets); -no-color and -chdir are global
    "new": frozenset({"lock", "lock-timeout", "state"}),
    "select": frozenset({"or-create"}),
    "list": frozenset(),
    "show": frozenset(),
    "delete": frozenset({"force", "lock", "lock-timeout"}),
}
_GLOBAL = frozenset({"no-color", "chdir", "help", "h"})


class _Stop(StrataError):
    """The subcommand ends here with ``code``, having said why."""

    def __init__(self, code: int = 1) -> None:
        self.code = code


def cmd_workspace(a: Args) -> int:
    """Run ``strata workspace SUBCOMMAND``; its exit status."""
    sub = a.command[1] if len(a.command) > 1 else ""
    if a.flags.get("help") or a.flags.get("h"):
        sys.stdout.write(HELP.get(sub, HELP[""]))
        return 0
    if sub not in _FLAGS:
        sys.stdout.write(HELP[""])  # as terraform: the usage, for a subcommand it does not know too
        return 1
    plain = bool(a.flags.get("no-color"))
    directory = a.flags.get("chdir", ".")
    given = (set(a.flags) | set(a.lists) | ({"var"} if a.var_args else set())
             | ({"replace"} if a.replace else set()) | ({"target"} if a.targets else set()))
    # as Go's flag package fails: the usage first, then what was wrong
    for name in sorted(given - _GLOBAL - _FLAGS[sub]):
        _err(HELP[sub].rstrip("\n"))
        _err(f"Error parsing command-line flags: flag provided but not defined: -{name}\n")
        return 1
    if "lock-timeout" in a.flags:
        try:
            parse_duration(a.flags["lock-timeout"])
        except ValueError:
            _err(HELP[sub].rstrip("\n"))
            _err(f'Error parsing command-line flags: invalid value "{a.flags["lock-timeout"]}" for flag '
                 "-lock-timeout: parse error\n")
            return 1
    try:
        if sub == "show":
            return _show(directory)
        if sub == "list":
            return _list(directory, a, plain)
        if len(a.positional) != 1:
            _err("Expected a single argument: NAME.\n")
            sys.stdout.write(HELP[sub])
            return 1
        if sub == "new":
            return _new(directory, a, plain)
        if sub == "select":
            return _select(directory, a, plain)
        return _delete(directory, a, plain)
    except _Stop as stop:
        return stop.code


def _err(text: str) -> None:
    sys.stdout.flush()
    sys.stderr.write(text + "\n")  # terraform's Ui.Error: the message and a newline


def _diagnostics(diags: list[Diagnostic] | tuple[Diagnostic, ...], plain: bool) -> None:
    from engine.render.text import render_diagnostic

    sys.stdout.flush()
    for d in diags:
        sys.stderr.write(render_diagnostic(d, plain) + "\n\n")  # terraform's showDiagnostics


def _backend(directory: str, plain: bool, *, check_env: bool = True) -> BackendConfig | None:
    """The configured local backend, as terraform loads it before a subcommand's work: its
    mistakes, and a ``TF_WORKSPACE`` that is not a valid name (``check_env``), stop the command."""
    from engine.backend.local import read_backend

    try:
        backend = read_backend(directory)
    except DiagnosticsError as exc:
        _diagnostics(exc.diagnostics, plain)
        raise _Stop from None
    sel = current_selection(directory)
    if check_env and sel.overridden and not valid_workspace_name(sel.name):
        _diagnostics([error(INVALID_ENV_NAME, "")], plain)
        raise _Stop
    return backend


def _workspaces(directory: str, backend: BackendConfig | None, prefix: str = "") -> list[str]:
    try:
        return list_workspaces(directory, backend)
    except OSError as exc:
        _err(prefix + _go_error("open", exc))
        raise _Stop from None


def _go_error(op: str, exc: OSError) -> str:
    """An OSError as Go's ``*PathError`` says it: ``open PATH: no such file or directory``."""
    if not exc.filename:
        return str(exc)
    return f"{op} {os.path.normpath(exc.filename)}: {(exc.strerror or str(exc)).lower()}"  # a cleaned path, as Go's


def _show(directory: str) -> int:
    sel = current_selection(directory)
    if sel.overridden and not valid_workspace_name(sel.name):
        _err(f"Error selecting workspace: {INVALID_ENV_NAME}")
        return 1
    sys.stdout.write(sel.name + "\n")
    return 0


def _list(directory: str, a: Args, plain: bool) -> int:
    if a.positional:  # where terraform once took a configuration directory
        _err("Too many command line arguments. Did you mean to use -chdir?")
        return 1
    backend = _backend(directory, plain)
    names = _workspaces(directory, backend)
    sel = current_selection(directory)
    sys.stdout.write("".join(("* " if n == sel.name else "  ") + n + "\n" for n in names) + "\n")
    if sel.overridden:
        sys.stdout.write(OVERRIDDEN_NOTE + "\n")
    return 0


def _new(directory: str, a: Args, plain: bool) -> int:
    name = a.positional[0]
    if not valid_workspace_name(name):
        _err(INVALID_NAME % go_quote(name))
        return 1
    sel = current_selection(directory)
    if sel.overridden and sel.name != name:
        _err(OVERRIDDEN_NEW)
        return 1
    backend = _backend(directory, plain)
    if name in _workspaces(directory, backend, "Failed to get configured named states: "):
        _err(f"Workspace {go_quote(name)} already exists")
        return 1
    try:
        create_workspace(directory, name, backend)
    except OSError as exc:
        _err(_go_error("mkdir", exc))
        return 1
    try:
        select_workspace(directory, name)
    except OSError as exc:
        _err(f"Error selecting new workspace: {_go_error('open', exc)}")
        return 1
    sys.stdout.write(CREATED % go_quote(name) + "\n")
    source = a.flags.get("state")
    if not source:
        return 0
    source = source if directory == "." else os.path.join(directory, source)  # as given, in messages
    return _copy_state(workspace_state_file(directory, name, backend), source,
                       bool(a.flags.get("lock", True)), plain)


def _copy_state(target: str, source: str, lock: bool, plain: bool) -> int:
    """``new -state=PATH``: the state in PATH becomes the new workspace's first snapshot, as terraform
    writes it (a new lineage, serial 1), under the new workspace's lock ("workspace-new"), taken
    without waiting: terraform 1.11 accepts ``-lock-timeout`` here but does not use it."""
    import uuid

    from engine.provider.registry import Providers
    from engine.state.codec import decode_state
    from engine.state.model import State
    from engine.state.store import StateStore

    providers = Providers()
    store = StateStore(target, providers.dynamic_attrs)
    try:
        if lock:
            store.lock("workspace-new")
        try:
            with open(source, "rb") as f:
                data = f.read()
        except OSError as exc:
            _err(_go_error("open", exc))
            return 1
        state = decode_state(data, source, providers.dynamic_attrs) if data.strip() else State()
        state.lineage = str(uuid.uuid4())
        state.serial = 0
        store.commit(state)
    except DiagnosticsError as exc:
        _diagnostics(exc.diagnostics, plain)
        return 1
    finally:
        store.unlock()
    return 0


def _select(directory: str, a: Args, plain: bool) -> int:
    sel = current_selection(directory)
    if sel.overridden:
        _err(OVERRIDDEN_SELECT)
        return 1
    # a selected name that is not valid is no obstacle: selecting another is how to leave it
    backend = _backend(directory, plain, check_env=False)
    name = a.positional[0]
    if not valid_workspace_name(name):
        _err(INVALID_NAME % go_quote(name))
        return 1
    names = _workspaces(directory, backend)
    if name == sel.name:
        return 0  # already selected (terraform says nothing, even of a workspace that does not exist)
    created = name not in names
    if created:
        if not a.flags.get("or-create"):
            _err(DOES_NOT_EXIST % go_quote(name))
            return 1
        try:
            create_workspace(directory, name, backend)
        except OSError as exc:
            _err(_go_error("mkdir", exc))
            return 1
    try:
        select_workspace(directory, name)
    except OSError as exc:
        _err(_go_error("open", exc))
        return 1
    sys.stdout.write((CREATED if created else 'Switched to workspace %s.') % go_quote(name) + "\n")
    return 0


def _delete(directory: str, a: Args, plain: bool) -> int:
    backend = _backend(directory, plain)
    name = a.positional[0]
    if name not in _workspaces(directory, backend):
        _err(DOES_NOT_EXIST.strip() % go_quote(name))
        return 1
    if name == current_selection(directory).name:
        _err(DELETE_CURRENT % go_quote(name))
        return 1
    force = bool(a.flags.get("force"))
    tracked = _tracked_objects(workspace_state_file(directory, name, backend), bool(a.flags.get("lock", True)),
                               plain)
    if tracked and not force:
        listing = "".join(f"\n  - {t}" for t in tracked)
        _diagnostics([error("Workspace is not empty", NOT_EMPTY % (go_quote(name), listing))], plain)
        return 1
    try:
        delete_workspace(directory, name, backend)
    except ValueError as exc:
        _err(str(exc))
        return 1
    except OSError as exc:
        _err(_go_error("unlinkat", exc))
        return 1
    sys.stdout.write(f"Deleted workspace {go_quote(name)}!\n")
    if tracked:
        sys.stdout.write(NOT_EMPTY_WARNING % go_quote(name) + "\n")
    return 0


def _tracked_objects(path: str, lock: bool, plain: bool) -> list[str]:
    """The managed resource instance objects a workspace's state holds (deposed ones said so),
    read under its lock, released before the workspace is deleted (terraform's order; the lock
    records the operation under terraform's name for it, "state-replace-provider"). terraform's
    ``-lock-timeout`` is accepted but does not wait here, as in terraform 1.11: neither does this."""
    from engine.provider.registry import Providers
    from engine.state.store import StateStore

    providers = Providers()
    store = StateStore(path, providers.dynamic_attrs)
    try:
        if lock:
            store.lock("state-replace-provider")
        state = store.load(compact=False)
    except DiagnosticsError as exc:
        store.unlock()
        _diagnostics(exc.diagnostics, plain)
        raise _Stop from None
    store.unlock()
    tracked = []
    for addr, deposed, _obj, _provider in sorted(state.objects(), key=lambda t: (t[0].sort_key(), t[1] or "")):
        if addr.resource.mode != "managed":
            continue
        tracked.append(f"{addr} (deposed object {deposed})" if deposed else str(addr))
    return tracked


__all__ = ["DEFAULT_WORKSPACE", "cmd_workspace"]

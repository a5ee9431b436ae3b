"""``strata init``: install the providers the configuration requires from filesystem mirrors, and
write the dependency lock file -- in terraform's words, with strata's name where terraform says
its own. It runs without the event loop."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TextIO

import orjson

from engine.addrs import ProviderSource
from engine.cli.args import Args
from engine.diagnostics import Diagnostic, DiagnosticsError, error


def cmd_init(a: Args) -> int:
    from engine.backend.dependencies import builtin_served
    from engine.config.module import load_module
    from engine.config.requirements import provider_requirements
    from engine.install.cliconfig import load_installation
    from engine.install.installer import install
    from engine.install.lockfile import LOCK_FILE, read_lock, write_lock
    from engine.provider.registry import builtin_sources

    plain = bool(a.flags.get("no-color"))
    workdir = Path(a.flags.get("chdir", "."))
    try:
        installation = load_installation(a.lists.get("plugin-dir", []), workdir)
        if installation.warnings:
            _write(sys.stderr, "There are some problems with the CLI configuration:\n")
            _diagnostics(list(installation.warnings), plain)
        _write(sys.stdout, "Initializing the backend...\n")
        if not _install_modules(workdir, bool(a.flags.get("upgrade")), plain):
            return 1
        try:
            module = load_module(str(workdir))
        except DiagnosticsError as exc:
            raise DiagnosticsError([error(
                "strata encountered problems during initialisation, including problems with the configuration, "
                "described below.", "The strata configuration must be valid before initialization so that strata "
                "can determine which modules and providers need to be installed."), *exc.diagnostics]) from None
        from engine.backend.local import check_selected_workspace, current_workspace

        current_workspace(str(workdir))  # a TF_WORKSPACE that is not a valid name: terraform's error
        check_selected_workspace(str(workdir), _ask if _input_enabled(a) else None)
        builtin = builtin_sources()
        requirements = provider_requirements(module, builtin)
        previous = read_lock(workdir)
    except DiagnosticsError as exc:
        _diagnostics(list(exc.diagnostics), plain)
        return 1
    _write(sys.stdout, "Initializing provider plugins...\n")
    served = builtin_served(requirements)
    for source in sorted(requirements, key=str):
        if source.is_builtin:
            _write(sys.stdout, f"- {source} is built in to strata\n")
    outcome = install({s: r.constraints for s, r in requirements.items()}, previous, installation, workdir,
                      builtin=served, upgrade=bool(a.flags.get("upgrade")),
                      say=lambda line: _write(sys.stdout, line + "\n"))
    if outcome.diagnostics:
        _diagnostics(outcome.diagnostics, plain)
        return 1
    if a.lists.get("plugin-dir"):  # as terraform records them (it does not read them back in init)
        os.makedirs(workdir / ".terraform", exist_ok=True)
        (workdir / ".terraform" / "plugin_path").write_bytes(
            orjson.dumps([os.path.abspath(d) for d in a.lists["plugin-dir"]], option=orjson.OPT_INDENT_2))
    lock_path = workdir / LOCK_FILE
    existed = lock_path.exists()
    changed = outcome.lock != previous
    if changed and (outcome.lock or existed):
        write_lock(workdir, outcome.lock)
        if existed:
            _write(sys.stdout, "strata has made some changes to the provider dependency selections recorded\n"
                               "in the .terraform.lock.hcl file. Review those changes and commit them to your\n"
                               "version control system if they represent changes you intended to make.\n\n")
        else:
            _write(sys.stdout, "strata has created a lock file .terraform.lock.hcl to record the provider\n"
                               "selections it made above. Include this file in your version control repository\n"
                               "so that strata can guarantee to make the same selections by default when\n"
                               'you run "strata init" in the future.\n\n')
    else:
        _write(sys.stdout, "\n")
    if outcome.hashed_locally:
        _incomplete_lock_warning(outcome.hashed_locally, plain)
    _write(sys.stdout, _SUCCESS)
    return 0


def _input_enabled(a: Args) -> bool:
    """terraform's ``-input`` (default true), and ``TF_INPUT=0`` or ``false`` as ``-input=false``."""
    if "input" in a.flags:
        return bool(a.flags["input"])
    return os.environ.get("TF_INPUT", "").lower() not in ("0", "false")


def _ask(question: str) -> str:
    """``question`` on standard output, and the line answered on standard input (EOFError at its end)."""
    _write(sys.stdout, question)
    sys.stdout.flush()
    answer = sys.stdin.readline()
    if not answer:
        raise EOFError
    _write(sys.stdout, "\n")
    return answer


def _install_modules(workdir: Path, upgrade: bool, plain: bool) -> bool:
    """The modules the configuration calls, installed as terraform's init does; False (the
    errors reported) when some could not be."""
    from engine.install.cliconfig import service_hosts
    from engine.install.modules import has_module_calls, install_modules

    if not has_module_calls(workdir):
        return True
    _write(sys.stdout, "Upgrading modules...\n" if upgrade else "Initializing modules...\n")
    outcome = install_modules(workdir, upgrade=upgrade, hosts=service_hosts(),
                              say=lambda line: _write(sys.stdout, line + "\n"))
    if outcome.diagnostics:
        _diagnostics(outcome.diagnostics, plain)
        return False
    return True


def cmd_get(a: Args) -> int:
    """``strata get [-update]``: install the modules only, as ``terraform get`` does."""
    from engine.install.cliconfig import service_hosts
    from engine.install.modules import install_modules

    plain = bool(a.flags.get("no-color"))
    workdir = Path(a.flags.get("chdir", "."))
    outcome = install_modules(workdir, upgrade=bool(a.flags.get("update")), hosts=service_hosts(),
                              say=lambda line: _write(sys.stdout, line + "\n"))
    if outcome.diagnostics:
        _diagnostics(outcome.diagnostics, plain)
        return 1
    return 0


def _incomplete_lock_warning(sources: list[ProviderSource], plain: bool) -> None:
    from engine.install.mirror import current_platform
    from engine.render.text import render_diagnostic

    target = current_platform()
    d = Diagnostic("warning", "Incomplete lock file information for providers",
                   "Due to your customized provider installation methods, strata was forced to calculate lock "
                   "file checksums locally for the following providers:\n"
                   + "".join(f"  - {s.for_display()}\n" for s in sources)
                   + f"\nThe current .terraform.lock.hcl file only includes checksums for {target}, so strata "
                     "running on another platform will fail to install these providers.")
    _write(sys.stdout, render_diagnostic(d, plain) + "\n")


_SUCCESS = """strata has been successfully initialized!

You may now begin working with strata. Try running "strata plan" to see
any changes that are required for your infrastructure. All strata commands
should now work.

If you ever set or change modules or backend configuration for strata,
rerun this command to reinitialize your working directory. If you forget, other
commands will detect it and remind you to do so if necessary.
"""


def _write(stream: TextIO, text: str) -> None:
    stream.write(text)


def _diagnostics(diags: list[Diagnostic], plain: bool) -> None:
    from engine.render.text import render_diagnostic

    sys.stdout.flush()
    for d in diags:
        sys.stderr.write(render_diagnostic(d, plain) + "\n")
    sys.stderr.flush()

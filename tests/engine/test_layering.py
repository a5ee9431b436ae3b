"""engine/__init__.py's layering note is true: each package (a stage of the pipeline) imports only
itself and the layers above it, read from the note itself and from every module's imports; and no
two modules import each other, directly or through others."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import engine
from tests.conftest import REPO, Workdir

ENGINE = Path(engine.__file__).parent


def layers() -> dict[str, int]:
    doc = engine.__doc__ or ""
    block = doc.split("without cycles.", 1)[1].split("Providers (", 1)[0]
    out: dict[str, int] = {}
    for line in block.splitlines():
        left = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0] if line.startswith("    ") else ""
        if not left or not line[4:5].strip():
            continue
        for name in re.split(r",\s*", left.rstrip(",")):
            out[name] = len(set(out.values()))
    return out


def modules() -> dict[str, Path]:
    """Every engine module by dotted name below ``engine`` (``lang.hcl``), packages' inits left out."""
    found = {}
    for path in ENGINE.rglob("*.py"):
        rel = path.relative_to(ENGINE).with_suffix("")
        if rel.name in ("__init__", "__main__"):
            continue
        found[".".join(rel.parts)] = path
    return found


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The engine modules a file imports, as dotted names below ``engine``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            if name.startswith("engine."):
                dotted = name.removeprefix("engine.")
                if dotted in known:
                    found.add(dotted)
        assert not (isinstance(node, ast.ImportFrom) and node.level), f"{path}: use absolute imports"
    return found


def layer_of(module: str, named: dict[str, int]) -> int:
    return named.get(module, named.get(module.split(".")[0], -1))


def test_every_module_is_in_the_note() -> None:
    named = layers()
    missing = sorted(m for m in modules() if layer_of(m, named) < 0)
    assert missing == [], "modules missing from the layering note"
    packages = {m.split(".")[0] for m in modules()}
    assert set(named) - packages == set(), "the note names packages or modules that do not exist"


def test_no_module_imports_from_a_layer_below_its_own() -> None:
    named, mods = layers(), modules()
    wrong = []
    for name, path in sorted(mods.items()):
        for dep in sorted(imports_of(path, set(mods))):
            if layer_of(dep, named) > layer_of(name, named):
                wrong.append(f"{name} (layer {layer_of(name, named)}) imports {dep} (layer {layer_of(dep, named)})")
    assert wrong == []


def test_no_import_cycles_between_modules() -> None:
    mods = modules()
    edges = {name: imports_of(path, set(mods)) - {name} for name, path in mods.items()}
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for dep in sorted(edges[node]):
            if state.get(dep) == 1:
                cycles.append(stack[stack.index(dep):] + [dep])
            elif dep not in state:
                visit(dep, stack + [dep])
        state[node] = 2

    for name in sorted(edges):
        if name not in state:
            visit(name, [name])
    assert cycles == []


APPLY_PATH = ("apply", "backend.applying", "backend.saved", "config.providers")
"""Apply is described by the Plan (with the prior state, the configuration and the providers):
these import nothing of planning, directly or through other modules. A saved plan's apply
(``backend.saved``) configures the providers (``config.providers``) without the planner."""


def _reach(start: list[str], edges: dict[str, set[str]]) -> set[str]:
    seen, todo = set(start), list(start)
    while todo:
        for dep in edges[todo.pop()]:
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def test_apply_imports_nothing_of_planning() -> None:
    mods = modules()
    edges = {name: imports_of(path, set(mods)) for name, path in mods.items()}
    start = [m for m in mods if m.startswith(APPLY_PATH)]
    assert {"apply.executor", "backend.applying", "backend.saved", "config.providers"} <= set(start)
    assert any(m.startswith("planning.") for m in _reach(["backend.operations"], edges)), \
        "the check cannot see planning imports"  # it must be able to fail
    reached = _reach(start, edges)
    assert sorted(m for m in reached if m.startswith("planning.")) == []


def test_applying_a_saved_plan_loads_nothing_of_planning(workdir: Workdir) -> None:
    """The same, as the command runs: ``strata apply FILE`` imports no planning module at all."""
    workdir.write('resource "terraform_data" "a" {}\n')
    workdir.strata("plan", "-out=saved.plan", check=True)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "engine", "apply", "saved.plan"],
                          cwd=workdir.path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    mods = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines()
            if line.startswith("import time:") and "|" in line}
    assert "engine.backend.saved" in mods, "the saved plan was applied"
    assert sorted(m for m in mods if m.startswith("engine.planning")) == []


BACKEND_OPERATIONS = ("backend.operations", "backend.applying", "backend.saved", "backend.options")
"""The operations a user runs on a state (plan, apply, a saved plan's apply, import, the lock):
reached through :mod:`engine.api` only. What the command line may still read from ``backend`` is
not an operation: which state file and workspace (``backend.local``), and which providers are
installed (``backend.dependencies``, for ``init``, ``providers`` and ``validate``)."""


def test_the_command_line_runs_operations_through_the_api_only() -> None:
    """``engine.cli`` is a client of ``engine.api``: no command module imports the backend's
    operations, so none can plan, apply, lock or import except through a Workspace."""
    mods = modules()
    edges = {name: imports_of(path, set(mods)) for name, path in mods.items()}
    assert edges["api.operation"] & set(BACKEND_OPERATIONS), "the check cannot see backend imports"  # it can fail
    wrong = sorted(f"{name} imports {dep}" for name, deps in edges.items() if name.startswith("cli.")
                   for dep in deps if dep.startswith(BACKEND_OPERATIONS))
    assert wrong == [], "the command line goes around engine.api"
    assert {"api.workspace", "api.operation"} <= set().union(*(edges[m] for m in mods if m.startswith("cli."))), \
        "the command line does not use the API"


def test_every_backend_operation_the_command_runs_is_called_from_the_api(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The same as the commands run: plan, plan -out, apply of the saved plan, apply, refresh,
    import, taint and destroy, in process, with every call of a backend operation recorded with
    the module of its caller. However a command reached one (a module attribute, ``importlib``),
    the caller of each is ``engine.api`` (or the backend itself)."""
    import engine.backend.applying as applying
    import engine.backend.operations as operations
    import engine.backend.options as options
    import engine.backend.saved as saved
    from engine.cli.main import main

    watched = {f.__code__: f.__qualname__ for f in (
        operations.make_plan, operations.apply_planned, operations.import_resource, saved.open_saved_plan,
        options.open_state, options.OperationState.__init__, applying.apply_plan)}
    callers: dict[str, set[str]] = {}

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code in watched and frame.f_back is not None:
            callers.setdefault(watched[frame.f_code], set()).add(frame.f_back.f_globals.get("__name__", "?"))

    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" { input = 1 }\n'
                                      'resource "terraform_data" "b" { input = terraform_data.a.output }\n'
                                      'resource "random_password" "q" { length = 12 }\n')
    monkeypatch.chdir(tmp_path)
    runs = [["plan"], ["plan", "-out=saved.plan"], ["apply", "saved.plan"], ["apply", "-auto-approve"],
            ["refresh"], ["taint", "terraform_data.a"], ["state", "rm", "random_password.q"],
            ["import", "random_password.q", "MyImportedPw1"], ["destroy", "-auto-approve"]]
    sys.setprofile(profile)
    try:
        codes = [main(argv) for argv in runs]
    finally:
        sys.setprofile(None)
    assert codes == [0] * len(runs), capsys.readouterr()
    assert {"make_plan", "apply_planned", "open_saved_plan", "OperationState.__init__", "import_resource"} <= \
        set(callers), "the check did not see the operations run"  # it must be able to fail
    wrong = sorted(f"{fn} called from {m}" for fn, ms in callers.items() for m in ms
                   if not m.startswith(("engine.api.", "engine.backend.")))
    assert wrong == [], "the command line goes around engine.api"

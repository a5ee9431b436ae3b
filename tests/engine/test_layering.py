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

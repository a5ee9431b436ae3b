"""engine/__init__.py's layering note is true: each module imports only modules of its own layer
or the layers above it (read from the note itself, and from each module's imports)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import engine

ENGINE = Path(engine.__file__).parent
ALSO = {"functions_text": "functions"}  # a module the note names through another


def layers() -> dict[str, int]:
    doc = engine.__doc__ or ""
    block = doc.split("Layering (each layer imports only those above it):", 1)[1].split("Providers (", 1)[0]
    out: dict[str, int] = {}
    layer, continued = -1, False
    for line in block.splitlines():
        if not line.startswith("    ") or not line.strip():
            continue
        left = line[4:40].strip()
        if not left:
            continue  # a description continued
        if not continued:
            layer += 1
        for name in re.split(r",\s*", left.rstrip(",")):
            out[name] = layer
        continued = left.endswith(",")
    for name, like in ALSO.items():
        out[name] = out[like]
    return out


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(a.name for a in node.names)
    return found


def test_every_module_is_in_the_note() -> None:
    named = layers()
    modules = {p.stem for p in ENGINE.glob("*.py")} - {"__init__", "__main__"}
    assert modules - set(named) == set(), "modules missing from the layering note"
    assert set(named) - modules == set(), "the note names modules that do not exist"


def test_no_module_imports_from_a_layer_below_its_own() -> None:
    named = layers()
    wrong = []
    for path in sorted(ENGINE.glob("*.py")):
        if path.stem in ("__init__", "__main__"):
            continue
        for dep in sorted(imports_of(path)):
            if named[dep] > named[path.stem]:
                wrong.append(f"{path.stem} (layer {named[path.stem]}) imports {dep} (layer {named[dep]})")
    assert wrong == []

"""engine.diagnostics' error tree: every exception class strata defines derives from StrataError,
and the tree drawn in the module's docstring names each of them."""

from __future__ import annotations

import ast
from pathlib import Path

import engine
import engine.diagnostics

ENGINE = Path(engine.__file__).parent


def _exception_classes() -> dict[str, str]:
    """Every class in engine/ whose bases name an error or exception, by name -> module path."""
    found = {}
    for path in ENGINE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                bases = [ast.unparse(b) for b in node.bases]
                if any(b.endswith(("Error", "Exception", "Failed", "Fail", "_Bad")) for b in bases):
                    found[node.name] = str(path.relative_to(ENGINE))
    return found


def test_every_engine_exception_derives_from_strata_error() -> None:
    import importlib

    wrong = []
    for name, rel in sorted(_exception_classes().items()):
        module = importlib.import_module("engine." + rel.removesuffix(".py").replace("/", "."))
        cls = getattr(module, name)
        if not issubclass(cls, Exception):
            continue  # an interrupt (a BaseException, as KeyboardInterrupt): not an error; drawn apart
        if not issubclass(cls, engine.diagnostics.StrataError):
            wrong.append(f"{rel}: {name}")
    assert wrong == []


def test_the_docstring_draws_every_exception() -> None:
    doc = engine.diagnostics.__doc__ or ""
    missing = sorted(name for name in _exception_classes() if name not in doc)
    assert missing == []

"""Start-up: a command imports only what it uses. ``strata version`` imports nothing of the engine
beyond its entry point, ``import engine`` nothing at all until a public name is used, and a
``plan`` does not load the apply stage. What each import costs is measured in
``benchmarks/scenarios/small.py``; here, only which modules are imported (no timing)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib

import orjson
import pytest

import engine
from tests.conftest import REPO, Workdir


def imported_by(args: list[str], cwd: str) -> set[str]:
    """The modules a ``python -m engine ARGS`` run imports, read from ``-X importtime``."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "engine", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)
    return {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines()
            if line.startswith("import time:") and "|" in line}


def test_version_imports_nothing_of_the_engine_but_its_entry_point(tmp_path) -> None:  # type: ignore[no-untyped-def]
    mods = imported_by(["version"], str(tmp_path))
    assert {m for m in mods if m.startswith("engine")} == {"engine", "engine.cli", "engine.cli.main"}
    heavy = {"anyio", "trio", "asyncio", "lark", "hcl2", "orjson", "structlog", "importlib.metadata"}
    assert mods & heavy == set()


@pytest.mark.parametrize(("args", "expected"), [
    (["version"], "strata v{v}\non linux_amd64\n"),
    (["-version"], "strata v{v}\non linux_amd64\n"),
    (["--version"], "strata v{v}\non linux_amd64\n"),
    (["-v"], "strata v{v}\non linux_amd64\n"),
    (["version", "-json"], '{{"strata_version":"{v}","platform":"linux_amd64"}}\n'),
])
def test_version_prints_the_packages_version(workdir: Workdir, args: list[str], expected: str) -> None:
    if not sys.platform.startswith("linux") or os.uname().machine != "x86_64":
        pytest.skip("the expected platform is linux_amd64")
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    from engine.events.stream import STRATA_VERSION

    assert engine.__version__ == STRATA_VERSION == version
    assert workdir.strata(*args, check=True).stdout == expected.format(v=version)


def test_version_with_a_mistake_is_still_a_usage_error(workdir: Workdir) -> None:
    res = workdir.strata("version", "-bogus")
    assert res.returncode == 1 and "flag provided but not defined: -bogus" in res.stderr


def test_plan_does_not_load_the_apply_stage(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "a" {}\n')
    mods = imported_by(["plan"], str(workdir.path))
    assert "engine.planning.planner" in mods, "the plan ran"
    assert {m for m in mods if m.startswith("engine.apply")} == set()


# what a plan of a configuration that calls no function, on built-in providers, with no state to
# write, has no use for; each was imported by every plan before, and cost 1-15 ms
_NOT_FOR_A_PLAN = {
    "importlib.metadata",  # the entry points of every installed package: only for other providers
    "engine.lang.functions.registry",  # the built-in functions: on the first call of one
    "engine.lang.hcl_json",  # .tf.json files only
    "engine.state.fsync",  # ctypes: for a run that writes state
    "ctypes", "zipfile", "tempfile", "difflib", "random", "shutil",
}


def test_a_plan_imports_only_what_it_uses(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "a" {\n  count = 2\n  input = count.index\n}\n')
    workdir.strata("apply", "-auto-approve", check=True)
    mods = imported_by(["plan", "-detailed-exitcode"], str(workdir.path))
    assert "engine.planning.planner" in mods, "the plan ran"
    assert mods & _NOT_FOR_A_PLAN == set()


def test_validate_of_built_in_providers_starts_no_event_loop(workdir: Workdir) -> None:
    """validate with human output needs a loop only for a plugin's verdict (asked in
    tests/plugins/test_validate_provider_verdicts.py): of built-in providers it imports none."""
    workdir.write('resource "terraform_data" "a" {\n  input = var.x\n}\nvariable "x" {}\n')
    mods = imported_by(["validate"], str(workdir.path))
    assert "engine.config.validation" in mods, "the validation ran"
    assert mods & {"asyncio", "trio", "anyio._backends._asyncio", "engine.api.workspace",
                    "engine.lang.functions.registry"} == set()  # the functions: only once a call is met
    assert workdir.strata("validate").stdout == "Success! The configuration is valid.\n"
    bad = workdir.strata("validate", "-chdir=missing")
    assert bad.returncode == 1 and "chdir" in bad.stderr


def test_a_function_call_imports_the_functions(workdir: Workdir) -> None:
    workdir.write('output "x" {\n  value = upper("a")\n}\n')
    mods = imported_by(["plan"], str(workdir.path))
    assert "engine.lang.functions.registry" in mods


def test_importing_engine_imports_no_stage() -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    code = "import sys, engine; print(sorted(m for m in sys.modules if m.startswith('engine.')))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert orjson.loads(out.replace("'", '"')) == []


def test_every_public_name_resolves_to_its_definition() -> None:
    import importlib

    assert set(engine._LAZY) == set(engine.__all__), "the lazy table and __all__ name the same API"
    for name in engine.__all__:
        value = getattr(engine, name)
        assert value is getattr(importlib.import_module(engine._LAZY[name]), name), name
    assert set(engine.__all__) <= set(dir(engine))


def test_an_unknown_public_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        _ = engine.Nope  # type: ignore[attr-defined]

"""Provider-defined functions (tfplugin 6.5) of the protocol-6 example provider, through the
``strata`` command with terraform 1.11 as the oracle: ``provider::example::label(...)`` in
outputs, resource arguments and a child module, and terraform's errors for every way a call can
go wrong (the function's own error, a null, a wrong type, arity, an undeclared provider, a
function the provider does not offer).

The provider runs from a mirror of the module's own (``example_mirror_here``), holding this
checkout's provider source.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.conftest import Result, Workdir, requires_terraform
from tests.plugins.conftest import init_with, requires_plugin_client, run_with

pytestmark = [requires_terraform, requires_plugin_client]

REQUIRED = '''terraform {
  required_providers {
    example = { source = "hashicorp/example", version = "0.1.0" }
  }
}
'''

CONFIG = REQUIRED + '''
provider "example" {
  root = "${path.module}/objects"
}

resource "example_item" "a" {
  name    = provider::example::label("item", "a")
  content = provider::example::label("c")
}

resource "example_item" "b" {
  name = provider::example::label("item", example_item.a.id)
}

module "m" {
  source = "./mod"
}

output "joined" { value = provider::example::label("web", "a", "b") }
output "expanded" { value = provider::example::label("x", [for s in ["p", "q"] : s]...) }
output "converted" { value = provider::example::label("n", 1, true) }
output "b" { value = example_item.b.name }
output "m" { value = module.m.v }
'''

MODULE = '''terraform {
  required_providers {
    ex = { source = "hashicorp/example" }
  }
}

output "v" { value = provider::ex::label("mod") }
'''


def _setup(tool: str, path: Path, mirror: Path) -> Workdir:
    path.mkdir()
    (path / "mod").mkdir()
    (path / "mod" / "main.tf").write_text(MODULE)
    wd = Workdir(path)
    wd.write(CONFIG)
    init_with(tool, wd, mirror)
    return wd


def test_provider_functions_give_terraforms_values(tmp_path: Path, example_mirror_here: Path) -> None:
    outputs = {}
    for tool in ("terraform", "strata"):
        wd = _setup(tool, tmp_path / tool, example_mirror_here)
        res = run_with(tool, wd, "apply", "-auto-approve", "-no-color")
        assert res.returncode == 0, res.stdout + res.stderr
        got = run_with(tool, wd, "output", "-json")
        assert got.returncode == 0, got.stderr
        outputs[tool] = json.loads(got.stdout)
    assert outputs["strata"] == outputs["terraform"]
    assert outputs["strata"]["b"]["value"] == "item-item-item-a"
    assert outputs["strata"]["converted"]["value"] == "n-1-true"


def test_each_tool_plans_no_changes_on_the_others_state_with_functions(tmp_path: Path, example_mirror_here: Path) -> None:
    for first, second in (("terraform", "strata"), ("strata", "terraform")):
        wd = _setup(first, tmp_path / first, example_mirror_here)
        assert run_with(first, wd, "apply", "-auto-approve", "-no-color").returncode == 0
        init_with(second, wd, example_mirror_here)
        res = run_with(second, wd, "plan", "-detailed-exitcode", "-no-color")
        assert res.returncode == 0, f"{second} on {first}'s state:\n{res.stdout}{res.stderr}"


CASES = {
    "the function's own error": 'provider::example::label("")',
    "a null argument": 'provider::example::label(null)',
    "a null variadic argument": 'provider::example::label("a", null)',
    "too few arguments": "provider::example::label()",
    "a wrong type": 'provider::example::label(["x"])',
    "a function not offered": 'provider::example::nope("a")',
    "an undeclared provider": 'provider::other::label("a")',
}


def _error(res: Result) -> str:
    text = res.stderr or res.stdout
    return text[text.index("Error:"):].strip() if "Error:" in text else text


def test_provider_function_errors_are_terraforms(tmp_path: Path, example_mirror_here: Path) -> None:
    dirs = {tool: Workdir(tmp_path / tool) for tool in ("terraform", "strata")}
    for tool, wd in dirs.items():
        wd.path.mkdir()
        wd.write(REQUIRED)
        init_with(tool, wd, example_mirror_here)
    seen = {}
    for case, call in CASES.items():
        errors = {}
        for tool, wd in dirs.items():
            wd.write(REQUIRED + f"\noutput \"x\" {{ value = {call} }}\n")
            res = run_with(tool, wd, "plan", "-no-color")
            assert res.returncode == 1, f"{tool}, {case}: {res.stdout}{res.stderr}"
            errors[tool] = _error(res)
        assert errors["strata"] == errors["terraform"], case
        seen[case] = errors["strata"]
    assert ('Call to function "provider::example::label" failed: prefix must not be empty.'
            in seen["the function's own error"])
    assert 'Invalid value for "parts" parameter: argument must not be null.' in seen["a null variadic argument"]


def test_an_unknown_argument_makes_the_result_known_after_apply(tmp_path: Path, example_mirror_here: Path) -> None:
    wd = Workdir(tmp_path)
    wd.write(REQUIRED + 'output "x" { value = provider::example::label("a", timestamp()) }\n')
    init_with("strata", wd, example_mirror_here)
    res = wd.strata("plan", "-no-color")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "+ x = (known after apply)" in res.stdout


def test_console_calls_a_provider_function_as_terraform_does(tmp_path: Path, example_mirror_here: Path) -> None:
    said = {}
    for tool in ("terraform", "strata"):
        wd = Workdir(tmp_path / tool)
        wd.path.mkdir()
        wd.write(REQUIRED)
        init_with(tool, wd, example_mirror_here)
        if tool == "terraform":
            res = subprocess.run(["terraform", "console"], cwd=wd.path, input='provider::example::label("a", "b")\n',
                                 capture_output=True, text=True, timeout=300,
                                 env=dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", CHECKPOINT_DISABLE="1"))
        else:
            res = wd.strata("console", input='provider::example::label("a", "b")\n')
        assert res.returncode == 0, res.stdout + res.stderr
        said[tool] = res.stdout.strip()
    assert said["strata"] == said["terraform"] == '"a-b"'


def test_a_provider_without_functions_offers_none_as_terraform_says(tmp_path: Path, null_mirror: Path) -> None:
    """null 2.1.2 speaks tfplugin 5.x before functions (GetFunctions unimplemented): terraform's
    "no function named", not "not available from the provider"."""
    errors = {}
    for tool in ("terraform", "strata"):
        wd = Workdir(tmp_path / tool)
        wd.path.mkdir()
        wd.write('terraform {\n  required_providers {\n    null = { source = "hashicorp/null", version = "2.1.2" }\n'
                 '  }\n}\n\noutput "x" { value = provider::null::nope("a") }\n')
        init_with(tool, wd, null_mirror)
        res = run_with(tool, wd, "plan", "-no-color")
        assert res.returncode == 1, res.stdout + res.stderr
        errors[tool] = _error(res)
    assert errors["strata"] == errors["terraform"]
    assert 'There is no function named "provider::null::nope".' in errors["strata"]

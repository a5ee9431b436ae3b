"""The rest of the language that real configurations use, through the `strata` command and
compared with terraform: ``terraform.workspace``, ``path.module``/``path.root``/``path.cwd``,
``required_version``, and ``ignore_changes`` with nested paths."""

from __future__ import annotations

import json
import os

import pytest

from tests.conftest import Result, Workdir, requires_terraform

TOOLS = ["strata", pytest.param("terraform", marks=requires_terraform)]


def _run(workdir: Workdir, tool: str, *args: str) -> Result:
    return workdir.strata(*args) if tool == "strata" else workdir.terraform(*args)


def _outputs(workdir: Workdir, tool: str) -> dict[str, object]:
    res = _run(workdir, tool, "apply", "-auto-approve", "-no-color")
    assert res.returncode == 0, res.stdout + res.stderr
    got = json.loads(_run(workdir, tool, "output", "-json").stdout)
    return {k: v["value"] for k, v in got.items()}


NAMES = """
output "workspace" { value = terraform.workspace }
output "module" { value = path.module }
output "root" { value = path.root }
output "cwd" { value = path.cwd }
"""


@pytest.mark.parametrize("tool", TOOLS)
def test_workspace_and_paths(workdir: Workdir, tool: str) -> None:
    workdir.write(NAMES)
    assert _outputs(workdir, tool) == {"workspace": "default", "module": ".", "root": ".",
                                       "cwd": os.path.realpath(workdir.path)}


def test_the_workspace_is_the_selected_one(workdir: Workdir, monkeypatch: pytest.MonkeyPatch) -> None:
    workdir.write(NAMES)
    monkeypatch.setenv("TF_WORKSPACE", "staging")
    assert _outputs(workdir, "strata")["workspace"] == "staging"


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize(("expr", "summary", "detail"), [
    ("terraform.x", 'Invalid "terraform" attribute',
     'The "terraform" object does not have an attribute named "x". The only supported attributes are '
     "terraform.workspace, the name of the currently-selected workspace, and terraform.applying, a boolean "
     "which is true only during apply."),
    ("path.x", 'Invalid "path" attribute', 'The "path" object does not have an attribute named "x".'),
])
def test_an_unknown_attribute_of_terraform_or_path(workdir: Workdir, tool: str, expr: str, summary: str,
                                                    detail: str) -> None:
    workdir.write(f'output "o" {{\n  value = {expr}\n}}\n')
    res = _run(workdir, tool, "validate", "-no-color")
    text = " ".join(res.stderr.replace("\u2502", "").split())
    assert res.returncode == 1
    assert f'Error: {summary} on main.tf line 2, in output "o": 2: value = {expr} {detail}' in text, res.stderr


@pytest.mark.parametrize("tool", TOOLS)
def test_required_version_is_checked(workdir: Workdir, tool: str) -> None:
    workdir.write('terraform {\n  required_version = ">= 99.0"\n}\n')
    res = workdir.strata("plan", "-no-color") if tool == "strata" else workdir.terraform("init", "-no-color")
    text = " ".join(res.stderr.replace("\u2502", "").split())
    assert res.returncode == 1
    assert 'Error: Unsupported Terraform Core version on main.tf line 2, in terraform: 2: required_version = ' \
           '">= 99.0" This configuration does not support Terraform version 1.11.4.' in text, res.stderr


IGNORED = """
resource "terraform_data" "a" {
  input = { tags = tomap({ TAGS }), ports = [{ PORTS }], obj = { OBJ } }
  lifecycle {
    ignore_changes = [input.ports[0].n, input.tags["Name"], input.obj["p"]]
  }
}
"""


def _ignored(tags: str, ports: str, obj: str) -> str:
    return IGNORED.replace("TAGS", tags).replace("PORTS", ports).replace("OBJ", obj)


@pytest.mark.parametrize("tool", TOOLS)
def test_ignore_changes_with_nested_paths(workdir: Workdir, tool: str) -> None:
    workdir.write(_ignored('Name = "a", Env = "x"', "n = 1, m = 2", "p = 1, q = 2"))
    assert _run(workdir, tool, "apply", "-auto-approve").returncode == 0
    workdir.write(_ignored('Name = "b", Env = "y", New = "z"', "n = 5, m = 3", "p = 7, q = 8"))
    assert _run(workdir, tool, "apply", "-auto-approve").returncode == 0
    value = workdir.state()["resources"][0]["instances"][0]["attributes"]["input"]["value"]
    # a map keeps the one ignored key; an object indexed by a key is kept whole, as terraform does
    assert value == {"obj": {"p": 1, "q": 2}, "ports": [{"m": 3, "n": 1}],
                     "tags": {"Env": "y", "Name": "a", "New": "z"}}


@pytest.mark.parametrize("tool", TOOLS)
def test_ignore_changes_of_a_map_key_that_was_absent(workdir: Workdir, tool: str) -> None:
    def config(tags: str) -> str:
        return ('resource "terraform_data" "a" {\n  input = { tags = tomap({ ' + tags + ' }) }\n'
                '  lifecycle {\n    ignore_changes = [input.tags["Owner"]]\n  }\n}\n')

    workdir.write(config('Name = "a"'))
    assert _run(workdir, tool, "apply", "-auto-approve").returncode == 0
    workdir.write(config('Name = "b", Owner = "me"'))
    assert _run(workdir, tool, "apply", "-auto-approve").returncode == 0
    value = workdir.state()["resources"][0]["instances"][0]["attributes"]["input"]["value"]
    assert value == {"tags": {"Name": "b"}}

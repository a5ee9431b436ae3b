"""``strata console`` from the outside: expressions on standard input, evaluated against the
configuration and the state, printed as ``terraform console`` prints them."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Workdir, requires_terraform

CONFIG = """
variable "name" {
  default = "web"
}
variable "secret" {
  default   = "s3cr3t"
  sensitive = true
}
locals {
  tags  = { Name = var.name, Env = "prod" }
  names = [for i in range(3) : "${var.name}-${i}"]
}
resource "terraform_data" "a" {
  input = local.names
}
resource "terraform_data" "b" {
  count = 2
  input = count.index
}
"""

# expression -> what terraform 1.11's console prints for it (recorded)
EXPECTED = {
    "var.name": '"web"',
    "local.tags": '{\n  "Env" = "prod"\n  "Name" = "web"\n}',
    "local.names": '[\n  "web-0",\n  "web-1",\n  "web-2",\n]',
    "tolist(local.names)": 'tolist([\n  "web-0",\n  "web-1",\n  "web-2",\n])',
    "terraform_data.b[1].output": "1",
    "terraform_data.a.output[0]": '"web-0"',
    "var.secret": "(sensitive value)",
    "sensitive(1)": "(sensitive value)",
    'toset(["b","a"])': 'toset([\n  "a",\n  "b",\n])',
    "tomap({a=1})": 'tomap({\n  "a" = 1\n})',
    '"a\\nb"': "<<EOT\na\nb\nEOT",
    "{a={b=[1]}}": '{\n  "a" = {\n    "b" = [\n      1,\n    ]\n  }\n}',
    "[]": "[]",
    "null": "null",
    "1.5 * 2": "3",
}


@pytest.fixture(scope="module")
def applied(tmp_path_factory: pytest.TempPathFactory) -> Workdir:
    w = Workdir(tmp_path_factory.mktemp("console"))
    w.write(CONFIG)
    w.strata("apply", "-auto-approve", check=True)
    return w


@pytest.mark.parametrize("expr", list(EXPECTED))
def test_console_prints_value_as_terraform(applied: Workdir, expr: str) -> None:
    r = applied.strata("console", input=expr + "\n")
    assert (r.returncode, r.stdout) == (0, EXPECTED[expr] + "\n"), r.stderr


def test_console_reads_resource_attributes_from_state(applied: Workdir) -> None:
    state_id = applied.state()["resources"][0]["instances"][0]["attributes"]["id"]
    r = applied.strata("console", input="terraform_data.a.id\n")
    assert r.stdout == f'"{state_id}"\n'


def test_console_prints_last_line_of_piped_input(applied: Workdir) -> None:
    r = applied.strata("console", input="1+1\n\n2+2\n")
    assert (r.returncode, r.stdout) == (0, "4\n")


def test_console_error_is_a_diagnostic_and_exit_1(applied: Workdir) -> None:
    r = applied.strata("console", "-no-color", input="var.nope\n1+1\n")
    assert r.returncode == 1
    assert r.stdout == ""
    assert "Error: Reference to undeclared input variable" in r.stderr
    assert "on <console-input> line 1" in r.stderr
    assert "Traceback" not in r.stderr


def test_console_unapplied_resource_is_known_after_apply(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "x" {\n  input = 1\n}\n')
    r = workdir.strata("console", input="terraform_data.x.output\n")
    assert r.stdout == "(known after apply)\n"


@requires_terraform
def test_console_agrees_with_terraform(applied: Workdir, tmp_path: Path) -> None:
    twin = tmp_path / "twin"
    twin.mkdir()
    (twin / "main.tf").write_text(CONFIG)
    env = dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", CHECKPOINT_DISABLE="1", TF_IN_AUTOMATION="1")
    tf = shutil.which("terraform")
    assert tf is not None
    for args in (["init", "-input=false"], ["apply", "-auto-approve", "-input=false"]):
        subprocess.run([tf, *args], cwd=twin, env=env, capture_output=True, check=True)
    for expr in ("var.name", "local.tags", "tolist(local.names)", "terraform_data.b[0].input", "var.secret"):
        theirs = subprocess.run([tf, "console"], cwd=twin, env=env, input=expr + "\n", capture_output=True,
                                text=True, check=True).stdout
        ours = applied.strata("console", input=expr + "\n").stdout
        assert ours == theirs, expr

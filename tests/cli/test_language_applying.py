"""``terraform.applying`` from the outside: false while planning, validating and in the console,
true while apply evaluates; ephemeral, so refused where it would be persisted (a resource's
arguments, ``count``, ``for_each``, a root output) as terraform 1.11 refuses it."""

from __future__ import annotations

import re

import pytest

from tests.conftest import Workdir, requires_terraform

REFUSED = """
locals {
  l = terraform.applying ? "a" : "b"
}
resource "terraform_data" "y" {
  for_each = terraform.applying ? toset(["a"]) : toset([])
}
resource "terraform_data" "c" {
  count = terraform.applying ? 1 : 0
}
resource "terraform_data" "z" {
  input = { a = local.l }
}
output "o" {
  value = terraform.applying
}
"""

# what terraform 1.11's validate says of REFUSED (recorded), in its order
REFUSALS = [
    ("Invalid for_each argument", 6, "terraform.applying has an ephemeral value"),
    ("Invalid count argument", 9, 'The given "count" is derived from an ephemeral value'),
    ("Invalid use of ephemeral value", 12, 'Ephemeral values are not valid for "input", because it is not a'),
    ("Ephemeral value not allowed", 15, "This output value is not declared as returning an ephemeral value"),
]

POSTCONDITION = """
resource "terraform_data" "a" {
  input = "x"
  lifecycle {
    postcondition {
      condition     = !terraform.applying
      error_message = "applying now"
    }
  }
}
"""


def _errors(stderr: str) -> list[tuple[str, int]]:
    return [(m[0], int(m[1])) for m in re.findall(r"Error: (.+)\n\n(?:  with .*\n)?  on main\.tf line (\d+)", stderr)]


@pytest.mark.parametrize("command", ["validate", "plan"])
def test_ephemeral_applying_is_refused_where_persisted(workdir: Workdir, command: str) -> None:
    workdir.write(REFUSED)
    r = workdir.strata(command, "-no-color")
    assert r.returncode == 1
    assert sorted(_errors(r.stderr)) == sorted((s, line) for s, line, _ in REFUSALS), r.stderr
    flat = " ".join(r.stderr.split())
    for _, _, words in REFUSALS:
        assert words in flat, words
    assert "Traceback" not in r.stderr


def test_applying_in_locals_and_conditions_is_allowed(workdir: Workdir) -> None:
    workdir.write('locals {\n  l = terraform.applying\n}\nresource "terraform_data" "a" {\n'
                  '  input = ephemeralasnull(local.l)\n}\n')
    r = workdir.strata("validate", "-no-color")
    assert r.returncode == 0, r.stderr


def test_applying_is_false_while_planning_and_true_while_applying(workdir: Workdir) -> None:
    workdir.write(POSTCONDITION)
    assert workdir.strata("plan", "-no-color").returncode == 0
    r = workdir.strata("apply", "-auto-approve", "-no-color")
    assert r.returncode == 1
    assert "Error: Resource postcondition failed" in r.stderr
    assert "applying now" in r.stderr
    assert "terraform.applying is" not in r.stderr  # an ephemeral value is never shown


@pytest.mark.parametrize(("expr", "printed"), [
    ("terraform.applying", "(ephemeral value)"),
    ("terraform.applying ? 1 : 2", "(ephemeral value)"),
    ("local.l", "(ephemeral value)"),
    ("tostring(terraform.applying)", "(ephemeral value)"),
    ("issensitive(terraform.applying)", "false"),
    ("sensitive(terraform.applying)", "(sensitive value)"),
])
def test_console_prints_applying_as_terraform(workdir: Workdir, expr: str, printed: str) -> None:
    workdir.write('locals {\n  l = terraform.applying ? "a" : "b"\n}\n')
    r = workdir.strata("console", input=expr + "\n")
    assert (r.returncode, r.stdout) == (0, printed + "\n"), r.stderr


@requires_terraform
def test_applying_refusals_agree_with_terraform(workdir: Workdir) -> None:
    workdir.write(REFUSED)
    theirs = workdir.terraform("validate", "-no-color")
    ours = workdir.strata("validate", "-no-color")
    assert sorted(_errors(ours.stderr)) == sorted(_errors(theirs.stderr))


@requires_terraform
def test_applying_postcondition_agrees_with_terraform(workdir: Workdir) -> None:
    workdir.write(POSTCONDITION)
    theirs = workdir.terraform("apply", "-auto-approve", "-no-color")
    (workdir.path / "terraform.tfstate").unlink()
    ours = workdir.strata("apply", "-auto-approve", "-no-color")
    assert (ours.returncode, _errors(ours.stderr)) == (theirs.returncode, _errors(theirs.stderr))

"""precondition and postcondition blocks, checked as terraform checks them: while planning when they
can be decided (an instance whose precondition fails is not planned; an output's is not either),
after apply otherwise (a postcondition against the created object, ``self``)."""

from __future__ import annotations

import os
import subprocess

from tests.conftest import Workdir, requires_terraform

PLAN = 'variable "x" {\n  default = 3\n}\nresource "terraform_data" "a" {\n  count = 2\n  input = var.x\n  lifecycle {\n    precondition {\n      condition     = var.x > 5 + count.index\n      error_message = "x must be > ${5 + count.index}."\n    }\n  }\n}\nresource "terraform_data" "b" {\n  input = "b"\n  lifecycle {\n    postcondition {\n      condition     = self.input == "c"\n      error_message = "input must be c, not ${self.input}."\n    }\n  }\n}\noutput "o" {\n  value = var.x\n  precondition {\n    condition     = var.x > 10\n    error_message = "x too small for output."\n  }\n}\n'

APPLY = 'resource "terraform_data" "b" {\n  input = "b"\n  lifecycle {\n    postcondition {\n      condition     = self.id == "x"\n      error_message = "id is ${self.id}, wanted x."\n    }\n  }\n}\nresource "terraform_data" "c" {\n  input = "c"\n}\nresource "terraform_data" "d" {\n  input = terraform_data.c.id\n  lifecycle {\n    precondition {\n      condition     = terraform_data.c.id == "nope"\n      error_message = "c\'s id is not nope."\n    }\n  }\n}\nresource "terraform_data" "e" {\n  input = terraform_data.b.id\n}\n'


def _errors(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("Error: ")]


def test_conditions_that_fail_while_planning(workdir: Workdir) -> None:
    workdir.write(PLAN)
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1, res
    assert "strata planned the following actions, but then encountered a problem:" in res.stdout
    assert "terraform_data.b will be created" in res.stdout and "terraform_data.a" not in res.stdout
    assert _errors(res.stderr) == ["Error: Resource precondition failed"] * 2 + [
        "Error: Resource postcondition failed", "Error: Module output value precondition failed"]
    assert ("  on main.tf line 18, in resource \"terraform_data\" \"b\":\n  18:       condition     = self.input == "
            '"c"\n    ├────────────────\n    │ self.input is "b"\n\ninput must be c, not b.\n') in res.stderr
    assert "    │ count.index is 1\n    │ var.x is 3\n\nx must be > 6.\n" in res.stderr


def test_conditions_decided_only_after_apply(workdir: Workdir) -> None:
    workdir.write(APPLY)
    res = workdir.strata("apply", "-auto-approve", "-no-color", "-parallelism=1")
    assert res.returncode == 1, res
    assert _errors(res.stderr) == ["Error: Resource postcondition failed", "Error: Resource precondition failed"]
    assert "  on main.tf line 17, in resource \"terraform_data\" \"d\":" in res.stderr
    names = {r["name"] for r in workdir.state()["resources"]}
    assert names == {"b", "c"}  # b was created (and recorded), e depends on it: not started; d's check failed


def test_mistakes_in_condition_blocks(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "a" {\n  lifecycle {\n    precondition {\n      condition = self.input == 1\n'
                  '    }\n    check {\n    }\n  }\n}\n')
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1
    assert set(_errors(res.stderr)) == {"Error: Missing required argument", "Error: Unsupported block type"}
    workdir.write('resource "terraform_data" "a" {\n  lifecycle {\n    precondition {\n      condition     = self.input == 1\n'
                  '      error_message = "no"\n    }\n  }\n}\n')
    assert _errors(workdir.strata("plan", "-no-color").stderr) == ['Error: Unsupported reference "self"']


CONSTANT = ('resource "terraform_data" "a" {\n  lifecycle {\n    precondition {\n      condition     = true\n'
            '      error_message = "p"\n    }\n    postcondition {\n      condition     = false\n'
            '      error_message = "q"\n    }\n  }\n}\n')


def test_a_condition_that_refers_to_nothing_is_refused_as_terraform_refuses_it(workdir: Workdir) -> None:
    workdir.write(CONSTANT)
    for command in ("validate", "plan"):
        res = workdir.strata(command, "-no-color")
        assert res.returncode == 1 and res.stdout == ""
        assert _errors(res.stderr) == ["Error: Invalid precondition expression",
                                       "Error: Invalid postcondition expression"], res.stderr
        assert res.stderr.count("would not be checking anything") == 2


@requires_terraform
def test_a_condition_that_refers_to_nothing_is_refused_by_terraform(workdir: Workdir) -> None:
    workdir.write(CONSTANT)
    tf = subprocess.run(["terraform", "validate", "-no-color"], cwd=workdir.path, capture_output=True,
                        text=True, timeout=300, env=dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null"))
    assert tf.returncode == 1
    assert _errors(tf.stderr) == ["Error: Invalid precondition expression", "Error: Invalid postcondition expression"]


@requires_terraform
def test_the_same_as_terraform_here(workdir: Workdir) -> None:
    workdir.write(PLAN)
    ours = workdir.strata("plan", "-no-color")
    tf = subprocess.run(["terraform", "plan", "-no-color", "-input=false"], cwd=workdir.path, capture_output=True,
                        text=True, timeout=300, env=dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null"))
    assert ours.stdout == tf.stdout.replace("Terraform", "strata")
    # the two failed instances' errors come in an order terraform's concurrent walk does not fix
    assert sorted(ours.stderr.split("\nError: ")) == sorted(tf.stderr.split("\nError: "))


def test_a_failed_condition_never_shows_a_sensitive_value(workdir: Workdir) -> None:
    workdir.write('variable "s" {\n  default   = "hunter2"\n  sensitive = true\n}\n'
                  'resource "terraform_data" "a" {\n  input = var.s\n  lifecycle {\n    precondition {\n'
                  '      condition     = var.s == "x"\n      error_message = "bad value ${var.s}"\n    }\n  }\n}\n'
                  'resource "terraform_data" "b" {\n  input = var.s\n  lifecycle {\n    postcondition {\n'
                  '      condition     = self.input == "nope"\n      error_message = "no"\n    }\n  }\n}\n')
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1 and "hunter2" not in res.stdout + res.stderr, res
    assert "Warning: Error message refers to sensitive values" in res.stdout + res.stderr
    assert "This check failed, but has an invalid error message" in res.stderr
    assert "│" not in res.stderr  # no value line: var.s and self.input are sensitive


def test_a_null_output_is_no_output(workdir: Workdir) -> None:
    workdir.write('output "o0" {\n  value = one([])\n}\noutput "o1" {\n  value = one(["x"])\n}\n')
    res = workdir.strata("plan", "-no-color", check=True)
    assert "o0" not in res.stdout and '+ o1 = "x"' in res.stdout


VALIDATION = ('variable "x" {\n  default = 1\n  validation {\n    condition     = var.x > 5\n'
              '    error_message = "x must be > 5."\n  }\n}\noutput "o" {\n  value = var.x\n}\n')
VALIDATION_ERROR = ('\nError: Invalid value for variable\n\n  on main.tf line 1:\n   1: variable "x" {\n'
                    "    ├────────────────\n    │ var.x is 1\n\nx must be > 5.\n\nThis was checked by the validation "
                    "rule at main.tf:3,3-13.\n")


def test_a_variable_s_validation_rule(workdir: Workdir) -> None:
    workdir.write(VALIDATION)
    res = workdir.strata("plan", "-no-color")
    assert (res.returncode, res.stdout, res.stderr) == (
        1, "\nPlanning failed. strata encountered an error while generating this plan.\n\n", VALIDATION_ERROR)
    assert workdir.strata("plan", "-no-color", "-var", "x=7").returncode == 0
    workdir.write(VALIDATION.replace("default = 1", 'default   = 1\n  sensitive = true').replace(
        'output "o" {\n  value = var.x\n}\n', ""))
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1 and "│" not in res.stderr, res.stderr  # a sensitive value is not stated


@requires_terraform
def test_a_variable_s_validation_rule_as_terraform_checks_it(workdir: Workdir) -> None:
    workdir.write(VALIDATION)
    tf = subprocess.run(["terraform", "plan", "-no-color", "-input=false"], cwd=workdir.path, capture_output=True,
                        text=True, timeout=300, env=dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null"))
    assert tf.stderr == VALIDATION_ERROR

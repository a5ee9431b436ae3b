"""Sensitive values are never shown, as terraform never shows them: a value derived from a sensitive
variable is ``(sensitive value)`` in a plan and recorded in the state's ``sensitive_attributes``; a
root output must say it exports one; for_each refuses one. Recorded from terraform 1.11 and, where
terraform is on the machine, compared with it live."""

from __future__ import annotations

import os
import subprocess

import orjson

from tests.conftest import Workdir, requires_terraform

DERIVED = '''variable "s" {
  default   = "hunter2"
  sensitive = true
}
locals {
  t = "${var.s}-x"
}
resource "terraform_data" "a" {
  input = local.t
}
resource "terraform_data" "b" {
  input = terraform_data.a.input
}
output "o" {
  value     = terraform_data.b.input
  sensitive = true
}
output "p" {
  value = nonsensitive(var.s)
}
'''

DERIVED_PLAN = '''
strata used the selected providers to generate the following execution
plan. Resource actions are indicated with the following symbols:
  + create

strata will perform the following actions:

  # terraform_data.a will be created
  + resource "terraform_data" "a" {
      + id     = (known after apply)
      + input  = (sensitive value)
      + output = (known after apply)
    }

  # terraform_data.b will be created
  + resource "terraform_data" "b" {
      + id     = (known after apply)
      + input  = (sensitive value)
      + output = (known after apply)
    }

Plan: 2 to add, 0 to change, 0 to destroy.

Changes to Outputs:
  + o = (sensitive value)
  + p = "hunter2"

─────────────────────────────────────────────────────────────────────────────

Note: You didn't use the -out option to save this plan, so strata can't
guarantee to take exactly these actions if you run "strata apply" now.
'''

OUTPUT = 'variable "s" {\n  default   = "hunter2"\n  sensitive = true\n}\noutput "p" {\n  value = length(var.s)\n}\n'
OUTPUT_ERROR = '''
Error: Output refers to sensitive values

  on main.tf line 5:
   5: output "p" {

To reduce the risk of accidentally exporting sensitive data that was intended
to be only internal, strata requires that any root module output containing
sensitive data be explicitly marked as sensitive, to confirm your intent.

If you do intend to export this data, annotate the output value as sensitive
by adding the following argument:
    sensitive = true
'''

FOR_EACH = 'variable "v" {\n  default   = { a = 1 }\n  sensitive = true\n}\nresource "terraform_data" "a" {\n  for_each = var.v\n}\n'
FOR_EACH_ERROR = '''
Error: Invalid for_each argument

  on main.tf line 6, in resource "terraform_data" "a":
   6:   for_each = var.v
    ├────────────────
    │ var.v has a sensitive value

Sensitive values, or values derived from sensitive values, cannot be used as
for_each arguments. If used, the sensitive value could be exposed as a
resource instance key.
'''


def _terraform(workdir: Workdir, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["terraform", *args], cwd=workdir.path, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", CHECKPOINT_DISABLE="1"))


def test_a_value_derived_from_a_sensitive_one_is_not_shown(workdir: Workdir) -> None:
    workdir.write(DERIVED)
    res = workdir.strata("plan", "-no-color")
    assert (res.returncode, res.stdout, res.stderr) == (0, DERIVED_PLAN, ""), res
    assert "hunter2-x" not in res.stdout


def test_the_state_records_which_attributes_are_sensitive(workdir: Workdir) -> None:
    workdir.write(DERIVED)
    assert workdir.strata("apply", "-auto-approve").returncode == 0
    state = orjson.loads((workdir.path / "terraform.tfstate").read_bytes())
    for r in state["resources"]:
        assert r["instances"][0]["sensitive_attributes"] == [[{"type": "get_attr", "value": "input"}]]
    assert state["outputs"]["o"]["sensitive"] is True and "sensitive" not in state["outputs"]["p"]
    # and the next plan, from the state, still does not show it
    assert "hunter2-x" not in workdir.strata("plan", "-no-color", "-refresh=false").stdout


def test_an_output_must_say_it_exports_a_sensitive_value(workdir: Workdir) -> None:
    workdir.write(OUTPUT)
    res = workdir.strata("plan", "-no-color")
    assert (res.returncode, res.stdout, res.stderr) == (1, "", OUTPUT_ERROR), res


def test_for_each_refuses_a_sensitive_value(workdir: Workdir) -> None:
    workdir.write(FOR_EACH)
    res = workdir.strata("plan", "-no-color")
    assert (res.returncode, res.stdout, res.stderr) == (1, "", FOR_EACH_ERROR), res


@requires_terraform
def test_the_same_as_terraform_here(workdir: Workdir) -> None:
    for text, code in ((DERIVED, 0), (OUTPUT, 1), (FOR_EACH, 1)):
        workdir.write(text)
        ours = workdir.strata("plan", "-no-color")
        tf = _terraform(workdir, "plan", "-no-color", "-input=false")
        assert tf.returncode == ours.returncode == code
        assert ours.stdout == tf.stdout.replace("Terraform", "strata").replace("terraform apply", "strata apply")
        # the detail is wrapped after "Terraform" became "strata": compare the words
        assert ours.stderr.split() == tf.stderr.replace("Terraform", "strata").split()
    workdir.write(DERIVED)
    assert _terraform(workdir, "apply", "-auto-approve", "-no-color").returncode == 0
    theirs = orjson.loads((workdir.path / "terraform.tfstate").read_bytes())
    (workdir.path / "terraform.tfstate").unlink()
    assert workdir.strata("apply", "-auto-approve").returncode == 0
    ours_state = orjson.loads((workdir.path / "terraform.tfstate").read_bytes())
    assert [r["instances"][0]["sensitive_attributes"] for r in ours_state["resources"]] == \
        [r["instances"][0]["sensitive_attributes"] for r in theirs["resources"]]


SECRETS = '''variable "s" {
  default   = "hunter2"
  sensitive = true
}
resource "terraform_data" "a" {
  input = var.s
}
resource "random_password" "p" {
  length = 12
}
data "local_sensitive_file" "g" {
  filename = "sf.txt"
}
'''


def test_what_is_destroyed_or_read_is_not_shown_either(workdir: Workdir) -> None:
    (workdir.path / "sf.txt").write_text("topsecretcontent")
    workdir.write(SECRETS)
    workdir.strata("apply", "-auto-approve", check=True)
    password = [r for r in workdir.state()["resources"] if r["type"] == "random_password"][0][
        "instances"][0]["attributes"]["result"]
    for args in (("plan", "-destroy"), ("state", "show", "data.local_sensitive_file.g"), ("show",),
                 ("state", "show", "random_password.p")):
        text = workdir.strata(*args, "-no-color", check=True).stdout
        assert "(sensitive value)" in text, (args, text)
        assert password not in text and "topsecretcontent" not in text, (args, text)
        # terraform_data's output is the provider's, unmarked: terraform shows it too
        assert all("output" in line for line in text.splitlines() if "hunter2" in line), (args, text)
    workdir.write("")  # every block gone: the objects are planned for deletion as orphans
    text = workdir.strata("plan", "-no-color", check=True).stdout
    assert "- input  = (sensitive value) -> null" in text and password not in text, text
    data = [r for r in workdir.state()["resources"] if r["mode"] == "data"][0]
    assert [{"type": "get_attr", "value": "content"}] in data["instances"][0]["sensitive_attributes"]


def test_an_imported_object_is_marked_as_its_schema_says(workdir: Workdir) -> None:
    workdir.write('resource "random_password" "q" {\n  length = 13\n}\n')
    workdir.strata("import", "random_password.q", "MyImportedPw1", check=True)
    assert "MyImportedPw1" not in workdir.strata("state", "show", "random_password.q", check=True).stdout
    marks = workdir.state()["resources"][0]["instances"][0]["sensitive_attributes"]
    assert [{"type": "get_attr", "value": "result"}] in marks


def test_an_error_does_not_quote_a_sensitive_value(workdir: Workdir) -> None:
    workdir.write('variable "s" {\n  default   = "hunter2"\n  sensitive = true\n}\nlocals {\n  d = "${var.s}x"\n'
                  '  a = tonumber(var.s)\n  c = tobool(local.d)\n  f = file(var.s)\n  g = -var.s\n}\n'
                  'output "o" {\n  value     = [local.a, local.c, local.f, local.g]\n  sensitive = true\n}\n')
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1 and "hunter2" not in res.stdout + res.stderr, res
    said = " ".join(res.stderr.split())
    assert "cannot convert this sensitive string to number." in said
    assert "cannot convert this sensitive string to bool." in said
    assert "no file exists at (sensitive value); this function works only" in said
    assert "Unsuitable value for unary operand: a number is required." in said


ALLOWED = '''variable "s" {
  default   = "hunter2"
  sensitive = true
}
locals {
  x = { a = var.s, b = "one" }
}
resource "terraform_data" "c" {
  count = 2
  input = var.s
}
resource "terraform_data" "f" {
  for_each = { k = var.s }
}
output "o1" {
  value = terraform_data.c[*].id
}
output "o2" {
  value = [for r in terraform_data.c : r.id]
}
output "o3" {
  value = local.x.b
}
'''


def test_what_terraform_allows_is_allowed(workdir: Workdir) -> None:
    workdir.write(ALLOWED)  # the marks are on elements and attributes that are not used
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 0, res
    assert '+ o3 = "one"' in res.stdout


def test_an_output_of_an_attribute_marked_by_its_configuration_fails_the_plan_walk(workdir: Workdir) -> None:
    workdir.write(ALLOWED.replace("terraform_data.c[*].id", "terraform_data.c[*].input"))
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1 and "Error: Output refers to sensitive values" in res.stderr
    assert "strata planned the following actions, but then encountered a problem:" in res.stdout


def test_a_mark_goes_away_when_the_configuration_drops_it(workdir: Workdir) -> None:
    workdir.write('variable "s" {\n  default   = "hunter2"\n  sensitive = true\n}\n'
                  'resource "terraform_data" "a" {\n  input = var.s\n}\n')
    workdir.strata("apply", "-auto-approve", check=True)
    workdir.write('resource "terraform_data" "a" {\n  input = "plain"\n}\n')
    workdir.strata("apply", "-auto-approve", check=True)
    assert workdir.state()["resources"][0]["instances"][0]["sensitive_attributes"] == []
    workdir.write('resource "terraform_data" "a" {\n  input = "plain"\n}\noutput "o" {\n  value = terraform_data.a.input\n}\n')
    assert '+ o = "plain"' in workdir.strata("plan", "-no-color", check=True).stdout


@requires_terraform
def test_what_terraform_allows_here(workdir: Workdir) -> None:
    workdir.write(ALLOWED)
    assert _terraform(workdir, "plan", "-no-color", "-input=false").returncode == 0


def test_each_value_and_collections_made_from_a_sensitive_one(workdir: Workdir) -> None:
    workdir.write('variable "s" {\n  default   = "hunter2"\n  sensitive = true\n}\n'
                  'variable "m" {\n  default   = { topsecretkey = "v1" }\n  sensitive = true\n}\n'
                  'resource "terraform_data" "fe" {\n  for_each = { a = var.s }\n  input    = "${each.key}-${each.value}"\n}\n'
                  'resource "terraform_data" "keys" {\n  input = [for k, v in var.m : k]\n}\n'
                  'output "fe" {\n  value = { for k, v in terraform_data.fe : k => v.input }\n}\n')
    res = workdir.strata("plan", "-no-color")
    assert "hunter2" not in res.stdout + res.stderr and "topsecretkey" not in res.stdout + res.stderr, res
    assert res.returncode == 1 and "Error: Output refers to sensitive values" in res.stderr
    assert res.stdout.count("+ input  = (sensitive value)") == 2


def test_what_terraform_allows_from_functions(workdir: Workdir) -> None:
    workdir.write('variable "s" {\n  default   = "hunter2"\n  sensitive = true\n}\n'
                  'resource "terraform_data" "f" {\n  for_each = merge({ a = var.s }, { b = "x" })\n}\n'
                  'resource "terraform_data" "g" {\n  for_each = zipmap(["a"], [var.s])\n}\n'
                  'output "c" {\n  value = can(tonumber(var.s))\n}\n')
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 0 and "+ c = false" in res.stdout, res


def test_a_sensitive_variable_s_bad_value_in_a_file_is_not_shown(workdir: Workdir) -> None:
    workdir.write('variable "n" {\n  type      = number\n  sensitive = true\n}\n')
    (workdir.path / "x.tfvars").write_text('n = "hunter2"\n')
    res = workdir.strata("plan", "-no-color", "-var-file=x.tfvars")
    assert (res.returncode, res.stdout) == (1, "\nPlanning failed. strata encountered an error while generating "
                                                "this plan.\n\n")
    assert res.stderr == ('\nError: Invalid value for input variable\n\n  on main.tf line 1:\n   1: variable "n" {\n\n'
                          "The given value is not suitable for var.n, which is sensitive: a number is\nrequired. "
                          "Invalid value defined at x.tfvars:1,5-14.\n")

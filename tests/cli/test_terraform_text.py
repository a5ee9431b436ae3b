"""terraform's text where users script against it: the notes under a planned change, the output
changes' alignment, data sources' lines, import's, heartbeats, ``-version``, "Did you mean"
suggestions. Each compared with terraform 1.11's for the same files when it is on PATH."""

from __future__ import annotations

import re

import pytest

from tests.conftest import Workdir, requires_terraform


def both(workdir: Workdir, *args: str) -> tuple[str, str]:
    """strata's and terraform's stdout for the same command (terraform's with its name as strata's)."""
    ours = workdir.strata(*args).stdout
    theirs = workdir.terraform(*args).stdout.replace("Terraform", "strata").replace("terraform ", "strata ")
    return ours, theirs


def notes(text: str) -> list[str]:
    """The comment lines of a plan (``  # ...``), ids left out."""
    return [re.sub(r'"[0-9a-f-]{36}"', '"ID"', line) for line in text.splitlines()
            if line.lstrip().startswith("# ")]


DESTROY_V1 = '''\
resource "terraform_data" "fe" {
  for_each = toset(["db", "web"])
}
resource "terraform_data" "cnt" {
  count = 2
}
resource "terraform_data" "gone" {}
resource "terraform_data" "tocount" {}
resource "terraform_data" "unkeyed" {
  for_each = toset(["a"])
}
'''
DESTROY_V2 = '''\
resource "terraform_data" "fe" {
  for_each = toset(["web"])
}
resource "terraform_data" "cnt" {
  count = 1
}
resource "terraform_data" "tocount" {
  for_each = toset(["a"])
}
resource "terraform_data" "unkeyed" {}
'''
DESTROY_NOTES = [
    "  # terraform_data.cnt[1] will be destroyed",
    "  # (because index [1] is out of range for count)",
    '  # terraform_data.fe["db"] will be destroyed',
    '  # (because key ["db"] is not in for_each map)',
    "  # terraform_data.gone will be destroyed",
    "  # (because terraform_data.gone is not in configuration)",
    "  # terraform_data.tocount will be destroyed",
    "  # (because resource uses count or for_each)",
    '  # terraform_data.tocount["a"] will be created',
    "  # terraform_data.unkeyed will be created",
    '  # terraform_data.unkeyed["a"] will be destroyed',
    "  # (because resource does not use for_each)",
]


def test_destroy_reasons_are_terraforms(workdir: Workdir) -> None:
    workdir.write(DESTROY_V1)
    workdir.strata("apply", "-auto-approve", check=True)
    workdir.write(DESTROY_V2)
    assert notes(workdir.strata("plan", "-no-color", check=True).stdout) == DESTROY_NOTES


@requires_terraform
def test_destroy_reasons_match_terraform(workdir: Workdir) -> None:
    workdir.write(DESTROY_V1)
    workdir.terraform("apply", "-auto-approve")
    workdir.write(DESTROY_V2)
    assert notes(workdir.terraform("plan", "-no-color").stdout) == DESTROY_NOTES


OUTPUTS_V1 = '''\
variable "v" {
  default = "a"
}
output "a_very_long_output_name" {
  value = "same"
}
output "x" {
  value = var.v
}
output "gone" {
  value = 1
}
'''
OUTPUTS_V2 = OUTPUTS_V1.replace('default = "a"', 'default = "b"').replace('output "gone"', 'output "new"')
OUTPUT_CHANGES = '''
Changes to Outputs:
  - gone                    = 1 -> null
  + new                     = 1
  ~ x                       = "a" -> "b"
'''


def test_output_changes_are_padded_to_the_longest_output_name(workdir: Workdir) -> None:
    workdir.write(OUTPUTS_V1)
    workdir.strata("apply", "-auto-approve", check=True)
    workdir.write(OUTPUTS_V2)
    assert OUTPUT_CHANGES in workdir.strata("plan", "-no-color", check=True).stdout


@requires_terraform
def test_output_changes_are_padded_as_terraform_pads_them(workdir: Workdir) -> None:
    workdir.write(OUTPUTS_V1)
    workdir.terraform("apply", "-auto-approve")
    workdir.write(OUTPUTS_V2)
    assert OUTPUT_CHANGES in workdir.terraform("plan", "-no-color").stdout


def errors_of(workdir: Workdir, *args: str) -> tuple[tuple[int, str], tuple[int, str]]:
    """(exit status, stderr) of strata and of terraform (its name as strata's) for one command line."""
    ours = workdir.strata(*args)
    theirs = workdir.terraform(*args)
    text = theirs.stderr.replace("Terraform", "strata").replace("terraform ", "strata ")
    return (ours.returncode, ours.stderr), (theirs.returncode, text)


@pytest.mark.parametrize("flag", ["-version", "--version", "-v"])
def test_version_flags_are_the_version_command(workdir: Workdir, flag: str) -> None:
    res = workdir.strata(flag, check=True)
    assert res.stdout == workdir.strata("version", check=True).stdout
    assert re.fullmatch(r"strata v\d+\.\d+\.\d+\non [a-z0-9]+_[a-z0-9]+\n", res.stdout), res.stdout


@requires_terraform
@pytest.mark.parametrize("flag", ["-version", "--version", "-v"])
def test_version_flags_print_terraforms_format(workdir: Workdir, flag: str) -> None:
    ours = workdir.strata(flag, check=True).stdout
    theirs = workdir.terraform(flag).stdout
    shape = re.compile(r"(\w+) v[\d.]+\non (\w+)\n")
    m1, m2 = shape.fullmatch(ours), shape.fullmatch(theirs)
    assert m1 and m2 and m1[2] == m2[2], (ours, theirs)


@pytest.mark.parametrize(("command", "suggestion"), [("plna", ' Did you mean "plan"?'),
                                                     ("aply", ' Did you mean "apply"?'), ("xyzzy", "")])
def test_a_misspelt_command_gets_terraforms_suggestion(workdir: Workdir, command: str, suggestion: str) -> None:
    res = workdir.strata(command)
    assert (res.returncode, res.stderr) == (
        1, f'strata has no command named "{command}".{suggestion}\n\n'
           "To see all of strata's top-level commands, run:\n  strata -help\n\n")


@requires_terraform
@pytest.mark.parametrize("args", [("plna",), ("aply",), ("xyzzy",), ("plan", "-auto-aprove", "-no-color"),
                                  ("apply", "-paralelism=2", "-no-color")])
def test_a_misspelt_command_or_flag_reads_as_terraforms(workdir: Workdir, args: tuple[str, ...]) -> None:
    workdir.write('resource "terraform_data" "a" {}\n')
    ours, theirs = errors_of(workdir, *args)
    assert ours == theirs


MISSPELT = '''\
variable "name" {
  default = "x"
}
locals {
  thing = 1
}
module "mod" {
  source = "./m"
}
resource "terraform_data" "a" {
  input = var.nmae
}
resource "terraform_data" "c" {
  input = local.thign
}
output "o" {
  value = module.mdo.value
}
output "p" {
  value = var.zzzzzzz
}
'''
MISSPELT_ATTRIBUTE = '''\
resource "terraform_data" "a" {
  count = 1
  input = 1
}
resource "terraform_data" "b" {
  input = terraform_data.a[0].outptu
}
resource "terraform_data" "d" {
  inptu = 1
}
'''


def with_module(workdir: Workdir, config: str) -> None:
    workdir.write(config)
    (workdir.path / "m").mkdir()
    workdir.write('output "value" {\n  value = 1\n}\n', "m/main.tf")


@pytest.mark.parametrize("command", ["validate", "plan"])
def test_misspelt_references_get_terraforms_suggestions(workdir: Workdir, command: str) -> None:
    with_module(workdir, MISSPELT)
    text = " ".join(workdir.strata(command, "-no-color").stderr.split())
    for expected in ('An input variable with the name "nmae" has not been declared. Did you mean "name"?',
                     'A local value with the name "thign" has not been declared. Did you mean "thing"?',
                     'No module call named "mdo" is declared in the root module. Did you mean "mod"?',
                     'An input variable with the name "zzzzzzz" has not been declared. This variable can be '
                     'declared with a variable "zzzzzzz" {} block.'):
        assert expected in text, text


@pytest.mark.parametrize("command", ["validate", "plan"])
def test_a_misspelt_attribute_of_a_resource_gets_terraforms_suggestion(workdir: Workdir, command: str) -> None:
    workdir.write(MISSPELT_ATTRIBUTE)
    res = workdir.strata(command, "-no-color")
    assert res.returncode == 1 and res.stdout == ""
    assert ('This object has no argument, nested block, or exported attribute named\n"outptu". Did you mean '
            '"output"?') in res.stderr, res.stderr
    assert 'An argument named "inptu" is not expected here. Did you mean "input"?' in res.stderr


@requires_terraform
@pytest.mark.parametrize("command", ["validate", "plan"])
@pytest.mark.parametrize("config", [MISSPELT, MISSPELT_ATTRIBUTE], ids=["references", "attribute"])
def test_misspelt_names_read_as_terraforms(workdir: Workdir, command: str, config: str) -> None:
    with_module(workdir, config)
    ours, theirs = errors_of(workdir, command, "-no-color")
    assert ours == theirs

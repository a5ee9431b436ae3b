"""User mistakes reported in terraform's words: the summary, where (``on FILE line N``, with the
enclosing block unless the subject is a block's own declaration), and the detail; "Planning
failed" only for what terraform's plan walk finds, not its validation. Each case is checked
against the text terraform 1.11 prints (recorded here) and, where terraform is on the machine,
against terraform itself."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.conftest import Workdir, requires_terraform

PLANNING_FAILED = "\nPlanning failed. strata encountered an error while generating this plan.\n\n"

# name: (files, extra arguments, environment, stdout, stderr), as terraform prints them with
# -no-color ("Terraform" read as "strata")
CASES: dict[str, tuple[dict[str, str], list[str], dict[str, str], str, str]] = {
    "duplicate resource": (
        {"main.tf": 'resource "terraform_data" "a" {\n}\nresource "terraform_data" "a" {\n}\n'}, [], {}, "",
        '\nError: Duplicate resource "terraform_data" configuration\n\n  on main.tf line 3:\n'
        '   3: resource "terraform_data" "a" {\n\nA terraform_data resource named "a" was already declared at '
        "main.tf:1,1-30.\nResource names must be unique per type in each module.\n"),
    "duplicate variable": (
        {"main.tf": 'variable "v" {\n}\nvariable "v" {\n}\n'}, [], {}, "",
        '\nError: Duplicate variable declaration\n\n  on main.tf line 3:\n   3: variable "v" {\n\n'
        'A variable named "v" was already declared at main.tf:1,1-13. Variable names\nmust be unique within '
        "a module.\n"),
    "duplicate local": (
        {"main.tf": "locals {\n  a = 1\n}\nlocals {\n  a = 2\n}\n"}, [], {}, "",
        "\nError: Duplicate local value definition\n\n  on main.tf line 5, in locals:\n   5:   a = 2\n\n"
        'A local value named "a" was already defined at main.tf:2,3-8. Local value\nnames must be unique '
        "within a module.\n"),
    "argument set twice": (
        {"main.tf": 'resource "terraform_data" "a" {\n  input = "x"\n  input = "y"\n}\n'}, [], {}, "",
        '\nError: Attribute redefined\n\n  on main.tf line 3, in resource "terraform_data" "a":\n'
        '   3:   input = "y"\n\nThe argument "input" was already set at main.tf:2,3-8. Each argument may be\n'
        "set only once.\n"),
    "missing closing brace": (
        {"main.tf": 'resource "terraform_data" "a" {\n  input = "x"\n'}, [], {}, "",
        '\nError: Unclosed configuration block\n\n  on main.tf line 1, in resource "terraform_data" "a":\n'
        '   1: resource "terraform_data" "a" {\n\nThere is no closing brace for this block before the end of '
        "the file. This may\nbe caused by incorrect brace nesting elsewhere in this file.\n"),
    "wrong type on the command line": (
        {"main.tf": 'variable "n" {\n  type = number\n}\n'}, ["-var", "n=abc"], {}, PLANNING_FAILED,
        '\nError: Invalid value for input variable\n\n  on main.tf line 1:\n   1: variable "n" {\n\n'
        'Unsuitable value for var.n set using -var="n=...": a number is required.\n'),
    "wrong type in the environment": (
        {"main.tf": 'variable "n" {\n  type = number\n}\n'}, [], {"TF_VAR_n": "abc"}, PLANNING_FAILED,
        '\nError: Invalid value for input variable\n\n  on main.tf line 1:\n   1: variable "n" {\n\n'
        "Unsuitable value for var.n set using the TF_VAR_n environment variable: a\nnumber is required.\n"),
    "wrong type in terraform.tfvars": (
        {"main.tf": 'variable "n" {\n  type = number\n}\n', "terraform.tfvars": 'n = "abc"\n'}, [], {},
        PLANNING_FAILED,
        '\nError: Invalid value for input variable\n\n  on terraform.tfvars line 1:\n   1: n = "abc"\n\n'
        "The given value is not suitable for var.n declared at main.tf:1,1-13: a\nnumber is required.\n"),
    "missing required variable": (
        {"main.tf": 'variable "req" {\n  type = string\n}\n'}, [], {}, "",
        '\nError: No value for required variable\n\n  on main.tf line 1:\n   1: variable "req" {\n\n'
        'The root module input variable "req" is not set, and has no default value.\nUse a -var or -var-file '
        "command line argument to provide a value for this\nvariable.\n"),
    "wrong default": (
        {"main.tf": 'variable "n" {\n  type    = number\n  default = "abc"\n}\n'}, [], {}, "",
        '\nError: Invalid default value for variable\n\n  on main.tf line 3, in variable "n":\n'
        '   3:   default = "abc"\n\nThis default value is not compatible with the variable\'s type constraint: a\n'
        "number is required.\n"),
    "count and for_each": (
        {"main.tf": 'resource "terraform_data" "a" {\n  count    = 1\n  for_each = {}\n}\n'}, [], {}, "",
        '\nError: Invalid combination of "count" and "for_each"\n\n  on main.tf line 3, in resource '
        '"terraform_data" "a":\n   3:   for_each = {}\n\nThe "count" and "for_each" meta-arguments are '
        "mutually-exclusive, only one\nshould be used to be explicit about the number of resources to be "
        "created.\n"),
    "count not a number": (
        {"main.tf": 'resource "terraform_data" "a" {\n  count = "abc"\n}\n'}, [], {}, "",
        '\nError: Incorrect value type\n\n  on main.tf line 2, in resource "terraform_data" "a":\n'
        '   2:   count = "abc"\n\nInvalid expression value: a number is required.\n'),
    "for_each over a list": (
        {"main.tf": 'resource "terraform_data" "a" {\n  for_each = ["a", "b"]\n}\n'}, [], {}, "",
        '\nError: Invalid for_each argument\n\n  on main.tf line 2, in resource "terraform_data" "a":\n'
        '   2:   for_each = ["a", "b"]\n\nThe given "for_each" argument value is unsuitable: the "for_each" '
        "argument\nmust be a map, or set of strings, and you have provided a value of type\ntuple.\n"),
}


def _run(workdir: Workdir, files: dict[str, str], args: list[str], env: dict[str, str]) -> tuple[str, str]:
    for name, text in files.items():
        (workdir.path / name).write_text(text)
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        res = workdir.strata("plan", "-no-color", "-input=false", *args)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    assert res.returncode == 1, res
    return res.stdout, res.stderr


@pytest.mark.parametrize("name", list(CASES))
def test_terraform_s_words(workdir: Workdir, name: str) -> None:
    files, args, env, stdout, stderr = CASES[name]
    assert _run(workdir, files, args, env) == (stdout, stderr)


@requires_terraform
@pytest.mark.parametrize("name", list(CASES))
def test_the_same_as_terraform_here(workdir: Workdir, name: str) -> None:
    files, args, env, _, _ = CASES[name]
    ours = _run(workdir, files, args, env)
    # no init: it fails on a configuration with mistakes, and terraform_data needs none
    tf = subprocess.run(["terraform", "plan", "-no-color", "-input=false", *args], cwd=workdir.path,
                        env=dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", CHECKPOINT_DISABLE="1", **env),
                        capture_output=True, text=True, timeout=300)
    assert tf.returncode == 1
    assert ours == (tf.stdout.replace("Terraform", "strata"), tf.stderr)

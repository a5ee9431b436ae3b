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
    "invalid resource name": (
        {"main.tf": 'resource "terraform_data" "1bad" {\n}\n'}, [], {}, "",
        '\nError: Invalid resource name\n\n  on main.tf line 1, in resource "terraform_data" "1bad":\n'
        '   1: resource "terraform_data" "1bad" {\n\nA name must start with a letter or underscore and may '
        "contain only letters,\ndigits, underscores, and dashes.\n"),
    "reserved variable name": (
        {"main.tf": 'variable "count" {\n}\n'}, [], {}, "",
        '\nError: Invalid variable name\n\n  on main.tf line 1, in variable "count":\n   1: variable "count" {'
        '\n\nThe variable name "count" is reserved due to its special meaning inside\nmodule blocks.\n'),
    "unsupported argument in an output": (
        {"main.tf": 'output "o" {\n  value = 1\n  foo   = 2\n}\n'}, [], {}, "",
        '\nError: Unsupported argument\n\n  on main.tf line 3, in output "o":\n   3:   foo   = 2\n\n'
        'An argument named "foo" is not expected here.\n'),
    "null default of a variable that is not nullable": (
        {"main.tf": 'variable "v" {\n  type     = string\n  nullable = false\n  default  = null\n}\n'}, [], {},
        "",
        '\nError: Invalid default value for variable\n\n  on main.tf line 4, in variable "v":\n'
        "   4:   default  = null\n\nA null default value is not valid when nullable=false.\n"),
    "required_version not met": (
        {"main.tf": 'terraform {\n  required_version = ">= 99.0"\n}\n'}, [], {}, "",
        '\nError: Unsupported Terraform Core version\n\n  on main.tf line 2, in terraform:\n'
        '   2:   required_version = ">= 99.0"\n\nThis configuration does not support Terraform version 1.11.4. '
        "To proceed,\neither choose another supported Terraform version or update this version\nconstraint. "
        "Version constraints are normally set for good reason, so updating\nthe constraint may lead to other "
        "errors or unexpected behavior.\n"),
    'unsupported attribute of a resource': (
        {'main.tf': 'resource "terraform_data" "b" {\n  input = "x"\n}\nresource "terraform_data" "a" {\n  input = terraform_data.b.nope\n}\n'}, [], {},
        '',
        '\nError: Unsupported attribute\n\n  on main.tf line 5, in resource "terraform_data" "a":\n   5:   input = terraform_data.b.nope\n\nThis object has no argument, nested block, or exported attribute named\n"nope".\n'),
    'unsupported argument': (
        {'main.tf': 'resource "terraform_data" "a" {\n  foo = 1\n}\n'}, [], {},
        '',
        '\nError: Unsupported argument\n\n  on main.tf line 2, in resource "terraform_data" "a":\n   2:   foo = 1\n\nAn argument named "foo" is not expected here.\n'),
    'missing instance key': (
        {'main.tf': 'resource "terraform_data" "a" {\n  count = 2\n}\noutput "o" {\n  value = terraform_data.a.id\n}\n'}, [], {},
        '',
        '\nError: Missing resource instance key\n\n  on main.tf line 5, in output "o":\n   5:   value = terraform_data.a.id\n\nBecause terraform_data.a has "count" set, its attributes must be accessed on\nspecific instances.\n\nFor example, to correlate with indices of a referring resource, use:\n    terraform_data.a[count.index]\n'),
    'unexpected instance key': (
        {'main.tf': 'resource "terraform_data" "a" {\n}\noutput "o" {\n  value = terraform_data.a[0].id\n}\n'}, [], {},
        '',
        '\nError: Unexpected resource instance key\n\n  on main.tf line 4, in output "o":\n   4:   value = terraform_data.a[0].id\n\nBecause terraform_data.a does not have "count" or "for_each" set, references\nto it must not include an index key. Remove the bracketed index to refer to\nthe single instance of this resource.\n'),
    'operand of the wrong type': (
        {'main.tf': 'output "o" {\n  value = "a" + 1\n}\n'}, [], {},
        '',
        '\nError: Invalid operand\n\n  on main.tf line 2, in output "o":\n   2:   value = "a" + 1\n\nUnsuitable value for left operand: a number is required.\n'),
    'count.index without count': (
        {'main.tf': 'resource "terraform_data" "a" {\n  input = count.index\n}\n'}, [], {},
        '',
        '\nError: Reference to "count" in non-counted context\n\n  on main.tf line 2, in resource "terraform_data" "a":\n   2:   input = count.index\n\nThe "count" object can only be used in "module", "resource", and "data"\nblocks, and only when the "count" argument is set.\n'),
    'each.key without for_each': (
        {'main.tf': 'resource "terraform_data" "a" {\n  input = each.key\n}\n'}, [], {},
        '',
        '\nError: Reference to "each" in context without for_each\n\n  on main.tf line 2, in resource "terraform_data" "a":\n   2:   input = each.key\n\nThe "each" object can be used only in "module" or "resource" blocks, and only\nwhen the "for_each" argument is set.\n'),
    'condition not a bool': (
        {'main.tf': 'output "o" {\n  value = "x" ? 1 : 2\n}\n'}, [], {},
        '',
        '\nError: Incorrect condition type\n\n  on main.tf line 2, in output "o":\n   2:   value = "x" ? 1 : 2\n\nThe condition expression must be of type bool.\n'),
    'bare resource type': (
        {'main.tf': 'output "o" {\n  value = hello\n}\n'}, [], {},
        '',
        '\nError: Invalid reference\n\n  on main.tf line 2, in output "o":\n   2:   value = hello\n\nA reference to a resource type must be followed by at least one attribute\naccess, specifying the resource name.\n'),
    'too many function arguments': (
        {'main.tf': 'locals {\n  x = upper("a", "b")\n}\noutput "o" {\n  value = local.x\n}\n'}, [], {},
        '',
        '\nError: Too many function arguments\n\n  on main.tf line 2, in locals:\n   2:   x = upper("a", "b")\n    ├────────────────\n    │ while calling upper(str)\n\nFunction "upper" expects only 1 argument(s).\n'),
    'not enough function arguments': (
        {'main.tf': 'output "o" {\n  value = upper()\n}\n'}, [], {},
        '',
        '\nError: Not enough function arguments\n\n  on main.tf line 2, in output "o":\n   2:   value = upper()\n    ├────────────────\n    │ while calling upper(str)\n\nFunction "upper" expects 1 argument(s). Missing value for "str".\n'),
    'error in a function call': (
        {'main.tf': 'output "o" {\n  value = join(",")\n}\n'}, [], {},
        '',
        '\nError: Error in function call\n\n  on main.tf line 2, in output "o":\n   2:   value = join(",")\n    ├────────────────\n    │ while calling join(separator, lists...)\n\nCall to function "join" failed: at least one list is required.\n'),
    'element of an empty list': (
        {'main.tf': 'output "o" {\n  value = element([], 0)\n}\n'}, [], {},
        '',
        '\nError: Error in function call\n\n  on main.tf line 2, in output "o":\n   2:   value = element([], 0)\n    ├────────────────\n    │ while calling element(list, index)\n\nCall to function "element" failed: cannot use element function with an empty\nlist.\n'),
}


def test_depends_on_a_variable_is_accepted_as_terraform_accepts_it(workdir: Workdir) -> None:
    workdir.write('variable "v" {\n  default = "x"\n}\nresource "terraform_data" "a" {\n  depends_on = [var.v]\n}\n')
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 0 and "terraform_data.a will be created" in res.stdout, res


@pytest.mark.parametrize(("constraint", "ok"), [
    (">= 1.5", True), (">= 1.5, < 2.0", True), ("~> 1.11", True), ("~> 1.11.0", True), ("~> 1.10.0", False),
    ("= 1.11.4", True), ("1.11.4", True), ("!= 1.11.4", False), ("< 1.11.4", False), ("<= 1.11.4", True),
    ("> 1.11.3", True), (">= 99.0", False), ("~> 1.2", True), ("~> 0.12", False), (">= 1.12.0-beta1", False),
])
def test_required_version_constraints(constraint: str, ok: bool) -> None:
    from engine.config.versions import version_admits

    assert version_admits(constraint, "1.11.4") is ok


def _run(workdir: Workdir, files: dict[str, str], args: list[str], env: dict[str, str],
         monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    for name, text in files.items():
        (workdir.path / name).write_text(text)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    res = workdir.strata("plan", "-no-color", "-input=false", *args)
    assert res.returncode == 1, res
    return res.stdout, res.stderr


@pytest.mark.parametrize("name", list(CASES))
def test_terraform_s_words(workdir: Workdir, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    files, args, env, stdout, stderr = CASES[name]
    assert _run(workdir, files, args, env, monkeypatch) == (stdout, stderr)


@requires_terraform
@pytest.mark.parametrize("name", list(CASES))
def test_the_same_as_terraform_here(workdir: Workdir, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    files, args, env, _, _ = CASES[name]
    ours = _run(workdir, files, args, env, monkeypatch)
    # no init: it fails on a configuration with mistakes, and terraform_data needs none
    tf = subprocess.run(["terraform", "plan", "-no-color", "-input=false", *args], cwd=workdir.path,
                        env=dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", CHECKPOINT_DISABLE="1", **env),
                        capture_output=True, text=True, timeout=300)
    assert tf.returncode == 1
    assert ours == (tf.stdout.replace("Terraform", "strata"), tf.stderr)


UNDECLARED_WARNING = (
    '\nWarning: Value for undeclared variable\n\nThe root module does not declare a variable named "{name}" but a '
    'value was found\nin file "terraform.tfvars". If you meant to use this value, add a "variable"\nblock to the '
    'configuration.\n\nTo silence these warnings, use TF_VAR_... environment variables to provide\ncertain '
    '"global" settings to all configurations in your organization. To\nreduce the verbosity of these warnings, '
    "use the -compact-warnings option.\n")


def test_values_for_undeclared_variables_are_warned_about_two_at_most(workdir: Workdir) -> None:
    workdir.write('output "o" {\n  value = 1\n}\n')
    (workdir.path / "terraform.tfvars").write_text("a = 1\nb = 2\nc = 3\nd = 4\n")
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 0, res
    assert res.stdout.endswith(UNDECLARED_WARNING.format(name="a") + UNDECLARED_WARNING.format(name="b")
                               + "\nWarning: Values for undeclared variables\n\nIn addition to the other similar "
                               "warnings shown, 2 other variable(s) defined\nwithout being declared.\n"
                               + "\n" + "─" * 77 + "\n\nNote: You didn't use the -out option to save this plan, so "
                               "strata can't\nguarantee to take exactly these actions if you run \"strata apply\" "
                               "now.\n"), res.stdout


def test_a_cycle_is_named_in_the_summary_as_terraform_names_it(workdir: Workdir) -> None:
    workdir.write('locals {\n  a = local.b\n  b = local.a\n}\noutput "o" {\n  value = local.a\n}\n')
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1 and res.stdout == ""
    assert res.stderr == "\nError: Cycle: local.a (expand), local.b (expand)\n\n", res.stderr


@requires_terraform
def test_an_apply_with_a_warning_prints_what_terraform_prints(workdir: Workdir) -> None:
    import re

    workdir.write('output "o" {\n  value = 1\n}\nresource "terraform_data" "a" {\n}\n')
    (workdir.path / "terraform.tfvars").write_text("foo = 1\n")
    tf = subprocess.run(["terraform", "apply", "-auto-approve", "-no-color", "-input=false"], cwd=workdir.path,
                        env=dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", CHECKPOINT_DISABLE="1"),
                        capture_output=True, text=True, timeout=300)
    (workdir.path / "terraform.tfstate").unlink()
    ours = workdir.strata("apply", "-auto-approve", "-no-color", "-input=false")
    assert tf.returncode == ours.returncode == 0

    def masked(text: str) -> str:
        return re.sub(r"\[id=[^\]]*\]", "[id=X]", text.replace("Terraform", "strata"))

    assert masked(ours.stdout) == masked(tf.stdout)


def test_what_refers_to_a_self_referring_resource_is_not_planned_and_nothing_crashes(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "a" {\n  input = terraform_data.a.id\n}\n'
                  'resource "terraform_data" "c" {\n  input = terraform_data.a.output\n}\n'
                  'resource "terraform_data" "d" {\n}\noutput "o" {\n  value = terraform_data.a.id\n}\n')
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1 and "Traceback" not in res.stderr, res
    assert "# terraform_data.d will be created" in res.stdout and "terraform_data.c" not in res.stdout, res.stdout
    assert "Changes to Outputs" not in res.stdout
    assert res.stderr.count("Error:") == 1 and "Configuration for terraform_data.a may not" in res.stderr


def test_only_the_instance_that_refers_to_itself_is_named(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "a" {\n  count = 2\n  input = terraform_data.a[1].id\n}\n')
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1
    assert "terraform_data.a[1] may not refer to itself" in res.stderr
    assert "terraform_data.a[0] may not" not in res.stderr and "Invalid index" not in res.stderr, res.stderr


def test_a_mistake_validation_finds_is_shown_alone_without_a_partial_plan(workdir: Workdir) -> None:
    workdir.write('variable "n" {\n  default = -1\n}\nresource "terraform_data" "a" {\n  count = var.n\n}\n'
                  'resource "terraform_data" "b" {\n}\noutput "o" {\n  value = "abc" + 1\n}\n')
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1 and res.stdout == "", res.stdout
    assert res.stderr.count("Error:") == 1 and "Invalid operand" in res.stderr, res.stderr


def test_names_in_any_script_are_valid(workdir: Workdir) -> None:
    # (as labels: the expression parser does not take identifiers beyond ASCII yet)
    workdir.write('resource "terraform_data" "naïve" {\n}\nvariable "café" {\n  default = 1\n}\n'
                  'output "ñ" {\n  value = 1\n}\n')
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 0, res


@pytest.mark.parametrize(("constraint", "error"), [
    (">= 1.0.0.0", None), ("= 1.11.4+build", None), ("~> 1.11.0.0", "Unsupported Terraform Core version"),
    ("< 1.12.0-alpha1", "Invalid required_version constraint"),
])
def test_required_version_forms(workdir: Workdir, constraint: str, error: str | None) -> None:
    workdir.write(f'terraform {{\n  required_version = "{constraint}"\n}}\n')
    res = workdir.strata("plan", "-no-color")
    if error is None:
        assert res.returncode == 0, res
    else:
        assert res.returncode == 1 and f"Error: {error}" in res.stderr, res.stderr


def test_warnings_found_before_an_error_are_still_printed(workdir: Workdir) -> None:
    workdir.write('variable "x" {\n  type = number\n}\noutput "o" {\n  value = var.x\n}\n')
    (workdir.path / "terraform.tfvars").write_text("foo = 1\n")
    res = workdir.strata("plan", "-no-color", "-var", "x=abc")
    assert res.returncode == 1
    assert "Warning: Value for undeclared variable" in res.stdout and "Unsuitable value for var.x" in res.stderr


@pytest.mark.parametrize(("body", "detail"), [
    ("count = null", 'The given "count" argument value is null. An integer is required.\n'),
    ("count = 2.5", 'The given "count" argument value is unsuitable: value must be a whole number,\n'
                    "between -9223372036854775808 and 9223372036854775807.\n"),
    # a whole number beyond cty's int64: terraform's same words, not an attempt to plan 1e100 instances
    ("count = 1e100", 'The given "count" argument value is unsuitable: value must be a whole number,\n'
                      "between -9223372036854775808 and 9223372036854775807.\n"),
])
def test_count_values_that_are_no_whole_number(workdir: Workdir, body: str, detail: str) -> None:
    workdir.write(f'resource "terraform_data" "a" {{\n  {body}\n}}\n')
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1 and res.stdout == ""
    assert res.stderr.startswith("\nError: Invalid count argument\n") and res.stderr.endswith("\n\n" + detail)


def test_a_data_block_s_invalid_name_says_data_resource(workdir: Workdir) -> None:
    workdir.write('data "terraform_remote_state" "1x" {\n}\n')
    res = workdir.strata("validate", "-no-color")
    assert res.returncode == 1 and "\nError: Invalid data resource name\n" in res.stderr, res.stderr


@pytest.mark.parametrize(("literal", "detail"), [
    ("\\u{D800}", "The \\u escape sequence must be followed by four hexadecimal digits."),
    ("\\u12", "The \\u escape sequence must be followed by four hexadecimal digits."),
    ("\\U0001F6", "The \\U escape sequence must be followed by eight hexadecimal digits."),
    ("\\uD800", "Cannot encode character U+d800 in UTF-8."),
    ("\\q", 'The symbol "q" is not a valid escape sequence selector.'),
])
def test_invalid_escape_sequences_in_terraform_s_words(workdir: Workdir, literal: str, detail: str) -> None:
    workdir.write(f'resource "terraform_data" "a" {{\n  input = "{literal}"\n}}\n')
    res = workdir.strata("validate", "-no-color")
    assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
    assert "Error: Invalid escape sequence" in res.stderr and "on main.tf line 2" in res.stderr, res.stderr
    assert res.stderr.rstrip().endswith(detail), res.stderr


def test_valid_escape_sequences_are_resolved(workdir: Workdir) -> None:
    workdir.write('output "o" {\n  value = "\\u00e9\\U0001F600\\t\\"\\\\"\n}\n')
    res = workdir.strata("apply", "-auto-approve", "-json")
    assert res.returncode == 0, res.stderr
    assert workdir.state()["outputs"]["o"]["value"] == "\u00e9\U0001F600\t\"\\"


def test_escapes_inside_a_literal_interpolation_are_resolved_and_checked(workdir: Workdir) -> None:
    # "$${a\tb}" is the literal text "${a<tab>b}", as terraform reads it; "$${a\qb}" is an error
    workdir.write('output "o" {\n  value = "$${a\\tb}%%{c\\u0041}"\n}\n')
    res = workdir.strata("apply", "-auto-approve", "-json")
    assert res.returncode == 0, res.stderr
    assert workdir.state()["outputs"]["o"]["value"] == "${a\tb}%{cA}"
    workdir.write('output "o" {\n  value = "$${a\\qb}"\n}\n')
    res = workdir.strata("validate", "-no-color")
    assert res.returncode == 1 and "Error: Invalid escape sequence" in res.stderr, res.stderr

"""terraform's text where users script against it: the notes under a planned change, the output
changes' alignment, data sources' lines, import's, heartbeats, ``-version``, "Did you mean"
suggestions. Each compared with terraform 1.11's for the same files when it is on PATH."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.conftest import REPO, Workdir, requires_terraform, terraform_available


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
resource "terraform_data" "single" {}
resource "terraform_data" "uncounted" {
  count = 3
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
resource "terraform_data" "single" {
  count = 1
}
resource "terraform_data" "uncounted" {}
'''
DESTROY_NOTES = [
    "  # terraform_data.cnt[1] will be destroyed",
    "  # (because index [1] is out of range for count)",
    '  # terraform_data.fe["db"] will be destroyed',
    '  # (because key ["db"] is not in for_each map)',
    "  # terraform_data.gone will be destroyed",
    "  # (because terraform_data.gone is not in configuration)",
    "  # terraform_data.single has moved to terraform_data.single[0]",  # terraform's implied move
    "  # terraform_data.tocount will be destroyed",
    "  # (because resource uses count or for_each)",
    '  # terraform_data.tocount["a"] will be created',
    '  # terraform_data.uncounted[0] has moved to terraform_data.uncounted',
    "  # terraform_data.uncounted[1] will be destroyed",
    "  # (because resource does not use count)",
    "  # terraform_data.uncounted[2] will be destroyed",
    "  # (because resource does not use count)",
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


MISSPELT_LIFECYCLE = '''\
resource "terraform_data" "a" {
  lifecycle {
    create_before_destory = true
    foo = 1
  }
}
'''


def test_a_misspelt_lifecycle_argument_gets_terraforms_suggestion(workdir: Workdir) -> None:
    workdir.write(MISSPELT_LIFECYCLE)
    text = " ".join(workdir.strata("validate", "-no-color").stderr.split())
    assert ('An argument named "create_before_destory" is not expected here. Did you mean '
            '"create_before_destroy"?') in text, text
    assert 'An argument named "foo" is not expected here.' in text, text


@requires_terraform
@pytest.mark.parametrize("command", ["validate", "plan"])
@pytest.mark.parametrize("config", [MISSPELT, MISSPELT_ATTRIBUTE, MISSPELT_LIFECYCLE],
                         ids=["references", "attribute", "lifecycle"])
def test_misspelt_names_read_as_terraforms(workdir: Workdir, command: str, config: str) -> None:
    with_module(workdir, config)
    workdir.terraform("init", "-input=false", "-no-color")  # refuses a misspelt lifecycle argument itself
    ours, theirs = errors_of(workdir, command, "-no-color")
    assert ours == theirs


DATA_CONFIG = '''\
variable "v" {
  default = "1"
}
resource "null_resource" "a" {
  triggers = { v = var.v }
}
data "null_data_source" "d" {
  inputs = { id = null_resource.a.id }
}
data "null_data_source" "k" {
  inputs = { v = var.v }
}
resource "null_resource" "z" {
  triggers = { v = data.null_data_source.k.outputs["v"] }
}
output "o" {
  value = data.null_data_source.d.outputs["id"]
}
'''
DATA_PLAN_HEAD = '''\
data.null_data_source.k: Reading...
data.null_data_source.k: Read complete after 0s [id=static]

strata used the selected providers to generate the following execution
plan. Resource actions are indicated with the following symbols:
  + create
 <= read (data resources)

strata will perform the following actions:

  # data.null_data_source.d will be read during apply
  # (config refers to values not yet known)
 <= data "null_data_source" "d" {
'''


@pytest.fixture
def with_null(workdir: Workdir) -> Workdir:
    """The real null plugin, installed by terraform from the test mirror."""
    from tests.plugins.fetch import fetch

    if not terraform_available():
        pytest.skip("terraform installs the plugin")
    got = fetch(aws=False, example=False)
    if got.null is None:
        pytest.skip("terraform-provider-null 2.1.2 could not be fetched: " + "; ".join(got.problems))
    workdir.write(DATA_CONFIG)
    assert workdir.terraform("init", "-input=false", "-no-color", f"-plugin-dir={got.mirror}").returncode == 0
    return workdir


def test_data_sources_are_read_listed_first_and_explained(with_null: Workdir) -> None:
    text = with_null.strata("plan", "-no-color", check=True).stdout
    assert text.startswith(DATA_PLAN_HEAD), text
    assert '          + "v" = "1"' in text  # a map's keys quoted


def test_data_sources_text_is_terraforms(with_null: Workdir) -> None:
    ours, theirs = both(with_null, "plan", "-no-color")
    # (the note after the rule is left out in automation: TF_IN_AUTOMATION)
    assert ours.split("\n─")[0] == theirs


def test_a_data_source_read_at_apply_says_so(with_null: Workdir) -> None:
    lines = with_null.strata("apply", "-auto-approve", "-no-color", check=True).stdout.splitlines()
    assert "data.null_data_source.d: Reading..." in lines
    assert "data.null_data_source.d: Read complete after 0s [id=static]" in lines
    theirs = with_null.terraform("apply", "-auto-approve", "-no-color").stdout  # (its own state)
    assert "data.null_data_source.d: Read complete after 0s [id=static]" in theirs.splitlines()


SLOW = '''\
provider "sim" {
  ledger = "ledger.json"
}
resource "sim_object" "slow" {
  name       = "slow"
  latency_ms = 2000
}
resource "sim_object" "quick" {
  name       = "quick"
  latency_ms = 50
}
'''
HEARTBEAT = re.compile(r"sim_object\.slow: Still (creating|destroying)\.\.\. \[(id=sim-\w+, )?\d+s elapsed\]")


def test_heartbeats_come_at_the_interval_in_terraforms_words(workdir: Workdir, monkeypatch: pytest.MonkeyPatch) -> None:
    # terraform's interval is 10 s; the test shortens it rather than wait
    monkeypatch.setenv("STRATA_HEARTBEAT_INTERVAL", "0.1")
    workdir.write(SLOW)
    for command, verb in (("apply", "creating"), ("destroy", "destroying")):
        out = workdir.strata(command, "-auto-approve", check=True).stdout.splitlines()
        beats = [line for line in out if "Still" in line]
        assert beats and all(HEARTBEAT.fullmatch(line) for line in beats), out
        assert all(verb in line for line in beats) and not any("quick" in line for line in beats), beats
        assert not any("simulated" in line for line in out), out  # the provider's own notes are not printed


def test_no_heartbeat_before_the_interval(workdir: Workdir) -> None:
    workdir.write(SLOW)
    out = workdir.strata("apply", "-auto-approve", check=True).stdout
    assert "Still" not in out and "elapsed" not in out, out


IMPORTED = '''\
terraform_data.x: Importing from ID "abc"...
terraform_data.x: Import prepared!
  Prepared terraform_data for import
terraform_data.x: Refreshing state... [id=abc]

Import successful!

The resources that were imported are shown above. These resources are now in
your strata state and will henceforth be managed by strata.

'''


def test_import_refreshes_and_closes_in_terraforms_words(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "x" {}\n')
    assert workdir.strata("import", "-no-color", "terraform_data.x", "abc", check=True).stdout == IMPORTED


@requires_terraform
def test_import_text_is_terraforms(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "x" {}\n')
    assert workdir.terraform("import", "-no-color", "terraform_data.x", "abc").stdout.replace(
        "Terraform", "strata") == IMPORTED


PROMPTED = '''\
variable "name" {
  description = "The name.\\nSecond line."
  type        = string
}
variable "count_of" {
  type = number
}
variable "given" {
  type = string
}
output "o" {
  value = "${var.name}-${var.count_of}-${var.given}"
}
'''
PROMPTS = ("var.count_of\r\n  Enter a value: 3\r\n\r\n"
           "var.name\r\n  The name.\r\n  Second line.\r\n\r\n  Enter a value: alpha\r\n\r\n")


def at_a_terminal(argv: list[str], cwd: Path, answers: list[str], env: dict[str, str]) -> str:
    """What ``argv`` writes to a pseudo-terminal, typing each answer at an "Enter a value:"."""
    import pty
    import select

    pid, fd = pty.fork()
    if pid == 0:  # the child: the command, its standard streams the terminal
        os.chdir(cwd)
        os.execvpe(argv[0], argv, env)
    out, left = b"", list(answers)
    try:
        while True:
            ready, _, _ = select.select([fd], [], [], 120)
            if not ready:
                break
            try:
                data = os.read(fd, 65536)
            except OSError:  # the command ended: the terminal is gone
                break
            if not data:
                break
            out += data
            if left and out.rstrip().endswith(b"Enter a value:"):
                os.write(fd, left.pop(0).encode() + b"\n")
    finally:
        os.close(fd)
        os.waitpid(pid, 0)
    return out.decode()


def strata_at_a_terminal(workdir: Workdir, answers: list[str], *args: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(REPO), STRATA_LIVE="0")
    return at_a_terminal([sys.executable, "-m", "engine", *args], workdir.path, answers, env)


def test_a_variable_without_a_value_is_asked_for_at_a_terminal(workdir: Workdir) -> None:
    workdir.write(PROMPTED)
    text = strata_at_a_terminal(workdir, ["3", "alpha"], "plan", "-no-color", "-var", "given=g")
    assert text.startswith(PROMPTS), text
    assert '+ o = "alpha-3-g"' in text, text


def test_input_false_asks_nothing_and_says_what_is_missing(workdir: Workdir) -> None:
    workdir.write(PROMPTED)
    text = strata_at_a_terminal(workdir, [], "plan", "-no-color", "-input=false", "-var", "given=g")
    assert "Enter a value" not in text
    assert "Error: No value for required variable" in text and 'variable "count_of"' in text, text


def test_no_terminal_no_question(workdir: Workdir) -> None:
    workdir.write(PROMPTED)
    res = workdir.strata("plan", "-no-color", "-var", "given=g", input="3\nalpha\n")
    assert "Enter a value" not in res.stdout and "No value for required variable" in res.stderr


@requires_terraform
def test_the_prompt_is_terraforms(workdir: Workdir) -> None:
    workdir.write(PROMPTED)
    workdir.terraform("init")
    env = dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", CHECKPOINT_DISABLE="1")
    theirs = at_a_terminal(["terraform", "plan", "-no-color", "-var", "given=g"], workdir.path, ["3", "alpha"], env)
    assert theirs.startswith(PROMPTS), theirs


@requires_terraform
def test_jsondecode_errors_are_terraforms(workdir: Workdir) -> None:
    from tests.engine.functions.test_go_json import GO_ERRORS

    workdir.write("")
    for document, message in GO_ERRORS[::3]:  # a sample: every third, each console a process
        line = f"jsondecode({orjson.dumps(document).decode()})\n"
        ours = workdir.strata("console", input=line)
        env = dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", CHECKPOINT_DISABLE="1")
        theirs = subprocess.run(["terraform", "console"], cwd=workdir.path, env=env, input=line, text=True,
                                capture_output=True, timeout=120)
        expected = f'Call to function "jsondecode" failed: {message}'
        assert expected in " ".join(re.sub(r"\x1b\[[0-9;]*m|│", "", theirs.stderr).split()), (document, theirs.stderr)
        assert expected in " ".join(ours.stderr.replace("│", "").split()), (document, ours.stderr)

"""``strata output`` and the ``Outputs:`` after an apply: terraform's text, JSON and errors.

The expected texts are what terraform 1.11.4 prints for the same configuration (checked live
against the binary when it is on PATH)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.conftest import Workdir, requires_terraform

CONFIG = """\
output "s" { value = "hello\\nworld" }
output "n" { value = 1.5 }
output "b" { value = true }
output "l" { value = ["a", "b"] }
output "m" { value = { k = "v", n = 2 } }
output "p" {
  value     = "secret"
  sensitive = true
}
output "e" { value = [] }
output "tl" { value = tolist(["a"]) }
output "tm" { value = tomap({ a = 1 }) }
output "q" { value = "tab\\there \\"q\\" <b>" }
output "tiny" { value = -0.000001 }
"""

ALL = """\
b = true
e = []
l = [
  "a",
  "b",
]
m = {
  "k" = "v"
  "n" = 2
}
n = 1.5
p = <sensitive>
q = "tab\\there \\"q\\" <b>"
s = <<EOT
hello
world
EOT
tiny = -0.000001
tl = tolist([
  "a",
])
tm = tomap({
  "a" = 1
})
"""


@pytest.fixture
def applied(workdir: Workdir) -> Workdir:
    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", check=True)
    return workdir


def test_all_outputs_as_terraform_prints_them(applied: Workdir) -> None:
    res = applied.strata("output")
    assert (res.returncode, res.stdout, res.stderr) == (0, ALL, "")


def test_the_apply_ends_with_the_same_outputs(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    res = workdir.strata("apply", "-auto-approve", check=True)
    assert res.stdout.endswith("\nOutputs:\n\n" + ALL), res.stdout


def test_one_output_by_name_shows_it_even_when_sensitive(applied: Workdir) -> None:
    assert applied.strata("output", "p").stdout == '"secret"\n'
    assert applied.strata("output", "l").stdout == '[\n  "a",\n  "b",\n]\n'
    assert applied.strata("output", "s").stdout == "<<EOT\nhello\nworld\nEOT\n"


def test_raw_prints_a_string_number_or_bool_as_it_is(applied: Workdir) -> None:
    assert [applied.strata("output", "-raw", n).stdout for n in ("s", "n", "b", "p", "tiny")] == \
        ["hello\nworld", "1.5", "true", "secret", "-0.000001"]


def test_json_gives_every_output_with_its_type_and_value(applied: Workdir) -> None:
    res = applied.strata("output", "-json")
    doc = orjson.loads(res.stdout)
    assert doc["p"] == {"sensitive": True, "type": "string", "value": "secret"}
    assert doc["m"] == {"sensitive": False, "type": ["object", {"k": "string", "n": "number"}],
                        "value": {"k": "v", "n": 2}}
    assert doc["tl"]["type"] == ["list", "string"]
    assert res.stdout.startswith('{\n  "b": {\n    "sensitive": false,\n')  # Go's indented form
    assert "\\u003cb\\u003e" in res.stdout  # and its escaping of <, > and &
    assert applied.strata("output", "-json", "m").stdout == '{"k":"v","n":2}\n'


@pytest.mark.parametrize(("args", "summary"), [
    (("nope",), 'Output "nope" not found'),
    (("-json", "nope"), 'Output "nope" not found'),
    (("-raw",), "Output name required"),
    (("-raw", "l"), "Unsupported value for raw output"),
    (("-raw", "-json", "s"), "Invalid output format"),
    (("s", "n"), "Unexpected argument"),
])
def test_mistakes_are_errors_on_stderr(applied: Workdir, args: tuple[str, ...], summary: str) -> None:
    res = applied.strata("output", *args)
    assert res.returncode == 1 and res.stdout == "", res
    assert f"Error: {summary}" in res.stderr and "Traceback" not in res.stderr, res.stderr


def test_raw_names_the_type_it_cannot_print(applied: Workdir) -> None:
    assert 'output value "tl" is list of string' in applied.strata("output", "-raw", "tl").stderr
    assert 'output value "m" is object' in applied.strata("output", "-raw", "m").stderr


def test_no_outputs_is_a_warning_not_an_error(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "x" {}\n')
    res = workdir.strata("output")  # no state at all yet
    assert res.returncode == 0 and "Warning: No outputs found" in res.stdout, res
    workdir.strata("apply", "-auto-approve", check=True)
    assert workdir.strata("output", "-json").stdout == "{}\n"
    missing = workdir.strata("output", "-json", "x")
    assert missing.returncode == 1 and 'Output "x" not found' in missing.stderr


def test_another_state_file(applied: Workdir) -> None:
    (applied.path / "terraform.tfstate").rename(applied.path / "other.tfstate")
    assert applied.strata("output", "-state=other.tfstate", "n").stdout == "1.5\n"


# ----------------------------------------------------------------------------- against terraform

@requires_terraform
def test_every_form_matches_terraform_on_its_own_state(tmp_path: Path) -> None:
    (tmp_path / "tf").mkdir()
    (tmp_path / "st").mkdir()
    theirs_dir, ours = Workdir(tmp_path / "tf"), Workdir(tmp_path / "st")
    for w in (theirs_dir, ours):
        w.write(CONFIG)
    assert theirs_dir.terraform("apply", "-auto-approve", "-input=false", "-no-color").returncode == 0
    ours.strata("apply", "-auto-approve", check=True)
    for args in ([], ["-json"], ["s"], ["p"], ["l"], ["m"], ["tl"], ["tm"], ["-raw", "s"], ["-raw", "n"],
                 ["-raw", "tiny"], ["-json", "m"], ["-json", "p"]):
        theirs = theirs_dir.terraform("output", "-no-color", *args)
        mine = ours.strata("output", *args)
        assert (mine.returncode, mine.stdout) == (theirs.returncode, theirs.stdout), args
    for args in (["nope"], ["-raw", "l"], ["-raw"]):
        theirs = theirs_dir.terraform("output", "-no-color", *args)
        assert ours.strata("output", *args).returncode == theirs.returncode == 1, args


@pytest.mark.parametrize("json_flag", [(), ("-json",)])
def test_an_unreadable_state_is_an_error_on_stderr(workdir: Workdir, json_flag: tuple[str, ...]) -> None:
    (workdir.path / "terraform.tfstate").write_text("{not json")
    res = workdir.strata("output", *json_flag)
    assert res.returncode == 1 and res.stdout == "", res
    assert "Error: Unsupported state file format" in res.stderr and "Traceback" not in res.stderr, res.stderr


SHOWN = """\
Outputs:

b = true
e = []
l = [
    "a",
    "b",
]
m = {
    k = "v"
    n = 2
}
n = 1.5
p = (sensitive value)
q = "tab\\there \\"q\\" <b>"
s = <<-EOT
    hello
    world
EOT
tiny = -0.000001
tl = [
    "a",
]
tm = {
    "a" = 1
}
"""


def test_show_prints_the_outputs_in_its_own_format_as_terraform_does(applied: Workdir) -> None:
    # terraform's show is not its output command: 4 columns in, no tolist(), only a map's keys quoted
    assert applied.strata("show").stdout.endswith("\n" + SHOWN)


@requires_terraform
def test_show_outputs_match_terraform(tmp_path: Path) -> None:
    theirs = Workdir(tmp_path)
    theirs.write(CONFIG)
    assert theirs.terraform("apply", "-auto-approve", "-input=false", "-no-color").returncode == 0
    assert theirs.terraform("show", "-no-color").stdout.endswith("\n" + SHOWN)


def test_an_apply_without_outputs_still_ends_its_json_stream_with_an_outputs_event(workdir: Workdir) -> None:
    # terraform's apply -json ends with {"@message": "Outputs: 0", "outputs": {}} too; a destroy has none
    workdir.write('resource "terraform_data" "a" {}\n')
    res = workdir.strata("apply", "-auto-approve", "-json")
    assert res.returncode == 0, res.stdout + res.stderr
    last = res.events[-1]
    assert (last["type"], last["@message"], last["outputs"]) == ("outputs", "Outputs: 0", {}), last
    # and when there is nothing to change: the stream still ends with the outputs
    res = workdir.strata("apply", "-auto-approve", "-json")
    last = res.events[-1]
    assert (last["type"], last["@message"], last["outputs"]) == ("outputs", "Outputs: 0", {}), last
    res = workdir.strata("destroy", "-auto-approve", "-json")
    assert "outputs" not in [e["type"] for e in res.events], res.stdout

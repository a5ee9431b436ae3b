"""``check`` blocks through the ``strata`` command, side by side with terraform 1.11 on the same
files: an assertion that fails is a warning at plan and again at apply, one not decided yet is a
warning while planning; the results are the state's ``check_results`` and the plan JSON's
``checks``; checks in module instances; a data source scoped to a check block (the built-in
``local_file``: a read that fails is a warning and the check failed, never an error); and the
mistakes ``validate`` refuses, in terraform's words."""

from __future__ import annotations

import re

import pytest

from tests.conftest import Workdir, requires_terraform

ASSERTS = """
variable "want" {
  default = "a"
}

resource "terraform_data" "x" {
  input = "a"
}

check "same" {
  assert {
    condition     = terraform_data.x.output == var.want
    error_message = "x is ${terraform_data.x.output}, not ${var.want}"
  }
}

check "static" {
  assert {
    condition     = var.want == "b"
    error_message = "want is not b"
  }
  assert {
    condition     = length(var.want) == 1
    error_message = "want is one letter"
  }
}
"""

MODULE = """
variable "v" {}

resource "terraform_data" "r" {
  input = var.v
}

check "inner" {
  assert {
    condition     = terraform_data.r.output == "good"
    error_message = "r is ${terraform_data.r.output}"
  }
}
"""

CALLS = """
module "m" {
  source = "./mod"
  count  = 2
  v      = count.index == 0 ? "good" : "bad"
}

module "one" {
  source = "./mod"
  v      = "good"
}
"""

SCOPED = """
resource "terraform_data" "x" {
  input = "hello"
}

check "file" {
  data "local_file" "f" {
    filename = "${path.module}/greeting.txt"
  }
  assert {
    condition     = data.local_file.f.content == terraform_data.x.output
    error_message = "greeting is ${data.local_file.f.content}"
  }
}
"""

INVALID = """
resource "terraform_data" "x" {
  input = "a"
}

check "c" {
  assert {
    condition     = terraform_data.x.output == "a"
    error_message = "no"
  }
}

check "c" {
  assert {
    condition     = terraform_data.x.output == "a"
    error_message = "no"
  }
}

check "none" {
}

check "two" {
  data "terraform_remote_state" "a" {
    backend = "local"
  }
  data "terraform_remote_state" "b" {
    backend = "local"
  }
  assert {
    condition     = true
    error_message = "x"
  }
}

check "counted" {
  data "terraform_remote_state" "c" {
    count   = 1
    backend = "local"
  }
  assert {
    condition     = terraform_data.x.output == "a"
    error_message = "x"
  }
}
"""

BAD_REFERENCES = """
resource "terraform_data" "x" {
  input = "a"
}

data "terraform_remote_state" "s" {
  backend = "local"
}

check "dup" {
  data "terraform_remote_state" "s" {
    backend = "local"
  }
  assert {
    condition     = terraform_data.x.output == "a"
    error_message = "no"
  }
}
"""

OUT_OF_SCOPE = """
resource "terraform_data" "x" {
  input = "a"
}

check "bad" {
  assert {
    condition     = terraform_data.x.output == 1
    error_message = "x ${local.nope} ${terraform_data.z.id} ${var.nope}"
  }
}

check "other" {
  data "terraform_remote_state" "s" {
    backend = "local"
  }
  assert {
    condition     = terraform_data.x.output == 1
    error_message = "x"
  }
}

check "ok" {
  assert {
    condition     = data.terraform_remote_state.s.outputs == {}
    error_message = "x"
  }
}
"""


def diagnostics(text: str) -> list[str]:
    """Each ``Warning:``/``Error:`` block of a ``-no-color`` output, up to what follows it."""
    blocks = re.split(r"\n(?=(?:Warning|Error): )", "\n" + text)
    out = []
    for b in blocks[1:]:
        b = re.split(r"\n(?:─{10,}|Apply complete!|Plan: |Saved the plan|Success!)", b)[0]
        if "CLI configuration" not in b:
            out.append(b.strip())
    return out


def check_results(state: dict) -> list[dict]:
    """The state's ``check_results`` in one order (terraform writes them in its map's order)."""
    got = state["check_results"] or []
    return sorted(({**r, "objects": sorted(r["objects"] or [], key=lambda o: o["object_addr"])} for r in got),
                  key=lambda r: r["config_addr"])


def plan_checks(wd: Workdir, tool: str) -> list[dict]:
    run = wd.strata if tool == "strata" else wd.terraform
    res = run("plan", "-out=checks.plan", "-no-color")
    assert res.returncode == 0, res.stdout + res.stderr
    shown = run("show", "-json", "checks.plan")
    assert shown.returncode == 0, shown.stderr
    import orjson

    return list(orjson.loads(shown.stdout).get("checks", []))


def test_failed_assertion_is_a_warning_not_an_error(workdir: Workdir) -> None:
    workdir.write(ASSERTS)
    plan = workdir.strata("plan", "-no-color", "-detailed-exitcode")
    assert plan.returncode == 2, plan.stdout + plan.stderr  # changes, no error
    got = diagnostics(plan.stdout)
    assert [g.splitlines()[0] for g in got] == ["Warning: Check block assertion known after apply",
                                                 "Warning: Check block assertion failed"]
    assert got[1].endswith("want is not b")
    applied = workdir.strata("apply", "-auto-approve", "-no-color")
    assert applied.returncode == 0, applied.stderr
    # what the checks said while planning is replaced by what they say once applied
    assert [g.splitlines()[0] for g in diagnostics(applied.stdout)] == ["Warning: Check block assertion failed"]


def test_check_results_recorded_in_state(workdir: Workdir) -> None:
    workdir.write(ASSERTS)
    workdir.strata("apply", "-auto-approve", check=True)
    assert check_results(workdir.state()) == [
        {"object_kind": "check", "config_addr": "check.same", "status": "pass",
         "objects": [{"object_addr": "check.same", "status": "pass"}]},
        {"object_kind": "check", "config_addr": "check.static", "status": "fail",
         "objects": [{"object_addr": "check.static", "status": "fail", "failure_messages": ["want is not b"]}]}]


def test_apply_without_changes_evaluates_checks_again(workdir: Workdir) -> None:
    workdir.write(ASSERTS)
    workdir.strata("apply", "-auto-approve", check=True)
    serial = workdir.state()["serial"]
    assert serial == 2  # as terraform's: the walk's state, then the checks' results
    again = workdir.strata("apply", "-auto-approve", "-no-color", "-var", "want=b", check=True)
    assert "x is a, not b" in again.stdout
    state = workdir.state()
    assert [r["status"] for r in check_results(state)] == ["fail", "pass"]
    assert state["serial"] == serial + 1
    unchanged = workdir.strata("apply", "-auto-approve", "-var", "want=b", check=True)
    assert "Check block assertion failed" in unchanged.stdout
    assert workdir.state()["serial"] == serial + 1  # the same results: nothing written


def test_plan_file_keeps_check_results(workdir: Workdir) -> None:
    workdir.write(ASSERTS)
    assert [(c["address"]["to_display"], c["status"]) for c in plan_checks(workdir, "strata")] == [
        ("check.same", "unknown"), ("check.static", "fail")]
    applied = workdir.strata("apply", "-no-color", "checks.plan")
    assert applied.returncode == 0, applied.stderr
    assert [r["status"] for r in check_results(workdir.state())] == ["pass", "fail"]


def test_scoped_data_source_that_fails_is_a_warning(workdir: Workdir) -> None:
    workdir.write(SCOPED)
    res = workdir.strata("apply", "-auto-approve", "-no-color")
    assert res.returncode == 0, res.stderr
    got = diagnostics(res.stdout)
    assert len(got) == 1 and got[0].startswith("Warning: Read local file data source error")
    assert '  with data.local_file.f,\n  on main.tf line 7, in check "file":' in got[0]
    (result,) = check_results(workdir.state())
    assert result["status"] == "fail"
    assert result["objects"][0]["failure_messages"][0].startswith(
        "Read local file data source error: The file at given path cannot be read.")


def test_scoped_data_source_read_again_at_apply_after_resources(workdir: Workdir) -> None:
    workdir.write(SCOPED)
    (workdir.path / "greeting.txt").write_text("hello")
    plan = workdir.strata("plan", "-no-color")
    assert ("  # data.local_file.f will be read during apply\n"
            "  # (config will be reloaded to verify a check block)") in plan.stdout
    workdir.strata("apply", "-auto-approve", check=True)
    assert [r["status"] for r in check_results(workdir.state())] == ["pass"]
    (workdir.path / "greeting.txt").write_text("bye")
    res = workdir.strata("apply", "-auto-approve", "-no-color", check=True)
    assert [d.splitlines()[0] for d in diagnostics(res.stdout)] == ["Warning: Check block assertion failed"]
    assert diagnostics(res.stdout)[0].endswith("greeting is bye")
    data = [r for r in workdir.state()["resources"] if r["mode"] == "data"]
    assert data[0]["instances"][0]["attributes"]["content"] == "bye"


def test_scoped_data_source_with_unknown_configuration_is_read_at_apply(workdir: Workdir) -> None:
    workdir.write(SCOPED.replace('"${path.module}/greeting.txt"', '"${path.module}/${terraform_data.x.output}.txt"'))
    (workdir.path / "hello.txt").write_text("hello")
    plan = workdir.strata("plan", "-no-color")
    assert [d.splitlines()[0] for d in diagnostics(plan.stdout)] == [
        "Warning: Check block assertion known after apply"]
    res = workdir.strata("apply", "-auto-approve", "-no-color", check=True)
    assert diagnostics(res.stdout) == []
    assert [r["status"] for r in check_results(workdir.state())] == ["pass"]


def test_checks_in_module_instances(workdir: Workdir) -> None:
    workdir.write(CALLS)
    (workdir.path / "mod").mkdir()
    workdir.write(MODULE, "mod/main.tf")
    workdir.strata("apply", "-auto-approve", check=True)
    assert check_results(workdir.state()) == [
        {"object_kind": "check", "config_addr": "module.m.check.inner", "status": "fail",
         "objects": [{"object_addr": "module.m[0].check.inner", "status": "pass"},
                     {"object_addr": "module.m[1].check.inner", "status": "fail", "failure_messages": ["r is bad"]}]},
        {"object_kind": "check", "config_addr": "module.one.check.inner", "status": "pass",
         "objects": [{"object_addr": "module.one.check.inner", "status": "pass"}]}]


def test_invalid_check_blocks_are_refused(workdir: Workdir) -> None:
    workdir.write(INVALID)
    res = workdir.strata("validate", "-no-color")
    assert res.returncode == 1
    assert [d.splitlines()[0] for d in diagnostics(res.stderr)] == [
        'Error: Duplicate check "c" configuration', "Error: Zero assert blocks", "Error: Zero assert blocks",
        "Error: Multiple data resource blocks", "Error: Invalid assert expression", 'Error: Invalid "count" attribute']


# ---------------------------------------------------------------------------------- against terraform


def _side_by_side(tmp_path: object, files: dict[str, str]) -> tuple[Workdir, Workdir]:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    out = []
    for tool in ("strata", "terraform"):
        wd = Workdir(tmp_path / tool)
        wd.path.mkdir()
        for name, text in files.items():
            (wd.path / name).parent.mkdir(parents=True, exist_ok=True)
            wd.write(text, name)
        out.append(wd)
    return out[0], out[1]


@requires_terraform
@pytest.mark.parametrize("files", [{"main.tf": ASSERTS}, {"main.tf": CALLS, "mod/main.tf": MODULE}],
                         ids=["root", "modules"])
def test_warnings_and_results_match_terraform(tmp_path: object, files: dict[str, str]) -> None:
    strata, terraform = _side_by_side(tmp_path, files)
    assert plan_checks(strata, "strata") == plan_checks(terraform, "terraform")
    planned = [diagnostics(wd.strata("plan", "-no-color").stdout if wd is strata
                           else wd.terraform("plan", "-no-color").stdout) for wd in (strata, terraform)]
    assert sorted(planned[0]) == sorted(planned[1])
    applied = [strata.strata("apply", "-auto-approve", "-no-color"), terraform.terraform("apply", "-auto-approve",
                                                                                          "-no-color")]
    assert applied[0].returncode == applied[1].returncode == 0
    assert sorted(diagnostics(applied[0].stdout)) == sorted(diagnostics(applied[1].stdout))
    assert check_results(strata.state()) == check_results(terraform.state())


@requires_terraform
def test_results_after_a_change_without_resource_changes_match_terraform(tmp_path: object) -> None:
    # one check block: with two, terraform writes its results in its map's order, and a state
    # written in another order counts as changed (a serial more, now and then)
    one = ASSERTS.split('check "static"')[0]
    strata, terraform = _side_by_side(tmp_path, {"main.tf": one})
    strata.strata("apply", "-auto-approve", check=True)
    assert terraform.terraform("apply", "-auto-approve").returncode == 0
    got = strata.strata("apply", "-auto-approve", "-no-color", "-var", "want=b", check=True)
    want = terraform.terraform("apply", "-auto-approve", "-no-color", "-var", "want=b")
    assert diagnostics(got.stdout) == diagnostics(want.stdout)
    assert check_results(strata.state()) == check_results(terraform.state())
    assert strata.state()["serial"] == terraform.state()["serial"]
    strata.strata("apply", "-auto-approve", "-var", "want=b", check=True)
    terraform.terraform("apply", "-auto-approve", "-var", "want=b")
    assert strata.state()["serial"] == terraform.state()["serial"]  # the same results: not written again


@requires_terraform
@pytest.mark.parametrize("config", [INVALID, BAD_REFERENCES, OUT_OF_SCOPE], ids=["blocks", "duplicate", "references"])
def test_validation_errors_match_terraform(workdir: Workdir, config: str) -> None:
    workdir.write(config)
    got = workdir.strata("validate", "-no-color")
    workdir.terraform("init", "-input=false", "-no-color")  # refuses these files too; builtin providers only
    want = workdir.terraform("validate", "-no-color")
    assert got.returncode == want.returncode == 1
    assert diagnostics(got.stderr) == diagnostics(want.stderr)


@requires_terraform
def test_json_diagnostics_match_terraform(workdir: Workdir) -> None:
    workdir.write(ASSERTS)

    def warnings(events: list[dict]) -> list[dict]:
        out = []
        for e in events:
            if e["type"] == "diagnostic" and e["diagnostic"]["severity"] == "warning":
                out.append(e["diagnostic"])  # its range too, start and end
        return sorted(out, key=lambda d: d["range"]["start"]["line"])

    got = workdir.strata("plan", "-json").events
    want = workdir.terraform("plan", "-json").events
    assert warnings(got) == warnings(want)


@requires_terraform
def test_results_after_destroy_and_refresh_only_match_terraform(tmp_path: object) -> None:
    one = ASSERTS.split('check "same"')[0] + 'check "static"' + ASSERTS.split('check "static"')[1]
    strata, terraform = _side_by_side(tmp_path, {"main.tf": one})
    steps = [("apply", "-auto-approve"), ("destroy", "-auto-approve"), ("apply", "-auto-approve"),
             ("apply", "-refresh-only", "-auto-approve", "-var", "want=b")]
    for args in steps:
        assert strata.strata(*args).returncode == 0
        assert terraform.terraform(*args).returncode == 0
        got, want = strata.state(), terraform.state()
        assert (got["serial"], check_results(got)) == (want["serial"], check_results(want)), args


@requires_terraform
def test_show_json_of_the_state_has_the_checks_terraform_shows(tmp_path: object) -> None:
    strata, terraform = _side_by_side(tmp_path, {"main.tf": CALLS, "mod/main.tf": MODULE})
    strata.strata("apply", "-auto-approve", check=True)
    assert terraform.terraform("apply", "-auto-approve").returncode == 0
    import orjson

    got = orjson.loads(strata.strata("show", "-json", check=True).stdout)
    want = orjson.loads(terraform.terraform("show", "-json").stdout)
    assert got["checks"] == want["checks"]


@requires_terraform
def test_targeted_run_leaves_checks_unevaluated_as_terraform_does(tmp_path: object) -> None:
    one = ASSERTS.split('check "same"')[0] + 'check "static"' + ASSERTS.split('check "static"')[1]
    strata, terraform = _side_by_side(tmp_path, {"main.tf": one})
    got = strata.strata("apply", "-auto-approve", "-no-color", "-target=terraform_data.x", check=True)
    want = terraform.terraform("apply", "-auto-approve", "-no-color", "-target=terraform_data.x")
    assert [d.splitlines()[0] for d in diagnostics(got.stdout)] == [
        d.splitlines()[0] for d in diagnostics(want.stdout)]
    assert check_results(strata.state()) == check_results(terraform.state()) == [
        {"object_kind": "check", "config_addr": "check.static", "status": "unknown", "objects": []}]


JSON_SYNTAX = """{
  "variable": {"want": {"default": "a"}},
  "resource": {"terraform_data": {"x": {"input": "a"}}},
  "check": {
    "static": {
      "assert": [{"condition": "${var.want == \\"b\\"}", "error_message": "want is not b"}]
    }
  }
}
"""


@requires_terraform
def test_check_blocks_in_json_syntax_match_terraform(tmp_path: object) -> None:
    strata, terraform = _side_by_side(tmp_path, {"main.tf.json": JSON_SYNTAX})
    got = strata.strata("apply", "-auto-approve", "-no-color", check=True)
    want = terraform.terraform("apply", "-auto-approve", "-no-color")
    assert diagnostics(got.stdout) == diagnostics(want.stdout)
    assert check_results(strata.state()) == check_results(terraform.state())


@requires_terraform
def test_interactive_apply_shows_plan_warnings_before_the_question_as_terraform(tmp_path: object) -> None:
    one = ASSERTS.split('check "same"')[0] + 'check "static"' + ASSERTS.split('check "static"')[1]
    strata, terraform = _side_by_side(tmp_path, {"main.tf": one})
    got = strata.strata("apply", "-no-color", input="yes\n")
    import os
    import subprocess

    terraform.terraform("init", "-input=false", "-no-color")
    env = dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", CHECKPOINT_DISABLE="1")
    want = subprocess.run(["terraform", "apply", "-no-color"], cwd=terraform.path, env=env, input="yes\n",
                          capture_output=True, text=True, timeout=300)

    def shape(text: str) -> list[str]:
        """What follows the plan summary: the warnings, the question, the apply, its warnings."""
        lines = text.split("Plan: ", 1)[1].splitlines()
        return [line.replace("Terraform", "strata") for line in lines if "[id=" not in line]

    assert got.returncode == want.returncode == 0, got.stderr + want.stderr
    assert shape(got.stdout) == shape(want.stdout)
    assert shape(got.stdout).count("Warning: Check block assertion failed") == 2

"""Saved plans: ``strata plan -out=FILE`` then ``strata apply FILE`` applies the recorded plan
without planning again, as terraform does, or changes nothing and says why (a stale state, a
changed configuration)."""

from __future__ import annotations

import os

import orjson
import pytest

from tests.conftest import Workdir, requires_terraform
from tests.differential.scenario import Scenario, both_tools

CONFIG = ('variable "v" {\n  default = "x"\n}\nresource "terraform_data" "a" {\n  input = var.v\n}\n'
          'output "o" {\n  value = terraform_data.a.input\n}\n')
RULE = "\n" + "─" * 77 + "\n"
SAVED = (RULE + '\nSaved the plan to: tfplan\n\nTo perform exactly these actions, run the following command to '
         'apply:\n    strata apply "tfplan"\n')
NOT_SAVED = (RULE + "\nNote: You didn't use the -out option to save this plan, so strata can't\nguarantee to take "
             'exactly these actions if you run "strata apply" now.\n')


@pytest.fixture(autouse=True)
def _not_in_automation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TF_IN_AUTOMATION", raising=False)


def test_apply_takes_exactly_the_saved_plan(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    plan = workdir.strata("plan", "-no-color", "-var", "v=y", "-out=tfplan", check=True)
    assert plan.stdout.endswith('  + o = "y"\n' + SAVED), plan.stdout
    assert not (workdir.path / "terraform.tfstate").exists()
    res = workdir.strata("apply", "-no-color", "tfplan", check=True)  # no approval asked, no plan shown
    assert res.stdout.startswith("terraform_data.a: Creating...\n"), res.stdout
    assert res.stdout.endswith('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.\n\nOutputs:\n\no = "y"\n')
    assert workdir.state()["outputs"]["o"]["value"] == "y"  # the plan's variable value, not the default


def test_a_plan_without_out_says_it_was_not_saved(workdir: Workdir, monkeypatch: pytest.MonkeyPatch) -> None:
    workdir.write(CONFIG)
    assert workdir.strata("plan", "-no-color", check=True).stdout.endswith("Plan: 1 to add, 0 to change, 0 to "
                                                                          'destroy.\n\nChanges to Outputs:\n  + o = '
                                                                          '"x"\n' + NOT_SAVED)
    monkeypatch.setenv("TF_IN_AUTOMATION", "1")
    assert workdir.strata("plan", "-no-color", check=True).stdout.endswith('  + o = "x"\n')
    workdir.strata("apply", "-auto-approve", check=True)
    assert RULE not in workdir.strata("plan", "-no-color", check=True).stdout  # no changes: no note


def test_a_stale_plan_is_refused(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.strata("plan", "-out=tfplan", check=True)
    workdir.strata("apply", "tfplan", check=True)
    before = (workdir.path / "terraform.tfstate").read_bytes()
    res = workdir.strata("apply", "-no-color", "tfplan")
    assert (res.returncode, res.stdout) == (1, "")
    assert res.stderr == ("\nError: Saved plan is stale\n\nThe given plan file can no longer be applied because the "
                          "state was changed by\nanother operation after the plan was created.\n")
    assert (workdir.path / "terraform.tfstate").read_bytes() == before


def test_a_changed_configuration_is_refused(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.strata("plan", "-out=tfplan", check=True)
    workdir.write(CONFIG.replace('"x"', '"z"'))
    res = workdir.strata("apply", "-no-color", "tfplan")
    assert res.returncode == 1 and "Error: Saved plan does not match the configuration" in res.stderr
    assert not (workdir.path / "terraform.tfstate").exists()


LOCAL = 'resource "local_file" "f" {\n  filename = "f.txt"\n  content  = "%s"\n}\n'


def test_an_object_edited_outside_is_replaced_as_planned(workdir: Workdir) -> None:
    workdir.write(LOCAL % "a")
    workdir.strata("apply", "-auto-approve", check=True)
    workdir.write(LOCAL % "b")
    workdir.strata("plan", "-out=tfplan", check=True)
    workdir.write(LOCAL % "b", "main.tf")  # the same configuration, written again: same digest
    (workdir.path / "f.txt").write_text("changed outside")  # no refresh: the recorded plan is applied
    res = workdir.strata("apply", "-no-color", "tfplan", check=True)
    assert "Refreshing state" not in res.stdout
    assert res.stdout.endswith("Apply complete! Resources: 1 added, 0 changed, 1 destroyed.\n"), res.stdout
    assert (workdir.path / "f.txt").read_text() == "b"


def test_an_object_deleted_outside_is_created_as_planned(workdir: Workdir) -> None:
    workdir.write(LOCAL % "a")
    workdir.strata("apply", "-auto-approve", check=True)
    workdir.write(LOCAL % "b")
    workdir.strata("plan", "-out=tfplan", check=True)
    (workdir.path / "f.txt").unlink()
    res = workdir.strata("apply", "-no-color", "tfplan", check=True)
    assert res.stdout.endswith("Apply complete! Resources: 1 added, 0 changed, 1 destroyed.\n"), res.stdout
    assert (workdir.path / "f.txt").read_text() == "b"


def test_a_saved_refresh_only_plan_records_what_its_refresh_found(workdir: Workdir) -> None:
    workdir.write(LOCAL % "a")
    workdir.strata("apply", "-auto-approve", check=True)
    (workdir.path / "f.txt").unlink()
    plan = workdir.strata("plan", "-refresh-only", "-no-color", "-out=tfplan", check=True).stdout
    assert "local_file.f has been deleted" in plan, plan
    (workdir.path / "f.txt").write_text("a")  # back again: the recorded refresh is applied all the same
    res = workdir.strata("apply", "-no-color", "tfplan", check=True)
    assert res.stdout.endswith("Apply complete! Resources: 0 added, 0 changed, 0 destroyed.\n"), res.stdout
    assert workdir.state()["resources"] == []


def test_values_unknown_in_the_saved_plan_are_known_after_apply(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "a" {\n  input = "x"\n}\nresource "terraform_data" "b" {\n'
                  '  input = terraform_data.a.id\n}\noutput "o" {\n  value = terraform_data.b.output\n}\n')
    assert "(known after apply)" in workdir.strata("plan", "-no-color", "-out=tfplan", check=True).stdout
    workdir.strata("apply", "tfplan", check=True)
    state = workdir.state()
    ids = {r["name"]: r["instances"][0]["attributes"]["id"] for r in state["resources"]}
    assert state["outputs"]["o"]["value"] == ids["a"]


def test_a_saved_targeted_plan_applies_only_its_targets(workdir: Workdir) -> None:
    workdir.write(CONFIG + 'resource "terraform_data" "other" {\n  input = 1\n}\n')
    workdir.strata("plan", "-target=terraform_data.a", "-out=tfplan", check=True)
    res = workdir.strata("apply", "-no-color", "tfplan", check=True)
    assert [r["name"] for r in workdir.state()["resources"]] == ["a"]
    # as terraform's: the targeting was said when the plan was made; now only that it may be incomplete
    assert "Warning: Applied changes may be incomplete" in res.stdout + res.stderr
    assert "Warning: Resource targeting is in effect" not in res.stdout + res.stderr


def test_a_plan_made_from_another_state_is_refused(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", check=True)
    workdir.strata("plan", "-var", "v=y", "-out=tfplan", check=True)
    (workdir.path / "terraform.tfstate").unlink()
    workdir.strata("apply", "-auto-approve", check=True)  # a new lineage, at the same serial
    before = (workdir.path / "terraform.tfstate").read_bytes()
    res = workdir.strata("apply", "-no-color", "tfplan")
    assert (res.returncode, res.stdout) == (1, "")
    assert res.stderr == ("\nError: Saved plan does not match the given state\n\nThe given plan file can not be "
                          "applied because it was created from a\ndifferent state lineage.\n")
    assert (workdir.path / "terraform.tfstate").read_bytes() == before


def test_a_saved_destroy_plan(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", check=True)
    workdir.strata("plan", "-destroy", "-out=tfplan", check=True)
    res = workdir.strata("apply", "-no-color", "tfplan", check=True)
    assert res.stdout.endswith("\nApply complete! Resources: 0 added, 0 changed, 1 destroyed.\n"), res.stdout
    assert workdir.state()["resources"] == []


def test_show_prints_the_saved_plan(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    plan = workdir.strata("plan", "-no-color", "-out=tfplan", check=True).stdout
    assert workdir.strata("show", "-no-color", "tfplan", check=True).stdout == plan[:-len(SAVED)]


@pytest.mark.parametrize(("args", "summary"), [
    (["-var", "v=z"], "Can't set variables when applying a saved plan"),
    (["-target=terraform_data.a"], "Can't change the options of a saved plan"),
    (["-refresh=false"], "Can't change the options of a saved plan"),
])
def test_what_would_change_the_plan_is_refused(workdir: Workdir, args: list[str], summary: str) -> None:
    workdir.write(CONFIG)
    workdir.strata("plan", "-out=tfplan", check=True)
    res = workdir.strata("apply", "-no-color", *args, "tfplan")
    assert res.returncode == 1 and f"Error: {summary}" in res.stderr, res
    assert not (workdir.path / "terraform.tfstate").exists()


def test_not_a_plan_file(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    (workdir.path / "junk").write_text("junk")
    res = workdir.strata("apply", "-no-color", "junk")
    assert res.returncode == 1 and 'Error: Failed to load "junk" as a plan file' in res.stderr
    res = workdir.strata("apply", "-no-color", "missing")
    assert res.returncode == 1 and 'Error: Failed to load "missing" as a plan file' in res.stderr


@requires_terraform
def test_the_notes_are_terraform_s(workdir: Workdir) -> None:
    import subprocess

    workdir.write(CONFIG)
    env = {k: v for k, v in os.environ.items() if k != "TF_IN_AUTOMATION"}
    env.update(TF_CLI_CONFIG_FILE="/dev/null", CHECKPOINT_DISABLE="1")

    def tf(*args: str) -> str:
        return subprocess.run(["terraform", *args], cwd=workdir.path, env=env, capture_output=True, text=True,
                              timeout=300).stdout.replace("Terraform", "strata").replace("terraform apply",
                                                                                        "strata apply")

    assert workdir.strata("plan", "-no-color", check=True).stdout == tf("plan", "-no-color")
    assert workdir.strata("plan", "-no-color", "-out=tfplan", check=True).stdout == tf("plan", "-no-color",
                                                                                      "-out=tfplan")


def test_variables_of_every_kind_survive_the_plan_file(workdir: Workdir) -> None:
    workdir.write('variable "v" {\n  type    = list(list(string))\n  default = [[], ["a"]]\n}\n'
                  'variable "big" {\n  default = 1e300\n}\n'
                  'variable "m" {\n  type    = map(list(number))\n  default = { k = [1, 2], e = [] }\n}\n'
                  'variable "s" {\n  type    = set(object({ a = string }))\n  default = [{ a = "x" }]\n}\n'
                  'resource "terraform_data" "a" {\n  input = [var.v, var.big, var.m, var.s, 1e20, null, true]\n}\n')
    workdir.strata("plan", "-out=tfplan", check=True)
    assert "1 added" in workdir.strata("apply", "-no-color", "tfplan", check=True).stdout


def test_an_empty_destroy_plan_says_so_as_terraform_does(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    text = workdir.strata("plan", "-destroy", "-no-color", check=True).stdout
    assert text == ("\nNo changes. No objects need to be destroyed.\n\nEither you have not created any objects yet or "
                    "the existing objects were\nalready deleted outside of strata.\n")
    res = workdir.strata("apply", "-destroy", "-no-color", "tfplan")
    assert res.returncode == 1 and "strata plan -destroy -out=FILE" in res.stderr


def test_a_plan_file_is_written_through_a_symlink_never_replacing_it(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    (workdir.path / "target").write_text("")
    (workdir.path / "link.plan").symlink_to("target")
    workdir.strata("plan", "-out=link.plan", check=True)
    assert (workdir.path / "link.plan").is_symlink() and (workdir.path / "target").stat().st_size > 0
    assert "1 added" in workdir.strata("apply", "-no-color", "link.plan", check=True).stdout


def test_a_hand_edited_plan_file_is_refused(workdir: Workdir) -> None:
    import json

    workdir.write(CONFIG)
    workdir.strata("plan", "-out=tfplan", check=True)
    doc = json.loads((workdir.path / "tfplan").read_text())
    doc["options"]["replace"] = [5]
    (workdir.path / "tfplan").write_text(json.dumps(doc))
    res = workdir.strata("apply", "-no-color", "tfplan")
    assert res.returncode == 1 and 'Error: Failed to load "tfplan" as a plan file' in res.stderr, res


def _same_words(text: str) -> str:
    """terraform's output in strata's words, ids and timings left out."""
    import re

    text = text.replace("Terraform", "strata").replace("terraform apply", "strata apply")
    return re.sub(r"after \d+s", "after Ns", re.sub(r"\[id=[^]]*\]", "[id=X]", text))


@requires_terraform
@pytest.mark.parametrize("plan_args", [(), ("-destroy",), ("-var", "v=y")], ids=["apply", "destroy", "var"])
def test_a_saved_plan_applied_then_applied_again_as_terraform_does(tmp_path: os.PathLike[str],
                                                                   plan_args: tuple[str, ...]) -> None:
    from pathlib import Path

    config = CONFIG.replace('"terraform_data" "a" {', '"terraform_data" "b" {\n  input = terraform_data.a.output\n}\n'
                            'resource "terraform_data" "a" {')
    ours, theirs = Workdir(Path(tmp_path) / "strata"), Workdir(Path(tmp_path) / "terraform")
    for w in (ours, theirs):
        w.path.mkdir()
        w.write(config)
    assert theirs.terraform("apply", "-auto-approve").returncode == 0
    ours.strata("apply", "-auto-approve", check=True)
    ours.strata("plan", *plan_args, "-out=tfplan", check=True)
    assert theirs.terraform("plan", *plan_args, "-out=tfplan").returncode == 0
    for step in (["apply", "-no-color", "tfplan"], ["apply", "-no-color", "tfplan"]):  # the second one: stale
        a, b = ours.strata(*step), theirs.terraform(*step)
        assert (a.returncode, _same_words(a.stdout), a.stderr) == (b.returncode, _same_words(b.stdout),
                                                                  _same_words(b.stderr)), step


@requires_terraform
def test_variables_given_to_a_saved_plan_are_refused_as_terraform_does(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.strata("plan", "-out=strata.plan", check=True)
    assert workdir.terraform("plan", "-out=tf.plan").returncode == 0
    ours, theirs = workdir.strata("apply", "-var", "v=z", "strata.plan"), workdir.terraform("apply", "-var", "v=z",
                                                                                           "tf.plan")
    # terraform 1.11 says "Value for undeclared variable" of a declared one; strata keeps terraform's
    # own diagnostic for this case ("Can't set variables when applying a saved plan")
    assert (ours.returncode, theirs.returncode) == (1, 1)
    assert not (workdir.path / "terraform.tfstate").exists()


def test_a_saved_plan_applies_over_a_journal_a_crash_left(workdir: Workdir) -> None:
    """A plan reads a crashed apply's journal without compacting it; applying its file checks the
    state as the plan saw it, then folds the journal in (it was refused as stale before)."""
    import orjson

    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", check=True)
    state = workdir.state()
    obj = dict(state["resources"][0]["instances"][0])
    record = {"r": ["managed", "terraform_data", "left", 'module.m["x"]'], "k": None, "d": None,
              "p": state["resources"][0]["provider"], "o": obj}
    journal = workdir.path / "terraform.tfstate.journal"
    journal.write_bytes(orjson.dumps({"lineage": state["lineage"]}) + b"\n" + orjson.dumps(record) + b"\n")
    planned = workdir.strata("plan", "-out=tfplan", "-no-color", check=True)
    assert "Plan: 0 to add, 0 to change, 1 to destroy." in planned.stdout
    assert journal.exists()  # a plan only reads it
    applied = workdir.strata("apply", "-no-color", "tfplan")
    assert applied.returncode == 0, applied.stderr
    assert "1 destroyed" in applied.stdout
    assert not journal.exists()
    assert [r["name"] for r in workdir.state()["resources"]] == ["a"]


def test_plantimestamp_is_the_plans_time_when_the_saved_plan_is_applied_later(workdir: Workdir) -> None:
    workdir.write("""
    resource "terraform_data" "a" { input = plantimestamp() }
    output "t" { value = plantimestamp() }
    """)
    workdir.strata("plan", "-out=tfplan", check=True)
    # the plan made at another time: rewrite its recorded time (and the values planned from it), as an
    # apply long after the plan would see it
    doc = orjson.loads((workdir.path / "tfplan").read_bytes())
    planned = doc["plan"]["timestamp"] if "plan" in doc else doc["timestamp"]
    assert planned.endswith("Z")
    earlier = "2001-02-03T04:05:06Z"
    (workdir.path / "tfplan").write_bytes(orjson.dumps(doc).replace(planned.encode(), earlier.encode()))
    shown = orjson.loads(workdir.strata("show", "-json", "tfplan", check=True).stdout)
    assert shown["timestamp"] == earlier
    workdir.strata("apply", "tfplan", check=True)
    assert workdir.strata("output", "-raw", "t", check=True).stdout == earlier
    assert workdir.state()["resources"][0]["instances"][0]["attributes"]["input"]["value"] == earlier


BEFORE = ('resource "terraform_data" "a" {\n  input = "x"\n}\nresource "terraform_data" "c" {}\n'
          'resource "terraform_data" "old" {}\noutput "o" {\n  value = terraform_data.a.output\n}\n')
AFTER = ('resource "terraform_data" "a" {\n  input = "y"\n}\nresource "terraform_data" "d" {}\n'
         'resource "terraform_data" "new" {}\nmoved {\n  from = terraform_data.old\n  to   = terraform_data.new\n}\n'
         'output "o" {\n  value = terraform_data.a.output\n}\noutput "p" {\n  value = "p"\n}\n')


@both_tools("a saved plan's -json apply began with a plan's change_summary and outputs, not its planned changes")
def test_a_saved_plan_applied_with_json_lists_its_changes_again(workdir: Workdir, tool: str) -> None:
    # terraform's: each change of the saved plan that does something, as a planned_change (the
    # move alone does nothing), and neither the plan's summary nor its outputs
    s = Scenario(workdir, tool)
    s.apply(BEFORE)
    workdir.write(AFTER)
    s.run("plan", "-input=false", "-out=saved.tfplan")
    res = s.run("apply", "-input=false", "-json", "-parallelism=1", "saved.tfplan")
    events = [orjson.loads(line) for line in res.stdout.splitlines()]
    types = [e["type"] for e in events]
    first = types.index("apply_start")
    assert types[:first] == ["version", "planned_change", "planned_change", "planned_change"], types
    assert sorted(e["@message"] for e in events[1:first]) == [
        "terraform_data.a: Plan to update", "terraform_data.c: Plan to delete", "terraform_data.d: Plan to create"]
    assert [e["changes"]["operation"] for e in events if e["type"] == "change_summary"] == ["apply"]

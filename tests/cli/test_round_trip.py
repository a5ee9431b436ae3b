"""Apply, change the configuration, plan again: what a user does every day, through the real command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from tests.conftest import Result, Workdir


def config(*, count: int = 3, keys: tuple[str, ...] = ("x", "y"), with_b: bool = True,
           b_input: str = "b") -> str:
    keys_hcl = ", ".join(f'"{k}"' for k in keys)
    b = f'resource "terraform_data" "b" {{\n  input = "{b_input}"\n}}\n' if with_b else ""
    return (
        'variable "env" {\n  default = "dev"\n}\n'
        'resource "terraform_data" "a" {\n  input = "a-${var.env}"\n}\n'
        + b +
        f'resource "terraform_data" "n" {{\n  count = {count}\n  input = "n-${{count.index}}"\n}}\n'
        f'resource "terraform_data" "e" {{\n  for_each = toset([{keys_hcl}])\n  input    = each.key\n}}\n'
        'output "a" {\n  value = terraform_data.a.output\n}\n'
    )


def applied(workdir: Workdir, **kw: Any) -> Workdir:
    workdir.write(config(**kw))
    workdir.strata("apply", "-auto-approve", check=True)
    return workdir


def changes(res: Result) -> list[tuple[str, str, str | None]]:
    """(address, action, reason) of every planned_change, in order."""
    return [(e["change"]["resource"]["addr"], e["change"]["action"], e["change"].get("reason"))
            for e in res.of_type("planned_change")]


def summary(res: Result) -> dict[str, Any]:
    got = res.of_type("change_summary")
    assert got, f"no change_summary event:\n{res.stdout}\n{res.stderr}"
    return got[0]["changes"]


def plan_json(workdir: Workdir, *args: str) -> Result:
    res = workdir.strata("plan", "-json", "-detailed-exitcode", *args)
    assert res.returncode in (0, 2), f"plan failed (exit {res.returncode}):\n{res.stdout}\n{res.stderr}"
    return res


def instance_input(state: dict[str, Any], name: str, key: Any = None) -> Any:
    for r in state["resources"]:
        if r["name"] == name:
            for inst in r["instances"]:
                if inst.get("index_key") == key:
                    return inst["attributes"]["input"]["value"]
    raise AssertionError(f"terraform_data.{name} (key {key!r}) not in state: {state['resources']}")


# ----------------------------------------------------------------------------- plan after apply

def test_plan_after_apply_has_no_changes(workdir: Workdir) -> None:
    applied(workdir)
    res = workdir.strata("plan", "-detailed-exitcode")
    assert res.returncode == 0, f"expected no changes (exit 0), got {res.returncode}:\n{res.stdout}{res.stderr}"
    assert "No changes." in res.stdout, res.stdout


def test_apply_after_apply_changes_nothing(workdir: Workdir) -> None:
    applied(workdir)
    before = workdir.state()
    res = workdir.strata("apply", "-auto-approve", "-json", check=True)
    assert changes(res) == [], f"second apply planned changes: {changes(res)}"
    after = workdir.state()
    assert after["resources"] == before["resources"], "a no-op apply rewrote resources in the state"


def test_changing_one_input_plans_exactly_one_update(workdir: Workdir) -> None:
    applied(workdir)
    workdir.write(config(b_input="b2"))
    res = plan_json(workdir)
    assert res.returncode == 2, f"expected changes (exit 2), got {res.returncode}"
    assert changes(res) == [("terraform_data.b", "update", None)], changes(res)
    s = summary(res)
    assert (s["add"], s["change"], s["remove"]) == (0, 1, 0), s


def test_changing_one_input_human_plan_says_one_to_change(workdir: Workdir) -> None:
    applied(workdir)
    workdir.write(config(b_input="b2"))
    res = workdir.strata("plan")
    assert res.returncode == 0, res.stderr
    assert "# terraform_data.b will be updated in-place" in res.stdout, res.stdout
    assert "Plan: 0 to add, 1 to change, 0 to destroy." in res.stdout, res.stdout


def test_applied_update_is_recorded_and_replans_clean(workdir: Workdir) -> None:
    applied(workdir)
    workdir.write(config(b_input="b2"))
    workdir.strata("apply", "-auto-approve", check=True)
    assert instance_input(workdir.state(), "b") == "b2"
    res = workdir.strata("plan", "-detailed-exitcode")
    assert res.returncode == 0, f"plan after the update apply is not clean:\n{res.stdout}"


# ----------------------------------------------------------------------------- deletions and their reasons

def test_count_decrease_deletes_out_of_range_indexes(workdir: Workdir) -> None:
    applied(workdir, count=3)
    workdir.write(config(count=1))
    res = plan_json(workdir)
    assert changes(res) == [
        ("terraform_data.n[1]", "delete", "delete_because_count_index"),
        ("terraform_data.n[2]", "delete", "delete_because_count_index"),
    ], changes(res)


def test_count_decrease_apply_keeps_index_zero(workdir: Workdir) -> None:
    applied(workdir, count=3)
    workdir.write(config(count=1))
    workdir.strata("apply", "-auto-approve", check=True)
    listed = workdir.strata("state", "list", check=True).stdout.split()
    assert [a for a in listed if a.startswith("terraform_data.n")] == ["terraform_data.n[0]"], listed


def test_removed_resource_block_is_deleted_because_no_resource_config(workdir: Workdir) -> None:
    applied(workdir)
    workdir.write(config(with_b=False))
    res = plan_json(workdir)
    assert changes(res) == [("terraform_data.b", "delete", "delete_because_no_resource_config")], changes(res)


def test_removed_for_each_key_is_deleted_because_each_key(workdir: Workdir) -> None:
    applied(workdir, keys=("x", "y"))
    workdir.write(config(keys=("x",)))
    res = plan_json(workdir)
    assert changes(res) == [('terraform_data.e["y"]', "delete", "delete_because_each_key")], changes(res)


def test_deletion_reason_is_explained_in_human_plan(workdir: Workdir) -> None:
    applied(workdir, count=3)
    workdir.write(config(count=1))
    res = workdir.strata("plan")
    assert "(because index [2] is out of range for count)" in res.stdout, res.stdout


# ----------------------------------------------------------------------------- variables

def test_var_flag_overrides_default(workdir: Workdir) -> None:
    workdir.write(config())
    workdir.strata("apply", "-auto-approve", "-var", "env=prod", check=True)
    assert instance_input(workdir.state(), "a") == "a-prod"


def test_var_equals_spelling_overrides_default(workdir: Workdir) -> None:
    workdir.write(config())
    workdir.strata("apply", "-auto-approve", "-var=env=prod", check=True)
    assert instance_input(workdir.state(), "a") == "a-prod"


def test_dropping_var_flag_plans_update_back_to_default(workdir: Workdir) -> None:
    workdir.write(config())
    workdir.strata("apply", "-auto-approve", "-var", "env=prod", check=True)
    res = plan_json(workdir)
    assert changes(res) == [("terraform_data.a", "update", None)], changes(res)


def test_output_follows_var_override(workdir: Workdir) -> None:
    workdir.write(config())
    workdir.strata("apply", "-auto-approve", "-var", "env=prod", check=True)
    assert workdir.state()["outputs"]["a"] == {"value": "a-prod", "type": "string"}


# ----------------------------------------------------------------------------- state and show

def test_state_list_lists_every_instance(workdir: Workdir) -> None:
    applied(workdir)
    res = workdir.strata("state", "list", check=True)
    assert res.stdout.split() == [
        "terraform_data.a", "terraform_data.b",
        'terraform_data.e["x"]', 'terraform_data.e["y"]',
        "terraform_data.n[0]", "terraform_data.n[1]", "terraform_data.n[2]",
    ], res.stdout


def test_state_list_filters_by_resource_address(workdir: Workdir) -> None:
    applied(workdir)
    res = workdir.strata("state", "list", "terraform_data.n", check=True)
    assert res.stdout.split() == ["terraform_data.n[0]", "terraform_data.n[1]", "terraform_data.n[2]"], \
        res.stdout


def test_state_show_prints_resource(workdir: Workdir) -> None:
    applied(workdir)
    res = workdir.strata("state", "show", "terraform_data.a", check=True)
    assert "# terraform_data.a:" in res.stdout, res.stdout
    assert 'resource "terraform_data" "a"' in res.stdout, res.stdout
    assert '"a-dev"' in res.stdout, res.stdout
    state_id = next(r for r in workdir.state()["resources"] if r["name"] == "a")["instances"][0]["attributes"]["id"]
    assert state_id in res.stdout, f"state show should print the id {state_id}:\n{res.stdout}"


def test_state_show_for_each_instance(workdir: Workdir) -> None:
    applied(workdir)
    res = workdir.strata("state", "show", 'terraform_data.e["y"]', check=True)
    assert '# terraform_data.e["y"]:' in res.stdout, res.stdout


def test_state_show_unknown_address_fails_cleanly(workdir: Workdir) -> None:
    applied(workdir)
    res = workdir.strata("state", "show", "terraform_data.zzz")
    assert res.returncode == 1, f"expected exit 1, got {res.returncode}:\n{res.stdout}{res.stderr}"
    assert "Traceback" not in res.stdout + res.stderr, res.stderr
    assert "terraform_data.zzz" in res.stderr, res.stderr


def test_show_json_lists_resources_and_outputs(workdir: Workdir) -> None:
    applied(workdir)
    res = workdir.strata("show", "-json", check=True)
    doc = orjson.loads(res.stdout)
    assert doc["format_version"] == "1.0", doc
    addrs = [r["address"] for r in doc["values"]["root_module"]["resources"]]
    assert addrs == ["terraform_data.a", "terraform_data.b", 'terraform_data.e["x"]', 'terraform_data.e["y"]',
                     "terraform_data.n[0]", "terraform_data.n[1]", "terraform_data.n[2]"], addrs
    a = doc["values"]["root_module"]["resources"][0]
    assert a["values"]["input"] == "a-dev", a
    assert a["provider_name"] == "terraform.io/builtin/terraform", a
    assert doc["values"]["outputs"]["a"] == {"sensitive": False, "value": "a-dev", "type": "string"}, doc


def test_show_json_index_of_instances(workdir: Workdir) -> None:
    applied(workdir)
    doc = orjson.loads(workdir.strata("show", "-json", check=True).stdout)
    index = {r["address"]: r.get("index") for r in doc["values"]["root_module"]["resources"]}
    assert index['terraform_data.e["x"]'] == "x" and index["terraform_data.n[1]"] == 1, index
    assert "index" not in doc["values"]["root_module"]["resources"][0], "a single instance has no index"


# ----------------------------------------------------------------------------- graph and validate

def test_graph_prints_dot_with_node_names(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "a" {\n  input = "x"\n}\n'
                  'resource "terraform_data" "b" {\n  input = terraform_data.a.output\n}\n')
    res = workdir.strata("graph", check=True)
    assert res.stdout.lstrip().startswith("digraph"), res.stdout
    assert res.stdout.rstrip().endswith("}"), res.stdout
    for name in ("terraform_data.a", "terraform_data.b"):
        assert name in res.stdout, f"graph lacks node {name}:\n{res.stdout}"
    edges = [line for line in res.stdout.splitlines() if "->" in line]
    assert any("terraform_data.b" in e.split("->")[0] and "terraform_data.a" in e.split("->")[1] for e in edges), \
        f"no edge from terraform_data.b to terraform_data.a:\n{res.stdout}"


def test_graph_after_apply_still_shows_resources(workdir: Workdir) -> None:
    # `terraform graph` draws the configuration's resources whether or not anything is to change.
    workdir.write('resource "terraform_data" "a" {\n  input = "x"\n}\n'
                  'resource "terraform_data" "b" {\n  input = terraform_data.a.output\n}\n')
    workdir.strata("apply", "-auto-approve", check=True)
    res = workdir.strata("graph", check=True)
    for name in ("terraform_data.a", "terraform_data.b"):
        assert name in res.stdout, f"graph of an applied configuration lacks node {name}:\n{res.stdout}"


def test_validate_accepts_valid_configuration(workdir: Workdir) -> None:
    workdir.write(config())
    res = workdir.strata("validate")
    assert res.returncode == 0, res.stderr
    assert "Success! The configuration is valid." in res.stdout, res.stdout


def test_validate_json_reports_valid(workdir: Workdir) -> None:
    workdir.write(config())
    res = workdir.strata("validate", "-json", check=True)
    doc = orjson.loads(res.stdout)
    assert doc["valid"] is True and doc["error_count"] == 0, doc


def test_validate_rejects_invalid_configuration(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "a" {\n  input = terraform_data.nope.id\n}\n')
    res = workdir.strata("validate")
    assert res.returncode == 1, f"validate accepted a bad reference:\n{res.stdout}"
    assert "Reference to undeclared resource" in res.stderr, res.stderr


def test_validate_json_reports_invalid_as_terraform_does(workdir: Workdir) -> None:
    """terraform validate -json: one document with valid = false and the diagnostics, exit 1."""
    workdir.write('resource "terraform_data" "a" {\n  input = terraform_data.nope.id\n}\n')
    res = workdir.strata("validate", "-json")
    assert res.returncode == 1
    doc = orjson.loads(res.stdout)
    assert {k: doc[k] for k in ("format_version", "valid", "error_count", "warning_count")} == {
        "format_version": "1.0", "valid": False, "error_count": 1, "warning_count": 0}
    (d,) = doc["diagnostics"]
    assert d["severity"] == "error" and d["summary"] == "Reference to undeclared resource"
    assert d["range"]["filename"] == "main.tf" and d["range"]["start"]["line"] == 2


def test_validate_writes_no_state(workdir: Workdir) -> None:
    workdir.write(config())
    workdir.strata("validate", check=True)
    assert not (workdir.path / "terraform.tfstate").exists(), "validate created a state file"


# ----------------------------------------------------------------------------- flag spellings

def test_chdir_applies_in_that_directory(workdir: Workdir) -> None:
    sub = workdir.path / "infra"
    sub.mkdir()
    (sub / "main.tf").write_text(config())
    workdir.strata("-chdir=infra", "apply", "-auto-approve", check=True)
    assert (sub / "terraform.tfstate").exists(), "the state should be written inside the -chdir directory"
    assert not (workdir.path / "terraform.tfstate").exists(), "state written to the caller's directory"
    res = workdir.strata("-chdir=infra", "plan", "-detailed-exitcode")
    assert res.returncode == 0, res.stdout + res.stderr


def test_chdir_to_missing_directory_fails_cleanly(workdir: Workdir) -> None:
    res = workdir.strata("-chdir=nowhere", "plan")
    assert res.returncode == 1, res.stdout + res.stderr
    assert "Traceback" not in res.stdout + res.stderr, res.stderr
    assert "nowhere" in res.stderr, res.stderr


def test_state_flag_equals_spelling(workdir: Workdir) -> None:
    workdir.write(config())
    workdir.strata("apply", "-auto-approve", "-state=custom.tfstate", check=True)
    assert (workdir.path / "custom.tfstate").exists(), "no state at -state=custom.tfstate"
    assert not (workdir.path / "terraform.tfstate").exists(), "state also written to the default path"
    res = workdir.strata("plan", "-detailed-exitcode", "-state=custom.tfstate")
    assert res.returncode == 0, f"plan with -state=custom.tfstate is not clean:\n{res.stdout}"


def test_state_flag_space_spelling(workdir: Workdir) -> None:
    workdir.write(config())
    workdir.strata("apply", "-auto-approve", "-state", "custom.tfstate", check=True)
    res = workdir.strata("state", "list", "-state", "custom.tfstate", check=True)
    assert "terraform_data.a" in res.stdout.split(), res.stdout


def test_state_flag_with_missing_directory_creates_it(workdir: Workdir) -> None:
    # terraform creates the parent directories of -state; it must at least never be a traceback.
    workdir.write(config())
    res = workdir.strata("apply", "-auto-approve", "-state=envs/dev/terraform.tfstate")
    assert "Traceback" not in res.stdout + res.stderr, f"traceback on -state in a new directory:\n{res.stderr}"
    assert res.returncode == 0, f"apply -state=envs/dev/terraform.tfstate failed:\n{res.stderr}"
    assert Path(workdir.path / "envs/dev/terraform.tfstate").exists()


def test_double_dash_parallelism_with_space(workdir: Workdir) -> None:
    workdir.write(config())
    res = workdir.strata("apply", "-auto-approve", "--parallelism", "4", "-json", check=True)
    s = res.of_type("change_summary")[-1]["changes"]
    assert s["add"] == 7, s


def test_double_dash_parallelism_with_equals(workdir: Workdir) -> None:
    applied(workdir)
    res = workdir.strata("plan", "--parallelism=4", "-detailed-exitcode")
    assert res.returncode == 0, res.stdout + res.stderr


def test_parallelism_zero_is_rejected(workdir: Workdir) -> None:
    workdir.write(config())
    res = workdir.strata("apply", "-auto-approve", "-parallelism=0")
    assert res.returncode == 1, res.stdout + res.stderr
    assert "Traceback" not in res.stdout + res.stderr, res.stderr
    assert "parallelism" in res.stderr, res.stderr


def test_prevent_destroy_stops_a_destroy(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "keep" {\n  input = "x"\n  lifecycle {\n    prevent_destroy = true\n  }\n}\n')
    workdir.strata("apply", "-auto-approve", check=True)
    res = workdir.strata("destroy", "-auto-approve")
    assert res.returncode == 1 and "Instance cannot be destroyed" in res.stderr and "main.tf line 1" in res.stderr
    assert workdir.strata("state", "list", check=True).stdout.split() == ["terraform_data.keep"]


def test_tfvars_and_var_file_set_variables(workdir: Workdir) -> None:
    workdir.write('variable "env" {}\nresource "terraform_data" "a" { input = var.env }\n')
    (workdir.path / "terraform.tfvars").write_text('env = "from-tfvars"\n')
    (workdir.path / "prod.tfvars").write_text('env = "prod"\n')
    workdir.strata("apply", "-auto-approve", "-var-file=prod.tfvars", check=True)
    assert workdir.state()["resources"][0]["instances"][0]["attributes"]["input"]["value"] == "prod"

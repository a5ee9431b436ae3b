"""Addresses with module paths through the command, before module blocks themselves land: a state
object in a module keeps its path in the state file, the journal, the plan and the event stream."""

from __future__ import annotations

import orjson

from tests.conftest import Workdir, requires_terraform

CONFIG = 'resource "terraform_data" "a" { input = 1 }\n'


def _moved_into_module(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", check=True)
    workdir.strata("state", "mv", "terraform_data.a", 'module.m["x"].terraform_data.a', check=True)


def test_state_mv_into_a_module_path_keeps_the_path_in_the_state(workdir: Workdir) -> None:
    _moved_into_module(workdir)
    (entry,) = workdir.state()["resources"]
    assert entry["module"] == 'module.m["x"]' and entry["name"] == "a"
    assert workdir.strata("state", "list", check=True).stdout.split() == ['module.m["x"].terraform_data.a']


def test_object_in_an_unconfigured_module_is_planned_for_destroy_with_its_address(workdir: Workdir) -> None:
    _moved_into_module(workdir)
    res = workdir.strata("plan", "-json", check=True)
    (gone,) = [e["change"] for e in res.of_type("planned_change") if e["change"]["action"] == "delete"]
    assert gone["resource"]["addr"] == 'module.m["x"].terraform_data.a'
    assert gone["resource"]["module"] == 'module.m["x"]'
    assert gone["resource"]["resource"] == "terraform_data.a"
    text = workdir.strata("plan", "-no-color", check=True).stdout
    assert '# module.m["x"].terraform_data.a will be destroyed' in text
    assert "# (because terraform_data.a is not in configuration)" in text


def test_journal_replay_keeps_the_module_path(workdir: Workdir) -> None:
    _moved_into_module(workdir)
    snapshot = workdir.path / "terraform.tfstate"
    state = orjson.loads(snapshot.read_bytes())
    # a journal left by an interrupted run, recording a second object in the module
    obj = dict(state["resources"][0]["instances"][0])
    record = {"r": ["managed", "terraform_data", "b", 'module.m["x"]'], "k": None, "d": None,
              "p": state["resources"][0]["provider"], "o": obj}
    journal = workdir.path / "terraform.tfstate.journal"
    journal.write_bytes(orjson.dumps({"lineage": state["lineage"]}) + b"\n" + orjson.dumps(record) + b"\n")
    listed = workdir.strata("state", "list", check=True).stdout.split()
    assert 'module.m["x"].terraform_data.b' in listed


@requires_terraform
def test_terraform_reads_the_module_path_strata_wrote(workdir: Workdir) -> None:
    _moved_into_module(workdir)
    ours = workdir.strata("plan", "-no-color", check=True).stdout
    theirs = workdir.terraform("plan", "-no-color").stdout
    for line in ('# module.m["x"].terraform_data.a will be destroyed',
                 "# (because terraform_data.a is not in configuration)",
                 "Plan: 1 to add, 0 to change, 1 to destroy."):
        assert line in ours and line in theirs


def test_state_rm_and_mv_take_a_whole_resource_inside_a_keyed_module(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "a" {\n  count = 2\n  input = count.index\n}\n')
    workdir.strata("apply", "-auto-approve", check=True)
    workdir.strata("state", "mv", "terraform_data.a", 'module.m["x"].terraform_data.a', check=True)
    workdir.strata("state", "mv", 'module.m["x"].terraform_data.a', 'module.m["y"].terraform_data.a', check=True)
    assert workdir.strata("state", "list", check=True).stdout.split() == [
        'module.m["y"].terraform_data.a[0]', 'module.m["y"].terraform_data.a[1]']
    workdir.strata("state", "rm", 'module.m["y"].terraform_data.a', check=True)
    assert workdir.strata("state", "list", check=True).stdout.split() == []


NESTED = 'resource "terraform_data" "a" {\n  count = 2\n  input = count.index\n}\nresource "terraform_data" "b" {\n  input = 1\n}\n'


def _nested_modules(workdir: Workdir) -> None:
    workdir.write(NESTED)
    workdir.strata("apply", "-auto-approve", check=True)
    workdir.strata("state", "mv", "terraform_data.a[0]", 'module.m["x"].terraform_data.a[0]', check=True)
    workdir.strata("state", "mv", "terraform_data.a[1]", 'module.m["x"].module.n.terraform_data.a[1]', check=True)


def test_state_list_filters_by_module_instance(workdir: Workdir) -> None:
    _nested_modules(workdir)
    listed = workdir.strata("state", "list", "module.m", check=True).stdout.split()
    assert listed == ['module.m["x"].terraform_data.a[0]', 'module.m["x"].module.n.terraform_data.a[1]']
    inner = workdir.strata("state", "list", 'module.m["x"].module.n', check=True).stdout.split()
    assert inner == ['module.m["x"].module.n.terraform_data.a[1]']
    assert workdir.strata("state", "list", 'module.m["y"]', check=True).stdout == ""


def test_show_json_nests_module_resources_under_child_modules(workdir: Workdir) -> None:
    _nested_modules(workdir)
    root = orjson.loads(workdir.strata("show", "-json", check=True).stdout)["values"]["root_module"]
    assert [r["address"] for r in root["resources"]] == ["terraform_data.b"]
    (m,) = root["child_modules"]
    assert m["address"] == 'module.m["x"]'
    assert [r["address"] for r in m["resources"]] == ['module.m["x"].terraform_data.a[0]']
    (n,) = m["child_modules"]
    assert n["address"] == 'module.m["x"].module.n'
    assert list(n) == ["resources", "address"]


@requires_terraform
def test_show_json_and_state_list_of_modules_match_terraform(workdir: Workdir) -> None:
    _nested_modules(workdir)
    ours = orjson.loads(workdir.strata("show", "-json", check=True).stdout)["values"]["root_module"]
    theirs = orjson.loads(workdir.terraform("show", "-json").stdout)["values"]["root_module"]
    assert orjson.dumps(ours) == orjson.dumps(theirs)
    for f in ("module.m", 'module.m["x"].module.n'):
        assert workdir.strata("state", "list", f).stdout == workdir.terraform("state", "list", f).stdout

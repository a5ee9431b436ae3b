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

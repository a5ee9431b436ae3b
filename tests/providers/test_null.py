"""The null provider: null_resource and null_data_source, through the real command and at the provider level."""

from __future__ import annotations

import pytest

from engine import UNKNOWN, PlanResourceChangeRequest, ReadDataSourceRequest
from providers._support import map_requires_replace
from providers.null import NullProvider
from tests.conftest import Workdir
from tests.providers.helpers import (
    actions,
    addresses,
    apply,
    assert_no_changes,
    attrs,
    instance,
    plan,
)

NULL = 'provider["registry.terraform.io/hashicorp/null"]'


def test_null_resource_create_noop_replace_update_delete(workdir: Workdir) -> None:
    workdir.write('resource "null_resource" "a" {\n  triggers = { x = "1", n = 2 }\n}\n'
                  'resource "null_resource" "bare" {}\n')
    first = workdir.strata("plan", "-detailed-exitcode")
    assert first.returncode == 2, first.stderr
    created = apply(workdir)
    assert actions(created) == {"null_resource.a": "create", "null_resource.bare": "create"}
    a = instance(workdir, "null_resource.a")
    assert a["provider"] == NULL and a["schema_version"] == 0
    assert a["attributes"]["triggers"] == {"x": "1", "n": "2"}  # numbers convert to strings
    first_id = a["attributes"]["id"]
    assert first_id.isdigit() and 0 <= int(first_id) < 2**63
    bare = attrs(workdir, "null_resource.bare")
    assert bare["triggers"] is None and bare["id"].isdigit()
    assert_no_changes(workdir)

    # a changed trigger forces replacement: a new id
    workdir.write('resource "null_resource" "a" {\n  triggers = { x = "1", n = 3 }\n}\n'
                  'resource "null_resource" "bare" {}\n')
    replaced = apply(workdir)
    assert actions(replaced) == {"null_resource.a": "replace"}
    assert attrs(workdir, "null_resource.a")["id"] != first_id
    assert_no_changes(workdir)

    # a new key with a null value does not (RequiresReplaceIfValuesNotNull): an in-place update
    second_id = attrs(workdir, "null_resource.a")["id"]
    workdir.write('resource "null_resource" "a" {\n  triggers = { x = "1", n = 3, later = null }\n}\n'
                  'resource "null_resource" "bare" {}\n')
    updated = apply(workdir)
    assert actions(updated) == {"null_resource.a": "update"}
    assert attrs(workdir, "null_resource.a")["id"] == second_id

    # removing a key does
    workdir.write('resource "null_resource" "a" {\n  triggers = { x = "1" }\n}\n'
                  'resource "null_resource" "bare" {}\n')
    assert actions(plan(workdir)) == {"null_resource.a": "replace"}

    destroyed = workdir.strata("destroy", "-auto-approve", "-json", check=True)
    assert {e["hook"]["resource"]["addr"] for e in destroyed.of_type("apply_complete")} == {
        "null_resource.a", "null_resource.bare"}
    assert workdir.state()["resources"] == []


def test_null_resource_triggers_from_another_resource(workdir: Workdir) -> None:
    config = """
    resource "null_resource" "first" {
      triggers = { v = "%s" }
    }
    resource "null_resource" "second" {
      triggers = { first = null_resource.first.id }
    }
    """
    workdir.write(config % "a")
    apply(workdir)
    second = attrs(workdir, "null_resource.second")
    assert second["triggers"] == {"first": attrs(workdir, "null_resource.first")["id"]}
    assert_no_changes(workdir)
    workdir.write(config % "b")
    res = apply(workdir)
    # the first is replaced, so the second's trigger is unknown until apply: replaced too
    assert actions(res) == {"null_resource.first": "replace", "null_resource.second": "replace"}
    assert attrs(workdir, "null_resource.second")["triggers"] == {"first": attrs(workdir, "null_resource.first")["id"]}
    assert_no_changes(workdir)


def test_null_data_source_through_the_cli(workdir: Workdir) -> None:
    workdir.write("""
    data "null_data_source" "values" {
      inputs = { a = "x", b = 2 }
    }
    output "outputs" { value = data.null_data_source.values.outputs }
    output "hcd" { value = data.null_data_source.values.has_computed_default }
    """)
    res = apply(workdir)
    outputs = res.of_type("outputs")[-1]["outputs"]
    assert outputs["outputs"]["value"] == {"a": "x", "b": "2"}
    assert outputs["hcd"]["value"] == "default"
    assert "data.null_data_source.values" in addresses(workdir)
    got = attrs(workdir, "data.null_data_source.values")
    assert got["id"] == "static" and got["random"].isdigit()


@pytest.mark.trio
async def test_null_data_source_read() -> None:
    p = NullProvider()
    resp = await p.read_data_source(ReadDataSourceRequest("null_data_source", {
        "inputs": {"a": "1"}, "outputs": None, "random": None, "has_computed_default": "given", "id": None}))
    assert not resp.diagnostics
    s = resp.state
    assert s is not None
    assert s["outputs"] == {"a": "1"} and s["inputs"] == {"a": "1"}
    assert s["has_computed_default"] == "given" and s["id"] == "static"
    assert s["random"].isdigit() and 0 <= int(s["random"]) < 2**63
    empty = await p.read_data_source(ReadDataSourceRequest("null_data_source", {}))
    assert empty.state is not None
    assert empty.state["outputs"] is None and empty.state["has_computed_default"] == "default"


@pytest.mark.trio
async def test_null_resource_plans_at_the_provider_level() -> None:
    p = NullProvider()
    assert p.source == "registry.terraform.io/hashicorp/null"
    schema = p.get_schema()
    assert set(schema.resources) == {"null_resource"} and set(schema.data_sources) == {"null_data_source"}
    cfg = {"triggers": {"a": "1"}, "id": None}
    created = await p.plan_resource_change(PlanResourceChangeRequest("null_resource", None, cfg, cfg))
    assert created.planned_state == {"triggers": {"a": "1"}, "id": UNKNOWN}
    prior = {"triggers": {"a": "1"}, "id": "42"}
    same = await p.plan_resource_change(PlanResourceChangeRequest("null_resource", prior, {**cfg, "id": "42"}, cfg))
    assert same.planned_state == prior and same.requires_replace == ()
    changed_cfg = {"triggers": {"a": "2"}, "id": None}
    changed = await p.plan_resource_change(
        PlanResourceChangeRequest("null_resource", prior, {**changed_cfg, "id": "42"}, changed_cfg))
    assert changed.requires_replace == ("triggers",)


@pytest.mark.parametrize(("old", "new", "replace"), [
    (None, None, False),
    ({"a": "1"}, {"a": "1"}, False),
    ({"a": "1"}, {"a": "2"}, True),
    ({"a": "1"}, {"a": "1", "b": "2"}, True),
    ({"a": "1"}, {"a": "1", "b": None}, False),  # a new null element
    ({"a": "1", "b": "2"}, {"a": "1"}, True),  # a removed key
    ({"a": "1"}, None, True),
    (None, {"a": None}, False),  # null map → map of nulls (plugin SDK stored those as null)
    (None, {"a": "1"}, True),
    ({}, None, False),
    ({"a": "1"}, {"a": UNKNOWN}, True),
    ({"a": "1"}, UNKNOWN, True),
    (None, UNKNOWN, False),
])
def test_requires_replace_if_values_not_null(old: object, new: object, replace: bool) -> None:
    assert map_requires_replace(old, new) is replace

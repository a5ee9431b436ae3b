"""strata's plugin client on the protocol-6 example provider, in process, on trio and asyncio.

The example provider is a Python program (``tf`` framework) behind a wrapper script, so this is
the client against a tfplugin6 server that is not written in Go: the schema's nested attribute,
computed values planned unknown, a data source, and the objects the provider leaves as files.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.plugins.fetch import Fetched

pytestmark = pytest.mark.anyio
SOURCE = "registry.terraform.io/hashicorp/example"


@pytest.fixture
def example(plugins: Fetched) -> Iterator[Any]:
    pytest.importorskip("engine.plugin.client", reason="this checkout of strata has no plugin client")
    from engine.plugin.client import PluginProvider

    if plugins.example is None:
        pytest.skip("the protocol-6 example provider could not be built: " + "; ".join(plugins.problems))
    provider = PluginProvider(plugins.example, SOURCE)
    yield provider
    provider.close()


def item_config(name: str, content: str) -> dict[str, object]:
    return {"name": name, "content": content, "settings": {"size": 3, "label": "l"},
            "id": None, "revision": None, "digest": None}


def test_the_schema_has_the_nested_attribute(example: Any) -> None:
    schema = example.get_schema()
    assert example.protocol == 6
    settings = schema.resources["example_item"].attributes["settings"]
    assert settings.optional and settings.nested is not None and settings.nested.nesting == "single"
    assert set(settings.nested.attributes) == {"size", "label"}
    assert schema.resources["example_item"].attributes["revision"].computed
    assert set(schema.data_sources) == {"example_item"}


async def test_an_item_is_planned_created_read_and_deleted(example: Any, tmp_path: Path) -> None:
    from engine.provider.protocol import (
        ApplyResourceChangeRequest,
        PlanResourceChangeRequest,
        ReadDataSourceRequest,
        ReadResourceRequest,
    )
    from engine.values import UNKNOWN

    assert await example.configure({"root": str(tmp_path)}) == ()
    cfg = item_config("a", "x")
    plan = await example.plan_resource_change(PlanResourceChangeRequest("example_item", None, cfg, cfg))
    assert plan.diagnostics == ()
    assert plan.planned_state["revision"] is UNKNOWN and plan.planned_state["settings"] == {"size": 3, "label": "l"}
    done = await example.apply_resource_change(ApplyResourceChangeRequest(
        "example_item", None, plan.planned_state, cfg, planned_private=plan.planned_private))
    assert done.diagnostics == () and done.new_state is not None
    assert done.new_state["id"] == "item-a" and done.new_state["revision"] == 1
    assert json.loads((tmp_path / "item-a.json").read_text())["settings"] == {"size": 3, "label": "l"}
    read = await example.read_resource(ReadResourceRequest("example_item", done.new_state, done.private))
    assert read.new_state == done.new_state
    data = await example.read_data_source(ReadDataSourceRequest(
        "example_item", {"name": "a", "id": None, "content": None, "revision": None}))
    assert data.diagnostics == () and data.state == {"name": "a", "id": "item-a", "content": "x", "revision": 1}
    gone = await example.apply_resource_change(ApplyResourceChangeRequest("example_item", done.new_state, None, None))
    assert gone.new_state is None and not (tmp_path / "item-a.json").exists()


async def test_an_update_plans_the_revision_unknown_and_applies_it(example: Any, tmp_path: Path) -> None:
    from engine.provider.protocol import ApplyResourceChangeRequest, PlanResourceChangeRequest
    from engine.values import UNKNOWN

    await example.configure({"root": str(tmp_path)})
    cfg = item_config("b", "x")
    plan = await example.plan_resource_change(PlanResourceChangeRequest("example_item", None, cfg, cfg))
    first = await example.apply_resource_change(ApplyResourceChangeRequest(
        "example_item", None, plan.planned_state, cfg, planned_private=plan.planned_private))
    changed = {**first.new_state, "content": "y"}
    plan2 = await example.plan_resource_change(PlanResourceChangeRequest(
        "example_item", first.new_state, changed, item_config("b", "y")))
    assert plan2.diagnostics == () and plan2.requires_replace == ()
    assert plan2.planned_state["revision"] is UNKNOWN and plan2.planned_state["digest"] is UNKNOWN
    second = await example.apply_resource_change(ApplyResourceChangeRequest(
        "example_item", first.new_state, plan2.planned_state, item_config("b", "y")))
    assert second.new_state["revision"] == 2 and second.new_state["content"] == "y"


async def test_a_missing_item_is_the_data_sources_error_on_its_attribute(example: Any, tmp_path: Path) -> None:
    from engine.provider.protocol import ReadDataSourceRequest

    await example.configure({"root": str(tmp_path)})
    r = await example.read_data_source(ReadDataSourceRequest(
        "example_item", {"name": "nope", "id": None, "content": None, "revision": None}))
    (d,) = r.diagnostics
    assert d.severity == "error" and d.summary == "No item named 'nope'"

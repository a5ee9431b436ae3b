"""engine/provider/mock.py: the MockProvider in the box answers as configured and records what it
was asked."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from engine import (
    UNKNOWN,
    ApplyResourceChangeRequest,
    AttributeSchema,
    DiagnosticsError,
    ListVal,
    MockProvider,
    PlanResourceChangeRequest,
    PlanResourceChangeResponse,
    Provider,
    ReadResourceRequest,
    UpgradeResourceStateRequest,
    error,
)
from engine.backend.operations import Options, apply_planned, make_plan
from engine.provider.registry import Providers

THING = {"id": AttributeSchema("string", computed=True), "name": AttributeSchema("string", required=True),
         "size": AttributeSchema("number", optional=True, computed=True),
         "ports": AttributeSchema(["list", "number"], optional=True)}


def test_a_mock_is_a_provider_with_the_schema_it_was_given() -> None:
    mock = MockProvider({"mock_thing": THING}, data_sources={"mock_info": {"v": AttributeSchema("string")}})
    assert isinstance(mock, Provider)
    assert mock.get_schema().resources["mock_thing"].attributes == THING
    assert set(mock.get_schema().data_sources) == {"mock_info"}


@pytest.mark.trio
async def test_by_default_it_plans_computed_values_unknown_and_applies_them_known() -> None:
    mock = MockProvider({"mock_thing": THING})
    config = {"id": None, "name": "a", "size": None, "ports": None}
    plan = await mock.plan_resource_change(PlanResourceChangeRequest("mock_thing", None, config, config))
    assert plan.planned_state == {"id": UNKNOWN, "name": "a", "size": UNKNOWN, "ports": None}
    new = (await mock.apply_resource_change(ApplyResourceChangeRequest(
        "mock_thing", None, plan.planned_state, config))).new_state
    assert new == {"id": "mock_thing-1", "name": "a", "size": 0, "ports": None}


@pytest.mark.trio
async def test_it_records_every_call_in_order() -> None:
    mock = MockProvider({"mock_thing": THING})
    await mock.configure({"region": "x"})
    await mock.read_resource(ReadResourceRequest("mock_thing", {"id": "1"}, b"p"))
    assert [c.operation for c in mock.calls] == ["configure", "read_resource"]
    assert mock.config == {"region": "x"}
    assert mock.requests("read_resource")[0].private == b"p"


@pytest.mark.trio
async def test_a_call_answers_with_the_response_handler_exception_or_diagnostics_configured() -> None:
    fixed = PlanResourceChangeResponse({"id": "fixed"})
    req = PlanResourceChangeRequest("mock_thing", None, {"name": "a"}, {"name": "a"})
    assert await MockProvider({"mock_thing": THING}, plan_resource_change=fixed).plan_resource_change(req) is fixed

    async def handler(r: PlanResourceChangeRequest) -> PlanResourceChangeResponse:
        return PlanResourceChangeResponse({"id": r.config["name"] if r.config else None})

    got = await MockProvider({"mock_thing": THING}, plan_resource_change=handler).plan_resource_change(req)
    assert got.planned_state == {"id": "a"}
    with pytest.raises(RuntimeError, match="boom"):
        await MockProvider({"mock_thing": THING}, plan_resource_change=RuntimeError("boom")).plan_resource_change(req)
    warned = await MockProvider({"mock_thing": THING}, plan_resource_change=error("careful")
                                ).plan_resource_change(req)
    assert warned.planned_state is not None and [d.summary for d in warned.diagnostics] == ["careful"]


def test_an_unknown_call_name_is_refused_with_the_names_it_takes() -> None:
    with pytest.raises(TypeError, match="no call 'plan'"):
        MockProvider({"mock_thing": THING}, plan=None)


@pytest.mark.trio
async def test_its_default_upgrade_decodes_the_stored_json_by_the_current_schema() -> None:
    mock = MockProvider({"mock_thing": THING})
    resp = await mock.upgrade_resource_state(UpgradeResourceStateRequest(
        "mock_thing", 0, {"id": "1", "name": "a", "ports": [1, 2]}))
    assert resp.upgraded_state == {"id": "1", "name": "a", "size": None, "ports": ListVal([1, 2])}


@pytest.mark.trio
async def test_an_injected_error_fails_the_operation_as_a_provider_s_own_would(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(textwrap.dedent('resource "mock_thing" "x" {\n  name = "a"\n}\n'))
    opts = Options(chdir=str(tmp_path), fsync=False)
    mock = MockProvider({"mock_thing": THING}, validate_resource_config=error("Invalid name", "Not allowed."))
    with pytest.raises(DiagnosticsError) as exc:
        await make_plan(opts, lambda e: None, providers=Providers({"mock": mock}))
    (d,) = exc.value.diagnostics
    assert (d.summary, d.address) == ("Invalid name", "mock_thing.x")
    mock.set("validate_resource_config", None)
    planned = await make_plan(opts, lambda e: None, providers=Providers({"mock": mock}))
    result = await apply_planned(planned, opts, lambda e: None)
    assert result.ok and [c.operation for c in mock.calls].count("apply_resource_change") == 1

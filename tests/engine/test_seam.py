"""engine/provider/seam.py: every provider call goes through one seam, which maps a provider's
exceptions and diagnostics to strata's errors once; and what real plugins need carried through
it (private bytes, requires_replace paths, nested attribute types, the legacy type system)."""

from __future__ import annotations

import base64
import textwrap
from pathlib import Path
from typing import Any

import orjson
import pytest
from structlog.testing import capture_logs

from engine import (
    UNKNOWN,
    ApplyResourceChangeRequest,
    ApplyResourceChangeResponse,
    AttributeSchema,
    Diagnostic,
    DiagnosticsError,
    MapVal,
    MockProvider,
    NestedType,
    PlanResourceChangeRequest,
    PlanResourceChangeResponse,
    ProviderCallFailed,
    ProviderError,
    ReadResourceRequest,
    ReadResourceResponse,
    ResourceSchema,
    error,
)
from engine.addrs import parse_dependency
from engine.backend.operations import Options, apply_planned, make_plan
from engine.diagnostics import SourceRange
from engine.provider.contracts import check_planned_state
from engine.provider.protocol import proposed_new_state
from engine.provider.registry import Providers
from engine.provider.seam import Failure, ProviderSeam
from engine.render.text import render_plan

THING = {"id": AttributeSchema("string", computed=True), "name": AttributeSchema("string", required=True),
         "tags": AttributeSchema(["map", "string"], optional=True)}


def _opts(tmp_path: Path, text: str) -> Options:
    (tmp_path / "main.tf").write_text(textwrap.dedent(text))
    return Options(chdir=str(tmp_path), fsync=False)


async def _plan(opts: Options, mock: MockProvider) -> Any:
    return await make_plan(opts, lambda e: None, providers=Providers({"mock": mock}))


async def _apply(opts: Options, mock: MockProvider) -> Any:
    result = await apply_planned(await _plan(opts, mock), opts, lambda e: None)
    assert result.ok, [str(d) for d in result.diagnostics]
    return result


ONE = 'resource "mock_thing" "x" {\n  name = "a"\n}\n'

# ---------------------------------------------------------------------------- the mapping


@pytest.mark.trio
async def test_an_exception_becomes_a_provider_call_failed_chained_from_it_with_its_context() -> None:
    boom = RuntimeError("boom")
    seam = ProviderSeam(MockProvider({"mock_thing": THING}, plan_resource_change=boom), "mock.west")
    with pytest.raises(ProviderCallFailed) as exc:
        await seam.plan_resource_change(PlanResourceChangeRequest("mock_thing", None, {}, {}),
                                        address="mock_thing.x", failure=Failure("Provider failed to plan", "{repr}",
                                                                                raises=True))
    err = exc.value
    assert isinstance(err, ProviderError) and err.__cause__ is boom and err.cause is boom
    assert (err.operation, err.provider, err.address) == ("PlanResourceChange", "mock.west", "mock_thing.x")
    assert str(err) == ("Provider failed to plan (resource mock_thing.x, provider mock.west): "
                        "RuntimeError('boom')")


@pytest.mark.trio
async def test_an_exception_not_raised_is_the_error_diagnostic_of_an_empty_response() -> None:
    seam = ProviderSeam(MockProvider({"mock_thing": THING}, apply_resource_change=ValueError("no")), "mock")
    at = SourceRange("main.tf", 3)
    resp = await seam.apply_resource_change(ApplyResourceChangeRequest("mock_thing", None, {}, {}),
                                            address="mock_thing.x", subject=at)
    assert resp.new_state is None
    assert resp.diagnostics == (error("Provider error", "ValueError: no", at, "mock_thing.x"),)


@pytest.mark.trio
async def test_a_provider_s_diagnostics_get_the_address_and_subject_and_keep_their_other_fields() -> None:
    mine = Diagnostic("error", "throttled", retryable=True)
    seam = ProviderSeam(MockProvider({"mock_thing": THING}, read_resource=mine), "mock")
    at = SourceRange("main.tf", 1)
    resp = await seam.read_resource(ReadResourceRequest("mock_thing", {"id": "1"}), address="mock_thing.x",
                                    subject=at)
    (d,) = resp.diagnostics
    assert (d.address, d.subject, d.retryable, d.summary) == ("mock_thing.x", at, True, "throttled")


@pytest.mark.trio
async def test_a_broken_schema_call_is_mapped_too() -> None:
    class NoSchema(MockProvider):
        def get_schema(self) -> Any:
            raise KeyError("gone")

    with pytest.raises(ProviderCallFailed) as exc:
        Providers({"mock": NoSchema()}).schema("mock", "mock_thing")
    assert exc.value.operation == "GetProviderSchema" and "Failed to load plugin schemas" in str(exc.value)


@pytest.mark.trio
async def test_a_provider_that_raises_while_planning_stops_the_plan_in_the_planner_s_words(tmp_path: Path) -> None:
    mock = MockProvider({"mock_thing": THING}, plan_resource_change=RuntimeError("boom"))
    with pytest.raises(ProviderError) as exc:
        await _plan(_opts(tmp_path, ONE), mock)
    assert str(exc.value) == ("Provider failed to plan (resource mock_thing.x, provider mock): "
                              "RuntimeError('boom')")


@pytest.mark.trio
async def test_a_provider_that_raises_while_configuring_is_a_diagnostic_naming_it(tmp_path: Path) -> None:
    mock = MockProvider({"mock_thing": THING}, configure=OSError("no credentials"))
    with pytest.raises(DiagnosticsError) as exc:
        await _plan(_opts(tmp_path, ONE), mock)
    (d,) = exc.value.diagnostics
    assert (d.summary, d.detail) == ("Failed to configure provider", "mock: OSError: no credentials")


@pytest.mark.trio
async def test_a_provider_that_raises_during_refresh_is_a_diagnostic_naming_the_address(tmp_path: Path) -> None:
    opts = _opts(tmp_path, ONE)
    await _apply(opts, MockProvider({"mock_thing": THING}))
    with pytest.raises(DiagnosticsError) as exc:
        await _plan(opts, MockProvider({"mock_thing": THING}, read_resource=RuntimeError("lost")))
    (d,) = exc.value.diagnostics
    assert (d.summary, d.detail, d.address) == ("Provider error during refresh", "RuntimeError: lost", "mock_thing.x")


# ---------------------------------------------------------------------------- private bytes


@pytest.mark.trio
async def test_private_bytes_planned_come_back_at_apply_and_are_kept_in_the_state(tmp_path: Path) -> None:
    def plan(req: PlanResourceChangeRequest) -> PlanResourceChangeResponse:
        resp = mock.default_plan_resource_change(req)
        return PlanResourceChangeResponse(resp.planned_state, planned_private=b"planned\x00" + req.prior_private)

    def apply(req: ApplyResourceChangeRequest) -> ApplyResourceChangeResponse:
        resp = mock.default_apply_resource_change(req)
        return ApplyResourceChangeResponse(resp.new_state, private=b"kept:" + req.planned_private)

    mock = MockProvider({"mock_thing": THING}, plan_resource_change=plan, apply_resource_change=apply)
    opts = _opts(tmp_path, ONE)
    planned = await _plan(opts, mock)
    assert planned.plan.changes[0].private == b"planned\x00"
    await apply_planned(planned, opts, lambda e: None)
    assert mock.requests("apply_resource_change")[0].planned_private == b"planned\x00"
    state = orjson.loads((tmp_path / "terraform.tfstate").read_bytes())
    stored = state["resources"][0]["instances"][0]["private"]
    assert base64.b64decode(stored) == b"kept:planned\x00"
    # the next run hands it back: to the refresh, and to the plan as the prior object's
    await _apply(_opts(tmp_path, ONE.replace('"a"', '"b"')), mock)
    assert mock.requests("read_resource")[-1].private == b"kept:planned\x00"
    update = [r for r in mock.requests("apply_resource_change") if r.prior_state is not None][-1]
    assert update.prior_private == b"kept:planned\x00"
    assert update.planned_private == b"planned\x00kept:planned\x00"


@pytest.mark.trio
async def test_private_bytes_from_a_read_replace_the_stored_ones_without_drift(tmp_path: Path) -> None:
    opts = _opts(tmp_path, ONE)
    await _apply(opts, MockProvider({"mock_thing": THING}))
    reader = MockProvider({"mock_thing": THING}, read_resource=lambda req: ReadResourceResponse(
        req.current_state, private=b"refreshed"))
    opts = _opts(tmp_path, ONE + ONE.replace('"x"', '"y"'))  # a change, so that the state is written
    planned = await _plan(opts, reader)
    assert [(str(c.addr), c.action) for c in planned.plan.changes] == [("mock_thing.x", "no-op"),
                                                                        ("mock_thing.y", "create")]
    assert not planned.plan.drift
    await apply_planned(planned, opts, lambda e: None)
    raw = orjson.loads((tmp_path / "terraform.tfstate").read_bytes())["resources"][0]["instances"][0]
    assert base64.b64decode(raw.get("private", "")) == b"refreshed"


@pytest.mark.trio
async def test_private_bytes_from_a_read_reach_a_saved_plan_s_apply(tmp_path: Path) -> None:
    from engine.plans import planfile

    opts = _opts(tmp_path, ONE)
    await _apply(opts, MockProvider({"mock_thing": THING}))
    reader = MockProvider({"mock_thing": THING}, read_resource=lambda req: ReadResourceResponse(
        req.current_state, private=b"refreshed"))
    planned = await _plan(opts, reader)
    back = planfile.decode_plan(planfile.encode_plan(planned.plan))
    (kept,) = [r.obj for r in back.refreshed if str(r.addr) == "mock_thing.x"]
    assert kept is not None and kept.private == b"refreshed"


# ---------------------------------------------------------------------------- requires_replace paths

TAGGED = """
resource "mock_thing" "x" {
  name = "a"
  tags = { env = "%s", team = "%s" }
}
"""


@pytest.mark.trio
@pytest.mark.parametrize(("env", "team", "action"), [("prod", "a", "delete-create"), ("dev", "b", "update")])
async def test_a_requires_replace_path_inside_a_value_forces_replace_only_when_that_value_changes(
        tmp_path: Path, env: str, team: str, action: str) -> None:
    mock = MockProvider({"mock_thing": THING}, requires_replace={"mock_thing": (("tags", "env"),)})
    await _apply(_opts(tmp_path, TAGGED % ("dev", "a")), mock)
    planned = await _plan(_opts(tmp_path, TAGGED % (env, team)), mock)
    (c,) = planned.plan.changes
    assert c.action == action
    # kept only where the value changes, as terraform's plan keeps them (its replace_paths)
    assert c.requires_replace == ((("tags", "env"),) if action == "delete-create" else ())


@pytest.mark.trio
async def test_the_plan_says_forces_replacement_at_the_value_the_path_leads_to(tmp_path: Path) -> None:
    mock = MockProvider({"mock_thing": THING}, requires_replace={"mock_thing": (("tags", "env"),)})
    await _apply(_opts(tmp_path, TAGGED % ("dev", "a")), mock)
    planned = await _plan(_opts(tmp_path, TAGGED % ("prod", "a")), mock)
    text = render_plan(planned.plan)
    assert '~ "env"  = "dev" -> "prod" # forces replacement' in text, text
    assert "~ tags = {\n" in text and "tags = { # forces" not in text, text


@pytest.mark.trio
async def test_a_bare_name_in_requires_replace_is_a_top_level_path(tmp_path: Path) -> None:
    mock = MockProvider({"mock_thing": THING}, requires_replace={"mock_thing": ("name",)})
    await _apply(_opts(tmp_path, ONE), mock)
    planned = await _plan(_opts(tmp_path, ONE.replace('"a"', '"b"')), mock)
    (c,) = planned.plan.changes
    assert c.action == "delete-create" and c.requires_replace == (("name",),)
    assert 'name = "a" -> "b" # forces replacement' in render_plan(planned.plan)


# ---------------------------------------------------------------------------- nested attribute types

DISKS = NestedType("list", {"size": AttributeSchema("number", required=True),
                            "serial": AttributeSchema("string", computed=True)})
BOOT = NestedType("single", {"image": AttributeSchema("string", required=True),
                             "label": AttributeSchema("string", optional=True)})
MACHINE = ResourceSchema({"id": AttributeSchema("string", computed=True),
                          "boot": AttributeSchema(None, required=True, nested=BOOT),
                          "disks": AttributeSchema(None, optional=True, nested=DISKS)})


def test_a_nested_attribute_type_implies_an_object_type_with_its_optional_attributes() -> None:
    assert MACHINE.attributes["boot"].type == ["object", {"image": "string", "label": "string"}, ["label"]]
    assert MACHINE.attributes["disks"].type == ["list", ["object", {"size": "number", "serial": "string"},
                                                         ["serial"]]]


def test_computed_values_inside_nested_attributes_are_proposed_from_prior_and_may_be_planned() -> None:
    prior = {"id": "m", "boot": {"image": "x", "label": None}, "disks": ({"size": 1, "serial": "s1"},)}
    config = {"id": None, "boot": {"image": "x", "label": None}, "disks": ({"size": 2, "serial": None},)}
    proposed = proposed_new_state(MACHINE, prior, config)
    assert proposed["disks"] == ({"size": 2, "serial": "s1"},)
    assert check_planned_state(MACHINE, config, prior, proposed) is None
    bad = {**proposed, "disks": ({"size": 3, "serial": "s1"},)}
    assert check_planned_state(MACHINE, config, prior, bad) == (
        ".disks[0].size: planned value 3 does not match config value 2 nor prior value 1")


@pytest.mark.trio
async def test_nested_attributes_are_configured_planned_applied_and_stored(tmp_path: Path) -> None:
    mock = MockProvider({"mock_machine": MACHINE})
    opts = _opts(tmp_path, """
        resource "mock_machine" "m" {
          boot  = { image = "debian" }
          disks = [{ size = 10 }, { size = 20 }]
        }
    """)
    await _apply(opts, mock)
    cfg = mock.requests("plan_resource_change")[0].config
    assert cfg["boot"] == {"image": "debian", "label": None}
    assert [d["size"] for d in cfg["disks"]] == [10, 20]
    raw = orjson.loads((tmp_path / "terraform.tfstate").read_bytes())["resources"][0]["instances"][0]
    assert raw["attributes"]["boot"] == {"image": "debian", "label": None}
    planned = await _plan(opts, mock)
    assert not planned.plan.has_changes(), [c.action for c in planned.plan.changes]


# ---------------------------------------------------------------------------- the legacy type system


def _inconsistent(legacy: bool) -> MockProvider:
    """Plans ``name`` other than configured; its apply returns ``tags`` other than planned."""

    def plan(req: PlanResourceChangeRequest) -> PlanResourceChangeResponse:
        resp = mock.default_plan_resource_change(req)
        assert resp.planned_state is not None
        return PlanResourceChangeResponse({**resp.planned_state, "name": "normalised"},
                                          legacy_type_system=legacy)

    def apply(req: ApplyResourceChangeRequest) -> ApplyResourceChangeResponse:
        resp = mock.default_apply_resource_change(req)
        assert resp.new_state is not None
        return ApplyResourceChangeResponse({**resp.new_state, "tags": MapVal({"added": "x"})},
                                           legacy_type_system=legacy)

    mock = MockProvider({"mock_thing": THING}, plan_resource_change=plan, apply_resource_change=apply)
    return mock


@pytest.mark.trio
async def test_a_legacy_provider_s_invalid_plan_and_inconsistent_result_are_warnings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.log

    monkeypatch.setenv("STRATA_LOG", "WARN")  # warnings are logged only when asked for, as TF_LOG=WARN
    monkeypatch.setattr(engine.log, "_configured", False)
    with capture_logs() as logs:
        result = await _apply(_opts(tmp_path, ONE), _inconsistent(legacy=True))
    assert result.ok
    warnings = [e["event"] for e in logs if e["log_level"] == "warning"]
    assert any("produced an invalid plan for mock_thing.x" in w and "legacy plugin SDK" in w for w in warnings), logs
    assert any("produced an unexpected new value for mock_thing.x" in w and ".tags" in w for w in warnings), logs


@pytest.mark.trio
async def test_the_same_inconsistency_from_a_current_provider_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DiagnosticsError) as exc:
        await _plan(_opts(tmp_path, ONE), _inconsistent(legacy=False))
    assert "Provider produced invalid plan" in str(exc.value)


@pytest.mark.trio
async def test_a_legacy_provider_still_may_not_leave_unknown_values_after_apply(tmp_path: Path) -> None:
    mock = MockProvider({"mock_thing": THING}, legacy_type_system=True)
    mock.set("apply_resource_change", lambda req: ApplyResourceChangeResponse(
        {**(req.planned_state or {}), "id": UNKNOWN}, legacy_type_system=True))
    opts = _opts(tmp_path, ONE)
    result = await apply_planned(await _plan(opts, mock), opts, lambda e: None)
    assert not result.ok and "unknown" in " ".join(d.detail for d in result.diagnostics)


def test_the_state_keeps_private_bytes_base64_where_terraform_writes_them() -> None:
    from engine.state.codec import decode_object, encode_object
    from engine.state.model import ObjectState

    obj = ObjectState({"id": "1"}, dependencies=(parse_dependency("a.b"),), private=b"\x00\xffopaque")
    raw = encode_object(None, obj, {})
    assert list(raw) == ["schema_version", "attributes", "sensitive_attributes", "private", "dependencies"]
    assert raw["private"] == base64.b64encode(b"\x00\xffopaque").decode()
    assert decode_object(orjson.loads(orjson.dumps(raw)), {}).private == b"\x00\xffopaque"
    assert "private" not in encode_object(None, ObjectState({"id": "1"}), {})

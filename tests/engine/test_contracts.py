"""The core catches every provider contract violation (001_34737dbf376f3bcf.txt), naming
the provider, the resource address and the attribute."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from engine import (
    UNKNOWN,
    ApplyResourceChangeRequest,
    ApplyResourceChangeResponse,
    AttributeSchema,
    BlockSchema,
    DiagnosticsError,
    MockProvider,
    PlanResourceChangeRequest,
    PlanResourceChangeResponse,
    ProviderSchema,
    ReadResourceResponse,
    ResourceSchema,
    UpgradeResourceStateResponse,
)
from engine.backend.operations import Options, apply_planned, make_plan
from engine.provider.registry import Providers

SCHEMA = ResourceSchema(
    attributes={
        "id": AttributeSchema("string", computed=True),
        "name": AttributeSchema("string", required=True),
        "note": AttributeSchema("string", optional=True),
        "size": AttributeSchema("number", optional=True, computed=True),
    },
    blocks={"rule": BlockSchema("list", {"port": AttributeSchema("number", required=True)})},
)


def misbehaving(apply_resource_change: Any = None, **faults: Any) -> MockProvider:
    """A provider whose every call can be made to break one promise (the faults named);
    ``apply_resource_change``: how every apply is answered instead."""
    mock = MockProvider(ProviderSchema({"bad_thing": ResourceSchema(SCHEMA.attributes, faults.get("version", 0),
                                                                     blocks=SCHEMA.blocks)}),
                        source="example.com/test/bad")

    def plan(req: PlanResourceChangeRequest) -> PlanResourceChangeResponse:
        resp = mock.default_plan_resource_change(req)
        if resp.planned_state is None:
            return resp
        planned = dict(resp.planned_state)
        if req.prior_state is None and (req.config or {}).get("size") is None:
            planned["size"] = 1
        if faults.get("change_config"):
            planned["name"] = "not-what-you-wrote"
        if faults.get("set_non_computed"):
            planned["note"] = "invented"
        if faults.get("drift_final_plan") and len(mock.requests("plan_resource_change")) > 1:
            planned["size"] = 99
        return PlanResourceChangeResponse(planned)

    def apply(req: ApplyResourceChangeRequest) -> ApplyResourceChangeResponse:
        resp = mock.default_apply_resource_change(req)
        if resp.new_state is None:
            return resp
        new = {**resp.new_state, "id": "obj-1"}
        if faults.get("change_known_value"):
            new["size"] = 42
        if faults.get("leave_unknown"):
            new["id"] = UNKNOWN
        if faults.get("drop_block"):
            new["rule"] = ()
        return ApplyResourceChangeResponse(new)

    mock.set("plan_resource_change", plan)
    mock.set("apply_resource_change", apply if apply_resource_change is None else apply_resource_change)
    if faults.get("unknown_on_read"):
        mock.set("read_resource", lambda req: ReadResourceResponse({**req.current_state, "size": UNKNOWN}))
    if faults.get("unknown_on_upgrade"):
        mock.set("upgrade_resource_state",
                 lambda req: UpgradeResourceStateResponse({**req.raw_state, "size": UNKNOWN}))
    else:  # the stored JSON as it is, the blocks a tuple: an object the next plan updates
        mock.set("upgrade_resource_state", lambda req: UpgradeResourceStateResponse(
            {**req.raw_state, "rule": tuple(req.raw_state.get("rule") or ())}))
    return mock


CONFIG = """
resource "bad_thing" "x" {
  name = "hello"
  rule { port = 80 }
}
"""


def _write(tmp_path: Path, text: str = CONFIG) -> Options:
    (tmp_path / "main.tf").write_text(textwrap.dedent(text))
    return Options(chdir=str(tmp_path), fsync=False)


async def _apply(opts: Options, provider: MockProvider) -> Any:
    providers = Providers({"bad": provider})
    planned = await make_plan(opts, lambda e: None, providers=providers)
    return await apply_planned(planned, opts, lambda e: None)


def _messages(diags: Any) -> str:
    return "\n".join(f"{d.summary}: {d.detail} [{d.address}]" for d in diags)


@pytest.mark.trio
async def test_well_behaved_provider_passes_every_check(tmp_path: Path) -> None:
    result = await _apply(_write(tmp_path), misbehaving())
    assert result.ok, _messages(result.diagnostics)


@pytest.mark.trio
async def test_planned_value_differing_from_configuration_is_an_invalid_plan(tmp_path: Path) -> None:
    with pytest.raises(DiagnosticsError) as exc:
        await make_plan(_write(tmp_path), lambda e: None, providers=Providers({"bad": misbehaving(change_config=True)}))
    text = str(exc.value)
    assert "Provider produced invalid plan" in text
    assert 'Provider "bad"' in text and "bad_thing.x.name" in text, text


@pytest.mark.trio
async def test_planned_value_for_non_computed_null_attribute_is_an_invalid_plan(tmp_path: Path) -> None:
    with pytest.raises(DiagnosticsError) as exc:
        await make_plan(_write(tmp_path), lambda e: None,
                        providers=Providers({"bad": misbehaving(set_non_computed=True)}))
    assert "bad_thing.x.note" in str(exc.value) and "non-computed" in str(exc.value)


@pytest.mark.trio
async def test_final_plan_changing_a_known_value_is_inconsistent(tmp_path: Path) -> None:
    result = await _apply(_write(tmp_path), misbehaving(drift_final_plan=True))
    text = _messages(result.diagnostics)
    assert "Provider produced inconsistent final plan" in text, text
    assert "bad_thing.x" in text and ".size" in text and 'provider "bad"' in text


@pytest.mark.trio
async def test_new_state_changing_a_planned_known_value_is_inconsistent(tmp_path: Path) -> None:
    result = await _apply(_write(tmp_path), misbehaving(change_known_value=True))
    text = _messages(result.diagnostics)
    assert "Provider produced inconsistent result after apply" in text, text
    assert ".size" in text and "bad_thing.x" in text


@pytest.mark.trio
async def test_new_state_with_unknown_values_is_rejected(tmp_path: Path) -> None:
    result = await _apply(_write(tmp_path), misbehaving(leave_unknown=True))
    assert "unknown" in _messages(result.diagnostics)


@pytest.mark.trio
async def test_new_state_changing_nested_block_count_is_rejected(tmp_path: Path) -> None:
    result = await _apply(_write(tmp_path), misbehaving(drop_block=True))
    assert "nested blocks" in _messages(result.diagnostics)


@pytest.mark.trio
async def test_refreshed_prior_state_with_unknowns_is_rejected(tmp_path: Path) -> None:
    opts = _write(tmp_path)
    assert (await _apply(opts, misbehaving())).ok
    with pytest.raises(DiagnosticsError) as exc:
        await make_plan(opts, lambda e: None, providers=Providers({"bad": misbehaving(unknown_on_read=True)}))
    assert "unknown" in str(exc.value) and "bad_thing.x" in str(exc.value)


@pytest.mark.trio
async def test_upgraded_state_with_unknowns_is_rejected(tmp_path: Path) -> None:
    opts = _write(tmp_path)
    assert (await _apply(opts, misbehaving())).ok
    with pytest.raises(DiagnosticsError) as exc:
        await make_plan(opts, lambda e: None,
                        providers=Providers({"bad": misbehaving(version=1, unknown_on_upgrade=True)}))
    assert "upgraded state" in str(exc.value) and "bad_thing.x" in str(exc.value)


@pytest.mark.trio
async def test_state_written_by_an_older_schema_is_upgraded(tmp_path: Path) -> None:
    opts = _write(tmp_path)
    assert (await _apply(opts, misbehaving())).ok
    provider = misbehaving(version=1)
    result = await _apply(opts, provider)
    assert result.ok, _messages(result.diagnostics)
    assert '"schema_version": 1' in (tmp_path / "terraform.tfstate").read_text()


@pytest.mark.trio
async def test_create_that_returns_no_object_is_an_error_not_a_crash(tmp_path: Path) -> None:
    result = await _apply(_write(tmp_path), misbehaving(apply_resource_change=ApplyResourceChangeResponse(None)))
    assert not result.ok
    assert "Provider returned no object" in _messages(result.diagnostics)


@pytest.mark.trio
async def test_provider_exception_fails_only_that_resource(tmp_path: Path) -> None:
    result = await _apply(_write(tmp_path), misbehaving(apply_resource_change=RuntimeError("boom")))
    assert not result.ok and "boom" in _messages(result.diagnostics)


# the pure checks, inside partly unknown values: each known part must be kept

from engine.provider.contracts import check_final_plan, check_new_state  # noqa: E402
from engine.values import ListVal, MapVal, SetVal  # noqa: E402


@pytest.mark.parametrize(("planned", "got", "problem"), [
    ({"o": {"a": "x", "b": UNKNOWN}}, {"o": {"a": "CHANGED", "b": 1}}, ".o.a: was 'x', but now 'CHANGED'"),
    ({"m": MapVal({"a": "1", "b": UNKNOWN})}, {"m": MapVal({"a": "2", "b": "3"})}, '.m["a"]: was \'1\', but now \'2\''),
    ({"l": ListVal(["x", UNKNOWN])}, {"l": ListVal(["y", "z"])}, ".l[0]: was 'x', but now 'y'"),
    ({"l": ListVal(["x", UNKNOWN])}, {"l": ListVal(["x", "z", "w"])},
     ".l: was tolist(['x', (known after apply)]), but now tolist(['x', 'z', 'w'])"),
    ({"o": {"a": "x", "b": UNKNOWN}}, {"o": {"a": "x", "b": 1}}, None),
    ({"s": SetVal(["x", UNKNOWN])}, {"s": SetVal(["w", "x"])}, None),  # a set's elements reorder
])
def test_a_known_part_of_a_partly_unknown_value_must_be_kept(planned: dict[str, Any], got: dict[str, Any],
                                                            problem: str | None) -> None:
    assert check_final_plan(planned, got) == problem
    assert check_new_state(planned, got) == problem


# nested blocks: the planned-state contract and the proposed new state look inside them

from engine.provider.contracts import check_planned_state  # noqa: E402
from engine.provider.protocol import proposed_new_state  # noqa: E402

_BLOCK_ATTRS = {"a": AttributeSchema("string", optional=True), "c": AttributeSchema("string", computed=True)}


def _nested(nesting: str) -> ResourceSchema:
    return ResourceSchema({"id": AttributeSchema("string", computed=True)},
                          blocks={"blk": BlockSchema(nesting, dict(_BLOCK_ATTRS))})


@pytest.mark.parametrize(("nesting", "config", "planned", "problem"), [
    ("single", {"a": "x", "c": None}, {"a": "CHANGED", "c": "k"},
     ".blk.a: planned value 'CHANGED' does not match config value 'x'"),
    ("list", ListVal([{"a": "x", "c": None}]), ListVal([{"a": "CHANGED", "c": "k"}]),
     ".blk[0].a: planned value 'CHANGED' does not match config value 'x'"),
    ("map", MapVal({"k": {"a": "x", "c": None}}), MapVal({"k": {"a": "CHANGED", "c": "k"}}),
     '.blk["k"].a: planned value \'CHANGED\' does not match config value \'x\''),
    ("list", ListVal([{"a": "x", "c": None}]), ListVal([]), ".blk: planned tolist([]) for 1 block(s) in configuration"),
    ("single", {"a": "x", "c": None}, {"a": "x", "c": "computed by the provider"}, None),
    ("set", SetVal([{"a": "x", "c": None}]), SetVal([{"a": "y", "c": None}]), None),  # no identity to pair by
])
def test_a_provider_must_keep_what_is_configured_inside_nested_blocks(nesting: str, config: Any, planned: Any,
                                                                    problem: str | None) -> None:
    got = check_planned_state(_nested(nesting), {"id": None, "blk": config}, None, {"id": UNKNOWN, "blk": planned})
    assert got == problem, got


@pytest.mark.parametrize(("nesting", "prior", "config", "proposed"), [
    ("single", {"a": "x", "c": "k1"}, {"a": "y", "c": None}, {"a": "y", "c": "k1"}),
    ("list", ListVal([{"a": "x", "c": "k1"}]), ListVal([{"a": "y", "c": None}, {"a": "z", "c": None}]),
     ListVal([{"a": "y", "c": "k1"}, {"a": "z", "c": None}])),
    ("map", MapVal({"m": {"a": "x", "c": "k1"}}), MapVal({"m": {"a": "y", "c": None}, "n": {"a": "z", "c": None}}),
     MapVal({"m": {"a": "y", "c": "k1"}, "n": {"a": "z", "c": None}})),
])
def test_the_proposed_new_state_keeps_prior_computed_values_inside_nested_blocks(
        nesting: str, prior: Any, config: Any, proposed: Any) -> None:
    got = proposed_new_state(_nested(nesting), {"id": "i", "blk": prior}, {"id": None, "blk": config})
    assert got == {"id": "i", "blk": proposed}, got
    assert type(got["blk"]) is type(proposed)

"""Plan modification in engine.framework (003_ab693e5a3300cf7d.txt): RequiresReplace,
RequiresReplaceIf, resource-level ModifyPlan, the composition helpers, and normalization."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from engine import (
    UNKNOWN,
    Attr,
    DataSource,
    DiagnosticsError,
    FrameworkProvider,
    ModifyPlanRequest,
    PlanResourceChangeRequest,
    Resource,
    all_of,
    error,
    requires_replace_if_set,
    sequence,
)
from engine.backend.operations import Options, apply_planned, make_plan
from engine.provider.registry import Providers


def bigger(old: Any, new: Any) -> bool:
    return new > old


class Disk(Resource):
    type_name = "fw_disk"
    attributes = {
        "id": Attr("string", computed=True, use_state_for_unknown=True),
        "name": Attr("string", required=True),
        "zone": Attr("string", optional=True, requires_replace=True),
        # shrinking needs a new disk, growing is in place
        "size": Attr("number", optional=True, default=10,
                     requires_replace_if=requires_replace_if_set(lambda old, new: new < old)),
        "label": Attr("string", optional=True),
        "etag": Attr("string", computed=True),
    }

    async def create(self, planned: dict[str, Any], ctx: Any) -> dict[str, Any]:
        return {**planned, "id": f"disk-{planned['name']}", "etag": "1"}

    async def update(self, prior: dict[str, Any], planned: dict[str, Any], ctx: Any) -> dict[str, Any]:
        return {**planned, "etag": str(int(prior["etag"]) + 1)}

    async def modify_plan(self, req: ModifyPlanRequest) -> None:
        # normalization: labels are case-insensitive remotely, so an equivalent label keeps the prior value
        if req.state is not None and req.plan is not None:
            old, new = req.state.get("label"), req.plan.get("label")
            if isinstance(old, str) and isinstance(new, str) and old.lower() == new.lower():
                req.plan["label"] = old
        # a name starting with "tmp-" always needs a fresh disk
        if req.state is not None and req.plan is not None and str(req.plan.get("name", "")).startswith("tmp-") \
                and req.plan.get("name") != req.state.get("name"):
            req.requires_replace.append("name")


class FW(FrameworkProvider):
    source = "example.com/test/fw"
    resources = (Disk,)


async def _apply(tmp_path: Path, body: str) -> Any:
    (tmp_path / "main.tf").write_text(textwrap.dedent(f'resource "fw_disk" "d" {{\n{body}\n}}\n'))
    opts = Options(chdir=str(tmp_path), fsync=False)
    planned = await make_plan(opts, lambda e: None, providers=Providers({"fw": FW()}))
    result = await apply_planned(planned, opts, lambda e: None)
    assert result.ok, result.diagnostics
    return planned.plan.changes[0]


@pytest.mark.trio
async def test_default_fills_an_unset_optional_attribute(tmp_path: Path) -> None:
    c = await _apply(tmp_path, 'name = "a"')
    assert c.action == "create" and c.after["size"] == 10 and c.after["etag"] is UNKNOWN


@pytest.mark.trio
async def test_requires_replace_attribute_forces_replacement(tmp_path: Path) -> None:
    await _apply(tmp_path, 'name = "a"\nzone = "z1"')
    c = await _apply(tmp_path, 'name = "a"\nzone = "z2"')
    assert c.action == "delete-create" and c.requires_replace == (("zone",),) and c.reason == "cannot_update"


@pytest.mark.trio
async def test_requires_replace_if_decides_by_old_and_new(tmp_path: Path) -> None:
    await _apply(tmp_path, 'name = "a"\nsize = 20')
    grow = await _apply(tmp_path, 'name = "a"\nsize = 30')
    assert grow.action == "update", "growing is an in-place update"
    shrink = await _apply(tmp_path, 'name = "a"\nsize = 5')
    assert shrink.action == "delete-create" and shrink.requires_replace == (("size",),)


@pytest.mark.trio
async def test_use_state_for_unknown_keeps_the_id_on_update(tmp_path: Path) -> None:
    await _apply(tmp_path, 'name = "a"')
    c = await _apply(tmp_path, 'name = "a"\nlabel = "x"')
    assert c.action == "update" and c.after["id"] == "disk-a" and c.after["etag"] is UNKNOWN


@pytest.mark.trio
async def test_normalization_in_modify_plan_makes_an_equivalent_change_a_noop(tmp_path: Path) -> None:
    await _apply(tmp_path, 'name = "a"\nlabel = "Prod"')
    c = await _apply(tmp_path, 'name = "a"\nlabel = "PROD"')
    assert c.action == "no-op", f"an equivalent label should be normalized to the prior value, got {c.action}"


@pytest.mark.trio
async def test_modify_plan_can_add_requires_replace_paths(tmp_path: Path) -> None:
    await _apply(tmp_path, 'name = "a"')
    renamed = await _apply(tmp_path, 'name = "b"')
    assert renamed.action == "update"
    tmp = await _apply(tmp_path, 'name = "tmp-b"')
    assert tmp.action == "delete-create" and ("name",) in tmp.requires_replace


@pytest.mark.trio
async def test_unknown_planned_value_for_requires_replace_attribute_forces_replacement() -> None:
    p = FW()
    prior = {"id": "disk-a", "name": "a", "zone": "z1", "size": 10, "label": None, "etag": "1"}
    config = {"id": None, "name": "a", "zone": UNKNOWN, "size": None, "label": None, "etag": None}
    resp = await p.plan_resource_change(PlanResourceChangeRequest("fw_disk", prior, {**config, "id": "disk-a",
                                                                                    "etag": "1"}, config))
    assert "zone" in resp.requires_replace


def test_requires_replace_if_set_ignores_null_and_unknown() -> None:
    f = requires_replace_if_set(bigger)
    assert f(1, 2) is True
    assert f(None, 2) is False and f(1, None) is False
    assert f(UNKNOWN, 2) is False and f(1, UNKNOWN) is False


def test_all_of_calls_every_function_and_needs_all_true() -> None:
    calls: list[str] = []

    def yes(name: str) -> Any:
        return lambda o, n: calls.append(name) or True

    def no(name: str) -> Any:
        return lambda o, n: bool(calls.append(name)) and False

    assert all_of(yes("a"), yes("b"))(1, 2) is True
    calls.clear()
    assert all_of(no("a"), yes("b"))(1, 2) is False
    assert calls == ["a", "b"], "All runs every function"


def test_sequence_stops_at_the_first_false() -> None:
    calls: list[str] = []
    first = lambda o, n: bool(calls.append("first")) and False  # noqa: E731
    second = lambda o, n: bool(calls.append("second")) or True  # noqa: E731
    assert sequence(first, second)(1, 2) is False
    assert calls == ["first"], "Sequence stops at the first function that returns False"


class Lookup(DataSource):
    type_name = "fw_lookup"
    attributes = {"key": Attr("string", required=True), "value": Attr("string", computed=True)}

    async def validate(self, config: dict[str, Any]) -> list[Any]:
        if config.get("key") == "":
            return [error("Empty key", "key must not be empty")]
        return []

    async def read(self, config: dict[str, Any]) -> dict[str, Any]:
        return {**config, "value": config["key"].upper()}


class FWData(FrameworkProvider):
    source = "example.com/test/fwdata"
    data_sources = (Lookup,)


@pytest.mark.trio
async def test_data_source_config_is_validated_before_reading(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text('data "fw_lookup" "x" { key = "" }\n')
    with pytest.raises(DiagnosticsError) as exc:
        await make_plan(Options(chdir=str(tmp_path), fsync=False), lambda e: None,
                        providers=Providers({"fw": FWData()}))
    d = exc.value.diagnostics[0]
    assert d.summary == "Empty key" and d.address == "data.fw_lookup.x" and d.subject is not None


@pytest.mark.trio
async def test_data_source_is_read_while_planning(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text('data "fw_lookup" "x" { key = "abc" }\noutput "v" { value = data.fw_lookup.x.value }\n')
    planned = await make_plan(Options(chdir=str(tmp_path), fsync=False), lambda e: None,
                              providers=Providers({"fw": FWData()}))
    assert planned.plan.outputs["v"][0] == "ABC"

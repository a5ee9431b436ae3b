"""Provider configuration addresses and state dependencies are values in memory: the state v4
codec, the journal and the plan file decode them at the edge and encode them back, and no
``provider["…"]`` or dependency string reaches the state model or the plan."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import orjson
import pytest

from engine.addrs import ProviderConfigAddr, ResourceAddr
from engine.backend.operations import Options, apply_planned, make_plan
from engine.plans.plan import Plan, ResourceInstanceChange
from engine.plans.planfile import decode_plan, encode_plan
from engine.state import journal
from engine.state.codec import decode_state, encode_state
from engine.state.model import State

NULL = 'provider["registry.terraform.io/hashicorp/null"]'
TF = 'provider["terraform.io/builtin/terraform"]'


def _instance(key: Any = None, deps: list[str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {} if key is None else {"index_key": key}
    out.update(schema_version=0, attributes={"id": f"id-{key}"}, sensitive_attributes=[])
    if deps:
        out["dependencies"] = deps
    return out


STATE = {
    "version": 4, "terraform_version": "1.11.4", "serial": 3, "lineage": "l", "outputs": {},
    "resources": [
        {"mode": "managed", "type": "null_resource", "name": "a", "provider": NULL,
         "instances": [_instance()]},
        {"mode": "managed", "type": "null_resource", "name": "b", "provider": f"{NULL}.west",
         "instances": [_instance(0, ["null_resource.a"]), _instance(1, ["data.null_data_source.d", "null_resource.a"])]},
        {"module": 'module.m[0].module.n["k"]', "mode": "managed", "type": "null_resource", "name": "c",
         "provider": 'module.m.module.n.provider["registry.terraform.io/hashicorp/null"]',
         "instances": [_instance(None, ["module.m.module.n.null_resource.d", "null_resource.a"])]},
    ],
    "check_results": None,
}


def _assert_state_holds_values(state: State) -> None:
    for addr, _deposed, obj, prov in state.objects():
        assert type(prov) is ProviderConfigAddr, f"{addr}: provider {prov!r} is not a ProviderConfigAddr"
        for d in obj.dependencies:
            assert type(d) is ResourceAddr, f"{addr}: dependency {d!r} is not a ResourceAddr"
    for rs in state.resources.values():
        assert type(rs.provider) is ProviderConfigAddr, f"{rs.addr}: provider {rs.provider!r}"


def _assert_change_holds_values(c: ResourceInstanceChange) -> None:
    assert type(c.provider) is ProviderConfigAddr, f"{c.addr}: provider {c.provider!r} is not a ProviderConfigAddr"
    for d in (*c.state_dependencies, *c.prior_dependencies):
        assert type(d) is ResourceAddr, f"{c.addr}: dependency {d!r} is not a ResourceAddr"


def _assert_plan_holds_values(plan: Plan) -> None:
    for c in (*plan.changes, *plan.drift):
        _assert_change_holds_values(c)
    for addr, read in plan.data_reads.items():
        assert type(read.provider) is ProviderConfigAddr, f"{addr}: provider {read.provider!r}"
    for r in plan.refreshed:
        assert type(r.provider) is ProviderConfigAddr, f"{r.addr}: provider {r.provider!r}"
        if r.obj is not None:
            assert all(type(d) is ResourceAddr for d in r.obj.dependencies), r


def test_a_decoded_state_holds_provider_addresses_and_dependencies_as_values() -> None:
    state = decode_state(orjson.dumps(STATE), "terraform.tfstate", lambda t: {})
    _assert_state_holds_values(state)
    b1 = next(o for a, _d, o, _p in state.objects() if str(a) == "null_resource.b[1]")
    assert [str(d) for d in b1.dependencies] == ["data.null_data_source.d", "null_resource.a"]
    c = next(rs for rs in state.resources.values() if rs.addr.name == "c")
    assert c.provider.module.steps == (("m", None), ("n", None)) and c.provider.alias is None
    assert c.provider.source.type == "null"


def test_a_decoded_state_encodes_back_byte_for_byte() -> None:
    data = orjson.dumps(STATE, option=orjson.OPT_INDENT_2) + b"\n"
    assert encode_state(decode_state(data, "terraform.tfstate", lambda t: {}), lambda t: {}) == data


def test_a_legacy_provider_address_is_read_and_written_as_terraform_does() -> None:
    doc = {**STATE, "resources": [{**STATE["resources"][0], "provider": "provider.null"}]}  # type: ignore[dict-item]
    state = decode_state(orjson.dumps(doc), "terraform.tfstate", lambda t: {})
    _assert_state_holds_values(state)
    written = orjson.loads(encode_state(state, lambda t: {}))
    assert written["resources"][0]["provider"] == 'provider["registry.terraform.io/-/null"]'


def test_a_state_with_an_invalid_provider_address_is_refused_with_a_diagnostic() -> None:
    from engine.state.codec import StateDecodeError

    doc = {**STATE, "resources": [{**STATE["resources"][0], "provider": "null"}]}  # type: ignore[dict-item]
    with pytest.raises(StateDecodeError) as exc:
        decode_state(orjson.dumps(doc), "terraform.tfstate", lambda t: {})
    assert exc.value.problems[0][0] == "Invalid provider configuration address in state"
    assert 'null_resource.a has invalid provider configuration address "null"' in exc.value.problems[0][1]


def test_a_state_with_an_invalid_dependency_is_refused_with_a_diagnostic() -> None:
    from engine.state.codec import StateDecodeError

    doc = {**STATE, "resources": [{**STATE["resources"][0], "instances": [_instance(None, ["null_resource"])]}]}  # type: ignore[dict-item]
    with pytest.raises(StateDecodeError) as exc:
        decode_state(orjson.dumps(doc), "terraform.tfstate", lambda t: {})
    assert exc.value.problems[0][0] == "Invalid resource instance metadata in state"
    assert "null_resource.a has an invalid dependency" in exc.value.problems[0][1]


def test_journal_records_hold_provider_addresses_as_values() -> None:
    state = decode_state(orjson.dumps(STATE), "terraform.tfstate", lambda t: {})
    lines = [journal.header("l")]
    for addr, deposed, obj, prov in state.objects():
        lines.append(journal.record(addr, prov, {"schema_version": 0, "attributes": obj.attributes,
                                                 "dependencies": [str(d) for d in obj.dependencies]}, deposed))
    replay = journal.read(b"".join(lines), "j", lambda t: {})
    assert len(replay.entries) == 4
    for e in replay.entries:
        assert type(e.provider) is ProviderConfigAddr and e.obj is not None
        assert all(type(d) is ResourceAddr for d in e.obj.dependencies)
    assert [str(e.provider) for e in replay.entries] == [str(p) for _a, _d, _o, p in state.objects()]


@pytest.mark.trio
async def test_a_plan_and_its_saved_form_hold_provider_addresses_and_dependencies_as_values(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(textwrap.dedent("""
        resource "terraform_data" "a" {
          input = "a"
        }
        resource "terraform_data" "b" {
          input = terraform_data.a.id
        }
        module "m" {
          source = "./m"
        }
        """))
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "main.tf").write_text('resource "terraform_data" "c" {\n  input = "c"\n}\n')
    opts = Options(chdir=str(tmp_path), fsync=False)
    first = await make_plan(opts, lambda e: None)
    _assert_plan_holds_values(first.plan)
    assert (await apply_planned(first, opts, lambda e: None)).ok
    (tmp_path / "main.tf").write_text((tmp_path / "main.tf").read_text().replace('input = "a"', 'input = "a2"'))
    planned = await make_plan(opts, lambda e: None)
    try:
        plan = planned.plan
        _assert_plan_holds_values(plan)
        _assert_state_holds_values(planned.state)
        b = next(c for c in plan.changes if str(c.addr) == "terraform_data.b")
        assert b.prior_dependencies == b.state_dependencies and [str(d) for d in b.prior_dependencies] == [
            "terraform_data.a"]
        assert str(b.provider) == TF
        back = decode_plan(orjson.loads(orjson.dumps(encode_plan(plan))))
        _assert_plan_holds_values(back)
        assert back == plan
    finally:
        planned.store.unlock()


def test_a_plan_is_immutable_once_built() -> None:
    import dataclasses

    from engine.plans.plan import PlanBuilder

    builder = PlanBuilder(variables={"v": 1})
    builder.outputs["o"] = ("x", False)
    plan = builder.build()
    builder.outputs["later"] = ("y", False)  # the builder goes on; the plan it gave does not change
    assert dict(plan.outputs) == {"o": ("x", False)}
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.destroy = True  # type: ignore[misc]
    with pytest.raises(TypeError):
        plan.outputs["o"] = ("z", False)  # type: ignore[index]
    with pytest.raises(TypeError):
        plan.variables["v"] = 2  # type: ignore[index]
    listed = Plan(changes=[], forget=[], kept_outputs={"k"}, outputs={})  # type: ignore[arg-type]
    assert type(listed.changes) is tuple and type(listed.kept_outputs) is frozenset
    assert listed == Plan(kept_outputs=frozenset({"k"}))


def test_a_provider_address_from_the_state_finds_its_configuration_by_source() -> None:
    from engine.addrs import ProviderSource, parse_provider_config_addr
    from engine.provider.registry import Providers

    cloud = ProviderSource("example.com", "acme", "cloud")
    providers = Providers(local_sources={"mycloud": cloud})
    # required_providers names it "mycloud": its type "cloud" would be hashicorp/cloud
    assert providers.key_for(parse_provider_config_addr('provider["example.com/acme/cloud"].west')) == "mycloud.west"
    assert providers.key_for(parse_provider_config_addr('provider["example.com/acme/cloud"]')) == "mycloud"
    assert providers.key_for(parse_provider_config_addr(NULL)) == "null"


def test_a_provider_that_does_not_state_its_source_is_recorded_with_the_source_its_name_implies() -> None:
    from engine.provider.protocol import BaseProvider
    from engine.provider.registry import Providers

    class Quiet(BaseProvider):  # source "": says nothing
        pass

    providers = Providers({"thing": Quiet(), "thing.b": Quiet()})
    assert str(providers.config_address("thing")) == 'provider["registry.terraform.io/hashicorp/thing"]'
    assert str(providers.config_address("thing.b")) == 'provider["registry.terraform.io/hashicorp/thing"].b'

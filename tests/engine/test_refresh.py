"""engine/refresh.py: before planning, objects from an older schema are upgraded and every
managed object is read again; gone objects leave the state, drifted ones are updated, and each
problem is a diagnostic naming the address."""

from __future__ import annotations

from typing import Any

import pytest

from engine.addrs import InstanceAddr, ResourceAddr, parse_provider_config_addr
from engine.config.model import Module
from engine.diagnostics import Diagnostic
from engine.events import stream as ev
from engine.planning.refresh import Refresher
from engine.provider.mock import MockProvider
from engine.provider.protocol import (
    AttributeSchema,
    ProviderSchema,
    ReadResourceRequest,
    ReadResourceResponse,
    ResourceSchema,
    UpgradeResourceStateResponse,
)
from engine.provider.registry import Providers
from engine.state.model import ObjectState, State
from engine.values import UNKNOWN

PROV = parse_provider_config_addr('provider["example.com/test/cloud"]')


def cloud_of(live: dict[str, dict[str, Any] | None], version: int = 0, **answers: Any) -> MockProvider:
    """A cloud whose objects, by id, are ``live`` (None: gone); an upgrade sets ``size`` to 0."""
    return MockProvider(
        ProviderSchema({"cloud_thing": ResourceSchema(
            {"id": AttributeSchema("string", computed=True), "size": AttributeSchema("number", optional=True)},
            version)}),
        source="example.com/test/cloud",
        **{"read_resource": lambda req: ReadResourceResponse(live[req.current_state["id"]]),
           "upgrade_resource_state": lambda req: UpgradeResourceStateResponse({**req.raw_state, "size": 0}),
           **answers})


def reads(cloud: MockProvider) -> int:
    return len(cloud.requests("read_resource"))


def addr(name: str) -> InstanceAddr:
    return InstanceAddr(ResourceAddr("cloud_thing", name), None)


def state_of(**objs: dict[str, Any]) -> State:
    s = State()
    for name, attrs in objs.items():
        s.set_object(addr(name), PROV, ObjectState(attrs))
    return s


async def refresh(state: State, cloud: MockProvider, refresh: bool = True) -> tuple[list[Diagnostic], list[ev.Event]]:
    diags: list[Diagnostic] = []
    events: list[ev.Event] = []
    await Refresher(Module("."), state, Providers({"cloud": cloud}), diags, events.append, refresh, 2).run()
    return diags, events


@pytest.mark.trio
async def test_gone_objects_leave_and_drifted_ones_are_updated() -> None:
    state = state_of(same={"id": "1", "size": 1}, drifted={"id": "2", "size": 1}, gone={"id": "3", "size": 1})
    cloud = cloud_of({"1": {"id": "1", "size": 1}, "2": {"id": "2", "size": 5}, "3": None})
    diags, events = await refresh(state, cloud)
    assert diags == []
    assert state.object(addr("gone")) is None
    assert state.object(addr("drifted")).attributes["size"] == 5  # type: ignore[union-attr]
    assert [e.type for e in events].count("refresh_complete") == 3


@pytest.mark.trio
async def test_what_changed_outside_is_kept_as_drift_and_rendered_as_terraform_does() -> None:
    from engine.plans.plan import Action, Plan, ResourceInstanceChange
    from engine.render.text import render_drift

    state = state_of(same={"id": "1", "size": 1}, drifted={"id": "2", "size": 1}, gone={"id": "3", "size": 1})
    r = Refresher(Module("."), state, Providers({"cloud": cloud_of({"1": {"id": "1", "size": 1},
                                                                 "2": {"id": "2", "size": 5}, "3": None})}),
                  [], lambda e: None, True, 2)
    await r.run()
    got = {str(a): (before.attributes, after.attributes if after else None) for a, _p, before, after in r.drift}
    assert got == {"cloud_thing.drifted": ({"id": "2", "size": 1}, {"id": "2", "size": 5}),
                   "cloud_thing.gone": ({"id": "3", "size": 1}, None)}
    plan = Plan(refresh_only=True, drift=[
        ResourceInstanceChange(addr("drifted"), Action.UPDATE, PROV, {"id": "2", "size": 1}, {"id": "2", "size": 5})])
    assert ('  # cloud_thing.drifted has changed\n  ~ resource "cloud_thing" "drifted" {\n'
            '        id   = "2"\n      ~ size = 1 -> 5\n    }') in render_drift(plan)


@pytest.mark.trio
async def test_refresh_false_reads_nothing_but_still_upgrades() -> None:
    state = state_of(old={"id": "1"})
    cloud = cloud_of({"1": None}, version=1)
    diags, _ = await refresh(state, cloud, refresh=False)
    assert diags == [] and reads(cloud) == 0
    obj = state.object(addr("old"))
    assert obj is not None and obj.schema_version == 1 and obj.attributes["size"] == 0


@pytest.mark.trio
async def test_unknowns_from_a_read_are_a_diagnostic_naming_the_address() -> None:
    state = state_of(x={"id": "1"})
    diags, _ = await refresh(state, cloud_of({"1": {"id": "1", "size": UNKNOWN}}))
    assert [d.address for d in diags] == ["cloud_thing.x"] and "unknown" in diags[0].detail


class Slow:
    """Reads that take a moment, counting how many are in flight at once."""

    def __init__(self, live: dict[str, dict[str, Any] | None]) -> None:
        self.live = live
        self.in_flight = self.most = 0
        self.order: list[str] = []

    async def read(self, req: ReadResourceRequest) -> ReadResourceResponse:
        import trio

        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        self.order.append(req.current_state["id"])
        await trio.sleep(0.01)
        self.in_flight -= 1
        return ReadResourceResponse(self.live[req.current_state["id"]])


@pytest.mark.trio
@pytest.mark.parametrize("parallelism", [1, 3, 50])
async def test_reads_run_parallelism_at_a_time_in_state_order(parallelism: int) -> None:
    objs = {f"t{i:02d}": {"id": str(i), "size": i} for i in range(20)}
    state = state_of(**objs)
    slow = Slow({str(i): {"id": str(i), "size": i} for i in range(20)})
    cloud = cloud_of(slow.live, read_resource=slow.read)
    diags: list[Diagnostic] = []
    await Refresher(Module("."), state, Providers({"cloud": cloud}), diags, lambda e: None, True,
                    parallelism).run()
    assert diags == [] and reads(cloud) == 20
    assert slow.most == min(parallelism, 20)  # the bound holds, and is used
    assert slow.order == [str(i) for i in range(20)]  # started in the state's order

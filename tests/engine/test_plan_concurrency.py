"""The plan walk overlaps the provider calls of a counted resource's instances (up to
``-parallelism``, and within ``-provider-parallelism``), as terraform's does, and the plan it
makes is the one made one instance after the other: changes and diagnostics in instance order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from engine.config.module import load_module
from engine.diagnostics import Diagnostic
from engine.graph.limits import Limits
from engine.planning.planner import Planner
from engine.provider.mock import MockProvider
from engine.provider.protocol import (
    AttributeSchema,
    PlanResourceChangeRequest,
    PlanResourceChangeResponse,
)
from engine.provider.registry import Providers
from engine.state.model import State

pytestmark = pytest.mark.trio

THING = {"id": AttributeSchema("string", computed=True), "name": AttributeSchema("string", required=True)}
CONFIG = 'resource "mock_thing" "x" {\n  count = 8\n  name  = "n${count.index}"\n}\n'


class _Overlap:
    """A plan answer that holds each call until ``wanted`` calls are in flight at once (so a walk
    that makes them one after the other never gets past the first), and records the most seen."""

    def __init__(self, mock: MockProvider, wanted: int) -> None:
        self.mock, self.wanted = mock, wanted
        self.in_flight = self.most = 0
        self.together = anyio.Event()

    async def __call__(self, req: PlanResourceChangeRequest) -> PlanResourceChangeResponse:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        if self.in_flight >= self.wanted:
            self.together.set()
        with anyio.fail_after(10):
            await self.together.wait()
        await anyio.sleep(0)  # let every other call in flight be seen before this one ends
        self.in_flight -= 1
        resp: PlanResourceChangeResponse = self.mock.default_plan_resource_change(req)
        name = req.config["name"] if req.config else "?"
        return PlanResourceChangeResponse(resp.planned_state, diagnostics=(
            Diagnostic("warning", f"planned {name}", ""),))


async def _plan(tmp_path: Path, wanted: int, **kw: Any) -> tuple[Planner, _Overlap]:
    (tmp_path / "main.tf").write_text(CONFIG)
    mock = MockProvider({"mock_thing": THING})
    overlap = _Overlap(mock, wanted)
    mock.answers["plan_resource_change"] = overlap
    planner = Planner(load_module(str(tmp_path)), State(), Providers({"mock": mock}), {}, lambda e: None, **kw)
    await planner.run()
    return planner, overlap


async def test_instances_are_planned_with_calls_in_flight_together_and_recorded_in_order(tmp_path: Path) -> None:
    planner, overlap = await _plan(tmp_path, 4, parallelism=4)
    assert overlap.most == 4
    assert [str(c.addr) for c in planner.plan.changes] == [f"mock_thing.x[{i}]" for i in range(8)]
    assert [d.summary for d in planner.diags] == [f"planned n{i}" for i in range(8)]


async def test_provider_parallelism_holds_in_the_plan_walk(tmp_path: Path) -> None:
    _planner, overlap = await _plan(tmp_path, 2, parallelism=10, limits=Limits(provider_parallelism={"mock": 2}))
    assert overlap.most == 2

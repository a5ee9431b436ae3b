"""What a plugin call costs strata beyond the plugin's own work, on the real null plugin.

    python -m benchmarks.plugin_call_overhead [N]

For each way of waiting for a gRPC call from an event loop it times N sequential
PlanResourceChange calls (an update plan of one ``null_resource``) and N plan + apply round
trips (a create), and prints µs per call. "sync" is grpcio's blocking call in a plain loop: the
plugin and grpcio alone, the floor. "future" is the client as it is (a grpcio future whose
callback wakes the task); "to_thread" is the blocking call in anyio's worker threads.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import anyio

from engine.plugin import msgpack_values as mv
from engine.plugin.client import PluginProvider
from engine.provider.protocol import ApplyResourceChangeRequest, PlanResourceChangeRequest
from engine.values import MapVal
from tests.plugins.fetch import fetch

SOURCE = "registry.terraform.io/hashicorp/null"
PRIOR = {"id": "5", "triggers": MapVal({"v": "1"})}
CONFIG = {"id": None, "triggers": MapVal({"v": "1"})}


def _sync(p: PluginProvider, n: int) -> float:
    rpc = p._rpcs["PlanResourceChange"]
    ty = p.plugin_schema().resource_types["null_resource"]
    dv = p._pb.DynamicValue
    t = time.perf_counter()
    for _ in range(n):
        rpc.method(rpc.request(type_name="null_resource", prior_state=dv(msgpack=mv.encode(PRIOR, ty)),
                               proposed_new_state=dv(msgpack=mv.encode(PRIOR, ty)),
                               config=dv(msgpack=mv.encode(CONFIG, ty))))
    return (time.perf_counter() - t) / n * 1e6


async def _plans(p: PluginProvider, n: int) -> float:
    t = time.perf_counter()
    for _ in range(n):
        await p.plan_resource_change(PlanResourceChangeRequest("null_resource", PRIOR, PRIOR, CONFIG))
    return (time.perf_counter() - t) / n * 1e6


async def _round_trips(p: PluginProvider, n: int) -> float:
    t = time.perf_counter()
    for _ in range(n):
        r = await p.plan_resource_change(PlanResourceChangeRequest("null_resource", None, CONFIG, CONFIG))
        await p.apply_resource_change(ApplyResourceChangeRequest(
            "null_resource", None, r.planned_state, CONFIG, planned_private=r.planned_private))
    return (time.perf_counter() - t) / n * 1e6


def _threaded(p: PluginProvider) -> Any:
    """The same client, each call's wait done in a worker thread instead."""
    async def call(call: str, req: Any) -> Any:
        return await anyio.to_thread.run_sync(p._rpcs[call].method, req)
    p._call = call  # type: ignore[method-assign]
    return p


def main(n: int = 2000) -> None:
    exe = fetch(aws=False).null
    if exe is None:
        sys.exit("terraform-provider-null could not be fetched")
    p = PluginProvider(exe, SOURCE)
    p.get_schema()
    _sync(p, 200)
    print(f"sync (floor)        plan {_sync(p, n):8.0f} µs")
    for backend in ("trio", "asyncio"):
        async def run(threaded: bool) -> tuple[float, float]:
            q = PluginProvider(exe, SOURCE)
            if threaded:
                _threaded(q)
            await q.configure({})
            await _plans(q, 200)
            out = (await _plans(q, n), await _round_trips(q, n // 2))
            q.close()
            return out
        for threaded in (False, True):
            plan, rt = anyio.run(run, threaded, backend=backend)
            how = "to_thread" if threaded else "future"
            print(f"{backend:7} {how:10}  plan {plan:8.0f} µs   plan+apply {rt:8.0f} µs")
    p.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)

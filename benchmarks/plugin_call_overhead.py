"""What a plugin call costs strata beyond the plugin's own work, on the real null plugin.

    python -m benchmarks.plugin_call_overhead [N]

For each way of waiting for a gRPC call from an event loop it times N sequential
PlanResourceChange calls (an update plan of one ``null_resource``) and N plan + apply round
trips (a create), and N plans made by 10 concurrent tasks, and prints µs per call: wall time, and the CPU time strata's own process
spent (every thread: the event loop, grpcio's, anyio's workers), which does not depend on
what else the machine is running. "sync" is grpcio's blocking call in a plain loop: the
plugin and grpcio alone, the floor. "future" is the client as it is (a grpcio future whose
callback wakes the task); "to_thread" is the blocking call in anyio's worker threads.

What it showed (2 shared cores): a future costs a thread start when no other non-blocking call
of the channel is in flight (grpcio then starts a "channel spin" thread for it), so sequential
calls pay ~0.2-0.3 ms of CPU each; with concurrent calls the thread is shared, and futures beat
worker threads in wall time and CPU on both trio and asyncio.

Each line also gives the plugin process's own CPU per call (``/proc/PID/stat``), which terraform
pays as well. ``aio`` is grpcio's asyncio API (asyncio only) on a second channel to the same
socket, for comparison: at 10 calls in flight it cost more CPU than futures (160 against 131 µs
per call at load 0.4), and sequential calls more still.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
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


def _plugin_cpu(p: PluginProvider) -> float:
    """CPU seconds the plugin process has used so far."""
    assert p.pid is not None
    fields = Path(f"/proc/{p.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _aio(p: PluginProvider, n: int, tasks: int) -> tuple[float, float]:
    """``n`` plans over grpcio's asyncio API by ``tasks`` concurrent tasks (asyncio only)."""
    import grpc.aio

    assert p.process is not None and p.process.handshake is not None
    rpc = p._rpcs["PlanResourceChange"]
    ty = p.plugin_schema().resource_types["null_resource"]
    dv = p._pb.DynamicValue
    req = rpc.request(type_name="null_resource", prior_state=dv(msgpack=mv.encode(PRIOR, ty)),
                      proposed_new_state=dv(msgpack=mv.encode(PRIOR, ty)), config=dv(msgpack=mv.encode(CONFIG, ty)))
    async with grpc.aio.insecure_channel(f"unix:{p.process.handshake.address}") as channel:
        method = channel.unary_unary(f"/tfplugin{p.protocol}.Provider/PlanResourceChange",
                                     request_serializer=rpc.request.SerializeToString,
                                     response_deserializer=rpc.message.Response.FromString)

        async def worker(k: int) -> None:
            for _ in range(k):
                await method(req)

        await worker(100)
        t, c = time.perf_counter(), time.process_time()
        async with anyio.create_task_group() as tg:
            for _ in range(tasks):
                tg.start_soon(worker, n // tasks)
        return (time.perf_counter() - t) / n * 1e6, (time.process_time() - c) / n * 1e6


def _sync(p: PluginProvider, n: int) -> tuple[float, float]:
    rpc = p._rpcs["PlanResourceChange"]
    ty = p.plugin_schema().resource_types["null_resource"]
    dv = p._pb.DynamicValue
    t, c = time.perf_counter(), time.process_time()
    for _ in range(n):
        rpc.method(rpc.request(type_name="null_resource", prior_state=dv(msgpack=mv.encode(PRIOR, ty)),
                               proposed_new_state=dv(msgpack=mv.encode(PRIOR, ty)),
                               config=dv(msgpack=mv.encode(CONFIG, ty))))
    return (time.perf_counter() - t) / n * 1e6, (time.process_time() - c) / n * 1e6


async def _plans(p: PluginProvider, n: int) -> tuple[float, float]:
    t, c = time.perf_counter(), time.process_time()
    for _ in range(n):
        await p.plan_resource_change(PlanResourceChangeRequest("null_resource", PRIOR, PRIOR, CONFIG))
    return (time.perf_counter() - t) / n * 1e6, (time.process_time() - c) / n * 1e6


async def _round_trips(p: PluginProvider, n: int) -> tuple[float, float]:
    t, c = time.perf_counter(), time.process_time()
    for _ in range(n):
        r = await p.plan_resource_change(PlanResourceChangeRequest("null_resource", None, CONFIG, CONFIG))
        await p.apply_resource_change(ApplyResourceChangeRequest(
            "null_resource", None, r.planned_state, CONFIG, planned_private=r.planned_private))
    return (time.perf_counter() - t) / n * 1e6, (time.process_time() - c) / n * 1e6


async def _concurrent(p: PluginProvider, n: int, tasks: int = 10) -> tuple[float, float]:
    """``n`` plans by ``tasks`` concurrent tasks (as a walker with parallelism 10 makes them)."""
    async def worker(k: int) -> None:
        for _ in range(k):
            await p.plan_resource_change(PlanResourceChangeRequest("null_resource", PRIOR, PRIOR, CONFIG))

    t, c = time.perf_counter(), time.process_time()
    async with anyio.create_task_group() as tg:
        for _ in range(tasks):
            tg.start_soon(worker, n // tasks)
    return (time.perf_counter() - t) / n * 1e6, (time.process_time() - c) / n * 1e6


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
    pc = _plugin_cpu(p)
    wall, cpu = _sync(p, n)
    print(f"{'sync (floor)':19} plan {wall:6.0f} µs wall {cpu:5.0f} µs cpu "
          f"{(_plugin_cpu(p) - pc) / n * 1e6:5.0f} µs plugin cpu")
    for tasks in (1, 10):
        pc = _plugin_cpu(p)
        wall, cpu = anyio.run(_aio, p, n, tasks, backend="asyncio")
        print(f"{'asyncio aio':19} plan by {tasks:2} task(s) {wall:6.0f} µs wall {cpu:5.0f} µs cpu "
              f"{(_plugin_cpu(p) - pc) / n * 1e6:5.0f} µs plugin cpu")
    for backend in ("trio", "asyncio"):
        async def run(threaded: bool) -> tuple[tuple[float, float], ...]:
            q = PluginProvider(exe, SOURCE)
            if threaded:
                _threaded(q)
            await q.configure({})
            await _plans(q, 200)
            out = (await _plans(q, n), await _round_trips(q, n // 2), await _concurrent(q, n))
            q.close()
            return out
        for threaded in (False, True):
            plan, rt, conc = anyio.run(run, threaded, backend=backend)
            how = "to_thread" if threaded else ("future" if backend == "trio" else "aio")
            print(f"{backend:7} {how:11} plan {plan[0]:6.0f} µs wall {plan[1]:5.0f} µs cpu   "
                  f"plan+apply {rt[0]:6.0f} µs wall {rt[1]:5.0f} µs cpu   "
                  f"10 concurrent plans {conc[0]:6.0f} µs wall {conc[1]:5.0f} µs cpu")
    p.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)

"""Before planning: bring every managed object in the state up to date.

Objects written by an older schema version are upgraded (UpgradeResourceState),
then, unless ``-refresh=false``, each provider is asked for the object's current
state (ReadResource), at most ``parallelism`` calls in flight. An object gone
from the cloud leaves the state; one changed outside is updated. Problems are
diagnostics naming the address, collected for the planner.

What it updates is the state in memory that the plan is made against; nothing here writes to
disk. Those objects reach the state file only through the apply's one writer (the journal and
its snapshot, ``engine.state.store``), and a plan never persists them, as terraform's does not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import anyio

from engine.addrs import InstanceAddr, ProviderConfigAddr
from engine.config.model import Module
from engine.diagnostics import Diagnostic, error, errors_of
from engine.events import stream as ev
from engine.graph.limits import Limits
from engine.provider.protocol import (
    FlatmapState,
    ReadResourceRequest,
    ReadResourceResponse,
    ResourceSchema,
    UpgradeResourceStateRequest,
)
from engine.provider.registry import Providers
from engine.provider.seam import Failure, ProviderSeam
from engine.state.codec import encode_attributes
from engine.state.model import ObjectState, State
from engine.values import is_wholly_known

_UPGRADE_FAILED = Failure("Failed to upgrade resource state")
_READ_FAILED = Failure("Provider error during refresh")


class Refresher:
    def __init__(self, module: Module, state: State, providers: Providers, diags: list[Diagnostic],
                 emit: Callable[[ev.Event], None], refresh: bool = True, parallelism: int = 10,
                 only: Callable[[InstanceAddr], bool] | None = None, limits: Limits | None = None) -> None:
        self.module = module
        # -provider-parallelism, -rate-limit and the rest hold for ReadResource as for apply: a
        # large refresh is what hits a cloud API's throttling first
        self.limits = limits or Limits()
        self.state = state
        self.providers = providers
        self.diags = diags
        self.emit = emit
        self.refresh = refresh
        self.parallelism = parallelism
        self.only = only  # -target: the objects that may be refreshed
        self.drift: list[tuple[InstanceAddr, ProviderConfigAddr, ObjectState, ObjectState | None]] = []
        """Objects changed (or deleted: None) outside strata: (address, provider, before, after)."""
        self.upgraded: list[tuple[InstanceAddr, ProviderConfigAddr, ObjectState, str | None]] = []
        """Objects whose stored form changed without drift, for the plan to carry to apply:
        upgraded to their schema's version, or given new private data by a read (address,
        provider, object, deposed key; a later entry for the same object supersedes)."""

    async def run(self) -> None:
        """Upgrade objects written by an older schema version, then ask providers for their
        current state (concurrently, at most ``parallelism`` calls in flight)."""
        work = []
        for addr, deposed, obj, prov in list(self.state.objects()):
            if addr.resource.mode != "managed" or (self.only is not None and not self.only(addr)):
                continue
            rc = self.module.resource_at(addr.resource)
            pname = rc.provider_key if rc is not None else self.providers.key_for(prov)
            if not self.providers.known(pname):
                self.diags.append(error("Provider not available",
                                        f'{addr} is in the state with provider {prov}, which is not installed.',
                                        address=str(addr)))
                continue
            schema = self.providers.schema(pname, addr.resource.type)
            if schema is None:
                self.diags.append(error("Invalid resource type in state",
                                        f'The provider {pname} no longer supports "{addr.resource.type}".',
                                        address=str(addr)))
                continue
            provider = self.providers.seam(pname)
            if obj.schema_version != schema.version or type(obj.attributes) is FlatmapState:
                upgraded = await self._upgrade(addr, deposed, obj, prov, provider, schema)
                if upgraded is None:
                    continue
                obj = upgraded
            if self.refresh and deposed is None:
                work.append((addr, obj, prov, pname, provider, schema))
        if not work:
            return
        # a pool of ``parallelism`` workers taking the objects in order, not a task per object
        # queued on a limiter: at 100k objects the tasks and their limiter waits cost more than
        # the reads (a fifth of a no-change plan's CPU)
        pending = iter(work)

        async def worker() -> None:
            for item in pending:  # one event loop: next() needs no lock
                await self._refresh_one(*item)

        async with anyio.create_task_group() as tg:
            for _ in range(min(max(1, self.parallelism), len(work))):
                tg.start_soon(worker)

    async def _upgrade(self, addr: InstanceAddr, deposed: str | None, obj: ObjectState, prov: ProviderConfigAddr,
                       provider: ProviderSeam, schema: ResourceSchema) -> ObjectState | None:
        if obj.schema_version > schema.version:
            self.diags.append(error("Resource instance managed by newer provider version",
                                    f"The current state of {addr} was created by a newer provider version "
                                    f"(schema version {obj.schema_version}) than is installed "
                                    f"(schema version {schema.version}).", address=str(addr)))
            return None
        raw = (obj.attributes if type(obj.attributes) is FlatmapState  # for the provider alone to read
               else encode_attributes(obj.attributes, schema.implied_types()))
        resp = await provider.upgrade_resource_state(
            UpgradeResourceStateRequest(addr.resource.type, obj.schema_version, raw), address=str(addr),
            failure=_UPGRADE_FAILED)
        if resp.diagnostics:
            self.diags.extend(resp.diagnostics)
            if errors_of(resp.diagnostics):
                return None
        new = resp.upgraded_state
        if new is None or not is_wholly_known(new):
            self.diags.append(error("Provider produced invalid upgraded state",
                                    f"The upgraded state of {addr} " + ("is null" if new is None else
                                                                         "contains unknown values")
                                    + "; upgraded state must be wholly known.", address=str(addr)))
            return None
        upgraded = ObjectState(new, obj.status, schema.version, obj.dependencies, obj.create_before_destroy,
                               obj.sensitive_attributes, obj.private if resp.private is None else resp.private)
        self.state.set_object(addr, prov, upgraded, deposed)
        self.upgraded.append((addr, prov, upgraded, deposed))
        return upgraded

    async def _read(self, addr: InstanceAddr, obj: ObjectState, pname: str, provider: ProviderSeam
                    ) -> ReadResourceResponse:
        """One ReadResource under the configured limits, retried with backoff while the provider
        marks its errors retryable (as an apply's calls are)."""
        limits = self.limits
        retries = limits.retries_for(pname)
        attempt = 0
        address = str(addr)
        while True:
            req = ReadResourceRequest(addr.resource.type, obj.attributes, obj.private)
            if limits.active():
                async with limits.slot(pname, addr.resource.type):
                    resp = await provider.read_resource(req, address=address, failure=_READ_FAILED)
            else:
                resp = await provider.read_resource(req, address=address, failure=_READ_FAILED)
            errs = errors_of(resp.diagnostics)
            if not errs or not all(d.retryable for d in errs) or attempt >= retries:
                return resp
            attempt += 1
            await anyio.sleep(limits.retry.delay(attempt))

    async def _refresh_one(self, addr: InstanceAddr, obj: ObjectState, prov: ProviderConfigAddr, pname: str, provider: ProviderSeam,
                           schema: ResourceSchema) -> None:
        id_key = schema.id_attribute
        id_value = obj.attributes.get(id_key)
        self.emit(ev.refresh_start(addr, id_key, id_value))
        resp = await self._read(addr, obj, pname, provider)
        if resp.diagnostics:
            self.diags.extend(resp.diagnostics)
            if errors_of(resp.diagnostics):
                return
        if resp.new_state is None:
            self.state.set_object(addr, prov, None)
            self.drift.append((addr, prov, obj, None))
        elif not is_wholly_known(resp.new_state):
            self.diags.append(error("Provider produced invalid object",
                                    f"Reading {addr} returned unknown values; prior state must be wholly "
                                    "known.", address=str(addr)))
            return
        elif resp.new_state != obj.attributes:
            new = ObjectState(resp.new_state, obj.status, obj.schema_version, obj.dependencies,
                              obj.create_before_destroy, obj.sensitive_attributes, resp.private)
            self.state.set_object(addr, prov, new)
            self.drift.append((addr, prov, obj, new))
        elif resp.private != obj.private:  # the provider's own notes changed: kept, not drift
            noted = replace(obj, private=resp.private)
            self.state.set_object(addr, prov, noted)
            self.upgraded.append((addr, prov, noted, None))  # so that a saved plan carries it too
        self.emit(ev.refresh_complete(addr, id_key, id_value))

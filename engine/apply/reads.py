"""A data source's read at apply (its configuration was not known while planning, or a check
block's scoped data source is read again): terraform's "Reading..." and "Read complete" events,
the object written to the state, and for a check block's data source warnings instead of errors."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from engine.addrs import InstanceAddr
from engine.config.check_results import FAIL, PASS
from engine.config.checks import as_check_warnings, check_object, read_failure
from engine.config.model import Module
from engine.diagnostics import Diagnostic, SourceRange, error, errors_of
from engine.events import stream as ev
from engine.graph.walker import Done
from engine.lang.sensitivity import state_marks
from engine.plans.plan import ResourceInstanceChange
from engine.provider.protocol import ReadDataSourceRequest, ResourceSchema
from engine.provider.seam import ProviderSeam
from engine.state.model import ObjectState
from engine.state.store import StateWriter
from engine.values import is_wholly_known


class Walk(Protocol):
    """What a read needs of the apply walk (:class:`engine.apply.executor.Applier`)."""

    module: Module | None
    check_data: dict[str, tuple[str, str]]
    check_warnings: list[Diagnostic]
    writer: StateWriter
    emit: Callable[[ev.Event], None]

    def _provider(self, c: ResourceInstanceChange) -> tuple[str, ProviderSeam, ResourceSchema | None]: ...

    async def _final_config(self, c: ResourceInstanceChange, schema: ResourceSchema | None
                            ) -> dict[str, Any] | None: ...

    def _fail(self, addr: InstanceAddr, summary: str, detail: str, subject: SourceRange | None = None,
              in_config: Diagnostic | None = None) -> None: ...


async def read_data_source(applier: Walk, c: ResourceInstanceChange, done: Done) -> None:
    """Read ``c``'s data source for ``applier``'s walk; ``done`` once the object is durable (or the
    read failed)."""
    addr = c.addr
    pname, provider, schema = applier._provider(c)
    config = c.config
    if config is None or not is_wholly_known(config):
        final = await applier._final_config(c, schema)
        if final is None:
            done(False)
            return
        config = final
    rc = applier.module.resource_at(addr.resource) if applier.module is not None else None
    scoped = rc if rc is not None and rc.check is not None else None  # its diagnostics placed in its block
    applier.emit(ev.apply_start(addr, "read"))
    started = time.monotonic()
    resp = await provider.read_data_source(ReadDataSourceRequest(addr.resource.type, config), address=str(addr),
                                           subject=scoped.range if scoped else None, body=scoped)
    diags, value = resp.diagnostics, resp.state
    errs = errors_of(diags)
    ended = ev.read_ended(addr, value, bool(errs), time.monotonic() - started,
                          schema.id_attribute if schema else "id")
    if rc is not None and rc.check is not None:  # scoped to a check block: warnings, never a failure
        failed = read_failure(errs) if errs else "" if value is not None else f"No object read for {addr}."
        applier.check_data[check_object(addr.resource.module, rc.check)] = (FAIL, failed) if failed else (PASS, "")
        applier.check_warnings.extend(as_check_warnings(diags, rc.context))
    elif ended.type == "apply_errored":
        applier.emit(ended)
    if errs or value is None:
        if rc is not None and rc.check is not None:
            done(True)
            return
        for d in errs or [error("Provider returned no object",
                                f'Provider "{pname}" returned nothing when reading {addr}.')]:
            applier._fail(addr, d.summary, d.detail)
        done(False)
        return
    def durable() -> None:
        applier.emit(ended)
        done(True)

    applier.writer.put(addr, c.provider, ObjectState(value, dependencies=c.state_dependencies,
                                                  sensitive_attributes=state_marks(value, c.sensitive)),
                    on_durable=durable)

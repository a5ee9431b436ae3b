"""The built-in ``terraform`` provider: the ``terraform_data`` managed resource.

Behaviour follows terraform's ``terraform_data``:

* ``id`` is computed: a random UUID set at create.
* ``input`` and ``output`` are dynamic; ``output`` mirrors ``input``. strata
  plans ``output`` as known whenever ``input`` is known (terraform leaves it
  unknown until apply), so dependents plan with real values.
* a change of ``triggers_replace`` requires replacement; a change of ``input``
  is an in-place update.
"""

from __future__ import annotations

import os
import uuid

from engine import (
    UNKNOWN,
    ApplyResourceChangeRequest,
    ApplyResourceChangeResponse,
    AttributeSchema,
    BaseProvider,
    PlanResourceChangeRequest,
    PlanResourceChangeResponse,
    ProviderSchema,
    ResourceSchema,
    equal,
    error,
)

DATA_SCHEMA = ResourceSchema(
    attributes={
        "id": AttributeSchema("string", computed=True),
        "input": AttributeSchema("dynamic", optional=True),
        "output": AttributeSchema("dynamic", computed=True),
        "triggers_replace": AttributeSchema("dynamic", optional=True),
    }
)


class _UUIDPool:
    """Random v4 UUIDs from one urandom read per 4096 (a syscall per id is the hot path at 100k)."""

    def __init__(self) -> None:
        self._buf = b""
        self._pos = 0

    def next(self) -> str:
        if self._pos >= len(self._buf):
            self._buf = os.urandom(16 * 4096)
            self._pos = 0
        raw = self._buf[self._pos:self._pos + 16]
        self._pos += 16
        return str(uuid.UUID(bytes=raw, version=4))


class TerraformProvider(BaseProvider):
    source = "terraform.io/builtin/terraform"

    def __init__(self) -> None:
        self._uuids = _UUIDPool()

    def get_schema(self) -> ProviderSchema:
        return ProviderSchema(resources={"terraform_data": DATA_SCHEMA})

    async def plan_resource_change(self, req: PlanResourceChangeRequest) -> PlanResourceChangeResponse:
        proposed = req.proposed_new_state
        if proposed is None:
            return PlanResourceChangeResponse(None)
        prior = req.prior_state
        planned = dict(proposed)
        inp = proposed.get("input")
        if prior is None:
            planned["id"] = UNKNOWN
            planned["output"] = inp
            return PlanResourceChangeResponse(planned)
        if not equal(prior.get("triggers_replace"), proposed.get("triggers_replace")):
            planned["id"] = UNKNOWN
            planned["output"] = inp
            return PlanResourceChangeResponse(planned, requires_replace=("triggers_replace",))
        if not equal(prior.get("input"), inp):
            planned["output"] = inp
        return PlanResourceChangeResponse(planned)

    async def apply_resource_change(self, req: ApplyResourceChangeRequest) -> ApplyResourceChangeResponse:
        planned = req.planned_state
        if planned is None:
            return ApplyResourceChangeResponse(None)
        new = dict(planned)
        if new.get("id") is UNKNOWN or new.get("id") is None:
            new["id"] = self._uuids.next()
        new["output"] = new.get("input")
        if new["output"] is UNKNOWN:
            return ApplyResourceChangeResponse(None, (error("input is unknown at apply time"),))
        return ApplyResourceChangeResponse(new)



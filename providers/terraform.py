"""The built-in ``terraform`` provider: the ``terraform_data`` managed resource, and the
``terraform_remote_state`` data source (:mod:`providers.terraform_remote_state`).

Behaviour follows terraform's ``terraform_data``:

* ``id`` is computed: a random UUID set at create.
* ``input`` and ``output`` are dynamic; ``output`` mirrors ``input``. As in
  terraform, a create, a replacement or a change of ``input`` plans ``output``
  as unknown ("known after apply"), or as null when ``input`` is null.
* a change of ``triggers_replace`` requires replacement; a change of ``input``
  is an in-place update.
"""

from __future__ import annotations

import os

from engine import (
    UNKNOWN,
    ApplyResourceChangeRequest,
    ApplyResourceChangeResponse,
    AttributeSchema,
    BaseProvider,
    ImportResourceStateRequest,
    ImportResourceStateResponse,
    MoveResourceStateRequest,
    MoveResourceStateResponse,
    PlanResourceChangeRequest,
    PlanResourceChangeResponse,
    ProviderSchema,
    ReadDataSourceRequest,
    ReadDataSourceResponse,
    ResourceSchema,
    ValidateResourceConfigRequest,
    ValidateResourceConfigResponse,
    equal,
    error,
)
from providers import terraform_remote_state as remote_state

DATA_SCHEMA = ResourceSchema(
    attributes={
        "id": AttributeSchema("string", computed=True),
        "input": AttributeSchema("dynamic", optional=True),
        "output": AttributeSchema("dynamic", computed=True),
        "triggers_replace": AttributeSchema("dynamic", optional=True),
    }
)


class _UUIDPool:
    """Random v4 UUIDs, 4096 from each urandom read, formatted in bulk (the hot path at 100k)."""

    def __init__(self) -> None:
        self._ids: list[str] = []

    def next(self) -> str:
        if not self._ids:
            self._ids = _uuid4_batch(4096)
        return self._ids.pop()


def _uuid4_batch(n: int) -> list[str]:
    """``n`` random version-4, RFC 4122-variant UUIDs, as ``str(uuid.uuid4())`` spells them."""
    h = os.urandom(16 * n).hex()
    variant = "89ab"
    return [f"{h[i:i + 8]}-{h[i + 8:i + 12]}-4{h[i + 13:i + 16]}-{variant[int(h[i + 16], 16) & 3]}"
            f"{h[i + 17:i + 20]}-{h[i + 20:i + 32]}" for i in range(0, 32 * n, 32)]


class TerraformProvider(BaseProvider):
    source = "terraform.io/builtin/terraform"

    def __init__(self) -> None:
        self._uuids = _UUIDPool()

    def get_schema(self) -> ProviderSchema:
        return ProviderSchema(resources={"terraform_data": DATA_SCHEMA},
                              data_sources={remote_state.TYPE_NAME: remote_state.SCHEMA})

    async def validate_data_resource_config(self, req: ValidateResourceConfigRequest
                                            ) -> ValidateResourceConfigResponse:
        return remote_state.validate(req)

    async def read_data_source(self, req: ReadDataSourceRequest) -> ReadDataSourceResponse:
        if req.type_name != remote_state.TYPE_NAME:
            return await super().read_data_source(req)
        return remote_state.read(req)

    async def plan_resource_change(self, req: PlanResourceChangeRequest) -> PlanResourceChangeResponse:
        proposed = req.proposed_new_state
        if proposed is None:
            return PlanResourceChangeResponse(None)
        prior = req.prior_state
        planned = dict(proposed)
        inp = proposed.get("input")
        # terraform's planDataStoreResourceChange: the output is learned at apply, except that a
        # null input has a null output
        if prior is None:
            planned["id"] = UNKNOWN
            planned["output"] = None if inp is None else UNKNOWN
            return PlanResourceChangeResponse(planned)
        if not equal(prior.get("triggers_replace"), proposed.get("triggers_replace")):
            planned["id"] = UNKNOWN
            planned["output"] = None if inp is None else UNKNOWN
            return PlanResourceChangeResponse(planned, requires_replace=("triggers_replace",))
        if not equal(prior.get("input"), inp):
            planned["output"] = UNKNOWN
        return PlanResourceChangeResponse(planned)

    async def import_resource_state(self, req: ImportResourceStateRequest) -> ImportResourceStateResponse:
        # terraform's importDataStore: the id, nothing else known of the object
        return ImportResourceStateResponse({"id": req.id, "input": None, "output": None, "triggers_replace": None})

    async def move_resource_state(self, req: MoveResourceStateRequest) -> MoveResourceStateResponse:
        # terraform's moveDataStoreResourceState: a null_resource becomes a terraform_data, its
        # triggers the object triggers_replace (nothing else is taken)
        if req.source_type_name != "null_resource" or req.target_type_name != "terraform_data":
            return MoveResourceStateResponse(None, (error(
                f"unsupported move: {req.source_type_name} -> {req.target_type_name}; only move from "
                "null_resource to terraform_data is supported"),))
        triggers = req.source_state.get("triggers")
        return MoveResourceStateResponse({"id": req.source_state.get("id"), "input": None, "output": None,
                                          "triggers_replace": dict(triggers) if triggers is not None else None})

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



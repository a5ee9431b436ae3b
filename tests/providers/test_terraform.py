"""providers/terraform.py: terraform_data's ids are random version-4 UUIDs, spelled as
``str(uuid.uuid4())`` spells them, and never repeat; its plans are terraform's."""

from __future__ import annotations

import uuid

import trio

from engine import UNKNOWN
from providers.terraform import TerraformProvider, _uuid4_batch, _UUIDPool


def test_batch_ids_are_rfc4122_version_4_uuids_in_canonical_form() -> None:
    ids = _uuid4_batch(5000)
    assert len(set(ids)) == 5000
    for s in ids:
        u = uuid.UUID(s)
        assert (u.version, u.variant, str(u)) == (4, uuid.RFC_4122, s)


def test_pool_refills_and_never_repeats() -> None:
    pool = _UUIDPool()
    ids = [pool.next() for _ in range(3 * 4096 + 7)]
    assert len(set(ids)) == len(ids)


# ----------------------------------------------------------------------------- planning, as terraform's
# planDataStoreResourceChange: output is "known after apply" whenever it may change, null for a null input

def _plan(prior: dict | None, proposed: dict) -> tuple[dict | None, tuple[str, ...]]:
    from engine import PlanResourceChangeRequest

    async def main() -> tuple[dict | None, tuple[str, ...]]:
        full = {"id": None if prior is None else prior["id"], "output": None, "triggers_replace": None,
                "input": None, **proposed}
        if prior is not None and "output" not in proposed:
            full["output"] = prior.get("output")
        resp = await TerraformProvider().plan_resource_change(
            PlanResourceChangeRequest("terraform_data", prior, full, proposed))
        return resp.planned_state, tuple(resp.requires_replace)

    return trio.run(main)


PRIOR = {"id": "i-1", "input": "a", "output": "a", "triggers_replace": None}


def test_a_create_plans_output_unknown_and_id_unknown() -> None:
    planned, _ = _plan(None, {"input": {"k": "v"}})
    assert planned is not None and planned["output"] is UNKNOWN and planned["id"] is UNKNOWN


def test_a_create_without_input_plans_a_null_output() -> None:
    planned, _ = _plan(None, {})
    assert planned is not None and planned["output"] is None


def test_a_changed_input_plans_output_unknown_in_place() -> None:
    planned, replace = _plan(PRIOR, {"input": "b"})
    assert planned is not None and planned["output"] is UNKNOWN and planned["id"] == "i-1"
    assert replace == ()


def test_a_removed_input_still_plans_output_unknown() -> None:
    planned, _ = _plan(PRIOR, {"input": None})
    assert planned is not None and planned["output"] is UNKNOWN


def test_a_changed_trigger_replaces_with_output_unknown() -> None:
    planned, replace = _plan(PRIOR, {"input": "a", "triggers_replace": ["x"]})
    assert planned is not None and planned["output"] is UNKNOWN and planned["id"] is UNKNOWN
    assert replace == ("triggers_replace",)


def test_nothing_changed_keeps_the_prior_output() -> None:
    planned, _ = _plan(PRIOR, {"input": "a"})
    assert planned == PRIOR

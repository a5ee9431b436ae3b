"""providers/terraform.py: terraform_data's ids are random version-4 UUIDs, spelled as
``str(uuid.uuid4())`` spells them, and never repeat."""

from __future__ import annotations

import uuid

from providers.terraform import _uuid4_batch, _UUIDPool


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

"""The "Order of operations" of the resource destruction notes, under high parallelism.

Specification: /work/shared/reference/004_a0c7c5032e246c72.txt. The scenarios are those of
tests/cli/test_order_of_operations.py, run through the engine API
(``make_plan`` / ``apply_planned``) with ``parallelism=50``. With many workers there is no
single total order to check, so each test asserts only what the notes require: for every
"X before Y" pair, X's ``apply_complete`` comes before Y's ``apply_start``.

The ``count = 20`` scenarios check the same rules per instance, with ``B[i]`` referring to
``A[i]``.
"""

from __future__ import annotations

import textwrap
from itertools import combinations
from pathlib import Path

import pytest

from engine.backend.operations import Options, apply_planned, make_plan
from engine.events.stream import Event

PARALLELISM = 50
COUNT = 20

A = "terraform_data.a"
B = "terraform_data.b"
C = "terraform_data.c"

Op = tuple[str, str]  # (address, action), action as in the hook: "create", "update", "delete"


# --------------------------------------------------------------------------- helpers

async def apply_config(path: Path, text: str, *, destroy: bool = False) -> list[Event]:
    """Write ``text`` as the configuration and apply it (or destroy); returns every event."""
    (path / "main.tf").write_text(textwrap.dedent(text))
    got: list[Event] = []
    opts = Options(chdir=str(path), parallelism=PARALLELISM)
    planned = await make_plan(opts, got.append, destroy=destroy)
    result = await apply_planned(planned, opts, got.append)
    problems = [f"{d.summary}: {d.detail}" for d in result.diagnostics]
    assert result.ok, f"{'destroy' if destroy else 'apply'} failed: {problems}"
    return got


def hook_op(e: Event) -> Op:
    h = e.payload["hook"]
    return (h["resource"]["addr"], h["action"])


def positions(events: list[Event], kind: str) -> dict[Op, int]:
    out: dict[Op, int] = {}
    for i, e in enumerate(events):
        if e.type == kind:
            op = hook_op(e)
            assert op not in out, f"{op} reported {kind} twice"
            out[op] = i
    return out


def chain(*ops: Op) -> list[tuple[Op, Op]]:
    """Every "X before Y" pair of an order-of-operations list."""
    return list(combinations(ops, 2))


def assert_ordered(events: list[Event], expected_ops: set[Op], before: list[tuple[Op, Op]],
                   scenario: str) -> None:
    starts = positions(events, "apply_start")
    completes = positions(events, "apply_complete")
    assert set(completes) == expected_ops, (
        f"{scenario}: the operations completed were {sorted(completes)}, expected {sorted(expected_ops)}")
    broken = [f"{y} started before {x} completed" for x, y in before if not completes[x] < starts[y]]
    assert not broken, f"{scenario}: ordering violated: " + "; ".join(broken)


def assert_chain(events: list[Event], ops: list[Op], scenario: str) -> None:
    assert_ordered(events, set(ops), chain(*ops), scenario)


def idx(addr: str, i: int) -> str:
    return f"{addr}[{i}]"


# --------------------------------------------------------------------------- the nine scenarios

CHAIN = """
resource "terraform_data" "a" {}
resource "terraform_data" "b" { input = terraform_data.a.id }
resource "terraform_data" "c" { input = terraform_data.b.id }
"""


@pytest.mark.trio
async def test_simple_create_runs_dependencies_first(tmp_path: Path) -> None:
    events = await apply_config(tmp_path, CHAIN)
    assert_chain(events, [(A, "create"), (B, "create"), (C, "create")], "simple create")


@pytest.mark.trio
async def test_updates_follow_the_new_dependency_they_refer_to(tmp_path: Path) -> None:
    # C refers to B's output, unknown at plan time because B's new input is A's unknown id
    await apply_config(tmp_path, """
        resource "terraform_data" "b" { input = "b0" }
        resource "terraform_data" "c" { input = terraform_data.b.output }
    """)
    events = await apply_config(tmp_path, """
        resource "terraform_data" "a" {}
        resource "terraform_data" "b" { input = terraform_data.a.id }
        resource "terraform_data" "c" { input = terraform_data.b.output }
    """)
    assert_chain(events, [(A, "create"), (B, "update"), (C, "update")], "resource updates")


@pytest.mark.trio
async def test_destroy_runs_in_reverse_dependency_order(tmp_path: Path) -> None:
    await apply_config(tmp_path, CHAIN)
    events = await apply_config(tmp_path, CHAIN, destroy=True)
    assert_chain(events, [(C, "delete"), (B, "delete"), (A, "delete")], "simple destroy")


@pytest.mark.trio
async def test_replace_all_destroys_dependent_then_dependency_then_creates_in_order(
        tmp_path: Path) -> None:
    config = """
        resource "terraform_data" "a" { triggers_replace = ["REV"] }
        resource "terraform_data" "b" {
          input            = terraform_data.a.id
          triggers_replace = ["REV"]
        }
    """
    await apply_config(tmp_path, config.replace("REV", "1"))
    events = await apply_config(tmp_path, config.replace("REV", "2"))
    assert_chain(events, [(B, "delete"), (A, "delete"), (A, "create"), (B, "create")], "replace all")


@pytest.mark.trio
async def test_replace_dependency_updates_dependent_after_dependency_is_recreated(
        tmp_path: Path) -> None:
    config = """
        resource "terraform_data" "a" { triggers_replace = ["REV"] }
        resource "terraform_data" "b" { input = terraform_data.a.id }
    """
    await apply_config(tmp_path, config.replace("REV", "1"))
    events = await apply_config(tmp_path, config.replace("REV", "2"))
    assert_chain(events, [(A, "delete"), (A, "create"), (B, "update")],
                 "replace dependency (A replaced, B updated)")


@pytest.mark.trio
async def test_dependency_update_waits_for_removed_dependent_destroy(tmp_path: Path) -> None:
    await apply_config(tmp_path, """
        resource "terraform_data" "a" { input = "x" }
        resource "terraform_data" "b" { input = terraform_data.a.id }
    """)
    events = await apply_config(tmp_path, """
        resource "terraform_data" "a" { input = "y" }
    """)
    assert_chain(events, [(B, "delete"), (A, "update")], "destroy then update (A update, B destroy)")


@pytest.mark.trio
async def test_cbd_replace_all_creates_dependent_between_dependency_create_and_destroy(
        tmp_path: Path) -> None:
    config = """
        resource "terraform_data" "a" {
          triggers_replace = ["REV"]
          lifecycle { create_before_destroy = true }
        }
        resource "terraform_data" "b" {
          input            = terraform_data.a.id
          triggers_replace = ["REV"]
        }
    """
    await apply_config(tmp_path, config.replace("REV", "1"))
    events = await apply_config(tmp_path, config.replace("REV", "2"))
    assert_chain(events, [(B, "delete"), (A, "create"), (B, "create"), (A, "delete")],
                 "replace all, dependency A is create_before_destroy")


@pytest.mark.trio
async def test_cbd_replace_dependency_updates_dependent_before_deposed_destroy(
        tmp_path: Path) -> None:
    config = """
        resource "terraform_data" "a" {
          triggers_replace = ["REV"]
          lifecycle { create_before_destroy = true }
        }
        resource "terraform_data" "b" { input = terraform_data.a.id }
    """
    await apply_config(tmp_path, config.replace("REV", "1"))
    events = await apply_config(tmp_path, config.replace("REV", "2"))
    assert_chain(events, [(A, "create"), (B, "update"), (A, "delete")],
                 "replace dependency, dependency A is create_before_destroy")


@pytest.mark.trio
async def test_update_of_dependent_precedes_destroy_of_removed_cbd_dependency(
        tmp_path: Path) -> None:
    await apply_config(tmp_path, """
        resource "terraform_data" "a" {
          lifecycle { create_before_destroy = true }
        }
        resource "terraform_data" "b" { input = terraform_data.a.id }
    """)
    events = await apply_config(tmp_path, """
        resource "terraform_data" "b" { input = "standalone" }
    """)
    assert_chain(events, [(B, "update"), (A, "delete")],
                 "update a destroyed create_before_destroy dependency")


@pytest.mark.trio
async def test_cbd_dependent_forces_cbd_on_its_dependency(tmp_path: Path) -> None:
    config = """
        resource "terraform_data" "a" { triggers_replace = ["REV"] }
        resource "terraform_data" "b" {
          input            = terraform_data.a.id
          triggers_replace = ["REV"]
          lifecycle { create_before_destroy = true }
        }
    """
    await apply_config(tmp_path, config.replace("REV", "1"))
    events = await apply_config(tmp_path, config.replace("REV", "2"))
    assert_chain(events, [(A, "create"), (B, "create"), (B, "delete"), (A, "delete")],
                 "forced create_before_destroy (B is create_before_destroy, A is not)")


# --------------------------------------------------------------------------- per-instance (count)

def per_instance(*steps: tuple[str, str]) -> tuple[set[Op], list[tuple[Op, Op]]]:
    """The ops and "before" pairs of one chain of ``steps`` repeated for every instance i."""
    ops: set[Op] = set()
    before: list[tuple[Op, Op]] = []
    for i in range(COUNT):
        chain_i = [(idx(addr, i), action) for addr, action in steps]
        ops.update(chain_i)
        before.extend(chain(*chain_i))
    return ops, before


COUNTED = """
resource "terraform_data" "a" {
  count            = COUNT
  triggers_replace = ["REV"]
}
resource "terraform_data" "b" {
  count            = COUNT
  input            = terraform_data.a[count.index].id
  triggers_replace = ["REV"]
}
""".replace("COUNT", str(COUNT))


@pytest.mark.trio
async def test_each_counted_instance_is_created_after_the_instance_it_refers_to(
        tmp_path: Path) -> None:
    events = await apply_config(tmp_path, COUNTED.replace("REV", "1"))
    ops, before = per_instance((A, "create"), (B, "create"))
    assert_ordered(events, ops, before, f"count={COUNT} create, B[i] refers to A[i]")


@pytest.mark.trio
async def test_each_counted_instance_is_destroyed_before_the_instance_it_refers_to(
        tmp_path: Path) -> None:
    await apply_config(tmp_path, COUNTED.replace("REV", "1"))
    events = await apply_config(tmp_path, COUNTED.replace("REV", "1"), destroy=True)
    ops, before = per_instance((B, "delete"), (A, "delete"))
    assert_ordered(events, ops, before, f"count={COUNT} destroy, B[i] refers to A[i]")


@pytest.mark.trio
async def test_each_counted_instance_pair_is_replaced_in_replace_all_order(tmp_path: Path) -> None:
    await apply_config(tmp_path, COUNTED.replace("REV", "1"))
    events = await apply_config(tmp_path, COUNTED.replace("REV", "2"))
    ops, before = per_instance((B, "delete"), (A, "delete"), (A, "create"), (B, "create"))
    assert_ordered(events, ops, before, f"count={COUNT} replace all, B[i] refers to A[i]")


COUNTED_CBD_DEPENDENCY = """
resource "terraform_data" "a" {
  count            = COUNT
  triggers_replace = ["REV"]
  lifecycle { create_before_destroy = true }
}
resource "terraform_data" "b" {
  count = COUNT
  input = terraform_data.a[count.index].id
}
""".replace("COUNT", str(COUNT))


@pytest.mark.trio
async def test_each_counted_dependent_is_updated_between_cbd_create_and_deposed_destroy(
        tmp_path: Path) -> None:
    await apply_config(tmp_path, COUNTED_CBD_DEPENDENCY.replace("REV", "1"))
    events = await apply_config(tmp_path, COUNTED_CBD_DEPENDENCY.replace("REV", "2"))
    ops, before = per_instance((A, "create"), (B, "update"), (A, "delete"))
    assert_ordered(events, ops, before,
                   f"count={COUNT} replace dependency, A is create_before_destroy, B[i] refers to A[i]")


COUNTED_FORCED_CBD = """
resource "terraform_data" "a" {
  count            = COUNT
  triggers_replace = ["REV"]
}
resource "terraform_data" "b" {
  count            = COUNT
  input            = terraform_data.a[count.index].id
  triggers_replace = ["REV"]
  lifecycle { create_before_destroy = true }
}
""".replace("COUNT", str(COUNT))


@pytest.mark.trio
async def test_each_counted_cbd_dependent_forces_cbd_on_the_instance_it_refers_to(
        tmp_path: Path) -> None:
    await apply_config(tmp_path, COUNTED_FORCED_CBD.replace("REV", "1"))
    events = await apply_config(tmp_path, COUNTED_FORCED_CBD.replace("REV", "2"))
    ops, before = per_instance((A, "create"), (B, "create"), (B, "delete"), (A, "delete"))
    assert_ordered(events, ops, before, f"count={COUNT} forced create_before_destroy, B[i] refers to A[i]")

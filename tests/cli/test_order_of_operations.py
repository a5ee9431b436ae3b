"""The "Order of operations" of the resource destruction notes, through the real command.

Specification: /work/shared/reference/004_a0c7c5032e246c72.txt. Each scenario there is
reproduced with ``terraform_data`` resources where B depends on A (``input =
terraform_data.a.id``; ``.id`` is unknown until A is created, so the dependency is real),
a replacement is forced by changing ``triggers_replace`` and an in-place update by
changing ``input``. The prior state comes from applying a first configuration.

At ``-parallelism=1`` the walk is a total order, and every ordering in the notes is a
chain (each step depends on the one before it), so the exact sequence of
``apply_complete`` events is asserted.
"""

from __future__ import annotations

from tests.conftest import Result, Workdir

APPLY = ("apply", "-auto-approve", "-json", "-parallelism=1")

A = "terraform_data.a"
B = "terraform_data.b"
C = "terraform_data.c"


def completed(res: Result) -> list[tuple[str, str]]:
    """(address, action) of every finished operation, in the order they finished."""
    return [(e["hook"]["resource"]["addr"], e["hook"]["action"]) for e in res.of_type("apply_complete")]


def apply_config(workdir: Workdir, text: str) -> Result:
    workdir.write(text)
    return workdir.strata(*APPLY)


def prepare(workdir: Workdir, before: str) -> None:
    """Apply ``before`` to get the prior state a scenario starts from."""
    res = apply_config(workdir, before)
    assert res.returncode == 0, (f"setting up the prior state failed (exit {res.returncode})\n"
                                 f"stdout:\n{res.stdout}\nstderr:\n{res.stderr}")


def assert_order(res: Result, expected: list[tuple[str, str]], scenario: str) -> None:
    assert res.returncode == 0, (f"{scenario}: the apply failed (exit {res.returncode})\n"
                                 f"stdout:\n{res.stdout}\nstderr:\n{res.stderr}")
    got = completed(res)
    assert got == expected, (f"{scenario}: operations completed in the order {got}, "
                             f"but the reference requires {expected}")


# --------------------------------------------------------------------------- simple create

CHAIN = """
resource "terraform_data" "a" {}
resource "terraform_data" "b" { input = terraform_data.a.id }
resource "terraform_data" "c" { input = terraform_data.b.id }
"""


def test_simple_create_runs_dependencies_first(workdir: Workdir) -> None:
    res = apply_config(workdir, CHAIN)
    assert_order(res, [(A, "create"), (B, "create"), (C, "create")], "simple create")


# --------------------------------------------------------------------------- updates

# C refers to B's output: B's new input is A's id, unknown until A exists, so B's
# output (and C's new input) is unknown at plan time too.
UPDATE_BEFORE = """
resource "terraform_data" "b" { input = "b0" }
resource "terraform_data" "c" { input = terraform_data.b.output }
"""
UPDATE_AFTER = """
resource "terraform_data" "a" {}
resource "terraform_data" "b" { input = terraform_data.a.id }
resource "terraform_data" "c" { input = terraform_data.b.output }
"""


def test_updates_follow_the_new_dependency_they_refer_to(workdir: Workdir) -> None:
    # the notes' list says "created", its graph (and its prose) says B and C are updated
    prepare(workdir, UPDATE_BEFORE)
    res = apply_config(workdir, UPDATE_AFTER)
    assert_order(res, [(A, "create"), (B, "update"), (C, "update")], "resource updates")


# --------------------------------------------------------------------------- simple destroy

def test_destroy_runs_in_reverse_dependency_order(workdir: Workdir) -> None:
    prepare(workdir, CHAIN)
    res = workdir.strata("destroy", "-auto-approve", "-json", "-parallelism=1")
    assert_order(res, [(C, "delete"), (B, "delete"), (A, "delete")], "simple destroy")


def test_removing_every_resource_from_the_configuration_destroys_in_reverse_dependency_order(
        workdir: Workdir) -> None:
    # the same destruction, planned from the dependencies recorded in state
    prepare(workdir, CHAIN)
    res = apply_config(workdir, "# everything removed\n")
    assert_order(res, [(C, "delete"), (B, "delete"), (A, "delete")],
                 "simple destroy (resources removed from the configuration)")


# --------------------------------------------------------------------------- replacement

REPLACE_ALL = """
resource "terraform_data" "a" { triggers_replace = ["REV"] }
resource "terraform_data" "b" {
  input            = terraform_data.a.id
  triggers_replace = ["REV"]
}
"""


def test_replace_all_destroys_dependent_then_dependency_then_creates_in_order(workdir: Workdir) -> None:
    prepare(workdir, REPLACE_ALL.replace("REV", "1"))
    res = apply_config(workdir, REPLACE_ALL.replace("REV", "2"))
    assert_order(res, [(B, "delete"), (A, "delete"), (A, "create"), (B, "create")], "replace all")


REPLACE_DEPENDENCY = """
resource "terraform_data" "a" { triggers_replace = ["REV"] }
resource "terraform_data" "b" { input = terraform_data.a.id }
"""


def test_replace_dependency_updates_dependent_after_dependency_is_recreated(workdir: Workdir) -> None:
    prepare(workdir, REPLACE_DEPENDENCY.replace("REV", "1"))
    res = apply_config(workdir, REPLACE_DEPENDENCY.replace("REV", "2"))
    assert_order(res, [(A, "delete"), (A, "create"), (B, "update")],
                 "replace dependency (A replaced, B updated)")


DESTROY_THEN_UPDATE_BEFORE = """
resource "terraform_data" "a" { input = "x" }
resource "terraform_data" "b" { input = terraform_data.a.id }
"""
DESTROY_THEN_UPDATE_AFTER = """
resource "terraform_data" "a" { input = "y" }
"""


def test_dependency_update_waits_for_removed_dependent_destroy(workdir: Workdir) -> None:
    prepare(workdir, DESTROY_THEN_UPDATE_BEFORE)
    res = apply_config(workdir, DESTROY_THEN_UPDATE_AFTER)
    assert_order(res, [(B, "delete"), (A, "update")], "destroy then update (A update, B destroy)")


# --------------------------------------------------------------------------- create_before_destroy

CBD_REPLACE_ALL = """
resource "terraform_data" "a" {
  triggers_replace = ["REV"]
  lifecycle { create_before_destroy = true }
}
resource "terraform_data" "b" {
  input            = terraform_data.a.id
  triggers_replace = ["REV"]
}
"""


def test_cbd_replace_all_creates_dependent_between_dependency_create_and_destroy(
        workdir: Workdir) -> None:
    prepare(workdir, CBD_REPLACE_ALL.replace("REV", "1"))
    res = apply_config(workdir, CBD_REPLACE_ALL.replace("REV", "2"))
    assert_order(res, [(B, "delete"), (A, "create"), (B, "create"), (A, "delete")],
                 "replace all, dependency A is create_before_destroy")


CBD_REPLACE_DEPENDENCY = """
resource "terraform_data" "a" {
  triggers_replace = ["REV"]
  lifecycle { create_before_destroy = true }
}
resource "terraform_data" "b" { input = terraform_data.a.id }
"""


def test_cbd_replace_dependency_updates_dependent_before_deposed_destroy(workdir: Workdir) -> None:
    prepare(workdir, CBD_REPLACE_DEPENDENCY.replace("REV", "1"))
    res = apply_config(workdir, CBD_REPLACE_DEPENDENCY.replace("REV", "2"))
    assert_order(res, [(A, "create"), (B, "update"), (A, "delete")],
                 "replace dependency, dependency A is create_before_destroy")


CBD_DESTROYED_DEPENDENCY_BEFORE = """
resource "terraform_data" "a" {
  lifecycle { create_before_destroy = true }
}
resource "terraform_data" "b" { input = terraform_data.a.id }
"""
CBD_DESTROYED_DEPENDENCY_AFTER = """
resource "terraform_data" "b" { input = "standalone" }
"""


def test_update_of_dependent_precedes_destroy_of_removed_cbd_dependency(workdir: Workdir) -> None:
    prepare(workdir, CBD_DESTROYED_DEPENDENCY_BEFORE)
    res = apply_config(workdir, CBD_DESTROYED_DEPENDENCY_AFTER)
    assert_order(res, [(B, "update"), (A, "delete")],
                 "update a destroyed create_before_destroy dependency")


FORCED_CBD = """
resource "terraform_data" "a" { triggers_replace = ["REV"] }
resource "terraform_data" "b" {
  input            = terraform_data.a.id
  triggers_replace = ["REV"]
  lifecycle { create_before_destroy = true }
}
"""


def test_cbd_dependent_forces_cbd_on_its_dependency(workdir: Workdir) -> None:
    prepare(workdir, FORCED_CBD.replace("REV", "1"))
    res = apply_config(workdir, FORCED_CBD.replace("REV", "2"))
    assert_order(res, [(A, "create"), (B, "create"), (B, "delete"), (A, "delete")],
                 "forced create_before_destroy (B is create_before_destroy, A is not)")


def test_reversed_dependencies_while_replacing_both_is_a_cycle(workdir: Workdir) -> None:
    """Old objects are destroyed by the dependencies recorded in state and, as terraform 1.11
    orders them, by the new configuration's too: reversing a dependency while replacing both is
    the cycle terraform reports ("Cycle: terraform_data.a[0] (destroy), terraform_data.b[0]
    (destroy)"), and nothing is touched."""
    workdir.write('resource "terraform_data" "a" {\n  count = 1\n  triggers_replace = [1]\n}\n'
                  'resource "terraform_data" "b" {\n  count = 1\n  triggers_replace = [1]\n'
                  '  depends_on = [terraform_data.a]\n}\n')
    workdir.strata("apply", "-auto-approve", check=True)
    before = workdir.state()
    workdir.write('resource "terraform_data" "a" {\n  count = 1\n  triggers_replace = [2]\n'
                  '  depends_on = [terraform_data.b]\n}\n'
                  'resource "terraform_data" "b" {\n  count = 1\n  triggers_replace = [2]\n}\n')
    res = workdir.strata("apply", "-auto-approve", "-no-color", "-parallelism=1")
    assert res.returncode == 1
    assert "\nError: Cycle: terraform_data.a[0] (destroy), terraform_data.b[0] (destroy)\n" in res.stderr, res.stderr
    assert workdir.state()["resources"] == before["resources"]


# --------------------------------------------------------------------------- count / for_each dependencies

META = """
resource "terraform_data" "a" {
  for_each = toset(["x", "y"])
  input    = each.key
}
locals {
  m = { one = terraform_data.a["x"].id }
}
resource "terraform_data" "c" {
  for_each = terraform_data.a
  input    = each.value.id
}
resource "terraform_data" "d" {
  for_each = local.m
  input    = each.value
}
resource "terraform_data" "e" {
  count = length(terraform_data.a)
}
"""


def test_what_count_and_for_each_refer_to_is_applied_first_recorded_and_destroyed_last(workdir: Workdir) -> None:
    # a resource named only in count or for_each is a dependency like any other (terraform's too):
    # created before, recorded in each instance's dependencies, destroyed after
    res = apply_config(workdir, META)
    assert res.returncode == 0, res.stdout + res.stderr
    order = [a for a, _ in completed(res)]
    for dependent in ('terraform_data.c["x"]', 'terraform_data.c["y"]', 'terraform_data.d["one"]',
                      "terraform_data.e[0]", "terraform_data.e[1]"):
        assert order.index(dependent) > max(order.index('terraform_data.a["x"]'),
                                            order.index('terraform_data.a["y"]')), order
    state = workdir.state()
    deps = {(r["name"], i.get("index_key")): i.get("dependencies") for r in state["resources"]
            for i in r["instances"]}
    assert deps[("c", "x")] == ["terraform_data.a"], deps
    assert deps[("d", "one")] == ["terraform_data.a"], deps
    assert deps[("e", 0)] == ["terraform_data.a"], deps
    res = workdir.strata("destroy", "-auto-approve", "-json", "-parallelism=1")
    assert res.returncode == 0, res.stdout + res.stderr
    order = [a for a, _ in completed(res)]
    assert order[-2:] in (['terraform_data.a["x"]', 'terraform_data.a["y"]'],
                          ['terraform_data.a["y"]', 'terraform_data.a["x"]']), order

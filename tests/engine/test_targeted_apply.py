"""Under -target, what apply applies of a plan (engine/planning/targeting.py ``mark_targeted``,
engine/apply/targeted.py) and what a destroy waits for through the objects left out
(engine/plans/kept.py ``through_left_out``): terraform 1.11's apply graph, pruned per instance."""

from __future__ import annotations

from engine.addrs import InstanceAddr, ResourceAddr, parse_provider_config_addr
from engine.apply.targeted import applied_part
from engine.config.model import Module
from engine.planning.targeting import Targets, mark_targeted
from engine.plans.kept import through_left_out
from engine.plans.plan import Action, Plan, ResourceInstanceChange
from engine.state.model import ObjectState, State

PROVIDER = parse_provider_config_addr('provider["terraform.io/builtin/terraform"]')


def res(name: str) -> ResourceAddr:
    return ResourceAddr("terraform_data", name, "managed")


def change(name: str, action: str = Action.UPDATE, key: int | None = None,
           refers: tuple[InstanceAddr, ...] = (), whole: tuple[str, ...] = ()) -> ResourceInstanceChange:
    return ResourceInstanceChange(InstanceAddr(res(name), key), action, PROVIDER, {"id": name}, {"id": name},
                                  depends_on=frozenset(refers), depends_on_resources=frozenset(res(w) for w in whole))


def marked(changes: list[ResourceInstanceChange]) -> list[str]:
    return [str(c.addr) for c in changes if c.targeted]


def test_a_reference_to_an_instance_with_a_change_marks_that_instance_alone() -> None:
    a0, a1 = change("a", key=0), change("a", Action.CREATE, key=1)
    b = change("b", refers=(a0.addr,))
    assert marked(mark_targeted([a0, a1, b], Targets(frozenset({res("b")})))) == \
        ["terraform_data.a[0]", "terraform_data.b"]


def test_a_reference_to_an_instance_without_a_change_marks_the_whole_resource() -> None:
    a0, a1 = change("a", Action.NOOP, key=0), change("a", Action.CREATE, key=1)
    b = change("b", refers=(a0.addr,))
    assert marked(mark_targeted([a0, a1, b], Targets(frozenset({res("b")})))) == \
        ["terraform_data.a[0]", "terraform_data.a[1]", "terraform_data.b"]


def test_a_target_without_an_instance_to_plan_marks_everything() -> None:
    a = change("a")
    assert marked(mark_targeted([a], Targets(frozenset({res("b")})))) == ["terraform_data.a"]


def test_apply_leaves_out_the_changes_the_targets_do_not_reach() -> None:
    a0, a1 = change("a", key=0), change("a", Action.CREATE, key=1)
    b = change("b", refers=(a0.addr,))
    plan = Plan(changes=tuple(mark_targeted([a0, a1, b], Targets(frozenset({res("b")})))), targeted=True)
    applied = applied_part(plan, Module("."))
    assert [str(c.addr) for c in applied.changes] == ["terraform_data.a[0]", "terraform_data.b"]


def test_a_prior_dependency_closes_through_an_object_left_out_of_the_plan() -> None:
    s = State()
    s.set_object(InstanceAddr(res("b")), PROVIDER, ObjectState({"id": "b"}, dependencies=(res("a"),)))
    c = ResourceInstanceChange(InstanceAddr(res("c")), Action.DELETE_THEN_CREATE, PROVIDER, {}, {},
                               prior_dependencies=(res("b"),))
    got = through_left_out([c, change("a")], s)
    assert got[0].prior_dependencies == (res("a"), res("b"))
    # b planned: its own change carries what it depends on
    assert through_left_out([c, change("a"), change("b")], s)[0].prior_dependencies == (res("b"),)

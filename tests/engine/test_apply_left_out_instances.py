"""Under -target, a resource's value at apply time keeps the instances the configuration no
longer has that the plan leaves in the state (engine/apply/executor.py: left_out_instances),
as terraform's evaluator builds it from the state less the instances planned for deletion."""

from __future__ import annotations

from engine.addrs import InstanceAddr, ResourceAddr, parse_provider_config_addr
from engine.apply.resolver import ApplyResolver, left_out_instances
from engine.config.model import Module
from engine.plans.plan import Action, Expansion, Plan, ResourceInstanceChange
from engine.state.model import ObjectState, State
from engine.values import UNKNOWN

PROVIDER = parse_provider_config_addr('provider["terraform.io/builtin/terraform"]')
A = ResourceAddr("terraform_data", "a", "managed")


def state_with(*keys: int) -> State:
    s = State()
    for k in keys:
        s.set_object(InstanceAddr(A, k), PROVIDER, ObjectState({"id": f"a{k}"}))
    return s


def value(plan: Plan, s: State) -> object:
    return ApplyResolver(Module("."), s, plan.expansions, left_out_instances(plan, s)).resource_value(A)


def test_an_instance_left_in_the_state_counts_and_a_missing_index_is_unknown() -> None:
    s = state_with(0, 1, 3)
    plan = Plan(targeted=True, expansions={A: Expansion("count", (0,))})
    got = value(plan, s)
    assert isinstance(got, tuple) and len(got) == 4
    assert [got[0], got[1], got[3]] == [{"id": "a0"}, {"id": "a1"}, {"id": "a3"}]
    assert got[2] is UNKNOWN  # not in the state


def test_an_instance_planned_for_deletion_or_without_target_does_not_count() -> None:
    s = state_with(0, 1)
    gone = ResourceInstanceChange(InstanceAddr(A, 1), Action.DELETE, PROVIDER, {"id": "a1"}, None)
    exp = {A: Expansion("count", (0,))}
    assert value(Plan(targeted=True, expansions=exp, changes=[gone]), s) == ({"id": "a0"},)
    assert value(Plan(expansions=exp), s) == ({"id": "a0"},)

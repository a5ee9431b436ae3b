"""engine/plans/kept.py: under -target, an object left out keeps what its dependencies closed
to before, where a rewritten object in between no longer lists it."""

from __future__ import annotations

from engine.addrs import InstanceAddr, ResourceAddr, parse_provider_config_addr
from engine.plans.kept import kept_dependencies
from engine.plans.plan import Action, Plan, ResourceInstanceChange
from engine.state.model import ObjectState, State

PROVIDER = parse_provider_config_addr('provider["terraform.io/builtin/terraform"]')


def res(name: str) -> ResourceAddr:
    return ResourceAddr("terraform_data", name, "managed")


def state(**deps: tuple[str, ...]) -> State:
    s = State()
    for name, ds in deps.items():
        s.set_object(InstanceAddr(res(name)), PROVIDER, ObjectState({"id": name}, dependencies=tuple(res(d) for d in ds)))
    return s


def noop(name: str, *deps: str) -> ResourceInstanceChange:
    return ResourceInstanceChange(InstanceAddr(res(name)), Action.UPDATE, PROVIDER, {"id": name}, {"id": name},
                                  state_dependencies=tuple(res(d) for d in deps))


def grown(plan: Plan, s: State) -> dict[str, list[str]]:
    return {str(a): [str(d) for d in obj.dependencies] for a, _p, obj in kept_dependencies(plan, s)}


def test_a_kept_dependent_keeps_what_a_rewritten_object_no_longer_lists() -> None:
    s = state(a=(), m=("a",), b=("m",), other=("m",))
    plan = Plan(changes=[noop("m")], targeted=True)
    assert grown(plan, s) == {"terraform_data.b": ["terraform_data.a", "terraform_data.m"],
                              "terraform_data.other": ["terraform_data.a", "terraform_data.m"]}


def test_nothing_grows_without_target_or_when_the_closure_is_kept() -> None:
    s = state(a=(), m=("a",), b=("m",))
    assert grown(Plan(changes=[noop("m")]), s) == {}
    assert grown(Plan(changes=[noop("m", "a")], targeted=True), s) == {}
    assert grown(Plan(changes=[noop("b")], targeted=True), s) == {}  # b itself is rewritten

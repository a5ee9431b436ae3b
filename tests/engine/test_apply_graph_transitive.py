"""The apply graph orders by transitive dependencies (engine/apply/reach.py): through resources
that have nothing to do, and through a cycle of resources whichever is met first."""

from __future__ import annotations

import itertools

from engine.addrs import InstanceAddr, ResourceAddr, parse_provider_config_addr
from engine.apply.graph import ApplyNode, build_apply_graph
from engine.graph.dag import Graph
from engine.plans.plan import Action, Plan, ResourceInstanceChange
from tests.engine.graph_reach import waits

PROVIDER = parse_provider_config_addr('provider["terraform.io/builtin/terraform"]')


def res(name: str) -> ResourceAddr:
    return ResourceAddr("terraform_data", name, "managed")


def change(name: str, action: str, deps: tuple[str, ...] = (), prior: tuple[str, ...] = ()) -> ResourceInstanceChange:
    return ResourceInstanceChange(InstanceAddr(res(name)), action, PROVIDER, {"id": "x"}, {"id": "y"},
                                  depends_on=frozenset(InstanceAddr(res(d)) for d in deps),
                                  prior_dependencies=tuple(res(p) for p in prior))




def node(name: str, op: str) -> ApplyNode:
    return next(n for n in NODES if isinstance(n, ApplyNode) and n.addr == InstanceAddr(res(name)) and n.op == op)


NODES: list[object] = []


def build(changes: list[ResourceInstanceChange]) -> Graph:
    g, _work = build_apply_graph(Plan(changes=changes))
    NODES[:] = list(g.nodes())
    return g


def test_a_replaced_objects_destroy_waits_for_a_new_dependent_through_an_unchanged_resource() -> None:
    # c (replaced) now uses m (no change), which uses z (replaced): z's old object goes after c's
    g = build([change("z", Action.DELETE_THEN_CREATE), change("m", Action.NOOP, deps=("z",)),
               change("c", Action.DELETE_THEN_CREATE, deps=("m",))])
    assert waits(g, node("z", "delete"), node("c", "delete"))


def test_an_update_waits_through_a_cycle_of_unchanged_resources_in_any_order() -> None:
    # y uses m2; m1 uses m2 and z; m2's old object used m1 (a dependency reversed); z is replaced
    # destroy first: y's update waits for z's destroy whichever change comes first
    base = [change("z", Action.DELETE_THEN_CREATE), change("m1", Action.NOOP, deps=("m2", "z")),
            change("m2", Action.NOOP, prior=("m1",)), change("w", Action.UPDATE, deps=("m1",)),
            change("y", Action.UPDATE, deps=("m2",))]
    for order in itertools.permutations(base):
        g = build(list(order))
        assert waits(g, node("y", "update"), node("z", "delete")), [c.addr for c in order]

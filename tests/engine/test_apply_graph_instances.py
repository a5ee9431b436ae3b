"""A dependent that names one instance of a resource (``a[0]``) is ordered against the destroys of
every instance of it, as terraform orders by resources (the dependencies of its configuration
merged into those recorded in state)."""

from __future__ import annotations

from engine.addrs import InstanceAddr, ResourceAddr, parse_provider_config_addr
from engine.apply.graph import ApplyNode, build_apply_graph
from engine.graph.dag import Graph
from engine.plans.plan import Action, Plan, ResourceInstanceChange
from tests.engine.graph_reach import waits

PROVIDER = parse_provider_config_addr('provider["terraform.io/builtin/terraform"]')
A = ResourceAddr("terraform_data", "a", "managed")
B = InstanceAddr(ResourceAddr("terraform_data", "b", "managed"))




def plan(orphan_cbd: bool) -> tuple[Graph[object], ApplyNode, ApplyNode]:
    # a[0] is replaced, a[1] gone from count; b (replaced) names a[0] and did not depend on a before
    changes = [ResourceInstanceChange(InstanceAddr(A, 0), Action.DELETE_THEN_CREATE, PROVIDER, {}, {}),
               ResourceInstanceChange(InstanceAddr(A, 1), Action.DELETE, PROVIDER, {}, None,
                                      create_before_destroy=orphan_cbd),
               ResourceInstanceChange(B, Action.DELETE_THEN_CREATE, PROVIDER, {}, {},
                                      depends_on=frozenset({InstanceAddr(A, 0)}))]
    g, work = build_apply_graph(Plan(changes=changes))
    create_b = next(n for n in work if n.addr == B and n.op == Action.CREATE)
    delete_a1 = next(n for n in work if n.addr == InstanceAddr(A, 1))
    return g, create_b, delete_a1  # type: ignore[return-value]


def test_a_create_before_destroy_orphan_waits_for_what_names_another_instance() -> None:
    g, create_b, delete_a1 = plan(orphan_cbd=True)
    assert waits(g, delete_a1, create_b)


def test_what_names_another_instance_waits_for_a_delete_first_orphan() -> None:
    g, create_b, delete_a1 = plan(orphan_cbd=False)
    assert waits(g, create_b, delete_a1)

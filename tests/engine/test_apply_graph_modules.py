"""The apply graph in an expanded module: terraform's graph has one node per resource of a
module, so a dependency on a whole resource is waited for in every instance of the module; strata
waits through one barrier per configuration resource, so the graph stays linear in size."""

from __future__ import annotations

from engine.addrs import InstanceAddr, ModulePath, ResourceAddr, parse_provider_config_addr
from engine.apply.graph import ApplyNode, build_apply_graph
from engine.plans.plan import Action, Plan, ResourceInstanceChange
from tests.engine.graph_reach import waits

PROVIDER = parse_provider_config_addr('provider["terraform.io/builtin/terraform"]')


def res(name: str, module: int | None = None) -> ResourceAddr:
    path = ModulePath() if module is None else ModulePath((("m", module),))
    return ResourceAddr("terraform_data", name, "managed", path)


def create(addr: InstanceAddr, *, instances: tuple[InstanceAddr, ...] = (),
           whole: tuple[ResourceAddr, ...] = ()) -> ResourceInstanceChange:
    return ResourceInstanceChange(addr, Action.CREATE, PROVIDER, None, {"id": "y"},
                                  depends_on=frozenset(instances), depends_on_resources=frozenset(whole))




def expanded(modules: int, per: int) -> list[ResourceInstanceChange]:
    """``module.m[0..modules)`` each with ``a`` and ``b`` (count ``per``), ``b`` referring to
    ``a[*]``, and ``c`` referring to ``s`` (both single) of its own instance."""
    out: list[ResourceInstanceChange] = []
    for m in range(modules):
        a, b, s, c = res("a", m), res("b", m), res("s", m), res("c", m)
        out += [create(a.instance(i)) for i in range(per)]
        out += [create(b.instance(i), whole=(a,)) for i in range(per)]
        out += [create(InstanceAddr(s)), create(InstanceAddr(c), instances=(InstanceAddr(s),))]
    return out


def test_a_whole_resource_dependency_in_an_expanded_module_is_waited_for_in_every_instance() -> None:
    g, _ = build_apply_graph(Plan(changes=expanded(3, 2)))
    assert waits(g, ApplyNode(res("b", 0).instance(0), Action.CREATE), ApplyNode(res("a", 2).instance(1), Action.CREATE))
    assert waits(g, ApplyNode(res("b", 2).instance(1), Action.CREATE), ApplyNode(res("a", 0).instance(0), Action.CREATE))


def test_a_single_instance_dependency_in_an_expanded_module_is_waited_for_in_every_instance() -> None:
    g, _ = build_apply_graph(Plan(changes=expanded(3, 2)))
    assert waits(g, ApplyNode(InstanceAddr(res("c", 0)), Action.CREATE), ApplyNode(InstanceAddr(res("s", 2)), Action.CREATE))
    assert not waits(g, ApplyNode(InstanceAddr(res("s", 0)), Action.CREATE), ApplyNode(InstanceAddr(res("c", 2)), Action.CREATE))


def test_the_graph_of_an_expanded_module_stays_linear_in_its_instances() -> None:
    # every b waits for every a across 200 module instances: 40,000 pairs, through one barrier
    small, _ = build_apply_graph(Plan(changes=expanded(20, 10)))
    large, _ = build_apply_graph(Plan(changes=expanded(200, 10)))
    assert large.edge_count() <= 11 * small.edge_count()
    assert large.edge_count() < 4 * len(large)


def test_a_root_resource_is_not_waited_for_through_a_module_barrier() -> None:
    # the root has one instance of everything: a dependency there is the resource's own barrier
    changes = [create(res("a").instance(0)), create(res("a").instance(1)),
               create(InstanceAddr(res("b")), whole=(res("a"),))]
    g, _ = build_apply_graph(Plan(changes=changes))
    assert {str(n) for n in g.nodes()} == {"terraform_data.a[0] (create)", "terraform_data.a[1] (create)",
                                          "terraform_data.b (create)", "terraform_data.a [applied]"}


def test_a_recorded_dependency_orders_nothing_in_another_instance_of_the_same_module() -> None:
    # module.m[0] is gone: its b, create_before_destroy in the state, is destroyed after what it
    # depends on is created, and m[1].a is replaced delete-first. The dependency b recorded,
    # module.m.terraform_data.a, stands for a in m[0] alone (terraform's DestroyEdgeTransformer
    # skips other instances of the same module): in every instance it would be a cycle
    config_a = ResourceAddr("terraform_data", "a", "managed", ModulePath((("m", None),)))
    gone_a, gone_b, kept_a = InstanceAddr(res("a", 0)), InstanceAddr(res("b", 0)), InstanceAddr(res("a", 1))
    changes = [
        ResourceInstanceChange(gone_a, Action.DELETE, PROVIDER, {"id": "a0"}, None),
        ResourceInstanceChange(gone_b, Action.DELETE, PROVIDER, {"id": "b0"}, None, create_before_destroy=True,
                               prior_dependencies=(config_a,)),
        ResourceInstanceChange(kept_a, Action.DELETE_THEN_CREATE, PROVIDER, {"id": "a1"}, {"id": "y"}),
    ]
    g, _ = build_apply_graph(Plan(changes=changes))
    assert waits(g, ApplyNode(gone_a, Action.DELETE), ApplyNode(gone_b, Action.DELETE))
    assert not waits(g, ApplyNode(gone_b, Action.DELETE), ApplyNode(kept_a, Action.CREATE))
    assert not waits(g, ApplyNode(kept_a, Action.DELETE), ApplyNode(gone_b, Action.DELETE))


def test_waits_for_its_dependency_in_every_instance_of_an_expanded_module_through_an_unchanged_resource() -> None:
    # differential seed 270: c -> b -> a in module.m[0] and m[1]; b has nothing to do in either
    # instance, only m[1].a is replaced. terraform's node for b waits for a's in every instance,
    # so m[0].c's create waits for m[1].a's too, though b (no node here) stands between them
    def noop(addr: InstanceAddr, *, instances: tuple[InstanceAddr, ...]) -> ResourceInstanceChange:
        return ResourceInstanceChange(addr, Action.NOOP, PROVIDER, {"id": "y"}, {"id": "y"},
                                      depends_on=frozenset(instances))

    a0, a1 = InstanceAddr(res("a", 0)), InstanceAddr(res("a", 1))
    b0, b1 = InstanceAddr(res("b", 0)), InstanceAddr(res("b", 1))
    c0, c1 = InstanceAddr(res("c", 0)), InstanceAddr(res("c", 1))
    changes = [
        ResourceInstanceChange(a0, Action.NOOP, PROVIDER, {"id": "a0"}, {"id": "a0"}),
        ResourceInstanceChange(a1, Action.DELETE_THEN_CREATE, PROVIDER, {"id": "a1"}, {"id": "y"}),
        noop(b0, instances=(a0,)), noop(b1, instances=(a1,)),
        ResourceInstanceChange(c0, Action.DELETE_THEN_CREATE, PROVIDER, {"id": "c0"}, {"id": "y"},
                               depends_on=frozenset({b0})),
        ResourceInstanceChange(c1, Action.DELETE_THEN_CREATE, PROVIDER, {"id": "c1"}, {"id": "y"},
                               depends_on=frozenset({b1})),
    ]
    g, _ = build_apply_graph(Plan(changes=changes))
    assert waits(g, ApplyNode(c0, Action.CREATE), ApplyNode(a1, Action.CREATE))
    assert waits(g, ApplyNode(c1, Action.CREATE), ApplyNode(a1, Action.CREATE))

"""engine/planning/create_before_destroy.py: the dependencies of a create_before_destroy change
become create_before_destroy too, transitively, through configuration only (terraform's
ForcedCBDTransformer follows reference edges; the dependencies in state force nothing)."""

from __future__ import annotations

from engine.addrs import InstanceAddr, ResourceAddr, parse_dependency, parse_provider_config_addr
from engine.planning.create_before_destroy import force_create_before_destroy
from engine.plans.plan import Action, ResourceInstanceChange


def addr(name: str, key: int | None = None) -> InstanceAddr:
    return InstanceAddr(ResourceAddr("terraform_data", name, "managed"), key)


PROVIDER = parse_provider_config_addr('provider["terraform.io/builtin/terraform"]')


def change(name: str, action: str, cbd: bool = False, deps: tuple[str, ...] = (), prior: tuple[str, ...] = (),
           deposed: str | None = None, key: int | None = None) -> ResourceInstanceChange:
    return ResourceInstanceChange(addr(name, key), action, PROVIDER, None, None, deposed=deposed,
                                  create_before_destroy=cbd, depends_on=frozenset(addr(d) for d in deps),
                                  prior_dependencies=tuple(parse_dependency(p) for p in prior))


def by_name(changes: list[ResourceInstanceChange]) -> dict[str, tuple[str, bool]]:
    return {f"{c.addr}{'/' + c.deposed if c.deposed else ''}": (c.action, c.create_before_destroy) for c in changes}


def test_a_chain_is_forced_transitively_and_replaces_turn_around() -> None:
    changes = [change("a", Action.DELETE_THEN_CREATE),
               change("b", Action.UPDATE, deps=("a",)),
               change("c", Action.DELETE_THEN_CREATE, cbd=True, deps=("b",)),
               change("other", Action.DELETE_THEN_CREATE)]
    out = force_create_before_destroy(changes)
    assert by_name(out) == {"terraform_data.a": (Action.CREATE_THEN_DELETE, True),
                            "terraform_data.b": (Action.UPDATE, True),
                            "terraform_data.c": (Action.DELETE_THEN_CREATE, True),  # its own action is the planner's
                            "terraform_data.other": (Action.DELETE_THEN_CREATE, False)}
    assert [c.addr for c in out] == [c.addr for c in changes]  # order kept
    assert not changes[0].create_before_destroy  # the input is not modified


def test_dependencies_recorded_in_state_force_nothing() -> None:
    changes = [change("gone", Action.DELETE),
               change("c", Action.CREATE_THEN_DELETE, cbd=True, prior=("terraform_data.gone",))]
    assert by_name(force_create_before_destroy(changes))["terraform_data.gone"] == (Action.DELETE, False)


def test_a_removed_create_before_destroy_dependent_forces_nothing() -> None:
    # b is gone from the configuration; its object in state is create_before_destroy: a's
    # replacement stays delete-first (and terraform's apply graph has a cycle)
    changes = [change("a", Action.DELETE_THEN_CREATE),
               change("b", Action.DELETE, cbd=True, prior=("terraform_data.a",))]
    assert by_name(force_create_before_destroy(changes))["terraform_data.a"] == (Action.DELETE_THEN_CREATE, False)


def test_deposed_objects_and_instances_of_the_same_resource_are_left_alone() -> None:
    changes = [change("a", Action.DELETE, deposed="00000001"),
               change("a", Action.DELETE_THEN_CREATE),
               change("c", Action.DELETE_THEN_CREATE, key=0),
               ResourceInstanceChange(addr("c", 1), Action.CREATE_THEN_DELETE, PROVIDER, None, None,
                                      create_before_destroy=True, depends_on=frozenset({addr("a"), addr("c", 0)}))]
    out = by_name(force_create_before_destroy(changes))
    assert out["terraform_data.a/00000001"] == (Action.DELETE, False)
    assert out["terraform_data.a"] == (Action.CREATE_THEN_DELETE, True)
    assert out["terraform_data.c[0]"] == (Action.DELETE_THEN_CREATE, False)


def test_a_replacement_forced_to_create_first_leaves_what_its_state_depends_on() -> None:
    # a (create_before_destroy) uses b; b's old object depended on c, its configuration no longer
    # does; all three are replaced: b is forced, c is not (terraform's apply graph then has a
    # cycle, which it reports)
    changes = [change("c", Action.DELETE_THEN_CREATE),
               change("b", Action.DELETE_THEN_CREATE, prior=("terraform_data.c",)),
               change("a", Action.CREATE_THEN_DELETE, cbd=True, deps=("b",))]
    out = by_name(force_create_before_destroy(changes))
    assert out["terraform_data.b"] == (Action.CREATE_THEN_DELETE, True)
    assert out["terraform_data.c"] == (Action.DELETE_THEN_CREATE, False)


def test_an_update_that_is_create_before_destroy_leaves_a_removed_dependency_as_created() -> None:
    # b is updated and now create_before_destroy; a, which b's old object used, is removed: its
    # destroy keeps the flag it was created with (terraform destroys it before updating b)
    changes = [change("a", Action.DELETE), change("b", Action.UPDATE, cbd=True, prior=("terraform_data.a",))]
    assert by_name(force_create_before_destroy(changes))["terraform_data.a"] == (Action.DELETE, False)


def test_an_instance_gone_from_count_keeps_its_flag_in_state() -> None:
    # c (create_before_destroy) uses a[*]; a[1] is destroyed, count having shrunk: its destroy
    # is not forced (terraform takes a destroy's flag from the state)
    changes = [change("a", Action.NOOP, key=0), change("a", Action.DELETE, key=1),
               ResourceInstanceChange(addr("c"), Action.CREATE_THEN_DELETE, PROVIDER, None, None,
                                      create_before_destroy=True,
                                      depends_on_resources=frozenset({addr("a").resource}))]
    out = by_name(force_create_before_destroy(changes))
    assert out["terraform_data.a[0]"] == (Action.NOOP, True)
    assert out["terraform_data.a[1]"] == (Action.DELETE, False)


def _names(key: int, whole: bool = False, cbd: bool = True) -> ResourceInstanceChange:
    """b[key], create_before_destroy, naming a[key]: by a key known per instance when ``whole``
    (``a[count.index]``), else by a constant one (``a[0]``)."""
    a = addr("a").resource
    return ResourceInstanceChange(addr("b", key), Action.CREATE, PROVIDER, None, None, create_before_destroy=cbd,
                                  depends_on=frozenset({addr("a", key)}),
                                  depends_on_whole=frozenset({a}) if whole else frozenset())


def test_a_key_known_per_instance_forces_every_instance_of_the_resource() -> None:
    changes = [change("a", Action.CREATE, key=k) for k in range(3)] + [_names(0, whole=True), _names(1, whole=True)]
    out = by_name(force_create_before_destroy(changes))
    assert [out[f"terraform_data.a[{k}]"][1] for k in range(3)] == [True, True, True]


def test_a_constant_key_forces_the_instance_it_names_alone() -> None:
    changes = [change("a", Action.CREATE, key=k) for k in range(3)] + [_names(0), _names(1)]
    out = by_name(force_create_before_destroy(changes))
    assert [out[f"terraform_data.a[{k}]"][1] for k in range(3)] == [True, True, False]


def test_a_constant_key_naming_an_instance_without_a_change_forces_the_whole_resource() -> None:
    # terraform's apply graph has no node for a[1]: the reference falls back to the resource
    changes = [change("a", Action.DELETE_THEN_CREATE, key=0), change("a", Action.NOOP, key=1), _names(1)]
    out = by_name(force_create_before_destroy(changes))
    assert out["terraform_data.a[0]"] == (Action.CREATE_THEN_DELETE, True)


def test_a_constant_key_naming_a_deleted_instance_forces_the_whole_resource() -> None:
    changes = [change("a", Action.DELETE_THEN_CREATE, key=0), change("a", Action.DELETE, key=1), _names(1)]
    out = by_name(force_create_before_destroy(changes))
    assert out["terraform_data.a[0]"] == (Action.CREATE_THEN_DELETE, True)
    assert out["terraform_data.a[1]"] == (Action.DELETE, False)


def test_an_instance_without_a_change_whose_resource_has_conditions_is_named_alone() -> None:
    # its conditions are checked again at apply: terraform's graph keeps a node for it
    changes = [change("a", Action.DELETE_THEN_CREATE, key=0), change("a", Action.NOOP, key=1), _names(1)]
    out = by_name(force_create_before_destroy(changes, conditioned={((), "terraform_data", "a", "managed")}))
    assert out["terraform_data.a[0]"] == (Action.DELETE_THEN_CREATE, False)

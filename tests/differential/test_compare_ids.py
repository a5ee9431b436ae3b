"""compare's names for object ids: by the apply that created each object, not by value
(the null plugin 2.1.2 repeats its ids in every process). No command is run."""

from __future__ import annotations

from tests.differential.compare import Names, compare_states, id_names
from tests.differential.findings import deviations
from tests.differential.run import Run, Step

ONE, TWO = "100000000001", "100000000002"


def _create(addr: str) -> dict:
    return {"type": "apply_start", "hook": {"resource": {"addr": addr}, "action": "create"}}


def _state(*objects: tuple[str, str, dict, list[str]]) -> dict:
    return {"resources": [
        {"mode": "managed", "type": "null_resource", "name": name,
         "instances": [{"attributes": {"id": oid, **attrs}, "dependencies": deps}]}
        for name, oid, attrs, deps in objects]}


def _run(creates: tuple[list[str], list[str]], *states: dict) -> Run:
    steps = [Step(0, [_create(a) for a in c], "") for c in creates]
    return Run("t", steps=steps, states=list(states))


def test_an_id_repeated_by_a_new_process_names_the_object_created_with_it() -> None:
    v1 = _state(("a", ONE, {}, []))
    v2 = _state(("b", ONE, {}, []), ("c", TWO, {"triggers": {"b_id": ONE}}, ["null_resource.b"]))
    names = id_names(_run((["null_resource.a"], ["null_resource.b", "null_resource.c"]), v1, v2))
    assert names[0].flat() == {ONE: "<null_resource.a#1>"}
    assert names[1].flat() == {ONE: "<null_resource.b#2>", TWO: "<null_resource.c#2>"}


def test_two_objects_sharing_an_id_are_told_apart_by_what_refers_to_them() -> None:
    v1 = _state(("a", ONE, {}, []))
    v2 = _state(("a", ONE, {}, []), ("b", ONE, {}, []),
                ("c", TWO, {"triggers": {"b_id": ONE}}, ["null_resource.b"]))
    names = id_names(_run((["null_resource.a"], ["null_resource.b", "null_resource.c"]), v1, v2))[1]
    assert isinstance(names, Names)
    assert names.flat()[ONE] == "<null_resource.a#1>|<null_resource.b#2>"
    a_inst, b_inst = v2["resources"][0]["instances"][0], v2["resources"][1]["instances"][0]
    assert names.seen_from(a_inst, "null_resource.a", set())[ONE] == "<null_resource.a#1>"
    assert names.seen_from(b_inst, "null_resource.b", set())[ONE] == "<null_resource.b#2>"
    c_inst = v2["resources"][2]["instances"][0]
    assert names.seen_from(c_inst, "null_resource.c", {"null_resource.b"})[ONE] == "<null_resource.b#2>"


def test_the_same_objects_created_in_a_different_order_compare_equal() -> None:
    # terraform made b then c, strata c then b: the values swap, the names do not
    def run(b: str, c: str) -> Run:
        v2 = _state(("b", b, {}, []), ("c", c, {"triggers": {"b_id": b}}, ["null_resource.b"]))
        return _run(([], ["null_resource.b", "null_resource.c"]), {"resources": []}, v2)
    tf, st = run(ONE, TWO), run(TWO, ONE)
    tf_names, st_names = id_names(tf), id_names(st)
    assert compare_states("v2", tf.states[1], st.states[1], tf_names[1], st_names[1], set()) == []


def test_a_real_difference_in_what_an_object_refers_to_is_still_found() -> None:
    def run(ref: str) -> Run:
        v2 = _state(("b", ONE, {}, []), ("d", TWO, {}, []),
                    ("c", "100000000003", {"triggers": {"x": ref}}, []))
        return _run(([], ["null_resource.b", "null_resource.d", "null_resource.c"]), {"resources": []}, v2)
    tf, st = run(ONE), run(TWO)
    found = compare_states("v2", tf.states[1], st.states[1], id_names(tf)[1], id_names(st)[1], set())
    assert [m.cls for m in found] == ["state: attributes"]


def _deps_state(**deps: list[str]) -> dict:
    return {"resources": [{"mode": "managed", "type": "terraform_data", "name": n,
                           "instances": [{"attributes": {"id": f"{i:012d}"}, "dependencies": d}]}
                          for i, (n, d) in enumerate(deps.items())]}


def test_dependency_lists_read_at_different_times_are_tolerated_under_target() -> None:
    # u was not rewritten: terraform keeps [y, z] as written in v1; strata's u -> [y] closes over
    # y's list as it is now ([w]); both said so at some point
    y, z, w = "terraform_data.y", "terraform_data.z", "terraform_data.w"
    tf1 = _deps_state(u=[y, z], y=[z], z=[], w=[])
    st1 = _deps_state(u=[y], y=[z], z=[], w=[])
    tf2 = _deps_state(u=[y, z], y=[w], z=[], w=[])
    st2 = _deps_state(u=[y], y=[w], z=[], w=[])
    names = Names({}, {})
    found = compare_states("v2", tf2, st2, names, names, set(), history=(tf1, st1))
    assert [m.cls for m in found] == ["tolerated: direct dependency lists under -target"]
    assert not deviations(found)
    assert [m.cls for m in compare_states("v2", tf2, st2, names, names, set())] == ["state: dependencies"]


def test_a_dependency_neither_tool_ever_recorded_is_still_a_deviation() -> None:
    y, w = "terraform_data.y", "terraform_data.w"
    tf1 = _deps_state(u=[y], y=[], z=[], w=[])
    st1 = _deps_state(u=[y], y=[], z=[], w=[])
    tf2 = _deps_state(u=[y], y=[], z=[], w=[])
    st2 = _deps_state(u=[y, w], y=[], z=[], w=[])
    names = Names({}, {})
    found = compare_states("v2", tf2, st2, names, names, set(), history=(tf1, st1))
    assert [m.cls for m in deviations(found)] == ["state: dependencies"]

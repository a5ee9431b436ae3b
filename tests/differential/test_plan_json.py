"""The harness's comparison of two ``show -json`` plans: what it sets aside, and what it finds."""

from __future__ import annotations

from tests.differential.plan_json import compare_plan_json

ID_TF = "0b7e6c4a-1111-4222-8333-944455556666"
ID_ST = "5d2f0c1e-aaaa-4bbb-8ccc-9dddeeeeffff"


def _doc(oid: str, sensitive: object, after_unknown: object = None) -> dict:
    change = {"actions": ["update"], "before": {"id": oid, "input": "a"}, "after": {"id": oid, "input": "b"},
              "after_unknown": after_unknown if after_unknown is not None else {},
              "before_sensitive": {}, "after_sensitive": sensitive}
    return {"format_version": "1.2", "timestamp": "now", "terraform_version": "x",
            "resource_changes": [{"address": "terraform_data.a", "change": change}],
            "relevant_attributes": [{"resource": "terraform_data.b", "attribute": []},
                                    {"resource": "terraform_data.a", "attribute": ["id"]}]}


def test_ids_times_orders_and_empty_skeletons_are_set_aside() -> None:
    tf = _doc(ID_TF, {"input": [{}, {}]})
    st = _doc(ID_ST, {"input": [False, False]})
    st["relevant_attributes"].reverse()
    st["timestamp"] = "later"
    names = {ID_TF: "<a#1>"}
    assert compare_plan_json("v2", tf, st, names, {ID_ST: "<a#1>"}) == []


def test_a_different_field_of_a_change_is_found_and_named() -> None:
    tf = _doc(ID_TF, {}, {"input": True})
    st = _doc(ID_ST, {})
    found = compare_plan_json("v2", tf, st, {ID_TF: "<a#1>"}, {ID_ST: "<a#1>"})
    assert [m.cls for m in found] == ["plan json: resource_changes: change.after_unknown"]
    assert "terraform_data.a" in found[0].detail


def test_an_id_named_differently_is_a_difference() -> None:
    found = compare_plan_json("v2", _doc(ID_TF, {}), _doc(ID_ST, {}), {ID_TF: "<a#1>"}, {ID_ST: "<a#2>"})
    assert {m.cls for m in found} == {"plan json: resource_changes: change.before",
                                      "plan json: resource_changes: change.after"}

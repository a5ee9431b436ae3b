"""engine/plan.py: the pure action choice (select_action), orphan reasons and plan counts.

The truth table follows terraform's ``plan()`` in node_resource_abstract_instance.go:
create when there is no prior object; a tainted prior object is replaced
("tainted"); ``-replace`` forces a replace ("replace_by_request" in the
plan); requires-replace paths whose values changed force a replace
("cannot_update"); equal prior and planned values are a no-op; anything
else is an in-place update. create_before_destroy picks create-delete.
"""

from __future__ import annotations

import pytest

from engine.addrs import InstanceAddr, ResourceAddr, parse_provider_config_addr
from engine.plans.plan import (
    Action,
    Plan,
    Reason,
    ResourceInstanceChange,
    orphan_reason,
    select_action,
)
from engine.values import UNKNOWN, ListVal

PRIOR = {"id": "i-1", "input": "a", "output": "a", "triggers_replace": None}
SAME = dict(PRIOR)
CHANGED = {**PRIOR, "input": "b", "output": "b"}


# --------------------------------------------------------------------------- select_action


def test_no_prior_object_is_create():
    assert select_action(None, CHANGED) == (Action.CREATE, None)


def test_no_prior_object_is_create_even_when_tainted_or_requested():
    assert select_action(None, CHANGED, tainted=True, replace_requested=True,
                         requires_replace=("input",)) == (Action.CREATE, None)


def test_equal_prior_and_planned_is_noop():
    assert select_action(PRIOR, SAME) == (Action.NOOP, None)


def test_different_planned_is_update():
    assert select_action(PRIOR, CHANGED) == (Action.UPDATE, None)


def test_unknown_in_planned_is_update():
    assert select_action(PRIOR, {**PRIOR, "output": UNKNOWN}) == (Action.UPDATE, None)


def test_type_change_of_dynamic_value_is_update():
    prior = {**PRIOR, "input": ("a",)}
    planned = {**PRIOR, "input": ListVal(["a"])}
    assert select_action(prior, planned) == (Action.UPDATE, None), "[\"a\"] → tolist([\"a\"]) is a change"


def test_int_to_float_of_same_value_is_noop():
    assert select_action({**PRIOR, "input": 1}, {**PRIOR, "input": 1.0}) == (Action.NOOP, None)


def test_tainted_is_replace_because_tainted():
    assert select_action(PRIOR, SAME, tainted=True) == (Action.DELETE_THEN_CREATE, Reason.TAINTED)
    assert Reason.TAINTED == "tainted"


def test_requires_replace_is_replace_because_cannot_update():
    assert select_action(PRIOR, CHANGED, requires_replace=("input",)) == (
        Action.DELETE_THEN_CREATE, Reason.CANNOT_UPDATE)
    assert Reason.CANNOT_UPDATE == "cannot_update"


def test_requires_replace_on_unchanged_values_is_noop():
    # terraform keeps only requires-replace paths whose values changed; with nothing changed it is a no-op
    got = select_action(PRIOR, SAME, requires_replace=("triggers_replace",))
    assert got == (Action.NOOP, None), (
        f"prior == planned with requires_replace=('triggers_replace',) is a no-op in terraform, got {got}")


def test_replace_requested_is_replace_by_request():
    assert select_action(PRIOR, SAME, replace_requested=True) == (
        Action.DELETE_THEN_CREATE, Reason.REPLACE_BY_REQUEST)


def test_replace_requested_wins_over_requires_replace():
    assert select_action(PRIOR, CHANGED, replace_requested=True, requires_replace=("input",))[1] == \
        Reason.REPLACE_BY_REQUEST


def test_tainted_wins_over_replace_requested():
    assert select_action(PRIOR, SAME, tainted=True, replace_requested=True)[1] == Reason.TAINTED


@pytest.mark.parametrize(
    "kwargs",
    [{"tainted": True}, {"replace_requested": True}, {"requires_replace": ("input",)}],
    ids=["tainted", "requested", "requires_replace"],
)
def test_create_before_destroy_makes_every_replace_create_delete(kwargs):
    action, _ = select_action(PRIOR, CHANGED, create_before_destroy=True, **kwargs)
    assert action == Action.CREATE_THEN_DELETE


def test_create_before_destroy_does_not_affect_update():
    assert select_action(PRIOR, CHANGED, create_before_destroy=True) == (Action.UPDATE, None)


def test_create_before_destroy_does_not_affect_create():
    assert select_action(None, CHANGED, create_before_destroy=True) == (Action.CREATE, None)


def test_replaces_set_holds_both_orderings():
    assert Action.REPLACES == {"delete-create", "create-delete"}


# --------------------------------------------------------------------------- orphan_reason


@pytest.mark.parametrize(
    ("in_config", "key", "kind", "reason"),
    [
        (False, None, "single", "delete_because_no_resource_config"),
        (False, 0, "single", "delete_because_no_resource_config"),
        (False, "k", "single", "delete_because_no_resource_config"),
        (True, 2, "count", "delete_because_count_index"),
        (True, "gone", "for_each", "delete_because_each_key"),
        (True, None, "count", "delete_because_wrong_repetition"),
        (True, None, "for_each", "delete_because_wrong_repetition"),
        (True, 0, "single", "delete_because_wrong_repetition"),
        (True, 0, "for_each", "delete_because_wrong_repetition"),
        (True, "k", "single", "delete_because_wrong_repetition"),
        (True, "k", "count", "delete_because_wrong_repetition"),
    ],
)
def test_orphan_reason_matches_terraform(in_config, key, kind, reason):
    got = orphan_reason(in_config, kind != "single", key, kind)
    assert got == reason, f"key {key!r} with configuration {kind} (in config: {in_config}) → {reason}, got {got}"


# --------------------------------------------------------------------------- Plan


def change(action: str, name: str = "a", key=None) -> ResourceInstanceChange:
    return ResourceInstanceChange(InstanceAddr(ResourceAddr("terraform_data", name), key), action,
                                  parse_provider_config_addr('provider["terraform.io/builtin/terraform"]'), None, None)


def test_counts_of_empty_plan():
    assert Plan().counts() == {"add": 0, "change": 0, "import": 0, "remove": 0}


def test_counts_one_of_each():
    p = Plan(changes=[change(Action.CREATE, "a"), change(Action.UPDATE, "b"), change(Action.DELETE, "c"),
                      change(Action.NOOP, "d")])
    assert p.counts() == {"add": 1, "change": 1, "import": 0, "remove": 1}


def test_counts_replace_is_one_add_and_one_remove():
    p = Plan(changes=[change(Action.DELETE_THEN_CREATE, "a"), change(Action.CREATE_THEN_DELETE, "b")])
    assert p.counts() == {"add": 2, "change": 0, "import": 0, "remove": 2}


def test_counts_ignore_noop_and_read():
    p = Plan(changes=[change(Action.NOOP), change(Action.READ, "b")])
    assert p.counts() == {"add": 0, "change": 0, "import": 0, "remove": 0}


def test_has_changes_false_for_noops_only():
    assert not Plan(changes=[change(Action.NOOP)]).has_changes()


def test_has_changes_true_for_any_action():
    assert Plan(changes=[change(Action.NOOP, "a"), change(Action.UPDATE, "b")]).has_changes()


def test_has_changes_true_when_an_output_changes():
    p = Plan(outputs={"o": ("new", False)}, prior_outputs={"o": ("old", False)})
    assert p.has_changes() and p.outputs_changed()


def test_new_output_is_a_change():
    assert Plan(outputs={"o": (1, False)}).outputs_changed()


def test_removed_output_is_a_change():
    assert Plan(prior_outputs={"o": (1, False)}).outputs_changed()


def test_unchanged_outputs_are_not_a_change():
    p = Plan(outputs={"o": (("a",), False)}, prior_outputs={"o": (("a",), False)})
    assert not p.outputs_changed()


def test_output_type_change_is_a_change():
    p = Plan(outputs={"o": (ListVal(["a"]), False)}, prior_outputs={"o": (("a",), False)})
    assert p.outputs_changed(), "an output going from a tuple to a list of the same strings changes"


def test_change_is_replace_and_key():
    c = change(Action.CREATE_THEN_DELETE, key=1)
    assert c.is_replace
    assert c.key() == (InstanceAddr(ResourceAddr("terraform_data", "a"), 1), None)
    assert not change(Action.UPDATE).is_replace

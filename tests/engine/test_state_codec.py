"""Reading a v4 state (engine/state/codec.py decode_state): what terraform merges is merged, what
it refuses is refused in its words, and a wrongly typed field is a diagnostic, never a traceback."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson
import pytest

from engine.addrs import InstanceAddr, ResourceAddr, parse_provider_config_addr
from engine.state.codec import StateDecodeError, decode_state
from engine.state.store import StateStore

PROVIDER = parse_provider_config_addr('provider["terraform.io/builtin/terraform"]')
DYNAMIC = {"id": "string", "input": "dynamic", "output": "dynamic", "triggers_replace": "dynamic"}


def dynamic_attrs(type_name: str) -> dict[str, Any]:
    return DYNAMIC if type_name == "terraform_data" else {}


def instance(key: Any, **extra: Any) -> dict[str, Any]:
    return {"index_key": key, "schema_version": 0,
            "attributes": {"id": f"id-{key}", "input": {"value": f"x{key}", "type": "string"},
                           "output": {"value": f"x{key}", "type": "string"}, "triggers_replace": None},
            "sensitive_attributes": [], **extra}


def resource(*instances: dict[str, Any], name: str = "a") -> dict[str, Any]:
    return {"mode": "managed", "type": "terraform_data", "name": name, "provider": str(PROVIDER),
            "instances": list(instances)}


def document(*resources: dict[str, Any]) -> dict[str, Any]:
    return {"version": 4, "terraform_version": "1.11.4", "serial": 3, "lineage": "l-1",
            "outputs": {"o": {"value": "v", "type": "string"}}, "resources": list(resources)}


GOOD = document(resource(instance(0), instance(1), instance(2)))


def decode(doc: Any) -> Any:
    return decode_state(orjson.dumps(doc), "terraform.tfstate", dynamic_attrs)


def keys(state: Any) -> list[str]:
    return sorted(str(a) for a, _d, _o, _p in state.objects())


def test_one_resource_split_over_two_entries_is_merged() -> None:
    state = decode(document(resource(instance(0)), resource(instance(1), instance(2))))
    assert keys(state) == ["terraform_data.a[0]", "terraform_data.a[1]", "terraform_data.a[2]"], \
        "an instance of the first entry was forgotten"


def test_a_duplicate_instance_is_refused_as_terraform_refuses_it() -> None:
    with pytest.raises(StateDecodeError) as info:
        decode(document(resource(instance(0), instance(1)), resource(instance(0))))
    (d,) = info.value.diagnostics
    assert d.summary == "Duplicate resource instance in state", d
    assert d.detail.startswith("Instance terraform_data.a[0] appears multiple times in the state file."), d


def test_a_duplicate_deposed_object_is_refused() -> None:
    with pytest.raises(StateDecodeError, match="deposed object"):
        decode(document(resource(instance(0, deposed="d1"), instance(0, deposed="d1"))))


def test_a_current_and_a_deposed_object_of_one_instance_are_both_kept() -> None:
    state = decode(document(resource(instance(0)), resource(instance(0, deposed="d1"))))
    assert sorted((str(a), d or "") for a, d, _o, _p in state.objects()) == [
        ("terraform_data.a[0]", ""), ("terraform_data.a[0]", "d1")]


# (path into the document, the value put there, terraform 1.11's summary and detail)
WRONG_TYPES = [
    (("serial",), "abc", "Invalid state file format", 'The state file field "serial" has invalid value string'),
    (("serial",), -1, "Invalid state file format", 'The state file field "serial" has invalid value number -1'),
    (("lineage",), 5, "Invalid state file format", 'The state file field "lineage" has invalid value number'),
    (("terraform_version",), 5, "Invalid state file format",
     'The state file field "terraform_version" has invalid value number'),
    (("outputs",), [], "Invalid state file format", 'The state file field "outputs" has invalid value array'),
    (("outputs", "o"), 5, "Invalid state file format", 'The state file field "outputs" has invalid value number'),
    (("outputs", "o", "sensitive"), "yes", "Invalid state file format",
     'The state file field "outputs.sensitive" has invalid value string'),
    (("resources",), {}, "Invalid state file format", 'The state file field "resources" has invalid value object'),
    (("resources", 0), "x", "Invalid state file format", 'The state file field "resources" has invalid value string'),
    (("resources", 0, "name"), 5, "Invalid state file format",
     'The state file field "resources.name" has invalid value number'),
    (("resources", 0, "mode"), "weird", "Invalid resource mode in state",
     'State contains a resource with mode "weird" ("terraform_data" "a") which is not supported.'),
    (("resources", 0, "provider"), 5, "Invalid state file format",
     'The state file field "resources.provider" has invalid value number'),
    (("resources", 0, "instances", 1), "x", "Invalid state file format",
     'The state file field "resources.instances" has invalid value string'),
    (("resources", 0, "instances", 1, "attributes"), [1], "Invalid state file format",
     'The state file field "resources.instances.attributes" has invalid value array'),
    (("resources", 0, "instances", 1, "schema_version"), "x", "Invalid state file format",
     'The state file field "resources.instances.schema_version" has invalid value string'),
    (("resources", 0, "instances", 1, "dependencies"), "x", "Invalid state file format",
     'The state file field "resources.instances.dependencies" has invalid value string'),
    (("resources", 0, "instances", 1, "status"), "weird", "Invalid resource instance metadata in state",
     'Instance terraform_data.a[1] has invalid status "weird".'),
    (("resources", 0, "instances", 1, "deposed"), 5, "Invalid state file format",
     'The state file field "resources.instances.deposed" has invalid value number'),
    (("resources", 0, "instances", 1, "create_before_destroy"), "yes", "Invalid state file format",
     'The state file field "resources.instances.create_before_destroy" has invalid value string'),
    (("resources", 0, "instances", 1, "index_key"), [1], "Invalid resource instance metadata in state",
     "Resource terraform_data.a has an instance with the invalid instance key [1]."),
    (("check_results",), 5, "Invalid state file format",
     'The state file field "check_results" has invalid value number'),
    (("version",), "4", "Unsupported state file format",
     "The version in the state file is string. A positive whole number is required."),
]


def put(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    doc = copy.deepcopy(doc)
    at = doc
    for step in path[:-1]:
        at = at[step]
    at[path[-1]] = value
    return doc


@pytest.mark.parametrize(("path", "value", "summary", "detail"), WRONG_TYPES,
                         ids=[".".join(map(str, w[0])) + "=" + repr(w[1]) for w in WRONG_TYPES])
def test_a_field_of_the_wrong_type_is_terraforms_diagnostic(path: tuple[Any, ...], value: Any, summary: str,
                                                            detail: str) -> None:
    with pytest.raises(StateDecodeError) as info:
        decode(put(GOOD, path, value))
    (d,) = info.value.diagnostics
    assert (d.summary, d.detail.split("\n")[0]) == (summary, detail)
    assert "terraform.tfstate" in d.detail, "the diagnostic should name the state file"


def test_null_where_terraform_accepts_null_is_no_error() -> None:
    for path in (("serial",), ("outputs",), ("resources", 0, "instances", 1, "dependencies"),
                 ("resources", 0, "instances", 1, "status"), ("check_results",)):
        decode(put(GOOD, path, None))


@pytest.fixture
def state_path(tmp_path: Path) -> Path:
    return tmp_path / "terraform.tfstate"


def test_a_state_of_whitespace_is_an_error_not_an_empty_state(state_path: Path) -> None:
    state_path.write_bytes(b"  \n\t \n")
    with pytest.raises(StateDecodeError) as info:
        StateStore(str(state_path), dynamic_attrs).load()
    assert [d.summary for d in info.value.diagnostics] == ["Unsupported state file format"] * 2
    assert info.value.diagnostics[0].detail.startswith(
        "The state file could not be parsed as JSON: syntax error at byte offset 6."), "not terraform's words"


def test_an_empty_state_file_is_no_state(state_path: Path) -> None:
    state_path.write_bytes(b"")
    assert keys(StateStore(str(state_path), dynamic_attrs).load()) == []


def test_a_decoded_instance_keeps_its_attributes() -> None:
    obj = decode(GOOD).object(InstanceAddr(ResourceAddr("terraform_data", "a"), 1))
    assert obj is not None and obj.attributes["input"] == "x1" and obj.attributes["id"] == "id-1"

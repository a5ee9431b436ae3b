"""strata against the real terraform: each reads the other's state, and both write the same formats.

The live tests run the `terraform` binary (its built-in ``terraform_data`` needs no
provider download); the offline tests compare against the recordings in
/work/shared/reference/terraform-samples/ so the formats are checked even where no
binary is installed.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import Result, Workdir, requires_terraform

REFERENCE = Path("/work/shared/reference/terraform-samples")
requires_reference = pytest.mark.skipif(not (REFERENCE / "main.tf").exists(),
                                        reason=f"terraform recordings not found in {REFERENCE}")

# Event payloads whose key structure must match terraform's.
PAYLOAD_KEYS = ("hook", "change", "changes", "outputs", "diagnostic")


def sample_config() -> str:
    return (REFERENCE / "main.tf").read_text()


def terraform(workdir: Workdir, *args: str, check: bool = True) -> Result:
    env = dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", TF_IN_AUTOMATION="1", CHECKPOINT_DISABLE="1")
    proc = subprocess.run(["terraform", *args], cwd=workdir.path, env=env, capture_output=True,
                          text=True, timeout=300)
    res = Result(proc.returncode, proc.stdout, proc.stderr)
    if check and proc.returncode != 0:
        raise AssertionError(f"terraform {' '.join(args)} exited {proc.returncode}\n"
                             f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return res


def terraform_apply(workdir: Workdir, *extra: str) -> Result:
    terraform(workdir, "init", "-input=false", "-no-color")
    return terraform(workdir, "apply", "-auto-approve", "-input=false", "-no-color", *extra)


def forget_state(workdir: Workdir) -> None:
    """Remove every state file so the next tool starts from nothing."""
    for p in workdir.path.iterdir():
        if p.name.startswith("terraform.tfstate") or p.name.startswith(".terraform.tfstate"):
            p.unlink()


# ----------------------------------------------------------------------------- state normalisation

def _instance_name(resource: dict[str, Any], instance: dict[str, Any]) -> str:
    addr = f"{resource['type']}.{resource['name']}"
    if "index_key" in instance:
        addr += f"[{orjson.dumps(instance['index_key']).decode()}]"
    return addr


def normalise_state(doc: dict[str, Any], *, keep_version: bool = True) -> dict[str, Any]:
    """The state without what must differ between two applies.

    Each object id is replaced by ``<address of its owner>`` wherever it appears
    (the id attribute, ``triggers_replace`` of dependents, outputs), so the
    references between objects are still compared. Lineage and serial are dropped.
    """
    ids: dict[str, str] = {}
    for r in doc.get("resources", []):
        for inst in r.get("instances", []):
            oid = (inst.get("attributes") or {}).get("id")
            if isinstance(oid, str):
                ids[oid] = f"<id of {_instance_name(r, inst)}>"

    def walk(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, str) and v in ids:
            return ids[v]
        return v

    out = walk(doc)
    out.pop("lineage", None)
    out.pop("serial", None)
    if not keep_version:
        assert "terraform_version" in out, "the state has no terraform_version"
        out.pop("terraform_version")
    return out


def state_differences(expected: dict[str, Any], actual: dict[str, Any], path: str = "$") -> list[str]:
    """Human-readable differences, so a failure says exactly which key or value broke."""
    diffs: list[str] = []
    if isinstance(expected, dict) and isinstance(actual, dict):
        for k in sorted(set(expected) | set(actual)):
            if k not in actual:
                diffs.append(f"{path}.{k}: missing in strata's state (terraform has {expected[k]!r})")
            elif k not in expected:
                diffs.append(f"{path}.{k}: strata has it ({actual[k]!r}), terraform does not")
            else:
                diffs.extend(state_differences(expected[k], actual[k], f"{path}.{k}"))
    elif isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            diffs.append(f"{path}: terraform has {len(expected)} items, strata {len(actual)}: "
                         f"{expected!r} vs {actual!r}")
        else:
            for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
                diffs.extend(state_differences(e, a, f"{path}[{i}]"))
    elif expected != actual or type(expected) is not type(actual):
        diffs.append(f"{path}: terraform {expected!r}, strata {actual!r}")
    return diffs


# ----------------------------------------------------------------------------- event shapes

def _shape(v: Any) -> Any:
    """The key structure of a JSON value: nested dict keys, leaves collapsed."""
    if isinstance(v, dict):
        return tuple(sorted((k, _shape(x)) for k, x in v.items()))
    return "*"


def event_shapes(events: list[dict[str, Any]], *, skip: tuple[str, ...] = ("version",)
                 ) -> dict[str, set[Any]]:
    """For each event type, the set of distinct shapes of its top-level keys and payloads."""
    shapes: dict[str, set[Any]] = {}
    for e in events:
        if e["type"] in skip:
            continue
        top = tuple(sorted(k for k in e if k not in PAYLOAD_KEYS))
        payload = tuple((k, _shape(e[k])) for k in PAYLOAD_KEYS if k in e)
        shapes.setdefault(e["type"], set()).add((top, payload))
    return shapes


def shape_differences(expected: dict[str, set[Any]], actual: dict[str, set[Any]]) -> list[str]:
    diffs = []
    for t in sorted(set(expected) | set(actual)):
        if t not in actual:
            diffs.append(f"event type {t!r}: terraform emits it, strata does not")
        elif t not in expected:
            diffs.append(f"event type {t!r}: strata emits it, terraform does not")
        elif expected[t] != actual[t]:
            diffs.append(f"event type {t!r}: shapes differ\n  terraform only: {expected[t] - actual[t]}\n"
                         f"  strata only:    {actual[t] - expected[t]}")
    return diffs


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_text().splitlines() if line.strip()]


def assert_version_event_compatible(tf_events: list[dict[str, Any]], st_events: list[dict[str, Any]]) -> None:
    tf_version = [e for e in tf_events if e["type"] == "version"]
    st_version = [e for e in st_events if e["type"] == "version"]
    assert len(st_version) == 1 == len(tf_version), \
        f"expected one version event first, got {len(st_version)} (terraform: {len(tf_version)})"
    assert st_events[0]["type"] == "version", f"strata's first event is {st_events[0]['type']!r}, not version"
    missing = set(tf_version[0]) - set(st_version[0])
    assert not missing, f"strata's version event lacks terraform's keys {sorted(missing)}"


# ============================================================================ live, with terraform

@requires_terraform
@requires_reference
def test_strata_plans_no_changes_against_terraform_state(workdir: Workdir) -> None:
    workdir.write(sample_config())
    terraform_apply(workdir)
    plan = workdir.strata("plan", "-detailed-exitcode")
    assert plan.returncode == 0, (
        f"strata plan against terraform's freshly applied state should be a no-op (exit 0), "
        f"got exit {plan.returncode}\nstdout:\n{plan.stdout}\nstderr:\n{plan.stderr}")
    assert "No changes." in plan.stdout, plan.stdout


@requires_terraform
@requires_reference
def test_terraform_plans_no_changes_against_strata_state(workdir: Workdir) -> None:
    workdir.write(sample_config())
    workdir.strata("apply", "-auto-approve", check=True)
    terraform(workdir, "init", "-input=false", "-no-color")
    plan = terraform(workdir, "plan", "-detailed-exitcode", "-input=false", "-no-color", check=False)
    assert plan.returncode == 0, (
        f"terraform plan against strata's freshly applied state should be a no-op (exit 0), "
        f"got exit {plan.returncode}\nstdout:\n{plan.stdout}\nstderr:\n{plan.stderr}")


@requires_terraform
@requires_reference
def test_terraform_plans_no_changes_after_strata_updates_terraform_state(workdir: Workdir) -> None:
    workdir.write(sample_config())
    terraform_apply(workdir)
    workdir.strata("apply", "-auto-approve", "-var", "env=prod", check=True)
    plan = terraform(workdir, "plan", "-detailed-exitcode", "-input=false", "-no-color", "-var", "env=prod",
                     check=False)
    assert plan.returncode == 0, (
        f"after strata updated terraform's state (env=prod), terraform plan should be a no-op, "
        f"got exit {plan.returncode}\nstdout:\n{plan.stdout}\nstderr:\n{plan.stderr}")


@requires_terraform
@requires_reference
def test_strata_destroys_what_terraform_created(workdir: Workdir) -> None:
    workdir.write(sample_config())
    terraform_apply(workdir)
    res = workdir.strata("destroy", "-auto-approve", "-json", check=True)
    assert res.of_type("change_summary")[-1]["changes"]["remove"] == 5, res.of_type("change_summary")
    assert workdir.state()["resources"] == [], workdir.state()["resources"]
    plan = terraform(workdir, "plan", "-detailed-exitcode", "-input=false", "-no-color", check=False)
    assert plan.returncode == 2 and "5 to add" in plan.stdout, plan.stdout + plan.stderr


@requires_terraform
@requires_reference
def test_state_file_has_terraforms_structure(workdir: Workdir) -> None:
    workdir.write(sample_config())
    terraform_apply(workdir)
    tf_state = workdir.state()
    forget_state(workdir)
    workdir.strata("apply", "-auto-approve", check=True)
    st_state = workdir.state()
    diffs = state_differences(normalise_state(tf_state, keep_version=False),
                              normalise_state(st_state, keep_version=False))
    assert not diffs, "strata's state differs from terraform's for the same config:\n" + "\n".join(diffs)


@requires_terraform
@requires_reference
def test_apply_json_events_have_terraforms_shape(workdir: Workdir) -> None:
    workdir.write(sample_config())
    tf = terraform_apply(workdir, "-json")
    tf_events = [orjson.loads(line) for line in tf.stdout.splitlines() if line.startswith("{")]
    forget_state(workdir)
    st = workdir.strata("apply", "-auto-approve", "-json", check=True)
    diffs = shape_differences(event_shapes(tf_events), event_shapes(st.events))
    assert not diffs, "strata's apply -json stream differs in shape from terraform's:\n" + "\n".join(diffs)


@requires_terraform
@requires_reference
def test_apply_json_version_event_carries_terraforms_keys(workdir: Workdir) -> None:
    workdir.write(sample_config())
    tf = terraform_apply(workdir, "-json")
    tf_events = [orjson.loads(line) for line in tf.stdout.splitlines() if line.startswith("{")]
    forget_state(workdir)
    st = workdir.strata("apply", "-auto-approve", "-json", check=True)
    assert_version_event_compatible(tf_events, st.events)


# ============================================================================ offline, against recordings

@requires_reference
def test_state_file_matches_recorded_terraform_state(workdir: Workdir) -> None:
    workdir.write(sample_config())
    workdir.strata("apply", "-auto-approve", check=True)
    recorded = orjson.loads((REFERENCE / "state-after-create.tfstate").read_bytes())
    diffs = state_differences(normalise_state(recorded), normalise_state(workdir.state()))
    assert not diffs, ("strata's state differs from terraform's recorded state-after-create.tfstate:\n"
                       + "\n".join(diffs))


@requires_reference
def test_state_file_after_update_matches_recorded_terraform_state(workdir: Workdir) -> None:
    workdir.write(sample_config())
    workdir.strata("apply", "-auto-approve", check=True)
    workdir.strata("apply", "-auto-approve", "-var", "env=prod", check=True)
    recorded = orjson.loads((REFERENCE / "state-after-change.tfstate").read_bytes())
    diffs = state_differences(normalise_state(recorded), normalise_state(workdir.state()))
    assert not diffs, ("strata's state after env=prod differs from terraform's recorded "
                       "state-after-change.tfstate:\n" + "\n".join(diffs))


@requires_reference
def test_apply_json_events_match_recorded_shapes(workdir: Workdir) -> None:
    # The recording applied a saved plan, so its plan phase is in plan-create.jsonl;
    # `strata apply -auto-approve -json` streams both phases.
    recorded = read_jsonl(REFERENCE / "plan-create.jsonl") + read_jsonl(REFERENCE / "apply-create.jsonl")
    workdir.write(sample_config())
    st = workdir.strata("apply", "-auto-approve", "-json", check=True)
    diffs = shape_differences(event_shapes(recorded), event_shapes(st.events))
    assert not diffs, ("strata's apply -json stream differs in shape from the recorded "
                       "plan-create.jsonl + apply-create.jsonl:\n" + "\n".join(diffs))


@requires_reference
def test_apply_json_final_outputs_event_matches_recording(workdir: Workdir) -> None:
    recorded = read_jsonl(REFERENCE / "apply-create.jsonl")
    workdir.write(sample_config())
    st = workdir.strata("apply", "-auto-approve", "-json", check=True)
    assert st.events[-1]["type"] == "outputs", \
        f"the apply stream should end with the outputs event, ends with {st.events[-1]['type']!r}"
    assert recorded[-1]["type"] == "outputs"
    assert _shape(st.events[-1]["outputs"]) == _shape(recorded[-1]["outputs"]), (
        f"final outputs payload: strata {st.events[-1]['outputs']!r}, "
        f"terraform {recorded[-1]['outputs']!r}")
    assert st.events[-1]["outputs"]["node_ids"]["type"] == recorded[-1]["outputs"]["node_ids"]["type"]


@requires_reference
def test_plan_json_events_match_recorded_shapes(workdir: Workdir) -> None:
    recorded = read_jsonl(REFERENCE / "plan-create.jsonl")
    workdir.write(sample_config())
    st = workdir.strata("plan", "-json")
    assert st.returncode == 0, st.stderr
    diffs = shape_differences(event_shapes(recorded), event_shapes(st.events))
    assert not diffs, "strata's plan -json differs in shape from plan-create.jsonl:\n" + "\n".join(diffs)


@requires_reference
def test_update_apply_json_events_match_recorded_shapes(workdir: Workdir) -> None:
    recorded = read_jsonl(REFERENCE / "apply-change.jsonl")
    workdir.write(sample_config())
    workdir.strata("apply", "-auto-approve", check=True)
    st = workdir.strata("apply", "-auto-approve", "-json", "-var", "env=prod", check=True)
    diffs = shape_differences(event_shapes(recorded), event_shapes(st.events))
    assert not diffs, "strata's update apply -json differs in shape from apply-change.jsonl:\n" + "\n".join(diffs)


@requires_reference
def test_destroy_json_events_match_recorded_shapes(workdir: Workdir) -> None:
    recorded = read_jsonl(REFERENCE / "destroy.jsonl")
    workdir.write(sample_config())
    workdir.strata("apply", "-auto-approve", check=True)
    st = workdir.strata("destroy", "-auto-approve", "-json", check=True)
    diffs = shape_differences(event_shapes(recorded), event_shapes(st.events))
    assert not diffs, "strata's destroy -json differs in shape from destroy.jsonl:\n" + "\n".join(diffs)


@requires_reference
def test_apply_json_version_event_carries_recorded_keys(workdir: Workdir) -> None:
    recorded = read_jsonl(REFERENCE / "apply-create.jsonl")
    workdir.write(sample_config())
    st = workdir.strata("apply", "-auto-approve", "-json", check=True)
    assert_version_event_compatible(recorded, st.events)

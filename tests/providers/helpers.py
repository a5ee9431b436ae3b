"""Helpers shared by the provider tests: reading the -json stream and the state file."""

from __future__ import annotations

from typing import Any

from tests.conftest import Result, Workdir


def actions(res: Result) -> dict[str, str]:
    """Address → planned action ("create", "update", "replace", "delete", "read") from a -json stream."""
    return {e["change"]["resource"]["addr"]: e["change"]["action"] for e in res.of_type("planned_change")}


def instance(workdir: Workdir, addr: str) -> dict[str, Any]:
    """The state entry (schema_version, attributes...) of a single-instance resource, by address."""
    mode = "managed"
    if addr.startswith("data."):
        mode, addr = "data", addr[len("data."):]
    rtype, name = addr.split(".")
    for r in workdir.state()["resources"]:
        if (r["mode"], r["type"], r["name"]) == (mode, rtype, name):
            assert len(r["instances"]) == 1, r
            return {**r["instances"][0], "provider": r["provider"]}
    raise AssertionError(f"{addr} is not in the state")


def attrs(workdir: Workdir, addr: str) -> dict[str, Any]:
    return instance(workdir, addr)["attributes"]


def addresses(workdir: Workdir) -> list[str]:
    return [("data." if r["mode"] == "data" else "") + f"{r['type']}.{r['name']}"
            for r in workdir.state()["resources"]]


def apply(workdir: Workdir) -> Result:
    return workdir.strata("apply", "-auto-approve", "-json", check=True)


def plan(workdir: Workdir) -> Result:
    return workdir.strata("plan", "-json", check=True)


def assert_no_changes(workdir: Workdir) -> None:
    res = workdir.strata("plan", "-detailed-exitcode")
    assert res.returncode == 0, f"expected no changes\nstdout:\n{res.stdout}\nstderr:\n{res.stderr}"


def errors(res: Result) -> list[str]:
    """Summaries and details of the error diagnostics in a -json stream, plus stderr."""
    out = [f"{e['diagnostic']['summary']}: {e['diagnostic'].get('detail', '')}"
           for e in res.of_type("diagnostic") if e["diagnostic"]["severity"] == "error"]
    return out + ([res.stderr] if res.stderr.strip() else [])

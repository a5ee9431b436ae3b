"""The ``sim`` provider: a simulated cloud whose objects live in a ledger file.

Two kinds of test: through the real ``strata`` command on .tf files (objects
counted with ``python -m providers.sim ls``), and at the provider seam where
that is clearer (crash adoption, fault modes, latency, the ledger itself).
Latencies are 0-30 ms; no test asserts timing ratios.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from engine import (
    UNKNOWN,
    ApplyResourceChangeRequest,
    ImportResourceStateRequest,
    PlanResourceChangeRequest,
    ReadDataSourceRequest,
    ReadResourceRequest,
)
from engine.provider.protocol import proposed_new_state
from providers.sim import Ledger, SimProvider, latency_sample, object_token
from tests.conftest import REPO, Workdir

# ---------------------------------------------------------------------- helpers


def run_sim(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "providers.sim", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)


def ls(ledger: Path) -> list[dict[str, Any]]:
    proc = run_sim("ls", str(ledger))
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def by_name(ledger: Path) -> dict[str, dict[str, Any]]:
    return {o["name"]: o for o in ls(ledger)}


def state_ids(w: Workdir) -> dict[str, str]:
    out = {}
    for r in w.state()["resources"]:
        if r["mode"] != "managed":
            continue
        for inst in r["instances"]:
            key = f"[{inst['index_key']!r}]".replace("'", '"') if "index_key" in inst else ""
            out[f"{r['type']}.{r['name']}{key}"] = inst["attributes"]["id"]
    return out


def provider_block(ledger: Path, **extra: Any) -> str:
    lines = [f'  ledger = "{ledger}"', "  latency_ms = 0"]
    lines += [f"  {k} = {json.dumps(v)}" for k, v in extra.items()]
    return 'provider "sim" {\n' + "\n".join(lines) + "\n}\n"


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    return tmp_path / "cloud" / "ledger.jsonl"


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def provider(ledger: Path, **config: Any) -> SimProvider:
    p = SimProvider()
    diags = await p.configure({"ledger": str(ledger), "latency_ms": 0, **config})
    assert diags == (), diags
    return p


def full_config(p: SimProvider, config: dict[str, Any]) -> dict[str, Any]:
    schema = p.get_schema().resources["sim_object"]
    return {**dict.fromkeys(schema.attributes), **config}


async def plan(p: SimProvider, prior: dict[str, Any] | None, config: dict[str, Any]
               ) -> tuple[dict[str, Any] | None, tuple[str, ...]]:
    schema = p.get_schema().resources["sim_object"]
    cfg = full_config(p, config)
    resp = await p.plan_resource_change(
        PlanResourceChangeRequest("sim_object", prior, proposed_new_state(schema, prior, cfg), cfg))
    assert not resp.diagnostics, resp.diagnostics
    return resp.planned_state, resp.requires_replace


async def apply(p: SimProvider, prior: dict[str, Any] | None, config: dict[str, Any] | None
                ) -> tuple[dict[str, Any] | None, list[Any]]:
    """Plan and apply like the core does (create, update in place, or delete when config is None)."""
    if config is None:
        assert prior is not None
        resp = await p.apply_resource_change(ApplyResourceChangeRequest("sim_object", prior, None, None))
        return resp.new_state, list(resp.diagnostics)
    planned, replace = await plan(p, prior, config)
    assert not replace, replace
    resp = await p.apply_resource_change(
        ApplyResourceChangeRequest("sim_object", prior, planned, full_config(p, config)))
    return resp.new_state, list(resp.diagnostics)


async def create(p: SimProvider, **config: Any) -> dict[str, Any]:
    new, diags = await apply(p, None, config)
    assert not diags and new is not None, diags
    return new


# ---------------------------------------------------------------------- through the CLI


def test_create_many_noop_replan_and_destroy_without_orphans(workdir: Workdir, ledger: Path) -> None:
    workdir.write(provider_block(ledger) + """
        resource "sim_object" "o" {
          count   = 40
          name    = "obj-${count.index}"
          payload = "p${count.index}"
        }
    """)
    res = workdir.strata("apply", "-auto-approve", "-json", "-parallelism=16", check=True)
    assert res.of_type("change_summary")[-1]["changes"]["add"] == 40
    objs = by_name(ledger)
    assert sorted(objs) == sorted(f"obj-{i}" for i in range(40))
    assert objs["obj-7"]["attributes"]["payload"] == "p7"
    assert objs["obj-7"]["type"] == "sim_object"
    assert objs["obj-7"]["token"] == object_token("sim_object", "obj-7", None)
    assert sorted(state_ids(workdir).values()) == sorted(o["id"] for o in objs.values())

    again = workdir.strata("plan", "-detailed-exitcode")
    assert again.returncode == 0, again.stdout + again.stderr

    workdir.strata("destroy", "-auto-approve", "-json", check=True)
    assert ls(ledger) == []
    assert ledger.stat().st_size > 0  # the history stays


def test_payload_updates_in_place_and_zone_replaces(workdir: Workdir, ledger: Path) -> None:
    cfg = provider_block(ledger) + """
        resource "sim_object" "x" {
          name    = "x"
          payload = "PAYLOAD"
          zone    = "ZONE"
        }
        resource "sim_object" "y" {
          name    = "y"
          payload = sim_object.x.payload
        }
    """
    workdir.write(cfg.replace("PAYLOAD", "one").replace("ZONE", "z1"))
    workdir.strata("apply", "-auto-approve", check=True)
    first = state_ids(workdir)

    workdir.write(cfg.replace("PAYLOAD", "two").replace("ZONE", "z1"))
    res = workdir.strata("apply", "-auto-approve", "-json", check=True)
    c = res.of_type("change_summary")[-1]["changes"]
    assert (c["add"], c["change"], c["remove"]) == (0, 2, 0)
    assert state_ids(workdir) == first
    objs = by_name(ledger)
    assert objs["x"]["attributes"]["payload"] == "two" and objs["y"]["attributes"]["payload"] == "two"

    workdir.write(cfg.replace("PAYLOAD", "two").replace("ZONE", "z2"))
    res = workdir.strata("apply", "-auto-approve", "-json", check=True)
    c = res.of_type("change_summary")[-1]["changes"]
    assert (c["add"], c["change"], c["remove"]) == (1, 0, 1)
    ids = state_ids(workdir)
    assert ids["sim_object.x"] != first["sim_object.x"] and ids["sim_object.y"] == first["sim_object.y"]
    objs = by_name(ledger)
    assert len(ls(ledger)) == 2  # the old x is gone: no orphan
    assert objs["x"]["id"] == ids["sim_object.x"] and objs["x"]["attributes"]["zone"] == "z2"


def test_failed_create_fails_alone_and_skips_its_dependents(workdir: Workdir, ledger: Path) -> None:
    workdir.write(provider_block(ledger) + """
        resource "sim_object" "bad" {
          name = "bad"
          fail = "create"
        }
        resource "sim_object" "child" {
          name    = "child"
          payload = sim_object.bad.id
        }
        resource "sim_object" "grandchild" {
          name    = "grandchild"
          payload = sim_object.child.id
        }
        resource "sim_object" "ok" {
          count = 3
          name  = "ok-${count.index}"
        }
    """)
    res = workdir.strata("apply", "-auto-approve", "-json")
    assert res.returncode == 1, res.stdout + res.stderr
    errored = [e["hook"]["resource"]["addr"] for e in res.of_type("apply_errored")]
    assert errored == ["sim_object.bad"]
    skipped = {e["hook"]["resource"]["addr"]: e["hook"]["because"] for e in res.of_type("apply_skipped")}
    assert skipped == {"sim_object.child": "sim_object.bad", "sim_object.grandchild": "sim_object.bad"}
    diags = [e["diagnostic"] for e in res.of_type("diagnostic")]
    assert any(d["summary"] == "Simulated create failure" for d in diags)
    assert sorted(by_name(ledger)) == ["ok-0", "ok-1", "ok-2"]
    assert sorted(state_ids(workdir)) == ["sim_object.ok[0]", "sim_object.ok[1]", "sim_object.ok[2]"]


def test_create_after_lost_state_adopts_instead_of_duplicating(workdir: Workdir, ledger: Path) -> None:
    """A crash between the cloud's create and the state write: the next create adopts the object."""
    workdir.write(provider_block(ledger) + """
        resource "sim_object" "o" {
          for_each = toset(["a", "b", "c"])
          name     = each.key
          payload  = "v1"
        }
    """)
    workdir.strata("apply", "-auto-approve", check=True)
    before = state_ids(workdir)
    (workdir.path / "terraform.tfstate").unlink()

    res = workdir.strata("apply", "-auto-approve", "-json", check=True)
    assert res.of_type("change_summary")[-1]["changes"]["add"] == 3
    assert state_ids(workdir) == before
    assert sorted(o["id"] for o in ls(ledger)) == sorted(before.values())


def test_create_before_destroy_replace_with_the_same_name_keeps_the_object(workdir: Workdir,
                                                                          ledger: Path) -> None:
    """The replacement's create adopts the object (same token); the deposed delete must not remove it."""
    workdir.write(provider_block(ledger) + """
        resource "sim_object" "a" {
          name = "a"
          lifecycle { create_before_destroy = true }
        }
    """)
    workdir.strata("apply", "-auto-approve", check=True)
    workdir.strata("apply", "-auto-approve", "-replace=sim_object.a", check=True)
    [obj] = ls(ledger)
    assert obj["id"] == state_ids(workdir)["sim_object.a"] and obj["attributes"]["generation"] == 2
    assert workdir.strata("plan", "-detailed-exitcode").returncode == 0
    workdir.strata("destroy", "-auto-approve", check=True)
    assert ls(ledger) == []


def test_object_deleted_outside_strata_is_planned_for_recreation(workdir: Workdir, ledger: Path) -> None:
    workdir.write(provider_block(ledger) + """
        resource "sim_object" "a" { name = "a" }
        resource "sim_object" "b" { name = "b" }
    """)
    workdir.strata("apply", "-auto-approve", check=True)
    gone = state_ids(workdir)["sim_object.a"]
    rm = run_sim("rm", str(ledger), gone)
    assert rm.returncode == 0, rm.stderr
    assert sorted(by_name(ledger)) == ["b"]

    plan_res = workdir.strata("plan", "-detailed-exitcode", "-json")
    assert plan_res.returncode == 2, plan_res.stdout + plan_res.stderr
    planned = [(e["change"]["resource"]["addr"], e["change"]["action"]) for e in plan_res.of_type("planned_change")]
    assert planned == [("sim_object.a", "create")]
    workdir.strata("apply", "-auto-approve", check=True)
    objs = by_name(ledger)
    assert sorted(objs) == ["a", "b"] and objs["a"]["id"] != gone
    assert run_sim("rm", str(ledger), gone).returncode == 1  # no longer live


def test_data_source_reads_the_live_object(workdir: Workdir, ledger: Path) -> None:
    workdir.write(provider_block(ledger) + """
        resource "sim_object" "src" {
          name    = "src"
          payload = "hello"
          zone    = "z1"
        }
    """)
    workdir.strata("apply", "-auto-approve", check=True)
    src = by_name(ledger)["src"]
    # a second configuration (another team's) looks the object up by name
    other = Workdir(workdir.path / "other")
    other.path.mkdir()
    other.write(provider_block(ledger) + """
        data "sim_object" "found" { name = "src" }
        output "payload" { value = data.sim_object.found.payload }
        output "id"      { value = data.sim_object.found.id }
        output "zone"    { value = data.sim_object.found.zone }
    """)
    res = other.strata("apply", "-auto-approve", "-json", check=True)
    outputs = res.of_type("outputs")[-1]["outputs"]
    assert outputs["payload"]["value"] == "hello"
    assert outputs["id"]["value"] == src["id"]
    assert outputs["zone"]["value"] == "z1"

    other.write(provider_block(ledger) + 'data "sim_object" "found" { name = "nope" }\n')
    missing = other.strata("plan", "-json")
    assert missing.returncode == 1
    assert any(e["diagnostic"]["summary"] == "Object not found" for e in missing.of_type("diagnostic"))


def test_random_failures_are_retryable_and_retried_by_the_core(workdir: Workdir, ledger: Path) -> None:
    workdir.write(provider_block(ledger, failure_rate=0.3, seed=7) + """
        resource "sim_object" "o" {
          count = 20
          name  = "o-${count.index}"
        }
    """)
    res = workdir.strata("apply", "-auto-approve", "-json", "-retries=12", check=True)
    assert res.of_type("change_summary")[-1]["changes"]["add"] == 20
    retries = [e for e in res.of_type("apply_progress") if "retrying" in e["@message"]]
    fails = [json.loads(line) for line in ledger.read_text().splitlines() if '"op":"fail"' in line]
    assert retries and len(retries) == len(fails)
    assert len(ls(ledger)) == 20


def test_provider_configuration_errors(workdir: Workdir, ledger: Path) -> None:
    workdir.write('provider "sim" { latency_ms = 1 }\nresource "sim_object" "a" { name = "a" }\n')
    res = workdir.strata("plan", "-json")
    assert res.returncode == 1
    assert any("ledger" in e["diagnostic"]["detail"] for e in res.of_type("diagnostic"))

    workdir.write(provider_block(ledger, latency="gaussian") + 'resource "sim_object" "a" { name = "a" }\n')
    res = workdir.strata("plan", "-json")
    assert res.returncode == 1
    assert any(e["diagnostic"]["summary"] == "Invalid latency distribution" for e in res.of_type("diagnostic"))

    workdir.write(provider_block(ledger) + 'resource "sim_object" "a" {\n name = "a"\n fail = "sometimes"\n}\n')
    res = workdir.strata("plan", "-json")
    assert res.returncode == 1
    assert any(e["diagnostic"]["summary"] == "Invalid fail mode" for e in res.of_type("diagnostic"))
    assert not ledger.exists() or ls(ledger) == []


# ---------------------------------------------------------------------- at the provider seam


@pytest.mark.anyio
async def test_concurrent_creates_each_make_one_object(ledger: Path) -> None:
    p = await provider(ledger, latency_ms=1, latency="uniform")
    results: dict[int, dict[str, Any]] = {}

    async def one(i: int) -> None:
        results[i] = await create(p, name=f"n{i}", payload=str(i))

    async with anyio.create_task_group() as tg:
        for i in range(300):
            tg.start_soon(one, i)
    ids = {r["id"] for r in results.values()}
    assert len(ids) == 300
    listed = ls(ledger)
    assert len(listed) == 300 and {o["id"] for o in listed} == ids
    assert all(r["created_at"] and r["created_at"] is not UNKNOWN for r in results.values())


@pytest.mark.anyio
async def test_plan_noop_update_in_place_and_replace(ledger: Path) -> None:
    p = await provider(ledger)
    cfg = {"name": "x", "payload": "a", "zone": "z1"}
    planned, replace = await plan(p, None, cfg)
    assert planned is not None and planned["id"] is UNKNOWN and planned["created_at"] is UNKNOWN
    state = await create(p, **cfg)

    planned, replace = await plan(p, state, cfg)
    assert planned == state and replace == ()

    planned, replace = await plan(p, state, {**cfg, "payload": "b"})
    assert replace == () and planned is not None
    assert planned["id"] == state["id"] and planned["created_at"] == state["created_at"]  # known at plan
    new, diags = await apply(p, state, {**cfg, "payload": "b"})
    assert not diags and new == {**state, "payload": "b"}
    assert p.ledger().get(state["id"]).attributes["payload"] == "b"  # type: ignore[union-attr]

    _, replace = await plan(p, new, {**cfg, "zone": "z2", "payload": "b"})
    assert replace == ("zone",)


@pytest.mark.anyio
async def test_crash_then_create_again_adopts_the_object(ledger: Path) -> None:
    first = await provider(ledger)
    made = await create(first, name="db", payload="v1", zone="z")
    del first  # the process "crashed" before strata recorded the object: the state is lost

    second = await provider(ledger)  # a new process: replays the ledger from disk
    again = await create(second, name="db", payload="v1", zone="z")
    assert again == {**made, "generation": 2}  # the same object, claimed a second time
    changed = await create(second, name="db", payload="v2", zone="z")  # config changed meanwhile
    assert changed["id"] == made["id"] and changed["payload"] == "v2"
    assert [o["id"] for o in ls(ledger)] == [made["id"]]
    creates = [line for line in ledger.read_text().splitlines() if '"op":"create"' in line]
    assert len(creates) == 1

    other_zone = await create(second, name="db", payload="v1", zone="elsewhere")  # another token
    assert other_zone["id"] != made["id"] and len(ls(ledger)) == 2


@pytest.mark.anyio
async def test_delete_with_a_stale_generation_leaves_an_adopted_object(ledger: Path) -> None:
    p = await provider(ledger)
    old = await create(p, name="a")
    new = await create(p, name="a")  # create_before_destroy's create: adopts
    assert new["id"] == old["id"] and (old["generation"], new["generation"]) == (1, 2)
    gone, diags = await apply(p, old, None)  # the deposed object's delete
    assert gone is None and not diags and len(ls(ledger)) == 1
    gone, diags = await apply(p, new, None)
    assert gone is None and not diags and ls(ledger) == []


@pytest.mark.anyio
async def test_delete_removes_the_object_and_tolerates_it_being_gone(ledger: Path) -> None:
    p = await provider(ledger)
    a = await create(p, name="a")
    b = await create(p, name="b")
    new, diags = await apply(p, a, None)
    assert new is None and not diags
    assert [o["name"] for o in ls(ledger)] == ["b"]
    assert run_sim("rm", str(ledger), b["id"]).returncode == 0
    assert (await p.read_resource(ReadResourceRequest("sim_object", b))).new_state is None  # drift
    new, diags = await apply(p, b, None)  # already gone: deleting succeeds
    assert new is None and not diags
    assert ls(ledger) == []


@pytest.mark.anyio
async def test_fail_modes(ledger: Path) -> None:
    p = await provider(ledger)
    new, diags = await apply(p, None, {"name": "c", "fail": "create"})
    assert new is None and [d.summary for d in diags] == ["Simulated create failure"]
    assert not diags[0].retryable
    assert ls(ledger) == []

    obj = await create(p, name="u")
    new, diags = await apply(p, obj, {"name": "u", "payload": "x", "fail": "update"})
    assert new is None and [d.summary for d in diags] == ["Simulated update failure"]
    assert by_name(ledger)["u"]["attributes"]["payload"] is None

    guarded, diags = await apply(p, obj, {"name": "u", "fail": "delete"})  # setting it is an update
    assert not diags and guarded is not None
    new, diags = await apply(p, guarded, None)
    assert new == guarded and [d.summary for d in diags] == ["Simulated delete failure"]
    assert len(ls(ledger)) == 1
    unguarded, diags = await apply(p, guarded, {"name": "u"})
    assert not diags and unguarded is not None
    new, diags = await apply(p, unguarded, None)
    assert new is None and not diags and ls(ledger) == []


@pytest.mark.anyio
async def test_hang_never_returns_until_cancelled(ledger: Path) -> None:
    p = await provider(ledger)
    messages: list[str] = []
    planned, _ = await plan(p, None, {"name": "h", "fail": "hang"})
    req = ApplyResourceChangeRequest("sim_object", None, planned, full_config(p, {"name": "h", "fail": "hang"}),
                                     progress=messages.append)
    with anyio.move_on_after(0.05) as scope:
        await p.apply_resource_change(req)
    assert scope.cancelled_caught
    assert messages and "hang" in messages[0]
    assert ls(ledger) == []


@pytest.mark.anyio
async def test_latency_is_honoured(ledger: Path) -> None:
    p = await provider(ledger, latency_ms=0)
    start = time.monotonic()
    await create(p, name="slow", latency_ms=30)
    assert time.monotonic() - start >= 0.025

    q = await provider(ledger, latency_ms=30)  # the provider-wide mean
    start = time.monotonic()
    await create(q, name="slow2")
    assert time.monotonic() - start >= 0.025


def test_latency_distributions_have_the_configured_mean() -> None:
    draws = [(i + 0.5) / 2000 for i in range(2000)]
    assert latency_sample("fixed", 20, 0.9) == 20
    uniform = [latency_sample("uniform", 20, u) for u in draws]
    assert min(uniform) >= 0 and max(uniform) <= 40 and abs(sum(uniform) / len(uniform) - 20) < 0.5
    lognormal = [latency_sample("lognormal", 20, u) for u in draws]
    assert min(lognormal) > 0 and max(lognormal) > 40 and abs(sum(lognormal) / len(lognormal) - 20) < 1
    assert latency_sample("lognormal", 0, 0.5) == 0


@pytest.mark.anyio
async def test_random_failures_are_reproducible_from_the_seed(tmp_path: Path) -> None:
    async def failing(path: Path, seed: int) -> set[str]:
        p = await provider(path, failure_rate=0.5, seed=seed)
        out = set()
        for i in range(40):
            new, diags = await apply(p, None, {"name": f"n{i}"})
            if diags:
                assert new is None and diags[0].retryable
                out.add(f"n{i}")
        return out

    a = await failing(tmp_path / "a.jsonl", 3)
    b = await failing(tmp_path / "b.jsonl", 3)
    c = await failing(tmp_path / "c.jsonl", 4)
    assert a == b and 5 < len(a) < 35 and a != c
    # a retry draws again (each attempt is recorded): some of the failed creates now succeed
    again = await failing(tmp_path / "a.jsonl", 3)
    assert a - again
    assert len(ls(tmp_path / "a.jsonl")) == 40 - len(a & again)


@pytest.mark.anyio
async def test_data_source_lookup(ledger: Path) -> None:
    p = await provider(ledger)
    one = await create(p, name="shared", payload="first", zone="z1")
    await create(p, name="shared", payload="second", zone="z2")

    async def read(**cfg: Any) -> Any:
        return await p.read_data_source(ReadDataSourceRequest("sim_object", {"zone": None, **cfg}))

    found = await read(name="shared", zone="z1")
    assert not found.diagnostics
    assert found.state == {"name": "shared", "zone": "z1", "id": one["id"], "payload": "first",
                           "created_at": one["created_at"]}
    assert [d.summary for d in (await read(name="shared")).diagnostics] == ["Several objects match"]
    assert [d.summary for d in (await read(name="nobody")).diagnostics] == ["Object not found"]


@pytest.mark.anyio
async def test_import_by_id(ledger: Path) -> None:
    p = await provider(ledger)
    made = await create(p, name="imp", payload="x")
    got = await p.import_resource_state(ImportResourceStateRequest("sim_object", made["id"]))
    assert not got.diagnostics and got.state == made
    missing = await p.import_resource_state(ImportResourceStateRequest("sim_object", "sim-nope"))
    assert missing.state is None
    assert [d.summary for d in missing.diagnostics] == ["Cannot import non-existent remote object"]


@pytest.mark.anyio
async def test_rename_rekeys_the_token(ledger: Path) -> None:
    p = await provider(ledger)
    a = await create(p, name="a")
    b = await create(p, name="b")
    renamed, diags = await apply(p, a, {"name": "c"})
    assert not diags and renamed is not None and renamed["id"] == a["id"]
    assert by_name(ledger)["c"]["token"] == object_token("sim_object", "c", None)
    assert (await create(p, name="a"))["id"] not in (a["id"], b["id"])  # "a" is free again
    clash, diags = await apply(p, b, {"name": "c"})
    assert clash is None and [d.summary for d in diags] == ["Name already in use"]


@pytest.mark.anyio
async def test_rate_limit_spaces_out_calls(ledger: Path) -> None:
    p = await provider(ledger, rate_limit_per_s=200)
    start = time.monotonic()

    async def one(i: int) -> None:
        await create(p, name=f"r{i}")

    async with anyio.create_task_group() as tg:
        for i in range(6):
            tg.start_soon(one, i)
    assert time.monotonic() - start >= 5 / 200 * 0.9
    assert len(ls(ledger)) == 6


@pytest.mark.anyio
async def test_unconfigured_and_misconfigured(ledger: Path) -> None:
    p = SimProvider()
    new, diags = await apply(p, None, {"name": "a"})
    assert new is None and [d.summary for d in diags] == ["Provider not configured"]
    q = await provider(ledger)
    resp = await q.plan_resource_change(PlanResourceChangeRequest(
        "sim_object", None, full_config(q, {}), full_config(q, {})))
    assert [d.summary for d in resp.diagnostics] == ["Missing name"]
    bad = await SimProvider().configure({"ledger": str(ledger), "failure_rate": 2, "latency": "x"})
    assert {d.summary for d in bad} == {"Invalid failure_rate", "Invalid latency distribution"}


# ---------------------------------------------------------------------- the ledger


_WRITER = textwrap.dedent("""
    import sys, anyio
    from providers.sim import SimProvider
    from engine import ApplyResourceChangeRequest

    async def main(path, prefix, n):
        p = SimProvider()
        assert await p.configure({"ledger": path, "latency_ms": 0}) == ()
        async def one(i):
            planned = {"id": None, "name": f"{prefix}{i}", "payload": None, "zone": None,
                       "created_at": None, "latency_ms": None, "fail": None}
            r = await p.apply_resource_change(ApplyResourceChangeRequest("sim_object", None, planned, planned))
            assert not r.diagnostics, r.diagnostics
        async with anyio.create_task_group() as tg:
            for i in range(n):
                tg.start_soon(one, i)

    anyio.run(main, sys.argv[1], sys.argv[2], int(sys.argv[3]))
""")


def test_two_processes_share_a_ledger_without_corrupting_it(ledger: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    # "same-*" names collide across the processes: one object each, whoever creates it first
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(ledger), prefix, "300"], cwd=REPO, env=env,
                              stderr=subprocess.PIPE, text=True)
             for prefix in ("p1-", "p2-", "same-", "same-")]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    names = [o["name"] for o in ls(ledger)]
    assert len(names) == 900 and len(set(names)) == 900
    lines = ledger.read_bytes().split(b"\n")
    assert lines[-1] == b"" and all(json.loads(line) for line in lines[:-1])
    with Ledger(str(ledger)) as led:
        assert led.bad_lines == 0 and len(led.objects) == 900


@pytest.mark.anyio
async def test_torn_record_from_a_crashed_writer_is_skipped(ledger: Path) -> None:
    p = await provider(ledger)
    a = await create(p, name="a")
    with open(ledger, "ab") as f:
        f.write(b'{"op":"create","id":"sim-torn","type":"sim_o')  # killed mid-write: no newline
    assert [o["name"] for o in ls(ledger)] == ["a"]
    b = await create(p, name="b")  # the next writer terminates the torn line
    fresh = Ledger(str(ledger))
    assert fresh.bad_lines == 1 and [o.id for o in fresh.live()] == [a["id"], b["id"]]
    fresh.close()


@pytest.mark.anyio
async def test_compaction_under_a_running_provider(ledger: Path) -> None:
    p = await provider(ledger)
    objs = [await create(p, name=f"c{i}", payload="x") for i in range(10)]
    for o in objs[:7]:
        await apply(p, o, None)
    before = ledger.stat().st_size
    res = run_sim("compact", str(ledger))
    assert res.returncode == 0, res.stderr
    assert ledger.stat().st_size < before
    assert [o["id"] for o in ls(ledger)] == [o["id"] for o in objs[7:]]
    # the running provider notices the new file: it still sees, updates and creates correctly
    kept, diags = await apply(p, objs[8], {"name": "c8", "payload": "y"})
    assert not diags and kept is not None
    await create(p, name="c0")
    assert sorted(o["name"] for o in ls(ledger)) == ["c0", "c7", "c8", "c9"]
    assert by_name(ledger)["c8"]["attributes"]["payload"] == "y"


def test_ls_of_a_missing_ledger_fails(tmp_path: Path) -> None:
    res = run_sim("ls", str(tmp_path / "nope.jsonl"))
    assert res.returncode == 1 and "no ledger" in res.stderr
    assert not (tmp_path / "nope.jsonl").exists()


def test_the_writer_sees_its_own_records_as_a_replay_does(ledger: Path) -> None:
    import anyio

    nan = float("nan")

    async def write() -> Ledger:
        led = Ledger(str(ledger))
        async with led.locked():
            led.append({"op": "create", "id": "sim-1", "type": "sim_object", "name": "a", "token": "t1",
                        "attributes": {"id": "sim-1", "payload": "x", "generation": 1, "latency_ms": 2.5}})
            led.append({"op": "create", "id": "sim-2", "type": "sim_object", "name": "b", "token": "t2",
                        "attributes": {"id": "sim-2", "payload": ("tuple",), "latency_ms": nan}})
        return led

    writer = anyio.run(write)
    with Ledger(str(ledger)) as replayed:
        for id in ("sim-1", "sim-2"):
            mine, theirs = writer.objects[id].attributes, replayed.objects[id].attributes
            assert mine == theirs and [type(v) for v in mine.values()] == [type(v) for v in theirs.values()]
    writer.close()


def test_ls_into_a_reader_that_goes_away_is_not_an_error(tmp_path: Path) -> None:
    ledger = tmp_path / "big.jsonl"
    ledger.write_text("".join(
        f'{{"op":"create","id":"i{i}","type":"sim_object","name":"n{i}","token":"t{i}",'
        f'"attributes":{{"id":"i{i}"}}}}\n' for i in range(5000)))
    res = subprocess.run(f"{sys.executable} -m providers.sim ls {ledger} | head -1", shell=True, cwd=REPO,
                         capture_output=True, text=True, timeout=60, executable="/bin/bash")
    assert res.stdout.count("\n") == 1 and "Traceback" not in res.stderr, res.stderr

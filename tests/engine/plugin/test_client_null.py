"""The plugin client driving the real terraform-provider-null 2.1.2 (tfplugin5), on trio and asyncio."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine.diagnostics import ProviderError
from engine.plugin.client import PluginProvider
from engine.plugin.process import PluginProcess, PluginStartError
from engine.provider.protocol import (
    ApplyResourceChangeRequest,
    ImportResourceStateRequest,
    PlanResourceChangeRequest,
    Provider,
    ReadDataSourceRequest,
    ReadResourceRequest,
    UpgradeResourceStateRequest,
    ValidateResourceConfigRequest,
)
from engine.values import UNKNOWN, MapVal
from tests.engine.plugin.conftest import running, wait_gone

SOURCE = "registry.terraform.io/hashicorp/null"
pytestmark = pytest.mark.anyio


@pytest.fixture
def null(null_plugin: Path):
    p = PluginProvider(null_plugin, SOURCE)
    yield p
    p.close()


def test_client_is_a_provider(null: PluginProvider) -> None:
    assert isinstance(null, Provider) and null.source == SOURCE


def test_process_starts_only_when_first_needed(null: PluginProvider) -> None:
    assert null.pid is None
    null.get_schema()
    assert null.pid is not None and running(null.pid) and null.protocol == 5


def test_schema_of_null(null: PluginProvider) -> None:
    s = null.get_schema()
    r = s.resources["null_resource"]
    assert r.attributes["triggers"].type == ["map", "string"] and r.attributes["triggers"].optional
    assert r.attributes["id"].computed
    assert set(s.data_sources["null_data_source"].attributes) >= {"inputs", "outputs", "random"}


async def test_plan_apply_read_a_null_resource(null: PluginProvider) -> None:
    assert await null.configure({}) == ()
    cfg = {"id": None, "triggers": MapVal({"a": "1"})}
    v = await null.validate_resource_config(ValidateResourceConfigRequest("null_resource", cfg))
    assert v.diagnostics == ()
    plan = await null.plan_resource_change(PlanResourceChangeRequest("null_resource", None, cfg, cfg))
    assert plan.diagnostics == () and plan.planned_state == {"id": UNKNOWN, "triggers": {"a": "1"}}
    assert ("triggers",) in plan.requires_replace and plan.legacy_type_system
    applied = await null.apply_resource_change(ApplyResourceChangeRequest(
        "null_resource", None, plan.planned_state, cfg, planned_private=plan.planned_private))
    assert applied.diagnostics == ()
    new = applied.new_state
    assert new is not None and isinstance(new["id"], str) and new["triggers"] == {"a": "1"}
    read = await null.read_resource(ReadResourceRequest("null_resource", new, applied.private))
    assert read.new_state == new
    again = await null.plan_resource_change(PlanResourceChangeRequest("null_resource", new, new, cfg))
    assert again.planned_state == new
    gone = await null.apply_resource_change(ApplyResourceChangeRequest("null_resource", new, None, None))
    assert gone.new_state is None and gone.diagnostics == ()


async def test_read_a_null_data_source(null: PluginProvider) -> None:
    await null.configure({})
    cfg = {"inputs": MapVal({"k": "v"}), "outputs": None, "random": None, "id": None,
           "has_computed_default": None}
    r = await null.read_data_source(ReadDataSourceRequest("null_data_source", cfg))
    assert r.diagnostics == () and r.state is not None and r.state["outputs"] == {"k": "v"}


async def test_upgrade_passes_the_stored_json(null: PluginProvider) -> None:
    await null.configure({})
    r = await null.upgrade_resource_state(UpgradeResourceStateRequest(
        "null_resource", 0, {"id": "42", "triggers": {"a": "1"}}))
    assert r.diagnostics == () and r.upgraded_state == {"id": "42", "triggers": {"a": "1"}}


async def test_import_of_a_type_without_import_is_the_plugins_error(null: PluginProvider) -> None:
    await null.configure({})
    r = await null.import_resource_state(ImportResourceStateRequest("null_resource", "x"))
    assert r.state is None and r.diagnostics and r.diagnostics[0].severity == "error"


async def test_a_killed_plugin_is_a_diagnostic_in_terraforms_words(null: PluginProvider) -> None:
    await null.configure({})
    assert null.pid is not None
    os.kill(null.pid, signal.SIGKILL)
    assert null.process is not None and null.process.wait_exited(10)
    cfg = {"id": None, "triggers": None}
    r = await null.apply_resource_change(ApplyResourceChangeRequest("null_resource", None, cfg, cfg))
    (d,) = r.diagnostics
    assert d.summary == "Plugin did not respond"
    assert d.detail.startswith("The plugin encountered an error, and failed to respond to the "
                               "plugin.(*GRPCProvider).ApplyResourceChange call. The plugin logs may "
                               "contain more details.")


async def test_stop_provider_is_answered(null: PluginProvider) -> None:
    await null.configure({})
    assert await null.stop() == ""


def test_close_leaves_no_process(null: PluginProvider) -> None:
    null.get_schema()
    pid = null.pid
    assert pid is not None
    null.close()
    assert wait_gone(pid) and not running(pid)


def test_socket_dir_is_private_and_removed(null: PluginProvider) -> None:
    null.get_schema()
    assert null.process is not None and null.process.handshake is not None
    sock_dir = Path(null.process.handshake.address).parent
    assert stat.S_IMODE(sock_dir.stat().st_mode) == 0o700
    null.close()
    assert not sock_dir.exists()


def test_no_plugin_survives_strata_killed(null_plugin: Path, tmp_path: Path) -> None:
    script = textwrap.dedent(f"""
        import os, signal, sys
        from pathlib import Path
        from engine.plugin.client import PluginProvider
        p = PluginProvider(Path({str(null_plugin)!r}), {SOURCE!r})
        p.get_schema()
        print(p.pid, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[3])})
    assert out.returncode == -signal.SIGKILL, out.stderr
    pid = int(out.stdout.split()[0])
    assert wait_gone(pid), f"plugin {pid} outlived a SIGKILLed strata"


def _fake_plugin(tmp_path: Path, body: str) -> Path:
    exe = tmp_path / "terraform-provider-fake"
    exe.write_text("#!/bin/sh\n" + body)
    exe.chmod(0o755)
    return exe


def test_a_plugin_without_a_handshake_is_a_start_error(tmp_path: Path) -> None:
    exe = _fake_plugin(tmp_path, 'echo "This binary is a plugin." >&2\nexit 1\n')
    with pytest.raises(PluginStartError) as info:
        PluginProcess(exe, "fake").start()
    assert "This binary is a plugin." in str(info.value)


def test_a_panic_is_kept_for_the_crash_report(tmp_path: Path) -> None:
    exe = _fake_plugin(tmp_path, textwrap.dedent("""\
        echo "1|5|unix|$PLUGIN_UNIX_SOCKET_DIR/sock|grpc|"
        echo '{"@level":"debug","@message":"starting"}' >&2
        echo "panic: runtime error: invalid memory address or nil pointer dereference" >&2
        echo "goroutine 12 [running]:" >&2
        exit 2
    """))
    p = PluginProvider(exe, "example.com/acme/fake")
    with pytest.raises(ProviderError) as info:
        p.get_schema()
    assert "plugin.(*GRPCProvider).GetProviderSchema" in str(info.value)
    assert "panic: runtime error" in str(info.value) and "goroutine 12" in str(info.value)
    assert "starting" not in str(info.value)
    p.close()


async def test_concurrent_calls_each_get_their_own_answer(null: PluginProvider) -> None:
    import anyio

    await null.configure({})
    answers: dict[int, object] = {}

    async def plan(i: int) -> None:
        cfg = {"id": None, "triggers": MapVal({"i": str(i)})}
        r = await null.plan_resource_change(PlanResourceChangeRequest("null_resource", None, cfg, cfg))
        answers[i] = r.planned_state["triggers"] if r.planned_state else None

    async with anyio.create_task_group() as tg:
        for i in range(40):
            tg.start_soon(plan, i)
    assert answers == {i: {"i": str(i)} for i in range(40)}


def test_provider_config_values_take_the_schemas_types() -> None:
    from engine.plugin.client import _complete

    assert _complete({"region": 5}, ["object", {"region": "string", "retries": "number"}]) == {
        "region": "5", "retries": None}

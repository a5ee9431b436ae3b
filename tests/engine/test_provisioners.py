"""Provisioners inside: the blocks decoded (engine.config.provisioners) and the local-exec runner
(engine.apply.provisioners) driven on its own, on both event loops, with a real /bin/sh."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path
from typing import Any

import anyio
import pytest

from engine.addrs import InstanceAddr, resource_addr
from engine.apply.provisioners import Provisioners, evaluate_config
from engine.config.provisioners import Provisioner, decode_resource_blocks
from engine.diagnostics import Diagnostic, SourceRange
from engine.events import stream as ev
from engine.lang.evaluate import Scope
from engine.lang.hcl import parse_hcl

ADDR = InstanceAddr(resource_addr("terraform_data", "a"), None)
SECRET = "(output suppressed due to sensitive value in config)"


def _decode(body: str, managed: bool = True) -> tuple[tuple[Provisioner, ...], list[Diagnostic]]:
    (block,) = parse_hcl(f'resource "terraform_data" "a" {{\n{body}\n}}\n', "main.tf")
    provs, _conn, _rest, diags = decode_resource_blocks(block.blocks, managed)
    return provs, diags


def test_provisioner_meta_arguments_are_keywords() -> None:
    (p,), diags = _decode('provisioner "local-exec" {\n when = destroy\n on_failure = continue\n command = "x"\n}')
    assert diags == [] and (p.when, p.on_failure, list(p.attributes)) == ("destroy", "continue", ["command"])


def test_provisioner_defaults_are_create_and_fail() -> None:
    (p,), _ = _decode('provisioner "local-exec" {\n command = "x"\n}')
    assert (p.when, p.on_failure) == ("create", "fail")


def test_wrong_keywords_are_terraform_errors() -> None:
    _, diags = _decode('provisioner "local-exec" {\n when = later\n on_failure = maybe\n command = "x"\n}')
    assert [(d.summary, d.subject.line if d.subject else None) for d in diags] == [
        ('Invalid "when" keyword', 3), ('Invalid "on_failure" keyword', 4)]


def test_destroy_time_provisioner_refers_only_to_self_count_index_and_each_key() -> None:
    ok = 'provisioner "local-exec" {\n when = destroy\n command = "${self.id} ${count.index} ${each.key} ${path.module}"\n}'
    assert _decode(ok)[1] == []
    bad = 'provisioner "local-exec" {\n when = destroy\n command = "${var.v} ${each.value} ${terraform_data.b.id}"\n}'
    assert [d.summary for d in _decode(bad)[1]] == ["Invalid reference from destroy provisioner"] * 3


def test_create_time_provisioner_may_refer_to_anything() -> None:
    assert _decode('provisioner "local-exec" {\n command = "${var.v} ${terraform_data.b.id}"\n}')[1] == []


def test_unknown_argument_gets_a_suggestion_and_command_is_required() -> None:
    _, diags = _decode('provisioner "local-exec" {\n commandx = "x"\n}')
    assert [(d.summary, d.detail) for d in diags] == [
        ("Missing required argument", 'The argument "command" is required, but no definition was found.'),
        ("Unsupported argument", 'An argument named "commandx" is not expected here. Did you mean "command"?')]


@pytest.mark.parametrize("kind", ["file", "remote-exec"])
def test_remote_provisioners_are_refused(kind: str) -> None:
    provs, diags = _decode(f'provisioner "{kind}" {{\n source = "x"\n}}')
    assert provs == () and [d.summary for d in diags] == [f'Unsupported provisioner "{kind}"']
    assert diags[0].subject is not None and diags[0].subject.line == 2


def test_removed_provisioner_says_so() -> None:
    _, diags = _decode('provisioner "chef" {\n}')
    assert [d.summary for d in diags] == ['The "chef" provisioner has been removed']


def test_connection_blocks_are_accepted_once() -> None:
    provs, diags = _decode('connection {\n host = "h"\n}\nprovisioner "local-exec" {\n command = "x"\n'
                           ' connection {\n host = "i"\n }\n}\nconnection {\n}')
    assert provs[0].connection is not None
    assert [d.summary for d in diags] == ["Duplicate connection block"]


# ------------------------------------------------------------------ the runner


class _NoResources:
    def has_resource(self, addr: Any) -> bool:
        return False


def _provisioner(attrs: str, on_failure: str = "fail") -> Provisioner:
    (p,), diags = _decode(f'provisioner "local-exec" {{\n{attrs}\n on_failure = {on_failure}\n}}')
    assert diags == []
    return p


def _run(provs: tuple[Provisioner, ...], self_obj: dict[str, Any] | None = None, sensitive: bool = False
         ) -> tuple[list[ev.Event], list[Diagnostic]]:
    events: list[ev.Event] = []
    runner = Provisioners(events.append)
    scope = Scope({}, lambda name, line: None, _NoResources()).child({"self": self_obj or {"id": "i-1"}})  # type: ignore[arg-type]

    async def main() -> list[Diagnostic]:
        return await runner.run(ADDR, provs, scope, lambda p: SECRET if sensitive else None)

    return events, anyio.run(main)


def _shown(events: list[ev.Event]) -> list[tuple[str, str]]:
    return [(e.type, e.payload["hook"].get("output", "")) for e in events]


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_output_lines_are_events_in_order(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[ev.Event] = []
    runner = Provisioners(events.append)
    p = _provisioner('command = "echo one ${self.id}; printf \'\\\\n  two  \\\\nthree\'"')
    scope = Scope({}, lambda name, line: None, _NoResources()).child({"self": {"id": "i-1"}})  # type: ignore[arg-type]

    async def main() -> list[Diagnostic]:
        return await runner.run(ADDR, (p,), scope, lambda p: None)

    assert anyio.run(main, backend=backend) == []
    assert _shown(events) == [
        ("provision_start", ""),
        ("provision_progress", 'Executing: ["/bin/sh" "-c" "echo one i-1; printf \'\\\\n  two  \\\\nthree\'"]'),
        ("provision_progress", "one i-1"), ("provision_blank_line", ""), ("provision_progress", "  two"),
        ("provision_progress", "three"), ("provision_complete", "")]


def test_failure_stops_the_rest_with_terraforms_error() -> None:
    events, diags = _run((_provisioner('command = "echo out; exit 4"'), _provisioner('command = "echo never"')))
    assert [(d.summary, d.detail, d.address) for d in diags] == [
        ("local-exec provisioner error", "Error running command 'echo out; exit 4': exit status 4. Output: out\n",
         "terraform_data.a")]
    assert [e.type for e in events][-1] == "provision_errored"
    assert "never" not in str(_shown(events))


def test_on_failure_continue_drops_the_error_and_goes_on() -> None:
    events, diags = _run((_provisioner('command = "exit 1"', "continue"), _provisioner('command = "echo next"')))
    assert diags == []
    assert [e.type for e in events if e.type in ("provision_errored", "provision_complete")] == \
        ["provision_errored", "provision_complete"]


def test_sensitive_configuration_suppresses_every_line() -> None:
    events, _ = _run((_provisioner('command = "echo secret"'),), sensitive=True)
    outputs = [o for t, o in _shown(events) if t == "provision_progress"]
    assert outputs == [SECRET] * 2


def test_environment_working_dir_and_interpreter(tmp_path: Path) -> None:
    p = _provisioner(f'command = "import os; print(os.environ[\'A\'], os.getcwd())"\n'
                     f' interpreter = ["python3", "-c"]\n working_dir = "{tmp_path}"\n environment = {{ A = 1 }}')
    events, diags = _run((p,))
    assert diags == [] and ("provision_progress", f"1 {tmp_path}") in _shown(events)


def test_start_failures_in_gos_words(tmp_path: Path) -> None:
    missing = _provisioner('command = "x"\n interpreter = ["no-such-program-here"]')
    no_dir = _provisioner(f'command = "x"\n working_dir = "{tmp_path}/nope"')
    assert [d.detail for d in _run((missing,))[1]] == [
        'Error running command \'x\': exec: "no-such-program-here": executable file not found in $PATH. Output: ']
    assert [d.detail for d in _run((no_dir,))[1]] == [
        f"Error running command 'x': chdir {tmp_path}/nope: no such file or directory. Output: "]


def test_a_stopped_runner_kills_the_command_and_starts_no_other() -> None:
    events: list[ev.Event] = []
    runner = Provisioners(events.append)
    scope = Scope({}, lambda name, line: None, _NoResources())  # type: ignore[arg-type]
    slow = _provisioner('command = "echo up; exec sleep 60"', "continue")

    def on_event(e: ev.Event) -> None:
        events.append(e)
        if e.type == "provision_progress" and e.payload["hook"]["output"] == "up":
            runner.stop()

    runner.emit = on_event

    async def main() -> list[Diagnostic]:
        return await runner.run(ADDR, (slow, _provisioner('command = "echo next"')), scope, lambda p: None)

    diags = anyio.run(main)
    assert [d.summary for d in diags] == ["execution halted"]
    assert "provision_errored" in [e.type for e in events] and "next" not in str(_shown(events))


def test_configuration_is_converted_to_the_schema_types() -> None:
    p = _provisioner('command = 3\n interpreter = self.id')
    scope = Scope({}, lambda name, line: None, _NoResources()).child({"self": {"id": "sh"}})  # type: ignore[arg-type]
    config, diags = evaluate_config(p, scope, None)
    assert config is None
    assert [(d.summary, d.detail) for d in diags] == [
        ("Incorrect attribute value type", 'Inappropriate value for attribute "interpreter": list of string required.')]
    assert diags[0].subject == SourceRange("main.tf", 4, diags[0].subject.column, diags[0].subject.byte)


def test_constant_of_the_wrong_type_is_found_when_loading_up_to_the_first_provisioner_wrong() -> None:
    _, diags = _decode('provisioner "local-exec" {\n command = "x"\n interpreter = "sh"\n}\n'
                       'provisioner "local-exec" {\n quiet = "maybe"\n}')
    assert [(d.summary, d.detail) for d in diags] == [
        ("Incorrect attribute value type", 'Inappropriate value for attribute "interpreter": list of string required.')]


def test_connection_is_checked_against_every_communicators_arguments() -> None:
    _, diags = _decode('connection {\n hostt = "h"\n}\nprovisioner "local-exec" {\n command = "x"\n}')
    assert [(d.summary, d.detail) for d in diags] == [
        ("Missing required argument", 'The argument "host" is required, but no definition was found.'),
        ("Unsupported argument", 'An argument named "hostt" is not expected here. Did you mean "host"?')]


def test_stop_does_not_wait_for_a_child_left_holding_the_output(tmp_path: Path) -> None:
    """The command's own child keeps the pipe open after the command is killed: terraform stops
    waiting for its output once stopped, and so does the runner."""
    events: list[ev.Event] = []
    runner = Provisioners(events.append)
    scope = Scope({}, lambda name, line: None, _NoResources())  # type: ignore[arg-type]
    pidfile = tmp_path / "child.pid"
    p = _provisioner(f'command = "sleep 120 & echo $! > {pidfile}; echo up; wait"')

    def on_event(e: ev.Event) -> None:
        events.append(e)
        if e.type == "provision_progress" and e.payload["hook"]["output"] == "up":
            runner.stop()

    runner.emit = on_event

    async def main() -> list[Diagnostic]:
        with anyio.fail_after(60):  # a guard against hanging for the child's 120 s, not a measurement
            return await runner.run(ADDR, (p,), scope, lambda p: None)

    try:
        diags = anyio.run(main)
    finally:
        if pidfile.exists():
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pidfile.read_text()), signal.SIGKILL)
    assert [d.detail.split(": ", 1)[1].split(".")[0] for d in diags] == ["signal: killed"]

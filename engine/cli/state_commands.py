"""Commands on the state: ``state list/show/mv/rm``, ``taint``/``untaint``, ``show`` and ``import``."""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import orjson

from engine.addrs import InstanceAddr, parse_instance_addr, parse_module_path
from engine.cli.args import Args, UsageError, workspace_from
from engine.cli.output import Output, lock_waiting
from engine.diagnostics import Diagnostic, DiagnosticsError, error
from engine.events import stream as ev
from engine.lang.quote import go_quote
from engine.lang.sensitivity import in_state
from engine.plans import planfile
from engine.provider.registry import Providers
from engine.render.state_json import state_values
from engine.render.text import fmt_value, render_diagnostic
from engine.state import edit as statemove


def load_state(a: Args) -> tuple[Any, Providers]:
    read = workspace_from(a).read_state()
    for d in read.warnings:  # on stderr: standard output is the command's answer (state list)
        sys.stderr.write(render_diagnostic(d, True) + "\n")
    return read.state, read.providers


async def cmd_state(a: Args, out: Output) -> int:
    sub = a.command[1] if len(a.command) > 1 else ""
    if sub in ("rm", "mv"):
        return await _edit_state(a, out, sub)
    state, providers = load_state(a)
    if sub == "list":
        filters = a.positional
        for addr, deposed, _obj, _p in sorted(state.objects(), key=lambda t: (t[0].sort_key(), t[1] or "")):
            if deposed:
                continue
            s = str(addr)
            if filters and not any(s == f or s.startswith(f + "[") or _in_module(addr, f) for f in filters):
                continue
            sys.stdout.write(s + "\n")
        return 0
    if sub == "show":
        if len(a.positional) != 1:
            raise UsageError("Exactly one argument expected: the address of a resource instance.")
        try:
            addr = parse_instance_addr(a.positional[0])
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        obj = state.object(addr)
        if obj is None:
            rs = state.resources.get(addr.resource)
            if rs is not None and addr.key is None and rs.instances:
                keys = ", ".join(str(InstanceAddr(addr.resource, k)) for k in list(rs.instances)[:5])
                detail = (f"{addr} has several instances ({keys}{', ...' if len(rs.instances) > 5 else ''}); "
                          "this command requires the address of one of them.")
            else:
                detail = f"This command requires that the address references one specific instance. " \
                         f"{addr} is not in the state."
            raise DiagnosticsError([error("No instance found for the given address", detail)])
        prov = state.resources[addr.resource].provider
        sys.stdout.write(_render_object(addr, obj, in_state(obj, addr, prov, providers)) + "\n")
        return 0
    raise UsageError('Usage: strata state (list [ADDR...] | show ADDR | rm ADDR... | mv SOURCE DESTINATION)')


async def cmd_taint(a: Args, out: Output, tainted: bool) -> int:
    """``taint ADDR`` / ``untaint ADDR``: terraform's, for scripts that still use them (``-replace``
    is the way to replace one object in an apply)."""
    if len(a.positional) != 1:
        raise UsageError(f"Exactly one argument expected: strata {'taint' if tainted else 'untaint'} ADDRESS")
    op = workspace_from(a).operation("taint" if tainted else "untaint", on_lock_wait=lock_waiting(out))
    _require_state(op.state_file)
    async with op:
        store = op.store
        state = store.load()
        try:
            addr = statemove.set_tainted(state, a.positional[0], tainted)
        except DiagnosticsError as exc:
            if a.flags.get("allow-missing") and exc.diagnostics[0].summary == "No such resource instance":
                out.diagnostics([Diagnostic("warning", "No such resource instance",
                                            f"Resource instance {a.positional[0]} was not found, but this is not "
                                            "an error because -allow-missing was set.")])
                return 0
            raise
        store.commit(state)
    sys.stdout.write(f"Resource instance {addr} has been marked as tainted.\n" if tainted else
                     f"Resource instance {addr} has been successfully untainted.\n")
    return 0


def _require_state(path: str) -> None:
    if not os.path.exists(path) and not os.path.exists(os.path.realpath(path) + ".journal"):
        raise DiagnosticsError([error(
            "No state file was found!",
            f"State management commands require a state file, and there is none at {path}. Run this "
            "command in a directory where strata has been run or use the -state flag to point the command "
            "to another state file.")])


async def _edit_state(a: Args, out: Output, sub: str) -> int:
    """``state rm ADDR...`` / ``state mv SOURCE DESTINATION``, under the state lock, with a backup of
    the state as it was (``-backup=PATH``; ``-backup=-`` for none) and ``-dry-run`` to only say."""
    args = a.positional
    if sub == "rm" and not args:
        raise UsageError("At least one address is required: strata state rm ADDRESS...")
    if sub == "mv" and len(args) != 2:
        raise UsageError("Exactly two arguments expected: strata state mv SOURCE DESTINATION")
    dry = bool(a.flags.get("dry-run"))
    op = workspace_from(a).operation(f"state-{sub}", writes=not dry, on_lock_wait=lock_waiting(out))
    _require_state(op.state_file)
    async with op:
        store = op.store
        state = store.load()
        if sub == "rm":
            gone = statemove.remove(state, args)
            lines = [f"{'Would remove' if dry else 'Removed'} {g}" for g in gone]
            done = f"Successfully removed {len(gone)} resource instance(s)."
        else:
            statemove.move(state, args[0], args[1])
            lines = [f"{'Would move' if dry else 'Move'} {go_quote(args[0].strip())} to {go_quote(args[1].strip())}"]
            done = "Successfully moved 1 object(s)."
        if not dry:
            backup = a.flags.get("backup") or f"{store.path}.{int(time.time())}.backup"
            store.commit(state, backup=None if backup == "-" else backup)
            lines.append(done)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _render_object(addr: Any, obj: Any, sensitive: frozenset[str], deposed: str | None = None) -> str:
    r = addr.resource
    head = f"# {addr}:" if not deposed else f"# {addr}: (deposed object {deposed})"
    if obj.tainted:
        head = f"# {addr}: (tainted)"
    lines = [head, f'resource "{r.type}" "{r.name}" {{']
    attrs = obj.attributes
    width = max((len(k) for k, v in attrs.items() if v is not None), default=0)
    for k in sorted(attrs):
        v = attrs[k]
        if v is None:
            continue
        shown = "(sensitive value)" if k in sensitive else fmt_value(v, 4)
        lines.append(f"    {k.ljust(width)} = {shown}")
    lines.append("}")
    return "\n".join(lines)


async def cmd_show(a: Args, out: Output) -> int:
    if a.positional:  # a saved plan, as strata plan printed it
        if len(a.positional) > 1:
            raise UsageError("show takes at most one argument: a plan file written by strata plan -out.")
        saved = planfile.read(a.positional[0])
        if out.json:
            sys.stdout.write(orjson.dumps(_saved_plan_json(a, saved)).decode() + "\n")
            return 0
        out.text(saved.text)
        return 0
    state, providers = load_state(a)
    if out.json:
        # the terraform whose formats these are, as in the -json stream's version event and the state
        doc: dict[str, Any] = {"format_version": "1.0", "terraform_version": ev.TERRAFORM_COMPAT}
        values = state_values(state, providers)
        if values is not None:
            doc["values"] = values
        if state.check_results:  # the last plan's or apply's, as terraform shows them
            from engine.render.checks_json import plan_json

            doc["checks"] = plan_json(state.check_results)
        sys.stdout.write(orjson.dumps(doc).decode() + "\n")
        return 0
    objs = sorted(state.objects(), key=lambda t: (t[0].sort_key(), t[1] or ""))
    if not objs and not state.outputs:
        sys.stdout.write("The state file is empty. No resources are represented.\n")
        return 0
    for addr, deposed, obj, prov in objs:
        sys.stdout.write(_render_object(addr, obj, in_state(obj, addr, prov, providers), deposed) + "\n\n")
    if state.outputs:
        sys.stdout.write("\nOutputs:\n\n")
        for name, (v, s) in sorted(state.outputs.items()):
            sys.stdout.write(f"{name} = {'(sensitive value)' if s else fmt_value(v, 0, ' ', quote_map_keys=True)}\n")
    return 0


def _saved_plan_json(a: Args, saved: planfile.SavedPlan) -> dict[str, Any]:
    """``show -json FILE``: the plan, over the state it was made from (with what its refresh
    found) and the configuration here (which its digest says is the one it was made from; left
    out when it changed)."""
    from engine.config.module import load_module
    from engine.plans.plan import prior_state
    from engine.render.plan_json import plan_json

    state, providers = load_state(a)
    prior_state(saved.plan, state)
    module = None
    if saved.plan.config_digest and planfile.config_digest(os.getcwd()) == saved.plan.config_digest:
        try:
            module = load_module(os.getcwd())
        except DiagnosticsError:
            module = None
    return plan_json(saved.plan, state, module, providers)


async def cmd_import(a: Args, out: Output) -> int:
    if len(a.positional) != 1 or len(a.command) < 2:
        raise UsageError("The import command expects two arguments: strata import ADDR ID")
    address, import_id = a.command[1], a.positional[0]
    message = await workspace_from(a).import_resource(address, import_id, out.emit, announce=out.text)
    out.text(message + "\n")
    return 0


def _in_module(addr: InstanceAddr, text: str) -> bool:
    """``state list module.a[0]``: everything in that module instance and those below it; a step
    written without a key matches every instance of that call, as terraform's filter does."""
    if not text.startswith("module."):
        return False
    try:
        want = parse_module_path(text)
    except ValueError:
        return False
    have = addr.resource.module.steps
    return len(have) >= len(want.steps) and all(
        name == hn and (key is None or key == hk) for (name, key), (hn, hk) in zip(want.steps, have, strict=False))



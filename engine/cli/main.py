"""The ``strata`` command line, spelled like terraform's (``-auto-approve``, ``-parallelism=10``, ``-chdir=DIR``).

``--flag value`` and ``--flag=value`` work too. User mistakes print a
diagnostic and exit 1; they never show a traceback.
"""

from __future__ import annotations

import collections
import contextlib
import errno
import gc
import os
import sys
import time
from collections.abc import Callable
from typing import Any, NoReturn

import anyio
import orjson

from engine.addrs import InstanceAddr, parse_instance_addr
from engine.apply.graph import build_apply_graph
from engine.backend.operations import (
    Options,
    Planned,
    apply_planned,
    import_resource,
    make_plan,
    open_saved_plan,
    open_state,
)
from engine.cli.args import (
    USAGE,
    Args,
    UsageError,
    check_options_for,
    enter_chdir,
    options_from,
    parse_args,
)
from engine.config.module import load_module
from engine.config.references import resource_graph
from engine.diagnostics import (
    CycleError,
    Diagnostic,
    DiagnosticsError,
    PlanningFailed,
    StrataError,
    error,
    errors_of,
    source_line,
)
from engine.events import stream as ev
from engine.lang.number import to_string as number_to_string
from engine.lang.quote import go_quote
from engine.lang.sensitivity import in_state
from engine.planning.planner import Planner
from engine.plans import planfile
from engine.plans.plan import Action, Plan
from engine.provider.registry import Providers
from engine.render.text import (
    HumanSink,
    fmt_value,
    partial_plan_shown,
    render_diagnostic,
    render_failed_plan,
    render_plan,
)
from engine.render.value_text import output_text
from engine.state import edit as statemove
from engine.state.codec import encode_attributes
from engine.state.lock import WAIT_MESSAGE as LOCK_WAIT_MESSAGE
from engine.state.store import StateStore
from engine.values import UNKNOWN, cty_type, to_json


class Output:
    """Where a command's events and text go: JSON lines or human text."""

    def __init__(self, json_mode: bool, quiet: bool = False, plain: bool = False) -> None:
        self.json = json_mode
        self.quiet = quiet
        self.plain = plain  # -no-color: diagnostics without the frame, as terraform prints them then
        self.sink: ev.JsonSink | HumanSink | None = None
        self._text_failed = False
        if quiet:
            self.json = True  # and no human text either
        elif json_mode:
            self.sink = ev.JsonSink()
        else:
            self.sink = HumanSink()
        self.bus = ev.EventBus(*([self.sink] if self.sink is not None else []))
        self.emit: Callable[[ev.Event], None] = self.bus.emit  # once per event: no call in between

    def text(self, s: str) -> None:
        if not self.json and not self._text_failed:
            try:
                sys.stdout.write(s)
                sys.stdout.flush()
            except (OSError, ValueError) as exc:
                # the reader went away, or the disk is full: say so once and keep going
                self._text_failed = True
                ev.stream_failed(exc, "output")

    def diagnostics(self, diags: list[Diagnostic] | tuple[Diagnostic, ...]) -> None:
        if not self.json or self.quiet:
            diags = sorted(diags, key=_diagnostic_order)  # as terraform's human view sorts them
        for d in diags:
            if self.json and not self.quiet:
                self.emit(ev.diagnostic(d, _code(d)))
            else:
                _flush_stdout()
                sys.stderr.write(render_diagnostic(d, self.plain) + "\n")
        _flush_stdout()
        sys.stderr.flush()


def _diagnostic_order(d: Diagnostic) -> tuple[Any, ...]:
    """terraform's order for printing diagnostics (a stable sort): warnings first, then those that
    point at no source, then by file (fewer path segments first) and position."""
    s = d.subject
    where = (0,) if s is None else (1, s.filename.count(os.sep), s.filename, s.line, s.column)
    return (d.severity == "error", where)


def _code(d: Diagnostic) -> str | None:
    """The source line a diagnostic points at, for its JSON ``snippet``."""
    return source_line(d.subject.filename, d.subject.line) if d.subject else None


def _flush_stdout() -> None:
    with contextlib.suppress(OSError, ValueError):  # a closed pipe or a full disk: reported elsewhere
        sys.stdout.flush()


def _plan_outputs_event(plan: Plan) -> ev.Event:
    outs: dict[str, Any] = {}
    for name in sorted(set(plan.outputs) | set(plan.prior_outputs)):
        new = plan.outputs.get(name)
        old = plan.prior_outputs.get(name)
        if new is None:
            action = "delete"
        elif old is None:
            action = "create"
        elif new[0] is UNKNOWN or not _eq(old[0], new[0]):
            action = "update"
        else:
            action = "noop"
        outs[name] = {"sensitive": bool((new or old or (None, False))[1]), "action": action}
    return ev.outputs_event(outs)


def _eq(a: Any, b: Any) -> bool:
    from engine.values import equal

    return equal(a, b)


def _state_outputs_event(outputs: dict[str, tuple[Any, bool]]) -> ev.Event:
    # as terraform: a sensitive output's value is not in the stream
    return ev.outputs_event({name: {"sensitive": s, "type": cty_type(v)} if s else
                             {"sensitive": s, "type": cty_type(v), "value": to_json(v)}
                             for name, (v, s) in sorted(outputs.items())})


def _lock_waiting(out: Output) -> Callable[[], None]:
    """terraform's note when a lock is slow to come (-lock-timeout)."""
    return lambda: out.text(LOCK_WAIT_MESSAGE)


async def _make_plan(opts: Options, out: Output, destroy: bool, command: str, store: StateStore,
                     providers: Providers) -> Planned:
    """:func:`make_plan`; when planning stops at errors, what terraform prints before them."""
    try:
        return await make_plan(opts, out.emit, destroy=destroy, providers=providers, store=store)
    except DiagnosticsError as exc:
        if isinstance(exc, PlanningFailed) and not out.json:
            out.text(render_failed_plan(exc.partial, exc.types, command))
        elif isinstance(exc, PlanningFailed) and partial_plan_shown(exc.partial):
            assert exc.partial is not None
            # terraform's stream: what was planned before the error, then the diagnostics
            for c in exc.partial.changes:
                if c.action != Action.NOOP:
                    out.emit(ev.planned_change(c.addr, c.action, c.reason, c.deposed))
            out.emit(ev.change_summary(exc.partial.counts(), "plan"))
            if exc.partial.outputs or exc.partial.prior_outputs:
                out.emit(_plan_outputs_event(exc.partial))
        _warn(out, list(exc.warnings))
        raise


_RULE = "\n" + "─" * 77 + "\n"
_NOT_SAVED = (_RULE + "\nNote: You didn't use the -out option to save this plan, so strata can't\nguarantee to "
              'take exactly these actions if you run "strata apply" now.\n')


async def cmd_plan(a: Args, out: Output) -> int:
    opts = options_from(a)
    destroy = bool(a.flags.get("destroy"))
    if out.json:
        out.emit(ev.version())
    save_to = a.flags.get("out")
    providers = Providers()
    async with open_state(opts, "OperationTypePlan", providers, writes=False, on_wait=_lock_waiting(out)) as store:
        p = await _make_plan(opts, out, destroy=destroy, command="plan", store=store, providers=providers)
    out.emit(ev.change_summary(p.plan.counts(), "plan"))
    if p.plan.outputs or p.plan.prior_outputs:
        out.emit(_plan_outputs_event(p.plan))
    text = render_plan(p.plan, p.providers.dynamic_attrs)
    if not out.json:
        out.text(text)
    if p.plan.targeted:
        _warn(out, [_TARGETING])
    _warn(out, p.warnings)
    if save_to:
        existed = os.path.exists(opts.state_file())
        try:
            planfile.write(save_to, lineage=p.state.lineage if existed else None,
                           serial=p.state.serial if existed else None, plan=p.plan, text=text,
                           options=planfile.Options(destroy, opts.refresh_only, opts.refresh, opts.targets,
                                                    opts.replace))
        except OSError as exc:
            raise DiagnosticsError([error("Failed to write plan file",
                                          f"The plan file could not be written: {exc.strerror}: {save_to}.")]) from None
    if os.environ.get("TF_IN_AUTOMATION"):
        pass  # terraform's: in automation, no suggestion of what to run next
    elif save_to:
        out.text(f'{_RULE}\nSaved the plan to: {save_to}\n\nTo perform exactly these actions, run the following '
                 f'command to apply:\n    strata apply "{save_to}"\n')
    elif p.plan.has_changes():
        out.text(_NOT_SAVED)
    if a.flags.get("detailed-exitcode") and p.plan.has_changes():
        return 2
    return 0


async def cmd_apply(a: Args, out: Output, destroy: bool = False, refresh_cmd: bool = False) -> int:
    """apply and destroy; ``refresh_cmd``: terraform's ``refresh`` (apply -refresh-only
    -auto-approve that prints only the outputs)."""
    opts = options_from(a)
    opts.on_signals = True  # Ctrl-C during the walk: finish what is in flight (terraform's graceful stop)
    if out.json and not out.quiet:
        out.emit(ev.version())
    saved = _saved_plan(a, opts, destroy or refresh_cmd) if a.positional else None
    if out.json and not a.flags.get("auto-approve") and saved is None:
        # terraform's diagnostic, in the stream when there is one
        out.diagnostics([error("Plan file or auto-approve required",
                               "strata cannot ask for interactive approval when -json or -quiet is set. "
                               "Enable the -auto-approve option.")])
        return 1
    providers = Providers()
    operation = "OperationTypeRefresh" if refresh_cmd else "OperationTypeApply"
    async with open_state(opts, operation, providers, on_wait=_lock_waiting(out)) as store:
        if saved is not None:  # applied as it was recorded: no planning again
            p = await open_saved_plan(opts, saved, out.emit, providers, store)
        else:
            p = await _make_plan(opts, out, destroy=destroy, command="apply", store=store, providers=providers)
        return await _apply_locked(a, out, opts, p, saved, destroy, refresh_cmd)


async def _apply_locked(a: Args, out: Output, opts: Options, p: Planned, saved: planfile.SavedPlan | None,
                        destroy: bool, refresh_cmd: bool) -> int:
    """The rest of :func:`cmd_apply`, under the state's lock."""
    out.emit(ev.change_summary(p.plan.counts(), "plan"))
    if p.plan.outputs or p.plan.prior_outputs:
        out.emit(_plan_outputs_event(p.plan))
    if not out.json and not refresh_cmd and saved is None:  # a saved plan was shown when it was made
        out.text(render_plan(p.plan, p.providers.dynamic_attrs))
    if not p.plan.has_changes() and not p.plan.data_reads and not p.plan.forget:
        _warn(out, p.warnings)
        if p.plan.targeted:
            _warn(out, [_TARGETING])
        if destroy:
            out.emit(ev.change_summary({"add": 0, "change": 0, "import": 0, "remove": 0}, "destroy"))
            out.text("\nDestroy complete! Resources: 0 destroyed.\n")
        else:
            out.emit(ev.change_summary({"add": 0, "change": 0, "import": 0, "remove": 0}, "apply"))
            if not refresh_cmd:
                out.text("\nApply complete! Resources: 0 added, 0 changed, 0 destroyed.\n")
            out.emit(_state_outputs_event(p.state.outputs))  # as after any apply: terraform's too
            _print_outputs(out, p.state.outputs)
        return 0
    if not a.flags.get("auto-approve") and saved is None:  # applying a saved plan is the approval
        if not _confirm(destroy, p.plan.refresh_only):
            out.text("\nApply cancelled.\n" if not destroy else "\nDestroy cancelled.\n")
            return 1
        out.text("\n")  # after the answer; with -auto-approve terraform goes straight on
    result = await apply_planned(p, opts, out.emit)
    if not out.json or out.quiet:
        out.diagnostics(result.diagnostics)
    _warn(out, p.warnings)  # terraform's: after the operations, before the summary
    if p.plan.targeted:  # a saved plan's targeting was said when it was made, as terraform's
        _warn(out, [_INCOMPLETE] if saved is not None else [_TARGETING, _INCOMPLETE])
    if result.interrupted:
        out.text(f"\nInterrupted: {result.skipped} operation(s) not started.\n")
        sys.stderr.write("strata: the apply was interrupted; every operation that was in flight finished and is "
                         "recorded in the state.\n")
        return 130
    if result.ok:
        op = "destroy" if destroy else "apply"
        out.emit(ev.change_summary(result.counts, op))
        c = result.counts
        if destroy:
            out.text(f"\nDestroy complete! Resources: {c['remove']} destroyed.\n")
        elif not refresh_cmd:
            out.text(f"\nApply complete! Resources: {c['add']} added, {c['change']} changed, "
                     f"{c['remove']} destroyed.\n")
        if not destroy:
            out.emit(_state_outputs_event(p.state.outputs))  # "Outputs: 0" too, as terraform's
            _print_outputs(out, p.state.outputs)
        return 0
    if result.skipped:
        out.text(f"\n{result.skipped} operation(s) not started: something they depend on failed"
                 + (", or -fail-fast stopped the apply.\n" if opts.fail_fast else ".\n"))
    return 1


def _saved_plan(a: Args, opts: Options, destroying: bool) -> planfile.SavedPlan:
    """The plan file ``strata apply FILE`` names; what would make the apply differ from the saved
    plan is refused (options, variables, a changed configuration, a state that moved on)."""
    if destroying:
        raise UsageError("A saved plan is applied with strata apply FILE; destroy, refresh and apply -destroy "
                         "take no plan file (make a destroy plan with strata plan -destroy -out=FILE).")
    if len(a.positional) > 1:
        raise UsageError("apply takes at most one argument: a plan file written by strata plan -out.")
    if a.var_args:
        raise DiagnosticsError([error("Can't set variables when applying a saved plan",
                                      "The -var and -var-file options cannot be used when applying a saved plan "
                                      "file, because a saved plan includes the variable values that were set "
                                      "when it was created.")])
    changed: list[str] = sorted(n for n in ("destroy", "refresh-only", "refresh") if n in a.flags)
    changed += (["target"] if a.targets else []) + (["replace"] if a.replace else [])
    if changed:
        raise DiagnosticsError([error("Can't change the options of a saved plan",
                                      f"The {', '.join('-' + n for n in changed)} option(s) cannot be used when "
                                      "applying a saved plan file: the plan was made with the options it was "
                                      "made with. Run strata plan again to make a different plan.")])
    return planfile.read(a.positional[0])


def _print_outputs(out: Output, outputs: dict[str, tuple[Any, bool]]) -> None:
    if not outputs or out.json:
        return
    lines = ["\nOutputs:\n"]
    for name, (v, s) in sorted(outputs.items()):
        lines.append(f"{name} = {'<sensitive>' if s else output_text(v)}")
    out.text("\n".join(lines) + "\n")


def _confirm(destroy: bool, refresh_only: bool = False) -> bool:
    if refresh_only:
        sys.stdout.write("\nWould you like to update the strata state to reflect these detected changes?\n"
                         "  strata will write these changes to the state without modifying any real "
                         "infrastructure.\n  There is no undo. Only 'yes' will be accepted to confirm.\n\n"
                         "  Enter a value: ")
    elif destroy:
        sys.stdout.write("\nDo you really want to destroy all resources?\n"
                         "  strata will destroy all your managed infrastructure, as shown above.\n"
                         "  There is no undo. Only 'yes' will be accepted to confirm.\n\n  Enter a value: ")
    else:
        sys.stdout.write("\nDo you want to perform these actions?\n"
                         "  strata will perform the actions described above.\n"
                         "  Only 'yes' will be accepted to approve.\n\n  Enter a value: ")
    sys.stdout.flush()
    line = sys.stdin.readline()
    return line.strip() == "yes"


async def cmd_validate(a: Args, out: Output) -> int:
    opts = options_from(a)
    try:
        module = load_module(opts.chdir)
        planner = Planner(module, _empty_state(), Providers(), {}, lambda e: None)
        planner._check_resource_types()
        planner._config_order()
        errs = errors_of(planner.diags)
        if errs:
            raise DiagnosticsError(errs)
        diags: list[Diagnostic] = []
    except DiagnosticsError as exc:
        if not out.json or out.quiet:
            raise
        diags = list(exc.diagnostics)
    if out.json and not out.quiet:
        # terraform's validate -json: one document, not an event stream
        n_err = len(errors_of(diags))
        sys.stdout.write(orjson.dumps({"format_version": "1.0", "valid": n_err == 0, "error_count": n_err,
                                       "warning_count": len(diags) - n_err,
                                       "diagnostics": [d.to_json(_code(d)) for d in diags]}).decode() + "\n")
        return 1 if n_err else 0
    out.text("Success! The configuration is valid.\n")
    return 0


def _empty_state() -> Any:
    from engine.state.model import State

    return State()


async def cmd_graph(a: Args, out: Output) -> int:
    """Like terraform: without -type, the resources and their dependencies; with
    -type=plan / apply / plan-destroy, the apply graph of that plan (one node per action)."""
    opts = options_from(a)
    kind = a.flags.get("type", "")
    if kind not in ("", "plan", "apply", "plan-destroy"):
        raise UsageError(f'Invalid -type "{kind}": expected plan, apply or plan-destroy.')
    if not kind:
        module = load_module(opts.chdir)
        sys.stdout.write(resource_graph(module).to_dot())
        return 0
    opts.refresh = False
    providers = Providers()
    async with open_state(opts, "OperationTypePlan", providers, writes=False) as store:
        p = await make_plan(opts, lambda e: None, destroy=kind == "plan-destroy" or bool(a.flags.get("destroy")),
                            providers=providers, store=store)
    graph, _work = build_apply_graph(p.plan)
    sys.stdout.write(graph.to_dot())
    return 0


def _load_state(a: Args) -> tuple[Any, Providers]:
    opts = options_from(a)
    providers = Providers()
    store = StateStore(opts.state_file(), providers.dynamic_attrs)
    state = store.load()
    for d in store.warnings:  # on stderr: standard output is the command's answer (state list)
        sys.stderr.write(render_diagnostic(d, True) + "\n")
    return state, providers


_TARGETING = Diagnostic(
    "warning", "Resource targeting is in effect",
    "You are creating a plan with the -target option, which means that the result of this plan may not "
    "represent all of the changes requested by the current configuration.\n\nThe -target option is not for "
    "routine use, and is provided only for exceptional situations such as recovering from errors or mistakes, "
    "or when strata specifically suggests to use it as part of an error message.")
_INCOMPLETE = Diagnostic(
    "warning", "Applied changes may be incomplete",
    "The plan was created with the -target option in effect, so some changes requested in the configuration "
    "may have been ignored and the output values may not be fully updated. Run the following command to verify "
    "that no other changes are pending:\n    strata plan\n\nNote that the -target option is not suitable for "
    "routine use, and is provided only for exceptional situations such as recovering from errors or mistakes, "
    "or when strata specifically suggests to use it as part of an error message.")


def _warn(out: Output, diags: list[Diagnostic]) -> None:
    """Warnings go where terraform puts them: the stream with -json, else standard output."""
    if out.json:
        if not out.quiet:
            out.diagnostics(diags)
        return
    out.text("".join(render_diagnostic(d, out.plain) + "\n" for d in diags))


_NO_OUTPUTS = Diagnostic(
    "warning", "No outputs found",
    "The state file either has no outputs defined, or all the defined outputs are empty. Please define an "
    "output in your configuration with the `output` keyword and run `strata apply` for it to become "
    "available.")


def _go_json(v: Any, indent: bool = False) -> str:
    """JSON as terraform's Go writes it for ``output -json``: sorted keys, numbers in full
    (0.000001, not 1e-6), HTML characters escaped."""
    opts = orjson.OPT_SORT_KEYS | (orjson.OPT_INDENT_2 if indent else 0)
    text = orjson.dumps(_full_numbers(v), option=opts).decode()
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                    ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text


def _full_numbers(v: Any) -> Any:
    if isinstance(v, float):
        return orjson.Fragment(number_to_string(v))
    if isinstance(v, dict):
        return {k: _full_numbers(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_full_numbers(x) for x in v]
    return v


def _friendly_type(ty: Any) -> str:
    """A cty type as terraform names it in messages: string, tuple, object, list of string, ..."""
    if isinstance(ty, str):
        return ty
    if ty[0] in ("list", "set", "map"):
        return f"{ty[0]} of {_friendly_type(ty[1])}"
    return str(ty[0])


async def cmd_output(a: Args, out: Output) -> int:
    """``strata output [-json | -raw] [NAME]``: the root module's outputs from the state, as
    terraform prints them. Errors go to stderr in human form, with or without -json."""

    def fail(summary: str, detail: str) -> int:
        sys.stderr.write(render_diagnostic(error(summary, detail), out.plain) + "\n")
        return 1

    raw = bool(a.flags.get("raw"))
    as_json = bool(a.flags.get("json"))
    if raw and as_json:
        return fail("Invalid output format", "The -raw and -json options are mutually-exclusive.")
    if len(a.positional) > 1:
        return fail("Unexpected argument", "The output command expects exactly one argument with the name of "
                    "an output variable or no arguments to show all outputs.")
    name = a.positional[0] if a.positional else None
    if raw and name is None:
        return fail("Output name required", "You must give the name of a single output value when using the "
                    "-raw option.")
    try:
        state, _ = _load_state(a)
    except UsageError:
        raise
    except StrataError as exc:  # an unreadable state: said on stderr, as every error of this command
        diags = exc.diagnostics if isinstance(exc, DiagnosticsError) else \
            (error(str(exc).split(":")[0], str(exc)),)
        for d in diags:
            sys.stderr.write(render_diagnostic(d, out.plain) + "\n")
        return 1
    outputs = state.outputs
    if not outputs and not as_json:
        sys.stdout.write(render_diagnostic(_NO_OUTPUTS, out.plain) + "\n")
        return 0
    if name is None:
        if as_json:
            doc = {n: {"sensitive": s, "type": cty_type(v), "value": to_json(v)} for n, (v, s) in outputs.items()}
            sys.stdout.write(_go_json(doc, indent=True) + "\n")
        else:
            for n, (v, s) in sorted(outputs.items()):
                sys.stdout.write(f"{n} = {'<sensitive>' if s else output_text(v)}\n")
        return 0
    if name not in outputs:
        return fail(f'Output "{name}" not found',
                    "The output variable requested could not be found in the state file. If you recently added "
                    "this to your configuration, be sure to run `strata apply`, since the state won't be "
                    "updated with new output variables until that command is run.")
    value, _sensitive = outputs[name]  # asked for by name: shown, as terraform does
    if as_json:
        sys.stdout.write(_go_json(to_json(value)) + "\n")
    elif raw:
        if isinstance(value, bool):
            sys.stdout.write("true" if value else "false")
        elif isinstance(value, str):
            sys.stdout.write(value)
        elif cty_type(value) == "number":
            sys.stdout.write(output_text(value))
        else:
            return fail("Unsupported value for raw output",
                        "The -raw option only supports strings, numbers, and boolean values, but output value "
                        f'"{name}" is {_friendly_type(cty_type(value))}.\n\nUse the -json option for '
                        "machine-readable representations of output values that have complex types.")
    else:
        sys.stdout.write(output_text(value) + "\n")
    return 0


async def cmd_state(a: Args, out: Output) -> int:
    sub = a.command[1] if len(a.command) > 1 else ""
    if sub in ("rm", "mv"):
        return await _edit_state(a, out, sub)
    state, providers = _load_state(a)
    if sub == "list":
        filters = a.positional
        for addr, deposed, _obj, _p in sorted(state.objects(), key=lambda t: (t[0].sort_key(), t[1] or "")):
            if deposed:
                continue
            s = str(addr)
            if filters and not any(s == f or s.startswith(f + "[") for f in filters):
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
    opts = options_from(a)
    _require_state(opts.state_file())
    async with open_state(opts, "taint" if tainted else "untaint", Providers(), on_wait=_lock_waiting(out)) as store:
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
    opts = options_from(a)
    _require_state(opts.state_file())
    dry = bool(a.flags.get("dry-run"))
    async with open_state(opts, f"state-{sub}", Providers(), writes=not dry, on_wait=_lock_waiting(out)) as store:
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
            raise DiagnosticsError([error("Not supported yet", "strata show -json does not render saved plans "
                                          "yet; strata show FILE prints the plan as strata plan did.")])
        out.text(saved.text)
        return 0
    state, providers = _load_state(a)
    if out.json:
        resources = []
        for addr, deposed, obj, prov in sorted(state.objects(), key=lambda t: (t[0].sort_key(), t[1] or "")):
            if deposed:
                continue
            r = addr.resource
            item: dict[str, Any] = {"address": str(addr), "mode": r.mode, "type": r.type, "name": r.name}
            if addr.key is not None:
                item["index"] = addr.key
            item["provider_name"] = prov[len('provider["'):-2]
            item["schema_version"] = obj.schema_version
            item["values"] = encode_attributes(obj.attributes, {})
            item["sensitive_values"] = {n: True for n in sorted(in_state(obj, addr, prov, providers))}
            if obj.dependencies:
                item["depends_on"] = list(obj.dependencies)
            if obj.tainted:
                item["tainted"] = True
            resources.append(item)
        # the terraform whose formats these are, as in the -json stream's version event and the state
        doc: dict[str, Any] = {"format_version": "1.0", "terraform_version": ev.TERRAFORM_COMPAT}
        if resources or state.outputs:
            doc["values"] = {"outputs": {n: {"sensitive": s, "value": to_json(v), "type": cty_type(v)}
                                         for n, (v, s) in state.outputs.items()},
                             "root_module": {"resources": resources}}
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


async def cmd_import(a: Args, out: Output) -> int:
    if len(a.positional) != 1 or len(a.command) < 2:
        raise UsageError("The import command expects two arguments: strata import ADDR ID")
    address, import_id = a.command[1], a.positional[0]
    opts = options_from(a)
    message = await import_resource(opts, address, import_id, out.emit, announce=out.text)
    out.text(message + "\n")
    return 0


async def run(argv: list[str]) -> int:
    a = parse_args(argv)
    check_options_for(a)
    if a.flags.get("help") or a.flags.get("h") or not a.command:
        sys.stdout.write(USAGE)
        # no command at all: the usage and terraform's exit status for it (127)
        return 0 if (a.flags.get("help") or a.flags.get("h")) else 127
    out = Output(bool(a.flags.get("json")), bool(a.flags.get("quiet")), bool(a.flags.get("no-color")))
    chdir = a.flags.get("chdir", ".")
    if not os.path.isdir(chdir):
        raise UsageError(f"Error handling -chdir option: chdir {chdir}: no such file or directory")
    if out.sink is not None:
        async with out.sink.batching():
            return await dispatch(a, out)
    return await dispatch(a, out)


async def dispatch(a: Args, out: Output) -> int:
    cmd = a.command[0]
    try:
        if cmd == "plan":
            return await cmd_plan(a, out)
        if cmd == "apply":
            return await cmd_apply(a, out, destroy=bool(a.flags.get("destroy")))
        if cmd == "destroy":
            return await cmd_apply(a, out, destroy=True)
        if cmd == "validate":
            return await cmd_validate(a, out)
        if cmd == "graph":
            return await cmd_graph(a, out)
        if cmd == "state":
            return await cmd_state(a, out)
        if cmd == "show":
            return await cmd_show(a, out)
        if cmd == "output":
            return await cmd_output(a, out)
        if cmd == "import":
            return await cmd_import(a, out)
        if cmd == "refresh":
            a.flags["refresh-only"] = a.flags["auto-approve"] = True
            return await cmd_apply(a, out, refresh_cmd=True)
        if cmd in ("taint", "untaint"):
            return await cmd_taint(a, out, cmd == "taint")
        if cmd == "force-unlock":
            from engine.cli.force_unlock import cmd_force_unlock

            return cmd_force_unlock(a)
        if cmd == "version":
            if out.json:
                sys.stdout.write(orjson.dumps({"strata_version": ev.STRATA_VERSION}).decode() + "\n")
            else:
                sys.stdout.write(f"strata v{ev.STRATA_VERSION}\n")
            return 0
        if cmd == "init":
            # scripts written for terraform run init first: there is nothing to download here
            sys.stdout.write("strata has nothing to initialize: its providers (terraform, null, random, local, "
                             "sim) are built in.\nRun \"strata plan\" or \"strata apply\".\n")
            return 0
        raise UsageError(f'strata has no command named "{cmd}". Run "strata -help" for the commands.')
    except DiagnosticsError as exc:
        out.diagnostics(exc.diagnostics)
        return 1
    except CycleError as exc:
        out.diagnostics([error("Cycle in the apply graph", str(exc))])
        return 1
    except StrataError as exc:
        if isinstance(exc, UsageError):
            raise
        out.diagnostics([error(str(exc).split(":")[0], str(exc))])
        return 1


def main(argv: list[str] | None = None) -> int:
    """The ``strata`` command. Called without ``argv`` it is the program (it reads ``sys.argv``),
    and owns the process: out of memory, it ends it at once with one line."""
    if argv is not None:
        return _main(argv, None)
    deferred = _DeferredReports()
    sys.unraisablehook = deferred.hook
    deferred.reserve = bytearray(_RESERVE)
    try:
        code = _main(sys.argv[1:], deferred)
    finally:
        sys.unraisablehook = sys.__unraisablehook__
    deferred.report()
    return code


_RESERVE = 32 << 20  # bytes


class _DeferredReports:
    """Holds the interpreter's "Exception ignored in ..." reports until the run is over. When the
    run ran out of memory, they are what the event loop's half-unwound task groups say about it
    ("Nursery misnesting") and are dropped with the process; otherwise they are printed then.

    The hook is a deque's bound ``append``: called without a Python frame, into blocks the deque
    recycles, so that it works when memory is exhausted (a hook that fails is itself reported)."""

    def __init__(self) -> None:
        self.pending: collections.deque[Any] = collections.deque(maxlen=50)
        self.hook = self.pending.append
        self.reserve: bytearray | None = None
        """Address space set aside for ending the run: freed first when it fails, so that telling
        whether memory ran out, and saying so, does not itself run out of memory."""

    def report(self) -> None:
        for r in self.pending:
            sys.__unraisablehook__(r)
        self.pending.clear()


def _main(argv: list[str], deferred: _DeferredReports | None) -> int:
    """``main``; ``deferred``: the reports held back while this, the program, owns the process."""
    owns_process = deferred is not None
    # strata builds millions of small, acyclic objects (values, addresses, events) that live
    # for the whole run; the default collector thresholds made full collections a third of a
    # 100k apply. Collect young objects far less often; cycles are still collected.
    gc.set_threshold(100_000, 50, 100)
    backend = os.environ.get("STRATA_ASYNC_BACKEND", "trio")
    try:
        if backend not in ("trio", "asyncio"):
            raise UsageError(f'Invalid STRATA_ASYNC_BACKEND "{backend}": expected trio or asyncio.')
        argv = enter_chdir(argv)
        code = anyio.run(run, argv, backend=backend)
    except BrokenPipeError:
        # the reader of our output went away (strata state list | head): not an error of ours
        _stdout_to_devnull()
        return 0
    except OSError as exc:
        if exc.filename is not None or exc.errno not in _OUTPUT_ERRNOS:
            raise
        # writing our own output failed (strata state list > /dev/full): one line, not a traceback
        sys.stderr.write(f"strata: could not write the output: {exc.strerror or exc}\n")
        _stdout_to_devnull()
        return 1
    except UsageError as exc:
        lines = str(exc).split("\n")
        sys.stderr.write(render_diagnostic(error(lines[0], "\n".join(lines[1:])), "-no-color" in argv) + "\n")
        code = 1
    except BaseException as exc:
        if deferred is not None:
            deferred.reserve = None
        if _out_of_memory(exc, deferred):
            # a count or for_each far beyond this machine: one line, not a traceback (the state on
            # disk holds everything an apply completed)
            if owns_process:
                # from here on, what the interpreter would report is the exhaustion's aftermath:
                # no collection to run finalizers, and a hook that drops reports and cannot fail
                # (a builtin that allocates nothing)
                gc.disable()
                sys.unraisablehook = bool
            sys.stderr.write("strata: out of memory (is a count or for_each much larger than intended?)\n")
            if owns_process:
                _exit_now(1)
            return 1
        if not _raised(exc, KeyboardInterrupt):  # Ctrl-C
            raise
        sys.stderr.write("\nInterrupted. Everything that completed is recorded in the state (the journal is "
                         "compacted on the next apply).\n")
        code = 130
    if ev.OUTPUT_FAILED:
        code = code or 1  # the run went on, but what it was asked to print is not all there
    try:
        sys.stdout.flush()
    except OSError as exc:
        # the reader closed the pipe (| head), or the disk is full: point stdout at devnull so
        # exit doesn't complain
        if not isinstance(exc, BrokenPipeError):
            sys.stderr.write(f"strata: could not write the output: {exc.strerror or exc}\n")
            code = code or 1
        _stdout_to_devnull()
    return code


def _exit_now(code: int) -> NoReturn:
    """Exit without the interpreter's finalization. After running out of memory, the event loop's
    half-unwound task groups and coroutines are collected at exit, and each complains ("Exception
    ignored ... Nursery misnesting", "Bad file descriptor"), burying the one line that matters.
    Nothing is lost by skipping it: the journal is fsync'd as objects finish; the state's lock,
    which the operation could not unwind to, is released here."""
    from engine.state.lock import release_held

    release_held()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, MemoryError):
            stream.flush()
    os._exit(code)


def _stdout_to_devnull() -> None:
    """Stdout can take no more (a closed pipe, a full disk): point it at /dev/null, so the
    interpreter's own flush at exit has nothing to complain about."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG, errno.EPIPE})


def _out_of_memory(exc: BaseException, deferred: _DeferredReports | None) -> bool:
    """Whether the run ended because memory ran out: a MemoryError anywhere in what ended it (its
    causes and contexts, inside groups), or among the reports held back meanwhile. When memory
    runs out inside the event loop itself, what reaches here may be the loop's own internal error
    about the state the MemoryError left it in."""
    seen: set[int] = set()
    stack = [exc]
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, MemoryError):
            return True
        if isinstance(e, BaseExceptionGroup):
            stack.extend(e.exceptions)
        stack.extend(n for n in (e.__cause__, e.__context__) if n is not None)
    return deferred is not None and any(isinstance(r.exc_value, MemoryError) for r in deferred.pending)


def _raised(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether ``exc`` is a ``kind``, possibly wrapped in exception groups by the task groups it
    passed through."""
    if isinstance(exc, kind):
        return True
    if isinstance(exc, BaseExceptionGroup):
        return exc.subgroup(lambda e: isinstance(e, kind)) is not None
    return False


if __name__ == "__main__":
    raise SystemExit(main())

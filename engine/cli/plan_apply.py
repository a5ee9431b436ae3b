"""``plan``, ``apply``, ``destroy`` and ``refresh``: planning, the approval, applying, and the
checks that a saved plan (``plan -out``, ``apply FILE``) still matches its state and configuration."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from typing import Any

from engine.api.operation import Operation, Planned, PlanOptions
from engine.api.workspace import Workspace
from engine.cli.args import Args, UsageError, plan_options_from, workspace_from
from engine.cli.generated import (
    EXPERIMENTAL,
    check_generate_target,
    generated_note,
    write_generated,
)
from engine.cli.output import Output, lock_waiting, warn
from engine.diagnostics import Diagnostic, DiagnosticsError, PlanningFailed, error
from engine.events import stream as ev
from engine.plans import planfile
from engine.plans.plan import Plan, restated
from engine.plans.planned_changes import emit_planned_changes
from engine.render.text import partial_plan_shown, render_failed_plan, render_plan
from engine.render.value_text import output_text
from engine.state.model import State
from engine.values import UNKNOWN, to_json


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


def _state_outputs_event(state: State) -> ev.Event:
    # as terraform: a sensitive output's value is not in the stream
    return ev.outputs_event({name: {"sensitive": s, "type": state.output_type(name)} if s else
                             {"sensitive": s, "type": state.output_type(name), "value": to_json(v)}
                             for name, (v, s) in sorted(state.outputs.items())})


async def _make_plan(op: Operation, out: Output, command: str, generate_to: str | None = None) -> Planned:
    """:meth:`Operation.plan`; when planning stops at errors, what terraform prints before them
    (and, as terraform's, the configuration generated for imports written even so)."""
    try:
        return await op.plan(out.emit)
    except DiagnosticsError as exc:
        if generate_to is not None and isinstance(exc, PlanningFailed) and exc.partial is not None:
            exc.warnings = (*exc.warnings, *write_generated(exc.partial, generate_to))
        if isinstance(exc, PlanningFailed) and not out.json:
            out.text(render_failed_plan(exc.partial, exc.types, command))
        elif isinstance(exc, PlanningFailed) and partial_plan_shown(exc.partial):
            assert exc.partial is not None
            # terraform's stream: what was planned before the error, then the diagnostics
            emit_planned_changes(out.emit, exc.partial.changes, with_no_ops=True)
            out.emit(ev.change_summary(exc.partial.counts(), "plan"))
            if exc.partial.outputs or exc.partial.prior_outputs:
                out.emit(_plan_outputs_event(exc.partial))
        warn(out, list(exc.warnings))
        raise


_RULE = "\n" + "─" * 77 + "\n"
_NOT_SAVED = (_RULE + "\nNote: You didn't use the -out option to save this plan, so strata can't\nguarantee to "
              'take exactly these actions if you run "strata apply" now.\n')


async def cmd_plan(a: Args, out: Output) -> int:
    ws = workspace_from(a)
    destroy = bool(a.flags.get("destroy"))
    how = plan_options_from(a, destroy)
    if out.json:
        out.emit(ev.version())
    save_to = a.flags.get("out")
    generate_to = how.generate_config_out
    if generate_to is not None:
        check_generate_target(generate_to, destroy or how.refresh_only)
    async with ws.operation("OperationTypePlan", plan=how, writes=False, on_lock_wait=lock_waiting(out)) as op:
        existed = os.path.exists(op.state_file)  # under the lock: the state the plan was made from
        try:
            p = await _make_plan(op, out, command="plan", generate_to=generate_to)
        except PlanningFailed as exc:
            if save_to and exc.partial is not None and exc.state is not None:
                # as terraform's: what was planned before the errors is saved, marked errored, for
                # tools to read (show -json); apply refuses it
                _save_plan(save_to, exc.partial, exc.state, existed, how, destroy,
                           render_failed_plan(exc.partial, exc.types, "plan"))
            raise
    generated = write_generated(p.plan, generate_to) if generate_to is not None else []
    wrote_note = generated == [EXPERIMENTAL]
    out.emit(ev.change_summary(p.plan.counts(), "plan"))
    if p.plan.outputs or p.plan.prior_outputs:
        out.emit(_plan_outputs_event(p.plan))
    text = render_plan(p.plan, p.providers.dynamic_attrs)
    if not out.json:
        out.text(text)
    if p.plan.targeted:
        warn(out, [_TARGETING])
    warn(out, [*p.warnings, *generated])
    if save_to:
        saved_plan = p.plan
        if wrote_note and saved_plan.config_digest:  # applied with the file it wrote
            saved_plan = replace(saved_plan, config_digest=planfile.config_digest(ws.path))
        _save_plan(save_to, saved_plan, p.state, existed, how, destroy, text)
    if os.environ.get("TF_IN_AUTOMATION"):
        pass  # terraform's: in automation, no suggestion of what to run next
    elif wrote_note and p.plan.has_changes():  # one rule over both notes
        assert generate_to is not None
        out.text(_RULE + generated_note(generate_to)
                 + (f'\nSaved the plan to: {save_to}\n\nTo perform exactly these actions, run the following '
                    f'command to apply:\n    strata apply "{save_to}"\n' if save_to else _NOT_SAVED[len(_RULE):]))
    elif save_to:
        out.text(f'{_RULE}\nSaved the plan to: {save_to}\n\nTo perform exactly these actions, run the following '
                 f'command to apply:\n    strata apply "{save_to}"\n')
    elif p.plan.has_changes():
        out.text(_NOT_SAVED)
    if a.flags.get("detailed-exitcode") and p.plan.has_changes():
        return 2
    return 0


def _save_plan(path: str, plan: Plan, state: State, existed: bool, how: PlanOptions, destroy: bool,
               text: str) -> None:
    """``plan -out``: ``plan`` made from ``state`` (which ``existed`` as a file or not)."""
    try:
        planfile.write(path, lineage=state.lineage if existed else None, serial=state.serial if existed else None,
                       plan=plan, text=text,
                       options=planfile.Options(destroy, how.refresh_only, how.refresh, how.targets, how.replace))
    except OSError as exc:
        raise DiagnosticsError([error("Failed to write plan file",
                                      f"The plan file could not be written: {exc.strerror}: {path}.")]) from None


async def cmd_apply(a: Args, out: Output, destroy: bool = False, refresh_cmd: bool = False) -> int:
    """apply and destroy; ``refresh_cmd``: terraform's ``refresh`` (apply -refresh-only
    -auto-approve that prints only the outputs)."""
    ws = workspace_from(a)
    if out.json and not out.quiet:
        out.emit(ev.version())
    saved = _saved_plan(a, destroy or refresh_cmd) if a.positional else None
    if out.json and not a.flags.get("auto-approve") and saved is None:
        # terraform's diagnostic, in the stream when there is one
        out.diagnostics([error("Plan file or auto-approve required",
                               "strata cannot ask for interactive approval when -json or -quiet is set. "
                               "Enable the -auto-approve option.")])
        return 1
    kind = "OperationTypeRefresh" if refresh_cmd else "OperationTypeApply"
    async with ws.operation(kind, plan=plan_options_from(a, destroy), on_lock_wait=lock_waiting(out)) as op:
        if saved is not None:  # applied as it was recorded: no planning again
            p = await op.saved_plan(saved, out.emit)
        else:
            p = await _make_plan(op, out, command="apply")
        return await _apply_locked(a, out, ws, op, p, saved, destroy, refresh_cmd)


async def _apply_locked(a: Args, out: Output, ws: Workspace, op: Operation, p: Planned,
                        saved: planfile.SavedPlan | None, destroy: bool, refresh_cmd: bool) -> int:
    """The rest of :func:`cmd_apply`, under the state's lock."""
    if saved is not None:
        # as terraform's: a saved plan's changes are listed again, each that does something (a
        # move or an import alone does not), with neither summary nor outputs: shown when it was made
        emit_planned_changes(out.emit, p.plan.changes, with_no_ops=False)
    else:
        out.emit(ev.change_summary(p.plan.counts(), "plan"))
        if p.plan.outputs or p.plan.prior_outputs:
            out.emit(_plan_outputs_event(p.plan))
    if not out.json and not refresh_cmd and saved is None:  # a saved plan was shown when it was made
        out.text(render_plan(p.plan, p.providers.dynamic_attrs))
    if not p.plan.has_changes() and not p.plan.data_reads and not p.plan.forget:
        # no operation, but objects recorded anew, or the check blocks evaluated again (as terraform's)
        if not destroy and (restated(p.plan, p.state) or any(m.checks for m in p.module.tree())):
            await op.apply(p, out.emit)
        warn(out, p.warnings)
        if p.plan.targeted:
            warn(out, [_TARGETING])
        if destroy:
            out.emit(ev.change_summary({"add": 0, "change": 0, "import": 0, "remove": 0}, "destroy"))
            out.text("\nDestroy complete! Resources: 0 destroyed.\n")
        else:
            out.emit(ev.change_summary({"add": 0, "change": 0, "import": 0, "remove": 0}, "apply"))
            if not refresh_cmd:
                out.text("\nApply complete! Resources: 0 added, 0 changed, 0 destroyed.\n")
            out.emit(_state_outputs_event(p.state))  # as after any apply: terraform's too
            _print_outputs(out, p.state)
        return 0
    if not a.flags.get("auto-approve") and saved is None:  # applying a saved plan is the approval
        # as terraform's: the warnings so far are shown before the question (a check block's, for
        # one, help decide), and not again after the apply
        warn(out, p.warnings)
        p.warnings.clear()
        if not _confirm(destroy, p.plan.refresh_only):
            out.text("\nApply cancelled.\n" if not destroy else "\nDestroy cancelled.\n")
            return 1
        out.text("\n")  # after the answer; with -auto-approve terraform goes straight on
    # Ctrl-C during the walk: finish what is in flight (terraform's graceful stop)
    result = await op.apply(p, out.emit, on_signals=True)
    if not out.json or out.quiet:
        out.diagnostics(result.diagnostics)
    warn(out, p.warnings)  # terraform's: after the operations, before the summary
    if p.plan.targeted:  # a saved plan's targeting was said when it was made, as terraform's
        warn(out, [_INCOMPLETE] if saved is not None else [_TARGETING, _INCOMPLETE])
    if result.interrupted:
        out.text(f"\nInterrupted: {result.skipped} operation(s) not started.\n")
        sys.stderr.write("strata: the apply was interrupted; every operation that was in flight finished and is "
                         "recorded in the state.\n")
        return 130
    if result.ok:
        kind = "destroy" if destroy else "apply"
        out.emit(ev.change_summary(result.counts, kind))
        c = result.counts
        if destroy:
            out.text(f"\nDestroy complete! Resources: {c['remove']} destroyed.\n")
        elif not refresh_cmd:
            imported = f"{c['import']} imported, " if c.get("import") else ""
            out.text(f"\nApply complete! Resources: {imported}{c['add']} added, {c['change']} changed, "
                     f"{c['remove']} destroyed.\n")
        if not destroy:
            out.emit(_state_outputs_event(p.state))  # "Outputs: 0" too, as terraform's
            _print_outputs(out, p.state)
        return 0
    if result.skipped:
        out.text(f"\n{result.skipped} operation(s) not started: something they depend on failed"
                 + (", or -fail-fast stopped the apply.\n" if ws.fail_fast else ".\n"))
    return 1


def _saved_plan(a: Args, destroying: bool) -> planfile.SavedPlan:
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


def _print_outputs(out: Output, state: State) -> None:
    if not state.outputs or out.json:
        return
    lines = ["\nOutputs:\n"]
    for name, (v, s) in sorted(state.outputs.items()):
        lines.append(f"{name} = {'<sensitive>' if s else output_text(v, 0, state.output_type(name))}")
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

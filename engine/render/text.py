"""Human-readable output in terraform's style: plan diffs, diagnostics, apply progress."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator, Callable
from typing import IO, Any

import orjson

from engine.diagnostics import Diagnostic, source_line
from engine.events import provisioning
from engine.events import stream as ev
from engine.lang.quote import go_quote
from engine.plans.plan import Action, Plan, ResourceInstanceChange
from engine.render.value_diff import ABSENT, IMPORTANT, SHOW_ALL, diff, force_replacement, json_of
from engine.render.value_text import scalar_text
from engine.render.wordwrap import wrap
from engine.values import UNKNOWN, MapVal, equal

_SYMBOL = {
    Action.READ: "<=",
    Action.CREATE: "+",
    Action.UPDATE: "~",
    Action.DELETE: "-",
    Action.DELETE_THEN_CREATE: "-/+",
    Action.CREATE_THEN_DELETE: "+/-",
}
_LEGEND = {  # in terraform's order
    Action.CREATE: "  + create",
    Action.UPDATE: "  ~ update in-place",
    Action.DELETE: "  - destroy",
    Action.DELETE_THEN_CREATE: "-/+ destroy and then create replacement",
    Action.CREATE_THEN_DELETE: "+/- create replacement and then destroy",
    Action.READ: " <= read (data resources)",
}
_REASON_TEXT = {
    "delete_because_no_resource_config": "because {res} is not in configuration",
    "delete_because_no_move_target": "because {previous} was moved to {addr}, which is not in configuration",
    "delete_because_count_index": "because index [{key}] is out of range for count",
    "delete_because_each_key": "because key [{key}] is not in for_each map",
    "delete_because_no_module": "because {mod} is not in configuration",
}
_READ_REASON = {
    "read_because_config_unknown": "\n  # (config refers to values not yet known)",
    "read_because_dependency_pending": "\n  # (depends on a resource or a module with changes pending)",
    "read_because_check_nested": "\n  # (config will be reloaded to verify a check block)",
}
_WRONG_REPETITION = {  # by the key of the instance destroyed, as terraform says it
    type(None): "because resource uses count or for_each",
    int: "because resource does not use count",
    str: "because resource does not use for_each",
}


def _delete_reason(c: ResourceInstanceChange) -> str | None:
    """The note terraform adds under "will be destroyed": why (``action_reason``)."""
    addr = c.addr
    if c.reason == "delete_because_wrong_repetition":
        return _WRONG_REPETITION[type(addr.key)]
    text = _REASON_TEXT.get(c.reason or "")
    if text is None:
        return None
    r = addr.resource
    # the key as JSON, Go's (which escapes <, > and & in a string)
    key = orjson.dumps(addr.key).decode().replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return text.format(res=f"{r.type}.{r.name}", mod=r.module, key=key, previous=c.previous, addr=addr)


class _Sensitive:
    def __repr__(self) -> str:
        return "(sensitive value)"


_SENSITIVE: Any = _Sensitive()


def fmt_value(v: Any, col: int, mark: str = "", quote_map_keys: bool = False) -> str:
    """A value as terraform's plan and ``show`` print it, for a name or list item at column
    ``col``: nested entries at ``col`` + 2, each after ``mark`` ("+" in a create, "-" in a
    destroy, " " in ``show``'s outputs, none in an update's before and after), closing brackets
    and heredoc delimiters back at ``col``. ``quote_map_keys``: a map's keys as quoted strings,
    as ``show`` prints an output's map (an object's stay bare)."""
    if v is _SENSITIVE:
        return "(sensitive value)"
    scalar = scalar_text(v)
    if scalar is not None:
        return scalar
    prefix = mark + " " if mark else ""
    inner = col + 2 + len(prefix)  # where a nested entry's name or item starts
    if isinstance(v, str):
        decoded = json_of(v) if mark in ("+", "-") else ABSENT
        if decoded is not ABSENT:  # a JSON document, as terraform's plan shows one
            return (f"jsonencode(\n{' ' * (col + 4)}{fmt_value(decoded, col + 4, mark, quote_map_keys)}"
                    f"\n{' ' * col})")
        if "\n" in v:
            body = "\n".join(" " * inner + line for line in v.rstrip("\n").split("\n"))
            return f"<<-EOT\n{body}\n{' ' * col}EOT"
        return go_quote(v)
    lead = " " * (col + 2) + prefix
    if isinstance(v, dict):
        if not v:
            return "{}"
        keys = {k: go_quote(k) if quote_map_keys and isinstance(v, MapVal) else _key(k) for k in v}
        width = max(len(k) for k in keys.values())
        lines = [f"{lead}{keys[k].ljust(width)} = {fmt_value(v[k], inner, mark, quote_map_keys)}"
                 for k in sorted(v)]
        return "{\n" + "\n".join(lines) + "\n" + " " * col + "}"
    if isinstance(v, tuple):
        if not v:
            return "[]"
        lines = [f"{lead}{fmt_value(x, inner, mark, quote_map_keys)}," for x in v]
        return "[\n" + "\n".join(lines) + "\n" + " " * col + "]"
    return repr(v)


def _key(k: str) -> str:
    return k if k.replace("_", "a").replace("-", "a").isalnum() and not k[:1].isdigit() else orjson.dumps(k).decode()


def render_change(c: ResourceInstanceChange, types: dict[str, Any] | None = None) -> str:
    """One resource instance's change; ``types``: its attributes' types (from the provider's
    schema), by which a dynamic attribute's value is compared as terraform compares it."""
    types = types or {}
    addr = c.addr
    r = addr.resource
    head = f"  # {addr}"
    if c.deposed:
        head += f" (deposed object {c.deposed})"
    if c.action == Action.FORGET:
        head = f" # {addr} will no longer be managed by strata, but will not be destroyed\n" \
               " # (destroy = false is set in the configuration)"
    elif c.action == Action.NOOP and c.importing is not None:
        head += " will be imported"
    elif c.action == Action.NOOP and c.previous is not None:
        head = f"  # {c.previous} has moved to {addr}"
    elif c.action == Action.READ:
        head += " will be read during apply" + _READ_REASON.get(c.reason or "", "")
    elif c.action == Action.CREATE:
        head += " will be created"
    elif c.action == Action.UPDATE:
        head += " will be updated in-place"
    elif c.action == Action.DELETE:
        head += " will be destroyed"
    elif c.reason == "tainted":
        head += " is tainted, so must be replaced"
    elif c.reason == "replace_by_request":
        head += " will be replaced, as requested"
    elif c.reason == "replace_by_triggers":
        head += " will be replaced due to changes in replace_triggered_by"
    else:
        head += " must be replaced"
    lines = [head]
    if c.previous is not None and c.action != Action.NOOP:
        lines.append(f"  # (moved from {c.previous})")
    if c.importing is not None and c.action != Action.NOOP:
        lines.append(f"  # (imported from {orjson.dumps(c.importing).decode()})")
    if c.generated_config:
        lines.append("  # (config will be generated)")
    if c.action == Action.DELETE:
        reason = _delete_reason(c)
        if reason is not None:
            lines.append(f"  # ({reason})")
        if c.deposed:
            lines.append("  # (left over from a partially-failed replacement of this instance)")
    sym = _SYMBOL.get(c.action, "")
    kind = "data" if r.mode == "data" else "resource"
    lead = " ." if c.action == Action.FORGET else sym.rjust(3) if len(sym) < 3 else sym
    lines.append(f"{lead} {kind} \"{r.type}\" \"{r.name}\" {{")
    before = c.before or {}
    after = c.after or {}
    names = sorted(set(before) | set(after))
    shown: list[tuple[str, str, str]] = []  # (marker, name, text after "name = "), aligned below
    named: list[str] = []  # every attribute not null on both sides: shown or hidden, it takes room
    hidden = 0
    for name in names:
        b = before.get(name) if c.before is not None else None
        a = after.get(name) if c.after is not None else None
        same = equal(a, b)
        if name in c.sensitive:
            b = _SENSITIVE if b is not None else None
            a = _SENSITIVE if a is not None and a is not UNKNOWN else a
        if b is not None or a is not None:
            named.append(name)
        if c.action in (Action.CREATE, Action.READ) or (c.is_replace and c.before is None):
            if a is None:
                continue
            # a map's keys quoted, as terraform's plan has them, but in a dynamic attribute
            # (rendered from JSON, where a map is an object)
            shown.append(("+", name, fmt_value(a, 8, "+", types.get(name) != "dynamic")))
        elif c.action == Action.DELETE:
            if b is None:
                continue
            shown.append(("-", name, f"{fmt_value(b, 8, '-', types.get(name) != 'dynamic')} -> null"))
        else:
            # terraform always shows the attributes that say which object this is, in full, and
            # every attribute of an object being imported (ShowUnchangedChildren)
            important = name in IMPORTANT or c.importing is not None
            if same and not (important and b is not None):
                if b is not None:
                    hidden += 1
                continue
            dynamic = types.get(name) == "dynamic"
            forces = " # forces replacement" if (name,) in c.requires_replace and not dynamic else ""
            if name in c.sensitive:  # one line, whatever changed inside it
                mark = "+" if b is None else "-" if a is None else "~"
                shown.append((mark, name, fmt_value(a if a is not None else b, 8)
                               + (" -> null" if a is None else "") + forces))
                continue
            node = diff(ABSENT if b is None else b, ABSENT if a is None else a, json=dynamic)
            if not dynamic:  # a path inside the value: said of the value it leads to
                for p in c.requires_replace:
                    if len(p) > 1 and p[0] == name:
                        node = force_replacement(node, p[1:])
                if node.forces:
                    forces = " # forces replacement"
            text = node.render(8, SHOW_ALL if important else None)
            if forces:  # (terraform does not say it of a dynamic attribute)
                # after the value, or after the opening line of one written over several lines
                first, nl, rest = text.partition("\n")
                text = f"{first}{forces}{nl}{rest}"
            shown.append((node.action, name, text))
    # names line up among the attributes that are not null (shown or hidden), as terraform's do
    width = max((len(n) for n in named), default=0)
    lines.extend(f"      {mark} {name.ljust(width)} = {text}" for mark, name, text in shown)
    if hidden:
        lines.append(f"        # ({hidden} unchanged attribute{'s' if hidden != 1 else ''} hidden)")
    lines.append("    }")
    return "\n".join(lines)


def render_drift(plan: Plan, types: Callable[[str], dict[str, Any]] | None = None) -> str:
    """What refresh found changed outside strata, as terraform's "Objects have changed" note."""
    out = ["\nNote: Objects have changed outside of strata\n",
           "strata detected the following changes made outside of strata since the\n"
           'last "strata apply" which may have affected this plan:\n']
    for c in plan.drift:
        text = render_change(c, types(c.addr.resource.type) if types else None).split("\n")
        verb = "has been deleted" if c.action == Action.DELETE else "has changed"
        if c.action != Action.NOOP:  # (an object only moved says so, as render_change has it)
            text[0] = f"  # {c.addr} {verb}"
        out.append("\n".join(text))
        out.append("")
    return "\n".join(out)


PLANNING_FAILED = "\nPlanning failed. strata encountered an error while generating this plan.\n\n"


def render_failed_plan(plan: Plan | None, types: Callable[[str], dict[str, Any]] | None = None,
                       command: str = "plan") -> str:
    """What terraform prints when planning stopped at errors: the changes planned before them, or
    (``plan`` only) that planning failed."""
    if partial_plan_shown(plan):
        assert plan is not None
        return render_plan(plan, types, errored=True)
    return PLANNING_FAILED if command == "plan" else ""


def partial_plan_shown(plan: Plan | None) -> bool:
    """Does terraform show what was planned before planning stopped at an error (text or -json)?"""
    return plan is not None and not plan.refresh_only and (
        any(c.action != Action.NOOP or c.previous is not None or c.importing is not None for c in plan.changes)
        or plan.outputs_changed())


def render_plan(plan: Plan, types: Callable[[str], dict[str, Any]] | None = None,
                errored: bool = False) -> str:
    """The plan as ``terraform plan`` prints it; ``types``: a resource type's attribute types.
    ``errored``: the changes planned before planning stopped at an error."""
    if plan.refresh_only:
        if not plan.drift and not plan.outputs_changed():
            return ("\nNo changes. Your infrastructure still matches the configuration.\n\n"
                    "strata has checked that the real remote objects still match the result of\n"
                    "your most recent changes, and found no differences.\n")
        oc = _output_changes(plan)
        if not plan.drift:
            return "\nChanges to Outputs:\n" + "\n".join(oc) + "\n" + _SAVE_OUTPUTS
        text = render_drift(plan, types)
        # terraform's: two empty lines after the last object (its text starts with "\n\n")
        text += ("\n\nThis is a refresh-only plan, so strata will not take any actions to undo\n"
                 "these. If you were expecting these changes then you can apply this plan to\n"
                 "record the updated values in the strata state without changing any remote\n"
                 "objects.\n")
        if oc:
            text += "\nChanges to Outputs:\n" + "\n".join(oc) + "\n"
        return text
    changes = [c for c in plan.changes
               if c.action != Action.NOOP or c.previous is not None or c.importing is not None]
    if not changes and not plan.outputs_changed():
        if plan.destroy:
            return ("\nNo changes. No objects need to be destroyed.\n\nEither you have not created any objects yet "
                    "or the existing objects were\nalready deleted outside of strata.\n")
        return ("\nNo changes. Your infrastructure matches the configuration.\n\n"
                "strata has compared your real infrastructure against your configuration\n"
                "and found no differences, so no changes are needed.\n")
    out: list[str] = []
    if changes:
        used = [a for a in _LEGEND if any(c.action == a for c in changes)]
        if any(c.action != Action.NOOP for c in changes):
            out.append("\nstrata used the selected providers to generate the following execution\n"
                       "plan. Resource actions are indicated with the following symbols:")
        out.extend(_LEGEND[a] for a in used)
        out.append("\nstrata planned the following actions, but then encountered a problem:\n" if errored
                   else "\nstrata will perform the following actions:\n")
        for c in sorted(changes, key=_plan_order):
            out.append(render_change(c, types(c.addr.resource.type) if types else None))
            out.append("")
        counts = plan.counts()
        imported = f"{counts['import']} to import, " if counts["import"] else ""
        out.append(f"Plan: {imported}{counts['add']} to add, {counts['change']} to change, "
                   f"{counts['remove']} to destroy.")
    oc = _output_changes(plan)
    if oc:
        out.append("\nChanges to Outputs:")
        out.extend(oc)
    text = "\n".join(out) + "\n"
    return text + _SAVE_OUTPUTS if oc and not changes else text


def _plan_order(c: ResourceInstanceChange) -> tuple[object, ...]:
    """terraform's order of a plan's changes: by module, a module's data resources first, then
    by type, name and key, a deposed object after the current one."""
    module, *rest = c.addr.sort_key()
    return module, c.addr.resource.mode != "data", rest, c.deposed or ""


_SAVE_OUTPUTS = ("\nYou can apply this plan to save these new output values to the strata\n"
                 "state, without changing any real infrastructure.\n")


def _output_changes(plan: Plan) -> list[str]:
    shown: list[tuple[str, str, str]] = []  # (marker, name, text after "name = "), aligned below
    for name in sorted(set(plan.outputs) | set(plan.prior_outputs)):
        new = plan.outputs.get(name)
        old = plan.prior_outputs.get(name)
        if new is not None and old is not None and equal(new[0], old[0]):
            continue
        if old is None and new is not None:
            shown.append(("+", name, "(sensitive value)" if new[1] else fmt_value(new[0], 4, "+")))
        elif new is None and old is not None:
            shown.append(("-", name, ("(sensitive value)" if old[1] else fmt_value(old[0], 4, "-")) + " -> null"))
        elif new is not None and old is not None:
            if old[1] or new[1]:
                shown.append(("~", name, "(sensitive value)"))
            else:
                node = diff(old[0], new[0], json=True)
                shown.append((node.action, name, node.render(4)))
    # terraform pads the names to the longest among all the plan's outputs, unchanged ones too
    width = max((len(n) for n in set(plan.outputs) | set(plan.prior_outputs)), default=0)
    return [f"  {mark} {name.ljust(width)} = {text}" for mark, name, text in shown]


DIAGNOSTIC_WIDTH = 78  # terraform's width when its output is not a terminal


def render_diagnostic(d: Diagnostic, plain: bool = False) -> str:
    """A diagnostic as terraform prints it: what, where (``with`` the address, ``on`` the file and
    line, ``in`` the enclosing block, and that line of the file), then the detail, its paragraphs
    wrapped to terraform's width (a line that starts with a space is left as it is).

    Framed by a rule on the left (``╷ │ ╵``), or, ``plain`` (``-no-color``), after an empty line
    and without the rule; no newline at the end."""
    body = [f"{d.severity.capitalize()}: {d.summary}", ""]
    if d.address:
        body.append(f"  with {d.address}," if d.subject is not None else f"  with {d.address}")
    if d.subject is not None:
        where = f"  on {d.subject.filename} line {d.subject.line}"
        block = d.block()
        if block:
            where += f", in {block}"
        body.append(where + ":")
        text = source_line(d.subject.filename, d.subject.line)
        if text is not None:
            body.append(f"{d.subject.line:>4}: {text}")
        if d.values or d.expr_values:
            body.append("    ├────────────────")
            body.extend(f"    │ {v}" for v in d.values)
            body.extend(f"    │ {t} {st}" for t, st in d.expr_values)
    if d.address or d.subject is not None:
        body.append("")
    if d.detail:
        # the rule takes two columns, and terraform leaves one free
        limit = DIAGNOSTIC_WIDTH - 1 if plain else DIAGNOSTIC_WIDTH - 3
        for para in d.detail.split("\n"):
            body.extend(line.rstrip() for line in (para if para.startswith(" ") else wrap(para, limit)).split("\n"))
    if plain:
        return "\n" + "\n".join(body)
    return "\n".join(["╷", *(f"│ {line}" if line else "│" for line in body), "╵"])


_RETRY_NOTICE = "retrying after"  # strata's retry notices start so (apply/executor)
_MAX_ID = 80  # terraform's longest id in a heartbeat line
_STILL = {"create": "Still creating...", "update": "Still modifying...", "delete": "Still destroying...",
          "read": "Still reading..."}


class HumanLines:
    """The text terraform prints for an operation's events, where it is not the ``-json``
    message: a data source's read ("Reading...", "Read complete"), a heartbeat, which names the
    object's id (from the operation's start) where ``-json`` does not, and nothing for an
    operation that failed (its diagnostic follows). A provider's own progress messages are
    strata's, in the event stream only: terraform prints none."""

    def __init__(self) -> None:
        self._ids: dict[tuple[str, str], str] = {}  # (address, action) -> "id=..., " of a heartbeat

    def line(self, event: ev.Event) -> str | None:
        """The line for ``event``; None: no line."""
        message: str = event.message
        hook = event.payload.get("hook")
        if hook is None or event.type not in ("apply_start", "apply_complete", "apply_errored", "apply_progress"):
            return message
        action = hook.get("action")
        key = (hook["resource"]["addr"], action)
        if event.type == "apply_start":
            if "id_value" in hook:
                self._ids[key] = f"{hook['id_key']}={_truncated_id(hook['id_value'])}, "
            return message.replace(": Refreshing...", ": Reading...", 1) if action == "read" else message
        if event.type == "apply_progress":
            note = hook.get("message")
            if note is not None:
                return message if note.startswith(_RETRY_NOTICE) else None
            elapsed = ev.go_duration(hook["elapsed_seconds"])
            return f"{key[0]}: {_STILL[action]} [{self._ids.get(key, '')}{elapsed} elapsed]"
        self._ids.pop(key, None)
        if event.type == "apply_errored":
            return None  # terraform's text says nothing here: the error's diagnostic says it all
        if action == "read":
            return message.replace(": Refresh complete after", ": Read complete after", 1)
        return message


def _truncated_id(ident: str) -> str:
    """terraform's truncateId: at most ``_MAX_ID`` characters, the middle elided."""
    if len(ident) <= _MAX_ID:
        return ident
    half = _MAX_ID // 2
    right = len(ident) - half - 1
    overlap = _MAX_ID - (half * 2 + 3)
    if overlap < 0:
        right -= overlap
    return ident[:half - 1] + "..." + ident[right:]


class HumanSink:
    """Prints progress events as terraform does."""

    # no apply_errored: terraform's human view says nothing as an operation fails (UiHook.PostApply),
    # its diagnostics say why once the apply ends
    SHOWN = frozenset({"apply_start", "apply_complete", "apply_progress", "apply_skipped",
                       "refresh_start", "import_preparing", "import_start", "import_complete",
                       "provision_start", "provision_progress", "provision_blank_line"})

    def __init__(self, stream: IO[str] | None = None, quiet_refresh: bool = False) -> None:
        self.stream = stream or sys.stdout
        self.quiet_refresh = quiet_refresh
        self.closed = False
        self._within: ev.FlushWithin | None = None
        self._ids = HumanLines()

    def __call__(self, event: ev.Event) -> None:
        if event.type in self.SHOWN and not self.closed:
            if event.type == "refresh_start" and self.quiet_refresh:
                return
            if event.type[:10] == "provision_":
                line: str | None = provisioning.human_text(event)
            else:
                line = self._ids.line(event)
            if line is None:
                return
            try:
                self.stream.write(line + "\n")
            except (OSError, ValueError) as exc:
                self.closed = True  # the reader went away, or the disk is full: the apply goes on
                ev.stream_failed(exc, "progress output")
                return
            if self._within is not None:
                self._within.mark()

    def flush(self) -> None:
        if not self.closed:
            try:
                self.stream.flush()
            except (OSError, ValueError) as exc:
                self.closed = True
                ev.stream_failed(exc, "progress output")

    @contextlib.asynccontextmanager
    async def batching(self, max_delay: float = 0.02) -> AsyncIterator[None]:
        """Progress lines reach a pipe (``strata apply | tee log``) within ``max_delay``, not when
        the stream's buffer happens to fill."""
        self._within = ev.FlushWithin(self.flush, max_delay)
        try:
            async with self._within.running():
                yield
        finally:
            self._within = None

"""The ``strata`` command line's arguments: terraform's spellings (``-auto-approve``,
``-parallelism=10``, ``-var NAME=VALUE``, ``-chdir=DIR``), and ``--flag value`` /
``--flag=value`` too. A mistake is a :class:`UsageError`, which the CLI prints as a
diagnostic (exit 1), never a traceback.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.diagnostics import StrataError, name_suggestion

if TYPE_CHECKING:
    from engine.api import PlanOptions, Workspace

USAGE = """Usage: strata [-chdir=DIR] <command> [options]

Main commands:
  plan          Show changes required by the current configuration
  apply         Create or update infrastructure
  destroy       Destroy previously-created infrastructure
  validate      Check whether the configuration is valid

Other commands:
  graph         Print the resource graph in DOT format (-type=plan: the apply graph)
  show          Show the current state
  output        Show output values from the state: output [-json | -raw] [NAME]
  state list    List resources in the state
  state show    Show a resource in the state
  state rm      Forget resource instances without destroying them: state rm ADDR...
  state mv      Record an object under another address: state mv SOURCE DESTINATION
  taint         Mark a resource instance for replacement: taint ADDR (untaint: undo)
  refresh       Bring the state up to date with the real objects (apply -refresh-only -auto-approve)
  import        Associate an existing object with a resource: import ADDR ID
  force-unlock  Remove another operation's lock on the state: force-unlock [-force] LOCK_ID
  report        Report on a recorded apply: report EVENTS.jsonl [-png=FILE] [-html=FILE]
  fmt           Rewrite configuration files in terraform's canonical layout: fmt [-check] [-diff]
                [-recursive] [-write=false] [-list=false] [DIR|FILE|-]
  console       Evaluate expressions (one a line on stdin) against the configuration and state
  version       Show the current strata version
  init          Install the modules and providers the configuration requires (-plugin-dir=DIR, -upgrade)
  get           Install the modules the configuration calls (-update)
  providers     Show the providers the configuration requires, and which plugin or built-in serves each
  workspace     Workspaces, each with its own state: workspace new|select|list|show|delete [NAME]

Options (terraform's spelling; --flag value also works):
  -chdir=DIR            Switch to DIR before doing anything
  -state=PATH           State file (default: the local backend's path, terraform.tfstate)
  -var NAME=VALUE       Set a variable
  -var-file=FILE        Set variables from a .tfvars (or .tfvars.json) file
  -parallelism=N        At most N concurrent operations (default 10)
  -auto-approve         Skip interactive approval (apply, destroy)
  -json                 Machine-readable output, one JSON object per line
  -raw                  output: the value of one string, number or bool output, as it is
  -detailed-exitcode    plan: exit 0 no changes, 1 error, 2 changes
  -refresh=false        Skip refreshing state before planning
  -refresh-only         Only bring the state up to date with the real objects (plan, apply)
  -replace=ADDR         Force replacement of a resource instance
  -target=ADDR          Plan only this resource or instance and what it depends on (repeatable)
  -dry-run              state rm / state mv: say what would change, change nothing
  -backup=PATH          state rm / state mv: where the state as it was goes ("-": nowhere)
  -destroy              plan: plan to destroy everything
  -generate-config-out=FILE  plan: write configuration for the import blocks' targets that have none
  -fail-fast            Stop starting operations after the first error
  -provider-parallelism=NAME=N   At most N operations in flight for one provider configuration
  -type-parallelism=TYPE=N       At most N operations in flight for one resource type
  -rate-limit=NAME=R             At most R operations started per second for one provider
  -type-rate-limit=TYPE=R        At most R operations started per second for one resource type
  -retries=N            Retry errors a provider marks retryable, with backoff (default 3)
  -no-color             Diagnostics without their frame, as terraform prints them (output is never colored)
  -quiet                No event output at all (diagnostics still go to stderr)
  -events=FILE          Also write the numbered event log to FILE, JSON lines (with -json or human output)
  -events=nats://HOST:PORT/SUBJECT   Also publish the event stream to NATS JetStream (repeatable)
  -no-fsync             Do not fsync the state journal (faster, not crash-safe; for benchmarks)
  -lock=false           Don't take the state lock (commands that use the state; not recommended)
  -lock-timeout=DURATION  Wait up to DURATION (20s, 1m30s) for another operation's state lock
  -force                force-unlock: don't ask for confirmation; workspace delete: even a non-empty one
  -or-create            workspace select: create the workspace if it does not exist
  -plugin-dir=DIR       init: install providers only from this filesystem mirror (repeatable)
  -upgrade              init: select the newest versions the constraints admit, ignoring the lock file
"""

_BOOL_FLAGS = {"auto-approve", "json", "detailed-exitcode", "destroy", "fail-fast", "no-color",
               "refresh", "input", "lock", "help", "h", "no-fsync", "compact-warnings", "quiet", "raw",
               "dry-run", "allow-missing", "refresh-only", "force", "upgrade", "check", "diff", "recursive",
               "write", "list", "update", "or-create"}
_VALUE_FLAGS = {"chdir", "state", "var", "parallelism", "replace", "type", "var-file", "lock-timeout",
                "retries", "target", "backup", "out", "png", "html", "generate-config-out"}
_LIST_FLAGS = {"provider-parallelism", "type-parallelism", "rate-limit", "type-rate-limit", "events", "plugin-dir"}


class UsageError(StrataError):
    """A mistake on the command line. ``help_for``: the command whose ``-help`` terraform points
    to after the diagnostic ("For more help on using this command, run: ...")."""

    def __init__(self, message: str, help_for: str | None = None) -> None:
        super().__init__(message)
        self.help_for = help_for


class UnknownCommand(StrataError):
    """A command strata does not have, with terraform's suggestion of one it does."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.suggestion = name_suggestion(name, sorted(_KNOWN_COMMANDS))
        super().__init__(f"strata has no command named {name!r}")

    def text(self) -> str:
        """terraform's words (on standard error, not as a diagnostic)."""
        mean = f' Did you mean "{self.suggestion}"?' if self.suggestion else ""
        return (f'strata has no command named "{self.name}".{mean}\n\n'
                "To see all of strata's top-level commands, run:\n  strata -help\n\n")




_KNOWN_COMMANDS = frozenset({"plan", "apply", "destroy", "validate", "graph", "state", "show", "import", "version",
                             "init", "output", "taint", "untaint", "refresh", "force-unlock", "report",
                             "providers", "fmt", "console", "get", "workspace"})
_VERSION_FLAGS = frozenset({"-v", "-version", "--version"})
_APPLYING = frozenset({"apply", "destroy"})
_LOCKING = frozenset({"plan", "apply", "destroy", "refresh", "import", "state", "taint", "untaint", "graph"})
"""The commands that take the state lock, and so have -lock and -lock-timeout (state: rm and mv)."""
_ONLY_FOR: dict[str, frozenset[str]] = {  # options that mean something to some commands only
    "auto-approve": _APPLYING,
    "fail-fast": _APPLYING,
    "retries": _APPLYING,
    "no-fsync": _APPLYING | {"import"},
    "provider-parallelism": _APPLYING,
    "type-parallelism": _APPLYING,
    "rate-limit": _APPLYING,
    "type-rate-limit": _APPLYING,
    "events": frozenset({"plan", "apply", "destroy", "refresh", "import"}),
    "detailed-exitcode": frozenset({"plan"}),
    "out": frozenset({"plan"}),
    "png": frozenset({"report"}),
    "html": frozenset({"report"}),
    "destroy": frozenset({"plan", "apply"}),
    "replace": frozenset({"plan", "apply"}),
    "target": frozenset({"plan", "apply", "destroy", "refresh"}),
    "refresh-only": frozenset({"plan", "apply"}),
    "type": frozenset({"graph"}),
    "raw": frozenset({"output"}),
    "dry-run": frozenset({"state"}),
    "allow-missing": frozenset({"taint", "untaint"}),
    "backup": frozenset({"state"}),
    "lock": _LOCKING | {"workspace"},
    "lock-timeout": _LOCKING | {"workspace"},
    "force": frozenset({"force-unlock", "workspace"}),
    "or-create": frozenset({"workspace"}),
    "plugin-dir": frozenset({"init"}),
    "upgrade": frozenset({"init"}),
    "update": frozenset({"get"}),
    "check": frozenset({"fmt"}),
    "diff": frozenset({"fmt"}),
    "recursive": frozenset({"fmt"}),
    "write": frozenset({"fmt"}),
    "list": frozenset({"fmt"}),
}


def check_options_for(a: Args) -> None:
    """An option the command does not use is an error, as terraform's "flag provided but not
    defined": ``strata plan -auto-approve`` must not look as if it did something."""
    if not a.command:
        return
    cmd = a.command[0]
    given = (set(a.flags) | set(a.lists) | ({"replace"} if a.replace else set())
             | ({"target"} if a.targets else set()))
    if cmd not in _KNOWN_COMMANDS:
        raise UnknownCommand(cmd)
    if a.flags.get("refresh-only"):  # terraform's plan modes that cannot be combined
        if cmd == "destroy" or a.flags.get("destroy"):
            raise UsageError("Incompatible plan mode options: the -destroy and -refresh-only options are "
                             "mutually exclusive.")
        if a.replace:
            raise UsageError("Unsupported plan mode: -replace cannot be used with -refresh-only, which changes "
                             "no object.")
        if a.flags.get("refresh") is False:
            raise UsageError("Incompatible refresh options: -refresh-only with -refresh=false would have "
                             "nothing to do.")
    if "generate-config-out" in given and cmd != "plan":  # terraform's: only plan defines it
        raise UsageError("Failed to parse command-line flags\nflag provided but not defined: -generate-config-out",
                         help_for=cmd)
    if cmd == "state" and a.command[1:2] not in (["rm"], ["mv"]):
        for name in ("lock", "lock-timeout"):  # state list and show read without the lock, as terraform's
            if name in given:
                raise UsageError(f'The -{name} option is not valid for "strata state {" ".join(a.command[1:2])}":'
                                 ' it is for state rm and state mv.')
    for name in sorted(given):
        allowed = _ONLY_FOR.get(name)
        if allowed is not None and cmd in _KNOWN_COMMANDS and cmd not in allowed:
            where = ", ".join(f'"strata {c}"' for c in sorted(allowed))
            raise UsageError(f'The -{name} option is not valid for "strata {cmd}": it is for {where}.')



@dataclass
class Args:
    command: list[str] = field(default_factory=list)
    flags: dict[str, Any] = field(default_factory=dict)
    replace: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    positional: list[str] = field(default_factory=list)
    lists: dict[str, list[str]] = field(default_factory=dict)
    var_args: list[tuple[str, str]] = field(default_factory=list)


def parse_args(argv: list[str]) -> Args:
    a = Args()
    i = 0
    while i < len(argv):
        tok = argv[i]
        i += 1
        if not a.command and tok in _VERSION_FLAGS:
            a.command.append("version")  # terraform's aliases of the command, before any other
            continue
        if tok.startswith("-") and len(tok) > 1:
            body = tok.lstrip("-")
            name, eq, value = body.partition("=")
            if name in _BOOL_FLAGS:
                if eq:
                    if value.lower() not in ("true", "false", "1", "0"):
                        raise UsageError(f'Invalid value for -{name}: "{value}" (expected true or false)')
                    a.flags[name] = value.lower() in ("true", "1")
                else:
                    a.flags[name] = True
                continue
            if name in _VALUE_FLAGS or name in _LIST_FLAGS:
                if not eq:
                    if i >= len(argv):
                        raise UsageError(f"The -{name} option requires a value.")
                    value = argv[i]
                    i += 1
                if name == "var":
                    k, sep, v = value.partition("=")
                    if not sep or not k:
                        raise UsageError(f'Invalid -var option "{value}": the given -var option must be '
                                         "set to a name and value, like -var NAME=VALUE.")
                    a.var_args.append(("var", value))
                elif name == "var-file":
                    a.var_args.append(("var-file", value))
                elif name == "replace":
                    a.replace.append(value)
                elif name == "target":
                    a.targets.append(value)
                elif name in _LIST_FLAGS:
                    a.lists.setdefault(name, []).append(value)
                else:
                    a.flags[name] = value
                continue
            # terraform's words (Go's flag package), without a suggestion: terraform makes none
            raise UsageError(f"Failed to parse command-line flags\nflag provided but not defined: -{name}",
                             help_for=" ".join(a.command) or None)
        if not a.command or (a.command in (["state"], ["import"], ["workspace"]) and len(a.command) == 1):
            a.command.append(tok)
        else:
            a.positional.append(tok)
    return a


def workspace_from(a: Args) -> Workspace:
    """The workspace the command works on, with the command line's settings (the engine's
    entry point: :mod:`engine.api`)."""
    # imported here: parsing the arguments (and `strata version`) must not import the engine
    from engine.api.workspace import Workspace
    from engine.graph.limits import Limits, parse_pairs

    par = a.flags.get("parallelism", "10")
    try:
        parallelism = int(par)
        if parallelism < 1:
            raise ValueError
    except ValueError:
        raise UsageError(f'Invalid -parallelism value "{par}": a whole number of at least 1 is required.') \
            from None
    try:
        limits = Limits(
            provider_parallelism={k: int(v) for k, v in parse_pairs(a.lists.get("provider-parallelism", []),
                                                                    "provider-parallelism").items()},
            type_parallelism={k: int(v) for k, v in parse_pairs(a.lists.get("type-parallelism", []),
                                                                "type-parallelism").items()},
            provider_rate=parse_pairs(a.lists.get("rate-limit", []), "rate-limit", float),
            type_rate=parse_pairs(a.lists.get("type-rate-limit", []), "type-rate-limit", float),
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if "retries" in a.flags:
        try:
            limits.retry.retries = int(a.flags["retries"])
            if limits.retry.retries < 0:
                raise ValueError
        except ValueError:
            raise UsageError(f'Invalid -retries value "{a.flags["retries"]}": a whole number of at least 0 '
                             "is required.") from None
    timeout = a.flags.get("lock-timeout", "0s")
    try:
        lock_timeout = parse_duration(timeout)
    except ValueError:
        raise UsageError(f'Failed to parse command-line flags\ninvalid value "{timeout}" for flag -lock-timeout: '
                         "parse error") from None
    return Workspace(
        lock=bool(a.flags.get("lock", True)),
        lock_timeout=lock_timeout,
        limits=limits,
        path=a.flags.get("chdir", "."),
        state=a.flags.get("state"),
        variable_args=a.var_args,
        parallelism=parallelism,
        fail_fast=bool(a.flags.get("fail-fast", False)),
        fsync=not a.flags.get("no-fsync", False),
    )


def plan_options_from(a: Args, destroy: bool = False) -> PlanOptions:
    """How the command line asks to plan (``-refresh``, ``-refresh-only``, ``-target``, ``-replace``)."""
    from engine.api.operation import PlanOptions

    return PlanOptions(destroy=destroy, refresh=bool(a.flags.get("refresh", True)),
                       refresh_only=bool(a.flags.get("refresh-only", False)), targets=tuple(a.targets),
                       replace=tuple(a.replace), generate_config_out=a.flags.get("generate-config-out") or None)


_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")


def parse_duration(text: str) -> float:
    """Seconds in Go's duration syntax, as terraform's -lock-timeout takes it: ``20s``, ``1m30s``,
    ``1.5h``, ``300ms``; ``0`` alone needs no unit. ValueError otherwise (a bare ``5`` too)."""
    body = text[1:] if text[:1] in "+-" else text
    if body == "0":
        return 0.0
    if not body or _DURATION.sub("", body) != "":
        raise ValueError(text)
    seconds = sum(float(n) * _UNITS[u] for n, u in _DURATION.findall(body))
    return -seconds if text.startswith("-") else seconds


def enter_chdir(argv: list[str]) -> list[str]:
    """``-chdir=DIR`` before the command switches directory first, as terraform does, so relative
    paths in the configuration (and -state) resolve against DIR."""
    out = list(argv)
    for i, tok in enumerate(out):
        if not tok.startswith("-"):
            break  # the command: -chdir is a global option that comes before it
        body = tok.lstrip("-")
        if body.startswith("chdir"):
            name, eq, value = body.partition("=")
            if name != "chdir":
                continue
            if not eq:
                if i + 1 >= len(out):
                    raise UsageError("The -chdir option requires a directory.")
                value = out[i + 1]
                del out[i:i + 2]
            else:
                del out[i]
            try:
                os.chdir(value)
            except OSError as exc:
                raise UsageError(f"Error handling -chdir option: chdir {value}: {(exc.strerror or str(exc)).lower()}") from None
            break
    return out

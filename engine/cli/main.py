"""The ``strata`` command line, spelled like terraform's (``-auto-approve``, ``-parallelism=10``, ``-chdir=DIR``).

``--flag value`` and ``--flag=value`` work too. User mistakes print a
diagnostic and exit 1; they never show a traceback.

This module is the entry point: it dispatches a command to its module (``plan_apply``,
``state_commands``, ``outputs``, ``config_commands``), maps what escapes to exit codes, and keeps
a closed or full standard output from turning into a traceback.
"""

from __future__ import annotations

import errno
import gc
import os
import sys

from engine import __version__

TYPE_CHECKING = False  # not typing's: `strata version` does not import typing (mypy reads it the same)

if TYPE_CHECKING:
    import mmap
    from typing import Any, NoReturn

    from engine.cli.args import Args
    from engine.cli.output import Output
    from engine.diagnostics import Diagnostic, StrataError

# Start-up is most of a small run's time, so this module imports nothing of the engine at its top:
# a command imports what it uses when it runs (the event loop, the parser, the planner);
# `version` and `-help` import none of that, and a plain `strata version` not even the argument
# parser; `init` and `providers` read the configuration but need no event loop.
_PLAIN_VERSION = {("version",): False, ("version", "-json"): True, ("version", "--json"): True,
                  ("-version",): False, ("--version",): False, ("-v",): False}


def without_event_loop(argv: list[str], backend: str = "asyncio") -> int | None:
    """The exit status of a command that needs no event loop (``version``, ``init``,
    ``providers``, ``validate``, the usage), having run it; None for every other command."""
    from engine.cli.args import USAGE, check_options_for, parse_args

    a = parse_args(argv)
    check_options_for(a)
    if (a.flags.get("help") or a.flags.get("h") or not a.command) and a.command[:1] != ["workspace"]:
        sys.stdout.write(USAGE)
        # no command at all: the usage and terraform's exit status for it (127)
        return 0 if (a.flags.get("help") or a.flags.get("h")) else 127
    if "chdir" in a.flags:
        return None  # -chdir after the command: run() reports a missing directory first
    if a.command[0] == "providers":
        from engine.cli.providers import cmd_providers
        from engine.render.text import render_diagnostic

        problems = _select_workspace(".", "providers")
        for d in problems:
            sys.stderr.write(render_diagnostic(d, bool(a.flags.get("no-color"))) + "\n")
        return 1 if problems else cmd_providers(a)
    if a.command[0] == "workspace":
        from engine.cli.workspace_command import cmd_workspace

        return cmd_workspace(a)
    if a.command[0] == "validate" and not a.flags.get("json") and not a.lists.get("events"):
        return _validate(a, backend)
    return _print_version_or_init(a) if a.command[0] in ("version", "init", "get") else None


def _validate(a: Args, backend: str) -> int:
    """``validate`` with human output: its event loop, if any, is the providers' (importing and
    starting one is a fifth of validating a small configuration)."""
    from engine.cli.config_commands import validate_without_loop
    from engine.cli.output import Output
    from engine.diagnostics import CycleError, DiagnosticsError, StrataError

    out = Output(False, bool(a.flags.get("quiet")), bool(a.flags.get("no-color")))
    problems = _select_workspace(".", "validate")
    if problems:
        out.diagnostics(problems)
        return 1
    try:
        return validate_without_loop(a, out, backend)
    except (DiagnosticsError, CycleError, StrataError) as exc:
        return _failed(exc, out)


def _print_version_or_init(a: Args) -> int:
    if a.command[0] == "version":
        return _print_version(bool(a.flags.get("json")))
    if a.command[0] == "get":
        from engine.cli.init import cmd_get

        return cmd_get(a)
    from engine.cli.init import cmd_init

    return cmd_init(a)


def _print_version(as_json: bool) -> int:
    if as_json:  # a version and a platform have nothing to escape
        sys.stdout.write(f'{{"strata_version":"{__version__}","platform":"{_platform()}"}}\n')
    else:
        sys.stdout.write(f"strata v{__version__}\non {_platform()}\n")
    return 0


_GOARCH = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64", "i386": "386",
           "i686": "386", "armv7l": "arm", "armv6l": "arm"}


def _platform() -> str:
    """The platform as terraform names it (Go's GOOS_GOARCH: linux_amd64, darwin_arm64)."""
    system = "windows" if sys.platform == "win32" else sys.platform.rstrip("0123456789")
    machine = os.uname().machine.lower() if hasattr(os, "uname") else "amd64"
    return f"{system}_{_GOARCH.get(machine, machine)}"


_WITHOUT_WORKSPACE = frozenset({"fmt", "get", "report", "version", "workspace"})
"""The commands that do not use the workspace, and so do not refuse a ``TF_WORKSPACE`` that is
not a valid name (as terraform's; ``workspace`` says it in its own words)."""


def _select_workspace(directory: str, command: str) -> list[Diagnostic]:
    """``terraform.workspace`` for this run: the workspace the state is in. A ``TF_WORKSPACE`` that
    is not a valid name is terraform's error for every command that uses the workspace; another
    selection that is not valid is reported where the state is opened."""
    from engine.backend.workspaces import (
        INVALID_ENV_NAME,
        current_selection,
        current_workspace,
        valid_workspace_name,
    )
    from engine.diagnostics import DiagnosticsError, error
    from engine.lang.scope import set_workspace

    selection = current_selection(directory)
    if selection.overridden and not valid_workspace_name(selection.name) and command not in _WITHOUT_WORKSPACE:
        return [error(INVALID_ENV_NAME, "")]
    try:
        set_workspace(current_workspace(directory))
    except DiagnosticsError:
        pass
    return []


async def run(argv: list[str]) -> int:
    from engine.cli.args import UsageError, check_options_for, parse_args
    from engine.cli.output import Output

    a = parse_args(argv)
    check_options_for(a)
    out = Output(bool(a.flags.get("json")), bool(a.flags.get("quiet")), bool(a.flags.get("no-color")))
    chdir = a.flags.get("chdir", ".")
    if not os.path.isdir(chdir):
        raise UsageError(f"Error handling -chdir option: chdir {chdir}: no such file or directory")
    problems = _select_workspace(chdir, a.command[0])
    if problems:
        out.diagnostics(problems)
        return 1
    if a.lists.get("events"):
        from engine.cli.event_targets import event_targets

        async with event_targets(a, out.bus) as targets:
            return await _dispatch_batching(a, out, targets.logs, targets.nats)
    return await _dispatch_batching(a, out)


async def _dispatch_batching(a: Args, out: Output, logs: tuple[Any, ...] = (), nats: tuple[Any, ...] = ()) -> int:
    if out.sink is None and not logs and not nats:
        return await dispatch(a, out)
    import contextlib

    async with contextlib.AsyncExitStack() as stack:
        if out.sink is not None:
            from engine.events.heartbeat import Heartbeats

            beats = Heartbeats(out.emit, _heartbeat_interval())
            out.bus.add_watcher(beats)
            await stack.enter_async_context(out.sink.batching())
            await stack.enter_async_context(beats.running())
        from engine.events.fanout import Fanout
        from engine.events.json_sink import JsonSink

        json_sink = out.sink if type(out.sink) is JsonSink else None
        if json_sink is not None or logs or nats:
            await stack.enter_async_context(Fanout(out.bus, json_sink, list(logs), list(nats)).running())
        return await dispatch(a, out)


def _heartbeat_interval() -> float:
    """Seconds between "Still creating..." lines: terraform's 10, or ``STRATA_HEARTBEAT_INTERVAL``
    (for tests, which cannot wait ten seconds)."""
    from engine.events.heartbeat import INTERVAL

    try:
        got = float(os.environ.get("STRATA_HEARTBEAT_INTERVAL", INTERVAL))
    except ValueError:
        return INTERVAL
    return got if got > 0 else INTERVAL


async def dispatch(a: Args, out: Output) -> int:
    from engine.diagnostics import CycleError, DiagnosticsError, StrataError

    cmd = a.command[0]
    try:
        return await _command(cmd, a, out)
    except (DiagnosticsError, CycleError, StrataError) as exc:
        return _failed(exc, out)


def _failed(exc: StrataError, out: Output) -> int:
    """A command's failure as diagnostics, and its exit status (a usage mistake is raised on)."""
    from engine.cli.args import UnknownCommand, UsageError
    from engine.diagnostics import CycleError, DiagnosticsError, error

    if isinstance(exc, DiagnosticsError):
        out.diagnostics(exc.diagnostics)
    elif isinstance(exc, CycleError):
        # terraform's words: one error per cycle, its summary naming the operations in it
        out.diagnostics([error("Cycle: " + ", ".join(c), "") for c in exc.cycles])
    elif isinstance(exc, (UsageError, UnknownCommand, MemoryError)):  # MemoryError: one line, in _main
        raise exc
    else:
        out.diagnostics([error(str(exc).split(":")[0], str(exc))])
    return 1


async def _command(cmd: str, a: Args, out: Output) -> int:
    """Run ``cmd``, importing its module only now (each brings its own share of the engine)."""
    from engine.cli.args import UnknownCommand

    if cmd in ("plan", "apply", "destroy", "refresh", "import") and not (cmd == "apply" and a.positional):
        from engine.cli.prompt import ask_for_variables

        ask_for_variables(a)  # at a terminal, terraform asks for the variables that have no value
    if cmd in ("plan", "apply", "destroy", "refresh"):
        from engine.cli import plan_apply

        if cmd == "plan":
            return await plan_apply.cmd_plan(a, out)
        if cmd == "refresh":
            a.flags["refresh-only"] = a.flags["auto-approve"] = True
            return await plan_apply.cmd_apply(a, out, refresh_cmd=True)
        return await plan_apply.cmd_apply(a, out, destroy=cmd == "destroy" or bool(a.flags.get("destroy")))
    if cmd in ("validate", "graph"):
        from engine.cli import config_commands

        return await (config_commands.cmd_validate(a, out) if cmd == "validate" else config_commands.cmd_graph(a, out))
    if cmd in ("state", "show", "import", "taint", "untaint"):
        from engine.cli import state_commands

        if cmd == "state":
            return await state_commands.cmd_state(a, out)
        if cmd == "show":
            return await state_commands.cmd_show(a, out)
        if cmd == "import":
            return await state_commands.cmd_import(a, out)
        return await state_commands.cmd_taint(a, out, cmd == "taint")
    if cmd == "output":
        from engine.cli.outputs import cmd_output

        return await cmd_output(a, out)
    if cmd == "report":
        from engine.cli.report import cmd_report

        return cmd_report(a)
    if cmd == "providers":
        from engine.cli.providers import cmd_providers

        return cmd_providers(a)
    if cmd in ("fmt", "console"):
        if cmd == "fmt":
            from engine.cli.fmt_command import cmd_fmt

            return cmd_fmt(a, out)
        from engine.cli.console import cmd_console

        return await cmd_console(a, out)
    if cmd == "force-unlock":
        from engine.cli.force_unlock import cmd_force_unlock

        return cmd_force_unlock(a)
    if cmd == "workspace":  # here only with -chdir after the command
        from engine.cli.workspace_command import cmd_workspace

        return cmd_workspace(a)
    if cmd in ("version", "init", "get"):  # here only with -chdir after the command
        return _print_version_or_init(a)
    raise UnknownCommand(cmd)


def main(argv: list[str] | None = None) -> int:
    """The ``strata`` command. Called without ``argv`` it is the program (it reads ``sys.argv``),
    and owns the process: out of memory, it ends it at once with one line."""
    if argv is not None:
        return _main(argv, None)
    import engine

    engine.program_owns_process = True
    deferred = _DeferredReports()
    sys.unraisablehook = deferred.hook
    deferred.reserve = _reserve()
    try:
        code = _main(sys.argv[1:], deferred)
    finally:
        sys.unraisablehook = sys.__unraisablehook__
    deferred.report()
    # The run is over and the process ends: what it built is left to the operating system, not
    # collected object by object. The interpreter's exit collects every generation twice (35-50 ms
    # of CPU after a small plan, a fifth of it); frozen objects are not collected (atexit hooks
    # still run, and what is not in a cycle is still freed, files flushed, as modules are cleared).
    gc.freeze()
    return code


_RESERVE = 32 << 20  # bytes


def _reserve() -> mmap.mmap:
    """``_RESERVE`` bytes of address space, mapped but never touched: what the address space's
    limit (``ulimit -v``) counts, at no cost. A ``bytearray`` of the same size is zeroed page by
    page: 17-40 ms of every start, more than the rest of ``strata version``."""
    import mmap

    return mmap.mmap(-1, _RESERVE)
_RECURSION_LIMIT = 60_000


class _DeferredReports:
    """Holds the interpreter's "Exception ignored in ..." reports until the run is over. When the
    run ran out of memory, they are what the event loop's half-unwound task groups say about it
    ("Nursery misnesting") and are dropped with the process; otherwise they are printed then.

    The hook is a deque's bound ``append``: called without a Python frame, into blocks the deque
    recycles, so that it works when memory is exhausted (a hook that fails is itself reported)."""

    def __init__(self) -> None:
        import collections

        self.pending: collections.deque[object] = collections.deque(maxlen=50)
        self.hook = self.pending.append
        self.reserve: mmap.mmap | None = None
        """Address space set aside for ending the run: freed first when it fails, so that telling
        whether memory ran out, and saying so, does not itself run out of memory."""

    def report(self) -> None:
        for r in self.pending:
            sys.__unraisablehook__(r)  # type: ignore[arg-type]
        self.pending.clear()


def _main(argv: list[str], deferred: _DeferredReports | None) -> int:
    """``main``; ``deferred``: the reports held back while this, the program, owns the process."""
    owns_process = deferred is not None
    # strata builds millions of small, acyclic objects (values, addresses, events) that live
    # for the whole run; the default collector thresholds made full collections a third of a
    # 100k apply. Collect young objects far less often; cycles are still collected.
    gc.set_threshold(100_000, 50, 100)
    # terraform accepts expressions and blocks nested ten thousand deep; walking them takes a
    # few Python frames a level (they use the C stack only at calls through C, well under its
    # 8 MB at that depth: measured by tests/cli/test_language_limits.py)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), _RECURSION_LIMIT))
    as_json = _PLAIN_VERSION.get(tuple(argv))
    if as_json is not None:
        try:
            return _flushed(_print_version(as_json))
        except OSError as exc:  # written unbuffered (PYTHONUNBUFFERED): to a closed pipe, a full disk
            return _could_not_write(exc)
    from engine.cli.args import UnknownCommand, UsageError, enter_chdir
    from engine.diagnostics import error

    backend = os.environ.get("STRATA_ASYNC_BACKEND", "asyncio")
    stream = sys.modules.get("engine.events.stream")
    if stream is not None:  # a run before this one in the same process (a program, a test)
        stream.OUTPUT_FAILED.clear()
    try:
        if backend not in ("trio", "asyncio"):
            raise UsageError(f'Invalid STRATA_ASYNC_BACKEND "{backend}": expected trio or asyncio.')
        argv = enter_chdir(argv)
        quick = without_event_loop(argv, backend)
        if quick is not None:
            code = quick
        else:
            import anyio

            code = anyio.run(run, argv, backend=backend)
    except OSError as exc:
        if not isinstance(exc, BrokenPipeError) and (exc.filename is not None or exc.errno not in _OUTPUT_ERRNOS):
            raise
        return _could_not_write(exc)
    except UsageError as exc:
        from engine.render.text import render_diagnostic

        lines = str(exc).split("\n")
        sys.stderr.write(render_diagnostic(error(lines[0], "\n".join(lines[1:])), "-no-color" in argv) + "\n")
        if exc.help_for:
            sys.stderr.write(f"\nFor more help on using this command, run:\n  strata {exc.help_for} -help\n")
        code = 1
    except UnknownCommand as exc:
        sys.stderr.write(exc.text())
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
        stop_now = getattr(sys.modules.get("engine.apply.executor"), "StopNow", KeyboardInterrupt)
        if not (_raised(exc, KeyboardInterrupt) or _raised(exc, stop_now)):  # Ctrl-C
            raise
        sys.stderr.write("\nInterrupted. Everything that completed is recorded in the state (the journal is "
                         "compacted on the next apply).\n")
        code = 130
    stream = sys.modules.get("engine.events.stream")  # not imported: nothing was written through it
    if stream is not None and stream.OUTPUT_FAILED:
        code = code or 1  # the run went on, but what it was asked to print is not all there
    return _flushed(code)


def _flushed(code: int) -> int:
    """``code``, once standard output is flushed: 1 if what was asked for could not be written."""
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
    import contextlib

    from engine.state.lock import release_held

    release_held()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, MemoryError):
            stream.flush()
    os._exit(code)


def _could_not_write(exc: OSError) -> int:
    """Writing our own output failed: the reader went away (strata state list | head), not an error
    of ours, exit 0; or the disk is full (strata state list > /dev/full), one line, not a traceback."""
    if not isinstance(exc, BrokenPipeError):
        sys.stderr.write(f"strata: could not write the output: {exc.strerror or exc}\n")
    _stdout_to_devnull()
    return 0 if isinstance(exc, BrokenPipeError) else 1


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
    if deferred is not None and any(isinstance(getattr(r, "exc_value", None), MemoryError)
                                    for r in deferred.pending):
        return True
    return deferred is not None and _address_space_exhausted()


def _address_space_exhausted() -> bool:
    """Whether this process's address space reached its limit (``ulimit -v``): its peak is within
    the reserve of the limit. When the MemoryError struck the event loop's own bookkeeping, what
    escapes is the loop's internal error about a task it lost track of, with no MemoryError in
    sight; the peak still tells what happened."""
    import re
    import resource

    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit == resource.RLIM_INFINITY:
        return False
    try:
        with open("/proc/self/status", "rb") as f:
            status = f.read()
    except OSError:
        return False
    peak = re.search(rb"^VmPeak:\s*(\d+) kB", status, re.MULTILINE)
    return peak is not None and int(peak.group(1)) * 1024 >= limit - 2 * _RESERVE


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

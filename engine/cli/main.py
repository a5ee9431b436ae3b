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

import anyio
import orjson

from engine.cli.args import USAGE, Args, UsageError, check_options_for, enter_chdir, parse_args
from engine.cli.config_commands import cmd_graph, cmd_validate
from engine.cli.output import Output
from engine.cli.outputs import cmd_output
from engine.cli.plan_apply import cmd_apply, cmd_plan
from engine.cli.state_commands import cmd_import, cmd_show, cmd_state, cmd_taint
from engine.diagnostics import CycleError, DiagnosticsError, StrataError, error
from engine.events import stream as ev
from engine.render.text import render_diagnostic


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
    argv = sys.argv[1:] if argv is None else argv
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
        if _raised(exc, MemoryError):
            # a count or for_each far beyond this machine: one line, not a traceback (the state on
            # disk holds everything an apply completed)
            sys.stderr.write("strata: out of memory (is a count or for_each much larger than intended?)\n")
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


def _stdout_to_devnull() -> None:
    """Stdout can take no more (a closed pipe, a full disk): point it at /dev/null, so the
    interpreter's own flush at exit has nothing to complain about."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG, errno.EPIPE})


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

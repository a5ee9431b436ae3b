"""Running a resource's ``local-exec`` provisioners, as terraform 1.11 runs them
(``builtin/provisioners/local-exec``, ``applyProvisioners`` in ``node_resource_abstract_instance.go``).

For each provisioner of the kind asked for (create-time ones once an object is created, destroy-time
ones before it is deleted), in the order written: its configuration is evaluated (``self`` is the
object), ``provision_start`` is emitted, the command runs with its standard output and error on
one pipe, each line it prints is a ``provision_progress``, and ``provision_complete`` or
``provision_errored`` ends it. A failure stops the provisioners that follow, unless the failed one
says ``on_failure = continue``; what the caller does with a failure (taint the object, keep it) is
the caller's.

The command runs as a child process the event loop waits for without blocking. A first interrupt
stops the apply gracefully, and the commands in flight with it: :meth:`Provisioners.stop` kills
them (terraform's provisioner ``Stop`` cancels their context: SIGKILL), and no provisioner starts
after it. A second interrupt cancels the walk, and a command still running is killed on the way out.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio

from engine.addrs import InstanceAddr, ResourceAddr
from engine.config.model import Module, ResourceConfig
from engine.config.provisioners import LOCAL_EXEC_SCHEMA, Provisioner
from engine.diagnostics import Diagnostic, SourceRange, error, errors_of
from engine.events import provisioning as pv
from engine.events import stream as ev
from engine.lang.convert import ConversionError, convert
from engine.lang.ephemerality import Ephemerality
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.lang.quote import go_quote
from engine.lang.sensitivity import with_self

if TYPE_CHECKING:  # (anyio.abc and shutil, with bz2 and lzma, cost every apply's start a few ms)
    from anyio.abc import Process

Emit = Callable[[ev.Event], None]

OUTPUT_LIMIT = 8 * 1024
"""How much of a failed command's output its error quotes: the last 8 KiB, as terraform's."""

_SUPPRESSED = "(output suppressed due to {} value in config)"
HALTED = "execution halted"  # terraform's stop hook's error, once the apply is interrupted

# Go's names of the signals that end a command ("signal: killed"), syscall.Signal.String()
_SIGNAL_NAMES = {signal.SIGINT: "interrupt", signal.SIGKILL: "killed", signal.SIGTERM: "terminated",
                 signal.SIGHUP: "hangup", signal.SIGQUIT: "quit", signal.SIGABRT: "aborted",
                 signal.SIGSEGV: "segmentation fault", signal.SIGPIPE: "broken pipe",
                 signal.SIGALRM: "alarm clock", signal.SIGUSR1: "user defined signal 1",
                 signal.SIGUSR2: "user defined signal 2", signal.SIGBUS: "bus error",
                 signal.SIGFPE: "floating point exception", signal.SIGILL: "illegal instruction",
                 signal.SIGTRAP: "trace/breakpoint trap"}


class Provisioners:
    """The provisioners of one apply: runs them, and stops the commands in flight on an
    interrupt. Open until :meth:`stop`; stopped, it starts no command."""

    def __init__(self, emit: Emit) -> None:
        self.emit = emit
        self.stopped = False
        self._running: dict[Process, anyio.CancelScope] = {}

    def stop(self) -> None:
        """The apply was interrupted: kill the commands in flight, and stop reading what they
        print (a child they left behind may hold the pipe open; terraform stops waiting too);
        start none after this."""
        self.stopped = True
        for proc, reading in list(self._running.items()):
            reading.cancel()
            with contextlib.suppress(ProcessLookupError, OSError):
                proc.kill()

    async def run(self, addr: InstanceAddr, provs: tuple[Provisioner, ...], scope: Scope,
                  suppressed: Callable[[Provisioner], str | None], context: str | None = None) -> list[Diagnostic]:
        """Run ``provs`` for ``addr`` in order, ``scope`` binding ``self``; the diagnostics (an
        error among them: the provisioning failed). ``suppressed``: what a provisioner prints
        instead of each line of its output, its configuration using a sensitive or ephemeral
        value (:func:`suppression`); None: its output."""
        diags: list[Diagnostic] = []
        for p in provs:
            if self.stopped:
                return [*diags, error(HALTED)]
            config, cdiags = evaluate_config(p, scope, context)
            if errors_of(cdiags) or config is None:
                return [*diags, *cdiags]
            self.emit(pv.provision_start(addr, p.type))
            got = await self._local_exec(addr, p, config, suppressed(p))
            failed = bool(errors_of(got))
            self.emit(pv.provision_errored(addr, p.type) if failed else pv.provision_complete(addr, p.type))
            if p.on_failure == "continue":
                if not failed:
                    diags.extend(got)
            else:
                diags.extend(got)
                if failed:
                    return diags
            if self.stopped:
                return [*diags, error(HALTED)]
        return diags

    async def _local_exec(self, addr: InstanceAddr, p: Provisioner, config: dict[str, Any],
                          suppressed: str | None) -> list[Diagnostic]:
        """The local-exec provisioner's ProvisionResource: its diagnostics."""
        def output(line: str) -> None:
            if suppressed is not None:
                self.emit(pv.provision_progress(addr, p.type, suppressed))
                return
            line = line.rstrip()
            self.emit(pv.provision_progress(addr, p.type, line) if line else pv.provision_blank_line(addr, p.type))

        def fail(summary: str, detail: str) -> list[Diagnostic]:
            return [error(summary, detail, p.range, str(addr))]

        command = config.get("command") or ""
        if not command:
            return fail("Invalid local-exec provisioner command", "The command must be a non-empty string.")
        args = [a for a in config.get("interpreter") or () if a is not None] or ["/bin/sh", "-c"]
        args.append(command)
        env = dict(os.environ)
        env.update({k: v for k, v in (config.get("environment") or {}).items() if v is not None})
        cwd = config.get("working_dir") or None
        if config.get("quiet"):
            output("local-exec: Executing: Suppressed by quiet=true")
        else:
            output("Executing: [" + " ".join(go_quote(a) for a in args) + "]")
        tail = bytearray()
        problem = _not_found(args[0])
        if problem is None:
            problem = await self._spawn(args, cwd, env, output, tail)
        if problem is None:
            return []
        text = bytes(tail).decode("utf-8", "replace")
        return fail("local-exec provisioner error", f"Error running command '{command}': {problem}. Output: {text}")

    async def _spawn(self, args: list[str], cwd: str | None, env: dict[str, str], output: Callable[[str], None],
                     tail: bytearray) -> str | None:
        """Run the command, its output lines to ``output`` and its last bytes in ``tail``; why it
        failed, in Go's words (None: it exited 0)."""
        try:
            proc = await anyio.open_process(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                            stderr=subprocess.STDOUT, cwd=cwd, env=env)
        except OSError as exc:
            return _start_error(exc, args[0], cwd)
        reading = self._running[proc] = anyio.CancelScope()
        try:
            if self.stopped:
                proc.kill()
            pending = b""
            assert proc.stdout is not None
            with reading:
                async for chunk in proc.stdout:
                    tail += chunk
                    del tail[:-OUTPUT_LIMIT]
                    *lines, pending = (pending + chunk).split(b"\n")
                    for line in lines:
                        output(line.decode("utf-8", "replace"))
                if pending:
                    output(pending.decode("utf-8", "replace"))
            code = await proc.wait()
        finally:
            del self._running[proc]
            if proc.returncode is None:  # cancelled (a second interrupt): the command goes too
                with contextlib.suppress(ProcessLookupError, OSError):
                    proc.kill()
                with anyio.CancelScope(shield=True):
                    await proc.wait()
            with anyio.CancelScope(shield=True):
                await proc.aclose()
        if code == 0:
            return None
        if code > 0:
            return f"exit status {code}"
        try:
            return "signal: " + _SIGNAL_NAMES[signal.Signals(-code)]
        except (KeyError, ValueError):
            return f"signal {-code}"


def provisioners_of(module: Module | None, addr: ResourceAddr, when: str
                    ) -> tuple[tuple[Provisioner, ...], ResourceConfig | None]:
    """The provisioners of ``when`` the resource ``addr`` has, and its configuration: its block's
    own; for one no longer configured, the destroy-time ones of the ``removed`` block that removes
    it (terraform runs those alone: a resource block deleted takes its provisioners with it)."""
    rc = module.resource_at(addr) if module is not None else None
    if rc is not None:
        return rc.provisioners_for(when), rc
    if module is None or when != "destroy":
        return (), None
    path = tuple(n for n, _k in addr.module.steps)
    for m in module.tree():
        for b in m.removed:
            if b.provisioners and b.from_.resource == (addr.mode, addr.type, addr.name) \
                    and m.path + tuple(n for n, _k in b.from_.steps) == path:
                return b.provisioners, None
    return (), None


def suppression(scope: Scope, addr: ResourceAddr, module: Module | None) -> Callable[[Provisioner], str | None]:
    """What a provisioner of ``addr`` (``self``: its object) prints instead of each line of its
    output when its configuration uses a sensitive or an ephemeral value, as terraform suppresses
    it; None when it uses neither."""
    base = scope.sensitivity
    sensitive = with_self(base, addr.mode, addr.type, addr.name).uses if base is not None else None
    m = module.descendant(tuple(n for n, _k in addr.module.steps)) if module is not None else None
    ephemeral = Ephemerality(m).uses if m is not None and m.mentions_applying else None

    def why(p: Provisioner) -> str | None:
        exprs = [a.expr for a in p.attributes.values()]
        kinds = [k for k, uses in (("sensitive", sensitive), ("ephemeral", ephemeral))
                 if uses is not None and any(uses(e) for e in exprs)]
        return _SUPPRESSED.format(", ".join(kinds)) if kinds else None

    return why


def evaluate_config(p: Provisioner, scope: Scope, context: str | None
                    ) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    """A provisioner's arguments evaluated in ``scope`` and converted to the local-exec schema's
    types (every argument present, null when unset)."""
    diags: list[Diagnostic] = []
    config: dict[str, Any] = dict.fromkeys(LOCAL_EXEC_SCHEMA)
    for name, attr in p.attributes.items():
        try:
            v = evaluate(attr.expr, scope)
        except EvalError as exc:
            diags.append(exc.error(SourceRange(attr.range.filename, exc.line), context=context))
            continue
        ty = LOCAL_EXEC_SCHEMA[name][0] if name in LOCAL_EXEC_SCHEMA else "dynamic"
        if v is not None and ty != "dynamic":
            try:
                v = convert(v, ty)
            except ConversionError as exc:
                # cty's own wording, as terraform's hcldec decodes a provisioner's body
                diags.append(error("Incorrect attribute value type", f'Inappropriate value for attribute "{name}": '
                                   f"{exc.cty_text}", attr.range, context=context))
                continue
        config[name] = v
    return (None if errors_of(diags) else config), diags


def _not_found(program: str) -> str | None:
    """Go's exec.Command looks a program without a slash up in PATH first: its error when absent."""
    import shutil

    if "/" in program or shutil.which(program) is not None:
        return None
    return f'exec: "{program}": executable file not found in $PATH'


def _start_error(exc: OSError, program: str, cwd: str | None) -> str:
    """Why the command did not start, as Go's os/exec says it."""
    reason = exc.strerror or str(exc)
    reason = reason[:1].lower() + reason[1:]
    if cwd is not None and exc.filename == cwd:
        return f"chdir {cwd}: {reason}"
    return f"fork/exec {program}: {reason}"

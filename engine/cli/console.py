"""``strata console``: expressions read from standard input, one a line, evaluated against the
configuration (variables, locals, functions) and what the state holds for its resources, printed
as ``terraform console`` prints them.

On a terminal it prompts (``> ``) and prints each value; ``exit`` or end of input ends it. As
terraform's with input that is not a terminal, each line is evaluated in turn, the first error
ends the command (exit 1) with its diagnostic, and the value of the last line is printed. A
resource the state does not hold is unknown (``(known after apply)``); a value that uses anything
sensitive prints as ``(sensitive value)``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from engine.apply.executor import ApplyResolver
from engine.cli.args import workspace_from
from engine.cli.state_commands import load_state
from engine.config.locals import LocalValues
from engine.config.module import load_module
from engine.config.provider_functions import use_provider_functions
from engine.config.variables import resolve as resolve_variables
from engine.diagnostics import Diagnostic, DiagnosticsError, SourceRange, errors_of
from engine.lang.ephemerality import Ephemerality
from engine.lang.evaluate import evaluate
from engine.lang.hcl import parse_expression
from engine.lang.null_types import StaticTypes
from engine.lang.scope import EvalError, Scope
from engine.lang.sensitivity import of_module as sensitivity_of
from engine.planning.expansion import kind_of
from engine.plans.plan import Expansion
from engine.render.value_text import output_text

if TYPE_CHECKING:
    from engine.cli.args import Args
    from engine.cli.output import Output
    from engine.config.model import Module
    from engine.state.model import State

INPUT = "<console-input>"


async def cmd_console(a: Args, out: Output) -> int:
    ws = workspace_from(a)
    module = load_module(ws.path)
    cli = list(ws.variable_args) + [("var", f"{k}={v}") for k, v in ws.variables.items()]
    variables, diags = resolve_variables(module, cli, directory=ws.path)
    if errors_of(diags):
        raise DiagnosticsError(errors_of(diags))
    state, providers = load_state(a)
    use_provider_functions(module, providers)
    session = ConsoleSession(module, state, variables, sensitivity_of(module, providers))
    if sys.stdin.isatty():
        return _interactive(session, out)
    last = ""
    for line in sys.stdin.read().splitlines():
        if not line.strip():
            continue
        if line.strip() == "exit":
            break
        try:
            last = session.evaluate(line)
        except DiagnosticsError as exc:
            out.diagnostics(exc.diagnostics)
            return 1
    if last:
        sys.stdout.write(last + "\n")
    return 0


def _interactive(session: ConsoleSession, out: Output) -> int:
    """A terminal: a prompt, each value printed, a mistake reported and the session going on."""
    while True:
        try:
            line = input("> ")
        except EOFError:
            sys.stdout.write("\n")
            return 0
        if line.strip() == "exit":
            return 0
        if not line.strip():
            continue
        try:
            sys.stdout.write(session.evaluate(line) + "\n\n")
        except DiagnosticsError as exc:
            out.diagnostics(exc.diagnostics)


class ConsoleSession:
    """One console's evaluation context: the module, the state's resources over the instances
    the state holds, the variables' values and the module's sensitivity."""

    def __init__(self, module: Module, state: State, variables: dict[str, Any], sensitivity: Any) -> None:
        self.sensitivity = sensitivity
        self.ephemerality = Ephemerality(module)
        self.types = StaticTypes(lambda name: getattr(module.variables.get(name), "type", "dynamic"),
                                 lambda name: getattr(module.locals.get(name), "expr", None))
        resolver = ApplyResolver(module, state, _expansions(module, state))
        failures: list[Diagnostic] = []

        def scope() -> Scope:
            return Scope(variables, self.locals, resolver, sensitivity=sensitivity)

        self.locals = LocalValues(module, scope, lambda lc, exc: failures.append(
            exc.error(SourceRange(lc.range.filename, exc.line))))
        self.scope = scope
        self.failures = failures

    def evaluate(self, text: str) -> str:
        """``text``'s value as the console prints it; a mistake is a :class:`DiagnosticsError`."""
        expr = parse_expression(text, INPUT, 1)
        try:
            value = evaluate(expr, self.scope())
        except EvalError as exc:
            raise DiagnosticsError([exc.error(SourceRange(INPUT, 1))]) from None
        if self.failures:
            failed, self.failures[:] = list(self.failures), []
            raise DiagnosticsError(failed)
        if self.sensitivity is not None and self.sensitivity.uses(expr):
            return "(sensitive value)"
        if self.ephemerality.uses(expr):
            return "(ephemeral value)"
        return output_text(value, ty=self.types.of(expr))


def _expansions(module: Module, state: State) -> dict[Any, Expansion]:
    """Each resource expanded over the instances the state holds (a single resource the state
    does not hold is one unknown instance)."""
    out: dict[Any, Expansion] = {}
    for addr, rc in module.resources.items():
        kind = kind_of(rc)
        rs = state.resources.get(addr)
        keys = tuple(rs.instances) if rs is not None else ()
        if kind == "single":
            keys = (None,)
        else:
            keys = tuple(sorted(keys, key=lambda k: (isinstance(k, str), k)))
        out[addr] = Expansion(kind, keys)
    return out

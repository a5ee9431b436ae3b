"""terraform's prompt for a root module variable that has no value: when standard input is a
terminal (and neither ``-input=false``, ``TF_INPUT=0`` nor ``-json`` says otherwise), each required
variable given no value by ``-var``, a variables file or ``TF_VAR_NAME`` is asked for, in lexical
order::

    var.NAME
      DESCRIPTION

      Enter a value:

A sensitive variable's answer is not echoed. The answers join the command line's values, as
("input", "NAME=VALUE"): the variable is then set as a ``-var`` would set it, and a mistake in
one is reported "set using an interactive prompt"."""

from __future__ import annotations

import os
import sys
from typing import IO, TextIO

from engine.cli.args import Args
from engine.config.model import NO_DEFAULT
from engine.config.module import load_module
from engine.config.variables import gather
from engine.diagnostics import DiagnosticsError


def input_enabled(a: Args, stdin: IO[str] | None = None) -> bool:
    """May the command ask? Standard input is a terminal, and nothing turned input off."""
    if a.flags.get("input") is False or a.flags.get("json"):
        return False
    if os.environ.get("TF_INPUT", "").strip().lower() in ("0", "false"):
        return False
    try:
        return (stdin or sys.stdin).isatty()
    except (OSError, ValueError):
        return False


def prompt_text(name: str, description: str) -> str:
    """terraform's question for ``var.NAME`` (its UIInput's layout)."""
    text = f"var.{name}\n"
    if description:
        text += "".join(f"  {line}\n" for line in description.splitlines()) + "\n"
    return text + "  Enter a value: "


def ask_for_variables(a: Args, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> None:
    """Ask for every required variable the command line, the variables files and the environment
    leave without a value, adding the answers to ``a``. Nothing is asked when input is not
    :func:`enabled <input_enabled>`, or when the configuration does not load (the command
    reports why)."""
    if not input_enabled(a, stdin):
        return
    directory = a.flags.get("chdir", ".")
    try:
        module = load_module(directory)
    except DiagnosticsError:
        return
    raw, _ = gather(module, a.var_args, directory=directory)
    have = {v.name for v in raw}
    needed = sorted(n for n, vc in module.variables.items() if vc.default is NO_DEFAULT and n not in have)
    inp, out = stdin or sys.stdin, stdout or sys.stdout
    for name in needed:
        vc = module.variables[name]
        out.write(prompt_text(name, vc.description or ""))
        out.flush()
        try:
            if vc.sensitive and inp is sys.stdin:
                import getpass

                echo_to: TextIO | None = None if stdout is not None else sys.stdout
                line = getpass.getpass("", stream=echo_to)
            else:
                line = inp.readline()
                if not line:
                    return  # end of input: the variables left are reported missing
        except (EOFError, OSError):
            return
        out.write("\n")
        a.var_args.append(("input", f"{name}={line.rstrip()}"))

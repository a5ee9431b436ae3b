"""``strata output [-json | -raw] [NAME]``: the root module's outputs from the state, as terraform
prints them."""

from __future__ import annotations

import sys
from typing import Any

import orjson

from engine.cli.args import Args, UsageError
from engine.cli.output import Output
from engine.cli.state_commands import load_state
from engine.diagnostics import Diagnostic, DiagnosticsError, StrataError, error
from engine.lang.number import to_string as number_to_string
from engine.render.text import render_diagnostic
from engine.render.value_text import output_text
from engine.values import cty_type, to_json

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
        state, _ = load_state(a)
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
            doc = {n: {"sensitive": s, "type": state.output_type(n), "value": to_json(v)}
                   for n, (v, s) in outputs.items()}
            sys.stdout.write(_go_json(doc, indent=True) + "\n")
        else:
            for n, (v, s) in sorted(outputs.items()):
                sys.stdout.write(f"{n} = {'<sensitive>' if s else output_text(v, 0, state.output_type(n))}\n")
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
        sys.stdout.write(output_text(value, 0, state.output_type(name)) + "\n")
    return 0

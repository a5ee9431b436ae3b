"""Input variable values, from every source terraform reads, lowest precedence first:

1. the variable's ``default``;
2. ``TF_VAR_name`` environment variables;
3. ``terraform.tfvars`` and ``terraform.tfvars.json`` in the working directory;
4. ``*.auto.tfvars`` and ``*.auto.tfvars.json``, in lexical order;
5. ``-var-file=FILE`` and ``-var NAME=VALUE``, in command-line order.

Values from the command line and the environment are strings unless the variable's type
constraint asks for a structure (then they are parsed as HCL), as in terraform. Every value
is converted to the variable's type; mistakes are diagnostics naming where the value came from.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from engine.config.constants import _constant_scope
from engine.config.model import NO_DEFAULT, Module, VariableConfig
from engine.diagnostics import (
    Diagnostic,
    DiagnosticsError,
    SourceRange,
    decl_range,
    error,
    source_line,
)
from engine.frozen import frozen
from engine.lang.convert import ConversionError, convert
from engine.lang.defaults import apply_defaults
from engine.lang.evaluate import EvalError, evaluate
from engine.lang.hcl import parse_expression, parse_hcl


@frozen
class RawValue:
    """A value before conversion: ``text`` (command line, environment) or ``value`` (a tfvars file)."""

    name: str
    where: str
    text: str | None = None
    value: Any = None
    range: SourceRange | None = None


def type_text(ty: Any) -> str:
    if isinstance(ty, str):
        return "any" if ty == "dynamic" else ty
    if ty[0] in ("list", "set", "map"):
        return f"{ty[0]}({type_text(ty[1])})"
    return str(ty[0])


def read_tfvars(path: str, display: str | None = None) -> tuple[list[RawValue], list[Diagnostic]]:
    """The assignments of one .tfvars / .tfvars.json file."""
    display = display or path
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        return [], [error("Failed to read variables file", f"Given variables file {display} does not exist "
                          f"or cannot be read: {exc.strerror}.")]
    try:
        blocks, attrs = _parse_vars(text, display, path.endswith(".json"))
    except DiagnosticsError as exc:
        return [], list(exc.diagnostics)
    diags: list[Diagnostic] = []
    for b in blocks:
        diags.append(error("Unexpected block in variables file",
                           "A variables file contains only NAME = VALUE assignments.", b.range))
    out: list[RawValue] = []
    for name, a in attrs.items():
        try:
            out.append(RawValue(name, display, value=evaluate(a.expr, _constant_scope()), range=a.range))
        except EvalError as exc:
            diags.append(error("Variables not allowed" if "Variables" in exc.summary else exc.summary,
                               f"{exc.detail} Values in a variables file must be constant.",
                               SourceRange(display, exc.line)))
    return out, diags


def _parse_vars(text: str, display: str, is_json: bool) -> tuple[list[Any], dict[str, Any]]:
    if is_json:
        # a .tfvars.json document is one object of NAME: VALUE, read like a locals block
        import json

        from engine.lang.hcl_json import parse_json

        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DiagnosticsError([error("Invalid JSON", exc.msg, SourceRange(display, exc.lineno))]) from None
        if not isinstance(doc, dict):
            raise DiagnosticsError([error("Invalid variables file", "The root must be an object.",
                                          SourceRange(display, 1))])
        blocks = parse_json(json.dumps({"locals": doc}), display)
        return [], blocks[0].attributes if blocks else {}
    from engine.lang.hcl import Block

    # parse_hcl accepts blocks at the top level only: wrap the file in one and unwrap it
    wrapped = "__tfvars {\n" + text + "\n}\n"
    try:
        blocks = parse_hcl(wrapped, display)
    except DiagnosticsError as exc:
        raise DiagnosticsError([_shift(d) for d in exc.diagnostics]) from None
    inner: Block = blocks[0]
    attrs = {k: _shift_attr(a) for k, a in inner.attributes.items()}
    return inner.blocks, attrs


def _shift(d: Diagnostic) -> Diagnostic:
    if d.subject is None:
        return d
    return Diagnostic(d.severity, d.summary, d.detail,
                      SourceRange(d.subject.filename, max(1, d.subject.line - 1)), d.address)


def _shift_attr(a: Any) -> Any:
    from dataclasses import replace

    return replace(a, range=SourceRange(a.range.filename, max(1, a.range.line - 1)))


def gather(module: Module, cli: list[tuple[str, str]], env: Mapping[str, str] | None = None,
           directory: str = ".") -> tuple[list[RawValue], list[Diagnostic]]:
    """Every assignment, lowest precedence first. ``cli`` holds ("var", "NAME=VALUE") and
    ("var-file", PATH) in command-line order, and ("input", "NAME=VALUE"): a value typed at the
    prompt for a variable that had none."""
    env = os.environ if env is None else env
    values: list[RawValue] = []
    diags: list[Diagnostic] = []
    for key, text in sorted(env.items()):
        if key.startswith("TF_VAR_") and key[7:] in module.variables:
            values.append(RawValue(key[7:], f"the environment variable {key}", text=text))
    auto = [n for n in ("terraform.tfvars", "terraform.tfvars.json") if os.path.isfile(os.path.join(directory, n))]
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        names = []
    auto += [n for n in names if n.endswith((".auto.tfvars", ".auto.tfvars.json"))]
    for n in auto:
        got, d = read_tfvars(os.path.join(directory, n), n)
        values.extend(got)
        diags.extend(d)
    for kind, item in cli:
        if kind == "var-file":
            got, d = read_tfvars(item)
            values.extend(got)
            diags.extend(d)
        elif kind == "input":  # answered at terraform's prompt (engine/cli/prompt.py)
            name, _, text = item.partition("=")
            values.append(RawValue(name, _PROMPT, text=text))
        else:
            name, _, text = item.partition("=")
            if name not in module.variables:
                diags.append(error("Value for undeclared variable",
                                   f'A variable named "{name}" was assigned on the command line, but the root '
                                   "module does not declare a variable of that name. To use this value, add "
                                   f'a "variable" block to the configuration.'))
                continue
            values.append(RawValue(name, "the command line", text=text))
    undeclared = [v for v in values if v.text is None and v.name not in module.variables]
    for v in undeclared[:_UNDECLARED_SHOWN]:
        diags.append(Diagnostic("warning", "Value for undeclared variable",
                                f'The root module does not declare a variable named "{v.name}" but a value was '
                                f'found in file "{v.where}". If you meant to use this value, add a "variable" '
                                "block to the configuration.\n\nTo silence these warnings, use TF_VAR_... "
                                'environment variables to provide certain "global" settings to all '
                                "configurations in your organization. To reduce the verbosity of these "
                                "warnings, use the -compact-warnings option."))
    if len(undeclared) > _UNDECLARED_SHOWN:
        diags.append(Diagnostic("warning", "Values for undeclared variables",
                                "In addition to the other similar warnings shown, "
                                f"{len(undeclared) - _UNDECLARED_SHOWN} other variable(s) defined without being "
                                "declared."))
    return values, diags


_PROMPT = "an interactive prompt"
_UNDECLARED_SHOWN = 2  # terraform's: the rest are counted in one more warning


def resolve(module: Module, cli: list[tuple[str, str]], env: Mapping[str, str] | None = None,
            directory: str = ".") -> tuple[dict[str, Any], list[Diagnostic]]:
    """The value of every declared variable, converted to its type."""
    raw, diags = gather(module, cli, env, directory)
    last: dict[str, RawValue] = {}
    for v in raw:
        if v.name in module.variables:
            last[v.name] = v
    out: dict[str, Any] = {}
    for name, vc in module.variables.items():
        got = last.get(name)
        if got is None:
            if vc.default is not NO_DEFAULT:
                out[name] = vc.default
            else:
                diags.append(error("No value for required variable",
                                   f'The root module input variable "{name}" is not set, and has no default '
                                   "value. Use a -var or -var-file command line argument to provide a value "
                                   "for this variable.", vc.range.header()))
            continue
        v = got
        try:
            out[name] = _value(vc, v)
        except ConversionError as exc:
            diags.append(_unsuitable(vc, v, exc))
            continue
        except (DiagnosticsError, EvalError) as exc:
            diags.append(error("Invalid value for input variable",
                               f"The value given for var.{name} in {v.where} is not suitable for its type "
                               f"{type_text(vc.type)}: {exc}", v.range or vc.range))
            continue
        if out[name] is None and not vc.nullable:
            diags.append(error("Required variable not set", f'The variable "{name}" is not nullable, but '
                               f"{v.where} sets it to null.", v.range or vc.range))
    return out, diags


def _unsuitable(vc: VariableConfig, v: RawValue, exc: ConversionError) -> Diagnostic:
    """terraform's words for a value of the wrong type, by where it was set."""
    name = vc.name
    if v.range is not None and vc.sensitive:  # terraform's: the declaration, never the line with the value
        line = source_line(v.range.filename, v.range.line) or ""
        eq = line.find("=")
        start = eq + 1 + len(line[eq + 1:]) - len(line[eq + 1:].lstrip()) if eq >= 0 else 0
        where = f"{v.range.filename}:{v.range.line},{start + 1}-{len(line.rstrip()) + 1}"
        return error("Invalid value for input variable",
                     f"The given value is not suitable for var.{name}, which is sensitive: {exc.cty_text} "
                     f"Invalid value defined at {where}.", vc.range.header())
    if v.range is not None:  # a variables file: the line that sets it
        return error("Invalid value for input variable",
                     f"The given value is not suitable for var.{name} declared at {decl_range(vc.range)}: "
                     f"{exc.cty_text}", v.range)
    if v.where.startswith("the environment variable "):
        how = f"the {v.where.rsplit(' ', 1)[1]} environment variable"
    elif v.where == _PROMPT:
        how = _PROMPT
    else:
        how = f'-var="{name}=..."'
    return error("Invalid value for input variable",
                 f"Unsuitable value for var.{name} set using {how}: {exc.cty_text}", vc.range.header())


def _value(vc: VariableConfig, v: RawValue) -> Any:
    value = v.value
    if v.text is not None:
        value = v.text
        # as terraform: a string unless the type constraint asks for a structure
        if vc.type not in ("dynamic", "string", "number", "bool"):
            value = evaluate(parse_expression(v.text, f"<value for var.{vc.name}>", 1), _constant_scope())
    return convert(apply_defaults(value, vc.defaults), vc.type)

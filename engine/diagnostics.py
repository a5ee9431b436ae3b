"""Diagnostics and the error tree.

Every user mistake becomes a :class:`Diagnostic` carrying where it happened
(file and line, or a resource address); the CLI renders them like terraform
does and exits 1, never with a traceback.

Errors: one root, and every error strata raises derives from it; each carries its context as
fields (address, provider, path, record) and builds its message from them. The tree, with the
module each lives in::

    StrataError                          root of everything strata raises on purpose
    ├── DiagnosticsError                 one or more diagnostics (configuration, plan, state)
    │   ├── PlanningFailed               errors found while planning, with the partial plan
    │   ├── StateDecodeError             state/codec: a state file terraform would not read
    │   ├── StatePathError               state/store: a state or journal path that is no file
    │   ├── StateSnapshotError           state/store: the snapshot could not be written
    │   ├── StateLockError               state/lock: the lock is held, or cannot be taken
    │   └── JournalDamagedError          state/journal: damage before the journal's end
    ├── CycleError                       the graph has cycles; names every node in each
    ├── ProviderError                    a provider call failed (address, provider, path)
    │   ├── ProviderCallFailed           provider/seam: a provider raised instead of answering
    │   └── PluginStartError             plugin/process: a plugin did not start or shake hands
    ├── StateWriteError                  state/store: the journal could not be written
    ├── LockMisuseError                  state/lock: the lock used out of its lifecycle (a bug)
    ├── UnlockError                      state/lock: force-unlock refused (wrong ID, no lock)
    ├── UsageError                       cli/args: a command line strata cannot run
    ├── UnknownCommand                   cli/args: no such command (terraform's "Did you mean")
    ├── AddressSpaceExhausted            memory: near the ulimit -v (also a MemoryError), raised
    │                                    while there is memory left to end the run with
    ├── ResourceError                    provider/framework: a provider's own error, mapped to a
    │                                    diagnostic by the framework
    └── internal signals, each caught and turned into a diagnostic where it is raised:
        FunctionError (FunctionArityError; ArgumentError and Re2Error in lang/functions),
        ConversionError (lang/convert), EvalError (lang/scope; TypeMistake in lang/typecheck:
        validate's type check), InvalidField (state/codec),
        _SyntaxFail (lang/hcl), _Bad (state/journal), _Refused (lang/functions/regex),
        _Unexpected (lang/functions/go_json: a JSON document that ends inside a value),
        _CallFailed (plugin/client: a failed gRPC call, answered as the call's diagnostic),
        TypeSpecError (config/decode), FormatError (lang/fmt: fmt's syntax error),
        FetchError and ModuleNotFound (install/module_fetch: a module package or registry answer
        that could not be had), MaybeRelativePath (install/module_source: terraform's "./" hint),
        _Stop (cli/workspace_command: a workspace subcommand ending, having said why)

Not errors, and so outside the tree: StopNow (apply/interrupt), a BaseException as
KeyboardInterrupt is, raised by a second interrupt to stop an apply at once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from engine.addrs import parse_instance_addr
from engine.frozen import frozen


@frozen
class SourceRange:
    filename: str
    line: int
    column: int = 0
    byte: int = 0
    decl: bool = False
    """The range is a block's declaration (its header): terraform then names no enclosing block."""

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}"

    def header(self) -> SourceRange:
        """This line as a block's declaration."""
        return SourceRange(self.filename, self.line, self.column, self.byte, decl=True)


def decl_range(r: SourceRange) -> str:
    """A block's declaration as terraform cites it, ``main.tf:1,1-13``: from the block's type to
    its last label (``variable "v"``). Just ``main.tf:1`` when the line cannot be read."""
    text = source_line(r.filename, r.line)
    if text is None:
        return str(r)
    start = len(text) - len(text.lstrip())
    return f"{r.filename}:{r.line},{start + 1}-{_header_end(text, start) + 1}"


def _header_end(code: str, start: int) -> int:
    """Where a block's header (its type and labels, before ``{``) that starts at ``start`` ends."""
    return start + len(code[start:].split("{", 1)[0].rstrip())


_HEADER = re.compile(r'([A-Za-z_][\w-]*)((?:\s+"(?:[^"\\]|\\.)*"|\s+[A-Za-z_][\w-]*)*)\s*\{')


def enclosing_block(filename: str, line: int) -> str | None:
    """The top-level block around ``line``, read from the file's text (for a file that did not
    parse): the nearest header above it at the start of a line (``resource "T" "N" {``), unless
    a closing brace at the start of a line ends it first."""
    try:
        with open(filename, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except (OSError, UnicodeDecodeError):
        return None
    for text in reversed(lines[:line]):
        if text.startswith("}"):
            return None
        m = _HEADER.match(text)
        if m:
            return " ".join([m.group(1), *m.group(2).split()])
    return None


def attribute_range(r: SourceRange, name_only: bool = False) -> str:
    """An argument as terraform cites it, ``main.tf:2,3-8``: the whole ``name = value`` on its
    line, or (``name_only``) the name."""
    text = source_line(r.filename, r.line)
    if text is None:
        return str(r)
    start = len(text) - len(text.lstrip())
    body = text[start:].rstrip()
    if name_only:
        body = body.split("=", 1)[0].rstrip()
    return f"{r.filename}:{r.line},{start + 1}-{start + 1 + len(body)}"


def source_line(filename: str, line: int) -> str | None:
    """The line of the configuration a diagnostic points at, for the snippet (None if unreadable)."""
    try:
        with open(filename, encoding="utf-8", errors="replace") as f:
            for i, text in enumerate(f, 1):
                if i == line:
                    return text.rstrip("\r\n")
    except OSError:
        return None
    return None


# HCL's diagnostics about an argument or a nested block as such: the range is its name alone
_NAME_RANGED = frozenset({"Unsupported argument", "Attribute redefined", "Unsupported block type"})
_NAME = re.compile(r"[A-Za-z_][\w-]*")


def _code_end(code: str, start: int) -> int:
    """Where the line's code from ``start`` ends: before a comment that ends the line (``#``,
    ``//``, or a ``/* */`` with nothing after it), trailing blanks left out. Strings and the
    interpolations inside them are skipped whole, so a ``#`` in ``"a#b"`` is code."""
    stack: list[str] = []  # "s": in a string; "i": in a string's interpolation; "b": in braces
    i, n = start, len(code)
    while i < n:
        c = code[i]
        if stack and stack[-1] == "s":
            if c == "\\":
                i += 2
                continue
            if code.startswith(("$${", "%%{"), i):
                i += 3
                continue
            if code.startswith(("${", "%{"), i):
                stack.append("i")
                i += 2
                continue
            if c == '"':
                stack.pop()
        elif c == '"':
            stack.append("s")
        elif c == "{":
            stack.append("b")
        elif c == "}":
            if stack:
                stack.pop()
        elif c == "#" or code.startswith("//", i):
            break
        elif code.startswith("/*", i):
            close = code.find("*/", i + 2)
            if close < 0 or not code[close + 2:].strip():
                break
            i = close + 2
            continue
        i += 1
    return len(code[:i].rstrip())


def _line_byte(filename: str, line: int) -> int | None:
    """The byte offset in ``filename`` at which ``line`` starts (None if unreadable)."""
    try:
        with open(filename, "rb") as f:
            offset = 0
            for i, text in enumerate(f, 1):
                if i == line:
                    return offset
                offset += len(text)
    except OSError:
        return None
    return None


def _expression_start(code: str) -> int:
    """Where an argument's expression starts on its line (``  input = var.x``: at ``var``), for a
    position known only by its line; the line's first character otherwise."""
    name, eq, rest = code.partition("=")
    if eq and name.strip().replace("_", "a").replace("-", "a").isalnum() and not rest.startswith("="):
        return len(code) - len(rest.lstrip())
    return len(code) - len(code.lstrip())


@frozen
class Diagnostic:
    severity: str  # "error" | "warning"
    summary: str
    detail: str = ""
    subject: SourceRange | None = None
    address: str | None = None
    retryable: bool = False
    """Set by a provider for a transient failure the core may retry (with backoff)."""
    context: str | None = None
    """The top-level block ``subject`` is in, as terraform names it: ``resource "T" "N"``,
    ``output "o"``, ``locals``."""
    values: tuple[str, ...] = ()
    """What terraform shows under the source line about the expression (``while calling
    upper(str)``)."""
    expr_values: tuple[tuple[str, str], ...] = ()
    """terraform's statements about the values of the references in the expression that failed,
    sorted: ``("local.l", "is tuple with 2 elements")``."""
    attribute: tuple[str | int, ...] = ()
    """The attribute path inside the object a provider's diagnostic is about (tfplugin's
    ``Diagnostic.attribute``): ``("tags", "env")``, ``("rule", 0, "port")``; empty when none."""

    def block(self) -> str | None:
        """The top-level block the diagnostic is in, as terraform names it: its ``context``, or
        the resource its address names (``resource "T" "N"``)."""
        if self.subject is not None and self.subject.decl:
            return None
        if self.context or not self.address:
            return self.context
        try:
            r = parse_instance_addr(self.address).resource
        except ValueError:
            return None
        return f'{"data" if r.mode == "data" else "resource"} "{r.type}" "{r.name}"'

    def to_json(self, code: str | None = None) -> dict[str, Any]:
        """terraform's JSON diagnostic; with ``code`` (the source line ``subject`` is on), its
        ``snippet``. Positions here are lines: the range and the highlight run from the subject's
        column (where an argument's expression starts when it has none) to the end of the line, of
        the header for a block's declaration (``variable "v"``), or of the name for a diagnostic
        about an argument or block as such (:data:`_NAME_RANGED`); without ``code``, the range is
        the subject's point."""
        d: dict[str, Any] = {"severity": self.severity, "summary": self.summary, "detail": self.detail}
        if self.address:
            d["address"] = self.address
        s = self.subject
        if s:
            pos = {"line": s.line, "column": s.column or 1, "byte": s.byte}
            d["range"] = {"filename": s.filename, "start": pos, "end": dict(pos)}
            if code is not None:
                start = s.column - 1 if s.column else _expression_start(code)
                start = min(max(start, 0), len(code))
                if s.decl:
                    end = _header_end(code, start)
                elif self.summary in _NAME_RANGED and (name := _NAME.match(code, start)):
                    end = name.end()
                else:
                    end = _code_end(code, start)
                end = max(end, start)
                if not s.column:  # a line: its start's byte, from the file
                    line_byte = _line_byte(s.filename, s.line)
                    if line_byte is not None:
                        pos.update(column=start + 1, byte=line_byte + len(code[:start].encode()))
                width = len(code[start:end].encode())
                d["range"]["end"] = {"line": s.line, "column": end + 1, "byte": pos["byte"] + width}
                d["snippet"] = {"context": self.block(), "code": code, "start_line": s.line,
                                "highlight_start_offset": start, "highlight_end_offset": end,
                                "values": [{"traversal": t, "statement": st} for t, st in self.expr_values]}
        return d

    def __str__(self) -> str:
        where = f"{self.subject}: " if self.subject else ""
        addr = f"{self.address}: " if self.address and not self.subject else ""
        text = f"{self.severity.capitalize()}: {where}{addr}{self.summary}"
        if self.detail:
            text += f"\n  {self.detail}"
        return text


def error(summary: str, detail: str = "", subject: SourceRange | None = None,
          address: str | None = None, retryable: bool = False, context: str | None = None,
          values: tuple[str, ...] = (), expr_values: tuple[tuple[str, str], ...] = ()) -> Diagnostic:
    return Diagnostic("error", summary, detail, subject, address, retryable, context, values, expr_values)


def errors_of(diags: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The error diagnostics among ``diags`` (warnings do not stop anything)."""
    if not diags:  # hot path: four times per operation, almost always with nothing to say
        return []
    return [d for d in diags if d.severity == "error"]


def addressed(diags: Iterable[Diagnostic], address: str, subject: SourceRange | None = None) -> list[Diagnostic]:
    """``diags`` (a provider's, say) with ``address``, and ``subject`` where they have none."""
    return [Diagnostic(d.severity, d.summary, d.detail, d.subject or subject, d.address or address) for d in diags]


def levenshtein(a: str, b: str) -> int:
    """The edit distance between ``a`` and ``b`` (insertions, deletions, substitutions)."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def name_suggestion(given: str, names: list[str]) -> str | None:
    """terraform's "Did you mean" (didyoumean.NameSuggestion): the first of ``names`` within an
    edit distance of 2 of ``given``, or None."""
    return next((n for n in names if levenshtein(given, n) < 3), None)


class StrataError(Exception):
    """Root of the errors strata raises on purpose."""


class DiagnosticsError(StrataError):
    """One or more error diagnostics; the message lists them all."""

    def __init__(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.diagnostics = tuple(diagnostics)
        self.warnings: tuple[Diagnostic, ...] = ()  # found before the errors stopped everything
        super().__init__("\n".join(str(d) for d in self.diagnostics))


class PlanningFailed(DiagnosticsError):
    """Errors found while planning (after the configuration loaded), as terraform's plan walk
    finds them: the changes planned before them (``partial``, a Plan) are still shown."""

    def __init__(self, diagnostics: Iterable[Diagnostic], partial: Any = None, types: Any = None,
                 state: Any = None) -> None:
        super().__init__(diagnostics)
        self.partial = partial
        self.types = types  # a resource type's attribute types, to render ``partial``
        self.state = state  # the State it was planned from, for ``plan -out`` to save ``partial``


@dataclass
class CycleError(StrataError):
    """The graph has at least one cycle. ``cycles`` lists each, nodes in a deterministic order."""

    cycles: list[list[str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        Exception.__init__(self, str(self))

    def __str__(self) -> str:
        return "; ".join("Cycle: " + ", ".join(c) for c in self.cycles)


class ProviderError(StrataError):
    """A provider call failed or broke its contract."""

    def __init__(self, summary: str, *, address: str = "", provider: str = "",
                 path: str = "", detail: str = "") -> None:
        self.summary = summary
        self.address = address
        self.provider = provider
        self.path = path
        self.detail = detail
        parts = [summary]
        if address:
            parts.append(f"resource {address}")
        if provider:
            parts.append(f"provider {provider}")
        if path:
            parts.append(f"attribute {path}")
        super().__init__(": ".join(parts[:1]) + (" (" + ", ".join(parts[1:]) + ")" if parts[1:] else "")
                         + (f": {detail}" if detail else ""))


class FunctionError(StrataError):
    """A function (or a number or string conversion) was given an unsuitable argument."""


class FunctionArityError(FunctionError):
    """A function was called with the wrong number of arguments (``summary``: terraform's words)."""

    def __init__(self, message: str, summary: str = "Invalid function arguments") -> None:
        super().__init__(message)
        self.summary = summary

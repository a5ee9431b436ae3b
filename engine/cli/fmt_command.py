"""``strata fmt [-check] [-diff] [-recursive] [-write=false] [-list=false] [DIR|FILE|-]``: terraform's
command, with its output and exit statuses.

It rewrites ``.tf``, ``.tfvars`` and ``.tftest.hcl`` files in terraform's canonical layout
(engine.lang.fmt) and lists those it changed; ``-check`` changes nothing and exits 3 when a file
would change; ``-diff`` prints a unified diff (``--- old/F`` / ``+++ new/F``); ``-`` reads standard
input and writes the result to standard output. A file with a syntax error is reported as a
diagnostic and left as it is; the others are still formatted, and the command exits 2.
"""

from __future__ import annotations

import difflib
import os
import sys
from typing import TYPE_CHECKING

from engine.diagnostics import Diagnostic, SourceRange, error

if TYPE_CHECKING:
    from engine.cli.args import Args
    from engine.cli.output import Output

_SUFFIXES = (".tf", ".tfvars", ".tftest.hcl", ".tfmock.hcl")


def cmd_fmt(a: Args, out: Output) -> int:
    check = bool(a.flags.get("check"))
    show_diff = bool(a.flags.get("diff"))
    write = a.flags.get("write", True) and not check
    listing = a.flags.get("list", True)
    recursive = bool(a.flags.get("recursive"))
    targets = a.positional or ["."]
    diags: list[Diagnostic] = []
    changed = False
    if targets == ["-"]:
        src = sys.stdin.buffer.read().decode("utf-8", errors="replace")
        result, problem = _format("<stdin>", src)
        if problem is not None:
            out.diagnostics([problem])
            return 2
        assert result is not None
        if check:  # terraform's -check on standard input prints nothing, -diff or not
            pass
        elif show_diff:
            if result != src:
                _write(_diff("<stdin>", src, result))
        else:
            _write(printed(result))
        return 3 if check and result != src else 0
    for target in targets:
        if not os.path.exists(target):
            diags.append(error(f"No file or directory at {target}"))
            continue
        if not os.path.isdir(target) and not target.endswith(_SUFFIXES):
            diags.append(error("Only .tf, .tfvars, and .tftest.hcl files can be processed with strata fmt"))
            continue
        for path in _files(target, recursive) if os.path.isdir(target) else [target]:
            with open(path, "rb") as f:
                src = f.read().decode("utf-8", errors="replace")
            result, problem = _format(path, src)
            if problem is not None:
                diags.append(problem)
                continue
            assert result is not None
            if result == src:
                continue
            changed = True
            if listing:
                _write(path + "\n")
            if write:
                with open(path, "wb") as f:
                    f.write(result.encode())
            if show_diff:
                _write(_diff(path, src, result))
    if diags:
        out.diagnostics(diags)
        return 2
    return 3 if check and changed else 0


def printed(formatted: str) -> str:
    """What ``fmt -`` writes for a formatted text: terraform ends it with a newline (a file it
    rewrites gets none added)."""
    return formatted if formatted.endswith("\n") else formatted + "\n"


def _files(directory: str, recursive: bool) -> list[str]:
    """The files fmt takes in ``directory``, in terraform's order (by name, subdirectories where
    they fall); without ``recursive`` only the directory's own."""
    found: list[str] = []
    for entry in sorted(os.scandir(directory), key=lambda e: e.name):
        path = entry.path if directory != "." else entry.name
        if entry.is_dir():
            if recursive and not entry.name.startswith("."):
                found.extend(_files(path, recursive))
        elif entry.name.endswith(_SUFFIXES) and not entry.name.startswith("."):
            found.append(path)
    return found


def _format(filename: str, src: str) -> tuple[str | None, Diagnostic | None]:
    from engine.lang.fmt import FormatError, format_source

    try:
        return format_source(src), None
    except FormatError as exc:
        p = exc.problem
        return None, error(p.summary, p.detail, SourceRange(filename, p.line, p.column))


def _diff(path: str, old: str, new: str) -> str:
    """A unified diff as terraform prints it: terraform runs the system's ``diff -u`` (whose choice
    among equally short diffs differs from difflib's), so this does too, and falls back on
    difflib where there is no ``diff``."""
    import shutil
    import subprocess
    import tempfile

    tool = shutil.which("diff")
    if tool is not None:
        with tempfile.TemporaryDirectory() as tmp:
            a, b = os.path.join(tmp, "old"), os.path.join(tmp, "new")
            for name, text in ((a, old), (b, new)):
                with open(name, "wb") as f:
                    f.write(text.encode())
            proc = subprocess.run([tool, f"--label=old/{path}", f"--label=new/{path}", "-u", a, b],
                                  capture_output=True, check=False)
            if proc.returncode in (0, 1):
                return proc.stdout.decode()
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 f"old/{path}", f"new/{path}", lineterm="\n")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def _write(text: str) -> None:
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode())
    sys.stdout.buffer.flush()

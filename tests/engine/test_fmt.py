"""``terraform fmt``'s layout, byte for byte: every file of the corpus in fmt_corpus/ formats to its
``.golden`` file, recorded from terraform 1.11 (and checked against the binary when it is present)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from engine.cli.fmt_command import printed
from engine.lang.fmt import FormatError, format_source
from tests.conftest import requires_terraform

CORPUS = Path(__file__).parent / "fmt_corpus"
FILES = sorted(p for p in CORPUS.iterdir() if p.suffix in (".tf", ".tfvars"))


def read(path: Path) -> str:
    return path.read_bytes().decode()


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_format_matches_terraform_recorded(path: Path) -> None:
    # the goldens are what `terraform fmt -` printed, which ends the text with a newline
    assert printed(format_source(read(path))) == read(path.with_name(path.name + ".golden"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_format_is_idempotent(path: Path) -> None:
    once = format_source(read(path))
    assert format_source(once) == once


def test_file_without_final_newline_gets_none() -> None:
    assert format_source("a=1") == "a = 1"
    assert format_source("") == ""


@requires_terraform
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_recorded_output_is_terraforms(path: Path) -> None:
    env = dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", CHECKPOINT_DISABLE="1")
    tf = shutil.which("terraform")
    assert tf is not None
    proc = subprocess.run([tf, "fmt", "-"], input=path.read_bytes(), capture_output=True, env=env, check=True)
    assert proc.stdout.decode() == read(path.with_name(path.name + ".golden"))


def test_syntax_error_is_refused_with_its_line() -> None:
    with pytest.raises(FormatError) as exc:
        format_source('locals {\n  a = 1\n  b = (2\n}\n')
    assert exc.value.problem.line >= 3


def test_unclosed_block_is_reported_at_its_opening_line() -> None:
    with pytest.raises(FormatError) as exc:
        format_source('locals {\n  a = 1\n}\n\nresource "x" "y" {\n  b = 2\n')
    assert (exc.value.problem.summary, exc.value.problem.line) == ("Unclosed configuration block", 5)


def test_argument_continued_after_operator_is_refused() -> None:
    # tree-sitter's grammar accepts it; HCL ends an argument at a newline outside brackets
    with pytest.raises(FormatError) as exc:
        format_source("locals {\n  a = var.x &&\n      var.y\n}\n")
    assert (exc.value.problem.summary, exc.value.problem.line) == ("Invalid expression", 2)


def test_deep_nesting_formats_without_recursion_limits() -> None:
    deep = "a = " + "[" * 5000 + "1" + "]" * 5000 + "\n"
    assert format_source(deep) == deep
    blocks = "".join(f"b{i} {{\n" for i in range(1500)) + "}\n" * 1500
    out = format_source(blocks)
    assert out.splitlines()[1499] == " " * 2998 + "b1499 {"

"""Syntax errors of .tf files as terraform 1.11 reports them: the summary, the line and the column
(recorded from ``terraform validate -json``; ``test_terraform_agrees`` checks some against the
binary when it is on PATH)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from engine.diagnostics import DiagnosticsError
from engine.lang.hcl import parse_hcl
from tests.conftest import requires_terraform

# (source, terraform's summary, line, column); column None: strata names the line only
CASES = [
    ('locals {\n  a = 1 b = 2\n}\n', 'Missing newline after argument', 2, 9),
    ('locals {\n  a = \n}\n', 'Invalid expression', 2, 7),
    ('locals {\n  a = 1\n', 'Unclosed configuration block', 1, 8),
    ('locals {\n  a 1\n}\n', 'Argument or block definition required', 2, 3),
    ('locals { a = 1\n  b = 2\n}\n', 'Invalid single-argument block definition', 1, 15),
    ('locals {\n  a = 1\n}\n}\n', 'Argument or block definition required', 4, 1),
    ('locals {\n  a = 1 +\n  2\n  b = [1,\n 2]\n}\n', 'Invalid expression', 2, 10),
    ('locals {\n  a = "abc\n}\n', 'Invalid multi-line string', 2, 11),
    ('locals {\n  a = "a\\qb"\n}\n', 'Invalid escape sequence', 2, 9),
    ('locals {\n  a = [1, 2\n}\n', 'Missing item separator', 3, 1),
    ('locals {\n  a = (1 + 2\n}\n', 'Unbalanced parentheses', 3, 1),
    ('locals {\n  a = f(1, 2\n}\n', 'Missing argument separator', 3, 1),
    ('locals {\n  a = "%{if true}x"\n}\n', 'Unexpected end of template', 2, 19),
    ('locals {\n  a = "%{ for x in [1] }${x}%{ endif }"\n}\n', 'Unexpected endif directive', 2, 29),
    ('locals {\n  a = <<EOT\nline\n%{ if true }\n%{ endfor }\nEOT\n}\n', 'Unexpected endfor directive', 5, 1),
    ('locals {\n  a = 1\n  "b" = 2\n}\n', 'Invalid argument name', 3, 3),
    ('locals {\n  a = 1 +\n}\n', 'Invalid expression', 2, 10),
    ('locals {\n  a = 1 ? 2\n}\n', 'Missing false expression in conditional', 2, 12),
    ('locals {\n  a = {a = 1 b = 2}\n}\n', 'Missing attribute separator', 2, 14),
    ('locals {\n  a = x.\n}\n', 'Invalid attribute name', 2, 9),
    ('locals {}  locals {}\n', 'Missing newline after block definition', 1, 12),
    ('locals {\n  a = 1 }\n', 'Missing newline after argument', 2, 9),
    ('locals {\n  a = x\n  + 1\n}\n', 'Argument or block definition required', 3, 3),
    ('locals { a = 1 }\nlocals { b { } }\n', 'Argument definition required', 2, 10),
    ('locals {\n  a = {\n    b = 1 +\n    2\n  }\n}\n', 'Invalid expression', 3, 12),
    ('locals {\n  a = {\n    b = 1\n    + 2\n  }\n}\n', 'Invalid expression', 4, 5),
    ('locals \n{\n  a = 1\n}\n', 'Argument or block definition required', 1, 1),
    ('locals {\n  a = x ?\n   1 : 2\n}\n', 'Invalid expression', 2, 10),
    ('locals {\n  a = x.\n  y\n}\n', 'Invalid attribute name', 2, 9),
    ('locals {\n  a\n  = 1\n}\n', 'Argument or block definition required', 2, 3),
    ('locals {\n  a = 1\n  b = <<EOT\n%{ for x in [1] }\n${x}\n%{ endif }\nEOT\n}\n', 'Unexpected endif directive', 6, 1),
    ('locals {\n  a = "a\rb"\n}\n', "Invalid multi-line string", 2, 9),
    ('locals {\n  a = [1, 2\n', "Unterminated tuple constructor expression", 2, 7),
    ('locals {\n  a = f(1,\n', "Missing expression", 3, 1),
    ('locals {\n  a = {\n    b = 1\n', "Missing expression", 4, 1),
]


def first_error(src: str):
    with pytest.raises(DiagnosticsError) as ei:
        parse_hcl(src, "main.tf")
    return ei.value.diagnostics[0]


@pytest.mark.parametrize(("src", "summary", "line", "column"), CASES, ids=[c[1] + f"@{c[2]}" for c in CASES])
def test_syntax_error_is_terraforms(src: str, summary: str, line: int, column: int | None) -> None:
    d = first_error(src)
    assert d.subject is not None
    got = (d.summary, d.subject.line, d.subject.column if column is not None else None)
    assert got == (summary, line, column), f"terraform 1.11 says {summary!r} at {line}:{column} for {src!r}"


def test_syntax_error_names_its_block(tmp_path, monkeypatch) -> None:
    src = 'resource "terraform_data" "x" {\n  input = 1 +\n}\n'
    (tmp_path / "main.tf").write_text(src)
    monkeypatch.chdir(tmp_path)
    assert first_error(src).context == 'resource "terraform_data" "x"'


def test_syntax_error_never_exposes_parser_internals() -> None:
    for src, *_ in CASES:
        d = first_error(src)
        assert "Token" not in d.detail and "ERROR" not in d.detail and "tree" not in d.detail


@pytest.mark.parametrize("src", [
    'locals {\n  a = {for k, v in {} : (k)\n    => v}\n}\n',  # a parenthesised key, a newline before =>
    'locals {\n  a = (1 +\n    2)\n  b = [1,\n  2]\n  c = f(1,\n  2)\n}\n',  # line breaks inside brackets
    'locals {\n  a = x ? [\n    1\n  ] : []\n}\n',
    'locals { a = 1 }\n',  # a single-line block
    'locals {\n  a = <<EOT\nx\nEOT\n  b = 2\n}\n',
    '\ufefflocals {\n  a = 1\n}\n',  # a UTF-8 byte-order mark
    'locals {\n  a = --1\n  b = !!true\n  c = 1e3\n  d = 1E-2\n}\n',
])
def test_valid_syntax_is_accepted(src: str) -> None:
    parse_hcl(src, "main.tf")


SAMPLE = [0, 4, 13, 21]  # a few cases checked live: each run of terraform takes a second


@requires_terraform
@pytest.mark.parametrize("index", SAMPLE)
def test_terraform_agrees(tmp_path, index: int) -> None:
    src, summary, line, column = CASES[index]
    (tmp_path / "main.tf").write_text(src)
    env = dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", CHECKPOINT_DISABLE="1")
    proc = subprocess.run(["terraform", "validate", "-json"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    out = json.loads(proc.stdout)
    d = out["diagnostics"][0]
    assert (d["summary"], d["range"]["start"]["line"]) == (summary, line)
    if column is not None:
        assert d["range"]["start"]["column"] == column


def test_templates_nested_past_the_grammars_limit_are_a_diagnostic() -> None:
    # terraform accepts 10,000 levels of "${"${...}"}"; tree-sitter-hcl's scanner loses track past
    # ~63, so strata says so instead of reporting an error that is not there
    n = 200
    d = first_error('locals {\n  v = ' + '"${' * n + "1" + '}"' * n + "\n}\n")
    assert (d.summary, d.subject.line) == ("Templates nested too deeply", 2)


def test_templates_nested_fifty_deep_are_read() -> None:
    n = 50
    (b,) = parse_hcl('locals {\n  v = ' + '"${' * n + "1" + '}"' * n + "\n}\n", "main.tf")
    assert "v" in b.attributes

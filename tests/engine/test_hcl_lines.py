"""A file of the plainest form, read from its lines (``engine.lang.hcl_lines``), is what the syntax
tree gives: the same blocks, arguments, expression kinds, values, lines and source positions. Any
other file is left to the tree (None), so that every error is the tree's."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine.diagnostics import DiagnosticsError
from engine.lang.hcl import parse_hcl_body, tree_body
from engine.lang.hcl_lines import read_plain
from engine.lang.hcl_tree import Source

ROOT = Path(__file__).resolve().parents[2]

PLAIN = '''# a generated configuration
variable "env" {
  default = "dev"
}

resource "terraform_data" "r0" {
  input = {
    name  = "r0-${var.env}"
    index = 0
    tags  = { team = "core", tier = "0" }
    ports = [80, 443, 8000]
    after = "root"
    "quoted key" = true,
    nested = {
      deeper = [
        1,
        {
          k = null
        },
        [],
      ]
    }
  }
  triggers_replace = [var.env]
  // a comment
  lifecycle {
    ignore_changes = [triggers_replace]
  }
  provisioner "local-exec" {}
}

resource aws_instance web {
\tami = data.aws_ami.x["ubuntu"].id
  tags = {
  }
  list = [
  ]
  whole = "${var.env}"
  spaced = "a ${ var.env } b ${local.x[0]}"
  unicode = "ünï ✓"
}
'''


def _tree(text: str) -> object:
    try:
        return tree_body(Source.of(text, "main.tf"))
    except DiagnosticsError as exc:
        return exc


def _plain(text: str) -> object:
    return read_plain(Source.of(text, "main.tf").data, "main.tf")


def test_a_plain_file_is_read_from_its_lines_as_the_tree_reads_it() -> None:
    got = _plain(PLAIN)
    assert got is not None
    assert repr(got) == repr(_tree(PLAIN))  # repr: True and 1 differ there, not under ==
    attrs, blocks = got  # type: ignore[misc]
    assert [b.labels for b in blocks] == [("env",), ("terraform_data", "r0"), ("aws_instance", "web")]
    assert [b.end_line for b in blocks[1].blocks] == [28, 29] and blocks[1].end_line == 30
    assert blocks[2].attributes["ami"].range.column == 2  # after a tab


@pytest.mark.parametrize("text", [
    'a = <<EOT\nx\nEOT\n',              # a heredoc
    "b { a = 1 }\n",                    # a single-line block
    "b {\n  a = 1\n  a = 2\n}\n",       # an argument defined twice: the tree's error
    "b {\n  a = 1\n",                   # unclosed
    "}\n",                              # a closing brace with nothing open
    "a = [\n  1\n  2\n]\n",             # tuple elements need commas
    "a = {\n  b = 1\n},\n",             # an argument is not followed by a comma
    "a = 1\r\n",                        # carriage returns
    "/* a */\na = 1\n",                 # a block comment
    'b "x${y}" {\n}\n',                 # an interpolated label
    'a = "${x}${"\n',                   # the tree's error
    "a = f(1,\n  2)\n",                 # a value over lines
    "a = {\n  k = f(1) k2 = 2\n}\n",     # two elements on a line: the tree's error
    "a = [\n  f(1),\n]\n",               # a tuple element not plain
    "for = 1\n",
    "a = {\n  for = 1\n}\n",
    "a {\n  x = {for = 1}\n}\n",         # a keyword as a one-line object's key: the tree's error
    'a {\n  x = "a\x00b"\n}\n',           # a NUL byte: the tree's error
    "a {\n  x = " + "[" * 19_998 + "1" + "]" * 19_998 + "\n}\n",  # too deep with its block
    "b {\n" * 70 + "}\n" * 70,          # deeper than the line reader goes
])
def test_anything_else_is_left_to_the_tree(text: str) -> None:
    assert _plain(text) is None


@pytest.mark.parametrize("text", [
    "a = f(1)\n",                       # a call
    "a = 1 + 2\n",                      # an operator
    "a = -1\n",
    "a = 1.5\n",
    "a = 1 # trailing comment\n",
    'a = "%{ if x }y%{ endif }"\n',     # a directive
    "a = [for x in y : x]\n",
    'resource "x" "y" {\n  input = {\n    n = format("%d", 1),\n    m = 2\n  }\n  v = var.a ? 1 : 2\n}\n',
])
def test_a_value_that_is_not_plain_is_read_by_the_tree_with_the_others(text: str) -> None:
    """One line's value the line reader cannot read goes to the tree, with every other such line
    of the file in one parse; the rest of the file is still read from its lines."""
    got = _plain(text)
    assert got is not None
    assert repr(got) == repr(_tree(text))


def test_errors_still_come_from_the_tree() -> None:
    with pytest.raises(DiagnosticsError) as exc:
        parse_hcl_body('resource "a" "b" {\n  x = 1\n  x = 2\n}\n', "main.tf")
    d = exc.value.diagnostics[0]
    assert d.summary == "Attribute redefined" and d.subject is not None and d.subject.line == 3


def _fixtures() -> list[Path]:
    return sorted(p for p in ROOT.glob("**/*.tf")
                  if ".venv" not in p.parts and "node_modules" not in p.parts)


def test_every_plain_fixture_of_the_repository_reads_as_the_tree_reads_it() -> None:
    plain = 0
    for path in _fixtures():
        text = path.read_text(encoding="utf-8", errors="replace")
        got = _plain(text)
        if got is not None:
            plain += 1
            assert repr(got) == repr(_tree(text)), path
    assert plain >= 5


_PIECES = ["{", "}", "[", "]", "=", ",", '"', "$", "${", "#", "//", " ", "\n", "\t", "a", "true", "for", "-",
           ".", "0", '"x"', "null", ":", "(", "\\", "%", "~", "é", '"a" =', "\n}\n", "\n]\n", " = {\n", " = [\n"]


def test_mutated_plain_files_read_from_their_lines_only_as_the_tree_reads_them() -> None:
    """A fuzz run: random edits of plain files. Whenever the line reader accepts one, the tree
    reads it without error and to the same result."""
    rnd = random.Random(20261127)
    accepted = 0
    for _ in range(3000):
        text = PLAIN
        for _ in range(rnd.randint(1, 3)):
            p = rnd.randrange(len(text) + 1)
            op = rnd.random()
            if op < 0.4:
                text = text[:p] + rnd.choice(_PIECES) + text[p:]
            elif op < 0.7:
                text = text[:p] + text[p + rnd.randint(1, 4):]
            else:
                q = rnd.randrange(len(text) + 1)
                text = text[:p] + text[q:q + rnd.randint(1, 30)] + text[p:]
        got = _plain(text)
        if got is not None:
            accepted += 1
            assert repr(got) == repr(_tree(text)), text
    assert accepted > 300  # the run exercised the reader, not only its refusals

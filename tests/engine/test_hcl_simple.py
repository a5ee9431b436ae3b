"""Short expressions read from their text (``Converter.simple``) are the expressions the syntax
tree gives: the same kinds, values and lines, and anything else still goes through the tree."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.lang.hcl_ast as hcl_ast
from engine.lang import expr as E
from engine.lang.hcl import parse_hcl


def _locals(src: str, monkeypatch: pytest.MonkeyPatch | None = None, through_tree: bool = False) -> E.Expr:
    text = f'locals {{\n  # a comment\n  x = {src}\n  y = [{src}, {{ k = {src} }}]\n}}\n'
    if through_tree:
        assert monkeypatch is not None
        monkeypatch.setattr(hcl_ast, "_SIMPLE_MAX", -1)
    try:
        blocks = parse_hcl(text, "main.tf")
    finally:
        if through_tree:
            assert monkeypatch is not None
            monkeypatch.undo()
    attrs = blocks[0].attributes
    return E.TupleExpr(0, (attrs["x"].expr, attrs["y"].expr))


SIMPLE = ["0", "7", "007", "123456789012345678", '""', '"plain text"', '"ünïcödé ✓"', '"a\tb"', "true",
          "false", "null", "var.env", "count.index", "each.value.name", 'a.b[0]["k"].c', "local.m[12]",
          'data.aws_iam_policy_document.x["a b"].json', "_x.y_z"]
NOT_SIMPLE = ["-1", "1.5", "1234567890123456789012", '"a\\nb"', '"${var.x}"', '"%{if true}x%{endif}"',
              '"$$"', "var.a-b", "a - b", "a.0", "a[var.i]", "f(1)", "[1]", "{a = 1}",
              "a.*.b", "a ? b : c", "!a", "(a)", "a.b /* c */", "a  .b"]


DECLINED = ["true.x", "null.y"]  # read as traversals, but a keyword's step is the tree's business


@pytest.mark.parametrize("src", SIMPLE + NOT_SIMPLE + DECLINED)
def test_simple_expressions_are_what_the_tree_gives(src: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _locals(src) == _locals(src, monkeypatch, through_tree=True)


@pytest.mark.parametrize("src", SIMPLE)
def test_simple_expressions_are_read_from_their_text(src: str) -> None:
    assert hcl_ast._SIMPLE.fullmatch(src.encode()) is not None


@pytest.mark.parametrize("src", NOT_SIMPLE)
def test_other_expressions_go_through_the_tree(src: str) -> None:
    assert hcl_ast._SIMPLE.fullmatch(src.encode()) is None


_name = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True)
_step = st.one_of(_name.map(lambda n: "." + n), st.integers(0, 10**6).map(lambda i: f"[{i}]"),
                  st.from_regex(r'[a-z ._/:-]{0,8}', fullmatch=True).map(lambda k: f'["{k}"]'))


@settings(max_examples=150, deadline=None)
@given(root=_name, steps=st.lists(_step, max_size=5))
def test_any_traversal_is_what_the_tree_gives(root: str, steps: list[str]) -> None:
    src = root + "".join(steps)
    with pytest.MonkeyPatch.context() as mp:
        assert _locals(src) == _locals(src, mp, through_tree=True)

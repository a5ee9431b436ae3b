"""Short expressions read from their text (``Converter.simple``) are the expressions the syntax
tree gives: the same kinds, values and lines, and anything else still goes through the tree."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.lang.hcl as hcl
import engine.lang.hcl_ast as hcl_ast
import engine.lang.hcl_text_expr as hcl_text_expr
from engine.lang import expr as E
from engine.lang.hcl import parse_hcl


def _locals(src: str, monkeypatch: pytest.MonkeyPatch | None = None, through_tree: bool = False) -> E.Expr:
    text = f'locals {{\n  # a comment\n  x = {src}\n  y = [{src}, {{ k = {src} }}]\n}}\n'
    if through_tree:  # neither a file read from its lines nor expressions from their text
        assert monkeypatch is not None
        monkeypatch.setattr(hcl_ast, "_SIMPLE_MAX", -1)
        monkeypatch.setattr(hcl, "read_plain", lambda data, filename: None)
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
              '"$$"', "var.a-b", "a - b", "a.0", "a[var.i]", "f(1)",
              "a.*.b", "a ? b : c", "!a", "(a)", "a.b /* c */", "a  .b"]


DECLINED = ["true.x", "null.y"]  # read as traversals, but a keyword's step is the tree's business

COLLECTIONS = ["[1]", "[]", "[ ]", "{}", "{ }", "{a = 1}", "[80, 443, 8000]", "[var.env]", "[a, ]", "[a,b,c,]",
               '{ team = "core", tier = "0" }', '{ a = 1, }', '{"k k" = x.y[0], b = true}', '["a,b", "]", "="]',
               '{ true = 1, null = 2, false = "x" }', '{ a = "=", b = "{" }', "[\t1 ,\t2\t]", "[true, null, 0]",
               '{ for_x = 1 }', '{ x = a.b["c"][0] }']
NOT_COLLECTIONS = ["[1, -1]", "{ a = f(1) }", "[[1]]", "{ a = { b = 1 } }",
                   "{ a: 1 }", '{ a-b = 1 }', "[1.5]", '["${x}"]', "[a.*.b]", "{ (k) = 1 }",
                   "[true.x]", '{ "a" = null.y }']
INVALID = ["[a b]", "{a = 1 b = 2}", "[,]", "{,}"]  # syntax errors, found before any conversion


@pytest.mark.parametrize("src", SIMPLE + NOT_SIMPLE + DECLINED + COLLECTIONS + NOT_COLLECTIONS)
def test_simple_expressions_are_what_the_tree_gives(src: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _locals(src) == _locals(src, monkeypatch, through_tree=True)


@pytest.mark.parametrize("src", SIMPLE)
def test_simple_expressions_are_read_from_their_text(src: str) -> None:
    assert hcl_text_expr.SIMPLE.fullmatch(src.encode()) is not None


@pytest.mark.parametrize("src", NOT_SIMPLE)
def test_other_expressions_go_through_the_tree(src: str) -> None:
    assert hcl_text_expr.SIMPLE.fullmatch(src.encode()) is None
    assert hcl_text_expr.COLLECTION.fullmatch(src.encode()) is None


@pytest.mark.parametrize("src", COLLECTIONS)
def test_one_line_collections_are_read_from_their_text(src: str) -> None:
    raw = src.encode()
    assert hcl_text_expr.COLLECTION.fullmatch(raw) is not None and hcl_text_expr.collection(raw, 1) is not None


@pytest.mark.parametrize("src", NOT_COLLECTIONS + INVALID)
def test_other_collections_go_through_the_tree(src: str) -> None:
    raw = src.encode()
    assert hcl_text_expr.COLLECTION.fullmatch(raw) is None or hcl_text_expr.collection(raw, 1) is None


_name = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True)
_step = st.one_of(_name.map(lambda n: "." + n), st.integers(0, 10**6).map(lambda i: f"[{i}]"),
                  st.from_regex(r'[a-z ._/:-]{0,8}', fullmatch=True).map(lambda k: f'["{k}"]'))


@settings(max_examples=150, deadline=None)
@given(root=_name, steps=st.lists(_step, max_size=5))
def test_any_traversal_is_what_the_tree_gives(root: str, steps: list[str]) -> None:
    src = root + "".join(steps)
    with pytest.MonkeyPatch.context() as mp:
        assert _locals(src) == _locals(src, mp, through_tree=True)


_scalar = st.one_of(st.integers(0, 10**12).map(str), st.from_regex(r'"[a-z ,=\]\[{}:#]{0,6}"', fullmatch=True),
                    st.sampled_from(["true", "false", "null", "var.x", 'a.b[0]["k"]', "each.key"]))
_key = st.one_of(_name, st.from_regex(r'"[a-z =,]{0,5}"', fullmatch=True))
_gap = st.sampled_from(["", " ", "  ", "\t"])


@settings(max_examples=150, deadline=None)
@given(items=st.lists(st.tuples(_key, _scalar), max_size=4), gaps=st.lists(_gap, min_size=4, max_size=4),
       tuple_form=st.booleans(), trailing=st.booleans())
def test_any_one_line_collection_is_what_the_tree_gives(items: list[tuple[str, str]], gaps: list[str],
                                                        tuple_form: bool, trailing: bool) -> None:
    a, b, c, d = gaps
    if tuple_form:
        inner = f"{b},{c}".join(v for _, v in items)
        src = f"[{a}{inner}{',' if trailing and items else ''}{d}]"
    else:
        inner = f"{b},{c}".join(f"{k}{a}={b}{v}" for k, v in items)
        src = f"{{{a}{inner}{',' if trailing and items else ''}{d}}}"
    with pytest.MonkeyPatch.context() as mp:
        assert _locals(src) == _locals(src, mp, through_tree=True)

"""engine/valuetext.py: values as terraform prints output values (its console's format); the
expected texts are terraform 1.11.4's for the same values."""

from __future__ import annotations

from engine.render.value_text import output_text
from engine.values import ListVal, MapVal, SetVal


def test_scalars() -> None:
    assert [output_text(v) for v in (None, True, 1.5, 2, 1e21, -0.000001, 'say "hi"\t')] == \
        ["null", "true", "1.5", "2", "1000000000000000000000", "-0.000001", '"say \\"hi\\"\\t"']


def test_collections_say_what_they_are() -> None:
    assert output_text(ListVal(("a",))) == 'tolist([\n  "a",\n])'
    assert output_text(SetVal.of(["x"])) == 'toset([\n  "x",\n])'
    assert output_text(MapVal({"a": 1})) == 'tomap({\n  "a" = 1\n})'
    assert [output_text(v) for v in (ListVal(()), MapVal({}), (), {})] == ["tolist([])", "tomap({})", "[]", "{}"]


def test_nesting_and_heredocs() -> None:
    assert output_text({"list": ("x\ny", 2), "key with space": {"inner": True}}) == (
        '{\n  "key with space" = {\n    "inner" = true\n  }\n  "list" = [\n    <<-EOT\n    x\n    y\n'
        '    EOT,\n    2,\n  ]\n}')


def test_a_heredoc_delimiter_never_matches_a_line() -> None:
    assert output_text("EOT\nx\n") == "<<EOT_\nEOT\nx\n\nEOT_"

"""Template directives (``%{ if }``, ``%{ for }``, strip markers) in quoted strings, heredocs and
standalone templates (``parse_template``, for ``templatefile``). Expected values are what
terraform 1.11 gives for the same source (``terraform output -json``)."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from engine.config.constants import _NoResources
from engine.diagnostics import DiagnosticsError
from engine.lang import expr as E
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.lang.hcl import parse_hcl, parse_template


def scope(**names: Any) -> Scope:
    return Scope({}, lambda name, line: None, _NoResources(), for_vars=names)


def value(src: str, **names: Any) -> Any:
    (b,) = parse_hcl("locals {\n" + textwrap.dedent(src) + "}\n", "main.tf")
    return evaluate(b.attributes["x"].expr, scope(**names))


# each checked with terraform 1.11.4: locals { items = ["a", "b"], m = { x = 1, y = 2 } }
@pytest.mark.parametrize(("src", "expected"), [
    ('x = "%{ if length(items) > 1 }many%{ else }one%{ endif }"\n', "many"),
    ('x = "%{ for i, v in items }${i}=${v};%{ endfor }"\n', "0=a;1=b;"),
    ('x = <<-EOT\n    list:\n    %{~ for k, v in m ~}\n      ${k}:${v}\n    %{~ endfor ~}\n    end\n    EOT\n',
     "    list:\n      x:1\n      y:2\n    end\n"),
    ('x = "[ %{~ if true ~} x %{~ endif ~} ]"\n', "[x]"),
    ('x = <<EOT\n%{ for x in items }\n- ${x}\n%{ endfor }\nEOT\n', "\n- a\n\n- b\n\n"),
    ('x = "%{for x in items}${x}%{endfor}"\n', "ab"),
], ids=["if-else", "for-key-value", "indented-heredoc-strip", "strip-both-sides", "heredoc-for", "for-alone"])
def test_directive_value_is_terraforms(src: str, expected: str) -> None:
    assert value(src, items=("a", "b"), m={"x": 1, "y": 2}) == expected


def test_if_without_else_is_empty_when_false() -> None:
    assert value('x = "a%{ if false }b%{ endif }c"\n') == "ac"


def test_nested_directives() -> None:
    got = value('x = "%{ for x in [1, 2, 3] }%{ if x != 2 }${x}%{ endif }%{ endfor }"\n')
    assert got == "13"


def test_escaped_directive_is_literal() -> None:
    assert value('x = "%%{ if true }"\n') == "%{ if true }"


def test_directive_nodes_carry_their_own_line() -> None:
    (b,) = parse_hcl("locals {\n  x = <<EOT\nfirst\n%{ if c }\nyes\n%{ endif }\nEOT\n}\n", "main.tf")
    e = b.attributes["x"].expr
    assert isinstance(e, E.Template)
    (directive,) = [p for p in e.parts if isinstance(p, E.TemplateIf)]
    assert directive.line == 4, "the if directive is on line 4 of the file"


def test_directive_condition_error_names_the_directive_line() -> None:
    (b,) = parse_hcl("locals {\n  x = <<EOT\nfirst\n%{ if \"maybe\" }\nyes\n%{ endif }\nEOT\n}\n", "main.tf")
    with pytest.raises(EvalError) as ei:
        evaluate(b.attributes["x"].expr, scope())
    assert ei.value.line == 4


def test_for_variables_are_not_references() -> None:
    e = parse_template("%{ for x in var.list }${x.name}%{ endfor }", "t.tpl")
    assert [r.root for r in E.references(e)] == ["var"]


def test_unknown_collection_makes_the_template_unknown() -> None:
    from engine.values import UNKNOWN

    e = parse_template("a%{ for x in xs }${x}%{ endfor }", "t.tpl")
    assert evaluate(e, scope(xs=UNKNOWN)) is UNKNOWN


# --------------------------------------------------------------------------- parse_template


def test_parse_template_renders_a_template_file() -> None:
    text = "Hello, ${name}!\n%{ for s in servers ~}\nserver ${s}\n%{ endfor ~}\n"
    e = parse_template(text, "hello.tpl")
    assert evaluate(e, scope(name="world", servers=("a", "b"))) == "Hello, world!\nserver a\nserver b\n"


def test_parse_template_keeps_text_without_a_final_newline() -> None:
    assert evaluate(parse_template("x=${1}", "t.tpl"), scope()) == "x=1"
    assert evaluate(parse_template("plain", "t.tpl"), scope()) == "plain"


def test_parse_template_lines_are_the_files() -> None:
    e = parse_template("one\ntwo ${a}\n", "t.tpl")
    (ref,) = list(E.references(e))
    assert ref.line == 2


def test_parse_template_unclosed_directive_is_a_diagnostic() -> None:
    with pytest.raises(DiagnosticsError) as ei:
        parse_template("a\n%{ if true }\nb\n", "t.tpl")
    d = ei.value.diagnostics[0]
    assert d.summary == "Unexpected end of template"
    assert "The if directive at t.tpl:2,1-13 is missing its corresponding endif directive." == d.detail

"""engine/hcl.py: native HCL into blocks, attributes and expression trees (.tf.json: test_hcljson.py).

Values of expressions are checked by evaluating them in an empty scope; the
expected results are what ``terraform console`` (1.11.4) prints for the
same source.
"""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from engine.config.constants import _NoResources
from engine.diagnostics import DiagnosticsError
from engine.lang import expr as E
from engine.lang.evaluate import Scope, evaluate
from engine.lang.hcl import parse_expression, parse_hcl


def hcl(src: str, filename: str = "main.tf"):
    return parse_hcl(textwrap.dedent(src), filename)


def expr_of(src: str) -> E.Expr:
    """The expression tree of ``src`` as the value of an attribute."""
    blocks = parse_hcl(f"locals {{\n  x = {src}\n}}\n", "main.tf")
    return blocks[0].attributes["x"].expr


def value_of(src: str) -> Any:
    return evaluate(expr_of(src), Scope({}, lambda name, line: None, _NoResources()))


def heredoc_value(body: str) -> Any:
    """Value of ``x`` in a locals block whose source is ``body`` (dedented)."""
    blocks = parse_hcl("locals {\n" + textwrap.dedent(body) + "}\n", "main.tf")
    return evaluate(blocks[0].attributes["x"].expr, Scope({}, lambda name, line: None, _NoResources()))


def syntax_error(src: str, filename: str = "main.tf"):
    with pytest.raises(DiagnosticsError) as ei:
        parse_hcl(textwrap.dedent(src), filename)
    return ei.value.diagnostics


# --------------------------------------------------------------------------- blocks and attributes

CONFIG = """\
# a comment
variable "env" {
  default = "dev"
}

/* a block
   comment */
resource "terraform_data" "net" {
  input = "x" // trailing comment

  lifecycle {
    create_before_destroy = true
  }
}
locals {
  a = 1
  b = 2
}
"""


def test_parse_hcl_returns_top_level_blocks_in_order():
    blocks = parse_hcl(CONFIG, "main.tf")
    assert [(b.type, b.labels) for b in blocks] == [
        ("variable", ("env",)), ("resource", ("terraform_data", "net")), ("locals", ())]


def test_block_range_is_the_line_of_its_header():
    blocks = parse_hcl(CONFIG, "main.tf")
    assert [b.range.line for b in blocks] == [2, 8, 15], "block lines must count comments and blank lines"


def test_block_range_names_the_file():
    blocks = parse_hcl(CONFIG, "net.tf")
    assert all(b.range.filename == "net.tf" for b in blocks)


def test_attribute_range_is_its_own_line():
    res = parse_hcl(CONFIG, "main.tf")[1]
    assert res.attributes["input"].range.line == 9


def test_nested_block_is_parsed_with_its_line():
    res = parse_hcl(CONFIG, "main.tf")[1]
    (lc,) = res.blocks
    assert (lc.type, lc.labels, lc.range.line) == ("lifecycle", (), 11)
    assert lc.attributes["create_before_destroy"].range.line == 12


def test_locals_attributes_each_have_their_line():
    loc = parse_hcl(CONFIG, "main.tf")[2]
    assert {k: a.range.line for k, a in loc.attributes.items()} == {"a": 16, "b": 17}


def test_block_without_body_content_has_no_attributes():
    (b,) = hcl('variable "v" {}\n')
    assert b.attributes == {} and b.blocks == []


def test_single_line_block_is_parsed():
    blocks = hcl('resource "x" "a" {}\nresource "y" "b" {}\n')
    assert [(b.labels, b.range.line) for b in blocks] == [(("x", "a"), 1), (("y", "b"), 2)]


def test_file_without_final_newline_is_accepted():
    (b,) = parse_hcl('locals {\n  a = 1\n}', "main.tf")
    assert "a" in b.attributes


def test_expression_lines_follow_multi_line_constructs():
    (b,) = hcl("""\
        locals {
          a = [
            1,
            var.x,
          ]
          l = (1 +
            var.y)
        }
        """)
    refs_a = [(r.root, r.step_name(0), r.line) for r in E.references(b.attributes["a"].expr)]
    refs_l = [(r.root, r.step_name(0), r.line) for r in E.references(b.attributes["l"].expr)]
    assert refs_a == [("var", "x", 4)], "a reference must carry the line it is written on"
    assert refs_l == [("var", "y", 7)]


# --------------------------------------------------------------------------- syntax errors


def test_unclosed_block_is_a_diagnostic_with_file_and_line():
    (d,) = syntax_error('resource "a" "b" {\n  x = 1\n', "net.tf")
    assert d.severity == "error"
    assert d.subject is not None and d.subject.filename == "net.tf"
    assert "net.tf:" in str(d), f"the rendered diagnostic must name file:line, got {str(d)!r}"


def test_unclosed_block_points_at_the_opening_brace():
    # terraform 1.11.4 reports "Unclosed configuration block" on the line of the unclosed "{"
    (d,) = syntax_error('locals {\n  a = 1\n}\nresource "terraform_data" "b" {\n  input = "x"\n')
    assert (d.summary, str(d.subject)) == ("Unclosed configuration block", "main.tf:4")


def test_unexpected_token_names_its_line():
    (d,) = syntax_error("locals {\n  a = 1\n  b = = 2\n}\n")
    assert str(d.subject) == "main.tf:3", f"the error is on line 3, diagnostic says {d.subject}"


def test_missing_equals_names_its_line():
    (d,) = syntax_error("locals {\n  a 1\n}\n")
    assert str(d.subject) == "main.tf:2"


def test_extra_closing_brace_names_its_line():
    (d,) = syntax_error("locals {\n  a = 1\n}\n}\n")
    assert str(d.subject) == "main.tf:4"


def test_attribute_set_twice_is_an_error_on_the_second_line():
    (d,) = syntax_error('resource "t" "n" {\n  x = 1\n  x = 2\n}\n')
    assert d.summary == "Attribute redefined"
    assert str(d.subject) == "main.tf:3"


def test_top_level_attribute_is_an_error():
    (d,) = syntax_error("x = 1\nlocals {}\n")
    assert d.summary == "Unsupported argument" and str(d.subject) == "main.tf:1"


def test_interpolation_in_block_label_is_an_error():
    (d,) = syntax_error('resource "a${1}" "b" {\n}\n')
    assert d.summary == "Invalid block label" and str(d.subject) == "main.tf:1"


def test_unmatched_template_directive_is_reported_at_its_line():
    # terraform 1.11: "Unexpected endif directive" on the endif's own line, naming the open for
    (d,) = syntax_error('locals {\n  a = 1\n  b = <<EOT\n%{ for x in [1] }\n${x}\n%{ endif }\nEOT\n}\n')
    assert (d.summary, str(d.subject)) == ("Unexpected endif directive", "main.tf:6")
    assert d.detail == "Expecting an endfor directive corresponding to the for directive at main.tf:4,1-18."


def test_parse_expression_error_names_the_given_line():
    with pytest.raises(DiagnosticsError) as ei:
        parse_expression("1 +", "vars.tf", 7)
    assert str(ei.value.diagnostics[0].subject) == "vars.tf:7"


# --------------------------------------------------------------------------- templates


def test_plain_string_is_a_literal():
    assert expr_of('"abc"') == E.Literal(2, "abc")


def test_interpolation_alone_yields_the_expression_itself():
    e = expr_of('"${var.a}"')
    assert isinstance(e, E.GetAttr), f'"${{var.a}}" must be var.a unconverted, not a template; got {e!r}'


def test_interpolation_alone_keeps_the_value_type():
    assert value_of('"${[1, 2]}"') == (1, 2), '"${[1,2]}" is the tuple itself in terraform'


def test_interpolation_alone_of_null_is_null():
    assert value_of('"${null}"') is None


def test_interpolation_with_text_is_a_template():
    e = expr_of('"pre-${var.a}-post"')
    assert isinstance(e, E.Template)
    assert e.parts[0] == "pre-" and e.parts[2] == "-post" and isinstance(e.parts[1], E.GetAttr)


def test_template_converts_values_to_strings():
    assert value_of('"a${1 + 1}b${true}"') == "a2btrue"


def test_adjacent_interpolations_concatenate():
    assert value_of('"${"a"}${1}"') == "a1"


def test_nested_template_in_interpolation():
    assert value_of('"${"${1}"}"') == 1


def test_closing_brace_inside_nested_string_does_not_end_interpolation():
    assert value_of('"${{a="}"}.a}"') == "}"


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        (r'"a\nb"', "a\nb"),
        (r'"tab\there"', "tab\there"),
        (r'"\"q\""', '"q"'),
        (r'"a\\b"', "a\\b"),
        (r'"\u00e9"', "é"),
        (r'"\U0001F600"', "\U0001F600"),
        (r'"$${x}"', "${x}"),
        (r'"%%{y}"', "%{y}"),
        (r'"$$"', "$$"),
        (r'"a$b"', "a$b"),
        (r'"%"', "%"),
    ],
    ids=repr,
)
def test_string_escapes(src, expected):
    got = value_of(src)
    assert got == expected, f"{src} should be {expected!r}, got {got!r}"


def test_newline_inside_interpolation_is_allowed():
    # terraform accepts a line break inside ${ } of a quoted string
    try:
        (b,) = parse_hcl('locals {\n  d = "${\n  upper("w")}"\n}\n', "main.tf")
    except DiagnosticsError as exc:
        pytest.fail(f'"${{<newline> upper("w")}}" is "W" in terraform; strata: {exc}')
    assert evaluate(b.attributes["d"].expr, Scope({}, lambda name, line: None, _NoResources())) == "W"


# --------------------------------------------------------------------------- heredocs


def test_heredoc_keeps_indentation_and_final_newline():
    assert heredoc_value("""\
        x = <<EOT
        hello
          world
        EOT
        """) == "hello\n  world\n"


def test_heredoc_closing_marker_may_be_indented():
    assert heredoc_value("""\
        x = <<EOT
        no trailing
          EOT
        """) == "no trailing\n"


def test_indented_heredoc_trims_common_leading_whitespace():
    assert heredoc_value("""\
        x = <<-EOT
            hello
              world
            EOT
        """) == "hello\n  world\n"


def test_indented_heredoc_keeps_leading_blank_line():
    assert heredoc_value("""\
        x = <<-EOT

            blank first
            EOT
        """) == "\nblank first\n"


def test_heredoc_interpolates():
    assert heredoc_value("""\
        x = <<-EOT
            a ${"x"}
            b
          EOT
        """) == "a x\nb\n"


def test_heredoc_interpolation_keeps_template_indentation():
    assert heredoc_value('x = <<EOT\n  ${1 + 1}\nEOT\n') == "  2\n"


def test_heredoc_escapes_template_sequences():
    assert heredoc_value('x = <<EOT\n$${literal} %%{x}\nEOT\n') == "${literal} %{x}\n"


def test_heredoc_interpolation_carries_its_own_line():
    (b,) = parse_hcl("locals {\n  b = <<EOT\nline one\n${var.y}\nEOT\n}\n", "main.tf")
    (ref,) = list(E.references(b.attributes["b"].expr))
    assert ref.line == 4, f"${{var.y}} is on line 4 of the file, reference says {ref.line}"


# --------------------------------------------------------------------------- operators and precedence


def test_multiplication_binds_tighter_than_addition():
    e = expr_of("1 + 2 * 3")
    assert isinstance(e, E.Binary) and e.op == "+" and isinstance(e.right, E.Binary) and e.right.op == "*"


def test_and_binds_tighter_than_or():
    e = expr_of("a || b && c")
    assert e.op == "||" and e.right.op == "&&"


def test_unary_not_binds_tighter_than_comparison():
    e = expr_of("!a == b")
    assert e.op == "==" and isinstance(e.left, E.Unary) and e.left.op == "!"


def test_subtraction_is_left_associative():
    e = expr_of("10 - 3 - 2")
    assert e.op == "-" and isinstance(e.left, E.Binary) and e.left.op == "-"
    assert value_of("10 - 3 - 2") == 5


def test_parentheses_override_precedence():
    assert value_of("(1 + 2) * 3") == 9


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ("1 + 2 * 3 - 4 / 2", 5),
        ("2 * 3 % 4", 2),
        ("2 * 3 + 4 * 5", 26),
        ("1 < 2 == true", True),
        ("!false && true", True),
        ("!true || true", True),
        ("-2 + 3", 1),
        ("-1 - -1", 0),
        ("true || false && false", True),
        ("1 + 2 > 2 && 3 < 4", True),
        ("16 / 4 / 2", 2),
    ],
    ids=repr,
)
def test_operator_precedence_matches_terraform(src, expected):
    assert value_of(src) == expected, f"{src} is {expected!r} in terraform"


def test_conditional_is_parsed():
    e = expr_of("a ? b : c")
    assert isinstance(e, E.Conditional)
    assert (e.cond.name, e.true.name, e.false.name) == ("a", "b", "c")


def test_nested_conditional_associates_to_the_right():
    e = expr_of("a ? b : c ? d : e")
    assert isinstance(e.false, E.Conditional)
    assert value_of("true ? 1 : false ? 2 : 3") == 1


# --------------------------------------------------------------------------- for expressions


def test_tuple_for_with_key_value_and_condition():
    e = expr_of('[for k, v in m : v if k != ""]')
    assert isinstance(e, E.ForExpr)
    assert (e.key_var, e.value_var, e.key, e.grouping) == ("k", "v", None, False)
    assert isinstance(e.cond, E.Binary)


def test_object_for_with_grouping():
    e = expr_of("{for k, v in m : v => k...}")
    assert isinstance(e.key, E.Var) and e.key.name == "v"
    assert e.grouping is True


def test_for_expression_values():
    assert value_of('[for i, v in ["a", "b"] : "${i}=${v}" if v != "a"]') == ("1=b",)
    assert value_of('{for k, v in {x = 1} : upper(k) => v * 10}') == {"X": 10}


def test_for_variables_are_not_references():
    refs = [r.root for r in E.references(expr_of("[for x in var.s : x.t]"))]
    assert refs == ["var"], f"x is bound by the for expression; references were {refs}"


# --------------------------------------------------------------------------- splats and indexes


def test_full_splat_applies_the_rest_to_each_element():
    e = expr_of("a[*].b")
    assert isinstance(e, E.Splat) and isinstance(e.each, E.GetAttr) and isinstance(e.each.obj, E.SplatItem)


def test_full_splat_includes_index_steps():
    assert value_of("[{a = [1, 2]}, {a = [3, 4]}][*].a[0]") == (1, 3)


def test_attribute_splat_value():
    assert value_of("[{a = {b = 1}}, {a = {b = 2}}].*.a.b") == (1, 2)


def test_attribute_splat_stops_at_an_index():
    # HCL: an attribute-only splat (.*) takes only attribute steps; a following [0] indexes the result
    got = value_of("[{a = [1, 2]}, {a = [3, 4]}].*.a[0]")
    assert got == (1, 2), f"[...].*.a[0] is [1, 2] in terraform (index applies to the result), got {got!r}"


def test_index_and_legacy_dot_index():
    assert isinstance(expr_of("a.0"), E.Index)
    assert value_of("[[1, 2]].0") == (1, 2)
    assert value_of('{a = {b = [10, 20]}}.a.b[1]') == 20


# --------------------------------------------------------------------------- function calls


def test_function_call_arguments():
    e = expr_of('format("%s", 1)')
    assert isinstance(e, E.Call) and e.name == "format" and len(e.args) == 2 and not e.expand_final


def test_function_call_with_expansion():
    e = expr_of("max([3, 1]...)")
    assert e.expand_final is True
    assert value_of("max([3, 1]...)") == 3


def test_expansion_after_leading_arguments():
    assert value_of('format("%s-%s", ["a", "b"]...)') == "a-b"


def test_provider_namespaced_function_name():
    assert expr_of("provider::ns::f(1)").name == "provider::ns::f"


# --------------------------------------------------------------------------- collections and literals


def test_object_keys_may_be_identifiers_strings_or_expressions():
    got = value_of('{"a b" = 1, c = 2, "${"d"}" = 3, (upper("e")) = 4}')
    assert got == {"a b": 1, "c": 2, "d": 3, "E": 4}


def test_multi_line_collections_with_trailing_commas():
    assert heredoc_value("x = [\n  1,\n  2,\n]\n") == (1, 2)
    assert heredoc_value("x = {\n  a = 1\n  b = 2,\n  c = 3\n}\n") == {"a": 1, "b": 2, "c": 3}


def test_number_literals():
    assert value_of("007") == 7
    assert value_of("1.5e2") == 150


def test_bool_and_null_literals():
    assert expr_of("true") == E.Literal(2, True)
    assert expr_of("null") == E.Literal(2, None)


# --------------------------------------------------------------------------- parse_expression


def test_parse_expression_moves_lines_to_the_given_line():
    e = parse_expression("var.a + var.b", "x.tf", 5)
    assert {r.line for r in E.references(e)} == {5}


def test_a_block_knows_its_last_line_and_its_header_as_terraform_names_it() -> None:
    blocks = parse_hcl(textwrap.dedent('''\
        resource "terraform_data" "x" {
          input = "a"
          lifecycle {
            ignore_changes = [input]
          }
        }

        locals {
          v = "${
            1 + 1
          }"
        }
        output "say \\"hi\\"" { value = 1 }
        '''), "main.tf")
    assert [(b.range.line, b.end_line, b.context()) for b in blocks] == [
        (1, 6, 'resource "terraform_data" "x"'),
        (8, 12, "locals"),  # a line break inside ${ } (parsed joined) still counts
        (13, 13, 'output "say \\"hi\\""'),
    ]
    assert blocks[0].blocks[0].end_line == 5

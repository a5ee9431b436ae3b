"""terraform's own provider functions, ``provider::terraform::encode_tfvars``, ``decode_tfvars``
and ``encode_expr``: callable once the module declares ``terraform.io/builtin/terraform`` in its
required_providers (as terraform requires), with terraform's text, layout and errors."""

from __future__ import annotations

import orjson
import pytest

from tests.conftest import Workdir, requires_terraform

DECLARED = """
terraform {
  required_providers {
    terraform = { source = "terraform.io/builtin/terraform" }
  }
}
"""

# output name -> expression; values recorded from terraform 1.11's `output -json`
VALUES = {
    "tfvars": ('provider::terraform::encode_tfvars({ b = "x", a = 1, long_name = [1, "two", true], '
               "m = { k = null } })",
               'a         = 1\nb         = "x"\nlong_name = [1, "two", true]\nm = {\n  k = null\n}\n'),
    "tfvars_map": ('provider::terraform::encode_tfvars(tomap({ z = "1", a = "2" }))', 'a = "2"\nz = "1"\n'),
    "tfvars_empty": ("provider::terraform::encode_tfvars({})", ""),
    "tfvars_keyword": ("provider::terraform::encode_tfvars({ a = { b = 1, cc = 2 }, \"for\" = 1 })",
                       "a = {\n  b  = 1\n  cc = 2\n}\nfor = 1\n"),
    "expr_object": ('provider::terraform::encode_expr({ "a b" = 1, "1x" = 2, c = 3, "for" = 4, "x-y" = 5 })',
                    '{\n  "1x"  = 2\n  "a b" = 1\n  c     = 3\n  for   = 4\n  x-y   = 5\n}'),
    "expr_nested": ("provider::terraform::encode_expr([{ a = 1 }, { b = [1, { c = 2 }] }])",
                    "[{\n  a = 1\n  }, {\n  b = [1, {\n    c = 2\n  }]\n}]"),
    "expr_string": ('provider::terraform::encode_expr("a\\nb\\"c$${x}%%{y}\\t\\u0001é\\\\ $ %\\u00a0\\U0001F600")',
                    '"a\\nb\\"c$${x}%%{y}\\t\\u0001é\\\\ $ %\\u00a0😀"'),
    "expr_numbers": ("provider::terraform::encode_expr([1.5, 12345678901234567890123, 0.1, 1e30, -3])",
                     "[1.5, 12345678901234567890123, 0.1, 1000000000000000000000000000000, -3]"),
    "expr_set": ('provider::terraform::encode_expr(toset(["b", "a"]))', '["a", "b"]'),
    "expr_empty": ("provider::terraform::encode_expr([[], {}, tomap({}), tolist([]), true, null])",
                   "[[], {}, {}, [], true, null]"),
    "expr_empty_object": ("provider::terraform::encode_expr({ a = {} })", "{\n  a = {}\n}"),
}

DECODED = 'provider::terraform::decode_tfvars("a = [1, \\"x\\"]\\nb = {c = true}\\nd = null\\ne = \\"$${1+1}\\"")'


def _config() -> str:
    outputs = "".join(f'output "{name}" {{\n  value = {expr}\n}}\n' for name, (expr, _) in VALUES.items())
    return DECLARED + outputs + f'output "decoded" {{\n  value = {DECODED}\n}}\n'


def _outputs(workdir: Workdir) -> dict:
    workdir.strata("init", check=True)
    workdir.strata("apply", "-auto-approve", check=True)
    return orjson.loads(workdir.strata("output", "-json", check=True).stdout)


def test_encoders_write_what_terraform_writes(workdir: Workdir) -> None:
    workdir.write(_config())
    got = _outputs(workdir)
    for name, (_, want) in VALUES.items():
        assert got[name] == {"sensitive": False, "type": "string", "value": want}, name


def test_decode_tfvars_gives_an_object_of_the_constants(workdir: Workdir) -> None:
    workdir.write(_config())
    got = _outputs(workdir)["decoded"]
    assert got["value"] == {"a": [1, "x"], "b": {"c": True}, "d": None, "e": 2}
    assert got["type"] == ["object", {"a": ["tuple", ["number", "string"]], "b": ["object", {"c": "bool"}],
                                      "d": "dynamic", "e": "number"}]


@requires_terraform
def test_outputs_match_terraform(workdir: Workdir) -> None:
    workdir.write(_config())
    ours = _outputs(workdir)
    assert workdir.terraform("apply", "-auto-approve", "-no-color").returncode == 0
    theirs = orjson.loads(workdir.terraform("output", "-json").stdout)
    assert ours == theirs


ERRORS = [
    ('provider::terraform::encode_tfvars("x")', "Error in function call",
     'Call to function "provider::terraform::encode_tfvars" failed: invalid value to encode: must be an object '
     "whose attribute names will become the encoded variable names."),
    ('provider::terraform::encode_tfvars({"a b" = 1})', "Error in function call",
     'Call to function "provider::terraform::encode_tfvars" failed: invalid variable name "a b": must be a valid '
     "identifier, per Terraform's rules for input variable declarations."),
    ("provider::terraform::encode_expr(null)", "Invalid function argument",
     'Invalid value for "value" parameter: argument must not be null.'),
    ("provider::terraform::decode_tfvars(null)", "Invalid function argument",
     'Invalid value for "src" parameter: argument must not be null.'),
    ('provider::terraform::decode_tfvars("a = ")', "Error in function call",
     'Call to function "provider::terraform::decode_tfvars" failed: invalid tfvars syntax: <decode_tfvars '
     "argument>:1,5-5: Missing expression; Expected the start of an expression, but found the end of the file.."),
    ('provider::terraform::decode_tfvars("a = foo")', "Error in function call",
     'Call to function "provider::terraform::decode_tfvars" failed: invalid expression for variable "a": '
     "<decode_tfvars argument>:1,5-8: Variables not allowed; Variables may not be used here.."),
    ('provider::terraform::decode_tfvars("a = upper(\\"x\\")")', "Error in function call",
     'Call to function "provider::terraform::decode_tfvars" failed: invalid expression for variable "a": '
     "<decode_tfvars argument>:1,5-15: Function calls not allowed; Functions may not be called here.."),
    ('provider::terraform::decode_tfvars("a { }")', "Error in function call",
     'Call to function "provider::terraform::decode_tfvars" failed: invalid tfvars content: <decode_tfvars '
     'argument>:1,1-2: Unexpected "a" block; Blocks are not allowed here..'),
    ("provider::terraform::encode_expr(1, 2)", "Too many function arguments",
     'Function "provider::terraform::encode_expr" expects only 1 argument(s).'),
    ("provider::terraform::nope(1)", "Unknown provider function",
     'The function "nope" is not available from the provider "terraform".'),
]


def _flat(text: str) -> str:
    return " ".join(text.replace("│", " ").split())


@pytest.mark.parametrize(("expr", "summary", "detail"), ERRORS, ids=[e[0][21:40] for e in ERRORS])
def test_errors_in_terraforms_words(workdir: Workdir, expr: str, summary: str, detail: str) -> None:
    workdir.write(DECLARED + f'output "x" {{\n  value = {expr}\n}}\n')
    workdir.strata("init", check=True)
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1
    assert f"Error: {summary}" in res.stderr
    assert " ".join(detail.split()) in _flat(res.stderr), res.stderr


def test_undeclared_provider_offers_no_functions(workdir: Workdir) -> None:
    # terraform 1.11 too: the built-in provider's functions need it in required_providers
    workdir.write('output "x" {\n  value = provider::terraform::encode_expr(1)\n}\n')
    workdir.strata("init", check=True)
    res = workdir.strata("validate", "-no-color")
    assert res.returncode == 1
    assert 'There is no function named "provider::terraform::encode_expr". Ensure that provider name ' \
           '"terraform" is declared in this module\'s required_providers block' in _flat(res.stderr)


def test_unknown_argument_gives_an_unknown_result(workdir: Workdir) -> None:
    workdir.write(DECLARED + """
resource "terraform_data" "d" {
  input = "x"
}
output "x" {
  value = provider::terraform::encode_expr(terraform_data.d.id)
}
""")
    workdir.strata("init", check=True)
    res = workdir.strata("plan", "-no-color", check=True)
    assert "+ x = (known after apply)" in res.stdout

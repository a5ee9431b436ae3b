"""``strata validate`` finds the type mistakes ``terraform validate`` finds from the declared types of
input variables (every variable an unknown of its type during validate): iteration over a string,
``count`` or ``for_each`` of a type they cannot take, an operand, index, attribute or function
argument of the wrong type, conditional results of no common type. Each case's diagnostics
(summary, detail, file, line, and the statements under the source line) are written here, so the
test checks strata alone; the same expectations are checked against terraform 1.11 when it is on
PATH. (terraform's walk reports in no fixed order: diagnostics are compared sorted.)"""

from __future__ import annotations

import orjson
import pytest

from tests.conftest import Workdir, requires_terraform

TOOLS = ["strata", pytest.param("terraform", marks=requires_terraform)]

Diag = tuple[str, str, str, int, tuple[tuple[str, str], ...]]


def _validate(workdir: Workdir, tool: str) -> tuple[int, list[Diag]]:
    if tool == "terraform":
        res = workdir.terraform("validate", "-json")
    else:
        res = workdir.strata("validate", "-json")
    doc = orjson.loads(res.stdout)
    out = []
    for d in doc["diagnostics"]:
        rng = d.get("range") or {}
        said = tuple((v["traversal"], v["statement"]) for v in (d.get("snippet") or {}).get("values") or ())
        out.append((d["summary"], d["detail"], rng.get("filename", ""), rng.get("start", {}).get("line", 0), said))
    return res.returncode, sorted(out)


def _var(name: str, ty: str, *extra: str) -> str:
    return f'variable "{name}" {{\n  type = {ty}\n' + "".join(f"  {x}\n" for x in extra) + "}\n"


S = _var("s", "string")
NOT_ITERABLE = "Iteration over non-iterable value"
FOR_EACH = ('The given "for_each" argument value is unsuitable: the "for_each" argument must be a map, or set of '
            "strings, and you have provided a value of type {}.")
PRIMITIVE = "Can't access attributes on a primitive-typed value (string)."

CASES: dict[str, tuple[str, list[Diag]]] = {
    "for_over_string": (S + 'locals {\n  l = [for x in var.s : x]\n}\n', [
        (NOT_ITERABLE, "A value of type string cannot be used as the collection in a 'for' expression.",
         "main.tf", 5, (("var.s", "is a string"),))]),
    "for_over_number_in_output": (_var("n", "number") + 'output "o" {\n  value = [for x in var.n : x]\n}\n', [
        (NOT_ITERABLE, "A value of type number cannot be used as the collection in a 'for' expression.",
         "main.tf", 5, (("var.n", "is a number"),))]),
    "for_over_string_in_resource": (S + 'resource "terraform_data" "a" {\n  input = [for x in var.s : x]\n}\n', [
        (NOT_ITERABLE, "A value of type string cannot be used as the collection in a 'for' expression.",
         "main.tf", 5, (("var.s", "is a string"),))]),
    "template_for_over_string": (S + 'locals {\n  x = "%{for c in var.s}${c}%{endfor}"\n}\n', [
        (NOT_ITERABLE, "A value of type string cannot be used as the collection in a 'for' expression.",
         "main.tf", 5, (("var.s", "is a string"),))]),
    "for_over_a_local_of_a_string": (S + 'locals {\n  y = upper(var.s)\n  x = [for c in local.y : c]\n}\n', [
        (NOT_ITERABLE, "A value of type string cannot be used as the collection in a 'for' expression.",
         "main.tf", 6, (("local.y", "is a string"),))]),
    "for_over_a_string_in_a_called_module": (
        'module "m" {\n  source = "./m"\n}\n',
        [(NOT_ITERABLE, "A value of type string cannot be used as the collection in a 'for' expression.",
          "m/main.tf", 6, (("var.s", "is a string"),))]),
    "for_each_string": (S + 'resource "terraform_data" "a" {\n  for_each = var.s\n}\n', [
        ("Invalid for_each argument", FOR_EACH.format("string"), "main.tf", 5, (("var.s", "is a string"),))]),
    "for_each_number": (_var("n", "number") + 'resource "terraform_data" "a" {\n  for_each = var.n\n}\n', [
        ("Invalid for_each argument", FOR_EACH.format("number"), "main.tf", 5, (("var.n", "is a number"),))]),
    "for_each_list_of_objects": (
        _var("l", "list(object({ name = string }))") + 'resource "terraform_data" "a" {\n  for_each = var.l\n}\n',
        [("Invalid for_each argument", FOR_EACH.format("list of object"), "main.tf", 5,
          (("var.l", "is a list of object"),))]),
    "for_each_list_of_strings": (
        _var("l", "list(string)") + 'resource "terraform_data" "a" {\n  for_each = var.l\n}\n',
        [("Invalid for_each argument", FOR_EACH.format("list of string"), "main.tf", 5,
          (("var.l", "is a list of string"),))]),
    "count_list": (_var("l", "list(string)") + 'resource "terraform_data" "a" {\n  count = var.l\n}\n', [
        ("Incorrect value type", "Invalid expression value: number required.", "main.tf", 5,
         (("var.l", "is a list of string"),))]),
    "count_bool": (_var("b", "bool") + 'resource "terraform_data" "a" {\n  count = var.b\n}\n', [
        ("Incorrect value type", "Invalid expression value: number required.", "main.tf", 5,
         (("var.b", "is a bool"),))]),
    "bool_plus_number": (_var("n", "bool") + 'locals {\n  x = var.n + 1\n}\n', [
        ("Invalid operand", "Unsuitable value for left operand: number required.", "main.tf", 5,
         (("var.n", "is a bool"),))]),
    "number_plus_word": (_var("n", "number") + 'locals {\n  x = var.n + "x"\n}\n', [
        ("Invalid operand", "Unsuitable value for right operand: a number is required.", "main.tf", 5, ())]),
    "list_and_bool": (_var("l", "list(string)") + 'locals {\n  x = var.l && true\n}\n', [
        ("Invalid operand", "Unsuitable value for left operand: bool required.", "main.tf", 5,
         (("var.l", "is a list of string"),))]),
    "list_compared": (_var("l", "list(string)") + 'locals {\n  x = var.l < 3\n}\n', [
        ("Invalid operand", "Unsuitable value for left operand: number required.", "main.tf", 5,
         (("var.l", "is a list of string"),))]),
    "not_a_list": (_var("l", "list(string)") + 'locals {\n  x = !var.l\n}\n', [
        ("Invalid operand", "Unsuitable value for unary operand: bool required.", "main.tf", 5,
         (("var.l", "is a list of string"),))]),
    "attribute_of_a_string": (S + 'locals {\n  x = var.s.foo\n}\n', [
        ("Unsupported attribute", PRIMITIVE, "main.tf", 5, (("var.s", "is a string"),))]),
    "missing_object_attribute": (_var("o", "object({ a = string })") + 'locals {\n  x = var.o.b\n}\n', [
        ("Unsupported attribute", 'This object does not have an attribute named "b".', "main.tf", 5,
         (("var.o", "is a object"),))]),
    "attribute_of_a_list_of_objects": (
        _var("l", "list(object({ a = string }))") + 'locals {\n  x = var.l.a\n}\n',
        [("Unsupported attribute", "Can't access attributes on a list of objects. Did you mean to access attribute "
          '"a" for a specific element of the list, or across all elements of the list?', "main.tf", 5,
          (("var.l", "is a list of object"),))]),
    "attribute_of_a_list_of_strings": (
        _var("o", "object({ a = list(string) })") + 'locals {\n  y = var.o.a.z\n}\n',
        [("Unsupported attribute", "This value does not have any attributes.", "main.tf", 5,
          (("var.o.a", "is a list of string"),))]),
    "attribute_in_a_splat": (_var("l", "list(string)") + 'locals {\n  x = var.l[*].foo\n}\n', [
        ("Unsupported attribute", PRIMITIVE, "main.tf", 5, ())]),
    "index_of_a_string": (S + 'locals {\n  x = var.s[0]\n}\n', [
        ("Invalid index", "This value does not have any indices.", "main.tf", 5, (("var.s", "is a string"),))]),
    "word_index_of_a_list": (_var("l", "list(string)") + 'locals {\n  x = var.l["a"]\n}\n', [
        ("Invalid index", "The given key does not identify an element in this collection value: a number is "
         "required.", "main.tf", 5, (("var.l", "is a list of string"),))]),
    "index_past_a_tuple": (_var("t", "tuple([string])") + 'locals {\n  z = var.t[3]\n}\n', [
        ("Invalid index", "The given key does not identify an element in this collection value.", "main.tf", 5,
         (("var.t", "is a tuple"),))]),
    "length_of_a_number": (_var("n", "number") + 'locals {\n  x = length(var.n)\n}\n', [
        ("Error in function call", 'Call to function "length" failed: argument must be a string, a collection '
         "type, or a structural type.", "main.tf", 5, (("var.n", "is a number"),))]),
    "upper_of_a_list": (_var("l", "list(string)") + 'locals {\n  x = upper(var.l)\n}\n', [
        ("Invalid function argument", 'Invalid value for "str" parameter: string required.', "main.tf", 5,
         (("var.l", "is a list of string"),))]),
    "join_of_a_string": (S + 'locals {\n  x = join(",", var.s)\n}\n', [
        ("Invalid function argument", 'Invalid value for "lists" parameter: list of string required.', "main.tf",
         5, (("var.s", "is a string"),))]),
    "keys_of_a_string": (S + 'locals {\n  x = keys(var.s)\n}\n', [
        ("Invalid function argument", 'Invalid value for "inputMap" parameter: must have map or object type.',
         "main.tf", 5, (("var.s", "is a string"),))]),
    "conversions_and_collections_of_a_string": (
        S + _var("n", "number") + 'locals {\n  a = tolist(var.s)\n  b = toset(var.n)\n  d = concat(["a"], var.s)\n'
        '  e = merge(var.s)\n  i = element(var.s, 0)\n  l = sort(var.s)\n  m = reverse(var.s)\n  n = tostring([var.s])\n'
        '}\n',
        [("Error in function call", 'Call to function "element" failed: cannot read elements from string.',
          "main.tf", 12, (("var.s", "is a string"),)),
         ("Error in function call", 'Call to function "merge" failed: arguments must be maps or objects, got '
          '"string".', "main.tf", 11, (("var.s", "is a string"),)),
         ("Invalid function argument", 'Invalid value for "list" parameter: can only reverse list or tuple values, '
          "not string.", "main.tf", 14, (("var.s", "is a string"),)),
         ("Invalid function argument", 'Invalid value for "list" parameter: list of string required.', "main.tf",
          13, (("var.s", "is a string"),)),
         ("Invalid function argument", 'Invalid value for "seqs" parameter: all arguments must be lists or tuples; '
          "got string.", "main.tf", 10, (("var.s", "is a string"),)),
         ("Invalid function argument", 'Invalid value for "v" parameter: cannot convert tuple to string.', "main.tf",
          15, (("var.s", "is a string"),)),
         ("Invalid function argument", 'Invalid value for "v" parameter: cannot convert number to set of any single '
          "type.", "main.tf", 9, (("var.n", "is a number"),)),
         ("Invalid function argument", 'Invalid value for "v" parameter: cannot convert string to list of any '
          "single type.", "main.tf", 8, (("var.s", "is a string"),))]),
    "conditional_of_string_or_list": (
        _var("b", "bool") + S + _var("l", "list(string)") + 'locals {\n  x = var.b ? var.s : var.l\n}\n',
        [("Inconsistent conditional result types", "The true and false result expressions must have consistent "
          "types. The 'true' value is string, but the 'false' value is list of string.", "main.tf", 11,
          (("var.b", "is a bool"), ("var.l", "is a list of string"), ("var.s", "is a string")))]),
    "conditional_of_object_or_string_in_output": (
        S + _var("o", "object({a = string})") + 'output "x" {\n  value = var.s == "" ? var.o : var.s\n}\n',
        [("Inconsistent conditional result types", "The true and false result expressions must have consistent "
          "types. The 'true' value is object, but the 'false' value is string.", "main.tf", 8,
          (("var.o", "is a object"), ("var.s", "is a string")))]),
    "every_mistake_of_an_expression": (
        S + _var("l", "list(string)") + 'locals {\n  k = [var.s.x, var.l.y]\n}\n',
        [("Unsupported attribute", PRIMITIVE, "main.tf", 8, (("var.s", "is a string"),)),
         ("Unsupported attribute", "This value does not have any attributes.", "main.tf", 8,
          (("var.l", "is a list of string"),))]),
    "a_sensitive_variable_is_not_described": (
        _var("sec", "string", "sensitive = true") + 'locals {\n  w = [for c in var.sec : c]\n}\n',
        [(NOT_ITERABLE, "A value of type string cannot be used as the collection in a 'for' expression.",
          "main.tf", 6, ())]),
    "module_argument_and_precondition": (
        S + 'module "m" {\n  source = "./m"\n  x      = var.s.y\n}\n'
        'resource "terraform_data" "a" {\n  lifecycle {\n    precondition {\n      condition     = var.s.v\n'
        '      error_message = "x"\n    }\n  }\n}\n',
        [("Unsupported attribute", PRIMITIVE, "main.tf", 6, (("var.s", "is a string"),)),
         ("Unsupported attribute", PRIMITIVE, "main.tf", 11, (("var.s", "is a string"),))]),
    "into_a_resource_attribute_by_its_schema": (
        'resource "terraform_data" "a" {\n}\nresource "terraform_data" "c" {\n  count = 2\n}\nlocals {\n'
        '  x = terraform_data.a.id.foo\n  y = terraform_data.a.id[0]\n  z = terraform_data.c[0].id.bar\n'
        '  w = terraform_data.a.output.foo\n}\n',
        [("Invalid index", "This value does not have any indices.", "main.tf", 8, ()),
         ("Unsupported attribute", PRIMITIVE, "main.tf", 7, ()),
         ("Unsupported attribute", PRIMITIVE, "main.tf", 9, ())]),
    "module_count_and_for_each": (
        _var("l", "list(string)") + 'module "mm" {\n  source   = "./m"\n  for_each = var.l\n}\n'
        'module "mc" {\n  source = "./m"\n  count  = var.l\n}\nmodule "mt" {\n  source   = "./m"\n'
        '  for_each = ["a"]\n}\n',
        [("Incorrect value type", "Invalid expression value: number required.", "main.tf", 10,
          (("var.l", "is a list of string"),)),
         ("Invalid for_each argument", FOR_EACH.format("list of string"), "main.tf", 6,
          (("var.l", "is a list of string"),)),
         ("Invalid for_each argument", FOR_EACH.format("tuple"), "main.tf", 14, ())]),
    "variable_validation_and_count_index": (
        'variable "m" {\n  type = map(string)\n  validation {\n    condition     = var.m.x.y == ""\n'
        '    error_message = "x"\n  }\n}\nresource "terraform_data" "b" {\n  count = 2\n'
        '  input = count.index.foo\n}\n',
        [("Unsupported attribute", "Can't access attributes on a primitive-typed value (number).", "main.tf", 10,
          (("count.index", "is a number"),)),
         ("Unsupported attribute", PRIMITIVE, "main.tf", 4, (("var.m.x", "is a string"),))]),
}

CHILD = {
    "for_over_a_string_in_a_called_module": 'variable "s" {\n  type    = string\n  default = "x"\n}\n'
                                            'output "o" {\n  value = [for c in var.s : c]\n}\n',
    "module_argument_and_precondition": 'variable "x" {\n}\n',
    "module_count_and_for_each": "",
}


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("case", list(CASES))
def test_validate_reports_type_mistakes_as_terraform(workdir: Workdir, case: str, tool: str) -> None:
    config, expected = CASES[case]
    workdir.write(config)
    if case in CHILD:
        (workdir.path / "m").mkdir()
        workdir.write(CHILD[case], "m/main.tf")
        if tool == "strata":
            workdir.strata("init", check=True)
    code, found = _validate(workdir, tool)
    assert found == sorted(expected)
    assert code == 1


VALID = """
variable "enabled" {
  type    = bool
  default = true
}
variable "names" {
  type = list(string)
}
variable "tags" {
  type = map(string)
}
variable "settings" {
  type = object({
    a = optional(string, "x")
    b = optional(list(number), [])
    c = map(object({ port = number }))
  })
}
variable "subnets" {
  type = list(object({ name = string, cidr = string }))
}
variable "n" {
  type = number
}
variable "anything" {
  type = any
}
variable "untyped" {
}
variable "s" {
  type = string
}
variable "sets" {
  type = set(string)
}
variable "pair" {
  type = tuple([string, number])
}
locals {
  a  = var.enabled ? toset(var.names) : []
  b  = { for s in var.subnets : s.name => s.cidr }
  c  = [for k, v in var.tags : "${k}=${v}"]
  d  = var.settings.b[0] + 1
  e  = var.settings.c["x"].port
  f  = length(var.names) > 0 ? var.names[0] : ""
  g  = merge(var.tags, { Name = var.s })
  h  = join(",", var.names)
  i  = var.s == "" ? null : var.s
  j  = var.subnets[*].name
  k  = var.anything.foo.bar
  l  = lookup(var.tags, "x", "y")
  m  = var.n * 2 + length(var.s)
  o  = !var.enabled && var.n > 1
  p  = "${var.s}-${var.n}-${var.names}"
  r  = try(var.s.foo, "default")
  t  = can(var.s.foo)
  u  = element(var.names, 0)
  v  = format("%s-%d", var.s, var.n)
  x  = var.enabled ? var.tags : {}
  y  = var.enabled ? var.names : []
  z  = flatten([for s in var.subnets : [s.name]])
  ac = upper(var.n)
  ae = var.s + 1
  af = [for x in var.names : x.foo]
  ah = var.names[var.n]
  ai = var.tags[var.s]
  aj = length(var.settings)
  ak = var.enabled ? 1 : "x"
  am = [for x in var.sets : x]
  an = var.pair[1] + 1
  ap = var.enabled ? var.settings : null
  ar = var.enabled ? { a = var.s } : { a = "x" }
  as = var.enabled ? [var.s] : ["a", "b"]
  at = local.b["x"]
  av = "%{for n in var.names}${n}%{endfor}"
  ba = var.settings["nope"]
  bb = var.n == "3"
  be = var.enabled ? var.n : var.s
  bg = concat(var.names, ["x"])
  bk = var.tags.Name
  bl = var.names ? 1 : 2
  bm = [for c in var.untyped : c]
  bn = var.tags[0]
}
resource "terraform_data" "x" {
  for_each = var.tags
  input    = each.value
}
resource "terraform_data" "y" {
  count = var.enabled ? 1 : 0
  input = var.settings
}
resource "terraform_data" "w" {
  for_each = { for s in var.subnets : s.name => s }
  input    = each.value.cidr
}
resource "terraform_data" "v" {
  count = length(var.names)
  input = var.names[count.index]
}
resource "terraform_data" "u" {
  for_each = var.sets
}
resource "terraform_data" "t" {
  for_each = var.settings.c
  input    = each.value.port + 1
}
resource "terraform_data" "s" {
  count = var.s
}
resource "terraform_data" "r" {
  for_each = var.anything
  input    = [for c in terraform_data.s[0].id : c]
}
output "o" {
  value = { for k, v in terraform_data.x : k => v.id }
}
"""


@pytest.mark.parametrize("tool", TOOLS)
def test_what_the_declared_types_allow_passes_validate(workdir: Workdir, tool: str) -> None:
    # terraform's validate does not look into a for expression over an unknown, an object's
    # attribute by index, a template's unknown parts, an unknown condition's type, or a resource
    workdir.write(VALID)
    code, found = _validate(workdir, tool)
    assert found == []
    assert code == 0


@requires_terraform
def test_a_type_mistake_reads_as_terraforms(workdir: Workdir) -> None:
    workdir.write(_var("o", "object({ a = string })") + 'locals {\n  x = [for c in var.o.a : c]\n}\n')
    ours = workdir.strata("validate", "-no-color")
    theirs = workdir.terraform("validate", "-no-color")
    assert ours.returncode == theirs.returncode == 1
    assert ours.stderr.strip() == theirs.stderr.strip()


@pytest.mark.parametrize("tool", TOOLS)
def test_an_operand_fails_its_conversion_beside_an_unknown_at_plan(workdir: Workdir, tool: str) -> None:
    # hcl converts both operands before it looks at whether either is known
    workdir.write('resource "terraform_data" "a" {\n  input = 1\n}\n'
                  'output "o" {\n  value = terraform_data.a.output + "x"\n}\n')
    res = workdir.terraform("plan", "-no-color") if tool == "terraform" else workdir.strata("plan", "-no-color")
    assert res.returncode == 1
    said = " ".join(res.stderr.replace("\u2502", "").split())
    assert ('Error: Invalid operand on main.tf line 5, in output "o": 5: value = terraform_data.a.output + "x" '
            "Unsuitable value for right operand: a number is required.") in said

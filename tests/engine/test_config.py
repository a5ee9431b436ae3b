"""engine/config.py: load_module on temporary directories, and validate_references.

Every user mistake must be a diagnostic naming ``file:line``, collected
across all files before load_module raises.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from engine.addrs import ResourceAddr
from engine.config.model import NO_DEFAULT, Module
from engine.config.module import load_module
from engine.config.references import validate_references
from engine.diagnostics import DiagnosticsError
from engine.lang import expr as E


def write(d: Path, files: dict[str, str]) -> str:
    for name, text in files.items():
        (d / name).write_text(textwrap.dedent(text))
    return str(d)


def load(d: Path, files: dict[str, str]) -> Module:
    return load_module(write(d, files))


def diags(d: Path, files: dict[str, str]) -> list[tuple[str, str]]:
    """(summary, file:line) of every diagnostic load_module raises."""
    with pytest.raises(DiagnosticsError) as ei:
        m = load_module(write(d, files))
        pytest.fail(f"loading {files} must fail, got {m}")
    return [(x.summary, str(x.subject)) for x in ei.value.diagnostics]


TA = ResourceAddr("terraform_data", "a")
TB = ResourceAddr("terraform_data", "b")

GOOD = """\
variable "env" {
  default = "dev"
}
variable "req" {}
variable "l" {
  default     = ["a", "b"]
  description = "a list"
  sensitive   = true
}
locals {
  name = "x-${var.env}"
}
resource "terraform_data" "a" {
  count = 2
  input = local.name
}
resource "terraform_data" "b" {
  for_each   = toset(var.l)
  input      = each.value
  depends_on = [terraform_data.a[0], terraform_data.a]
  lifecycle {
    create_before_destroy = true
    prevent_destroy       = false
    ignore_changes        = [input]
  }
}
resource "terraform_data" "c" {
  provider = terraform
  lifecycle {
    ignore_changes = all
  }
}
output "o" {
  value     = terraform_data.a[*].id
  sensitive = true
}
"""


@pytest.fixture
def good(tmp_path: Path) -> Module:
    return load(tmp_path, {"main.tf": GOOD})


# --------------------------------------------------------------------------- resources


def test_resources_are_keyed_by_address(good):
    assert set(good.resources) == {TA, TB, ResourceAddr("terraform_data", "c")}


def test_resource_range_is_its_header_line(good):
    assert str(good.resources[TA].range) == "main.tf:13"


def test_count_is_kept_apart_from_attributes(good):
    rc = good.resources[TA]
    assert rc.count is not None and rc.count.expr == E.Literal(14, 2)
    assert "count" not in rc.attributes and set(rc.attributes) == {"input"}
    assert rc.expanded


def test_for_each_is_kept_apart_from_attributes(good):
    rc = good.resources[TB]
    assert isinstance(rc.for_each.expr, E.Call) and rc.for_each.expr.name == "toset"
    assert "for_each" not in rc.attributes


def test_depends_on_lists_whole_resources_and_instances(good):
    deps = good.resources[TB].depends_on
    assert [(a, k.value if k is not None else None, line) for a, k, line in deps] == [(TA, 0, 20), (TA, None, 20)]
    assert "depends_on" not in good.resources[TB].attributes


def test_lifecycle_settings(good):
    lc = good.resources[TB].lifecycle
    assert lc.create_before_destroy is True
    assert lc.prevent_destroy is False
    assert lc.ignore_changes == ((("attr", "input"),),)
    assert lc.ignore_all_changes is False


def test_lifecycle_ignore_changes_all(good):
    lc = good.resources[ResourceAddr("terraform_data", "c")].lifecycle
    assert lc.ignore_all_changes is True


def test_lifecycle_is_not_an_ordinary_block(good):
    assert good.resources[TB].blocks == (), "lifecycle must be consumed, not passed to the provider"


def test_provider_argument_names_the_provider(good):
    rc = good.resources[ResourceAddr("terraform_data", "c")]
    assert rc.provider_ref == "terraform" and rc.provider_name == "terraform"
    assert "provider" not in rc.attributes


def test_provider_name_defaults_to_type_prefix(good):
    assert good.resources[TA].provider_name == "terraform"


def test_unexpanded_resource(good):
    assert not good.resources[ResourceAddr("terraform_data", "c")].expanded


# --------------------------------------------------------------------------- variables, locals, outputs


def test_variable_default_is_evaluated(good):
    assert good.variables["env"].default == "dev"
    assert good.variables["l"].default == ("a", "b")


def test_variable_without_default_is_required(good):
    assert good.variables["req"].default is NO_DEFAULT


def test_variable_description_and_sensitive(good):
    v = good.variables["l"]
    assert v.description == "a list" and v.sensitive is True


def test_variable_range(good):
    assert str(good.variables["req"].range) == "main.tf:4"


def test_locals_keep_expression_and_line(good):
    lc = good.locals["name"]
    assert isinstance(lc.expr, E.Template) and str(lc.range) == "main.tf:11"


def test_outputs(good):
    oc = good.outputs["o"]
    assert isinstance(oc.expr, E.Splat) and oc.sensitive is True


def test_variable_default_must_be_constant(tmp_path):
    got = diags(tmp_path, {"main.tf": 'variable "v" {\n  default = var.w\n}\nvariable "w" {}\n'})
    assert len(got) == 1 and got[0][1] == "main.tf:2", f"a default referring to a variable is an error: {got}"


def test_output_needs_a_value(tmp_path):
    assert diags(tmp_path, {"main.tf": 'output "o" {\n  description = "x"\n}\n'}) == [
        ("Missing required argument", "main.tf:1")]


def test_sensitive_must_be_a_literal_bool(tmp_path):
    got = diags(tmp_path, {"main.tf": 'variable "v" {\n  sensitive = "yes"\n}\n'})
    assert got == [("Invalid value", "main.tf:2")]


# --------------------------------------------------------------------------- several files


def test_all_tf_and_tf_json_files_are_loaded(tmp_path):
    m = load(tmp_path, {
        "a.tf": 'resource "terraform_data" "a" {}\n',
        "b.tf.json": '{"resource": {"terraform_data": {"b": {"input": "${terraform_data.a.id}"}}}}',
        "notes.txt": "not configuration",
        ".hidden.tf": "this would not parse {",
    })
    assert set(m.resources) == {TA, TB}


def test_ranges_name_the_file_relative_to_the_directory(tmp_path):
    m = load(tmp_path, {"net.tf": '\nresource "terraform_data" "a" {}\n'})
    assert str(m.resources[TA].range) == "net.tf:2"


def test_empty_directory_is_a_diagnostic(tmp_path):
    with pytest.raises(DiagnosticsError) as ei:
        load_module(str(tmp_path))
    assert ei.value.diagnostics[0].summary == "No configuration files"


def test_diagnostics_from_every_file_are_collected(tmp_path):
    got = diags(tmp_path, {
        "a.tf": 'resource "terraform_data" "x" {\n  input = var.a\n}\n',
        "b.tf": 'output "o" {\n  value = local.b\n}\n',
    })
    assert got == [("Reference to undeclared input variable", "a.tf:2"),
                   ("Reference to undeclared local value", "b.tf:2")]


def test_syntax_error_in_one_file_does_not_hide_another(tmp_path):
    got = diags(tmp_path, {
        "a.tf": "locals {\n  a = = 1\n}\n",
        "b.tf": 'resource "terraform_data" "x" {}\nresource "terraform_data" "x" {}\n',
    })
    assert [where for _s, where in got] == ["a.tf:2", "b.tf:2"]


# --------------------------------------------------------------------------- duplicates


def test_duplicate_resource_names_the_second_declaration(tmp_path):
    got = diags(tmp_path, {"a.tf": 'resource "terraform_data" "x" {}\n',
                           "b.tf": '\n\nresource "terraform_data" "x" {}\n'})
    assert got == [('Duplicate resource "terraform_data" configuration', "b.tf:3")]


def test_duplicate_variable(tmp_path):
    assert diags(tmp_path, {"main.tf": 'variable "v" {}\nvariable "v" {}\n'}) == [
        ("Duplicate variable declaration", "main.tf:2")]


def test_duplicate_local_across_blocks(tmp_path):
    assert diags(tmp_path, {"main.tf": "locals {\n  a = 1\n}\nlocals {\n  a = 2\n}\n"}) == [
        ("Duplicate local value definition", "main.tf:5")]


def test_duplicate_output(tmp_path):
    assert diags(tmp_path, {"main.tf": 'output "o" {\n  value = 1\n}\noutput "o" {\n  value = 2\n}\n'}) == [
        ("Duplicate output definition", "main.tf:4")]


def test_count_and_for_each_together(tmp_path):
    got = diags(tmp_path, {"main.tf": 'resource "terraform_data" "x" {\n  count = 1\n  for_each = {}\n}\n'})
    assert got == [('Invalid combination of "count" and "for_each"', "main.tf:3")]


# --------------------------------------------------------------------------- unsupported constructs


def test_module_with_a_missing_local_source_is_a_diagnostic(tmp_path):
    got = diags(tmp_path, {"main.tf": '\nmodule "m" {\n  source = "./m"\n}\n'})
    assert got == [("Unreadable module directory", "main.tf:2")]


def test_module_with_a_registry_source_is_not_installed(tmp_path):
    got = diags(tmp_path, {"main.tf": '\nmodule "m" {\n  source = "hashicorp/consul/aws"\n}\n'})
    assert got == [("Module not installed", "main.tf:2")]


def test_remote_provisioner_is_refused_where_written(tmp_path):
    got = diags(tmp_path, {"main.tf": 'resource "terraform_data" "x" {\n  provisioner "remote-exec" {\n'
                                      '    inline = ["echo"]\n  }\n}\n'})
    assert got == [('Unsupported provisioner "remote-exec"', "main.tf:2")]


def test_data_source_takes_no_provisioner_or_connection(tmp_path):
    got = diags(tmp_path, {"main.tf": 'data "terraform_remote_state" "x" {\n  connection {\n  }\n'
                                      '  provisioner "local-exec" {\n    command = "echo"\n  }\n}\n'})
    assert got == [("Unsupported block type", "main.tf:2"), ("Unsupported block type", "main.tf:4")]


def test_unknown_top_level_block_type(tmp_path):
    assert diags(tmp_path, {"main.tf": 'foo "bar" {}\n'}) == [("Unsupported block type", "main.tf:1")]


def test_data_block_is_a_data_resource(tmp_path):
    # data sources became supported (commit 8f1f2b0): a data block is a resource in mode "data"
    m = load(tmp_path, {"main.tf": 'data "terraform_data" "d" {}\n'})
    assert ResourceAddr("terraform_data", "d", "data") in m.resources


def test_replace_triggered_by_is_decoded(tmp_path):
    m = load(tmp_path, {"main.tf": 'resource "terraform_data" "y" {}\nresource "terraform_data" "x" {\n'
                                   "  lifecycle {\n    replace_triggered_by = [terraform_data.y]\n  }\n}\n"})
    items = m.resources[TA.__class__("terraform_data", "x")].lifecycle.replace_triggered_by
    assert [i.line for i in items] == [4]


def test_replace_triggered_by_item_without_resource(tmp_path):
    got = diags(tmp_path, {"main.tf": 'resource "terraform_data" "x" {\n'
                                      "  lifecycle {\n    replace_triggered_by = [1]\n  }\n}\n"})
    assert got == [("Invalid replace_triggered_by expression", "main.tf:3")]


def test_unknown_lifecycle_argument(tmp_path):
    got = diags(tmp_path, {"main.tf": 'resource "terraform_data" "x" {\n  lifecycle {\n    foo = 1\n  }\n}\n'})
    assert got == [("Unsupported argument", "main.tf:3")]


def test_lifecycle_flags_must_be_literal(tmp_path):
    got = diags(tmp_path, {"main.tf": 'variable "x" {}\nresource "terraform_data" "x" {\n  lifecycle {\n'
                                      "    create_before_destroy = var.x\n  }\n}\n"})
    assert got == [("Invalid value", "main.tf:4")]


def test_ignore_changes_must_be_a_list_or_all(tmp_path):
    got = diags(tmp_path, {"main.tf": 'resource "terraform_data" "x" {\n  lifecycle {\n'
                                      '    ignore_changes = "input"\n  }\n}\n'})
    assert got == [("Invalid ignore_changes", "main.tf:3")]


def test_depends_on_attribute_reference_is_rejected(tmp_path):
    got = diags(tmp_path, {"main.tf": 'resource "terraform_data" "y" {}\nresource "terraform_data" "x" {\n'
                                      "  depends_on = [terraform_data.y.id]\n}\n"})
    assert got == [("Invalid depends_on reference", "main.tf:3")]


def test_depends_on_must_be_a_list(tmp_path):
    got = diags(tmp_path, {"main.tf": 'resource "terraform_data" "y" {}\nresource "terraform_data" "x" {\n'
                                      "  depends_on = terraform_data.y\n}\n"})
    assert got == [("Invalid depends_on", "main.tf:3")]


def test_resource_needs_two_labels(tmp_path):
    got = diags(tmp_path, {"main.tf": 'resource "terraform_data" {}\n'})
    assert got == [("Missing name for resource", "main.tf:1")]


# --------------------------------------------------------------------------- references


def test_undeclared_variable(tmp_path):
    assert diags(tmp_path, {"main.tf": 'resource "terraform_data" "x" {\n  input = var.nope\n}\n'}) == [
        ("Reference to undeclared input variable", "main.tf:2")]


def test_undeclared_local(tmp_path):
    assert diags(tmp_path, {"main.tf": 'output "o" {\n  value = local.nope\n}\n'}) == [
        ("Reference to undeclared local value", "main.tf:2")]


def test_undeclared_resource_in_local(tmp_path):
    assert diags(tmp_path, {"main.tf": "locals {\n  a = 1\n  b = terraform_data.nope.id\n}\n"}) == [
        ("Reference to undeclared resource", "main.tf:3")]


def test_undeclared_resource_in_depends_on(tmp_path):
    got = diags(tmp_path, {"main.tf": 'resource "terraform_data" "x" {\n  depends_on = [\n'
                                      "    terraform_data.nope,\n  ]\n}\n"})
    assert got == [("Reference to undeclared resource", "main.tf:3")]


def test_undeclared_data_resource(tmp_path):
    got = diags(tmp_path, {"main.tf": "output \"o\" {\n  value = data.terraform_data.nope.id\n}\n"})
    assert got == [("Reference to undeclared resource", "main.tf:2")]


def test_module_reference_is_undeclared(tmp_path):
    got = diags(tmp_path, {"main.tf": 'output "o" {\n  value = module.m.x\n}\n'})
    assert got == [("Reference to undeclared module", "main.tf:2")]


def test_reference_in_nested_block_is_checked(tmp_path):
    got = diags(tmp_path, {"main.tf": 'resource "terraform_data" "x" {\n  thing {\n    a = var.nope\n  }\n}\n'})
    assert got == [("Reference to undeclared input variable", "main.tf:3")]


def test_count_index_without_count(tmp_path):
    got = diags(tmp_path, {"main.tf": 'resource "terraform_data" "x" {\n  input = count.index\n}\n'})
    assert got == [('Reference to "count" in non-counted context', "main.tf:2")]


def test_count_index_inside_count_itself(tmp_path):
    got = diags(tmp_path, {"main.tf": 'resource "terraform_data" "x" {\n  count = count.index\n}\n'})
    assert got == [('Reference to "count" in non-counted context', "main.tf:2")]


def test_count_index_in_output(tmp_path):
    got = diags(tmp_path, {"main.tf": 'output "o" {\n  value = count.index\n}\n'})
    assert got == [('Reference to "count" in non-counted context', "main.tf:2")]


def test_each_in_counted_resource(tmp_path):
    got = diags(tmp_path, {"main.tf": 'resource "terraform_data" "x" {\n  count = 1\n  input = each.key\n}\n'})
    assert got == [('Reference to "each" in context without for_each', "main.tf:3")]


def test_each_inside_for_each_itself(tmp_path):
    got = diags(tmp_path, {"main.tf": 'resource "terraform_data" "x" {\n  for_each = each.value\n}\n'})
    assert got == [('Reference to "each" in context without for_each', "main.tf:2")]


def test_each_in_local(tmp_path):
    got = diags(tmp_path, {"main.tf": "locals {\n  a = each.key\n}\n"})
    assert got == [('Reference to "each" in context without for_each', "main.tf:2")]


def test_count_index_allowed_with_count(tmp_path):
    m = load(tmp_path, {"main.tf": 'resource "terraform_data" "x" {\n  count = 2\n  input = count.index\n}\n'})
    assert ResourceAddr("terraform_data", "x") in m.resources


def test_each_allowed_with_for_each(tmp_path):
    m = load(tmp_path, {"main.tf": 'resource "terraform_data" "x" {\n  for_each = {a = 1}\n'
                                   "  input = each.value\n}\n"})
    assert ResourceAddr("terraform_data", "x") in m.resources


def test_for_expression_variables_are_not_references(tmp_path):
    m = load(tmp_path, {"main.tf": 'locals {\n  a = [for var in [1] : var]\n}\n'})
    assert "a" in m.locals


def test_bare_resource_type_reference(tmp_path):
    got = diags(tmp_path, {"main.tf": "output \"o\" {\n  value = terraform_data\n}\n"})
    assert got == [("Invalid reference", "main.tf:2")]


def test_references_in_json_files_are_checked(tmp_path):
    got = diags(tmp_path, {"main.tf.json": '{\n  "output": {\n    "o": {\n      "value": "${var.nope}"\n'
                                           "    }\n  }\n}\n"})
    assert got == [("Reference to undeclared input variable", "main.tf.json:4")]


def test_validate_references_on_a_valid_module_is_empty(good):
    assert validate_references(good) == []


def test_a_remote_backend_is_refused_rather_than_ignored(tmp_path):
    (tmp_path / "main.tf").write_text('terraform {\n  backend "s3" {\n    bucket = "x"\n  }\n}\n')
    with pytest.raises(DiagnosticsError) as exc:
        load_module(str(tmp_path))
    assert "Unsupported backend" in str(exc.value) and "main.tf:2" in str(exc.value)


def test_errors_name_the_top_level_block_they_are_in(tmp_path: Path) -> None:
    d = write(tmp_path, {
        "main.tf": """\
            resource "terraform_data" "x" {
              input = var.nope
            }
            output "o" {
              value = local.missing
            }
            """,
        "other.tf.json": '{\n  "locals": {"b": "${var.nope2}"},\n  "output": {"p": {"value": "${var.x}"}}\n}',
        "one-line.tf.json": '{"locals": {"c": "${var.y}"}, "output": {"q": {"value": "${var.z}"}}}',
    })
    with pytest.raises(DiagnosticsError) as exc:
        load_module(d)
    got = {(x.subject.filename, x.subject.line): x.context for x in exc.value.diagnostics if x.subject}
    assert got == {("main.tf", 2): 'resource "terraform_data" "x"', ("main.tf", 5): 'output "o"',
                   # in JSON terraform names a block by its path, as below
                   ("other.tf.json", 2): "locals", ("other.tf.json", 3): "output.p",
                   # positions are lines: two blocks on one line are ambiguous, so no name at all
                   ("one-line.tf.json", 1): None}


def test_a_diagnostic_with_an_address_or_outside_any_block_gets_no_context(tmp_path: Path) -> None:
    from engine.diagnostics import SourceRange, error

    module = load_module(write(tmp_path, {"main.tf": 'resource "terraform_data" "x" {\n  input = 1\n}\n'}))
    inside, outside = SourceRange("main.tf", 2), SourceRange("main.tf", 9)
    diags = module.with_context([error("a", subject=inside), error("b", subject=inside, address="terraform_data.x"),
                                 error("c", subject=outside), error("d")])
    assert [x.context for x in diags] == ['resource "terraform_data" "x"', None, None, None]


@pytest.mark.parametrize(("spelled", "expected"), [
    ("string", "string"),
    ("number", "number"),
    ("list(string)", ["list", "string"]),
    ("object({a = number})", ["object", {"a": "number"}]),
])
def test_a_json_variable_s_type_is_an_expression_in_a_string(tmp_path: Path, spelled: str, expected: object) -> None:
    # {"type": "list(string)"}: the string holds the type expression, as terraform reads it
    m = load(tmp_path, {"main.tf.json": '{"variable": {"v": {"type": "' + spelled + '"}}}'})
    assert m.variables["v"].type == expected


def test_an_unknown_type_keyword_is_named(tmp_path: Path) -> None:
    got = diags(tmp_path, {"main.tf": 'variable "v" {\n  type = strin\n}\n'})
    assert got == [("Invalid type specification", "main.tf:2")], got


@pytest.mark.parametrize(("keyword", "expected"), [("list", ["list", "dynamic"]), ("map", ["map", "dynamic"]),
                                                  ("set", ["set", "dynamic"])])
def test_a_bare_collection_keyword_is_a_collection_of_any_type(tmp_path: Path, keyword: str, expected: object) -> None:
    # terraform still reads the pre-0.12 spelling "type = list" as list(any)
    m = load(tmp_path, {"main.tf": f'variable "v" {{\n  type = {keyword}\n}}\n'})
    assert m.variables["v"].type == expected

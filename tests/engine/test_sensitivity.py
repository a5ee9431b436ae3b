"""engine.sensitivity: terraform's sensitive marks, followed through references."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from engine.config.module import load_module
from engine.lang import expr as E
from engine.lang.sensitivity import Sensitivity

CONFIG = '''
variable "s" {
  default   = "x"
  sensitive = true
}
variable "p" {
  default = "y"
}
locals {
  direct   = var.s
  through  = "${local.direct}-z"
  plain    = var.p
  unmarked = nonsensitive(var.s)
  marked   = sensitive(var.p)
  inside   = [for x in [var.p] : x]
}
resource "terraform_data" "a" {
  input            = local.through
  triggers_replace = var.p
}
resource "terraform_data" "b" {
  input = terraform_data.a.input
}
resource "terraform_data" "c" {
  input = terraform_data.a.output
}
resource "terraform_data" "d" {
  input = terraform_data.a
}
'''


def _sensitivity(tmp_path: Path, schema: frozenset[str] = frozenset()) -> Sensitivity:
    (tmp_path / "main.tf").write_text(CONFIG)
    return Sensitivity(load_module(str(tmp_path)), lambda m, t, n: schema)


def test_variables_and_locals(tmp_path: Path) -> None:
    s = _sensitivity(tmp_path)
    assert s.variable("s") and not s.variable("p") and not s.variable("nope")
    assert s.local("direct") and s.local("through")  # through any number of locals
    assert not s.local("plain") and not s.local("inside")
    assert not s.local("unmarked")  # nonsensitive() removes the mark
    assert s.local("marked")  # sensitive() adds one


def test_resource_attributes_set_from_sensitive_values(tmp_path: Path) -> None:
    s = _sensitivity(tmp_path)
    assert s.attributes("managed", "terraform_data", "a") == {"input"}
    assert s.attributes("managed", "terraform_data", "b") == {"input"}  # from a's sensitive attribute
    assert s.attributes("managed", "terraform_data", "c") == frozenset()  # output: the provider's, unmarked
    assert s.attributes("managed", "terraform_data", "d") == {"input"}  # a whole resource with one inside


def test_the_schema_adds_to_the_configuration(tmp_path: Path) -> None:
    s = _sensitivity(tmp_path, schema=frozenset({"secret", "output"}))
    assert s.attributes("managed", "terraform_data", "c") == {"secret", "output", "input"}  # input = a.output


def test_references(tmp_path: Path) -> None:
    s = _sensitivity(tmp_path)
    assert s.reference("terraform_data", ("a", "input")) and not s.reference("terraform_data", ("a", "id"))
    assert s.reference("terraform_data", ("a",))  # as a whole, it holds a sensitive value
    assert not s.hidden("terraform_data", ("a",))  # but a diagnostic may state its shape
    assert not s.reference("each", ("value",)) and not s.reference("count", ("index",))


def test_what_an_expression_uses(tmp_path: Path) -> None:
    s = _sensitivity(tmp_path)
    v = E.GetAttr(1, E.Var(1, "var"), "s")
    assert s.uses(E.Call(1, "length", (v,)))
    assert not s.uses(E.Call(1, "nonsensitive", (v,)))
    assert s.uses(E.Call(1, "sensitive", (E.Literal(1, "x"),)))
    loop = E.ForExpr(1, None, "var", E.TupleExpr(1, ()), None, E.GetAttr(1, E.Var(1, "var"), "s"), None)
    assert not s.uses(loop)  # "var" is the for's own name there
    assert [type(x).__name__ for x in s.sources(E.Binary(1, "+", v, v))] == ["GetAttr", "GetAttr"]


def test_a_computed_instance_key_selects_the_attribute_past_it(tmp_path: Path) -> None:
    s = _sensitivity(tmp_path, schema=frozenset({"secret"}))
    count_index = E.GetAttr(1, E.Var(1, "count"), "index")
    instance = E.Index(1, E.GetAttr(1, E.Var(1, "terraform_data"), "a"), count_index)
    assert not s.uses(E.GetAttr(1, instance, "id"))  # a[count.index].id: id is not sensitive
    assert s.uses(E.GetAttr(1, instance, "secret"))
    assert s.uses(instance)  # the whole instance holds a sensitive attribute
    by_secret = E.Index(1, E.GetAttr(1, E.Var(1, "terraform_data"), "a"), E.GetAttr(1, E.Var(1, "var"), "s"))
    assert s.uses(E.GetAttr(1, by_secret, "id"))  # a sensitive key marks what it selects


def test_a_module_without_sensitive_values_is_quick_to_answer() -> None:
    module = SimpleNamespace(variables={}, locals={}, resources={})
    s = Sensitivity(module, lambda m, t, n: frozenset())
    assert s.attributes("managed", "t", "n") == frozenset()


def test_a_chain_deeper_than_python_s_recursion_limit(tmp_path: Path) -> None:
    blocks = ['variable "s" {\n  default   = "x"\n  sensitive = true\n}\n',
              'resource "terraform_data" "r0" {\n  input = var.s\n}\n']
    blocks += [f'resource "terraform_data" "r{i}" {{\n  input = terraform_data.r{i - 1}.input\n}}\n'
               for i in range(1, 2500)]
    (tmp_path / "main.tf").write_text("".join(blocks))
    s = Sensitivity(load_module(str(tmp_path)), lambda m, t, n: frozenset())
    assert s.attributes("managed", "terraform_data", "r2499") == {"input"}

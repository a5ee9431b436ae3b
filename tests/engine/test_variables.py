"""Variable values from defaults, TF_VAR_, terraform.tfvars, *.auto.tfvars, -var-file and -var."""

from __future__ import annotations

import textwrap
from pathlib import Path

from engine.config.module import load_module
from engine.config.variables import resolve
from engine.values import MapVal

CONFIG = """
variable "env" {}
variable "n" {
  type    = number
  default = 1
}
variable "tags" {
  type    = map(string)
  default = {}
}
"""


def _module(tmp_path: Path):
    (tmp_path / "main.tf").write_text(textwrap.dedent(CONFIG))
    return load_module(str(tmp_path))


def test_precedence_env_then_tfvars_then_auto_then_command_line(tmp_path: Path) -> None:
    m = _module(tmp_path)
    (tmp_path / "terraform.tfvars").write_text('env = "tfvars"\nn = 2\n')
    (tmp_path / "a.auto.tfvars").write_text("n = 3\n")
    (tmp_path / "extra.tfvars").write_text('env = "file"\n')
    values, diags = resolve(m, [("var-file", str(tmp_path / "extra.tfvars")), ("var", "n=4")],
                            env={"TF_VAR_env": "env"}, directory=str(tmp_path))
    assert not diags
    assert values["env"] == "file" and values["n"] == 4


def test_environment_variable_is_the_lowest_source(tmp_path: Path) -> None:
    values, diags = resolve(_module(tmp_path), [], env={"TF_VAR_env": "from-env"}, directory=str(tmp_path))
    assert not diags and values["env"] == "from-env" and values["n"] == 1


def test_tfvars_values_are_typed_not_strings(tmp_path: Path) -> None:
    m = _module(tmp_path)
    (tmp_path / "terraform.tfvars.json").write_text('{"env": "j", "tags": {"a": "b"}}')
    values, diags = resolve(m, [], env={}, directory=str(tmp_path))
    assert not diags and values["tags"] == MapVal({"a": "b"}) and isinstance(values["tags"], MapVal)


def test_command_line_structures_are_parsed_for_structured_types(tmp_path: Path) -> None:
    values, diags = resolve(_module(tmp_path), [("var", "env=x"), ("var", 'tags={a = "1"}')], env={},
                            directory=str(tmp_path))
    assert not diags and values["tags"] == MapVal({"a": "1"})


def test_wrong_type_in_a_file_names_the_file_and_line(tmp_path: Path) -> None:
    m = _module(tmp_path)
    (tmp_path / "bad.tfvars").write_text('env = "x"\n\nn = "many"\n')
    _values, diags = resolve(m, [("var-file", str(tmp_path / "bad.tfvars"))], env={}, directory=str(tmp_path))
    assert len(diags) == 1 and diags[0].subject is not None
    assert diags[0].subject.line == 3 and diags[0].subject.filename.endswith("bad.tfvars")


def test_missing_required_variable_is_reported(tmp_path: Path) -> None:
    _values, diags = resolve(_module(tmp_path), [], env={}, directory=str(tmp_path))
    assert [d.summary for d in diags] == ["No value for required variable"]


def test_missing_var_file_is_reported(tmp_path: Path) -> None:
    _values, diags = resolve(_module(tmp_path), [("var", "env=x"), ("var-file", str(tmp_path / "nope.tfvars"))],
                             env={}, directory=str(tmp_path))
    assert [d.summary for d in diags] == ["Failed to read variables file"]


def test_syntax_error_in_tfvars_points_at_its_line(tmp_path: Path) -> None:
    m = _module(tmp_path)
    (tmp_path / "terraform.tfvars").write_text('env = "x"\nn = = 2\n')
    _values, diags = resolve(m, [], env={}, directory=str(tmp_path))
    assert diags and diags[0].subject is not None and diags[0].subject.line == 2

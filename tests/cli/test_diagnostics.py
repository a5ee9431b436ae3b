"""Bad configurations and bad command lines: exit 1, a terraform-style diagnostic, never a traceback."""

from __future__ import annotations

import os
import re

import orjson
import pytest

from tests.conftest import Result, Workdir, requires_terraform


def lines(*rows: str) -> str:
    """A file's text, one argument per line, so line numbers are obvious: rows[0] is line 1."""
    return "\n".join(rows) + "\n"


def assert_no_traceback(res: Result) -> None:
    for stream, text in (("stdout", res.stdout), ("stderr", res.stderr)):
        assert "Traceback" not in text, f"a Python traceback leaked to {stream}:\n{text}"


def assert_failed(res: Result) -> None:
    assert_no_traceback(res)
    assert res.returncode == 1, (f"expected exit 1, got {res.returncode}\n"
                                 f"stdout:\n{res.stdout}\nstderr:\n{res.stderr}")
    assert "Error: " in res.stderr, f"no 'Error: <summary>' diagnostic on stderr:\n{res.stderr}"


def assert_located(res: Result, filename: str, line: int) -> None:
    """The diagnostic box says ``on FILE line N`` (optionally followed by ``, in ...:`` or ``:``)."""
    found = re.findall(r"on (\S+) line (\d+)", res.stderr)
    assert (filename, str(line)) in found, (
        f"expected the diagnostic to point at {filename} line {line}; it points at "
        f"{[f'{f} line {n}' for f, n in found] or 'no location'}\nstderr:\n{res.stderr}")


def plan(workdir: Workdir, text: str, *args: str, name: str = "main.tf") -> Result:
    workdir.write(text, name=name)
    return workdir.strata("plan", *args)


# ----------------------------------------------------------------------------- syntax

def test_missing_closing_brace_points_at_the_unclosed_block(workdir: Workdir) -> None:
    res = plan(workdir, lines(
        'resource "terraform_data" "a" {',
        '  input = "x"',
        '}',
        'resource "terraform_data" "b" {',   # line 4: never closed
        '  input = "y"',
        '',
    ))
    assert_failed(res)
    assert "Unclosed configuration block" in res.stderr or "brace" in res.stderr, res.stderr
    # terraform: 'on main.tf line 4, in resource "terraform_data" "b":' -- the block that is not closed,
    # not the end of the file where the parser noticed.
    assert_located(res, "main.tf", 4)


def test_missing_closing_brace_of_first_block_points_at_it(workdir: Workdir) -> None:
    res = plan(workdir, lines(
        'resource "terraform_data" "a" {',   # line 1: never closed; "b" parses as nested in it
        '  input = "x"',
        'resource "terraform_data" "b" {',
        '  input = "y"',
        '}',
    ))
    assert_failed(res)
    assert_located(res, "main.tf", 1)


# ----------------------------------------------------------------------------- references

def test_unknown_resource_reference_is_located(workdir: Workdir) -> None:
    res = plan(workdir, lines(
        'resource "terraform_data" "a" {',
        '  input = terraform_data.nope.id',
        '}',
    ))
    assert_failed(res)
    assert "Reference to undeclared resource" in res.stderr, res.stderr
    assert "nope" in res.stderr, f"the diagnostic should name the missing resource:\n{res.stderr}"
    assert_located(res, "main.tf", 2)


def test_undeclared_variable_is_located(workdir: Workdir) -> None:
    res = plan(workdir, lines(
        'resource "terraform_data" "a" {',
        '',
        '  input = var.nope',
        '}',
    ))
    assert_failed(res)
    assert "Reference to undeclared input variable" in res.stderr, res.stderr
    assert '"nope"' in res.stderr, f"the diagnostic should name the variable:\n{res.stderr}"
    assert_located(res, "main.tf", 3)


def test_cycle_names_both_resources(workdir: Workdir) -> None:
    res = plan(workdir, lines(
        'resource "terraform_data" "a" {',
        '  input = terraform_data.b.id',
        '}',
        'resource "terraform_data" "b" {',
        '  input = terraform_data.a.id',
        '}',
    ))
    assert_failed(res)
    assert "Cycle" in res.stderr, res.stderr
    for name in ("terraform_data.a", "terraform_data.b"):
        assert name in res.stderr, f"the cycle diagnostic should name {name}:\n{res.stderr}"


# ----------------------------------------------------------------------------- count / for_each

def test_count_string_is_rejected_with_location(workdir: Workdir) -> None:
    res = plan(workdir, lines(
        'resource "terraform_data" "a" {',
        '  count = "abc"',
        '}',
    ))
    assert_failed(res)
    assert "count" in res.stderr, res.stderr
    assert_located(res, "main.tf", 2)


def test_negative_count_is_rejected_with_location(workdir: Workdir) -> None:
    res = plan(workdir, lines(
        'resource "terraform_data" "a" {',
        '  count = -1',
        '}',
    ))
    assert_failed(res)
    assert "Invalid count argument" in res.stderr, res.stderr
    assert_located(res, "main.tf", 2)


def test_for_each_over_a_list_is_rejected_with_location(workdir: Workdir) -> None:
    res = plan(workdir, lines(
        'resource "terraform_data" "a" {',
        '  for_each = ["x", "y"]',
        '  input    = each.key',
        '}',
    ))
    assert_failed(res)
    assert "Invalid for_each argument" in res.stderr, res.stderr
    assert_located(res, "main.tf", 2)


# ----------------------------------------------------------------------------- declarations

def test_duplicate_resource_address_is_located(workdir: Workdir) -> None:
    res = plan(workdir, lines(
        'resource "terraform_data" "a" {',
        '  input = 1',
        '}',
        'resource "terraform_data" "a" {',
        '  input = 2',
        '}',
    ))
    assert_failed(res)
    assert "Duplicate resource" in res.stderr, res.stderr
    assert_located(res, "main.tf", 4)


def test_unknown_resource_type_is_located(workdir: Workdir) -> None:
    res = plan(workdir, lines(
        'variable "v" {',
        '  default = 1',
        '}',
        'resource "terraform_dat" "a" {',
        '  input = var.v',
        '}',
    ))
    assert_failed(res)
    assert "terraform_dat" in res.stderr, f"the diagnostic should name the bad type:\n{res.stderr}"
    assert_located(res, "main.tf", 4)


def test_unsupported_argument_is_located(workdir: Workdir) -> None:
    res = plan(workdir, lines(
        'resource "terraform_data" "a" {',
        '  input = 1',
        '  bogus = 2',
        '}',
    ))
    assert_failed(res)
    assert "Unsupported argument" in res.stderr, res.stderr
    assert '"bogus"' in res.stderr, f"the diagnostic should name the argument:\n{res.stderr}"
    assert_located(res, "main.tf", 3)


def test_tf_json_bad_reference_names_the_json_file(workdir: Workdir) -> None:
    res = plan(workdir, lines(
        '{',
        '  "resource": {',
        '    "terraform_data": {',
        '      "a": {',
        '        "input": "${terraform_data.nope.id}"',
        '      }',
        '    }',
        '  }',
        '}',
    ), name="main.tf.json")
    assert_failed(res)
    assert "Reference to undeclared resource" in res.stderr, res.stderr
    assert_located(res, "main.tf.json", 5)


def test_bad_reference_in_second_file_names_that_file(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "a" {\n  input = 1\n}\n', name="main.tf")
    res = plan(workdir, lines(
        '# other resources',
        'resource "terraform_data" "b" {',
        '  input = terraform_data.nope.id',
        '}',
    ), name="other.tf")
    assert_failed(res)
    assert_located(res, "other.tf", 3)


# ----------------------------------------------------------------------------- command line

def test_var_for_undeclared_variable_is_an_error(workdir: Workdir) -> None:
    res = plan(workdir, lines(
        'resource "terraform_data" "a" {',
        '  input = 1',
        '}',
    ), "-var", "nope=1")
    assert_failed(res)
    assert "undeclared variable" in res.stderr, res.stderr
    assert '"nope"' in res.stderr, f"the diagnostic should name the variable:\n{res.stderr}"


def test_unknown_cli_flag_is_an_error_without_traceback(workdir: Workdir) -> None:
    res = plan(workdir, lines('resource "terraform_data" "a" {', '  input = 1', '}'), "-bogus-flag")
    assert_failed(res)
    assert "-bogus-flag" in res.stderr, f"the error should name the flag:\n{res.stderr}"


def test_unknown_command_is_an_error_without_traceback(workdir: Workdir) -> None:
    workdir.write(lines('resource "terraform_data" "a" {', '  input = 1', '}'))
    res = workdir.strata("plna")
    assert_no_traceback(res)
    # terraform's words, not a diagnostic: tests/cli/test_terraform_text.py compares them
    assert res.returncode == 1 and 'no command named "plna"' in res.stderr, res.stderr


# ----------------------------------------------------------------------------- -json

def test_json_mode_emits_located_diagnostic_event(workdir: Workdir) -> None:
    res = plan(workdir, lines(
        'resource "terraform_data" "a" {',
        '  input = 1',
        '}',
        'resource "terraform_data" "b" {',
        '  input = terraform_data.nope.id',
        '}',
    ), "-json")
    assert_no_traceback(res)
    assert res.returncode == 1, f"expected exit 1, got {res.returncode}\n{res.stdout}{res.stderr}"
    diags = res.of_type("diagnostic")
    assert diags, f"no diagnostic event in the -json stream:\n{res.stdout}"
    d = diags[0]["diagnostic"]
    assert d["severity"] == "error", d
    assert d["summary"] == "Reference to undeclared resource", d
    assert d["range"]["filename"] == "main.tf", d
    assert d["range"]["start"]["line"] == 5, d
    assert diags[0]["@level"] == "error", diags[0]


def test_json_mode_stdout_is_only_json_lines(workdir: Workdir) -> None:
    res = plan(workdir, lines('resource "terraform_data" "a" {', '  count = -1', '}'), "-json")
    assert res.returncode == 1, res.stdout + res.stderr
    for line in res.stdout.splitlines():
        try:
            orjson.loads(line)
        except orjson.JSONDecodeError:
            raise AssertionError(f"non-JSON line in -json output: {line!r}\n{res.stdout}") from None


def test_unterminated_string_points_at_its_line(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "a" {\n  input = "x\n}\n')
    res = workdir.strata("validate")
    assert res.returncode == 1 and "Unterminated template string" in res.stderr
    assert "on main.tf line 2" in res.stderr and "Traceback" not in res.stderr


def test_apply_json_without_auto_approve_is_terraforms_json_diagnostic(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "a" {\n  input = 1\n}\n')
    res = workdir.strata("apply", "-json")
    assert res.returncode == 1
    assert [e["type"] for e in res.events] == ["version", "diagnostic"]
    d = res.of_type("diagnostic")[0]["diagnostic"]
    assert d["severity"] == "error" and d["summary"] == "Plan file or auto-approve required"  # terraform's words
    assert "Traceback" not in res.stderr
    assert not (workdir.path / "terraform.tfstate").exists() or "terraform_data" not in (
        workdir.path / "terraform.tfstate").read_text()


def test_init_with_only_built_in_providers_writes_nothing(workdir: Workdir, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", os.devnull)
    workdir.write(lines('resource "terraform_data" "a" {', '  input = 1', '}'))
    res = workdir.strata("init")
    assert res.returncode == 0 and "successfully initialized" in res.stdout, res.stdout + res.stderr
    assert sorted(p.name for p in workdir.path.iterdir()) == ["main.tf"], "init must not write anything"


def test_an_apply_error_points_at_the_resource_as_terraform_does(workdir: Workdir) -> None:
    workdir.write(lines(
        'provider "sim" {',
        '  ledger     = "cloud.jsonl"',
        '  latency_ms = 1',
        '}',
        '',
        'resource "sim_object" "bad" {',   # line 6
        '  name = "bad"',
        '  fail = "create"',
        '}',
    ))
    res = workdir.strata("apply", "-auto-approve")
    assert_failed(res)
    assert ("│   with sim_object.bad,\n"
            '│   on main.tf line 6, in resource "sim_object" "bad":\n'
            '│    6: resource "sim_object" "bad" {\n') in res.stderr, res.stderr


def test_a_misspelt_flag_is_reported_in_terraforms_words(workdir: Workdir) -> None:
    res = plan(workdir, lines('resource "terraform_data" "a" {', '  input = 1', '}'), "-paralelism=3")
    assert_failed(res)
    assert "flag provided but not defined: -paralelism" in res.stderr, res.stderr


# ----------------------------------------------------------------------------- the enclosing block

_CONTEXT_CONFIG = lines(
    'resource "terraform_data" "x" {',
    '  input = var.nope',                    # line 2
    '',
    '  lifecycle {',
    '    ignore_changes = [input]',
    '  }',
    '}',
    '',
    'locals {',
    '  a = local.missing',                   # line 10
    '}',
    '',
    'output "o" {',
    '  value = var.nope2',                   # line 14
    '}',
)


def _contexts(stderr: str) -> list[str]:
    return re.findall(r"on (main\.tf line \d+(?:, in [^:]+)?):", stderr)


def test_a_diagnostic_names_the_top_level_block_it_is_in_as_terraform_does(workdir: Workdir) -> None:
    res = plan(workdir, _CONTEXT_CONFIG)
    assert_failed(res)
    assert _contexts(res.stderr) == ['main.tf line 2, in resource "terraform_data" "x"',
                                     "main.tf line 10, in locals",
                                     'main.tf line 14, in output "o"'], res.stderr


def test_a_plan_time_error_in_a_local_or_an_output_names_its_block(workdir: Workdir) -> None:
    res = plan(workdir, lines(
        'locals {',
        '  a = 1 + "x"',
        '}',
        'output "o" {',
        '  value = upper(5, 6)',
        '}',
    ))
    assert_failed(res)
    assert set(_contexts(res.stderr)) == {"main.tf line 2, in locals", 'main.tf line 5, in output "o"'}, res.stderr


_CONTEXT_JSON = lines(
    '{',
    '  "locals": {"b": "${var.nope2}"},',
    '  "resource": {',
    '    "terraform_data": {',
    '      "x": {',
    '        "input": "${var.nope}"',
    '      }',
    '    }',
    '  }',
    '}',
)


@requires_terraform
@pytest.mark.parametrize(("name", "text"), [("main.tf", _CONTEXT_CONFIG), ("main.tf.json", _CONTEXT_JSON)])
def test_the_enclosing_blocks_are_the_ones_terraform_names(workdir: Workdir, name: str, text: str) -> None:
    workdir.write(text, name=name)
    tf = workdir.terraform("validate", "-no-color")
    ours = workdir.strata("validate")
    assert tf.returncode == 1 and ours.returncode == 1

    def contexts(text: str) -> list[str]:
        return sorted(re.findall(r"on (main\.tf(?:\.json)? line \d+(?:, in [^:]+)?):", text))

    assert contexts(ours.stderr) == contexts(tf.stdout + tf.stderr) != [], (tf.stdout, tf.stderr, ours.stderr)


# ----------------------------------------------------------------------------- no command

def test_no_command_prints_the_usage_and_exits_127_as_terraform_does(workdir: Workdir) -> None:
    res = workdir.strata()
    assert_no_traceback(res)
    assert res.returncode == 127 and "Usage: strata" in res.stdout, res
    helped = workdir.strata("-help")
    assert helped.returncode == 0 and helped.stdout == res.stdout
    unknown = workdir.strata("bogus")
    assert unknown.returncode == 1 and 'no command named "bogus"' in unknown.stderr, unknown


def test_a_mistake_in_an_expression_names_its_block_once_and_no_instance(workdir: Workdir) -> None:
    # terraform: one "Invalid function argument", "on main.tf line 3, in resource ...", no "with"
    res = plan(workdir, lines(
        'resource "terraform_data" "y" {',
        '  count = 2',
        '  input = tonumber("abc")',
        '}',
    ))
    assert_failed(res)
    assert res.stderr.count("Error: ") == 1, res.stderr
    assert "with terraform_data.y" not in res.stderr, res.stderr
    assert _contexts(res.stderr) == ['main.tf line 3, in resource "terraform_data" "y"'], res.stderr
    streamed = workdir.strata("plan", "-json")
    diags = [orjson.loads(line)["diagnostic"] for line in streamed.stdout.splitlines()
             if orjson.loads(line)["type"] == "diagnostic"]
    assert [(d["summary"], "address" in d) for d in diags] == [("Invalid function argument", False)], diags


@requires_terraform
def test_expression_mistakes_are_reported_as_terraform_reports_them(workdir: Workdir) -> None:
    workdir.write(lines(
        'resource "terraform_data" "y" {',
        '  count = 2',
        '  input = tonumber("abc")',
        '}',
        'locals {',
        '  a = 1 + "x"',
        '}',
    ))
    tf = workdir.terraform("plan", "-json", "-input=false")
    ours = workdir.strata("plan", "-json")

    def where(stdout: str) -> list[tuple[str | None, int, str | None]]:
        out = []
        for line in stdout.splitlines():
            event = orjson.loads(line)
            if event["type"] == "diagnostic":
                d = event["diagnostic"]
                out.append((d.get("address"), d["range"]["start"]["line"], d["range"]["filename"]))
        return sorted(out, key=repr)

    assert tf.returncode == ours.returncode == 1
    assert where(ours.stdout) == where(tf.stdout) != [], (tf.stdout, ours.stdout)


# ----------------------------------------------------------------------------- -json snippets

def _snippets(stdout: str) -> list[dict[str, object]]:
    out = []
    for line in stdout.splitlines():
        event = orjson.loads(line)
        if event["type"] == "diagnostic" and "snippet" in event["diagnostic"]:
            out.append(event["diagnostic"]["snippet"])
    return sorted(out, key=lambda s: s["start_line"])  # type: ignore[arg-type, return-value]


def test_json_diagnostics_carry_terraforms_snippet(workdir: Workdir) -> None:
    workdir.write(_CONTEXT_CONFIG)
    res = workdir.strata("plan", "-json")
    assert _snippets(res.stdout) == [
        {"context": 'resource "terraform_data" "x"', "code": "  input = var.nope", "start_line": 2,
         "highlight_start_offset": 10, "highlight_end_offset": 18, "values": []},
        {"context": "locals", "code": "  a = local.missing", "start_line": 10,
         "highlight_start_offset": 6, "highlight_end_offset": 19, "values": []},
        {"context": 'output "o"', "code": "  value = var.nope2", "start_line": 14,
         "highlight_start_offset": 10, "highlight_end_offset": 19, "values": []},
    ]
    validated = orjson.loads(workdir.strata("validate", "-json").stdout)
    assert [d["snippet"]["context"] for d in validated["diagnostics"]] == \
        ['resource "terraform_data" "x"', "locals", 'output "o"']


@requires_terraform
def test_json_snippets_match_terraforms(workdir: Workdir) -> None:
    workdir.write(_CONTEXT_CONFIG)
    tf = workdir.terraform("plan", "-json", "-input=false")
    assert _snippets(workdir.strata("plan", "-json").stdout) == _snippets(tf.stdout) != []


# ----------------------------------------------------------------------------- -json ranges

# each makes diagnostics whose ranges terraform gives as strata does: from the expression to the
# end of its line, a block's header, or an argument's or block's name (where terraform's range is
# a part of an expression, strata's is not yet: it has no expression ranges)
_RANGES = {
    "postcondition": 'resource "terraform_data" "a" {\n  input = 1\n  lifecycle {\n    postcondition {\n'
                     '      condition     = self.input == 2\n      error_message = "no"\n    }\n  }\n}\n',
    "validation": 'variable "v" {\n  default = 1\n  validation {\n    condition     = var.v > 5\n'
                  '    error_message = "big"\n  }\n}\n',
    "undeclared": 'output "o" {\n  value = var.nope2\n}\n',
    "unset": 'variable "x" {\n  type = string\n}\noutput "o" {\n  value = var.x\n}\n',
    "assertion": 'check "c" {\n  assert {\n    condition     = terraform_data.a.input == 3\n'
                 '    error_message = "three"\n  }\n}\nresource "terraform_data" "a" {\n  input = 1\n}\n',
    # a condition that refers to nothing: the condition's expression
    "precondition": 'resource "terraform_data" "a" {\n  lifecycle {\n    precondition {\n'
                    '      condition     = 1 == 2\n      error_message = "no"\n    }\n  }\n}\n',
    "output condition": 'output "o" {\n  value = 1\n  precondition {\n    condition     = false == true\n'
                        '    error_message = "pre"\n  }\n}\n',
    "assert": 'check "c" {\n  assert {\n    condition     = 1 == 3\n    error_message = "three"\n  }\n}\n',
    # an argument or a block as such: its name
    "unsupported argument": 'resource "terraform_data" "a" {\n  lifecycle {\n    nope = true\n  }\n}\n',
    "unsupported block": 'resource "terraform_data" "a" {\n  nope {\n  }\n}\n',
    "redefined": 'resource "terraform_data" "a" {\n  input = 1\n  input = 2\n}\n',
    "variable argument": 'variable "v" {\n  nope = 2\n}\n',
    # a comment that ends the line is not the expression's; a "#" in a string is
    "comment": 'output "o" {\n  value = var.nope2 # note\n}\n',
    "string": 'resource "terraform_data" "a" {\n  input = "a#b"\n  lifecycle {\n    postcondition {\n'
              '      condition     = self.input == "a/*#*/${"}"}" // why\n      error_message = "no"\n'
              '    }\n  }\n}\n',
    "block comments": 'resource "terraform_data" "a" {\n  lifecycle {\n    precondition {\n'
                      '      condition     = 1 /* one */ == 2 /* two */\n      error_message = "no"\n    }\n  }\n}\n',
}


def _ranges(stdout: str) -> list[tuple[object, ...]]:
    out = []
    for line in stdout.splitlines():
        event = orjson.loads(line)
        if event["type"] == "diagnostic":
            d = event["diagnostic"]
            snippet = d.get("snippet", {})
            out.append((d["summary"], d["range"], snippet.get("highlight_start_offset"),
                        snippet.get("highlight_end_offset")))
    return sorted(out, key=repr)


@requires_terraform
@pytest.mark.parametrize("case", sorted(_RANGES))
def test_json_ranges_run_to_the_end_of_the_expression_as_terraforms(workdir: Workdir, case: str) -> None:
    workdir.write(_RANGES[case])
    workdir.terraform("init", "-input=false", "-no-color")  # refuses a configuration that does not load
    tf = workdir.terraform("plan", "-json", "-input=false")
    ours = _ranges(workdir.strata("plan", "-json", "-input=false").stdout)
    assert ours == _ranges(tf.stdout) != []
    assert all(r["end"] != r["start"] for _, r, _, _ in ours)  # type: ignore[index]


def test_a_range_known_by_its_line_starts_at_its_expression(workdir: Workdir) -> None:
    # a postcondition's range is known by its line alone: its column and byte come from the file,
    # past the multi-byte characters before it
    workdir.write('# é\n' + _RANGES["postcondition"])
    (d,) = [e["diagnostic"] for e in workdir.strata("plan", "-json").events if e["type"] == "diagnostic"]
    assert d["range"] == {"filename": "main.tf", "start": {"line": 6, "column": 23, "byte": 105},
                          "end": {"line": 6, "column": 38, "byte": 120}}
    assert (d["snippet"]["highlight_start_offset"], d["snippet"]["highlight_end_offset"]) == (22, 37)
    source = (workdir.path / "main.tf").read_bytes()
    assert source[105:120] == b"self.input == 2"

"""What a fuzz run of the language found (issue 23, item 11), run through the real command: deep
nesting terraform accepts, odd literals, and inputs terraform refuses that must be diagnostics,
never tracebacks."""

from __future__ import annotations

import resource

from tests.conftest import Workdir

N = 10_000  # terraform 1.11 accepts this depth of each construct


def deep_locals(n: int) -> str:
    kinds = {
        "list": "[" * n + "1" + "]" * n,
        "object": "{a = " * n + "1" + "}" * n,
        "paren": "(" * n + "1" + ")" * n,
        "plus": "+".join(["1"] * n),
        "cond": "true ? " * n + "1" + " : 2" * n,
        "call": "abs(" * n + "1" + ")" * n,
        "for": "[for x in " * n + "[1]" + " : x]" * n,
        "neg": "-" * n + "1",
        "not": "!" * n + "true",
    }
    body = "".join(f"  {k} = {v}\n" for k, v in kinds.items())
    outputs = "".join(f'output "{k}" {{ value = length(jsonencode(local.{k})) }}\n' for k in kinds)
    blocks = 'resource "terraform_data" "b" {\n' + "  lifecycle {\n" * 1 + "  }\n" * 1 + "}\n"
    return f"locals {{\n{body}}}\n{outputs}{blocks}"


def test_nesting_ten_thousand_deep_validates_and_plans(workdir: Workdir) -> None:
    workdir.write(deep_locals(N))
    for command in ("validate", "plan"):
        r = workdir.strata(command, "-no-color")
        assert "Traceback" not in r.stderr, r.stderr[-2000:]
        assert r.returncode == 0, f"{command}: {r.stderr[-1000:]}"


def test_nested_blocks_ten_thousand_deep_validate(workdir: Workdir) -> None:
    workdir.write("locals {\n}\nterraform {\n" + "  x {\n" * N + "  }\n" * N + "}\n")
    r = workdir.strata("validate", "-no-color")
    assert "Traceback" not in r.stderr and "RecursionError" not in r.stderr, r.stderr[-2000:]


def test_nesting_beyond_the_limit_is_a_diagnostic(workdir: Workdir) -> None:
    workdir.write("locals {\n  v = " + "+".join(["1"] * 30_000) + "\n}\n")
    r = workdir.strata("validate", "-no-color")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "Configuration nested too deeply" in r.stderr


def test_odd_literals_terraform_accepts(workdir: Workdir) -> None:
    workdir.write('\ufeffoutput "o" {\n  value = [--1, !!true, 1e3, ' + "9" * 5000 + " > 0]\n}\n")
    r = workdir.strata("plan", "-no-color")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "+ 1," in r.stdout and "+ true," in r.stdout and "+ 1000," in r.stdout


def test_fractional_count_is_refused(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "x" {\n  count = 1e-400\n}\n')
    r = workdir.strata("plan", "-no-color")  # (terraform's validate refuses it too: item 8's work)
    assert r.returncode == 1 and "Invalid count argument" in r.stderr, r.stderr


def test_carriage_return_in_a_quoted_string_is_refused(workdir: Workdir) -> None:
    (workdir.path / "main.tf").write_bytes(b'output "o" {\n  value = "a\rb"\n}\n')
    r = workdir.strata("validate", "-no-color")
    assert r.returncode == 1 and "Invalid multi-line string" in r.stderr, r.stderr


def test_first_argument_on_a_multi_line_blocks_opening_line_is_refused(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "x" { input = 1\n  triggers_replace = 2\n}\n')
    r = workdir.strata("validate", "-no-color")
    assert r.returncode == 1 and "Invalid single-argument block definition" in r.stderr, r.stderr
    assert "on main.tf line 1" in r.stderr


def test_huge_format_width_is_go_s_refusal(workdir: Workdir) -> None:
    workdir.write('output "o" {\n  value = format("%999999999d", 1)\n}\n')
    r = workdir.strata("plan", "-no-color")
    assert r.returncode == 0 and '"%!(NOVERB)%!(EXTRA *big.Int=1)"' in r.stdout, r.stdout + r.stderr


def test_interpolations_cost_in_proportion_to_their_number(workdir: Workdir) -> None:
    # 250,000 "${1}" in a string took 15 s before the new parser; what it takes now is the parse
    # benchmark's business (this machine's speed varies by 2x within a day): here, ten times the
    # interpolations must cost about ten times the CPU (a cost that grows with the square would
    # be a hundred times), both measured in this test
    def cpu_of(n: int) -> float:
        workdir.write('locals {\n  x = "' + "${1}" * n + '"\n}\noutput "o" { value = length(local.x) }\n')
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        r = workdir.strata("validate", "-no-color", cold=True)  # a child of this process: its CPU is counted
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        assert r.returncode == 0, r.stderr
        return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)

    small, large = cpu_of(10_000), cpu_of(100_000)
    assert large < 25 * small, f"10,000 interpolations took {small:.2f} s of CPU, 100,000 took {large:.2f} s"

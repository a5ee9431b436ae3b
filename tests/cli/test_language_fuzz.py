"""Mutated configurations through ``validate`` and ``plan``: whatever the input, the answer is a
result or diagnostics, never a traceback (issue 23: a fuzz run of 4,200 runs found 185).

In process (``engine.cli.main.main``), so a few hundred runs take seconds; an exception escaping
``main`` is what a user would have seen as a traceback. The seed is fixed: a failure reproduces.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from engine.cli import main as cli

SEEDS = [
    """\
    variable "names" {
      type    = list(string)
      default = ["a", "b"]
    }
    locals {
      tags   = merge({ team = "core" }, { for n in var.names : n => upper(n) })
      cidrs  = [for i, n in var.names : "10.0.${i}.0/24" if n != ""]
      text   = <<-EOT
        %{ for n in var.names ~}
        name: ${n}
        %{ endfor ~}
        EOT
      picked = length(var.names) > 1 ? var.names[0] : "none"
    }
    resource "terraform_data" "x" {
      count = 2
      input = { tag = local.tags, i = count.index, text = local.text }
      lifecycle {
        ignore_changes = [input]
      }
    }
    output "o" { value = [terraform_data.x[*].input, local.cidrs, local.picked] }
    """,
    """\
    locals {
      m = { a = 1, "b c" = [1, 2.5, -3, 1e3], (upper("k")) = null }
      s = "esc \\" \\n \\u00e9 $${x} %%{y} ${jsonencode(local.m)}"
      t = !true || 1 + 2 * 3 >= 7 && "x" == "x"
      g = { for k, v in local.m : v => k... if k != "" }
    }
    output "s" { value = [local.s, local.t, local.g] }
    """,
]
TOKENS = ["{", "}", "[", "]", "(", ")", '"', "${", "%{", "~", "=", "==", "\n", ".", "*", "-", "!", "?", ":",
          ",", "...", "<<EOT\n", "EOT\n", "for", "in", "if", "endif", "endfor", "1e-400", "\\", "#", "/*",
          "\r", "\ufeff", "\t", "9" * 30, "null", "=>"]


VALUES = ["null", "[]", "{}", '"x"', "-1", "1e-400", "true", "var.names", "local.m", "count.index",
          "terraform_data.x", "9" * 40, '"${null}"', "[for x in null : x]", "toset([])", "{ a = null }",
          "local.tags[0]", 'var.names["a"]', "terraform_data.x[*].id", "upper(1, 2)", "nosuch(1)",
          '"%{ if null }x%{ endif }"', '"%{ for x in 1 }${x}%{ endfor }"', "1 / 0", '"a" + 1',
          "[1, 2][5]", "-true", "!1", "(", "local.self_ref", "{ for k, v in [1] : v => k }"]
ARGUMENT = re.compile(r"(?m)^(\s*[A-Za-z_][\w-]*\s*=\s*)(.+)$")


def mutate(text: str, rng: random.Random) -> str:
    if rng.random() < 0.5:  # a value swapped for another: valid syntax, odd meaning
        for _ in range(rng.randint(1, 3)):
            found = list(ARGUMENT.finditer(text))
            m = rng.choice(found)
            text = text[:m.start(2)] + rng.choice(VALUES) + text[m.end(2):]
        return text
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(text) + 1)
        op = rng.random()
        if op < 0.35:
            text = text[:i] + rng.choice(TOKENS) + text[i:]
        elif op < 0.6:
            text = text[:i] + text[i + rng.randint(1, 8):]
        elif op < 0.8:
            j = rng.randrange(len(text) + 1)
            text = text[:i] + text[min(i, j):max(i, j)] + text[i:]
        else:
            lines = text.split("\n")
            rng.shuffle(lines)
            text = "\n".join(lines)
    return text


def cases(n: int) -> list[str]:
    import textwrap

    rng = random.Random(23)
    seeds = [textwrap.dedent(s) for s in SEEDS]
    return [mutate(rng.choice(seeds), rng) for _ in range(n)]


@pytest.mark.parametrize("batch", range(4))
def test_mutated_configurations_never_raise(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str], batch: int) -> None:
    texts = cases(120)[batch * 30:(batch + 1) * 30]
    for i, text in enumerate(texts):
        d = tmp_path / str(i)
        d.mkdir()
        (d / "main.tf").write_text(text, encoding="utf-8", errors="surrogatepass")
        monkeypatch.chdir(d)
        for command in (["validate", "-no-color"], ["plan", "-no-color", "-input=false", "-lock=false"]):
            try:
                code = cli.main(command)
            except BaseException as exc:  # noqa: BLE001 - exactly what the test is about
                pytest.fail(f"strata {command[0]} raised {type(exc).__name__}: {exc}\non this main.tf:\n{text}")
            assert code in (0, 1, 2), f"{command[0]} exited {code}"
        capsys.readouterr()
